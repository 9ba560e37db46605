//! Money (the spec's `Value`, also the tender's `guarantee`) and periods.

use super::input::Input;
use super::parse::{Cx, FromJson, Obj, Problem, rules};
use super::text::Text;
use super::time::Timestamp;
use serde::{Deserialize, Serialize};

pub const DEFAULT_CURRENCY: &str = "UAH";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Money {
    pub amount: f64,
    pub currency: Text,
    pub value_added_tax_included: bool,
}

/// Money as sent: currency and VAT flag may be left to a default.
#[derive(Debug, Clone, PartialEq)]
pub struct MoneyInput {
    pub amount: f64,
    pub currency: Option<String>,
    pub value_added_tax_included: Option<bool>,
}

impl MoneyInput {
    pub fn or_defaults(self, currency: &str, vat: bool) -> Money {
        Money {
            amount: self.amount,
            currency: self.currency.map_or_else(|| currency.into(), Text::from),
            value_added_tax_included: self.value_added_tax_included.unwrap_or(vat),
        }
    }
}

fn amount(o: &mut Obj<'_>) -> Option<f64> {
    let amount: Option<f64> = o.req("amount");
    if let Some(a) = amount
        && let Err(p) = rules::min_float(a, 0.0)
    {
        o.fail("amount", p);
    }
    amount
}

fn currency(o: &mut Obj<'_>) -> Option<String> {
    let currency: Option<String> = o.opt("currency");
    if let Some(c) = &currency
        && let Err(p) = rules::length(c, 3, 3)
    {
        o.fail("currency", p);
    }
    currency
}

impl FromJson for MoneyInput {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem> {
        let mut o = Obj::new(v, cx, "Value")?;
        let amount = amount(&mut o);
        let currency = currency(&mut o);
        let value_added_tax_included = o.opt("valueAddedTaxIncluded");
        o.done(|| {
            Some(MoneyInput {
                amount: amount?,
                currency,
                value_added_tax_included,
            })
        })
    }
}

impl FromJson for Money {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem> {
        MoneyInput::from_json(v, cx).map(|m| m.or_defaults(DEFAULT_CURRENCY, true))
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Period {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_date: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_date: Option<Timestamp>,
}

impl FromJson for Period {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem> {
        let mut o = Obj::new(v, cx, "Period")?;
        let start_date: Option<Timestamp> = o.opt("startDate");
        let end_date: Option<Timestamp> = o.opt("endDate");
        if let (Some(s), Some(e)) = (start_date, end_date)
            && s > e
        {
            o.fail(
                "startDate",
                Problem::msg("period should begin before its end"),
            );
        }
        o.done(|| {
            Some(Period {
                start_date,
                end_date,
            })
        })
    }
}

/// A period whose end the client must send (enquiry and tender periods).
#[derive(Debug, Serialize)]
#[serde(transparent)]
pub struct PeriodEndRequired(pub Period);

impl FromJson for PeriodEndRequired {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem> {
        let period = Period::from_json(v, cx)?;
        if period.end_date.is_none() {
            return Err(Problem::field(
                "endDate",
                Problem::msg(super::parse::REQUIRED),
            ));
        }
        Ok(PeriodEndRequired(period))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cx() -> Cx {
        Cx::kyiv(false)
    }

    #[test]
    fn money_defaults_to_uah_with_vat_and_shows_decimals() {
        let m = Money::from_value(&json!({"amount": 500}), &cx()).expect("valid");
        assert_eq!(
            serde_json::to_value(&m).ok(),
            Some(json!({"amount": 500.0, "currency": "UAH", "valueAddedTaxIncluded": true}))
        );
        assert_eq!(
            serde_json::to_string(&m).ok().as_deref(),
            Some(r#"{"amount":500.0,"currency":"UAH","valueAddedTaxIncluded":true}"#)
        );
    }

    #[test]
    fn money_rules() {
        let err = Money::from_value(&json!({"amount": -1, "currency": "UAHX"}), &cx())
            .expect_err("invalid");
        assert_eq!(
            err.flat(),
            json!({"amount": "Float value should be greater than 0.", "currency": "String value is too long."})
        );
    }

    #[test]
    fn vat_flag_is_kept_when_sent() {
        let m = Money::from_value(
            &json!({"amount": 5, "currency": "USD", "valueAddedTaxIncluded": false}),
            &cx(),
        )
        .expect("valid");
        assert!(!m.value_added_tax_included);
    }

    #[test]
    fn period_must_begin_before_its_end() {
        let err = Period::from_value(
            &json!({"startDate": "2017-02-01", "endDate": "2017-01-01"}),
            &cx(),
        )
        .expect_err("invalid");
        assert_eq!(
            err.flat(),
            json!({"startDate": "period should begin before its end"})
        );
        let err = PeriodEndRequired::from_value(&json!({}), &cx()).expect_err("invalid");
        assert_eq!(err.flat(), json!({"endDate": "This field is required."}));
    }
}
