//! The warm worker, with real processes, temporary homes and sockets: lifecycle (spawn on
//! first call, reuse, version mismatch, stale socket, kill -9 mid-recall, idle exit), busy
//! answers, single flight and reuse invalidated by a write, the hook's hard limit, and two
//! processes writing at once.

use crate::common;
use crate::common::{Env, StopWorker, code, ids, stderr, worker_env};
use serde_json::Value;
use std::time::{Duration, Instant};

fn status(env: &Env) -> Value {
    env.json(&["worker", "status"])
}

fn pid(env: &Env) -> Option<i64> {
    status(env)["status"]["pid"].as_i64()
}

/// Wait (bounded) until the worker answers; the readiness of a detached start.
fn wait_running(env: &Env) -> i64 {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(60) {
        if let Some(p) = pid(env) {
            return p;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!(
        "the worker never came up; log: {}",
        std::fs::read_to_string(env.path("worker.log")).unwrap_or_default()
    );
}

fn served_by(v: &Value) -> &str {
    v["served_by"].as_str().unwrap_or("?")
}

fn kill9(pid: i64) {
    std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .expect("kill");
}

#[test]
fn first_call_spawns_then_the_warm_worker_answers_and_is_reused() {
    let env = worker_env();
    let _stop = StopWorker(&env);
    // Cold: nobody listens yet, so this runs in-process (and starts a worker).
    let first = env.json(&["remember", "We chose Postgres for the analytics warehouse"]);
    assert_eq!(served_by(&first), "cold", "{first}");
    let p1 = wait_running(&env);
    let restarted = env.json(&["worker", "restart"]);
    let p1b = restarted["status"]["pid"].as_i64().unwrap();
    assert_ne!(p1b, p1, "restart starts a new worker: {restarted}");
    let p1 = p1b;
    let r = env.recall("Which database did we choose for analytics?", &[]);
    assert_eq!(served_by(&r), "worker", "{r}");
    assert_eq!(r["tier"], "supported", "the warm worker has the model: {r}");
    assert_eq!(r["warming_up"], false);
    let again = env.recall("Which database did we choose for analytics?", &[]);
    assert_eq!(served_by(&again), "worker");
    assert_eq!(pid(&env), Some(p1), "the same worker answers again");
    // The cold write was embedded by the worker's background work or catch-up.
    let s = status(&env);
    assert_eq!(s["status"]["version"], env!("CARGO_PKG_VERSION"));
}

#[test]
fn cold_recall_answers_from_keywords_labelled_warming() {
    let env = worker_env();
    let _stop = StopWorker(&env);
    env.remember("The deploy key rotates every ninety days", &["--no-worker"]);
    let r = env.recall("When does the deploy key rotate?", &["--no-worker"]);
    assert_eq!(served_by(&r), "cold");
    assert_eq!(r["warming_up"], true, "{r}");
    assert_ne!(
        r["tier"], "none",
        "never 'not in memory' while warming: {r}"
    );
    assert!(
        r["note"].as_str().unwrap().contains("still warming up"),
        "{r}"
    );
    assert!(pid(&env).is_none(), "--no-worker starts nothing");
}

#[test]
fn version_mismatch_restarts_the_worker_and_runs_nothing_twice() {
    let env = worker_env();
    let _stop = StopWorker(&env);
    let out = env
        .cmd(&["worker", "start", "--json"])
        .env("SLM_TEST_FAKE_VERSION", "0.0.0-old")
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let old = status_with_version(&env, "0.0.0-old");
    // A client of this version: the old worker refuses to run it and leaves; the write runs
    // once, in-process.
    let w = env.json(&["remember", "Release train leaves on Thursdays"]);
    assert_eq!(served_by(&w), "cold", "{w}");
    let new = wait_running(&env);
    assert_ne!(new, old);
    assert_eq!(status(&env)["status"]["version"], env!("CARGO_PKG_VERSION"));
    let list = env.json(&["list"]);
    assert_eq!(
        list["memories"].as_array().unwrap().len(),
        1,
        "stored once: {list}"
    );
}

fn status_with_version(env: &Env, version: &str) -> i64 {
    let out = env
        .cmd(&["worker", "status", "--json"])
        .env("SLM_TEST_FAKE_VERSION", version)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["status"]["version"], version, "{v}");
    v["status"]["pid"].as_i64().unwrap()
}

#[test]
fn a_stale_socket_is_replaced_and_kill_9_mid_recall_is_reported() {
    let env = worker_env().with("SLM_TEST_CHANNEL_DELAY", "semantic:2500");
    let _stop = StopWorker(&env);
    env.remember("The staging database lives on port 5433", &[]);
    let p1 = wait_running(&env);
    let child = env.spawn(&[
        "recall",
        "Which port does the staging database use?",
        "--json",
    ]);
    std::thread::sleep(Duration::from_millis(800));
    kill9(p1);
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        code(&out),
        0,
        "a read that lost its worker is answered: {}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("the worker stopped while answering"),
        "the client reports it: {}",
        stderr(&out)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(served_by(&v), "cold");
    // The killed worker left its socket file behind: the next call finds it stale.
    let sock = std::fs::read_dir(env.dir.path().join("run"))
        .unwrap()
        .filter_map(|e| e.ok())
        .any(|e| e.path().extension().is_some_and(|x| x == "sock"));
    assert!(sock, "kill -9 leaves the socket file");
    let r = env.json(&["list"]);
    assert_eq!(served_by(&r), "cold");
    let p2 = wait_running(&env);
    assert_ne!(p1, p2, "a new worker replaced the stale socket");
}

#[test]
fn a_write_whose_reply_is_lost_is_reported_and_not_replayed() {
    // The worker is killed while a write waits for the writer lease held by an import.
    let env = worker_env();
    let _stop = StopWorker(&env);
    env.remember("seed memory so the store exists", &[]);
    let p = wait_running(&env);
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(env.path("write.lock"))
        .unwrap();
    lock.lock().unwrap();
    let child = env.spawn(&["remember", "A write that waits for the lease"]);
    std::thread::sleep(Duration::from_millis(700));
    kill9(p);
    let out = child.wait_with_output().unwrap();
    drop(lock);
    assert_ne!(code(&out), 0);
    let e = stderr(&out);
    assert!(e.contains("may or may not have been saved"), "{e}");
    assert!(e.contains("not sent again"), "{e}");
    let list = env.json(&["list"]);
    assert_eq!(
        list["memories"].as_array().unwrap().len(),
        1,
        "nothing was replayed: {list}"
    );
}

#[test]
fn idle_worker_exits() {
    let env = Env::new()
        .with("SLM_WORKER", "auto")
        .with("SLM_WORKER_IDLE_S", "1");
    let _stop = StopWorker(&env);
    let started = env.json(&["worker", "start"]);
    assert_eq!(started["running"], true, "{started}");
    let t = Instant::now();
    while pid(&env).is_some() && t.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(500));
    }
    assert!(
        pid(&env).is_none(),
        "still running after 20 s with a 1 s idle limit"
    );
}

#[test]
fn every_slot_busy_answers_recall_busy_and_exit_75() {
    let env = worker_env()
        .with("SLM_RECALL_SLOTS", "1")
        .with("SLM_RECALL_SLOT_WAIT_MS", "300")
        .with("SLM_TEST_CHANNEL_DELAY", "semantic:2500");
    let _stop = StopWorker(&env);
    common::start_worker(&env, &[]);
    env.remember("Backups run nightly at two", &[]);
    let slow = env.spawn(&["recall", "When do backups run?"]);
    std::thread::sleep(Duration::from_millis(600));
    let busy = env.run(&["recall", "Who rotates the keys?"]);
    assert_eq!(code(&busy), 75, "{}", stderr(&busy));
    let msg = stderr(&busy);
    assert!(
        msg.contains("slm is answering other questions right now. Ask again in about")
            && msg.contains("seconds; nothing was lost."),
        "{msg}"
    );
    let busy_json = env.run(&["recall", "Who rotates the keys?", "--json"]);
    assert_eq!(code(&busy_json), 75);
    let v: Value = serde_json::from_slice(&busy_json.stdout).unwrap();
    assert_eq!(v["error"]["code"], "RECALL_BUSY", "{v}");
    assert_eq!(v["error"]["retryable"], true);
    let out = slow.wait_with_output().unwrap();
    assert_eq!(code(&out), 0, "the slow question still gets its answer");
}

#[test]
fn identical_questions_share_a_run_and_a_write_drops_reused_answers() {
    let env = worker_env().with("SLM_TEST_CHANNEL_DELAY", "semantic:1500");
    let _stop = StopWorker(&env);
    common::start_worker(&env, &[]);
    env.remember("The office wifi password is on the fridge", &[]);
    let q = "Where is the office wifi password?";
    let kids: Vec<_> = (0..2)
        .map(|_| env.spawn(&["recall", q, "--json"]))
        .collect();
    let answers: Vec<Value> = kids
        .into_iter()
        .map(|k| serde_json::from_slice(&k.wait_with_output().unwrap().stdout).unwrap())
        .collect();
    assert_eq!(answers[0]["results"], answers[1]["results"]);
    let st = &status(&env)["status"]["questions"];
    assert_eq!(st["ran"], 1, "two identical questions, one run: {st}");
    assert_eq!(
        st["joined"].as_i64().unwrap() + st["reused"].as_i64().unwrap(),
        1,
        "{st}"
    );
    // Reused while nothing is written…
    let reused = |env: &Env| {
        status(env)["status"]["questions"]["reused"]
            .as_i64()
            .unwrap()
    };
    let before = env.recall("What is the badge colour for visitors?", &[]);
    assert_ne!(before["tier"], "supported", "{before}");
    let r0 = reused(&env);
    env.recall("What is the badge colour for visitors?", &[]);
    assert_eq!(
        reused(&env),
        r0 + 1,
        "the same question within 8 s is reused"
    );
    // …and dropped at once by a write: the caller never reads an answer from before it.
    env.remember("Visitors get an orange badge at reception", &[]);
    let after = env.recall("What is the badge colour for visitors?", &[]);
    assert_eq!(after["tier"], "supported", "{after}");
}

#[test]
fn the_hook_answers_from_keywords_when_the_full_search_is_slow_and_adds_nothing_when_out_of_time() {
    let env = worker_env().with("SLM_TEST_CHANNEL_DELAY", "semantic:2800");
    let _stop = StopWorker(&env);
    common::start_worker(&env, &[]);
    env.remember("The flaky test is quarantined in ci/quarantine.txt", &[]);
    // A recall with a budget: the same race, labelled, as JSON for scripts.
    let r = env.recall("where is the flaky test quarantined?", &["--budget-s", "2"]);
    assert_eq!(r["budget"]["answered_by"], "keyword", "{r}");
    assert_eq!(r["warming_up"], true, "keyword answers are labelled: {r}");
    assert!(
        r["results"].as_array().is_some_and(|a| !a.is_empty()),
        "{r}"
    );
    let v = env.json(&[
        "hook",
        "recall",
        "where is the flaky test quarantined?",
        "--budget-s",
        "2",
    ]);
    assert_eq!(v["recall"]["budget"]["answered_by"], "keyword", "{v}");
    assert!(
        v["context"]["text"]
            .as_str()
            .unwrap()
            .contains("quarantine.txt"),
        "{v}"
    );
    // The same through stdin, as agent hooks send it, in plain text output.
    let out = env.run_stdin(
        &["hook", "recall", "--budget-s", "2"],
        br#"{"prompt": "where is the flaky test quarantined?", "session_id": "s"}"#,
    );
    assert_eq!(code(&out), 0);
    assert!(String::from_utf8_lossy(&out.stdout).contains("unchecked keyword matches"));

    // Everything slow: the hard limit ends it with nothing added and exit 0.
    let slow = worker_env().with(
        "SLM_TEST_CHANNEL_DELAY",
        "semantic:5000,bm25:5000,temporal:5000",
    );
    let _stop2 = StopWorker(&slow);
    slow.remember(
        "The flaky test is quarantined in ci/quarantine.txt",
        &["--no-worker"],
    );
    common::start_worker(&slow, &[]);
    let t = Instant::now();
    let out = slow.run(&[
        "hook",
        "recall",
        "where is the flaky test quarantined?",
        "--budget-s",
        "1",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        out.stdout.is_empty(),
        "nothing added: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(t.elapsed() < Duration::from_secs(10), "the hard limit held");
}

#[test]
fn two_processes_writing_at_once_lose_nothing() {
    let env = worker_env();
    let _stop = StopWorker(&env);
    common::start_worker(&env, &[]);
    let spawn_writer = |tag: &'static str, extra: Vec<&'static str>| {
        let mut kids = Vec::new();
        for i in 0..12 {
            let mut args = vec!["remember".to_string(), format!("{tag} note number {i}")];
            args.extend(extra.iter().map(|s| s.to_string()));
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            kids.push(env.spawn(&a));
        }
        kids
    };
    // One stream through the worker, one in-process beside it, at the same time.
    let mut kids = spawn_writer("worker", vec![]);
    kids.extend(spawn_writer("cold", vec!["--no-worker"]));
    for k in kids {
        let out = k.wait_with_output().unwrap();
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    let list = env.json(&["list", "--limit", "100"]);
    let n = list["memories"].as_array().unwrap().len();
    assert_eq!(n, 24, "{list}");
    // The worker sees the in-process writes too (catch-up from the change log), and its
    // background work embeds what the in-process writes left without an embedding.
    let t = Instant::now();
    env.json(&["list"]);
    let settled = |s: &serde_json::Value| {
        s["status"]["pending_embeddings"] == 0 && s["status"]["pending_passages"] == 0
    };
    while !settled(&status(&env)) && t.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(200));
    }
    let s = status(&env);
    assert!(settled(&s), "{s}");
    let r = env.recall("cold note number 7", &[]);
    assert_eq!(served_by(&r), "worker");
    assert!(
        r["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["text"] == "cold note number 7"),
        "{r}"
    );
}

#[test]
fn malformed_and_oversized_frames_get_an_error_and_the_worker_keeps_answering() {
    use std::io::{BufRead, BufReader, Write};
    use std::os::unix::net::UnixStream;
    let env = worker_env();
    let _stop = StopWorker(&env);
    let started = env.json(&["worker", "start"]);
    let sock = started["status"]["socket"].as_str().unwrap().to_string();
    let ask = |bytes: &[u8]| -> Value {
        let mut s = UnixStream::connect(&sock).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let _ = s.write_all(bytes);
        let mut line = String::new();
        BufReader::new(&s).read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    };
    let v = ask(b"{this is not json\n");
    assert_eq!(v["body"]["kind"], "error", "{v}");
    assert_eq!(v["body"]["error"]["code"], "BAD_INPUT");
    assert!(
        v["version"].is_string() && v["protocol"].is_number(),
        "every reply carries version and protocol: {v}"
    );
    let mut big = vec![b'x'; (8 << 20) + 16];
    big.push(b'\n');
    let v = ask(&big);
    assert!(
        v["body"]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("larger than"),
        "{v}"
    );
    assert_eq!(
        pid(&env),
        started["status"]["pid"].as_i64(),
        "still the same worker"
    );
    let r = env.recall("anything at all?", &[]);
    assert_eq!(served_by(&r), "worker");
}

/// The last measured load time of the test home's worker, from the runtime dir.
fn measured_load_ms(env: &Env) -> u64 {
    let run = env.dir.path().join("run");
    std::fs::read_dir(&run)
        .unwrap()
        .flatten()
        .find(|e| e.path().extension().is_some_and(|x| x == "load_ms"))
        .map(|e| {
            std::fs::read_to_string(e.path())
                .unwrap()
                .trim()
                .parse()
                .unwrap()
        })
        .expect("a worker wrote its load time")
}

#[test]
fn the_first_question_after_idle_waits_for_the_worker_and_gets_the_full_answer() {
    let env = worker_env();
    let _stop = StopWorker(&env);
    env.remember("We chose Postgres for the analytics warehouse", &[]);
    wait_running(&env);
    assert_eq!(code(&env.run(&["worker", "stop"])), 0);
    assert!(pid(&env).is_none());
    let t = std::time::Instant::now();
    let r = env.recall("Which database did we choose for analytics?", &[]);
    let took = t.elapsed();
    assert_eq!(
        served_by(&r),
        "worker",
        "one call, answered by the worker it started: {r}"
    );
    assert_eq!(r["tier"], "supported", "{r}");
    assert_eq!(r["warming_up"], false, "{r}");
    assert!(
        r["waited_ms"].as_f64().is_some(),
        "the wait is reported: {r}"
    );
    assert!(
        took < std::time::Duration::from_secs(10),
        "within the bound: {took:?}"
    );
    let ex = env.run(&[
        "recall",
        "Which database did we choose for analytics?",
        "--explain",
    ]);
    assert_eq!(code(&ex), 0);
}

#[test]
fn a_slow_model_load_answers_cold_after_the_bound_with_the_measured_estimate() {
    let env = worker_env();
    let _stop = StopWorker(&env);
    env.remember("The deploy key rotates every ninety days", &[]);
    wait_running(&env);
    let measured = measured_load_ms(&env);
    assert_eq!(code(&env.run(&["worker", "stop"])), 0);
    let out = env
        .cmd(&["recall", "When does the deploy key rotate?", "--json"])
        .env("SLM_TEST_SLOW_LOAD_MS", "6000")
        .env("SLM_QUESTION_WAIT_S", "1")
        .output()
        .unwrap();
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(served_by(&r), "cold", "{r}");
    assert_eq!(r["warming_up"], true, "{r}");
    let w = r["waited_ms"].as_f64().unwrap();
    assert!(
        (900.0..3000.0).contains(&w),
        "waited about the 1 s bound: {w}"
    );
    let secs = measured.div_ceil(1000).max(1);
    let note = r["note"].as_str().unwrap();
    assert!(
        note.contains(&format!("about {secs} s")) && !note.contains("minutes"),
        "the note uses the measured {measured} ms: {note}"
    );
}

#[test]
fn the_hook_prints_nothing_while_its_worker_loads_and_stays_inside_3_s() {
    let env = worker_env();
    let _stop = StopWorker(&env);
    env.remember("Deploys go out on Tuesdays after the standup", &[]);
    wait_running(&env);
    assert_eq!(code(&env.run(&["worker", "stop"])), 0);
    let t = std::time::Instant::now();
    let out = env
        .cmd(&["hook", "recall", "when do deploys go out"])
        .env("SLM_TEST_SLOW_LOAD_MS", "8000")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let took = t.elapsed();
    assert_eq!(code(&out), 0);
    assert!(
        out.stdout.is_empty(),
        "no warming guess: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(took < std::time::Duration::from_millis(3500), "{took:?}");
}

/// Passages end to end: the worker embeds a saved memory's sentences in the background, and
/// the semantic channel then scores the memory by its closest sentence, while the support
/// check keeps reading the memory's own cosine (real model).
#[test]
fn the_worker_embeds_passages_and_recall_scores_by_the_closest_sentence() {
    let env = worker_env();
    let _stop = StopWorker(&env);
    common::start_worker(&env, &[]);
    let id = env.remember(
        "Lunch with the design team ran long and we argued about fonts for the new landing page. \
         The deploy key for production rotates every 90 days. \
         Afterwards everyone went to look at the office plants.",
        &[],
    );
    env.remember("The office plants need water on Fridays.", &[]);
    wait_for_passages(&env);
    let v = env.recall(
        "How often does the production deploy key rotate?",
        &["--explain"],
    );
    assert_eq!(served_by(&v), "worker");
    assert_eq!(ids(&v).first(), Some(&id), "{v}");
    let (channel, own) = semantic_and_own(&v, id);
    assert!(
        channel > own + 0.05,
        "the closest sentence ({channel:.3}) should beat the whole memory ({own:.3})"
    );
}

/// Context passages end to end: a one-sentence answer saved in a session after the question
/// that names its topic is scored by the pair (question, answer), which its own vector alone
/// does not reach (real model).
#[test]
fn the_worker_embeds_a_memory_with_the_one_before_it_in_its_session() {
    let env = worker_env();
    let _stop = StopWorker(&env);
    common::start_worker(&env, &[]);
    let session = ["--session", "chat-1"];
    env.remember(
        "Have you started painting again? What did you paint last weekend?",
        &session,
    );
    let answer = env.remember("A sunset over the lake, with the kids.", &session);
    env.remember("The office plants need water on Fridays.", &[]);
    wait_for_passages(&env);
    let v = env.recall("What did she paint last weekend?", &["--explain"]);
    assert_eq!(served_by(&v), "worker");
    let (channel, own) = semantic_and_own(&v, answer);
    assert!(
        channel > own + 0.05,
        "the answer with its question ({channel:.3}) should beat the answer alone ({own:.3})"
    );
}

/// Wait (up to 60 s) until the worker's background work has embedded every passage.
fn wait_for_passages(env: &Env) {
    let t = Instant::now();
    while status(env)["status"]["pending_passages"] != 0 && t.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(status(env)["status"]["pending_passages"], 0);
}

/// A recall's (`--explain`) semantic channel score for memory `id` and the support check's
/// cosine for it (the memory's own vector).
fn semantic_and_own(v: &Value, id: i64) -> (f64, f64) {
    let channel = v["explain"]["channels"]["semantic"]
        .as_array()
        .and_then(|a| a.iter().find(|p| p[0].as_i64() == Some(id)))
        .and_then(|p| p[1].as_f64())
        .unwrap_or_else(|| panic!("no semantic score for {id}: {v}"));
    let own = v["explain"]["support"]
        .as_array()
        .and_then(|a| a.iter().find(|s| s["id"].as_i64() == Some(id)))
        .and_then(|s| s["cosine"].as_f64())
        .unwrap_or_else(|| panic!("no support cosine for {id}: {v}"));
    (channel, own)
}
