//! Stage 8: does any memory support the question? Three tiers.
//!
//! The support check scores **each memory on its own**: the evidence has to come from one
//! memory ("v0.3.4 snazzle" finds the v0.3.4 note by keyword and an unrelated stub by
//! cosine; neither alone supports the whole question). A memory is first read by `voice`:
//! its questions carry no answer, its second-person statements are about whoever it
//! addresses, the rest are its speaker's own. Its **answering statements** are the ones that
//! speak about the people the question names (every statement when it names nobody). Signals:
//!
//! * `lift` — how much closer the memory is to the question than a typical memory is:
//!   cosine(question, memory) minus the larger of the memory's stored baseline (its mean
//!   cosine to a sample of the store, so id-and-hash memories that sit near everything get
//!   no free pass) and the question's own baseline (its mean cosine to that sample);
//! * `answer_share` — the share of the memory's words in its answering statements (the
//!   cosine is the whole memory's, so the lift counts in that proportion);
//! * `coverage` — the share of the question's content words (stemmed) its answering
//!   statements carry (a person it speaks as, to or about counts as carried);
//! * `rare_all` — whether they carry every rare word of the question;
//! * `entity` — a named entity in common (the boosts stage's entity score);
//! * `rerank` — the cross-encoder's score, when one ran.
//!
//! `support_score = W_LIFT·min(1, lift/LIFT_FULL)·answer_share + W_COVERAGE·coverage +
//! W_RARE·rare_all + W_ENTITY·[entity>0] (+ W_RERANK·sigmoid(rerank))`. A memory supports
//! the question when the score reaches `SUPPORTED_AT`, it has answering statements, it
//! passes the word-match test (a question: every rare word, or more than `WORDS_ENOUGH` of
//! its words, or a cosine at the evidence floor with `MEANING_NEEDS_WORDS` of them; no
//! question word: every word), when the question names a person of the store, it speaks as,
//! to or about that person, and when the question asks for an amount of money, a version or
//! a number, it states one (`answer_type`: "How much does Grafana Cloud cost us?" is not
//! answered by "We chose Grafana Cloud… because of price"). The thresholds were chosen on the LoCoMo dev split and the dev question lists
//! as a whole (the trade-off table is printed by `slm eval locomo`), never on single lines.
//!
//! Question-level gibberish signs send a recall straight to `none`: content words found in
//! no memory at all, or a shape like the nonsense lists (keyboard runs, repeated tokens, bare
//! hashes, no content words).
//!
//! Here: the tiers, the notes and the switch; `score` (one memory's support score and the
//! tests beside it), `answer_type` (what kind of answer a question asks for), `gibberish`
//! (the question-level signs), `decide` (which tier, which memories), `why` (the rule that
//! decided and why each memory left, for `--explain`).

mod answer_type;
mod decide;
mod gibberish;
mod score;
mod why;

pub use decide::{
    KEYWORD_FALLBACK_COVERAGE, RELATED_AT, RELATED_MAX, SUPPORT_DEPTH, WARMING_MAX, WEAK_MAX,
    decide,
};
pub use gibberish::{GIBBERISH_WORDLIKE_BELOW, gibberish};
pub use score::{
    LIFT_FULL, MEANING_NEEDS_WORDS, RARE_MAX_DOCS, RARE_SHARE, SUPPORTED_AT, SupportSignals,
    W_COVERAGE, W_ENTITY, W_LIFT, W_RARE, W_RERANK, W_TIME, WORDS_ENOUGH, support_threshold,
};
pub use why::{Left, Rule};

use super::RecallRequest;
use super::classify::Classified;
use super::fusion::Candidate;
use crate::engine::Engine;
use serde::Serialize;

pub const NOTE_RELATED: &str = "I don't have this exactly — here are the closest memories.";
pub const NOTE_RELATED_AGENT: &str =
    "I don't have this exactly. Closer memories exist; ask with include_related to see them.";
/// The warming note when nothing says how long warming takes (no model installed, or a
/// reranker that failed): no promise of a time slm cannot keep.
pub const NOTE_WARMING: &str = "slm is still warming up — results may be incomplete.";

/// The warming note while a worker loads its model, with the worker's own measured load
/// time (issue "The first question after idle"): seconds, never "a few minutes".
pub fn note_warming(estimate_ms: Option<u64>) -> String {
    match estimate_ms {
        Some(ms) => format!(
            "slm is still loading its model (about {} s) — results may be incomplete. Ask again in a moment.",
            ((ms as f64) / 1000.0).ceil().max(1.0) as u64
        ),
        None => NOTE_WARMING.to_string(),
    }
}

/// The spec's "That isn't in SuperLocalMemory.", with the name slm shows users.
pub fn note_none() -> String {
    format!("That isn't in {}.", crate::PRODUCT_NAME)
}

pub const GATE_ENV: &str = "SLM_RECALL_NO_SUPPORT_GATE";

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AnswerTier {
    Supported,
    Related,
    None,
}

impl std::fmt::Display for AnswerTier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            AnswerTier::Supported => "supported",
            AnswerTier::Related => "related",
            AnswerTier::None => "none",
        })
    }
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    Supported,
    Weak,
    Related,
}

pub struct Context<'a> {
    pub engine: &'a Engine,
    pub req: &'a RecallRequest,
    pub q: &'a Classified,
    pub query_vec: Option<&'a [f32]>,
    /// The own-vector cosine of the candidates the support check scores: the memory's own
    /// vector's, not the semantic channel's score (the closest of its own and its
    /// passages', for ranking): [`Context::own_cosines_for`].
    pub own_cosines: std::collections::HashMap<i64, f64>,
    /// Vector search or a configured reranker did not run: nothing was measured.
    pub warming: bool,
    pub degraded_reason: Option<String>,
    pub cosine_floor: f32,
    /// The answer check's outcome (stage 8), an input for the support score. Not used yet.
    pub answer_check: Option<&'a super::answer_check::AnswerCheck>,
    /// The wordless pictures among the candidates (the floor kept them by their note or
    /// their picture-channel score): shown as related, never supported, since no judge can
    /// read what they show.
    pub wordless: &'a std::collections::HashSet<i64>,
}

impl Context<'_> {
    /// The own-vector cosines the support check needs for `cands` (the first
    /// [`decide::SUPPORT_DEPTH`]), when there is a query vector: those the semantic producer
    /// already measured (`scored`), the rest from their stored vectors.
    ///
    /// The support check reads the memory's own cosine even where the semantic channel
    /// matched a passage: its lift is measured against the memory's own baseline, and
    /// counted in proportion to the memory's answering words. Measured on LoCoMo dev with
    /// the passage cosine instead: answerable-top-3 supported / adversarial not supported
    /// 0.935 / 0.468 at the threshold 0.50, 0.913 / 0.503 at 0.525, 0.894 / 0.561 at 0.55;
    /// with the memory's own cosine 0.913 / 0.514 at 0.475 and 0.899 / 0.566 at 0.50: no
    /// better at any point of the trade-off.
    pub fn own_cosines_for(
        engine: &Engine,
        query_vec: Option<&[f32]>,
        cands: &[Candidate],
        mut scored: std::collections::HashMap<i64, f64>,
    ) -> std::collections::HashMap<i64, f64> {
        let Some(qv) = query_vec else {
            return Default::default();
        };
        let missing: Vec<i64> = cands
            .iter()
            .take(decide::SUPPORT_DEPTH)
            .map(|c| c.id)
            .filter(|id| !scored.contains_key(id))
            .collect();
        for (id, v) in engine.stored_embeddings(&missing).unwrap_or_default() {
            scored.insert(id, crate::embed::cosine(qv, &v) as f64);
        }
        scored
    }
}

pub struct Decision {
    /// Why the question read as gibberish, when it did.
    pub gibberish: Option<&'static str>,
    /// The rule that decided the tier.
    pub rule: Rule,
    /// With explain: each floor survivor not shown, with the step and reason it left.
    pub left: Vec<Left>,
    pub tier: AnswerTier,
    pub note: Option<String>,
    pub warming: bool,
    pub results: Vec<(Candidate, Tier, Option<f64>)>,
    pub weak: Vec<(Candidate, Tier, Option<f64>)>,
    pub signals: Vec<SupportSignals>,
}

pub fn gate_enabled(settings: &crate::settings::Settings) -> bool {
    let env_off = std::env::var(GATE_ENV).is_ok_and(|v| v == "1" || v.eq_ignore_ascii_case("true"));
    !env_off && settings.retrieval.answer_support_gate
}
