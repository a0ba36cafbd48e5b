//! Agents' interfaces with real clients: the Python MCP SDK drives `slm mcp` (a client we
//! did not write), a raw stdio exchange checks protocol errors, and curl drives
//! `slm serve --http` (token, busy, parameters).

use crate::common::{Env, StopWorker, code, start_worker, stderr, worker_env};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::process::Child;
use std::time::{Duration, Instant};

/// The Python with the `mcp` SDK that scripts/test.sh installs.
fn python() -> String {
    if let Ok(p) = std::env::var("SLM_TEST_PYTHON") {
        return p;
    }
    let cache = std::env::var("SLM_CACHE_DIR")
        .unwrap_or_else(|_| format!("{}/.cache/slm", std::env::var("HOME").unwrap_or_default()));
    let p = format!("{cache}/test-venv/bin/python");
    assert!(
        std::path::Path::new(&p).exists(),
        "{p} is missing: run scripts/test.sh (it installs the MCP client SDK into that venv)"
    );
    p
}

/// One question slot, a short slot wait, and every full recall ~2.5 s: a question from
/// another process holds the only slot long enough for the busy checks.
fn slow_worker(env: &Env) {
    start_worker(env, &[("SLM_TEST_CHANNEL_DELAY", "semantic:2500")]);
}

fn slow_worker_env() -> Env {
    worker_env()
        .with("SLM_RECALL_SLOTS", "1")
        .with("SLM_RECALL_SLOT_WAIT_MS", "300")
}

#[test]
fn the_python_mcp_sdk_drives_slm_mcp() {
    // This test is about the MCP plumbing (the agent view hides related answers). Its related
    // example ("What did the billing team decide about invoices?" against "The billing team
    // moved to the fourth floor") is a topic shared, not an answer; EmbeddingGemma's support
    // check takes it for supported (score 0.625 ≥ 0.50), MiniLM's does not. That miss is
    // counted in `slm eval notes` (unanswerable-topic) and tracked in issue 13; here the
    // model is pinned so the plumbing is what is tested.
    let env = slow_worker_env().with("SLM_MODEL_ID", "all-minilm-l6-v2-int8");
    let _stop = StopWorker(&env);
    slow_worker(&env);
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp_client.py");
    let mut c = std::process::Command::new(python());
    c.arg(script).env("SLM_BIN", env!("CARGO_BIN_EXE_slm"));
    for (k, v) in env.cmd(&[]).get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    let out = c.output().expect("python runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the MCP client failed:\n{text}\n{}",
        stderr(&out)
    );
    assert!(text.contains("all MCP checks passed"), "{text}");
}

/// A raw stdio session: malformed JSON, unknown method and an oversized message get proper
/// errors and the server keeps answering.
#[test]
fn mcp_protocol_errors_keep_the_server_running() {
    let env = Env::new().with("SLM_WORKER", "off");
    let mut child = env.spawn_mcp();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut ask = |line: &[u8]| -> Value {
        stdin.write_all(line).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
        let mut l = String::new();
        stdout.read_line(&mut l).unwrap();
        serde_json::from_str(&l).unwrap_or_else(|e| panic!("{e}: {l:?}"))
    };
    let v = ask(br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#);
    assert_eq!(v["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(ask(b"{oops")["error"]["code"], -32700);
    assert_eq!(
        ask(br#"{"jsonrpc":"2.0","id":2,"method":"no/such"}"#)["error"]["code"],
        -32601
    );
    let mut big = br#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":""#.to_vec();
    big.extend(std::iter::repeat_n(b'a', 5 << 20));
    big.extend_from_slice(br#""}}"#);
    assert_eq!(ask(&big)["error"]["code"], -32600);
    let v = ask(br#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#);
    assert_eq!(v["id"], 4, "still running: {v}");
    let v = ask(br#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#);
    assert_eq!(v["result"]["tools"].as_array().unwrap().len(), 7);
    drop(stdin);
    let st = child.wait().unwrap();
    assert!(st.success(), "ends cleanly when the client closes stdin");
}

struct Server(Child);
impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn curl(args: &[&str]) -> (u16, Value, String) {
    let out = std::process::Command::new("curl")
        .args(["-s", "-D", "-", "--max-time", "30"])
        .args(args)
        .output()
        .expect("curl runs");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (
        status,
        serde_json::from_str(body).unwrap_or(Value::Null),
        head.to_string(),
    )
}

#[test]
fn http_recall_needs_the_token_validates_parameters_and_says_busy() {
    let env = slow_worker_env();
    let _stop = StopWorker(&env);
    slow_worker(&env);
    env.remember("We chose Postgres for the analytics warehouse", &[]);
    let port = free_port();
    let addr = format!("127.0.0.1:{port}");
    let _server = Server(env.spawn(&["serve", "--http", &addr]));
    let token = String::from_utf8(env.run(&["serve", "--http", &addr, "--print-token"]).stdout)
        .unwrap()
        .trim()
        .to_string();
    assert_eq!(token.len(), 64);
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(env.path("http.token"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "the token file is private");
    let base = format!("http://{addr}");
    let t = Instant::now();
    while curl(&[&format!("{base}/health")]).0 == 0 && t.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(100));
    }
    let auth = format!("Authorization: Bearer {token}");
    // No token, a wrong token: 401.
    assert_eq!(curl(&[&format!("{base}/recall?q=which+database")]).0, 401);
    assert_eq!(
        curl(&[
            "-H",
            "X-SLM-Token: nope",
            &format!("{base}/recall?q=which+database")
        ])
        .0,
        401
    );
    // Parameters are validated.
    let (s, v, _) = curl(&["-H", &auth, &format!("{base}/recall?q=x&depth=7")]);
    assert_eq!(s, 400, "{v}");
    assert!(
        v["error"]["message"].as_str().unwrap().contains("depth"),
        "{v}"
    );
    assert_eq!(
        curl(&["-H", &auth, &format!("{base}/recall?depth=1")]).0,
        400
    );
    assert_eq!(
        curl(&["-H", &auth, &format!("{base}/recall?q=x&nope=1")]).0,
        400
    );
    // A question.
    let (s, v, _) = curl(&[
        "-H",
        &auth,
        &format!("{base}/recall?q=Which%20database%20did%20we%20choose%20for%20analytics%3F"),
    ]);
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["tier"], "supported", "{v}");
    // Busy: the only slot is held by a slow question from another process.
    let slow = env.spawn(&["recall", "When do the nightly backups run?"]);
    std::thread::sleep(Duration::from_millis(800));
    let (s, v, head) = curl(&[
        "-H",
        &auth,
        &format!("{base}/recall?q=who+rotates+the+keys"),
    ]);
    let _ = slow.wait_with_output();
    assert_eq!(s, 503, "{v}");
    assert_eq!(v["error"]["code"], "RECALL_BUSY");
    assert_eq!(v["error"]["retryable"], true);
    assert!(head.to_ascii_lowercase().contains("retry-after:"), "{head}");
}

#[test]
fn http_refuses_a_non_loopback_address() {
    let env = Env::new();
    let out = env.run(&["serve", "--http", "0.0.0.0:7399"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("--allow-remote"), "{}", stderr(&out));
}
