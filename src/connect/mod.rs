//! `slm connect <agent>`: write slm's MCP server (and, for Claude Code, its hooks) into an
//! agent's own config file, in the format that agent documents; or take them out again.
//!
//! The rules, whatever the format:
//! - only slm's entries are added, updated or removed; every other key, server and hook
//!   stays as it was, and an entry named `slm` that slm did not write is refused;
//! - a malformed file is refused untouched, with its line and column;
//! - the file is backed up next to itself (`<file>.slm-backup-<YYYYmmddTHHMMSS>`, UTC)
//!   before any change, and written whole through a temporary file;
//! - connecting twice changes nothing the second time;
//! - `--remove` right after a connect puts back the bytes from before it (the backup whose
//!   connect gives today's file), else removes slm's entries one by one; a file that
//!   connect created is deleted when nothing else was added to it.
//!
//! One file per format: [`mcp_json`] (Claude Code, Cursor, Gemini CLI), [`codex`] (TOML),
//! [`claude_hooks`] (Claude Code's settings); [`files`] reads, backs up, writes and diffs.

mod claude_hooks;
mod codex;
pub mod files;
mod json_edit;
mod mcp_json;

use crate::{Error, Result};
use std::path::{Path, PathBuf};

/// The agents slm can connect to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Agent {
    /// Claude Code: MCP in ~/.claude.json, hooks in ~/.claude/settings.json.
    #[value(alias = "claude-code")]
    Claude,
    /// Codex CLI: ~/.codex/config.toml (or $CODEX_HOME/config.toml).
    #[value(alias = "codex-cli")]
    Codex,
    /// Cursor: ~/.cursor/mcp.json.
    Cursor,
    /// Gemini CLI: ~/.gemini/settings.json.
    #[value(alias = "gemini-cli")]
    Gemini,
}

impl Agent {
    pub const ALL: [Agent; 4] = [Agent::Claude, Agent::Codex, Agent::Cursor, Agent::Gemini];

    /// The name on the command line.
    pub fn id(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Cursor => "cursor",
            Agent::Gemini => "gemini",
        }
    }

    /// The product's name.
    pub fn title(self) -> &'static str {
        match self {
            Agent::Claude => "Claude Code",
            Agent::Codex => "Codex CLI",
            Agent::Cursor => "Cursor",
            Agent::Gemini => "Gemini CLI",
        }
    }
}

/// How an agent starts slm's MCP server: this binary's absolute path, so it works when the
/// directory slm is in is not on the agent's PATH.
#[derive(Debug, Clone)]
pub struct Server {
    pub command: String,
    pub args: Vec<String>,
}

impl Server {
    pub fn current() -> Result<Server> {
        let exe = std::env::current_exe()
            .map_err(|e| Error::io("finding the path of the slm binary", e))?;
        let command = exe.to_str().map(String::from).ok_or_else(|| {
            Error::Other(format!("the path of slm, {}, is not UTF-8", exe.display()))
        })?;
        Ok(Server {
            command,
            args: vec!["mcp".into()],
        })
    }

    /// The generic MCP client entry, `{"mcpServers": {"slm": {"command", "args"}}}`, as
    /// a person would write it (command first).
    pub fn entry_text(&self) -> String {
        let entry = std::collections::BTreeMap::from([(
            "mcpServers",
            std::collections::BTreeMap::from([("slm", mcp_json::entry(self))]),
        )]);
        serde_json::to_string_pretty(&entry).expect("an entry serialises")
    }

    /// The same entry as a JSON value.
    pub fn entry(&self) -> serde_json::Value {
        serde_json::json!({ "mcpServers": { "slm": { "command": self.command, "args": self.args } } })
    }
}

/// A command whose program is slm's binary (any path, file name `slm`).
fn is_slm_program(cmd: &str) -> bool {
    Path::new(cmd)
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n == "slm" || n == "slm.exe")
}

/// `s` as one shell word: as it is when it is plain, else in single quotes.
fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%,=".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// A file's text after one part's edit, with what was added and removed.
struct Edited {
    text: String,
    added: Vec<String>,
    removed: Vec<String>,
}

impl Edited {
    fn unchanged(text: &str) -> Edited {
        Edited {
            text: text.to_string(),
            added: Vec::new(),
            removed: Vec::new(),
        }
    }
}

/// One thing slm writes into one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    McpJson,
    McpToml,
    ClaudeHooks,
}

impl Part {
    fn connect(self, text: &str, file: &Path, server: &Server) -> Result<Edited> {
        match self {
            Part::McpJson => mcp_json::connect(text, file, server),
            Part::McpToml => codex::connect(text, file, server),
            Part::ClaudeHooks => claude_hooks::connect(text, file, server),
        }
    }
    fn disconnect(self, text: &str, file: &Path) -> Result<Edited> {
        match self {
            Part::McpJson => mcp_json::disconnect(text, file),
            Part::McpToml => codex::disconnect(text, file),
            Part::ClaudeHooks => claude_hooks::disconnect(text, file),
        }
    }
    fn connected(self, text: &str, file: &Path) -> Result<bool> {
        match self {
            Part::McpJson => mcp_json::connected(text, file),
            Part::McpToml => codex::connected(text, file),
            Part::ClaudeHooks => claude_hooks::connected(text, file),
        }
    }
    fn what(self) -> &'static str {
        match self {
            Part::McpJson | Part::McpToml => "mcp",
            Part::ClaudeHooks => "hooks",
        }
    }
}

/// One file of an agent and what slm keeps in it.
#[derive(Debug, Clone)]
pub struct Target {
    part: Part,
    pub path: PathBuf,
}

/// Where `agent` keeps its config. `config` replaces the MCP file, `hooks_config` Claude
/// Code's settings file; `hooks: false` leaves hooks out.
pub fn targets(
    agent: Agent,
    config: Option<&Path>,
    hooks_config: Option<&Path>,
    hooks: bool,
) -> Result<Vec<Target>> {
    let home = || -> Result<PathBuf> {
        std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .or_else(|| directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf()))
            .ok_or_else(|| Error::Other("no home directory ($HOME is not set)".into()))
    };
    let or = |p: Option<&Path>, default: &dyn Fn() -> Result<PathBuf>| match p {
        Some(p) => Ok(p.to_path_buf()),
        None => default(),
    };
    let t = |part, path| Target { part, path };
    Ok(match agent {
        Agent::Claude => {
            let mut v = vec![t(
                Part::McpJson,
                or(config, &|| Ok(home()?.join(".claude.json")))?,
            )];
            if hooks {
                v.push(t(
                    Part::ClaudeHooks,
                    or(hooks_config, &|| Ok(home()?.join(".claude/settings.json")))?,
                ));
            }
            v
        }
        Agent::Codex => vec![t(
            Part::McpToml,
            or(config, &|| {
                Ok(
                    match std::env::var_os("CODEX_HOME").filter(|v| !v.is_empty()) {
                        Some(c) => PathBuf::from(c).join("config.toml"),
                        None => home()?.join(".codex/config.toml"),
                    },
                )
            })?,
        )],
        Agent::Cursor => vec![t(
            Part::McpJson,
            or(config, &|| Ok(home()?.join(".cursor/mcp.json")))?,
        )],
        Agent::Gemini => vec![t(
            Part::McpJson,
            or(config, &|| Ok(home()?.join(".gemini/settings.json")))?,
        )],
    })
}

/// One file's planned change: its text now (None: absent) and after (None: delete it).
#[derive(Debug, Clone)]
pub struct Change {
    pub path: PathBuf,
    pub before: Option<String>,
    pub after: Option<String>,
    pub added: Vec<String>,
    pub removed: Vec<String>,
    /// The backup whose bytes `--remove` puts back.
    pub restored_from: Option<PathBuf>,
}

/// The parts of `targets` that live in `path`.
fn parts_of(targets: &[Target], path: &Path) -> Vec<Part> {
    targets
        .iter()
        .filter(|t| t.path == path)
        .map(|t| t.part)
        .collect()
}

/// What connecting every part to `text` gives.
fn connect_all(parts: &[Part], text: &str, path: &Path, server: &Server) -> Result<Edited> {
    let mut out = Edited::unchanged(text);
    for p in parts {
        let e = p.connect(&out.text, path, server)?;
        out.text = e.text;
        out.added.extend(e.added);
        out.removed.extend(e.removed);
    }
    Ok(out)
}

/// The changes connecting (or, with `remove`, disconnecting) would make; only files that
/// would change are listed. Nothing is written.
pub fn plan(targets: &[Target], server: &Server, remove: bool) -> Result<Vec<Change>> {
    let mut changes = Vec::new();
    let mut seen: Vec<&Path> = Vec::new();
    for t in targets {
        if seen.contains(&t.path.as_path()) {
            continue;
        }
        seen.push(&t.path);
        let path = &t.path;
        let parts = parts_of(targets, path);
        let before = files::read(path)?;
        let text = before.clone().unwrap_or_default();
        let mut c = Change {
            path: path.clone(),
            before: before.clone(),
            after: before.clone(),
            added: Vec::new(),
            removed: Vec::new(),
            restored_from: None,
        };
        if !remove {
            let e = connect_all(&parts, &text, path, server)?;
            (c.added, c.removed) = (e.added, e.removed);
            c.after = Some(e.text);
        } else if before.is_some() {
            let mut now = text.clone();
            for p in &parts {
                let e = p.disconnect(&now, path)?;
                now = e.text;
                c.removed.extend(e.removed);
            }
            c.after = Some(now);
            if !c.removed.is_empty() {
                if connect_all(&parts, "", path, server)?.text == text {
                    c.after = None;
                } else {
                    for b in files::backups(path) {
                        let Ok(Some(old)) = files::read(&b) else {
                            continue;
                        };
                        if old != text && connect_all(&parts, &old, path, server)?.text == text {
                            c.after = Some(old);
                            c.restored_from = Some(b);
                            break;
                        }
                    }
                }
            }
        }
        if c.after != c.before {
            changes.push(c);
        }
    }
    Ok(changes)
}

/// What was written for one change: the backup of the file as it was, if it existed.
#[derive(Debug, Clone)]
pub struct Applied {
    pub change: Change,
    pub backup: Option<PathBuf>,
}

/// Write `changes`: back each file up, then write it whole (or delete it). A file that
/// changed since the plan was made is refused, and nothing more is written.
pub fn apply(changes: Vec<Change>, now: chrono::DateTime<chrono::Utc>) -> Result<Vec<Applied>> {
    let mut done = Vec::new();
    for c in changes {
        if files::read(&c.path)? != c.before {
            return Err(Error::Other(format!(
                "{} changed while slm was asking; nothing more was written (run the command again)",
                c.path.display()
            )));
        }
        let backup = match &c.before {
            Some(_) => Some(files::backup(&c.path, now)?),
            None => None,
        };
        match &c.after {
            Some(text) => files::write(&c.path, text)?,
            None => files::delete(&c.path)?,
        }
        done.push(Applied { change: c, backup });
    }
    Ok(done)
}

/// One file of an agent as `--status` sees it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FileStatus {
    pub what: &'static str,
    pub path: PathBuf,
    pub exists: bool,
    pub connected: bool,
    /// Why the file could not be read, when it could not.
    pub problem: Option<String>,
}

/// Each part of `agent`'s config, read.
pub fn status(targets: &[Target]) -> Vec<FileStatus> {
    targets
        .iter()
        .map(|t| {
            let read = files::read(&t.path);
            let exists = matches!(read, Ok(Some(_)));
            let connected = read.and_then(|text| match text {
                Some(text) => t.part.connected(&text, &t.path),
                None => Ok(false),
            });
            FileStatus {
                what: t.part.what(),
                path: t.path.clone(),
                exists,
                connected: *connected.as_ref().unwrap_or(&false),
                problem: connected.err().map(|e| e.to_string()),
            }
        })
        .collect()
}
