//! Organizations: procuring entity, question author, tenderer, supplier.

use super::input::Input;
use super::parse::{Cx, FromJson, Obj, Problem, rules};
use super::text::Text;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Kinds of procuring entity allowed to publish a belowThreshold tender.
pub const ENTITY_KINDS: [&str; 4] = ["general", "special", "defense", "other"];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Identifier {
    pub scheme: Text,
    pub id: Text,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uri: Option<Text>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub legal_name: Option<Text>,
    #[serde(rename = "legalName_en", skip_serializing_if = "Option::is_none")]
    pub legal_name_en: Option<Text>,
    #[serde(rename = "legalName_ru", skip_serializing_if = "Option::is_none")]
    pub legal_name_ru: Option<Text>,
}

impl FromJson for Identifier {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem> {
        let mut o = Obj::new(v, cx, "Identifier")?;
        let scheme = o.req("scheme");
        let id = o.req("id");
        let uri: Option<Text> = o.opt("uri");
        if let Some(Err(p)) = uri.as_deref().map(rules::url) {
            o.fail("uri", p);
        }
        let legal_name = o.opt("legalName");
        let legal_name_en = o.opt("legalName_en");
        let legal_name_ru = o.opt("legalName_ru");
        o.done(|| {
            Some(Identifier {
                scheme: scheme?,
                id: id?,
                uri,
                legal_name,
                legal_name_en,
                legal_name_ru,
            })
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Address {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub street_address: Option<Text>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locality: Option<Text>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<Text>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub postal_code: Option<Text>,
    pub country_name: Text,
    #[serde(rename = "countryName_en", skip_serializing_if = "Option::is_none")]
    pub country_name_en: Option<Text>,
    #[serde(rename = "countryName_ru", skip_serializing_if = "Option::is_none")]
    pub country_name_ru: Option<Text>,
}

impl FromJson for Address {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem> {
        let mut o = Obj::new(v, cx, "Address")?;
        let street_address = o.opt("streetAddress");
        let locality = o.opt("locality");
        let region = o.opt("region");
        let postal_code = o.opt("postalCode");
        let country_name = o.req("countryName");
        let country_name_en = o.opt("countryName_en");
        let country_name_ru = o.opt("countryName_ru");
        o.done(|| {
            Some(Address {
                street_address,
                locality,
                region,
                postal_code,
                country_name: country_name?,
                country_name_en,
                country_name_ru,
            })
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContactPoint {
    pub name: Text,
    #[serde(rename = "name_en", skip_serializing_if = "Option::is_none")]
    pub name_en: Option<Text>,
    #[serde(rename = "name_ru", skip_serializing_if = "Option::is_none")]
    pub name_ru: Option<Text>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<Text>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub telephone: Option<Text>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fax_number: Option<Text>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<Text>,
}

impl FromJson for ContactPoint {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem> {
        let mut o = Obj::new(v, cx, "ContactPoint")?;
        let name = o.req("name");
        let name_en = o.opt("name_en");
        let name_ru = o.opt("name_ru");
        let email: Option<Text> = o.opt("email");
        if let Some(Err(p)) = email.as_deref().map(rules::email) {
            o.fail("email", p);
        }
        let telephone: Option<Text> = o.opt("telephone");
        if email.is_none() && telephone.is_none() && !o.failed("email") {
            o.fail(
                "email",
                Problem::msg("telephone or email should be present"),
            );
        }
        let fax_number = o.opt("faxNumber");
        let url: Option<Text> = o.opt("url");
        if let Some(Err(p)) = url.as_deref().map(rules::url) {
            o.fail("url", p);
        }
        o.done(|| {
            Some(ContactPoint {
                name: name?,
                name_en,
                name_ru,
                email,
                telephone,
                fax_number,
                url,
            })
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Organization {
    pub name: Text,
    #[serde(rename = "name_en", skip_serializing_if = "Option::is_none")]
    pub name_en: Option<Text>,
    #[serde(rename = "name_ru", skip_serializing_if = "Option::is_none")]
    pub name_ru: Option<Text>,
    pub identifier: Identifier,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub additional_identifiers: Vec<Identifier>,
    pub address: Address,
    pub contact_point: ContactPoint,
    /// Only on the procuring entity.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<Text>,
}

fn read_organization(v: &Input<'_>, cx: &Cx, with_kind: bool) -> Result<Organization, Problem> {
    let mut o = Obj::new(v, cx, "Organization")?;
    let name = o.req("name");
    let name_en = o.opt("name_en");
    let name_ru = o.opt("name_ru");
    let identifier = o.req("identifier");
    let additional_identifiers = o.opt("additionalIdentifiers").unwrap_or_default();
    let address = o.req("address");
    let contact_point = o.req("contactPoint");
    let kind = if with_kind { o.opt("kind") } else { None };
    o.done(|| {
        Some(Organization {
            name: name?,
            name_en,
            name_ru,
            identifier: identifier?,
            additional_identifiers,
            address: address?,
            contact_point: contact_point?,
            kind,
        })
    })
}

impl FromJson for Organization {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem> {
        read_organization(v, cx, false)
    }
}

/// The procuring entity: an organization with a `kind`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct ProcuringEntity(pub Arc<Organization>);

impl FromJson for ProcuringEntity {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem> {
        read_organization(v, cx, true).map(|o| ProcuringEntity(Arc::new(o)))
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
    fn contact_point_needs_telephone_or_email() {
        let org = json!({
            "name": "ДП Державне Управління Справами",
            "identifier": {"scheme": "UA-EDR", "id": "00037256", "uri": "http://www.dus.gov.ua/"},
            "address": {"countryName": "Україна"},
            "contactPoint": {"name": "Державне управління справами"}
        });
        let err = Organization::from_value(&org, &cx()).expect_err("invalid");
        assert_eq!(
            err.flat(),
            json!({"contactPoint.email": "telephone or email should be present"})
        );
    }

    #[test]
    fn kind_only_on_the_procuring_entity() {
        let org = json!({
            "name": "Школа", "kind": "general",
            "identifier": {"scheme": "UA-EDR", "id": "1", "uri": "not a url"},
            "address": {"countryName": "Україна"},
            "contactPoint": {"name": "Іван", "telephone": "+380"}
        });
        let err = Organization::from_value(&org, &cx()).expect_err("invalid");
        assert_eq!(
            err.flat(),
            json!({"identifier.uri": "Not a well formed URL.", "kind": "Rogue field"})
        );
        let err = ProcuringEntity::from_value(&org, &cx()).expect_err("invalid");
        assert_eq!(
            err.flat(),
            json!({"identifier.uri": "Not a well formed URL."})
        );
    }
}
