//! What the learned modes see of a candidate: a short vector of signals slm already has
//! at this stage (per-channel rank and score, entity overlap, recency, kind, pin, trust,
//! the cosine's lift over the memory's baseline), each scaled to about 0..1 so one learning
//! rate fits all. The layout is versioned: a model trained on another layout is retrained
//! from the stored feedback, never applied to the wrong columns.

use crate::memory::Kind;
use crate::recall::channels::Channel;
use crate::recall::fusion::{Candidate, RRF_K};
use crate::store::MetaRow;

/// Bump when the layout below changes.
pub const FEATURE_VERSION: i64 = 1;

/// Names of the columns, in order (for `--explain`, the model dump and the tests).
pub const NAMES: [&str; 18] = [
    "semantic_rank",
    "bm25_rank",
    "temporal_rank",
    "spreading_rank",
    "hopfield_rank",
    "semantic_cosine",
    "semantic_lift",
    "entity_overlap",
    "recency",
    "pinned",
    "trust",
    "kind_note",
    "kind_decision",
    "kind_fact",
    "kind_prompt",
    "kind_event",
    "kind_bookkeeping",
    "channels_agreeing",
];

pub const LEN: usize = NAMES.len();

/// Recency's time constant: a memory a month old scores 1/e. Chosen, not measured: the
/// learner decides how much recency matters, this only sets the scale it sees.
pub const RECENCY_DAYS: f64 = 30.0;

const DAY_MS: f64 = 86_400_000.0;

/// Per-channel rank in the producer, 0 when the producer did not rank it (the order of
/// [`Channel::ALL`]), as stored in the recall log for v1.
pub fn channel_ranks(c: &Candidate) -> [u32; 5] {
    let mut r = [0u32; 5];
    for (i, ch) in Channel::ALL.iter().enumerate() {
        if let Some(h) = c.channels.get(ch) {
            r[i] = h.rank as u32;
        }
    }
    r
}

/// The feature vector of one candidate.
pub fn of(c: &Candidate, meta: Option<&MetaRow>, now_ms: i64) -> Vec<f32> {
    let mut f = vec![0f32; LEN];
    for (i, ch) in Channel::ALL.iter().enumerate() {
        if let Some(h) = c.channels.get(ch) {
            f[i] = (RRF_K / (RRF_K + h.rank as f64)) as f32;
        }
    }
    let cosine = c.channel_score(Channel::Semantic);
    if let Some(cos) = cosine {
        f[5] = cos as f32;
        if let Some(base) = meta.and_then(|m| m.baseline_sim) {
            f[6] = (cos as f32 - base).max(0.0);
        }
    }
    f[7] = c.entity_score as f32;
    if let Some(m) = meta {
        let age_days = ((now_ms - m.event_at) as f64 / DAY_MS).max(0.0);
        f[8] = (-age_days / RECENCY_DAYS).exp() as f32;
        f[9] = m.pinned as u8 as f32;
        f[10] = crate::recall::trust_of(m.source) as f32;
        let k = match m.kind {
            Kind::Note => 11,
            Kind::Decision => 12,
            Kind::Fact => 13,
            Kind::Prompt => 14,
            Kind::Event => 15,
            Kind::Bookkeeping => 16,
        };
        f[k] = 1.0;
    }
    f[17] = c.channels.len() as f32 / Channel::ALL.len() as f32;
    f
}
