//! `recall` and `expand`: resolve flags into a `RecallRequest`, run it, print it.

use super::args::{ExpandArgs, GlobalArgs, RecallArgs};
use super::parse_kind;
use crate::output::Style;
use crate::recall::filters::{Filters, interval_ms};
use crate::recall::tiers::{AnswerTier, Tier};
use crate::recall::{RecallRequest, RecallResponse, ScoredResult, View};
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

fn tier_label(t: Tier) -> &'static str {
    match t {
        Tier::Supported => "",
        Tier::Weak => " [weak]",
        Tier::Related => " [related]",
    }
}

fn render_result(r: &ScoredResult, style: Style, out: &mut String) {
    let label = tier_label(r.tier);
    out.push_str(&format!(
        "{:>2}. {:.2}{}  {}  {}  {}\n",
        r.rank_position,
        r.relevance_score,
        style.yellow(label),
        style.bold(&format!("#{}", r.id)),
        style.dim(&r.event_at[..10.min(r.event_at.len())]),
        style.text(&r.preview)
    ));
    if let Some(t) = &r.text {
        if t.chars().count() > r.preview.chars().count() {
            for line in style.text(t).lines() {
                out.push_str(&format!("      {line}\n"));
            }
        }
    }
    if let Some(c) = &r.context {
        for i in &c.items {
            out.push_str(&format!(
                "      {} #{} {}\n",
                style.dim(&format!("↳ {}", i.relation)),
                i.id,
                style.text(&crate::text::preview(&i.text, 80))
            ));
        }
    }
}

pub(crate) fn render(resp: &RecallResponse, style: Style, explain: bool) -> String {
    let mut s = String::new();
    let head = match resp.tier {
        AnswerTier::Supported => style.green("supported"),
        AnswerTier::Related => style.yellow("related"),
        AnswerTier::None => style.red("none"),
    };
    s.push_str(&format!("{head}"));
    if let Some(n) = &resp.note {
        s.push_str(&format!(": {n}"));
    }
    s.push('\n');
    for r in &resp.results {
        render_result(r, style, &mut s);
    }
    if !resp.weak.is_empty() {
        s.push_str(&style.dim("closest weak matches:\n"));
        for r in &resp.weak {
            render_result(r, style, &mut s);
        }
    }
    if let Some(c) = &resp.answer_check {
        let said = match (c.answers, c.memory_id, &c.answer) {
            (true, Some(id), Some(a)) => format!("#{id} answers it: {}", style.text(a)),
            (true, Some(id), None) => format!("#{id} answers it"),
            (true, None, _) => "the top results answer it".to_string(),
            (false, _, _) => "the top results do not answer it".to_string(),
        };
        s.push_str(&style.dim(&format!("answer check ({}): {said}\n", c.judge)));
    }
    if !resp.layers.trimmed.is_empty() {
        s.push_str(&style.dim(&format!(
            "(trimmed to {} tokens: {})\n",
            resp.layers.tokens_used,
            resp.layers.trimmed.join(", ")
        )));
    }
    if resp.ranking_mode.requested != "off" || explain {
        // Whoever uses a learned mode (or reads the trace) can mark what helped.
        s.push_str(&style.dim(&format!(
            "recall {} (slm feedback {} MEMORY_ID good|bad)\n",
            resp.recall_id, resp.recall_id
        )));
    }
    if explain {
        if let Some(e) = &resp.explain {
            s.push_str(&explain_text(resp, e));
        }
    }
    s.trim_end().to_string()
}

fn explain_text(resp: &RecallResponse, e: &crate::recall::Explain) -> String {
    let mut s = String::from("\n── explain ──\n");
    s.push_str(&format!(
        "class {:?}; weights {}\n",
        resp.query_class,
        serde_json::to_string(&resp.channel_weights).unwrap_or_default()
    ));
    for (c, st) in &resp.channel_status {
        let hits = e
            .channels
            .get(c)
            .map(|h| {
                h.iter()
                    .take(5)
                    .map(|(id, sc)| format!("#{id}:{sc:.3}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default();
        s.push_str(&format!("  {:<9} {:?} {}\n", c.name(), st, hits));
    }
    s.push_str(&format!(
        "boosts: entities {:?}, scored {}\n",
        e.boosts.question_entities, e.boosts.scored
    ));
    s.push_str("fused (top 10): id fused ×boost = score\n");
    for c in e.fused.iter().take(10) {
        let verdict = e.floor.iter().find(|v| v.id == c.id);
        s.push_str(&format!(
            "  #{:<6} {:.4} ×{:.2} = {:.4}  floor: {}\n",
            c.id,
            c.fused,
            c.boost,
            c.score,
            verdict
                .map(|v| format!(
                    "{} ({})",
                    if v.kept { "kept" } else { "dropped" },
                    v.because.join(", ")
                ))
                .unwrap_or_default()
        ));
    }
    s.push_str("support (per memory): score = lift, coverage, rare_all, entity\n");
    for sg in e.support.iter().take(10) {
        s.push_str(&format!(
            "  #{:<6} {:.3} = lift {:.3} (cos {:.3} − base {:.3}), cov {:.2}, rare {}, entity {} → {}\n",
            sg.id,
            sg.score,
            sg.lift,
            sg.cosine.unwrap_or(0.0),
            sg.baseline,
            sg.coverage,
            sg.rare_all,
            sg.entity,
            if sg.supported { "supported" } else { "not" }
        ));
    }
    if let Some(c) = &e.answer_check {
        s.push_str(&format!(
            "answer check: {} in {:.1} ms; shown {:?}",
            c.status, c.time_ms, c.input
        ));
        if let Some(v) = &c.verdict {
            s.push_str(&format!(
                "; {} says answers={} memory={:?} answer={:?} confidence={:.2}",
                v.judge, v.answers, v.memory_id, v.answer, v.confidence
            ));
        }
        if let Some(r) = &c.reason {
            s.push_str(&format!(" ({r})"));
        }
        s.push('\n');
    }
    s.push_str(&format!(
        "ranking mode: {}{}\n",
        resp.ranking_mode.requested,
        if resp.ranking_mode.applied {
            " (applied)"
        } else {
            ""
        }
    ));
    for a in e.ranking.iter().take(10) {
        let mut how = Vec::new();
        if let Some(f) = a.v1_factor {
            how.push(format!("v1 ×{f:.3}"));
        }
        if let Some(d) = a.v2_delta {
            how.push(format!("v2 {d:+.3}"));
        }
        s.push_str(&format!(
            "  #{:<6} fused {:>2} → {:>2}  {}\n",
            a.id,
            a.fused_position,
            a.final_position,
            how.join(", ")
        ));
    }
    s.push_str(&format!(
        "final order: {:?}\nreranker: {:?}; timing ms: {}\n",
        e.final_order,
        resp.reranker_status,
        serde_json::to_string(&resp.timing_ms).unwrap_or_default()
    ));
    s
}

pub fn expand(a: ExpandArgs, g: &GlobalArgs, style: Style) -> Result<i32> {
    let filters = Filters {
        profile: g.profile.clone(),
        ..Default::default()
    };
    super::forward::forward(Op::Expand { id: a.id, filters }, g, style, None)
}

pub(crate) fn render_expand(
    m: &crate::memory::Memory,
    ctx: &crate::recall::layers::Context,
    style: Style,
) -> String {
    let mut s = format!("#{} {}\n", m.id, style.text(&m.text));
    for i in &ctx.items {
        s.push_str(&format!(
            "  ↳ {} #{} {}\n",
            i.relation,
            i.id,
            style.text(&crate::text::preview(&i.text, 90))
        ));
    }
    s.trim_end().to_string()
}
