//! Stage 6: the optional cross-encoder rerank. It never blocks.
//!
//! The cross-encoder is loaded in the background when the engine opens (`embed::reranker`);
//! this stage only applies it. Until it is ready — and whenever none is configured — the
//! fused order stands and `reranker_status` says why. `scripts/setup.sh` installs a
//! cross-encoder that `reranker.dir` can name (ms-marco MiniLM L-12, the same files a reader
//! uses); it is not on by default: scoring the pool's head with it has not been measured
//! against what it costs a recall.

use super::fusion::Candidate;
use crate::embed::reranker::{Slot, State};
use crate::error::poisoned_message;
use serde::Serialize;

pub use crate::embed::reranker::RERANKER_DIR_ENV;
const RERANKER_LOCK: &str = "the reranker lock";

/// Candidates the cross-encoder scores (the head of the qualified pool).
pub const RERANK_DEPTH: usize = 30;

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "snake_case", tag = "state", content = "detail")]
pub enum RerankerStatus {
    /// No cross-encoder configured: the fused order is the order.
    NotConfigured,
    /// Loading in the background; this recall kept the fused order.
    Loading,
    /// It ran on this recall.
    Applied,
    /// Configured but unusable (the reason); the fused order stands.
    Unavailable(String),
    /// It failed on this recall (the reason); the fused order stands.
    Failed(String),
}

impl std::fmt::Display for RerankerStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RerankerStatus::NotConfigured => f.write_str("not configured"),
            RerankerStatus::Loading => f.write_str("still loading, so the fused order stands"),
            RerankerStatus::Applied => f.write_str("applied"),
            RerankerStatus::Unavailable(why) => write!(f, "unavailable ({why})"),
            RerankerStatus::Failed(why) => write!(f, "failed on this recall ({why})"),
        }
    }
}

/// Reorder the head of the qualified pool by the cross-encoder, when it is ready.
pub fn apply(
    slot: &Slot,
    query: &str,
    cands: &mut [Candidate],
    text_of: impl Fn(i64) -> Option<String>,
    keeps_place: impl Fn(i64) -> bool,
) -> RerankerStatus {
    let state = match slot.lock() {
        Ok(g) => g.clone(),
        Err(_) => return RerankerStatus::Failed(poisoned_message(RERANKER_LOCK)),
    };
    let model = match &*state {
        State::NotConfigured => return RerankerStatus::NotConfigured,
        State::Loading => return RerankerStatus::Loading,
        State::Unavailable(e) => return RerankerStatus::Unavailable(e.clone()),
        State::Ready(m) => m,
    };
    let n = cands.len().min(RERANK_DEPTH);
    if n == 0 {
        return RerankerStatus::Applied;
    }
    let docs: Vec<String> = cands[..n]
        .iter()
        .map(|c| text_of(c.id).unwrap_or_default())
        .collect();
    let Ok(mut m) = model.lock() else {
        return RerankerStatus::Failed(poisoned_message(RERANKER_LOCK));
    };
    match m.rerank(query.to_string(), docs, false, None) {
        Ok(rs) => {
            for r in rs {
                if let Some(c) = cands.get_mut(r.index) {
                    c.rerank_score = Some(r.score);
                }
            }
            // Reranked head, by cross-encoder score; the tail keeps its fused order below it,
            // and so does each candidate that keeps its place (a wordless picture).
            let head = &mut cands[..n];
            let slots: Vec<usize> = (0..n).filter(|&i| !keeps_place(head[i].id)).collect();
            let mut moved: Vec<Candidate> = slots.iter().map(|&i| head[i].clone()).collect();
            moved.sort_by(|a, b| {
                b.rerank_score
                    .unwrap_or(f32::MIN)
                    .total_cmp(&a.rerank_score.unwrap_or(f32::MIN))
                    .then(a.id.cmp(&b.id))
            });
            for (slot, c) in slots.into_iter().zip(moved) {
                head[slot] = c;
            }
            RerankerStatus::Applied
        }
        Err(e) => RerankerStatus::Failed(e.to_string()),
    }
}
