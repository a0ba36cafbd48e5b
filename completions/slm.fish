# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_slm_global_optspecs
    string join \n json color= profile= no-worker no-wait project= all-projects h/help V/version
end

function __fish_slm_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_slm_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_slm_using_subcommand
    set -l cmd (__fish_slm_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c slm -n "__fish_slm_needs_command" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_needs_command" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_needs_command" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_needs_command" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_needs_command" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_needs_command" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_needs_command" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_needs_command" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_needs_command" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_needs_command" -f -a "remember" -d 'Save a memory (the text argument, or standard input when it is absent or "-")'
complete -c slm -n "__fish_slm_needs_command" -f -a "import" -d 'Import memories: JSON Lines (one object a line, as `export` writes; see docs/json.md), or a folder of Markdown and text notes'
complete -c slm -n "__fish_slm_needs_command" -f -a "export" -d 'Write every memory as JSON Lines on standard output, in the format `import` reads'
complete -c slm -n "__fish_slm_needs_command" -f -a "backup" -d 'Copy the store to a file while slm keeps working (SQLite\'s online backup), with a manifest beside it'
complete -c slm -n "__fish_slm_needs_command" -f -a "restore" -d 'Put a backup in place of the store (the current store is kept aside), then rebuild the indexes'
complete -c slm -n "__fish_slm_needs_command" -f -a "recall" -d 'Ask which memories are the best evidence for a question'
complete -c slm -n "__fish_slm_needs_command" -f -a "expand" -d 'Show one memory with its depth-2 context (same session, same entities, correction)'
complete -c slm -n "__fish_slm_needs_command" -f -a "list" -d 'List memories, newest first'
complete -c slm -n "__fish_slm_needs_command" -f -a "show" -d 'Show one memory in full'
complete -c slm -n "__fish_slm_needs_command" -f -a "update" -d 'Change a memory\'s text, kind, tags, pin or scope'
complete -c slm -n "__fish_slm_needs_command" -f -a "delete" -d 'Delete memories by id'
complete -c slm -n "__fish_slm_needs_command" -f -a "forget" -d 'Delete the memories matching a query or filter (asks first unless -y)'
complete -c slm -n "__fish_slm_needs_command" -f -a "feedback" -d 'Say which memory of a recall helped (or did not), for the learned ranking modes (SLM_RANKING, off unless set); list or forget the marks on record'
complete -c slm -n "__fish_slm_needs_command" -f -a "session-context" -d 'The block of memory text an agent gets at session start (held to a token budget)'
complete -c slm -n "__fish_slm_needs_command" -f -a "hook" -d 'Entry points for editor, git and agent hooks (never hold up typing)'
complete -c slm -n "__fish_slm_needs_command" -f -a "mcp" -d 'Serve the Model Context Protocol on standard input and output (for agents)'
complete -c slm -n "__fish_slm_needs_command" -f -a "connect" -d 'Connect an agent (Claude Code, Codex CLI, Cursor, Gemini CLI): write slm\'s MCP server, and Claude Code\'s hooks, into the agent\'s own config file (shows the change first)'
complete -c slm -n "__fish_slm_needs_command" -f -a "serve" -d 'Serve `GET /recall` over HTTP (loopback only, token required)'
complete -c slm -n "__fish_slm_needs_command" -f -a "dashboard" -d 'Browse, search, correct and prune memories in the browser: Memories, the Recall Lab, saved views, status (loopback only, token required)'
complete -c slm -n "__fish_slm_needs_command" -f -a "worker" -d 'The warm worker that keeps the model loaded: start, stop, status, restart'
complete -c slm -n "__fish_slm_needs_command" -f -a "answer-check" -d 'Which judge checks whether the top results answer a question: a local one when installed (auto), a hosted one you consent to, or none'
complete -c slm -n "__fish_slm_needs_command" -f -a "reindex" -d 'Rebuild the keyword and vector indexes from the store'
complete -c slm -n "__fish_slm_needs_command" -f -a "doctor" -d 'Check the store, the indexes, the model and the runtime; say what to fix'
complete -c slm -n "__fish_slm_needs_command" -f -a "eval" -d 'Measure recall quality on a data set (LoCoMo, question lists)'
complete -c slm -n "__fish_slm_needs_command" -f -a "bench" -d 'Measure speed (prints figures; asserts nothing)'
complete -c slm -n "__fish_slm_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c slm -n "__fish_slm_needs_command" -f -a "man" -d 'Print the man page (roff)'
complete -c slm -n "__fish_slm_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c slm -n "__fish_slm_using_subcommand remember" -l image -d 'Save a picture (PNG, JPEG, WebP, GIF; at most 25 MB): the file is kept in the data dir, and the words in it are read in the background (OCR) and found like text' -r -F
complete -c slm -n "__fish_slm_using_subcommand remember" -l kind -d 'What sort of memory: note, decision, fact, prompt, event, bookkeeping' -r
complete -c slm -n "__fish_slm_using_subcommand remember" -l tag -d 'A tag (repeatable)' -r
complete -c slm -n "__fish_slm_using_subcommand remember" -l session -d 'The session this memory belongs to' -r
complete -c slm -n "__fish_slm_using_subcommand remember" -l scope -d 'personal (default), shared or global' -r
complete -c slm -n "__fish_slm_using_subcommand remember" -l at -d 'When the thing happened (event time), e.g. 2024-05-08 or "2 days ago"' -r
complete -c slm -n "__fish_slm_using_subcommand remember" -l source -d 'Who saved it: user (default), agent, hook, captured_prompt' -r
complete -c slm -n "__fish_slm_using_subcommand remember" -l idempotency-key -d 'Saving twice with the same key stores it once' -r
complete -c slm -n "__fish_slm_using_subcommand remember" -l supersedes -d 'The id of the memory this one corrects' -r
complete -c slm -n "__fish_slm_using_subcommand remember" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand remember" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand remember" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand remember" -l pin -d 'Pin it: a pinned memory always counts as evidence'
complete -c slm -n "__fish_slm_using_subcommand remember" -l allow-secrets -d 'Store the text as given: without it, API keys, tokens, passwords and private keys in it are replaced by [redacted: KIND]'
complete -c slm -n "__fish_slm_using_subcommand remember" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand remember" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand remember" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand remember" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand remember" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand remember" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand import" -l from -d 'Import a coding agent\'s past sessions: each prompt you typed (kind prompt) and each text reply (a note), with session ids, times and projects; tool calls and their output are left out. Running it again adds only what is new' -r -f -a "claude-code\t'Claude Code: ~/.claude/projects/*/*.jsonl ($CLAUDE_CONFIG_DIR/projects when set)'
codex\t'Codex CLI: ~/.codex/sessions/**/rollout-*.jsonl ($CODEX_HOME/sessions when set)'"
complete -c slm -n "__fish_slm_using_subcommand import" -l format -d 'jsonl, markdown or media (a folder of pictures); auto: a folder or a .md, .markdown or .txt file is markdown, anything else JSON Lines' -r -f -a "auto\t''
jsonl\t''
markdown\t''
media\t'A folder of pictures (PNG, JPEG, WebP, GIF)'"
complete -c slm -n "__fish_slm_using_subcommand import" -l batch -d 'Lines per transaction' -r
complete -c slm -n "__fish_slm_using_subcommand import" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand import" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand import" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand import" -l dry-run -d 'Markdown: print what would be created, changed and superseded; write nothing'
complete -c slm -n "__fish_slm_using_subcommand import" -l follow-links -d 'Markdown: follow symbolic links (files and folders) whose target is inside the folder; without it links are skipped, and no link is ever followed out of the folder'
complete -c slm -n "__fish_slm_using_subcommand import" -l skip-bad -d 'Import the good lines and report the bad ones (default: any bad line imports nothing)'
complete -c slm -n "__fish_slm_using_subcommand import" -l print-ids -d 'Print "LINE<TAB>ID" for each memory as soon as it is durable'
complete -c slm -n "__fish_slm_using_subcommand import" -l allow-secrets -d 'Store the texts as given: without it, API keys, tokens, passwords and private keys in them are replaced by [redacted: KIND]'
complete -c slm -n "__fish_slm_using_subcommand import" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand import" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand import" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand import" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand import" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c slm -n "__fish_slm_using_subcommand import" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand export" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand export" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand export" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand export" -l all-profiles -d 'Every profile (default: only the one --profile names)'
complete -c slm -n "__fish_slm_using_subcommand export" -l include-bookkeeping -d 'Include bookkeeping rows (hook noise), which are left out by default'
complete -c slm -n "__fish_slm_using_subcommand export" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand export" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand export" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand export" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand export" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand export" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand backup" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand backup" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand backup" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand backup" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand backup" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand backup" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand backup" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand backup" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand backup" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand restore" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand restore" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand restore" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand restore" -l dry-run -d 'Check the backup and say what would happen; change nothing'
complete -c slm -n "__fish_slm_using_subcommand restore" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand restore" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand restore" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand restore" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand restore" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand restore" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand recall" -l limit -d 'How many results at most (1 or more; 0 is a usage error)' -r
complete -c slm -n "__fish_slm_using_subcommand recall" -l depth -d '0: ids, tier, score, preview; 1: full memories (default); 2: with context' -r
complete -c slm -n "__fish_slm_using_subcommand recall" -l max-tokens -d 'Cap the whole answer at this many tokens (the embedding model\'s tokenizer)' -r
complete -c slm -n "__fish_slm_using_subcommand recall" -l window -d 'Only memories whose event time is in this window: 7d, 12h, 2024-01-01..2024-02-01' -r
complete -c slm -n "__fish_slm_using_subcommand recall" -l as-of -d 'What was true at this time (event time and validity up to it)' -r
complete -c slm -n "__fish_slm_using_subcommand recall" -l known-as-of -d 'What slm knew before this time (system time)' -r
complete -c slm -n "__fish_slm_using_subcommand recall" -l valid-at -d 'Only memories valid at this time' -r
complete -c slm -n "__fish_slm_using_subcommand recall" -l kind -d 'Only memories of this kind' -r
complete -c slm -n "__fish_slm_using_subcommand recall" -l budget-s -d 'Answer within this many seconds (unchecked keyword matches when the full search cannot finish)' -r
complete -c slm -n "__fish_slm_using_subcommand recall" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand recall" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand recall" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand recall" -l show-weak -d 'List the closest weak matches too, labelled weak'
complete -c slm -n "__fish_slm_using_subcommand recall" -l agent -d 'The agent view: only supported results (related only with --include-related)'
complete -c slm -n "__fish_slm_using_subcommand recall" -l include-related -d 'With --agent: return related memories too'
complete -c slm -n "__fish_slm_using_subcommand recall" -l explain -d 'Print a trace of every stage'
complete -c slm -n "__fish_slm_using_subcommand recall" -l include-shared -d 'Let shared memories join'
complete -c slm -n "__fish_slm_using_subcommand recall" -l include-global -d 'Let global memories join'
complete -c slm -n "__fish_slm_using_subcommand recall" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand recall" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand recall" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand recall" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand recall" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand recall" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand expand" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand expand" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand expand" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand expand" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand expand" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand expand" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand expand" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand expand" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand expand" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand list" -l limit -d 'How many memories at most (1 or more; 0 is a usage error)' -r
complete -c slm -n "__fish_slm_using_subcommand list" -l kind -r
complete -c slm -n "__fish_slm_using_subcommand list" -l tag -r
complete -c slm -n "__fish_slm_using_subcommand list" -l session -r
complete -c slm -n "__fish_slm_using_subcommand list" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand list" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand list" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand list" -l all -d 'Include bookkeeping rows (hook noise), which are hidden by default'
complete -c slm -n "__fish_slm_using_subcommand list" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand list" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand list" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand list" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand list" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand list" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand show" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand show" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand show" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand show" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand show" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand show" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand show" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand show" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand show" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand update" -l text -d 'New text ("-" reads standard input)' -r
complete -c slm -n "__fish_slm_using_subcommand update" -l kind -r
complete -c slm -n "__fish_slm_using_subcommand update" -l tag -d 'Replace the tags (repeatable)' -r
complete -c slm -n "__fish_slm_using_subcommand update" -l scope -r
complete -c slm -n "__fish_slm_using_subcommand update" -l at -d 'New event time' -r
complete -c slm -n "__fish_slm_using_subcommand update" -l superseded-by -d 'Mark it corrected by this memory id' -r
complete -c slm -n "__fish_slm_using_subcommand update" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand update" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand update" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand update" -l pin
complete -c slm -n "__fish_slm_using_subcommand update" -l unpin
complete -c slm -n "__fish_slm_using_subcommand update" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand update" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand update" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand update" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand update" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand update" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand delete" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand delete" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand delete" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand delete" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand delete" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand delete" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand delete" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand delete" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand delete" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand forget" -l kind -r
complete -c slm -n "__fish_slm_using_subcommand forget" -l tag -r
complete -c slm -n "__fish_slm_using_subcommand forget" -l session -r
complete -c slm -n "__fish_slm_using_subcommand forget" -l before -d 'Only memories whose event time is before this' -r
complete -c slm -n "__fish_slm_using_subcommand forget" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand forget" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand forget" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand forget" -l dry-run -d 'Show what would be forgotten; change nothing'
complete -c slm -n "__fish_slm_using_subcommand forget" -s y -l yes -d 'Do not ask'
complete -c slm -n "__fish_slm_using_subcommand forget" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand forget" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand forget" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand forget" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand forget" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand forget" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand feedback" -l limit -d 'With --list: at most this many marks' -r
complete -c slm -n "__fish_slm_using_subcommand feedback" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand feedback" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand feedback" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand feedback" -l list -d 'List the marks on record, newest first'
complete -c slm -n "__fish_slm_using_subcommand feedback" -l forget -d 'Remove the marks, the logged recalls and the learned models of this profile'
complete -c slm -n "__fish_slm_using_subcommand feedback" -l all-profiles -d 'With --list or --forget: every profile, not only the current one'
complete -c slm -n "__fish_slm_using_subcommand feedback" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand feedback" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand feedback" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand feedback" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand feedback" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand feedback" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand session-context" -l mode -d 'start (1500 tokens), compact (500), resource (4000) or hook (400)' -r
complete -c slm -n "__fish_slm_using_subcommand session-context" -l max-tokens -d 'A different hard budget, in tokens of the embedding model\'s tokenizer' -r
complete -c slm -n "__fish_slm_using_subcommand session-context" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand session-context" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand session-context" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand session-context" -l include-shared -d 'Let shared memories join'
complete -c slm -n "__fish_slm_using_subcommand session-context" -l include-global -d 'Let global memories join'
complete -c slm -n "__fish_slm_using_subcommand session-context" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand session-context" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand session-context" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand session-context" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand session-context" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand session-context" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand hook; and not __fish_seen_subcommand_from recall capture help" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand hook; and not __fish_seen_subcommand_from recall capture help" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand hook; and not __fish_seen_subcommand_from recall capture help" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand hook; and not __fish_seen_subcommand_from recall capture help" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand hook; and not __fish_seen_subcommand_from recall capture help" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand hook; and not __fish_seen_subcommand_from recall capture help" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand hook; and not __fish_seen_subcommand_from recall capture help" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand hook; and not __fish_seen_subcommand_from recall capture help" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand hook; and not __fish_seen_subcommand_from recall capture help" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand hook; and not __fish_seen_subcommand_from recall capture help" -f -a "recall" -d 'Memories for the prompt about to be sent: at most 3 s, prints nothing when out of time or when nothing supports it. Reads the prompt from QUERY, or standard input (plain text, or a JSON object with a "prompt" field as agent hooks send)'
complete -c slm -n "__fish_slm_using_subcommand hook; and not __fish_seen_subcommand_from recall capture help" -f -a "capture" -d 'Save what an agent\'s hook reports: the prompt typed (kind prompt), "File changed: PATH" and "session ended" (bookkeeping). Reads the hook\'s JSON from PAYLOAD or standard input; at most 3 s, prints nothing, exits 0 whatever happens at run time. A capture that cannot be saved in time is kept on disk and saved by the next one'
complete -c slm -n "__fish_slm_using_subcommand hook; and not __fish_seen_subcommand_from recall capture help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c slm -n "__fish_slm_using_subcommand hook; and __fish_seen_subcommand_from recall" -l budget-s -d 'The hard time limit in seconds (at most 3)' -r
complete -c slm -n "__fish_slm_using_subcommand hook; and __fish_seen_subcommand_from recall" -l max-tokens -d 'The block\'s token budget (default: the hook mode\'s 400)' -r
complete -c slm -n "__fish_slm_using_subcommand hook; and __fish_seen_subcommand_from recall" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand hook; and __fish_seen_subcommand_from recall" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand hook; and __fish_seen_subcommand_from recall" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand hook; and __fish_seen_subcommand_from recall" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand hook; and __fish_seen_subcommand_from recall" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand hook; and __fish_seen_subcommand_from recall" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand hook; and __fish_seen_subcommand_from recall" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand hook; and __fish_seen_subcommand_from recall" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand hook; and __fish_seen_subcommand_from recall" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand hook; and __fish_seen_subcommand_from capture" -l budget-s -d 'The hard time limit in seconds (at most 3)' -r
complete -c slm -n "__fish_slm_using_subcommand hook; and __fish_seen_subcommand_from capture" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand hook; and __fish_seen_subcommand_from capture" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand hook; and __fish_seen_subcommand_from capture" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand hook; and __fish_seen_subcommand_from capture" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand hook; and __fish_seen_subcommand_from capture" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand hook; and __fish_seen_subcommand_from capture" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand hook; and __fish_seen_subcommand_from capture" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand hook; and __fish_seen_subcommand_from capture" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand hook; and __fish_seen_subcommand_from capture" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "recall" -d 'Memories for the prompt about to be sent: at most 3 s, prints nothing when out of time or when nothing supports it. Reads the prompt from QUERY, or standard input (plain text, or a JSON object with a "prompt" field as agent hooks send)'
complete -c slm -n "__fish_slm_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "capture" -d 'Save what an agent\'s hook reports: the prompt typed (kind prompt), "File changed: PATH" and "session ended" (bookkeeping). Reads the hook\'s JSON from PAYLOAD or standard input; at most 3 s, prints nothing, exits 0 whatever happens at run time. A capture that cannot be saved in time is kept on disk and saved by the next one'
complete -c slm -n "__fish_slm_using_subcommand hook; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c slm -n "__fish_slm_using_subcommand mcp" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand mcp" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand mcp" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand mcp" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand mcp" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand mcp" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand mcp" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand mcp" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand mcp" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand connect" -l config -d 'The agent\'s MCP config file, instead of where the agent keeps it' -r -F
complete -c slm -n "__fish_slm_using_subcommand connect" -l hooks-config -d 'Claude Code\'s settings file for the hooks (default ~/.claude/settings.json)' -r -F
complete -c slm -n "__fish_slm_using_subcommand connect" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand connect" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand connect" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand connect" -l print -d 'Print the MCP server entry for any MCP client, and change nothing'
complete -c slm -n "__fish_slm_using_subcommand connect" -l status -d 'Say which agents are connected (all, or AGENT\'s), reading their config files'
complete -c slm -n "__fish_slm_using_subcommand connect" -l remove -d 'Take out what slm wrote (the file as it was before, when nothing else changed it)'
complete -c slm -n "__fish_slm_using_subcommand connect" -s y -l yes -d 'Change the file without asking (needed without a terminal)'
complete -c slm -n "__fish_slm_using_subcommand connect" -l dry-run -d 'Show the change and write nothing'
complete -c slm -n "__fish_slm_using_subcommand connect" -l no-hooks -d 'Claude Code: the MCP server only, no hooks'
complete -c slm -n "__fish_slm_using_subcommand connect" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand connect" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand connect" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand connect" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand connect" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c slm -n "__fish_slm_using_subcommand connect" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand serve" -l http -d 'Listen here (default 127.0.0.1:7377). Needs --allow-remote unless it is loopback' -r
complete -c slm -n "__fish_slm_using_subcommand serve" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand serve" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand serve" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand serve" -l allow-remote -d 'Allow a non-loopback address (memories become reachable from other machines)'
complete -c slm -n "__fish_slm_using_subcommand serve" -l print-token -d 'Print the access token (made on first use) and exit; needs no --http'
complete -c slm -n "__fish_slm_using_subcommand serve" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand serve" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand serve" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand serve" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand serve" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand serve" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand dashboard" -l addr -d 'Listen here (port 0: any free port). Needs --allow-remote unless it is loopback' -r
complete -c slm -n "__fish_slm_using_subcommand dashboard" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand dashboard" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand dashboard" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand dashboard" -l allow-remote -d 'Allow a non-loopback address (memories become reachable from other machines)'
complete -c slm -n "__fish_slm_using_subcommand dashboard" -l no-open -d 'Do not open the browser; the address to sign in with is printed either way'
complete -c slm -n "__fish_slm_using_subcommand dashboard" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand dashboard" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand dashboard" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand dashboard" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand dashboard" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand dashboard" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand worker; and not __fish_seen_subcommand_from start stop status restart run help" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand worker; and not __fish_seen_subcommand_from start stop status restart run help" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand worker; and not __fish_seen_subcommand_from start stop status restart run help" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand worker; and not __fish_seen_subcommand_from start stop status restart run help" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand worker; and not __fish_seen_subcommand_from start stop status restart run help" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand worker; and not __fish_seen_subcommand_from start stop status restart run help" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand worker; and not __fish_seen_subcommand_from start stop status restart run help" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand worker; and not __fish_seen_subcommand_from start stop status restart run help" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand worker; and not __fish_seen_subcommand_from start stop status restart run help" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand worker; and not __fish_seen_subcommand_from start stop status restart run help" -f -a "start" -d 'Start the worker (if it is not running) and wait until it answers'
complete -c slm -n "__fish_slm_using_subcommand worker; and not __fish_seen_subcommand_from start stop status restart run help" -f -a "stop" -d 'Ask the worker to finish what it is doing and exit'
complete -c slm -n "__fish_slm_using_subcommand worker; and not __fish_seen_subcommand_from start stop status restart run help" -f -a "status" -d 'Is it running? pid, version, slots, idle time'
complete -c slm -n "__fish_slm_using_subcommand worker; and not __fish_seen_subcommand_from start stop status restart run help" -f -a "restart" -d 'Stop, then start'
complete -c slm -n "__fish_slm_using_subcommand worker; and not __fish_seen_subcommand_from start stop status restart run help" -f -a "run" -d 'Run the worker in this process (what `start` spawns)'
complete -c slm -n "__fish_slm_using_subcommand worker; and not __fish_seen_subcommand_from start stop status restart run help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from start" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from start" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from start" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from start" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from start" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from start" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from start" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from start" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from start" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from stop" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from stop" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from stop" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from stop" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from stop" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from stop" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from stop" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from stop" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from stop" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from status" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from status" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from status" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from status" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from status" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from status" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from status" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from status" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from restart" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from restart" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from restart" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from restart" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from restart" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from restart" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from restart" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from restart" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from restart" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from run" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from run" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from run" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from run" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from run" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from run" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from run" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from run" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from run" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from help" -f -a "start" -d 'Start the worker (if it is not running) and wait until it answers'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from help" -f -a "stop" -d 'Ask the worker to finish what it is doing and exit'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from help" -f -a "status" -d 'Is it running? pid, version, slots, idle time'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from help" -f -a "restart" -d 'Stop, then start'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from help" -f -a "run" -d 'Run the worker in this process (what `start` spawns)'
complete -c slm -n "__fish_slm_using_subcommand worker; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and not __fish_seen_subcommand_from hosted off auto local status help" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand answer-check; and not __fish_seen_subcommand_from hosted off auto local status help" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand answer-check; and not __fish_seen_subcommand_from hosted off auto local status help" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand answer-check; and not __fish_seen_subcommand_from hosted off auto local status help" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and not __fish_seen_subcommand_from hosted off auto local status help" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and not __fish_seen_subcommand_from hosted off auto local status help" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and not __fish_seen_subcommand_from hosted off auto local status help" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and not __fish_seen_subcommand_from hosted off auto local status help" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and not __fish_seen_subcommand_from hosted off auto local status help" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and not __fish_seen_subcommand_from hosted off auto local status help" -f -a "hosted" -d 'Judge with a hosted OpenAI-compatible endpoint. Shows exactly what will leave this machine and asks first; records your consent, with its time, in settings.json'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and not __fish_seen_subcommand_from hosted off auto local status help" -f -a "off" -d 'Turn the answer check off; revokes any consent given for a hosted judge'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and not __fish_seen_subcommand_from hosted off auto local status help" -f -a "auto" -d 'Use a local judge when one is installed, otherwise none (the default; never hosted). Revokes any consent given for a hosted judge'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and not __fish_seen_subcommand_from hosted off auto local status help" -f -a "local" -d 'Use the local judge only (unavailable when none is installed). Revokes any consent given for a hosted judge'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and not __fish_seen_subcommand_from hosted off auto local status help" -f -a "status" -d 'Show the mode, the judge a recall would use, and the consent on record'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and not __fish_seen_subcommand_from hosted off auto local status help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from hosted" -l endpoint -d 'The endpoint\'s base URL (OpenAI-compatible), e.g. https://api.example.com/v1; slm posts to {URL}/chat/completions' -r
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from hosted" -l model -d 'The model name to ask for' -r
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from hosted" -l key-env -d 'The NAME of the environment variable holding your API key (not the key itself): it is read at each recall and never stored' -r
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from hosted" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from hosted" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from hosted" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from hosted" -l yes -d 'Consent without asking (for scripts): what leaves the machine is still printed'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from hosted" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from hosted" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from hosted" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from hosted" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from hosted" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from hosted" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from off" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from off" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from off" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from off" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from off" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from off" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from off" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from off" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from off" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from auto" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from auto" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from auto" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from auto" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from auto" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from auto" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from auto" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from auto" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from auto" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from local" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from local" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from local" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from local" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from local" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from local" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from local" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from local" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from local" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from status" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from status" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from status" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from status" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from status" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from status" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from status" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from status" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from help" -f -a "hosted" -d 'Judge with a hosted OpenAI-compatible endpoint. Shows exactly what will leave this machine and asks first; records your consent, with its time, in settings.json'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from help" -f -a "off" -d 'Turn the answer check off; revokes any consent given for a hosted judge'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from help" -f -a "auto" -d 'Use a local judge when one is installed, otherwise none (the default; never hosted). Revokes any consent given for a hosted judge'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from help" -f -a "local" -d 'Use the local judge only (unavailable when none is installed). Revokes any consent given for a hosted judge'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from help" -f -a "status" -d 'Show the mode, the judge a recall would use, and the consent on record'
complete -c slm -n "__fish_slm_using_subcommand answer-check; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c slm -n "__fish_slm_using_subcommand reindex" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand reindex" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand reindex" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand reindex" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand reindex" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand reindex" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand reindex" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand reindex" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand reindex" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand doctor" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand doctor" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand doctor" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand doctor" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand doctor" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand doctor" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand doctor" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand doctor" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand doctor" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand eval; and not __fish_seen_subcommand_from locomo questions pairs notes help" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand eval; and not __fish_seen_subcommand_from locomo questions pairs notes help" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand eval; and not __fish_seen_subcommand_from locomo questions pairs notes help" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand eval; and not __fish_seen_subcommand_from locomo questions pairs notes help" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand eval; and not __fish_seen_subcommand_from locomo questions pairs notes help" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand eval; and not __fish_seen_subcommand_from locomo questions pairs notes help" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand eval; and not __fish_seen_subcommand_from locomo questions pairs notes help" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand eval; and not __fish_seen_subcommand_from locomo questions pairs notes help" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand eval; and not __fish_seen_subcommand_from locomo questions pairs notes help" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand eval; and not __fish_seen_subcommand_from locomo questions pairs notes help" -f -a "locomo" -d 'Evidence recall and tiers on a LoCoMo-format file'
complete -c slm -n "__fish_slm_using_subcommand eval; and not __fish_seen_subcommand_from locomo questions pairs notes help" -f -a "questions" -d 'Run a question list and count how many met the expectation'
complete -c slm -n "__fish_slm_using_subcommand eval; and not __fish_seen_subcommand_from locomo questions pairs notes help" -f -a "pairs" -d 'The model\'s cosine scale: question/answer pairs against mismatched pairings'
complete -c slm -n "__fish_slm_using_subcommand eval; and not __fish_seen_subcommand_from locomo questions pairs notes help" -f -a "notes" -d 'Plain workplace notes and questions in other words (fixtures/notes-dev.json format): supported with the right note first, and unanswerable questions not supported'
complete -c slm -n "__fish_slm_using_subcommand eval; and not __fish_seen_subcommand_from locomo questions pairs notes help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from locomo" -l conversations -d 'Only these conversations (comma separated sample ids)' -r
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from locomo" -l audit -d 'Audit corrections (locomo-dev-audit.json format)' -r -F
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from locomo" -l k -d 'Cut-offs for R@k and hit@k' -r
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from locomo" -l baseline -d 'Also run a simple baseline on the same data: bm25 or dense' -r
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from locomo" -l markdown -d 'Write a Markdown report here too' -r -F
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from locomo" -l misses -d 'Write the support check\'s misses here as JSON Lines (answerable questions with evidence in the top 3 that were not supported; adversarial ones that were), with every scored memory\'s signals, for studying the check by kind of question' -r -F
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from locomo" -l signals -d 'Write every judged question\'s signals here as JSON Lines (answerable questions with evidence in the top 3, and adversarial ones), missed or not: what a support rule is fitted on (scripts/models/reader/fit_rule.py)' -r -F
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from locomo" -l tune -d 'Tune channel weight multipliers over a grid such as "semantic=1,2,3;bm25=0.5,1", leave-one-conversation-out: each conversation is scored with the grid point that did best on the others' -r
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from locomo" -l scale -d 'Channel weight multipliers for the main run, on top of the model\'s, such as "semantic=2,bm25=0.5"' -r
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from locomo" -l answer-check -d 'The answer check for this run (answer_check.mode of the temporary stores); with a judge, the report puts the support check alone beside it' -r -f -a "auto\t''
local\t''
off\t''"
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from locomo" -l ranking -d 'Also measure learned ranking modes (v1, v2, v2-ensemble or all) with simulated feedback: per conversation, gold evidence of half the questions trains, the other half is scored against off' -r
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from locomo" -l query-encoder -d 'Which encoder embeds the questions, one run each on the same stores, side by side: "full,fast" (the memory model; the small query encoder). Default: what settings say' -r -f -a "full\t''
fast\t''"
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from locomo" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from locomo" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from locomo" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from locomo" -l ablate -d 'Also run every question with each channel switched off in turn and print the table'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from locomo" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from locomo" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from locomo" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from locomo" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from locomo" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from locomo" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from questions" -l expect -d 'none: the tier must be none; not-supported: anything but supported' -r
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from questions" -l store -d 'A LoCoMo file whose conversations form the store (default: ../shared/data/locomo-dev.json)' -r -F
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from questions" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from questions" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from questions" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from questions" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from questions" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from questions" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from questions" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from questions" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from questions" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from pairs" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from pairs" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from pairs" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from pairs" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from pairs" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from pairs" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from pairs" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from pairs" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from pairs" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from notes" -l answer-check -d 'The answer check for this run (answer_check.mode of the temporary store)' -r -f -a "auto\t''
local\t''
off\t''"
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from notes" -l query-encoder -d 'Which encoder embeds the questions: fast (the small query encoder) or full (the memory model); the default is what settings say' -r -f -a "full\t''
fast\t''"
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from notes" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from notes" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from notes" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from notes" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from notes" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from notes" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from notes" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from notes" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from notes" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from help" -f -a "locomo" -d 'Evidence recall and tiers on a LoCoMo-format file'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from help" -f -a "questions" -d 'Run a question list and count how many met the expectation'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from help" -f -a "pairs" -d 'The model\'s cosine scale: question/answer pairs against mismatched pairings'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from help" -f -a "notes" -d 'Plain workplace notes and questions in other words (fixtures/notes-dev.json format): supported with the right note first, and unanswerable questions not supported'
complete -c slm -n "__fish_slm_using_subcommand eval; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c slm -n "__fish_slm_using_subcommand bench; and not __fish_seen_subcommand_from ingest recall vectors worker export hooks dashboard pictures help" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand bench; and not __fish_seen_subcommand_from ingest recall vectors worker export hooks dashboard pictures help" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand bench; and not __fish_seen_subcommand_from ingest recall vectors worker export hooks dashboard pictures help" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand bench; and not __fish_seen_subcommand_from ingest recall vectors worker export hooks dashboard pictures help" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand bench; and not __fish_seen_subcommand_from ingest recall vectors worker export hooks dashboard pictures help" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand bench; and not __fish_seen_subcommand_from ingest recall vectors worker export hooks dashboard pictures help" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand bench; and not __fish_seen_subcommand_from ingest recall vectors worker export hooks dashboard pictures help" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand bench; and not __fish_seen_subcommand_from ingest recall vectors worker export hooks dashboard pictures help" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand bench; and not __fish_seen_subcommand_from ingest recall vectors worker export hooks dashboard pictures help" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand bench; and not __fish_seen_subcommand_from ingest recall vectors worker export hooks dashboard pictures help" -f -a "ingest" -d 'Import N memories and report memories/s, time to findable, size, RSS'
complete -c slm -n "__fish_slm_using_subcommand bench; and not __fish_seen_subcommand_from ingest recall vectors worker export hooks dashboard pictures help" -f -a "recall" -d 'Recall latency on a synthetic store built from LoCoMo turns'
complete -c slm -n "__fish_slm_using_subcommand bench; and not __fish_seen_subcommand_from ingest recall vectors worker export hooks dashboard pictures help" -f -a "vectors" -d 'Vector index precision: recall@10 of f32, f16 and i8 HNSW against exact search'
complete -c slm -n "__fish_slm_using_subcommand bench; and not __fish_seen_subcommand_from ingest recall vectors worker export hooks dashboard pictures help" -f -a "worker" -d 'End to end through the CLI against the warm worker (process start included), at each concurrency, and the cold path with the worker down'
complete -c slm -n "__fish_slm_using_subcommand bench; and not __fish_seen_subcommand_from ingest recall vectors worker export hooks dashboard pictures help" -f -a "export" -d 'Export, import and backup speed on the bench store (memories/s, MB/s)'
complete -c slm -n "__fish_slm_using_subcommand bench; and not __fish_seen_subcommand_from ingest recall vectors worker export hooks dashboard pictures help" -f -a "hooks" -d '`slm hook capture` timed end to end with the worker idle and while it imports'
complete -c slm -n "__fish_slm_using_subcommand bench; and not __fish_seen_subcommand_from ingest recall vectors worker export hooks dashboard pictures help" -f -a "dashboard" -d 'The dashboard\'s pages timed over HTTP on the bench store (searches excluded)'
complete -c slm -n "__fish_slm_using_subcommand bench; and not __fish_seen_subcommand_from ingest recall vectors worker export hooks dashboard pictures help" -f -a "pictures" -d 'OCR per picture (the models alone), then a folder imported through the worker: time until every picture is read, and, with a questions.json beside the pictures, how many questions find their picture in the top 3'
complete -c slm -n "__fish_slm_using_subcommand bench; and not __fish_seen_subcommand_from ingest recall vectors worker export hooks dashboard pictures help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from ingest" -l memories -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from ingest" -l data -d 'LoCoMo file to take turn text from' -r -F
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from ingest" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from ingest" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from ingest" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from ingest" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from ingest" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from ingest" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from ingest" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from ingest" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from ingest" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from recall" -l memories -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from recall" -l questions -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from recall" -l concurrency -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from recall" -l data -r -F
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from recall" -l pictures -d 'Add this many picture memories (as OCR leaves them) to a copy of the store' -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from recall" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from recall" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from recall" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from recall" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from recall" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from recall" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from recall" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from recall" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from recall" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from vectors" -l memories -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from vectors" -l questions -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from vectors" -l concurrency -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from vectors" -l data -r -F
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from vectors" -l pictures -d 'Add this many picture memories (as OCR leaves them) to a copy of the store' -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from vectors" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from vectors" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from vectors" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from vectors" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from vectors" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from vectors" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from vectors" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from vectors" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from vectors" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from worker" -l memories -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from worker" -l questions -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from worker" -l concurrency -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from worker" -l data -r -F
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from worker" -l pictures -d 'Add this many picture memories (as OCR leaves them) to a copy of the store' -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from worker" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from worker" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from worker" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from worker" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from worker" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from worker" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from worker" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from worker" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from worker" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from export" -l memories -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from export" -l data -r -F
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from export" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from export" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from export" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from export" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from export" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from export" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from export" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from export" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from export" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from hooks" -l memories -d 'Memories the background import writes (the hooks fire until it ends)' -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from hooks" -l captures -d 'Hooks fired with the worker idle (the baseline)' -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from hooks" -l interval-ms -d 'Milliseconds between one hook\'s exit and the next one\'s start (0: back to back). The default, ten hooks a second, is far above what an agent fires; 0 measures a storm of hooks that competes with the import for the cores' -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from hooks" -l data -d 'LoCoMo file to take turn text from' -r -F
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from hooks" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from hooks" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from hooks" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from hooks" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from hooks" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from hooks" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from hooks" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from hooks" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from hooks" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from dashboard" -l memories -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from dashboard" -l data -r -F
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from dashboard" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from dashboard" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from dashboard" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from dashboard" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from dashboard" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from dashboard" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from dashboard" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from dashboard" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from dashboard" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from pictures" -l runs -d 'Times each picture is read by OCR alone' -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from pictures" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from pictures" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from pictures" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from pictures" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from pictures" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from pictures" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from pictures" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from pictures" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from pictures" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from help" -f -a "ingest" -d 'Import N memories and report memories/s, time to findable, size, RSS'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from help" -f -a "recall" -d 'Recall latency on a synthetic store built from LoCoMo turns'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from help" -f -a "vectors" -d 'Vector index precision: recall@10 of f32, f16 and i8 HNSW against exact search'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from help" -f -a "worker" -d 'End to end through the CLI against the warm worker (process start included), at each concurrency, and the cold path with the worker down'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from help" -f -a "export" -d 'Export, import and backup speed on the bench store (memories/s, MB/s)'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from help" -f -a "hooks" -d '`slm hook capture` timed end to end with the worker idle and while it imports'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from help" -f -a "dashboard" -d 'The dashboard\'s pages timed over HTTP on the bench store (searches excluded)'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from help" -f -a "pictures" -d 'OCR per picture (the models alone), then a folder imported through the worker: time until every picture is read, and, with a questions.json beside the pictures, how many questions find their picture in the top 3'
complete -c slm -n "__fish_slm_using_subcommand bench; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c slm -n "__fish_slm_using_subcommand completions" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand completions" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand completions" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand completions" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand completions" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand completions" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand completions" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand completions" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand completions" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand man" -l color -d 'When to use colour: auto means a terminal without NO_COLOR and without --json' -r -f -a "auto\t''
always\t''
never\t''"
complete -c slm -n "__fish_slm_using_subcommand man" -l profile -d 'The profile to read and write (default: $SLM_PROFILE, else "default"). An empty --profile is an error; an empty SLM_PROFILE counts as unset' -r
complete -c slm -n "__fish_slm_using_subcommand man" -l project -d 'The project to write to and read from (default: $SLM_PROJECT, else the git repository the working directory is in, if any). A question sees its project\'s memories and those saved outside any project' -r
complete -c slm -n "__fish_slm_using_subcommand man" -l json -d 'Print machine-readable JSON (the schema is in docs/json.md)'
complete -c slm -n "__fish_slm_using_subcommand man" -l no-worker -d 'Answer in this process, without the warm worker (keyword-only until a worker has the model loaded; labelled warming). Same as SLM_WORKER=off'
complete -c slm -n "__fish_slm_using_subcommand man" -l no-wait -d 'A question that finds the worker starting does not wait for it (up to worker.question_wait_s, default 10 s): it answers at once from keyword search, labelled warming'
complete -c slm -n "__fish_slm_using_subcommand man" -l all-projects -d 'Read every project\'s memories (writes record no project)'
complete -c slm -n "__fish_slm_using_subcommand man" -s h -l help -d 'Print help'
complete -c slm -n "__fish_slm_using_subcommand man" -s V -l version -d 'Print version'
complete -c slm -n "__fish_slm_using_subcommand help; and not __fish_seen_subcommand_from remember import export backup restore recall expand list show update delete forget feedback session-context hook mcp connect serve dashboard worker answer-check reindex doctor eval bench completions man help" -f -a "remember" -d 'Save a memory (the text argument, or standard input when it is absent or "-")'
complete -c slm -n "__fish_slm_using_subcommand help; and not __fish_seen_subcommand_from remember import export backup restore recall expand list show update delete forget feedback session-context hook mcp connect serve dashboard worker answer-check reindex doctor eval bench completions man help" -f -a "import" -d 'Import memories: JSON Lines (one object a line, as `export` writes; see docs/json.md), or a folder of Markdown and text notes'
complete -c slm -n "__fish_slm_using_subcommand help; and not __fish_seen_subcommand_from remember import export backup restore recall expand list show update delete forget feedback session-context hook mcp connect serve dashboard worker answer-check reindex doctor eval bench completions man help" -f -a "export" -d 'Write every memory as JSON Lines on standard output, in the format `import` reads'
complete -c slm -n "__fish_slm_using_subcommand help; and not __fish_seen_subcommand_from remember import export backup restore recall expand list show update delete forget feedback session-context hook mcp connect serve dashboard worker answer-check reindex doctor eval bench completions man help" -f -a "backup" -d 'Copy the store to a file while slm keeps working (SQLite\'s online backup), with a manifest beside it'
complete -c slm -n "__fish_slm_using_subcommand help; and not __fish_seen_subcommand_from remember import export backup restore recall expand list show update delete forget feedback session-context hook mcp connect serve dashboard worker answer-check reindex doctor eval bench completions man help" -f -a "restore" -d 'Put a backup in place of the store (the current store is kept aside), then rebuild the indexes'
complete -c slm -n "__fish_slm_using_subcommand help; and not __fish_seen_subcommand_from remember import export backup restore recall expand list show update delete forget feedback session-context hook mcp connect serve dashboard worker answer-check reindex doctor eval bench completions man help" -f -a "recall" -d 'Ask which memories are the best evidence for a question'
complete -c slm -n "__fish_slm_using_subcommand help; and not __fish_seen_subcommand_from remember import export backup restore recall expand list show update delete forget feedback session-context hook mcp connect serve dashboard worker answer-check reindex doctor eval bench completions man help" -f -a "expand" -d 'Show one memory with its depth-2 context (same session, same entities, correction)'
complete -c slm -n "__fish_slm_using_subcommand help; and not __fish_seen_subcommand_from remember import export backup restore recall expand list show update delete forget feedback session-context hook mcp connect serve dashboard worker answer-check reindex doctor eval bench completions man help" -f -a "list" -d 'List memories, newest first'
complete -c slm -n "__fish_slm_using_subcommand help; and not __fish_seen_subcommand_from remember import export backup restore recall expand list show update delete forget feedback session-context hook mcp connect serve dashboard worker answer-check reindex doctor eval bench completions man help" -f -a "show" -d 'Show one memory in full'
complete -c slm -n "__fish_slm_using_subcommand help; and not __fish_seen_subcommand_from remember import export backup restore recall expand list show update delete forget feedback session-context hook mcp connect serve dashboard worker answer-check reindex doctor eval bench completions man help" -f -a "update" -d 'Change a memory\'s text, kind, tags, pin or scope'
complete -c slm -n "__fish_slm_using_subcommand help; and not __fish_seen_subcommand_from remember import export backup restore recall expand list show update delete forget feedback session-context hook mcp connect serve dashboard worker answer-check reindex doctor eval bench completions man help" -f -a "delete" -d 'Delete memories by id'
complete -c slm -n "__fish_slm_using_subcommand help; and not __fish_seen_subcommand_from remember import export backup restore recall expand list show update delete forget feedback session-context hook mcp connect serve dashboard worker answer-check reindex doctor eval bench completions man help" -f -a "forget" -d 'Delete the memories matching a query or filter (asks first unless -y)'
complete -c slm -n "__fish_slm_using_subcommand help; and not __fish_seen_subcommand_from remember import export backup restore recall expand list show update delete forget feedback session-context hook mcp connect serve dashboard worker answer-check reindex doctor eval bench completions man help" -f -a "feedback" -d 'Say which memory of a recall helped (or did not), for the learned ranking modes (SLM_RANKING, off unless set); list or forget the marks on record'
complete -c slm -n "__fish_slm_using_subcommand help; and not __fish_seen_subcommand_from remember import export backup restore recall expand list show update delete forget feedback session-context hook mcp connect serve dashboard worker answer-check reindex doctor eval bench completions man help" -f -a "session-context" -d 'The block of memory text an agent gets at session start (held to a token budget)'
complete -c slm -n "__fish_slm_using_subcommand help; and not __fish_seen_subcommand_from remember import export backup restore recall expand list show update delete forget feedback session-context hook mcp connect serve dashboard worker answer-check reindex doctor eval bench completions man help" -f -a "hook" -d 'Entry points for editor, git and agent hooks (never hold up typing)'
complete -c slm -n "__fish_slm_using_subcommand help; and not __fish_seen_subcommand_from remember import export backup restore recall expand list show update delete forget feedback session-context hook mcp connect serve dashboard worker answer-check reindex doctor eval bench completions man help" -f -a "mcp" -d 'Serve the Model Context Protocol on standard input and output (for agents)'
complete -c slm -n "__fish_slm_using_subcommand help; and not __fish_seen_subcommand_from remember import export backup restore recall expand list show update delete forget feedback session-context hook mcp connect serve dashboard worker answer-check reindex doctor eval bench completions man help" -f -a "connect" -d 'Connect an agent (Claude Code, Codex CLI, Cursor, Gemini CLI): write slm\'s MCP server, and Claude Code\'s hooks, into the agent\'s own config file (shows the change first)'
complete -c slm -n "__fish_slm_using_subcommand help; and not __fish_seen_subcommand_from remember import export backup restore recall expand list show update delete forget feedback session-context hook mcp connect serve dashboard worker answer-check reindex doctor eval bench completions man help" -f -a "serve" -d 'Serve `GET /recall` over HTTP (loopback only, token required)'
complete -c slm -n "__fish_slm_using_subcommand help; and not __fish_seen_subcommand_from remember import export backup restore recall expand list show update delete forget feedback session-context hook mcp connect serve dashboard worker answer-check reindex doctor eval bench completions man help" -f -a "dashboard" -d 'Browse, search, correct and prune memories in the browser: Memories, the Recall Lab, saved views, status (loopback only, token required)'
complete -c slm -n "__fish_slm_using_subcommand help; and not __fish_seen_subcommand_from remember import export backup restore recall expand list show update delete forget feedback session-context hook mcp connect serve dashboard worker answer-check reindex doctor eval bench completions man help" -f -a "worker" -d 'The warm worker that keeps the model loaded: start, stop, status, restart'
complete -c slm -n "__fish_slm_using_subcommand help; and not __fish_seen_subcommand_from remember import export backup restore recall expand list show update delete forget feedback session-context hook mcp connect serve dashboard worker answer-check reindex doctor eval bench completions man help" -f -a "answer-check" -d 'Which judge checks whether the top results answer a question: a local one when installed (auto), a hosted one you consent to, or none'
complete -c slm -n "__fish_slm_using_subcommand help; and not __fish_seen_subcommand_from remember import export backup restore recall expand list show update delete forget feedback session-context hook mcp connect serve dashboard worker answer-check reindex doctor eval bench completions man help" -f -a "reindex" -d 'Rebuild the keyword and vector indexes from the store'
complete -c slm -n "__fish_slm_using_subcommand help; and not __fish_seen_subcommand_from remember import export backup restore recall expand list show update delete forget feedback session-context hook mcp connect serve dashboard worker answer-check reindex doctor eval bench completions man help" -f -a "doctor" -d 'Check the store, the indexes, the model and the runtime; say what to fix'
complete -c slm -n "__fish_slm_using_subcommand help; and not __fish_seen_subcommand_from remember import export backup restore recall expand list show update delete forget feedback session-context hook mcp connect serve dashboard worker answer-check reindex doctor eval bench completions man help" -f -a "eval" -d 'Measure recall quality on a data set (LoCoMo, question lists)'
complete -c slm -n "__fish_slm_using_subcommand help; and not __fish_seen_subcommand_from remember import export backup restore recall expand list show update delete forget feedback session-context hook mcp connect serve dashboard worker answer-check reindex doctor eval bench completions man help" -f -a "bench" -d 'Measure speed (prints figures; asserts nothing)'
complete -c slm -n "__fish_slm_using_subcommand help; and not __fish_seen_subcommand_from remember import export backup restore recall expand list show update delete forget feedback session-context hook mcp connect serve dashboard worker answer-check reindex doctor eval bench completions man help" -f -a "completions" -d 'Print a shell completion script'
complete -c slm -n "__fish_slm_using_subcommand help; and not __fish_seen_subcommand_from remember import export backup restore recall expand list show update delete forget feedback session-context hook mcp connect serve dashboard worker answer-check reindex doctor eval bench completions man help" -f -a "man" -d 'Print the man page (roff)'
complete -c slm -n "__fish_slm_using_subcommand help; and not __fish_seen_subcommand_from remember import export backup restore recall expand list show update delete forget feedback session-context hook mcp connect serve dashboard worker answer-check reindex doctor eval bench completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c slm -n "__fish_slm_using_subcommand help; and __fish_seen_subcommand_from hook" -f -a "recall" -d 'Memories for the prompt about to be sent: at most 3 s, prints nothing when out of time or when nothing supports it. Reads the prompt from QUERY, or standard input (plain text, or a JSON object with a "prompt" field as agent hooks send)'
complete -c slm -n "__fish_slm_using_subcommand help; and __fish_seen_subcommand_from hook" -f -a "capture" -d 'Save what an agent\'s hook reports: the prompt typed (kind prompt), "File changed: PATH" and "session ended" (bookkeeping). Reads the hook\'s JSON from PAYLOAD or standard input; at most 3 s, prints nothing, exits 0 whatever happens at run time. A capture that cannot be saved in time is kept on disk and saved by the next one'
complete -c slm -n "__fish_slm_using_subcommand help; and __fish_seen_subcommand_from worker" -f -a "start" -d 'Start the worker (if it is not running) and wait until it answers'
complete -c slm -n "__fish_slm_using_subcommand help; and __fish_seen_subcommand_from worker" -f -a "stop" -d 'Ask the worker to finish what it is doing and exit'
complete -c slm -n "__fish_slm_using_subcommand help; and __fish_seen_subcommand_from worker" -f -a "status" -d 'Is it running? pid, version, slots, idle time'
complete -c slm -n "__fish_slm_using_subcommand help; and __fish_seen_subcommand_from worker" -f -a "restart" -d 'Stop, then start'
complete -c slm -n "__fish_slm_using_subcommand help; and __fish_seen_subcommand_from worker" -f -a "run" -d 'Run the worker in this process (what `start` spawns)'
complete -c slm -n "__fish_slm_using_subcommand help; and __fish_seen_subcommand_from answer-check" -f -a "hosted" -d 'Judge with a hosted OpenAI-compatible endpoint. Shows exactly what will leave this machine and asks first; records your consent, with its time, in settings.json'
complete -c slm -n "__fish_slm_using_subcommand help; and __fish_seen_subcommand_from answer-check" -f -a "off" -d 'Turn the answer check off; revokes any consent given for a hosted judge'
complete -c slm -n "__fish_slm_using_subcommand help; and __fish_seen_subcommand_from answer-check" -f -a "auto" -d 'Use a local judge when one is installed, otherwise none (the default; never hosted). Revokes any consent given for a hosted judge'
complete -c slm -n "__fish_slm_using_subcommand help; and __fish_seen_subcommand_from answer-check" -f -a "local" -d 'Use the local judge only (unavailable when none is installed). Revokes any consent given for a hosted judge'
complete -c slm -n "__fish_slm_using_subcommand help; and __fish_seen_subcommand_from answer-check" -f -a "status" -d 'Show the mode, the judge a recall would use, and the consent on record'
complete -c slm -n "__fish_slm_using_subcommand help; and __fish_seen_subcommand_from eval" -f -a "locomo" -d 'Evidence recall and tiers on a LoCoMo-format file'
complete -c slm -n "__fish_slm_using_subcommand help; and __fish_seen_subcommand_from eval" -f -a "questions" -d 'Run a question list and count how many met the expectation'
complete -c slm -n "__fish_slm_using_subcommand help; and __fish_seen_subcommand_from eval" -f -a "pairs" -d 'The model\'s cosine scale: question/answer pairs against mismatched pairings'
complete -c slm -n "__fish_slm_using_subcommand help; and __fish_seen_subcommand_from eval" -f -a "notes" -d 'Plain workplace notes and questions in other words (fixtures/notes-dev.json format): supported with the right note first, and unanswerable questions not supported'
complete -c slm -n "__fish_slm_using_subcommand help; and __fish_seen_subcommand_from bench" -f -a "ingest" -d 'Import N memories and report memories/s, time to findable, size, RSS'
complete -c slm -n "__fish_slm_using_subcommand help; and __fish_seen_subcommand_from bench" -f -a "recall" -d 'Recall latency on a synthetic store built from LoCoMo turns'
complete -c slm -n "__fish_slm_using_subcommand help; and __fish_seen_subcommand_from bench" -f -a "vectors" -d 'Vector index precision: recall@10 of f32, f16 and i8 HNSW against exact search'
complete -c slm -n "__fish_slm_using_subcommand help; and __fish_seen_subcommand_from bench" -f -a "worker" -d 'End to end through the CLI against the warm worker (process start included), at each concurrency, and the cold path with the worker down'
complete -c slm -n "__fish_slm_using_subcommand help; and __fish_seen_subcommand_from bench" -f -a "export" -d 'Export, import and backup speed on the bench store (memories/s, MB/s)'
complete -c slm -n "__fish_slm_using_subcommand help; and __fish_seen_subcommand_from bench" -f -a "hooks" -d '`slm hook capture` timed end to end with the worker idle and while it imports'
complete -c slm -n "__fish_slm_using_subcommand help; and __fish_seen_subcommand_from bench" -f -a "dashboard" -d 'The dashboard\'s pages timed over HTTP on the bench store (searches excluded)'
complete -c slm -n "__fish_slm_using_subcommand help; and __fish_seen_subcommand_from bench" -f -a "pictures" -d 'OCR per picture (the models alone), then a folder imported through the worker: time until every picture is read, and, with a questions.json beside the pictures, how many questions find their picture in the top 3'
