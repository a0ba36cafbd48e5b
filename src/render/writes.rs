//! What a write did, as text.

use crate::engine::Remembered;
use crate::output::Style;

/// `remember`: the id it was saved as (or already had), the secrets redacted from it, and
/// any note about it: "remembered 12 (1 secret redacted: github token)".
pub fn remembered(r: &Remembered, style: Style) -> String {
    let mut s = if r.existed {
        format!("already remembered as {}", style.bold(&r.id.to_string()))
    } else {
        format!("remembered {}", style.bold(&r.id.to_string()))
    };
    let mut why: Vec<String> = Vec::new();
    if r.duplicate_of.is_some() {
        why.push("the same text".into());
    }
    if r.redacted > 0 {
        why.push(crate::text::redaction_summary(&r.redacted_kinds));
    }
    if !why.is_empty() {
        s.push_str(&format!(" ({})", why.join("; ")));
    }
    if let Some(b) = &r.bookkeeping {
        s.push_str(&style.dim(&format!(" (bookkeeping: {b}; kept out of answers)")));
    }
    if let Some(n) = &r.note {
        s.push_str(&style.dim(&format!("\n  note: {n}")));
    }
    s
}

/// `update`: the memory that changed.
pub fn updated(id: i64) -> String {
    format!("updated {id}")
}

/// `delete`: how many went.
pub fn deleted(n: usize) -> String {
    format!("deleted {n} memor{}", if n == 1 { "y" } else { "ies" })
}
