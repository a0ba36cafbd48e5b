//! slm's MCP server in Codex CLI's `~/.codex/config.toml` (or `$CODEX_HOME/config.toml`),
//! as documented at <https://developers.openai.com/codex/mcp>: one `[mcp_servers.<name>]`
//! table per server, with `command` and `args` for a stdio server.
//!
//! ```toml
//! [mcp_servers.slm]
//! command = "/home/me/.local/bin/slm"
//! args = ["mcp"]
//! ```
//!
//! The file is edited with `toml_edit`, so the user's comments, order and spacing stay.

use super::{Edited, Server, is_slm_program};
use crate::{Error, Result};
use std::path::Path;
use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, Value};

const ENTRY: &str = "mcp_servers.slm";

fn parse(text: &str, file: &Path) -> Result<DocumentMut> {
    text.parse::<DocumentMut>().map_err(|e| {
        let at = e.span().map_or(0, |s| s.start).min(text.len());
        let line = text[..at].matches('\n').count() + 1;
        let column = text[..at].rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        Error::Input(format!(
            "{} is not valid TOML at line {line}, column {column}: {}; slm changed nothing (fix it, or edit it by hand)",
            file.display(),
            e.message().trim()
        ))
    })
}

fn servers<'a>(doc: &'a DocumentMut, file: &Path) -> Result<Option<&'a dyn toml_edit::TableLike>> {
    match doc.get("mcp_servers") {
        None => Ok(None),
        Some(i) => i.as_table_like().map(Some).ok_or_else(|| {
            Error::Input(format!(
                "mcp_servers in {} is not a table; slm changed nothing",
                file.display()
            ))
        }),
    }
}

/// The `slm` entry's (command, args) when it is slm's; Err when someone else's.
fn ours(doc: &DocumentMut, file: &Path) -> Result<Option<(String, Vec<String>)>> {
    let Some(e) = servers(doc, file)?.and_then(|s| s.get("slm")) else {
        return Ok(None);
    };
    let command = e.get("command").and_then(|c| c.as_str()).unwrap_or("");
    let args: Vec<String> = e
        .get("args")
        .and_then(|a| a.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    if is_slm_program(command) && args == ["mcp"] {
        Ok(Some((command.to_string(), args)))
    } else {
        Err(Error::Input(format!(
            "{} already has an MCP server named \"slm\" that slm did not write; slm changed nothing (rename or remove it, then run this again)",
            file.display()
        )))
    }
}

pub(super) fn connected(text: &str, file: &Path) -> Result<bool> {
    Ok(ours(&parse(text, file)?, file)?.is_some())
}

pub(super) fn connect(text: &str, file: &Path, server: &Server) -> Result<Edited> {
    let mut doc = parse(text, file)?;
    let mut out = Edited::unchanged(text);
    match ours(&doc, file)? {
        Some((c, a)) if c == server.command && a == server.args => return Ok(out),
        Some(_) => {
            remove(&mut doc);
            out.removed.push(format!("{ENTRY} (an older path)"));
        }
        None => {}
    }
    let args = Array::from_iter(server.args.iter().map(String::as_str));
    let item = doc.entry("mcp_servers").or_insert_with(|| {
        let mut t = Table::new();
        t.set_implicit(true);
        Item::Table(t)
    });
    match item {
        Item::Value(Value::InlineTable(servers)) => {
            let mut e = InlineTable::new();
            e.insert("command", server.command.as_str().into());
            e.insert("args", Value::Array(args));
            servers.insert("slm", Value::InlineTable(e));
        }
        Item::Table(servers) => {
            let mut e = Table::new();
            e.insert("command", toml_edit::value(server.command.as_str()));
            e.insert("args", toml_edit::value(args));
            if !text.trim().is_empty() {
                e.decor_mut().set_prefix("\n");
            }
            servers.insert("slm", Item::Table(e));
        }
        _ => unreachable!("servers() checked it is a table"),
    }
    out.added.push(ENTRY.into());
    out.text = doc.to_string();
    Ok(out)
}

/// Remove `mcp_servers.slm`, and `mcp_servers` when that leaves it an empty implicit table.
fn remove(doc: &mut DocumentMut) {
    let Some(s) = doc
        .get_mut("mcp_servers")
        .and_then(|i| i.as_table_like_mut())
    else {
        return;
    };
    s.remove("slm");
    let drop = s.is_empty()
        && doc
            .get("mcp_servers")
            .and_then(|i| i.as_table())
            .is_some_and(|t| t.is_implicit());
    if drop {
        doc.remove("mcp_servers");
    }
}

pub(super) fn disconnect(text: &str, file: &Path) -> Result<Edited> {
    let mut doc = parse(text, file)?;
    let mut out = Edited::unchanged(text);
    if ours(&doc, file).ok().flatten().is_some() {
        remove(&mut doc);
        out.removed.push(ENTRY.into());
        out.text = doc.to_string();
    }
    Ok(out)
}
