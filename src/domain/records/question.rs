//! Questions asked about a tender during enquiries, and the owner's answers.

use super::lot::LotStatus;
use super::tender::{Tender, TenderStatus};
use crate::domain::input::Input;
use crate::domain::lookup::ById;
use crate::domain::values::ids;
use crate::domain::values::organization::Organization;
use crate::domain::values::parse::{Cx, FromJson, Obj, Problem, Sent};
use crate::domain::values::time::Timestamp;
use crate::domain::{Change, Refusal};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Question {
    pub id: String,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Hidden from everyone but the asker until qualification: the views decide.
    #[serde(skip_serializing_if = "crate::domain::stored::hidden")]
    pub author: Organization,
    pub question_of: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub related_item: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    pub date: Timestamp,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date_answered: Option<Timestamp>,
}

const READ_ONLY: [&str; 4] = ["id", "date", "dateAnswered", "answer"];

struct NewQuestion {
    title: String,
    description: Option<String>,
    author: Organization,
    question_of: String,
    related_item: Option<String>,
}

impl FromJson for NewQuestion {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem> {
        let mut o = Obj::new(v, cx, "Question")?;
        o.skip(&READ_ONLY);
        let title = o.req("title");
        let description = o.opt("description");
        let author = o.req("author");
        let question_of = o.choice("questionOf", &["tender", "item", "lot"]);
        let related_item: Option<String> = o.opt("relatedItem");
        if question_of.as_deref().is_some_and(|q| q != "tender") && related_item.is_none() {
            o.fail(
                "relatedItem",
                Problem::msg(crate::domain::values::parse::REQUIRED),
            );
        }
        o.done(|| {
            Some(NewQuestion {
                title: title?,
                description,
                author: author?,
                question_of: question_of.unwrap_or_else(|| "tender".into()),
                related_item,
            })
        })
    }
}

impl Tender {
    /// Anyone with broker credentials may ask, while enquiries are open and within the
    /// enquiry period (a late question is refused even before the status moves).
    pub fn ask(&mut self, data: &Input<'_>, cx: &Cx, now: Timestamp) -> Result<&Question, Refusal> {
        let input = NewQuestion::from_json(data, cx)?;
        match (input.question_of.as_str(), &input.related_item) {
            ("item", Some(r)) if !self.item_ids().contains(&r.as_str()) => {
                return Err(Refusal::field(
                    "relatedItem",
                    Problem::msg("relatedItem should be one of items"),
                ));
            }
            ("lot", Some(r)) if !self.lot_ids().contains(&r.as_str()) => {
                return Err(Refusal::field(
                    "relatedItem",
                    Problem::msg("relatedItem should be one of lots"),
                ));
            }
            _ => {}
        }
        let period = &self.terms.enquiry_period;
        let open = self.status == TenderStatus::ActiveEnquiries
            && period.start_date.is_none_or(|s| now >= s)
            && period.end_date.is_none_or(|e| now <= e);
        if !open {
            return Err(Refusal::phase("Can add question only in enquiryPeriod"));
        }
        if self.lot_status(&self.lot_asked(&input.question_of, &input.related_item))
            != LotStatus::Active
        {
            return Err(Refusal::phase("Can add question only in active lot status"));
        }
        self.questions.push(Question {
            id: ids::new_id(),
            title: input.title,
            description: input.description,
            author: input.author,
            question_of: input.question_of,
            related_item: input.related_item,
            answer: None,
            date: now,
            date_answered: None,
        });
        self.questions
            .last()
            .ok_or(Refusal::NotFound("question_id"))
    }

    /// The lot a question is about: the lot it names, or the lot of the item it names.
    fn lot_asked(&self, question_of: &str, related_item: &Option<String>) -> Option<String> {
        match question_of {
            "lot" => related_item.clone(),
            "item" => self
                .terms
                .items
                .iter()
                .find(|i| Some(i.id.as_str()) == related_item.as_deref())
                .and_then(|i| i.related_lot.clone().map(String::from)),
            _ => None,
        }
    }

    pub fn question(&self, id: &str) -> Result<&Question, Refusal> {
        self.questions.by_id(id, "question_id")
    }

    /// The owner answers (or re-answers) while enquiries are open; only `answer` can change.
    pub fn answer(&mut self, id: &str, sent: &Sent<'_>) -> Result<Change, Refusal> {
        let &Sent { data, cx, now } = sent;
        let status = self.status;
        let index = self.questions.index_by_id(id, "question_id")?;
        let mut o = Obj::new(data, cx, "Question")?;
        o.skip(&[
            "id",
            "date",
            "dateAnswered",
            "title",
            "description",
            "author",
            "questionOf",
            "relatedItem",
        ]);
        let answer: Option<String> = o.opt("answer");
        o.done(|| Some(()))?;
        if status != TenderStatus::ActiveEnquiries {
            return Err(Refusal::phase(format!(
                "Can't update question in current ({status}) tender status"
            )));
        }
        let question = &self.questions[index];
        if self.lot_status(&self.lot_asked(&question.question_of, &question.related_item))
            != LotStatus::Active
        {
            return Err(Refusal::phase(
                "Can update question only in active lot status",
            ));
        }
        let question = &mut self.questions[index];
        match answer {
            Some(answer) if question.answer.as_ref() != Some(&answer) => {
                question.answer = Some(answer);
                question.date_answered = Some(now);
                Ok(Change::Public)
            }
            _ => Ok(Change::None),
        }
    }
}
