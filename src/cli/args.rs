//! The command line, as plain clap structs. No logic lives here: `cli::run` resolves these
//! into engine requests.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// slm: a local memory for people and AI agents.
///
/// Remember notes, decisions and facts on this machine; recall answers which stored
/// memories are the best evidence for a question, and says honestly whether it found the
/// answer (supported), something close (related), or nothing (none).
#[derive(Debug, Parser)]
#[command(name = "slm", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args, Clone)]
pub struct GlobalArgs {
    /// Print machine-readable JSON (the schema is in docs/json.md).
    #[arg(long, global = true)]
    pub json: bool,
    /// When to use colour: auto means a terminal without NO_COLOR and without --json.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// The profile to read and write (default: $SLM_PROFILE, else "default"). An empty
    /// --profile is an error; an empty SLM_PROFILE counts as unset.
    #[arg(long, global = true, env = "SLM_PROFILE", default_value = "default",
          value_parser = crate::memory::parse_profile)]
    pub profile: String,
    /// Answer in this process, without the warm worker (keyword-only until a worker has the
    /// model loaded; labelled warming). Same as SLM_WORKER=off.
    #[arg(long, global = true)]
    pub no_worker: bool,
    /// A question that finds the worker starting does not wait for it (up to
    /// worker.question_wait_s, default 10 s): it answers at once from keyword search,
    /// labelled warming.
    #[arg(long, global = true)]
    pub no_wait: bool,
    /// The project to write to and read from (default: $SLM_PROJECT, else the git
    /// repository the working directory is in, if any). A question sees its project's
    /// memories and those saved outside any project.
    #[arg(long, global = true, env = "SLM_PROJECT", value_parser = crate::project::parse_name)]
    pub project: Option<String>,
    /// Read every project's memories (writes record no project).
    #[arg(long, global = true, conflicts_with = "project")]
    pub all_projects: bool,
}

pub use crate::bench::args::*;
pub use crate::eval::args::*;
pub use crate::output::ColorChoice;

use super::examples::{
    CONNECT_EXAMPLES, FEEDBACK_EXAMPLES, HOOK_RECALL_EXAMPLES, IMPORT_EXAMPLES, RECALL_EXAMPLES,
    REMEMBER_EXAMPLES, SERVE_EXAMPLES, SESSION_CONTEXT_EXAMPLES,
};

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Save a memory (the text argument, or standard input when it is absent or "-").
    #[command(after_help = REMEMBER_EXAMPLES)]
    Remember(RememberArgs),
    /// Import memories: JSON Lines (one object a line, as `export` writes; see docs/json.md),
    /// or a folder of Markdown and text notes.
    #[command(after_help = IMPORT_EXAMPLES)]
    Import(ImportArgs),
    /// Write every memory as JSON Lines on standard output, in the format `import` reads.
    Export(ExportArgs),
    /// Copy the store to a file while slm keeps working (SQLite's online backup), with a
    /// manifest beside it.
    Backup(BackupArgs),
    /// Put a backup in place of the store (the current store is kept aside), then rebuild
    /// the indexes.
    Restore(RestoreArgs),
    /// Ask which memories are the best evidence for a question.
    #[command(after_help = RECALL_EXAMPLES)]
    Recall(RecallArgs),
    /// Show one memory with its depth-2 context (same session, same entities, correction).
    Expand(ExpandArgs),
    /// List memories, newest first.
    List(ListArgs),
    /// Show one memory in full.
    Show(ShowArgs),
    /// Change a memory's text, kind, tags, pin or scope.
    Update(UpdateArgs),
    /// Delete memories by id.
    Delete(DeleteArgs),
    /// Delete the memories matching a query or filter (asks first unless -y).
    Forget(ForgetArgs),
    /// Say which memory of a recall helped (or did not), for the learned ranking modes
    /// (SLM_RANKING, off unless set); list or forget the marks on record.
    #[command(after_help = FEEDBACK_EXAMPLES)]
    Feedback(FeedbackArgs),
    /// The block of memory text an agent gets at session start (held to a token budget).
    #[command(after_help = SESSION_CONTEXT_EXAMPLES)]
    SessionContext(SessionContextArgs),
    /// Entry points for editor, git and agent hooks (never hold up typing).
    #[command(subcommand)]
    Hook(HookCommand),
    /// Serve the Model Context Protocol on standard input and output (for agents).
    Mcp,
    /// Connect an agent (Claude Code, Codex CLI, Cursor, Gemini CLI): write slm's MCP server,
    /// and Claude Code's hooks, into the agent's own config file (shows the change first).
    #[command(after_help = CONNECT_EXAMPLES)]
    Connect(ConnectArgs),
    /// Serve `GET /recall` over HTTP (loopback only, token required).
    #[command(after_help = SERVE_EXAMPLES)]
    Serve(ServeArgs),
    /// Browse, search, correct and prune memories in the browser: Memories, the Recall
    /// Lab, saved views, status (loopback only, token required).
    Dashboard(DashboardArgs),
    /// The warm worker that keeps the model loaded: start, stop, status, restart.
    #[command(subcommand)]
    Worker(WorkerCommand),
    /// Which judge checks whether the top results answer a question: a local one when
    /// installed (auto), a hosted one you consent to, or none.
    #[command(subcommand)]
    AnswerCheck(AnswerCheckCommand),
    /// Rebuild the keyword and vector indexes from the store.
    Reindex,
    /// Check the store, the indexes, the model and the runtime; say what to fix.
    Doctor,
    /// Measure recall quality on a data set (LoCoMo, question lists).
    #[command(subcommand)]
    Eval(EvalCommand),
    /// Measure speed (prints figures; asserts nothing).
    #[command(subcommand)]
    Bench(BenchCommand),
    /// Print a shell completion script.
    Completions(CompletionsArgs),
    /// Print the man page (roff).
    #[command(hide = true)]
    Man,
}

#[derive(Debug, Args)]
pub struct RememberArgs {
    /// The memory text; absent or "-" reads standard input. With --image: your note about
    /// the picture (optional; "-" reads standard input).
    pub text: Option<String>,
    /// Save a picture (PNG, JPEG, WebP, GIF; at most 25 MB): the file is kept in the data
    /// dir, and the words in it are read in the background (OCR) and found like text.
    #[arg(long, value_name = "FILE")]
    pub image: Option<PathBuf>,
    /// What sort of memory: note, decision, fact, prompt, event, bookkeeping.
    #[arg(long)]
    pub kind: Option<String>,
    /// A tag (repeatable).
    #[arg(long = "tag")]
    pub tags: Vec<String>,
    /// The session this memory belongs to.
    #[arg(long)]
    pub session: Option<String>,
    /// Pin it: a pinned memory always counts as evidence.
    #[arg(long)]
    pub pin: bool,
    /// personal (default), shared or global.
    #[arg(long)]
    pub scope: Option<String>,
    /// When the thing happened (event time), e.g. 2024-05-08 or "2 days ago".
    #[arg(long)]
    pub at: Option<String>,
    /// Who saved it: user (default), agent, hook, captured_prompt.
    #[arg(long)]
    pub source: Option<String>,
    /// Saving twice with the same key stores it once.
    #[arg(long)]
    pub idempotency_key: Option<String>,
    /// The id of the memory this one corrects.
    #[arg(long)]
    pub supersedes: Option<i64>,
    /// Store the text as given: without it, API keys, tokens, passwords and private keys
    /// in it are replaced by [redacted: KIND].
    #[arg(long)]
    pub allow_secrets: bool,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// A JSON Lines file ("-" for standard input), or a notes file or folder. With --from:
    /// the agent's history folder (default ~/.claude/projects or ~/.codex/sessions).
    #[arg(required_unless_present = "from")]
    pub file: Option<PathBuf>,
    /// Import a coding agent's past sessions: each prompt you typed (kind prompt) and each
    /// text reply (a note), with session ids, times and projects; tool calls and their
    /// output are left out. Running it again adds only what is new.
    #[arg(long, value_enum, value_name = "AGENT")]
    pub from: Option<crate::transfer::history::Agent>,
    /// jsonl, markdown or media (a folder of pictures); auto: a folder or a .md, .markdown
    /// or .txt file is markdown, anything else JSON Lines.
    #[arg(long, value_enum, default_value_t = ImportFormat::Auto)]
    pub format: ImportFormat,
    /// Markdown: print what would be created, changed and superseded; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Markdown: follow symbolic links (files and folders) whose target is inside the folder;
    /// without it links are skipped, and no link is ever followed out of the folder.
    #[arg(long)]
    pub follow_links: bool,
    /// Import the good lines and report the bad ones (default: any bad line imports nothing).
    #[arg(long)]
    pub skip_bad: bool,
    /// Print "LINE<TAB>ID" for each memory as soon as it is durable.
    #[arg(long)]
    pub print_ids: bool,
    /// Lines per transaction.
    #[arg(long, default_value_t = 256)]
    pub batch: usize,
    /// Store the texts as given: without it, API keys, tokens, passwords and private keys
    /// in them are replaced by [redacted: KIND].
    #[arg(long)]
    pub allow_secrets: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum ImportFormat {
    Auto,
    Jsonl,
    Markdown,
    /// A folder of pictures (PNG, JPEG, WebP, GIF).
    Media,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Every profile (default: only the one --profile names).
    #[arg(long)]
    pub all_profiles: bool,
    /// Include bookkeeping rows (hook noise), which are left out by default.
    #[arg(long)]
    pub include_bookkeeping: bool,
}

#[derive(Debug, Args)]
pub struct BackupArgs {
    /// Where to write the copy (a manifest is written beside it as PATH.manifest.json).
    /// An existing file is not replaced.
    pub path: PathBuf,
}

#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// A file `slm backup` wrote (its PATH.manifest.json must be beside it).
    pub path: PathBuf,
    /// Check the backup and say what would happen; change nothing.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args, Clone, Default)]
pub struct RecallArgs {
    /// The question.
    pub query: String,
    /// How many results at most (1 or more; 0 is a usage error).
    #[arg(long, default_value_t = 10, value_parser = crate::cli::parse_limit)]
    pub limit: usize,
    /// 0: ids, tier, score, preview; 1: full memories (default); 2: with context.
    #[arg(long, default_value_t = 1)]
    pub depth: u8,
    /// Cap the whole answer at this many tokens (the embedding model's tokenizer).
    #[arg(long)]
    pub max_tokens: Option<usize>,
    /// List the closest weak matches too, labelled weak.
    #[arg(long)]
    pub show_weak: bool,
    /// The agent view: only supported results (related only with --include-related).
    #[arg(long)]
    pub agent: bool,
    /// With --agent: return related memories too.
    #[arg(long)]
    pub include_related: bool,
    /// Print a trace of every stage.
    #[arg(long)]
    pub explain: bool,
    /// Only memories whose event time is in this window: 7d, 12h, 2024-01-01..2024-02-01.
    #[arg(long)]
    pub window: Option<String>,
    /// What was true at this time (event time and validity up to it).
    #[arg(long)]
    pub as_of: Option<String>,
    /// What slm knew before this time (system time).
    #[arg(long)]
    pub known_as_of: Option<String>,
    /// Only memories valid at this time.
    #[arg(long)]
    pub valid_at: Option<String>,
    /// Let shared memories join.
    #[arg(long)]
    pub include_shared: bool,
    /// Let global memories join.
    #[arg(long)]
    pub include_global: bool,
    /// Only memories of this kind.
    #[arg(long)]
    pub kind: Option<String>,
    /// Answer within this many seconds (unchecked keyword matches when the full search cannot finish).
    #[arg(long)]
    pub budget_s: Option<f64>,
}

#[derive(Debug, Args)]
pub struct SessionContextArgs {
    /// start (1500 tokens), compact (500), resource (4000) or hook (400).
    #[arg(long, default_value = "start")]
    pub mode: String,
    /// A different hard budget, in tokens of the embedding model's tokenizer.
    #[arg(long)]
    pub max_tokens: Option<usize>,
    /// Let shared memories join.
    #[arg(long)]
    pub include_shared: bool,
    /// Let global memories join.
    #[arg(long)]
    pub include_global: bool,
}

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("what").required(true).args(["http", "print_token"]).multiple(true))]
pub struct ServeArgs {
    /// Listen here (default 127.0.0.1:7377). Needs --allow-remote unless it is loopback.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:7377")]
    pub http: Option<String>,
    /// Allow a non-loopback address (memories become reachable from other machines).
    #[arg(long)]
    pub allow_remote: bool,
    /// Print the access token (made on first use) and exit; needs no --http.
    #[arg(long)]
    pub print_token: bool,
}

#[derive(Debug, Args)]
pub struct DashboardArgs {
    /// Listen here (port 0: any free port). Needs --allow-remote unless it is loopback.
    #[arg(long, value_name = "ADDR", default_value = crate::dashboard::DEFAULT_ADDR)]
    pub addr: String,
    /// Allow a non-loopback address (memories become reachable from other machines).
    #[arg(long)]
    pub allow_remote: bool,
    /// Do not open the browser; the address to sign in with is printed either way.
    #[arg(long)]
    pub no_open: bool,
}

#[derive(Debug, Args)]
pub struct ConnectArgs {
    /// The agent: claude (Claude Code), codex (Codex CLI), cursor or gemini (Gemini CLI).
    #[arg(value_enum, required_unless_present_any = ["print", "status"])]
    pub agent: Option<crate::connect::Agent>,
    /// Print the MCP server entry for any MCP client, and change nothing.
    #[arg(long, conflicts_with_all = ["agent", "status", "remove", "yes", "dry_run"])]
    pub print: bool,
    /// Say which agents are connected (all, or AGENT's), reading their config files.
    #[arg(long, conflicts_with_all = ["remove", "yes", "dry_run"])]
    pub status: bool,
    /// Take out what slm wrote (the file as it was before, when nothing else changed it).
    #[arg(long)]
    pub remove: bool,
    /// Change the file without asking (needed without a terminal).
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Show the change and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// The agent's MCP config file, instead of where the agent keeps it.
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Claude Code's settings file for the hooks (default ~/.claude/settings.json).
    #[arg(long, value_name = "PATH")]
    pub hooks_config: Option<PathBuf>,
    /// Claude Code: the MCP server only, no hooks.
    #[arg(long)]
    pub no_hooks: bool,
}

#[derive(Debug, Subcommand)]
pub enum HookCommand {
    /// Memories for the prompt about to be sent: at most 3 s, prints nothing when out of
    /// time or when nothing supports it. Reads the prompt from QUERY, or standard input
    /// (plain text, or a JSON object with a "prompt" field as agent hooks send).
    #[command(after_help = HOOK_RECALL_EXAMPLES)]
    Recall(HookRecallArgs),
    /// Save what an agent's hook reports: the prompt typed (kind prompt), "File changed:
    /// PATH" and "session ended" (bookkeeping). Reads the hook's JSON from PAYLOAD or
    /// standard input; at most 3 s, prints nothing, exits 0 whatever happens at run time.
    /// A capture that cannot be saved in time is kept on disk and saved by the next one.
    Capture(HookCaptureArgs),
}

#[derive(Debug, Args)]
pub struct HookCaptureArgs {
    /// The hook's JSON (Codex CLI's notify passes it as the last argument); absent or "-"
    /// reads standard input.
    pub payload: Option<String>,
    /// The hard time limit in seconds (at most 3).
    #[arg(long, default_value_t = 3.0)]
    pub budget_s: f64,
}

#[derive(Debug, Args)]
pub struct HookRecallArgs {
    /// The prompt; absent or "-" reads standard input.
    pub query: Option<String>,
    /// The hard time limit in seconds (at most 3).
    #[arg(long, default_value_t = 3.0)]
    pub budget_s: f64,
    /// The block's token budget (default: the hook mode's 400).
    #[arg(long)]
    pub max_tokens: Option<usize>,
}

#[derive(Debug, Subcommand)]
pub enum WorkerCommand {
    /// Start the worker (if it is not running) and wait until it answers.
    Start,
    /// Ask the worker to finish what it is doing and exit.
    Stop,
    /// Is it running? pid, version, slots, idle time.
    Status,
    /// Stop, then start.
    Restart,
    /// Run the worker in this process (what `start` spawns).
    #[command(hide = true)]
    Run,
}

#[derive(Debug, Subcommand)]
pub enum AnswerCheckCommand {
    /// Judge with a hosted OpenAI-compatible endpoint. Shows exactly what will leave this
    /// machine and asks first; records your consent, with its time, in settings.json.
    Hosted(AnswerCheckHostedArgs),
    /// Turn the answer check off; revokes any consent given for a hosted judge.
    Off,
    /// Use a local judge when one is installed, otherwise none (the default; never
    /// hosted). Revokes any consent given for a hosted judge.
    Auto,
    /// Use the local judge only (unavailable when none is installed). Revokes any consent
    /// given for a hosted judge.
    Local,
    /// Show the mode, the judge a recall would use, and the consent on record.
    Status,
}

#[derive(Debug, Args)]
pub struct AnswerCheckHostedArgs {
    /// The endpoint's base URL (OpenAI-compatible), e.g. https://api.example.com/v1; slm
    /// posts to {URL}/chat/completions.
    #[arg(long, value_name = "URL")]
    pub endpoint: String,
    /// The model name to ask for.
    #[arg(long, value_name = "MODEL")]
    pub model: String,
    /// The NAME of the environment variable holding your API key (not the key itself):
    /// it is read at each recall and never stored.
    #[arg(long, value_name = "VAR")]
    pub key_env: String,
    /// Consent without asking (for scripts): what leaves the machine is still printed.
    #[arg(long)]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub struct ExpandArgs {
    pub id: i64,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// How many memories at most (1 or more; 0 is a usage error).
    #[arg(long, default_value_t = 50, value_parser = crate::cli::parse_limit)]
    pub limit: usize,
    #[arg(long)]
    pub kind: Option<String>,
    #[arg(long)]
    pub tag: Option<String>,
    #[arg(long)]
    pub session: Option<String>,
    /// Include bookkeeping rows (hook noise), which are hidden by default.
    #[arg(long)]
    pub all: bool,
}

#[derive(Debug, Args)]
pub struct FeedbackArgs {
    /// The recall_id of a recall (`slm recall --json` prints it).
    #[arg(required_unless_present_any = ["list", "forget"], conflicts_with_all = ["list", "forget"])]
    pub recall_id: Option<String>,
    /// The memory of that recall the mark is about.
    #[arg(requires = "recall_id")]
    pub memory_id: Option<i64>,
    /// Whether it helped.
    #[arg(value_parser = ["good", "bad"], requires = "memory_id")]
    pub verdict: Option<String>,
    /// List the marks on record, newest first.
    #[arg(long, conflicts_with = "forget")]
    pub list: bool,
    /// Remove the marks, the logged recalls and the learned models of this profile.
    #[arg(long)]
    pub forget: bool,
    /// With --list or --forget: every profile, not only the current one.
    #[arg(long)]
    pub all_profiles: bool,
    /// With --list: at most this many marks.
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    pub id: i64,
}

#[derive(Debug, Args)]
pub struct UpdateArgs {
    pub id: i64,
    /// New text ("-" reads standard input).
    #[arg(long)]
    pub text: Option<String>,
    #[arg(long)]
    pub kind: Option<String>,
    /// Replace the tags (repeatable).
    #[arg(long = "tag")]
    pub tags: Vec<String>,
    #[arg(long, conflicts_with = "unpin")]
    pub pin: bool,
    #[arg(long)]
    pub unpin: bool,
    #[arg(long)]
    pub scope: Option<String>,
    /// New event time.
    #[arg(long)]
    pub at: Option<String>,
    /// Mark it corrected by this memory id.
    #[arg(long)]
    pub superseded_by: Option<i64>,
}

#[derive(Debug, Args)]
pub struct DeleteArgs {
    #[arg(required = true)]
    pub ids: Vec<i64>,
}

#[derive(Debug, Args)]
pub struct ForgetArgs {
    /// Forget the memories this query finds as supported or related evidence.
    pub query: Option<String>,
    #[arg(long)]
    pub kind: Option<String>,
    #[arg(long)]
    pub tag: Option<String>,
    #[arg(long)]
    pub session: Option<String>,
    /// Only memories whose event time is before this.
    #[arg(long)]
    pub before: Option<String>,
    /// Show what would be forgotten; change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Do not ask.
    #[arg(short = 'y', long)]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}
