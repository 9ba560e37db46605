//! The embedded document service: every error of upstream's table, the API's checks of its
//! addresses, multipart uploads to tender and bid documents, and the bytes coming back
//! unchanged from every address the API shows.

use crate::common::*;
use serde_json::{Value, json};
use tender_registry::Settings;

const BOUNDARY: &str = "b0undary";

/// A `multipart/form-data` body with a `file` part (raw filename header value) and extras.
fn multipart(filename: &str, format: &str, bytes: &[u8]) -> Vec<u8> {
    let mut body = format!(
        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nignored\r\n\
         --{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; {filename}\r\n\
         Content-Type: {format}\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{BOUNDARY}--\r\n").as_bytes());
    body
}

fn form() -> String {
    format!("multipart/form-data; boundary={BOUNDARY}")
}

fn md5_of(bytes: &[u8]) -> String {
    use md5::Digest;
    md5::Md5::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn all_bytes() -> Vec<u8> {
    (0..=255u8).collect()
}

fn assert_error(r: &Reply, status: u16, location: &str, name: &str, description: &str) {
    assert_eq!(r.status, status, "{}", r.text);
    assert_eq!(r.body["status"], "error", "{}", r.text);
    assert_eq!(
        r.error(),
        (location.into(), name.into(), json!(description)),
        "{}",
        r.text
    );
}

/// Uploads through `POST /upload`; returns the answer.
async fn upload(s: &TestServer, filename: &str, bytes: &[u8]) -> Reply {
    s.post("/upload")
        .broker("broker")
        .raw(&form(), multipart(filename, "application/pdf", bytes))
        .send()
        .await
}

async fn download(s: &TestServer, url: &str) -> (u16, reqwest::header::HeaderMap, Vec<u8>) {
    let r = reqwest::get(s.url(url)).await.expect("answers");
    let (status, headers) = (r.status().as_u16(), r.headers().clone());
    (status, headers, r.bytes().await.expect("bytes").to_vec())
}

fn query_without(url: &str, name: &str) -> String {
    let (base, query) = url.split_once('?').expect("a query");
    let kept: Vec<&str> = query
        .split('&')
        .filter(|p| !p.starts_with(&format!("{name}=")))
        .collect();
    format!("{base}?{}", kept.join("&"))
}

fn with_param(url: &str, name: &str, value: &str) -> String {
    format!("{}&{name}={value}", query_without(url, name))
}

#[tokio::test]
async fn probe_keys_and_a_binary_round_trip() {
    let s = TestServer::start().await;
    let probe = s.get("/").send().await;
    assert_eq!(probe.status, 200);
    assert!(
        probe
            .header("content-type")
            .is_some_and(|c| c.starts_with("text/plain"))
    );

    let keys = s.get("/keys").send().await.assert_status(200);
    let key = &keys.body["data"][0];
    assert_eq!(key["algorithm"], "Ed25519");
    let key_id = key["KeyID"].as_str().expect("KeyID");
    assert!(
        key["publicKey"]
            .as_str()
            .is_some_and(|k| k.len() == 64 && k.starts_with(key_id))
    );

    let bytes = all_bytes();
    let r = upload(&s, "filename=\"all.bin\"", &bytes)
        .await
        .assert_status(200);
    let data = &r.body["data"];
    assert_eq!(data["hash"], format!("md5:{}", md5_of(&bytes)));
    assert_eq!(data["title"], "all.bin");
    assert_eq!(data["format"], "application/pdf");
    let url = data["url"].as_str().expect("url");
    assert!(url.starts_with(&format!("{}/get/", s.base)), "{url}");
    assert!(
        url.contains(&format!("KeyID={key_id}")) && !url.contains("Expires"),
        "{url}"
    );
    let get_url = r.body["get_url"].as_str().expect("get_url");
    assert!(get_url.contains("Expires="), "{get_url}");
    assert_eq!(r.header("location"), Some(get_url));
    for address in [url, get_url] {
        let (status, headers, body) = download(&s, address).await;
        assert_eq!(status, 200);
        assert_eq!(body, bytes, "every byte value comes back unchanged");
        assert_eq!(headers["content-type"], "application/pdf");
        assert_eq!(
            headers["content-disposition"],
            "attachment; filename=\"all.bin\""
        );
    }
}

#[tokio::test]
async fn a_cyrillic_file_name_and_an_empty_file() {
    let s = TestServer::start().await;
    // As clients send it: RFC 5987 form, and raw UTF-8 in the plain parameter.
    for header in [
        "filename*=UTF-8''%D0%A2%D0%97.txt".to_string(),
        "filename=\"ТЗ.txt\"".to_string(),
    ] {
        let r = upload(&s, &header, "Технічне завдання".as_bytes())
            .await
            .assert_status(200);
        assert_eq!(r.body["data"]["title"], "ТЗ.txt");
        let (status, headers, body) = download(&s, r.body["data"]["url"].as_str().unwrap()).await;
        assert_eq!(status, 200);
        assert_eq!(body, "Технічне завдання".as_bytes());
        assert_eq!(
            headers["content-disposition"],
            "attachment; filename=\"__.txt\"; filename*=UTF-8''%D0%A2%D0%97.txt"
        );
    }
    let r = upload(&s, "filename=\"empty.txt\"", b"")
        .await
        .assert_status(200);
    assert_eq!(
        r.body["data"]["hash"],
        "md5:d41d8cd98f00b204e9800998ecf8427e"
    );
    let (status, _, body) = download(&s, r.body["data"]["url"].as_str().unwrap()).await;
    assert_eq!((status, body.len()), (204, 0));
}

#[tokio::test]
async fn register_then_upload_and_every_register_error() {
    let s = TestServer::start().await;
    let content = b"registered content";
    let md5 = md5_of(content);
    let r = s
        .by("broker")
        .post("/register", json!({"hash": format!("md5:{md5}")}))
        .await
        .assert_status(201);
    let upload_url = r.body["upload_url"]
        .as_str()
        .expect("upload_url")
        .to_string();
    assert_eq!(r.header("location"), Some(upload_url.as_str()));
    assert!(upload_url.starts_with(&format!("{}/upload/", s.base)));
    let url = r.body["data"]["url"].as_str().expect("url").to_string();
    assert_eq!(r.body["data"]["hash"], format!("md5:{md5}"));

    // A registration by form field works as well.
    s.post("/register")
        .broker("broker")
        .raw(
            "application/x-www-form-urlencoded",
            format!("hash=md5:{md5}"),
        )
        .send()
        .await
        .assert_status(201);

    let send = |path: String, bytes: &'static [u8]| {
        s.post(&path)
            .broker("broker")
            .raw(
                &form(),
                multipart("filename=\"r.txt\"", "text/plain", bytes),
            )
            .send()
    };
    assert_error(
        &send(upload_url.clone(), b"other content").await,
        403,
        "body",
        "file",
        "Invalid checksum",
    );
    let done = send(upload_url.clone(), b"registered content")
        .await
        .assert_status(200);
    assert_eq!(
        done.body["data"]["url"],
        url.as_str(),
        "the registered address now serves"
    );
    let (status, _, body) = download(&s, &url).await;
    assert_eq!((status, body.as_slice()), (200, &content[..]));
    assert_error(
        &send(upload_url.clone(), b"registered content").await,
        403,
        "url",
        "doc_id",
        "Content already uploaded",
    );

    // Signatures of the upload address.
    assert_error(
        &send(query_without(&upload_url, "Signature"), b"x").await,
        403,
        "url",
        "Signature",
        "Not Found",
    );
    assert_error(
        &send(with_param(&upload_url, "Signature", "%25%25"), b"x").await,
        403,
        "url",
        "Signature",
        "Signature invalid",
    );
    let forged_key = {
        let (base, query) = upload_url.split_once('?').unwrap();
        let key = base.rsplit('/').next().unwrap();
        let flipped = if key.starts_with('0') {
            key.replacen('0', "1", 1)
        } else {
            format!("0{}", &key[1..])
        };
        format!("{}/upload/{flipped}?{query}", s.base)
    };
    assert_error(
        &send(forged_key, b"x").await,
        403,
        "url",
        "Signature",
        "Signature does not match",
    );
    assert_error(
        &send(with_param(&upload_url, "KeyID", "00000000"), b"x").await,
        403,
        "url",
        "KeyID",
        "Key Id does not exist",
    );

    // An unknown key, signed properly: register elsewhere is the only way to get a signature,
    // so an upload URL of another server stands for it.
    let stranger = TestServer::start().await;
    let theirs = stranger
        .post("/register")
        .broker("broker")
        .data(json!({"hash": format!("md5:{md5}")}))
        .send()
        .await;
    let theirs = theirs.body["upload_url"]
        .as_str()
        .unwrap()
        .replace(&stranger.base, &s.base);
    let r = send(theirs, b"x").await;
    assert_error(&r, 403, "url", "KeyID", "Key Id does not exist");

    // Hash rules.
    for (body, status, name, description) in [
        (json!({"data": {}}), 404, "hash", "Not Found"),
        (json!({"data": "x"}), 404, "hash", "Not Found"),
        (
            json!({"data": {"hash": "sha1:00"}}),
            422,
            "hash",
            "Hash type is not supported.",
        ),
        (
            json!({"data": {"hash": "md5:00"}}),
            422,
            "hash",
            "Hash value is wrong length.",
        ),
        (
            json!({"data": {"hash": "md5:zz000000000000000000000000000000"}}),
            422,
            "hash",
            "Hash value is not hexadecimal.",
        ),
    ] {
        let r = s
            .post("/register")
            .broker("broker")
            .json(&body)
            .send()
            .await;
        let location = "body";
        assert_error(&r, status, location, name, description);
    }
    // Uploads need a broker.
    let r = s
        .anyone()
        .post("/register", json!({"hash": format!("md5:{md5}")}))
        .await;
    assert_error(&r, 403, "url", "permission", "Forbidden");
    let r = s
        .post("/upload")
        .raw(&form(), multipart("filename=\"a\"", "text/plain", b"a"))
        .send()
        .await;
    assert_error(&r, 403, "url", "permission", "Forbidden");
}

#[tokio::test]
async fn unknown_keys_missing_files_and_broken_multipart() {
    let s = TestServer::start().await;
    // A registered key's upload address, then a key nobody registered signed the same way:
    // only a signature of this server's key passes, so take it from a registration.
    let r = s
        .by("broker")
        .post(
            "/register",
            json!({"hash": "md5:00000000000000000000000000000000"}),
        )
        .await;
    let upload_url = r.body["upload_url"].as_str().unwrap().to_string();

    // No `file` part, or a body that is not multipart at all.
    let no_file = format!(
        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n1\r\n--{BOUNDARY}--\r\n"
    );
    for path in ["/upload".to_string(), upload_url.clone()] {
        let r = s
            .post(&path)
            .broker("broker")
            .raw(&form(), no_file.clone())
            .send()
            .await;
        assert_error(&r, 404, "body", "file", "Not Found");
        let r = s
            .post(&path)
            .broker("broker")
            .raw("text/plain", "hello")
            .send()
            .await;
        assert_error(&r, 404, "body", "file", "Not Found");
    }
    // Truncated and malformed multipart: 422, never a crash.
    let mut truncated = multipart("filename=\"t.bin\"", "application/pdf", &all_bytes());
    truncated.truncate(truncated.len() - 20);
    for body in [truncated, b"garbage without any boundary".to_vec()] {
        let r = s
            .post("/upload")
            .broker("broker")
            .raw(&form(), body)
            .send()
            .await;
        assert_error(&r, 422, "body", "data", "could not decode params");
    }
    let r = s
        .post("/upload")
        .broker("broker")
        .raw("multipart/form-data", "x")
        .send()
        .await;
    assert_error(&r, 422, "body", "data", "could not decode params");

    // GET of the upload addresses: a plain 404.
    for path in ["/register", "/upload", &upload_url] {
        let r = s.get(path).send().await;
        assert_eq!(r.status, 404, "{path}");
        assert!(
            r.header("content-type")
                .is_some_and(|c| c.starts_with("text/plain"))
        );
    }

    // A signed address of a key this server never issued.
    let stranger = TestServer::start().await;
    let theirs = upload(&stranger, "filename=\"a.txt\"", b"a").await;
    let theirs = theirs.body["data"]["url"]
        .as_str()
        .unwrap()
        .replace(&stranger.base, &s.base);
    let (status, _, body) = download(&s, &theirs).await;
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(status, 403, "another server's key is not this one's");
    assert_eq!(body["errors"][0]["name"], "KeyID");
}

#[tokio::test]
async fn an_unknown_key_of_a_registered_upload_is_not_found() {
    // The server's key signs `<key>` for an upload address; an address signed for one key
    // and sent to another fails its signature, so "unknown key" needs an address this server
    // signed for a key it no longer knows: a server restarted on the same data directory
    // whose documents were removed.
    let dir = tempfile::tempdir().unwrap();
    let settings = || Settings {
        testing: true,
        clock_start: Some(moment(moments::MONDAY_MORNING)),
        data_dir: Some(dir.path().to_path_buf()),
        ..Settings::default()
    };
    let s = TestServer::start_with(settings()).await;
    let r = s
        .by("broker")
        .post(
            "/register",
            json!({"hash": "md5:00000000000000000000000000000000"}),
        )
        .await;
    let upload_url = r.body["upload_url"].as_str().unwrap().to_string();
    let url = r.body["data"]["url"].as_str().unwrap().to_string();
    drop(s);
    std::fs::remove_dir_all(dir.path().join("documents")).unwrap();
    let s = TestServer::start_with(settings()).await;
    let port = |u: &str| u.split('/').nth(2).unwrap().to_string();
    let upload_url = upload_url.replace(&port(&upload_url), &port(&s.base));
    let r = s
        .post(&upload_url)
        .broker("broker")
        .raw(&form(), multipart("filename=\"a\"", "text/plain", b"a"))
        .send()
        .await;
    assert_error(&r, 404, "url", "doc_id", "Not Found");
    let (status, _, _) = download(&s, &url.replace(&port(&url), &port(&s.base))).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn files_and_the_key_survive_a_restart_and_storage_failures_are_502() {
    let dir = tempfile::tempdir().unwrap();
    let settings = || Settings {
        testing: true,
        clock_start: Some(moment(moments::MONDAY_MORNING)),
        data_dir: Some(dir.path().to_path_buf()),
        ..Settings::default()
    };
    let s = TestServer::start_with(settings()).await;
    let r = upload(&s, "filename=\"all.bin\"", &all_bytes()).await;
    let url = r.body["data"]["url"].as_str().unwrap().to_string();
    let old_base = s.base.clone();
    drop(s);
    let s = TestServer::start_with(settings()).await;
    let (status, _, body) = download(&s, &url.replace(&old_base, &s.base)).await;
    assert_eq!(
        (status, body),
        (200, all_bytes()),
        "same key, same bytes after a restart"
    );

    // The store's directory is gone and a file stands in its place: writes fail.
    let documents = dir.path().join("documents");
    std::fs::remove_dir_all(&documents).unwrap();
    std::fs::write(&documents, b"in the way").unwrap();
    let r = upload(&s, "filename=\"a.txt\"", b"a")
        .await
        .assert_status(502);
    assert_eq!(
        r.body["errors"][0]["description"],
        "Upload failed, please try again later"
    );
    // A legacy upload to the API says so in the API's words.
    let (id, token, _) = s.published().await;
    let r = s
        .post(&format!(
            "/api/2.3/tenders/{id}/documents?acc_token={token}"
        ))
        .broker("broker")
        .raw(&form(), multipart("filename=\"a.txt\"", "text/plain", b"a"))
        .send()
        .await;
    assert_error(
        &r,
        422,
        "body",
        "data",
        "Can't upload document to document service.",
    );
}

#[tokio::test]
async fn downloads_check_signatures_and_expiry() {
    let s = TestServer::start().await;
    let r = upload(&s, "filename=\"a.txt\"", b"abc").await;
    let url = r.body["data"]["url"].as_str().unwrap().to_string();
    let get_url = r.body["get_url"].as_str().unwrap().to_string();
    let error = |body: Vec<u8>| -> (String, String, Value) {
        let v: Value = serde_json::from_slice(&body).unwrap();
        let e = &v["errors"][0];
        (
            e["location"].as_str().unwrap().into(),
            e["name"].as_str().unwrap().into(),
            e["description"].clone(),
        )
    };
    for (address, name, description) in [
        (query_without(&url, "Signature"), "Signature", "Not Found"),
        (
            with_param(&url, "Signature", "%25%25"),
            "Signature",
            "Signature invalid",
        ),
        (
            with_param(&url, "KeyID", "00000000"),
            "KeyID",
            "Key Id does not exist",
        ),
        (
            with_param(&get_url, "Expires", "2000000000"),
            "Signature",
            "Signature does not match",
        ),
    ] {
        let (status, _, body) = download(&s, &address).await;
        assert_eq!(status, 403, "{address}");
        assert_eq!(
            error(body),
            ("url".into(), name.into(), json!(description)),
            "{address}"
        );
    }
    // The permanent signature also vouches for the hash: another key's signature fails.
    let r2 = upload(&s, "filename=\"b.txt\"", b"abd").await;
    let other = r2.body["data"]["url"].as_str().unwrap();
    let sig = other.split("Signature=").nth(1).unwrap();
    let (status, _, body) = download(&s, &with_param(&url, "Signature", sig)).await;
    assert_eq!(status, 403);
    assert_eq!(error(body).2, json!("Signature does not match"));
    // Five minutes later the temporary address has expired; the permanent one has not.
    s.advance("PT6M").await;
    let (status, _, body) = download(&s, &get_url).await;
    assert_eq!(status, 403);
    assert_eq!(
        error(body),
        ("url".into(), "Expires".into(), json!("Request has expired"))
    );
    assert_eq!(download(&s, &url).await.0, 200);
}

#[tokio::test]
async fn the_upload_limit_is_a_json_413() {
    let s = TestServer::start_with(Settings {
        testing: true,
        clock_start: Some(moment(moments::MONDAY_MORNING)),
        max_upload: 1000,
        ..Settings::default()
    })
    .await;
    assert_eq!(upload(&s, "filename=\"a\"", &[7u8; 1000]).await.status, 200);
    let r = upload(&s, "filename=\"a\"", &vec![7u8; 200_000])
        .await
        .assert_status(413);
    assert_eq!(r.body["errors"][0]["name"], "file");
    // Within the slack for headers the declared length passes, the file's size does not.
    upload(&s, "filename=\"a\"", &[7u8; 1001])
        .await
        .assert_status(413);

    // The upload limit, not the JSON body limit, bounds a file.
    let s = TestServer::start_with(Settings {
        testing: true,
        clock_start: Some(moment(moments::MONDAY_MORNING)),
        max_body: 1000,
        ..Settings::default()
    })
    .await;
    let big = vec![0x5au8; 300_000];
    let r = upload(&s, "filename=\"big.bin\"", &big)
        .await
        .assert_status(200);
    let (_, _, body) = download(&s, r.body["data"]["url"].as_str().unwrap()).await;
    assert_eq!(body, big);
}

/// The API's checks of the service's addresses sent in document bodies.
#[tokio::test]
async fn the_api_checks_addresses_of_the_service() {
    let (s, id, token) = TestServer::with_published().await;
    let docs = format!("/api/2.3/tenders/{id}/documents?acc_token={token}");
    let r = upload(&s, "filename=\"spec.pdf\"", b"%PDF-1.4 spec").await;
    let url = r.body["data"]["url"].as_str().unwrap().to_string();
    let hash = r.body["data"]["hash"].as_str().unwrap().to_string();
    let post = |url: String, hash: Option<String>| {
        let mut data = json!({"title": "spec.pdf", "url": url, "format": "application/pdf"});
        if let Some(h) = hash {
            data["hash"] = json!(h);
        }
        s.post(&docs).broker("broker").data(data).send()
    };
    let ok = post(url.clone(), Some(hash.clone()))
        .await
        .assert_status(201);
    assert_eq!(
        ok.body["data"]["url"],
        url.as_str(),
        "the permanent address is shown"
    );
    let (_, _, body) = download(&s, &url).await;
    assert_eq!(body, b"%PDF-1.4 spec");

    let other_hash = "md5:00000000000000000000000000000000".to_string();
    for (address, hash, name, description) in [
        (
            url.replace("/get/", "/got/"),
            Some(hash.clone()),
            "url",
            "Document url invalid.",
        ),
        (
            format!("{url}&extra=1"),
            Some(hash.clone()),
            "url",
            "Document url invalid.",
        ),
        (
            query_without(&url, "KeyID"),
            Some(hash.clone()),
            "url",
            "Document url invalid.",
        ),
        (
            with_param(&url, "KeyID", "00000000"),
            Some(hash.clone()),
            "url",
            "Document url expired.",
        ),
        (
            url.clone(),
            Some(other_hash),
            "url",
            "Document url signature invalid.",
        ),
        (url.clone(), None, "hash", "This field is required."),
    ] {
        let r = post(address, hash).await;
        assert_error(&r, 422, "body", name, description);
    }
    // Another store's address is accepted, and shown endorsed by the same key.
    let r = post("http://docs.example.net/get/x".into(), Some(hash.clone()))
        .await
        .assert_status(201);
    let shown = r.body["data"]["url"].as_str().unwrap();
    assert!(
        shown.starts_with("http://docs.example.net/get/x?Signature="),
        "{shown}"
    );

    // … unless the server accepts the document service's addresses only.
    let strict = TestServer::start_with(Settings {
        testing: true,
        clock_start: Some(moment(moments::MONDAY_MORNING)),
        refuse_foreign_documents: true,
        ..Settings::default()
    })
    .await;
    let (id, token, _) = strict.published().await;
    let r = strict
        .post(&format!(
            "/api/2.3/tenders/{id}/documents?acc_token={token}"
        ))
        .broker("broker")
        .data(document_body("Notice.pdf"))
        .send()
        .await;
    assert_error(
        &r,
        403,
        "body",
        "url",
        "Can add document only from document service.",
    );
    let own = upload(&strict, "filename=\"n.pdf\"", b"n").await;
    strict
        .post(&format!("/api/2.3/tenders/{id}/documents?acc_token={token}"))
        .broker("broker")
        .data(json!({"title": "n.pdf", "url": own.body["data"]["url"], "hash": own.body["data"]["hash"], "format": "application/pdf"}))
        .send()
        .await.assert_status(201);
}

/// Legacy multipart uploads to tender documents: POST, PUT (a new version), versions
/// downloadable, and bodies that are neither JSON nor multipart.
#[tokio::test]
async fn multipart_tender_documents_and_their_versions() {
    let (s, id, token) = TestServer::with_published().await;
    let docs = format!("/api/2.3/tenders/{id}/documents");
    let r = s
        .post(&format!("{docs}?acc_token={token}"))
        .broker("broker")
        .raw(
            &form(),
            multipart("filename=\"Звіт.pdf\"", "application/pdf", &all_bytes()),
        )
        .send()
        .await
        .assert_status(201);
    let doc = r.body["data"].clone();
    let doc_id = r.id();
    assert_eq!(doc["title"], "Звіт.pdf");
    assert_eq!(doc["format"], "application/pdf");
    assert_eq!(doc["hash"], format!("md5:{}", md5_of(&all_bytes())));
    let first_url = doc["url"].as_str().unwrap().to_string();
    assert!(
        first_url.starts_with(&format!("{}/get/", s.base)),
        "{first_url}"
    );
    let (status, headers, body) = download(&s, &first_url).await;
    assert_eq!((status, body), (200, all_bytes()));
    assert!(
        headers["content-disposition"]
            .to_str()
            .unwrap()
            .contains("filename*=UTF-8''%D0%97%D0%B2%D1%96%D1%82.pdf")
    );

    s.advance("PT1M").await;
    let r = s
        .put(&format!("{docs}/{doc_id}?acc_token={token}"))
        .broker("broker")
        .raw(
            &form(),
            multipart("filename=\"v2.txt\"", "text/plain", b"second"),
        )
        .send()
        .await
        .assert_status(200);
    assert_eq!(r.body["data"]["id"], doc_id.as_str());
    assert_eq!(r.body["data"]["title"], "v2.txt");
    let (_, _, body) = download(&s, r.body["data"]["url"].as_str().unwrap()).await;
    assert_eq!(body, b"second");
    let one = s.get(&format!("{docs}/{doc_id}")).send().await;
    assert_eq!(
        one.body["data"]["previousVersions"][0]["url"],
        first_url.as_str()
    );
    let (_, _, body) = download(&s, &first_url).await;
    assert_eq!(body, all_bytes(), "the previous version stays downloadable");

    // The tender shows the permanent address, which serves the file.
    let tender = s.tender(&id).await;
    assert_eq!(tender["documents"][0]["url"], r.body["data"]["url"]);

    // Without credentials nothing is stored.
    let r = s
        .post(&docs)
        .raw(&form(), multipart("filename=\"x\"", "text/plain", b"x"))
        .send()
        .await;
    assert_error(&r, 403, "url", "permission", "Forbidden");
    // Neither JSON nor multipart, and multipart without a file.
    let r = s
        .post(&format!("{docs}?acc_token={token}"))
        .broker("broker")
        .raw("text/plain", "hello")
        .send()
        .await;
    assert_error(&r, 404, "body", "file", "Not Found");
    let no_file = format!(
        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n1\r\n--{BOUNDARY}--\r\n"
    );
    let r = s
        .post(&format!("{docs}?acc_token={token}"))
        .broker("broker")
        .raw(&form(), no_file)
        .send()
        .await;
    assert_error(&r, 404, "body", "file", "Not Found");
    // A PATCH stays JSON-only.
    s.patch(&format!("{docs}/{doc_id}?acc_token={token}"))
        .broker("broker")
        .raw(&form(), multipart("filename=\"x\"", "text/plain", b"x"))
        .send()
        .await
        .assert_status(415);

    // A PUT whose body is neither JSON nor multipart is the new version's raw bytes: the
    // request's Content-Type is its format, the document keeps its title.
    s.advance("PT1M").await;
    let r = s
        .put(&format!("{docs}/{doc_id}?acc_token={token}"))
        .broker("broker")
        .raw("image/png", all_bytes())
        .send()
        .await
        .assert_status(200);
    assert_eq!(r.body["data"]["title"], "v2.txt");
    assert_eq!(r.body["data"]["format"], "image/png");
    assert_eq!(
        r.body["data"]["hash"],
        format!("md5:{}", md5_of(&all_bytes()))
    );
    let (status, headers, body) = download(&s, r.body["data"]["url"].as_str().unwrap()).await;
    assert_eq!((status, body), (200, all_bytes()));
    assert_eq!(headers["content-type"], "image/png");
    let one = s.get(&format!("{docs}/{doc_id}")).send().await;
    assert_eq!(count(&one.body["data"]["previousVersions"]), Some(2));
    // Without the token nothing is stored.
    let before = s.tender(&id).await;
    let r = s
        .put(&format!("{docs}/{doc_id}"))
        .broker("broker")
        .raw("image/png", b"x".to_vec())
        .send()
        .await;
    assert_error(&r, 403, "url", "permission", "Forbidden");
    assert_eq!(s.tender(&id).await, before);
}

/// A bid document sent as a file: hidden while tendering, its `?download=` answers 302 to a
/// temporary address of the service that serves the bytes.
#[tokio::test]
async fn multipart_bid_documents_redirect_to_a_temporary_address() {
    let (s, id, _) = TestServer::with_tendering().await;
    let (bid, bid_token) = s.bid(&id, 450.0).await;
    let docs = format!("/api/2.3/tenders/{id}/bids/{bid}/documents");
    let r = s
        .post(&format!("{docs}?acc_token={bid_token}"))
        .broker("broker1")
        .raw(
            &form(),
            multipart(
                "filename=\"Пропозиція.pdf\"",
                "application/pdf",
                &all_bytes(),
            ),
        )
        .send()
        .await
        .assert_status(201);
    let shown = r.body["data"]["url"].as_str().unwrap().to_string();
    assert!(
        shown.starts_with(&format!("{}{docs}/{}?download=", s.base, r.id())),
        "{shown}"
    );

    // Hidden from others while tendering.
    s.get(&shown).send().await.assert_status(403);
    let redirect = s
        .by("broker1")
        .get(&format!("{shown}&acc_token={bid_token}"))
        .await
        .assert_status(302);
    let location = redirect.header("location").unwrap().to_string();
    assert!(
        location.starts_with(&format!("{}/get/", s.base)) && location.contains("Expires="),
        "{location}"
    );
    let (status, headers, body) = download(&s, &location).await;
    assert_eq!((status, body), (200, all_bytes()));
    assert!(
        headers["content-disposition"]
            .to_str()
            .unwrap()
            .contains("filename*=UTF-8''")
    );

    // A JSON bid document with a service address keeps the service's key.
    let up = upload(&s, "filename=\"b.pdf\"", b"bid file").await;
    let r = s.bidder(&bid_token).post(&docs, json!({"title": "b.pdf", "url": up.body["data"]["url"], "hash": up.body["data"]["hash"], "format": "application/pdf"})).await.assert_status(201);
    let shown = r.body["data"]["url"].as_str().unwrap();
    let redirect = s
        .by("broker1")
        .get(&format!("{shown}&acc_token={bid_token}"))
        .await;
    let (_, _, body) = download(&s, redirect.header("location").unwrap()).await;
    assert_eq!(body, b"bid file");
}

/// A broker's existing document service configuration points at this server: its users come
/// from upstream's file (groups of `user = sha512 hex`), `uploaders` and `api` upload, anyone
/// else is refused, and the brokers' own keys keep working.
#[tokio::test]
async fn the_document_service_s_own_users_come_from_upstream_s_file() {
    let dir = tempfile::tempdir().unwrap();
    let users = dir.path().join("ds-users.ini");
    std::fs::write(
        &users,
        format!(
            "[uploaders]\ntest.quintagroup.com = {}\n[api]\napi = {}\n[readers]\nreader = {}\n",
            sha512_hex("test.quintagroup.com"),
            sha512_hex("api"),
            sha512_hex("reader"),
        ),
    )
    .unwrap();
    let s = TestServer::start_with(Settings {
        testing: true,
        clock_start: Some(moment(moments::MONDAY_MORNING)),
        ds_users: Some(users),
        ..Settings::default()
    })
    .await;
    let register = |user: &str, password: &str| {
        s.post("/register")
            .basic(user, password)
            .data(json!({"hash": format!("md5:{}", md5_of(b"%PDF"))}))
            .send()
    };
    let registered = register("test.quintagroup.com", "test.quintagroup.com")
        .await
        .assert_status(201);
    let upload_url = registered.body["upload_url"].as_str().unwrap().to_string();
    let uploaded = s
        .post(&upload_url)
        .basic("test.quintagroup.com", "test.quintagroup.com")
        .raw(
            &form(),
            multipart("filename=\"a.pdf\"", "application/pdf", b"%PDF"),
        )
        .send()
        .await
        .assert_status(200);
    let (status, _, bytes) = download(&s, uploaded.body["data"]["url"].as_str().unwrap()).await;
    assert_eq!((status, bytes), (200, b"%PDF".to_vec()));
    s.post("/upload")
        .basic("api", "api")
        .raw(
            &form(),
            multipart("filename=\"b.pdf\"", "application/pdf", b"b"),
        )
        .send()
        .await
        .assert_status(200);
    assert_eq!(register("broker", "").await.status, 201, "a broker's key");

    for (user, password) in [
        ("test.quintagroup.com", "wrong"),
        ("test.quintagroup.com", ""),
        ("stranger", "test.quintagroup.com"),
        ("reader", "reader"),
        ("TEST.QUINTAGROUP.COM", "test.quintagroup.com"),
    ] {
        // A name with capitals is told why: the service knows its users in lower case.
        let why = if user == "TEST.QUINTAGROUP.COM" {
            "Forbidden: the document service knows its users by their names in lower case, as \
             upstream's did: sign in as test.quintagroup.com, not TEST.QUINTAGROUP.COM"
        } else {
            "Forbidden"
        };
        let r = register(user, password).await;
        assert_error(&r, 403, "url", "permission", why);
        let r = s
            .post(&upload_url)
            .basic(user, password)
            .raw(
                &form(),
                multipart("filename=\"a.pdf\"", "application/pdf", b"%PDF"),
            )
            .send()
            .await;
        assert_error(&r, 403, "url", "permission", why);
    }
    // The users upload files; they are not brokers of the API.
    s.post("/api/2.3/tenders")
        .basic("test.quintagroup.com", "test.quintagroup.com")
        .data(tender_body(moments::MONDAY_MORNING, 1, 4))
        .send()
        .await
        .assert_status(403);
}

/// A brokers file may keep the document service's users in its own `[uploaders]` and `[api]`
/// sections; a users file that writes a password in the clear stops the start.
#[tokio::test]
async fn a_brokers_file_s_uploaders_upload_and_a_clear_password_stops_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let brokers = dir.path().join("auth.ini");
    std::fs::write(
        &brokers,
        format!(
            "[brokers]\nacme = acme-key\n[uploaders]\nacme.ds = {}\n",
            sha512_hex("ds-secret")
        ),
    )
    .unwrap();
    let s = TestServer::start_with(Settings {
        testing: true,
        clock_start: Some(moment(moments::MONDAY_MORNING)),
        brokers: Some(brokers.clone()),
        ..Settings::default()
    })
    .await;
    s.post("/upload")
        .basic("acme.ds", "ds-secret")
        .raw(
            &form(),
            multipart("filename=\"a.pdf\"", "application/pdf", b"a"),
        )
        .send()
        .await
        .assert_status(200);
    let r = s
        .post("/upload")
        .broker("acme-key")
        .raw(
            &form(),
            multipart("filename=\"a.pdf\"", "application/pdf", b"a"),
        )
        .send()
        .await;
    assert_eq!(r.status, 200, "the broker's own key: {}", r.text);

    let clear = dir.path().join("clear.ini");
    std::fs::write(&clear, "[uploaders]\nbroker = broker\n").unwrap();
    let refused = test_support::build(Settings {
        ds_users: Some(clear),
        ..Settings::default()
    })
    .await
    .err()
    .expect("refused");
    assert!(
        refused.to_string().contains("user broker of [uploaders]"),
        "{refused}"
    );
}
