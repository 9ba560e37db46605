//! Documents of tenders, bids, awards, contracts, cancellations and claims:
//! `…/documents[/{document_id}]`.
//!
//! Bid documents belong to the bid's owner, and while bids are confidential only that owner
//! may read them; a claim's documents are written by the claimant or the tender owner, each
//! in its turn; every other holder's documents belong to the tender owner.
//!
//! A document POST or PUT takes `{"data": {url, title, hash, format}}` as JSON, or the file
//! itself as `multipart/form-data` (upstream's legacy upload): the file goes to the embedded
//! document service and the document is registered with its address, as a JSON upload would.

use super::complaints;
use crate::domain::Refusal;
use crate::domain::attachments::{Holder, Stamp};
use crate::domain::complaint::{Actor, Target};
use crate::domain::document::{Filing, UrlStyle};
use crate::domain::input::Input;
use crate::domain::tender::Tender;
use crate::http::auth::{Broker, presented_token};
use crate::http::documents::{Writing, document_data, redirect};
use crate::http::error::{ApiError, Handled};
use crate::http::{App, app, guard, param, reply};
use salvo::prelude::*;
use serde_json::Value as Json;

fn holder(req: &Request) -> Holder {
    if let Some(complaint) = req.param::<String>("complaint_id") {
        let target = match req.param::<String>("award_id") {
            Some(award) => Target::Award(award),
            None => Target::Tender,
        };
        Holder::Complaint(target, complaint)
    } else if let Some(bid) = req.param::<String>("bid_id") {
        Holder::Bid(bid)
    } else if let Some(award) = req.param::<String>("award_id") {
        Holder::Award(award)
    } else if let Some(contract) = req.param::<String>("contract_id") {
        Holder::Contract(contract)
    } else if let Some(cancellation) = req.param::<String>("cancellation_id") {
        Holder::Cancellation(cancellation)
    } else {
        Holder::Tender
    }
}

/// The collection address of the holder's documents.
fn collection(app: &App, req: &Request, tender_id: &str, holder: &Holder) -> String {
    let root = format!("{}/tenders/{tender_id}", app.api_root(req));
    match holder {
        Holder::Tender => format!("{root}/documents"),
        Holder::Bid(id) => format!("{root}/bids/{id}/documents"),
        Holder::Award(id) => format!("{root}/awards/{id}/documents"),
        Holder::Contract(id) => format!("{root}/contracts/{id}/documents"),
        Holder::Cancellation(id) => format!("{root}/cancellations/{id}/documents"),
        Holder::Complaint(Target::Tender, id) => format!("{root}/complaints/{id}/documents"),
        Holder::Complaint(Target::Award(award), id) => {
            format!("{root}/awards/{award}/complaints/{id}/documents")
        }
    }
}

/// May the caller change the holder's documents?
fn may_write(t: &Tender, holder: &Holder, broker: Option<&Broker>, token: Option<&str>) -> bool {
    match holder {
        Holder::Bid(id) => guard::bidder(t, id, broker, token),
        Holder::Complaint(..) => writer(t, holder, broker, token).is_some(),
        _ => guard::owner(t, broker, token),
    }
}

/// The party writing a claim's documents; none for other holders.
fn writer(
    t: &Tender,
    holder: &Holder,
    broker: Option<&Broker>,
    token: Option<&str>,
) -> Option<Actor> {
    match holder {
        Holder::Complaint(target, id) => complaints::actor(t, target, id, broker, token),
        _ => None,
    }
}

/// Reads of bid documents while bids are confidential need the bid's own credentials.
fn may_read(
    t: &Tender,
    holder: &Holder,
    broker: Option<&Broker>,
    token: Option<&str>,
    what: &str,
) -> Result<(), Refusal> {
    match holder {
        Holder::Bid(_) if !t.status.reveals_bids() && !may_write(t, holder, broker, token) => {
            Err(Refusal::phase(format!(
                "Can't view {what} in current ({}) tender status",
                t.status
            )))
        }
        _ => Ok(()),
    }
}

/// The tender, the holder and the document (when named) exist.
fn exists<'a>(
    holder: &'a Holder,
    document_id: Option<&'a str>,
) -> impl Fn(&Tender) -> Result<(), Refusal> + 'a {
    move |t| {
        t.documents_of(holder)?;
        document_id.map_or(Ok(()), |id| t.document(holder, id).map(|_| ()))
    }
}

#[handler]
pub async fn list(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let (tender_id, holder) = (param(req, "tender_id"), holder(req));
    guard::found(&app, &tender_id, exists(&holder, None))?;
    let (broker, token) = (app.brokers.identify(req), presented_token(req, None));
    let docs = app.store.read(&tender_id, |t| -> Result<Json, Refusal> {
        may_read(t, &holder, broker, token.as_deref(), "bid documents")?;
        let mut docs: Vec<_> = t.documents_of(&holder)?.iter().collect();
        docs.sort_by_key(|d| d.current.date_modified);
        Ok(serde_json::to_value(docs).unwrap_or_default())
    });
    let docs = docs.ok_or_else(|| ApiError::not_found("tender_id"))??;
    reply::ok(req, res, docs);
    Ok(())
}

#[handler]
pub async fn show(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let (tender_id, holder, id) = (
        param(req, "tender_id"),
        holder(req),
        param(req, "document_id"),
    );
    guard::found(&app, &tender_id, exists(&holder, Some(&id)))?;
    let (broker, token) = (app.brokers.identify(req), presented_token(req, None));
    let download = req.query::<String>("download");
    let found = app.store.read(
        &tender_id,
        |t| -> Result<Result<Json, (String, String)>, Refusal> {
            may_read(t, &holder, broker, token.as_deref(), "bid document")?;
            let doc = t.document(&holder, &id)?;
            match &download {
                Some(key) => doc
                    .download(key)
                    .map(|url| Err((key.clone(), url.to_string())))
                    .ok_or(Refusal::NotFound("download")),
                None => Ok(Ok(doc.with_versions())),
            }
        },
    );
    match found.ok_or_else(|| ApiError::not_found("tender_id"))?? {
        Ok(view) => reply::ok(req, res, view),
        Err((key, sent)) => redirect(&app, req, res, &key, sent)?,
    }
    Ok(())
}

/// [`document_data`] of a holder under a tender, with the party writing a claim's documents.
async fn writable(
    req: &mut Request,
    app: &App,
    holder: &Holder,
    writing: Writing<'_>,
) -> Result<(String, Json, Option<Actor>), ApiError> {
    let tender_id = param(req, "tender_id");
    let document_id = writing.document();
    let allowed = |t: &Tender, b: Option<&Broker>, tok: Option<&str>| may_write(t, holder, b, tok);
    let title = |t: &Tender| {
        let id = document_id?;
        t.document(holder, id)
            .map(|d| d.current.title().to_string())
            .ok()
    };
    let (data, body_token) = document_data(
        req,
        app,
        &tender_id,
        writing,
        exists(holder, document_id),
        allowed,
        title,
    )
    .await?;
    let (broker, token) = (
        app.brokers.identify(req),
        presented_token(req, body_token.as_deref()),
    );
    let by = app
        .store
        .read(&tender_id, |t| writer(t, holder, broker, token.as_deref()))
        .flatten();
    Ok((tender_id, data, by))
}

fn filing<'a>(app: &'a App, req: &Request, tender_id: &str, holder: &Holder) -> Filing<'a> {
    let style = match holder {
        Holder::Bid(_) => UrlStyle::Download(collection(app, req, tender_id, holder)),
        _ => UrlStyle::Signed,
    };
    app.filing(req, style)
}

#[handler]
pub async fn upload(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let holder = holder(req);
    let (tender_id, data, by) = writable(req, &app, &holder, Writing::New).await?;
    let data = &Input::view(&data);
    let data = &data;
    let (cx, style) = (app.cx(), filing(&app, req, &tender_id, &holder));
    let new_id = std::sync::OnceLock::new();
    let view = app
        .store
        .update(
            &tender_id,
            |t, now| {
                let (id, change) = t.attach(&holder, data, &cx, Stamp { now, by }, &style)?;
                let _ = new_id.set(id);
                Ok(change)
            },
            |t| {
                t.document(&holder, new_id.get().map_or("", String::as_str))
                    .map(|d| serde_json::to_value(d).unwrap_or_default())
            },
        )
        .await??;
    let new_id = new_id.get().cloned().unwrap_or_default();
    let location = format!("{}/{new_id}", collection(&app, req, &tender_id, &holder));
    reply::created(req, res, &location, view, None);
    Ok(())
}

#[handler]
pub async fn replace(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let (holder, id) = (holder(req), param(req, "document_id"));
    let (tender_id, data, by) = writable(req, &app, &holder, Writing::Version(&id)).await?;
    let data = &Input::view(&data);
    let data = &data;
    let (cx, style) = (app.cx(), filing(&app, req, &tender_id, &holder));
    let view = app
        .store
        .update(
            &tender_id,
            |t, now| t.replace_document(&holder, &id, data, &cx, Stamp { now, by }, &style),
            |t| {
                t.document(&holder, &id)
                    .map(|d| serde_json::to_value(d).unwrap_or_default())
            },
        )
        .await??;
    reply::ok(req, res, view);
    Ok(())
}

#[handler]
pub async fn describe(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let (holder, id) = (holder(req), param(req, "document_id"));
    let (tender_id, data, by) = writable(req, &app, &holder, Writing::Metadata(&id)).await?;
    let data = &Input::view(&data);
    let data = &data;
    let cx = app.cx();
    let view = app
        .store
        .update(
            &tender_id,
            |t, now| t.describe_document(&holder, &id, data, &cx, Stamp { now, by }),
            |t| {
                t.document(&holder, &id)
                    .map(|d| serde_json::to_value(d).unwrap_or_default())
            },
        )
        .await??;
    reply::ok(req, res, view);
    Ok(())
}
