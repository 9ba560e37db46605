//! `/tenders/{tender_id}/questions`: asked by any broker, answered by the owner.

// The handlers keep the lower-case names the router reads.
#![allow(non_upper_case_globals)]

use crate::domain::question::Question;
use crate::domain::tender::Tender;
use crate::domain::{Change, views};
use crate::http::collection::{Collection, Served};
use crate::http::error::Handled;
use crate::http::{app, guard, param, reads, reply};
use salvo::prelude::*;
use serde_json::Value as Json;

/// A question as its tender's status shows it: the author hidden from all but the asker.
static QUESTIONS: Collection<Tender, Question> =
    Collection::of("questions", "question_id", |t: &Tender| &t.questions)
        .shown(|t, q| reads::json(&views::question(q, t.status)));

pub const list: Served<Tender, Question> = QUESTIONS.list();
pub const show: Served<Tender, Question> = QUESTIONS.show();
/// The owner answers, with the tender's token.
pub const answer: Served<Tender, Question> = QUESTIONS.changes(guard::owner, Tender::answer);

/// Any accredited broker may ask; no token is needed. The asker sees the author.
#[handler]
pub async fn ask(req: &mut Request, depot: &mut Depot, res: &mut Response) -> Handled {
    let app = app(depot)?;
    let tender_id = param(req, "tender_id");
    let (body, _) = guard::participating(req, &app, &tender_id, "question").await?;
    let data = body.data()?;
    let cx = app.cx();
    let mut asked = Json::Null;
    app.store
        .update(
            &tender_id,
            |t, now| {
                asked =
                    serde_json::to_value(views::asked(t.ask(data, &cx, now)?)).unwrap_or_default();
                Ok(Change::Public)
            },
            |_| (),
        )
        .await?;
    let location = format!(
        "{}/tenders/{tender_id}/questions/{}",
        app.api_root(req),
        asked["id"].as_str().unwrap_or_default()
    );
    reply::created(req, res, &location, asked, None);
    Ok(())
}
