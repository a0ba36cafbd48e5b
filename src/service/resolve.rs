//! Resolution: what a front was asked, as plain values, into the request the service runs,
//! with every default filled in (clock, profile, settings, policy, gate).
//!
//! The CLI's clap structs and the agent calls' JSON arguments both convert into these
//! inputs, and this one place checks them and resolves them, so a recall asked on the
//! command line and one asked over MCP or HTTP are the same request.

use crate::recall::filters::{Filters, interval_ms};
use crate::recall::{RecallRequest, View};
use crate::{Error, Result};

/// A recall as a front was asked for it: plain values, before defaults and checks.
/// (`Default` is empty: a front sets what it was given; `limit` 0 counts as 1.)
#[derive(Debug, Clone, Default)]
pub struct RecallInput {
    pub query: String,
    pub limit: usize,
    /// 0, 1 or 2.
    pub depth: u8,
    pub max_tokens: Option<usize>,
    pub show_weak: bool,
    /// The agent view (only supported results unless `include_related`).
    pub agent: bool,
    pub include_related: bool,
    pub explain: bool,
    /// Time phrases, parsed here against the request's clock.
    pub window: Option<String>,
    pub as_of: Option<String>,
    pub known_as_of: Option<String>,
    pub valid_at: Option<String>,
    pub include_shared: bool,
    pub include_global: bool,
    /// A name of `memory::Kind`.
    pub kind: Option<String>,
    pub budget_s: Option<f64>,
    /// The project asked about (`crate::project::resolve`; None: every project).
    pub project: Option<String>,
}

/// A recall input → a fully resolved request for `profile` (clock, policy, gate filled in).
/// Values are named by their command-line flags in errors, whichever front gave them.
pub fn recall(a: &RecallInput, profile: &str) -> Result<RecallRequest> {
    crate::recall::validate_query(&a.query)?;
    if a.depth > 2 {
        return Err(Error::Usage(format!(
            "--depth {}: expected 0, 1 or 2",
            a.depth
        )));
    }
    if a.max_tokens == Some(0) {
        return Err(Error::Usage(
            "--max-tokens 0: expected a positive number".into(),
        ));
    }
    if let Some(b) = a.budget_s {
        if !(b.is_finite() && b > 0.0 && b <= crate::recall::budget::MAX_BUDGET_S) {
            return Err(Error::Usage(format!(
                "--budget-s {b}: expected a positive number of seconds, at most {}",
                crate::recall::budget::MAX_BUDGET_S
            )));
        }
    }
    let clock = crate::Clock::from_env()?;
    let now = clock.now();
    let settings = crate::settings::Settings::load(&crate::paths::Paths::from_env().settings())?;
    // An unknown answer-check mode is a usage error here, before any worker is asked.
    crate::recall::answer_check::mode_and_budget(&settings.answer_check)?;
    let window = a
        .window
        .as_deref()
        .map(|w| {
            crate::timeparse::parse_window(w, now)
                .map(|i| interval_ms(&i))
                .map_err(|e| Error::Usage(format!("--window {w:?}: {e}")))
        })
        .transpose()?;
    let point = |flag: &str, v: &Option<String>| time_point(flag, v.as_deref(), now);
    Ok(RecallRequest {
        query: a.query.clone(),
        filters: Filters {
            profile: profile.to_string(),
            include_shared: a.include_shared || settings.retrieval.include_shared,
            include_global: a.include_global || settings.retrieval.include_global,
            window,
            as_of: point("--as-of", &a.as_of)?,
            known_as_of: point("--known-as-of", &a.known_as_of)?,
            valid_at: point("--valid-at", &a.valid_at)?,
            kind: crate::memory::Kind::parse_flag("--kind", a.kind.as_deref())?,
            project: a.project.clone(),
        },
        limit: a.limit.max(1),
        depth: a.depth,
        max_tokens: a.max_tokens,
        show_weak: a.show_weak,
        view: if a.agent {
            View::Agent {
                include_related: a.include_related,
            }
        } else {
            View::Person
        },
        explain: a.explain,
        support_gate: crate::recall::tiers::gate_enabled(&settings),
        now_ms: clock.now_ms(),
        budget_s: a.budget_s,
        keyword_only: false,
        warming_estimate_ms: None,
        ranking: crate::recall::ranking_mode::Mode::from_env()?,
    })
}

/// A point in time given as `flag` ("2024-05-08", "2 days ago"), in Unix ms against `now`.
pub fn time_point(
    flag: &str,
    v: Option<&str>,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Option<i64>> {
    v.map(|s| {
        crate::timeparse::parse_point(s, now)
            .map(|t| t.timestamp_millis())
            .map_err(|e| Error::Usage(format!("{flag} {s:?}: {e}")))
    })
    .transpose()
}
