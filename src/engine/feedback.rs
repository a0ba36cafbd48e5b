//! The engine's side of feedback for the learned ranking modes: the recent-recall log and
//! the stored marks and models (what to record and learn is `recall::ranking_mode::feedback`).
//!
//! A recall is logged in memory only ([`RECENT_RECALLS`] of them), so asking costs no
//! write; it reaches the store with the first mark on it, or when this engine is dropped
//! (the cold path's process ends, the worker stops).

use super::Engine;
use crate::Result;
use crate::lock::WRITE_WAIT;
use crate::store::recall_log::{LoggedRecall, RECALL_LOG_TTL_MS, RECENT_RECALLS};
use crate::store::{FeedbackRow, ForgetCounts, Writer};
use std::sync::Arc;
use std::time::Duration;

/// How long dropping an engine waits for the writer lease to keep its recent recalls.
const FLUSH_WAIT: Duration = Duration::from_secs(2);

impl Engine {
    /// Keep a recall for feedback (in memory; see the module docs).
    pub fn log_recall(&self, r: LoggedRecall) {
        if let Ok(mut q) = self.recent_recalls.lock() {
            if q.len() >= RECENT_RECALLS {
                q.pop_front();
            }
            q.push_back(Arc::new(r));
        }
    }

    /// A logged recall by id: a recent one in memory, else a stored one.
    pub fn find_recall(&self, recall_id: &str) -> Result<Option<LoggedRecall>> {
        let mem = self.recent_recalls.lock().ok().and_then(|q| {
            q.iter()
                .rev()
                .find(|r| r.recall_id == recall_id)
                .map(|r| (**r).clone())
        });
        match mem {
            Some(r) => Ok(Some(r)),
            None => self.store()?.recall_log(recall_id),
        }
    }

    /// The newest recall of `profile` since `since_ms` that `wanted` picks: a recent one in
    /// memory, else a stored one.
    pub fn latest_recall(
        &self,
        profile: &str,
        since_ms: i64,
        wanted: impl Fn(&LoggedRecall) -> bool,
    ) -> Result<Option<LoggedRecall>> {
        let mem = self
            .recent_recalls
            .lock()
            .ok()
            .and_then(|q| q.iter().rev().find(|r| wanted(r)).map(|r| (**r).clone()));
        match mem {
            Some(r) => Ok(Some(r)),
            None => Ok(self
                .store()?
                .recall_logs_since(profile, since_ms)?
                .into_iter()
                .find(|r| wanted(r))),
        }
    }

    /// Write feedback records (marks, logged recalls, models) in one transaction, under the
    /// writer lease.
    pub fn write_feedback<T>(&self, f: impl FnOnce(&Writer<'_>) -> Result<T>) -> Result<T> {
        self.writable()?;
        let _lease = self.lease(WRITE_WAIT)?;
        self.store()?.write(f)
    }

    /// Marks, newest first (one profile, or all when None).
    pub fn feedback_list(&self, profile: Option<&str>, limit: usize) -> Result<Vec<FeedbackRow>> {
        self.store()?.feedback_rows(profile, limit)
    }

    /// Remove marks, logged recalls and models (one profile, or all when None). The order
    /// of that profile's recalls is the fused one again.
    pub fn feedback_forget(&self, profile: Option<&str>) -> Result<ForgetCounts> {
        let counts = self.write_feedback(|w| w.forget_feedback(profile))?;
        if let Ok(mut q) = self.recent_recalls.lock() {
            q.retain(|r| profile.is_some_and(|p| r.profile != p));
        }
        Ok(counts)
    }

    /// Keep the recent recalls in the store (so feedback finds them after this process
    /// ends) and prune stored ones nobody marked. Best effort: on a data dir that takes no
    /// writes, or when the writer lease is busy, the recent recalls are dropped.
    pub fn flush_recall_log(&self) -> Result<usize> {
        let recent: Vec<Arc<LoggedRecall>> = match self.recent_recalls.lock() {
            Ok(mut q) => q.drain(..).collect(),
            Err(_) => return Ok(0),
        };
        if recent.is_empty() || self.read_only.is_some() {
            return Ok(0);
        }
        let cutoff = self.clock.now_ms() - RECALL_LOG_TTL_MS;
        let _lease = self.lease(FLUSH_WAIT)?;
        let mut store = self.store()?;
        store.write(|w| {
            let mut n = 0;
            for r in recent.iter().filter(|r| r.at_ms >= cutoff) {
                w.put_recall_log(r)?;
                n += 1;
            }
            w.prune_recall_log(cutoff)?;
            Ok(n)
        })
    }
}
