//! `/tenders/{tender_id}/complaints` and `/tenders/{tender_id}/awards/{award_id}/complaints`:
//! claims, read by anyone. A tender claim is filed by any accredited broker, an award claim
//! by a bidder with the bid's token; each hands back the claim's own token, which the
//! claimant presents afterwards, as the owner presents the tender's to answer.

use crate::domain::complaint::{Actor, Target};
use crate::domain::tender::Tender;
use crate::domain::{Change, Refusal, views};
use crate::http::auth::{Broker, Level, presented_token};
use crate::http::error::{ApiError, Handled};
use crate::http::{App, app, body, guard, param, reply};
use salvo::prelude::*;
use serde_json::Value as Json;

fn target(req: &Request) -> Target {
    match req.param::<String>("award_id") {
        Some(award) => Target::Award(award),
        None => Target::Tender,
    }
}

/// The collection address of the target's claims.
fn collection(app: &App, req: &Request, tender_id: &str, target: &Target) -> String {
    let root = format!("{}/tenders/{tender_id}", app.api_root(req));
    match target {
        Target::Tender => format!("{root}/complaints"),
        Target::Award(id) => format!("{root}/awards/{id}/complaints"),
    }
}

/// A claim as its resource shows it: award claims always with their author.
fn to_json(t: &Tender, target: &Target, id: &str) -> Result<Json, Refusal> {
    let c = t.complaint(target, id)?;
    let view = match target {
        Target::Tender => views::complaint(c, t.status),
        Target::Award(_) => views::complaint_with_author(c),
    };
    Ok(serde_json::to_value(view).unwrap_or_default())
}

#[handler]
pub async fn list(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let target = target(req);
    let all = app
        .store
        .read(&param(req, "tender_id"), |t| -> Result<Json, Refusal> {
            let ids: Vec<String> = t
                .complaints_of(&target)?
                .iter()
                .map(|c| c.id.clone())
                .collect();
            ids.iter()
                .map(|id| to_json(t, &target, id))
                .collect::<Result<Vec<_>, _>>()
                .map(Json::Array)
        })
        .ok_or_else(|| ApiError::not_found("tender_id"))??;
    reply::ok(req, res, all);
    Ok(())
}

#[handler]
pub async fn show(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let (target, id) = (target(req), param(req, "complaint_id"));
    let one = app
        .store
        .read(&param(req, "tender_id"), |t| to_json(t, &target, &id))
        .ok_or_else(|| ApiError::not_found("tender_id"))??;
    reply::ok(req, res, one);
    Ok(())
}

/// Some bidder of the tender, with the bid's own token.
fn any_bidder(t: &Tender, broker: Option<&Broker>, token: Option<&str>) -> bool {
    t.bids
        .iter()
        .any(|b| guard::bidder(t, &b.id, broker, token))
}

/// Filing a claim: 201 with the claim (its author included) and the claimant's token.
#[handler]
pub async fn file(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let (tender_id, target) = (param(req, "tender_id"), target(req));
    guard::found(&app, &tender_id, |t| t.complaints_of(&target).map(|_| ()))?;
    let body = body::read(req, app.max_body).await?;
    let broker = app.brokers.identify(req).ok_or_else(ApiError::forbidden)?;
    if matches!(target, Target::Award(_)) {
        guard::permitted(&app, req, &tender_id, body.token(), any_bidder)?;
    }
    let data = body.data()?;
    let test_mode = app
        .store
        .read(&tender_id, |t| t.is_test())
        .ok_or_else(|| ApiError::not_found("tender_id"))?;
    broker.may_create(Level::Participation, test_mode, "complaint")?;
    let cx = app.cx();
    let mut filed: Option<(Json, String, String)> = None;
    app.store
        .update(
            &tender_id,
            |t, now| {
                let (id, token) = t.file_claim(&target, data, &cx, now, &broker.name)?;
                let c = t.complaint(&target, &id)?;
                let view =
                    serde_json::to_value(views::complaint_with_author(c)).unwrap_or_default();
                filed = Some((view, id, token));
                Ok(Change::Public)
            },
            |_| (),
        )
        .await?;
    let (view, id, token) = filed.unwrap_or_default();
    let location = format!("{}/{id}", collection(&app, req, &tender_id, &target));
    reply::created(req, res, &location, view, Some(&token));
    Ok(())
}

/// Who presents what: the claim's own token makes the claimant, the tender's the owner.
pub(super) fn actor(
    t: &Tender,
    target: &Target,
    id: &str,
    broker: Option<&Broker>,
    token: Option<&str>,
) -> Option<Actor> {
    let c = t.complaint(target, id).ok()?;
    match (broker, token) {
        (Some(b), Some(tok)) if b.name == c.owner && c.token.matches(tok) => {
            Some(Actor::Complainant)
        }
        _ if guard::owner(t, broker, token) => Some(Actor::TenderOwner),
        _ => None,
    }
}

#[handler]
pub async fn change(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let (tender_id, target, id) = (
        param(req, "tender_id"),
        target(req),
        param(req, "complaint_id"),
    );
    let allowed = |t: &Tender, b: Option<&Broker>, tok: Option<&str>| {
        actor(t, &target, &id, b, tok).is_some()
    };
    let exists = |t: &Tender| t.complaint(&target, &id).map(|_| ());
    let body = guard::write(req, &app, &tender_id, exists, allowed).await?;
    let (broker, token) = (
        app.brokers.identify(req),
        presented_token(req, body.token()),
    );
    let (data, cx) = (body.data()?, app.cx());
    let view = app
        .store
        .update(
            &tender_id,
            |t, now| {
                let who = actor(t, &target, &id, broker, token.as_deref()).ok_or_else(|| {
                    Refusal::Forbidden {
                        location: "url",
                        name: "permission",
                        description: "Forbidden".into(),
                    }
                })?;
                t.change_claim(&target, &id, who, data, &cx, now)
            },
            |t| to_json(t, &target, &id),
        )
        .await??;
    reply::ok(req, res, view);
    Ok(())
}
