//! The store's tests: bids in rows of their own, the listing after each write, a write its
//! request gave up on, an old file migrated, and a store read back after a restart as it was.

use super::*;
use crate::domain::Refusal;
use crate::domain::bid::{Bid, BidStatus};
use crate::domain::ids;
use crate::domain::stored;
use crate::domain::tender::tests::published;
use std::path::Path;

/// A durable store on a new directory (held to `max_pages` pages if given), holding
/// [`published`]'s tender: the directory, the store, the tender's id and its moment.
async fn holding_a_tender(
    max_pages: Option<u32>,
) -> (tempfile::TempDir, Arc<Store>, String, Timestamp) {
    let dir = tempfile::tempdir().unwrap();
    let (tender, _, now) = published();
    let zone = Zone::named("Europe/Kyiv").unwrap();
    let opened = Store::open_limited(zone, dir.path(), max_pages);
    let store = at(opened.unwrap(), now);
    let id = tender.id.clone();
    let hold = store.hold_live(&tender.owner, None).unwrap();
    store.insert(tender, now, hold, |_| ()).await.unwrap();
    (dir, store, id.to_string(), now)
}

/// Commits `change` to the tender as a public change (one that stamps `dateModified`),
/// as a handler's write does; the write must succeed.
async fn changed(store: &Arc<Store>, id: &str, now: Timestamp, change: impl FnOnce(&mut Tender)) {
    let op = |t: &mut Tender| {
        change(t);
        Ok(Change::Public)
    };
    assert_eq!(
        store.now_for("broker"),
        now,
        "the store's clock stands at {now}"
    );
    store.update(id, |t, _| op(t), |_| ()).await.unwrap();
}

/// `store`, its clock frozen at `now` whatever today is.
fn at(store: Store, now: Timestamp) -> Arc<Store> {
    let zone = Zone::named("Europe/Kyiv").unwrap();
    let clock = Arc::new(Clock::frozen_at(now.instant()));
    store.keep_time(Arc::new(Clocks::new(clock, zone)));
    Arc::new(store)
}

/// The store kept in `dir`, opened again, its clock at [`published`]'s moment.
fn reopen(dir: &Path) -> Arc<Store> {
    let zone = Zone::named("Europe/Kyiv").unwrap();
    at(Store::open(zone, dir).unwrap(), published().2)
}

fn bid(id: &str, now: Timestamp) -> Arc<Bid> {
    Arc::new(Bid {
        id: id.into(),
        status: BidStatus::Draft,
        value: None,
        lot_values: Vec::new(),
        tenderers: Vec::new(),
        parameters: Vec::new(),
        documents: Vec::new(),
        date: now,
        participation_url: None,
        owner: "broker1".into(),
        token: ids::new_token().1,
    })
}

/// The bid ids of a tender in the file, in their rows' order.
fn bid_rows(dir: &Path, tender: &str) -> Vec<String> {
    let conn = rusqlite::Connection::open(dir.join(database::FILE_NAME)).unwrap();
    let mut rows = conn
        .prepare("SELECT id FROM bids WHERE tender_id = ?1 ORDER BY rowid")
        .unwrap();
    rows.query_map([tender], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

#[tokio::test]
async fn bids_are_kept_in_rows_of_their_own_in_order_through_changes_and_removals() {
    let (dir, store, id, now) = holding_a_tender(None).await;
    let add = |ids: &'static [&'static str]| {
        move |t: &mut Tender| {
            for b in ids {
                t.bids.push_back(bid(b, now));
            }
        }
    };
    changed(&store, &id, now, add(&["b1", "b2", "b3"])).await;
    assert_eq!(bid_rows(dir.path(), &id), ["b1", "b2", "b3"]);
    // b2 goes, b3 changes, b4 comes: b3 keeps its place.
    changed(&store, &id, now, |t| {
        t.bids.retain(|b| b.id != "b2");
        let b3 = t.bids.iter().position(|b| b.id == "b3").unwrap();
        Arc::make_mut(&mut t.bids[b3]).status = BidStatus::Active;
        t.bids.push_back(bid("b4", now));
    })
    .await;
    assert_eq!(bid_rows(dir.path(), &id), ["b1", "b3", "b4"]);
    // Every bid gone, then one more.
    changed(&store, &id, now, |t| {
        t.bids.clear();
    })
    .await;
    assert!(bid_rows(dir.path(), &id).is_empty());
    changed(&store, &id, now, add(&["b1", "b5", "b6"])).await;
    changed(&store, &id, now, |t| {
        t.bids.remove(1);
    })
    .await;
    let written = stored_form(&store, &id);
    assert!(written.contains(r#""id":"b6""#), "{written}");
    drop(store);
    assert_eq!(bid_rows(dir.path(), &id), ["b1", "b6"]);
    let store = reopen(dir.path());
    assert_eq!(stored_form(&store, &id), written);
    // Rows known again after the restart: a bid removed goes, a new one comes last.
    changed(&store, &id, now, |t| {
        t.bids.remove(0);
        t.bids.push_back(bid("b7", now));
    })
    .await;
    assert_eq!(bid_rows(dir.path(), &id), ["b6", "b7"]);
    let written = stored_form(&store, &id);
    drop(store);
    let store = reopen(dir.path());
    assert_eq!(stored_form(&store, &id), written);
}

/// The listing after each kind of write: a row moves with its `dateModified`, and its
/// listed fields follow the tender whether they were rendered again or kept.
#[tokio::test]
async fn the_listing_follows_writes_that_keep_or_change_the_listed_fields() {
    let (_dir, store, id, _) = holding_a_tender(None).await;
    let title = ListedFields::position(&TENDER_FIELDS, "title").unwrap();
    let row = |store: &Store| {
        let page = store.page(&PageRequest {
            offset: None,
            limit: 10,
            descending: false,
            modes: ModeFilter::All,
            listed: vec![title],
        });
        assert_eq!(page.rows.len(), 1);
        let shown = page
            .listed(0, 0)
            .map(|t| String::from_utf8_lossy(t).into_owned());
        (page.rows[0].date_modified().to_string(), shown)
    };
    let shown = |t: &Tender| {
        (
            t.date_modified.to_string(),
            Some(format!("\"{}\"", t.terms.title)),
        )
    };
    let write = |change: fn(&mut Tender), kind: Change| {
        let store = store.clone();
        let id = id.clone();
        async move {
            store
                .update(
                    &id,
                    |t, _| {
                        change(t);
                        Ok(kind)
                    },
                    shown,
                )
                .await
                .unwrap()
        }
    };
    assert_eq!(row(&store), store.read(&id, shown).unwrap());
    let described = write(
        |t| Arc::make_mut(&mut t.terms).description = Some("d".into()),
        Change::Public,
    )
    .await;
    assert_eq!(row(&store), described);
    let retitled = write(
        |t| Arc::make_mut(&mut t.terms).title = "New".into(),
        Change::Public,
    )
    .await;
    assert_eq!(retitled.1.as_deref(), Some("\"New\""));
    assert_ne!(retitled.0, described.0);
    assert_eq!(row(&store), retitled);
    let bid_added = write(|t| t.bids.push_back(bid("b1", t.date)), Change::Silent).await;
    assert_eq!(bid_added, retitled);
    assert_eq!(row(&store), retitled);
}

#[tokio::test]
async fn a_write_that_changes_only_bids_leaves_the_tender_s_row_alone() {
    let (dir, store, id, now) = holding_a_tender(None).await;
    let file = rusqlite::Connection::open(dir.path().join(database::FILE_NAME)).unwrap();
    let record = || -> String {
        file.query_row("SELECT record FROM tenders", [], |r| r.get(0))
            .unwrap()
    };
    file.execute("UPDATE tenders SET record = 'untouched'", [])
        .unwrap();
    let add_bid = |t: &mut Tender| {
        t.bids.push_back(bid("b1", now));
        Ok(Change::Silent)
    };
    store.update(&id, |t, _| add_bid(t), |_| ()).await.unwrap();
    assert_eq!(record(), "untouched");
    assert_eq!(bid_rows(dir.path(), &id), ["b1"]);
    changed(&store, &id, now, |t| {
        Arc::make_mut(&mut t.terms).description = Some("changed".into());
    })
    .await;
    assert!(
        record().contains(r#""description":"changed""#),
        "{}",
        record()
    );
    assert!(!record().contains(r#""bids""#), "{}", record());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_write_its_request_gave_up_on_still_ends_in_memory_as_in_the_file() {
    let (dir, store, id, now) = holding_a_tender(None).await;
    let write = store.update(
        &id,
        |t, _| {
            t.bids.push_back(bid("b1", now));
            Arc::make_mut(&mut t.terms).description = Some("given up".into());
            Ok(Change::Public)
        },
        |_| (),
    );
    // The request goes away while its write is being committed.
    let _ = tokio::time::timeout(std::time::Duration::from_micros(1), write).await;
    let mut held = 0;
    for _ in 0..200 {
        held = store.read(&id, |t| t.bids.len()).unwrap();
        if held == 1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(held, 1, "the write ended in memory");
    changed(&store, &id, now, |t| {
        Arc::make_mut(&mut t.terms).description = Some("after".into());
    })
    .await;
    let written = stored_form(&store, &id);
    assert!(written.contains(r#""id":"b1""#), "{written}");
    drop(store);
    assert_eq!(bid_rows(dir.path(), &id), ["b1"]);
    let store = reopen(dir.path());
    assert_eq!(stored_form(&store, &id), written);
}

#[tokio::test]
async fn a_file_of_schema_version_1_is_migrated_with_its_bids() {
    let dir = tempfile::tempdir().unwrap();
    let (mut tender, _, now) = published();
    for b in ["b1", "b2", "b3"] {
        tender.bids.push_back(bid(b, now));
    }
    tender.date_modified = now;
    let v1_record = String::from_utf8(stored::to_json(&tender).unwrap()).unwrap();
    assert!(v1_record.contains(r#""bids":[{"#), "{v1_record}");
    let conn = rusqlite::Connection::open(dir.path().join(database::FILE_NAME)).unwrap();
    conn.execute_batch(
        "CREATE TABLE tenders (id TEXT PRIMARY KEY, record TEXT NOT NULL);
         CREATE TABLE state (name TEXT PRIMARY KEY, value TEXT NOT NULL);
         PRAGMA user_version = 1;",
    )
    .unwrap();
    conn.execute(
        "INSERT INTO tenders VALUES (?1, ?2)",
        [tender.id.as_str(), v1_record.as_str()],
    )
    .unwrap();
    drop(conn);
    let store = reopen(dir.path());
    assert_eq!(stored_form(&store, &tender.id), v1_record);
    drop(store);
    assert_eq!(bid_rows(dir.path(), &tender.id), ["b1", "b2", "b3"]);
    let conn = rusqlite::Connection::open(dir.path().join(database::FILE_NAME)).unwrap();
    let (version, record): (i64, String) = conn
        .query_row(
            "SELECT (SELECT user_version FROM pragma_user_version), record FROM tenders",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(version, database::SCHEMA_VERSION);
    assert!(!record.contains("\"bids\""), "{record}");
}

/// A file of the schema before test clocks gains their table: its tenders live on their
/// owners' clocks, and a test clock kept afterwards is read back at the next start.
#[tokio::test]
async fn a_file_of_schema_version_3_is_migrated_to_keep_test_clocks() {
    let dir = tempfile::tempdir().unwrap();
    let (tender, _, _) = published();
    let record = String::from_utf8(stored::to_json(&tender).unwrap()).unwrap();
    let conn = rusqlite::Connection::open(dir.path().join(database::FILE_NAME)).unwrap();
    conn.execute_batch(
        "CREATE TABLE state (name TEXT PRIMARY KEY, value TEXT NOT NULL);
         CREATE TABLE tenders (row INTEGER PRIMARY KEY, id TEXT NOT NULL, record TEXT NOT NULL);
         CREATE TABLE bids (
             row INTEGER PRIMARY KEY, tender_id TEXT NOT NULL, id TEXT NOT NULL,
             record TEXT NOT NULL);
         CREATE TABLE contracts (row INTEGER PRIMARY KEY, id TEXT NOT NULL, record TEXT NOT NULL);
         PRAGMA user_version = 3;",
    )
    .unwrap();
    conn.execute(
        "INSERT INTO tenders (row, id, record) VALUES (1, ?1, ?2)",
        [tender.id.as_str(), record.as_str()],
    )
    .unwrap();
    drop(conn);
    let store = reopen(dir.path());
    assert_eq!(
        store.read(&tender.id, |t| t.clock_key().to_string()),
        Some(tender.owner.to_string())
    );
    assert!(store.kept_clocks().is_empty());
    store
        .keep_clock("c0", br#"{"kept":1}"#.to_vec())
        .expect("kept");
    store
        .keep_clock("c0", br#"{"kept":2}"#.to_vec())
        .expect("kept again");
    drop(store);
    let store = reopen(dir.path());
    assert_eq!(
        store.kept_clocks(),
        [("c0".to_string(), r#"{"kept":2}"#.to_string())]
    );
}

fn stored_form(store: &Store, id: &str) -> String {
    store
        .read(id, |t| stored::to_json(t).expect("serialises"))
        .map(|json| String::from_utf8(json).expect("JSON is UTF-8"))
        .expect("held")
}

/// The indexes hold ids at the length the server makes them: a record with another id
/// is refused at start-up, not held unlisted and unscheduled.
#[tokio::test]
async fn a_record_whose_id_the_server_cannot_have_made_is_refused() {
    let (dir, store, id, _) = holding_a_tender(None).await;
    drop(store);
    let conn = rusqlite::Connection::open(dir.path().join(database::FILE_NAME)).unwrap();
    conn.execute(
        "UPDATE tenders SET record = json_set(record, '$.id', 'T-1')",
        [],
    )
    .unwrap();
    drop(conn);
    let zone = Zone::named("Europe/Kyiv").unwrap();
    let refused = Store::open(zone, dir.path()).err();
    let message = refused.expect("refused");
    assert!(
        message.contains(&format!("the tender {id} cannot be read: its id is not 32")),
        "{message}"
    );
}

#[tokio::test]
async fn a_reopened_store_holds_every_tender_as_it_was() {
    let (dir, store, id, _) = holding_a_tender(None).await;
    let written = stored_form(&store, &id);
    drop(store);
    let store = reopen(dir.path());
    assert_eq!(stored_form(&store, &id), written);
    assert!(written.contains("ownerToken"), "{written}");
    let public = store
        .read(&id, |t| serde_json::to_string(t).unwrap())
        .unwrap();
    assert!(!public.contains("ownerToken"), "{public}");
}

#[tokio::test]
async fn a_write_the_file_cannot_take_is_refused_and_changes_nothing() {
    let (dir, store, id, now) = holding_a_tender(Some(32)).await;
    let before = stored_form(&store, &id);
    let huge = "x".repeat(1 << 20);
    let refused = store
        .update(
            &id,
            |t, _| {
                Arc::make_mut(&mut t.terms).description = Some(huge.as_str().into());
                Ok(Change::Public)
            },
            |_| (),
        )
        .await;
    assert!(
        matches!(&refused, Err(Refusal::Unavailable(reason)) if reason.contains("full")),
        "{refused:?}"
    );
    assert_eq!(stored_form(&store, &id), before);
    // The refused transaction is gone: a write that fits is committed.
    changed(&store, &id, now, |t| {
        Arc::make_mut(&mut t.terms).description = Some("fits".into());
    })
    .await;
    let after = stored_form(&store, &id);
    assert!(after.contains(r#""description":"fits""#), "{after}");
    drop(store);
    let store = reopen(dir.path());
    assert_eq!(stored_form(&store, &id), after);
}

#[tokio::test]
async fn each_owner_s_live_tenders_are_counted_through_changes_failures_and_a_restart() {
    let (dir, store, id, now) = holding_a_tender(Some(32)).await;
    assert_eq!(store.live_tenders_of("broker"), 1);
    assert_eq!(
        store.hold_live("broker", Some(1)).err(),
        Some(1),
        "at the bound"
    );
    let other = store.hold_live("broker1", Some(1)).unwrap();
    assert_eq!(store.live_tenders_of("broker1"), 1, "each owner apart");
    drop(other);
    assert_eq!(
        store.live_tenders_of("broker1"),
        0,
        "a hold let go gives its place back"
    );

    // A creation the file cannot take gives its place back.
    let (mut huge, _, _) = published();
    Arc::make_mut(&mut huge.terms).description = Some("x".repeat(1 << 20).as_str().into());
    let hold = store.hold_live("broker", None).unwrap();
    assert_eq!(store.live_tenders_of("broker"), 2);
    let refused = store.insert(huge, now, hold, |_| ()).await;
    assert!(
        matches!(refused, Err(Refusal::Unavailable(_))),
        "{refused:?}"
    );
    assert_eq!(store.live_tenders_of("broker"), 1);

    // Another tender, live; the first one finished no longer counts, nor after a restart.
    let (second, _, _) = published();
    let hold = store.hold_live("broker", Some(2)).unwrap();
    store.insert(second, now, hold, |_| ()).await.unwrap();
    assert_eq!(store.live_tenders_of("broker"), 2);
    changed(&store, &id, now, |t| {
        t.status = crate::domain::tender::TenderStatus::Cancelled;
    })
    .await;
    assert_eq!(store.live_tenders_of("broker"), 1);
    drop(store);
    let store = reopen(dir.path());
    assert_eq!(store.live_tenders_of("broker"), 1);
    assert!(store.hold_live("broker", Some(2)).is_ok());
}
