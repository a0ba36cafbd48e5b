//! Stage 4: entity-graph and cross-channel boosts, after fusion.
//!
//! The entity graph is not a producer: it scores the fused candidates by the entities they
//! share with the question (weighted by rarity), within a time budget. Within the same
//! budget, a candidate said by a person the question names gets a lift: "What does Melanie
//! paint?" is asked of Melanie's own words first, not of Caroline's "Nice painting, Mel!".
//! Candidates that two direct-evidence producers (semantic and BM25) agree on get a small
//! extra lift.

use super::channels::Channel;
use super::fusion::{self, Candidate};
use super::voice;
use crate::engine::Engine;
use crate::text;
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// Multiplier per unit of entity score: a candidate carrying all of the question's
/// entities gains 50 % over its fused score.
pub const ENTITY_BOOST: f64 = 0.5;
/// Extra multiplier for a candidate said by a person the question names. Measured in a
/// scratch replay of LoCoMo dev (dense cosine with passages, BM25, RRF, an entity boost of
/// 0.5), categories 1-4: R@5 0.752 → 0.757 / 0.760 / 0.760 at 0.15 / 0.25 / 0.5, each of
/// the four conversations the same or better at 0.25; confirmed with `slm eval locomo`.
pub const SPEAKER_BOOST: f64 = 0.25;
/// Extra multiplier when semantic and BM25 both found a candidate.
pub const AGREEMENT_BOOST: f64 = 0.15;
/// Candidates the entity graph looks at (the head of the fused list).
pub const ENTITY_DEPTH: usize = 60;
/// The entity graph's time budget; candidates not reached keep their fused score.
pub const ENTITY_BUDGET: Duration = Duration::from_millis(25);

#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct BoostReport {
    pub question_entities: Vec<String>,
    /// Candidates said by a person the question names.
    pub said_by_named: usize,
    pub scored: usize,
    pub budget_exhausted: bool,
}

/// The question's entity keys: extracted entities plus capitalised-or-code content words.
pub fn question_entities(query: &str) -> Vec<String> {
    let mut keys: Vec<String> = text::entities(query).into_iter().map(|e| e.norm).collect();
    for w in text::content_words(query) {
        if text::is_code_like(&w) && !keys.contains(&w) {
            keys.push(w);
        }
    }
    keys
}

/// `names`: the question's names of people, as words (`Classified::names`).
pub fn apply(
    engine: &Engine,
    query: &str,
    names: &[Vec<String>],
    entity_weight: f64,
    cands: &mut Vec<Candidate>,
) -> BoostReport {
    let start = Instant::now();
    let keys = question_entities(query);
    let mut report = BoostReport {
        question_entities: keys.clone(),
        ..Default::default()
    };
    // One pass over the head of the fused list, within one budget: who said each candidate
    // (when the question names people) and the entities it shares with the question.
    let mut said_by_named = HashSet::new();
    if !keys.is_empty() || !names.is_empty() {
        if let Ok(reader) = engine.reader() {
            let n = engine.num_docs().max(1) as f64;
            // Rarity weight per question entity: idf over memories that mention it.
            let found = if keys.is_empty() {
                Vec::new()
            } else {
                reader.entities_by_norm(&keys).unwrap_or_default()
            };
            let idf: Vec<(i64, f64)> = found
                .iter()
                .map(|(id, _, df)| (*id, ((n + 1.0) / (*df as f64 + 1.0)).ln().max(0.1)))
                .collect();
            let max_idf = idf.iter().map(|(_, w)| *w).fold(0.0, f64::max).max(1e-9);
            let total: f64 = keys.len() as f64;
            for c in cands.iter_mut().take(ENTITY_DEPTH) {
                if start.elapsed() > ENTITY_BUDGET {
                    report.budget_exhausted = true;
                    break;
                }
                if !names.is_empty() {
                    let speaker = reader.speaker(c.id).ok().flatten().map(|s| text::words(&s));
                    if speaker.is_some_and(|s| names.iter().any(|n| voice::same_person(&s, n))) {
                        said_by_named.insert(c.id);
                    }
                }
                if keys.is_empty() {
                    continue;
                }
                report.scored += 1;
                if found.is_empty() {
                    continue;
                }
                let mine: HashSet<i64> = reader
                    .entity_ids(c.id)
                    .unwrap_or_default()
                    .into_iter()
                    .collect();
                let shared: HashSet<&str> = found
                    .iter()
                    .filter(|(id, _, _)| mine.contains(id))
                    .map(|(_, norm, _)| norm.as_str())
                    .collect();
                if !shared.is_empty() {
                    let w: f64 = idf
                        .iter()
                        .filter(|(id, _)| mine.contains(id))
                        .map(|(_, w)| *w / max_idf)
                        .sum::<f64>();
                    c.entity_score =
                        (shared.len() as f64 / total).min(1.0) * (w / shared.len() as f64).min(1.0);
                }
            }
        }
    }
    report.said_by_named = said_by_named.len();
    for c in cands.iter_mut() {
        let mut b = 1.0 + ENTITY_BOOST * entity_weight * c.entity_score;
        if said_by_named.contains(&c.id) {
            b *= 1.0 + SPEAKER_BOOST;
        }
        if c.channels.contains_key(&Channel::Semantic) && c.channels.contains_key(&Channel::Bm25) {
            b *= 1.0 + AGREEMENT_BOOST;
        }
        c.boost = b;
        c.score = c.fused * b;
    }
    fusion::sort(cands);
    report
}
