//! The answer check's plumbing and the hosted judge's consent (issue "The answer check"),
//! against the real binary and a local server that answers like an OpenAI-compatible
//! endpoint and counts what it was sent. These use the deterministic stand-in embedder
//! (`SLM_EMBEDDER=hash`) and judge nothing about recall quality.

use crate::common;
use crate::common::{Env, code, stderr};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The API key the tests hand the judge through the environment. It must never show up in
/// any output or file.
const KEY: &str = "sk-test-0123456789-secret-key";
const KEY_ENV: &str = "SLM_TEST_JUDGE_KEY";
const MODEL: &str = "judge-test-model";
const QUESTION: &str = "Which database did we choose for the analytics warehouse?";
const ANSWER_TEXT: &str = "We chose Postgres for the analytics warehouse";

#[derive(Clone)]
enum Behaviour {
    /// Answer 200 with this message content.
    Content(String),
    /// Answer with this HTTP status and an error body.
    Status(u16),
    /// Sleep this long, then answer like `Content`.
    Sleep(Duration, String),
}

struct Captured {
    request_line: String,
    headers: Vec<(String, String)>,
    body: Value,
}

impl Captured {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// An OpenAI-compatible chat-completions server on 127.0.0.1 that records every request.
struct Judge {
    base: String,
    seen: Arc<Mutex<Vec<Captured>>>,
    behaviour: Arc<Mutex<Behaviour>>,
}

fn verdict_content(memory: u32) -> String {
    format!(
        "Here is my verdict:\n```json\n{{\"answers\": true, \"memory\": {memory}, \"answer\": \"Postgres\"}}\n```"
    )
}

impl Judge {
    fn start() -> Judge {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}/v1", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let behaviour = Arc::new(Mutex::new(Behaviour::Content(verdict_content(1))));
        let (s, b) = (seen.clone(), behaviour.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(conn) = conn else { continue };
                let (s, b) = (s.clone(), b.clone());
                std::thread::spawn(move || serve_one(conn, &s, &b));
            }
        });
        Judge {
            base,
            seen,
            behaviour,
        }
    }

    fn count(&self) -> usize {
        self.seen.lock().unwrap().len()
    }

    fn set(&self, b: Behaviour) {
        *self.behaviour.lock().unwrap() = b;
    }
}

fn serve_one(conn: std::net::TcpStream, seen: &Mutex<Vec<Captured>>, behaviour: &Mutex<Behaviour>) {
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
        return;
    }
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let line = line.trim_end().to_string();
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    let len: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    reader.read_exact(&mut body).unwrap();
    seen.lock().unwrap().push(Captured {
        request_line: request_line.trim_end().to_string(),
        headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    });
    let b = behaviour.lock().unwrap().clone();
    let (status, content) = match b {
        Behaviour::Content(c) => (200, c),
        Behaviour::Status(s) => (s, String::new()),
        Behaviour::Sleep(d, c) => {
            std::thread::sleep(d);
            (200, c)
        }
    };
    let body = if status == 200 {
        json!({
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "model": MODEL,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
        })
    } else {
        // Like real error pages, this one echoes what it was sent; none of it may come back.
        json!({"error": {"message": format!("Incorrect API key provided: {KEY}")}})
    }
    .to_string();
    let mut conn = conn;
    let _ = write!(
        conn,
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = conn.flush();
}

fn env() -> Env {
    Env::new().with("SLM_EMBEDDER", "hash").with(KEY_ENV, KEY)
}

/// A small store where four memories pass the evidence floor for [`QUESTION`], the Postgres
/// note first; the fourth ([`FOURTH`]) must never be sent.
fn seeded() -> (Env, i64) {
    let env = env();
    let id = env.remember(ANSWER_TEXT, &[]);
    env.remember("Deploys go out on Tuesdays after the standup", &[]);
    env.remember(
        "The analytics warehouse is backed up every night to the second region",
        &[],
    );
    env.remember(
        "Dana owns the dashboards that read from the analytics warehouse",
        &[],
    );
    env.remember(FOURTH, &[]);
    env.remember("Lunch on Fridays is at the Thai place", &[]);
    (env, id)
}

const FOURTH: &str = "Costs of the analytics warehouse are reviewed by finance every quarter";

fn settings(env: &Env) -> Value {
    serde_json::from_slice(&std::fs::read(env.path("settings.json")).unwrap_or_default())
        .unwrap_or(json!({}))
}

fn write_settings(env: &Env, v: &Value) {
    std::fs::write(env.path("settings.json"), v.to_string()).unwrap();
}

/// Set `answer_check` by hand, as someone editing settings.json would.
fn set_answer_check(env: &Env, ac: Value) {
    let mut s = settings(env);
    s["answer_check"] = ac;
    write_settings(env, &s);
}

fn consent(env: &Env, judge: &Judge) -> std::process::Output {
    env.run(&[
        "answer-check",
        "hosted",
        "--endpoint",
        &judge.base,
        "--model",
        MODEL,
        "--key-env",
        KEY_ENV,
        "--yes",
    ])
}

/// What must not change when the check is skipped or unavailable: the tier, and each
/// result's id, order, tier and scores.
fn ranking(v: &Value) -> Vec<Value> {
    let mut out = vec![v["tier"].clone()];
    for r in v["results"].as_array().expect("results") {
        out.push(json!([
            r["id"],
            r["rank_position"],
            r["tier"],
            r["relevance_score"],
            r["ranking_score"],
            r["support_score"],
        ]));
    }
    out
}

/// The same recall with the check off, for comparison (then the settings are put back).
fn ranking_with_check_off(env: &Env) -> Vec<Value> {
    let saved = settings(env);
    set_answer_check(env, json!({"mode": "off"}));
    let v = env.recall(QUESTION, &[]);
    assert_eq!(v["answer_check_status"], "off", "{v}");
    write_settings(env, &saved);
    ranking(&v)
}

#[test]
fn without_consent_nothing_is_sent() {
    let (env, _) = seeded();
    let judge = Judge::start();
    // Hosted set by hand with everything but consent: unavailable, and it says why.
    set_answer_check(
        &env,
        json!({"mode": "hosted", "hosted": {"endpoint": judge.base, "model": MODEL, "key_env": KEY_ENV}}),
    );
    let v = env.recall(QUESTION, &["--explain"]);
    assert_eq!(v["answer_check_status"], "unavailable", "{v}");
    assert!(v["answer_confidence"].is_null(), "{v}");
    assert!(v.get("answer_check").is_none(), "{v}");
    let why = v["explain"]["answer_check"]["reason"].as_str().unwrap();
    assert!(why.contains("consent"), "{why}");
    assert!(!v["results"].as_array().unwrap().is_empty(), "{v}");
    assert_eq!(judge.count(), 0);
    // auto with everything configured, consent included: auto never resolves to hosted.
    set_answer_check(
        &env,
        json!({"mode": "auto", "hosted": {"endpoint": judge.base, "model": MODEL,
               "key_env": KEY_ENV, "consent_at": "2023-05-10T12:00:00Z"}}),
    );
    let v = env.recall(QUESTION, &[]);
    assert_eq!(v["answer_check_status"], "off", "{v}");
    assert!(v["answer_confidence"].is_null(), "{v}");
    // local with no local judge installed: unavailable, nothing sent either.
    set_answer_check(&env, json!({"mode": "local"}));
    let v = env.recall(QUESTION, &["--explain"]);
    assert_eq!(v["answer_check_status"], "unavailable", "{v}");
    assert_eq!(
        v["explain"]["answer_check"]["reason"],
        "no local judge is installed"
    );
    assert_eq!(judge.count(), 0, "no request without consent");
}

#[test]
fn consent_needs_a_terminal_or_yes() {
    let (env, _) = seeded();
    let judge = Judge::start();
    let out = env.run(&[
        "answer-check",
        "hosted",
        "--endpoint",
        &judge.base,
        "--model",
        MODEL,
        "--key-env",
        KEY_ENV,
    ]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("--yes"), "{}", stderr(&out));
    // What would leave the machine was still shown, and nothing was recorded.
    assert!(String::from_utf8_lossy(&out.stdout).contains("top 3 memories"));
    assert!(settings(&env)["answer_check"]["hosted"]["consent_at"].is_null());
    env.recall(QUESTION, &[]);
    assert_eq!(judge.count(), 0);
    // A key pasted where the variable's name goes is refused and never stored.
    let out = env.run(&[
        "answer-check",
        "hosted",
        "--endpoint",
        &judge.base,
        "--model",
        MODEL,
        "--key-env",
        KEY,
        "--yes",
    ]);
    assert_eq!(code(&out), 2);
    assert!(!stderr(&out).contains(KEY));
    assert!(
        !std::fs::read_to_string(env.path("settings.json"))
            .unwrap_or_default()
            .contains(KEY)
    );
}

#[test]
fn with_consent_the_judge_sees_the_question_and_the_top_three_only() {
    let (env, answer_id) = seeded();
    let judge = Judge::start();
    let off = ranking_with_check_off(&env);
    let out = consent(&env, &judge);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let shown = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        shown.contains(&format!("{}/chat/completions", judge.base)),
        "{shown}"
    );
    assert!(shown.contains(MODEL), "{shown}");
    assert!(
        shown.contains("the question and the text of the top 3 memories of each recall"),
        "{shown}"
    );
    assert!(shown.contains(&format!("${KEY_ENV}")), "{shown}");
    let s = settings(&env);
    assert_eq!(s["answer_check"]["mode"], "hosted");
    assert_eq!(s["answer_check"]["hosted"]["consent_at"], common::NOW);
    assert_eq!(s["answer_check"]["hosted"]["key_env"], KEY_ENV);
    assert_eq!(judge.count(), 0, "consenting sends nothing");

    let v = env.recall(QUESTION, &["--explain"]);
    assert_eq!(v["answer_check_status"], "judged", "{v}");
    assert_eq!(judge.count(), 1);
    let input: Vec<i64> = v["explain"]["answer_check"]["input"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect();
    assert_eq!(input[0], answer_id, "the Postgres note ranks first");
    let check = &v["answer_check"];
    assert_eq!(check["answers"], true, "{v}");
    assert_eq!(check["memory_id"], answer_id, "{v}");
    assert_eq!(check["answer"], "Postgres");
    assert_eq!(check["judge"], format!("hosted:{MODEL}"));
    assert!(check["time_ms"].as_f64().unwrap() >= 0.0);
    assert_eq!(v["answer_confidence"], 1.0);
    assert_eq!(v["calibration_status"], "uncalibrated");
    // The verdict is one input to the support check: the answering memory's support score
    // rises by W_JUDGE·(2·1 − 1) − JUDGE_CENTRE = 0.10; results, order, ranking scores and tier
    // are those of the recall with the check off.
    let without_support = |r: &[Value]| -> Vec<Value> {
        r.iter()
            .map(|x| match x.as_array() {
                Some(a) => Value::Array(a[..5].to_vec()),
                None => x.clone(),
            })
            .collect()
    };
    let judged = ranking(&v);
    assert_eq!(
        without_support(&judged),
        without_support(&off),
        "the verdict changes no result, order or ranking score"
    );
    let support = |r: &[Value]| r[1][5].as_f64().unwrap();
    assert!(
        (support(&judged) - support(&off) - 0.10).abs() < 1e-9,
        "the judge's yes adds 0.10 to the answering memory's support score: {judged:?} vs {off:?}"
    );

    // The request: POST {endpoint}/chat/completions, the key from the variable, the model,
    // the question and the texts of exactly the memories shown.
    let seen = judge.seen.lock().unwrap();
    let req = &seen[0];
    assert_eq!(req.request_line, "POST /v1/chat/completions HTTP/1.1");
    assert_eq!(
        req.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(req.body["model"], MODEL);
    assert_eq!(req.body["temperature"], 0);
    assert!(req.body["max_tokens"].as_u64().unwrap() <= 200);
    let messages = req.body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[0]["role"], "system");
    let user = messages[1]["content"].as_str().unwrap();
    assert!(user.contains(QUESTION), "{user}");
    assert!(user.contains(ANSWER_TEXT), "{user}");
    assert_eq!(
        input.len(),
        3,
        "four memories passed the floor; three are shown"
    );
    assert_eq!(user.matches("\n[").count(), 3, "{user}");
    assert!(user.contains("Dana owns the dashboards"), "{user}");
    assert!(!user.contains(FOURTH), "only the top three: {user}");
    assert!(!user.contains("Lunch on Fridays"), "{user}");
    drop(seen);

    // The key is nowhere: not in any output, human or JSON, with --explain, nor on disk.
    let human = env.run(&["recall", QUESTION, "--explain"]);
    let human_out = String::from_utf8_lossy(&human.stdout).to_string();
    assert!(human_out.contains("answer check"), "{human_out}");
    let status = env.run(&["answer-check", "status"]);
    let status_json = env.run(&["answer-check", "status", "--json"]);
    let mut outputs = vec![
        v.to_string(),
        human_out,
        stderr(&human),
        String::from_utf8_lossy(&status.stdout).to_string(),
        String::from_utf8_lossy(&status_json.stdout).to_string(),
        stderr(&out),
        shown,
    ];
    // A 401 whose body echoes the key: the reason carries the code, never the body.
    judge.set(Behaviour::Status(401));
    let refused = env.run(&["recall", QUESTION, "--explain", "--json"]);
    outputs.push(String::from_utf8_lossy(&refused.stdout).to_string());
    outputs.push(stderr(&refused));
    for o in &outputs {
        assert!(!o.contains(KEY), "the key leaked: {o}");
    }
    let status: Value = serde_json::from_slice(&status_json.stdout).unwrap();
    assert_eq!(status["state"], "ready", "{status}");
    assert_eq!(status["judge"], format!("hosted:{MODEL}"));
    for f in walk(&env.home()) {
        let bytes = std::fs::read(&f).unwrap_or_default();
        assert!(
            !bytes.windows(KEY.len()).any(|w| w == KEY.as_bytes()),
            "the key is in {}",
            f.display()
        );
    }
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn a_slow_or_failing_judge_costs_only_the_verdict() {
    let (env, _) = seeded();
    let judge = Judge::start();
    let off = ranking_with_check_off(&env);
    assert_eq!(code(&consent(&env, &judge)), 0);
    // A short budget, and a server that sleeps well past it: skipped.
    let mut s = settings(&env);
    s["answer_check"]["budget_ms"] = json!(300);
    write_settings(&env, &s);
    judge.set(Behaviour::Sleep(Duration::from_secs(3), verdict_content(1)));
    let t = std::time::Instant::now();
    let v = env.recall(QUESTION, &["--explain"]);
    assert_eq!(v["answer_check_status"], "skipped", "{v}");
    assert!(
        t.elapsed() < Duration::from_millis(2900),
        "the recall did not wait for the judge"
    );
    assert!(v["answer_confidence"].is_null());
    assert!(v.get("answer_check").is_none());
    assert_eq!(ranking(&v), off);
    assert_eq!(judge.count(), 1);
    // 500 and 401: unavailable, with the status code as the reason.
    for status in [500, 401] {
        judge.set(Behaviour::Status(status));
        let v = env.recall(QUESTION, &["--explain"]);
        assert_eq!(v["answer_check_status"], "unavailable", "{v}");
        let why = v["explain"]["answer_check"]["reason"].as_str().unwrap();
        assert!(why.contains(&format!("HTTP {status}")), "{why}");
        assert!(v["answer_confidence"].is_null());
        assert_eq!(ranking(&v), off, "HTTP {status}");
    }
    // A reply that is not the verdict asked for: unavailable.
    judge.set(Behaviour::Content("I would say yes, probably.".into()));
    let v = env.recall(QUESTION, &[]);
    assert_eq!(v["answer_check_status"], "unavailable", "{v}");
    assert_eq!(ranking(&v), off);
    // Nobody listening: unavailable.
    let mut s = settings(&env);
    let dead = TcpListener::bind("127.0.0.1:0").unwrap();
    s["answer_check"]["hosted"]["endpoint"] =
        json!(format!("http://{}/v1", dead.local_addr().unwrap()));
    drop(dead);
    write_settings(&env, &s);
    let v = env.recall(QUESTION, &[]);
    assert_eq!(v["answer_check_status"], "unavailable", "{v}");
    assert_eq!(ranking(&v), off);
    // The key's variable unset: unavailable, and nothing sent.
    assert_eq!(code(&consent(&env, &judge)), 0);
    let before = judge.count();
    let out = env
        .cmd(&["recall", QUESTION, "--json", "--explain"])
        .env_remove(KEY_ENV)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["answer_check_status"], "unavailable", "{v}");
    assert!(
        v["explain"]["answer_check"]["reason"]
            .as_str()
            .unwrap()
            .contains(KEY_ENV)
    );
    assert_eq!(judge.count(), before);
}

#[test]
fn off_revokes_consent_and_nothing_more_is_sent() {
    let (env, _) = seeded();
    let judge = Judge::start();
    assert_eq!(code(&consent(&env, &judge)), 0);
    assert_eq!(env.recall(QUESTION, &[])["answer_check_status"], "judged");
    assert_eq!(judge.count(), 1);
    let out = env.json(&["answer-check", "off"]);
    assert_eq!(out["consent_revoked"], true, "{out}");
    let s = settings(&env);
    assert_eq!(s["answer_check"]["mode"], "off");
    assert!(s["answer_check"]["hosted"]["consent_at"].is_null(), "{s}");
    let v = env.recall(QUESTION, &[]);
    assert_eq!(v["answer_check_status"], "off", "{v}");
    // Setting the mode back to hosted by hand does not bring the consent back.
    let mut s = settings(&env);
    s["answer_check"]["mode"] = json!("hosted");
    write_settings(&env, &s);
    let v = env.recall(QUESTION, &[]);
    assert_eq!(v["answer_check_status"], "unavailable", "{v}");
    assert_eq!(
        judge.count(),
        1,
        "nothing was sent after `answer-check off`"
    );
}

#[test]
fn session_context_and_forget_are_never_judged() {
    let (env, _) = seeded();
    let judge = Judge::start();
    assert_eq!(code(&consent(&env, &judge)), 0);
    let v = env.json(&["session-context"]);
    assert!(
        v["text"].as_str().unwrap().contains("Postgres"),
        "the block has the memories: {v}"
    );
    let out = env.run(&["session-context", "--mode", "compact"]);
    assert_eq!(code(&out), 0);
    let v = env.json(&["forget", QUESTION, "--dry-run"]);
    assert!(!v["would_forget"].as_array().unwrap().is_empty(), "{v}");
    assert_eq!(judge.count(), 0);
}

#[test]
fn an_unknown_mode_is_a_usage_error() {
    let (env, _) = seeded();
    set_answer_check(&env, json!({"mode": "sometimes"}));
    let out = env.run(&["recall", QUESTION]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("sometimes") && err.contains("auto, local, hosted, off"),
        "{err}"
    );
    assert_eq!(code(&env.run(&["answer-check", "status"])), 2);
}

#[test]
fn mcp_carries_the_same_fields() {
    let (env, answer_id) = seeded();
    let judge = Judge::start();
    assert_eq!(code(&consent(&env, &judge)), 0);
    let mut child = env.spawn_mcp();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut ask = |line: &str| -> Value {
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
        let mut l = String::new();
        stdout.read_line(&mut l).unwrap();
        serde_json::from_str(&l).unwrap_or_else(|e| panic!("{e}: {l:?}"))
    };
    ask(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
    );
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "search", "arguments": {"query": QUESTION}}});
    let v = ask(&call.to_string());
    let r = &v["result"]["structuredContent"];
    assert_eq!(r["answer_check_status"], "judged", "{v}");
    assert_eq!(r["answer_check"]["memory_id"], answer_id, "{v}");
    assert_eq!(r["answer_confidence"], 1.0, "{v}");
    let init = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "session_init", "arguments": {}}});
    let v = ask(&init.to_string());
    assert!(v["result"].is_object(), "{v}");
    drop(stdin);
    assert!(child.wait().unwrap().success());
    assert_eq!(
        judge.count(),
        1,
        "the search was judged; session_init was not"
    );
}

/// The worker runs the same judge, reads the settings afresh at each recall (consent given
/// or revoked while it runs takes effect at once) and never reuses an answer across that.
#[test]
fn the_worker_judges_and_stops_sending_when_revoked() {
    let env = common::worker_env()
        .with("SLM_EMBEDDER", "hash")
        .with(KEY_ENV, KEY);
    let _stop = common::StopWorker(&env);
    env.remember(ANSWER_TEXT, &[]);
    let judge = Judge::start();
    common::start_worker(&env, &[]);
    let v = env.recall(QUESTION, &[]);
    assert_eq!(v["served_by"], "worker", "{v}");
    assert_eq!(v["answer_check_status"], "off", "{v}");
    assert_eq!(code(&consent(&env, &judge)), 0);
    let v = env.recall(QUESTION, &[]);
    assert_eq!(v["served_by"], "worker", "{v}");
    assert_eq!(v["answer_check_status"], "judged", "{v}");
    assert_eq!(judge.count(), 1);
    assert_eq!(code(&env.run(&["answer-check", "off"])), 0);
    let v = env.recall(QUESTION, &[]);
    assert_eq!(
        v["answer_check_status"], "off",
        "not the judged answer reused: {v}"
    );
    assert_eq!(judge.count(), 1);
    let log = std::fs::read(env.path("worker.log")).unwrap_or_default();
    assert!(!log.windows(KEY.len()).any(|w| w == KEY.as_bytes()));
}

/// The default on the real models: `auto` judges with slm's reader (a paraphrase that shares
/// few words is read as the answer); `off` turns the check off.
#[test]
fn auto_judges_with_slms_reader_and_off_turns_it_off() {
    let env = Env::new();
    let ci = env.remember(
        "Next quarter we plan to migrate CI from Jenkins to GitHub Actions",
        &[],
    );
    env.remember("Lunch is served at noon on Fridays", &[]);
    let q = "what CI are we moving to";
    // The default (auto): slm's reader, installed by setup.
    let v = env.recall(q, &[]);
    assert_eq!(v["answer_check_status"], "judged", "{v}");
    assert_eq!(v["answer_check"]["judge"], "local:reader", "{v}");
    assert_eq!(v["answer_check"]["memory_id"], ci, "{v}");
    assert!(v["answer_confidence"].as_f64().is_some(), "{v}");
    assert_eq!(env.run(&["answer-check", "off"]).status.code(), Some(0));
    let v = env.recall(q, &[]);
    assert_eq!(v["answer_check_status"], "off", "{v}");
    assert!(v["answer_confidence"].is_null(), "{v}");
}
