//! Issue 38's boundary fixes, against the real binary: hosted consent bound to the endpoint,
//! model and key variable it was given for; no redirect followed away from that endpoint; a
//! write held off by the writer lease says `WRITE_BUSY`; every MCP line that is not a request
//! object gets a JSON-RPC error; usage errors under `--json` are one JSON error object.
//!
//! The judges here are local servers on 127.0.0.1 that count what they are sent. The store
//! uses the deterministic stand-in embedder (`SLM_EMBEDDER=hash`).

use crate::common::{Env, code, stderr};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

const KEY_ENV: &str = "SLM_TEST_CONSENT_KEY";
const KEY: &str = "sk-consented-0123456789";
const OTHER_ENV: &str = "SLM_TEST_OTHER_KEY";
const OTHER_KEY: &str = "sk-never-consented-9876543210";
const MODEL: &str = "judge-m1";
const QUESTION: &str = "Which database did we choose for the analytics warehouse?";

/// What a fake endpoint answers.
#[derive(Clone)]
enum Reply {
    /// 200 with a verdict that the first memory answers.
    Verdict,
    /// This 3xx status with a `Location` header.
    Redirect(u16, String),
}

/// A fake OpenAI-compatible endpoint that records each request's `Authorization` header.
struct Endpoint {
    base: String,
    seen: Arc<Mutex<Vec<Option<String>>>>,
}

impl Endpoint {
    fn start(reply: Reply) -> Endpoint {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}/v1", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(conn) = conn else { continue };
                let (s, r) = (s.clone(), reply.clone());
                std::thread::spawn(move || answer(conn, &s, &r));
            }
        });
        Endpoint { base, seen }
    }

    fn count(&self) -> usize {
        self.seen.lock().unwrap().len()
    }

    fn authorizations(&self) -> Vec<Option<String>> {
        self.seen.lock().unwrap().clone()
    }
}

fn answer(conn: std::net::TcpStream, seen: &Mutex<Vec<Option<String>>>, reply: &Reply) {
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let (mut auth, mut len) = (None, 0usize);
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 {
            return;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            if k.eq_ignore_ascii_case("authorization") {
                auth = Some(v.trim().to_string());
            }
            if k.eq_ignore_ascii_case("content-length") {
                len = v.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0; len];
    let _ = reader.read_exact(&mut body);
    seen.lock().unwrap().push(auth);
    let mut conn = conn;
    let _ = match reply {
        Reply::Verdict => {
            let body = json!({"choices": [{"index": 0, "message": {"role": "assistant",
                "content": "{\"answers\": true, \"memory\": 1, \"answer\": \"Postgres\"}"}}]})
            .to_string();
            write!(
                conn,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
        }
        Reply::Redirect(status, location) => write!(
            conn,
            "HTTP/1.1 {status} Moved\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        ),
    };
    let _ = conn.flush();
}

/// A store where the question finds memories to judge, with both keys in the environment.
fn seeded() -> Env {
    let env = Env::new()
        .with("SLM_EMBEDDER", "hash")
        .with(KEY_ENV, KEY)
        .with(OTHER_ENV, OTHER_KEY);
    for t in [
        "We chose Postgres for the analytics warehouse",
        "The analytics warehouse is backed up every night to the second region",
        "Dana owns the dashboards that read from the analytics warehouse",
    ] {
        env.remember(t, &[]);
    }
    env
}

fn consent(env: &Env, endpoint: &Endpoint) {
    let out = env.run(&[
        "answer-check",
        "hosted",
        "--endpoint",
        &endpoint.base,
        "--model",
        MODEL,
        "--key-env",
        KEY_ENV,
        "--yes",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

fn settings(env: &Env) -> Value {
    serde_json::from_slice(&std::fs::read(env.path("settings.json")).unwrap()).unwrap()
}

/// Change `answer_check.hosted` fields by hand, as someone editing settings.json would.
fn edit_hosted(env: &Env, fields: &[(&str, &str)]) {
    let mut s = settings(env);
    for (k, v) in fields {
        s["answer_check"]["hosted"][*k] = json!(v);
    }
    std::fs::write(env.path("settings.json"), s.to_string()).unwrap();
}

fn reason(v: &Value) -> String {
    v["explain"]["answer_check"]["reason"]
        .as_str()
        .unwrap_or_else(|| panic!("no answer-check reason: {v}"))
        .to_string()
}

/// Issue 38, item 5: consent given for one endpoint and key variable, then settings.json
/// edited to another endpoint and another variable, sent the question, the memories and the
/// other variable's key to the new host, and `status` still showed the old consent.
#[test]
fn consent_is_void_when_the_endpoint_model_or_key_variable_changes() {
    let env = seeded();
    let consented = Endpoint::start(Reply::Verdict);
    let other = Endpoint::start(Reply::Verdict);
    consent(&env, &consented);
    let v = env.recall(QUESTION, &[]);
    assert_eq!(v["answer_check_status"], "judged", "{v}");
    assert_eq!(consented.count(), 1);
    let saved = settings(&env);

    // Each field on its own, then the probe's swap of endpoint and key variable together.
    let edits: Vec<Vec<(&str, &str)>> = vec![
        vec![("endpoint", other.base.as_str())],
        vec![("model", "another-model")],
        vec![("key_env", OTHER_ENV)],
        vec![("endpoint", other.base.as_str()), ("key_env", OTHER_ENV)],
    ];
    for edit in edits {
        std::fs::write(env.path("settings.json"), saved.to_string()).unwrap();
        edit_hosted(&env, &edit);
        let v = env.recall(QUESTION, &["--explain"]);
        assert_eq!(v["answer_check_status"], "unavailable", "{edit:?}: {v}");
        let why = reason(&v);
        assert!(
            why.contains("consent") && why.contains("slm answer-check hosted"),
            "{edit:?}: the reason names the consent and the command: {why}"
        );
        for (field, _) in &edit {
            let word = match *field {
                "key_env" => "key variable",
                f => f,
            };
            assert!(why.contains(word), "{edit:?}: names the {word}: {why}");
        }
        assert!(!v["results"].as_array().unwrap().is_empty(), "{v}");
        let status = env.json(&["answer-check", "status"]);
        assert_eq!(status["state"], "unavailable", "{edit:?}: {status}");
        assert_eq!(status["consent_valid"], false, "{edit:?}: {status}");
        let why = status["reason"].as_str().unwrap_or_default();
        assert!(
            why.contains("consent") && why.contains("slm answer-check hosted"),
            "{status}"
        );
        let human = env.run(&["answer-check", "status"]);
        let text = String::from_utf8_lossy(&human.stdout).to_string();
        assert!(
            text.contains("does not cover"),
            "status says the consent does not cover the settings: {text}"
        );
    }
    assert_eq!(other.count(), 0, "nothing was sent to the other host");
    assert_eq!(consented.count(), 1, "nor to the consented one");

    // A hand-edit of the consent's own record does not stretch it either.
    std::fs::write(env.path("settings.json"), saved.to_string()).unwrap();
    edit_hosted(&env, &[("endpoint", other.base.as_str())]);
    let mut s = settings(&env);
    if s["answer_check"]["hosted"]["consented_to"].is_object() {
        s["answer_check"]["hosted"]["consented_to"]["endpoint"] = json!(other.base);
    }
    std::fs::write(env.path("settings.json"), s.to_string()).unwrap();
    let v = env.recall(QUESTION, &[]);
    assert_eq!(v["answer_check_status"], "unavailable", "{v}");
    assert_eq!(other.count(), 0);

    // Consent given for the other endpoint and key variable covers them.
    let out = env.run(&[
        "answer-check",
        "hosted",
        "--endpoint",
        &other.base,
        "--model",
        MODEL,
        "--key-env",
        OTHER_ENV,
        "--yes",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v = env.recall(QUESTION, &[]);
    assert_eq!(v["answer_check_status"], "judged", "{v}");
    assert_eq!(
        other.authorizations(),
        vec![Some(format!("Bearer {OTHER_KEY}"))]
    );
    let status = env.json(&["answer-check", "status"]);
    assert_eq!(status["state"], "ready", "{status}");
    assert_eq!(status["consent_valid"], true, "{status}");

    // A consent recorded before consent said what it covered is void too.
    let mut s = settings(&env);
    let h = s["answer_check"]["hosted"].as_object_mut().unwrap();
    h.retain(|k, _| {
        [
            "endpoint",
            "model",
            "key_env",
            "consent_at",
            "consented_payload",
        ]
        .contains(&k.as_str())
    });
    std::fs::write(env.path("settings.json"), s.to_string()).unwrap();
    let v = env.recall(QUESTION, &["--explain"]);
    assert_eq!(v["answer_check_status"], "unavailable", "{v}");
    assert!(reason(&v).contains("slm answer-check hosted"), "{v}");
    assert_eq!(other.count(), 1);
}

/// Issue 38, item 8: a 302 from the consented endpoint to another host was followed and that
/// host's verdict accepted. A redirect is the endpoint refusing: unavailable, nothing else
/// contacted.
#[test]
fn a_redirect_from_the_endpoint_is_not_followed() {
    let env = seeded();
    let elsewhere = Endpoint::start(Reply::Verdict);
    for status in [302, 307] {
        let redirecting = Endpoint::start(Reply::Redirect(
            status,
            format!("{}/chat/completions", elsewhere.base),
        ));
        consent(&env, &redirecting);
        let v = env.recall(QUESTION, &["--explain"]);
        assert_eq!(v["answer_check_status"], "unavailable", "{status}: {v}");
        let why = reason(&v);
        assert!(
            why.contains(&format!("HTTP {status}")) && why.contains("redirect"),
            "{why}"
        );
        assert!(v["answer_confidence"].is_null(), "{v}");
        assert_eq!(redirecting.count(), 1);
        assert_eq!(elsewhere.count(), 0, "{status}: the redirect was followed");
    }
}

/// Issue 38, item 8: a write held off by the writer lease exited 75 with `RECALL_BUSY`.
#[test]
fn a_write_held_off_by_the_writer_lease_is_write_busy() {
    let env = Env::new().with("SLM_EMBEDDER", "hash");
    env.remember("The first memory", &[]);
    let lease = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(env.path("write.lock"))
        .unwrap();
    lease.try_lock().expect("the writer lease is free");
    let out = env.run(&["remember", "held off", "--json"]);
    assert_eq!(code(&out), 75, "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "WRITE_BUSY", "{v}");
    assert_eq!(v["error"]["retryable"], true, "{v}");
    assert!(
        v["error"]["hint"]
            .as_str()
            .is_some_and(|h| h.contains("again")),
        "a retry hint: {v}"
    );
    let human = env.run(&["remember", "held off"]);
    assert_eq!(code(&human), 75);
    assert!(stderr(&human).contains("hint:"), "{}", stderr(&human));
    drop(lease);
    let v = env.json(&["list"]);
    assert_eq!(v["memories"].as_array().map(Vec::len), Some(1), "{v}");
    env.remember("held off", &[]);
}

/// Issue 38, item 8: MCP lines that are JSON but not a request object (`42`, `"hello"`,
/// `null`) got no reply at all.
#[test]
fn mcp_answers_every_line_that_is_not_a_request_object() {
    let env = Env::new().with("SLM_WORKER", "off");
    let mut child = env.spawn_mcp();
    let lines = [
        "42",
        "\"hello\"",
        "null",
        "true",
        "[]",
        "{}",
        "{oops",
        r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#,
    ];
    let mut stdin = child.stdin.take().unwrap();
    for l in lines {
        writeln!(stdin, "{l}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let replies: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(replies.len(), lines.len(), "one reply a line: {replies:?}");
    for (line, r) in lines.iter().zip(&replies).take(6) {
        assert_eq!(r["jsonrpc"], "2.0", "{line}: {r}");
        assert_eq!(r["error"]["code"], -32600, "{line}: {r}");
        assert!(r.get("id").is_some_and(Value::is_null), "{line}: {r}");
    }
    assert_eq!(replies[6]["error"]["code"], -32700);
    assert_eq!(replies[7]["id"], 9, "still serving: {:?}", replies[7]);
    assert!(replies[7]["result"].is_object());
}

/// Issue 38, item 8: `slm list --limit 0 --json` printed nothing on stdout.
#[test]
fn usage_errors_under_json_are_one_json_error_object() {
    let env = Env::new();
    for args in [
        &["list", "--limit", "0", "--json"][..],
        &["--json", "list", "--limit", "0"],
        &["recall", "x", "--no-such-flag", "--json"],
        &["list", "--json", "surplus"],
    ] {
        let out = env.run(args);
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{args:?}: not one JSON object on stdout ({e}): {:?} {}",
                String::from_utf8_lossy(&out.stdout),
                stderr(&out)
            )
        });
        assert_eq!(v["schema_version"], 1, "{v}");
        assert_eq!(
            v["command"],
            args.iter().find(|a| !a.starts_with('-')).copied().unwrap(),
            "{v}"
        );
        assert_eq!(v["error"]["code"], "USAGE", "{v}");
        assert_eq!(v["error"]["retryable"], false, "{v}");
        let msg = v["error"]["message"].as_str().unwrap();
        assert!(!msg.is_empty() && !msg.contains('\n'), "{v}");
        assert!(!msg.starts_with("error:"), "{v}");
    }
    let v: Value =
        serde_json::from_slice(&env.run(&["list", "--limit", "0", "--json"]).stdout).unwrap();
    assert!(
        v["error"]["message"].as_str().unwrap().contains("--limit"),
        "{v}"
    );
    // Without --json (or with it only after `--`, as text): clap's own message on stderr.
    for args in [
        &["list", "--limit", "0"][..],
        &["remember", "--no-such-flag", "--", "--json"],
    ] {
        let out = env.run(args);
        assert_eq!(code(&out), 2);
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(stderr(&out).contains("error:"), "{}", stderr(&out));
    }
    // Help and version are as they were.
    let help = env.run(&["list", "--help", "--json"]);
    assert_eq!(code(&help), 0);
    assert!(String::from_utf8_lossy(&help.stdout).contains("Usage"));
    let version = env.run(&["--version", "--json"]);
    assert_eq!(code(&version), 0);
    assert!(String::from_utf8_lossy(&version.stdout).contains("slm"));
}
