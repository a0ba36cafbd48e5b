//! Reading a store out as import lines, one page at a time in id order.
//!
//! A page is a bounded number of rows and bytes, and the next page starts after the last id
//! of the one before, so an export of a million memories holds one page in memory at a time
//! (on the client, and in the worker when it answers) and never a whole listing. Id order is
//! also insertion order, which is what makes an import of the lines rebuild the `next` links
//! of each session the same way.

use super::line::{Line, minted_key};
use crate::Result;
use crate::store::{ListFilter, Store};
use serde::{Deserialize, Serialize};

/// Rows per page: large enough that a page costs far more than its round trip to the worker
/// (~0.1 ms), small enough to hold a page in memory without thinking about it.
pub const PAGE_ROWS: usize = 512;
/// A page ends once its texts pass this many bytes, so a page of long memories (32 KiB each
/// at most) stays well inside a worker frame (8 MiB, with JSON escaping up to 6×).
pub const PAGE_BYTES: usize = 1 << 20;

/// What to export.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ExportQuery {
    /// One profile, or every profile when None.
    pub profile: Option<String>,
    pub include_bookkeeping: bool,
    /// Start after this id (None: from the start).
    pub after_id: Option<i64>,
}

/// One page of lines.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Page {
    pub lines: Vec<Line>,
    /// Where the next page starts (the last id read).
    pub last_id: Option<i64>,
    /// No more rows after this page.
    pub done: bool,
    /// How many rows the whole export has (the first page only, for the progress bar).
    pub total: Option<i64>,
}

/// One page of an export from `engine`, read on a reader connection: a long export never
/// holds the engine's own store lock.
pub fn page_of(engine: &crate::engine::Engine, q: &ExportQuery) -> Result<Page> {
    page(&*engine.reader()?, engine.store_id(), q)
}

/// Read one page.
pub fn page(store: &Store, store_id: &str, q: &ExportQuery) -> Result<Page> {
    let total = match q.after_id {
        None => Some(store.count_matching(q.profile.as_deref(), q.include_bookkeeping)?),
        Some(_) => None,
    };
    let rows = store.list(&ListFilter {
        profile: q.profile.clone(),
        include_bookkeeping: q.include_bookkeeping,
        after_id: q.after_id,
        limit: Some(PAGE_ROWS),
        newest_first: false,
        ..Default::default()
    })?;
    let full = rows.len() == PAGE_ROWS;
    let mut lines = Vec::with_capacity(rows.len());
    let mut bytes = 0usize;
    let mut last_id = q.after_id;
    let mut cut = false;
    for m in &rows {
        if bytes >= PAGE_BYTES {
            cut = true;
            break;
        }
        let key_of = |id: i64| -> Result<String> {
            Ok(store
                .key_of(id)?
                .unwrap_or_else(|| minted_key(store_id, id)))
        };
        let supersedes = store
            .superseded_by_this(m.id)?
            .into_iter()
            .map(key_of)
            .collect::<Result<Vec<_>>>()?;
        bytes += m.text.len();
        lines.push(Line::from_memory(m, key_of(m.id)?, supersedes));
        last_id = Some(m.id);
    }
    Ok(Page {
        lines,
        last_id,
        done: !full && !cut,
        total,
    })
}
