//! The HTTP tests' fixtures: a server on an ephemeral port, a client that speaks as a broker,
//! what a test saw of a response, request bodies, and the moments tests pin the clock to.

use reqwest::header::HeaderMap;
use serde_json::{Value, json};
use tender_registry::{RunningServer, Settings};

pub struct TestServer {
    pub base: String,
    client: reqwest::Client,
    _server: RunningServer,
}

/// What a test saw of a response.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Value,
    pub text: String,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The first error's `(location, name, description)`.
    pub fn error(&self) -> (String, String, Value) {
        let e = &self.body["errors"][0];
        (
            e["location"].as_str().unwrap_or_default().to_string(),
            e["name"].as_str().unwrap_or_default().to_string(),
            e["description"].clone(),
        )
    }

    /// Asserts a refusal: its status and its first error's location, name and description.
    #[track_caller]
    pub fn assert_refused(
        &self,
        status: u16,
        location: &str,
        name: &str,
        description: impl Into<Value>,
    ) {
        assert_eq!(
            (self.status, self.error()),
            (status, (location.into(), name.into(), description.into())),
            "{}",
            self.text
        );
    }

    /// Asserts a refusal's status and the name its first error gives.
    #[track_caller]
    pub fn assert_refused_on(&self, status: u16, name: &str) {
        assert_eq!(
            (self.status, self.error().1.as_str()),
            (status, name),
            "{}",
            self.text
        );
    }

    /// Asserts a refusal's status and what its first error says.
    #[track_caller]
    pub fn assert_refused_saying(&self, status: u16, description: impl Into<Value>) {
        assert_eq!(
            (self.status, self.error().2),
            (status, description.into()),
            "{}",
            self.text
        );
    }

    /// Asserts the status a request must get, and hands the reply on.
    #[track_caller]
    pub fn assert_status(self, status: u16) -> Reply {
        assert_eq!(self.status, status, "{}", self.text);
        self
    }

    /// Asserts a creation: 201 and a `Location` naming the new record in `collection` (a path
    /// on `s`); answers the new record's id.
    #[track_caller]
    pub fn assert_created_in(&self, s: &TestServer, collection: &str) -> String {
        assert_eq!(self.status, 201, "{}", self.text);
        let id = self.id();
        let location = s.url(&format!("{collection}/{id}"));
        assert_eq!(self.header("Location"), Some(location.as_str()));
        id
    }

    /// The names its errors give, in order.
    pub fn error_names(&self) -> Vec<&str> {
        self.body["errors"]
            .as_array()
            .map(|errors| errors.iter().filter_map(|e| e["name"].as_str()).collect())
            .unwrap_or_default()
    }

    /// Each error's `(name, description)`, in order.
    pub fn errors(&self) -> Vec<(Value, Value)> {
        self.body["errors"]
            .as_array()
            .map(|errors| {
                errors
                    .iter()
                    .map(|e| (e["name"].clone(), e["description"].clone()))
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn id(&self) -> String {
        self.body["data"]["id"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    pub fn token(&self) -> String {
        self.body["access"]["token"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }
}

/// Requests sent in one voice (a broker, a tender's owner or anyone), each a path and, for a
/// write, its `data`, answered by the reply.
#[derive(Clone, Copy)]
pub struct As<'a> {
    server: &'a TestServer,
    broker: Option<&'a str>,
    /// The owner's token, sent as `acc_token`; a path not starting with `/` is below
    /// `/api/2.3/tenders/`.
    token: Option<&'a str>,
}

impl As<'_> {
    fn call(self, method: reqwest::Method, path: &str) -> Call {
        let call = match self.token {
            Some(token) if path.starts_with('/') => {
                let sep = if path.contains('?') { '&' } else { '?' };
                self.server
                    .call(method, &format!("{path}{sep}acc_token={token}"))
            }
            Some(token) => self.server.call(
                method,
                &format!("/api/2.3/tenders/{path}?acc_token={token}"),
            ),
            None => self.server.call(method, path),
        };
        match self.broker {
            Some(broker) => call.broker(broker),
            None => call,
        }
    }

    pub async fn get(self, path: &str) -> Reply {
        self.call(reqwest::Method::GET, path).send().await
    }

    pub async fn delete(self, path: &str) -> Reply {
        self.call(reqwest::Method::DELETE, path).send().await
    }

    /// A write by `method` (POST, PATCH or PUT) of `data` to `path`.
    pub async fn write(self, method: reqwest::Method, path: &str, data: Value) -> Reply {
        self.call(method, path).data(data).send().await
    }

    pub async fn post(self, path: &str, data: Value) -> Reply {
        self.write(reqwest::Method::POST, path, data).await
    }

    pub async fn patch(self, path: &str, data: Value) -> Reply {
        self.write(reqwest::Method::PATCH, path, data).await
    }

    pub async fn put(self, path: &str, data: Value) -> Reply {
        self.write(reqwest::Method::PUT, path, data).await
    }

    /// Adds a document named `name` to the record at `path` and asserts it was made there
    /// (201 and its `Location`).
    pub async fn document_added(self, path: &str, name: &str) -> Reply {
        let r = self.add_document(path, name).await;
        let record = match path.starts_with('/') {
            true => path.to_string(),
            false => format!("/api/2.3/tenders/{path}"),
        };
        r.assert_created_in(self.server, &format!("{record}/documents"));
        r
    }

    /// Describes the document at `path` as `description`, then puts a new version of it
    /// named `name`; answers the new version.
    pub async fn describe_then_replace(self, path: &str, description: &str, name: &str) -> Reply {
        self.patch(path, json!({ "description": description }))
            .await
            .assert_status(200);
        self.put(path, document_body(name)).await.assert_status(200)
    }

    /// Moves the clock this voice moves by `data` (`now`, `advance`, ...): the server's for
    /// anyone, a broker's own for a broker (or another broker's it names).
    pub async fn move_clock(self, data: Value) -> Reply {
        self.post("/testing/clock", data).await
    }

    /// Adds a document named `name` to the record at `path` (its `documents` below it).
    pub async fn add_document(self, path: &str, name: &str) -> Reply {
        self.post(&format!("{path}/documents"), document_body(name))
            .await
    }
}

/// A clock a tender can live on: the server's, a broker's own, or one of a broker's test
/// clocks.
#[derive(Clone, Copy)]
pub enum Clock<'a> {
    Server,
    Broker(&'a str),
    Test { broker: &'a str, id: &'a str },
}

/// A request being built: method, path, broker, token and body.
pub struct Call {
    request: reqwest::RequestBuilder,
}

impl Call {
    pub fn broker(mut self, name: &str) -> Self {
        self.request = self.request.basic_auth(name, Some(""));
        self
    }

    /// HTTP Basic credentials with a password.
    pub fn basic(mut self, user: &str, password: &str) -> Self {
        self.request = self.request.basic_auth(user, Some(password));
        self
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.request = self.request.header(name, value);
        self
    }

    pub fn json(mut self, body: &Value) -> Self {
        self.request = self
            .request
            .header("Content-Type", "application/json")
            .body(body.to_string());
        self
    }

    pub fn data(self, data: Value) -> Self {
        self.json(&json!({ "data": data }))
    }

    pub fn raw(mut self, content_type: &str, body: impl Into<reqwest::Body>) -> Self {
        self.request = self.request.header("Content-Type", content_type).body(body);
        self
    }

    pub async fn send(self) -> Reply {
        let response = self.request.send().await.expect("the server answers");
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response.text().await.expect("a readable body");
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        Reply {
            status,
            headers,
            body,
            text,
        }
    }
}

/// Named moments (Kyiv time) that tests pin the server's clock to, so that what a test sees
/// never depends on the day or the hour it runs.
pub mod moments {
    /// The default: a tender published now ends its tendering on a Friday and its auction
    /// waits for the next Monday.
    pub const MONDAY_MORNING: &str = "2026-11-23T09:00:00+02:00";
    pub const FRIDAY_AFTER_FOUR: &str = "2026-11-27T16:30:00+02:00";
    pub const SATURDAY_NOON: &str = "2026-11-28T12:00:00+02:00";
    pub const SUNDAY_BEFORE_MIDNIGHT: &str = "2026-11-29T23:59:59+02:00";
    pub const NEW_YEARS_EVE: &str = "2026-12-31T23:30:00+02:00";
    /// The last hour of winter time: at 03:00 local, 2027-03-28, clocks jump to 04:00.
    pub const BEFORE_SPRING_FORWARD: &str = "2027-03-28T02:30:00+02:00";
    /// The hour that repeats when Kyiv leaves summer time (2027-10-31, 03:00 → 02:00).
    pub const AUTUMN_REPEATED_HOUR: &str = "2027-10-31T03:30:00+03:00";
    pub const LEAP_DAY: &str = "2028-02-29T10:00:00+02:00";
}

/// A well-formed id that no record has.
pub const UNKNOWN_ID: &str = "0123456789abcdef0123456789abcdef";

/// An RFC 3339 moment as the server's settings take it.
pub fn moment(text: &str) -> time::OffsetDateTime {
    time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
        .expect("an RFC 3339 moment")
}

impl TestServer {
    /// A server in test mode whose clock stands at [`moments::MONDAY_MORNING`] until moved.
    pub async fn start() -> TestServer {
        TestServer::start_at(moments::MONDAY_MORNING).await
    }

    /// A server in test mode whose clock stands at `at` until moved.
    pub async fn start_at(at: &str) -> TestServer {
        TestServer::start_with(Settings {
            testing: true,
            clock_start: Some(moment(at)),
            ..Settings::default()
        })
        .await
    }

    pub async fn start_with(settings: Settings) -> TestServer {
        let server = crate::serve(settings).await;
        let client = crate::client_builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client");
        TestServer {
            base: server.base_url(),
            client,
            _server: server,
        }
    }

    /// Stops the server as a stop signal would: open requests finish, and what it keeps is
    /// committed.
    pub async fn stop(self) {
        self._server.stop().await;
    }

    /// The changes feed read forward from `offset`, a hundred rows at most: the page.
    pub async fn changes_from(&self, offset: &str) -> Value {
        let offset = offset.replace('+', "%2B");
        self.read(&format!(
            "/api/2.3/tenders?feed=changes&limit=100&offset={offset}"
        ))
        .await
    }

    /// A sandbox server (its clock the real one, procedures accelerated, no test mode).
    pub async fn sandbox() -> TestServer {
        TestServer::start_with(Settings {
            sandbox: true,
            ..Settings::default()
        })
        .await
    }

    /// Requests as `broker`.
    pub fn by<'a>(&'a self, broker: &'a str) -> As<'a> {
        As {
            server: self,
            broker: Some(broker),
            token: None,
        }
    }

    /// Requests with no credentials.
    pub fn anyone(&self) -> As<'_> {
        As {
            server: self,
            broker: None,
            token: None,
        }
    }

    /// Requests as the bidder (`broker1`) holding a bid's `token`, on paths below
    /// `/api/2.3/tenders/` or full ones.
    pub fn bidder<'a>(&'a self, token: &'a str) -> As<'a> {
        As {
            server: self,
            broker: Some("broker1"),
            token: Some(token),
        }
    }

    /// Requests as `broker` holding `token` (a tender's or a bid's), on paths below
    /// `/api/2.3/tenders/` or full ones.
    pub fn with_token<'a>(&'a self, broker: &'a str, token: &'a str) -> As<'a> {
        As {
            server: self,
            broker: Some(broker),
            token: Some(token),
        }
    }

    /// Requests as the owner of a tender (`broker` with the tender's `token`), on paths below
    /// `/api/2.3/tenders/` or full ones.
    pub fn owner<'a>(&'a self, token: &'a str) -> As<'a> {
        As {
            server: self,
            broker: Some("broker"),
            token: Some(token),
        }
    }

    pub fn url(&self, path: &str) -> String {
        if path.starts_with("http") {
            path.to_string()
        } else {
            format!("{}{path}", self.base)
        }
    }

    pub fn call(&self, method: reqwest::Method, path: &str) -> Call {
        Call {
            request: self.client.request(method, self.url(path)),
        }
    }

    pub fn get(&self, path: &str) -> Call {
        self.call(reqwest::Method::GET, path)
    }

    pub fn post(&self, path: &str) -> Call {
        self.call(reqwest::Method::POST, path)
    }

    pub fn patch(&self, path: &str) -> Call {
        self.call(reqwest::Method::PATCH, path)
    }

    pub fn put(&self, path: &str) -> Call {
        self.call(reqwest::Method::PUT, path)
    }

    pub fn delete(&self, path: &str) -> Call {
        self.call(reqwest::Method::DELETE, path)
    }

    /// The server's now, from the clock control API.
    pub async fn now(&self) -> String {
        let r = self.get("/testing/clock").send().await;
        r.body["data"]["now"]
            .as_str()
            .expect("the clock answers")
            .to_string()
    }

    /// The server's now from its `Date` header, for a server without the clock control API.
    pub async fn date_now(&self) -> String {
        let r = self.get("/api/2.3/spore").send().await;
        let date = r.header("date").expect("a Date header").to_string();
        time::OffsetDateTime::parse(&date, &time::format_description::well_known::Rfc2822)
            .expect("an HTTP date")
            .format(&time::format_description::well_known::Rfc3339)
            .expect("formats")
    }

    /// Moves the server clock forward by an ISO 8601 duration.
    pub async fn advance(&self, duration: &str) -> Reply {
        let r = self
            .anyone()
            .move_clock(json!({ "advance": duration }))
            .await;
        assert_eq!(r.status, 200, "clock moved: {}", r.text);
        r
    }

    /// Moves the server clock a second past `at`, a moment the server announced.
    pub async fn past(&self, at: &str) -> Reply {
        self.past_on(Clock::Server, at).await
    }

    /// Moves `clock` a second past `at`, a moment the server announced.
    pub async fn past_on(&self, clock: Clock<'_>, at: &str) -> Reply {
        let target = (moment(at) + time::Duration::seconds(1))
            .format(&time::format_description::well_known::Rfc3339)
            .expect("formats");
        let data = json!({ "now": target });
        let r = match clock {
            Clock::Server => self.anyone().move_clock(data).await,
            Clock::Broker(broker) => self.by(broker).move_clock(data).await,
            Clock::Test { broker, id } => {
                let path = format!("/testing/clocks/{id}");
                self.by(broker).post(&path, data).await
            }
        };
        assert_eq!(r.status, 200, "clock moved past {at}: {}", r.text);
        r
    }

    /// Moves the clock past each `next_check` the tender announces until it reaches `status`,
    /// and returns the tender then. Never guesses how many days a move takes.
    pub async fn until_status(&self, id: &str, status: &str) -> Value {
        self.until_status_on(Clock::Server, id, status).await
    }

    /// [`TestServer::until_status`] for a tender living on `clock`.
    pub async fn until_status_on(&self, clock: Clock<'_>, id: &str, status: &str) -> Value {
        for _ in 0..8 {
            let t = self.tender(id).await;
            if t["status"] == status {
                return t;
            }
            let due = t["next_check"].as_str().unwrap_or_else(|| {
                panic!("{} has no next check before {status}: {t}", t["status"])
            });
            self.past_on(clock, due).await;
        }
        panic!("the tender never reached {status}")
    }

    /// The owner's decision on award `award` of tender `id`: `status` is `active`,
    /// `unsuccessful` or `cancelled`.
    pub async fn decide_award(&self, id: &str, token: &str, award: &str, status: &str) -> Reply {
        let path = format!("{id}/awards/{award}");
        self.owner(token)
            .patch(&path, json!({ "status": status }))
            .await
    }

    /// The owner signs contract `contract` of tender `id` (makes it `active`).
    pub async fn sign_contract(&self, id: &str, token: &str, contract: &str) -> Reply {
        let path = format!("{id}/contracts/{contract}");
        self.owner(token)
            .patch(&path, json!({"status": "active"}))
            .await
    }

    /// The owner approves the first award of tender `id` (living on `clock`), the clock passes
    /// the award's complaint period and the owner signs its contract; answers the contract's id.
    pub async fn award_and_sign(&self, clock: Clock<'_>, id: &str, token: &str) -> String {
        let award = text(&self.tender(id).await["awards"][0]["id"]);
        let approved = self
            .decide_award(id, token, &award, "active")
            .await
            .assert_status(200);
        let stand_still = text(&approved.body["data"]["complaintPeriod"]["endDate"]);
        self.past_on(clock, &stand_still).await;
        let contract = text(&self.tender(id).await["contracts"][0]["id"]);
        self.sign_contract(id, token, &contract)
            .await
            .assert_status(200);
        contract
    }

    /// A contract's credentials, taken by the tender's owner with the tender's token: the
    /// contract's own token.
    pub async fn contract_credentials(&self, contract: &str, tender_token: &str) -> String {
        let r = self
            .patch(&format!("/api/2.3/contracts/{contract}/credentials"))
            .broker("broker")
            .header("X-Access-Token", tender_token)
            .header("Content-Type", "application/json")
            .send()
            .await
            .assert_status(200);
        r.token()
    }

    /// A change of contract `contract` by its owner's broker with the contract's `token` in the
    /// header, as the upstream client sends it.
    pub async fn change_contract(&self, contract: &str, token: &str, data: Value) -> Reply {
        self.patch(&format!("/api/2.3/contracts/{contract}"))
            .broker("broker")
            .header("X-Access-Token", token)
            .data(data)
            .send()
            .await
    }

    /// The owner (by `token`) asks to cancel tender `id` (or a lot of it) with `data`.
    pub async fn cancel(&self, id: &str, token: &str, data: Value) -> Reply {
        let path = format!("{id}/cancellations");
        self.owner(token).post(&path, data).await
    }

    /// The owner (by `token`) makes cancellation `cancellation` of tender `id` active.
    pub async fn activate_cancellation(&self, id: &str, token: &str, cancellation: &str) -> Reply {
        let path = format!("{id}/cancellations/{cancellation}");
        self.owner(token)
            .patch(&path, json!({"status": "active"}))
            .await
    }

    /// `broker` asks a question titled `title` on tender `id`.
    pub async fn ask_question(&self, broker: &str, id: &str, title: &str) -> Reply {
        let question = json!({"title": title, "description": "Чи можна поставку частинами?", "author": organization()});
        let path = format!("/api/2.3/tenders/{id}/questions");
        self.by(broker).post(&path, question).await
    }

    /// The owner (by `token`) answers question `question` of tender `id`.
    pub async fn answer_question(
        &self,
        id: &str,
        token: &str,
        question: &str,
        answer: &str,
    ) -> Reply {
        let path = format!("{id}/questions/{question}");
        self.owner(token)
            .patch(&path, json!({ "answer": answer }))
            .await
    }

    /// Asserts that a read of `path`, which ends in an id no record has, is 404 naming
    /// `field` in the URL.
    pub async fn assert_unknown(&self, path: &str, field: &str) {
        let r = self.get(path).send().await;
        r.assert_refused(404, "url", field, "Not Found");
    }

    /// Asks to create a tender as `broker`; the answer may be a refusal.
    pub async fn try_create(&self, data: Value) -> Reply {
        self.by("broker").post("/api/2.3/tenders", data).await
    }

    /// Creates a tender as `broker` and returns (id, token, data).
    pub async fn create(&self, data: Value) -> (String, String, Value) {
        let r = self.try_create(data).await;
        assert_eq!(r.status, 201, "tender created: {}", r.text);
        (r.id(), r.token(), r.body["data"].clone())
    }

    /// The body of a read of `path` that must succeed.
    pub async fn read(&self, path: &str) -> Value {
        let r = self.get(path).send().await;
        assert_eq!(r.status, 200, "{path} read: {}", r.text);
        r.body
    }

    pub async fn tender(&self, id: &str) -> Value {
        let t = self.read(&format!("/api/2.3/tenders/{id}")).await;
        t["data"].clone()
    }

    /// A server as [`TestServer::start`] gives it, with a tender [`TestServer::published`] on
    /// it: (server, tender id, owner token).
    pub async fn with_published() -> (TestServer, String, String) {
        let s = TestServer::start().await;
        let (id, token, _) = s.published().await;
        (s, id, token)
    }

    /// A server as [`TestServer::start`] gives it, with a tender in `active.tendering` on it
    /// ([`TestServer::tendering`]): (server, tender id, owner token).
    pub async fn with_tendering() -> (TestServer, String, String) {
        let s = TestServer::start().await;
        let (id, token) = s.tendering().await;
        (s, id, token)
    }

    /// A tender in `active.tendering` with bids of `amounts` placed in this order:
    /// (id, owner token, bids).
    pub async fn tendering_with_bids(
        &self,
        amounts: &[f64],
    ) -> (String, String, Vec<(String, String)>) {
        let (id, token) = self.tendering().await;
        let mut bids = Vec::new();
        for amount in amounts {
            bids.push(self.bid(&id, *amount).await);
        }
        (id, token, bids)
    }

    /// A tender in qualification after tendering ended with bids of `amounts` (no auction for
    /// a single bid; the auction runs otherwise): (id, owner token, bids).
    pub async fn qualifying(&self, amounts: &[f64]) -> (String, String, Vec<(String, String)>) {
        let (id, token, bids) = self.tendering_with_bids(amounts).await;
        self.until_status(&id, "active.qualification").await;
        (id, token, bids)
    }

    /// A tender [`TestServer::qualifying`] and its first award, awaiting the owner's decision:
    /// (id, owner token, bids, award id).
    pub async fn awaiting_decision(
        &self,
        amounts: &[f64],
    ) -> (String, String, Vec<(String, String)>, String) {
        let (id, token, bids) = self.qualifying(amounts).await;
        let award = text(&self.tender(&id).await["awards"][0]["id"]);
        (id, token, bids, award)
    }

    /// A published tender with enquiries open for a day and tendering for three more.
    pub async fn published(&self) -> (String, String, Value) {
        self.create(tender_body(&self.now().await, 1, 4)).await
    }

    /// A tender in `active.tendering` (the clock moved a day forward).
    pub async fn tendering(&self) -> (String, String) {
        let (id, token, _) = self.published().await;
        self.advance("P1DT1M").await;
        assert_eq!(self.tender(&id).await["status"], "active.tendering");
        (id, token)
    }

    /// Asks to place a bid of `body` on `tender` as `broker1`; the answer may be a refusal.
    pub async fn try_bid(&self, tender: &str, body: Value) -> Reply {
        let path = format!("/api/2.3/tenders/{tender}/bids");
        self.by("broker1").post(&path, body).await
    }

    /// Registers an active bid of `amount` as `broker1`; returns (bid id, bid token).
    pub async fn bid(&self, tender: &str, amount: f64) -> (String, String) {
        let r = self.try_bid(tender, bid_body(amount)).await;
        assert_eq!(r.status, 201, "bid placed: {}", r.text);
        (r.id(), r.token())
    }
}

/// A password as upstream's users files hold it: its SHA-512 digest in hexadecimal.
pub fn sha512_hex(text: &str) -> String {
    use sha2::Digest;
    sha2::Sha512::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The string `v` holds, or an empty one.
pub fn text(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

/// The ids of a listing page's rows (`page` its whole answer), in order.
pub fn ids(page: &Value) -> Vec<String> {
    let rows = page["data"].as_array().into_iter().flatten();
    rows.map(|row| text(&row["id"])).collect()
}

/// How many entries `v` holds, if it is an array.
pub fn count(v: &Value) -> Option<usize> {
    v.as_array().map(Vec::len)
}

/// A moment `days` after `now` (an RFC 3339 timestamp), as the server would read it.
pub fn days_after(now: &str, days: i64) -> String {
    let t = time::OffsetDateTime::parse(now, &time::format_description::well_known::Rfc3339)
        .expect("an RFC 3339 now");
    (t + time::Duration::days(days))
        .format(&time::format_description::well_known::Rfc3339)
        .expect("formats")
}

pub fn organization() -> Value {
    json!({
        "name": "Державне управління справами",
        "identifier": {"scheme": "UA-EDR", "id": "00037256", "uri": "http://www.dus.gov.ua/"},
        "address": {"countryName": "Україна", "postalCode": "01220", "region": "м. Київ", "streetAddress": "вул. Банкова, 11, корпус 1", "locality": "м. Київ"},
        "contactPoint": {"name": "Державне управління справами", "telephone": "0440000000"}
    })
}

/// A belowThreshold tender whose enquiries end `enquiry_days` and tendering
/// `tender_days` after `now`.
pub fn tender_body(now: &str, enquiry_days: i64, tender_days: i64) -> Value {
    let mut entity = organization();
    entity["kind"] = json!("general");
    json!({
        "procurementMethodType": "belowThreshold",
        "title": "Послуги шкільних їдалень",
        "value": {"amount": 500, "currency": "UAH"},
        "minimalStep": {"amount": 15, "currency": "UAH"},
        "enquiryPeriod": {"endDate": days_after(now, enquiry_days)},
        "tenderPeriod": {"endDate": days_after(now, tender_days)},
        "procuringEntity": entity,
        "items": [{
            "id": "item-1",
            "description": "Послуги шкільних їдалень",
            "classification": {"scheme": "ДК021", "id": "55523100-3", "description": "Послуги з харчування у школах"},
            "additionalClassifications": [{"scheme": "ДКПП", "id": "55.51.10.300", "description": "Послуги шкільних їдалень"}],
            "unit": {"code": "44617100-9", "name": "item"},
            "quantity": 5,
            "deliveryDate": {"endDate": days_after(now, 30)},
            "deliveryAddress": {"countryName": "Україна", "postalCode": "79000", "region": "м. Київ", "streetAddress": "вул. Банкова 1", "locality": "м. Київ"}
        }]
    })
}

pub fn bid_body(amount: f64) -> Value {
    json!({"value": {"amount": amount}, "tenderers": [organization()]})
}

pub fn document_body(name: &str) -> Value {
    json!({"title": name, "url": format!("http://docs.example.net/get/{name}"), "hash": "md5:00000000000000000000000000000000", "format": "application/pdf"})
}

/// Every change a paging reader meets, by tender id: the `dateModified` values it was shown.
pub type Seen = std::collections::HashMap<String, Vec<String>>;

/// Pages the listing forward from `offset` to its end, three rows a page, as a feed reader
/// does; notes each row met in `seen` and answers the offset to read on from. Every page must
/// name the offset after it, and the end must come within a hundred pages: a listing that
/// never ends fails the test rather than hanging it.
pub async fn read_on(s: &TestServer, offset: &str, seen: &mut Seen) -> String {
    let mut offset = offset.to_string();
    for _ in 0..100 {
        let r = s
            .get(&format!(
                "/api/2.3/tenders?limit=3&offset={}",
                offset.replace('+', "%2B")
            ))
            .send()
            .await
            .assert_status(200);
        let rows = r.body["data"].as_array().cloned().unwrap_or_default();
        for row in &rows {
            seen.entry(text(&row["id"]))
                .or_default()
                .push(text(&row["dateModified"]));
        }
        let next = text(&r.body["next_page"]["offset"]);
        assert!(
            !next.is_empty(),
            "a page names the offset after it: {}",
            r.text
        );
        if rows.is_empty() {
            return next;
        }
        offset = next;
    }
    panic!("the listing from {offset} did not end within a hundred pages");
}
