//! The questions' encoder (issue 34), with the real models setup installs. No fast encoder
//! ships yet, so these tests install EmbeddingGemma itself as a query encoder that pairs with
//! it (the same graph and tokenizer, a manifest naming `pairs_with`): the cold path then
//! searches the stored vectors (no "warming" when they exist), memories saved since the worker
//! last ran keep the answer warming and never "none", an encoder that pairs with another memory
//! model is refused with doctor naming the fix, and `model.query: full` keeps questions on the
//! memory model. Without an encoder, nothing changes.

use crate::common::{self, Env};
use serde_json::Value;
use std::path::Path;

/// A query encoder directory: the installed EmbeddingGemma's files, with a manifest that
/// pairs it with `pairs_with`.
fn encoder(pairs_with: &str) -> tempfile::TempDir {
    let gemma = common::cache_dir()
        .join("models")
        .join("embeddinggemma-300m-int8");
    assert!(
        gemma.join("model.onnx").is_file(),
        "EmbeddingGemma is not installed in {}: run scripts/setup.sh",
        gemma.display()
    );
    let dir = tempfile::tempdir().unwrap();
    for f in [
        "model.onnx",
        "model.onnx.data",
        "tokenizer.json",
        "tokenizer.slm-bpe",
    ] {
        if gemma.join(f).is_file() {
            std::os::unix::fs::symlink(gemma.join(f), dir.path().join(f)).unwrap();
        }
    }
    let mut m: Value =
        serde_json::from_slice(&std::fs::read(gemma.join("slm-model.json")).unwrap()).unwrap();
    m["id"] = "test-query-encoder".into();
    m["pairs_with"] = pairs_with.into();
    std::fs::write(dir.path().join("slm-model.json"), m.to_string()).unwrap();
    dir
}

fn with_encoder(dir: &Path) -> Env {
    Env::new().with("SLM_QUERY_ENCODER_DIR", dir.to_str().unwrap())
}

fn semantic_ran(v: &Value) -> bool {
    v["channel_status"]["semantic"]["status"] == "ok"
}

#[test]
fn the_cold_path_searches_the_stored_vectors_with_a_query_encoder() {
    let enc = encoder("embeddinggemma-300m-int8");
    let env = with_encoder(enc.path());
    // Saved with the memory model loaded (inline), so its vector is stored.
    let id = env.remember("We picked Postgres for the analytics warehouse", &[]);
    env.remember("The office plants are watered on Mondays", &[]);
    // Words the memory does not carry: only the vector channel can find it.
    let v = env.recall("Which database holds our reporting data?", &["--no-worker"]);
    assert_eq!(v["served_by"], "cold", "{v}");
    assert!(semantic_ran(&v), "vector search ran: {v}");
    assert_eq!(v["warming_up"], false, "{v}");
    assert_eq!(common::ids(&v).first(), Some(&id), "{v}");
    let d = env.json(&["doctor"]);
    assert_eq!(d["query_encoder"]["state"], "fast", "{d}");
    assert_eq!(d["query_encoder"]["id"], "test-query-encoder", "{d}");
    assert_eq!(d["query_encoder"]["pairs_with"], "embeddinggemma-300m-int8");
}

#[test]
fn a_memory_saved_while_the_worker_was_away_keeps_the_cold_answer_warming() {
    let enc = encoder("embeddinggemma-300m-int8");
    let env = with_encoder(enc.path());
    env.remember("The office plants are watered on Mondays", &[]);
    // Saved cold: no vector until a process with the memory model embeds it.
    env.remember("Lena's badge number is 4471", &["--no-worker"]);
    let v = env.recall("Which number opens doors for Lena?", &["--no-worker"]);
    assert!(semantic_ran(&v), "{v}");
    assert_eq!(v["warming_up"], true, "{v}");
    assert_ne!(
        v["tier"], "none",
        "never 'not in memory' while one waits: {v}"
    );
    let note = v["note"].as_str().unwrap_or_default();
    assert!(
        note.contains("1 memory saved while the worker was away"),
        "{v}"
    );
    // Once embedded (an inline command loads the memory model and catches up), the cold
    // answer is whole again.
    env.run(&["reindex"]);
    let v = env.recall("Which number opens doors for Lena?", &["--no-worker"]);
    assert_eq!(v["warming_up"], false, "{v}");
}

#[test]
fn an_encoder_that_pairs_with_another_memory_model_is_refused_and_doctor_names_the_fix() {
    let enc = encoder("some-other-memory-model");
    let env = with_encoder(enc.path());
    let id = env.remember("We picked Postgres for the analytics warehouse", &[]);
    // The cold path will not search the vectors with it: keyword search, labelled warming.
    let v = env.recall("Which database holds our reporting data?", &["--no-worker"]);
    assert!(!semantic_ran(&v), "{v}");
    assert_eq!(v["warming_up"], true, "{v}");
    // With the memory model loaded, questions go through it instead, and still find it.
    let v = env.recall("Which database holds our reporting data?", &[]);
    assert!(semantic_ran(&v), "{v}");
    assert_eq!(common::ids(&v).first(), Some(&id), "{v}");
    let d = env.json(&["doctor"]);
    assert_eq!(d["query_encoder"]["state"], "mismatch", "{d}");
    assert!(
        d["query_encoder"]["fix"]
            .as_str()
            .is_some_and(|f| f.contains("\"query\": \"full\"")),
        "{d}"
    );
    let text = String::from_utf8(env.run(&["doctor"]).stdout).unwrap();
    assert!(
        text.contains("FIX questions") && text.contains("some-other-memory-model"),
        "{text}"
    );
}

#[test]
fn model_query_full_keeps_questions_on_the_memory_model() {
    let enc = encoder("embeddinggemma-300m-int8");
    let env = with_encoder(enc.path());
    env.remember("We picked Postgres for the analytics warehouse", &[]);
    std::fs::write(env.path("settings.json"), r#"{"model": {"query": "full"}}"#).unwrap();
    let d = env.json(&["doctor"]);
    assert_eq!(d["query_encoder"]["state"], "full", "{d}");
    // The cold path does not load the memory model: keyword search, labelled warming.
    let v = env.recall("Which database holds our reporting data?", &["--no-worker"]);
    assert!(!semantic_ran(&v), "{v}");
    // A bad value is a clear error, not a silent default.
    std::fs::write(
        env.path("settings.json"),
        r#"{"model": {"query": "quick"}}"#,
    )
    .unwrap();
    let d = env.json(&["doctor"]);
    assert_eq!(d["query_encoder"]["state"], "broken", "{d}");
    assert!(
        d["query_encoder"]["detail"]
            .as_str()
            .is_some_and(|t| t.contains("model.query")),
        "{d}"
    );
}

#[test]
fn without_an_encoder_nothing_changes_and_nothing_needs_fixing() {
    let env = Env::new();
    env.remember("We picked Postgres for the analytics warehouse", &[]);
    let d = env.json(&["doctor"]);
    assert_eq!(d["query_encoder"]["state"], "none", "{d}");
    assert!(d["query_encoder"]["fix"].is_null(), "{d}");
    let text = String::from_utf8(env.run(&["doctor"]).stdout).unwrap();
    assert!(!text.contains("FIX"), "{text}");
    // The cold path answers from keyword search, labelled warming, as before.
    let v = env.recall(
        "Which database did we pick for analytics?",
        &["--no-worker"],
    );
    assert!(!semantic_ran(&v), "{v}");
    assert_eq!(v["warming_up"], true, "{v}");
}

#[test]
fn eval_runs_both_encoders_on_the_same_stores_side_by_side() {
    let f = common::fixture("mini-locomo.json");
    let args = [
        "eval",
        "locomo",
        f.to_str().unwrap(),
        "--query-encoder",
        "full,fast",
    ];
    // Without an encoder, asking for the fast one is an error, not a silent full run.
    let v = Env::new().json(&args);
    assert_eq!(v["error"]["code"], "BAD_INPUT", "{v}");
    // With EmbeddingGemma as its own encoder, both runs are there and agree.
    let enc = encoder("embeddinggemma-300m-int8");
    let v = with_encoder(enc.path()).json(&args);
    let rows = v["query_encoders"].as_array().expect("side by side");
    assert_eq!(rows.len(), 2, "{v}");
    assert_eq!(rows[0]["name"], "query encoder: full");
    assert_eq!(rows[1]["name"], "query encoder: fast");
    for k in ["recall_at_5", "recall_at_10", "session_recall_at_5"] {
        let (a, b) = (rows[0][k].as_f64().unwrap(), rows[1][k].as_f64().unwrap());
        assert!((a - b).abs() < 1e-9, "{k}: {a} vs {b}");
    }
}
