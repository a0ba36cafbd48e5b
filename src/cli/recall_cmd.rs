//! `recall` and `expand`: resolve flags into a `RecallRequest` and forward it; the answer
//! comes back rendered (`render::recall`).

use super::args::{ExpandArgs, GlobalArgs, RecallArgs};
use super::parse_kind;
use crate::output::Style;
use crate::recall::filters::{Filters, interval_ms};
use crate::recall::{RecallRequest, View};
use crate::service::Op;
use crate::{Error, Result};

/// Flags → a fully resolved request (clock, profile, policy, gate filled in).
pub fn resolve(a: &RecallArgs, g: &GlobalArgs) -> Result<RecallRequest> {
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
    let point = |flag: &str, v: &Option<String>| super::parse_time(flag, v, now);
    Ok(RecallRequest {
        query: a.query.clone(),
        filters: Filters {
            profile: g.profile.clone(),
            include_shared: a.include_shared || settings.retrieval.include_shared,
            include_global: a.include_global || settings.retrieval.include_global,
            window,
            as_of: point("--as-of", &a.as_of)?,
            known_as_of: point("--known-as-of", &a.known_as_of)?,
            valid_at: point("--valid-at", &a.valid_at)?,
            kind: parse_kind(&a.kind)?,
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

pub fn recall(a: RecallArgs, g: &GlobalArgs, style: Style) -> Result<i32> {
    let req = resolve(&a, g)?;
    // A budgeted recall must not wait past its budget for the worker either.
    let timeout = req
        .budget_s
        .map(|b| std::time::Duration::from_secs_f64(b) + super::forward::BUDGET_MARGIN);
    super::forward::forward(Op::Recall { req }, g, style, timeout)
}

pub fn expand(a: ExpandArgs, g: &GlobalArgs, style: Style) -> Result<i32> {
    let filters = Filters {
        profile: g.profile.clone(),
        ..Default::default()
    };
    super::forward::forward(Op::Expand { id: a.id, filters }, g, style, None)
}
