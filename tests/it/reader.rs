//! A reader as the answer check's judge (issue 32), with the real models: the
//! ms-marco MiniLM cross-encoder that `scripts/setup.sh` installs to try. It reads the
//! question with each of the top three memories; a memory it says does not answer is not
//! "supported"; a missing or broken reader costs the verdict, never the recall.

use crate::common::{self, Env, code, stderr};
use serde_json::Value;
use std::path::PathBuf;

const MEMORIES: [&str; 3] = [
    "We chose Postgres for the analytics warehouse",
    "The staging database listens on port 5433",
    "Maria owns the billing service",
];

/// The reader `scripts/setup.sh` installs.
fn reader_dir() -> PathBuf {
    common::cache_dir().join("models/ms-marco-minilm-l12-int8")
}

fn reader_env() -> Env {
    let env = Env::new().with("SLM_READER_DIR", reader_dir().to_str().unwrap());
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
    // (This reader says the staging note answers "What port does the production database
    // use?"; docs/answer-check.md's figures count such misses. These two it reads right.)
    for q in ["When is Maria's birthday?", "What is Maria's last name?"] {
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
fn without_a_reader_doctor_says_none_is_configured() {
    let env = Env::new();
    let d = env.json(&["doctor"]);
    assert_eq!(d["reader"]["state"], "not_configured", "{d}");
}
