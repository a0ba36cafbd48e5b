//! One- and two-word questions (issue 33): a term found in a memory is answered from that
//! memory, supported when the memory carries every word (the spec's keyword rule), never
//! "not in memory"; a term in no memory is `none`. "Postgres" was once dropped as nonsense
//! because its letters ("stgr") do not look English: the class of the bug is a word judged
//! by its letters although a memory holds it, so the terms below are chosen for odd shapes
//! (consonant runs, digits, no vowels, all capitals) as well as plain ones.

use crate::common::{StopWorker, ids, worker_env};
use serde_json::Value;

/// Memories that hold technical terms, each term in exactly one memory.
const MEMORIES: &[(&str, &[&str])] = &[
    (
        "We chose Postgres for the analytics warehouse",
        &["Postgres"],
    ),
    ("nginx terminates TLS in front of the API", &["nginx"]),
    (
        "Use kubectl rollout restart to bounce the ingest pods",
        &["kubectl"],
    ),
    (
        "pgbouncer runs in transaction mode with 200 client connections",
        &["pgbouncer"],
    ),
    (
        "Terraform state lives in the ops bucket, locked by DynamoDB",
        &["Terraform"],
    ),
    (
        "Redis holds the session cache; eviction policy allkeys-lru",
        &["Redis"],
    ),
    ("The billing API speaks gRPC on port 9090", &["gRPC"]),
    ("Our k8s clusters are upgraded every quarter", &["k8s"]),
    (
        "systemd restarts the collector when it crashes",
        &["systemd"],
    ),
    (
        "Capture traffic with tcpdump on the bastion, never on prod nodes",
        &["tcpdump"],
    ),
    (
        "Service tokens are JWT signed with the rotating key",
        &["JWT"],
    ),
    ("The desktop app keeps its cache in SQLite", &["SQLite"]),
    (
        "Grafana dashboards are provisioned from the monitoring repo",
        &["Grafana"],
    ),
    (
        "Nightly backups are copied with rsync to the NAS",
        &["rsync"],
    ),
    (
        "Pair programming sessions happen in a shared tmux",
        &["tmux"],
    ),
    (
        "Login goes through OAuth with the company identity provider",
        &["OAuth"],
    ),
    (
        "The frontend build moved from webpack to Vite in March",
        &["webpack", "Vite"],
    ),
    ("Kafka topics keep seven days of events", &["Kafka"]),
    ("Internal services require mTLS between them", &["mTLS"]),
];

/// Terms no memory holds, with the same spread of shapes.
const ABSENT: &[&str] = &[
    "Cassandra",
    "Elasticsearch",
    "Jenkins",
    "Ansible",
    "RabbitMQ",
    "Istio",
    "ZooKeeper",
    "Memcached",
    "Traefik",
    "HAProxy",
    "etcd",
    "Zsh",
    "CockroachDB",
    "Nomad",
    "Splunk",
    "Airflow",
    "Celery",
    "Prometheus",
    "k3s",
    "PgBackRest",
];

fn tier(v: &Value) -> &str {
    v["tier"].as_str().unwrap_or("?")
}

#[test]
fn one_and_two_word_questions_are_answered_from_the_memory_that_holds_them() {
    let env = worker_env();
    let _stop = StopWorker(&env);
    let mut lines = String::new();
    for (text, _) in MEMORIES {
        lines.push_str(&serde_json::json!({ "text": text }).to_string());
        lines.push('\n');
    }
    let file = env.dir.path().join("terms.jsonl");
    std::fs::write(&file, lines).unwrap();
    let v = env.json(&["import", file.to_str().unwrap()]);
    assert_eq!(v["imported"], MEMORIES.len(), "{v}");
    // Embed every memory now, so no answer depends on the worker catching up.
    let r = env.run(&["reindex"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let listed = env.json(&["list", "--limit", "100"]);
    let id_of = |text: &str| -> i64 {
        listed["memories"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["text"] == text)
            .and_then(|m| m["id"].as_i64())
            .unwrap_or_else(|| panic!("{text} not listed: {listed}"))
    };

    let mut failures = Vec::new();
    for (text, terms) in MEMORIES {
        let want = id_of(text);
        let mut questions: Vec<String> = terms.iter().map(|t| t.to_string()).collect();
        // The term in lower case, and with a second word of the memory.
        questions.push(terms[0].to_lowercase());
        let second = text
            .split_whitespace()
            .rev()
            .find(|w| w.len() > 4 && !terms.contains(w))
            .unwrap();
        questions.push(format!(
            "{} {}",
            terms[0],
            second.trim_end_matches(['.', ','])
        ));
        for q in questions {
            let v = env.recall(&q, &[]);
            let got = ids(&v);
            if tier(&v) != "supported" || got.first() != Some(&want) {
                failures.push(format!(
                    "{q:?}: {} {got:?}, want supported #{want} ({text})",
                    tier(&v)
                ));
            }
        }
    }
    for q in ABSENT {
        let v = env.recall(q, &[]);
        if tier(&v) != "none" {
            failures.push(format!("{q:?} (in no memory): {} {:?}", tier(&v), ids(&v)));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `--explain` names the rule that decided the tier and, for each memory that left the
/// list, the step and the reason.
#[test]
fn explain_names_the_tier_rule_and_why_each_memory_left() {
    let env = worker_env();
    let _stop = StopWorker(&env);
    for t in [
        "We chose Postgres for the analytics warehouse",
        "The staging database listens on port 5433",
        "Maria owns the billing service",
    ] {
        env.remember(t, &[]);
    }
    let out = env.run(&["recall", "Postgres", "--explain"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("tier decision: supported"),
        "no tier decision in:\n{text}"
    );
    let out = env.run(&[
        "recall",
        "Which port does the staging database use?",
        "--explain",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    let left = text
        .split("left the list (step: reason):\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no left-the-list section in:\n{text}"));
    // Every memory not shown has a line naming its step.
    let listed: Vec<&str> = left.lines().take_while(|l| l.starts_with("  #")).collect();
    assert!(!listed.is_empty(), "{text}");
    for l in &listed {
        assert!(
            ["floor:", "support:", "tiers:"]
                .iter()
                .any(|s| l.contains(s)),
            "a line without its step: {l}"
        );
    }
    let v = env.recall("Which port does the staging database use?", &["--explain"]);
    assert!(v["explain"]["decision"].is_string(), "{}", v["explain"]);
    assert!(v["explain"]["left"].is_array(), "{}", v["explain"]);
}
