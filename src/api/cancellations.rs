//! `/tenders/{tender_id}/cancellations`: read by anyone, made and activated by the owner.

use crate::domain::cancellation::Cancellation;
use crate::domain::tender::Tender;
use crate::http::error::ApiError;
use crate::http::{guard, reads, writes};
use salvo::prelude::*;
use serde_json::Value as Json;

fn to_json(c: &Cancellation) -> Json {
    reads::json(c)
}

#[handler]
pub async fn list(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    reads::list(req, depot, res, |t: &Tender| {
        Ok(reads::all(&t.cancellations))
    })
}

#[handler]
pub async fn show(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    reads::one(req, depot, res, "cancellation_id", |t: &Tender, id| {
        t.cancellation(id).map(to_json)
    })
}

#[handler]
pub async fn add(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Result<(), ApiError> {
    writes::add(
        req,
        depot,
        res,
        "cancellations",
        guard::owner,
        |t: &mut Tender, s| t.add_cancellation(s.data, s.cx, s.now),
        |t, id| t.cancellation(id).map(to_json),
    )
    .await
}

#[handler]
pub async fn change(
    req: &mut Request,
    depot: &mut Depot,
    res: &mut Response,
) -> Result<(), ApiError> {
    writes::change(
        req,
        depot,
        res,
        "cancellation_id",
        guard::owner,
        |t: &mut Tender, id, s| t.change_cancellation(id, s.data, s.cx, s.now),
        |t, id| t.cancellation(id).map(to_json),
    )
    .await
}
