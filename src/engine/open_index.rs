//! Opening the keyword index for an engine: rebuilt from the store, caught up from its
//! change log, or (without the writer lease) read as it is or replaced by an empty one, or
//! (in a data dir that takes no writes) read as it is or built in memory from the store.

use super::sync::{Replay, fill_bm25};
use crate::Result;
use crate::index::IndexHealth;
use crate::index::bm25::Bm25;
use crate::paths::Paths;
use crate::store::{ChangeOp, Store};

/// Open BM25, rebuilding or catching it up from the store when we hold the lease.
pub(super) fn open_bm25(
    paths: &Paths,
    store: &Store,
    store_id: &str,
    have_lease: bool,
    no_writes: bool,
) -> Result<(Bm25, IndexHealth)> {
    if no_writes {
        // Nothing may be written: read the index as it is, or build one in memory from the
        // store (keyword search must work read-only; the files are left alone).
        if let Ok(b) = Bm25::open_reader(&paths.bm25_dir(), store_id) {
            if store
                .changes_since(b.applied_seq())?
                .iter()
                .all(|c| c.op == ChangeOp::Embed)
            {
                return Ok((b, IndexHealth::Ready));
            }
        }
        let mut b = Bm25::in_memory()?;
        fill_bm25(&mut b, store, false)?;
        b.close_writer();
        return Ok((
            b,
            IndexHealth::Rebuilt(
                "the data dir takes no writes: rebuilt in memory from the store".into(),
            ),
        ));
    }
    if !have_lease {
        // Someone else is writing: read what is committed, never touch the files.
        return match Bm25::open_reader(&paths.bm25_dir(), store_id) {
            Ok(b) => {
                let behind = store
                    .changes_since(b.applied_seq())?
                    .iter()
                    .filter(|c| c.op != ChangeOp::Embed)
                    .count();
                let h = if behind == 0 {
                    IndexHealth::Ready
                } else {
                    IndexHealth::Stale(format!(
                        "{behind} changes behind while another process writes"
                    ))
                };
                Ok((b, h))
            }
            Err(e) => Ok((
                Bm25::in_memory()?,
                IndexHealth::Unavailable(format!(
                    "it cannot be read now and another process holds the writer lease ({e}); the next writer rebuilds it"
                )),
            )),
        };
    }
    let (mut b, rebuilt) = Bm25::open(&paths.bm25_dir(), store_id, store.generation()?)?;
    let health = if let Some(why) = rebuilt {
        fill_bm25(&mut b, store, true)?;
        IndexHealth::Rebuilt(why)
    } else {
        let changes = store.changes_since(b.applied_seq())?;
        Replay {
            bm25: Some(&mut b),
            ..Default::default()
        }
        .apply(store, &changes)?;
        let n = changes.iter().filter(|c| c.op != ChangeOp::Embed).count();
        if let Some(last) = changes.last() {
            b.commit(last.seq)?;
        }
        if n == 0 {
            IndexHealth::Ready
        } else {
            IndexHealth::CaughtUp(n)
        }
    };
    b.close_writer();
    Ok((b, health))
}
