//! What a recall ranked, kept so that feedback can name it later (`recall_id`), and the
//! mark feedback puts on one of its memories. Plain records: the store keeps them, the
//! engine holds the recent ones, `recall::ranking_mode` builds and learns from them.
//!
//! Every recall builds one [`LoggedRecall`]: the question, its class and channel weights,
//! and the first [`LOG_DEPTH`] candidates in the order returned, each with its fused score,
//! per-channel ranks and feature vector. The engine keeps the last [`RECENT_RECALLS`] in
//! memory (no write on the question's path); a recall reaches the store only when feedback
//! names it, or when the process that answered it stops (so `slm feedback` still finds a
//! recent recall after the worker exits). Stored recalls without feedback are pruned after
//! [`RECALL_LOG_TTL_MS`].

use serde::{Deserialize, Serialize};
use std::hash::{BuildHasher, Hasher};

/// Candidates logged per recall: the results a person sees (10 by default) and as many
/// again below them, so feedback on a memory found further down still has its features.
pub const LOG_DEPTH: usize = 20;
/// Recalls kept in memory for feedback. At ~3 KB each this is ~3 MB at most.
pub const RECENT_RECALLS: usize = 1024;
/// A stored recall nobody gave feedback on is deleted after this (one day): feedback is
/// given soon after a question, and the log holds the question's text.
pub const RECALL_LOG_TTL_MS: i64 = 24 * 3_600_000;

/// Feedback's mark on one memory of one recall.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Label {
    Good,
    Bad,
}

impl Label {
    pub fn as_str(&self) -> &'static str {
        match self {
            Label::Good => "good",
            Label::Bad => "bad",
        }
    }
    pub fn parse(s: &str) -> Option<Label> {
        match s.trim().to_ascii_lowercase().as_str() {
            "good" | "helpful" | "+" | "up" => Some(Label::Good),
            "bad" | "unhelpful" | "-" | "down" => Some(Label::Bad),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LoggedItem {
    pub id: i64,
    /// 1-based position in the order the recall returned (after any learned mode).
    pub pos: usize,
    /// Listed to the caller (a result or a weak/related match), not only ranked.
    pub shown: bool,
    /// The fused score after boosts, before any learned mode.
    pub base: f64,
    /// Rank in each producer (0: not ranked), in `Channel::ALL` order.
    pub ranks: [u32; 5],
    /// Features (`features::FEATURE_VERSION` layout).
    pub f: Vec<f32>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LoggedRecall {
    pub recall_id: String,
    pub profile: String,
    pub at_ms: i64,
    pub query: String,
    pub query_class: String,
    /// The query's channel weights, in `Channel::ALL` order.
    pub weights: [f64; 5],
    pub feature_version: i64,
    pub items: Vec<LoggedItem>,
}

impl LoggedRecall {
    pub fn item(&self, memory_id: i64) -> Option<&LoggedItem> {
        self.items.iter().find(|i| i.id == memory_id)
    }
}

/// A new recall id: `r` and 16 hex digits from the clock and a randomly seeded hash (no
/// two processes share a seed), so ids never repeat across the worker and the cold path.
pub fn new_recall_id(now_ms: i64) -> String {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_i64(now_ms);
    h.write_u32(std::process::id());
    h.write_u64(COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    format!("r{:016x}", h.finish())
}

/// Does this look like a recall id at all (so a typo is a usage error, not a lookup)?
pub fn valid_recall_id(s: &str) -> bool {
    s.len() == 17 && s.starts_with('r') && s[1..].bytes().all(|b| b.is_ascii_hexdigit())
}
