//! The command-line front: parse, resolve into engine calls, print.
//!
//! Help, version, completions and the man page never open the store.

mod agent_cmd;
mod answer_check_cmd;
pub mod args;
mod backfill_cmd;
mod backup_cmd;
mod connect_cmd;
mod examples;
mod export_cmd;
mod feedback_cmd;
pub(crate) mod forward;
pub(crate) mod import_cmd;
mod import_media;
pub(crate) mod read;
pub(crate) mod recall_cmd;
mod worker_cmd;
pub(crate) mod write;

use crate::output::{self, Style};
use crate::{Error, Result};
use args::{Cli, Command, GlobalArgs};
use clap::{CommandFactory, Parser};

/// Run slm with the process arguments; returns the exit code.
pub fn run() -> i32 {
    crate::paths::private_umask();
    if std::env::var_os("SLM_PROFILE").is_some_and(|v| v.is_empty()) {
        // SAFETY: nothing else runs yet (no threads started); an empty SLM_PROFILE means
        // unset, as an empty SLM_HOME does, so it must not reach clap as a profile named "".
        unsafe { std::env::remove_var("SLM_PROFILE") };
    }
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            if !e.use_stderr() {
                // Help and version, as clap prints them.
                let _ = e.print();
                return 0;
            }
            let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
            if json_asked(&argv) {
                let _ = output::print_json(&usage_error_json(&e, &argv));
            } else {
                let _ = e.print();
            }
            return crate::error::EXIT_USAGE;
        }
    };
    let style = Style::resolve(cli.global.color, cli.global.json);
    let name = command_name(&cli.command);
    match dispatch(cli, style) {
        Ok(code) => code,
        Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            if style.json {
                if output::print_json(&output::error_json(name, &e)).is_err() {
                    return e.exit_code();
                }
            } else {
                eprintln!("slm: {e}");
                if let Some(h) = e.hint() {
                    eprintln!("hint: {h}");
                }
            }
            e.exit_code()
        }
    }
}

/// `--json` among the flags (before a `--`, after which everything is a value), for a command
/// line clap refused: its usage error must then be the one JSON object on stdout too.
fn json_asked(argv: &[std::ffi::OsString]) -> bool {
    argv.iter()
        .skip(1)
        .take_while(|a| *a != "--")
        .any(|a| a == "--json")
}

/// A usage error clap found, as `--json` prints every error: `{"schema_version", "command",
/// "error": {"code": "USAGE", "message", "hint", "retryable": false}}`. The message is clap's
/// first paragraph in one line; the hint is the rest of what it said (a tip, the usage line)
/// and where the flags are listed.
fn usage_error_json(e: &clap::Error, argv: &[std::ffi::OsString]) -> serde_json::Value {
    let cmd = Cli::command();
    let name = argv
        .iter()
        .skip(1)
        .take_while(|a| *a != "--")
        .filter_map(|a| a.to_str())
        .find_map(|a| {
            cmd.get_subcommands()
                .find(|s| s.get_name() == a || s.get_all_aliases().any(|x| x == a))
                .map(|s| s.get_name().to_string())
        });
    // clap's text without colour: "error: <what>\n\n<tip>\n\nUsage: …\n\nFor more information…".
    let text = e.render().to_string();
    let mut paragraphs = text
        .split("\n\n")
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|p| !p.is_empty() && !p.starts_with("For more information"));
    let message = match e.kind() {
        clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            "a command is needed".to_string()
        }
        _ => paragraphs
            .next()
            .map(|p| p.strip_prefix("error: ").unwrap_or(p.as_str()).to_string())
            .unwrap_or_else(|| "the command line could not be read".into()),
    };
    let help = match &name {
        Some(n) => format!("`slm {n} --help` lists its flags"),
        None => "`slm --help` lists the commands".to_string(),
    };
    let mut hint: Vec<String> = match e.kind() {
        clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => Vec::new(),
        _ => paragraphs.collect(),
    };
    hint.push(help);
    let err = Error::Usage(message);
    let mut v = output::error_json(name.as_deref().unwrap_or("slm"), &err);
    v["error"]["hint"] = hint.join("; ").into();
    v
}

fn command_name(c: &Command) -> &'static str {
    match c {
        Command::Remember(_) => "remember",
        Command::Import(_) => "import",
        Command::Export(_) => "export",
        Command::Backup(_) => "backup",
        Command::Restore(_) => "restore",
        Command::Recall(_) => "recall",
        Command::Expand(_) => "expand",
        Command::List(_) => "list",
        Command::Show(_) => "show",
        Command::Update(_) => "update",
        Command::Delete(_) => "delete",
        Command::Forget(_) => "forget",
        Command::Feedback(_) => "feedback",
        Command::SessionContext(_) => "session-context",
        Command::Hook(_) => "hook",
        Command::Worker(_) => "worker",
        Command::Mcp => "mcp",
        Command::Connect(_) => "connect",
        Command::Serve(_) => "serve",
        Command::Dashboard(_) => "dashboard",
        Command::AnswerCheck(_) => "answer-check",
        Command::Reindex => "reindex",
        Command::Doctor => "doctor",
        Command::Eval(_) => "eval",
        Command::Bench(_) => "bench",
        Command::Completions(_) => "completions",
        Command::Man => "man",
    }
}

fn dispatch(cli: Cli, style: Style) -> Result<i32> {
    let g = cli.global;
    match cli.command {
        Command::Completions(a) => emit_raw(&completion(a.shell)),
        Command::Man => emit_raw(&man_page()),
        Command::Remember(a) => write::remember(a, &g, style),
        Command::Import(a) => import_cmd::import(a, &g, style),
        Command::Export(a) => export_cmd::export(a, &g, style),
        Command::Backup(a) => backup_cmd::backup(a, &g, style),
        Command::Restore(a) => backup_cmd::restore(a, &g, style),
        Command::Update(a) => write::update(a, &g, style),
        Command::Delete(a) => write::delete(a, &g, style),
        Command::Forget(a) => write::forget(a, &g, style),
        Command::Feedback(a) => feedback_cmd::feedback(a, &g, style),
        Command::List(a) => read::list(a, &g, style),
        Command::Show(a) => read::show(a, &g, style),
        Command::SessionContext(a) => agent_cmd::session_context(a, &g, style),
        Command::Hook(args::HookCommand::Recall(a)) => agent_cmd::hook_recall(a, &g, style),
        Command::Hook(args::HookCommand::Capture(a)) => agent_cmd::hook_capture(a, &g),
        Command::Worker(c) => worker_cmd::run(c, &g, style),
        Command::Mcp => {
            crate::mcp::serve(crate::agent::Front::from_env(
                &g.profile,
                g.no_worker,
                &project_choice(&g),
            )?)?;
            Ok(0)
        }
        Command::Connect(a) => connect_cmd::connect(a, style),
        Command::Serve(a) => {
            let front =
                crate::agent::Front::from_env(&g.profile, g.no_worker, &project_choice(&g))?;
            if a.print_token {
                return emit_raw(format!("{}\n", crate::http::token(&front)?).as_bytes());
            }
            let addr = a
                .http
                .unwrap_or_else(|| crate::http::DEFAULT_ADDR.to_string());
            crate::http::serve(front, &addr, a.allow_remote)?;
            Ok(0)
        }
        Command::Dashboard(a) => {
            let front =
                crate::agent::Front::from_env(&g.profile, g.no_worker, &project_choice(&g))?;
            crate::dashboard::serve(
                front,
                crate::dashboard::Options {
                    addr: a.addr,
                    allow_remote: a.allow_remote,
                    open: !a.no_open,
                },
            )?;
            Ok(0)
        }
        Command::AnswerCheck(c) => answer_check_cmd::run(c, style),
        Command::Reindex => read::reindex(&g, style),
        Command::Doctor => read::doctor(&g, style),
        Command::Recall(a) => recall_cmd::recall(a, &g, style),
        Command::Expand(a) => recall_cmd::expand(a, &g, style),
        Command::Eval(c) => crate::eval::run(c, style),
        Command::Bench(c) => crate::bench::run(c, style),
    }
}

fn emit_raw(bytes: &[u8]) -> Result<i32> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|_| out.flush())
        .map_err(|e| Error::io("writing to stdout", e))?;
    Ok(0)
}

/// The man page, generated from the clap definitions.
pub fn man_page() -> Vec<u8> {
    let mut out = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut out)
        .expect("rendering to memory cannot fail");
    out
}

/// A completion script, generated from the clap definitions.
pub fn completion(shell: clap_complete::Shell) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "slm", &mut out);
    out
}

/// `--limit N`: one rule for every command that takes it. 0 is a usage error (it would
/// otherwise mean "nothing" to one command and "one" to another); leaving the flag out
/// gives the command's default.
/// Ask `question` on the terminal (stderr) and read the answer: true only for y or yes.
/// Callers check first that standard input is a terminal.
pub(crate) fn ask_yes(question: &str) -> Result<bool> {
    use std::io::{BufRead, Write};
    eprint!("{question} [y/N] ");
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| Error::io("reading the answer", e))?;
    Ok(matches!(
        line.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    ))
}

pub fn parse_limit(s: &str) -> std::result::Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(0) => {
            Err("0 is not a limit: give 1 or more, or leave --limit out for the default".into())
        }
        Ok(n) => Ok(n),
        Err(_) => Err(format!("{s:?} is not a whole number (give 1 or more)")),
    }
}

/// Read all of standard input as UTF-8 text.
pub(crate) fn read_stdin() -> Result<String> {
    use std::io::Read;
    let mut buf = Vec::new();
    std::io::stdin()
        .read_to_end(&mut buf)
        .map_err(|e| Error::io("reading standard input", e))?;
    String::from_utf8(buf).map_err(|e| {
        Error::Input(format!(
            "standard input is not valid UTF-8 (first bad byte at offset {}); nothing was stored",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// The project choice of `--project` / `--all-projects` (`crate::project`).
pub(crate) fn project_choice(g: &GlobalArgs) -> crate::project::Choice {
    crate::project::Choice::from_flags(g.project.as_deref(), g.all_projects)
}

/// The project this process works in: what its writes record and its questions read
/// (None: every project).
pub(crate) fn current_project(g: &GlobalArgs) -> Option<String> {
    crate::project::resolve(&project_choice(g), None)
}
