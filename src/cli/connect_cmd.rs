//! `slm connect <agent>` (the work is in `connect`): plan the change, show it, ask (or
//! take `--yes`), write it with a backup; `--print` and `--status` only read.

use super::args::ConnectArgs;
use crate::connect::{self, Agent, Change, Server, files};
use crate::output::{Style, emit};
use crate::{Error, Result};
use serde_json::{Value, json};
use std::io::IsTerminal;

pub fn connect(a: ConnectArgs, style: Style) -> Result<i32> {
    let server = Server::current()?;
    if a.print {
        return print(&server, style);
    }
    if a.status {
        return status(&a, style);
    }
    let agent = a
        .agent
        .ok_or_else(|| Error::Usage("name an agent: claude, codex, cursor or gemini".into()))?;
    if a.hooks_config.is_some() && agent != Agent::Claude {
        return Err(Error::Usage(
            "--hooks-config is for Claude Code only (the other agents get no hooks)".into(),
        ));
    }
    let targets = connect::targets(
        agent,
        a.config.as_deref(),
        a.hooks_config.as_deref(),
        !a.no_hooks,
    )?;
    let changes = connect::plan(&targets, &server, a.remove)?;
    let action = if a.remove { "remove" } else { "connect" };
    let base = |changed: bool| {
        json!({
            "agent": agent.id(),
            "action": action,
            "changed": changed,
            "dry_run": a.dry_run,
            "server": { "command": server.command, "args": server.args },
        })
    };
    if changes.is_empty() {
        let mut v = base(false);
        v["files"] = json!([]);
        let msg = if a.remove {
            format!("{} is not connected; nothing to remove", agent.title())
        } else {
            format!("{} is already connected; nothing changed", agent.title())
        };
        emit(style, "connect", v, || msg)?;
        return Ok(0);
    }
    let shown: String = changes.iter().map(describe).collect();
    if a.dry_run {
        let mut v = base(false);
        v["files"] = changes.iter().map(|c| file_json(c, None)).collect();
        emit(style, "connect", v, || {
            format!("{shown}(dry run: nothing was written)")
        })?;
        return Ok(0);
    }
    if !a.yes {
        if !std::io::stdin().is_terminal() {
            return Err(Error::Usage(format!(
                "slm connect asks before changing {}'s config, and there is no terminal to ask on; pass --yes to change it from a script, or --dry-run to look (nothing was changed)",
                agent.title()
            )));
        }
        if style.json {
            eprint!("{shown}");
        } else {
            print!("{shown}");
        }
        if !super::ask_yes("Write this?")? {
            let mut v = base(false);
            v["files"] = json!([]);
            emit(style, "connect", v, || "nothing was changed".into())?;
            return Ok(1);
        }
    }
    let applied = connect::apply(changes, crate::Clock::from_env()?.now())?;
    let mut v = base(true);
    v["files"] = applied
        .iter()
        .map(|x| file_json(&x.change, x.backup.as_deref()))
        .collect();
    emit(style, "connect", v, || {
        let mut out = format!(
            "{} {}:\n",
            if a.remove {
                "disconnected"
            } else {
                "connected"
            },
            agent.title()
        );
        for x in &applied {
            let c = &x.change;
            out.push_str(&format!("  {}", c.path.display()));
            if !c.added.is_empty() {
                out.push_str(&format!(": added {}", c.added.join(", ")));
            }
            if !c.removed.is_empty() {
                out.push_str(&format!(
                    "{} removed {}",
                    if c.added.is_empty() { ":" } else { ";" },
                    c.removed.join(", ")
                ));
            }
            match (&c.before, &c.after, &x.backup) {
                (None, _, _) => out.push_str(" (new file)"),
                (_, None, Some(b)) => {
                    out.push_str(&format!(" (file deleted; backup {})", b.display()))
                }
                (_, _, Some(b)) => out.push_str(&format!(" (backup {})", b.display())),
                _ => {}
            }
            out.push('\n');
        }
        if !a.remove {
            out.push_str(&format!(
                "Start a new {} session to use slm.",
                agent.title()
            ));
        }
        out
    })?;
    Ok(0)
}

/// One file's planned change, for a person: what happens to it, then the diff.
fn describe(c: &Change) -> String {
    let what = match (&c.before, &c.after, &c.restored_from) {
        (None, _, _) => "new file".to_string(),
        (_, None, _) => "delete the file (slm created it)".to_string(),
        (_, _, Some(b)) => format!("put back the bytes of {}", b.display()),
        _ => "change".to_string(),
    };
    let diff = files::diff(
        c.before.as_deref().unwrap_or(""),
        c.after.as_deref().unwrap_or(""),
    );
    format!("{} ({what}):\n{diff}\n", c.path.display())
}

fn file_json(c: &Change, backup: Option<&std::path::Path>) -> Value {
    json!({
        "path": c.path.display().to_string(),
        "created": c.before.is_none(),
        "deleted": c.after.is_none(),
        "added": c.added,
        "removed": c.removed,
        "backup": backup.map(|b| b.display().to_string()),
        "restored_from": c.restored_from.as_ref().map(|b| b.display().to_string()),
        "diff": files::diff(c.before.as_deref().unwrap_or(""), c.after.as_deref().unwrap_or("")),
    })
}

fn print(server: &Server, style: Style) -> Result<i32> {
    let entry = server.entry();
    let text = server.entry_text();
    emit(
        style,
        "connect",
        json!({
            "server": { "command": server.command, "args": server.args },
            "entry": entry,
        }),
        || {
            format!(
                "{text}\n\nslm's MCP server runs on standard input and output; merge this into your MCP client's config (in TOML, as Codex CLI reads it: [mcp_servers.slm] with the same command and args)."
            )
        },
    )?;
    Ok(0)
}

fn status(a: &ConnectArgs, style: Style) -> Result<i32> {
    let agents = match a.agent {
        Some(x) => vec![x],
        None => Agent::ALL.to_vec(),
    };
    let mut rows = Vec::new();
    for agent in agents {
        // --config and --hooks-config describe one agent's files, so only with AGENT.
        let (config, hooks) = match a.agent {
            Some(_) => (a.config.as_deref(), a.hooks_config.as_deref()),
            None => (None, None),
        };
        let files = connect::status(&connect::targets(agent, config, hooks, !a.no_hooks)?);
        let connected = files.iter().all(|f| f.connected);
        let partly = !connected && files.iter().any(|f| f.connected);
        rows.push((agent, connected, partly, files));
    }
    let v = json!({
        "agents": rows.iter().map(|(agent, connected, _, files)| json!({
            "agent": agent.id(),
            "name": agent.title(),
            "connected": connected,
            "files": files,
        })).collect::<Vec<_>>(),
    });
    emit(style, "connect", v, || {
        let mut out = String::new();
        for (agent, connected, partly, files) in &rows {
            let state = if *connected {
                style.green("connected")
            } else if *partly {
                style.yellow("partly connected")
            } else {
                "not connected".to_string()
            };
            out.push_str(&format!("{:<12} {state}\n", agent.title()));
            for f in files {
                let note = match (&f.problem, f.exists, f.connected) {
                    (Some(p), _, _) => style.red(&format!("cannot read: {p}")),
                    (None, false, _) => "no file".to_string(),
                    (None, true, true) => "slm is in it".to_string(),
                    (None, true, false) => "slm is not in it".to_string(),
                };
                out.push_str(&format!("  {:<6} {}  {note}\n", f.what, f.path.display()));
            }
        }
        out.trim_end().to_string()
    })?;
    Ok(0)
}
