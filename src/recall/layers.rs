//! Stage 9: layers — depth and the token budget.
//!
//! depth 0 is a glance (ids, tier, score, one-line preview); 1 the full memories (default);
//! 2 adds context to each result: the source memory it corrects, up to three memories of the
//! same session, up to three about the same entities, and the correction that replaced it.
//!
//! `max_tokens` caps the whole list and is never exceeded. Tokens are counted with the
//! embedding model's tokenizer. Trimming order: drop context first (last result first), then
//! shorten the last memory's text, then leave memories out. `layers.trimmed` says what went.

use super::{RecallRequest, ScoredResult};
use crate::Result;
use crate::engine::Engine;
use serde::Serialize;

/// Characters in a one-line preview.
pub const PREVIEW_CHARS: usize = 100;
/// Tokens charged per result for its id, tier, score and labels as an agent sees them
/// (`[3] 0.82 supported 2024-05-08` is 12-14 WordPiece tokens).
pub const RESULT_OVERHEAD_TOKENS: usize = 16;
/// Context memories of each kind at depth 2 (the spec: up to three).
pub const CONTEXT_EACH: usize = 3;

#[derive(Debug, Clone, Serialize, Default)]
pub struct ContextItem {
    pub id: i64,
    pub relation: &'static str,
    pub text: String,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct Context {
    pub items: Vec<ContextItem>,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct LayersReport {
    pub depth: u8,
    pub max_tokens: Option<usize>,
    pub tokens_used: usize,
    /// `tokens_used` was estimated, not counted: no budget asked for an exact count and the
    /// model's tokenizer was not loaded (the cold path; see [`apply`]).
    pub tokens_estimated: bool,
    pub trimmed: Vec<String>,
}

/// Build depth-2 context for one memory (also what `slm expand` shows).
pub fn context_for(engine: &Engine, id: i64, filters: &super::filters::Filters) -> Result<Context> {
    let reader = engine.reader()?;
    let Some(m) = reader.get(id)? else {
        return Ok(Context::default());
    };
    let admit = |oid: i64| {
        engine
            .with_meta(|meta| {
                meta.get(&oid)
                    .is_some_and(|r| filters.visible(r) && !r.bookkeeping)
            })
            .unwrap_or(false)
    };
    let mut items = Vec::new();
    let mut seen = std::collections::HashSet::from([id]);
    for (other, kind, _) in reader.links_of(id)? {
        if kind == "supersedes" && seen.insert(other) && admit(other) {
            if let Some(t) = reader.text(other)? {
                let rel = if m.superseded_by == Some(other) {
                    "correction"
                } else {
                    "source"
                };
                items.push(ContextItem {
                    id: other,
                    relation: rel,
                    text: t,
                });
            }
        }
    }
    if let Some(c) = m.superseded_by {
        if seen.insert(c) && admit(c) {
            if let Some(t) = reader.text(c)? {
                items.push(ContextItem {
                    id: c,
                    relation: "correction",
                    text: t,
                });
            }
        }
    }
    if let Some(s) = &m.session_id {
        let mut n = 0;
        for other in reader.same_session(id, s, CONTEXT_EACH * 3)? {
            if n < CONTEXT_EACH && seen.insert(other) && admit(other) {
                if let Some(t) = reader.text(other)? {
                    items.push(ContextItem {
                        id: other,
                        relation: "same_session",
                        text: t,
                    });
                    n += 1;
                }
            }
        }
    }
    let mut n = 0;
    'outer: for eid in reader.entity_ids(id)? {
        if reader.entity_degree_upto(eid, 200)? > 200 {
            continue;
        }
        for other in reader.memories_with_entity(eid, 20)? {
            if n >= CONTEXT_EACH {
                break 'outer;
            }
            if seen.insert(other) && admit(other) {
                if let Some(t) = reader.text(other)? {
                    items.push(ContextItem {
                        id: other,
                        relation: "same_entity",
                        text: t,
                    });
                    n += 1;
                }
            }
        }
    }
    Ok(Context { items })
}

fn body_tokens(count: &dyn Fn(&str) -> usize, r: &ScoredResult) -> usize {
    let body = r.text.as_deref().unwrap_or(&r.preview);
    RESULT_OVERHEAD_TOKENS + count(body)
}

fn context_tokens(count: &dyn Fn(&str) -> usize, r: &ScoredResult) -> usize {
    r.context
        .as_ref()
        .map_or(0, |c| c.items.iter().map(|i| 4 + count(&i.text)).sum())
}

/// Tokens a result list costs, the way `apply` counts it (the model's tokenizer).
pub fn cost(engine: &Engine, results: &[ScoredResult]) -> usize {
    cost_with(&|s: &str| engine.count_tokens(s), results)
}

/// The same with another counter.
fn cost_with(count: &dyn Fn(&str) -> usize, results: &[ScoredResult]) -> usize {
    results
        .iter()
        .map(|r| body_tokens(count, r) + context_tokens(count, r))
        .sum()
}

/// Longest prefix of `text` (cut at a char boundary, "…" added) within `budget` tokens.
fn shorten(engine: &Engine, text: &str, budget: usize) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let (mut lo, mut hi) = (0usize, chars.len());
    let fits = |n: usize| {
        let s: String = chars[..n].iter().collect::<String>() + "…";
        engine.count_tokens(&s) <= budget
    };
    if !fits(1) {
        return None;
    }
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(mid) { lo = mid } else { hi = mid - 1 }
    }
    Some(chars[..lo].iter().collect::<String>() + "…")
}

pub fn apply(
    engine: &Engine,
    req: &RecallRequest,
    results: &mut Vec<ScoredResult>,
    weak: &mut Vec<ScoredResult>,
) -> Result<LayersReport> {
    if req.depth >= 2 {
        for r in results.iter_mut().chain(weak.iter_mut()) {
            r.context = Some(context_for(engine, r.id, &req.filters)?);
        }
    }
    let mut report = LayersReport {
        depth: req.depth,
        max_tokens: req.max_tokens,
        ..Default::default()
    };
    let Some(budget) = req.max_tokens else {
        // Without a budget the count is only reported: counted when the tokenizer is at
        // hand (the worker, or a model loaded here), else estimated. Loading EmbeddingGemma's
        // 33 MB tokenizer for that number was most of a cold recall's time (layers 1.9 s of
        // 2.0 s on a loaded machine, 2026-12-07). A budget is always counted exactly.
        if engine.tokenizer_at_hand() {
            report.tokens_used = cost(engine, results) + cost(engine, weak);
        } else {
            let estimate = |s: &str| crate::embed::fallback_token_count(s);
            report.tokens_used = cost_with(&estimate, results) + cost_with(&estimate, weak);
            report.tokens_estimated = true;
        }
        return Ok(report);
    };
    // Weak matches are extras: they go before any real result is touched.
    while !weak.is_empty() && cost(engine, results) + cost(engine, weak) > budget {
        let w = weak.pop().expect("non-empty");
        report.trimmed.push(format!("weak:{}", w.id));
    }
    // 1. context, from the last result back
    let mut i = results.len();
    while i > 0 && cost(engine, results) > budget {
        i -= 1;
        if results[i]
            .context
            .take()
            .is_some_and(|c| !c.items.is_empty())
        {
            report.trimmed.push(format!("context:{}", results[i].id));
        }
    }
    // 2. shorten the last memory's text, 3. leave memories out
    while let Some(last) = results.last() {
        let total = cost(engine, results);
        if total <= budget {
            break;
        }
        let count = |s: &str| engine.count_tokens(s);
        let others = total - body_tokens(&count, last) - context_tokens(&count, last);
        let room = budget.saturating_sub(others + RESULT_OVERHEAD_TOKENS);
        let body = last.text.clone().unwrap_or_else(|| last.preview.clone());
        let short = if room > 0 {
            shorten(engine, &body, room)
        } else {
            None
        };
        let id = last.id;
        match short {
            Some(s)
                if s.chars().count() > 1
                    && others + RESULT_OVERHEAD_TOKENS + engine.count_tokens(&s) <= budget =>
            {
                let l = results.last_mut().expect("non-empty");
                if l.text.is_some() {
                    l.text = Some(s.clone());
                }
                l.preview = crate::text::preview(&s, PREVIEW_CHARS);
                if l.text.is_none() {
                    l.preview = s;
                }
                report.trimmed.push(format!("shortened:{id}"));
                // Preview may now differ from the counted body; loop re-checks the total.
                if cost(engine, results) > budget {
                    results.pop();
                    report.trimmed.push(format!("left_out:{id}"));
                }
            }
            _ => {
                results.pop();
                report.trimmed.push(format!("left_out:{id}"));
            }
        }
    }
    report.tokens_used = cost(engine, results) + cost(engine, weak);
    Ok(report)
}
