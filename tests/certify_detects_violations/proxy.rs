//! The proxy's view of one exchange, what it remembers of the objects it saw created, and
//! where a request goes.
use super::*;

/// A request as received, before it is forwarded.
#[derive(Clone, Debug, Default)]
pub struct Req {
    pub method: String,
    pub path: String,
    pub query: Vec<(String, String)>,
    pub headers: Vec<(String, Vec<u8>)>,
    pub body: Vec<u8>,
}

impl Req {
    /// The path segments after `/api/2.3`.
    pub fn segments(&self) -> Vec<&str> {
        self.path
            .strip_prefix("/api/2.3/")
            .map(|p| p.split('/').filter(|s| !s.is_empty()).collect())
            .unwrap_or_default()
    }

    pub fn endpoint(&self) -> Endpoint {
        use Endpoint::*;
        let s = self.segments();
        let m = self.method.as_str();
        match (m, s.as_slice()) {
            ("GET", ["tenders"]) => List,
            ("POST", ["tenders"]) => Create,
            ("GET", ["tenders", _]) => GetTender,
            ("PATCH", ["tenders", _]) => PatchTender,
            ("GET", ["tenders", _, "documents"]) => DocList,
            ("POST", ["tenders", _, "documents"]) => DocPost,
            ("GET", ["tenders", _, "documents", _]) => DocGet,
            ("PATCH", ["tenders", _, "documents", _]) => DocPatch,
            ("PUT", ["tenders", _, "documents", _]) => DocPut,
            ("GET", ["tenders", _, "questions"]) => QList,
            ("POST", ["tenders", _, "questions"]) => QPost,
            ("GET", ["tenders", _, "questions", _]) => QGet,
            ("PATCH", ["tenders", _, "questions", _]) => QPatch,
            ("POST", ["tenders", _, "bids"]) => BidPost,
            ("GET", ["tenders", _, "bids", _]) => BidGet,
            ("PATCH", ["tenders", _, "bids", _]) => BidPatch,
            ("POST", ["tenders", _, "bids", _, "documents"]) => BidDocPost,
            ("GET", ["tenders", _, "bids", _, "documents"]) => BidDocList,
            ("PATCH", ["tenders", _, "awards", _]) => AwardPatch,
            ("PATCH", ["tenders", _, "contracts", _]) => ContractPatch,
            ("GET", ["contracts", _]) => ManagedGet,
            ("PATCH", ["contracts", _]) => ManagedPatch,
            ("PATCH", ["contracts", _, "credentials"]) => Credentials,
            ("POST", ["contracts", _, "changes"]) => ChangePost,
            ("PATCH", ["contracts", _, "changes", _]) => ChangePatch,
            ("POST", ["contracts", _, "documents"]) => ManagedDocPost,
            ("PUT", ["contracts", _, "documents", _]) => ManagedDocPut,
            ("PATCH", ["contracts", _, "documents", _]) => ManagedDocPatch,
            _ => Other,
        }
    }

    /// The id of the contract under management a request is sent to.
    pub fn contract_id(&self) -> Option<String> {
        match self.segments().as_slice() {
            ["contracts", id, ..] => Some((*id).to_owned()),
            _ => None,
        }
    }

    pub fn tender_id(&self) -> String {
        self.segments()
            .get(1)
            .map(|s| (*s).to_owned())
            .unwrap_or_default()
    }

    /// The id of the sub-record (document, question, bid, award, contract).
    pub fn record_id(&self) -> String {
        self.segments()
            .get(3)
            .map(|s| (*s).to_owned())
            .unwrap_or_default()
    }

    pub fn header(&self, name: &str) -> Option<Vec<u8>> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    }

    pub fn set_header(&mut self, name: &str, value: Option<Vec<u8>>) {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        if let Some(v) = value {
            self.headers.push((name.to_owned(), v));
        }
    }

    /// The token presented, in the query or (as upstream's client sends a contract's) in
    /// `X-Access-Token`.
    pub fn token(&self) -> Option<String> {
        self.query
            .iter()
            .find(|(k, _)| k == "acc_token")
            .map(|(_, v)| v.clone())
            .or_else(|| {
                self.header("x-access-token")
                    .and_then(|v| String::from_utf8(v).ok())
            })
    }

    /// Presents `token` where the request presented one (the query when it presented none).
    pub fn set_token(&mut self, token: &str) {
        if self.header("x-access-token").is_some() {
            self.set_header("x-access-token", Some(token.as_bytes().to_vec()));
        } else {
            self.query.retain(|(k, _)| k != "acc_token");
            self.query.push(("acc_token".into(), token.to_owned()));
        }
    }

    pub fn data(&self) -> Value {
        serde_json::from_slice::<Value>(&self.body).unwrap_or_default()["data"].clone()
    }

    pub fn set_data(&mut self, data: Value) {
        self.body = json!({ "data": data }).to_string().into_bytes();
    }

    pub fn path_and_query(&self) -> String {
        if self.query.is_empty() {
            return self.path.clone();
        }
        let mut url = reqwest::Url::parse("http://x/").expect("a base");
        url.query_pairs_mut().extend_pairs(&self.query);
        format!("{}?{}", self.path, url.query().unwrap_or(""))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endpoint {
    List,
    Create,
    GetTender,
    PatchTender,
    DocList,
    DocPost,
    DocGet,
    DocPatch,
    DocPut,
    QList,
    QPost,
    QGet,
    QPatch,
    BidPost,
    BidGet,
    BidPatch,
    BidDocPost,
    BidDocList,
    AwardPatch,
    ContractPatch,
    ManagedGet,
    ManagedPatch,
    Credentials,
    ChangePost,
    ChangePatch,
    ManagedDocPost,
    ManagedDocPut,
    ManagedDocPatch,
    Other,
}

impl Endpoint {
    /// Writes under a contract under management that need the contract's token.
    pub fn on_contract(self) -> bool {
        matches!(
            self,
            Endpoint::ManagedPatch
                | Endpoint::ChangePost
                | Endpoint::ChangePatch
                | Endpoint::ManagedDocPost
                | Endpoint::ManagedDocPut
                | Endpoint::ManagedDocPatch
        )
    }

    /// Writes (and the bid read) that need the bid's token rather than the tender's.
    pub fn on_bid(self) -> bool {
        matches!(
            self,
            Endpoint::BidGet | Endpoint::BidPatch | Endpoint::BidDocPost | Endpoint::BidDocList
        )
    }
}

/// What the proxy passes back, before it is written out.
#[derive(Clone, Debug, Default)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Answer {
    /// A 404 in the error envelope, as a target answers for what it does not offer.
    pub fn not_found() -> Answer {
        Answer::json(
            404,
            json!({"status": "error", "errors": [
                {"location": "url", "name": "not_found", "description": "Not Found"}]}),
        )
    }

    pub fn json(status: u16, body: Value) -> Answer {
        Answer {
            status,
            headers: vec![(
                "content-type".into(),
                "application/json; charset=UTF-8".into(),
            )],
            body: body.to_string(),
        }
    }

    /// Changes the JSON body in place; a body that is not JSON stays as it is.
    pub fn edit(&mut self, f: impl FnOnce(&mut Value)) {
        if let Ok(mut v) = serde_json::from_str::<Value>(&self.body) {
            f(&mut v);
            self.body = v.to_string();
        }
    }

    pub fn set_header(&mut self, name: &str, value: &str) {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.headers.push((name.to_owned(), value.to_owned()));
    }
}

/// A token and the credentials of the broker that received it.
#[derive(Clone, Debug)]
pub struct Owned {
    pub tender: String,
    pub token: String,
    pub auth: Option<Vec<u8>>,
}

/// What the proxy saw created.
#[derive(Debug, Default)]
pub struct Memory {
    pub tenders: HashMap<String, Owned>,
    pub bids: HashMap<String, Owned>,
    /// Drafts, as listing rows, until they are published.
    pub drafts: HashMap<String, Value>,
    /// The dateModified each tender was created with.
    pub first_modified: HashMap<String, Value>,
    /// The date each tender was created with.
    pub first_date: HashMap<String, Value>,
    /// Question authors by tender: (question id, author).
    pub authors: HashMap<String, Vec<(String, Value)>>,
    /// Tenders in the order they were created.
    pub created: Vec<String>,
    /// Tender documents as first uploaded, by id.
    pub first_documents: HashMap<String, Value>,
    /// The tender of each contract signed through the proxy.
    pub contract_tenders: HashMap<String, String>,
    /// Every token each contract under management was given, the latest last.
    pub contract_tokens: HashMap<String, Vec<Owned>>,
    /// Contracts under management answered as terminated.
    pub terminated: HashSet<String>,
    /// Contract changes answered as pending (with their contract), and as applied.
    pub pending_changes: HashMap<String, String>,
    pub applied_changes: HashSet<String>,
    /// What the broker last sent of each contract under management, field by field.
    pub contract_sent: HashMap<String, serde_json::Map<String, Value>>,
}

impl Memory {
    /// The rightful token and credentials for the object a request is sent to: a contract's
    /// credentials are its tender's, its writes its latest token's.
    pub fn rightful(&self, req: &Req) -> Option<Owned> {
        let endpoint = req.endpoint();
        if endpoint.on_bid() {
            self.bids.get(&req.record_id()).cloned()
        } else if endpoint == Endpoint::Credentials {
            let tender = self.contract_tenders.get(&req.contract_id()?)?;
            self.tenders.get(tender).cloned()
        } else if endpoint.on_contract() {
            self.contract_tokens
                .get(&req.contract_id()?)?
                .last()
                .cloned()
        } else {
            self.tenders.get(&req.tender_id()).cloned()
        }
    }

    /// Whether the request presents the rightful token and credentials.
    pub fn is_rightful(&self, req: &Req) -> bool {
        self.rightful(req).is_some_and(|o| {
            req.token().as_deref() == Some(o.token.as_str())
                && req.header("authorization") == o.auth
        })
    }

    /// Whether a listing row is one of every other tender created through the proxy: a
    /// scenario that creates more than a page of tenders always has some.
    pub fn every_other(&self, row: &Value) -> bool {
        self.created
            .iter()
            .position(|id| row["id"] == id.as_str())
            .is_some_and(|i| i % 2 == 1)
    }

    pub fn record(&mut self, req: &Req, answer: &Answer) {
        let Ok(body) = serde_json::from_str::<Value>(&answer.body) else {
            return;
        };
        let data = &body["data"];
        let id = data["id"].as_str().unwrap_or_default().to_owned();
        let owned = |tender: String| Owned {
            tender,
            token: body["access"]["token"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
            auth: req.header("authorization"),
        };
        match (req.endpoint(), answer.status) {
            (Endpoint::Create, 201) => {
                self.tenders.insert(id.clone(), owned(id.clone()));
                self.created.push(id.clone());
                self.first_modified
                    .insert(id.clone(), data["dateModified"].clone());
                self.first_date.insert(id.clone(), data["date"].clone());
                if data["status"] == "draft" {
                    self.drafts.insert(
                        id.clone(),
                        json!({"id": id, "dateModified": data["dateModified"]}),
                    );
                }
            }
            (Endpoint::PatchTender, 200) if data["status"] != "draft" => {
                self.drafts.remove(&req.tender_id());
            }
            (Endpoint::BidPost, 201) => {
                self.bids.insert(id, owned(req.tender_id()));
            }
            (Endpoint::DocPost, 201) => {
                self.first_documents.insert(id, data.clone());
            }
            (Endpoint::QPost, 201) => {
                self.authors
                    .entry(req.tender_id())
                    .or_default()
                    .push((id, data["author"].clone()));
            }
            (Endpoint::ContractPatch, 200) => {
                self.contract_tenders
                    .insert(req.record_id(), req.tender_id());
            }
            (Endpoint::Credentials, 200) => {
                let contract = req.contract_id().unwrap_or_default();
                self.contract_tokens
                    .entry(contract.clone())
                    .or_default()
                    .push(owned(contract));
            }
            (Endpoint::ManagedPatch, 200) if data["status"] == "terminated" => {
                self.terminated.insert(id);
            }
            (Endpoint::ChangePost, 201) => {
                let contract = req.contract_id().unwrap_or_default();
                self.pending_changes.insert(id, contract);
            }
            (Endpoint::ChangePatch, 200) if data["status"] == "active" => {
                self.pending_changes.remove(&id);
                self.applied_changes.insert(id);
            }
            _ => {}
        }
        if req.endpoint() == Endpoint::ManagedPatch
            && let (Some(contract), Some(sent)) = (req.contract_id(), req.data().as_object())
        {
            let held = self.contract_sent.entry(contract).or_default();
            held.extend(sent.clone());
        }
    }
}

/// Where a request goes.
pub enum Route {
    Forward,
    /// Answered by the proxy alone.
    Answer(Answer),
    /// Answered by the proxy from a read of `read` (sent with the request's credentials):
    /// `make` turns the read object into the answer's `data`, or declines and the request
    /// is forwarded after all.
    FromRead {
        read: String,
        make: fn(&Req, Value) -> Option<Value>,
    },
    /// Answered by `answer` from a read of `read` (sent with the request's credentials), or
    /// forwarded when it declines or the read fails.
    AnswerFromRead {
        read: String,
        answer: fn(&Req, Value) -> Option<Answer>,
    },
    /// Forwarded once `edit` has changed it from a read of `read` (sent with the request's
    /// credentials); forwarded unchanged when the read fails.
    EditFromRead {
        read: String,
        edit: fn(&mut Req, Value),
    },
}

impl Route {
    /// A 404 from the proxy where `hidden`, as from a target without the path; else forwarded.
    pub fn not_found_if(hidden: bool) -> Route {
        if hidden {
            Route::Answer(Answer::not_found())
        } else {
            Route::Forward
        }
    }
}

pub type RequestHook = fn(&Memory, &mut Req) -> Route;
pub type ResponseHook = fn(&Memory, &Req, &mut Answer);

pub struct Proxy {
    pub upstream: String,
    pub client: reqwest::Client,
    pub request: RequestHook,
    pub response: ResponseHook,
    pub memory: Mutex<Memory>,
    /// A target that serves one request at a time, each taking at least this long: requests
    /// that pile up wait in line.
    pub one_at_a_time: Option<(tokio::sync::Mutex<()>, Duration)>,
}

impl Proxy {
    fn memory(&self) -> std::sync::MutexGuard<'_, Memory> {
        self.memory
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    async fn send(&self, req: &Req) -> Answer {
        let method = reqwest::Method::from_bytes(req.method.as_bytes()).expect("a method");
        let mut forward = self
            .client
            .request(method, format!("{}{}", self.upstream, req.path_and_query()));
        for (name, value) in &req.headers {
            forward = forward.header(name.as_str(), value.as_slice());
        }
        let upstream = forward
            .body(req.body.clone())
            .send()
            .await
            .expect("the built-in server answers");
        Answer {
            status: upstream.status().as_u16(),
            headers: upstream
                .headers()
                .iter()
                .filter(|(n, _)| {
                    !matches!(
                        n.as_str(),
                        "content-length" | "connection" | "transfer-encoding"
                    )
                })
                .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or("").to_owned()))
                .collect(),
            body: upstream.text().await.unwrap_or_default(),
        }
    }

    /// The `data` of a read of `read` with the request's credentials, when it answers 200.
    async fn read(&self, req: &Req, read: &str) -> Option<Value> {
        let mut get = req.clone();
        get.method = "GET".into();
        get.body.clear();
        get.set_header("content-type", None);
        let (path, query) = read.split_once('?').unwrap_or((read, ""));
        get.path = path.to_owned();
        get.query = reqwest::Url::parse(&format!("http://x/?{query}"))
            .map(|u| u.query_pairs().into_owned().collect())
            .unwrap_or_default();
        let answer = self.send(&get).await;
        serde_json::from_str::<Value>(&answer.body)
            .ok()
            .filter(|_| answer.status == 200)
            .map(|v| v["data"].clone())
    }

    /// `decide`'s answer to `original` from a read of `read` made with `req`'s credentials;
    /// `req` forwarded when the read fails or `decide` declines.
    async fn answer_from_read(
        &self,
        original: &Req,
        req: &Req,
        read: &str,
        decide: impl FnOnce(&Req, Value) -> Option<Answer>,
    ) -> Answer {
        let decided = self
            .read(req, read)
            .await
            .and_then(|read| decide(original, read));
        match decided {
            Some(answer) => answer,
            None => self.send(req).await,
        }
    }

    async fn answer(&self, original: Req) -> Answer {
        let _turn = match &self.one_at_a_time {
            Some((line, each)) => {
                let turn = line.lock().await;
                tokio::time::sleep(*each).await;
                Some(turn)
            }
            None => None,
        };
        let mut req = original.clone();
        let route = (self.request)(&self.memory(), &mut req);
        let mut answer = match route {
            Route::Forward => self.send(&req).await,
            Route::Answer(answer) => answer,
            Route::FromRead { read, make } => {
                let answer = |original: &Req, read| {
                    make(original, read).map(|data| Answer::json(200, json!({ "data": data })))
                };
                self.answer_from_read(&original, &req, &read, answer).await
            }
            Route::AnswerFromRead { read, answer } => {
                self.answer_from_read(&original, &req, &read, answer).await
            }
            Route::EditFromRead { read, edit } => {
                if let Some(read) = self.read(&req, &read).await {
                    edit(&mut req, read);
                }
                self.send(&req).await
            }
        };
        self.memory().record(&original, &answer);
        (self.response)(&self.memory(), &original, &mut answer);
        answer
    }
}

#[salvo::async_trait]
impl Handler for Proxy {
    async fn handle(&self, req: &mut Request, _: &mut Depot, res: &mut Response, _: &mut FlowCtrl) {
        let original = Req {
            method: req.method().as_str().to_owned(),
            path: req.uri().path().to_owned(),
            query: req
                .uri()
                .query()
                .map(|q| {
                    reqwest::Url::parse(&format!("http://x/?{q}"))
                        .map(|u| u.query_pairs().into_owned().collect())
                        .unwrap_or_default()
                })
                .unwrap_or_default(),
            headers: req
                .headers()
                .iter()
                .filter(|(n, _)| !matches!(n.as_str(), "host" | "content-length" | "connection"))
                .map(|(n, v)| (n.to_string(), v.as_bytes().to_vec()))
                .chain(
                    req.headers()
                        .get("host")
                        .map(|h| ("x-proxy-host".to_owned(), h.as_bytes().to_vec())),
                )
                .collect(),
            body: req.payload().await.map(|b| b.to_vec()).unwrap_or_default(),
        };
        let answer = self.answer(original).await;
        res.status_code(StatusCode::from_u16(answer.status).expect("a status"));
        for (name, value) in answer.headers {
            if let (Ok(n), Ok(v)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(&value),
            ) {
                res.headers_mut().append(n, v);
            }
        }
        let _ = res.write_body(answer.body);
    }
}
