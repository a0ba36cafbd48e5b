//! Why each candidate left the list: `--explain` names the step and the reason for every
//! memory that passed the evidence floor and is not shown, and the rule that decided the
//! tier (issue 33: "Postgres" once passed the support check and vanished untraced).

use super::decide::{
    KEYWORD_FALLBACK_COVERAGE, RELATED_AT, RELATED_MAX, SUPPORT_DEPTH, WARMING_MAX,
};
use super::{Decision, SupportSignals};
use crate::recall::fusion::Candidate;
use serde::Serialize;
use std::collections::HashSet;
use std::fmt;

/// The rule that decided the tier, in the order `decide` tries them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// The support check is off on request: the ranked list as it is.
    Ungated,
    /// A present-tense question: the newest memories answer it.
    PresentTense,
    /// Vector search did not run: keyword results, labelled related.
    Warming,
    /// The question reads as nonsense (the reason).
    Gibberish(&'static str),
    /// At least one memory passed the support check.
    Supported,
    /// None passed; the closest by support are shown (hidden from an agent that did not
    /// ask for related memories).
    Related { hidden: bool },
    /// Nothing else; pinned memories are shown.
    Pinned,
    /// No memory reached the related threshold.
    Nothing,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rule::Ungated => write!(
                f,
                "supported: the support check is off, the ranked list as it is"
            ),
            Rule::PresentTense => write!(
                f,
                "supported: a present-tense question, answered by the newest memories"
            ),
            Rule::Warming => write!(
                f,
                "related: vector search did not run, so keyword results only (warming)"
            ),
            Rule::Gibberish(why) => write!(f, "none: decided from the question alone ({why})"),
            Rule::Supported => write!(f, "supported: at least one memory passed the support check"),
            Rule::Related { hidden: false } => write!(
                f,
                "related: no memory passed the support check; the closest by support (at least {RELATED_AT:.2}) are shown"
            ),
            Rule::Related { hidden: true } => write!(
                f,
                "related: no memory passed the support check; an agent is told closer memories exist, not shown them"
            ),
            Rule::Pinned => write!(
                f,
                "related: nothing passed or came close; pinned memories are shown"
            ),
            Rule::Nothing => write!(
                f,
                "none: no memory passed the support check or reached the related threshold {RELATED_AT:.2}"
            ),
        }
    }
}

impl Serialize for Rule {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A memory that left the list: at which step, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Left {
    pub id: i64,
    pub step: &'static str,
    pub reason: String,
}

/// Every memory of `ranked` (the floor's survivors, in order) that `d` does not show, with
/// the step and reason it left.
pub fn left_the_list(d: &Decision, ranked: &[Candidate], limit: usize) -> Vec<Left> {
    let shown: HashSet<i64> = d
        .results
        .iter()
        .chain(&d.weak)
        .map(|(c, _, _)| c.id)
        .collect();
    let signal = |id: i64| d.signals.iter().find(|s| s.id == id);
    ranked
        .iter()
        .filter(|c| !shown.contains(&c.id))
        .map(|c| {
            let (step, reason) = reason(d.rule, signal(c.id), limit);
            Left {
                id: c.id,
                step,
                reason,
            }
        })
        .collect()
}

fn reason(rule: Rule, s: Option<&SupportSignals>, limit: usize) -> (&'static str, String) {
    let beyond = || format!("beyond the limit of {limit} results");
    match (rule, s) {
        (Rule::Gibberish(why), _) => ("tiers", format!("decided from the question alone ({why})")),
        (Rule::Ungated | Rule::PresentTense, _) => ("tiers", beyond()),
        (Rule::Warming, Some(s))
            if s.text_rare_all && s.text_coverage >= KEYWORD_FALLBACK_COVERAGE =>
        {
            (
                "tiers",
                format!("warming shows at most {WARMING_MAX} keyword results"),
            )
        }
        (Rule::Warming, _) => (
            "tiers",
            "warming: not a keyword match carrying every rare word and half the words".into(),
        ),
        (_, None) => (
            "support",
            format!("not scored: the support check reads the first {SUPPORT_DEPTH}"),
        ),
        (Rule::Supported, Some(s)) if s.supported => ("tiers", beyond()),
        (Rule::Supported, Some(s)) => (
            "support",
            format!("not supported: {}", s.why_not().unwrap_or_default()),
        ),
        (Rule::Related { hidden: true }, Some(s)) if s.score >= RELATED_AT => (
            "tiers",
            "related, hidden: an agent sees related memories only with include_related".into(),
        ),
        (Rule::Related { .. } | Rule::Pinned | Rule::Nothing, Some(s)) if s.score < RELATED_AT => (
            "support",
            format!(
                "not supported ({}), and support {:.2} is below related {RELATED_AT:.2}",
                s.why_not().unwrap_or_default(),
                s.score
            ),
        ),
        (Rule::Related { .. }, Some(_)) => (
            "tiers",
            format!(
                "related shows the {RELATED_MAX} closest by support (a question without a question word needs one of its words)"
            ),
        ),
        (Rule::Pinned | Rule::Nothing, Some(s)) => (
            "tiers",
            format!(
                "not supported ({}); a question without a question word shows no related memory carrying none of its words",
                s.why_not().unwrap_or_default()
            ),
        ),
    }
}
