//! The in-memory metadata of every memory (what recall filters and scores by), with an
//! index on event time beside it, so the temporal producer reads a bounded slice instead
//! of scanning every memory when a question names a time.
//!
//! It derefs to the id → row map for lookups; `insert` and `remove` keep the time index in
//! step. Like the other indexes it is derived from the store and rebuilt on open.

use crate::store::MetaRow;
use std::collections::{BTreeSet, HashMap};

#[derive(Debug, Default)]
pub struct MetaMap {
    rows: HashMap<i64, MetaRow>,
    /// (event_at, id) of every row, oldest first.
    by_time: BTreeSet<(i64, i64)>,
}

impl From<HashMap<i64, MetaRow>> for MetaMap {
    fn from(rows: HashMap<i64, MetaRow>) -> MetaMap {
        let by_time = rows.values().map(|m| (m.event_at, m.id)).collect();
        MetaMap { rows, by_time }
    }
}

impl std::ops::Deref for MetaMap {
    type Target = HashMap<i64, MetaRow>;
    fn deref(&self) -> &Self::Target {
        &self.rows
    }
}

impl MetaMap {
    pub fn insert(&mut self, id: i64, row: MetaRow) {
        if let Some(old) = self.rows.get(&id) {
            self.by_time.remove(&(old.event_at, id));
        }
        self.by_time.insert((row.event_at, id));
        self.rows.insert(id, row);
    }

    pub fn remove(&mut self, id: &i64) -> Option<MetaRow> {
        let old = self.rows.remove(id)?;
        self.by_time.remove(&(old.event_at, *id));
        Some(old)
    }

    /// Rows with event time in [from, to), newest first.
    pub fn newest_in(&self, from: i64, to: i64) -> impl Iterator<Item = &MetaRow> + '_ {
        self.by_time
            .range((from, i64::MIN)..(to, i64::MIN))
            .rev()
            .filter_map(|(_, id)| self.rows.get(id))
    }

    /// Rows with event time in [from, ∞), oldest first.
    pub fn oldest_from(&self, from: i64) -> impl Iterator<Item = &MetaRow> + '_ {
        self.by_time
            .range((from, i64::MIN)..)
            .filter_map(|(_, id)| self.rows.get(id))
    }
}

/// A personal note of the default profile with event time `at` (tests of the time index).
#[cfg(test)]
pub(crate) fn test_row(id: i64, at: i64) -> MetaRow {
    use crate::memory::{Kind, Scope, Source};
    MetaRow {
        id,
        profile: crate::DEFAULT_PROFILE.into(),
        scope: Scope::Personal,
        kind: Kind::Note,
        source: Source::User,
        session_id: None,
        created_at: at,
        event_at: at,
        valid_from: None,
        valid_until: None,
        known_at: at,
        pinned: false,
        bookkeeping: false,
        superseded: false,
        baseline_sim: None,
        project: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: i64, at: i64) -> MetaRow {
        test_row(id, at)
    }

    #[test]
    fn the_time_index_follows_inserts_moves_and_removes() {
        let mut m = MetaMap::default();
        for (id, at) in [(1, 10), (2, 20), (3, 30), (4, 20)] {
            m.insert(id, row(id, at));
        }
        let ids = |it: &mut dyn Iterator<Item = &MetaRow>| it.map(|r| r.id).collect::<Vec<_>>();
        assert_eq!(ids(&mut m.newest_in(10, 30)), vec![4, 2, 1]);
        assert_eq!(ids(&mut m.oldest_from(20)), vec![2, 4, 3]);
        m.insert(2, row(2, 40)); // its event time changed
        assert_eq!(ids(&mut m.newest_in(0, 100)), vec![2, 3, 4, 1]);
        m.remove(&3);
        assert_eq!(ids(&mut m.newest_in(0, 100)), vec![2, 4, 1]);
        assert_eq!(m.len(), 3);
    }
}
