//! `/api/2.3/contracts`: contracts under management. Anyone reads them; the tender owner's
//! broker takes the contract's credentials with the tender's token, then writes with the
//! contract's own token: the contract, its changes and its documents.

use super::Contract;
use super::change::ContractChange;
use super::managed::view;
use crate::domain::document::UrlStyle;
use crate::domain::ids;
use crate::domain::input::Input;
use crate::domain::time::Timestamp;
use crate::domain::{Change, Refusal};
use crate::http::auth::Broker;
use crate::http::collection::Collection;
use crate::http::documents::{Writing, document_data, redirect};
use crate::http::error::{ApiError, Handled, write_json};
use crate::http::guard::{self, Kept};
use crate::http::reply::{self, wants_pretty};
use crate::http::writes::Sent;
use crate::http::{App, app, param};
use salvo::http::StatusCode;
use salvo::http::header::CONTENT_TYPE;
use salvo::prelude::*;
use serde_json::Value as Json;

fn to_json<T: serde::Serialize>(value: &T) -> Json {
    serde_json::to_value(value).unwrap_or_default()
}

impl Kept for Contract {
    const PATH: &'static str = "contracts";
    const ID: &'static str = "contract_id";
    fn read<R>(app: &App, id: &str, f: impl FnOnce(&Contract) -> R) -> Option<R> {
        app.store.read_contract(id, f)
    }
    fn update<V: Send>(
        app: &App,
        id: &str,
        op: impl FnOnce(&mut Contract, Timestamp) -> Result<Change, Refusal> + Send,
        view: impl FnOnce(&Contract) -> V + Send,
    ) -> impl Future<Output = Result<V, Refusal>> + Send {
        app.store.update_contract(id, op, view)
    }
}

/// A contract's owner: the tender owner's broker, presenting the contract's own token.
pub fn contract_owner(c: &Contract, broker: Option<&Broker>, token: Option<&str>) -> bool {
    let own = c.owner_token.as_ref();
    matches!((broker, token, own), (Some(b), Some(tok), Some(own)) if b.name == c.owner && own.matches(tok))
}

/// Who may ask for a contract's credentials: the tender owner's broker, presenting the
/// tender's token.
pub fn tender_owner_of(c: &Contract, broker: Option<&Broker>, token: Option<&str>) -> bool {
    matches!((broker, token), (Some(b), Some(tok)) if b.name == c.owner && c.tender_token.matches(tok))
}

/// The contract's address under the API root.
fn address(app: &App, req: &Request, id: &str) -> String {
    format!("{}/contracts/{id}", app.api_root(req))
}

/// Reads something of a contract; 404 `contract_id` for an unknown one.
fn read<T>(
    app: &App,
    id: &str,
    f: impl FnOnce(&Contract) -> Result<T, Refusal>,
) -> Result<T, ApiError> {
    Ok(app
        .store
        .read_contract(id, f)
        .ok_or_else(|| ApiError::not_found("contract_id"))??)
}

/// The public representation is cached per change, as a tender's is.
#[handler]
pub async fn show(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let id = param(req, "contract_id");
    let text = if wants_pretty(req) {
        app.store
            .read_contract(&id, |c| reply::render(view(c), None, true))
            .map(Into::into)
    } else {
        app.store
            .contract_json(&id, |c| reply::render_plain(view(c)))
    };
    write_json(
        res,
        StatusCode::OK,
        text.ok_or_else(|| ApiError::not_found("contract_id"))?,
    );
    Ok(())
}

/// The broker's PATCH of the contract, with the contract's token. A PATCH that changes
/// nothing answers the contract as it is (upstream answered `null`; every success here has a
/// `{"data": …}` body, as the spec's conventions give it).
#[handler]
pub async fn change(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let id = param(req, "contract_id");
    let body = guard::write_in(req, &app, &id, |_: &Contract| Ok(()), contract_owner).await?;
    let (data, cx) = (body.data()?, app.cx());
    let pretty = wants_pretty(req);
    let text = app
        .store
        .update_contract(
            &id,
            |c, _| c.patch(data, &cx),
            |c| reply::render(view(c), None, pretty),
        )
        .await?;
    reply::ok_rendered(res, text);
    Ok(())
}

/// `access.token` of a JSON body, when the body is one: the credentials' body is otherwise
/// ignored, and may be empty.
async fn body_token(req: &mut Request, app: &App) -> Option<String> {
    let json = req
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().starts_with("application/json"));
    if !json {
        return None;
    }
    let bytes = req.payload_with_max_size(app.max_body).await.ok()?;
    let body: Json = serde_json::from_slice(bytes).ok()?;
    body.pointer("/access/token")?.as_str().map(str::to_string)
}

/// New credentials for the contract, with the tender's token, by the tender owner's broker:
/// each call issues a new contract token and retires the one before.
#[handler]
pub async fn credentials(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let id = param(req, "contract_id");
    guard::found_in(&app, &id, |_: &Contract| Ok(()))?;
    let sent = body_token(req, &app).await;
    guard::permitted_in(&app, req, &id, sent.as_deref(), tender_owner_of)?;
    let (token, hash) = ids::new_token();
    let pretty = wants_pretty(req);
    let text = app
        .store
        .update_contract(
            &id,
            |c, _| c.issue_credentials(hash),
            |c| reply::render(view(c), Some(&token), pretty),
        )
        .await?;
    reply::ok_rendered(res, text);
    Ok(())
}

/// `GET …/documents`: each document once, in its latest version, in the order of their last
/// change; `?all=1` every version.
#[handler]
pub async fn documents(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let all = req.query::<String>("all").is_some_and(|v| !v.is_empty());
    let docs = read(&app, &param(req, "contract_id"), |c| {
        let mut shown: Vec<(Timestamp, Json)> = Vec::new();
        for record in &c.documents {
            if all {
                for version in record.previous.iter() {
                    shown.push((version.date_modified, to_json(version)));
                }
            }
            shown.push((record.current.date_modified, to_json(&record.current)));
        }
        shown.sort_by_key(|(modified, _)| *modified);
        Ok(Json::Array(shown.into_iter().map(|(_, d)| d).collect()))
    })?;
    reply::ok(req, res, docs);
    Ok(())
}

/// `GET …/documents/{document_id}`: the document with its earlier versions, or with
/// `?download=<key>` the file.
#[handler]
pub async fn document(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let (id, doc_id) = (param(req, "contract_id"), param(req, "document_id"));
    let download = req.query::<String>("download");
    let found = read(&app, &id, |c| {
        let doc = c.document(&doc_id)?;
        match &download {
            Some(key) => doc
                .download(key)
                .map(|url| Err((key.clone(), url.to_string())))
                .ok_or(Refusal::NotFound("download")),
            None => Ok(Ok(doc.with_versions())),
        }
    })?;
    match found {
        Ok(shown) => reply::ok(req, res, shown),
        Err((key, sent)) => redirect(&app, req, res, &key, sent)?,
    }
    Ok(())
}

/// What a document write under a contract needs first: the contract (and the document, when
/// named) exist, the contract's owner writes, and the document's `data`.
async fn document_write(
    req: &mut Request,
    app: &App,
    id: &str,
    writing: Writing<'_>,
) -> Result<Json, ApiError> {
    let named = writing.document();
    let exists = |c: &Contract| named.map_or(Ok(()), |d| c.document(d).map(|_| ()));
    let allowed = |c: &Contract, b: Option<&Broker>, t: Option<&str>| contract_owner(c, b, t);
    let title = |c: &Contract| {
        let d = c.document(named?).ok()?;
        Some(d.current.title().to_string())
    };
    let (data, _) = document_data(req, app, id, writing, exists, allowed, title).await?;
    Ok(data)
}

/// `POST …/documents`: JSON of a file in the document service (or another store), or the
/// file itself in a multipart body.
#[handler]
pub async fn attach(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let id = param(req, "contract_id");
    let data = document_write(req, &app, &id, Writing::New).await?;
    let data = Input::view(&data);
    let (cx, filing) = (app.cx(), app.filing(req, UrlStyle::Signed));
    let mut new_id = String::new();
    let shown = app
        .store
        .update_contract(
            &id,
            |c, now| {
                new_id = c.attach(&data, &cx, now, &filing)?;
                Ok(Change::Public)
            },
            |c| c.documents.last().map(|d| to_json(&d.current)),
        )
        .await?;
    let location = format!("{}/documents/{new_id}", address(&app, req, &id));
    reply::created(req, res, &location, shown, None);
    Ok(())
}

/// `PUT …/documents/{document_id}`: a new version.
#[handler]
pub async fn replace(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let (id, doc_id) = (param(req, "contract_id"), param(req, "document_id"));
    let data = document_write(req, &app, &id, Writing::Version(&doc_id)).await?;
    let data = Input::view(&data);
    let (cx, filing) = (app.cx(), app.filing(req, UrlStyle::Signed));
    let shown = app
        .store
        .update_contract(
            &id,
            |c, now| c.replace_document(&doc_id, &data, &cx, now, &filing),
            |c| c.document(&doc_id).map(|d| to_json(&d.current)),
        )
        .await??;
    reply::ok(req, res, shown);
    Ok(())
}

/// `PATCH …/documents/{document_id}`: its metadata, a binding to a change among them.
#[handler]
pub async fn describe(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let (id, doc_id) = (param(req, "contract_id"), param(req, "document_id"));
    let data = document_write(req, &app, &id, Writing::Metadata(&doc_id)).await?;
    let data = Input::view(&data);
    let cx = app.cx();
    let shown = app
        .store
        .update_contract(
            &id,
            |c, now| {
                c.describe_document(
                    &doc_id,
                    &Sent {
                        data: &data,
                        cx: &cx,
                        now,
                    },
                )
            },
            |c| c.document(&doc_id).map(|d| to_json(&d.current)),
        )
        .await??;
    reply::ok(req, res, shown);
    Ok(())
}

/// A contract's changes: pending when added, edited or applied after, by its owner.
static CHANGES: Collection<Contract, ContractChange> =
    Collection::of("changes", "change_id", |c| &c.changes);

/// The routes of one contract, `{contract_id}` under `/api/2.3/contracts` (whose feed is the
/// listing's).
pub fn router() -> Router {
    let document_routes = Router::with_path("documents")
        .get(documents)
        .post(attach)
        .push(
            Router::with_path("{document_id}")
                .get(document)
                .put(replace)
                .patch(describe),
        );
    let change_routes = Router::with_path("changes")
        .get(CHANGES.list())
        .post(CHANGES.adds(contract_owner, Contract::add_change))
        .push(
            Router::with_path("{change_id}")
                .get(CHANGES.show())
                .patch(CHANGES.changes(contract_owner, Contract::edit_change)),
        );
    Router::with_path("{contract_id}")
        .get(show)
        .patch(change)
        .push(Router::with_path("credentials").patch(credentials))
        .push(document_routes)
        .push(change_routes)
}
