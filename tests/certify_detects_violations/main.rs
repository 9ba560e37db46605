//! `tender-certify` against deliberately non-conforming targets: a mutation suite. A small proxy
//! in front of the built-in server breaks one statement of the spec at a time, rewriting
//! requests (a refused write forwarded with the rightful token, a PATCH forwarded with part of
//! its body dropped), answering without forwarding (a success that stores nothing), or
//! rewriting answers (shapes, later reads, paging). Every mutant must make the run fail with a
//! rule named in the report; the same proxy breaking nothing must pass every `@spec` scenario;
//! hiding the clock control API must make the harness wait in real time. Contract management
//! and the live auction are upstream's, stated by no rule of the spec: their mutants are judged
//! by the `@upstream @contracting` or `@upstream @live-auction` scenarios run with `--strict`,
//! which the proxy breaking nothing passes too, and must make one of them fail.
use std::{
    collections::{HashMap, HashSet},
    sync::Mutex,
    time::{Duration, Instant},
};

use futures::StreamExt as _;
use salvo::{
    conn::tcp::TcpAcceptor,
    http::{HeaderName, HeaderValue, StatusCode},
    prelude::*,
    server::ServerHandle,
};
use serde_json::{Value, json};
use tender_certify::{RunReport, outcome::Verdict, timestamps};
use test_support::certify;

mod mutants;
mod proxy;
mod unlike_ours;

use mutants::{Mutant, contracting, live_auction, mutant, mutants};
use proxy::{Memory, Proxy, Route};

/// The built-in server, started in-process with its clock control API.
async fn server() -> tender_registry::RunningServer {
    test_support::serve(tender_registry::Settings {
        testing: true,
        ..Default::default()
    })
    .await
}

/// The built-in server with its clock frozen, as `--clock-start` starts it.
async fn frozen_server() -> tender_registry::RunningServer {
    test_support::serve(tender_registry::Settings {
        testing: true,
        clock_start: Some(time::macros::datetime!(2026-11-27 16:30 +2)),
        ..Default::default()
    })
    .await
}

/// A proxy in front of `upstream`.
struct Front {
    base_url: String,
    handle: ServerHandle,
}

async fn front(upstream: String, mutant: &Mutant) -> Front {
    // ring, the provider of the server and the certifier; the first call in a process installs it.
    test_support::install_crypto();
    let acceptor: TcpAcceptor = TcpListener::new("127.0.0.1:0")
        .try_bind()
        .await
        .expect("a free port");
    let base_url = format!("http://{}", acceptor.local_addr().expect("a bound address"));
    let proxy = Proxy {
        upstream,
        client: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("a client"),
        request: mutant.request,
        response: mutant.response,
        memory: Mutex::new(Memory::default()),
        one_at_a_time: mutant
            .one_at_a_time
            .map(|each| (tokio::sync::Mutex::new(()), each)),
    };
    let router = Router::with_path("{**rest}").goal(proxy);
    let server = Server::new(acceptor);
    let handle = server.handle();
    tokio::spawn(async move { server.serve(router).await });
    Front { base_url, handle }
}

/// The scenarios a mutant runs: the `@spec` ones near what it breaks, or for contract
/// management the `@upstream` ones. Those that keep the clock still share one server; those
/// that move it get a server of their own.
fn tags_for(mutant: &Mutant) -> String {
    if mutant.upstream {
        format!("@upstream and ({})", mutant.tags)
    } else if mutant.alone {
        format!("@spec and ({})", mutant.tags)
    } else {
        format!("@spec and ({}) and not @clock", mutant.tags)
    }
}

/// How a mutant fared.
struct Fate {
    label: String,
    killed: bool,
    rule: Option<String>,
    /// The first scenario that failed, and its failing step.
    scenario: Option<(String, String)>,
}

impl Fate {
    /// What named the violation: the rule broken, and the scenario and step that failed.
    fn named_by(&self) -> String {
        let rule = self.rule.as_deref().unwrap_or("no rule named");
        match &self.scenario {
            Some((scenario, step)) => format!("{rule}; \"{scenario}\", step: {step}"),
            None => rule.to_owned(),
        }
    }
}

/// Certifies, on `tags`, a proxy with `mutant`'s changes in front of a server of its own: the
/// report and its Markdown.
async fn certify_behind(
    mutant: &Mutant,
    tags: &str,
    configure: impl FnOnce(&mut tender_certify::Settings),
) -> (RunReport, String) {
    let upstream = server().await;
    let front = front(upstream.base_url(), mutant).await;
    let run = certify(&front.base_url, tags, configure).await;
    front.handle.stop_forceful();
    upstream.stop().await;
    run
}

/// Asserts that the run found the `extensions` not offered, and nothing failed.
fn assert_not_offered(report: &RunReport, extensions: &[&str]) {
    let summary = report.terminal_summary();
    assert_eq!(report.not_offered(), extensions, "{summary}");
    assert_eq!(report.counts().failed, 0, "{summary}");
}

/// Asserts that `target` certified on `tags` offers none of the scenarios there, which name
/// the `extensions` not offered, and nothing failed.
async fn nothing_is_offered(target: &Mutant, tags: &str, extensions: &[&str]) {
    let (report, _) = certify_behind(target, tags, |_| {}).await;
    assert_not_offered(&report, extensions);
    assert_eq!(report.counts().passed, 0, "{}", report.terminal_summary());
}

/// A target that does not offer `paths`: the proxy answers 404 to the requests `request`
/// hides and forwards the rest.
fn hiding(paths: &'static str, request: proxy::RequestHook) -> Mutant {
    mutant(0, paths, "hidden").alone().requests(request)
}

async fn run_mutant(shared: String, mutant: &Mutant, label: String) -> Fate {
    let own = if mutant.alone {
        Some(server().await)
    } else {
        None
    };
    let upstream = own.as_ref().map_or(shared, |s| s.base_url());
    let front = front(upstream, mutant).await;
    let tags = tags_for(mutant);
    let started = Instant::now();
    let (report, markdown) = certify(&front.base_url, &tags, |s| s.strict = mutant.upstream).await;
    front.handle.stop_forceful();
    if let Some(own) = own {
        own.stop().await;
    }
    let rule = markdown
        .lines()
        .find_map(|l| l.strip_prefix("- Rule broken: `"))
        .and_then(|l| l.split('`').next())
        .map(str::to_owned);
    let scenario = report
        .scenarios
        .iter()
        .find(|s| s.verdict == Verdict::Failed)
        .map(|s| {
            let step = s.failure.as_ref().map(|f| f.step.clone());
            (s.name.clone(), step.unwrap_or_default())
        });
    // Upstream's behaviour has no rule of the spec to name: the scenario that failed names it.
    let named = rule.is_some() || (mutant.upstream && scenario.is_some());
    Fate {
        label: format!("{label} [{:.1} s]", started.elapsed().as_secs_f64()),
        killed: !report.certified() && named,
        rule,
        scenario,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transparent_proxy_conforms() {
    let transparent = mutant(0, "", "nothing").alone();
    let (report, markdown) = certify_behind(&transparent, "@spec", |_| {}).await;
    assert!(report.certified(), "{}", report.terminal_summary());
    assert!(markdown.contains("**Conforms**"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_injected_violation_fails_the_run_and_is_named_in_the_report() {
    let started = Instant::now();
    let shared = server().await;
    let all = mutants();
    assert!(all.len() >= 40, "the suite holds {} mutants", all.len());
    let base = shared.base_url();
    let fates: Vec<Fate> = futures::stream::iter(all.iter().enumerate())
        .map(|(i, m)| {
            let label = format!("#{:02} class {} {}: {}", i + 1, m.class, m.endpoint, m.what);
            run_mutant(base.clone(), m, label)
        })
        .buffer_unordered(8)
        .collect()
        .await;
    shared.stop().await;
    let killed = fates.iter().filter(|f| f.killed).count();
    let mut survivors: Vec<&Fate> = fates.iter().filter(|f| !f.killed).collect();
    survivors.sort_by(|a, b| a.label.cmp(&b.label));
    let mut sorted: Vec<&Fate> = fates.iter().collect();
    sorted.sort_by(|a, b| a.label.cmp(&b.label));
    for f in &sorted {
        println!(
            "{} {} ({})",
            if f.killed { "killed  " } else { "SURVIVED" },
            f.label,
            f.named_by()
        );
    }
    println!(
        "mutation suite: {killed}/{} killed in {:.1} s",
        fates.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        survivors.is_empty(),
        "survivors:\n{}",
        survivors
            .iter()
            .map(|f| f.label.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Asserts that `transparent`, a proxy that changes nothing, is certified with `--strict` on
/// the scenarios of upstream's behaviour it is judged by, none skipped and seven at least.
async fn passes_strictly(transparent: &Mutant) {
    let (report, _) =
        certify_behind(transparent, &tags_for(transparent), |s| s.strict = true).await;
    let summary = report.terminal_summary();
    assert!(report.certified(), "{summary}");
    assert_eq!(report.counts().skipped, 0, "{summary}");
    assert!(report.counts().passed >= 7, "{summary}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transparent_proxy_passes_contract_management_strictly() {
    let transparent = contracting(0, "", "nothing").tags("@contracting");
    passes_strictly(&transparent).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transparent_proxy_passes_the_live_auction_strictly() {
    let transparent = live_auction(0, "", "nothing").tags("@auction and @live-auction");
    passes_strictly(&transparent).await;
}

/// On a clock that stands still a refreshed timestamp may equal the one it replaced, and the
/// proxy breaking nothing conforms there; one moved back is still a violation.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn time_running_back_is_caught_on_a_frozen_clock_too() {
    let frozen = frozen_server().await;
    let transparent = mutant(0, "", "nothing");
    let front = front(frozen.base_url(), &transparent).await;
    let (report, _) = certify(
        &front.base_url,
        "@spec and (@state-publish or @res-date or @ep-doc-put) and not @clock",
        |_| {},
    )
    .await;
    front.handle.stop_forceful();
    assert!(report.certified(), "{}", report.terminal_summary());
    assert!(
        report.target_clock.still_stamps >= 2,
        "{:?}",
        report.target_clock
    );

    let back: Vec<Mutant> = mutants().into_iter().filter(|m| m.class == 7).collect();
    assert_eq!(back.len(), 2);
    for m in &back {
        let fate = run_mutant(frozen.base_url(), m, m.what.to_owned()).await;
        assert!(
            fate.killed,
            "survived on a frozen clock: {} ({:?})",
            fate.label, fate.rule
        );
    }
    frozen.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_clock_api_it_waits_in_real_time_and_skips_what_exceeds_the_budget() {
    let no_clock_api = hiding("/testing/clock", |_, r| {
        Route::not_found_if(r.path.starts_with("/testing/"))
    });
    let (report, markdown) = certify_behind(
        &no_clock_api,
        "(@scheduler and @spec) or @stand-still",
        |s| {
            s.period = Duration::from_secs(2);
            s.wait_budget = Duration::from_secs(6);
        },
    )
    .await;
    let scheduler: Vec<_> = report
        .scenarios
        .iter()
        .filter(|s| s.file == "scheduler.feature")
        .collect();
    assert!(!scheduler.is_empty());
    assert!(
        scheduler.iter().all(|s| s.verdict == Verdict::Passed),
        "{}",
        report.terminal_summary()
    );
    let stand_still = report
        .scenarios
        .iter()
        .find(|s| s.tags.iter().any(|t| t == "stand-still"))
        .expect("the stand-still scenario ran");
    assert_eq!(
        stand_still.verdict,
        Verdict::Skipped,
        "{}",
        report.terminal_summary()
    );
    assert!(
        stand_still
            .skip_reason
            .as_deref()
            .is_some_and(|r| r.contains("budget"))
    );
    assert!(markdown.contains("real time"));
    assert!(
        !report.certified(),
        "a skipped @spec scenario is not certified"
    );
}

/// Whether `path` lies under an extension the proxy pretends not to offer: cancellations and
/// award documents.
fn hidden_extension(path: &str) -> bool {
    let award_documents = path
        .split("/awards/")
        .nth(1)
        .is_some_and(|rest| rest.contains("/documents"));
    path.contains("/cancellations") || award_documents
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_extension_a_target_does_not_offer_is_reported_as_not_offered() {
    let without_extensions = hiding("/cancellations, /awards/{id}/documents", |_, r| {
        Route::not_found_if(hidden_extension(&r.path))
    });
    let (report, markdown) = certify_behind(
        &without_extensions,
        "@cancellations or @qualification",
        |_| {},
    )
    .await;
    assert_not_offered(&report, &["award documents", "cancellations"]);
    let skipped = report
        .scenarios
        .iter()
        .filter(|s| s.verdict == Verdict::Skipped)
        .count();
    assert!(
        skipped > 0 && report.counts().passed > 0,
        "{}",
        report.terminal_summary()
    );
    assert!(markdown.contains("## Extensions not offered"), "{markdown}");
    assert!(
        !markdown.contains("Cancelling while tendering deletes the bids"),
        "scenarios of an extension not offered are not listed one by one: {markdown}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claims_a_target_does_not_offer_are_reported_as_not_offered() {
    let without_claims = hiding("/complaints", |_, r| {
        Route::not_found_if(r.path.contains("/complaints"))
    });
    nothing_is_offered(&without_claims, "@claims", &["claims"]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn contract_management_a_target_does_not_offer_is_reported_as_not_offered() {
    let without_contracts = hiding("/contracts", |_, r| {
        Route::not_found_if(r.path.starts_with("/api/2.3/contracts"))
    });
    nothing_is_offered(&without_contracts, "@contracting", &["contracting"]).await;
}

/// A target with no document service and no multipart uploads: its root answers 404 to the
/// service's paths, and a document POST that is not JSON is unknown to it.
fn without_document_service(path: &str, headers: &[(String, Vec<u8>)]) -> bool {
    let multipart = headers
        .iter()
        .any(|(n, v)| n.eq_ignore_ascii_case("content-type") && v.starts_with(b"multipart/"));
    ["/upload", "/register", "/get/"]
        .iter()
        .any(|p| path.starts_with(p))
        || (multipart && path.contains("/documents"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_without_a_document_service_is_reported_as_not_offering_it() {
    let without_ds = hiding("/upload, /register, /get, multipart documents", |_, r| {
        Route::not_found_if(without_document_service(&r.path, &r.headers))
    });
    nothing_is_offered(
        &without_ds,
        "@documents",
        &["document service", "multipart uploads"],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_html_report_names_the_broken_rule_and_shows_the_exchange_escaped() {
    let markup_in_dates = mutant(5, "every response", "dateModified holding markup")
        .alone()
        .answers(|_, _, a| {
            a.edit(|v| {
                if let Some(data) = v.get_mut("data").and_then(Value::as_object_mut)
                    && data.contains_key("dateModified")
                {
                    data.insert("dateModified".into(), json!("<b>soon</b>"));
                }
            })
        });
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("certificate.html");
    let (report, _) = certify_behind(&markup_in_dates, "@conventions and @spec", |s| {
        s.html = Some(path.clone())
    })
    .await;
    assert!(!report.certified());
    let html = std::fs::read_to_string(&path).expect("the HTML report was written");
    assert!(html.starts_with("<!DOCTYPE html>"), "{html}");
    assert!(html.contains("<strong>Does not conform</strong>"), "{html}");
    assert!(
        html.contains("Rule broken: <span class=\"broken\"><code>conv-6</code></span>"),
        "{html}"
    );
    assert!(html.contains("<td class=\"broken\">broken</td>"), "{html}");
    assert!(
        html.contains("<div class=\"label\">Request</div>\n<pre>POST "),
        "{html}"
    );
    assert!(
        html.contains("<div class=\"label\">Response</div>\n<pre>201 Created"),
        "{html}"
    );
    assert!(html.contains("&lt;b&gt;soon&lt;/b&gt;"), "{html}");
    assert!(
        !html.contains("<b>soon</b>"),
        "markup from a response is escaped"
    );
    for external in ["<link", "<script", "src=", "href=", "@import"] {
        assert!(!html.contains(external), "no external asset: {external}");
    }
}
