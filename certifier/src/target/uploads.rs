//! The run's uploads to its document service (see `documents`), each at the run's pace.
use std::sync::atomic::Ordering;

use serde_json::Value;

use crate::{
    exchange::{bodies, short},
    target::{
        Target,
        documents::{Documents, Service},
    },
};

impl Target {
    /// A file uploaded for a document titled `title`, when the run has a document service: the
    /// `url`, `hash`, `format` and `title` its answer gives. `None` without one.
    pub async fn upload_document(&self, title: &str) -> Result<Option<Value>, String> {
        let Documents::Service(service) = &self.documents else {
            return Ok(None);
        };
        let number = service.uploads.fetch_add(1, Ordering::Relaxed) + 1;
        let content = bodies::pdf(&format!("tender-certify {} {number}", self.seed));
        upload(self, service, title, &content).await.map(Some)
    }
}

/// `content` uploaded as `title` (a PDF): the `data` of the service's answer.
pub(super) async fn upload(
    target: &Target,
    service: &Service,
    title: &str,
    content: &str,
) -> Result<Value, String> {
    let (content_type, body) = bodies::multipart(title, "application/pdf", content);
    let response = target
        .client
        .post(&service.upload)
        .basic_auth(&service.user, Some(&service.password))
        .header(reqwest::header::CONTENT_TYPE, content_type)
        .body(body)
        .send()
        .await
        .map_err(|e| {
            format!(
                "uploading to the document service at {}: {e}",
                service.upload
            )
        })?;
    let status = response.status().as_u16();
    let text = response.text().await.unwrap_or_default();
    let answer: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    let data = &answer["data"];
    if status != 200 || !data["url"].is_string() || !data["hash"].is_string() {
        return Err(format!(
            "the document service at {} answered an upload {status}, not 200 with data.url and data.hash: {}",
            service.upload,
            short(&text)
        ));
    }
    Ok(data.clone())
}

/// The run's document source: the service `given` (checked with one upload), else the target
/// itself when it takes an upload at its root, else none.
pub async fn find(target: &Target, given: Option<&str>) -> Result<Documents, String> {
    let (user, password) = (&target.owner.name, &target.owner.password);
    if let Some(address) = given {
        let service = Service::at(address, user, password, true)?;
        upload(
            target,
            &service,
            "tender-certify-probe.pdf",
            &bodies::pdf("probe"),
        )
        .await
        .map_err(|e| format!("{e} (--document-service)"))?;
        return Ok(Documents::Service(service));
    }
    let service = Service::at(&target.base_url, user, password, false)?;
    match upload(
        target,
        &service,
        "tender-certify-probe.pdf",
        &bodies::pdf("probe"),
    )
    .await
    {
        Ok(_) => Ok(Documents::Service(service)),
        Err(e) => Ok(Documents::Unsigned(format!(
            "the target is not a document service the owner broker may upload to: {e}"
        ))),
    }
}
