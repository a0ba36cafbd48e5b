//! Backfill from coding agents' own session files: `slm import --from claude-code|codex`.
//!
//! A new install starts with months of sessions already on disk. Each session file is read
//! line by line into [`Turn`]s: every prompt the person typed (kind `prompt`, source
//! `captured_prompt`, as a capture hook would have saved it) and every text reply of the
//! agent (a note). Tool calls, tool output, reasoning, injected context and the agents'
//! own bookkeeping lines are left out and counted by type; a line that is not JSON is
//! counted as bad and skipped, never a crash. Each turn keeps its session id and time, and
//! its project comes from the session's working directory (`crate::project`).
//!
//! Every turn has an idempotency key (agent, session and the line's own id or number), so an
//! import that stopped part way is finished by running it again, and a second run adds
//! nothing.
//!
//! The formats, read from the files these agents write (no agent documents them as an
//! interface, so anything unknown is skipped and counted, never guessed at):
//! [`claude_code`] (`~/.claude/projects/<folder>/<session>.jsonl`) and [`codex`]
//! (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).

pub mod claude_code;
pub mod codex;

use crate::memory::{Kind, NewMemory, Source};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The agents whose history slm reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Agent {
    /// Claude Code: ~/.claude/projects/*/*.jsonl ($CLAUDE_CONFIG_DIR/projects when set).
    #[value(alias = "claude")]
    ClaudeCode,
    /// Codex CLI: ~/.codex/sessions/**/rollout-*.jsonl ($CODEX_HOME/sessions when set).
    #[value(alias = "codex-cli")]
    Codex,
}

impl Agent {
    pub fn id(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
        }
    }

    /// Where the agent keeps its sessions.
    pub fn default_dir(self) -> Option<PathBuf> {
        let home = || directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
        let env_dir = |var: &str| {
            std::env::var_os(var)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        Some(match self {
            Agent::ClaudeCode => env_dir("CLAUDE_CONFIG_DIR")
                .unwrap_or(home()?.join(".claude"))
                .join("projects"),
            Agent::Codex => env_dir("CODEX_HOME")
                .unwrap_or(home()?.join(".codex"))
                .join("sessions"),
        })
    }

    /// The session files under `dir` (or `dir` itself when it is one file), in path order.
    pub fn session_files(self, dir: &Path) -> Vec<PathBuf> {
        if dir.is_file() {
            return vec![dir.to_path_buf()];
        }
        let mut out = Vec::new();
        walk(dir, 0, &mut |p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let wanted = match self {
                Agent::ClaudeCode => name.ends_with(".jsonl"),
                Agent::Codex => name.starts_with("rollout-") && name.ends_with(".jsonl"),
            };
            if wanted {
                out.push(p.to_path_buf());
            }
        });
        out.sort();
        out
    }

    /// Read one session file.
    pub fn read(self, path: &Path) -> std::io::Result<Session> {
        let text = String::from_utf8_lossy(&std::fs::read(path)?).into_owned();
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        Ok(match self {
            Agent::ClaudeCode => claude_code::read(&text, stem),
            Agent::Codex => codex::read(&text, stem),
        })
    }
}

/// Folders deeper than this are not walked (Codex nests three: year, month, day).
const MAX_DEPTH: usize = 6;

fn walk(dir: &Path, depth: usize, f: &mut dyn FnMut(&Path)) {
    if depth > MAX_DEPTH {
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let Ok(t) = e.file_type() else { continue };
        if t.is_dir() {
            walk(&e.path(), depth + 1, f);
        } else if t.is_file() {
            f(&e.path());
        }
    }
}

/// One prompt or reply.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub text: String,
    /// `Prompt` for what the person typed, `Note` for the agent's reply.
    pub kind: Kind,
    /// Unix ms, when the line says.
    pub at_ms: Option<i64>,
    pub session: Option<String>,
    /// The session's working directory, when the line says.
    pub cwd: Option<String>,
    /// The idempotency key.
    pub key: String,
}

/// What one session file gave.
#[derive(Debug, Default)]
pub struct Session {
    pub turns: Vec<Turn>,
    /// Lines left out, by what they were ("tool_result", "function_call", …).
    pub skipped: BTreeMap<String, usize>,
    /// Lines that were not JSON objects.
    pub bad_lines: usize,
}

impl Session {
    fn skip(&mut self, what: &str) {
        *self.skipped.entry(what.to_string()).or_default() += 1;
    }

    /// The JSON object a line holds; `None` for a blank line, and for a line that is not a
    /// JSON object (counted as bad).
    fn object(&mut self, line: &str) -> Option<serde_json::Value> {
        if line.trim().is_empty() {
            return None;
        }
        match serde_json::from_str::<serde_json::Value>(line) {
            Ok(v) if v.is_object() => Some(v),
            _ => {
                self.bad_lines += 1;
                None
            }
        }
    }
}

impl Turn {
    /// The memory to write, in `profile` and `project`.
    pub fn into_memory(self, agent: Agent, profile: &str, project: Option<String>) -> NewMemory {
        let prompt = self.kind == Kind::Prompt;
        NewMemory {
            text: crate::memory::clip_text(&self.text),
            kind: Some(self.kind),
            source: Some(if prompt {
                Source::CapturedPrompt
            } else {
                Source::Import
            }),
            profile: Some(profile.to_string()),
            session_id: self.session,
            tags: vec![agent.id().to_string()],
            event_at: self.at_ms,
            idempotency_key: Some(self.key),
            project,
            ..Default::default()
        }
    }
}

/// An RFC 3339 time as Unix ms.
fn time_ms(v: &serde_json::Value) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(v.as_str()?)
        .ok()
        .map(|t| t.timestamp_millis())
}

/// The project of a session's working directory: its repository's, when the folder is
/// still here; the folder's own name and path when it is gone (the repository root cannot
/// be known then); none when it is here and in no repository.
pub fn project_of(cwd: &str) -> Option<String> {
    let p = Path::new(cwd);
    if p.exists() {
        crate::project::detect(p)
    } else if p.is_absolute() && p.file_name().is_some() {
        Some(crate::project::name_of_root(p))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MAX_TEXT_BYTES;

    fn fixtures() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/history")
    }

    #[test]
    fn the_fixture_folders_are_found_and_read() {
        let claude = Agent::ClaudeCode.session_files(&fixtures().join("claude-code/projects"));
        assert_eq!(claude.len(), 2, "{claude:?}");
        let codex = Agent::Codex.session_files(&fixtures().join("codex/sessions"));
        assert_eq!(codex.len(), 2, "{codex:?}");
        for f in &claude {
            let s = Agent::ClaudeCode.read(f).unwrap();
            assert!(!s.turns.is_empty());
        }
        for f in &codex {
            let s = Agent::Codex.read(f).unwrap();
            assert!(!s.turns.is_empty());
        }
    }

    #[test]
    fn a_gone_folder_still_names_a_project_and_a_long_reply_is_cut() {
        let p = project_of("/nowhere/at/all/webshop").unwrap();
        assert!(p.starts_with("webshop-"), "{p}");
        assert_eq!(project_of("relative/dir"), None);
        let t = Turn {
            text: "x".repeat(MAX_TEXT_BYTES + 10),
            kind: Kind::Note,
            at_ms: None,
            session: None,
            cwd: None,
            key: "k".into(),
        };
        let m = t.into_memory(Agent::Codex, "default", None);
        assert_eq!(m.text.len(), MAX_TEXT_BYTES);
        assert_eq!(m.tags, vec!["codex".to_string()]);
        assert_eq!(m.source, Some(Source::Import));
    }
}
