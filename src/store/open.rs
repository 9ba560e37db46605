//! Opening a store on its data directory: the file's records read back in chunks by a
//! parser on every core, each tender given its bids in their rows' order and its listed
//! fields, then entered into the shelves and the indexes.

use super::bid_rows::BidRows;
use super::database::{self, Database, Loaded};
use super::listed_fields::ListedFields;
use super::shelf::lock;
use super::{CALENDAR, Durable, Place, Store, listed_fields};
use crate::contracting::Contract;
use crate::domain::auction::AuctionCalendar;
use crate::domain::bid::Bid;
use crate::domain::ids;
use crate::domain::stored;
use crate::domain::tender::Tender;
use crate::domain::time::Zone;
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicI64, AtomicU64};
use std::sync::{Arc, Mutex};

impl Store {
    /// A store kept in `DIR/registry.sqlite3`, loaded with everything the file holds.
    pub fn open(zone: Zone, dir: &Path) -> Result<Store, String> {
        Store::open_limited(zone, dir, None)
    }

    /// [`Store::open`] on a file held to `max_pages` pages: a full disk, for tests.
    pub(crate) fn open_limited(
        zone: Zone,
        dir: &Path,
        max_pages: Option<u32>,
    ) -> Result<Store, String> {
        let (opened, records) = read_all(|on_row| Database::open_limited(dir, max_pages, on_row));
        let (
            database,
            Loaded {
                state,
                clocks,
                exchanges,
            },
        ) = opened?;
        let mut store = Store::new(zone);
        let state: HashMap<String, String> = state.into_iter().collect();
        if let Some(json) = state.get(CALENDAR) {
            let days: Vec<(i32, u32)> = stored::from_json(json)
                .map_err(|e| format!("{}: the auction calendar: {e}", database.path().display()))?;
            store.calendar = Mutex::new(AuctionCalendar::restore(&days));
        }
        let Records { tenders, contracts } =
            records.map_err(|e| format!("{}: {e}", database.path().display()))?;
        let (mut last_row, mut last_bid_row) = (0, 0);
        {
            let indexes = store.indexes.get_mut().unwrap_or_else(|p| p.into_inner());
            let map = store.tenders.loading();
            map.reserve(tenders.iter().map(|(_, t)| t.len()).sum());
            // In `dateModified` order, so that every row enters the listing at its end (the
            // order is sorted, not the records, which are large to move).
            let mut tenders: Vec<_> = tenders
                .into_iter()
                .flat_map(|(f, t)| f.into_iter().zip(t))
                .map(Some)
                .collect();
            let mut order: Vec<(i64, usize)> = tenders
                .iter()
                .enumerate()
                .filter_map(|(at, t)| Some((t.as_ref()?.1.tender.date_modified.micros(), at)))
                .collect();
            order.sort_unstable();
            let tenders = order
                .into_iter()
                .filter_map(|(_, at)| tenders.get_mut(at)?.take());
            for (fields, read) in tenders {
                let ReadBack {
                    row,
                    tender,
                    bid_rows,
                } = read;
                last_row = last_row.max(row);
                last_bid_row = bid_rows.last().max(last_bid_row);
                indexes.restore(&tender);
                indexes.count_live(None, &tender);
                indexes.put(&tender, fields, None);
                let id = tender.id.clone();
                if map.insert(id, Place::new(tender, row, bid_rows)).is_some() {
                    let file = database.path().display();
                    return Err(format!("{file}: a tender is stored twice (row {row})"));
                }
            }
        }
        let last_contract_row = store
            .restore_contracts(contracts)
            .map_err(|e| format!("{}: {e}", database.path().display()))?;
        store.durable = Some(Durable {
            database,
            calendar_version: AtomicU64::new(0),
            next_row: AtomicI64::new(last_row + 1),
            next_bid_row: AtomicI64::new(last_bid_row + 1),
            next_contract_row: AtomicI64::new(last_contract_row + 1),
            state,
            clocks,
            exchanges: Mutex::new(exchanges),
        });
        Ok(store)
    }
}

/// A tender read back, with its row and the rows of its bids.
struct ReadBack {
    row: i64,
    tender: Tender,
    bid_rows: BidRows,
}

/// What one parser read: tenders, bids with their rows and their tenders' ids, and
/// contracts with their rows.
#[derive(Default)]
struct Parsed {
    tenders: Vec<ReadBack>,
    bids: Vec<(i64, String, Bid)>,
    contracts: Vec<(i64, Contract)>,
}

/// Everything the file held, read back.
struct Records {
    tenders: Vec<Part>,
    contracts: Vec<(i64, Contract)>,
}

/// Reads the stored tenders back while `open` reads the file: the records go in chunks to a
/// parser on every core and are dropped once read, so start-up holds few of them at a time.
/// Each parser's tenders stay where it put them (a tender is large, and every move of them
/// all costs fresh memory).
fn read_all<T>(open: impl FnOnce(database::OnRow<'_>) -> T) -> (T, Result<Records, String>) {
    const CHUNK: usize = 256;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (chunks, queue) = std::sync::mpsc::sync_channel::<Vec<database::Row>>(threads * 2);
    let queue = Mutex::new(queue);
    let (opened, parsed) = std::thread::scope(|scope| {
        let parsers: Vec<_> = (0..threads)
            .map(|_| scope.spawn(|| parse_chunks(&queue)))
            .collect();
        let mut chunk = Vec::with_capacity(CHUNK);
        let opened = open(&mut |row| {
            chunk.push(row);
            if chunk.len() == CHUNK {
                let _ = chunks.send(std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK)));
            }
        });
        let _ = chunks.send(chunk);
        drop(chunks);
        let mut parts = Vec::new();
        let mut failed = None;
        for parser in parsers {
            match parser.join() {
                Ok(Ok(part)) => parts.push(part),
                Ok(Err(e)) => failed = failed.or(Some(e)),
                Err(_) => failed = failed.or(Some("reading the tenders failed".to_string())),
            }
        }
        (opened, failed.map_or(Ok(parts), Err))
    });
    (opened, parsed.and_then(assemble))
}

/// Parses chunks of records until the reader is done. After an error the queue is still
/// drained, so that the reader never waits.
fn parse_chunks(
    queue: &Mutex<std::sync::mpsc::Receiver<Vec<database::Row>>>,
) -> Result<Parsed, String> {
    let mut parsed = Parsed::default();
    let mut error = None;
    while let Ok(chunk) = lock(queue).recv() {
        for row in chunk {
            if error.is_some() {
                break;
            }
            let read = match row {
                database::Row::Tender { row, id, record } => {
                    stored::from_json::<Tender>(&record)
                        .map_err(|e| e.to_string())
                        .and_then(|tender| {
                            // The indexes hold ids inline, at the length the server makes them.
                            if ids::is_id(&tender.id) {
                                Ok(tender)
                            } else {
                                Err("its id is not 32 lowercase hexadecimal digits".into())
                            }
                        })
                        .map(|tender| {
                            parsed.tenders.push(ReadBack {
                                row,
                                tender,
                                bid_rows: BidRows::default(),
                            })
                        })
                        .map_err(|e| format!("the tender {id} cannot be read: {e}"))
                }
                database::Row::Bid {
                    row,
                    tender,
                    record,
                } => match stored::from_json(&record) {
                    Ok(bid) => {
                        parsed.bids.push((row, tender, bid));
                        Ok(())
                    }
                    Err(e) => Err(format!("a bid of the tender {tender} cannot be read: {e}")),
                },
                database::Row::Contract { row, id, record } => {
                    stored::from_json::<Contract>(&record)
                        .map_err(|e| e.to_string())
                        .and_then(|contract| {
                            if ids::is_id(&contract.id) {
                                Ok(contract)
                            } else {
                                Err("its id is not 32 lowercase hexadecimal digits".into())
                            }
                        })
                        .map(|contract| parsed.contracts.push((row, contract)))
                        .map_err(|e| format!("the contract {id} cannot be read: {e}"))
                }
            };
            error = read.err();
        }
    }
    error.map_or(Ok(parsed), Err)
}

/// A parser's tenders and, side by side, their listed fields.
type Part = (Vec<Option<ListedFields>>, Vec<ReadBack>);

/// Gives each tender its bids in the order of their rows, then renders the listed fields,
/// each parser's share on a core of its own.
fn assemble(mut parts: Vec<Parsed>) -> Result<Records, String> {
    let contracts = parts
        .iter_mut()
        .flat_map(|p| std::mem::take(&mut p.contracts))
        .collect();
    let mut bids: Vec<_> = parts
        .iter_mut()
        .flat_map(|p| std::mem::take(&mut p.bids))
        .collect();
    if !bids.is_empty() {
        bids.sort_unstable_by_key(|(row, _, _)| *row);
        let places = {
            let at: HashMap<&str, (usize, usize)> = parts
                .iter()
                .enumerate()
                .flat_map(|(p, part)| {
                    let tenders = part.tenders.iter().enumerate();
                    tenders.map(move |(i, t)| (t.tender.id.as_str(), (p, i)))
                })
                .collect();
            bids.iter()
                .map(|(_, tender, bid)| {
                    at.get(tender.as_str()).copied().ok_or_else(|| {
                        format!(
                            "the bid {} belongs to a tender the file lacks: {tender}",
                            bid.id
                        )
                    })
                })
                .collect::<Result<Vec<_>, String>>()?
        };
        for ((row, _, bid), (p, i)) in bids.into_iter().zip(places) {
            let read = &mut parts[p].tenders[i];
            read.bid_rows.insert(bid.id.clone(), row);
            read.tender.bids.push_back(Arc::new(bid));
        }
    }
    let fields = std::thread::scope(|scope| {
        let renders: Vec<_> = parts
            .iter()
            .map(|part| {
                let tenders = part.tenders.iter();
                scope.spawn(|| tenders.map(|t| listed_fields(&t.tender)).collect())
            })
            .collect();
        renders
            .into_iter()
            .map(|r| {
                r.join()
                    .map_err(|_| "rendering the listed fields failed".to_string())
            })
            .collect::<Result<Vec<_>, _>>()
    })?;
    let tenders = fields
        .into_iter()
        .zip(parts.into_iter().map(|p| p.tenders))
        .collect();
    Ok(Records { tenders, contracts })
}
