//! `/tenders/{tender_id}/awards` and `/contracts`: read by anyone, decided by the owner.

use crate::domain::tender::Tender;
use crate::http::error::ApiError;
use crate::http::{app, guard, param, reads, reply, writes};
use salvo::http::header::{HeaderValue, LOCATION};
use salvo::prelude::*;
use serde::Serialize;
use serde_json::Value as Json;

fn to_json<T: Serialize>(value: &T) -> Json {
    reads::json(value)
}

#[handler]
pub async fn list(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    reads::list(req, depot, res, |t: &Tender| Ok(reads::all(&t.awards)))
}

#[handler]
pub async fn show(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    reads::one(req, depot, res, "award_id", |t: &Tender, id| {
        t.award(id).map(to_json)
    })
}

#[handler]
pub async fn contracts(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    reads::list(req, depot, res, |t: &Tender| Ok(reads::all(&t.contracts)))
}

#[handler]
pub async fn contract(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    reads::one(req, depot, res, "contract_id", |t: &Tender, id| {
        t.contract(id).map(to_json)
    })
}

#[handler]
pub async fn decide(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    let app = app(depot)?;
    let (tender_id, id) = (param(req, "tender_id"), param(req, "award_id"));
    let body = guard::write(
        req,
        &app,
        &tender_id,
        |t| t.award(&id).map(|_| ()),
        guard::owner,
    )
    .await?;
    let (data, cx) = (body.data()?, app.cx());
    let mut fresh = None;
    let view = app
        .store
        .update(
            &tender_id,
            |t, now| {
                let known = t.awards.len();
                let change = t.decide_award(&id, data, &cx, now)?;
                fresh = t
                    .awards
                    .get(known..)
                    .and_then(|new| new.last())
                    .map(|a| a.id.clone());
                Ok(change)
            },
            |t| t.award(&id).map(to_json),
        )
        .await??;
    reply::ok(req, res, view);
    // A decision that awarded a bid anew points at the fresh award, as upstream did.
    if let Some(fresh) = fresh {
        let location = format!("{}/tenders/{tender_id}/awards/{fresh}", app.api_root(req));
        if let Ok(value) = HeaderValue::from_str(&location) {
            res.headers_mut().insert(LOCATION, value);
        }
    }
    Ok(())
}

#[handler]
pub async fn change_contract(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    writes::change(
        req,
        depot,
        res,
        "contract_id",
        guard::owner,
        |t: &mut Tender, id, s| t.change_contract(id, s.data, s.cx, s.now),
        |t, id| t.contract(id).map(to_json),
    )
    .await
}
