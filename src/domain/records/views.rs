//! What each reader sees of a record in each phase, written straight from the records.
//!
//! Before qualification bids are confidential (absent from the tender) and question authors
//! are hidden; from qualification on both are public.

use super::bid::Bid;
use super::complaint::Complaint;
use super::question::Question;
use super::tender::{Tender, TenderStatus};
use crate::domain::values::organization::Organization;
use serde::Serialize;
use std::sync::Arc;

/// A question; its author only where the reader may see it.
#[derive(Serialize)]
pub struct QuestionView<'a> {
    #[serde(flatten)]
    question: &'a Question,
    #[serde(skip_serializing_if = "Option::is_none")]
    author: Option<&'a Organization>,
}

/// A question as anyone reads it in a tender of `status`.
pub fn question(q: &Question, status: TenderStatus) -> QuestionView<'_> {
    QuestionView {
        question: q,
        author: status.reveals_bids().then_some(&q.author),
    }
}

/// A question as its asker sees it in the creation response.
pub fn asked(q: &Question) -> QuestionView<'_> {
    QuestionView {
        question: q,
        author: Some(&q.author),
    }
}

/// A claim; its author only where the reader may see it.
#[derive(Serialize)]
pub struct ComplaintView<'a> {
    #[serde(flatten)]
    complaint: &'a Complaint,
    #[serde(skip_serializing_if = "Option::is_none")]
    author: Option<&'a Organization>,
}

/// A claim with its author, or without while the tender is in `hidden_in` statuses.
fn complaint_in<'a>(
    c: &'a Complaint,
    status: TenderStatus,
    hidden_in: &[TenderStatus],
) -> ComplaintView<'a> {
    ComplaintView {
        complaint: c,
        author: (!hidden_in.contains(&status)).then_some(&c.author),
    }
}

/// A claim as its own resource shows it: tender claims hide their author while the
/// tender is open for claims.
pub fn complaint(c: &Complaint, status: TenderStatus) -> ComplaintView<'_> {
    complaint_in(
        c,
        status,
        &[TenderStatus::ActiveEnquiries, TenderStatus::ActiveTendering],
    )
}

/// A claim with its author: award claims, and the claimant's own creation response.
pub fn complaint_with_author(c: &Complaint) -> ComplaintView<'_> {
    complaint_in(c, TenderStatus::Complete, &[])
}

/// Tender claims inside the tender hide their author until the auction is over.
fn tender_complaint(c: &Complaint, status: TenderStatus) -> ComplaintView<'_> {
    complaint_in(
        c,
        status,
        &[
            TenderStatus::ActiveEnquiries,
            TenderStatus::ActiveTendering,
            TenderStatus::ActiveAuction,
        ],
    )
}

/// Serializes an award's claims with their authors.
pub fn complaints_with_authors<S: serde::Serializer>(
    complaints: &[Complaint],
    s: S,
) -> Result<S::Ok, S::Error> {
    if crate::domain::stored::storing() {
        return s.collect_seq(complaints);
    }
    s.collect_seq(complaints.iter().map(complaint_with_author))
}

/// The tender as anyone reads it.
#[derive(Serialize)]
pub struct TenderView<'a> {
    #[serde(flatten)]
    tender: &'a Tender,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    questions: Vec<QuestionView<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    complaints: Vec<ComplaintView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bids: Option<&'a imbl::Vector<Arc<Bid>>>,
    #[serde(rename = "numberOfBids", skip_serializing_if = "Option::is_none")]
    number_of_bids: Option<usize>,
}

pub fn tender(t: &Tender) -> TenderView<'_> {
    let public = t.status.reveals_bids();
    TenderView {
        tender: t,
        questions: t.questions.iter().map(|q| question(q, t.status)).collect(),
        complaints: t
            .complaints
            .iter()
            .map(|c| tender_complaint(c, t.status))
            .collect(),
        bids: (public && !t.bids.is_empty()).then_some(&t.bids),
        number_of_bids: public.then_some(t.bids.len()),
    }
}

/// Writes `value` as compact JSON; on a failure nothing is written.
fn json<T: Serialize>(out: &mut Vec<u8>, value: T) -> bool {
    let start = out.len();
    let written = serde_json::to_writer(&mut *out, &value).is_ok();
    if !written {
        out.truncate(start);
    }
    written
}

fn some<T: Serialize>(out: &mut Vec<u8>, value: &Option<T>) -> bool {
    value.as_ref().is_some_and(|v| json(out, v))
}

fn listed<T: Serialize>(out: &mut Vec<u8>, values: &[T]) -> bool {
    !values.is_empty() && json(out, values)
}

/// One top-level field of the tender as [`tender`] shows it, as compact JSON text, without
/// rendering the rest (the listing's `opt_fields`); `None` where the view has no such field.
pub fn field(t: &Tender, name: &str) -> Option<String> {
    let mut out = Vec::new();
    write_field(t, name, &mut out)
        .then(|| String::from_utf8(out).ok())
        .flatten()
}

/// [`field`] appended to `out`; `false` (and nothing written) where the view has no such
/// field.
pub fn write_field(t: &Tender, name: &str, out: &mut Vec<u8>) -> bool {
    let terms = &t.terms;
    let public = t.status.reveals_bids();
    match name {
        "id" => json(out, &t.id),
        "tenderID" => json(out, &t.tender_id),
        "status" => json(out, t.status),
        "mode" => some(out, &t.mode),
        "title" => json(out, &terms.title),
        "title_en" => some(out, &terms.title_en),
        "title_ru" => some(out, &terms.title_ru),
        "description" => some(out, &terms.description),
        "description_en" => some(out, &terms.description_en),
        "description_ru" => some(out, &terms.description_ru),
        "procurementMethodRationale" => some(out, &terms.procurement_method_rationale),
        "value" => json(out, &terms.value),
        "minimalStep" => json(out, &terms.minimal_step),
        "guarantee" => some(out, &terms.guarantee),
        "enquiryPeriod" => json(out, &terms.enquiry_period),
        "tenderPeriod" => json(out, &terms.tender_period),
        "procuringEntity" => json(out, &terms.procuring_entity),
        "items" => json(out, &terms.items),
        "lots" => listed(out, &t.lots),
        "features" => listed(out, &terms.features),
        "procurementMethodType" => json(out, &t.procurement_method_type),
        "procurementMethod" => json(out, t.procurement_method),
        "awardCriteria" => json(out, t.award_criteria),
        "submissionMethod" => json(out, t.submission_method),
        "procurementMethodDetails" => some(out, &t.procurement_method_details),
        "submissionMethodDetails" => some(out, &t.submission_method_details),
        "auctionPeriod" => !t.auction_period.is_empty() && json(out, &t.auction_period),
        "auctionUrl" => some(out, &t.auction_url),
        "awardPeriod" => some(out, &t.award_period),
        "documents" => listed(out, &t.documents),
        "questions" => listed(
            out,
            &t.questions
                .iter()
                .map(|q| question(q, t.status))
                .collect::<Vec<_>>(),
        ),
        "complaints" => listed(
            out,
            &t.complaints
                .iter()
                .map(|c| tender_complaint(c, t.status))
                .collect::<Vec<_>>(),
        ),
        "bids" => public && !t.bids.is_empty() && json(out, &t.bids),
        "numberOfBids" => public && json(out, t.bids.len()),
        "awards" => listed(out, &t.awards),
        "contracts" => listed(out, &t.contracts),
        "cancellations" => listed(out, &t.cancellations),
        "owner" => json(out, &t.owner),
        "date" => json(out, t.date),
        "dateModified" => json(out, t.date_modified),
        "next_check" => some(out, &t.next_check),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::input::Input;
    use crate::domain::records::tender::NewTender;
    use crate::domain::records::tender::tests::full;
    use crate::domain::values::ids;
    use crate::domain::values::parse::Cx;
    use crate::domain::values::time::Zone;
    use serde_json::{Value as Json, json};

    /// Every field the view shows, and only those, comes out of `field` the same.
    #[test]
    fn fields_agree_with_the_view() {
        let zone = Zone::named("Europe/Kyiv").expect("zone");
        let cx = Cx {
            zone,
            testing: true,
        };
        let mut body = full();
        body["mode"] = json!("test");
        body["procurementMethodDetails"] = json!("quick, accelerator=10");
        let now = zone.parse("2030-01-01T00:00").expect("date");
        let input = NewTender::parse(&Input::view(&body), &cx)
            .and_then(|i| i.starting(now))
            .expect("valid, its periods ahead");
        let mut t = Tender::create(
            input,
            ids::new_id(),
            "UA-1".into(),
            "broker".into(),
            ids::new_token().1,
            "http://h".into(),
            now,
        );
        let mut author = body["procuringEntity"].clone();
        if let Some(o) = author.as_object_mut() {
            o.remove("kind");
        }
        t.ask(
            &Input::view(&json!({"title": "q", "author": author})),
            &cx,
            now,
        )
        .expect("asked");
        for status in [
            TenderStatus::ActiveEnquiries,
            TenderStatus::ActiveQualification,
        ] {
            t.status = status;
            let view = serde_json::to_value(tender(&t)).expect("view");
            let shown = view.as_object().expect("object");
            for (name, value) in shown {
                let text = field(&t, name).expect(name);
                let read: Json = serde_json::from_str(&text).expect("JSON");
                assert_eq!(&read, value, "{name}");
            }
            for name in [
                "guarantee",
                "bids",
                "numberOfBids",
                "awards",
                "contracts",
                "documents",
                "auctionUrl",
                "awardPeriod",
                "nothing",
            ] {
                if !shown.contains_key(name) {
                    assert_eq!(field(&t, name), None, "{name} is not shown");
                }
            }
        }
    }
}
