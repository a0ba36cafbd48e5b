//! The support score of one memory and the tests beside it (see the module doc of `tiers`):
//! its signals, the weights that mix them, and the word-match and names tests.

use super::Context;
use crate::engine::Engine;
use crate::recall::answer_check::support;
use crate::recall::channels::Channel;
use crate::recall::fusion::Candidate;
use crate::recall::voice;
use crate::{embed, text};
use serde::Serialize;
use std::collections::HashSet;

// The weights of the support score. Chosen by hand when the support check was written
// (lift and coverage carry the score, rare words and a shared entity tip it; the four sum to
// 1, so a memory with every signal scores 1 before a reranker), not tuned one by one since:
// what was measured is the threshold on their sum, SUPPORTED_AT, with them as they are.
/// Weight of the memory's lift over a typical memory (see `LIFT_FULL`).
pub const W_LIFT: f64 = 0.45;
/// Weight of the share of the question's words the answering statements carry.
pub const W_COVERAGE: f64 = 0.35;
/// Weight of carrying every rare word of the question.
pub const W_RARE: f64 = 0.10;
/// Weight of a named entity in common.
pub const W_ENTITY: f64 = 0.10;
/// Weight of the cross-encoder's score (squashed to 0..1), when one ran. Chosen, not
/// measured: no cross-encoder weights could be fetched here to measure it with.
pub const W_RERANK: f64 = 0.20;
/// A lift of this much cosine above typical counts in full. Chosen with the weights (same
/// commit), not measured.
pub const LIFT_FULL: f64 = 0.35;
/// Support score a memory needs to support the question. Measured with `slm eval locomo` on
/// the dev split (4 conversations), answerable questions with evidence in the top 3
/// supported / adversarial ones not supported: 0.35 → 0.909 / 0.480, 0.40 → 0.905 / 0.532,
/// 0.45 → 0.899 / 0.572 (the report's trade-off table). The answerable share is flat from
/// 0.38 to 0.42 (what it misses fails the word-match test, not the score), so 0.40 sits in
/// the middle of that plateau, the round value that meets both targets (≥ 0.90, ≥ 0.50).
/// Measured with all-MiniLM-L6-v2; a model's manifest may set its own (`supported_at`).
pub const SUPPORTED_AT: f64 = 0.40;
/// A question (with a question word) is carried by a memory whose answering statements hold
/// more than this share of its content words, even without every rare word: a paraphrase in
/// conversation rarely repeats them all. Without this route (rare words or meaning only),
/// at most 0.82 of the dev split's answerable questions with evidence in the top 3 could be
/// supported at any threshold. "More than half", not "half": two of four words ("the
/// billing team" of "What did the billing team decide about invoices?") is a topic shared,
/// not an answer, and on the dev split at the same answerable share it left 0.532 of the
/// adversarial questions unsupported against 0.520.
pub const WORDS_ENOUGH: f64 = 0.5;
/// A memory close in meaning (cosine at the evidence floor) still needs this share of the
/// question's words in its answering statements: a turn that only reacts to the topic
/// ("That bowl is awesome, Mel!") sits as close as one that answers. On the dev split a
/// third (0.25–0.40 measure alike) moved adversarial "not supported" from 0.46 to 0.53 at a
/// cost of 0.01 on answerable questions, offline on the same runs.
pub const MEANING_NEEDS_WORDS: f64 = 1.0 / 3.0;
/// A content word is rare when at most this share of memories carry it (none counts).
pub const RARE_SHARE: f64 = 0.02;
/// …or at most this many memories, for small stores.
pub const RARE_MAX_DOCS: u64 = 3;

/// Time words that never count as content the memory must carry.
pub(super) const TIME_WORDS: &[&str] = &[
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
/// Weight of the temporal score in the support score for questions that name a time (added
/// with the time-word handling in bea7e02). Chosen, not measured.
pub const W_TIME: f64 = 0.30;

#[derive(Debug, Clone, Serialize)]
pub struct SupportSignals {
    pub id: i64,
    pub cosine: Option<f64>,
    /// The semantic channel's score: the closer of the memory's own vector and its
    /// passages' (`text::passages`).
    pub semantic: Option<f64>,
    pub baseline: f64,
    pub lift: f64,
    /// Share of the question's content words in the memory's answering statements.
    pub coverage: f64,
    /// Every rare word is in the memory's answering statements.
    pub rare_all: bool,
    /// The same two over the memory's whole text (the keyword fall-back and related tier).
    pub text_coverage: f64,
    pub text_rare_all: bool,
    /// Share of the memory's words in its answering statements.
    pub answer_share: f64,
    pub entity: bool,
    pub rerank: Option<f64>,
    /// The answer check's confidence that this memory answers, when it judged it.
    pub judge: Option<f64>,
    /// The reader's confidence, when the reader judged it (it decides by its own rule).
    pub reader: Option<f64>,
    /// The support threshold this memory was held to (the loaded model's).
    pub threshold: f64,
    /// The temporal producer's score, when it matched.
    pub temporal: Option<f64>,
    pub score: f64,
    pub word_match: bool,
    pub names_ok: bool,
    /// The memory holds an answer of the kind the question asks for (always, when the
    /// question asks for no particular kind; see `answer_type`).
    pub of_type: bool,
    pub supported: bool,
}

impl SupportSignals {
    /// Why this memory is not supported, in words (the first test it fails, in the order
    /// the rule reads them); `None` when it is.
    pub fn why_not(&self) -> Option<String> {
        if self.supported {
            return None;
        }
        Some(match self.reader {
            Some(p) if p < support::READER_SUPPORTS_AT => format!(
                "the reader says it does not answer ({p:.2} < {:.2})",
                support::READER_SUPPORTS_AT
            ),
            Some(p) if p >= support::READER_SURE_AT && self.score < support::READER_SCORE_FLOOR => {
                format!(
                    "support {:.2} is below the floor {:.2} of an answer the reader is sure of",
                    self.score,
                    support::READER_SCORE_FLOOR
                )
            }
            _ if !self.word_match && self.reader.is_none_or(|p| p < support::READER_SURE_AT) => {
                "it does not carry the question's words (every word without a question word; \
                 else its rare words, or enough words with a close meaning)"
                    .to_string()
            }
            _ if !self.names_ok => {
                "it does not speak as, to or about the person or name asked about".to_string()
            }
            _ if !self.of_type => {
                "it states no answer of the kind asked for (an amount, a version, a number)"
                    .to_string()
            }
            _ => format!(
                "support {:.2} is below the threshold {:.2}",
                self.score, self.threshold
            ),
        })
    }
}

/// Question words the support check compares: content words, stemmed.
pub(super) fn stems(words: &[String]) -> Vec<String> {
    let mut seen = HashSet::new();
    words
        .iter()
        .map(|w| text::stem(w))
        .filter(|s| seen.insert(s.clone()))
        .collect()
}

/// The support check's threshold on `engine`: the loaded model's own, else [`SUPPORTED_AT`].
pub fn support_threshold(engine: &Engine) -> f64 {
    engine
        .embedder()
        .and_then(|e| e.supported_at())
        .unwrap_or(SUPPORTED_AT)
}

/// The question's mean cosine to the store's baseline sample.
pub(super) fn question_baseline(ctx: &Context<'_>) -> f64 {
    let Some(qv) = ctx.query_vec else { return 0.0 };
    let sample = ctx.engine.baseline_sample();
    if sample.is_empty() {
        return 0.0;
    }
    let sum: f64 = sample.iter().map(|v| embed::cosine(qv, v) as f64).sum();
    crate::engine::shrink_baseline(sum, sample.len())
}

/// What the question asks for, in the words the support check compares.
pub(super) struct Words<'a> {
    pub q_stems: &'a [String],
    pub rare: &'a [String],
    /// The question's names that are people of the store (see `voice`).
    pub people: &'a [Vec<String>],
}

/// Share of `q_stems` found in `m_stems`, and how many.
fn carried(q_stems: &[String], m_stems: &HashSet<String>) -> (usize, f64) {
    let n = q_stems.iter().filter(|w| m_stems.contains(*w)).count();
    let share = if q_stems.is_empty() {
        0.0
    } else {
        n as f64 / q_stems.len() as f64
    };
    (n, share)
}

pub(super) fn score_one(
    ctx: &Context<'_>,
    c: &Candidate,
    v: &voice::Voice,
    w: &Words<'_>,
    q_base: f64,
    strict: bool,
    of_type: bool,
) -> SupportSignals {
    let engine = ctx.engine;
    let (q_stems, rare) = (w.q_stems, w.rare);
    let stem_all =
        |ws: &mut dyn Iterator<Item = &str>| -> HashSet<String> { ws.map(text::stem).collect() };
    // Every word of the memory (its speaker label too), for the keyword fall-back and the
    // related tier, which ask what the memory carries…
    let all_stems = stem_all(
        &mut v.speaker.iter().map(String::as_str).chain(
            v.sentences
                .iter()
                .flat_map(|s| s.words.iter().map(String::as_str)),
        ),
    );
    // …and the words of its statements about the people the question names, which is what
    // can answer it.
    // A person the memory speaks as, to or about counts as carried, whether or not the name
    // is written in it ("Caroline: I ran…" carries "Caroline" by its speaker).
    let answer_words = v.answer_words(w.people);
    let all_words: usize = v.sentences.iter().map(|s| s.words.len()).sum();
    let answer_share = answer_words.len() as f64 / all_words.max(1) as f64;
    let mut m_stems = stem_all(&mut answer_words.into_iter());
    if !m_stems.is_empty() {
        for p in w.people.iter().filter(|p| v.concerns(p)) {
            m_stems.extend(p.iter().map(|w| text::stem(w)));
        }
    }
    let (_, text_coverage) = carried(q_stems, &all_stems);
    let text_rare_all = rare.iter().all(|w| all_stems.contains(w));
    let (carried_n, coverage) = carried(q_stems, &m_stems);
    let rare_all = rare.iter().all(|w| m_stems.contains(w));
    // The memory's own cosine (see `Context::own_cosines_for`); the channel's when its
    // vector was not there to read.
    let cosine = ctx
        .own_cosines
        .get(&c.id)
        .copied()
        .or_else(|| c.channel_score(Channel::Semantic));
    let baseline = engine
        .with_meta(|m| m.get(&c.id).and_then(|r| r.baseline_sim))
        .ok()
        .flatten()
        .map(|b| b as f64)
        .unwrap_or(crate::engine::BASELINE_PRIOR as f64)
        .max(q_base);
    let lift = cosine.map(|cs| cs - baseline).unwrap_or(0.0);
    let entity = c.entity_score > 0.0;
    let judge = ctx.answer_check.and_then(|a| a.confidence_for(c.id));
    let read = ctx.answer_check.and_then(|a| a.reader_confidence_for(c.id));
    // The reader decides for questions. A keyword lookup (no question word: "kubectl
    // ingest") is answered by the memory that carries its words (the strict word-match test
    // below), and a question about a time ("what did we decide last Friday?") by the time
    // channel: the reader sees neither the memory's date nor a question to answer, and said
    // no to both kinds where the memory was right (tests/it/one_word.rs, recall.rs).
    let reader = read.filter(|_| !strict && ctx.q.time.refs.is_empty());
    let rerank = c.rerank_score.map(|r| 1.0 / (1.0 + (-(r as f64)).exp()));
    // The cosine is the whole memory's; only its answering statements speak to the question,
    // so the lift counts in proportion ("Cool! What did it look like?" answers little).
    let mut score = W_LIFT * (lift / LIFT_FULL).clamp(0.0, 1.0) * answer_share
        + W_COVERAGE * coverage
        + W_RARE * if rare_all { 1.0 } else { 0.0 }
        + W_ENTITY * if entity { 1.0 } else { 0.0 };
    if let Some(r) = rerank {
        score += W_RERANK * r;
    }
    if !ctx.q.time.refs.is_empty() {
        score += W_TIME * c.channel_score(Channel::Temporal).unwrap_or(0.0);
    }
    // The reader decides by its own rule (below); other judges add a term to the score.
    if let (Some(p), None) = (judge, read) {
        score += support::term(p);
    }
    // The word-match test: a question with no question word is only answered by a memory
    // carrying its words; a question needs its rare words carried, or a memory that matches
    // it by meaning at the evidence floor (a paraphrase shares no rare word).
    // A memory that only asks ("What got you into running?") answers nothing.
    let strong_meaning = cosine.is_some_and(|c| c >= ctx.cosine_floor as f64);
    let answers = !m_stems.is_empty();
    let word_match = answers
        && if strict {
            carried_n == q_stems.len() && !q_stems.is_empty()
        } else {
            rare_all
                || (strong_meaning && coverage >= MEANING_NEEDS_WORDS)
                || coverage > WORDS_ENOUGH
                || judge.is_some_and(|p| p >= support::JUDGE_WORDS_AT)
        };
    // A question about a named person is answered only by a memory that speaks as, to or
    // about that person: "What did Melanie realise…" is not answered by what Caroline said,
    // nor by Caroline saying "Hey Melanie". Other names (places, things) must be named.
    let names_ok = if !w.people.is_empty() {
        w.people.iter().any(|p| v.concerns(p))
    } else {
        ctx.q.names.is_empty()
            || ctx
                .q
                .names
                .iter()
                .any(|n| n.iter().all(|w| all_stems.contains(&text::stem(w))))
    };
    // A question that asks for an amount, a version or a number is answered only by a
    // memory that states one (`answer_type`).
    let threshold = support_threshold(ctx.engine);
    let checked = word_match && names_ok && of_type && score >= threshold;
    let supported = match reader {
        Some(p) => {
            (checked && p >= support::READER_SUPPORTS_AT)
                || (p >= support::READER_SURE_AT
                    && score >= support::READER_SCORE_FLOOR
                    && names_ok
                    && of_type)
        }
        None => checked,
    };
    SupportSignals {
        id: c.id,
        cosine,
        semantic: c.channel_score(Channel::Semantic),
        baseline,
        lift,
        coverage,
        rare_all,
        text_coverage,
        text_rare_all,
        answer_share,
        entity,
        rerank,
        judge,
        reader,
        threshold,
        temporal: c.channel_score(Channel::Temporal),
        score,
        word_match,
        names_ok,
        of_type,
        supported,
    }
}
