//! Blocks of memory text injected into an agent's session: `slm session-context` (session
//! start), the MCP context resource, and the prompt hooks' recall block.
//!
//! Session context is loading context, not a question, so the support check is skipped: the
//! block is the pinned memories, then the newest decisions, facts and notes (never
//! bookkeeping, never captured prompts, never corrected memories). Every block is held to a
//! hard token budget for its mode, counted with the embedding model's tokenizer; it is cut at
//! a line, never inside one, and a cut block ends with a marker line that says so.

use crate::Result;
use crate::engine::Engine;
use crate::memory::{Kind, Memory, Source};
use crate::recall::RecallResponse;
use crate::recall::filters::Filters;
use crate::recall::tiers::Tier;
use crate::store::MetaRow;
use serde::{Deserialize, Serialize};

/// Where the block goes, which sets its token budget.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum SessionMode {
    /// The block an agent gets at session start.
    #[default]
    Start,
    /// After the agent's context was compacted: a smaller reminder.
    Compact,
    /// The MCP context resource, read on demand.
    Resource,
    /// A prompt hook's recall block, added before each prompt.
    Hook,
}

impl SessionMode {
    /// The hard token budget of each mode. Origin: a session-start block should cost well
    /// under 1% of a 200k-token agent context (1,500 tokens ≈ 25–40 short memories); a
    /// compacted session gets a third of that; a resource read on purpose may take 4,000; a
    /// hook runs before every prompt, so it adds at most 400 (≈ 5 memories).
    pub fn budget(self) -> usize {
        match self {
            SessionMode::Start => 1500,
            SessionMode::Compact => 500,
            SessionMode::Resource => 4000,
            SessionMode::Hook => 400,
        }
    }

    pub fn parse(s: &str) -> Option<SessionMode> {
        Some(match s {
            "start" => SessionMode::Start,
            "compact" => SessionMode::Compact,
            "resource" => SessionMode::Resource,
            "hook" => SessionMode::Hook,
            _ => return None,
        })
    }

    pub fn names() -> &'static str {
        "start, compact, resource, hook"
    }
}

/// A resolved `slm session-context` request.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SessionRequest {
    pub profile: String,
    pub mode: SessionMode,
    /// Overrides the mode's budget (still a hard limit).
    pub max_tokens: Option<usize>,
    pub include_shared: bool,
    pub include_global: bool,
    /// This project's memories and those with none (None: every project).
    #[serde(default)]
    pub project: Option<String>,
}

/// A block of memory text and what went into it.
#[derive(Debug, Clone, Serialize, Default)]
pub struct ContextBlock {
    pub mode: Option<SessionMode>,
    pub budget_tokens: usize,
    pub tokens_used: usize,
    /// Some memories (or lines) did not fit and were left out; the text says so.
    pub cut: bool,
    /// The memories in the block, in order.
    pub memory_ids: Vec<i64>,
    /// Memories that would have followed, left out by the budget.
    pub left_out: usize,
    pub text: String,
}

/// Memories considered for a session block (pinned, then newest, before the budget cuts).
const CANDIDATES: usize = 200;

fn eligible(m: &Memory) -> bool {
    m.bookkeeping.is_none()
        && m.superseded_by.is_none()
        && m.kind != Kind::Prompt
        && m.kind != Kind::Bookkeeping
        && m.source != Source::CapturedPrompt
}

/// The session-start block: pinned first, then the newest memories, within the budget.
/// Candidates come from every memory visible to the caller (its own profile; shared and
/// global ones when asked), so an old pinned memory is never crowded out by newer rows.
pub fn session_context(engine: &Engine, req: &SessionRequest) -> Result<ContextBlock> {
    let filters = Filters {
        profile: req.profile.clone(),
        include_shared: req.include_shared,
        include_global: req.include_global,
        project: req.project.clone(),
        ..Default::default()
    };
    let mut picked: Vec<(bool, i64, i64)> = engine.with_meta(|meta| {
        meta.values()
            .filter(|m| filters.visible(m) && eligible_meta(m))
            .map(|m| (m.pinned, m.event_at, m.id))
            .collect()
    })?;
    picked.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(b.2.cmp(&a.2)));
    picked.truncate(CANDIDATES);
    let ids: Vec<i64> = picked.iter().map(|p| p.2).collect();
    let mut rows = engine.get_many(&ids)?;
    rows.retain(eligible);
    let order: std::collections::HashMap<i64, usize> =
        ids.iter().enumerate().map(|(i, id)| (*id, i)).collect();
    rows.sort_by_key(|m| order.get(&m.id).copied().unwrap_or(usize::MAX));
    let budget = req.max_tokens.unwrap_or(req.mode.budget());
    let header = format!(
        "# {} memory: {} (newest first{})",
        crate::PRODUCT_NAME,
        match req.mode {
            SessionMode::Compact => "reminder",
            _ => "session context",
        },
        if rows.iter().any(|m| m.pinned) {
            ", pinned on top"
        } else {
            ""
        }
    );
    let lines: Vec<(i64, String)> = rows.iter().map(|m| (m.id, memory_line(m))).collect();
    let mut block = fit(engine, &header, &lines, budget);
    block.mode = Some(req.mode);
    Ok(block)
}

fn eligible_meta(m: &MetaRow) -> bool {
    !m.bookkeeping
        && !m.superseded
        && m.kind != Kind::Prompt
        && m.kind != Kind::Bookkeeping
        && m.source != Source::CapturedPrompt
}

/// One memory as one line: kind, date, id and its text with line breaks folded.
fn memory_line(m: &Memory) -> String {
    let text: String = crate::text::sanitize_for_terminal(&m.text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let pin = if m.pinned { " pinned" } else { "" };
    format!(
        "- [{}{} {} #{}] {}",
        m.kind,
        pin,
        &crate::clock::fmt_ms(m.event_at)[..10],
        m.id,
        text
    )
}

/// Lay out header + lines within `budget` tokens, cutting at a line. A line that does not
/// fit ends the block (later, shorter lines are not squeezed in: the order is the point).
fn fit(engine: &Engine, header: &str, lines: &[(i64, String)], budget: usize) -> ContextBlock {
    let count = |s: &str| engine.count_tokens(s);
    let mut block = ContextBlock {
        budget_tokens: budget,
        ..Default::default()
    };
    if lines.is_empty() {
        return block;
    }
    let marker = |n: usize| {
        format!(
            "[… cut: {n} more memories left out to stay within {budget} tokens; `slm recall` finds them]"
        )
    };
    let mut text = String::new();
    let mut used = 0;
    let header_tokens = count(header) + 1;
    if header_tokens <= budget {
        text.push_str(header);
        used = header_tokens;
    }
    for (i, (id, line)) in lines.iter().enumerate() {
        let t = count(line) + 1;
        let rest = lines.len() - i - 1;
        // Room for this line, plus the marker if more would follow and be left out.
        let marker_room = if rest > 0 {
            count(&marker(rest)) + 1
        } else {
            0
        };
        if used + t + marker_room <= budget || (rest == 0 && used + t <= budget) {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(line);
            used += t;
            block.memory_ids.push(*id);
        } else {
            block.cut = true;
            block.left_out = lines.len() - i;
            let m = marker(block.left_out);
            let mt = count(&m) + 1;
            if used + mt <= budget {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(&m);
            }
            break;
        }
    }
    block.tokens_used = count(&text);
    block.text = text;
    block
}

/// The block a prompt hook adds: the supported memories of its recall (the unchecked keyword
/// matches, labelled, when the budget ran out), within the hook budget. Empty when there is
/// nothing to add.
pub fn hook_block(engine: &Engine, resp: &RecallResponse, budget: usize) -> ContextBlock {
    let keyword = resp
        .budget
        .as_ref()
        .is_some_and(|b| b.answered_by == crate::recall::budget::AnsweredBy::Keyword);
    let lines: Vec<(i64, String)> = resp
        .results
        .iter()
        .filter(|r| keyword || r.tier == Tier::Supported)
        .map(|r| {
            let text = r.text.as_deref().unwrap_or(&r.preview);
            let text: String = crate::text::sanitize_for_terminal(text)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            (
                r.id,
                format!(
                    "- [{} {} #{}] {}",
                    r.kind,
                    &r.event_at[..10.min(r.event_at.len())],
                    r.id,
                    text
                ),
            )
        })
        .collect();
    let header = if keyword {
        format!(
            "# {} memory (unchecked keyword matches; the full search ran out of time)",
            crate::PRODUCT_NAME
        )
    } else {
        format!("# {} memory relevant to this prompt", crate::PRODUCT_NAME)
    };
    let mut block = fit(engine, &header, &lines, budget);
    block.mode = Some(SessionMode::Hook);
    block
}
