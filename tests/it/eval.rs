//! Issue 6: the evaluation harness runs on our own small fixture and its JSON has the
//! documented fields; data quirks are counted, never a crash.

use crate::common::*;

#[test]
fn eval_locomo_runs_counts_quirks_and_reports_every_field() {
    let env = Env::new();
    let f = fixture("mini-locomo.json");
    let a = fixture("mini-audit.json");
    let v = env.json(&[
        "eval",
        "locomo",
        f.to_str().unwrap(),
        "--audit",
        a.to_str().unwrap(),
        "--baseline",
        "bm25,dense",
        "--k",
        "1,3",
    ]);
    assert_eq!(v["questions"], 9, "{v}");
    let q = &v["quirks"];
    assert_eq!(q["malformed_evidence"], 2, "\"D1:2; D2:1\" and \"D\": {q}");
    assert_eq!(q["unresolved_evidence"], 1, "D9:9: {q}");
    assert_eq!(
        q["no_evidence"], 3,
        "\"D\" and D9:9 resolve to nothing, and the category-3 question has none: {q}"
    );
    assert_eq!(q["audit_mismatch"], 1);
    for k in [
        "by_category",
        "answerable",
        "answerable_audited",
        "latency_ms",
        "baselines",
        "threshold_tradeoff",
        "adversarial_not_supported",
    ] {
        assert!(!v[k].is_null(), "{k} missing");
    }
    let ans = &v["answerable"];
    for k in ["recall_at", "hit_at", "mrr", "supported", "related", "none"] {
        assert!(!ans[k].is_null(), "answerable.{k} missing");
    }
    assert!(ans["recall_at"]["1"].is_number() && ans["recall_at"]["3"].is_number());
    assert!(v["baselines"]["bm25"]["recall_at"]["3"].is_number());
    assert!(v["baselines"]["dense"]["recall_at"]["3"].is_number());
    // The audit adds evidence to a question that had none that resolved.
    assert!(
        v["answerable_audited"]["with_evidence"].as_u64()
            > v["answerable"]["with_evidence"].as_u64()
    );
    let md = env.run(&["eval", "locomo", f.to_str().unwrap()]);
    let s = String::from_utf8_lossy(&md.stdout);
    assert!(
        s.contains("| category |") && s.contains("latency ms"),
        "{s}"
    );
}

#[test]
fn eval_locomo_conversation_filter_and_bad_input() {
    let env = Env::new();
    let f = fixture("mini-locomo.json");
    let v = env.json(&[
        "eval",
        "locomo",
        f.to_str().unwrap(),
        "--conversations",
        "mini-2",
    ]);
    assert_eq!(v["questions"], 2);
    let out = env.run(&[
        "eval",
        "locomo",
        f.to_str().unwrap(),
        "--conversations",
        "nope",
    ]);
    assert_eq!(code(&out), 2);
    let out = env.run(&["eval", "locomo", f.to_str().unwrap(), "--baseline", "magic"]);
    assert_eq!(code(&out), 2);
    let out = env.run(&["eval", "locomo", f.to_str().unwrap(), "--ranking", "v9"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
}

#[test]
fn eval_locomo_ranking_reports_each_mode_against_off() {
    let env = Env::new();
    let f = fixture("mini-locomo.json");
    let v = env.json(&["eval", "locomo", f.to_str().unwrap(), "--ranking", "all"]);
    let rows = v["ranking"]["rows"].as_array().expect("ranking rows");
    let modes: Vec<&str> = rows.iter().filter_map(|r| r["mode"].as_str()).collect();
    assert_eq!(modes, ["off", "v1", "v2", "v2-ensemble"], "{v}");
    // Every mode is scored on the same held-out questions as off.
    let n = rows[0]["questions"].as_u64().expect("questions");
    assert!(n > 0, "{v}");
    assert!(
        rows.iter().all(|r| r["questions"].as_u64() == Some(n)),
        "{v}"
    );
    assert!(v["ranking"]["train_questions"].as_u64() > Some(0), "{v}");
}

#[test]
fn eval_questions_counts_expectations_and_lists_failures() {
    let env = Env::new();
    let v = env.json(&[
        "eval",
        "questions",
        fixture("questions.txt").to_str().unwrap(),
        "--expect",
        "not-supported",
        "--store",
        fixture("mini-locomo.json").to_str().unwrap(),
    ]);
    assert_eq!(
        v["questions"], 3,
        "comments and blank lines are skipped: {v}"
    );
    let met = v["met"].as_u64().unwrap();
    assert_eq!(met as usize + v["failures"].as_array().unwrap().len(), 3);
    assert_eq!(
        code(&env.run(&[
            "eval",
            "questions",
            fixture("questions.txt").to_str().unwrap(),
            "--expect",
            "maybe"
        ])),
        2
    );
}

#[test]
fn bench_commands_run_and_report_their_fields() {
    let env = Env::new();
    let f = fixture("mini-locomo.json");
    let v = env.json(&[
        "bench",
        "ingest",
        "--memories",
        "40",
        "--data",
        f.to_str().unwrap(),
    ]);
    for k in [
        "memories_per_s_with_embeddings",
        "seconds_until_all_findable_by_meaning",
        "ack_to_keyword_findable_ms_p50",
        "store_mb",
        "peak_rss_mb",
    ] {
        assert!(v[k].is_number(), "{k} missing: {v}");
    }
    assert_eq!(v["pending_embeddings_after"], 0);
    let v = env.json(&[
        "bench",
        "recall",
        "--memories",
        "30",
        "--questions",
        "4",
        "--concurrency",
        "1,2",
        "--data",
        f.to_str().unwrap(),
    ]);
    assert_eq!(v["runs"].as_array().map(|r| r.len()), Some(2), "{v}");
    assert!(v["runs"][0]["stages_ms"]["end_to_end"]["p50"].is_number());
    assert!(v["rss_mb"].is_number() && v["store_mb"].is_number());
}
