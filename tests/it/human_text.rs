//! What a person reads carries no Rust debug text (issue 33): doctor, worker status and the
//! error paths.

use crate::common::{Env, StopWorker, code, start_worker, stderr, worker_env};
use std::process::Output;

/// The checker the unit tests of the status enums use (`src/render/human_check.rs`).
#[path = "../../src/render/human_check.rs"]
mod human_check;
use human_check::debug_look;

/// stdout and stderr together, as a person sees them.
fn seen(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(out))
}

/// Fails, naming the line, when any line of `text` looks like debug text.
fn assert_for_people(what: &str, text: &str) {
    for line in text.lines() {
        if let Some(why) = debug_look(line) {
            panic!("{what}: {why} in the line\n{line}\nof\n{text}");
        }
    }
}

/// The line of doctor's text about `name` (`ok  name  text`), without its mark.
fn doctor_line<'a>(text: &'a str, name: &str) -> &'a str {
    text.lines()
        .find(|l| {
            l.get(4..)
                .is_some_and(|r| r.split_whitespace().next() == Some(name))
        })
        .unwrap_or_else(|| panic!("no {name} line in\n{text}"))
}

#[test]
fn doctor_says_what_it_found_in_words() {
    let env = Env::new();
    env.remember("The staging database listens on port 6543", &[]);
    env.remember("Deploys go out on Tuesdays", &[]);
    let out = env.run(&["doctor"]);
    let text = seen(&out);
    assert_eq!(code(&out), 0, "{text}");
    assert_for_people("doctor", &text);
    assert!(
        doctor_line(&text, "probe").contains("a test embedding works ("),
        "{text}"
    );
    assert!(
        doctor_line(&text, "keywords").contains("up to date, 2 memories"),
        "{text}"
    );
    // "up to date" or "caught up with 2 changes": the inline runs save vectors lazily.
    assert!(
        doctor_line(&text, "vectors").ends_with(", 2 memories"),
        "{text}"
    );
    // The JSON keeps its machine fields.
    let d = env.json(&["doctor"]);
    assert_eq!(d["bm25"]["health"]["state"], "ready", "{d}");
    assert_eq!(d["vectors"]["health"]["state"], "ready", "{d}");
    assert!(
        d["probe_embedding"]["dimension"].as_u64().unwrap() > 0,
        "{d}"
    );
}

#[test]
fn doctor_says_a_rebuilt_index_and_a_missing_model_in_words() {
    let env = Env::new();
    env.remember("The staging database listens on port 6543", &[]);
    std::fs::remove_dir_all(env.path("index/bm25")).unwrap();
    let out = env.run(&["doctor"]);
    let text = seen(&out);
    assert_for_people("doctor after the keyword index was removed", &text);
    assert!(
        doctor_line(&text, "keywords").contains("rebuilt ("),
        "{text}"
    );
    let d = env.json(&["doctor"]);
    assert_eq!(d["bm25"]["health"]["state"], "ready", "{d}");

    let env = Env::new().with("SLM_MODEL_DIR", "/nonexistent/model");
    env.remember("Rotate the TLS certificates every 90 days", &[]);
    let out = env.run(&["doctor"]);
    assert_eq!(code(&out), 1);
    assert_for_people("doctor without a model", &seen(&out));
    // A recall's notes and channel details are read by people too, inside the JSON.
    let v = env.recall("rotate the TLS certificates", &[]);
    for (channel, st) in v["channel_status"].as_object().unwrap() {
        if let Some(detail) = st["detail"].as_str() {
            assert_for_people(&format!("channel {channel}"), detail);
        }
    }
    if let Some(note) = v["note"].as_str() {
        assert_for_people("recall note", note);
    }
}

#[test]
fn worker_status_says_what_it_found_in_words() {
    let env = worker_env();
    let _stop = StopWorker(&env);
    env.remember("The staging database listens on port 6543", &[]);
    start_worker(&env, &[]);
    for args in [&["worker", "status"][..], &["doctor"], &["worker", "stop"]] {
        let out = env.run(args);
        assert_eq!(code(&out), 0, "{}", seen(&out));
        assert_for_people(&args.join(" "), &seen(&out));
    }
    let out = env.run(&["worker", "status"]);
    let text = seen(&out);
    assert!(text.contains("not running"), "{text}");
    assert_for_people("worker status (stopped)", &text);
}

#[test]
fn errors_say_what_went_wrong_in_words() {
    let env = Env::new();
    env.remember("The staging database listens on port 6543", &[]);
    let missing = env.dir.path().join("no-such-backup.db");
    let missing = missing.to_str().unwrap();
    let cases: &[&[&str]] = &[
        &["list", "--limit", "x"],
        &["list", "--kind", "bogus"],
        &["show", "999"],
        &["show", "abc"],
        &["restore", missing],
        &["import", "/nonexistent/notes"],
        &["recall", "port", "--window", "bogus"],
        &["recall", "port", "--limit", "0"],
        &["no-such-command"],
    ];
    for args in cases {
        let out = env.run(args);
        let text = seen(&out);
        assert_ne!(code(&out), 0, "slm {}: {text}", args.join(" "));
        assert!(
            !text.trim().is_empty(),
            "slm {}: says nothing",
            args.join(" ")
        );
        assert_for_people(&format!("slm {}", args.join(" ")), &text);
    }
    // A bad setting in the environment.
    let out = env
        .cmd(&["list"])
        .env("SLM_WORKER", "bogus")
        .output()
        .unwrap();
    assert_ne!(code(&out), 0);
    assert_for_people("SLM_WORKER=bogus slm list", &seen(&out));
}
