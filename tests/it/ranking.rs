//! Learned ranking modes (issue 15): off unless SLM_RANKING asks, per profile, undone by
//! `slm feedback --forget`, never turned on by a store upgrade, and bad ids change nothing.
//!
//! These tests are about plumbing and isolation, not about whether learning helps (that is
//! `slm eval locomo --ranking`), so they run the cold path without the worker
//! (`SLM_WORKER=off`): keyword search ranks, which keeps the order easy to reason about and
//! each command fast. The learned mode reorders that keyword order exactly as it would a
//! fused one.

use crate::common::*;
use serde_json::Value;

/// Four memories that all match "deploy"; the decision is the longest, so BM25 ranks it
/// last. Returns the decision's id.
fn deploy_notes(env: &Env, profile: &str) -> i64 {
    let p = ["--profile", profile];
    env.remember("deploy checklist: run migrations first", &p);
    env.remember("deploy window: Tuesday afternoon", &p);
    env.remember("deploy rollback: previous image tag", &p);
    let mut extra = vec!["--kind", "decision"];
    extra.extend_from_slice(&p);
    env.remember(
        "We decided that every deploy announcement, with the list of services it touches, the person on call and the expected duration, goes to the #ops channel before anything starts",
        &extra,
    )
}

fn keyword_env() -> Env {
    Env::new().with("SLM_WORKER", "off")
}

/// The listed ids in order (results, then weak/related matches).
fn listed(v: &Value) -> Vec<i64> {
    let mut out = ids(v);
    for r in v["weak"].as_array().into_iter().flatten() {
        out.push(r["id"].as_i64().expect("id"));
    }
    out
}

fn recall_with(env: &Env, profile: &str, ranking: Option<&str>) -> Value {
    let mut c = env.cmd(&[
        "recall",
        "deploy",
        "--json",
        "--profile",
        profile,
        "--explain",
    ]);
    if let Some(m) = ranking {
        c.env("SLM_RANKING", m);
    }
    let out = c.output().expect("slm runs");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).expect("json")
}

/// Ask `n` times and mark `target` good each time.
fn mark_good(env: &Env, profile: &str, target: i64, n: usize) {
    for _ in 0..n {
        let v = recall_with(env, profile, None);
        let rid = v["recall_id"].as_str().expect("recall_id").to_string();
        let out = env.run(&[
            "feedback",
            &rid,
            &target.to_string(),
            "good",
            "--profile",
            profile,
        ]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
}

#[test]
fn learned_ranking_is_per_profile_off_unless_asked_and_forgotten_on_request() {
    let env = keyword_env();
    let a_target = deploy_notes(&env, "a");
    let b_target = deploy_notes(&env, "b");

    let a_before = listed(&recall_with(&env, "a", Some("v2")));
    let b_off = listed(&recall_with(&env, "b", None));
    assert!(b_off.len() >= 2, "{b_off:?}");
    assert_ne!(b_off[0], b_target, "the decision must start below the top");

    mark_good(&env, "b", b_target, 10);

    // B asked for v2 with ten marks: the decision moves up.
    let b_v2 = recall_with(&env, "b", Some("v2"));
    assert_eq!(
        b_v2["ranking_mode"]["applied"], true,
        "{}",
        b_v2["ranking_mode"]
    );
    let pos = |v: &[i64]| v.iter().position(|id| *id == b_target);
    assert!(pos(&listed(&b_v2)) < pos(&b_off), "{b_off:?} → {b_v2}");
    let moved = b_v2["explain"]["ranking"]
        .as_array()
        .expect("explain.ranking");
    let t = moved
        .iter()
        .find(|a| a["id"] == b_target)
        .unwrap_or_else(|| panic!("{moved:?}"));
    assert!(
        t["final_position"].as_u64() < t["fused_position"].as_u64(),
        "{t}"
    );

    // Off by default: the same profile without SLM_RANKING keeps the fused order.
    let b_default = recall_with(&env, "b", None);
    assert_eq!(b_default["ranking_mode"]["requested"], "off");
    assert_eq!(b_default["ranking_mode"]["applied"], false);
    assert_eq!(listed(&b_default), b_off);

    // A's order never moved: B's marks are B's.
    let a_after = recall_with(&env, "a", Some("v2"));
    assert_eq!(a_after["ranking_mode"]["applied"], false);
    assert_eq!(a_after["ranking_mode"]["feedback"], 0.0);
    assert_eq!(listed(&a_after), a_before);
    assert_ne!(listed(&a_after)[0], a_target);

    // Forgetting B's feedback returns B to the fused order.
    let out = env.run(&["feedback", "--forget", "--profile", "b"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let b_forgot = recall_with(&env, "b", Some("v2"));
    assert_eq!(b_forgot["ranking_mode"]["applied"], false);
    assert_eq!(listed(&b_forgot), b_off);
    let list = env.json(&["feedback", "--list", "--all-profiles"]);
    assert_eq!(list["feedback"].as_array().map(Vec::len), Some(0), "{list}");
}

#[test]
fn an_upgraded_store_with_feedback_still_ranks_by_fusion_unless_asked() {
    let env = keyword_env();
    let target = deploy_notes(&env, "default");
    // Take the store back to schema 3 (before feedback existed), as an older slm left it.
    {
        let c = rusqlite::Connection::open(env.path("store.db")).expect("store");
        c.execute_batch(
            "DROP TABLE feedback; DROP TABLE recall_log; DROP TABLE ranking_models; \
             DROP INDEX memories_embedding_model; DROP INDEX memories_baseline_n; \
             DROP TRIGGER passages_follow_context_text; DROP TRIGGER passages_follow_context_delete; \
             DROP TRIGGER passages_follow_memories; DROP INDEX memories_pending_passages; \
             DROP TABLE passages; ALTER TABLE memories DROP COLUMN passages_model; \
             DROP INDEX memories_dedup; ALTER TABLE memories DROP COLUMN dedup_hash; \
             ALTER TABLE memories DROP COLUMN seen_count; ALTER TABLE memories DROP COLUMN last_seen_at; \
             DROP INDEX memories_project; ALTER TABLE memories DROP COLUMN project; DROP TABLE views; DROP TABLE pictures; \
             PRAGMA user_version = 3;",
        )
        .expect("downgrade");
    }
    let before = listed(&recall_with(&env, "default", None));
    mark_good(&env, "default", target, 12);
    let after = recall_with(&env, "default", None);
    assert_eq!(after["ranking_mode"]["requested"], "off");
    assert_eq!(after["ranking_mode"]["applied"], false);
    assert_eq!(listed(&after), before);
    // The marks are there and would be used if asked.
    let asked = recall_with(&env, "default", Some("v2-ensemble"));
    assert_eq!(
        asked["ranking_mode"]["applied"], true,
        "{}",
        asked["ranking_mode"]
    );
}

#[test]
fn bad_feedback_ids_are_usage_errors_and_write_nothing() {
    let env = keyword_env();
    let target = deploy_notes(&env, "default");
    let other = env.remember("unrelated: the office plant needs water", &[]);
    let elsewhere = deploy_notes(&env, "elsewhere");
    let rid = recall_with(&env, "default", None)["recall_id"]
        .as_str()
        .expect("recall_id")
        .to_string();
    let t = target.to_string();
    for args in [
        vec!["feedback", "r0000000000000000", t.as_str(), "good"], // no such recall
        vec!["feedback", "not-a-recall", t.as_str(), "good"],      // malformed id
        vec!["feedback", rid.as_str(), &other.to_string(), "good"], // not in that recall
        vec!["feedback", rid.as_str(), "999999", "good"],          // no such memory
        vec!["feedback", rid.as_str(), "x", "good"],               // not a number
        vec!["feedback", rid.as_str(), t.as_str(), "great"],       // not good|bad
        vec!["feedback", rid.as_str()],                            // incomplete
    ]
    .iter()
    .map(|a| a.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = env.run(&a);
        assert_eq!(code(&out), 2, "{a:?}: {}", stderr(&out));
    }
    // Another profile's recall is not found from this one, and its memory is not ours.
    let rid_elsewhere = recall_with(&env, "elsewhere", None)["recall_id"]
        .as_str()
        .expect("recall_id")
        .to_string();
    let out = env.run(&["feedback", &rid_elsewhere, &elsewhere.to_string(), "good"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let list = env.json(&["feedback", "--list", "--all-profiles"]);
    assert_eq!(list["feedback"].as_array().map(Vec::len), Some(0), "{list}");
    // And a good one is recorded.
    let out = env.run(&["feedback", &rid, &t, "good"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let list = env.json(&["feedback", "--list"]);
    assert_eq!(list["feedback"][0]["memory_id"], target, "{list}");
    assert_eq!(list["feedback"][0]["source"], "explicit");
}

#[test]
fn showing_a_listed_result_soon_after_is_a_weak_positive() {
    let env = keyword_env();
    deploy_notes(&env, "default");
    let unlisted = env.remember("the office plant needs water on Mondays", &[]);
    let v = recall_with(&env, "default", None);
    let first = listed(&v)[0];
    assert_eq!(code(&env.run(&["show", &first.to_string()])), 0);
    assert_eq!(code(&env.run(&["show", &unlisted.to_string()])), 0);
    let list = env.json(&["feedback", "--list"]);
    let rows = list["feedback"].as_array().expect("feedback");
    assert_eq!(rows.len(), 1, "{list}");
    assert_eq!(rows[0]["memory_id"], first);
    assert_eq!(rows[0]["source"], "implicit");
    assert_eq!(rows[0]["recall_id"], v["recall_id"]);
}

#[test]
fn an_unknown_ranking_mode_is_a_usage_error() {
    let env = keyword_env();
    env.remember("hello world", &[]);
    let out = env
        .cmd(&["recall", "hello"])
        .env("SLM_RANKING", "v9")
        .output()
        .unwrap();
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("SLM_RANKING"), "{}", stderr(&out));
    let v = recall_with(&env, "default", Some("v1"));
    assert_eq!(v["ranking_mode"]["requested"], "v1");
    assert_eq!(v["ranking_mode"]["applied"], false);
    assert!(
        v["ranking_mode"]["note"]
            .as_str()
            .expect("note")
            .contains("feedback marks"),
        "{v}"
    );
}
