//! The two learners, in plain arithmetic (a few dozen lines each, no learning crate: the
//! models are 5 and 18 numbers, trained on hundreds of pairs, and a crate such as linfa
//! would bring ndarray and a batch optimiser for what one loop does here).
//!
//! **v1**: per query class, one multiplier per channel on the fused weights. Each feedback
//! event moves the log-multipliers of the channels that carried the judged memory more
//! than they carried the rest of that recall: up for a good one, down for a bad one. The
//! multipliers are recomputed from all of the profile's feedback, in time order, and each
//! is held within [`V1_MAX_FACTOR`] of the fused default after every step.
//!
//! **v2**: a pairwise logistic model (RankNet with a linear scorer). A memory's learned
//! score is its fused score × exp(u·x), where x are its features, so u = 0 is exactly the
//! fused order. Each feedback event gives pairs (the good memory over each memory listed
//! above it and over the rest of the first [`PAIR_DEPTH`]; every memory of the first
//! [`PAIR_DEPTH`] not also marked bad over a bad one), and u takes [`V2_EPOCHS`] gradient steps on them,
//! starting from the stored u: incremental, and shrunk toward 0 so a few marks move little.

use super::features;
use crate::recall::fusion::RRF_K;
use crate::store::recall_log::LoggedRecall;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// No channel weight is ever moved beyond this factor of its fused default (2× up, ½ down).
pub const V1_MAX_FACTOR: f64 = 2.0;
/// Step of the v1 update per unit of share difference. With typical share differences of
/// 0.1–0.4, about ten consistent marks reach the bound. Chosen, not tuned.
pub const V1_RATE: f64 = 0.25;
/// Memories of a recall the pairs are drawn from (what a person reads of a list).
pub const PAIR_DEPTH: usize = 10;
/// v2 step size, L2 shrinkage toward u = 0, passes over each event's pairs, bound on |u|.
/// Plain single-pass SGD. The first choice (0.1, 8 passes) overfit: on
/// `slm eval locomo --ranking v2` (dev, half the questions train) it cut R@5 from 0.700 to
/// 0.555; 0.05 × 2 passes gave 0.686 / R@10 0.789, and 0.02 × 1 pass 0.705 / 0.785 (off:
/// 0.700 / 0.758). Three points tried, the gentlest kept; not tuned further.
pub const V2_RATE: f64 = 0.02;
pub const V2_L2: f64 = 0.01;
pub const V2_EPOCHS: usize = 1;
pub const V2_MAX_WEIGHT: f64 = 4.0;
/// An implicit signal (a result expanded or shown soon after the recall) counts this much
/// of an explicit mark.
pub const IMPLICIT_WEIGHT: f64 = 0.5;

pub use crate::store::recall_log::Label;

/// A mark as a learner's target: +1 good, −1 bad.
fn sign(l: Label) -> f64 {
    match l {
        Label::Good => 1.0,
        Label::Bad => -1.0,
    }
}

/// One mark on one memory of one logged recall.
#[derive(Debug, Clone)]
pub struct Event<'a> {
    pub recall: &'a LoggedRecall,
    pub memory_id: i64,
    pub label: Label,
    /// 1 for an explicit mark, [`IMPLICIT_WEIGHT`] for an implicit one.
    pub weight: f64,
    /// Every mark on this recall (so a pair never sets two good memories against each other).
    pub others: HashMap<i64, Label>,
}

/// v1's learned state: log-multipliers per query class, in `Channel::ALL` order.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct V1 {
    pub classes: BTreeMap<String, [f64; 5]>,
}

/// Each channel's share of a memory's fused score.
fn shares(weights: &[f64; 5], ranks: &[u32; 5]) -> [f64; 5] {
    let mut s = [0.0; 5];
    for c in 0..5 {
        if ranks[c] > 0 {
            s[c] = weights[c] / (RRF_K + ranks[c] as f64);
        }
    }
    let total: f64 = s.iter().sum();
    if total > 0.0 {
        for v in s.iter_mut() {
            *v /= total;
        }
    }
    s
}

impl V1 {
    /// Learn from all events, oldest first.
    pub fn learn(events: &[Event<'_>]) -> V1 {
        let mut v = V1::default();
        let bound = V1_MAX_FACTOR.ln();
        for e in events {
            let Some(item) = e.recall.item(e.memory_id) else {
                continue;
            };
            let top: Vec<_> = e.recall.items.iter().take(PAIR_DEPTH).collect();
            let mut mean = [0.0; 5];
            for it in &top {
                let s = shares(&e.recall.weights, &it.ranks);
                for c in 0..5 {
                    mean[c] += s[c] / top.len() as f64;
                }
            }
            let s = shares(&e.recall.weights, &item.ranks);
            let logm = v
                .classes
                .entry(e.recall.query_class.clone())
                .or_insert([0.0; 5]);
            for c in 0..5 {
                logm[c] += V1_RATE * sign(e.label) * e.weight * (s[c] - mean[c]);
                logm[c] = logm[c].clamp(-bound, bound);
            }
        }
        v
    }

    /// The multipliers for a query class (1 for a class with no feedback).
    pub fn factors(&self, class: &str) -> [f64; 5] {
        let mut f = [1.0; 5];
        if let Some(l) = self.classes.get(class) {
            for c in 0..5 {
                f[c] = l[c].exp();
            }
        }
        f
    }

    /// A memory's score under the learned weights, as a factor on its fused score: the
    /// re-weighted reciprocal-rank sum over the default one (1 when no producer ranked it).
    pub fn score_factor(weights: &[f64; 5], factors: &[f64; 5], ranks: &[u32; 5]) -> f64 {
        let (mut new, mut old) = (0.0, 0.0);
        for c in 0..5 {
            if ranks[c] > 0 {
                let rr = weights[c] / (RRF_K + ranks[c] as f64);
                old += rr;
                new += rr * factors[c];
            }
        }
        if old > 0.0 { new / old } else { 1.0 }
    }
}

/// v2's learned state.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct V2 {
    pub feature_version: i64,
    /// One weight per feature (`features::NAMES`).
    pub u: Vec<f64>,
    /// Pairs trained on so far.
    pub pairs: usize,
}

impl Default for V2 {
    fn default() -> V2 {
        V2 {
            feature_version: features::FEATURE_VERSION,
            u: vec![0.0; features::LEN],
            pairs: 0,
        }
    }
}

/// (preferred, other) item indexes of one event's pairs.
pub fn pairs(e: &Event<'_>) -> Vec<(usize, usize)> {
    let items = &e.recall.items;
    let Some(j) = items.iter().position(|i| i.id == e.memory_id) else {
        return Vec::new();
    };
    let judged_same = |id: i64| e.others.get(&id) == Some(&e.label);
    let mut out = Vec::new();
    for (k, it) in items.iter().enumerate() {
        if k == j || judged_same(it.id) {
            continue;
        }
        match e.label {
            // Over everything listed above it, and the rest of what a person reads.
            Label::Good if it.pos < items[j].pos || k < PAIR_DEPTH => out.push((j, k)),
            // Below every other memory of what a person reads not also marked bad.
            Label::Bad if k < PAIR_DEPTH => out.push((k, j)),
            _ => {}
        }
    }
    out
}

impl V2 {
    /// The learned change of a memory's log-score.
    pub fn delta(&self, x: &[f32]) -> f64 {
        self.u.iter().zip(x).map(|(u, x)| u * *x as f64).sum()
    }

    /// Gradient steps on one event's pairs, from the current weights.
    pub fn update(&mut self, e: &Event<'_>) {
        let ps = pairs(e);
        if ps.is_empty() || e.recall.feature_version != self.feature_version {
            return;
        }
        let items = &e.recall.items;
        for _ in 0..V2_EPOCHS {
            for &(a, b) in &ps {
                let (ia, ib) = (&items[a], &items[b]);
                let offset = ia.base.max(1e-12).ln() - ib.base.max(1e-12).ln();
                let z = offset + self.delta(&ia.f) - self.delta(&ib.f);
                // d/dz of -ln σ(z) is -σ(-z).
                let g = e.weight / (1.0 + z.exp());
                for (k, u) in self.u.iter_mut().enumerate() {
                    let dx = (ia.f[k] - ib.f[k]) as f64;
                    *u += V2_RATE * (g * dx - V2_L2 * *u);
                    *u = u.clamp(-V2_MAX_WEIGHT, V2_MAX_WEIGHT);
                }
            }
        }
        self.pairs += ps.len();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::recall_log::LoggedItem;

    fn recall(items: Vec<(i64, [u32; 5], f64, Vec<f32>)>) -> LoggedRecall {
        LoggedRecall {
            recall_id: "r0000000000000001".into(),
            profile: "default".into(),
            at_ms: 0,
            query: "q".into(),
            query_class: "factual".into(),
            weights: [1.0, 1.0, 0.0, 0.0, 0.0],
            feature_version: features::FEATURE_VERSION,
            items: items
                .into_iter()
                .enumerate()
                .map(|(i, (id, ranks, base, f))| LoggedItem {
                    id,
                    pos: i + 1,
                    shown: true,
                    base,
                    ranks,
                    f,
                })
                .collect(),
        }
    }

    fn feat(a: f32) -> Vec<f32> {
        let mut f = vec![0.0; features::LEN];
        f[0] = a;
        f
    }

    #[test]
    fn v1_moves_toward_the_channel_that_found_the_good_memory_and_stays_bounded() {
        // Memory 2 was found by bm25 alone, the others by semantic alone.
        let r = recall(vec![
            (1, [1, 0, 0, 0, 0], 0.1, feat(0.0)),
            (2, [0, 1, 0, 0, 0], 0.09, feat(0.0)),
            (3, [2, 0, 0, 0, 0], 0.08, feat(0.0)),
        ]);
        let ev = |label| Event {
            recall: &r,
            memory_id: 2,
            label,
            weight: 1.0,
            others: HashMap::new(),
        };
        let once = V1::learn(&[ev(Label::Good)]).factors("factual");
        assert!(once[1] > 1.0 && once[0] < 1.0, "{once:?}");
        let many: Vec<_> = (0..200).map(|_| ev(Label::Good)).collect();
        let f = V1::learn(&many).factors("factual");
        assert!((f[1] - V1_MAX_FACTOR).abs() < 1e-9, "{f:?}");
        assert!((f[0] - 1.0 / V1_MAX_FACTOR).abs() < 1e-9, "{f:?}");
        assert_eq!(V1::learn(&many).factors("temporal"), [1.0; 5]);
        let bad = V1::learn(&[ev(Label::Bad)]).factors("factual");
        assert!(bad[1] < 1.0, "{bad:?}");
    }

    #[test]
    fn v2_learns_the_feature_that_marks_good_memories() {
        // The good memory is third by fused score but has feature 0 set.
        let r = recall(vec![
            (1, [1, 0, 0, 0, 0], 0.10, feat(0.0)),
            (2, [2, 0, 0, 0, 0], 0.09, feat(0.0)),
            (3, [3, 0, 0, 0, 0], 0.08, feat(1.0)),
        ]);
        let e = Event {
            recall: &r,
            memory_id: 3,
            label: Label::Good,
            weight: 1.0,
            others: HashMap::new(),
        };
        assert_eq!(pairs(&e), vec![(2, 0), (2, 1)]);
        let mut m = V2::default();
        assert_eq!(m.delta(&feat(1.0)), 0.0);
        for _ in 0..200 {
            m.update(&e);
        }
        let score = |i: usize| r.items[i].base.ln() + m.delta(&r.items[i].f);
        assert!(score(2) > score(0), "u = {:?}", m.u);
        assert!(m.u.iter().all(|u| u.abs() <= V2_MAX_WEIGHT));
        assert_eq!(m.pairs, 400);
    }

    #[test]
    fn a_bad_mark_pairs_it_below_the_memories_read_with_it_except_other_bad_ones() {
        let r = recall(vec![
            (1, [1, 0, 0, 0, 0], 0.10, feat(1.0)),
            (2, [2, 0, 0, 0, 0], 0.09, feat(0.0)),
            (3, [3, 0, 0, 0, 0], 0.08, feat(0.0)),
        ]);
        let mut others = HashMap::new();
        others.insert(3, Label::Bad);
        let e = Event {
            recall: &r,
            memory_id: 1,
            label: Label::Bad,
            weight: 1.0,
            others,
        };
        assert_eq!(pairs(&e), vec![(1, 0)]);
    }
}
