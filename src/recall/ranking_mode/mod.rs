//! Stage 7: the ranking mode. Learned adaptive ranking is **off** unless the request asks
//! for it (`SLM_RANKING=v1|v2|v2-ensemble`, read by the front that builds the request, so
//! the caller's environment decides, not the worker's). Nothing else turns it on: no
//! setting, no store upgrade. An unknown value is a usage error, never ignored.
//!
//! Asked for, a mode learns from this profile's own feedback (`slm feedback`, the MCP
//! `feedback` tool, and weak implicit signals; see `feedback.rs`) and only
//! reorders the memories that already passed the evidence floor: it never adds or hides
//! one. Below [`MIN_FEEDBACK`] marks it reports `applied: false` with the reason and
//! changes nothing.
//!
//! - `v1`: per query class, channel-weight multipliers (bounded, `learn::V1_MAX_FACTOR`);
//! - `v2`: a pairwise logistic model over the candidate's features (`features.rs`);
//! - `v2-ensemble`: the two orders combined by reciprocal rank.

pub mod features;
pub mod feedback;
pub mod learn;
/// The recall log is a stored record (`store::recall_log`); named here as the stage sees it.
pub use crate::store::recall_log as log;

use crate::recall::channels::Channel;
use crate::recall::classify::{QueryClass, Weights};
use crate::recall::fusion::{Candidate, RRF_K, weight_of};
use learn::{V1, V2};
use serde::{Deserialize, Serialize};

pub const RANKING_ENV: &str = "SLM_RANKING";

/// Marks (explicit ones count 1, implicit ones `learn::IMPLICIT_WEIGHT`) a profile needs
/// before a requested mode changes its order. Chosen: about a week of occasional marks;
/// below it a handful of clicks would reorder everything. `slm eval locomo --ranking`
/// trains on ~75 marks a conversation, well above it.
pub const MIN_FEEDBACK: f64 = 10.0;

/// The modes `SLM_RANKING` can ask for.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    #[default]
    Off,
    V1,
    V2,
    V2Ensemble,
}

impl Mode {
    pub const LEARNED: [Mode; 3] = [Mode::V1, Mode::V2, Mode::V2Ensemble];

    pub fn name(self) -> &'static str {
        match self {
            Mode::Off => "off",
            Mode::V1 => "v1",
            Mode::V2 => "v2",
            Mode::V2Ensemble => "v2-ensemble",
        }
    }

    pub fn parse(s: &str) -> Option<Mode> {
        match s.trim() {
            "" | "off" => Some(Mode::Off),
            "v1" => Some(Mode::V1),
            "v2" => Some(Mode::V2),
            "v2-ensemble" => Some(Mode::V2Ensemble),
            _ => None,
        }
    }

    /// The mode this process's environment asks for (unset or empty: off).
    pub fn from_env() -> crate::Result<Mode> {
        let v = std::env::var(RANKING_ENV).unwrap_or_default();
        Mode::parse(&v).ok_or_else(|| {
            crate::Error::Usage(format!(
                "{RANKING_ENV}={v:?}: expected off, v1, v2 or v2-ensemble"
            ))
        })
    }
}

/// The `ranking_mode` field of every recall response.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RankingMode {
    /// "off", or the requested mode.
    pub requested: String,
    pub applied: bool,
    /// Why a requested mode was not applied, or what it did.
    pub note: Option<String>,
    /// This profile's feedback, weighted (explicit 1, implicit 0.5), when a mode was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feedback: Option<f64>,
    /// The version of each stored model used (they grow by one with each mark).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_version: Option<ModelVersions>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct ModelVersions {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub v1: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub v2: Option<i64>,
}

impl RankingMode {
    pub fn off() -> RankingMode {
        RankingMode {
            requested: "off".into(),
            applied: false,
            note: None,
            feedback: None,
            model_version: None,
        }
    }

    fn not_applied(mode: Mode, feedback: Option<f64>, why: String) -> RankingMode {
        RankingMode {
            requested: mode.name().into(),
            applied: false,
            note: Some(format!(
                "{RANKING_ENV}={}: not applied, {why}; the order comes from fusion and the reranker",
                mode.name()
            )),
            feedback,
            model_version: None,
        }
    }

    /// A requested mode that could not run (the keyword-only fallback, say).
    pub fn skipped(mode: Mode, why: &str) -> RankingMode {
        match mode {
            Mode::Off => RankingMode::off(),
            m => RankingMode::not_applied(m, None, why.to_string()),
        }
    }
}

/// What a profile's feedback has taught, as loaded for one recall.
#[derive(Debug, Clone, Default)]
pub struct Learned {
    /// Weighted marks (explicit 1, implicit `IMPLICIT_WEIGHT`).
    pub feedback: f64,
    pub v1: Option<(V1, i64)>,
    pub v2: Option<(V2, i64)>,
}

/// `--explain`: where each memory was before the mode and after, and by how much it moved.
#[derive(Debug, Clone, Serialize)]
pub struct Adjustment {
    pub id: i64,
    pub fused_position: usize,
    /// v1: the factor on the fused score from the learned channel weights.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub v1_factor: Option<f64>,
    /// v2: the learned change of the log-score (u·x).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub v2_delta: Option<f64>,
    pub final_position: usize,
}

/// What the stage did.
pub struct Applied {
    pub report: RankingMode,
    /// For each position of the new order, the candidate's index in the order it came in.
    pub order: Vec<usize>,
    pub adjustments: Vec<Adjustment>,
}

/// The query class's name as stored with feedback (`factual`, `temporal`, …).
pub fn class_name(c: QueryClass) -> String {
    serde_json::to_value(c)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The query's channel weights in `Channel::ALL` order.
pub fn channel_weights(w: &Weights) -> [f64; 5] {
    let mut out = [0.0; 5];
    for (i, c) in Channel::ALL.iter().enumerate() {
        out[i] = weight_of(w, *c);
    }
    out
}

/// Reorder `kept` by the requested mode. `feats[i]` are the features of `kept[i]`.
pub fn apply(
    mode: Mode,
    learned: Option<&Learned>,
    class: QueryClass,
    weights: &Weights,
    kept: &mut Vec<Candidate>,
    feats: &[Vec<f32>],
) -> Applied {
    let identity = |kept: &Vec<Candidate>| (0..kept.len()).collect::<Vec<_>>();
    if mode == Mode::Off {
        return Applied {
            report: RankingMode::off(),
            order: identity(kept),
            adjustments: Vec::new(),
        };
    }
    let learned = learned.cloned().unwrap_or_default();
    if learned.feedback < MIN_FEEDBACK {
        return Applied {
            report: RankingMode::not_applied(
                mode,
                Some(learned.feedback),
                format!(
                    "this profile has {} of the {MIN_FEEDBACK} feedback marks learned ranking needs (slm feedback RECALL_ID MEMORY_ID good|bad)",
                    learned.feedback
                ),
            ),
            order: identity(kept),
            adjustments: Vec::new(),
        };
    }
    let need_v1 = matches!(mode, Mode::V1 | Mode::V2Ensemble);
    let need_v2 = matches!(mode, Mode::V2 | Mode::V2Ensemble);
    if (need_v1 && learned.v1.is_none()) || (need_v2 && learned.v2.is_none()) {
        return Applied {
            report: RankingMode::not_applied(
                mode,
                Some(learned.feedback),
                "no model has been trained for it yet".into(),
            ),
            order: identity(kept),
            adjustments: Vec::new(),
        };
    }
    let w = channel_weights(weights);
    let n = kept.len();
    // The learned multipliers of this question's class, looked up once.
    let class_factors = learned
        .v1
        .as_ref()
        .filter(|_| need_v1)
        .map(|(m, _)| m.factors(&class_name(class)));
    let v1_factor: Vec<Option<f64>> = (0..n)
        .map(|i| {
            class_factors
                .as_ref()
                .map(|f| V1::score_factor(&w, f, &features::channel_ranks(&kept[i])))
        })
        .collect();
    let v2_delta: Vec<Option<f64>> = (0..n)
        .map(|i| {
            learned
                .v2
                .as_ref()
                .filter(|_| need_v2)
                .map(|(m, _)| m.delta(&feats[i]))
        })
        .collect();
    let by = |score: &dyn Fn(usize) -> f64| -> Vec<usize> {
        let mut idx: Vec<usize> = (0..n).collect();
        idx.sort_by(|&a, &b| score(b).total_cmp(&score(a)).then(a.cmp(&b)));
        idx
    };
    let v1_score = |i: usize| kept[i].score * v1_factor[i].unwrap_or(1.0);
    let v2_score = |i: usize| kept[i].score * v2_delta[i].unwrap_or(0.0).exp();
    let (order, new_score): (Vec<usize>, Vec<f64>) = match mode {
        Mode::V1 => (by(&v1_score), (0..n).map(v1_score).collect()),
        Mode::V2 => (by(&v2_score), (0..n).map(v2_score).collect()),
        _ => {
            // By rank: each memory's reciprocal rank under v1 plus under v2.
            let mut rrf = vec![0.0; n];
            for o in [by(&v1_score), by(&v2_score)] {
                for (pos, &i) in o.iter().enumerate() {
                    rrf[i] += 1.0 / (RRF_K + pos as f64 + 1.0);
                }
            }
            let top = kept.iter().map(|c| c.score).fold(0.0, f64::max);
            let best = rrf.iter().cloned().fold(0.0, f64::max).max(1e-12);
            let scores: Vec<f64> = rrf.iter().map(|r| top * r / best).collect();
            (by(&|i| scores[i]), scores)
        }
    };
    let mut final_pos = vec![0; n];
    for (pos, &i) in order.iter().enumerate() {
        final_pos[i] = pos + 1;
    }
    let mut adjustments: Vec<Adjustment> = (0..n)
        .map(|i| Adjustment {
            id: kept[i].id,
            fused_position: i + 1,
            v1_factor: v1_factor[i],
            v2_delta: v2_delta[i],
            final_position: final_pos[i],
        })
        .collect();
    adjustments.sort_by_key(|a| a.final_position);
    let moved = (0..n).filter(|&i| final_pos[i] != i + 1).count();
    let mut old: Vec<Option<Candidate>> = std::mem::take(kept).into_iter().map(Some).collect();
    for &i in &order {
        let mut c = old[i].take().expect("each index once");
        c.score = new_score[i];
        kept.push(c);
    }
    Applied {
        report: RankingMode {
            requested: mode.name().into(),
            applied: true,
            note: Some(format!(
                "{RANKING_ENV}={}: learned ranking from this profile's feedback moved {moved} of {n} memories",
                mode.name()
            )),
            feedback: Some(learned.feedback),
            model_version: Some(ModelVersions {
                v1: learned.v1.as_ref().filter(|_| need_v1).map(|m| m.1),
                v2: learned.v2.as_ref().filter(|_| need_v2).map(|m| m.1),
            }),
        },
        order,
        adjustments,
    }
}
