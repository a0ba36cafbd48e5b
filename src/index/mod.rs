//! The derived indexes: BM25 (tantivy) and vectors (usearch).
//!
//! Both are built from the SQLite store and can be thrown away and rebuilt at any time
//! (`slm reindex`). Each records the store generation (change-log seq) it reflects; on
//! open, a stale index replays the change log, and a missing, corrupt or foreign index is
//! rebuilt from scratch.

pub mod bm25;
pub mod meta;
pub mod vector;

use serde::Serialize;

/// How an index came up on open.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "state", content = "detail")]
pub enum IndexHealth {
    /// Up to date with the store.
    Ready,
    /// It was behind by this many changes and caught up.
    CaughtUp(usize),
    /// It was missing or unreadable and was rebuilt (the reason).
    Rebuilt(String),
    /// It is behind the store and could not be caught up now (another writer holds the lock).
    Stale(String),
    /// It cannot be used (the reason); recall goes on without it.
    Unavailable(String),
}

/// What a person reads about an index (`slm doctor`, a channel's status, an error):
/// "up to date", "caught up with 3 changes", "rebuilt (there was none)".
impl std::fmt::Display for IndexHealth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IndexHealth::Ready => f.write_str("up to date"),
            IndexHealth::CaughtUp(1) => f.write_str("caught up with 1 change"),
            IndexHealth::CaughtUp(n) => write!(f, "caught up with {n} changes"),
            IndexHealth::Rebuilt(why) => write!(f, "rebuilt ({why})"),
            IndexHealth::Stale(why) => write!(f, "not up to date ({why})"),
            IndexHealth::Unavailable(why) => write!(f, "unavailable ({why})"),
        }
    }
}

impl IndexHealth {
    pub fn usable(&self) -> bool {
        !matches!(self, IndexHealth::Unavailable(_))
    }
}
