//! The examples shown after `--help` (as ripgrep, fd and zoxide do): two or three real
//! uses of each everyday command, with the command line that does them.

pub(super) const REMEMBER_EXAMPLES: &str = "\
Examples:
  Save a decision, tagged:
    slm remember \"We chose Postgres for the analytics warehouse\" --kind decision --tag db
  Save what a command prints, with when it happened:
    git log -1 --format=%B | slm remember --kind event --at \"2 days ago\"
  Correct memory 12 (it stays, marked superseded):
    slm remember \"Staging now listens on port 6544\" --supersedes 12";

pub(super) const IMPORT_EXAMPLES: &str = "\
Examples:
  Import what `slm export` wrote (importing it twice stores it once):
    slm import memories.jsonl
  Preview a folder of Markdown notes, then import it:
    slm import ~/notes --dry-run
    slm import ~/notes
  Import the good lines of standard input and report the bad ones:
    slm import - --skip-bad < memories.jsonl";

pub(super) const RECALL_EXAMPLES: &str = "\
The answer:
  The first line is the tier: supported (a memory answers it), related (close, not the
  answer) or none (not in memory). Each result line reads
     1. ▰▰▰▱▱  #12  2026-12-07  We chose Postgres for the analytics warehouse
  rank, the support bar, the memory's id, its date and its text. The bar is the support
  check's score for that memory alone (how well it carries the question; five cells = 1.0,
  dots = not scored); --explain prints the exact score and the threshold it was held to.
  --json keeps every score (support_score, relevance_score, ...; see docs/json.md).

Examples:
  Ask a question:
    slm recall \"Which database did we choose for analytics?\"
  Only memories of the last 30 days, ids and previews only:
    slm recall \"what did we decide about deploys?\" --window 30d --depth 0
  For a script: the three best supported results as JSON:
    slm recall \"staging database port\" --agent --limit 3 --json";

pub(super) const SESSION_CONTEXT_EXAMPLES: &str = "\
Examples:
  The block an agent gets at session start (1,500 tokens):
    slm session-context
  A smaller block after the agent's context was compacted:
    slm session-context --mode compact
  A hard budget of 300 tokens, shared memories included:
    slm session-context --max-tokens 300 --include-shared";

pub(super) const SERVE_EXAMPLES: &str = "\
Examples:
  Serve on 127.0.0.1:7377:
    slm serve --http
  Ask it, with the access token:
    curl -H \"Authorization: Bearer $(slm serve --print-token)\" \\
      'http://127.0.0.1:7377/recall?q=which+database+did+we+choose&depth=0'
  Serve on another port:
    slm serve --http 127.0.0.1:8080";

pub(super) const HOOK_RECALL_EXAMPLES: &str = "\
Examples:
  Memories for a prompt (prints nothing when none supports it):
    slm hook recall \"how do we deploy the billing service?\"
  As an agent's prompt hook sends it, JSON on standard input:
    echo '{\"prompt\": \"how do we deploy?\"}' | slm hook recall
  Within one second, into a commit message template:
    slm hook recall --budget-s 1 \"decisions about src/store\" | sed 's/^/# /'";

pub(super) const FEEDBACK_EXAMPLES: &str = "\
Examples:
  Say which result of a recall helped (the id is recall_id in `slm recall --json`):
    slm feedback r3f9a0c1d2e4b5a69 42 good
  Use what was learned for one question (off unless asked):
    SLM_RANKING=v2 slm recall \"which database did we choose?\"
  See the marks on record, then remove them (the order is the fused one again):
    slm feedback --list
    slm feedback --forget";

pub(super) const CONNECT_EXAMPLES: &str = "\
Examples:
  Connect Claude Code (MCP server and hooks), after looking at the change:
    slm connect claude
  Connect Codex CLI from a script, then check:
    slm connect codex --yes
    slm connect --status
  Look at what would be taken out of Cursor's config, then take it out:
    slm connect cursor --remove --dry-run
    slm connect cursor --remove
  The entry for another MCP client:
    slm connect --print";
