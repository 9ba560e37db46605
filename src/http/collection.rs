//! A record's collection declared once: its path under its kept record (a tender, a
//! contract), the path parameter naming an item, where its items are held and how one is
//! shown. The handlers of `GET …/{things}`, `GET …/{things}/{thing_id}`, `POST …/{things}`
//! and `PATCH …/{things}/{thing_id}` follow from the declaration over the shared reads and
//! writes, the writes each with who may make them and the rule that makes them: adding a
//! resource is a declaration and its rules.

use super::guard::Kept;
use super::writes::{Allowed, Sent};
use super::{reads, writes};
use crate::domain::lookup::{ById, Identified};
use crate::domain::{Change, Refusal};
use salvo::prelude::*;
use serde::Serialize;
use serde_json::Value as Json;

/// Where a record holds a collection's items.
pub type Items<K, T> = for<'a> fn(&'a K) -> &'a [T];
/// How an item is shown, which may depend on its record (a question on its tender's status).
pub type View<K, T> = fn(&K, &T) -> Json;
/// The rule that adds an item and answers its id.
pub type AddRule<K> = fn(&mut K, &Sent<'_>) -> Result<String, Refusal>;
/// The rule that changes the item of an id.
pub type ChangeRule<K> = fn(&mut K, &str, &Sent<'_>) -> Result<Change, Refusal>;

/// What a collection holds: items found by id, shown as JSON, shared between requests.
pub trait Held: Identified + Serialize + Send + Sync + 'static {}

impl<T: Identified + Serialize + Send + Sync + 'static> Held for T {}

/// A collection of `T`s under a kept record `K`.
pub struct Collection<K: 'static, T: 'static> {
    path: &'static str,
    item: &'static str,
    items: Items<K, T>,
    view: View<K, T>,
}

/// An item shown as its record holds it.
fn plain<K, T: Serialize>(_: &K, item: &T) -> Json {
    reads::json(item)
}

impl<K: Kept, T: Held> Collection<K, T> {
    /// The collection at `path` (`lots`), an item named by the path parameter `item`
    /// (`lot_id`), its items where `items` finds them, each shown as it is held.
    pub const fn of(path: &'static str, item: &'static str, items: Items<K, T>) -> Self {
        Collection {
            path,
            item,
            items,
            view: plain::<K, T>,
        }
    }

    /// The same, each item shown by `view`.
    pub const fn shown(self, view: View<K, T>) -> Self {
        Collection { view, ..self }
    }

    /// `GET …/{things}`.
    pub const fn list(&'static self) -> Served<K, T> {
        self.serves(Verb::List)
    }

    /// `GET …/{things}/{thing_id}`.
    pub const fn show(&'static self) -> Served<K, T> {
        self.serves(Verb::Show)
    }

    /// `POST …/{things}`, answered 201 with the new item's `Location`: `who` may add,
    /// `rule` adds.
    pub const fn adds(&'static self, who: Allowed<K>, rule: AddRule<K>) -> Served<K, T> {
        self.serves(Verb::Add(who, rule))
    }

    /// `PATCH …/{things}/{thing_id}`: `who` may change an item, `rule` changes it.
    pub const fn changes(&'static self, who: Allowed<K>, rule: ChangeRule<K>) -> Served<K, T> {
        self.serves(Verb::Change(who, rule))
    }

    const fn serves(&'static self, verb: Verb<K>) -> Served<K, T> {
        Served { of: self, verb }
    }

    fn all(&self, record: &K) -> Json {
        let items = (self.items)(record).iter();
        Json::Array(items.map(|item| (self.view)(record, item)).collect())
    }

    fn one(&self, record: &K, id: &str) -> Result<Json, Refusal> {
        let item = (self.items)(record).by_id(id, self.item)?;
        Ok((self.view)(record, item))
    }
}

/// What a handler of the collection does.
enum Verb<K: 'static> {
    List,
    Show,
    Add(Allowed<K>, AddRule<K>),
    Change(Allowed<K>, ChangeRule<K>),
}

/// One of the collection's handlers.
pub struct Served<K: 'static, T: 'static> {
    of: &'static Collection<K, T>,
    verb: Verb<K>,
}

#[async_trait]
impl<K: Kept, T: Held> Handler for Served<K, T> {
    async fn handle(
        &self,
        req: &mut Request,
        depot: &mut Depot,
        res: &mut Response,
        _: &mut FlowCtrl,
    ) {
        let of = self.of;
        let view = |record: &K, id: &str| of.one(record, id);
        let done = match self.verb {
            Verb::List => reads::list(req, depot, res, |record| Ok(of.all(record))),
            Verb::Show => reads::one(req, depot, res, of.item, view),
            Verb::Add(who, rule) => writes::add(req, depot, res, of.path, who, rule, view).await,
            Verb::Change(who, rule) => {
                writes::change(req, depot, res, of.item, who, rule, view).await
            }
        };
        // A refusal is written as the API's error.
        if let Err(error) = done {
            res.render(error);
        }
    }
}
