//! Duplicates (issue 35): saving a text already stored (same profile, scope and session,
//! whitespace collapsed and case folded) acknowledges the memory that holds it, marks it
//! seen again and stores nothing; idempotency keys work as before; imports count
//! duplicates as already present.

use crate::common::{Env, code, stderr};

fn env() -> Env {
    Env::new().with("SLM_EMBEDDER", "hash")
}

fn count(env: &Env) -> usize {
    env.json(&["list"])["memories"].as_array().unwrap().len()
}

#[test]
fn the_same_text_again_is_acknowledged_as_the_memory_that_holds_it() {
    let env = env();
    let first = env.remember("We chose Postgres for the analytics warehouse", &[]);
    let out = env.run(&[
        "remember",
        "  we chose postgres\nfor the ANALYTICS   warehouse ",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("already remembered as {first} (the same text)")
    );
    let v = env.json(&["remember", "We chose Postgres for the analytics warehouse"]);
    assert_eq!(v["duplicate_of"], first, "{v}");
    assert_eq!(v["existed"], true, "{v}");
    assert_eq!(v["id"], first, "{v}");
    assert_eq!(count(&env), 1);
    let m = &env.json(&["show", &first.to_string()])["memory"];
    assert_eq!(m["seen_count"], 3, "{m}");
    assert!(m["last_seen_at"].as_i64().is_some(), "{m}");
    // A new text is new, and says nothing of duplicates.
    let v = env.json(&["remember", "We chose MySQL for the analytics warehouse"]);
    assert!(v.get("duplicate_of").is_none(), "{v}");
    assert_eq!(v["existed"], false, "{v}");
}

#[test]
fn another_profile_scope_or_session_is_another_memory() {
    let env = env();
    let text = "The standup moved to 9:30";
    let a = env.remember(text, &[]);
    let b = env.remember(text, &["--profile", "work"]);
    let c = env.remember(text, &["--scope", "shared"]);
    let d = env.remember(text, &["--session", "s1"]);
    let ids = [a, b, c, d];
    for (i, x) in ids.iter().enumerate() {
        for y in &ids[i + 1..] {
            assert_ne!(x, y, "{ids:?}");
        }
    }
    // The same session again is the same memory.
    assert_eq!(env.remember(text, &["--session", "s1"]), d);
}

#[test]
fn idempotency_keys_work_as_before() {
    let env = env();
    let a = env.remember("Deploys freeze on Fridays", &["--idempotency-key", "k1"]);
    // The key answers, whatever the text.
    let v = env.json(&["remember", "Something else", "--idempotency-key", "k1"]);
    assert_eq!(v["id"], a, "{v}");
    assert_eq!(v["existed"], true, "{v}");
    assert!(v.get("duplicate_of").is_none(), "{v}");
    // A new key with a text already stored is that memory: nothing new is stored.
    let v = env.json(&[
        "remember",
        "deploys freeze on fridays",
        "--idempotency-key",
        "k2",
    ]);
    assert_eq!(v["duplicate_of"], a, "{v}");
    assert_eq!(count(&env), 1);
}

#[test]
fn the_words_of_a_corrected_memory_again_are_a_new_memory() {
    let env = env();
    let old = env.remember("Staging listens on port 6543", &[]);
    let new = env.remember(
        "Staging listens on port 6544",
        &["--supersedes", &old.to_string()],
    );
    // Going back: the old words, saved again, stand as a new memory.
    let back = env.remember("Staging listens on port 6543", &[]);
    assert_ne!(back, old);
    assert_ne!(back, new);
}

#[test]
fn an_import_counts_duplicates_as_already_present() {
    let env = env();
    // Saved outside any project, like the import's lines (which name none).
    env.remember(
        "The billing team moved to the fourth floor",
        &["--all-projects"],
    );
    let file = env.dir.path().join("in.jsonl");
    std::fs::write(
        &file,
        "{\"text\":\"the billing team moved to the fourth floor\"}\n\
         {\"text\":\"Invoices go out on the first of the month\"}\n\
         {\"text\":\"Invoices  go out on the first of the month\"}\n",
    )
    .unwrap();
    let v = env.json(&["import", file.to_str().unwrap()]);
    assert_eq!(v["imported"], 1, "{v}");
    assert_eq!(v["already_present"], 2, "{v}");
    assert_eq!(count(&env), 2);
}

#[test]
fn a_store_from_before_duplicates_finds_its_old_texts() {
    let env = env();
    let a = env.remember("The office closes at six", &[]);
    // Take the store back to schema 7, as an older slm left it.
    {
        let c = rusqlite::Connection::open(env.path("store.db")).expect("store");
        c.execute_batch(
            "DROP TABLE pictures; DROP TABLE views; DROP INDEX memories_project; ALTER TABLE memories DROP COLUMN project; \
             DROP INDEX memories_dedup; ALTER TABLE memories DROP COLUMN dedup_hash; \
             ALTER TABLE memories DROP COLUMN seen_count; ALTER TABLE memories DROP COLUMN last_seen_at; \
             PRAGMA user_version = 7;",
        )
        .expect("downgrade");
    }
    let v = env.json(&["remember", "the office closes at SIX"]);
    assert_eq!(v["duplicate_of"], a, "{v}");
}
