//! The JSON bodies the features send: templates from `scenarios/`, filled with generated
//! Ukrainian names, addresses, ДК021 items and amounts, and with dates taken from the target.
//!
//! A template leaf `"{{name}}"` becomes the generated value itself (so amounts stay numbers);
//! `{{name}}` inside a longer string is replaced by its text.
use std::collections::HashMap;

use fake::{
    Fake,
    rand::{SeedableRng, prelude::IndexedRandom, rngs::StdRng},
};
use serde_json::{Value, json};

use crate::exchange::vocabulary::VOCABULARY;

const TENDER: &str = include_str!("../../../scenarios/tender.json");
const BID: &str = include_str!("../../../scenarios/bid.json");
const QUESTION: &str = include_str!("../../../scenarios/question.json");
const DOCUMENT: &str = include_str!("../../../scenarios/document.json");
const ANSWER: &str = include_str!("../../../scenarios/answer.json");

/// The boundary of the multipart bodies the harness sends.
const BOUNDARY: &str = "tender-certify-boundary";

/// A `multipart/form-data` body with one `file` part (the form upstream's document service and
/// the API's legacy uploads take): its Content-Type header and the body.
pub fn multipart(file_name: &str, content_type: &str, content: &str) -> (String, String) {
    let name = file_name.replace(['"', '\r', '\n'], "_");
    let body = format!(
        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n\
         Content-Type: {content_type}\r\n\r\n{content}\r\n--{BOUNDARY}--\r\n"
    );
    (format!("multipart/form-data; boundary={BOUNDARY}"), body)
}

/// A one-page PDF (ASCII alone, so that it travels as text) whose trailer names `mark`, so that
/// no two of a run's files are the same.
pub fn pdf(mark: &str) -> String {
    let mark: String = mark.chars().filter(char::is_ascii_alphanumeric).collect();
    format!(
        "%PDF-1.4\n1 0 obj <</Type /Catalog /Pages 2 0 R>> endobj\n\
         2 0 obj <</Type /Pages /Kids [3 0 R] /Count 1>> endobj\n\
         3 0 obj <</Type /Page /Parent 2 0 R /MediaBox [0 0 595 842]>> endobj\n\
         trailer <</Root 1 0 R /ID [({mark})]>>\n%%EOF\n"
    )
}

/// Generates the variable parts of bodies from one seeded random source.
#[derive(Debug)]
pub struct Fakes {
    rng: StdRng,
    /// Values already chosen in this scenario, so that a name used twice stays the same.
    chosen: HashMap<String, Value>,
}

impl Fakes {
    pub fn new(seed: u64) -> Fakes {
        Fakes {
            rng: StdRng::seed_from_u64(seed),
            chosen: HashMap::new(),
        }
    }

    fn digits(&mut self, count: usize) -> String {
        (0..count)
            .map(|_| char::from(b'0' + (0..10u8).fake_with_rng::<u8, _>(&mut self.rng)))
            .collect()
    }

    fn hex(&mut self, count: usize) -> String {
        (0..count)
            .map(|_| {
                let d = (0..16u32).fake_with_rng::<u32, _>(&mut self.rng);
                char::from_digit(d, 16).expect("a hex digit")
            })
            .collect()
    }

    fn pick<'a, T>(&mut self, from: &'a [T]) -> &'a T {
        from.choose(&mut self.rng).expect("a non-empty list")
    }

    /// Fresh names, address and contacts of one organisation under `prefix`.
    fn organisation(&mut self, prefix: &str, name: String, site: String) {
        let place = self.pick(&VOCABULARY.cities);
        let (city, region, postal) = (&place.city, &place.region, &place.postal);
        let street = format!(
            "{}, {}",
            self.pick(&VOCABULARY.streets),
            (1..120u32).fake_with_rng::<u32, _>(&mut self.rng)
        );
        let postal = format!("{postal}{}", self.digits(3));
        let phone = format!("+380{}", self.digits(9));
        let contact = self.pick(&VOCABULARY.people);
        let code = self.digits(8);
        let set = |fakes: &mut Fakes, key: &str, value: Value| {
            fakes.chosen.insert(format!("{prefix}_{key}"), value);
        };
        set(self, "name", json!(name));
        set(self, "code", json!(code));
        set(self, "site", json!(site));
        set(self, "city", json!(city));
        set(self, "region", json!(region));
        set(self, "postal", json!(postal));
        set(self, "street", json!(street));
        set(self, "contact", json!(contact));
        set(self, "phone", json!(phone));
    }

    /// The value of one template variable, generating it the first time it is asked for.
    fn value(&mut self, name: &str) -> Option<Value> {
        if let Some(v) = self.chosen.get(name) {
            return Some(v.clone());
        }
        if name.starts_with("entity_") {
            let n = (1..60u32)
                .fake_with_rng::<u32, _>(&mut self.rng)
                .to_string();
            let entity = self.pick(&VOCABULARY.entities).replace("{n}", &n);
            let site = format!("organ{}", self.digits(4));
            self.organisation("entity", entity, site);
            return self.chosen.get(name).cloned();
        }
        if name.starts_with("bidder_") {
            let firm = self.pick(&VOCABULARY.firms);
            let site = format!("firm{}", self.digits(4));
            self.organisation("bidder", format!("ТОВ «{firm}»"), site.clone());
            self.chosen.insert(
                "bidder_email".into(),
                json!(format!("tender@{site}.com.ua")),
            );
            return self.chosen.get(name).cloned();
        }
        if name.starts_with("item_") || name.starts_with("title") {
            let item = self.pick(&VOCABULARY.items);
            let quantity = (5..500u32).fake_with_rng::<u32, _>(&mut self.rng);
            let pairs = [
                ("item_code", json!(item.code)),
                ("item_description", json!(item.uk)),
                ("item_description_en", json!(item.en)),
                ("item_description_ru", json!(item.ru)),
                ("item_dkpp", json!(item.dkpp.id)),
                ("item_dkpp_description", json!(item.dkpp.description)),
                ("item_unit_code", json!(item.unit.code)),
                ("item_unit", json!(item.unit.name)),
                ("item_quantity", json!(quantity)),
                (
                    "title",
                    json!(format!("Закупівля: {}, {quantity} од.", item.uk)),
                ),
                (
                    "title_en",
                    json!(format!(
                        "Purchase of {} ({quantity})",
                        item.en.to_lowercase()
                    )),
                ),
                (
                    "title_ru",
                    json!(format!("Закупка: {} ({quantity})", item.ru)),
                ),
            ];
            for (k, v) in pairs {
                self.chosen.insert(k.into(), v);
            }
            return self.chosen.get(name).cloned();
        }
        let value = match name {
            // Whole hryvnias, sent as integers: convention 7 says they come back as decimals.
            "value_amount" => {
                let thousands = (50..2000u64).fake_with_rng::<u64, _>(&mut self.rng);
                json!(thousands * 1000)
            }
            "step_amount" => {
                let value = self.value("value_amount")?.as_u64()?;
                json!(value / 100)
            }
            "bid_amount" => {
                let value = self.value("value_amount")?.as_u64()?;
                let percent = (80..99u64).fake_with_rng::<u64, _>(&mut self.rng);
                json!(value * percent / 100)
            }
            "document_title" => json!(format!("Технічні вимоги {}.pdf", self.digits(4))),
            "document_key" | "document_md5" => {
                let key = self.hex(32);
                let md5 = self.hex(32);
                self.chosen.insert("document_key".into(), json!(key));
                self.chosen.insert("document_md5".into(), json!(md5));
                return self.chosen.get(name).cloned();
            }
            "question_title" => json!(format!(
                "Уточнення щодо пункту {} технічних вимог",
                (1..20u32).fake_with_rng::<u32, _>(&mut self.rng)
            )),
            "question_description" => {
                json!("Чи можна запропонувати еквівалент із кращими характеристиками?")
            }
            "answer" => json!(format!(
                "Так, еквівалент допускається за умови відповідності ДСТУ (відповідь № {}).",
                self.digits(3)
            )),
            _ => return None,
        };
        self.chosen.insert(name.into(), value.clone());
        Some(value)
    }

    /// Forgets the chosen bidder so that the next bid or question comes from a new firm.
    pub fn next_party(&mut self) {
        self.chosen
            .retain(|k, _| !k.starts_with("bidder_") && k != "bid_amount");
    }

    /// Forgets the chosen document so that the next upload is a different file.
    pub fn next_document(&mut self) {
        self.chosen.retain(|k, _| !k.starts_with("document_"));
    }

    /// A template filled in; `given` supplies values the caller decides (dates, mainly).
    fn fill(&mut self, template: &str, given: &[(&str, Value)]) -> Value {
        for (k, v) in given {
            self.chosen.insert((*k).into(), v.clone());
        }
        let mut body: Value =
            serde_json::from_str(template).expect("scenario bodies are valid JSON");
        self.substitute(&mut body);
        body
    }

    fn substitute(&mut self, value: &mut Value) {
        match value {
            Value::String(text) => {
                if let Some(name) = text.strip_prefix("{{").and_then(|t| t.strip_suffix("}}"))
                    && !name.contains("{{")
                {
                    let name = name.to_owned();
                    *value = self
                        .value(&name)
                        .unwrap_or_else(|| panic!("no value for template variable {name}"));
                    return;
                }
                while let Some(start) = text.find("{{") {
                    let end = text[start..].find("}}").expect("closed placeholder") + start;
                    let name = text[start + 2..end].to_owned();
                    let replacement = match self.value(&name) {
                        Some(Value::String(s)) => s,
                        Some(other) => other.to_string(),
                        None => panic!("no value for template variable {name}"),
                    };
                    text.replace_range(start..end + 2, &replacement);
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.substitute(v)),
            Value::Object(map) => map.values_mut().for_each(|v| self.substitute(v)),
            _ => {}
        }
    }

    /// A tender body whose periods end at the given (already formatted) dates.
    pub fn tender(&mut self, enquiry_end: &str, tender_end: &str, delivery_end: &str) -> Value {
        self.fill(
            TENDER,
            &[
                ("enquiry_end", json!(enquiry_end)),
                ("tender_end", json!(tender_end)),
                ("delivery_end", json!(delivery_end)),
            ],
        )
    }

    /// A step-by-step (draft) bid body from a new firm.
    pub fn bid(&mut self, amount: Option<u64>) -> Value {
        self.next_party();
        let given: Vec<(&str, Value)> = amount
            .map(|a| ("bid_amount", json!(a)))
            .into_iter()
            .collect();
        self.fill(BID, &given)
    }

    /// A question body from a new interested party.
    pub fn question(&mut self) -> Value {
        self.next_party();
        self.fill(QUESTION, &[])
    }

    /// A `{url, title, hash, format}` body of a new PDF document.
    pub fn document(&mut self) -> Value {
        self.next_document();
        self.fill(DOCUMENT, &[])
    }

    pub fn answer(&mut self) -> Value {
        self.chosen.remove("answer");
        self.fill(ANSWER, &[])
    }

    /// A fresh digit string, for identifiers the harness makes up.
    pub fn code(&mut self, digits: usize) -> String {
        self.digits(digits)
    }

    /// A fresh lowercase hexadecimal string.
    pub fn hex_id(&mut self, len: usize) -> String {
        self.hex(len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_tender() {
        let a = Fakes::new(7).tender("e", "t", "d");
        let b = Fakes::new(7).tender("e", "t", "d");
        assert_eq!(a, b);
        assert_eq!(a["data"]["enquiryPeriod"]["endDate"], "e");
        assert!(a["data"]["value"]["amount"].is_u64());
        assert!(!a.to_string().contains("{{"));
    }

    #[test]
    fn bids_come_from_different_firms_and_stay_below_the_value() {
        let mut fakes = Fakes::new(3);
        let tender = fakes.tender("e", "t", "d");
        let value = tender["data"]["value"]["amount"].as_u64().unwrap();
        let bid = fakes.bid(None);
        assert!(bid["data"]["value"]["amount"].as_u64().unwrap() < value);
        assert!(!fakes.question().to_string().contains("{{"));
        assert!(!fakes.document().to_string().contains("{{"));
    }
}
