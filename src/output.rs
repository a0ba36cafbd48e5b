//! How slm prints: colour choice, terminal sanitising, the JSON envelope, and [`emit`], the
//! one function every command's answer goes out through.
//!
//! # JSON output (schema version 1)
//! With `--json`, every command prints exactly one JSON object on stdout:
//! `{"schema_version": 1, "command": "<name>", ...}` followed by the command's fields
//! (documented in docs/json.md). Failures print
//! `{"schema_version": 1, "command": "<name>", "error": {"code", "message", "hint", "retryable"}}`
//! and exit non-zero. Fields are only ever added within a schema version.

use owo_colors::Style as Paint;
use std::io::{IsTerminal, Write};

pub const SCHEMA_VERSION: u32 = 1;

/// `--color`: auto means a terminal, no `NO_COLOR`, and no `--json`.
#[derive(Debug, Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

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

    /// `s` in `paint` when colour is on, else as it is.
    fn paint(&self, s: &str, paint: Paint) -> String {
        if self.color {
            paint.style(s).to_string()
        } else {
            s.to_string()
        }
    }

    pub fn dim(&self, s: &str) -> String {
        self.paint(s, Paint::new().dimmed())
    }
    pub fn bold(&self, s: &str) -> String {
        self.paint(s, Paint::new().bold())
    }
    pub fn green(&self, s: &str) -> String {
        self.paint(s, Paint::new().green())
    }
    pub fn yellow(&self, s: &str) -> String {
        self.paint(s, Paint::new().yellow())
    }
    pub fn red(&self, s: &str) -> String {
        self.paint(s, Paint::new().red())
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

/// Set once output has started, so a hook's hard limit never cuts an answer in half: past
/// this point the answer is printed whole (it is already computed) and the process ends.
pub static OUTPUT_STARTED: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Print human text or the JSON envelope; maps a closed pipe to a quiet exit.
pub fn emit(
    style: Style,
    command: &str,
    json: serde_json::Value,
    human: impl FnOnce() -> String,
) -> crate::Result<()> {
    OUTPUT_STARTED.store(true, std::sync::atomic::Ordering::SeqCst);
    let r = if style.json {
        print_json(&envelope(command, json))
    } else {
        print(&human())
    };
    r.map_err(|e| crate::Error::io("writing to stdout", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The escapes are the ones slm wrote by hand before owo-colors: one SGR code and a
    /// full reset, so captured output and scripts that match it see the same bytes.
    #[test]
    fn colours_are_the_same_escapes_and_off_means_plain() {
        let on = Style {
            color: true,
            json: false,
            terminal: true,
        };
        assert_eq!(on.dim("a"), "\x1b[2ma\x1b[0m");
        assert_eq!(on.bold("a"), "\x1b[1ma\x1b[0m");
        assert_eq!(on.green("a"), "\x1b[32ma\x1b[0m");
        assert_eq!(on.yellow("a"), "\x1b[33ma\x1b[0m");
        assert_eq!(on.red("a"), "\x1b[31ma\x1b[0m");
        let off = Style { color: false, ..on };
        assert_eq!(off.red("a"), "a");
        assert_eq!(off.dim("a"), "a");
    }
}
