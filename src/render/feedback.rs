//! Feedback for the learned ranking modes, as text: a mark recorded, the marks on record,
//! what forgetting them removed.

use crate::output::Style;
use crate::recall::ranking_mode::feedback::FeedbackReport;
use crate::store::{FeedbackRow, ForgetCounts};

/// `slm feedback RECALL_ID MEMORY_ID good|bad`: what was recorded, and whether a learned
/// mode will use this profile's marks yet.
pub fn report(r: &FeedbackReport) -> String {
    let what = if r.recorded {
        format!(
            "recorded: memory {} was {} for recall {}",
            r.memory_id,
            r.label.as_str(),
            r.recall_id
        )
    } else {
        format!(
            "already recorded: memory {} was {} for recall {}",
            r.memory_id,
            r.label.as_str(),
            r.recall_id
        )
    };
    let state = if r.feedback >= r.min_feedback {
        "SLM_RANKING=v1, v2 or v2-ensemble will use it".to_string()
    } else {
        format!(
            "learned ranking starts at {} (SLM_RANKING is off unless you set it)",
            r.min_feedback
        )
    };
    format!(
        "{what}\nthis profile has {} feedback mark{}; {state}\n",
        r.feedback,
        if r.feedback == 1.0 { "" } else { "s" }
    )
}

/// `slm feedback --list`: the marks, newest first.
pub fn list(rows: &[FeedbackRow], style: Style) -> String {
    if rows.is_empty() {
        return "no feedback on record\n".to_string();
    }
    let mut s = String::new();
    for r in rows {
        s.push_str(&format!(
            "{}  {:<4} #{:<6} {}  {}  {}\n",
            style.dim(&crate::clock::fmt_ms(r.at)[..16.min(crate::clock::fmt_ms(r.at).len())]),
            r.label.as_str(),
            r.memory_id,
            style.dim(&r.source),
            r.recall_id,
            style.text(&crate::text::preview(&r.query, 60))
        ));
    }
    s
}

/// `slm feedback --forget`: what was removed, and whose.
pub fn forgotten(c: &ForgetCounts, profile: Option<&str>) -> String {
    let whose = match profile {
        Some(p) => format!("profile {p:?}"),
        None => "every profile".to_string(),
    };
    format!(
        "forgot {} feedback mark{}, {} logged recall{} and {} learned model{} of {whose}; its recalls use the fused order again",
        c.feedback,
        if c.feedback == 1 { "" } else { "s" },
        c.recalls,
        if c.recalls == 1 { "" } else { "s" },
        c.models,
        if c.models == 1 { "" } else { "s" },
    )
}
