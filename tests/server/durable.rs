//! The server with `--data-dir`, run as its own process: what it acknowledged survives a
//! stop and a SIGKILL, and it refuses to start on a data directory it cannot use.

use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use test_support::api as common;
use test_support::api::{bid_body, tender_body};

const START: &str = "2026-11-23T09:00:00+02:00";
const LOT_A: &str = "0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a";
const LOT_B: &str = "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b";

/// A tender of two lots, one item each, like [`tender_body`] otherwise.
fn lot_tender(now: &str) -> Value {
    let mut body = tender_body(now, 1, 4);
    let item = body["items"][0].clone();
    let items: Vec<Value> = [LOT_A, LOT_B]
        .iter()
        .map(|lot| {
            let mut i = item.clone();
            i["id"] = json!(format!("item-{lot}"));
            i["relatedLot"] = json!(lot);
            i
        })
        .collect();
    body["items"] = json!(items);
    body["lots"] = json!([
        {"id": LOT_A, "title": "Лот A", "value": {"amount": 100}, "minimalStep": {"amount": 5}},
        {"id": LOT_B, "title": "Лот B", "value": {"amount": 200}, "minimalStep": {"amount": 5}}
    ]);
    body
}

/// The server as a child process on a free port.
struct Server {
    child: Child,
    base: String,
    client: reqwest::Client,
}

fn command(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tender-registry"));
    c.args(["--listen", "127.0.0.1:0", "--testing", "--log", "info"])
        .args(["--public-url", "http://registry.example"])
        .arg("--data-dir")
        .arg(dir)
        .args(["--clock-start", START])
        .env_remove("TENDER_DATA_DIR");
    c
}

impl Server {
    fn start(dir: &Path) -> Server {
        let mut child = command(dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the server starts");
        let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        let base = loop {
            let line = lines
                .next()
                .expect("the server announces its address")
                .expect("a line");
            if let Some((_, rest)) = line.split_once("address=") {
                break rest
                    .split_whitespace()
                    .next()
                    .unwrap_or_default()
                    .to_string();
            }
        };
        // Keeps reading the log, so that the server never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        // reqwest is built with rustls and no provider of its own: the server's, ring.
        test_support::install_crypto();
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(20))
            .build()
            .expect("client");
        Server {
            child,
            base,
            client,
        }
    }

    /// The server on a data directory of its own, new and empty.
    fn start_afresh() -> (tempfile::TempDir, Server) {
        let dir = tempfile::tempdir().unwrap();
        let server = Server::start(dir.path());
        (dir, server)
    }

    /// Ends the process as an operator would (SIGTERM) and waits for it.
    fn stop(&mut self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success());
        let exit = self.child.wait().expect("the server exits");
        assert!(exit.success(), "a stopped server exits cleanly: {exit:?}");
    }

    /// SIGKILL: no chance to flush or finish anything.
    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    async fn send(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Reply {
        let mut request = self
            .client
            .request(method, format!("{}{path}", self.base))
            .basic_auth("broker", Some(""));
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await?;
        let status = response.status().as_u16();
        let text = response.text().await?;
        Ok((status, serde_json::from_str(&text).unwrap_or(Value::Null)))
    }

    /// A request the server must answer, whatever the status: the status and the body.
    async fn answered(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        self.send(method, path, body)
            .await
            .expect("the server answers")
    }

    async fn get(&self, path: &str) -> Value {
        let (status, body) = self.answered(reqwest::Method::GET, path, None).await;
        assert_eq!(status, 200, "GET {path}: {body}");
        body
    }

    async fn write(&self, method: reqwest::Method, path: &str, data: Value) -> Value {
        let (status, body) = self
            .answered(method.clone(), path, Some(json!({ "data": data })))
            .await;
        assert!(
            status == 200 || status == 201,
            "{method} {path}: {status} {body}"
        );
        body
    }

    /// Moves the clock (`broker`'s own: `send` speaks as it) with `data`; its answer.
    async fn move_clock(&self, data: Value) -> Value {
        self.write(reqwest::Method::POST, "/testing/clock", data)
            .await
    }

    /// Moves broker's test clock `id` with `data`; its answer.
    async fn move_test_clock(&self, id: &str, data: Value) -> Value {
        let path = format!("/testing/clocks/{id}");
        self.write(reqwest::Method::POST, &path, data).await
    }

    /// Moves the clock a second past `at`.
    async fn past(&self, at: &str) {
        self.move_clock(json!({"now": at})).await;
        self.move_clock(json!({"advance": "PT1S"})).await;
    }

    /// Creates a [`tender_body`] tender and moves the clock past its enquiries, so that it
    /// takes bids: its id and its owner's token.
    async fn create_for_bids(&self) -> (String, String) {
        let created = self.create(tender_body(START, 1, 4)).await;
        self.move_clock(json!({"advance": "P1DT1M"})).await;
        created
    }

    /// Places a bid with `data` on `tender`: the answer, with the bid's access.
    async fn place_bid(&self, tender: &str, data: Value) -> Value {
        let path = format!("/api/2.3/tenders/{tender}/bids");
        self.write(reqwest::Method::POST, &path, data).await
    }

    /// Creates a tender: its id and its owner's token.
    async fn create(&self, tender: Value) -> (String, String) {
        let created = self
            .write(reqwest::Method::POST, "/api/2.3/tenders", tender)
            .await;
        (
            text(&created["data"]["id"]),
            text(&created["access"]["token"]),
        )
    }
}

/// A failing test leaves no server behind.
impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

type Reply = Result<(u16, Value), reqwest::Error>;

/// The string at `value`, which must be there.
fn text(value: &Value) -> String {
    value.as_str().expect("a string").to_string()
}

fn url(id: &str, token: &str) -> String {
    format!("/api/2.3/tenders/{id}?acc_token={token}")
}

/// Everything a client can read about the given tenders and bids, and the clock.
async fn snapshot(
    s: &Server,
    tenders: &[(String, String)],
    bids: &[(String, String, String)],
) -> Value {
    let mut all = serde_json::Map::new();
    for (id, token) in tenders {
        all.insert(id.clone(), s.get(&url(id, token)).await);
    }
    for (tender, bid, token) in bids {
        let path = format!("/api/2.3/tenders/{tender}/bids/{bid}?acc_token={token}");
        all.insert(bid.clone(), s.get(&path).await);
    }
    all.insert("clock".into(), s.get("/testing/clock").await);
    all.insert(
        "listing".into(),
        s.get("/api/2.3/tenders?opt_fields=status,tenderID").await,
    );
    Value::Object(all)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_restarted_server_answers_exactly_as_before_and_its_scheduler_goes_on() {
    let (dir, mut s) = Server::start_afresh();
    let now = START;
    let (a, a_token) = s.create(tender_body(now, 1, 4)).await;
    let (b, b_token) = s.create(tender_body(now, 1, 4)).await;
    let (lots, lots_token) = s.create(lot_tender(now)).await;
    let mut draft_body = tender_body(now, 2, 6);
    draft_body["status"] = json!("draft");
    let (draft, draft_token) = s.create(draft_body).await;
    let asked = s
        .write(
            reqwest::Method::POST,
            &format!("/api/2.3/tenders/{a}/questions"),
            json!({"title": "Чи можна?", "description": "Питання", "author": common::organization()}),
        )
        .await;
    assert_eq!(asked["data"]["title"], "Чи можна?");
    s.write(
        reqwest::Method::PATCH,
        &url(&a, &a_token),
        json!({"description": "Змінено"}),
    )
    .await;
    s.move_clock(json!({"advance": "P1DT1M"})).await;
    let mut bids = Vec::new();
    let on_lots = json!({
        "tenderers": [common::organization()],
        "lotValues": [{"relatedLot": LOT_A, "value": {"amount": 90}}, {"relatedLot": LOT_B, "value": {"amount": 180}}]
    });
    for (tender, body) in [
        (&a, bid_body(450.0)),
        (&a, bid_body(440.0)),
        (&b, bid_body(430.0)),
        (&lots, on_lots),
    ] {
        let bid = s.place_bid(tender, body).await;
        bids.push((
            tender.clone(),
            text(&bid["data"]["id"]),
            text(&bid["access"]["token"]),
        ));
    }
    let tenders = [
        (a.clone(), a_token.clone()),
        (b.clone(), b_token.clone()),
        (draft.clone(), draft_token.clone()),
        (lots.clone(), lots_token.clone()),
    ];
    let before = snapshot(&s, &tenders, &bids).await;
    assert_eq!(before[&a]["data"]["status"], "active.tendering");
    assert_eq!(before[&draft]["data"]["status"], "draft");
    s.stop();

    let mut s = Server::start(dir.path());
    let after = snapshot(&s, &tenders, &bids).await;
    pretty_assertions::assert_eq!(before, after);
    // The kept token hashes still open the owners' writes.
    s.write(
        reqwest::Method::PATCH,
        &url(&draft, &draft_token),
        json!({"status": "active.enquiries"}),
    )
    .await;
    // The scheduler goes on: past the tendering end, both tenders move by themselves.
    let end = before[&a]["data"]["tenderPeriod"]["endDate"]
        .as_str()
        .unwrap();
    s.past(end).await;
    let a_now = s.get(&format!("/api/2.3/tenders/{a}")).await;
    assert_eq!(a_now["data"]["status"], "active.auction", "{a_now}");
    assert_eq!(
        a_now["data"]["auctionPeriod"]["startDate"],
        before[&a]["data"]["auctionPeriod"]["startDate"]
    );
    let lots_now = s.get(&format!("/api/2.3/tenders/{lots}")).await;
    assert_eq!(
        lots_now["data"]["lots"][0]["status"], "active",
        "{lots_now}"
    );
    assert_ne!(lots_now["data"]["status"], "active.tendering", "{lots_now}");
    let b_now = s.get(&format!("/api/2.3/tenders/{b}")).await;
    assert_eq!(b_now["data"]["status"], "active.qualification", "{b_now}");
    let clock = s.get("/testing/clock").await;
    s.stop();

    // The moved clock and the transitions are kept too.
    let mut s = Server::start(dir.path());
    assert_eq!(s.get("/testing/clock").await, clock);
    assert_eq!(
        s.get(&format!("/api/2.3/tenders/{b}")).await["data"]["status"],
        "active.qualification"
    );

    // A running clock runs on while the server is down; what fell due meanwhile is applied.
    let published = s.get(&format!("/api/2.3/tenders/{draft}")).await;
    assert_eq!(published["data"]["status"], "active.tendering");
    let end = common::moment(
        published["data"]["tenderPeriod"]["endDate"]
            .as_str()
            .unwrap(),
    );
    let just_before = (end - time::Duration::milliseconds(300))
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    s.move_clock(json!({"now": just_before, "frozen": false}))
        .await;
    s.stop();
    std::thread::sleep(Duration::from_millis(400));
    let mut s = Server::start(dir.path());
    let mut status = Value::Null;
    for _ in 0..100 {
        status = s.get(&format!("/api/2.3/tenders/{draft}")).await["data"]["status"].clone();
        if status == "unsuccessful" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        status, "unsuccessful",
        "tendering without bids ended while down"
    );
    let clock = s.get("/testing/clock").await;
    assert!(
        common::moment(clock["data"]["now"].as_str().unwrap()) > end,
        "the clock ran on: {clock}"
    );
    s.stop();
}

/// What a client learnt from the writes it sent before the crash.
#[derive(Default, Clone)]
struct Ledger {
    /// Tender id → (owner token, last acknowledged description, description in flight).
    tenders: HashMap<String, (String, String, Option<String>)>,
    /// (tender, bid id, bid token, amount) of every acknowledged bid.
    bids: Vec<(String, String, String, f64)>,
    /// Descriptions of creations sent but not acknowledged.
    unsure: Vec<String>,
    acknowledged: usize,
}

/// One client: creations, PATCHes of its own tenders and bids, until the server dies.
async fn client(s: Arc<Server>, n: usize, tendering: Vec<String>, ledger: Arc<Mutex<Ledger>>) {
    let mut mine: Vec<String> = Vec::new();
    for step in 0usize.. {
        let mark = format!("c{n}-s{step}-{}", uuid_like(n, step));
        let reply = match step % 4 {
            0 | 2 if mine.is_empty() || step % 4 == 0 => {
                let mut body = tender_body(START, 10, 40);
                body["description"] = json!(mark);
                ledger.lock().unwrap().unsure.push(mark.clone());
                let r = s
                    .send(
                        reqwest::Method::POST,
                        "/api/2.3/tenders",
                        Some(json!({ "data": body })),
                    )
                    .await;
                if let Ok((201, body)) = &r {
                    let id = text(&body["data"]["id"]);
                    let token = text(&body["access"]["token"]);
                    let mut l = ledger.lock().unwrap();
                    l.unsure.retain(|m| *m != mark);
                    l.tenders.insert(id.clone(), (token, mark.clone(), None));
                    l.acknowledged += 1;
                    mine.push(id);
                }
                r
            }
            1 | 2 => {
                let id = mine[step % mine.len()].clone();
                let token = {
                    let mut l = ledger.lock().unwrap();
                    let entry = l.tenders.get_mut(&id).unwrap();
                    entry.2 = Some(mark.clone());
                    entry.0.clone()
                };
                let r = s
                    .send(
                        reqwest::Method::PATCH,
                        &url(&id, &token),
                        Some(json!({"data": {"description": mark}})),
                    )
                    .await;
                if let Ok((200, body)) = &r {
                    assert_eq!(body["data"]["description"], json!(mark), "patched: {body}");
                    let mut l = ledger.lock().unwrap();
                    let entry = l.tenders.get_mut(&id).unwrap();
                    *entry = (token, mark.clone(), None);
                    l.acknowledged += 1;
                }
                r
            }
            _ => {
                let tender = tendering[step % tendering.len()].clone();
                let amount = (100 + (n * 1000 + step) % 300) as f64;
                let r = s
                    .send(
                        reqwest::Method::POST,
                        &format!("/api/2.3/tenders/{tender}/bids"),
                        Some(json!({ "data": bid_body(amount) })),
                    )
                    .await;
                if let Ok((201, body)) = &r {
                    let id = text(&body["data"]["id"]);
                    let token = text(&body["access"]["token"]);
                    let mut l = ledger.lock().unwrap();
                    l.bids.push((tender, id, token, amount));
                    l.acknowledged += 1;
                }
                r
            }
        };
        match reply {
            Ok((status, body)) => assert!(status < 300, "a write refused: {status} {body}"),
            Err(_) => return, // the server is gone
        }
    }
}

fn uuid_like(n: usize, step: usize) -> String {
    format!("{:08x}", (n * 7919 + step * 104_729) % 0xffff_ffff)
}

/// Every acknowledged write is there, and every tender reads whole.
async fn check(s: &Server, ledger: &Ledger) -> usize {
    let mut seen = 0;
    let listing = s
        .get("/api/2.3/tenders?limit=1000&opt_fields=description")
        .await;
    let listed = listing["data"].as_array().unwrap();
    for row in listed {
        let t = &s
            .get(&format!("/api/2.3/tenders/{}", row["id"].as_str().unwrap()))
            .await["data"];
        assert!(
            t["tenderID"].as_str().is_some()
                && t["items"].as_array().is_some_and(|i| !i.is_empty())
                && t["procuringEntity"]["name"].as_str().is_some(),
            "a whole tender: {t}"
        );
        let description = t["description"].as_str().unwrap_or_default();
        match ledger.tenders.get(t["id"].as_str().unwrap()) {
            Some(_) => {}
            None => assert!(
                description == "Опис"
                    || description.is_empty()
                    || ledger.unsure.iter().any(|m| m == description),
                "a tender nobody sent: {t}"
            ),
        }
    }
    for (id, (token, acked, in_flight)) in &ledger.tenders {
        let t = &s.get(&url(id, token)).await["data"];
        let description = t["description"].as_str().unwrap_or_default();
        assert!(
            description == acked || in_flight.as_deref() == Some(description),
            "tender {id}: acknowledged {acked:?} (or {in_flight:?} in flight), found {description:?}"
        );
        seen += 1;
    }
    for (tender, bid, token, amount) in &ledger.bids {
        let b = &s
            .get(&format!(
                "/api/2.3/tenders/{tender}/bids/{bid}?acc_token={token}"
            ))
            .await["data"];
        assert_eq!(
            b["value"]["amount"].as_f64(),
            Some(*amount),
            "bid {bid}: {b}"
        );
        seen += 1;
    }
    seen
}

#[tokio::test(flavor = "multi_thread")]
async fn every_acknowledged_write_survives_a_sigkill() {
    const RUNS: usize = 20;
    const CLIENTS: usize = 6;
    let (dir, mut s) = Server::start_afresh();
    let mut tendering = Vec::new();
    for _ in 0..3 {
        tendering.push(s.create(tender_body(START, 1, 60)).await.0);
    }
    s.move_clock(json!({"advance": "P1DT1M"})).await;
    s.stop();
    let ledger = Arc::new(Mutex::new(Ledger::default()));
    let mut verified = 0;
    for run in 0..RUNS {
        let s = Arc::new(Server::start(dir.path()));
        let clients: Vec<_> = (0..CLIENTS)
            .map(|n| {
                tokio::spawn(client(
                    s.clone(),
                    run * CLIENTS + n,
                    tendering.clone(),
                    ledger.clone(),
                ))
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(40 + (run as u64 * 37) % 120)).await;
        // SIGKILL while the clients are writing.
        let pid = s.child.id();
        let killed = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        for c in clients {
            c.await.unwrap();
        }
        drop(s);

        let mut s = Server::start(dir.path());
        let snapshot = ledger.lock().unwrap().clone();
        verified = check(&s, &snapshot).await;
        s.kill();
    }
    let l = ledger.lock().unwrap();
    eprintln!(
        "crash test: {RUNS} SIGKILLs, {} acknowledged writes ({} tenders, {} bids), {} records checked after the last restart",
        l.acknowledged,
        l.tenders.len(),
        l.bids.len(),
        verified
    );
    assert!(
        l.acknowledged >= RUNS,
        "the clients wrote: {}",
        l.acknowledged
    );
}

#[test]
fn a_data_directory_it_cannot_use_stops_the_start_with_a_message() {
    let place = tempfile::tempdir().unwrap();
    // A directory that cannot be made: its parent is a file.
    let file = place.path().join("file");
    std::fs::write(&file, "x").unwrap();
    refuses_to_start(&file.join("data"), &["cannot create the data directory"]);

    // A file that is not a database.
    let corrupt = place.path().join("corrupt");
    std::fs::create_dir(&corrupt).unwrap();
    std::fs::write(corrupt.join("registry.sqlite3"), vec![0x5a; 8192]).unwrap();
    refuses_to_start(&corrupt, &["registry.sqlite3", "not a database"]);

    // A file written by a newer server.
    let newer = place.path().join("newer");
    std::fs::create_dir(&newer).unwrap();
    let conn = rusqlite::Connection::open(newer.join("registry.sqlite3")).unwrap();
    conn.pragma_update(None, "user_version", 99).unwrap();
    drop(conn);
    refuses_to_start(&newer, &["newer server (schema version 99"]);

    // A record that cannot be read.
    let broken = place.path().join("broken");
    std::fs::create_dir(&broken).unwrap();
    let conn = rusqlite::Connection::open(broken.join("registry.sqlite3")).unwrap();
    conn.execute_batch(
        "CREATE TABLE tenders (id TEXT PRIMARY KEY, record TEXT NOT NULL);
         CREATE TABLE state (name TEXT PRIMARY KEY, value TEXT NOT NULL);
         INSERT INTO tenders VALUES ('abc', '{\"id\": \"abc\"}');
         PRAGMA user_version = 1;",
    )
    .unwrap();
    drop(conn);
    refuses_to_start(&broken, &["the tender abc cannot be read"]);
}

/// Starts the server on `dir` and expects it to stop by itself with exit code 1, its message
/// holding each of `parts`.
fn refuses_to_start(dir: &Path, parts: &[&str]) {
    let mut child = command(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    for _ in 0..400 {
        if let Some(status) = child.try_wait().expect("waits") {
            let mut message = String::new();
            if let Some(mut err) = child.stderr.take() {
                std::io::Read::read_to_string(&mut err, &mut message).expect("reads");
            }
            assert_eq!(status.code(), Some(1), "{message}");
            assert!(parts.iter().all(|part| message.contains(part)), "{message}");
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    panic!(
        "the server started on {} that it should refuse",
        dir.display()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_file_holding_a_tender_twice_or_a_bid_of_no_tender_stops_the_start() {
    let (dir, mut s) = Server::start_afresh();
    let (id, _) = s.create_for_bids().await;
    let bid = s.place_bid(&id, bid_body(450.0)).await;
    let bid_url = format!(
        "/api/2.3/tenders/{id}/bids/{}?acc_token={}",
        bid["data"]["id"].as_str().unwrap(),
        bid["access"]["token"].as_str().unwrap()
    );
    s.stop();
    let file = rusqlite::Connection::open(dir.path().join("registry.sqlite3")).unwrap();

    file.execute("UPDATE bids SET tender_id = 'f00'", [])
        .unwrap();
    refuses_to_start(dir.path(), &["belongs to a tender the file lacks: f00"]);

    file.execute("UPDATE bids SET tender_id = ?1", [&id])
        .unwrap();
    file.execute(
        "INSERT INTO tenders (id, record) SELECT id, record FROM tenders",
        [],
    )
    .unwrap();
    refuses_to_start(dir.path(), &["a tender is stored twice"]);

    // Put right, the file is served again, bid and all.
    file.execute("DELETE FROM tenders WHERE row > 1", [])
        .unwrap();
    drop(file);
    let s = Server::start(dir.path());
    let tender = s.get(&format!("/api/2.3/tenders/{id}")).await;
    assert_eq!(tender["data"]["id"], id.as_str());
    assert_eq!(s.get(&bid_url).await["data"], bid["data"]);
}

async fn read_paths(s: &Server, paths: &[String]) -> Vec<Value> {
    let mut all = Vec::new();
    for path in paths {
        all.push(s.get(path).await);
    }
    all
}

/// A contract under management is kept like a tender: after a restart its token still
/// writes, and its changes, documents and payment read as before.
#[tokio::test(flavor = "multi_thread")]
async fn a_contract_s_token_changes_and_documents_survive_a_restart() {
    let (dir, mut s) = Server::start_afresh();
    let (id, token) = s.create_for_bids().await;
    s.place_bid(&id, bid_body(400.0)).await;
    let t = s.get(&format!("/api/2.3/tenders/{id}")).await;
    let end = text(&t["data"]["tenderPeriod"]["endDate"]);
    s.past(&end).await;
    let t = s.get(&format!("/api/2.3/tenders/{id}")).await;
    let award = text(&t["data"]["awards"][0]["id"]);
    let approved = s
        .write(
            reqwest::Method::PATCH,
            &format!("/api/2.3/tenders/{id}/awards/{award}?acc_token={token}"),
            json!({"status": "active"}),
        )
        .await;
    let stand_still = text(&approved["data"]["complaintPeriod"]["endDate"]);
    s.past(&stand_still).await;
    let t = s.get(&format!("/api/2.3/tenders/{id}")).await;
    let contract = text(&t["data"]["contracts"][0]["id"]);
    s.write(
        reqwest::Method::PATCH,
        &format!("/api/2.3/tenders/{id}/contracts/{contract}?acc_token={token}"),
        json!({"status": "active"}),
    )
    .await;
    let credentials = format!("/api/2.3/contracts/{contract}/credentials?acc_token={token}");
    let (status, taken) = s.answered(reqwest::Method::PATCH, &credentials, None).await;
    assert_eq!(status, 200, "{taken}");
    let own = text(&taken["access"]["token"]);
    let at = |path: &str| format!("/api/2.3/contracts/{contract}{path}?acc_token={own}");
    let change = s
        .write(
            reqwest::Method::POST,
            &at("/changes"),
            json!({"rationale": "Зменшення обсягів", "rationaleTypes": ["volumeCuts"]}),
        )
        .await;
    let change = text(&change["data"]["id"]);
    s.write(
        reqwest::Method::POST,
        &at("/documents"),
        json!({"title": "Change.pdf", "url": "http://docs.example.net/get/change.pdf", "hash": "md5:00000000000000000000000000000000", "format": "application/pdf", "documentOf": "change", "relatedItem": change}),
    )
    .await;
    s.write(
        reqwest::Method::PATCH,
        &at(""),
        json!({"amountPaid": {"amount": 380}, "description": "Поставка"}),
    )
    .await;
    let paths = [
        format!("/api/2.3/contracts/{contract}"),
        format!("/api/2.3/contracts/{contract}/changes"),
        format!("/api/2.3/contracts/{contract}/documents?all=1"),
        "/api/2.3/contracts?opt_fields=contractID,status".to_string(),
    ];
    let before = read_paths(&s, &paths).await;
    s.stop();

    let mut s = Server::start(dir.path());
    pretty_assertions::assert_eq!(read_paths(&s, &paths).await, before);
    let now = text(&s.get("/testing/clock").await["data"]["now"]);
    let applied = s
        .write(
            reqwest::Method::PATCH,
            &at(&format!("/changes/{change}")),
            json!({"status": "active", "dateSigned": now}),
        )
        .await;
    assert_eq!(applied["data"]["status"], "active", "the kept token writes");
    let (status, _) = s.answered(reqwest::Method::PATCH, &credentials, None).await;
    assert_eq!(status, 200, "the tender's kept token asks for credentials");
    let (status, _) = s
        .answered(
            reqwest::Method::PATCH,
            &at(""),
            Some(json!({"data": {"description": "Старий токен"}})),
        )
        .await;
    assert_eq!(
        status, 403,
        "the token before the new credentials is retired"
    );
    s.stop();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_post_in_a_live_auction_and_its_secrets_survive_a_restart() {
    let (dir, mut s) = Server::start_afresh();
    let (id, _) = s.create_for_bids().await;
    let mut bids = Vec::new();
    for amount in [480.0, 450.0] {
        let placed = s.place_bid(&id, bid_body(amount)).await;
        bids.push((
            text(&placed["data"]["id"]),
            text(&placed["access"]["token"]),
        ));
    }
    let t = s.get(&format!("/api/2.3/tenders/{id}")).await;
    let end = t["data"]["tenderPeriod"]["endDate"].as_str().unwrap();
    s.move_clock(json!({"now": end})).await;
    let (bid, token) = &bids[0];
    let read = s
        .get(&format!(
            "/api/2.3/tenders/{id}/bids/{bid}?acc_token={token}"
        ))
        .await;
    let address = text(&read["data"]["participationUrl"]);
    // The address is the public URL's; the interface beside the page is the server's path.
    let path = address.trim_start_matches("http://registry.example");
    let (page, query) = path.split_once('?').unwrap();
    let state = format!("{page}/state?{query}");
    let turn = s.get(&state).await["data"]["participant"]["nextTurn"]
        .as_str()
        .unwrap()
        .to_string();
    s.move_clock(json!({"now": turn})).await;
    let posted = s
        .write(
            reqwest::Method::POST,
            &format!("{page}/bids?{query}"),
            json!({"bid": 440}),
        )
        .await;
    assert_eq!(posted["data"]["bid"], 440.0);
    let before = s.get(&state).await;
    assert_eq!(before["data"]["participant"]["posted"], 440.0);
    s.stop();

    let mut s = Server::start(dir.path());
    pretty_assertions::assert_eq!(
        s.get(&state).await,
        before,
        "the same secret opens the same auction, the post kept"
    );
    let t = s.get(&format!("/api/2.3/tenders/{id}")).await;
    let planned_end = text(&t["data"]["next_check"]);
    s.move_clock(json!({"now": planned_end})).await;
    let t = s.get(&format!("/api/2.3/tenders/{id}")).await;
    let award = &t["data"]["awards"][0];
    assert_eq!(
        (award["bid_id"].as_str(), award["value"]["amount"].as_f64()),
        (Some(bid.as_str()), Some(440.0)),
        "the kept post wins: {t}"
    );
    s.stop();
}

#[tokio::test(flavor = "multi_thread")]
async fn every_broker_s_clock_and_where_its_records_stand_survive_a_restart() {
    let (dir, mut s) = Server::start_afresh();
    // `send` speaks as `broker`: its move is of its own clock.
    let moved = s.move_clock(json!({"advance": "P10D"})).await;
    assert_eq!(moved["data"]["own"], true, "{moved}");
    let ahead = text(&moved["data"]["now"]);
    let (id, token) = s.create(tender_body(&ahead, 1, 4)).await;
    let before = s.get(&url(&id, &token)).await;
    let server = s.get("/testing/clock?broker=broker1").await;
    let listing = s.get("/api/2.3/tenders").await;
    s.stop();

    let mut s = Server::start(dir.path());
    let clock = s.get("/testing/clock").await;
    assert_eq!(clock["data"], moved["data"], "broker's own clock is kept");
    assert_eq!(
        s.get("/testing/clock?broker=broker1").await,
        server,
        "broker1 still reads the server's"
    );
    pretty_assertions::assert_eq!(s.get(&url(&id, &token)).await, before);
    pretty_assertions::assert_eq!(s.get("/api/2.3/tenders").await, listing);
    let changed = s
        .write(
            reqwest::Method::PATCH,
            &url(&id, &token),
            json!({"description": "після перезапуску"}),
        )
        .await;
    assert!(
        changed["data"]["dateModified"].as_str() > before["data"]["dateModified"].as_str(),
        "{changed}"
    );
    let next = s
        .get(&format!(
            "/api/2.3/tenders?offset={}",
            listing["next_page"]["offset"]
                .as_str()
                .unwrap()
                .replace('+', "%2B")
        ))
        .await;
    assert_eq!(
        next["data"][0]["id"], id,
        "the change after the restart is listed after every earlier one: {next}"
    );
    s.stop();
}

#[tokio::test(flavor = "multi_thread")]
async fn test_clocks_and_the_records_on_them_survive_a_restart() {
    let (dir, mut s) = Server::start_afresh();
    // `send` speaks as `broker`, the clocks' owner.
    let ahead = s
        .write(
            reqwest::Method::POST,
            "/testing/clocks",
            json!({"name": "ahead", "now": "2027-01-04T09:00:00+02:00"}),
        )
        .await["data"]
        .clone();
    let id = text(&ahead["id"]);
    let still = s
        .write(reqwest::Method::POST, "/testing/clocks", json!({}))
        .await["data"]
        .clone();
    let gone = s
        .write(reqwest::Method::POST, "/testing/clocks", json!({}))
        .await["data"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, _) = s
        .answered(
            reqwest::Method::DELETE,
            &format!("/testing/clocks/{gone}"),
            None,
        )
        .await;
    assert_eq!(status, 200);
    let created = s
        .client
        .post(format!("{}/api/2.3/tenders", s.base))
        .basic_auth("broker", Some(""))
        .header("X-Testing-Clock", &id)
        .json(&json!({"data": tender_body("2027-01-04T09:00:00+02:00", 1, 4)}))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status().as_u16(), 201);
    let created: Value = created.json().await.unwrap();
    let tender = text(&created["data"]["id"]);
    let token = text(&created["access"]["token"]);
    let moved = s.move_test_clock(&id, json!({"advance": "P1DT1M"})).await;
    let before = s.get(&url(&tender, &token)).await;
    assert_eq!(before["data"]["status"], "active.tendering", "{before}");
    let listed = s.get("/testing/clocks").await;
    let found = s.get(&format!("/testing/clock?tender={tender}")).await;
    let deleted = s.get(&format!("/testing/clocks/{gone}")).await;
    let listing = s.get("/api/2.3/tenders").await;
    s.stop();

    let mut s = Server::start(dir.path());
    pretty_assertions::assert_eq!(s.get("/testing/clocks").await, listed);
    assert_eq!(listed["data"].as_array().map(Vec::len), Some(2), "{listed}");
    assert_eq!(
        s.get(&format!("/testing/clocks/{id}")).await["data"],
        moved["data"]
    );
    assert_eq!(
        s.get(&format!(
            "/testing/clocks/{}",
            still["id"].as_str().unwrap()
        ))
        .await["data"],
        still
    );
    assert_eq!(s.get(&format!("/testing/clocks/{gone}")).await, deleted);
    pretty_assertions::assert_eq!(s.get(&url(&tender, &token)).await, before);
    pretty_assertions::assert_eq!(
        s.get(&format!("/testing/clock?tender={tender}")).await,
        found,
        "the tender still lives on its clock"
    );
    pretty_assertions::assert_eq!(s.get("/api/2.3/tenders").await, listing);
    // Moving that clock alone still ends its tender.
    s.move_test_clock(&id, json!({"advance": "P30D"})).await;
    assert_eq!(
        s.get(&url(&tender, &token)).await["data"]["status"],
        "unsuccessful"
    );
    let server = s.get("/testing/clock?broker=broker").await;
    assert_eq!(
        (&server["data"]["now"], &server["data"]["own"]),
        (&json!("2026-11-23T09:00:00.000000+02:00"), &json!(false)),
        "the broker's own clock stays where the server's started"
    );
    s.stop();
}
