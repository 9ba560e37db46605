//! The listing's rows in the order of their keys (the server's moment of each change), in one
//! sorted vector.
//!
//! A page reads a hundred neighbouring rows; in a B-tree they lie in a dozen nodes scattered
//! over the heap, and with many tenders held each node is a cache miss. Here they are one run
//! of memory. Stamps only grow and changes are entered nearly in stamp order, so a row lands
//! at or near the end; a removed row leaves a hole that pages skip, and the holes are swept
//! out once they are a quarter of the vector.

/// Rows by key, ascending; `None` is a hole left by a removal.
pub struct Ordered<V> {
    slots: Vec<(i64, Option<V>)>,
    holes: usize,
}

impl<V> Default for Ordered<V> {
    fn default() -> Self {
        Ordered {
            slots: Vec::new(),
            holes: 0,
        }
    }
}

impl<V> Ordered<V> {
    /// Enters `value` at `key`, replacing a row held there.
    pub fn insert(&mut self, key: i64, value: V) {
        if self.slots.last().is_none_or(|(last, _)| *last < key) {
            self.slots.push((key, Some(value)));
            return;
        }
        match self.slots.binary_search_by_key(&key, |(k, _)| *k) {
            Ok(at) => {
                let slot = &mut self.slots[at].1;
                if slot.is_none() {
                    self.holes -= 1;
                }
                *slot = Some(value);
            }
            Err(at) => self.slots.insert(at, (key, Some(value))),
        }
    }

    pub fn remove(&mut self, key: i64) -> Option<V> {
        let at = self.slots.binary_search_by_key(&key, |(k, _)| *k).ok()?;
        let removed = self.slots[at].1.take()?;
        self.holes += 1;
        if self.holes > 64 && self.holes * 4 > self.slots.len() {
            self.slots.retain(|(_, v)| v.is_some());
            self.holes = 0;
        }
        Some(removed)
    }

    /// The rows from the first at or after `start` (from the first row without it), upwards.
    pub fn ascending(&self, start: Option<i64>) -> impl Iterator<Item = (i64, &V)> {
        let from = start.map_or(0, |s| self.slots.partition_point(|(k, _)| *k < s));
        let rows = self.slots.get(from..).unwrap_or_default();
        rows.iter().filter_map(|(k, v)| Some((*k, v.as_ref()?)))
    }

    /// The rows from the last at or before `start` (from the last row without it), downwards.
    pub fn descending(&self, start: Option<i64>) -> impl Iterator<Item = (i64, &V)> {
        let to = start.map_or(self.slots.len(), |s| {
            self.slots.partition_point(|(k, _)| *k <= s)
        });
        let rows = self.slots.get(..to).unwrap_or_default();
        rows.iter()
            .rev()
            .filter_map(|(k, v)| Some((*k, v.as_ref()?)))
    }

    /// How many rows are held (holes aside).
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.slots.len() - self.holes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn keys<'a>(rows: impl Iterator<Item = (i64, &'a u32)>) -> Vec<i64> {
        rows.map(|(k, _)| k).collect()
    }

    /// Random inserts, replacements and removals, some of them far from the end, read back
    /// from every start in both directions exactly as a B-tree reads them.
    #[test]
    fn reads_as_a_btree_map_after_any_mix_of_writes() {
        let mut ordered = Ordered::default();
        let mut model = BTreeMap::new();
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..20_000u32 {
            let key = (next() % 2_000) as i64;
            if next() % 3 == 0 {
                assert_eq!(ordered.remove(key), model.remove(&key), "round {round}");
            } else {
                ordered.insert(key, round);
                model.insert(key, round);
            }
            assert_eq!(ordered.len(), model.len());
        }
        for start in [None, Some(-1), Some(0), Some(777), Some(1_999), Some(5_000)] {
            let up: Vec<i64> = match start {
                None => model.keys().copied().collect(),
                Some(s) => model.range(s..).map(|(k, _)| *k).collect(),
            };
            let down: Vec<i64> = match start {
                None => model.keys().rev().copied().collect(),
                Some(s) => model.range(..=s).rev().map(|(k, _)| *k).collect(),
            };
            assert_eq!(keys(ordered.ascending(start)), up, "{start:?}");
            assert_eq!(keys(ordered.descending(start)), down, "{start:?}");
        }
        let values: Vec<u32> = ordered.ascending(None).map(|(_, v)| *v).collect();
        assert_eq!(values, model.values().copied().collect::<Vec<_>>());
    }

    #[test]
    fn holes_are_swept_once_they_are_a_quarter_of_the_rows() {
        let mut ordered = Ordered::default();
        for key in 0..1_000 {
            ordered.insert(key, 0u32);
        }
        for key in 0..250 {
            ordered.remove(key);
        }
        assert_eq!(
            ordered.slots.len(),
            1_000,
            "a quarter are holes, not yet swept"
        );
        ordered.remove(250);
        assert_eq!((ordered.slots.len(), ordered.holes), (749, 0));
        assert_eq!(ordered.ascending(None).next().map(|(k, _)| k), Some(251));
    }
}
