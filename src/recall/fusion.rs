//! Stage 3: weighted reciprocal rank fusion (k = 15).
//!
//! RRF rewards agreement between producers without asking their scores to be comparable:
//! each producer adds `weight / (k + rank)` for every memory it ranked. Each candidate
//! keeps its per-channel rank and score for the floor, the support check and `--explain`.

use super::channels::{Channel, ChannelOutput};
use super::classify::Weights;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// The RRF constant the spec fixes. Smaller than the usual 60, so a producer's first few
/// ranks matter more than its long tail.
pub const RRF_K: f64 = 15.0;

#[derive(Debug, Clone, Copy, Serialize)]
pub struct ChannelHit {
    /// 1-based rank within the producer.
    pub rank: usize,
    pub score: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Candidate {
    pub id: i64,
    pub channels: BTreeMap<Channel, ChannelHit>,
    pub fused: f64,
    /// Entity-graph score in 0..1 (set by the boosts stage).
    pub entity_score: f64,
    pub boost: f64,
    /// After boosts (and rerank, when one ran).
    pub score: f64,
    pub rerank_score: Option<f32>,
}

impl Candidate {
    pub fn channel_score(&self, c: Channel) -> Option<f64> {
        self.channels.get(&c).map(|h| h.score)
    }
}

pub fn weight_of(w: &Weights, c: Channel) -> f64 {
    match c {
        Channel::Semantic => w.semantic,
        Channel::Bm25 => w.bm25,
        Channel::Temporal => w.temporal,
        Channel::Spreading => w.spreading,
        Channel::Hopfield => w.hopfield,
        // A semantic match over what pictures show: the question class's semantic weight.
        Channel::Picture => w.semantic,
    }
}

pub fn fuse(out: &ChannelOutput, w: &Weights) -> Vec<Candidate> {
    let mut by_id: HashMap<i64, Candidate> = HashMap::new();
    for c in Channel::ALL.into_iter().chain([Channel::Picture]) {
        let Some(hits) = out.hits.get(&c) else {
            continue;
        };
        let weight = weight_of(w, c);
        for (i, (id, score)) in hits.0.iter().enumerate() {
            let rank = i + 1;
            let cand = by_id.entry(*id).or_insert_with(|| Candidate {
                id: *id,
                channels: BTreeMap::new(),
                fused: 0.0,
                entity_score: 0.0,
                boost: 1.0,
                score: 0.0,
                rerank_score: None,
            });
            cand.channels.insert(
                c,
                ChannelHit {
                    rank,
                    score: *score,
                },
            );
            cand.fused += weight / (RRF_K + rank as f64);
        }
    }
    let mut v: Vec<Candidate> = by_id.into_values().collect();
    for c in &mut v {
        c.score = c.fused;
    }
    sort(&mut v);
    v
}

/// Best first; ties broken by id so the order is deterministic.
pub fn sort(v: &mut [Candidate]) {
    v.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
}
