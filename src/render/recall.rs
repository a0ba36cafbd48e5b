//! A recall answer and an expanded memory as text.

use crate::memory::Memory;
use crate::output::Style;
use crate::recall::layers::Context;
use crate::recall::tiers::{AnswerTier, Tier};
use crate::recall::{RecallResponse, ScoredResult};

fn tier_label(t: Tier) -> &'static str {
    match t {
        Tier::Supported => "",
        Tier::Weak => " [weak]",
        Tier::Related => " [related]",
    }
}

/// Cells of the support bar on a result line.
pub const BAR_CELLS: usize = 5;

/// The support score as a bar a person reads at a glance: `BAR_CELLS` cells, filled in
/// proportion (rounded): EmbeddingGemma's supported threshold 0.50 fills two or three of
/// five (MiniLM's 0.40 two). A memory
/// the support check did not score (a present-tense or pinned answer, the ungated list)
/// shows dots: there is nothing to show, and no number pretends otherwise.
///
/// Why a bar and not a number: the one number shown used to be the query-relative
/// relevance, 1.00 on every top line, read as certainty. ripgrep and fzf show no score at
/// all (the order is the ranking), atuin neither; zoxide prints its score only when asked
/// (`query --score`). slm's tier already says what a person needs; the bar shows how
/// strongly each memory carries the question, coarse on purpose, and `--explain` prints the
/// exact score against its threshold. `relevance_score` stays in `--json`.
pub fn support_bar(score: Option<f64>) -> String {
    match score {
        None => "·".repeat(BAR_CELLS),
        Some(s) => {
            let filled = ((s.clamp(0.0, 1.0) * BAR_CELLS as f64).round() as usize).min(BAR_CELLS);
            format!("{}{}", "▰".repeat(filled), "▱".repeat(BAR_CELLS - filled))
        }
    }
}

fn render_result(r: &ScoredResult, style: Style, out: &mut String) {
    let label = tier_label(r.tier);
    out.push_str(&format!(
        "{:>2}. {}{}  {}  {}  {}\n",
        r.rank_position,
        support_bar(r.support_score),
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
    if let Some(p) = &r.picture {
        let page = p.page.map(|n| format!(", page {n}")).unwrap_or_default();
        let ocr = match p.ocr.as_str() {
            "read" => String::new(),
            "pending" => " (its words are not read yet)".into(),
            "wordless" if p.page.is_some() => " (no text layer: a scanned page)".into(),
            "wordless" => " (no words found in it)".into(),
            other => format!(" (OCR {other})"),
        };
        let what = if p.page.is_some() {
            "document"
        } else {
            "picture"
        };
        out.push_str(&format!(
            "      {} {}{page}{ocr}\n",
            style.dim(what),
            style.text(&p.path)
        ));
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

/// A recall answer as a person reads it: the tier and note, each result, the weak matches,
/// the answer check, what the token budget trimmed, and with `explain` the trace.
pub fn recall(resp: &RecallResponse, style: Style, explain: bool) -> String {
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

/// The channel weights as "semantic 2.70, bm25 0.20, …".
fn weights(w: &crate::recall::classify::Weights) -> String {
    match serde_json::to_value(w) {
        Ok(serde_json::Value::Object(m)) => m
            .iter()
            .map(|(k, v)| format!("{k} {:.2}", v.as_f64().unwrap_or(0.0)))
            .collect::<Vec<_>>()
            .join(", "),
        _ => String::new(),
    }
}

/// Memory ids as a person reads them: "#1, #4".
fn ids(ids: &[i64]) -> String {
    ids.iter()
        .map(|id| format!("#{id}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn explain_text(resp: &RecallResponse, e: &crate::recall::Explain) -> String {
    let mut s = String::from("\n── explain ──\n");
    s.push_str(&format!(
        "class {}; weights {}\n",
        crate::recall::ranking_mode::class_name(resp.query_class),
        weights(&resp.channel_weights)
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
        s.push_str(&format!("  {:<9} {} {}\n", c.name(), st, hits));
    }
    s.push_str(&format!(
        "boosts: entities [{}], scored {}\n",
        e.boosts.question_entities.join(", "),
        e.boosts.scored
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
    s.push_str("support (per memory): score = lift, coverage, rare_all, entity; threshold\n");
    for sg in e.support.iter().take(10) {
        s.push_str(&format!(
            "  #{:<6} {:.3} = lift {:.3} (cos {:.3} − base {:.3}), cov {:.2}, rare {}, entity {}; {:.2} → {}\n",
            sg.id,
            sg.score,
            sg.lift,
            sg.cosine.unwrap_or(0.0),
            sg.baseline,
            sg.coverage,
            sg.rare_all,
            sg.entity,
            sg.threshold,
            match sg.why_not() {
                None => "supported".to_string(),
                Some(why) => format!("not: {why}"),
            }
        ));
    }
    if let Some(c) = &e.answer_check {
        s.push_str(&format!(
            "answer check: {} in {:.1} ms; shown [{}]",
            c.status,
            c.time_ms,
            ids(&c.input)
        ));
        if let Some(v) = &c.verdict {
            let which = v.memory_id.map(|id| format!(" #{id}")).unwrap_or_default();
            let answer = v
                .answer
                .as_deref()
                .map(|a| format!(": \"{a}\""))
                .unwrap_or_default();
            s.push_str(&format!(
                "; {} says{} {} (confidence {:.2}){answer}",
                v.judge,
                which,
                if v.answers {
                    "answers"
                } else {
                    "does not answer"
                },
                v.confidence
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
    if let Some(rule) = &e.decision {
        s.push_str(&format!("tier decision: {rule}\n"));
    }
    if !e.left.is_empty() {
        s.push_str("left the list (step: reason):\n");
        for l in &e.left {
            s.push_str(&format!("  #{:<6} {}: {}\n", l.id, l.step, l.reason));
        }
    }
    s.push_str(&format!(
        "final order: [{}]\nreranker: {}; timing ms: {}\n",
        ids(&e.final_order),
        resp.reranker_status,
        serde_json::to_string(&resp.timing_ms).unwrap_or_default()
    ));
    s
}

/// One memory with its context (`expand`).
pub fn expand(m: &Memory, ctx: &Context, style: Style) -> String {
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
