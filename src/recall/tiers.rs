//! Stage 8: does any memory support the question? Three tiers.
//!
//! The support check scores **each memory on its own**: the evidence has to come from one
//! memory ("v0.3.4 snazzle" finds the v0.3.4 note by keyword and an unrelated stub by
//! cosine; neither alone supports the whole question). Its signals:
//!
//! * `lift` — how much closer the memory is to the question than a typical memory is:
//!   cosine(question, memory) minus the larger of the memory's stored baseline (its mean
//!   cosine to a sample of the store, so id-and-hash memories that sit near everything get
//!   no free pass) and the question's own baseline (its mean cosine to that sample);
//! * `coverage` — the share of the question's content words (stemmed) the memory carries;
//! * `rare_all` — whether it carries every rare word of the question;
//! * `entity` — a named entity in common (the boosts stage's entity score);
//! * `rerank` — the cross-encoder's score, when one ran.
//!
//! `support_score = W_LIFT·min(1, lift/LIFT_FULL) + W_COVERAGE·coverage + W_RARE·rare_all +
//! W_ENTITY·[entity>0] (+ W_RERANK·sigmoid(rerank))`. A memory supports the question when
//! the score reaches `SUPPORTED_AT` and it passes the word-match test. The thresholds were
//! chosen on the LoCoMo dev split and the dev question lists as a whole (the trade-off table
//! is printed by `slm eval locomo --sweep`), never on single lines.
//!
//! Question-level gibberish signs send a recall straight to `none`: content words found in
//! no memory at all, or a shape like the nonsense lists (keyboard runs, repeated tokens, bare
//! hashes, no content words).

use super::channels::Channel;
use super::classify::Classified;
use super::fusion::Candidate;
use super::{RecallRequest, View};
use crate::engine::Engine;
use crate::{Result, embed, text};
use serde::Serialize;
use std::collections::HashSet;

pub const W_LIFT: f64 = 0.45;
pub const W_COVERAGE: f64 = 0.35;
pub const W_RARE: f64 = 0.10;
pub const W_ENTITY: f64 = 0.10;
pub const W_RERANK: f64 = 0.20;
/// A lift of this much cosine above typical counts in full.
pub const LIFT_FULL: f64 = 0.35;
/// Support score a memory needs to support the question.
pub const SUPPORTED_AT: f64 = 0.45;
/// Support score below which a memory is not even related.
pub const RELATED_AT: f64 = 0.20;
/// A content word is rare when at most this share of memories carry it (none counts).
pub const RARE_SHARE: f64 = 0.02;
/// …or at most this many memories, for small stores.
pub const RARE_MAX_DOCS: u64 = 3;
/// Candidates the support check scores (the head of the ranked pool).
pub const SUPPORT_DEPTH: usize = 30;
/// Related answers show at most this many memories (the spec: up to three).
pub const RELATED_MAX: usize = 3;
/// Warming answers show at most this many keyword results (the spec: up to five).
pub const WARMING_MAX: usize = 5;
/// Shown weak matches (with show_weak).
pub const WEAK_MAX: usize = 5;
/// A question whose content words are mostly not word-like is gibberish.
pub const GIBBERISH_WORDLIKE_BELOW: f64 = 0.5;

pub const NOTE_RELATED: &str = "I don't have this exactly — here are the closest memories.";
pub const NOTE_RELATED_AGENT: &str =
    "I don't have this exactly. Closer memories exist; ask with include_related to see them.";
pub const NOTE_WARMING: &str =
    "slm is still warming up — results may be incomplete. Try again in a few minutes.";

/// The spec's "That isn't in SuperLocalMemory.", with the name slm shows users.
pub fn note_none() -> String {
    format!("That isn't in {}.", crate::PRODUCT_NAME)
}

/// Time words that never count as content the memory must carry.
const TIME_WORDS: &[&str] = &[
    "last",
    "next",
    "ago",
    "yesterday",
    "today",
    "tomorrow",
    "recently",
    "week",
    "month",
    "year",
    "weekend",
];
/// Weight of the temporal score in the support score for questions that name a time.
pub const W_TIME: f64 = 0.30;

pub const GATE_ENV: &str = "SLM_RECALL_NO_SUPPORT_GATE";

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AnswerTier {
    Supported,
    Related,
    None,
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    Supported,
    Weak,
    Related,
}

#[derive(Debug, Clone, Serialize)]
pub struct SupportSignals {
    pub id: i64,
    pub cosine: Option<f64>,
    pub baseline: f64,
    pub lift: f64,
    pub coverage: f64,
    pub rare_all: bool,
    pub entity: bool,
    pub rerank: Option<f64>,
    pub score: f64,
    pub word_match: bool,
    pub names_ok: bool,
    pub supported: bool,
}

pub struct Context<'a> {
    pub engine: &'a Engine,
    pub req: &'a RecallRequest,
    pub q: &'a Classified,
    pub query_vec: Option<&'a [f32]>,
    /// Vector search or a configured reranker did not run: nothing was measured.
    pub warming: bool,
    pub degraded_reason: Option<String>,
    pub cosine_floor: f32,
}

pub struct Decision {
    /// Why the question read as gibberish, when it did.
    pub gibberish: Option<&'static str>,
    pub tier: AnswerTier,
    pub note: Option<String>,
    pub warming: bool,
    pub results: Vec<(Candidate, Tier, Option<f64>)>,
    pub weak: Vec<(Candidate, Tier, Option<f64>)>,
    pub signals: Vec<SupportSignals>,
}

/// Question words the support check compares: content words, stemmed.
fn stems(words: &[String]) -> Vec<String> {
    let mut seen = HashSet::new();
    words
        .iter()
        .map(|w| text::stem(w))
        .filter(|s| seen.insert(s.clone()))
        .collect()
}

/// Does the question look like gibberish? Returns the reason.
pub fn gibberish(ctx: &Context<'_>, best_cosine: f64) -> Option<&'static str> {
    let q = ctx.q;
    if q.content_words.is_empty() {
        return Some("no content words");
    }
    let g = text::gibberish_signs(&ctx.req.query);
    if g.repeated && g.content_words > 0 {
        return Some("repeated tokens");
    }
    if g.keyboard_runs > 0 && g.keyboard_runs * 2 >= g.content_words {
        return Some("keyboard runs");
    }
    if g.hex_like > 0 && g.hex_like == g.content_words {
        return Some("bare ids or hashes");
    }
    if g.content_words > 0
        && (g.wordlike as f64) / (g.content_words as f64) < GIBBERISH_WORDLIKE_BELOW
    {
        return Some("words that are not words");
    }
    // Words found in no memory at all. A statement (no question word) must be carried word
    // for word, so one unknown word means no memory holds it. A question whose every word
    // is unknown and that no memory matches by meaning has nothing to be close to.
    let unknown = q
        .content_words
        .iter()
        .filter(|w| ctx.engine.doc_freq(w) == 0)
        .count();
    if !q.has_question_word && unknown > 0 {
        return Some("a word of it is in no memory");
    }
    if unknown == q.content_words.len() && best_cosine < ctx.cosine_floor as f64 {
        return Some("its words are in no memory");
    }
    None
}

pub fn gate_enabled(settings: &crate::settings::Settings) -> bool {
    let env_off = std::env::var(GATE_ENV).is_ok_and(|v| v == "1" || v.eq_ignore_ascii_case("true"));
    !env_off && settings.retrieval.answer_support_gate
}

pub fn decide(ctx: &Context<'_>, ranked: &[Candidate], _no_candidates: bool) -> Result<Decision> {
    let req = ctx.req;
    let limit = req.limit.max(1);
    let agent = matches!(req.view, View::Agent { .. });
    let include_related = matches!(
        req.view,
        View::Agent {
            include_related: true
        }
    );

    // The ungated behaviour, on request: the ranked list as it is.
    if !req.support_gate {
        let results: Vec<_> = ranked
            .iter()
            .take(limit)
            .map(|c| (c.clone(), Tier::Supported, None))
            .collect();
        let tier = if results.is_empty() {
            AnswerTier::None
        } else {
            AnswerTier::Supported
        };
        return Ok(Decision {
            gibberish: None,
            tier,
            note: None,
            warming: false,
            results,
            weak: Vec::new(),
            signals: Vec::new(),
        });
    }

    let n_docs = ctx.engine.num_docs().max(1);
    // Words of a time phrase ("last Friday") are matched by the temporal producer, not by
    // the memory's words, so the word tests leave them out.
    let time_words: HashSet<String> = ctx
        .q
        .time
        .refs
        .iter()
        .flat_map(|r| text::words(&r.matched))
        .chain(TIME_WORDS.iter().map(|w| w.to_string()))
        .collect();
    let words: Vec<String> = ctx
        .q
        .content_words
        .iter()
        .filter(|w| !time_words.contains(*w))
        .cloned()
        .collect();
    let q_stems = stems(&words);
    let rare: Vec<String> = words
        .iter()
        .filter(|w| {
            // A word in no memory is the rarest of all: no memory carries it.
            let df = ctx.engine.doc_freq(w);
            df <= RARE_MAX_DOCS || (df as f64) / (n_docs as f64) <= RARE_SHARE
        })
        .map(|w| text::stem(w))
        .collect();
    let q_base = question_baseline(ctx);
    let strict = !ctx.q.has_question_word;

    let mut signals = Vec::new();
    for c in ranked.iter().take(SUPPORT_DEPTH) {
        signals.push(score_one(ctx, c, &q_stems, &rare, q_base, strict)?);
    }

    // Present tense: no word-match test; answered from the newest memories.
    if ctx.q.present_tense && !ctx.warming {
        let mut newest: Vec<&Candidate> = ranked
            .iter()
            .filter(|c| c.channels.contains_key(&Channel::Temporal))
            .collect();
        newest.sort_by_key(|c| {
            c.channels
                .get(&Channel::Temporal)
                .map(|h| h.rank)
                .unwrap_or(usize::MAX)
        });
        let results: Vec<_> = newest
            .into_iter()
            .take(limit)
            .map(|c| (c.clone(), Tier::Supported, None))
            .collect();
        if !results.is_empty() {
            return Ok(Decision {
                gibberish: None,
                tier: AnswerTier::Supported,
                note: None,
                warming: false,
                results,
                weak: Vec::new(),
                signals,
            });
        }
    }

    let best_cosine = signals
        .iter()
        .filter_map(|s| s.cosine)
        .fold(f64::MIN, f64::max);
    let junk = gibberish(ctx, best_cosine);

    if ctx.warming {
        // Nothing was measured, so never "isn't in memory": keyword results, labelled related.
        // After a fall-back to keyword search a memory must carry every rare word and at least
        // half of the content words.
        let keep: Vec<_> = ranked
            .iter()
            .filter(|c| c.channels.contains_key(&Channel::Bm25))
            .filter(|c| {
                signals
                    .iter()
                    .find(|s| s.id == c.id)
                    .is_some_and(|s| s.rare_all && s.coverage >= 0.5)
            })
            .take(WARMING_MAX)
            .map(|c| {
                (
                    c.clone(),
                    Tier::Related,
                    signals.iter().find(|s| s.id == c.id).map(|s| s.score),
                )
            })
            .collect();
        let mut note = NOTE_WARMING.to_string();
        if let Some(r) = &ctx.degraded_reason {
            note.push_str(&format!(" ({r})"));
        }
        let shown = if agent && !include_related {
            Vec::new()
        } else {
            keep
        };
        return Ok(Decision {
            gibberish: None,
            tier: AnswerTier::Related,
            note: Some(note),
            warming: true,
            results: shown,
            weak: Vec::new(),
            signals,
        });
    }

    if let Some(_why) = junk {
        let weak = if req.show_weak {
            weak_list(ranked, &signals)
        } else {
            Vec::new()
        };
        return Ok(Decision {
            gibberish: junk,
            tier: AnswerTier::None,
            note: Some(note_none()),
            warming: false,
            results: Vec::new(),
            weak,
            signals,
        });
    }

    let supported: HashSet<i64> = signals
        .iter()
        .filter(|s| s.supported)
        .map(|s| s.id)
        .collect();
    if !supported.is_empty() {
        let results: Vec<_> = ranked
            .iter()
            .filter(|c| supported.contains(&c.id))
            .take(limit)
            .map(|c| {
                (
                    c.clone(),
                    Tier::Supported,
                    signals.iter().find(|s| s.id == c.id).map(|s| s.score),
                )
            })
            .collect();
        let weak = if req.show_weak {
            weak_list(
                &ranked
                    .iter()
                    .filter(|c| !supported.contains(&c.id))
                    .cloned()
                    .collect::<Vec<_>>(),
                &signals,
            )
        } else {
            Vec::new()
        };
        return Ok(Decision {
            gibberish: None,
            tier: AnswerTier::Supported,
            note: None,
            warming: false,
            results,
            weak,
            signals,
        });
    }

    // Pinned memories are still returned when nothing else is.
    let pinned: Vec<_> = ctx.engine.with_meta(|m| {
        ranked
            .iter()
            .filter(|c| m.get(&c.id).is_some_and(|r| r.pinned))
            .take(limit)
            .cloned()
            .collect::<Vec<_>>()
    })?;

    let mut related: Vec<(&Candidate, f64)> = ranked
        .iter()
        .filter_map(|c| signals.iter().find(|s| s.id == c.id).map(|s| (c, s)))
        .filter(|(_, s)| s.score >= RELATED_AT && (!strict || s.coverage > 0.0))
        .map(|(c, s)| (c, s.score))
        .collect();
    related.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.id.cmp(&b.0.id)));
    related.truncate(RELATED_MAX);
    // The closest by support, shown in ranking order.
    related.sort_by_key(|(c, _)| ranked.iter().position(|r| r.id == c.id));
    if !related.is_empty() {
        let shown: Vec<_> = if agent && !include_related {
            Vec::new()
        } else {
            related
                .iter()
                .map(|(c, s)| ((*c).clone(), Tier::Related, Some(*s)))
                .collect()
        };
        let note = if agent && !include_related {
            NOTE_RELATED_AGENT
        } else {
            NOTE_RELATED
        };
        let weak = if req.show_weak {
            weak_list(ranked, &signals)
        } else {
            Vec::new()
        };
        return Ok(Decision {
            gibberish: None,
            tier: AnswerTier::Related,
            note: Some(note.into()),
            warming: false,
            results: shown,
            weak,
            signals,
        });
    }
    if !pinned.is_empty() {
        let results = pinned
            .into_iter()
            .map(|c| (c, Tier::Related, None))
            .collect();
        return Ok(Decision {
            gibberish: None,
            tier: AnswerTier::Related,
            note: Some(NOTE_RELATED.into()),
            warming: false,
            results,
            weak: Vec::new(),
            signals,
        });
    }
    let weak = if req.show_weak {
        weak_list(ranked, &signals)
    } else {
        Vec::new()
    };
    Ok(Decision {
        gibberish: None,
        tier: AnswerTier::None,
        note: Some(note_none()),
        warming: false,
        results: Vec::new(),
        weak,
        signals,
    })
}

fn weak_list(
    ranked: &[Candidate],
    signals: &[SupportSignals],
) -> Vec<(Candidate, Tier, Option<f64>)> {
    ranked
        .iter()
        .take(WEAK_MAX)
        .map(|c| {
            (
                c.clone(),
                Tier::Weak,
                signals.iter().find(|s| s.id == c.id).map(|s| s.score),
            )
        })
        .collect()
}

/// The question's mean cosine to the store's baseline sample.
fn question_baseline(ctx: &Context<'_>) -> f64 {
    let Some(qv) = ctx.query_vec else { return 0.0 };
    let sample = ctx.engine.baseline_sample();
    if sample.is_empty() {
        return 0.0;
    }
    let sum: f64 = sample.iter().map(|v| embed::cosine(qv, v) as f64).sum();
    crate::engine::shrink_baseline(sum, sample.len())
}

fn score_one(
    ctx: &Context<'_>,
    c: &Candidate,
    q_stems: &[String],
    rare: &[String],
    q_base: f64,
    strict: bool,
) -> Result<SupportSignals> {
    let engine = ctx.engine;
    let text_m = engine.get(c.id)?.map(|m| m.text).unwrap_or_default();
    let m_stems: HashSet<String> = text::index_words(&text_m)
        .iter()
        .map(|w| text::stem(w))
        .collect();
    let carried = q_stems.iter().filter(|w| m_stems.contains(*w)).count();
    let coverage = if q_stems.is_empty() {
        0.0
    } else {
        carried as f64 / q_stems.len() as f64
    };
    let rare_all = rare.iter().all(|w| m_stems.contains(w));
    let cosine = match c.channel_score(Channel::Semantic) {
        Some(s) => Some(s),
        None => ctx.query_vec.and_then(|qv| {
            engine
                .with_vectors(|v| {
                    v.and_then(|v| v.get(c.id))
                        .map(|mv| embed::cosine(qv, &mv) as f64)
                })
                .ok()
                .flatten()
        }),
    };
    let baseline = engine
        .with_meta(|m| m.get(&c.id).and_then(|r| r.baseline_sim))
        .ok()
        .flatten()
        .map(|b| b as f64)
        .unwrap_or(crate::engine::BASELINE_PRIOR as f64)
        .max(q_base);
    let lift = cosine.map(|cs| cs - baseline).unwrap_or(0.0);
    let entity = c.entity_score > 0.0;
    let rerank = c.rerank_score.map(|r| 1.0 / (1.0 + (-(r as f64)).exp()));
    let mut score = W_LIFT * (lift / LIFT_FULL).clamp(0.0, 1.0)
        + W_COVERAGE * coverage
        + W_RARE * if rare_all { 1.0 } else { 0.0 }
        + W_ENTITY * if entity { 1.0 } else { 0.0 };
    if let Some(r) = rerank {
        score += W_RERANK * r;
    }
    if !ctx.q.time.refs.is_empty() {
        score += W_TIME * c.channel_score(Channel::Temporal).unwrap_or(0.0);
    }
    // The word-match test: a question with no question word is only answered by a memory
    // carrying its words; a question needs its rare words carried, or a memory that matches
    // it by meaning at the evidence floor (a paraphrase shares no rare word).
    let strong_meaning = cosine.is_some_and(|c| c >= ctx.cosine_floor as f64);
    let word_match = if strict {
        carried == q_stems.len() && !q_stems.is_empty()
    } else {
        rare_all || strong_meaning
    };
    // A question about a named person or thing is answered only by a memory that names it:
    // "What did Melanie realise…" is not answered by what Caroline said.
    let names_ok = ctx.q.names.is_empty()
        || ctx
            .q
            .names
            .iter()
            .any(|n| n.iter().all(|w| m_stems.contains(&text::stem(w))));
    let supported = word_match && names_ok && score >= SUPPORTED_AT;
    Ok(SupportSignals {
        id: c.id,
        cosine,
        baseline,
        lift,
        coverage,
        rare_all,
        entity,
        rerank,
        score,
        word_match,
        names_ok,
        supported,
    })
}
