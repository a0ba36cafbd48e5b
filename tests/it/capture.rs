//! `slm hook capture` (issue 35): an agent's hook payload saved as memories — the prompt as
//! kind prompt, "File changed" and "session ended" as bookkeeping — never printing to
//! standard output, exiting 0 whatever it meets, and never losing a capture: one kept in the
//! spool is saved by the next hook.

use crate::common::{Env, code, stderr};
use serde_json::{Value, json};

fn env() -> Env {
    Env::new().with("SLM_EMBEDDER", "hash")
}

fn capture(env: &Env, payload: &Value) -> std::process::Output {
    env.run_stdin(&["hook", "capture"], payload.to_string().as_bytes())
}

/// What a capture that ran out of time leaves: its memory in the spool. Returns the spool.
fn left_in_spool(env: &Env, text: &str, key: &str) -> std::path::PathBuf {
    let spool = env.path("spool");
    std::fs::create_dir_all(&spool).unwrap();
    let left = json!([{
        "text": text, "kind": "prompt", "source": "captured_prompt", "session_id": "old",
        "idempotency_key": key
    }]);
    std::fs::write(
        spool.join("capture-1-1.json"),
        serde_json::to_vec(&left).unwrap(),
    )
    .unwrap();
    spool
}

fn everything(env: &Env) -> Vec<Value> {
    env.json(&["list", "--all", "--all-projects", "--limit", "1000"])["memories"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn a_claude_code_prompt_is_saved_once_and_nothing_is_printed() {
    let env = env();
    let p = json!({
        "session_id": "sess-1", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
        "hook_event_name": "UserPromptSubmit",
        "prompt": "Use port 5433 for the staging database from now on"
    });
    for _ in 0..2 {
        let out = capture(&env, &p);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert!(out.stdout.is_empty(), "a hook's stdout reaches the model");
    }
    let all = everything(&env);
    assert_eq!(all.len(), 1, "delivered twice, stored once: {all:?}");
    let m = &all[0];
    assert_eq!(
        m["text"],
        "Use port 5433 for the staging database from now on"
    );
    assert_eq!(m["kind"], "prompt");
    assert_eq!(m["source"], "captured_prompt");
    assert_eq!(m["session_id"], "sess-1");
}

#[test]
fn file_changes_and_session_end_are_bookkeeping_and_other_tools_save_nothing() {
    let env = env();
    for p in [
        json!({"session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Write",
               "tool_input": {"file_path": "/w/api/src/db.rs", "content": "…"}}),
        json!({"session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Bash",
               "tool_input": {"command": "ls"}}),
        json!({"session_id": "s", "hook_event_name": "SessionEnd", "reason": "exit"}),
    ] {
        let out = capture(&env, &p);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert!(out.stdout.is_empty());
    }
    let all = everything(&env);
    let texts: Vec<&str> = all.iter().map(|m| m["text"].as_str().unwrap()).collect();
    assert_eq!(texts.len(), 2, "the Bash call saved nothing: {texts:?}");
    assert!(
        texts.contains(&"File changed: /w/api/src/db.rs"),
        "{texts:?}"
    );
    assert!(texts.contains(&"session ended (exit)"), "{texts:?}");
    for m in &all {
        assert!(m["bookkeeping"].is_string(), "flagged: {m}");
    }
    // Bookkeeping stays out of the default list and out of answers.
    let listed = env.json(&["list", "--all-projects"]);
    assert_eq!(listed["memories"].as_array().unwrap().len(), 0, "{listed}");
}

#[test]
fn a_payload_slm_cannot_read_exits_0_and_says_why_on_stderr() {
    let env = env();
    for input in [
        &b"not json"[..],
        b"{\"hook_event_name\":\"PreCompact\"}",
        b"",
    ] {
        let out = env.run_stdin(&["hook", "capture"], input);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert!(out.stdout.is_empty());
        assert!(!stderr(&out).is_empty(), "it says why");
        assert!(
            !stderr(&out).contains("Error("),
            "no debug text: {}",
            stderr(&out)
        );
    }
    assert!(everything(&env).is_empty());
    // A mistyped flag is still a usage error.
    assert_eq!(code(&env.run(&["hook", "capture", "--budget-s", "0"])), 2);
}

#[test]
fn a_capture_left_in_the_spool_is_saved_by_the_next_one() {
    let env = env();
    let spool = left_in_spool(
        &env,
        "The release branch is cut on Thursdays",
        "capture:0123456789abcdef01234567",
    );
    let out = capture(
        &env,
        &json!({"hook_event_name": "UserPromptSubmit", "session_id": "new",
                "prompt": "Tag the release after the cut"}),
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let texts: Vec<String> = everything(&env)
        .iter()
        .map(|m| m["text"].as_str().unwrap().to_string())
        .collect();
    assert!(
        texts.contains(&"The release branch is cut on Thursdays".to_string()),
        "{texts:?}"
    );
    assert!(
        texts.contains(&"Tag the release after the cut".to_string()),
        "{texts:?}"
    );
    let rest: Vec<_> = std::fs::read_dir(&spool).unwrap().flatten().collect();
    assert!(rest.is_empty(), "the spool is empty once saved: {rest:?}");
}

#[test]
fn codex_notify_passes_the_payload_as_an_argument() {
    let env = env();
    let p = json!({"type": "agent-turn-complete", "thread-id": "t1",
                   "input-messages": ["Bump the version to 0.4.0"],
                   "last-assistant-message": "Done"});
    let out = env.run(&["hook", "capture", &p.to_string()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let all = everything(&env);
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!(all[0]["text"], "Bump the version to 0.4.0");
    assert_eq!(all[0]["session_id"], "t1");
}

/// The spec: a captured prompt is a request, not a fact. "What did I ask for…" finds it;
/// "what am I working on?" is never answered by one. With the real models.
#[test]
fn captured_prompts_answer_what_was_asked_and_never_what_is_being_worked_on() {
    let env = Env::new();
    let out = capture(
        &env,
        &json!({"session_id": "s1", "hook_event_name": "UserPromptSubmit",
                "prompt": "Please refactor the invoice export so it streams rows instead of loading them all"}),
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let note = env.remember(
        "I am working on the invoice export rewrite this sprint",
        &[],
    );
    let asked = env.recall("what did I ask for about the invoice export?", &[]);
    let first = &asked["results"][0];
    assert_eq!(first["kind"], "prompt", "{asked}");
    assert!(
        first["text"]
            .as_str()
            .unwrap()
            .starts_with("Please refactor"),
        "{asked}"
    );
    let working = env.recall("what am I working on?", &["--show-weak"]);
    for r in working["results"].as_array().unwrap() {
        if r["tier"] == "supported" {
            assert_ne!(
                r["kind"], "prompt",
                "a request answered a question: {working}"
            );
        }
    }
    assert_eq!(working["results"][0]["id"], note, "{working}");
}

#[test]
fn with_the_worker_running_a_capture_is_handed_over_and_saved_by_the_worker() {
    use crate::common::{StopWorker, start_worker, worker_env};
    let env = worker_env().with("SLM_EMBEDDER", "hash");
    start_worker(&env, &[]);
    let _stop = StopWorker(&env);
    // A capture an earlier hook left, which the worker saves along with the new one.
    let spool = left_in_spool(
        &env,
        "Deploys go out after the standup",
        "capture:abcdef0123456789abcdef01",
    );
    let out = capture(
        &env,
        &json!({"hook_event_name": "UserPromptSubmit", "session_id": "w1",
                "prompt": "Rotate the staging certificates on Friday"}),
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    // The hook does not wait for the save: the worker's spool thread does it.
    let wanted = [
        "Deploys go out after the standup",
        "Rotate the staging certificates on Friday",
    ];
    let spool_empty = || {
        std::fs::read_dir(&spool)
            .unwrap()
            .flatten()
            .next()
            .is_none()
    };
    let t = std::time::Instant::now();
    let mut texts = Vec::new();
    while t.elapsed() < std::time::Duration::from_secs(20) {
        texts = everything(&env)
            .iter()
            .map(|m| m["text"].as_str().unwrap().to_string())
            .collect();
        if wanted.iter().all(|w| texts.iter().any(|t| t == w)) && spool_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    for w in wanted {
        assert!(texts.iter().any(|t| t == w), "{w}: {texts:?}");
    }
    assert!(spool_empty(), "the worker emptied the spool");
    // Delivered again (a hook retried), it is saved again and stored once.
    capture(
        &env,
        &json!({"hook_event_name": "UserPromptSubmit", "session_id": "w1",
                "prompt": "Rotate the staging certificates on Friday"}),
    );
    let t = std::time::Instant::now();
    while !spool_empty() && t.elapsed() < std::time::Duration::from_secs(20) {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(spool_empty(), "the worker saved the second delivery");
    let n = everything(&env)
        .iter()
        .filter(|m| m["text"] == "Rotate the staging certificates on Friday")
        .count();
    assert_eq!(n, 1);
}
