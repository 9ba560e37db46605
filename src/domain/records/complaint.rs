//! Claims on the tender and on its awards: a participant's objection, the owner's answer and
//! the claimant's verdict on it.
//!
//! A claim is filed `draft` or `claim`; the owner answers a `claim` (`answered`, with a
//! `resolutionType`); the claimant then settles it (`resolved`, satisfied or not) or leaves
//! it, and after the stand-still it takes its `resolutionType`. The claimant may cancel it
//! until then. A claim never answered becomes `ignored` when the tender ends.

use super::lot::LotStatus;
use super::tender::{Tender, TenderStatus};
use crate::domain::input::Input;
use crate::domain::lookup::ById;
use crate::domain::records::course::lifecycle;
use crate::domain::values::document::Documents;
use crate::domain::values::ids::{self, TokenHash};
use crate::domain::values::organization::Organization;
use crate::domain::values::parse::{Cx, Obj, Problem, REQUIRED};
use crate::domain::values::time::Timestamp;
use crate::domain::{Change, Refusal};
use serde::{Deserialize, Serialize};
use time::Duration;

/// How long an answer waits for the claimant before it takes effect, in calendar days.
pub const STAND_STILL_DAYS: i64 = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ComplaintStatus {
    Draft,
    Claim,
    Answered,
    Pending,
    Invalid,
    Resolved,
    Declined,
    Cancelled,
    Ignored,
}

const STATUSES: [&str; 9] = [
    "draft",
    "claim",
    "answered",
    "pending",
    "invalid",
    "resolved",
    "declined",
    "cancelled",
    "ignored",
];

const RESOLUTION_TYPES: [&str; 3] = ["invalid", "resolved", "declined"];

/// Every field of a complaint; each write role takes a few and drops the rest unread.
const FIELDS: [&str; 22] = [
    "id",
    "complaintID",
    "date",
    "status",
    "type",
    "author",
    "title",
    "description",
    "relatedLot",
    "documents",
    "dateSubmitted",
    "resolution",
    "resolutionType",
    "dateAnswered",
    "tendererAction",
    "tendererActionDate",
    "satisfied",
    "dateEscalated",
    "decision",
    "dateDecision",
    "cancellationReason",
    "dateCanceled",
];

impl ComplaintStatus {
    fn parse(s: &str) -> ComplaintStatus {
        match s {
            "claim" => ComplaintStatus::Claim,
            "answered" => ComplaintStatus::Answered,
            "pending" => ComplaintStatus::Pending,
            "invalid" => ComplaintStatus::Invalid,
            "resolved" => ComplaintStatus::Resolved,
            "declined" => ComplaintStatus::Declined,
            "cancelled" => ComplaintStatus::Cancelled,
            "ignored" => ComplaintStatus::Ignored,
            _ => ComplaintStatus::Draft,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ComplaintStatus::Draft => "draft",
            ComplaintStatus::Claim => "claim",
            ComplaintStatus::Answered => "answered",
            ComplaintStatus::Pending => "pending",
            ComplaintStatus::Invalid => "invalid",
            ComplaintStatus::Resolved => "resolved",
            ComplaintStatus::Declined => "declined",
            ComplaintStatus::Cancelled => "cancelled",
            ComplaintStatus::Ignored => "ignored",
        }
    }

    /// Statuses that stop a contract being signed and the tender ending.
    pub fn blocks(self) -> bool {
        matches!(self, ComplaintStatus::Answered | ComplaintStatus::Pending)
    }

    /// Statuses of a claim on a refused award that let the owner reconsider it.
    pub fn reopens_award(self) -> bool {
        matches!(
            self,
            ComplaintStatus::Claim
                | ComplaintStatus::Answered
                | ComplaintStatus::Pending
                | ComplaintStatus::Resolved
        )
    }

    fn open(self) -> bool {
        matches!(
            self,
            ComplaintStatus::Draft | ComplaintStatus::Claim | ComplaintStatus::Answered
        )
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Complaint {
    pub id: String,
    #[serde(rename = "complaintID")]
    pub complaint_id: String,
    pub date: Timestamp,
    pub status: ComplaintStatus,
    #[serde(
        rename = "type",
        deserialize_with = "crate::domain::stored::static_str"
    )]
    pub kind: crate::domain::stored::Word,
    /// Shown or hidden by the views, by the tender's status.
    #[serde(skip_serializing_if = "crate::domain::stored::hidden")]
    pub author: Organization,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The lot the claim is about (an award claim: the award's lot); none for the tender.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub related_lot: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub documents: Documents,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date_submitted: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolution: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolution_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date_answered: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tenderer_action: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tenderer_action_date: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub satisfied: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cancellation_reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date_canceled: Option<Timestamp>,
    #[serde(skip_serializing_if = "crate::domain::stored::hidden")]
    pub owner: String,
    #[serde(skip_serializing_if = "crate::domain::stored::hidden")]
    pub token: TokenHash,
}

impl Complaint {
    /// A claim whose award is cancelled goes with it, unless it was already decided or
    /// withdrawn.
    pub fn cancel_with_award(&mut self, now: Timestamp) {
        use ComplaintStatus::*;
        if matches!(self.status, Draft | Claim | Answered | Pending) {
            self.status = Cancelled;
            self.cancellation_reason = Some("cancelled".into());
            self.date_canceled = Some(now);
            self.date = now;
        }
    }
}

/// What a claim is filed against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Tender,
    Award(String),
}

/// Who is changing a claim, as the credentials say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Actor {
    Complainant,
    TenderOwner,
}

impl Actor {
    /// Upstream's name of the party, recorded as the author of its documents.
    pub fn role(self) -> &'static str {
        match self {
            Actor::Complainant => "complaint_owner",
            Actor::TenderOwner => "tender_owner",
        }
    }
}

/// The write role upstream chose from the actor, the claim's status and the wanted status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Cancellation,
    Draft,
    Answer,
    Satisfy,
}

impl Role {
    fn fields(self) -> &'static [&'static str] {
        match self {
            Role::Cancellation => &["cancellationReason", "status"],
            Role::Draft => &["author", "title", "description", "status"],
            Role::Answer => &["resolution", "resolutionType", "status", "tendererAction"],
            Role::Satisfy => &["satisfied", "status"],
        }
    }
}

/// The fields a role may write; `None` where the body leaves the field alone.
#[derive(Default)]
struct Edit {
    status: Option<String>,
    author: Option<Organization>,
    title: Option<String>,
    description: Option<String>,
    resolution: Option<String>,
    resolution_type: Option<String>,
    tenderer_action: Option<String>,
    satisfied: Option<bool>,
    cancellation_reason: Option<String>,
}

fn refused() -> Refusal {
    Refusal::phase("Can't update complaint")
}

/// The claim stand-still: three days, or three days over the accelerator.
pub fn stand_still(accelerator: Option<u32>) -> Duration {
    let days = Duration::days(STAND_STILL_DAYS);
    match accelerator {
        Some(n) => Duration::microseconds(days.whole_microseconds() as i64 / i64::from(n)),
        None => days,
    }
}

impl Tender {
    pub fn complaints_of(&self, target: &Target) -> Result<&[Complaint], Refusal> {
        match target {
            Target::Tender => Ok(&self.complaints),
            Target::Award(id) => Ok(&self.award(id)?.complaints),
        }
    }

    fn complaints_of_mut(&mut self, target: &Target) -> Result<&mut Vec<Complaint>, Refusal> {
        match target {
            Target::Tender => Ok(&mut self.complaints),
            Target::Award(id) => self
                .awards
                .by_id_mut(id, "award_id")
                .map(|a| &mut a.complaints),
        }
    }

    pub fn complaint(&self, target: &Target, id: &str) -> Result<&Complaint, Refusal> {
        self.complaints_of(target)?.by_id(id, "complaint_id")
    }

    pub fn complaint_mut(&mut self, target: &Target, id: &str) -> Result<&mut Complaint, Refusal> {
        self.complaints_of_mut(target)?
            .by_id_mut(id, "complaint_id")
    }

    /// Every claim of the tender and of its awards.
    pub fn all_complaints(&self) -> impl Iterator<Item = &Complaint> {
        self.complaints
            .iter()
            .chain(self.awards.iter().flat_map(|a| a.complaints.iter()))
    }

    fn all_complaints_mut(&mut self) -> impl Iterator<Item = &mut Complaint> {
        self.complaints
            .iter_mut()
            .chain(self.awards.iter_mut().flat_map(|a| a.complaints.iter_mut()))
    }

    /// Whether an answered claim about the lot (or about the whole tender) still waits for
    /// its claimant or its stand-still.
    pub fn lot_blocked(&self, lot: &Option<String>) -> bool {
        self.all_complaints()
            .any(|c| c.status.blocks() && (c.related_lot.is_none() || &c.related_lot == lot))
    }

    /// Whether claims on the target may be filed, or drafts changed, now.
    fn claim_window(&self, target: &Target, now: Timestamp) -> Result<(), Refusal> {
        match target {
            Target::Tender => Ok(()),
            Target::Award(id) => {
                let period = &self.award(id)?.complaint_period;
                let started = period.start_date.is_none_or(|s| s <= now);
                if started && period.end_date.is_none_or(|e| e >= now) {
                    Ok(())
                } else {
                    Err(Refusal::phase("Can add complaint only in complaintPeriod"))
                }
            }
        }
    }

    /// Tender statuses in which claims on the target are filed (`filing`) or changed.
    pub fn claim_statuses(target: &Target, filing: bool) -> &'static [TenderStatus] {
        use TenderStatus::*;
        match (target, filing) {
            (Target::Tender, true) => &[ActiveEnquiries, ActiveTendering],
            (Target::Tender, false) => &[
                ActiveEnquiries,
                ActiveTendering,
                ActiveAuction,
                ActiveQualification,
                ActiveAwarded,
            ],
            (Target::Award(_), _) => &[ActiveQualification, ActiveAwarded],
        }
    }

    /// A claimant's POST. Returns the new claim's id and its token.
    pub fn file_claim(
        &mut self,
        target: &Target,
        data: &Input<'_>,
        cx: &Cx,
        now: Timestamp,
        owner: &str,
    ) -> Result<(String, String), Refusal> {
        self.complaints_of(target)?;
        let mut o = Obj::new(data, cx, "Complaint")?;
        let kept = ["author", "title", "description", "status", "relatedLot"];
        let dropped: Vec<&str> = FIELDS.into_iter().filter(|f| !kept.contains(f)).collect();
        o.skip(&dropped);
        let author: Option<Organization> = o.req("author");
        let title: Option<String> = o.req("title");
        let description: Option<String> = o.opt("description");
        let status = o.choice("status", &STATUSES);
        let related_lot: Option<String> = o.opt("relatedLot");
        if let Some(lot) = &related_lot
            && matches!(target, Target::Tender)
            && !self.lots.iter().any(|l| &l.id == lot)
        {
            o.fail(
                "relatedLot",
                Problem::msg("relatedLot should be one of lots"),
            );
        }
        let (author, title) = o.done(|| Some((author?, title?)))?;
        if !Tender::claim_statuses(target, true).contains(&self.status) {
            return Err(Refusal::phase(format!(
                "Can't add complaint in current ({}) tender status",
                self.status
            )));
        }
        // An award claim is about the award's lot.
        let related_lot = match target {
            Target::Tender => related_lot,
            Target::Award(id) => self.award(id)?.lot_id.clone(),
        };
        if self.lot_status(&related_lot) != LotStatus::Active {
            return Err(Refusal::phase(
                "Can add complaint only in active lot status",
            ));
        }
        self.claim_window(target, now)?;
        let submitted = status.as_deref() == Some("claim");
        let number = self.all_complaints().count() + 1;
        let (token, token_hash) = ids::new_token();
        let complaint = Complaint {
            id: ids::new_id(),
            complaint_id: format!("{}.{number}", self.tender_id),
            date: now,
            status: if submitted {
                ComplaintStatus::Claim
            } else {
                ComplaintStatus::Draft
            },
            kind: "claim",
            author,
            title,
            description,
            related_lot,
            documents: Vec::new(),
            date_submitted: submitted.then_some(now),
            resolution: None,
            resolution_type: None,
            date_answered: None,
            tenderer_action: None,
            tenderer_action_date: None,
            satisfied: None,
            cancellation_reason: None,
            date_canceled: None,
            owner: owner.to_string(),
            token: token_hash,
        };
        let id = complaint.id.clone();
        self.complaints_of_mut(target)?.push(complaint);
        Ok((id, token))
    }

    /// A PATCH by the claimant or the tender owner: the role first (403 `role`), then the
    /// body (422), then the tender's and the claim's status, then the move itself.
    pub fn change_claim(
        &mut self,
        target: &Target,
        id: &str,
        actor: Actor,
        data: &Input<'_>,
        cx: &Cx,
        now: Timestamp,
    ) -> Result<Change, Refusal> {
        let current = self.complaint(target, id)?.clone();
        let wanted = data
            .get("status")
            .and_then(Input::as_str)
            .unwrap_or(current.status.as_str());
        let role = match (actor, current.status) {
            (Actor::Complainant, _) if wanted == "cancelled" => Role::Cancellation,
            (Actor::Complainant, ComplaintStatus::Draft) => Role::Draft,
            (Actor::TenderOwner, ComplaintStatus::Claim) => Role::Answer,
            (Actor::Complainant, ComplaintStatus::Answered) => Role::Satisfy,
            _ => {
                return Err(Refusal::Forbidden {
                    location: "url",
                    name: "role",
                    description: "Forbidden".into(),
                });
            }
        };
        let edit = read_edit(data, cx, role, &current)?;
        if !Tender::claim_statuses(target, false).contains(&self.status) {
            return Err(Refusal::phase(format!(
                "Can't update complaint in current ({}) tender status",
                self.status
            )));
        }
        if matches!(target, Target::Award(_))
            && self.lot_status(&current.related_lot) != LotStatus::Active
        {
            return Err(Refusal::phase(
                "Can update complaint only in active lot status",
            ));
        }
        if !current.status.open() {
            return Err(Refusal::phase(format!(
                "Can't update complaint in current ({}) status",
                current.status.as_str()
            )));
        }
        let to = edit
            .status
            .as_deref()
            .map_or(current.status, ComplaintStatus::parse);
        let in_window = Tender::claim_statuses(target, true).contains(&self.status)
            && self.claim_window(target, now).is_ok();
        let mut next = current.clone();
        use ComplaintStatus::*;
        match (actor, current.status, to) {
            (Actor::Complainant, Draft | Claim | Answered, Cancelled) => {
                next.cancellation_reason = edit.cancellation_reason.or(next.cancellation_reason);
                next.date_canceled = Some(now);
            }
            (Actor::Complainant, Draft, Draft | Claim) if in_window => {
                next.author = edit.author.unwrap_or(next.author);
                next.title = edit.title.unwrap_or(next.title);
                next.description = edit.description.or(next.description);
                if to == Claim {
                    next.date_submitted = Some(now);
                }
            }
            (Actor::Complainant, Answered, Answered | Resolved) => {
                let satisfied = edit.satisfied.or(next.satisfied);
                if to == Resolved && satisfied.is_none() {
                    return Err(refused());
                }
                next.satisfied = satisfied;
            }
            (Actor::TenderOwner, Claim, Claim | Answered) => {
                next.resolution = edit.resolution.or(next.resolution);
                next.resolution_type = edit.resolution_type.or(next.resolution_type);
                if edit.tenderer_action.is_some() {
                    next.tenderer_action = edit.tenderer_action;
                    next.tenderer_action_date = next.tenderer_action_date.or(Some(now));
                }
                if to == Answered {
                    let resolution = next.resolution.as_deref().unwrap_or_default();
                    if resolution.is_empty() || next.resolution_type.is_none() {
                        return Err(refused());
                    }
                    if resolution.chars().count() < 20 {
                        return Err(match target {
                            Target::Tender => {
                                Refusal::phase("Can't update complaint: resolution too short")
                            }
                            Target::Award(_) => refused(),
                        });
                    }
                    next.date_answered = Some(now);
                }
            }
            _ => return Err(refused()),
        }
        if to != current.status {
            next.status = to;
            next.date = now;
        }
        if next == current {
            return Ok(Change::None);
        }
        *self.complaint_mut(target, id)? = next;
        if !to.open()
            && matches!(
                self.status,
                TenderStatus::ActiveQualification | TenderStatus::ActiveAwarded
            )
        {
            self.ignore_claims();
        }
        Ok(Change::Public)
    }

    /// When answered claims take their `resolutionType` by themselves.
    pub fn claims_due(&self) -> Option<Timestamp> {
        let wait = stand_still(lifecycle::accelerator(self));
        self.all_complaints()
            .filter(|c| c.status == ComplaintStatus::Answered)
            .filter_map(|c| c.date_answered.map(|d| d.plus(wait)))
            .min()
    }

    /// Answered claims whose stand-still ended by `due` take their `resolutionType`, each
    /// dated when its stand-still ended.
    pub fn settle_answered_claims(&mut self, due: Timestamp) {
        let wait = stand_still(lifecycle::accelerator(self));
        for c in self.all_complaints_mut() {
            let Some(end) = c.date_answered.map(|d| d.plus(wait)) else {
                continue;
            };
            if c.status == ComplaintStatus::Answered && end <= due {
                c.status = c
                    .resolution_type
                    .as_deref()
                    .map_or(ComplaintStatus::Resolved, ComplaintStatus::parse);
                c.date = end;
            }
        }
    }

    /// Claims never answered are `ignored` once what they are about has ended: the tender
    /// (complete or unsuccessful, not cancelled), or their lot (also when cancelled).
    pub fn ignore_claims(&mut self) {
        let tender_ended = matches!(
            self.status,
            TenderStatus::Complete | TenderStatus::Unsuccessful
        )
        .then_some(self.date);
        let lots_ended: Vec<(String, Timestamp)> = self
            .lots
            .iter()
            .filter(|l| l.status != LotStatus::Active)
            .map(|l| (l.id.clone(), l.date))
            .collect();
        for c in self.all_complaints_mut() {
            let ended = tender_ended.or_else(|| {
                let lot = c.related_lot.as_ref()?;
                lots_ended.iter().find(|(id, _)| id == lot).map(|(_, d)| *d)
            });
            if let Some(date) = ended
                && c.status == ComplaintStatus::Claim
            {
                c.status = ComplaintStatus::Ignored;
                c.date = date;
            }
        }
    }
}

/// Reads the fields of the role; everything else a complaint has is dropped unread. The
/// stored claim fills in what the body leaves out for the model's own rules.
fn read_edit(data: &Input<'_>, cx: &Cx, role: Role, current: &Complaint) -> Result<Edit, Refusal> {
    let mut o = Obj::new(data, cx, "Complaint")?;
    let dropped: Vec<&str> = FIELDS
        .into_iter()
        .filter(|f| !role.fields().contains(f))
        .collect();
    o.skip(&dropped);
    let mut edit = Edit {
        status: o.choice("status", &STATUSES),
        ..Edit::default()
    };
    match role {
        Role::Draft => {
            edit.author = o.opt("author");
            edit.title = o.opt("title");
            edit.description = o.opt("description");
        }
        Role::Cancellation => {
            edit.cancellation_reason = o.opt("cancellationReason");
            if edit.status.as_deref() == Some("cancelled")
                && edit.cancellation_reason.is_none()
                && current.cancellation_reason.is_none()
                && !o.failed("cancellationReason")
            {
                o.fail("cancellationReason", Problem::msg(REQUIRED));
            }
        }
        Role::Answer => {
            edit.resolution = o.opt("resolution");
            edit.resolution_type = o.choice("resolutionType", &RESOLUTION_TYPES);
            edit.tenderer_action = o.opt("tendererAction");
            if edit.status.as_deref() == Some("answered")
                && edit.resolution_type.is_none()
                && current.resolution_type.is_none()
                && !o.failed("resolutionType")
            {
                o.fail("resolutionType", Problem::msg(REQUIRED));
            }
        }
        Role::Satisfy => edit.satisfied = o.opt("satisfied"),
    }
    Ok(o.done(|| Some(edit))?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::records::tender::tests::published as setup;
    use serde_json::json;

    fn claim(t: &mut Tender, cx: &Cx, now: Timestamp, status: &str) -> String {
        let author = t.terms.procuring_entity.clone();
        let mut author = serde_json::to_value(author).expect("json");
        if let Some(o) = author.as_object_mut() {
            o.remove("kind");
        }
        let body = json!({"title": "t", "author": author, "status": status});
        t.file_claim(&Target::Tender, &Input::view(&body), cx, now, "broker1")
            .expect("filed")
            .0
    }

    #[test]
    fn the_stand_still_is_three_days_or_three_days_over_the_accelerator() {
        assert_eq!(stand_still(None), Duration::days(3));
        assert_eq!(stand_still(Some(1440)), Duration::minutes(3));
    }

    #[test]
    fn an_answer_takes_its_type_when_its_stand_still_ends_and_drafts_stay() {
        let (mut t, cx, now) = setup();
        let answered = claim(&mut t, &cx, now, "claim");
        let draft = claim(&mut t, &cx, now, "draft");
        let body = json!({"status": "answered", "resolutionType": "declined",
            "resolution": "Відповідь довша за двадцять символів"});
        t.change_claim(
            &Target::Tender,
            &answered,
            Actor::TenderOwner,
            &Input::view(&body),
            &cx,
            now,
        )
        .expect("answered");
        let end = now.plus(Duration::days(3));
        assert_eq!(t.claims_due(), Some(end));
        t.settle_answered_claims(end.plus(Duration::seconds(-1)));
        assert_eq!(
            t.complaint(&Target::Tender, &answered)
                .expect("kept")
                .status,
            ComplaintStatus::Answered
        );
        t.settle_answered_claims(end);
        let c = t.complaint(&Target::Tender, &answered).expect("kept");
        assert_eq!((c.status, c.date), (ComplaintStatus::Declined, end));
        assert_eq!(
            t.complaint(&Target::Tender, &draft).expect("kept").status,
            ComplaintStatus::Draft
        );
        assert_eq!(t.claims_due(), None);
    }

    #[test]
    fn unanswered_claims_are_ignored_when_the_tender_ends_but_not_when_it_is_cancelled() {
        let (mut t, cx, now) = setup();
        let id = claim(&mut t, &cx, now, "claim");
        t.status = TenderStatus::Cancelled;
        t.ignore_claims();
        assert_eq!(
            t.complaint(&Target::Tender, &id).expect("kept").status,
            ComplaintStatus::Claim
        );
        t.status = TenderStatus::Complete;
        t.ignore_claims();
        assert_eq!(
            t.complaint(&Target::Tender, &id).expect("kept").status,
            ComplaintStatus::Ignored
        );
    }

    #[test]
    fn a_tender_claims_author_shows_on_its_own_after_tendering_and_in_the_tender_after_the_auction()
    {
        use crate::domain::records::views;
        let (mut t, cx, now) = setup();
        let id = claim(&mut t, &cx, now, "claim");
        let shown = |t: &Tender| {
            let c = t.complaint(&Target::Tender, &id).expect("kept");
            let alone = serde_json::to_value(views::complaint(c, t.status)).expect("json");
            let inside = serde_json::to_value(views::tender(t)).expect("json");
            (
                alone.get("author").is_some(),
                inside["complaints"][0].get("author").is_some(),
            )
        };
        assert_eq!(shown(&t), (false, false));
        t.status = TenderStatus::ActiveAuction;
        assert_eq!(shown(&t), (true, false));
        t.status = TenderStatus::ActiveQualification;
        assert_eq!(shown(&t), (true, true));
    }
}
