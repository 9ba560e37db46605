//! Request bodies: the templates of `scenarios/` (read at run time), filled with varied
//! Ukrainian names, addresses, ДК021 items and amounts, and with dates computed from the
//! server's own "now".
//!
//! A template leaf `"{{name}}"` becomes the value itself (so amounts stay numbers);
//! `{{name}}` inside a longer string is replaced by its text. This is the convention of the
//! harness (`certifier/src/exchange/bodies.rs`); the benchmark has its own small filler so that it does not
//! build the harness and its dependencies.

use crate::Error;
use crate::vocabulary::VOCABULARY;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::path::Path;
use time::format_description::well_known::Rfc3339;
use time::{Duration, OffsetDateTime};

/// A small, fast, seeded random source (xorshift64*): the same seed gives the same bodies.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    pub fn between(&mut self, low: u64, high: u64) -> u64 {
        low + self.next_u64() % (high - low).max(1)
    }

    pub fn pick<'a, T>(&mut self, from: &'a [T]) -> &'a T {
        &from[self.below(from.len())]
    }

    fn digits(&mut self, count: usize) -> String {
        (0..count)
            .map(|_| char::from(b'0' + (self.next_u64() % 10) as u8))
            .collect()
    }
}

/// The parsed templates.
#[derive(Clone, Debug)]
pub struct Templates {
    tender: Value,
    bid: Value,
    question: Value,
    answer: Value,
}

impl Templates {
    pub fn load(dir: &Path) -> Result<Templates, Error> {
        let read = |name: &str| -> Result<Value, Error> {
            let path = dir.join(name);
            let text = std::fs::read_to_string(&path)
                .map_err(|e| Error::new(format!("reading {}: {e}", path.display())))?;
            serde_json::from_str(&text)
                .map_err(|e| Error::new(format!("{} is not JSON: {e}", path.display())))
        };
        Ok(Templates {
            tender: read("tender.json")?,
            bid: read("bid.json")?,
            question: read("question.json")?,
            answer: read("answer.json")?,
        })
    }
}

/// Timestamps as the server reads them.
pub fn parse_time(text: &str) -> Result<OffsetDateTime, Error> {
    OffsetDateTime::parse(text, &Rfc3339)
        .map_err(|e| Error::new(format!("not an RFC 3339 timestamp: {text:?}: {e}")))
}

pub fn format_time(t: OffsetDateTime) -> String {
    t.format(&Rfc3339).unwrap_or_default()
}

/// Dates of a tender, relative to the server's now.
#[derive(Clone, Copy, Debug)]
pub struct Periods {
    pub enquiry: Duration,
    pub tender: Duration,
}

/// A filled tender body and what the benchmark needs to know about it.
#[derive(Clone, Debug)]
pub struct TenderBody {
    pub body: Value,
    pub value_amount: u64,
}

/// Makes bodies from the templates with one seeded random source.
#[derive(Clone, Debug)]
pub struct Bodies {
    templates: Templates,
    rng: Rng,
}

impl Bodies {
    pub fn new(templates: Templates, seed: u64) -> Bodies {
        Bodies {
            templates,
            rng: Rng::new(seed),
        }
    }

    fn organisation(&mut self, prefix: &str, name: String, site: String, vars: &mut Vars) {
        let place = self.rng.pick(&VOCABULARY.cities);
        let (city, region, postal) = (&place.city, &place.region, &place.postal);
        let street = format!(
            "{}, {}",
            self.rng.pick(&VOCABULARY.streets),
            self.rng.between(1, 120)
        );
        let set = |vars: &mut Vars, key: &str, value: Value| {
            vars.insert(format!("{prefix}_{key}"), value);
        };
        set(vars, "name", json!(name));
        set(vars, "code", json!(self.rng.digits(8)));
        set(vars, "site", json!(site));
        set(vars, "city", json!(city));
        set(vars, "region", json!(region));
        set(
            vars,
            "postal",
            json!(format!("{postal}{}", self.rng.digits(3))),
        );
        set(vars, "street", json!(street));
        set(vars, "contact", json!(self.rng.pick(&VOCABULARY.people)));
        set(vars, "phone", json!(format!("+380{}", self.rng.digits(9))));
    }

    fn bidder(&mut self, vars: &mut Vars) {
        let site = format!("firm{}", self.rng.digits(4));
        let name = format!("ТОВ «{}»", self.rng.pick(&VOCABULARY.firms));
        self.organisation("bidder", name, site.clone(), vars);
        vars.insert(
            "bidder_email".into(),
            json!(format!("tender@{site}.com.ua")),
        );
    }

    /// A published (or, with `draft`, a draft) tender whose periods end after `now`.
    pub fn tender(
        &mut self,
        now: OffsetDateTime,
        periods: Periods,
        draft: bool,
    ) -> Result<TenderBody, Error> {
        let mut vars = Vars::new();
        let n = self.rng.between(1, 60).to_string();
        let entity = self.rng.pick(&VOCABULARY.entities).replace("{n}", &n);
        let site = format!("organ{}", self.rng.digits(4));
        self.organisation("entity", entity, site, &mut vars);
        let item = self.rng.pick(&VOCABULARY.items);
        let (code, uk, en, ru) = (&item.code, &item.uk, &item.en, &item.ru);
        let (dkpp, unit) = (&item.dkpp, &item.unit);
        let quantity = self.rng.between(5, 500);
        let value_amount = self.rng.between(50, 2000) * 1000;
        for (k, v) in [
            ("item_code", json!(code)),
            ("item_description", json!(uk)),
            ("item_description_en", json!(en)),
            ("item_description_ru", json!(ru)),
            ("item_dkpp", json!(dkpp.id)),
            ("item_dkpp_description", json!(dkpp.description)),
            ("item_unit_code", json!(unit.code)),
            ("item_unit", json!(unit.name)),
            ("item_quantity", json!(quantity)),
            (
                "title",
                json!(format!("Закупівля: {uk} ({quantity} {})", unit.name)),
            ),
            (
                "title_en",
                json!(format!("Purchase of {} ({quantity})", en.to_lowercase())),
            ),
            ("title_ru", json!(format!("Закупка: {ru} ({quantity})"))),
            ("value_amount", json!(value_amount)),
            ("step_amount", json!(value_amount / 100)),
            ("enquiry_end", json!(format_time(now + periods.enquiry))),
            ("tender_end", json!(format_time(now + periods.tender))),
            (
                "delivery_end",
                json!(format_time(now + periods.tender + Duration::days(30))),
            ),
        ] {
            vars.insert(k.into(), v);
        }
        let mut body = fill(&self.templates.tender, &vars, "tender.json")?;
        if draft && let Some(data) = body.get_mut("data").and_then(Value::as_object_mut) {
            data.insert("status".into(), json!("draft"));
        }
        Ok(TenderBody { body, value_amount })
    }

    /// A published tender divided into `lots` lots (ids of the client's own, one item per lot,
    /// as brokers create them inline); the tender's value is their sum, its minimal step the
    /// least of theirs.
    pub fn lot_tender(
        &mut self,
        now: OffsetDateTime,
        periods: Periods,
        lots: u64,
    ) -> Result<TenderBody, Error> {
        let mut tender = self.tender(now, periods, false)?;
        let base = tender.value_amount;
        let data = &mut tender.body["data"];
        let item = data["items"][0].clone();
        let (mut all, mut items) = (Vec::new(), Vec::new());
        for i in 0..lots {
            let id = format!("{:016x}{:016x}", self.rng.next_u64(), self.rng.next_u64());
            let value = base * (i + 2) / 2;
            all.push(json!({
                "id": id,
                "title": format!("Лот {}: {}", i + 1, item["description"].as_str().unwrap_or("")),
                "value": {"amount": value, "currency": "UAH", "valueAddedTaxIncluded": true},
                "minimalStep": {"amount": value / 100, "currency": "UAH", "valueAddedTaxIncluded": true},
            }));
            let mut lot_item = item.clone();
            lot_item["relatedLot"] = json!(id);
            items.push(lot_item);
        }
        let sum: u64 = (0..lots).map(|i| base * (i + 2) / 2).sum();
        data["value"]["amount"] = json!(sum);
        data["minimalStep"]["amount"] = json!(base / 100);
        data["lots"] = json!(all);
        data["items"] = json!(items);
        tender.value_amount = sum;
        Ok(tender)
    }

    /// A bid (as `scenarios/bid.json` has it: step by step, `draft`) from a new firm,
    /// 80–98 % of the tender's value.
    pub fn bid(&mut self, value_amount: u64) -> Result<Value, Error> {
        let mut vars = Vars::new();
        self.bidder(&mut vars);
        let percent = self.rng.between(80, 99);
        vars.insert("bid_amount".into(), json!(value_amount * percent / 100));
        fill(&self.templates.bid, &vars, "bid.json")
    }

    pub fn question(&mut self) -> Result<Value, Error> {
        let mut vars = Vars::new();
        self.bidder(&mut vars);
        vars.insert(
            "question_title".into(),
            json!(format!(
                "Уточнення щодо пункту {} технічних вимог",
                self.rng.between(1, 20)
            )),
        );
        vars.insert(
            "question_description".into(),
            json!("Чи можна запропонувати еквівалент із кращими характеристиками?"),
        );
        fill(&self.templates.question, &vars, "question.json")
    }

    pub fn answer(&mut self) -> Result<Value, Error> {
        let mut vars = Vars::new();
        vars.insert(
            "answer".into(),
            json!(format!(
                "Так, еквівалент допускається за умови відповідності ДСТУ (відповідь № {}).",
                self.rng.digits(3)
            )),
        );
        fill(&self.templates.answer, &vars, "answer.json")
    }
}

type Vars = HashMap<String, Value>;

/// The template with every placeholder replaced; a placeholder the benchmark does not know
/// is an error naming it.
fn fill(template: &Value, vars: &Vars, file: &str) -> Result<Value, Error> {
    let unknown = |name: &str| {
        Error::new(format!(
            "scenarios/{file} uses {{{{{name}}}}}, which the benchmark does not fill"
        ))
    };
    Ok(match template {
        Value::String(text) => {
            if let Some(name) = text.strip_prefix("{{").and_then(|t| t.strip_suffix("}}"))
                && !name.contains("{{")
            {
                return vars.get(name).cloned().ok_or_else(|| unknown(name));
            }
            let mut out = String::with_capacity(text.len());
            let mut rest = text.as_str();
            while let Some(start) = rest.find("{{") {
                let Some(len) = rest[start..].find("}}") else {
                    break;
                };
                let name = &rest[start + 2..start + len];
                out.push_str(&rest[..start]);
                match vars.get(name).ok_or_else(|| unknown(name))? {
                    Value::String(s) => out.push_str(s),
                    other => out.push_str(&other.to_string()),
                }
                rest = &rest[start + len + 2..];
            }
            out.push_str(rest);
            Value::String(out)
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| fill(v, vars, file))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => {
            let mut out = Map::new();
            for (k, v) in map {
                out.insert(k.clone(), fill(v, vars, file)?);
            }
            Value::Object(out)
        }
        other => other.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn templates() -> Templates {
        Templates::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios"))
            .expect("the scenarios load")
    }

    #[test]
    fn every_placeholder_of_the_scenarios_is_filled() {
        let mut bodies = Bodies::new(templates(), 1);
        let now = parse_time("2026-11-21T10:00:00+02:00").unwrap();
        let periods = Periods {
            enquiry: Duration::days(1),
            tender: Duration::days(4),
        };
        let tender = bodies.tender(now, periods, true).unwrap();
        assert_eq!(tender.body["data"]["status"], "draft");
        assert_eq!(tender.body["data"]["value"]["amount"], tender.value_amount);
        assert_eq!(
            tender.body["data"]["tenderPeriod"]["endDate"],
            "2026-11-25T10:00:00+02:00"
        );
        let bid = bodies.bid(tender.value_amount).unwrap();
        assert!(bid["data"]["value"]["amount"].as_u64().unwrap() < tender.value_amount);
        for body in [
            tender.body,
            bid,
            bodies.question().unwrap(),
            bodies.answer().unwrap(),
        ] {
            assert!(!body.to_string().contains("{{"), "{body}");
        }
    }

    #[test]
    fn a_lot_tender_sums_its_lots() {
        let mut bodies = Bodies::new(templates(), 2);
        let now = parse_time("2026-11-21T10:00:00+02:00").unwrap();
        let periods = Periods {
            enquiry: Duration::days(1),
            tender: Duration::days(4),
        };
        let tender = bodies.lot_tender(now, periods, 3).unwrap();
        let data = &tender.body["data"];
        let lots = data["lots"].as_array().unwrap();
        assert_eq!(lots.len(), 3);
        let sum: u64 = lots
            .iter()
            .map(|l| l["value"]["amount"].as_u64().unwrap())
            .sum();
        assert_eq!(data["value"]["amount"], sum);
        assert_eq!(
            data["minimalStep"]["amount"],
            lots[0]["minimalStep"]["amount"]
        );
        for (lot, item) in lots.iter().zip(data["items"].as_array().unwrap()) {
            assert_eq!(lot["id"].as_str().unwrap().len(), 32);
            assert_eq!(item["relatedLot"], lot["id"]);
        }
    }

    #[test]
    fn an_unknown_placeholder_is_an_error_not_a_panic() {
        let template = json!({"data": {"title": "x {{nope}} y"}});
        let e = fill(&template, &Vars::new(), "t.json").unwrap_err();
        assert!(e.to_string().contains("{{nope}}"), "{e}");
    }
}
