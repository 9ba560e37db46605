//! Targets not built beside the certifier: one that takes documents only from its own document
//! service, one whose brokers file gives its keys other names, one served by a second server's
//! document service, and one that breaks several rules at once, each of which one run names.
use super::*;
use mutants::{
    accept_any_on, drop_zero_fractions, list_descriptions, refusal_carrying_bid_documents,
};
use proxy::Endpoint;
use tender_certify::run::report::findings::Standing;
use test_support::assert_ran;

/// Every scenario, `@spec` and `@upstream`.
const EVERYTHING: &str = "@spec or @upstream";

/// Asserts that `report` certifies its target, every scenario passed, none skipped.
fn assert_certified_in_full(report: &RunReport) {
    let summary = report.terminal_summary();
    assert!(report.certified(), "{summary}");
    assert_eq!(report.counts().failed, 0, "{summary}");
    assert_eq!(report.counts().skipped, 0, "{summary}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_taking_documents_only_from_its_own_service_is_certified_in_full() {
    let server = test_support::serve(tender_registry::Settings {
        testing: true,
        refuse_foreign_documents: true,
        ..Default::default()
    })
    .await;
    let (report, markdown) = certify(&server.base_url(), EVERYTHING, |_| {}).await;
    server.stop().await;
    assert_certified_in_full(&report);
    assert!(
        report
            .documents
            .contains("uploaded to the target's own document service at")
            && report.documents.contains("/upload` (as `broker`)"),
        "{}",
        report.documents
    );
    assert!(markdown.contains("| Documents | "), "{markdown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn documents_come_from_the_document_service_it_is_told_of() {
    let service = test_support::serve(tender_registry::Settings::default()).await;
    let target = test_support::serve(tender_registry::Settings {
        testing: true,
        ..Default::default()
    })
    .await;
    let service_url = service.base_url();
    let address = service_url.replacen("http://", "http://broker2:@", 1);
    let (report, _) = certify(&target.base_url(), "@spec", |s| {
        s.document_service = Some(address)
    })
    .await;
    target.stop().await;
    service.stop().await;
    assert_certified_in_full(&report);
    assert!(
        report.documents.contains(&format!(
            "uploaded to the document service at `{service_url}/upload` (as `broker2`)"
        )),
        "{}",
        report.documents
    );
}

/// Upstream's auth file: the Basic user is a key, the file names the broker beside it.
const BROKERS: &str = "[brokers]\nacme = 7d1f0c1e9a\nbeta = 5be2a1f0\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_whose_brokers_file_names_its_keys_otherwise_is_certified() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let brokers = dir.path().join("brokers.ini");
    std::fs::write(&brokers, BROKERS).expect("the brokers file is written");
    let server = test_support::serve(tender_registry::Settings {
        testing: true,
        brokers: Some(brokers),
        ..Default::default()
    })
    .await;
    let keys = |s: &mut tender_certify::Settings| {
        s.owner = "7d1f0c1e9a".parse().expect("a broker");
        s.other = "5be2a1f0".parse().expect("a broker");
    };
    let (report, _) = certify(&server.base_url(), "@spec", keys).await;
    assert_certified_in_full(&report);
    assert_ran(
        &report,
        &[(
            "authentication.feature",
            "Two brokers' tenders carry two owners",
        )],
    );

    let named = |s: &mut tender_certify::Settings| {
        s.owner = "7d1f0c1e9a=acme".parse().expect("a broker");
        s.other = "5be2a1f0=beta".parse().expect("a broker");
    };
    let (report, markdown) = certify(&server.base_url(), "@authentication and @spec", named).await;
    assert_certified_in_full(&report);
    assert!(
        markdown.contains(
            "| Brokers | owner `7d1f0c1e9a (owner acme)`, other party `5be2a1f0 (owner beta)` |"
        ),
        "{markdown}"
    );

    let misnamed = |s: &mut tender_certify::Settings| {
        s.owner = "7d1f0c1e9a=7d1f0c1e9a".parse().expect("a broker");
        s.other = "5be2a1f0".parse().expect("a broker");
    };
    let (report, _) = certify(&server.base_url(), "@auth-1 and @spec", misnamed).await;
    server.stop().await;
    assert_eq!(
        report.broken_rules(),
        ["auth-1"],
        "{}",
        report.terminal_summary()
    );
}

/// Timestamps as Python writes them, upstream's list-valued error descriptions, and a refusal
/// to list a bid's documents that carries them all the same, in one target.
fn several_faults() -> Mutant {
    mutant(
        0,
        "every response",
        "timestamps without zero microseconds, list-valued error descriptions, a leaked bid document",
    )
    .alone()
    .requests(|m, r| accept_any_on(Endpoint::BidDocList, m, r))
    .answers(|m, r, a| {
        refusal_carrying_bid_documents(m, r, a);
        list_descriptions(a);
        a.body = drop_zero_fractions(&a.body);
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_run_names_every_rule_a_target_breaks_and_no_other() {
    // A clock standing at a whole second: every timestamp the target writes has zero
    // microseconds, which the faulty target then drops.
    let upstream = frozen_server().await;
    let faults = several_faults();
    let front = front(upstream.base_url(), &faults).await;
    let (report, markdown) = certify(&front.base_url, "@spec", |_| {}).await;
    front.handle.stop_forceful();
    upstream.stop().await;
    let summary = report.terminal_summary();
    assert!(!report.certified(), "{summary}");
    assert_eq!(
        report.broken_rules(),
        ["conv-6", "auth-2", "err-envelope"],
        "{summary}"
    );
    for finding in report.findings() {
        if finding.standing != Standing::Broken {
            continue;
        }
        let spec = finding.rule.spec;
        assert!(
            markdown.contains(&format!("> The spec, {spec}")),
            "{} names its spec line: {markdown}",
            finding.rule.tag
        );
        for tally in &finding.tallies {
            assert!(tally.exchanges >= 1 && !tally.scenarios.is_empty());
            assert!(tally.example.exchange.response.is_some(), "{tally:?}");
        }
    }
    let timestamps = report
        .findings()
        .into_iter()
        .find(|f| f.rule.tag == "conv-6")
        .expect("the timestamp rule");
    assert!(
        timestamps.exchanges() > 100,
        "one run counts every exchange that broke it, not the first: {}",
        timestamps.exchanges()
    );
    assert!(
        report.scenarios.len() > 50,
        "every @spec scenario ran to its end: {summary}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_that_slows_as_requests_pile_up_is_never_overloaded() {
    // One request at a time, 50 ms each: with 64 exchanges in flight an answer would take over
    // three seconds, past the timeout this run is given.
    let serial = mutant(0, "every request", "one at a time, 50 ms each")
        .alone()
        .one_at_a_time(Duration::from_millis(50));
    let (report, markdown) = certify_behind(
        &serial,
        "@spec and (@questions or @conventions) and not @clock",
        |s| s.timeout = Duration::from_secs(3),
    )
    .await;
    let summary = report.terminal_summary();
    assert!(report.certified(), "{summary}");
    assert_eq!(report.pace.timeouts, 0, "{summary}");
    assert!(
        report.pace.settled <= 8 && report.pace.peak < 64,
        "the pace settled where answers stay quick: {summary}"
    );
    assert!(markdown.contains("| Pace | settled on "), "{markdown}");
    assert!(
        markdown.contains("## How long the target took")
            && markdown.contains("| `POST /api/2.3/tenders` | "),
        "{markdown}"
    );
}
