//! Documents of a tender, a bid, an award, a contract, a cancellation, a claim or a contract
//! under management, with their versions.
//!
//! The client uploads the file to the document service (or another store) and registers it
//! here by URL, or sends the file itself, which goes to the document service first. An address
//! of the service is checked on the way in; public documents show the service's permanent
//! signed address (another store's address is shown endorsed with the same key), bid documents
//! show a download address under the service's own path that redirects to it.

use super::ids;
use super::input::Input;
use super::merge::merge;
use super::parse::{Cx, FromJson, Obj, Problem, rules};
use super::text::Text;
use super::time::Timestamp;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value as Json;

pub const DOCUMENT_TYPES: [&str; 29] = [
    "tenderNotice",
    "awardNotice",
    "contractNotice",
    "notice",
    "biddingDocuments",
    "technicalSpecifications",
    "evaluationCriteria",
    "clarifications",
    "shortlistedFirms",
    "riskProvisions",
    "billOfQuantity",
    "bidders",
    "conflictOfInterest",
    "debarments",
    "evaluationReports",
    "winningBid",
    "complaints",
    "contractSigned",
    "contractArrangements",
    "contractSchedule",
    "contractAnnexe",
    "contractGuarantees",
    "subContract",
    "eligibilityCriteria",
    "contractProforma",
    "commercialProposal",
    "qualificationDocuments",
    "eligibilityDocuments",
    "registerExtract",
];
/// What the documents of one kind of record may be of (`documentOf`), and what they are of
/// when the client does not say: a document of a `relatedItem` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DocumentOf {
    pub choices: &'static [&'static str],
    pub default: &'static str,
}

impl DocumentOf {
    /// Documents of a tender and of the records it holds.
    pub const TENDER: DocumentOf = DocumentOf {
        choices: &["tender", "item", "lot"],
        default: "tender",
    };

    /// Whether a document of `of` needs a `relatedItem`: any of a part of the record.
    fn needs_related(&self, of: &str) -> bool {
        !matches!(of, "tender" | "contract")
    }
}
/// Fields a client may send back but never set.
const READ_ONLY: [&str; 5] = [
    "id",
    "datePublished",
    "dateModified",
    "previousVersions",
    "author",
];

/// Document metadata as the client sends it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DocumentInput {
    pub title: String,
    #[serde(rename = "title_en", skip_serializing_if = "Option::is_none")]
    pub title_en: Option<String>,
    #[serde(rename = "title_ru", skip_serializing_if = "Option::is_none")]
    pub title_ru: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(rename = "description_en", skip_serializing_if = "Option::is_none")]
    pub description_en: Option<String>,
    #[serde(rename = "description_ru", skip_serializing_if = "Option::is_none")]
    pub description_ru: Option<String>,
    pub format: String,
    pub url: String,
    pub hash: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document_type: Option<String>,
    pub document_of: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub related_item: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
}

fn check_format(format: &str) -> bool {
    let Some((kind, sub)) = format.split_once('/') else {
        return false;
    };
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    !kind.is_empty()
        && kind.chars().all(word)
        && !sub.is_empty()
        && sub.chars().all(|c| word(c) || c == '.' || c == '+')
}

fn check_hash(hash: &str) -> Result<(), Problem> {
    let (algorithm, digest) = hash.split_once(':').unwrap_or(("", hash));
    let length = match algorithm {
        "md5" => 32,
        "sha1" => 40,
        "sha256" => 64,
        "sha512" => 128,
        _ => return Err(Problem::msg("Hash type is not supported.")),
    };
    if digest.len() != length {
        Err(Problem::msg("Hash value is wrong length."))
    } else if !digest.chars().all(|c| c.is_ascii_hexdigit()) {
        Err(Problem::msg("Hash value is not hexadecimal."))
    } else {
        Ok(())
    }
}

impl FromJson for DocumentInput {
    fn from_json(v: &Input<'_>, cx: &Cx) -> Result<Self, Problem> {
        DocumentInput::read(v, cx, DocumentOf::TENDER)
    }
}

impl DocumentInput {
    /// A document of a record whose documents may be `of`.
    pub fn read(v: &Input<'_>, cx: &Cx, of: DocumentOf) -> Result<Self, Problem> {
        let mut o = Obj::new(v, cx, "Document")?;
        o.skip(&READ_ONLY);
        let title = o.req("title");
        let title_en = o.opt("title_en");
        let title_ru = o.opt("title_ru");
        let description = o.opt("description");
        let description_en = o.opt("description_en");
        let description_ru = o.opt("description_ru");
        let format: Option<String> = o.req("format");
        if format.as_deref().is_some_and(|f| !check_format(f)) {
            o.fail(
                "format",
                Problem::msg("String value did not match validation regex."),
            );
        }
        let url: Option<String> = o.req("url");
        if let Some(Err(p)) = url.as_deref().map(rules::url) {
            o.fail("url", p);
        }
        let hash: Option<String> = o.req("hash");
        if let Some(Err(p)) = hash.as_deref().map(check_hash) {
            o.fail("hash", p);
        }
        let document_type = o.choice("documentType", &DOCUMENT_TYPES);
        let document_of = o.choice("documentOf", of.choices);
        let related_item: Option<String> = o.opt("relatedItem");
        if document_of.as_deref().is_some_and(|d| of.needs_related(d)) && related_item.is_none() {
            o.fail("relatedItem", Problem::msg(super::parse::REQUIRED));
        }
        let language = o.choice("language", &["uk", "en", "ru"]);
        o.done(|| {
            Some(DocumentInput {
                title: title?,
                title_en,
                title_ru,
                description,
                description_en,
                description_ru,
                format: format?,
                url: url?,
                hash: hash?,
                document_type,
                document_of: document_of.unwrap_or_else(|| of.default.to_string()),
                related_item,
                language,
            })
        })
    }
}

/// How a document's address is shown.
#[derive(Debug, Clone)]
pub enum UrlStyle {
    /// The document service's permanent signed address.
    Signed,
    /// `{prefix}/{document id}?download={key}`: the service's own download address.
    Download(String),
}

/// Why a document's address was not accepted.
#[derive(Debug, Clone, PartialEq)]
pub enum Unfiled {
    /// A field problem (422), the document service's address checks among them.
    Invalid(Problem),
    /// Another store's address where only the document service's are accepted (403).
    ForeignStore,
}

impl From<Problem> for Unfiled {
    fn from(p: Problem) -> Unfiled {
        Unfiled::Invalid(p)
    }
}

/// What vouches for the document service's addresses (the server's signing key, which the
/// file store keeps): it checks an address a client sent and makes the ones a record shows.
pub trait Addresses: std::fmt::Debug + Sync {
    /// `url` as a document address: `Ok(None)` for another store's, `Ok(Some(key))` for a
    /// permanent address of the service under `root` whose signature vouches for `hash`, else
    /// why not in upstream's words.
    fn check(&self, url: &str, hash: &str, root: &str) -> Result<Option<String>, &'static str>;
    /// The service's permanent address of `key` under `root`, its content's md5 `md5` (hex).
    fn permanent(&self, root: &str, key: &str, md5: &str) -> String;
    /// Another store's address as the server shows it, endorsed with its key.
    fn endorsed(&self, url: &str, hash: &str) -> String;
}

/// Where documents' files are and how their addresses are checked and shown: the one path
/// every document of every holder takes.
#[derive(Debug, Clone)]
pub struct Filing<'a> {
    pub addresses: &'a dyn Addresses,
    /// The document service's root: its addresses are `{ds_root}/get/{key}`.
    pub ds_root: String,
    /// Refuse addresses of other stores.
    pub ds_only: bool,
    pub style: UrlStyle,
}

impl Filing<'_> {
    pub fn showing(&self, style: UrlStyle) -> Self {
        Filing {
            style,
            ..self.clone()
        }
    }

    /// The download key of a sent address (the service's key for its own addresses) and the
    /// address to show.
    fn resolve(&self, id: &str, url: &str, hash: &str) -> Result<(String, String), Unfiled> {
        let held = self
            .addresses
            .check(url, hash, &self.ds_root)
            .map_err(|message| Problem::field("url", Problem::msg(message)))?;
        if held.is_none() && self.ds_only {
            return Err(Unfiled::ForeignStore);
        }
        let key = held.clone().unwrap_or_else(ids::new_id);
        let shown = match (&self.style, held) {
            (UrlStyle::Download(prefix), _) => format!("{prefix}/{id}?download={key}"),
            (UrlStyle::Signed, Some(key)) => {
                let md5 = hash.strip_prefix("md5:").unwrap_or_default();
                self.addresses
                    .permanent(&self.ds_root, &key, &md5.to_ascii_lowercase())
            }
            (UrlStyle::Signed, None) => self.addresses.endorsed(url, hash),
        };
        Ok((key, shown))
    }
}

/// One version of a document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Document {
    pub id: Text,
    #[serde(flatten)]
    meta: DocumentMeta,
    pub url: Text,
    pub hash: Text,
    pub date_published: Timestamp,
    pub date_modified: Timestamp,
    /// The role that uploaded it, where the holder records one (award documents).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::stored::static_opt"
    )]
    pub author: Option<super::stored::Word>,
    #[serde(skip_serializing_if = "super::stored::hidden")]
    pub source_url: Text,
    #[serde(skip_serializing_if = "super::stored::hidden")]
    pub key: Text,
}

/// Everything in [`DocumentInput`] but the file itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct DocumentMeta {
    title: Text,
    #[serde(rename = "title_en", skip_serializing_if = "Option::is_none")]
    title_en: Option<Text>,
    #[serde(rename = "title_ru", skip_serializing_if = "Option::is_none")]
    title_ru: Option<Text>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<Text>,
    #[serde(rename = "description_en", skip_serializing_if = "Option::is_none")]
    description_en: Option<Text>,
    #[serde(rename = "description_ru", skip_serializing_if = "Option::is_none")]
    description_ru: Option<Text>,
    format: Text,
    #[serde(skip_serializing_if = "Option::is_none")]
    document_type: Option<Text>,
    document_of: Text,
    #[serde(skip_serializing_if = "Option::is_none")]
    related_item: Option<Text>,
    #[serde(skip_serializing_if = "Option::is_none")]
    language: Option<Text>,
}

fn split(input: DocumentInput) -> (DocumentMeta, String, String) {
    let text = |s: Option<String>| s.map(Text::from);
    let meta = DocumentMeta {
        title: input.title.into(),
        title_en: text(input.title_en),
        title_ru: text(input.title_ru),
        description: text(input.description),
        description_en: text(input.description_en),
        description_ru: text(input.description_ru),
        format: input.format.into(),
        document_type: text(input.document_type),
        document_of: input.document_of.into(),
        related_item: text(input.related_item),
        language: text(input.language),
    };
    (meta, input.url, input.hash)
}

impl Document {
    fn build(
        id: String,
        input: DocumentInput,
        published: Timestamp,
        now: Timestamp,
        filing: &Filing<'_>,
    ) -> Result<Document, Unfiled> {
        let (meta, source_url, hash) = split(input);
        let (key, url) = filing.resolve(&id, &source_url, &hash)?;
        Ok(Document {
            id: id.into(),
            meta,
            url: url.into(),
            hash: hash.into(),
            date_published: published,
            date_modified: now,
            author: None,
            source_url: source_url.into(),
            key: key.into(),
        })
    }

    pub fn related_item(&self) -> Option<&str> {
        self.meta.related_item.as_deref()
    }

    pub fn document_of(&self) -> &str {
        &self.meta.document_of
    }

    pub fn title(&self) -> &str {
        &self.meta.title
    }

    /// The document as the client would send it back, for merging a change into.
    fn as_input(&self) -> Json {
        let mut v = serde_json::to_value(&self.meta).unwrap_or_default();
        v["url"] = Json::from(self.source_url.as_str());
        v["hash"] = Json::from(self.hash.as_str());
        v
    }
}

/// The documents of one holder. Each record is shared between the stored tender and the copy
/// a write works on, and copied only when that write changes it.
pub type Documents = Vec<std::sync::Arc<DocumentRecord>>;

/// A document with its earlier versions; shown as its latest version.
#[derive(Debug, Clone, PartialEq)]
pub struct DocumentRecord {
    pub current: Document,
    pub previous: Vec<Document>,
}

/// Both versions lists as stored; the public form shows the latest version alone.
#[derive(Serialize, Deserialize)]
struct StoredRecord<C, P> {
    current: C,
    previous: P,
}

impl Serialize for DocumentRecord {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if super::stored::storing() {
            return StoredRecord {
                current: &self.current,
                previous: &self.previous,
            }
            .serialize(serializer);
        }
        self.current.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for DocumentRecord {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let stored = StoredRecord::<Document, Vec<Document>>::deserialize(deserializer)?;
        Ok(DocumentRecord {
            current: stored.current,
            previous: stored.previous,
        })
    }
}

impl DocumentRecord {
    pub fn upload(
        input: DocumentInput,
        now: Timestamp,
        filing: &Filing<'_>,
    ) -> Result<DocumentRecord, Unfiled> {
        Ok(DocumentRecord {
            current: Document::build(ids::new_id(), input, now, now, filing)?,
            previous: Vec::new(),
        })
    }

    pub fn id(&self) -> &str {
        &self.current.id
    }

    /// Records the uploader's role on the document.
    pub fn by(mut self, author: Option<&'static str>) -> DocumentRecord {
        self.current.author = author;
        self
    }

    /// A new version from a PUT: the file and title come from the request, other metadata
    /// carries over unless sent; `id` and `datePublished` are kept.
    pub fn replace(
        &mut self,
        body: &Input<'_>,
        cx: &Cx,
        of: DocumentOf,
        now: Timestamp,
        filing: &Filing<'_>,
    ) -> Result<(), Unfiled> {
        let mut merged = self.current.as_input();
        if let Json::Object(m) = &mut merged {
            for key in ["title", "url", "hash", "format"] {
                m.remove(key);
            }
        }
        merge(&mut merged, body);
        let input = DocumentInput::read(&Input::view(&merged), cx, of)?;
        let mut next = Document::build(
            self.current.id.to_string(),
            input,
            self.current.date_published,
            now,
            filing,
        )?;
        next.author = self.current.author;
        self.previous
            .push(std::mem::replace(&mut self.current, next));
        Ok(())
    }

    /// A metadata change from a PATCH: the file, ids and dates cannot be set; as for every
    /// PATCH, `dateModified` is refreshed when something changed. Returns whether it did.
    pub fn patch(
        &mut self,
        body: &Input<'_>,
        cx: &Cx,
        of: DocumentOf,
        now: Timestamp,
    ) -> Result<bool, Problem> {
        let mut merged = self.current.as_input();
        let mut body = body.clone();
        if let Input::Object(b) = &mut body {
            for key in ["url", "hash"] {
                b.remove(key);
            }
        }
        merge(&mut merged, &body);
        let (meta, _, _) = split(DocumentInput::read(&Input::view(&merged), cx, of)?);
        let changed = meta != self.current.meta;
        if changed {
            self.current.meta = meta;
            self.current.date_modified = now;
        }
        Ok(changed)
    }

    /// The single-document view: the latest version plus every earlier version whose file
    /// differs from it.
    pub fn with_versions(&self) -> Json {
        let mut v = serde_json::to_value(&self.current).unwrap_or_default();
        let previous: Vec<Json> = self
            .previous
            .iter()
            .filter(|p| p.source_url != self.current.source_url)
            .map(|p| serde_json::to_value(p).unwrap_or_default())
            .collect();
        v["previousVersions"] = Json::Array(previous);
        v
    }

    /// The address as sent of the version whose download key is `key`.
    pub fn download(&self, key: &str) -> Option<&str> {
        std::iter::once(&self.current)
            .chain(&self.previous)
            .find(|d| d.key == key)
            .map(|d| d.source_url.as_str())
    }
}

/// `documentOf: item` must name one of the tender's items, `documentOf: lot` one of its lots.
pub fn check_related(
    input: &DocumentInput,
    item_ids: &[&str],
    lot_ids: &[&str],
) -> Result<(), Problem> {
    match (input.document_of.as_str(), &input.related_item) {
        ("item", Some(r)) if !item_ids.contains(&r.as_str()) => Err(Problem::field(
            "relatedItem",
            Problem::msg("relatedItem should be one of items"),
        )),
        ("lot", Some(r)) if !lot_ids.contains(&r.as_str()) => Err(Problem::field(
            "relatedItem",
            Problem::msg("relatedItem should be one of lots"),
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::values::time::Zone;
    use serde_json::json;

    fn cx() -> Cx {
        Cx::kyiv(false)
    }

    /// Every address another store's: the service's own are the file store's to check.
    #[derive(Debug)]
    struct Elsewhere;

    impl Addresses for Elsewhere {
        fn check(&self, _: &str, _: &str, _: &str) -> Result<Option<String>, &'static str> {
            Ok(None)
        }
        fn permanent(&self, root: &str, key: &str, _: &str) -> String {
            format!("{root}/get/{key}")
        }
        fn endorsed(&self, url: &str, _: &str) -> String {
            url.to_string()
        }
    }

    fn body(url: &str) -> Json {
        json!({"title": "Notice.pdf", "url": url, "hash": "md5:00000000000000000000000000000000", "format": "application/pdf"})
    }

    #[test]
    fn input_rules() {
        let err = DocumentInput::from_value(
            &json!({"title": "a", "url": "nope", "hash": "md5:12", "format": "pdf"}),
            &cx(),
        )
        .expect_err("invalid");
        assert_eq!(
            err.flat(),
            json!({"format": "String value did not match validation regex.", "url": "Not a well formed URL.", "hash": "Hash value is wrong length."})
        );
        let err = DocumentInput::from_value(
            &json!({"title": "a", "url": "http://x/y", "hash": "crc:1", "format": "a/b"}),
            &cx(),
        )
        .expect_err("invalid");
        assert_eq!(err.flat(), json!({"hash": "Hash type is not supported."}));
    }

    #[test]
    fn put_keeps_id_and_date_published() {
        let zone = Zone::named("Europe/Kyiv").expect("zone");
        let t0 = zone.parse("2017-01-01T10:00").expect("date");
        let t1 = zone.parse("2017-01-02T10:00").expect("date");
        let style = Filing {
            addresses: &Elsewhere,
            ds_root: "http://h".into(),
            ds_only: false,
            style: UrlStyle::Download("http://h/api/2.3/tenders/t/bids/b/documents".into()),
        };
        let input = DocumentInput::from_value(&body("http://ds/1"), &cx()).expect("valid");
        let mut doc = DocumentRecord::upload(input, t0, &style).expect("accepted");
        assert!(
            doc.patch(
                &Input::view(
                    &json!({"documentType": "technicalSpecifications", "url": "http://evil"})
                ),
                &cx(),
                DocumentOf::TENDER,
                t0
            )
            .expect("valid")
        );
        let id = doc.id().to_string();
        doc.replace(
            &Input::view(&body("http://ds/2")),
            &cx(),
            DocumentOf::TENDER,
            t1,
            &style,
        )
        .expect("valid");
        assert_eq!(doc.id(), id);
        assert_eq!(doc.current.date_published, t0);
        assert_eq!(doc.current.date_modified, t1);
        let v = doc.with_versions();
        assert_eq!(v["documentType"], "technicalSpecifications");
        assert_eq!(v["previousVersions"].as_array().map(Vec::len), Some(1));
        assert_eq!(doc.download(&doc.previous[0].key), Some("http://ds/1"));
        assert!(v["url"].as_str().is_some_and(|u| u.starts_with(&format!(
            "http://h/api/2.3/tenders/t/bids/b/documents/{id}?download="
        ))));
    }
}
