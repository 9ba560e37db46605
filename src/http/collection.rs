//! A record's collection declared once: its path under its kept record (a tender, a
//! contract), the path parameter naming an item, where its items are held and how one is
//! shown. The handlers of `GET …/{things}`, `GET …/{things}/{thing_id}`, `POST …/{things}`
//! and `PATCH …/{things}/{thing_id}` follow from the declaration over the shared reads and
//! writes, the writes each with who may make them and the rule that makes them: adding a
//! resource is a declaration and its rules.

use super::error::Handled;
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

    pub const fn list(&'static self) -> List<K, T> {
        List(self)
    }

    pub const fn show(&'static self) -> Show<K, T> {
        Show(self)
    }

    /// `POST`: `who` may add, `rule` adds.
    pub const fn adds(&'static self, who: Allowed<K>, rule: AddRule<K>) -> Add<K, T> {
        Add {
            of: self,
            who,
            rule,
        }
    }

    /// `PATCH`: `who` may change an item, `rule` changes it.
    pub const fn changes(&'static self, who: Allowed<K>, rule: ChangeRule<K>) -> Edit<K, T> {
        Edit {
            of: self,
            who,
            rule,
        }
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

/// `GET …/{things}`.
pub struct List<K: 'static, T: 'static>(&'static Collection<K, T>);

/// `GET …/{things}/{thing_id}`.
pub struct Show<K: 'static, T: 'static>(&'static Collection<K, T>);

/// `POST …/{things}`, answered 201 with the new item's `Location`.
pub struct Add<K: 'static, T: 'static> {
    of: &'static Collection<K, T>,
    who: Allowed<K>,
    rule: AddRule<K>,
}

/// `PATCH …/{things}/{thing_id}`.
pub struct Edit<K: 'static, T: 'static> {
    of: &'static Collection<K, T>,
    who: Allowed<K>,
    rule: ChangeRule<K>,
}

/// A handler's refusal written as the API's error.
fn answer(res: &mut Response, done: Handled) {
    if let Err(error) = done {
        res.render(error);
    }
}

#[async_trait]
impl<K: Kept, T: Held> Handler for List<K, T> {
    async fn handle(
        &self,
        req: &mut Request,
        depot: &mut Depot,
        res: &mut Response,
        _: &mut FlowCtrl,
    ) {
        let done = reads::list(req, depot, res, |record| Ok(self.0.all(record)));
        answer(res, done);
    }
}

#[async_trait]
impl<K: Kept, T: Held> Handler for Show<K, T> {
    async fn handle(
        &self,
        req: &mut Request,
        depot: &mut Depot,
        res: &mut Response,
        _: &mut FlowCtrl,
    ) {
        let done = reads::one(req, depot, res, self.0.item, |record, id| {
            self.0.one(record, id)
        });
        answer(res, done);
    }
}

#[async_trait]
impl<K: Kept, T: Held> Handler for Add<K, T> {
    async fn handle(
        &self,
        req: &mut Request,
        depot: &mut Depot,
        res: &mut Response,
        _: &mut FlowCtrl,
    ) {
        let of = self.of;
        let view = |record: &K, id: &str| of.one(record, id);
        let done = writes::add(req, depot, res, of.path, self.who, self.rule, view).await;
        answer(res, done);
    }
}

#[async_trait]
impl<K: Kept, T: Held> Handler for Edit<K, T> {
    async fn handle(
        &self,
        req: &mut Request,
        depot: &mut Depot,
        res: &mut Response,
        _: &mut FlowCtrl,
    ) {
        let of = self.of;
        let view = |record: &K, id: &str| of.one(record, id);
        let done = writes::change(req, depot, res, of.item, self.who, self.rule, view).await;
        answer(res, done);
    }
}
