//! The browser tests' browser: just enough of the W3C WebDriver protocol to drive
//! chromedriver (a session, navigation, finding and clicking elements or waiting for one first,
//! reading text, running a script or one that answers later, a screenshot).

use base64::Engine;
use serde_json::{Value, json};
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A chromedriver process on a free local port, in a process group of its own with the
/// browsers it starts; the whole group is killed when dropped, even after a failed test.
pub struct Driver {
    child: Child,
    pub url: String,
}

impl Driver {
    /// Starts `chromedriver`. The browser runs on the real wall clock even when the test runs
    /// under faketime: only the server's clock is under test, and it is pinned.
    pub async fn start(chromedriver: &str) -> Driver {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .process_group(0)
            .env_remove("LD_PRELOAD")
            .env_remove("FAKETIME")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let driver = Driver {
            child,
            url: format!("http://127.0.0.1:{port}"),
        };
        let client = crate::client();
        let started = Instant::now();
        loop {
            let ready = client.get(format!("{}/status", driver.url)).send().await;
            if let Ok(reply) = ready
                && let Ok(body) = reply.json::<Value>().await
                && body["value"]["ready"] == true
            {
                return driver;
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "chromedriver did not get ready on port {port}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .arg("--")
            .arg(format!("-{}", self.child.id()))
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Sends `request` to chromedriver and reads its reply.
async fn reply(request: reqwest::RequestBuilder) -> Value {
    request
        .send()
        .await
        .expect("chromedriver answers")
        .json()
        .await
        .expect("JSON")
}

/// One browser session.
pub struct Session {
    client: reqwest::Client,
    base: String,
}

/// The key WebDriver names an element reference by.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

impl Session {
    /// Opens headless Chromium at `width`×`height`.
    pub async fn open(driver: &Driver, chromium: &str, width: u32, height: u32) -> Session {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(60))
            .build()
            .expect("client");
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--no-first-run", "--hide-scrollbars", format!("--window-size={width},{height}")],
            },
        }}});
        let reply = reply(
            client
                .post(format!("{}/session", driver.url))
                .json(&capabilities),
        )
        .await;
        let id = reply["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {reply}"));
        Session {
            base: format!("{}/session/{id}", driver.url),
            client,
        }
    }

    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        let mut request = self.client.request(method, format!("{}{path}", self.base));
        if let Some(body) = body {
            request = request.json(&body);
        }
        reply(request).await["value"].clone()
    }

    pub async fn goto(&self, url: &str) {
        self.call(reqwest::Method::POST, "/url", Some(json!({"url": url})))
            .await;
    }

    /// The element `css` selects, if any.
    pub async fn find(&self, css: &str) -> Option<String> {
        let found = self
            .call(
                reqwest::Method::POST,
                "/element",
                Some(json!({"using": "css selector", "value": css})),
            )
            .await;
        found[ELEMENT].as_str().map(str::to_string)
    }

    /// Waits up to `limit` for an element that `css` selects.
    pub async fn wait_for(&self, css: &str, limit: Duration) -> String {
        let started = Instant::now();
        loop {
            if let Some(id) = self.find(css).await {
                return id;
            }
            if started.elapsed() > limit {
                let source = self.source().await;
                panic!("no element {css} after {limit:?} in:\n{source}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub async fn click(&self, element: &str) {
        self.call(
            reqwest::Method::POST,
            &format!("/element/{element}/click"),
            Some(json!({})),
        )
        .await;
    }

    /// Waits up to 15 s for the element `css` selects, and clicks it.
    pub async fn click_on(&self, css: &str) {
        let element = self.wait_for(css, Duration::from_secs(15)).await;
        self.click(&element).await;
    }

    /// Waits up to 15 s for the element `css` selects, and answers its text.
    pub async fn text_of(&self, css: &str) -> String {
        let element = self.wait_for(css, Duration::from_secs(15)).await;
        self.text(&element).await
    }

    /// Types `text` into `element`, as keys pressed.
    pub async fn type_text(&self, element: &str, text: &str) {
        self.call(
            reqwest::Method::POST,
            &format!("/element/{element}/value"),
            Some(json!({ "text": text })),
        )
        .await;
    }

    pub async fn text(&self, element: &str) -> String {
        self.call(
            reqwest::Method::GET,
            &format!("/element/{element}/text"),
            None,
        )
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
    }

    /// Runs `script` in the page and answers what it returns.
    pub async fn run(&self, script: &str) -> Value {
        self.execute("/execute/sync", script).await
    }

    /// Runs `script` in the page and answers what it passes to its callback, the last argument.
    pub async fn run_async(&self, script: &str) -> Value {
        self.execute("/execute/async", script).await
    }

    async fn execute(&self, path: &str, script: &str) -> Value {
        self.call(
            reqwest::Method::POST,
            path,
            Some(json!({"script": script, "args": []})),
        )
        .await
    }

    pub async fn source(&self) -> String {
        self.call(reqwest::Method::GET, "/source", None)
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// A PNG of the viewport.
    pub async fn screenshot(&self) -> Vec<u8> {
        let encoded = self.call(reqwest::Method::GET, "/screenshot", None).await;
        base64::engine::general_purpose::STANDARD
            .decode(encoded.as_str().unwrap_or_default())
            .expect("a base64 PNG")
    }

    pub async fn close(self) {
        let _ = self.client.delete(&self.base).send().await;
    }
}
