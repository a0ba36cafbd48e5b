//! Issue 3 and 4: the recall pipeline's stages and the support tiers, on small fixtures
//! written for each producer, with the real model and a pinned clock.

use crate::common::*;
use serde_json::Value;

fn channel_ids(v: &Value, ch: &str) -> Vec<i64> {
    v["explain"]["channels"][ch]
        .as_array()
        .map(|a| a.iter().filter_map(|p| p[0].as_i64()).collect())
        .unwrap_or_default()
}

fn channel_score(v: &Value, ch: &str, id: i64) -> Option<f64> {
    v["explain"]["channels"][ch]
        .as_array()?
        .iter()
        .find(|p| p[0].as_i64() == Some(id))
        .and_then(|p| p[1].as_f64())
}

#[test]
fn names_and_codes_are_found_by_bm25_not_by_cosine() {
    let env = Env::new();
    let planning = env.remember("The quarterly planning meeting went well", &[]);
    let id = env.remember("Ticket BILL-4471 is blocked on legal review", &[]);
    let v = env.recall("BILL-4471", &["--explain"]);
    assert_eq!(ids(&v).first(), Some(&id), "{v}");
    // BM25 finds the code first, whatever the model makes of it (MiniLM puts a bare code far
    // from the memory, cos < 0.60; EmbeddingGemma reads the token and puts it at ~0.63).
    assert_eq!(channel_ids(&v, "bm25").first(), Some(&id), "{v}");
    let planning_cos = channel_score(&v, "semantic", planning).unwrap_or(0.0);
    let cos = channel_score(&v, "semantic", id).unwrap_or(0.0);
    assert!(
        cos > planning_cos,
        "the memory with the code is closer than one without it ({cos} vs {planning_cos})"
    );
}

#[test]
fn paraphrases_are_found_by_cosine_not_by_bm25() {
    let env = Env::new();
    let id = env.remember("Our flight to Lisbon leaves early on Tuesday morning", &[]);
    env.remember("The dentist appointment was moved", &[]);
    let v = env.recall("When does the plane to Portugal depart?", &["--explain"]);
    assert!(
        !channel_ids(&v, "bm25").contains(&id),
        "no shared words, BM25 must not find it: {v}"
    );
    assert!(channel_ids(&v, "semantic").first() == Some(&id), "{v}");
}

#[test]
fn last_friday_is_found_by_the_temporal_producer() {
    let env = Env::new();
    let friday = env.remember(
        "We decided to ship the beta to ten customers",
        &["--at", "2023-05-05T15:00:00Z"],
    );
    let older = env.remember(
        "We decided to hire a second designer",
        &["--at", "2023-04-20T15:00:00Z"],
    );
    let v = env.recall("What did we decide last Friday?", &["--explain"]);
    let t = channel_ids(&v, "temporal");
    assert_eq!(t.first(), Some(&friday), "{v}");
    assert_eq!(ids(&v).first(), Some(&friday), "{v}");
    assert!(
        !t.contains(&older)
            || t.iter().position(|x| *x == older) > t.iter().position(|x| *x == friday)
    );
}

#[test]
fn spreading_activation_reaches_a_linked_memory() {
    let env = Env::new();
    let a = env.remember("Caroline adopted a rescue dog named Biscuit", &[]);
    let b = env.remember("Biscuit won first place at the agility show", &[]);
    env.remember("The weather in the city was rainy all week", &[]);
    let v = env.recall("What did Caroline adopt?", &["--explain"]);
    assert!(ids(&v).contains(&a), "{v}");
    let s = channel_ids(&v, "spreading");
    assert!(
        s.contains(&b),
        "Biscuit's show is one hop from the adoption via the shared entity: {v}"
    );
}

#[test]
fn associative_only_hits_do_not_pass_the_floor() {
    let env = Env::new();
    let a = env.remember("Caroline adopted a rescue dog named Biscuit", &[]);
    let b = env.remember("Biscuit won first place at the agility show", &[]);
    let v = env.recall("What did Caroline adopt?", &["--explain"]);
    // The fixture: `b` shares no query word and is far from the question in meaning (its
    // cosine is under the floor); it is reached through `a` (spreading activation over the
    // shared entity "Biscuit").
    let channel_ids = |name: &str| -> Vec<i64> {
        v["explain"]["channels"][name]
            .as_array()
            .map(|hits| hits.iter().filter_map(|h| h[0].as_i64()).collect())
            .unwrap_or_default()
    };
    assert!(
        channel_ids("spreading").contains(&b),
        "b is an associative hit: {v}"
    );
    assert!(
        !channel_ids("bm25").contains(&b),
        "b has no keyword evidence: {v}"
    );
    // The floor saw it and dropped it, and it is not in the results; `a` is.
    let floor = v["explain"]["floor"].as_array().expect("explain.floor");
    let verdict = floor
        .iter()
        .find(|f| f["id"] == b)
        .unwrap_or_else(|| panic!("b never reached the floor: {v}"));
    assert_eq!(verdict["kept"], false, "{verdict}");
    let why = verdict["because"][0].as_str().unwrap_or("");
    assert!(
        why == "associative only (spreading/hopfield)"
            || why == "semantic below floor, no other evidence",
        "{verdict}"
    );
    assert!(!ids(&v).contains(&b), "{v}");
    assert_eq!(ids(&v).first(), Some(&a), "{v}");
}

#[test]
fn a_failed_producer_does_not_fail_the_recall() {
    let env = Env::new().with("SLM_TEST_CHANNEL_FAIL", "semantic,hopfield");
    let id = env.remember("Ticket BILL-4471 is blocked on legal review", &[]);
    let v = env.recall("BILL-4471 legal", &[]);
    assert_eq!(v["channel_status"]["semantic"]["status"], "failed", "{v}");
    assert_eq!(v["channel_status"]["bm25"]["status"], "ok");
    assert!(ids(&v).contains(&id));
    // Without vector search nothing was measured: never "isn't in memory".
    assert_eq!(v["warming_up"], true);
}

#[test]
fn a_slow_producer_is_reported_timed_out() {
    let env = Env::new().with("SLM_TEST_CHANNEL_DELAY", "temporal:3500");
    env.remember("We decided to ship the beta", &["--at", "2023-05-05"]);
    let v = env.recall("What did we decide last Friday?", &[]);
    assert_eq!(
        v["channel_status"]["temporal"]["status"], "timed_out",
        "{v}"
    );
    assert!(!ids(&v).is_empty());
}

#[test]
fn filters_and_profiles_do_not_leak() {
    // Visibility and time filters act before any tier: judge them on the ungated list.
    let env = Env::new().with("SLM_RECALL_NO_SUPPORT_GATE", "1");
    let mine = env.remember(
        "Deploy notes for the payments service",
        &["--at", "2023-05-01"],
    );
    let old = env.remember(
        "Deploy notes for the payments service, first draft",
        &["--at", "2022-01-01"],
    );
    let theirs = env.remember(
        "Deploy notes for the payments service from Bob",
        &["--profile", "bob"],
    );
    let shared = env.remember(
        "Shared deploy notes for the payments service",
        &["--profile", "bob", "--scope", "shared"],
    );
    let v = env.recall("payments deploy notes", &[]);
    let got = ids(&v);
    assert!(
        got.contains(&mine) && !got.contains(&theirs) && !got.contains(&shared),
        "{v}"
    );
    let v = env.recall("payments deploy notes", &["--include-shared"]);
    assert!(
        ids(&v).contains(&shared) && !ids(&v).contains(&theirs),
        "{v}"
    );
    let v = env.recall(
        "payments deploy notes",
        &["--window", "2023-01-01..2023-06-01"],
    );
    assert!(ids(&v).contains(&mine) && !ids(&v).contains(&old), "{v}");
    let v = env.recall("payments deploy notes", &["--as-of", "2022-06-01"]);
    assert!(ids(&v).contains(&old) && !ids(&v).contains(&mine), "{v}");
    let v = env.recall("payments deploy notes", &["--known-as-of", "2020-01-01"]);
    assert!(ids(&v).is_empty(), "nothing was known in 2020: {v}");
}

#[test]
fn corrections_replace_what_they_correct() {
    let env = Env::new();
    let old = env.remember("The staging database runs on port 5433", &[]);
    let new = env.remember(
        "Correction: the staging database runs on port 6543",
        &["--supersedes", &old.to_string()],
    );
    let v = env.recall("Which port does the staging database use?", &[]);
    assert!(ids(&v).contains(&new) && !ids(&v).contains(&old), "{v}");
    let v = env.recall(
        "Which port does the staging database use?",
        &["--depth", "2"],
    );
    let ctx = &v["results"][0]["context"]["items"];
    assert!(
        ctx.as_array().unwrap().iter().any(|i| i["id"] == old),
        "{v}"
    );
}

#[test]
fn bad_time_values_are_usage_errors_naming_the_flag() {
    let env = Env::new();
    for (flag, val) in [
        ("--window", "fortnight-ish"),
        ("--as-of", "blursday"),
        ("--known-as-of", "x"),
        ("--valid-at", "32/13/2020"),
    ] {
        let out = env.run(&["recall", "anything", flag, val]);
        assert_eq!(code(&out), 2, "{flag}");
        assert!(stderr(&out).contains(flag), "{flag}: {}", stderr(&out));
    }
}

#[test]
fn score_contract_and_explain_are_complete() {
    let env = Env::new();
    env.remember("We chose Postgres for the analytics warehouse", &[]);
    env.remember("We chose Redis for the session cache", &[]);
    let v = env.recall(
        "Which database did we choose for analytics?",
        &["--explain"],
    );
    assert_eq!(v["calibration_status"], "uncalibrated");
    // Judged by slm's reader (the default): a confidence, set only because it judged.
    assert_eq!(v["answer_check_status"], "judged", "{v}");
    let c = v["answer_confidence"]
        .as_f64()
        .expect("judged, so a confidence");
    assert!((0.0..=1.0).contains(&c), "{v}");
    for k in [
        "query_class",
        "channel_weights",
        "channel_status",
        "reranker_status",
        "timing_ms",
        "tier",
    ] {
        assert!(!v[k].is_null(), "{k} missing: {v}");
    }
    assert_eq!(v["reranker_status"]["state"], "not_configured");
    let results = v["results"].as_array().expect("results");
    assert!(
        !results.is_empty(),
        "the contract is checked on real results: {v}"
    );
    for (i, r) in results.iter().enumerate() {
        assert_eq!(r["rank_position"], i + 1);
        let rel = r["relevance_score"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&rel));
        for k in ["ranking_score", "memory_confidence", "trust_score", "tier"] {
            assert!(!r[k].is_null(), "{k}");
        }
    }
    let e = &v["explain"];
    for k in [
        "classified",
        "channels",
        "fused",
        "boosts",
        "floor",
        "support",
        "final_order",
    ] {
        assert!(!e[k].is_null(), "explain.{k} missing");
    }
    let human = env.run(&[
        "recall",
        "Which database did we choose for analytics?",
        "--explain",
        "--color",
        "never",
    ]);
    let s = String::from_utf8_lossy(&human.stdout);
    assert!(
        s.contains("explain") && s.contains("floor:") && s.contains("support"),
        "{s}"
    );
}

#[test]
fn a_configured_but_missing_reranker_keeps_the_fused_order_and_says_so() {
    let env = Env::new().with("SLM_RERANKER_DIR", "/nonexistent/cross-encoder");
    env.remember("We chose Postgres for the analytics warehouse", &[]);
    let v = env.recall("Postgres for the analytics warehouse", &[]);
    let st = v["reranker_status"]["state"].as_str().unwrap();
    assert!(st == "unavailable" || st == "loading", "{v}");
    assert_eq!(
        v["warming_up"], true,
        "a recall without its reranker is labelled warming"
    );
    assert!(!ids(&v).is_empty());
}

// ---- issue 4: tiers ----------------------------------------------------------------------

#[test]
fn v034_snazzle_is_not_supported_by_either_memory() {
    let env = Env::new();
    env.remember("v0.3.4 fixed the crash in the importer", &[]);
    env.remember("a1b2c3d4 e5f6a7b8 build 9f8e7d6c stub", &[]);
    let v = env.recall("v0.3.4 snazzle", &[]);
    assert_ne!(v["tier"], "supported", "{v}");
    assert_eq!(v["tier"], "none", "{v}");
    assert_eq!(v["note"], "That isn't in slm.");
}

#[test]
fn an_id_and_hash_memory_does_not_support_a_nonsense_question() {
    let env = Env::new();
    env.remember(
        "commit 3f9a1c2e7b sha256 d41d8cd98f00b204e9800998ecf8427e id 77ab12 ref 0x9f",
        &[],
    );
    env.remember("Lunch with the design team on Thursday", &[]);
    for q in [
        "zorp flanngle quizzit?",
        "what is the wumbo of the fleeb",
        "hjkl hjkl hjkl",
        "the a an of",
    ] {
        let v = env.recall(q, &[]);
        assert_eq!(v["tier"], "none", "{q}: {v}");
        assert!(ids(&v).is_empty());
    }
}

#[test]
fn a_real_question_with_an_answer_is_supported() {
    let env = Env::new();
    let id = env.remember(
        "We chose Postgres for the analytics warehouse because of its window functions",
        &[],
    );
    env.remember("Lunch with the design team on Thursday", &[]);
    let v = env.recall(
        "Which database did we choose for the analytics warehouse?",
        &[],
    );
    assert_eq!(v["tier"], "supported", "{v}");
    assert_eq!(ids(&v).first(), Some(&id));
    assert_eq!(v["results"][0]["tier"], "supported");
}

/// A question that asks for an amount is not answered by a memory on its topic that states
/// none; the same memory answers a "why", and a memory with a version number answers "which
/// version". The amount's miss is the answer-type test alone: every other test passed.
#[test]
fn a_question_for_an_amount_needs_a_memory_that_states_one() {
    let env = Env::new();
    let grafana = env.remember(
        "We chose Grafana Cloud over Datadog for metrics and dashboards, mainly because of price.",
        &[],
    );
    let search = env.remember(
        "The search service runs OpenSearch 2.11 on three nodes; a full reindex takes about 40 minutes.",
        &[],
    );
    env.remember(
        "Deploys to production go out on Tuesdays and Thursdays.",
        &[],
    );
    let signal = |v: &serde_json::Value, id: i64| {
        v["explain"]["support"]
            .as_array()
            .expect("explain.support")
            .iter()
            .find(|s| s["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("no support signals for {id}: {v}"))
    };
    let v = env.recall(
        "How much does Grafana Cloud cost us per month?",
        &["--explain"],
    );
    assert_ne!(v["tier"], "supported", "{v}");
    let s = signal(&v, grafana);
    assert_eq!(s["of_type"], false, "{s}");
    assert_eq!(s["supported"], false, "{s}");
    assert_eq!(s["word_match"], true, "{s}");
    assert_eq!(s["names_ok"], true, "{s}");
    assert!(s["score"].as_f64().unwrap() >= 0.5, "{s}");
    let v = env.recall("Why did we pick Grafana Cloud?", &["--explain"]);
    assert_eq!(v["tier"], "supported", "{v}");
    assert_eq!(ids(&v).first(), Some(&grafana));
    let v = env.recall(
        "Which version of OpenSearch does the search service run?",
        &["--explain"],
    );
    assert_eq!(v["tier"], "supported", "{v}");
    assert_eq!(ids(&v).first(), Some(&search));
}

/// Import (speaker, text) lines as one conversation (`slm import` of JSON Lines).
fn import_conversation(env: &Env, lines: &[(&str, &str)]) {
    let file = env.dir.path().join("conv.jsonl");
    let body: String = lines
        .iter()
        .map(|(sp, t)| serde_json::json!({"text": t, "speaker": sp}).to_string() + "\n")
        .collect();
    std::fs::write(&file, body).unwrap();
    let out = env.run(&["import", file.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

/// LoCoMo's adversarial questions swap the person: the race was Melanie's, so "Caroline's
/// race" is not answered by Melanie telling Caroline about hers, nor by Caroline asking
/// about it.
#[test]
fn a_question_about_the_wrong_person_is_not_supported() {
    let env = Env::new();
    let lines = [
        (
            "Melanie",
            "Melanie: Hey Caroline! I ran a charity race for mental health last Saturday. It was tiring but rewarding.",
        ),
        (
            "Caroline",
            "Caroline: That charity race sounds great, Mel! What got you into running?",
        ),
        (
            "Caroline",
            "Caroline: I went to an LGBTQ support group yesterday and it was so powerful.",
        ),
        (
            "Melanie",
            "Melanie: I'm painting a lake sunrise this week, my kids love it.",
        ),
        (
            "Caroline",
            "Caroline: I'm researching adoption agencies, I want to give kids a loving home.",
        ),
        (
            "Melanie",
            "Melanie: We went camping in the mountains with the kids last summer.",
        ),
    ];
    import_conversation(&env, &lines);
    let v = env.recall(
        "What charity race did Melanie run for mental health?",
        &["--explain"],
    );
    assert_eq!(v["tier"], "supported", "{v}");
    assert!(
        v["results"][0]["preview"]
            .as_str()
            .unwrap()
            .starts_with("Melanie: Hey Caroline"),
        "{v}"
    );
    let v = env.recall(
        "What charity race did Caroline run for mental health?",
        &["--explain"],
    );
    assert_ne!(v["tier"], "supported", "{v}");
}

/// Two memories with the same words, each naming the other person: a question about one of
/// them is asked of that person's own words first (the boosts stage's speaker lift), both
/// ways round, so no tie-break can pass it.
#[test]
fn a_question_about_a_person_ranks_their_own_words_first() {
    let env = Env::new();
    let lines = [
        (
            "Caroline",
            "Caroline: Melanie and I painted the lake at sunrise.",
        ),
        (
            "Melanie",
            "Melanie: Caroline and I painted the lake at sunrise.",
        ),
    ];
    import_conversation(&env, &lines);
    for who in ["Melanie", "Caroline"] {
        let v = env.recall(
            &format!("What did {who} paint?"),
            &["--explain", "--show-weak"],
        );
        assert_eq!(v["explain"]["boosts"]["said_by_named"], 1, "{v}");
        let first = v["results"][0]["preview"].as_str().unwrap_or_default();
        assert!(first.starts_with(&format!("{who}:")), "{who}: {v}");
        // Both carry both names (the same entity score); only the speaker's is lifted.
        let fused = v["explain"]["fused"].as_array().expect("explain.fused");
        let boost_of = |id: i64| {
            fused.iter().find(|c| c["id"] == id).expect("in fused")["boost"]
                .as_f64()
                .unwrap()
        };
        // The other person's memory may be a weak match (the reader can tell whose words
        // answer); its boost is compared wherever it is shown.
        let id_said_by = |name: &str| {
            v["results"]
                .as_array()
                .expect("results")
                .iter()
                .chain(v["weak"].as_array().into_iter().flatten())
                .find(|r| r["preview"].as_str().unwrap_or("").starts_with(name))
                .unwrap_or_else(|| panic!("no result said by {name}: {v}"))["id"]
                .as_i64()
                .unwrap()
        };
        let other = if who == "Melanie" {
            "Caroline"
        } else {
            "Melanie"
        };
        let (mine, theirs) = (id_said_by(who), id_said_by(other));
        assert!(boost_of(mine) > boost_of(theirs) * 1.2, "{who}: {v}");
    }
}

#[test]
fn related_for_people_empty_for_agents_unless_asked() {
    // The related tier's plumbing, on an example MiniLM reads as related. EmbeddingGemma's
    // support check takes "The billing team moved to the fourth floor" for an answer to this
    // question (a topic shared, support score 0.625 ≥ 0.50): a known miss of the default
    // model, counted by `slm eval notes` (unanswerable-topic) and tracked in issue 13.
    let env = Env::new().with("SLM_MODEL_ID", "all-minilm-l6-v2-int8");
    env.remember("We chose Postgres for the analytics warehouse", &[]);
    env.remember("The billing team moved to the fourth floor", &[]);
    let q = "What did the billing team decide about invoices?";
    let v = env.recall(q, &[]);
    if v["tier"] == "related" {
        assert_eq!(
            v["note"],
            "I don't have this exactly — here are the closest memories."
        );
        assert!(v["results"].as_array().unwrap().len() <= 3);
        assert!(
            v["results"]
                .as_array()
                .unwrap()
                .iter()
                .all(|r| r["tier"] == "related")
        );
        let a = env.recall(q, &["--agent"]);
        assert!(ids(&a).is_empty());
        assert_eq!(
            a["note"],
            "I don't have this exactly. Closer memories exist; ask with include_related to see them."
        );
        let a = env.recall(q, &["--agent", "--include-related"]);
        assert_eq!(ids(&a), ids(&v));
        let human = env.run(&["recall", q, "--color", "never"]);
        assert!(String::from_utf8_lossy(&human.stdout).contains("[related]"));
    } else {
        panic!("expected related for a real question with only near evidence: {v}");
    }
}

#[test]
fn show_weak_lists_weak_matches_labelled() {
    let env = Env::new();
    env.remember("We chose Postgres for the analytics warehouse", &[]);
    env.remember("The analytics team likes dashboards", &[]);
    let v = env.recall(
        "Which database did we choose for the analytics warehouse?",
        &["--show-weak"],
    );
    for w in v["weak"].as_array().unwrap() {
        assert_eq!(w["tier"], "weak");
    }
    // A memory shown as a result (supported or related) is not listed again as weak.
    let related = env.recall("When is the analytics team's offsite?", &["--show-weak"]);
    for v in [&v, &related] {
        let shown: Vec<_> = v["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].clone())
            .collect();
        for w in v["weak"].as_array().unwrap() {
            assert!(!shown.contains(&w["id"]), "{v}");
        }
    }
    let human = env.run(&[
        "recall",
        "zorp flanngle quizzit?",
        "--show-weak",
        "--color",
        "never",
    ]);
    let s = String::from_utf8_lossy(&human.stdout);
    assert!(s.starts_with("none"), "{s}");
}

#[test]
fn present_tense_is_answered_from_the_newest_memories() {
    let env = Env::new();
    env.remember(
        "Started the migration of the billing service to Rust",
        &["--at", "2023-05-01"],
    );
    let newest = env.remember(
        "Writing the importer's resume logic for slm",
        &["--at", "2023-05-09"],
    );
    env.remember(
        "session ended",
        &["--at", "2023-05-10T11:00:00Z", "--source", "hook"],
    );
    env.remember(
        "please make the importer faster",
        &[
            "--at",
            "2023-05-10T11:30:00Z",
            "--kind",
            "prompt",
            "--source",
            "captured_prompt",
        ],
    );
    let v = env.recall("What am I working on?", &[]);
    assert_eq!(v["tier"], "supported", "{v}");
    assert_eq!(ids(&v).first(), Some(&newest), "{v}");
}

#[test]
fn bookkeeping_is_flagged_left_out_of_answers_and_still_listable() {
    let env = Env::new();
    let v = env.json(&["remember", "File changed: src/main.rs"]);
    assert!(v["bookkeeping"].is_string(), "{v}");
    let bk = v["id"].as_i64().unwrap();
    env.remember("Refactored src/main.rs into a thin entry point", &[]);
    let r = env.recall("What changed in src/main.rs?", &[]);
    assert!(!ids(&r).contains(&bk), "{r}");
    let listed: Vec<i64> = env.json(&["list"])["memories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_i64().unwrap())
        .collect();
    assert!(!listed.contains(&bk));
    let all: Vec<i64> = env.json(&["list", "--all"])["memories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_i64().unwrap())
        .collect();
    assert!(all.contains(&bk));
}

#[test]
fn captured_prompts_rank_as_requests() {
    let env = Env::new();
    let prompt = env.remember(
        "Please refactor the billing module into smaller crates",
        &["--kind", "prompt", "--source", "captured_prompt"],
    );
    let note = env.remember(
        "Refactored the billing module into three smaller crates",
        &[],
    );
    let v = env.recall("billing module refactor into crates", &[]);
    let got = ids(&v);
    let (p, n) = (
        got.iter().position(|x| *x == prompt),
        got.iter().position(|x| *x == note),
    );
    assert!(
        n.is_some() && (p.is_none() || p > n),
        "the saved note comes before the request: {v}"
    );
    let v = env.recall("What did I ask for about the billing module?", &[]);
    assert_eq!(ids(&v).first(), Some(&prompt), "{v}");
}

#[test]
fn warming_up_never_says_not_in_memory() {
    let env = Env::new().with("SLM_MODEL_DIR", "/nonexistent/model");
    env.remember("Rotate the TLS certificates every 90 days", &[]);
    let v = env.recall("How often do we rotate TLS certificates?", &[]);
    assert_eq!(v["warming_up"], true);
    assert_eq!(v["tier"], "related");
    assert!(
        v["note"].as_str().unwrap().contains("still warming up"),
        "{v}"
    );
    assert!(v["results"].as_array().unwrap().len() <= 5);
    let v = env.recall("zorp flanngle quizzit?", &[]);
    assert_ne!(
        v["tier"], "none",
        "nothing was measured, so never none: {v}"
    );
}

#[test]
fn both_switches_bring_back_the_ungated_behaviour() {
    let env = Env::new();
    env.remember("v0.3.4 fixed the crash in the importer", &[]);
    let gated = env.recall("v0.3.4 snazzle", &[]);
    assert_eq!(gated["tier"], "none");
    let out = env
        .cmd(&["recall", "v0.3.4 snazzle", "--json"])
        .env("SLM_RECALL_NO_SUPPORT_GATE", "1")
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["support_gate"], false);
    assert!(!ids(&v).is_empty(), "{v}");
    std::fs::write(
        env.path("settings.json"),
        r#"{"retrieval": {"answer_support_gate": false}}"#,
    )
    .unwrap();
    let v = env.recall("v0.3.4 snazzle", &[]);
    assert_eq!(v["support_gate"], false);
    assert!(!ids(&v).is_empty());
}

#[test]
fn depth_zero_one_two_and_expand() {
    let env = Env::new();
    let a = env.remember(
        "Caroline adopted a rescue dog named Biscuit",
        &["--session", "s1"],
    );
    env.remember("Biscuit loves the beach", &["--session", "s1"]);
    let v0 = env.recall("What did Caroline adopt?", &["--depth", "0"]);
    assert!(v0["results"][0]["text"].is_null() && v0["results"][0]["preview"].is_string());
    let v1 = env.recall("What did Caroline adopt?", &[]);
    assert!(v1["results"][0]["text"].is_string());
    let v2 = env.recall("What did Caroline adopt?", &["--depth", "2"]);
    let items = v2["results"][0]["context"]["items"].as_array().unwrap();
    assert!(
        items.iter().any(|i| i["relation"] == "same_session"),
        "{v2}"
    );
    let e = env.json(&["expand", &a.to_string()]);
    assert!(!e["context"]["items"].as_array().unwrap().is_empty());
    assert_eq!(
        code(&env.run(&["expand", &a.to_string(), "--profile", "other"])),
        2
    );
}

#[test]
fn empty_and_huge_questions_are_refused() {
    let env = Env::new();
    assert_eq!(code(&env.run(&["recall", "  "])), 2);
    assert_eq!(code(&env.run(&["recall", &"why ".repeat(1000)])), 2);
}

/// A real question may say a word twice or name a "Coco": that is not nonsense.
#[test]
fn a_repeated_word_or_a_two_letter_name_is_not_nonsense() {
    let env = Env::new();
    env.remember(
        "Nate: We played this game Catan - it's a great strategy game where you build settlements. I love it!",
        &[],
    );
    env.remember(
        "Maria: Guess what - I got a puppy two weeks ago! Her name's Coco and she's adorable.",
        &[],
    );
    let v = env.recall(
        "What game did Nate play at the game convention?",
        &["--explain"],
    );
    assert_eq!(v["tier"], "supported", "{v}");
    let v = env.recall("When did Maria get Coco?", &["--explain"]);
    assert_eq!(v["tier"], "supported", "{v}");
}

/// The vector index keeps compact copies (int8, EmbeddingGemma's first 256 dimensions); the
/// cosines recall reports and holds to thresholds are the stored full vectors'. The test
/// embeds the same texts with the same model in-process and compares: the index's cut copy
/// misses the full cosine by several hundredths.
#[test]
fn the_semantic_channel_reports_exact_cosines_not_the_index_copy() {
    let env = Env::new();
    let texts = [
        "Deploys go out on Tuesdays after the staging soak",
        "The staging cluster is rebuilt every night",
        "We moved the session cache from Redis to Postgres",
    ];
    let ids: Vec<i64> = texts.iter().map(|t| env.remember(t, &[])).collect();
    let question = "When do deploys go out?";
    let v = env.recall(question, &["--explain"]);
    let home = tempfile::tempdir().unwrap();
    let paths = slm::paths::Paths::at(home.path(), &cache_dir());
    let model = slm::embed::load(&paths, &slm::settings::Settings::default()).expect("model");
    let q = &model.embed_queries(&[question]).unwrap()[0];
    let mut checked = 0;
    for (id, text) in ids.iter().zip(texts) {
        let Some(got) = channel_score(&v, "semantic", *id) else {
            continue;
        };
        let want = slm::embed::cosine(q, &model.embed(&[text]).unwrap()[0]) as f64;
        assert!(
            (got - want).abs() < 2e-3,
            "memory {id}: semantic score {got}, exact cosine {want}: {v}"
        );
        checked += 1;
    }
    assert!(checked >= 2, "the semantic channel found too little: {v}");
}
