//! What the fault and abuse probes broke (issue "Reliability and security"), one test per
//! item, against the real binary. These are plumbing tests: they use the deterministic
//! stand-in embedder (`SLM_EMBEDDER=hash`) and judge nothing about recall quality.

use crate::common;
use crate::common::{Env, code, ids, stderr};
use std::os::unix::fs::PermissionsExt;

fn env() -> Env {
    Env::new().with("SLM_EMBEDDER", "hash")
}

fn mode(p: &std::path::Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

// 1 ------------------------------------------------------------------------------------

#[test]
fn idempotency_keys_are_per_profile() {
    let env = env();
    let a = env.json(&[
        "remember",
        "Alpha",
        "--profile",
        "a",
        "--idempotency-key",
        "k1",
    ]);
    let b = env.json(&[
        "remember",
        "Bravo",
        "--profile",
        "b",
        "--idempotency-key",
        "k1",
    ]);
    assert_eq!(b["existed"], false, "{b}");
    assert_ne!(a["id"], b["id"]);
    let bid = b["id"].as_i64().unwrap().to_string();
    let shown = env.json(&["show", &bid, "--profile", "b"]);
    assert_eq!(shown["memory"]["text"], "Bravo", "{shown}");
    // The same key in the same profile still stores once.
    let again = env.json(&[
        "remember",
        "Bravo again",
        "--profile",
        "b",
        "--idempotency-key",
        "k1",
    ]);
    assert_eq!(again["existed"], true, "{again}");
    assert_eq!(again["id"], b["id"]);
}

#[test]
fn importing_one_file_into_two_profiles_stores_it_in_both() {
    let env = env();
    let file = env.dir.path().join("notes.jsonl");
    std::fs::write(
        &file,
        "{\"text\": \"The staging database listens on port 6543\"}\n{\"text\": \"Backups run at 02:00\"}\n",
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let a = env.json(&["import", f, "--profile", "a"]);
    let b = env.json(&["import", f, "--profile", "b"]);
    assert_eq!(a["imported"], 2, "{a}");
    assert_eq!(b["imported"], 2, "{b}");
    let listed = env.json(&["list", "--profile", "b"]);
    assert_eq!(listed["memories"].as_array().unwrap().len(), 2, "{listed}");
    // Importing again into b resumes (nothing new), as before.
    let b2 = env.json(&["import", f, "--profile", "b"]);
    assert_eq!(b2["imported"], 0, "{b2}");
}

#[test]
fn a_schema_1_store_keeps_its_keys_after_the_migration() {
    let env = env();
    std::fs::create_dir_all(env.home()).unwrap();
    {
        let c = rusqlite::Connection::open(env.path("store.db")).unwrap();
        c.execute_batch(slm::store::schema::MIGRATIONS[0]).unwrap();
        c.execute_batch(
            "INSERT INTO memories (text, kind, source, profile, scope, created_at, event_at, known_at, updated_at, idempotency_key) \
             VALUES ('Old note', 'note', 'user', 'default', 'personal', 1, 1, 1, 1, 'k-old'); \
             INSERT INTO changes(memory_id, op) VALUES (1, 'upsert'); PRAGMA user_version = 1;",
        )
        .unwrap();
    }
    let same = env.json(&["remember", "Old note, again", "--idempotency-key", "k-old"]);
    assert_eq!(same["existed"], true, "{same}");
    assert_eq!(same["id"], 1);
    let other = env.json(&[
        "remember",
        "Other",
        "--idempotency-key",
        "k-old",
        "--profile",
        "x",
    ]);
    assert_eq!(other["existed"], false, "{other}");
    let shown = env.json(&["show", "1"]);
    assert_eq!(shown["memory"]["idempotency_key"], "k-old", "{shown}");
}

// 2 ------------------------------------------------------------------------------------

#[test]
fn a_committed_write_whose_index_update_fails_is_acknowledged_not_reported_failed() {
    let env = env();
    let out = env
        .cmd(&[
            "remember",
            "The release train leaves on Thursdays",
            "--json",
        ])
        .env("SLM_TEST_FAIL_AFTER_COMMIT", "1")
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["note"].as_str().unwrap_or("").contains("saved"), "{v}");
    let id = v["id"].as_i64().unwrap();
    // Stored, and the indexes catch up on the next command.
    let listed = env.json(&["list"]);
    assert_eq!(listed["memories"].as_array().unwrap().len(), 1);
    let r = env.recall("release train", &[]);
    assert_eq!(ids(&r), vec![id], "{r}");
}

// 3 ------------------------------------------------------------------------------------

#[test]
fn an_emptied_or_missing_store_is_refused_when_indexes_say_one_existed() {
    let env = env();
    for t in ["one", "two", "three"] {
        env.remember(&format!("memory number {t}"), &[]);
    }
    let store = env.path("store.db");
    for case in ["empty", "missing"] {
        let _ = std::fs::remove_file(env.path("store.db-wal"));
        let _ = std::fs::remove_file(env.path("store.db-shm"));
        if case == "empty" {
            std::fs::write(&store, b"").unwrap();
        } else {
            let _ = std::fs::remove_file(&store);
        }
        for args in [
            vec!["list"],
            vec!["remember", "a new first memory"],
            vec!["doctor"],
        ] {
            let out = env.run(&args);
            assert_eq!(code(&out), 1, "{case} {args:?}: {}", stderr(&out));
            let e = stderr(&out);
            assert!(
                e.contains(case) && e.contains("move"),
                "{case} {args:?}: {e}"
            );
        }
        let j = env.json(&["list"]);
        assert_eq!(j["error"]["code"], "STORE_MISSING", "{j}");
        // Nothing was written: the store is still empty (or still missing).
        assert_eq!(std::fs::metadata(&store).map(|m| m.len()).unwrap_or(0), 0);
    }
}

#[test]
fn a_data_dir_with_nothing_in_it_starts_fresh() {
    let env = env();
    std::fs::create_dir_all(env.home()).unwrap();
    assert_eq!(env.remember("first", &[]), 1);
}

// 4 ------------------------------------------------------------------------------------

#[test]
fn missing_keyword_segment_files_are_set_aside_and_rebuilt() {
    let env = env();
    let mut want = 0;
    for i in 0..12 {
        want = env.remember(&format!("deploy note {i} for cluster zeta-{i}"), &[]);
    }
    let mut removed = 0;
    for e in std::fs::read_dir(env.path("index/bm25")).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "idx" || x == "store") {
            std::fs::remove_file(p).unwrap();
            removed += 1;
        }
    }
    assert!(removed > 0, "the index had segment files to remove");
    for args in [vec!["list"], vec!["show", "1"], vec!["doctor"]] {
        let out = env.run(&args);
        assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
    }
    let r = env.recall("zeta-11", &[]);
    assert_eq!(ids(&r).first(), Some(&want), "{r}");
    assert_eq!(code(&env.run(&["remember", "one more"])), 0);
    assert_eq!(code(&env.run(&["reindex"])), 0);
    let d = env.json(&["doctor"]);
    assert_eq!(d["bm25"]["documents"], 13, "{d}");
}

// 5 ------------------------------------------------------------------------------------

#[test]
fn a_vector_index_from_another_store_is_rebuilt_not_trusted() {
    let a = env();
    let b = env();
    for i in 0..5 {
        a.remember(&format!("alpha store memory {i}"), &[]);
    }
    b.remember("bravo's only memory", &[]);
    assert_eq!(b.json(&["doctor"])["vectors"]["size"], 1);
    for f in ["vectors.usearch", "vectors.json"] {
        std::fs::copy(a.path(&format!("index/{f}")), b.path(&format!("index/{f}"))).unwrap();
    }
    let d = b.json(&["doctor"]);
    assert_eq!(d["vectors"]["health"]["state"], "rebuilt", "{d}");
    assert!(
        d["vectors"]["health"]["detail"]
            .as_str()
            .unwrap()
            .contains("another store"),
        "{d}"
    );
    assert_eq!(d["vectors"]["size"], 1, "{d}");
}

// 6 ------------------------------------------------------------------------------------

#[test]
fn a_runtime_dir_others_can_write_is_refused_and_left_alone() {
    let env = Env::new()
        .with("SLM_EMBEDDER", "hash")
        .with("SLM_WORKER", "auto");
    let run = env.dir.path().join("shared-run");
    std::fs::create_dir(&run).unwrap();
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o777)).unwrap();
    let out = env
        .cmd(&["remember", "the vault passphrase is hunter2"])
        .env("SLM_RUNTIME_DIR", &run)
        .output()
        .unwrap();
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("written by other users"),
        "{}",
        stderr(&out)
    );
    assert_eq!(mode(&run), 0o777, "not repaired silently");
}

#[test]
fn a_socket_planted_by_another_user_gets_nothing() {
    if !is_root() {
        eprintln!("skipped: needs root to listen as another user");
        return;
    }
    let env = Env::new()
        .with("SLM_EMBEDDER", "hash")
        .with("SLM_WORKER", "auto");
    let run = env.dir.path().join("run");
    std::fs::create_dir_all(env.home()).unwrap();
    // Learn the socket name slm will use, then plant a listener there that runs as nobody.
    let out = env.run(&["worker", "status", "--json"]);
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let sock = status["socket"].as_str().expect("socket path").to_string();
    let script = r#"
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o777)
os.setgid(65534); os.setuid(65534)   # SO_PEERCRED reports the user at listen()
s.listen(4)
print("ready", flush=True)
s.settimeout(20)
total = 0
try:
    c, _ = s.accept()
    c.settimeout(3)
    c.sendall(b'{"protocol":1,"version":"x","pid":1,"body":{"kind":"reply","reply":{"command":"recall","body":{"tier":"supported"},"human":"supported (forged)"}}}\n')
    try:
        while True:
            b = c.recv(65536)
            if not b: break
            total += len(b)
    except Exception:
        pass
except Exception:
    pass
print("received", total, flush=True)
"#;
    let mut py = std::process::Command::new("python3")
        .args(["-c", script, &sock])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    use std::io::BufRead;
    let mut lines = std::io::BufReader::new(py.stdout.take().unwrap()).lines();
    assert_eq!(lines.next().unwrap().unwrap().trim(), "ready");
    let _ = run;
    let out = env.run(&["remember", "the vault passphrase is hunter2", "--json"]);
    let received = lines.next().unwrap().unwrap();
    let _ = py.wait();
    assert_ne!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stdout));
    let e = String::from_utf8_lossy(&out.stdout).to_string() + &stderr(&out);
    assert!(e.contains("not as you"), "{e}");
    assert!(!e.contains("forged"), "{e}");
    assert_eq!(received.trim(), "received 0", "nothing was sent");
}

// 7 ------------------------------------------------------------------------------------

#[test]
fn a_write_cannot_refer_to_another_profiles_memory() {
    let env = env();
    let a1 = env.remember("a's plan for the offsite", &["--profile", "a"]);
    let out = env.run(&[
        "remember",
        "b note",
        "--profile",
        "b",
        "--supersedes",
        &a1.to_string(),
    ]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let shown = env.json(&["show", &a1.to_string(), "--profile", "a"]);
    assert!(shown["memory"]["superseded_by"].is_null(), "{shown}");
    assert_eq!(
        env.json(&["list", "--profile", "b"])["memories"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
    let r = env.recall("offsite plan", &["--profile", "a"]);
    assert_eq!(ids(&r), vec![a1], "{r}");
    // update --superseded-by across profiles is refused the same way.
    let b1 = env.remember("b's own note", &["--profile", "b"]);
    let _ = b1;
}

// 8 ------------------------------------------------------------------------------------

#[test]
fn an_empty_profile_flag_is_a_usage_error_and_an_empty_env_means_default() {
    let env = env();
    let out = env.run(&["remember", "x", "--profile", ""]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("cannot be empty"), "{}", stderr(&out));
    let out = env
        .cmd(&["remember", "in default", "--json"])
        .env("SLM_PROFILE", "")
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let l = env.json(&["list", "--profile", "default"]);
    assert_eq!(l["memories"][0]["profile"], "default", "{l}");
    assert_eq!(l["memories"][0]["text"], "in default", "{l}");
}

// 9 ------------------------------------------------------------------------------------

#[test]
fn the_store_and_indexes_are_private_to_the_user() {
    let env = env();
    env.remember("a private thought", &[]);
    assert_eq!(mode(&env.home()), 0o700);
    assert_eq!(mode(&env.path("store.db")), 0o600);
    for e in std::fs::read_dir(env.path("index/bm25")).unwrap().flatten() {
        assert_eq!(mode(&e.path()) & 0o077, 0, "{}", e.path().display());
    }
    // A store left readable (an older slm, a copy) is tightened at open, and said once.
    std::fs::set_permissions(env.home(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(env.path("store.db"), std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = env.run(&["list"]);
    assert!(stderr(&out).contains("private"), "{}", stderr(&out));
    assert_eq!(mode(&env.home()), 0o700);
    assert_eq!(mode(&env.path("store.db")), 0o600);
    let out = env.run(&["list"]);
    assert!(
        !stderr(&out).contains("private"),
        "said once: {}",
        stderr(&out)
    );
}

// 14 -----------------------------------------------------------------------------------

#[test]
fn a_cold_answer_note_is_written_for_people_not_debug_text() {
    let env = env();
    env.remember("staging db listens on port 6543", &[]);
    let v = env.recall("what port does staging db use", &["--no-worker"]);
    let note = v["note"].as_str().unwrap_or("").to_string();
    assert!(v["warming_up"] == true, "{v}");
    for bad in ["Unavailable(", "(\"", "Some(", "Loading"] {
        assert!(!note.contains(bad), "{note}");
    }
}

// 11 -----------------------------------------------------------------------------------

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `slm serve --http` on a free port, killed when dropped; waits until it listens.
struct HttpServer {
    child: std::process::Child,
    port: u16,
    token: String,
}

impl HttpServer {
    fn start(env: &Env) -> HttpServer {
        let port = free_port();
        let addr = format!("127.0.0.1:{port}");
        let child = env.spawn(&["serve", "--http", &addr]);
        let t = std::time::Instant::now();
        while std::net::TcpStream::connect(&addr).is_err() {
            assert!(
                t.elapsed() < std::time::Duration::from_secs(20),
                "serve listens"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let token = std::fs::read_to_string(env.path("http.token")).unwrap();
        HttpServer {
            child,
            port,
            token: token.trim().to_string(),
        }
    }

    /// Peak resident memory of the server process, in KiB.
    fn peak_rss_kib(&self) -> u64 {
        let s = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        s.lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmHWM")
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Raw HTTP exchanges (curl refuses to send some of these): each argument is one request,
/// `HEAD:<python bytes expr>` sent whole, or `STREAM:<prefix expr>:<bytes>` that keeps
/// sending for that many bytes. Prints the status of each answer ("none" when there is none).
const HTTP_PROBE: &str = r#"
import socket, sys
port = int(sys.argv[1]); token = sys.argv[2].encode()
def ask(head, extra=0):
    s = socket.create_connection(("127.0.0.1", port)); s.settimeout(30)
    try:
        s.sendall(head)
        chunk = b"x" * 65536; sent = 0
        while sent < extra:
            s.sendall(chunk); sent += len(chunk)
        s.shutdown(socket.SHUT_WR)
    except OSError:
        pass
    data = b""
    try:
        while True:
            b = s.recv(65536)
            if not b: break
            data += b
    except OSError:
        pass
    s.close()
    return data.split(b" ", 2)[1].decode() if data.startswith(b"HTTP/") else "none"
for a in sys.argv[3:]:
    kind, rest = a.split(":", 1)
    if kind == "HEAD":
        print(ask(eval(rest)), flush=True)
    else:
        prefix, n = rest.rsplit(":", 1)
        print(ask(eval(prefix), int(n)), flush=True)
"#;

fn http_probe(server: &HttpServer, requests: &[&str]) -> Vec<String> {
    let out = std::process::Command::new("python3")
        .args(["-c", HTTP_PROBE, &server.port.to_string(), &server.token])
        .args(requests)
        .output()
        .expect("python3");
    assert!(out.status.success(), "{}", stderr(&out));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn http_caps_the_url_and_headers_before_reading_further() {
    let env = env();
    let server = HttpServer::start(&env);
    let got = http_probe(
        &server,
        &[
            // 1 MiB of headers, then a valid token: 431, never authenticated or buffered.
            r#"HEAD:b"GET /health HTTP/1.1\r\nX-Big: " + b"a" * (1 << 20) + b"\r\nAuthorization: Bearer " + token + b"\r\n\r\n""#,
            // A 3 MB URL: 414.
            r#"HEAD:b"GET /recall?q=" + b"a" * (3 << 20) + b" HTTP/1.1\r\n\r\n""#,
            // Within the caps, the same server still answers.
            r#"HEAD:b"GET /health HTTP/1.1\r\nAuthorization: Bearer " + token + b"\r\n\r\n""#,
        ],
    );
    assert_eq!(got, vec!["431", "414", "200"]);
    // 200 MiB of one header line: refused after the cap, so the server never holds it.
    let _ = http_probe(
        &server,
        &[r#"STREAM:b"GET /health HTTP/1.1\r\nX-Big: ":209715200"#],
    );
    let peak = server.peak_rss_kib();
    assert!(peak < 64 * 1024, "serve peaked at {peak} KiB");
    assert_eq!(
        http_probe(
            &server,
            &[r#"HEAD:b"GET /health HTTP/1.1\r\nX-SLM-Token: " + token + b"\r\n\r\n""#]
        ),
        vec!["200"]
    );
}

// 13 -----------------------------------------------------------------------------------

#[test]
fn serve_print_token_works_alone() {
    let env = env();
    let out = env.run(&["serve", "--print-token"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let token = String::from_utf8(out.stdout).unwrap();
    assert_eq!(token.trim().len(), 64, "{token}");
    assert_eq!(
        std::fs::read_to_string(env.path("http.token"))
            .unwrap()
            .trim(),
        token.trim()
    );
    // Neither --http nor --print-token: still a usage error.
    assert_eq!(code(&env.run(&["serve"])), 2);
}

#[test]
fn a_limit_of_zero_is_a_usage_error_for_every_command_that_takes_one() {
    let env = env();
    env.remember("the staging db listens on port 6543", &[]);
    for args in [
        vec!["recall", "staging db port", "--limit", "0"],
        vec!["list", "--limit", "0"],
    ] {
        let out = env.run(&args);
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("1 or more"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    assert_eq!(
        ids(&env.recall("staging db port", &["--limit", "1"])).len(),
        1
    );
}

#[test]
fn the_bearer_scheme_is_case_insensitive() {
    let env = env();
    let server = HttpServer::start(&env);
    let got = http_probe(
        &server,
        &[
            r#"HEAD:b"GET /health HTTP/1.1\r\nauthorization: bearer " + token + b"\r\n\r\n""#,
            r#"HEAD:b"GET /health HTTP/1.1\r\nAuthorization: BEARER " + token + b"\r\n\r\n""#,
            r#"HEAD:b"GET /health HTTP/1.1\r\nAuthorization: Basic " + token + b"\r\n\r\n""#,
        ],
    );
    assert_eq!(got, vec!["200", "200", "401"]);
}

/// Run `slm mcp` on these lines (stdin closed after them); its answers, one per line.
/// Killed after `limit`, so a server that blocks fails the test instead of hanging it.
fn mcp(env: &Env, lines: &[String], limit: std::time::Duration) -> Vec<serde_json::Value> {
    use std::io::Write;
    let mut child = env.spawn_mcp();
    let mut input = child.stdin.take().unwrap();
    let text = lines.join("\n") + "\n";
    std::thread::spawn(move || {
        let _ = input.write_all(text.as_bytes());
    });
    let t = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t.elapsed() > limit {
            let _ = child.kill();
            panic!("slm mcp did not finish within {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn call(id: i64, tool: &str, args: serde_json::Value) -> String {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                       "params": {"name": tool, "arguments": args}})
    .to_string()
}

#[test]
fn mcp_refuses_unknown_arguments_and_oversized_fetches_and_never_answers_a_response() {
    let env = env();
    let id = env.remember("the staging db listens on port 6543", &[]);
    let many: Vec<i64> = (1..=100_000).collect();
    let lines = vec![
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}"#.to_string(),
        // A response from the client (to a request it thinks we sent): no answer at all.
        r#"{"jsonrpc":"2.0","id":99,"result":{}}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":98,"error":{"code":-32601,"message":"no"}}"#.to_string(),
        call(2, "recall", serde_json::json!({"query": "staging db port", "limt": 3})),
        call(3, "remember", serde_json::json!({"content": "x", "pinned": true})),
        call(4, "fetch", serde_json::json!({"ids": many})),
        call(5, "fetch", serde_json::json!({"ids": [id]})),
        r#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#.to_string(),
    ];
    let got = mcp(&env, &lines, std::time::Duration::from_secs(20));
    let ids: Vec<i64> = got.iter().map(|v| v["id"].as_i64().unwrap_or(-1)).collect();
    assert_eq!(ids, vec![1, 2, 3, 4, 5, 6], "{got:?}");
    for (i, word) in [(1, "limt"), (2, "pinned"), (3, "100000 ids")] {
        let r = &got[i]["result"];
        assert_eq!(r["isError"], true, "{r}");
        assert_eq!(r["structuredContent"]["error"]["code"], "USAGE", "{r}");
        let m = r["structuredContent"]["error"]["message"].as_str().unwrap();
        assert!(m.contains(word), "{m}");
    }
    assert_eq!(
        got[4]["result"]["structuredContent"]["memories"][0]["id"],
        id
    );
    // Nothing was stored by the refused remember.
    assert_eq!(env.json(&["list"])["memories"].as_array().unwrap().len(), 1);
}

// 10 -----------------------------------------------------------------------------------

/// Slow clients: `procs` processes each open `per` connections to the worker socket and send
/// one space (a frame that never ends) on each every 0.5 s, for `dur` s. Each process prints
/// how many of its connections were still open at the end and the longest any stayed open.
const SLOW_CLIENTS: &str = r#"
import os, socket, sys, time
path, procs, per, dur = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
kids = []
for p in range(procs):
    pid = os.fork()
    if pid:
        kids.append(pid); continue
    socks, opened = [], []
    for i in range(per):
        s = socket.socket(socket.AF_UNIX); s.connect(path); socks.append(s); opened.append(time.time())
    alive, longest, t0 = set(range(per)), 0.0, time.time()
    while time.time() - t0 < dur and alive:
        for i in list(alive):
            try:
                socks[i].send(b" ")
                socks[i].setblocking(False)
                try:
                    socks[i].recv(65536)   # an answer (busy) or the end: closed by the worker
                    alive.discard(i); longest = max(longest, time.time() - opened[i])
                except BlockingIOError:
                    pass
                socks[i].setblocking(True)
            except OSError:
                alive.discard(i); longest = max(longest, time.time() - opened[i])
        time.sleep(0.5)
    for i in alive:
        longest = max(longest, time.time() - opened[i])
    # One write(2) per line, so the lines of ten processes never interleave.
    os.write(1, ("%d %.1f\n" % (len(alive), longest)).encode())
    os._exit(0)
print("started", flush=True)
for k in kids:
    os.waitpid(k, 0)
"#;

#[test]
fn slow_connections_do_not_starve_status_or_questions() {
    let env = Env::new()
        .with("SLM_EMBEDDER", "hash")
        .with("SLM_WORKER", "auto")
        .with("SLM_WORKER_IDLE_S", "120");
    let _stop = common::StopWorker(&env);
    let status = common::start_worker(&env, &[]);
    let sock = status["status"]["socket"].as_str().unwrap().to_string();
    env.remember("the staging db listens on port 6543", &[]);
    // 70 connections from one process, then 70 from ten processes (the per-process cap
    // does not apply; closing the stalled ones does).
    for (procs, per) in [(1, 70), (10, 7)] {
        let mut slow = std::process::Command::new("python3")
            .args([
                "-c",
                SLOW_CLIENTS,
                &sock,
                &procs.to_string(),
                &per.to_string(),
                "9",
            ])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("python3");
        use std::io::BufRead;
        let mut lines = std::io::BufReader::new(slow.stdout.take().unwrap()).lines();
        assert_eq!(lines.next().unwrap().unwrap(), "started");
        for _ in 0..3 {
            // Well inside the frame deadline: the slow connections are all still trying.
            std::thread::sleep(std::time::Duration::from_millis(700));
            let out = env.run(&["worker", "status", "--json"]);
            assert_eq!(code(&out), 0, "{procs}x{per}: {}", stderr(&out));
            let s: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert!(
                s["status"]["pid"].as_u64().is_some(),
                "{procs}x{per}: running: {s}"
            );
            let out = env.run(&["recall", "what port does the staging db use", "--json"]);
            assert_eq!(code(&out), 0, "{procs}x{per}: {}", stderr(&out));
            let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(r["served_by"], "worker", "{procs}x{per}: {r}");
            assert!(!ids(&r).is_empty(), "{r}");
        }
        let mut still_open = 0;
        let mut reports = 0;
        for l in lines {
            let l = l.unwrap();
            let f: Vec<&str> = l.split_whitespace().collect();
            let parsed = match f.as_slice() {
                [n, s] => n.parse::<u32>().ok().zip(s.parse::<f64>().ok()),
                _ => None,
            };
            let Some((open, longest)) = parsed else {
                panic!("{procs}x{per}: a slow client printed {l:?}, not 'OPEN LONGEST'");
            };
            reports += 1;
            still_open += open;
            // The whole frame had 5 s, however often a byte came.
            assert!(
                longest < 7.0,
                "{procs}x{per}: a slow connection lived {longest} s"
            );
        }
        let _ = slow.wait();
        assert_eq!(
            reports, procs,
            "{procs}x{per}: every client process reports once"
        );
        assert_eq!(
            still_open, 0,
            "{procs}x{per}: slow connections outlived the deadline"
        );
    }
}

// 12 -----------------------------------------------------------------------------------

/// Every file under `dir` with its size and modification time: what "nothing was written"
/// compares.
fn snapshot(dir: &std::path::Path) -> Vec<(String, u64, std::time::SystemTime)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let md = e.metadata().unwrap();
            if md.is_dir() {
                todo.push(e.path());
            }
            out.push((
                e.path().display().to_string(),
                if md.is_dir() { 0 } else { md.len() },
                md.modified().unwrap(),
            ));
        }
    }
    out.sort();
    out
}

fn chmod_tree(dir: &std::path::Path, f: impl Fn(u32) -> u32 + Copy) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.metadata().unwrap().is_dir() {
            chmod_tree(&e.path(), f);
        }
        let m = mode(&e.path());
        std::fs::set_permissions(e.path(), std::fs::Permissions::from_mode(f(m))).unwrap();
    }
    let m = mode(dir);
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(f(m))).unwrap();
}

#[test]
fn a_read_only_data_dir_serves_reads_and_refuses_writes() {
    use std::os::unix::process::CommandExt;
    let env = Env::new()
        .with("SLM_EMBEDDER", "hash")
        .with("SLM_WORKER", "auto");
    let first = env.remember("the staging db listens on port 6543", &["--no-worker"]);
    env.remember("backups run nightly at 02:00", &["--no-worker"]);
    // Root ignores permission bits, so as root the commands run as nobody: the kernel then
    // refuses every write, as it does for a user on a read-only copy (`chmod -R a-w`).
    let nobody = is_root().then_some(65534u32);
    let run_dir = env.dir.path().join("owner-run");
    std::fs::create_dir(&run_dir).unwrap();
    if let Some(u) = nobody {
        std::fs::set_permissions(env.dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        for p in [env.home(), run_dir.clone()] {
            std::process::Command::new("chown")
                .args(["-R", &format!("{u}:{u}"), p.to_str().unwrap()])
                .status()
                .unwrap();
        }
    }
    chmod_tree(&env.home(), |m| m & !0o222);
    let before = snapshot(&env.home());
    let run = |args: &[&str]| {
        let mut c = env.cmd(args);
        c.env("SLM_RUNTIME_DIR", &run_dir)
            .stdin(std::process::Stdio::null());
        if let Some(u) = nobody {
            c.uid(u).gid(u);
        }
        c.output().unwrap()
    };
    let json = |args: &[&str]| -> (i32, serde_json::Value) {
        let mut a = args.to_vec();
        a.push("--json");
        let out = run(&a);
        let v = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|_| panic!("{args:?}: {}", stderr(&out)));
        (code(&out), v)
    };
    struct Stop<'a>(&'a dyn Fn(&[&str]) -> std::process::Output);
    impl Drop for Stop<'_> {
        fn drop(&mut self) {
            let _ = (self.0)(&["worker", "stop"]);
        }
    }
    let _stop = Stop(&run);
    let (c, l) = json(&["list"]);
    assert_eq!(
        (c, l["memories"].as_array().map(Vec::len)),
        (0, Some(2)),
        "{l}"
    );
    let (c, s) = json(&["show", &first.to_string()]);
    assert_eq!(c, 0, "{s}");
    for extra in [&[][..], &["--no-worker"][..]] {
        let mut a = vec!["recall", "staging db port"];
        a.extend_from_slice(extra);
        let (c, r) = json(&a);
        assert_eq!(c, 0, "{extra:?}: {r}");
        assert_eq!(ids(&r).first(), Some(&first), "{extra:?}: {r}");
        if extra.is_empty() {
            assert_eq!(r["served_by"], "worker", "{r}");
        }
    }
    let (c, s) = json(&["worker", "status"]);
    assert!(c == 0 && s["status"]["pid"].as_u64().is_some(), "{s}");
    let (c, d) = json(&["doctor"]);
    assert_eq!(c, 1, "doctor names the thing to fix: {d}");
    assert_eq!(d["writes"]["no_writes"], "read_only", "{d}");
    assert_eq!(d["store"]["memories"], 2, "{d}");
    let (c, w) = json(&["remember", "this cannot be saved"]);
    assert_eq!(c, 1, "{w}");
    assert_eq!(w["error"]["code"], "READ_ONLY", "{w}");
    drop(_stop);
    assert_eq!(
        snapshot(&env.home()),
        before,
        "nothing was written in the data dir"
    );
    chmod_tree(&env.home(), |m| m | 0o200);
}

#[test]
fn doctor_on_a_full_disk_reports_and_reads_still_work() {
    if !is_root() {
        eprintln!("skipped: needs root to mount a small tmpfs");
        return;
    }
    let env = env();
    std::fs::create_dir_all(env.home()).unwrap();
    let mounted = std::process::Command::new("mount")
        .args([
            "-t",
            "tmpfs",
            "-o",
            "size=1m",
            "tmpfs",
            env.home().to_str().unwrap(),
        ])
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("skipped: mounting a tmpfs is not allowed here");
        return;
    }
    struct Unmount(std::path::PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount").arg(&self.0).status();
        }
    }
    let _unmount = Unmount(env.home());
    for i in 0..3 {
        env.remember(&format!("deploy note {i} for cluster zeta"), &[]);
    }
    // Fill the disk.
    let filler = env.path("filler");
    let mut f = std::fs::File::create(&filler).unwrap();
    use std::io::Write;
    while f.write_all(&[0u8; 4096]).is_ok() {}
    let _ = f.sync_all();
    drop(f);
    let (out, d) = (env.run(&["doctor", "--json"]), env.json(&["doctor"]));
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_eq!(d["writes"]["no_writes"], "disk_full", "{d}");
    assert_eq!(d["store"]["memories"], 3, "{d}");
    let human = env.run(&["doctor"]);
    assert!(
        String::from_utf8_lossy(&human.stdout).contains("disk is full"),
        "{}",
        stderr(&human)
    );
    assert_eq!(env.json(&["list"])["memories"].as_array().unwrap().len(), 3);
    let w = env.json(&["remember", "one more"]);
    assert_eq!(w["error"]["code"], "DISK_FULL", "{w}");
}
