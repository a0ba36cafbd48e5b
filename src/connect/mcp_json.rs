//! slm's MCP server in a JSON file's top-level `mcpServers` object, the format Claude Code
//! (`~/.claude.json`, user scope), Cursor (`~/.cursor/mcp.json`) and Gemini CLI
//! (`~/.gemini/settings.json`) share:
//!
//! ```json
//! { "mcpServers": { "slm": { "command": "/home/me/.local/bin/slm", "args": ["mcp"] } } }
//! ```
//!
//! Documented at:
//! - Claude Code: <https://code.claude.com/docs/en/mcp> (user scope: `mcpServers` at the
//!   top of `~/.claude.json`; a stdio server when `type` is absent)
//! - Cursor: <https://cursor.com/docs/mcp> (global `~/.cursor/mcp.json`, `mcpServers`,
//!   `command` and `args`)
//! - Gemini CLI: <https://geminicli.com/docs/tools/mcp-server/> (`mcpServers` in
//!   `~/.gemini/settings.json`, `command` and `args`)
//!
//! Only an `slm` entry that runs slm's own binary with `mcp` counts as slm's: another
//! entry under that name is refused, never overwritten.

use super::json_edit::{Doc, Step};
use super::{Edited, Server, is_slm_program};
use crate::{Error, Result};
use serde_json::{Value, json};
use std::path::Path;

const SERVERS: &str = "mcpServers";
const NAME: &str = "slm";
const ENTRY: &str = "mcpServers.slm";

/// The entry slm writes, its fields in this order.
#[derive(serde::Serialize)]
pub(super) struct Entry<'a> {
    command: &'a str,
    args: &'a [String],
}

pub(super) fn entry(server: &Server) -> Entry<'_> {
    Entry {
        command: &server.command,
        args: &server.args,
    }
}

/// What is under `mcpServers.slm`: absent, slm's (with its command), or someone else's.
enum Found {
    Absent,
    Ours(Value),
    Other,
}

fn find(v: &Value, file: &Path) -> Result<Found> {
    let Some(servers) = v.get(SERVERS) else {
        return Ok(Found::Absent);
    };
    let Some(servers) = servers.as_object() else {
        return Err(Error::Input(format!(
            "\"{SERVERS}\" in {} is not an object; slm changed nothing",
            file.display()
        )));
    };
    Ok(match servers.get(NAME) {
        None => Found::Absent,
        Some(e) if is_ours(e) => Found::Ours(e.clone()),
        Some(_) => Found::Other,
    })
}

fn is_ours(e: &Value) -> bool {
    e["command"].as_str().is_some_and(is_slm_program) && e["args"] == json!(["mcp"])
}

pub(super) fn connected(text: &str, file: &Path) -> Result<bool> {
    Ok(matches!(
        find(&Doc::parse(text, file)?.value(), file)?,
        Found::Ours(_)
    ))
}

pub(super) fn connect(text: &str, file: &Path, server: &Server) -> Result<Edited> {
    let mut doc = Doc::parse(text, file)?;
    let want = entry(server);
    let mut out = Edited::unchanged(text);
    match find(&doc.value(), file)? {
        Found::Ours(e) if e == json!({ "command": server.command, "args": server.args }) => {
            return Ok(out);
        }
        Found::Other => {
            return Err(Error::Input(format!(
                "{} already has an MCP server named \"slm\" that slm did not write; slm changed nothing (rename or remove it, then run this again)",
                file.display()
            )));
        }
        Found::Ours(_) => {
            doc.remove(&[Step::Key(SERVERS), Step::Key(NAME)]);
            out.removed.push(format!("{ENTRY} (an older path)"));
        }
        Found::Absent => {}
    }
    if !doc.insert(&[Step::Key(SERVERS)], Some(NAME), &want) {
        doc.insert(
            &[],
            Some(SERVERS),
            &std::collections::BTreeMap::from([(NAME, want)]),
        );
    }
    out.added.push(ENTRY.into());
    out.text = doc.text;
    Ok(out)
}

pub(super) fn disconnect(text: &str, file: &Path) -> Result<Edited> {
    let mut out = Edited::unchanged(text);
    if text.trim().is_empty() {
        return Ok(out);
    }
    let mut doc = Doc::parse(text, file)?;
    if let Found::Ours(_) = find(&doc.value(), file)? {
        doc.remove(&[Step::Key(SERVERS), Step::Key(NAME)]);
        if doc.value()[SERVERS]
            .as_object()
            .is_some_and(|m| m.is_empty())
        {
            doc.remove(&[Step::Key(SERVERS)]);
        }
        out.removed.push(ENTRY.into());
        out.text = doc.text;
    }
    Ok(out)
}
