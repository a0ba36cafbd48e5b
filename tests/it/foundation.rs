//! Issue 2: the store, ingestion, bad input, durability, output conventions.

use crate::common;
use crate::common::*;
use std::io::{BufRead, BufReader};
use std::process::Stdio;

#[test]
fn remember_then_list_shows_it_with_schema_version() {
    let env = Env::new();
    let id = env.remember(
        "We chose SQLite for the billing service",
        &["--kind", "decision", "--tag", "db"],
    );
    let v = env.json(&["list"]);
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["command"], "list");
    let m = &v["memories"][0];
    assert_eq!(m["id"], id);
    assert_eq!(m["kind"], "decision");
    assert_eq!(m["tags"][0], "db");
    assert_eq!(m["text"], "We chose SQLite for the billing service");
}

#[test]
fn remember_reads_stdin_and_event_time() {
    let env = Env::new();
    let out = env.run_stdin(
        &["remember", "--at", "2023-05-05", "--json"],
        b"standup moved to 10:30",
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v = env.json(&["list"]);
    assert_eq!(v["memories"][0]["text"], "standup moved to 10:30");
    assert_eq!(v["memories"][0]["event_at"], 1683244800000i64);
}

#[test]
fn empty_huge_and_invalid_utf8_text_are_refused_and_store_nothing() {
    let env = Env::new();
    let out = env.run(&["remember", "   "]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("empty"), "{}", stderr(&out));
    let huge = "x".repeat(40 * 1024);
    let out = env.run(&["remember", &huge]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("limit"), "{}", stderr(&out));
    let out = env.run_stdin(&["remember"], &[0x66, 0x6f, 0xff, 0xfe]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("UTF-8"), "{}", stderr(&out));
    assert_eq!(env.json(&["list"])["memories"].as_array().unwrap().len(), 0);
}

#[test]
fn unknown_flag_and_unknown_id_are_usage_errors() {
    let env = Env::new();
    assert_eq!(code(&env.run(&["remember", "x", "--frobnicate"])), 2);
    let out = env.run(&["show", "4242"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("no memory with id 4242"));
    let v = env.json(&["show", "4242"]);
    assert_eq!(v["error"]["code"], "NOT_FOUND");
}

#[test]
fn malformed_jsonl_imports_nothing_unless_skip_bad() {
    let env = Env::new();
    let file = env.dir.path().join("in.jsonl");
    std::fs::write(&file, "{\"text\": \"good one\"}\nnot json\n{\"text\": \"\"}\n{\"text\": \"good two\", \"tags\": [\"a\"]}\n").unwrap();
    let out = env.run(&["import", file.to_str().unwrap()]);
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(
        err.contains("line 2") && err.contains("line 3") && err.contains("nothing was imported"),
        "{err}"
    );
    assert_eq!(env.json(&["list"])["memories"].as_array().unwrap().len(), 0);
    let v = env.json(&["import", file.to_str().unwrap(), "--skip-bad"]);
    assert_eq!(v["imported"], 2);
    assert_eq!(v["bad_lines"].as_array().unwrap().len(), 2);
    // Importing again resumes: nothing new.
    let v = env.json(&["import", file.to_str().unwrap(), "--skip-bad"]);
    assert_eq!(v["imported"], 0);
    assert_eq!(v["already_present"], 2);
}

#[test]
fn a_store_from_a_newer_slm_is_refused_unchanged() {
    let env = Env::new();
    env.remember("hello", &[]);
    let db = env.path("store.db");
    {
        let c = rusqlite::Connection::open(&db).unwrap();
        c.pragma_update(None, "user_version", 99).unwrap();
    }
    let out = env.run(&["list"]);
    assert_ne!(code(&out), 0);
    assert!(stderr(&out).contains("newer slm"), "{}", stderr(&out));
    let c = rusqlite::Connection::open(&db).unwrap();
    let v: i64 = c
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(v, 99);
}

#[test]
fn a_corrupt_keyword_index_is_rebuilt_from_the_store() {
    let env = Env::new();
    let id = env.remember("The deploy key lives in vault path kv/deploy-7", &[]);
    std::fs::write(env.path("index/bm25/meta.json"), b"garbage{").unwrap();
    let v = env.recall("deploy-7", &[]);
    assert!(ids(&v).contains(&id), "{v}");
    let d = env.json(&["doctor"]);
    assert_eq!(d["bm25"]["documents"], 1);
}

#[test]
fn a_read_only_data_dir_gives_a_clear_error() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    env.remember("first", &[]);
    let home = env.home();
    std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o555)).unwrap();
    let out = env.run(&["remember", "second"]);
    std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_ne!(code(&out), 0);
    assert!(stderr(&out).contains("read-only"), "{}", stderr(&out));
    assert_eq!(env.json(&["list"])["memories"].as_array().unwrap().len(), 1);
}

#[test]
fn keyword_findable_right_after_remember() {
    let env = Env::new();
    let id = env.remember("Ticket BILL-4471 is blocked on legal", &[]);
    let v = env.recall("BILL-4471", &[]);
    assert_eq!(ids(&v).first(), Some(&id), "{v}");
}

#[test]
fn doctor_reports_the_default_model_and_a_real_embedding() {
    // The default is the best installed model: EmbeddingGemma (768-d) after scripts/setup.sh,
    // MiniLM (384-d) when only it is installed.
    let env = Env::new();
    let d = env.json(&["doctor"]);
    assert_eq!(d["model"]["state"], "loaded", "{d}");
    let installed = |id: &str| {
        common::cache_dir()
            .join("models")
            .join(id)
            .join("model.onnx")
            .is_file()
    };
    let gemma = installed("embeddinggemma-300m-int8");
    let want = if gemma { 768 } else { 384 };
    assert_eq!(d["probe_embedding"]["dimension"], want, "{d}");
    let norm = d["probe_embedding"]["norm"].as_f64().unwrap();
    assert!((norm - 1.0).abs() < 1e-3);
    // Pinning the other model by id works too.
    let other = if gemma {
        ("all-minilm-l6-v2-int8", 384)
    } else {
        ("embeddinggemma-300m-int8", 768)
    };
    if installed(other.0) {
        let env = Env::new().with("SLM_MODEL_ID", other.0);
        let d = env.json(&["doctor"]);
        assert_eq!(d["probe_embedding"]["dimension"], other.1, "{d}");
    }
}

#[test]
fn a_missing_model_means_keyword_only_and_doctor_names_the_fix() {
    let env = Env::new().with("SLM_MODEL_DIR", "/nonexistent/model");
    let id = env.remember("Rotate the TLS certificates every 90 days", &[]);
    let out = env.run(&["doctor"]);
    assert_eq!(code(&out), 1);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("setup.sh --models-only"), "{text}");
    let v = env.recall("rotate the TLS certificates", &[]);
    assert!(ids(&v).contains(&id));
    assert_eq!(v["warming_up"], true);
}

#[test]
fn update_delete_and_forget() {
    let env = Env::new();
    let a = env.remember("old note about the staging server", &["--tag", "tmp"]);
    let b = env.remember("keep this one", &[]);
    let v = env.json(&[
        "update",
        &a.to_string(),
        "--text",
        "new note about the staging server",
        "--pin",
    ]);
    assert_eq!(v["memory"]["pinned"], true);
    assert_eq!(v["memory"]["text"], "new note about the staging server");
    let v = env.json(&["forget", "--tag", "tmp", "--dry-run"]);
    assert_eq!(v["would_forget"], serde_json::json!([a]));
    assert_eq!(env.json(&["list"])["memories"].as_array().unwrap().len(), 2);
    let out = env.run(&["forget", "--tag", "tmp"]);
    assert_eq!(code(&out), 2, "without -y and no terminal it must refuse");
    env.json(&["forget", "--tag", "tmp", "-y"]);
    env.json(&["delete", &b.to_string()]);
    assert_eq!(env.json(&["list"])["memories"].as_array().unwrap().len(), 0);
}

#[test]
fn other_profiles_do_not_see_or_touch_a_memory() {
    let env = Env::new();
    let id = env.remember("private plan for the offsite", &["--profile", "alice"]);
    assert_eq!(
        code(&env.run(&["show", &id.to_string(), "--profile", "bob"])),
        2
    );
    assert_eq!(
        code(&env.run(&["delete", &id.to_string(), "--profile", "bob"])),
        2
    );
    let v = env.recall("offsite plan", &["--profile", "bob"]);
    assert!(ids(&v).is_empty(), "{v}");
    let v = env.recall("offsite plan", &["--profile", "alice"]);
    assert_eq!(ids(&v), vec![id]);
}

#[test]
fn closed_pipe_exits_quietly() {
    let env = Env::new();
    for i in 0..30 {
        env.remember(&format!("note number {i}"), &[]);
    }
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "set -o pipefail; {} list | head -n 1 >/dev/null",
            env!("CARGO_BIN_EXE_slm")
        ))
        .env("SLM_HOME", env.home())
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
}

#[test]
fn terminal_control_sequences_are_stripped_from_human_output() {
    let env = Env::new();
    env.remember("evil \u{1b}]0;pwned\u{7} title \u{1b}[31mred\u{1b}[0m", &[]);
    let out = env.run(&["list", "--color", "never"]);
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(!s.contains('\u{1b}'), "{s:?}");
    assert!(s.contains("evil  title red"), "{s:?}");
}

#[test]
fn completions_and_man_page_are_not_stale() {
    for (shell, file) in [("bash", "slm.bash"), ("zsh", "_slm"), ("fish", "slm.fish")] {
        let env = Env::new();
        let out = env.run(&["completions", shell]);
        let committed = std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("completions")
                .join(file),
        )
        .unwrap_or_else(|_| panic!("completions/{file} missing: run scripts/gen-docs.sh"));
        assert!(
            out.stdout == committed,
            "completions/{file} is stale: run scripts/gen-docs.sh"
        );
    }
    let env = Env::new();
    let out = env.run(&["man"]);
    let committed =
        std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("man/slm.1"))
            .expect("man/slm.1 missing");
    assert!(
        out.stdout == committed,
        "man/slm.1 is stale: run scripts/gen-docs.sh"
    );
}

/// kill -9 in the middle of an import loses nothing that was acknowledged.
#[test]
fn kill_during_import_loses_no_acknowledged_memory() {
    let env = Env::new();
    let file = env.dir.path().join("big.jsonl");
    let mut s = String::new();
    for i in 0..3000 {
        s.push_str(&format!(
            "{{\"text\": \"memory number {i} about topic {} and detail {}\"}}\n",
            i % 37,
            i * 7
        ));
    }
    std::fs::write(&file, s).unwrap();
    let mut child = env
        .cmd(&[
            "import",
            file.to_str().unwrap(),
            "--print-ids",
            "--batch",
            "64",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut acked = Vec::new();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    while let Some(Ok(l)) = lines.next() {
        if let Some((_, id)) = l.split_once('\t') {
            acked.push(id.parse::<i64>().unwrap());
        }
        if acked.len() >= 300 {
            break;
        }
    }
    child.kill().unwrap(); // SIGKILL
    let _ = child.wait();
    assert!(
        acked.len() >= 300,
        "the import acknowledged too little before the kill"
    );
    let v = env.json(&["list", "--limit", "100000", "--all"]);
    let stored: std::collections::HashSet<i64> = v["memories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_i64().unwrap())
        .collect();
    for id in &acked {
        assert!(stored.contains(id), "acknowledged id {id} was lost");
    }
    // And the interrupted import resumes without duplicates.
    let v = env.json(&["import", file.to_str().unwrap()]);
    let total = v["imported"].as_i64().unwrap() + v["already_present"].as_i64().unwrap();
    assert_eq!(total, 3000);
    let v = env.json(&["list", "--limit", "100000"]);
    assert_eq!(v["memories"].as_array().unwrap().len(), 3000);
}

/// The layers of `src/lib.rs`'s "Architecture", top to bottom: a module may use its own
/// layer and the ones below, never one above (fronts → requests → stages → engine →
/// storage and models → vocabulary).
const LAYERS: &[&[&str]] = &[
    &[
        "cli",
        "eval",
        "bench",
        "mcp",
        "http",
        "dashboard",
        "agent",
        "connect",
    ],
    &["service", "render", "worker"],
    &["recall", "session", "transfer"],
    &["engine"],
    &["store", "index", "embed", "media"],
    &[
        "memory",
        "text",
        "timeparse",
        "settings",
        "paths",
        "project",
        "clock",
        "output",
        "error",
        "lock",
        "progress",
        "priority",
    ],
];

/// The top-level modules a source file names through `crate::` (comments left out), with
/// each item of a `use crate::{a, b::c, d::{e, f}}` group.
fn crate_refs(src: &str) -> Vec<String> {
    let code: String = src
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let ident = |s: &str| -> String {
        s.trim()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        let Some(group) = rest.strip_prefix('{') else {
            out.push(ident(rest));
            continue;
        };
        let (mut depth, mut start) = (0, 0);
        for (j, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    out.push(ident(&group[start..j]));
                    break;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    out.push(ident(&group[start..j]));
                    start = j + 1;
                }
                _ => {}
            }
        }
    }
    out
}

#[test]
fn dependencies_point_down_the_layers() {
    let layer_of = |m: &str| LAYERS.iter().position(|l| l.contains(&m));
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![src.clone()];
    let mut up = std::collections::BTreeSet::new();
    let mut seen = 0;
    while let Some(p) = files.pop() {
        if p.is_dir() {
            files.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        if p.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let rel = p.strip_prefix(&src).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if top == "lib" || top == "main" {
            continue;
        }
        let from = layer_of(&top)
            .unwrap_or_else(|| panic!("src/{top}: add it to a layer in LAYERS and in lib.rs"));
        for r in crate_refs(&std::fs::read_to_string(&p).unwrap()) {
            seen += 1;
            if layer_of(&r).is_some_and(|to| to < from) {
                up.insert(format!("{} uses crate::{r}", rel.display()));
            }
        }
    }
    assert!(seen > 100, "the scan found only {seen} crate:: paths");
    assert!(
        up.is_empty(),
        "dependencies that point up:\n{}",
        up.into_iter().collect::<Vec<_>>().join("\n")
    );
}
