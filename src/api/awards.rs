//! `/tenders/{tender_id}/awards` and `/contracts`: read by anyone, decided by the owner.

// The handlers keep the lower-case names the router reads.
#![allow(non_upper_case_globals)]

use crate::domain::award::Award;
use crate::domain::tender::Tender;
use crate::domain::tender_contract::Contract;
use crate::http::collection::{Collection, Served};
use crate::http::error::Handled;
use crate::http::writes::Sent;
use crate::http::{app, guard, param, reads, reply};
use salvo::http::header::{HeaderValue, LOCATION};
use salvo::prelude::*;

static AWARDS: Collection<Tender, Award> = Collection::of("awards", "award_id", |t| &t.awards);

/// The contracts a tender's awards prepare, before one is handed over to contract management.
static TENDER_CONTRACTS: Collection<Tender, Contract> =
    Collection::of("contracts", "contract_id", |t| &t.contracts);

pub const list: Served<Tender, Award> = AWARDS.list();
pub const show: Served<Tender, Award> = AWARDS.show();
pub const contracts: Served<Tender, Contract> = TENDER_CONTRACTS.list();
pub const contract: Served<Tender, Contract> = TENDER_CONTRACTS.show();
pub const change_contract: Served<Tender, Contract> =
    TENDER_CONTRACTS.changes(guard::owner, Tender::change_contract);

#[handler]
pub async fn decide(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
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
                let change = t.decide_award(&id, &Sent { data, cx: &cx, now })?;
                fresh = t
                    .awards
                    .get(known..)
                    .and_then(|new| new.last())
                    .map(|a| a.id.clone());
                Ok(change)
            },
            |t| t.award(&id).map(reads::json),
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
