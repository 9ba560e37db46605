//! The records of one kind by id, each in its place: its current state behind a lock, the
//! cached JSON of its public representation, the turn its writers take, and its row in the
//! database file.

use crate::domain::text::Text;
use salvo::hyper::body::Bytes;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A record and the cached JSON of its public representation.
pub struct Entry<R> {
    pub record: R,
    pub public: Option<Bytes>,
}

/// A record's place: its current state, the turn its writers take (held across a write's
/// commit, so that the next write starts from what was committed; it holds what only writers
/// use, `W`: a tender's bid rows), and its own row in the database file.
pub struct Place<R, W> {
    pub entry: Mutex<Entry<R>>,
    pub turn: Arc<tokio::sync::Mutex<W>>,
    pub row: i64,
}

impl<R, W> Place<R, W> {
    pub fn new(record: R, row: i64, writers: W) -> Arc<Place<R, W>> {
        Arc::new(Place {
            row,
            entry: Mutex::new(Entry {
                record,
                public: None,
            }),
            turn: Arc::new(tokio::sync::Mutex::new(writers)),
        })
    }
}

/// The places of one kind of record, by id.
pub struct Shelf<R, W> {
    places: RwLock<HashMap<Text, Arc<Place<R, W>>>>,
}

impl<R, W> Default for Shelf<R, W> {
    fn default() -> Self {
        Shelf {
            places: RwLock::default(),
        }
    }
}

impl<R, W> Shelf<R, W> {
    pub fn place(&self, id: &str) -> Option<Arc<Place<R, W>>> {
        self.places
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(id)
            .cloned()
    }

    pub fn contains(&self, id: &str) -> bool {
        self.places
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .contains_key(id)
    }

    pub fn len(&self) -> usize {
        self.places.read().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Makes a record known; `false` (and nothing changed) when its id already is.
    pub fn add(&self, id: Text, place: Arc<Place<R, W>>) -> bool {
        let mut places = self.places.write().unwrap_or_else(|p| p.into_inner());
        if places.contains_key(&id) {
            return false;
        }
        places.insert(id, place);
        true
    }

    /// The places of a store being opened, before any request can see them.
    pub fn loading(&mut self) -> &mut HashMap<Text, Arc<Place<R, W>>> {
        self.places.get_mut().unwrap_or_else(|p| p.into_inner())
    }

    /// Reads a record under its lock.
    pub fn read<T>(&self, id: &str, f: impl FnOnce(&R) -> T) -> Option<T> {
        let place = self.place(id)?;
        let entry = lock(&place.entry);
        Some(f(&entry.record))
    }

    /// The public representation as compact JSON, built once per change. `build` gives the
    /// text at its length (see [`crate::domain::json`]): it is kept until the next change.
    pub fn public_json(&self, id: &str, build: impl FnOnce(&R) -> Vec<u8>) -> Option<Bytes> {
        let place = self.place(id)?;
        let mut entry = lock(&place.entry);
        if let Some(cached) = &entry.public {
            return Some(cached.clone());
        }
        let json = Bytes::from(build(&entry.record));
        entry.public = Some(json.clone());
        Some(json)
    }
}
