//! Every `slm` command the README shows still parses (issue 33).
//!
//! The shell code blocks (```sh, ```bash, ```shell, ```console) of `README.md` and of every
//! `docs/*.md` are read as a shell would read them: `$ ` prompts stripped (in a console block
//! only prompted lines are commands), `\` continuations joined, comments dropped, words split
//! with their quotes, `$(…)` substitutions read as commands of their own. Every word named
//! `slm` (or `…/slm`) in command position — first in a line or after `|`, `;`, `&&`, `||`, `&`,
//! `(`, after `VAR=value` assignments — starts an slm invocation, which runs to the next
//! operator (redirections and their targets are left out). Each invocation is parsed with
//! slm's own clap definitions (`slm::cli::args::Cli`), in this process: nothing runs, nothing
//! is written. `--help` and `--version` count as parsing.

use clap::Parser;
use slm::cli::args::Cli;
use std::path::{Path, PathBuf};

/// One slm invocation found in a Markdown file: where, and its words after `slm`.
#[derive(Debug)]
struct Invocation {
    file: String,
    line: usize,
    args: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word(String),
    /// `|`, `||`, `&`, `&&`, `;`, `(`, `)`: the command before it ends.
    End,
    /// `<`, `>`, `>>`, `>&`, …: the next word is a file, not an argument.
    Redirect,
}

/// The command lines of a Markdown file's shell code blocks, with their (first) line numbers:
/// prompts stripped, continuations joined.
fn shell_lines(md: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut block: Option<bool> = None; // Some(console?) inside a shell block
    let mut other_block = false;
    let mut pending: Option<(usize, String)> = None;
    for (i, raw) in md.lines().enumerate() {
        let n = i + 1;
        let trimmed = raw.trim_start();
        if let Some(fence) = trimmed.strip_prefix("```") {
            if block.is_some() || other_block {
                block = None;
                other_block = false;
                if let Some(p) = pending.take() {
                    out.push(p);
                }
            } else {
                match fence.trim() {
                    "sh" | "bash" | "shell" | "zsh" => block = Some(false),
                    "console" | "shell-session" => block = Some(true),
                    _ => other_block = true,
                }
            }
            continue;
        }
        let Some(console) = block else { continue };
        let mut line = raw.to_string();
        if let Some((start, mut text)) = pending.take() {
            // The previous line ended with a backslash: this one continues it.
            text.push(' ');
            text.push_str(line.trim_start());
            line = text;
            let (joined, more) = continued(&line);
            if more {
                pending = Some((start, joined));
            } else {
                out.push((start, joined));
            }
            continue;
        }
        if console {
            match trimmed.strip_prefix("$ ") {
                Some(cmd) => line = cmd.to_string(),
                None => continue, // output
            }
        } else if let Some(cmd) = trimmed.strip_prefix("$ ") {
            line = cmd.to_string();
        }
        let (joined, more) = continued(&line);
        if more {
            pending = Some((n, joined));
        } else {
            out.push((n, joined));
        }
    }
    if let Some(p) = pending {
        out.push(p);
    }
    out
}

/// A line without its trailing continuation backslash, and whether it had one.
fn continued(line: &str) -> (String, bool) {
    let t = line.trim_end();
    match t.strip_suffix('\\') {
        Some(head) if !head.ends_with('\\') => (head.to_string(), true),
        _ => (t.to_string(), false),
    }
}

/// The `$(…)` substitutions of a line, taken out (each replaced by one placeholder word) and
/// returned as lines of their own, nested ones too.
fn substitutions(line: &str) -> (String, Vec<String>) {
    let chars: Vec<char> = line.chars().collect();
    let mut outer = String::new();
    let mut inner = Vec::new();
    let mut i = 0;
    let (mut single, mut double) = (false, false);
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '\\' if !single && i + 1 < chars.len() => {
                outer.push(c);
                outer.push(chars[i + 1]);
                i += 2;
                continue;
            }
            _ => {}
        }
        if !single && c == '$' && chars.get(i + 1) == Some(&'(') {
            let mut depth = 0;
            let mut j = i + 1;
            while j < chars.len() {
                match chars[j] {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            let body: String = chars[i + 2..j.min(chars.len())].iter().collect();
            let (body_outer, body_inner) = substitutions(&body);
            inner.push(body_outer);
            inner.extend(body_inner);
            outer.push_str("SUBSTITUTED");
            i = j + 1;
            continue;
        }
        outer.push(c);
        i += 1;
    }
    (outer, inner)
}

/// Split one line into words and operators as sh does: quotes, backslashes, comments.
fn tokens(line: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    let flush = |out: &mut Vec<Token>, word: &mut String, in_word: &mut bool, quoted: &mut bool| {
        if *in_word {
            out.push(Token::Word(std::mem::take(word)));
        }
        *in_word = false;
        *quoted = false;
    };
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => flush(&mut out, &mut word, &mut in_word, &mut quoted),
            '#' if !in_word => break,
            '\'' => {
                in_word = true;
                quoted = true;
                for d in chars.by_ref() {
                    if d == '\'' {
                        break;
                    }
                    word.push(d);
                }
            }
            '"' => {
                in_word = true;
                quoted = true;
                while let Some(d) = chars.next() {
                    match d {
                        '"' => break,
                        '\\' => match chars.peek() {
                            Some(&e) if matches!(e, '"' | '\\' | '$' | '`') => {
                                word.push(e);
                                chars.next();
                            }
                            _ => word.push('\\'),
                        },
                        _ => word.push(d),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(d) = chars.next() {
                    word.push(d);
                }
            }
            '|' | ';' | '&' | '(' | ')' => {
                flush(&mut out, &mut word, &mut in_word, &mut quoted);
                if matches!(c, '|' | '&') && chars.peek() == Some(&c) {
                    chars.next();
                }
                out.push(Token::End);
            }
            '<' | '>' => {
                // `2>` and `<&`: a file descriptor number before it is part of the redirection.
                if in_word && !quoted && word.chars().all(|d| d.is_ascii_digit()) {
                    word.clear();
                    in_word = false;
                } else {
                    flush(&mut out, &mut word, &mut in_word, &mut quoted);
                }
                while matches!(chars.peek(), Some('>') | Some('&')) {
                    chars.next();
                }
                // `>&2`, `2>&1`: the target is a descriptor, not a file word.
                if chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                    while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                        chars.next();
                    }
                    continue;
                }
                out.push(Token::Redirect);
            }
            _ => {
                in_word = true;
                word.push(c);
            }
        }
    }
    flush(&mut out, &mut word, &mut in_word, &mut quoted);
    out
}

fn is_assignment(w: &str) -> bool {
    match w.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

fn is_slm(w: &str) -> bool {
    w == "slm" || w.ends_with("/slm")
}

/// The slm invocations of one command line (its `$(…)` substitutions included): the words
/// after `slm`, up to the end of that command.
fn invocations_of(line: &str) -> Vec<Vec<String>> {
    let (outer, inner) = substitutions(line);
    let mut found = Vec::new();
    for l in std::iter::once(outer).chain(inner) {
        let mut at_start = true;
        let mut current: Option<Vec<String>> = None;
        let mut skip_next = false;
        for t in tokens(&l) {
            match t {
                Token::End => {
                    found.extend(current.take());
                    at_start = true;
                }
                Token::Redirect => skip_next = true,
                Token::Word(w) => {
                    if skip_next {
                        skip_next = false;
                    } else if let Some(args) = current.as_mut() {
                        args.push(w);
                    } else if at_start {
                        if is_assignment(&w)
                            || matches!(w.as_str(), "env" | "time" | "exec" | "command" | "!")
                        {
                            continue;
                        }
                        at_start = false;
                        if is_slm(&w) {
                            current = Some(Vec::new());
                        }
                    }
                }
            }
        }
        found.extend(current);
    }
    found
}

fn invocations(file: &Path, root: &Path) -> Vec<Invocation> {
    let md =
        std::fs::read_to_string(file).unwrap_or_else(|e| panic!("reading {}: {e}", file.display()));
    let name = file
        .strip_prefix(root)
        .unwrap_or(file)
        .display()
        .to_string();
    let mut out = Vec::new();
    for (line, text) in shell_lines(&md) {
        for args in invocations_of(&text) {
            out.push(Invocation {
                file: name.clone(),
                line,
                args,
            });
        }
    }
    out
}

/// Why slm's clap definitions refuse these arguments, or None when they parse (help and
/// version included).
fn refusal(args: &[String]) -> Option<String> {
    let argv = std::iter::once("slm".to_string()).chain(args.iter().cloned());
    match Cli::try_parse_from(argv) {
        Ok(_) => None,
        Err(e) if !e.use_stderr() => None,
        Err(e) => Some(e.to_string()),
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn check(files: &[PathBuf]) -> usize {
    let root = root();
    let mut seen = 0;
    let mut bad = Vec::new();
    for f in files {
        for inv in invocations(f, &root) {
            seen += 1;
            if let Some(why) = refusal(&inv.args) {
                bad.push(format!(
                    "{}:{}: slm {}\n{}",
                    inv.file,
                    inv.line,
                    inv.args.join(" "),
                    why.trim_end()
                ));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "commands that no longer parse:\n\n{}",
        bad.join("\n\n")
    );
    seen
}

#[test]
fn every_readme_command_parses() {
    let seen = check(&[root().join("README.md")]);
    // The README's guide shows commands; finding none means the reader above broke.
    assert!(
        seen >= 10,
        "only {seen} slm commands found in the README's shell blocks"
    );
}

#[test]
fn every_docs_command_parses() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.sort();
    check(&files);
}

#[test]
fn commands_are_read_as_a_shell_reads_them() {
    let md = "text\n```sh\n$ slm recall \"which db?\" --limit 3   # a comment\n\
              SLM_RANKING=v2 slm recall 'it'\\''s' --explain | jq .tier\n\
              curl -H \"Bearer $(slm serve --print-token)\" \\\n  'http://x/recall?q=a'\n\
              slm export --all-profiles > out.jsonl 2>/dev/null && slm import - --skip-bad < out.jsonl\n\
              # slm not-a-command\n\
              git log -1 | ~/.local/bin/slm remember --kind event\n```\n\
              ```json\n{ \"command\": \"slm hook recall\" }\n```\n\
              ```console\n$ slm list\n 1  2026-12-07  output line, not a command\n```\n";
    let got: Vec<(usize, Vec<String>)> = shell_lines(md)
        .into_iter()
        .flat_map(|(n, l)| invocations_of(&l).into_iter().map(move |a| (n, a)))
        .collect();
    let want: Vec<(usize, Vec<&str>)> = vec![
        (3, vec!["recall", "which db?", "--limit", "3"]),
        (4, vec!["recall", "it's", "--explain"]),
        (5, vec!["serve", "--print-token"]),
        (7, vec!["export", "--all-profiles"]),
        (7, vec!["import", "-", "--skip-bad"]),
        (9, vec!["remember", "--kind", "event"]),
        (15, vec!["list"]),
    ];
    let got_s: Vec<(usize, Vec<&str>)> = got
        .iter()
        .map(|(n, a)| (*n, a.iter().map(String::as_str).collect()))
        .collect();
    assert_eq!(got_s, want);
    // A flag slm does not have is caught; help is not an error.
    assert!(refusal(&["recall".into(), "q".into(), "--no-such-flag".into()]).is_some());
    assert!(refusal(&["recall".into(), "--help".into()]).is_none());
}
