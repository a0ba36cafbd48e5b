//! slm's hooks in Claude Code's user settings, `~/.claude/settings.json`, as documented at
//! <https://code.claude.com/docs/en/hooks>: each event holds a list of matcher groups, each
//! group a list of `{"type": "command", "command": …}` hooks. What a `UserPromptSubmit` or
//! `SessionStart` command prints goes into the model's context.
//!
//! ```json
//! { "hooks": {
//!     "UserPromptSubmit": [ { "hooks": [ { "type": "command", "command": "/…/slm hook recall" } ] },
//!                           { "hooks": [ { "type": "command", "command": "/…/slm hook capture" } ] } ],
//!     "SessionStart":     [ { "hooks": [ { "type": "command", "command": "/…/slm session-context" } ] } ],
//!     "PostToolUse":      [ { "matcher": "Write|Edit|MultiEdit|NotebookEdit",
//!                             "hooks": [ { "type": "command", "command": "/…/slm hook capture" } ] } ],
//!     "SessionEnd":       [ { "hooks": [ { "type": "command", "command": "/…/slm hook capture" } ] } ] } }
//! ```
//!
//! slm adds one group per (event, subcommand) and recognises its hooks by their command
//! (slm's binary, then `hook recall`, `hook capture` or `session-context`); the user's other
//! groups and hooks stay. `hook capture` saves the prompt, each file an edit tool changed
//! (bookkeeping) and the session's end (bookkeeping); it prints nothing, so nothing it does
//! reaches the model's context.

use super::json_edit::{Doc, Step};
use super::{Edited, Server, is_slm_program, shell_quote};
use crate::{Error, Result};
use serde_json::Value;
use std::path::Path;

/// The events slm hooks into, with the slm subcommand each runs and the tools it matches
/// (None: every occurrence of the event).
const EVENTS: [(&str, &str, Option<&str>); 5] = [
    ("UserPromptSubmit", "hook recall", None),
    ("SessionStart", "session-context", None),
    ("UserPromptSubmit", "hook capture", None),
    (
        "PostToolUse",
        "hook capture",
        Some("Write|Edit|MultiEdit|NotebookEdit"),
    ),
    ("SessionEnd", "hook capture", None),
];

/// A matcher group as slm writes it.
#[derive(serde::Serialize)]
struct Group {
    #[serde(skip_serializing_if = "Option::is_none")]
    matcher: Option<&'static str>,
    hooks: Vec<Hook>,
}

#[derive(serde::Serialize)]
struct Hook {
    r#type: &'static str,
    command: String,
}

/// The command line slm writes for `sub`.
pub(super) fn command(server: &Server, sub: &str) -> String {
    format!("{} {sub}", shell_quote(&server.command))
}

/// Where slm's hooks for `event` are: (group index, hook index, its command).
fn find(v: &Value, event: &str, sub: &str, file: &Path) -> Result<Vec<(usize, usize, String)>> {
    let bad = |what: &str| {
        Error::Input(format!(
            "{what} in {} is not in the documented shape; slm changed nothing",
            file.display()
        ))
    };
    let Some(hooks) = v.get("hooks") else {
        return Ok(Vec::new());
    };
    let hooks = hooks.as_object().ok_or_else(|| bad("\"hooks\""))?;
    let Some(groups) = hooks.get(event) else {
        return Ok(Vec::new());
    };
    let groups = groups
        .as_array()
        .ok_or_else(|| bad(&format!("\"hooks.{event}\"")))?;
    let mut out = Vec::new();
    for (gi, g) in groups.iter().enumerate() {
        for (hi, h) in g["hooks"].as_array().into_iter().flatten().enumerate() {
            if let Some(c) = h["command"].as_str()
                && is_slm_hook(c, sub)
            {
                out.push((gi, hi, c.to_string()));
            }
        }
    }
    Ok(out)
}

/// `cmd` runs slm's binary with `sub` (a path quoted as slm quotes it, or plain).
fn is_slm_hook(cmd: &str, sub: &str) -> bool {
    let cmd = cmd.trim();
    let (program, rest) = if let Some(q) = cmd.strip_prefix('\'') {
        match q.find('\'') {
            Some(end) => (q[..end].to_string(), &q[end + 1..]),
            None => return false,
        }
    } else {
        match cmd.split_once(' ') {
            Some((p, r)) => (p.to_string(), r),
            None => return false,
        }
    };
    is_slm_program(&program) && rest.split_whitespace().collect::<Vec<_>>().join(" ") == sub
}

pub(super) fn connected(text: &str, file: &Path) -> Result<bool> {
    let v = Doc::parse(text, file)?.value();
    for (event, sub, _) in EVENTS {
        if find(&v, event, sub, file)?.is_empty() {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Remove slm's hooks for one event, the groups they leave empty, and then an empty event
/// list and an empty `hooks` object.
fn remove_event(doc: &mut Doc, event: &str, sub: &str, file: &Path) -> Result<bool> {
    let mut any = false;
    while let Some((gi, hi, _)) = find(&doc.value(), event, sub, file)?.into_iter().next() {
        let n = doc.value()["hooks"][event][gi]["hooks"]
            .as_array()
            .map_or(0, |a| a.len());
        let group = [Step::Key("hooks"), Step::Key(event), Step::Index(gi)];
        if n <= 1 {
            doc.remove(&group);
        } else {
            doc.remove(&[
                group[0],
                group[1],
                group[2],
                Step::Key("hooks"),
                Step::Index(hi),
            ]);
        }
        any = true;
    }
    let v = doc.value();
    if any && v["hooks"][event].as_array().is_some_and(|a| a.is_empty()) {
        doc.remove(&[Step::Key("hooks"), Step::Key(event)]);
    }
    if any
        && doc.value()["hooks"]
            .as_object()
            .is_some_and(|m| m.is_empty())
    {
        doc.remove(&[Step::Key("hooks")]);
    }
    Ok(any)
}

pub(super) fn connect(text: &str, file: &Path, server: &Server) -> Result<Edited> {
    let mut doc = Doc::parse(text, file)?;
    let mut out = Edited::unchanged(text);
    for (event, sub, matcher) in EVENTS {
        let want = command(server, sub);
        let found = find(&doc.value(), event, sub, file)?;
        if found.iter().any(|(_, _, c)| *c == want) {
            continue;
        }
        if !found.is_empty() {
            remove_event(&mut doc, event, sub, file)?;
            out.removed
                .push(format!("hooks.{event}: slm {sub} (an older path)"));
        }
        let group = Group {
            matcher,
            hooks: vec![Hook {
                r#type: "command",
                command: want.clone(),
            }],
        };
        if !doc.insert(&[Step::Key("hooks"), Step::Key(event)], None, &group)
            && !doc.insert(&[Step::Key("hooks")], Some(event), &[&group])
        {
            let hooks = std::collections::BTreeMap::from([(event, [&group])]);
            doc.insert(&[], Some("hooks"), &hooks);
        }
        out.added.push(format!("hooks.{event}: {want}"));
    }
    if !out.added.is_empty() {
        out.text = doc.text;
    }
    Ok(out)
}

pub(super) fn disconnect(text: &str, file: &Path) -> Result<Edited> {
    let mut out = Edited::unchanged(text);
    if text.trim().is_empty() {
        return Ok(out);
    }
    let mut doc = Doc::parse(text, file)?;
    for (event, sub, _) in EVENTS {
        if remove_event(&mut doc, event, sub, file)? {
            out.removed.push(format!("hooks.{event}: slm {sub}"));
        }
    }
    if !out.removed.is_empty() {
        out.text = doc.text;
    }
    Ok(out)
}
