//! The durable store's file: `DIR/registry.sqlite3`, SQLite in WAL mode. A tender's bids
//! are rows of their own, so that a write to one bid does not rewrite its neighbours. Rows
//! are numbered by the store, which knows each record's row: no index of ids to keep up.
//!
//! One writer thread owns the connection. A write waits until the transaction holding it is
//! committed; the writes that queue up meanwhile are committed together (group commit), so
//! one sync of the log serves every writer waiting at that moment.

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, OpenFlags, ToSql, params};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread;

pub const FILE_NAME: &str = "registry.sqlite3";

/// The schema this server writes. Each step of [`MIGRATIONS`] takes a file one version up.
pub const SCHEMA_VERSION: i64 = 5;
const MIGRATIONS: [&str; SCHEMA_VERSION as usize] = [
    // 0 → 1: tenders in their stored JSON form; the server's own state by name.
    "CREATE TABLE tenders (id TEXT PRIMARY KEY, record TEXT NOT NULL);
     CREATE TABLE state (name TEXT PRIMARY KEY, value TEXT NOT NULL);",
    // 1 → 2: tenders are found by the row number the server keeps for each, not by an
    // index of their ids (a new record then extends the table's last page instead of
    // dirtying a random page of an index); bids move out of their tenders' records into
    // rows of their own, numbered in the order the tenders held them.
    "CREATE TABLE tenders_by_row (row INTEGER PRIMARY KEY, id TEXT NOT NULL, record TEXT NOT NULL);
     INSERT INTO tenders_by_row (row, id, record)
         SELECT rowid, id, json_remove(record, '$.bids') FROM tenders ORDER BY rowid;
     CREATE TABLE bids (
         row INTEGER PRIMARY KEY, tender_id TEXT NOT NULL, id TEXT NOT NULL,
         record TEXT NOT NULL);
     INSERT INTO bids (tender_id, id, record)
         SELECT t.id, json_extract(b.value, '$.id'), b.value
         FROM tenders AS t, json_each(t.record, '$.bids') AS b
         ORDER BY t.rowid, b.key;
     DROP TABLE tenders;
     ALTER TABLE tenders_by_row RENAME TO tenders;",
    // 2 → 3: contracts under management, by row as tenders are.
    "CREATE TABLE contracts (row INTEGER PRIMARY KEY, id TEXT NOT NULL, record TEXT NOT NULL);",
    // 3 → 4: test clocks, one row each by id (an earlier file has none: its records live on
    // their owners' clocks).
    "CREATE TABLE clocks (id TEXT PRIMARY KEY, record TEXT NOT NULL);",
    // 4 → 5: the request log, each broker's last exchanges (masked) in the log's order.
    "CREATE TABLE exchanges (seq INTEGER PRIMARY KEY, broker TEXT NOT NULL, record TEXT NOT NULL);
     CREATE INDEX exchanges_by_broker ON exchanges (broker, seq);",
];

/// The most writes committed in one transaction.
const MAX_BATCH: usize = 512;

/// Writes between two checkpoints (copies of the log back into the file). A write logs a
/// page or more, so the log grows to about 40 MiB. SQLite's default, a checkpoint every
/// thousand pages, copied back nearly every page a write logged and synced the file every
/// thousand writes; over ten times as many writes, a page written again meanwhile is copied
/// once and the file is synced a tenth as often.
const CHECKPOINT_WRITES: usize = 10_000;

/// One row to write.
#[derive(Debug)]
pub enum Write {
    /// A tender's record (JSON text), without its bids, in its row.
    Tender {
        row: i64,
        id: String,
        record: Vec<u8>,
    },
    /// A contract under management, in its row.
    Contract {
        row: i64,
        id: String,
        record: Vec<u8>,
    },
    /// A bid, new or changed, in its row (a new bid's row follows every row in use).
    Bid {
        row: i64,
        tender: String,
        id: String,
        record: Vec<u8>,
    },
    /// The row of a bid its tender no longer holds.
    BidGone { row: i64 },
    /// A test clock (JSON text), new or changed, by id.
    Clock { id: String, record: Vec<u8> },
    /// An exchange of the request log (JSON text, masked), in the log's order.
    Exchange {
        seq: i64,
        broker: String,
        record: Vec<u8>,
    },
    /// A broker's exchanges past its last `keep`, removed.
    ExchangesTrimmed { broker: String, keep: i64 },
    /// A named piece of server state; of two writes with versions, the later version wins.
    State {
        name: &'static str,
        value: Vec<u8>,
        version: u64,
    },
}

struct Job {
    writes: Vec<Write>,
    done: Done,
}

/// Where a job's outcome goes: a thread that waits for it, or a task that awaits it.
enum Done {
    Thread(mpsc::SyncSender<Result<(), String>>),
    Task(tokio::sync::oneshot::Sender<Result<(), String>>),
}

impl Done {
    fn send(self, outcome: Result<(), String>) {
        // A waiter that went away no longer needs the outcome.
        let _ = match self {
            Done::Thread(done) => done.send(outcome).map_err(|_| ()),
            Done::Task(done) => done.send(outcome).map_err(|_| ()),
        };
    }
}

const STOPPED: &str = "the database writer has stopped";

/// The server state the file held when the server started (its tenders go to a callback).
pub struct Loaded {
    pub state: Vec<(String, String)>,
    /// The test clocks' records (JSON text), by id.
    pub clocks: Vec<(String, String)>,
    /// The request log's exchanges (JSON text), in the log's order.
    pub exchanges: Vec<(i64, String)>,
}

/// A record read from the file.
pub enum Row {
    Tender {
        row: i64,
        id: String,
        record: String,
    },
    /// Bids come after every tender, in the order of their rows.
    Bid {
        row: i64,
        tender: String,
        record: String,
    },
    /// Contracts come last.
    Contract {
        row: i64,
        id: String,
        record: String,
    },
}

/// Takes each stored record while the file is read.
pub type OnRow<'a> = &'a mut dyn FnMut(Row);

pub struct Database {
    path: PathBuf,
    jobs: mpsc::Sender<Job>,
}

fn describe(path: &Path, e: rusqlite::Error) -> String {
    format!("{}: {e}", path.display())
}

impl Database {
    /// Opens (creating if need be) the file in `dir`, migrates it to [`SCHEMA_VERSION`],
    /// reads it whole, and starts the writer.
    pub fn open(dir: &Path, on_row: OnRow<'_>) -> Result<(Database, Loaded), String> {
        Database::open_limited(dir, None, on_row)
    }

    /// [`Database::open`], the file held to `max_pages` pages: a full disk, for tests.
    pub(crate) fn open_limited(
        dir: &Path,
        max_pages: Option<u32>,
        on_row: OnRow<'_>,
    ) -> Result<(Database, Loaded), String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create the data directory {}: {e}", dir.display()))?;
        let path = dir.join(FILE_NAME);
        let at = |e| describe(&path, e);
        let mut conn = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(at)?;
        // WAL: readers of the file (sqlite3, a backup) never block the server's writes.
        let mode: String = conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .map_err(at)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(format!("{}: cannot use WAL mode ({mode})", path.display()));
        }
        // Checkpoints are the writer's own, run between batches (see `write_loop`). A write
        // reads its row's page before rewriting it: with SQLite's default cache of 2 MiB
        // nearly every write read it from the file again; 64 MiB holds the pages of some
        // 16,000 tenders (a tender's record fills a page of its own).
        conn.execute_batch(
            "PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000; \
             PRAGMA wal_autocheckpoint = 0; PRAGMA cache_size = -65536;",
        )
        .map_err(at)?;
        migrate(&mut conn).map_err(|e| format!("{}: {e}", path.display()))?;
        if let Some(pages) = max_pages {
            conn.pragma_update(None, "max_page_count", pages)
                .map_err(at)?;
        }
        let loaded = load(&conn, on_row).map_err(at)?;
        let (jobs, queue) = mpsc::channel();
        let writer_path = path.clone();
        thread::Builder::new()
            .name("registry-writer".into())
            .spawn(move || write_loop(conn, queue, &writer_path))
            .map_err(|e| format!("cannot start the database writer: {e}"))?;
        Ok((Database { path, jobs }, loaded))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Commits `writes` in one transaction, blocking the thread until they are durable.
    pub fn commit(&self, writes: Vec<Write>) -> Result<(), String> {
        let (done, outcome) = mpsc::sync_channel(1);
        self.send(writes, Done::Thread(done))?;
        outcome.recv().unwrap_or_else(|_| Err(STOPPED.into()))
    }

    /// Commits `writes` in one transaction; resolves once they are durable, holding no
    /// thread meanwhile.
    pub async fn committed(&self, writes: Vec<Write>) -> Result<(), String> {
        let (done, outcome) = tokio::sync::oneshot::channel();
        self.send(writes, Done::Task(done))?;
        outcome.await.unwrap_or_else(|_| Err(STOPPED.into()))
    }

    fn send(&self, writes: Vec<Write>, done: Done) -> Result<(), String> {
        self.jobs
            .send(Job { writes, done })
            .map_err(|_| STOPPED.to_string())
    }
}

fn migrate(conn: &mut Connection) -> Result<(), String> {
    let found: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(|e| e.to_string())?;
    if found > SCHEMA_VERSION {
        return Err(format!(
            "written by a newer server (schema version {found}; this server reads up to \
             {SCHEMA_VERSION})"
        ));
    }
    if found < 0 {
        return Err(format!("unknown schema version {found}"));
    }
    for (from, step) in MIGRATIONS.iter().enumerate().skip(found as usize) {
        let tx = conn.transaction().map_err(|e| e.to_string())?;
        tx.execute_batch(step)
            .and_then(|()| tx.pragma_update(None, "user_version", from as i64 + 1))
            .and_then(|()| tx.commit())
            .map_err(|e| format!("migrating from schema version {from}: {e}"))?;
    }
    Ok(())
}

fn load(conn: &Connection, on_row: OnRow<'_>) -> rusqlite::Result<Loaded> {
    let mut tenders = conn.prepare("SELECT row, id, record FROM tenders")?;
    let mut rows = tenders.query([])?;
    while let Some(row) = rows.next()? {
        on_row(Row::Tender {
            row: row.get(0)?,
            id: row.get(1)?,
            record: row.get(2)?,
        });
    }
    let mut bids = conn.prepare("SELECT row, tender_id, record FROM bids ORDER BY row")?;
    let mut rows = bids.query([])?;
    while let Some(row) = rows.next()? {
        on_row(Row::Bid {
            row: row.get(0)?,
            tender: row.get(1)?,
            record: row.get(2)?,
        });
    }
    let mut contracts = conn.prepare("SELECT row, id, record FROM contracts")?;
    let mut rows = contracts.query([])?;
    while let Some(row) = rows.next()? {
        on_row(Row::Contract {
            row: row.get(0)?,
            id: row.get(1)?,
            record: row.get(2)?,
        });
    }
    let mut state = conn.prepare("SELECT name, value FROM state")?;
    let state = state
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut clocks = conn.prepare("SELECT id, record FROM clocks")?;
    let clocks = clocks
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut exchanges = conn.prepare("SELECT seq, record FROM exchanges ORDER BY seq")?;
    let exchanges = exchanges
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(Loaded {
        state,
        clocks,
        exchanges,
    })
}

fn write_loop(conn: Connection, queue: mpsc::Receiver<Job>, path: &Path) {
    let failed = |e: &rusqlite::Error| {
        tracing::error!(file = %path.display(), error = %e, "a write could not be committed");
        e.to_string()
    };
    let mut statements = match Statements::prepare(&conn) {
        Ok(statements) => statements,
        Err(e) => {
            let outcome = Err(failed(&e));
            while let Ok(job) = queue.recv() {
                job.done.send(outcome.clone());
            }
            return;
        }
    };
    let mut versions = std::collections::HashMap::new();
    let mut since_checkpoint = 0;
    while let Ok(first) = queue.recv() {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match queue.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        let mut kept = versions.clone();
        let outcome = statements.commit(&batch, &mut kept).map_err(|e| failed(&e));
        if outcome.is_ok() {
            versions = kept;
            since_checkpoint += batch.iter().map(|j| j.writes.len()).sum::<usize>();
        }
        for job in batch {
            job.done.send(outcome.clone());
        }
        // After the acknowledgements: a checkpoint delays only the writes that queue
        // meanwhile. Passive, so a reader of the file (a backup) never waits for it; one
        // that fails leaves the log to the next.
        if since_checkpoint >= CHECKPOINT_WRITES {
            since_checkpoint = 0;
            if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
                tracing::warn!(file = %path.display(), error = %e, "checkpoint failed");
            }
        }
    }
}

/// JSON text as written (valid UTF-8, from serde_json), bound as SQLite text: `sqlite3` and
/// its JSON functions read it as such.
struct Text<'a>(&'a [u8]);

impl ToSql for Text<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(ValueRef::Text(self.0)))
    }
}

/// The writer's statements, prepared once for every batch.
struct Statements<'c> {
    conn: &'c Connection,
    tender: rusqlite::Statement<'c>,
    contract: rusqlite::Statement<'c>,
    bid: rusqlite::Statement<'c>,
    bid_gone: rusqlite::Statement<'c>,
    state: rusqlite::Statement<'c>,
    clock: rusqlite::Statement<'c>,
    exchange: rusqlite::Statement<'c>,
    exchanges_trimmed: rusqlite::Statement<'c>,
}

impl<'c> Statements<'c> {
    fn prepare(conn: &'c Connection) -> rusqlite::Result<Statements<'c>> {
        Ok(Statements {
            conn,
            tender: conn.prepare(
                "INSERT INTO tenders (row, id, record) VALUES (?1, ?2, ?3)
                 ON CONFLICT (row) DO UPDATE SET record = excluded.record",
            )?,
            contract: conn.prepare(
                "INSERT INTO contracts (row, id, record) VALUES (?1, ?2, ?3)
                 ON CONFLICT (row) DO UPDATE SET record = excluded.record",
            )?,
            bid: conn.prepare(
                "INSERT INTO bids (row, tender_id, id, record) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (row) DO UPDATE SET record = excluded.record",
            )?,
            bid_gone: conn.prepare("DELETE FROM bids WHERE row = ?1")?,
            state: conn.prepare(
                "INSERT INTO state (name, value) VALUES (?1, ?2)
                 ON CONFLICT (name) DO UPDATE SET value = excluded.value",
            )?,
            clock: conn.prepare(
                "INSERT INTO clocks (id, record) VALUES (?1, ?2)
                 ON CONFLICT (id) DO UPDATE SET record = excluded.record",
            )?,
            exchange: conn.prepare(
                "INSERT INTO exchanges (seq, broker, record) VALUES (?1, ?2, ?3)
                 ON CONFLICT (seq) DO UPDATE SET record = excluded.record",
            )?,
            exchanges_trimmed: conn.prepare(
                "DELETE FROM exchanges WHERE broker = ?1 AND seq < (
                     SELECT min(seq) FROM (SELECT seq FROM exchanges WHERE broker = ?1
                                           ORDER BY seq DESC LIMIT ?2))",
            )?,
        })
    }

    /// Writes a batch in one transaction; on any error nothing of it is kept.
    fn commit(
        &mut self,
        batch: &[Job],
        versions: &mut std::collections::HashMap<&'static str, u64>,
    ) -> rusqlite::Result<()> {
        self.conn.execute_batch("BEGIN")?;
        let done = self
            .write(batch, versions)
            .and_then(|()| self.conn.execute_batch("COMMIT"));
        if done.is_err() {
            // A failed COMMIT may leave the transaction open; a finished one has none to end.
            let _ = self.conn.execute_batch("ROLLBACK");
        }
        done
    }

    fn write(
        &mut self,
        batch: &[Job],
        versions: &mut std::collections::HashMap<&'static str, u64>,
    ) -> rusqlite::Result<()> {
        for write in batch.iter().flat_map(|j| &j.writes) {
            match write {
                Write::Tender { row, id, record } => {
                    self.tender.execute(params![row, id, Text(record)])?;
                }
                Write::Contract { row, id, record } => {
                    self.contract.execute(params![row, id, Text(record)])?;
                }
                Write::Bid {
                    row,
                    tender,
                    id,
                    record,
                } => {
                    self.bid.execute(params![row, tender, id, Text(record)])?;
                }
                Write::BidGone { row } => {
                    self.bid_gone.execute(params![row])?;
                }
                Write::Clock { id, record } => {
                    self.clock.execute(params![id, Text(record)])?;
                }
                Write::Exchange {
                    seq,
                    broker,
                    record,
                } => {
                    self.exchange.execute(params![seq, broker, Text(record)])?;
                }
                Write::ExchangesTrimmed { broker, keep } => {
                    self.exchanges_trimmed.execute(params![broker, keep])?;
                }
                Write::State {
                    name,
                    value,
                    version,
                } => {
                    let last = versions.entry(name).or_default();
                    if *version >= *last {
                        *last = *version;
                        self.state.execute(params![name, Text(value)])?;
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The log is copied back into the file as writes go on, so it stops growing: without
    /// checkpoints these writes would leave a log of about 60 MiB.
    #[test]
    fn the_log_stays_bounded_under_steady_writes() {
        let dir = tempfile::tempdir().unwrap();
        let (database, _) = Database::open(dir.path(), &mut |_| {}).unwrap();
        let record = "x".repeat(2_000).into_bytes();
        for first in (0..3 * CHECKPOINT_WRITES as i64).step_by(500) {
            let writes = (first..first + 500)
                .map(|row| Write::Tender {
                    row,
                    id: format!("t{row}"),
                    record: record.clone(),
                })
                .collect();
            database.commit(writes).unwrap();
        }
        let log = std::fs::metadata(dir.path().join(format!("{FILE_NAME}-wal"))).unwrap();
        assert!(log.len() < 30 << 20, "the log holds {} bytes", log.len());
        let conn = Connection::open(dir.path().join(FILE_NAME)).unwrap();
        let rows: i64 = conn
            .query_row("SELECT count(*) FROM tenders", [], |r| r.get(0))
            .unwrap();
        assert_eq!(rows, 3 * CHECKPOINT_WRITES as i64);
    }
}
