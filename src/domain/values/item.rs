//! Items (what is bought) and features (non-price criteria of a tender).

use super::ids;
use super::input::Input;
use super::money::Period;
use super::organization::Address;
use super::parse::{Cx, FromJson, Obj, Problem, one_of, rules};
use super::text::Text;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

pub const CLASSIFICATION_SCHEMES: [&str; 2] = ["CPV", "ДК021"];
/// The classification code that needs an additional classification ("not defined").
const OTHER_CODE: &str = "99999999-9";
/// One of an item's additional classifications must be of these when its code is
/// [`OTHER_CODE`] (upstream's `ADDITIONAL_CLASSIFICATIONS_SCHEMES_2017`). Other codes take
/// additional classifications of any scheme, or none, unchecked, as upstream's did.
const OTHER_CODE_SCHEMES: [&str; 4] = ["ДК003", "ДК015", "ДК018", "specialNorms"];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Classification {
    pub scheme: Text,
    pub id: Text,
    pub description: Text,
    #[serde(rename = "description_en", skip_serializing_if = "Option::is_none")]
    pub description_en: Option<Text>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uri: Option<Text>,
}

/// A classification whose scheme is one of `schemes`, or of any scheme.
fn read_classification(
    v: &Input<'_>,
    cx: &Cx,
    schemes: Option<&[&str]>,
) -> Result<Classification, Problem> {
    let mut o = Obj::new(v, cx, "Classification")?;
    let scheme: Option<Text> = o.req("scheme");
    if let (Some(s), Some(schemes)) = (&scheme, schemes)
        && !schemes.contains(&s.as_str())
    {
        o.fail("scheme", Problem::msg(one_of(schemes)));
    }
    let id: Option<Text> = o.req("id");
    let description = o.req("description");
    let description_en = o.opt("description_en");
    let uri = o.opt("uri");
    o.done(|| {
        Some(Classification {
            scheme: scheme?,
            id: id?,
            description: description?,
            description_en,
            uri,
        })
    })
}

/// The main classification of an item: CPV or ДК021, an 8-digit code with a check digit.
struct MainClassification(Classification);

impl FromJson for MainClassification {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem> {
        let c = read_classification(v, cx, Some(&CLASSIFICATION_SCHEMES))?;
        if !is_cpv_code(&c.id) {
            return Err(Problem::field(
                "id",
                Problem::msg(format!(
                    "Value must be a classification code like 45000000-7, not '{}'.",
                    c.id
                )),
            ));
        }
        Ok(MainClassification(c))
    }
}

struct AdditionalClassification(Classification);

impl FromJson for AdditionalClassification {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem> {
        read_classification(v, cx, None).map(AdditionalClassification)
    }
}

fn is_cpv_code(id: &str) -> bool {
    let b = id.as_bytes();
    b.len() == 10 && b[8] == b'-' && b[..8].iter().chain(&b[9..]).all(u8::is_ascii_digit)
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unit {
    pub code: Text,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<Text>,
}

impl FromJson for Unit {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem> {
        let mut o = Obj::new(v, cx, "Unit")?;
        let code = o.req("code");
        let name = o.opt("name");
        o.done(|| Some(Unit { code: code?, name }))
    }
}

/// Latitude and longitude as sent: numbers or numeric strings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Location {
    pub latitude: Json,
    pub longitude: Json,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elevation: Option<Json>,
}

fn coordinate(o: &mut Obj<'_>, key: &'static str, required: bool) -> Option<Json> {
    let v: Option<Json> = if required { o.req(key) } else { o.opt(key) };
    let numeric = match &v {
        Some(Json::Number(_)) | None => true,
        Some(Json::String(s)) => s.trim().parse::<f64>().is_ok(),
        Some(_) => false,
    };
    if !numeric {
        o.fail(key, Problem::msg("Value is not a coordinate."));
    }
    v
}

impl FromJson for Json {
    fn from_json(v: &Input<'_>, _: &Cx) -> Result<Self, Problem> {
        Ok(v.to_value())
    }
}

impl FromJson for Location {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem> {
        let mut o = Obj::new(v, cx, "Location")?;
        let latitude = coordinate(&mut o, "latitude", true);
        let longitude = coordinate(&mut o, "longitude", true);
        let elevation = coordinate(&mut o, "elevation", false);
        o.done(|| {
            Some(Location {
                latitude: latitude?,
                longitude: longitude?,
                elevation,
            })
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Item {
    pub id: Text,
    pub description: Text,
    #[serde(rename = "description_en", skip_serializing_if = "Option::is_none")]
    pub description_en: Option<Text>,
    #[serde(rename = "description_ru", skip_serializing_if = "Option::is_none")]
    pub description_ru: Option<Text>,
    pub classification: Classification,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub additional_classifications: Vec<Classification>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<Unit>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quantity: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delivery_date: Option<Period>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delivery_address: Option<Address>,
    /// Boxed: its coordinates are kept as sent (number or string), 216 bytes that nearly
    /// every item would carry unused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delivery_location: Option<Box<Location>>,
    /// The lot the item belongs to, in a tender with lots.
    #[serde(rename = "relatedLot", skip_serializing_if = "Option::is_none")]
    pub related_lot: Option<Text>,
}

impl Item {
    /// The CPV class: the first four digits (the first three in the 336 group).
    fn cpv_class(&self) -> &str {
        let id = self.classification.id.as_str();
        let digits = if id.starts_with("336") { 3 } else { 4 };
        id.get(..digits).unwrap_or(id)
    }
}

impl FromJson for Item {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem> {
        let mut o = Obj::new(v, cx, "Item")?;
        let id: Option<Text> = o.opt("id");
        if let Some(Err(p)) = id.as_deref().map(|i| rules::length(i, 1, 64)) {
            o.fail("id", p);
        }
        let description = o.req("description");
        let description_en = o.opt("description_en");
        let description_ru = o.opt("description_ru");
        let classification: Option<MainClassification> = o.req("classification");
        let additional: Option<Vec<AdditionalClassification>> = o.opt("additionalClassifications");
        let needs_additional = classification
            .as_ref()
            .is_some_and(|c| c.0.id == OTHER_CODE);
        if needs_additional && !o.failed("additionalClassifications") {
            match &additional {
                None => o.fail(
                    "additionalClassifications",
                    Problem::msg(super::parse::REQUIRED),
                ),
                Some(list) if list.is_empty() => o.fail(
                    "additionalClassifications",
                    Problem::msg(super::parse::REQUIRED),
                ),
                Some(list)
                    if !list
                        .iter()
                        .any(|c| OTHER_CODE_SCHEMES.contains(&c.0.scheme.as_str())) =>
                {
                    o.fail(
                        "additionalClassifications",
                        Problem::msg(format!(
                            "One of additional classifications should be one of [{}].",
                            OTHER_CODE_SCHEMES.join(", ")
                        )),
                    )
                }
                Some(_) => {}
            }
        }
        let unit = o.opt("unit");
        let quantity: Option<i64> = o.opt("quantity");
        if quantity.is_some_and(|q| q < 0) {
            o.fail(
                "quantity",
                Problem::msg("Int value should be greater than 0."),
            );
        }
        let delivery_date = o.opt("deliveryDate");
        let delivery_address = o.opt("deliveryAddress");
        let delivery_location = o.opt("deliveryLocation");
        let related_lot = o.opt("relatedLot");
        o.done(|| {
            Some(Item {
                id: id.unwrap_or_else(|| ids::new_id().into()),
                description: description?,
                description_en,
                description_ru,
                classification: classification?.0,
                additional_classifications: additional
                    .unwrap_or_default()
                    .into_iter()
                    .map(|a| a.0)
                    .collect(),
                unit,
                quantity,
                delivery_date,
                delivery_address,
                delivery_location,
                related_lot,
            })
        })
    }
}

/// A list of items holds at least one, each id once.
pub fn check_item_ids(items: &[Item]) -> Result<(), Problem> {
    if items.is_empty() {
        return Err(Problem::msg("Please provide at least 1 item."));
    }
    for (i, item) in items.iter().enumerate() {
        if items[..i].iter().any(|other| other.id == item.id) {
            return Err(Problem::msg("Item id should be uniq for all items"));
        }
    }
    Ok(())
}

/// Rules over the whole list of items, reported on `items`.
pub fn check_items(items: &[Item]) -> Result<(), Problem> {
    check_item_ids(items)?;
    let class = items[0].cpv_class();
    if items.iter().any(|i| i.cpv_class() != class) {
        return Err(Problem::msg("CPV class of items should be identical"));
    }
    Ok(())
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FeatureValue {
    pub value: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<Text>,
    #[serde(rename = "title_en", skip_serializing_if = "Option::is_none")]
    pub title_en: Option<Text>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<Text>,
}

impl FromJson for FeatureValue {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem> {
        let mut o = Obj::new(v, cx, "FeatureValue")?;
        let value: Option<f64> = o.req("value");
        if let Some(Err(p)) = value
            .map(|x| rules::min_float(x, 0.0).and_then(|_| rules::max_float(x, MAX_FEATURES_SUM)))
        {
            o.fail("value", p);
        }
        let title = o.opt("title");
        let title_en = o.opt("title_en");
        let description = o.opt("description");
        o.done(|| {
            Some(FeatureValue {
                value: value?,
                title,
                title_en,
                description,
            })
        })
    }
}

/// The largest share of the price that features may take, per value and in sum.
pub const MAX_FEATURES_SUM: f64 = 0.3;
pub const FEATURE_OF: [&str; 3] = ["tenderer", "lot", "item"];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Feature {
    pub code: Text,
    pub feature_of: Text,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub related_item: Option<Text>,
    pub title: Text,
    #[serde(rename = "title_en", skip_serializing_if = "Option::is_none")]
    pub title_en: Option<Text>,
    #[serde(rename = "title_ru", skip_serializing_if = "Option::is_none")]
    pub title_ru: Option<Text>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<Text>,
    #[serde(rename = "description_en", skip_serializing_if = "Option::is_none")]
    pub description_en: Option<Text>,
    #[serde(rename = "description_ru", skip_serializing_if = "Option::is_none")]
    pub description_ru: Option<Text>,
    #[serde(rename = "enum")]
    pub values: Vec<FeatureValue>,
}

impl Feature {
    pub fn max_value(&self) -> f64 {
        self.values.iter().map(|v| v.value).fold(0.0, f64::max)
    }
}

impl FromJson for Feature {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem> {
        let mut o = Obj::new(v, cx, "Feature")?;
        let code: Option<Text> = o.req("code");
        let feature_of = o
            .choice("featureOf", &FEATURE_OF)
            .or_else(|| (!o.failed("featureOf")).then(|| "tenderer".to_string()));
        let related_item: Option<Text> = o.opt("relatedItem");
        if feature_of.as_deref().is_some_and(|f| f != "tenderer") && related_item.is_none() {
            o.fail("relatedItem", Problem::msg("This field is required."));
        }
        let title = o.req("title");
        let title_en = o.opt("title_en");
        let title_ru = o.opt("title_ru");
        let description = o.opt("description");
        let description_en = o.opt("description_en");
        let description_ru = o.opt("description_ru");
        let values: Option<Vec<FeatureValue>> = o.req("enum");
        if let Some(values) = &values {
            if values.is_empty() {
                o.fail("enum", Problem::msg("Please provide at least 1 item."));
            } else if values
                .iter()
                .enumerate()
                .any(|(i, v)| values[..i].iter().any(|w| w.value == v.value))
            {
                o.fail(
                    "enum",
                    Problem::msg("Feature value should be uniq for feature"),
                );
            }
        }
        o.done(|| {
            Some(Feature {
                code: code?,
                feature_of: feature_of?.into(),
                related_item,
                title: title?,
                title_en,
                title_ru,
                description,
                description_en,
                description_ru,
                values: values?,
            })
        })
    }
}

/// Rules over the features of a tender, reported on `features`.
pub fn check_features(
    features: &[Feature],
    items: &[Item],
    lot_ids: &[&str],
) -> Result<(), Problem> {
    let mut per_feature = Vec::with_capacity(features.len());
    let mut related_failed = false;
    for f in features {
        let known = match f.feature_of.as_str() {
            "item" => f
                .related_item
                .as_ref()
                .is_none_or(|r| items.iter().any(|i| &i.id == r)),
            "lot" => f
                .related_item
                .as_ref()
                .is_none_or(|r| lot_ids.contains(&r.as_str())),
            _ => true,
        };
        if known {
            per_feature.push(Problem::NONE);
        } else {
            related_failed = true;
            let what = if f.feature_of == "lot" {
                "lots"
            } else {
                "items"
            };
            per_feature.push(Problem::field(
                "relatedItem",
                Problem::msg(format!("relatedItem should be one of {what}")),
            ));
        }
    }
    if related_failed {
        return Err(Problem::Items(per_feature));
    }
    for (i, f) in features.iter().enumerate() {
        if features[..i].iter().any(|g| g.code == f.code) {
            return Err(Problem::msg("Feature code should be uniq for all features"));
        }
    }
    let too_much = |weighing: &mut dyn Iterator<Item = &Feature>| {
        weighing.map(Feature::max_value).sum::<f64>() > MAX_FEATURES_SUM + 1e-9
    };
    if lot_ids.is_empty() {
        if too_much(&mut features.iter()) {
            return Err(Problem::msg(
                "Sum of max value of all features should be less then or equal to 30%",
            ));
        }
        return Ok(());
    }
    // With lots, what weighs on each lot's offers: the tenderer's, the lot's and its items'.
    for lot in lot_ids {
        let weighs = |f: &&Feature| {
            let related = f.related_item.as_deref();
            match f.feature_of.as_str() {
                "lot" => related == Some(*lot),
                "item" => items.iter().any(|i| {
                    Some(i.id.as_str()) == related && i.related_lot.as_deref() == Some(*lot)
                }),
                _ => true,
            }
        };
        if too_much(&mut features.iter().filter(weighs)) {
            return Err(Problem::msg(
                "Sum of max value of all features for lot should be less then or equal to 30%",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cx() -> Cx {
        Cx::kyiv(false)
    }

    fn item(id: &str, code: &str) -> Item {
        Item::from_value(&json!({"id": id, "description": "папір", "classification": {"scheme": "ДК021", "id": code, "description": "Папір"}}), &cx())
            .expect("valid item")
    }

    #[test]
    fn items_keep_client_ids_and_get_one_otherwise() {
        assert_eq!(item("1", "30192700-8").id, "1");
        let generated = Item::from_value(&json!({"description": "x", "classification": {"scheme": "CPV", "id": "30192700-8", "description": "x"}}), &cx())
            .expect("valid");
        assert_eq!(generated.id.len(), 32);
    }

    #[test]
    fn items_rules() {
        assert_eq!(
            check_items(&[item("1", "30192700-8"), item("1", "30192700-8")]),
            Err(Problem::msg("Item id should be uniq for all items"))
        );
        assert_eq!(
            check_items(&[item("1", "30192700-8"), item("2", "44192700-8")]),
            Err(Problem::msg("CPV class of items should be identical"))
        );
        assert_eq!(
            check_items(&[item("1", "30192700-8"), item("2", "30199000-0")]),
            Ok(())
        );
        assert_eq!(
            check_items(&[]),
            Err(Problem::msg("Please provide at least 1 item."))
        );
    }

    /// Upstream 2.3.66 for a tender created after 2017: `99999999-9` needs an additional
    /// classification, one of them of the 2017 schemes; other codes take any or none.
    #[test]
    fn other_code_needs_an_additional_classification_of_the_2017_schemes() {
        let item = |code: &str, additional: serde_json::Value| {
            let mut i = json!({"description": "x", "classification": {"scheme": "ДК021", "id": code, "description": "x"}});
            if !additional.is_null() {
                i["additionalClassifications"] = additional;
            }
            Item::from_value(&i, &cx())
        };
        let required = json!({"additionalClassifications": "This field is required."});
        assert_eq!(
            item(OTHER_CODE, json!(null)).expect_err("invalid").flat(),
            required
        );
        assert_eq!(
            item(OTHER_CODE, json!([])).expect_err("invalid").flat(),
            required
        );
        let dkpp = json!({"scheme": "ДКПП", "id": "17.12", "description": "Папір"});
        assert_eq!(
            item(OTHER_CODE, json!([dkpp])).expect_err("invalid").flat(),
            json!({"additionalClassifications": "One of additional classifications should be one of [ДК003, ДК015, ДК018, specialNorms]."})
        );
        let dk003 = json!({"scheme": "ДК003", "id": "3475", "description": "Фахівці"});
        assert!(item(OTHER_CODE, json!([dkpp, dk003])).is_ok());
        assert!(item("30192700-8", json!(null)).is_ok());
        let odd = json!({"scheme": "Не ДКПП", "id": "1", "description": "x"});
        assert!(
            item("30192700-8", json!([odd])).is_ok(),
            "any scheme, unchecked"
        );
    }

    fn feature(code: &str, of: &str, related: Option<&str>, values: &[f64]) -> Feature {
        let mut f = json!({"code": code, "featureOf": of, "title": "Якість", "enum": values.iter().map(|v| json!({"value": v})).collect::<Vec<_>>()});
        if let Some(r) = related {
            f["relatedItem"] = json!(r);
        }
        Feature::from_value(&f, &cx()).expect("valid feature")
    }

    #[test]
    fn features_rules() {
        let items = [item("1", "30192700-8")];
        assert_eq!(
            check_features(
                &[
                    feature("a", "item", Some("1"), &[0.0, 0.1]),
                    feature("b", "tenderer", None, &[0.15])
                ],
                &items,
                &[]
            ),
            Ok(())
        );
        assert_eq!(
            check_features(
                &[
                    feature("a", "tenderer", None, &[0.2]),
                    feature("b", "tenderer", None, &[0.15])
                ],
                &items,
                &[]
            ),
            Err(Problem::msg(
                "Sum of max value of all features should be less then or equal to 30%"
            ))
        );
        assert_eq!(
            check_features(
                &[
                    feature("a", "tenderer", None, &[0.1]),
                    feature("a", "tenderer", None, &[0.1])
                ],
                &items,
                &[]
            ),
            Err(Problem::msg("Feature code should be uniq for all features"))
        );
        let lots = [
            feature("a", "lot", Some("L1"), &[0.2]),
            feature("b", "lot", Some("L2"), &[0.2]),
        ];
        assert_eq!(
            check_features(&lots, &items, &["L1", "L2"]),
            Ok(()),
            "each lot is weighed on its own"
        );
        let mut heavy = lots.to_vec();
        heavy.push(feature("c", "tenderer", None, &[0.15]));
        assert_eq!(
            check_features(&heavy, &items, &["L1", "L2"]),
            Err(Problem::msg(
                "Sum of max value of all features for lot should be less then or equal to 30%"
            ))
        );
        let bad = check_features(&[feature("a", "item", Some("9"), &[0.1])], &items, &[])
            .expect_err("invalid");
        assert_eq!(
            bad.flat(),
            json!({"0.relatedItem": "relatedItem should be one of items"})
        );
    }

    #[test]
    fn feature_values_bounded_and_unique() {
        let err = Feature::from_value(
            &json!({"code": "a", "title": "t", "enum": [{"value": 0.5}]}),
            &cx(),
        )
        .expect_err("invalid");
        assert_eq!(
            err.flat(),
            json!({"enum.0.value": "Float value should be less than 0.3."})
        );
        let err = Feature::from_value(
            &json!({"code": "a", "title": "t", "enum": [{"value": 0.1}, {"value": 0.1}]}),
            &cx(),
        )
        .expect_err("invalid");
        assert_eq!(
            err.flat(),
            json!({"enum": "Feature value should be uniq for feature"})
        );
    }
}
