//! Recognising hook and agent bookkeeping ("session started", "tool call") that is noise
//! rather than something worth remembering.

/// Hook and agent bookkeeping patterns (lowercased), by name.
const BOOKKEEPING: &[(&str, &str)] = &[
    ("session ended", "session_event"),
    ("session started", "session_event"),
    ("session start", "session_event"),
    ("session end", "session_event"),
    ("session stopped", "session_event"),
    ("session resumed", "session_event"),
    ("file changed", "file_event"),
    ("file modified", "file_event"),
    ("file edited", "file_event"),
    ("file created", "file_event"),
    ("file deleted", "file_event"),
    ("tool call", "tool_event"),
    ("tool use", "tool_event"),
    ("pretooluse", "tool_event"),
    ("posttooluse", "tool_event"),
    ("context compacted", "context_event"),
    ("compacting context", "context_event"),
    ("heartbeat", "heartbeat"),
    ("[hook]", "hook_noise"),
    ("hook:", "hook_noise"),
    ("subagent stopped", "tool_event"),
    ("user prompt submitted", "hook_noise"),
];
/// Bookkeeping rows are short; prose that merely mentions a session is not bookkeeping.
const BOOKKEEPING_MAX_CHARS: usize = 200;

/// Why a text is hook bookkeeping, or None. The pattern must open the text (after
/// punctuation or a timestamp) and the text must be short.
pub fn bookkeeping_reason(text: &str) -> Option<&'static str> {
    let t = text.trim();
    if t.chars().count() > BOOKKEEPING_MAX_CHARS {
        return None;
    }
    let lower = t.to_lowercase();
    let body = lower.trim_start_matches(|c: char| !c.is_alphabetic() && c != '[');
    for (pat, name) in BOOKKEEPING {
        if body.starts_with(pat) {
            return Some(name);
        }
    }
    None
}
