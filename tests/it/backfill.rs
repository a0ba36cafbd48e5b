//! `slm import --from claude-code|codex` (issue 35): past sessions as memories — each
//! prompt typed as kind prompt, each text reply as a note, tool calls and output left out
//! and counted, session ids, times and projects kept; a second run adds nothing.
//! The transcripts are fixtures we wrote in each agent's on-disk format
//! (fixtures/history/).

use crate::common::{Env, code, fixture, stderr};
use serde_json::Value;

fn env() -> Env {
    Env::new().with("SLM_EMBEDDER", "hash")
}

fn everything(env: &Env) -> Vec<Value> {
    env.json(&["list", "--all-projects", "--limit", "1000"])["memories"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn claude_code_sessions_become_prompts_and_notes_once() {
    let env = env();
    let dir = fixture("history/claude-code/projects");
    let dir = dir.to_str().unwrap();
    let v = env.json(&["import", "--from", "claude-code", dir]);
    assert_eq!(v["imported"], 4, "{v}");
    assert_eq!(v["prompts"], 2, "{v}");
    assert_eq!(v["replies"], 2, "{v}");
    assert_eq!(v["sessions"], 2, "{v}");
    assert_eq!(v["bad_lines"], 1, "{v}");
    for (what, n) in [
        ("tool_result", 1),
        ("tool_use", 1),
        ("command", 2),
        ("sidechain", 1),
    ] {
        assert_eq!(v["skipped"][what], n, "{what}: {v}");
    }
    let all = everything(&env);
    let prompt = all
        .iter()
        .find(|m| {
            m["text"]
                .as_str()
                .unwrap()
                .starts_with("The integration tests fail")
        })
        .expect("the prompt");
    assert_eq!(prompt["kind"], "prompt");
    assert_eq!(prompt["session_id"], "7f3c2a10-0000-4000-8000-000000000001");
    assert_eq!(prompt["event_at"], 1_759_309_205_000i64, "{prompt}");
    assert!(
        prompt["project"].as_str().unwrap().starts_with("api-"),
        "the project comes from the session's folder: {prompt}"
    );
    let reply = all
        .iter()
        .find(|m| {
            m["text"]
                .as_str()
                .unwrap()
                .starts_with("Checkout now stores")
        })
        .expect("the reply");
    assert_eq!(reply["kind"], "note");
    assert!(reply["project"].as_str().unwrap().starts_with("webshop-"));
    assert!(
        reply["tags"]
            .as_array()
            .unwrap()
            .contains(&"claude-code".into())
    );
    // Nothing of the tool output was stored.
    assert!(
        !all.iter()
            .any(|m| m["text"].as_str().unwrap().contains("staging-db.internal"))
    );

    let again = env.json(&["import", "--from", "claude-code", dir]);
    assert_eq!(again["imported"], 0, "{again}");
    assert_eq!(again["already_present"], 4, "{again}");
    assert_eq!(everything(&env).len(), 4);
}

#[test]
fn codex_rollouts_of_both_formats_are_read() {
    let env = env();
    let dir = fixture("history/codex/sessions");
    let v = env.json(&["import", "--from", "codex", dir.to_str().unwrap()]);
    assert_eq!(v["imported"], 4, "{v}");
    assert_eq!(v["prompts"], 2, "{v}");
    assert_eq!(v["skipped"]["injected_context"], 1, "{v}");
    assert_eq!(v["skipped"]["function_call"], 2, "{v}");
    let texts: Vec<String> = everything(&env)
        .iter()
        .map(|m| m["text"].as_str().unwrap().to_string())
        .collect();
    assert!(
        texts.contains(&"Why does the nightly build fail?".to_string()),
        "{texts:?}"
    );
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("Renamed the crate to webshop")),
        "{texts:?}"
    );
}

#[test]
fn a_dry_run_writes_nothing_and_a_missing_folder_is_a_clear_error() {
    let env = env();
    let dir = fixture("history/claude-code/projects");
    let v = env.json(&[
        "import",
        "--from",
        "claude-code",
        "--dry-run",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(v["prompts"], 2, "{v}");
    assert_eq!(v["imported"], 0, "{v}");
    assert!(everything(&env).is_empty());

    let missing = env.home().join("no-such-folder");
    let out = env.run(&["import", "--from", "codex", missing.to_str().unwrap()]);
    assert_eq!(code(&out), 2, "bad input: {}", stderr(&out));
    assert!(stderr(&out).contains("no sessions at"), "{}", stderr(&out));
    // FILE is required without --from.
    assert_eq!(code(&env.run(&["import"])), 2);
}
