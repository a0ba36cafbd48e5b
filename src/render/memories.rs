//! Stored memories as text: the `list` lines and the `show` page.

use crate::clock::fmt_ms;
use crate::memory::Memory;
use crate::output::Style;

/// `list`: a line a memory, or how to save the first.
pub fn list(ms: &[Memory], style: Style) -> String {
    if ms.is_empty() {
        return "no memories yet; `slm remember \"…\"` saves one".into();
    }
    ms.iter()
        .map(|m| line(m, style))
        .collect::<Vec<_>>()
        .join("\n")
}

fn line(m: &Memory, style: Style) -> String {
    let mut flags = String::new();
    if m.pinned {
        flags.push_str(" [pinned]");
    }
    if m.bookkeeping.is_some() {
        flags.push_str(" [bookkeeping]");
    }
    if m.superseded_by.is_some() {
        flags.push_str(" [superseded]");
    }
    format!(
        "{:>6}  {}  {:<8} {}{}",
        style.bold(&m.id.to_string()),
        style.dim(&fmt_ms(m.event_at)[..10]),
        m.kind.as_str(),
        style.text(&crate::text::preview(&m.text, 80)),
        style.dim(&flags)
    )
}

/// `show`: one memory in full, with what is known about it.
pub fn show(m: &Memory, style: Style) -> String {
    let mut s = format!(
        "{} {}\n\n{}\n",
        style.bold("memory"),
        m.id,
        style.text(&m.text)
    );
    s.push_str(&format!(
        "\nkind {}  source {}  profile {}  scope {}\nevent {}  saved {}",
        m.kind,
        m.source,
        m.profile,
        m.scope,
        fmt_ms(m.event_at),
        fmt_ms(m.created_at)
    ));
    if let Some(sid) = &m.session_id {
        s.push_str(&format!("\nsession {sid}"));
    }
    if !m.tags.is_empty() {
        s.push_str(&format!("\ntags {}", m.tags.join(", ")));
    }
    if let Some(b) = &m.bookkeeping {
        s.push_str(&format!("\nbookkeeping: {b}"));
    }
    if let Some(n) = m.superseded_by {
        s.push_str(&format!("\ncorrected by {n}"));
    }
    s
}
