//! `/tenders` (creation) and `/tenders/{tender_id}`: read and change a tender.

use super::test_clocks;
use crate::domain::ids;
use crate::domain::tender::{NewTender, Tender};
use crate::domain::views;
use crate::http::auth::Level;
use crate::http::error::{ApiError, Handled, write_json};
use crate::http::reply::{self, wants_pretty};
use crate::http::{app, body, bounds, guard, param};
use crate::limits::Kind;
use salvo::http::StatusCode;
use salvo::prelude::*;
use serde_json::json;

/// `HEAD`/`GET /api/2.3/spore`: the reference client calls it first to check the service.
#[handler]
pub async fn spore(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    reply::ok(
        req,
        res,
        json!({"name": "tender-registry", "apiVersion": "2.3", "apiRoot": app.api_root(req)}),
    );
    Ok(())
}

#[handler]
pub async fn create(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let body = body::read(req, app.max_body).await?;
    let broker = app.brokers.identify(req).ok_or_else(ApiError::forbidden)?;
    let data = body.data()?;
    let test_mode = data.get("mode").and_then(|m| m.as_str()) == Some("test");
    broker.may_create(Level::Tenders, test_mode, "tender")?;
    // A place among the broker's live tenders is held first (a creation at the bound is
    // refused before anything is read into a tender or a tenderID is used up).
    let most = app.limits.live_tenders;
    let hold = app.store.hold_live(&broker.name, most).map_err(|held| {
        let holder = format!("Broker {}", broker.name);
        bounds::refused(
            &app,
            &holder,
            Kind::LiveTenders,
            held,
            most.unwrap_or(held),
            1,
        )
    })?;
    // A new tender lives on its owner's clock from the start, or on the test clock it names
    // (held until the tender is stored, so that the clock is not deleted meanwhile).
    let on = test_clocks::chosen(&app, req, data, &broker.name).await?;
    let clock = on.as_ref().map(|held| held.id.clone());
    let now = app.store.now_for(clock.as_deref().unwrap_or(&broker.name));
    let input = NewTender::parse(data, &app.cx())?.starting(now)?;
    let (token, token_hash) = ids::new_token();
    let tender_id = app.store.next_tender_id(now);
    let tender = Tender::create(
        input,
        ids::new_id(),
        tender_id,
        broker.name.clone(),
        token_hash,
        app.base_url(req),
        now,
    )
    .on_clock(clock);
    let pretty = wants_pretty(req);
    let (id, text) = app
        .store
        .insert(tender, now, hold, |t| {
            (
                t.id.clone(),
                reply::render(views::tender(t), Some(&token), pretty),
            )
        })
        .await?;
    drop(on);
    reply::created_rendered(res, &format!("{}/tenders/{id}", app.api_root(req)), text);
    Ok(())
}

/// The public representation is cached per change, so most reads only copy a pointer.
#[handler]
pub async fn show(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let id = param(req, "tender_id");
    let text = if wants_pretty(req) {
        app.store
            .read(&id, |t| reply::render(views::tender(t), None, true))
            .map(Into::into)
    } else {
        app.store
            .public_json(&id, |t| reply::render_plain(views::tender(t)))
    };
    write_json(
        res,
        StatusCode::OK,
        text.ok_or_else(|| ApiError::not_found("tender_id"))?,
    );
    Ok(())
}

#[handler]
pub async fn change(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let id = param(req, "tender_id");
    let body = guard::write(req, &app, &id, |_| Ok(()), guard::owner).await?;
    let (data, cx, pretty) = (body.data()?, app.cx(), wants_pretty(req));
    let text = app
        .store
        .update(
            &id,
            |t, now| t.patch(data, &cx, now),
            |t| reply::render(views::tender(t), None, pretty),
        )
        .await?;
    reply::ok_rendered(res, text);
    Ok(())
}
