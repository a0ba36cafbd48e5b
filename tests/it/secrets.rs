//! Secrets are never stored (issue 35): `remember`, `import` (JSON Lines and notes) and the
//! MCP `remember` tool all write `[redacted: KIND]` in place of a well-known secret shape,
//! say how many they redacted, and store the text as given only with `--allow-secrets`.

use crate::common::{Env, code, stderr, stored_texts};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};

const TOKEN: &str = "ghp_FAKEfake0123456789FAKEfake0123456789";
const PASSWORD: &str = "FAKEpass0123456789";

fn env() -> Env {
    Env::new().with("SLM_EMBEDDER", "hash")
}

fn text_of(env: &Env, id: i64) -> String {
    let v = env.json(&["show", &id.to_string()]);
    v["memory"]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {v}"))
        .to_string()
}

#[test]
fn remember_stores_the_redacted_text_and_says_how_many() {
    let env = env();
    let text = format!("CI deploys with GITHUB_TOKEN={TOKEN}");
    let out = env.run(&["remember", &text]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        said.trim(),
        "remembered 1 (1 secret redacted: github token)",
        "{said}"
    );
    assert_eq!(
        text_of(&env, 1),
        "CI deploys with GITHUB_TOKEN=[redacted: github token]"
    );
    // --json: the count and the kinds.
    let v = env.json(&[
        "remember",
        &format!("prod db postgres://app:{PASSWORD}@db.internal/main, api_key=FAKE0123456789key"),
    ]);
    assert_eq!(v["redacted"], 2, "{v}");
    assert_eq!(
        v["redacted_kinds"],
        serde_json::json!(["connection password", "api key"]),
        "{v}"
    );
    let stored = text_of(&env, v["id"].as_i64().unwrap());
    assert_eq!(
        stored,
        "prod db postgres://app:[redacted: connection password]@db.internal/main, api_key=[redacted: api key]"
    );
    // Nothing of either secret is findable afterwards.
    assert!(
        !stored_texts(&env)
            .iter()
            .any(|t| t.contains(TOKEN) || t.contains(PASSWORD))
    );
    // An ordinary note is stored as given and says nothing about secrets.
    let v = env.json(&[
        "remember",
        "the token bucket rate limiter allows 50 requests",
    ]);
    assert_eq!(v["redacted"], 0, "{v}");
}

#[test]
fn allow_secrets_stores_the_text_as_given() {
    let env = env();
    let text = format!("CI deploys with GITHUB_TOKEN={TOKEN}");
    let v = env.json(&["remember", &text, "--allow-secrets"]);
    assert_eq!(v["redacted"], 0, "{v}");
    assert_eq!(text_of(&env, v["id"].as_i64().unwrap()), text);
}

#[test]
fn a_json_lines_import_redacts_every_line() {
    let env = env();
    let file = env.dir.path().join("in.jsonl");
    let lines = [
        serde_json::json!({ "text": format!("the bot token is xoxb-1234567890-FAKEfake0123456789") }),
        serde_json::json!({ "text": format!("deploy key {TOKEN} and password={PASSWORD}") }),
        serde_json::json!({ "text": "nothing secret here, commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f" }),
    ];
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&file, &body).unwrap();
    let f = file.to_str().unwrap();
    let v = env.json(&["import", f]);
    assert_eq!(v["imported"], 3, "{v}");
    assert_eq!(v["redacted"], 3, "{v}");
    assert_eq!(
        v["redacted_kinds"],
        serde_json::json!(["slack token", "github token", "password"]),
        "{v}"
    );
    let texts = stored_texts(&env);
    assert!(
        texts.contains(
            &"deploy key [redacted: github token] and password=[redacted: password]".to_string()
        ),
        "{texts:?}"
    );
    assert!(
        texts.contains(
            &"nothing secret here, commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f".to_string()
        ),
        "{texts:?}"
    );
    assert!(
        !texts
            .iter()
            .any(|t| t.contains(TOKEN) || t.contains(PASSWORD))
    );
    // The human report says it too.
    let other = env_with_lines(&body);
    let out = other.0.run(&["import", other.1.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("3 secrets redacted: slack token, github token, password"),
        "{said}"
    );
    // --allow-secrets imports as given.
    let given = env_with_lines(&body);
    let v = given
        .0
        .json(&["import", given.1.to_str().unwrap(), "--allow-secrets"]);
    assert_eq!(v["redacted"], 0, "{v}");
    let texts = stored_texts(&given.0);
    assert!(
        texts.contains(&format!("deploy key {TOKEN} and password={PASSWORD}")),
        "{texts:?}"
    );
}

fn env_with_lines(body: &str) -> (Env, std::path::PathBuf) {
    let env = env();
    let file = env.dir.path().join("in.jsonl");
    std::fs::write(&file, body).unwrap();
    (env, file)
}

#[test]
fn a_notes_import_redacts_and_its_dry_run_does_not_print_the_secret() {
    let env = env();
    let dir = env.dir.path().join("notes");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("ops.md"),
        format!(
            "# Ops\n\nThe staging database is postgres://ops:{PASSWORD}@staging.internal/app for now.\n\nThe release train leaves every Tuesday at noon.\n"
        ),
    )
    .unwrap();
    let d = dir.to_str().unwrap();
    let out = env.run(&["import", d, "--dry-run"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(!said.contains(PASSWORD), "{said}");
    assert!(
        said.contains("1 secret redacted: connection password"),
        "{said}"
    );
    let v = env.json(&["import", d]);
    assert_eq!(v["redacted"], 1, "{v}");
    let texts = stored_texts(&env);
    assert!(
        texts
            .iter()
            .any(|t| t
                .contains("postgres://ops:[redacted: connection password]@staging.internal/app")),
        "{texts:?}"
    );
    assert!(!texts.iter().any(|t| t.contains(PASSWORD)), "{texts:?}");
}

/// A raw MCP stdio session: the agent's `remember` goes through the same redaction.
#[test]
fn the_mcp_remember_tool_redacts() {
    let env = env().with("SLM_WORKER", "off");
    let mut child = env.spawn_mcp();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut ask = |msg: Value| -> Value {
        stdin.write_all(msg.to_string().as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
        let mut l = String::new();
        stdout.read_line(&mut l).unwrap();
        serde_json::from_str(&l).unwrap_or_else(|e| panic!("{e}: {l:?}"))
    };
    let v = ask(
        serde_json::json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}),
    );
    assert!(v["result"].is_object(), "{v}");
    let content = format!(
        "The OpenAI key for the eval runner is sk-proj-FAKE_fake-0123456789abcdefFAKEfake0123456789 (rotate monthly)"
    );
    let v = ask(
        serde_json::json!({"jsonrpc":"2.0","id":2,"method":"tools/call",
        "params":{"name":"remember","arguments":{"content": content}}}),
    );
    let r = &v["result"]["structuredContent"];
    assert_eq!(v["result"]["isError"], false, "{v}");
    assert_eq!(r["redacted"], 1, "{v}");
    assert_eq!(
        r["redacted_kinds"],
        serde_json::json!(["openai key"]),
        "{v}"
    );
    let id = r["id"].as_i64().unwrap();
    drop(stdin);
    assert!(child.wait().unwrap().success());
    assert_eq!(
        text_of(&env, id),
        "The OpenAI key for the eval runner is [redacted: openai key] (rotate monthly)"
    );
}
