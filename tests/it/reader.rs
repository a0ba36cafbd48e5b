//! A reader as the answer check's judge (issue 32), with the real models: slm's own reader
//! (models/reader/, which `scripts/setup.sh` installs), on by default. It reads the question
//! with each of the top three memories; a memory it says does not answer is not
//! "supported"; a missing, changed or broken reader costs the verdict, never the recall.

use crate::common::{self, Env, code, stderr};
use serde_json::Value;
use std::path::PathBuf;

const MEMORIES: [&str; 3] = [
    "We chose Postgres for the analytics warehouse",
    "The staging database listens on port 5433",
    "Maria owns the billing service",
];

/// slm's reader, as `scripts/setup.sh` installs it.
fn reader_dir() -> PathBuf {
    common::cache_dir().join("models/slm-reader-12l-v2")
}

/// Nothing configured: slm's reader is the default.
fn reader_env() -> Env {
    let env = Env::new();
    // These tests judge the reader's verdicts, not its speed (that is `slm bench worker`'s):
    // a budget a loaded test machine cannot miss.
    std::fs::create_dir_all(env.home()).unwrap();
    std::fs::write(
        env.home().join("settings.json"),
        r#"{"answer_check": {"mode": "auto", "budget_ms": 10000}}"#,
    )
    .unwrap();
    env
}

fn seeded(env: &Env) {
    for m in MEMORIES {
        env.remember(m, &[]);
    }
}

fn recall(env: &Env, q: &str) -> Value {
    env.recall(q, &["--explain"])
}

#[test]
fn the_reader_tells_an_answer_from_a_memory_on_the_same_topic() {
    let env = reader_env();
    seeded(&env);
    // Issue 32's three near misses: the same topic, not the answer.
    for q in [
        "When is Maria's birthday?",
        "What port does the production database use?",
        "What is Maria's last name?",
    ] {
        let v = recall(&env, q);
        assert_eq!(v["answer_check_status"], "judged", "{q}: {v}");
        assert_ne!(
            v["tier"], "supported",
            "a near miss is not an answer: {q}: {v}"
        );
        assert!(v["answer_confidence"].as_f64().unwrap() < 0.5, "{q}: {v}");
    }
    for (q, want) in [
        ("what port does staging db use", MEMORIES[1]),
        ("who owns billing?", MEMORIES[2]),
        ("Which database did we choose for analytics?", MEMORIES[0]),
    ] {
        let v = recall(&env, q);
        assert_eq!(v["answer_check_status"], "judged", "{q}: {v}");
        assert_eq!(v["tier"], "supported", "{q}: {v}");
        assert_eq!(v["results"][0]["text"], want, "{q}: {v}");
        assert_eq!(v["answer_check"]["judge"], "local:reader", "{v}");
        // --explain shows what the reader read and what it said of each memory.
        let ex = &v["explain"]["answer_check"];
        assert!(!ex["input"].as_array().unwrap().is_empty(), "{ex}");
        assert!(
            !ex["verdict"]["per_memory"].as_array().unwrap().is_empty(),
            "{ex}"
        );
    }
}

#[test]
fn the_cold_path_says_warming_for_the_reader_and_never_waits_for_it() {
    let env = reader_env().with("SLM_WORKER", "off");
    seeded(&env);
    let v = env.recall("Which database did we choose for analytics?", &[]);
    assert_eq!(v["answer_check_status"], "warming", "{v}");
    assert!(v["answer_confidence"].is_null(), "{v}");
}

#[test]
fn a_broken_reader_is_unavailable_and_doctor_names_the_fix() {
    let base = Env::new();
    let broken = base.dir.path().join("reader");
    std::fs::create_dir_all(&broken).unwrap();
    for f in std::fs::read_dir(reader_dir()).unwrap().flatten() {
        std::fs::copy(f.path(), broken.join(f.file_name())).unwrap();
    }
    // A model file cut short, as a failed copy leaves it.
    let model = broken.join("model.onnx");
    let bytes = std::fs::read(&model).unwrap();
    std::fs::write(&model, &bytes[..bytes.len() / 3]).unwrap();
    let env = base.with("SLM_READER_DIR", broken.to_str().unwrap());
    seeded(&env);
    let out = env.run(&[
        "recall",
        "Which database did we choose for analytics?",
        "--json",
    ]);
    assert_eq!(
        code(&out),
        0,
        "a recall never fails for the reader: {}",
        stderr(&out)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["answer_check_status"], "unavailable", "{v}");
    assert_eq!(v["results"][0]["text"], MEMORIES[0], "{v}");
    let d = env.json(&["doctor"]);
    assert_eq!(d["reader"]["state"], "unavailable", "{d}");
    assert!(
        d["reader"]["fix"].as_str().unwrap().contains("reader_dir"),
        "{d}"
    );
}

#[test]
fn doctor_names_slms_reader_and_its_licence() {
    let d = Env::new().json(&["doctor"]);
    assert_eq!(d["reader"]["state"], "ready", "{d}");
    assert_eq!(d["reader"]["model"], "slm-reader-12l-v2", "{d}");
    assert!(
        d["reader"]["licence"]
            .as_str()
            .unwrap()
            .contains("Apache-2.0"),
        "{d}"
    );
    // The stand-in embedder of plumbing tests runs without one.
    let d = Env::new().with("SLM_EMBEDDER", "hash").json(&["doctor"]);
    assert_eq!(d["reader"]["state"], "not_configured", "{d}");
}

#[test]
fn a_changed_default_reader_is_refused_and_doctor_says_to_run_setup() {
    let base = Env::new();
    // A cache dir like the installed one, whose reader file is not the one slm pins.
    let cache = base.dir.path().join("cache");
    std::fs::create_dir_all(cache.join("models")).unwrap();
    let real = common::cache_dir();
    std::os::unix::fs::symlink(real.join("runtime"), cache.join("runtime")).unwrap();
    for e in std::fs::read_dir(real.join("models")).unwrap().flatten() {
        if e.file_name() != "slm-reader-12l-v2" {
            std::os::unix::fs::symlink(e.path(), cache.join("models").join(e.file_name())).unwrap();
        }
    }
    let mine = cache.join("models/slm-reader-12l-v2");
    std::fs::create_dir_all(&mine).unwrap();
    for f in std::fs::read_dir(reader_dir()).unwrap().flatten() {
        std::fs::copy(f.path(), mine.join(f.file_name())).unwrap();
    }
    // Another model under its name: the base it was trained from.
    std::fs::copy(
        real.join("models/ms-marco-minilm-l12-int8/model.onnx"),
        mine.join("model.onnx"),
    )
    .unwrap();
    let env = base.with("SLM_CACHE_DIR", cache.to_str().unwrap());
    seeded(&env);
    let v = env.recall("Which database did we choose for analytics?", &[]);
    assert_eq!(v["answer_check_status"], "unavailable", "{v}");
    assert_eq!(v["results"][0]["text"], MEMORIES[0], "{v}");
    let d = env.json(&["doctor"]);
    assert_eq!(d["reader"]["state"], "unavailable", "{d}");
    assert!(
        d["reader"]["detail"].as_str().unwrap().contains("sha256"),
        "{d}"
    );
    assert!(
        d["reader"]["fix"].as_str().unwrap().contains("setup.sh"),
        "{d}"
    );
}
