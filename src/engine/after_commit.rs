//! What a write does after its SQLite commit (the acknowledgement): the keyword index, the
//! embedding and the vector index. A failure here never un-acknowledges the write: it is
//! reported as a note, and the indexes catch up from the change log.

use super::{Embed, Engine, Remembered};
use crate::index::IndexHealth;
use crate::{Error, Result};

/// Test hook (debug builds only): fail index maintenance right after a write's commit, as a
/// full disk does, to show that a committed write is still acknowledged.
const FAIL_AFTER_COMMIT_ENV: &str = "SLM_TEST_FAIL_AFTER_COMMIT";

fn injected_after_commit_failure() -> Result<()> {
    if cfg!(debug_assertions) && std::env::var_os(FAIL_AFTER_COMMIT_ENV).is_some() {
        return Err(Error::Bm25(
            "database or disk is full (injected by the test hook)".into(),
        ));
    }
    Ok(())
}

impl Engine {
    /// After a committed write: bring the indexes along with `index`. A failure is reported
    /// (on standard error, and as stale keyword-index health until the indexes catch up),
    /// never returned: the write stands, or a caller would retry a saved memory. Returns the
    /// report, `why` of the error, when there was one. Lets go of the keyword writer either
    /// way.
    pub(super) fn after_commit(
        &self,
        index: impl FnOnce() -> Result<()>,
        why: impl FnOnce(&Error) -> String,
    ) -> Option<String> {
        let failed = injected_after_commit_failure()
            .and_then(|_| index())
            .err()
            .map(|e| {
                let why = why(&e);
                eprintln!("slm: {why}");
                self.mark_stale(&why);
                why
            });
        self.close_bm25_writer();
        failed
    }

    /// BM25, embeddings and the vector index for freshly committed memories. The keyword
    /// index is brought along under the write's `lease`; the lease is let go before the
    /// model runs and taken again only to store the vectors, so other writers (a capture
    /// hook while an import runs) never wait behind a model.
    pub(super) fn index_after_write(
        &self,
        results: &mut [Remembered],
        committed: std::time::Instant,
        lease: crate::lock::WriteLock,
        embed: Embed,
    ) -> Result<()> {
        self.forget_baseline_sample();
        self.apply_changes()?;
        let keyword_ms = committed.elapsed().as_secs_f64() * 1000.0;
        for r in results.iter_mut() {
            r.keyword_ms = keyword_ms;
        }
        self.close_bm25_writer();
        drop(lease);
        if self.memory_model().is_some() && embed == Embed::Now {
            let fresh: Vec<i64> = results
                .iter()
                .filter(|r| !r.existed)
                .map(|r| r.id)
                .collect();
            let done = self.embed_ids_unleased(&fresh)?;
            for r in results.iter_mut() {
                r.embedded = r.existed || done.contains(&r.id);
            }
        }
        Ok(())
    }

    /// After a committed write whose index update failed: say so in `doctor` and recall's
    /// channel status until the indexes have caught up.
    pub(super) fn mark_stale(&self, why: &str) {
        if let Ok(mut h) = self.bm25_health.lock() {
            *h = IndexHealth::Stale(why.to_string());
        }
    }
}
