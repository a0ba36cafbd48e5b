//! How slm prints: colour choice, terminal sanitising and the JSON envelope.
//!
//! # JSON output (schema version 1)
//! With `--json`, every command prints exactly one JSON object on stdout:
//! `{"schema_version": 1, "command": "<name>", ...}` followed by the command's fields
//! (documented in the README, "JSON output"). Failures print
//! `{"schema_version": 1, "command": "<name>", "error": {"code", "message", "hint", "retryable"}}`
//! and exit non-zero. Fields are only ever added within a schema version.

use crate::cli::args::ColorChoice;
use std::io::{IsTerminal, Write};

pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct Style {
    pub color: bool,
    pub json: bool,
    /// stdout is a terminal: memory text is sanitised of control sequences.
    pub terminal: bool,
}

impl Style {
    pub fn resolve(choice: ColorChoice, json: bool) -> Style {
        let terminal = std::io::stdout().is_terminal();
        let color = match choice {
            ColorChoice::Always => !json,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                !json && terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        };
        Style {
            color,
            json,
            terminal,
        }
    }

    /// Untrusted memory text as it may be printed here.
    pub fn text(&self, s: &str) -> String {
        // Always strip control sequences from human output: a pipe into `less -R` is a
        // terminal too. JSON escapes them on its own.
        crate::text::sanitize_for_terminal(s)
    }

    pub fn dim(&self, s: &str) -> String {
        if self.color {
            format!("\x1b[2m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    pub fn bold(&self, s: &str) -> String {
        if self.color {
            format!("\x1b[1m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    pub fn green(&self, s: &str) -> String {
        if self.color {
            format!("\x1b[32m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    pub fn yellow(&self, s: &str) -> String {
        if self.color {
            format!("\x1b[33m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    pub fn red(&self, s: &str) -> String {
        if self.color {
            format!("\x1b[31m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
}

/// Wrap a command's fields in the versioned envelope.
pub fn envelope(command: &str, mut body: serde_json::Value) -> serde_json::Value {
    let mut out = serde_json::Map::new();
    out.insert("schema_version".into(), SCHEMA_VERSION.into());
    out.insert("command".into(), command.into());
    if let serde_json::Value::Object(m) = &mut body {
        for (k, v) in std::mem::take(m) {
            out.insert(k, v);
        }
    } else {
        out.insert("result".into(), body);
    }
    serde_json::Value::Object(out)
}

pub fn error_json(command: &str, e: &crate::Error) -> serde_json::Value {
    envelope(
        command,
        serde_json::json!({
            "error": {
                "code": e.code(),
                "message": e.to_string(),
                "hint": e.hint(),
                "retryable": e.retryable(),
            }
        }),
    )
}

/// Write to stdout; a closed pipe is reported as `BrokenPipe` so the caller can exit quietly.
pub fn print(s: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(s.as_bytes())?;
    if !s.ends_with('\n') {
        out.write_all(b"\n")?;
    }
    out.flush()
}

pub fn print_json(v: &serde_json::Value) -> std::io::Result<()> {
    print(&serde_json::to_string_pretty(v).expect("a Value always serialises"))
}
