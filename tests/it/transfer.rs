//! Memories in and out (issue 17): export → import round trips, backups taken while the
//! worker writes, restores that refuse bad files, and notes folders imported as memories.
//! The real binary against temporary homes; the store files are read back with SQLite.

use crate::common;
use crate::common::{Env, code, fixture, stderr};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn hash_env() -> Env {
    Env::new().with("SLM_EMBEDDER", "hash")
}

fn write(p: &Path, s: &str) {
    std::fs::write(p, s).unwrap();
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

/// Every memory of a store file, keyed by its idempotency key, with every stored field that
/// an export carries; links by key.
fn snapshot(store: &Path) -> BTreeMap<String, serde_json::Value> {
    let c =
        rusqlite::Connection::open_with_flags(store, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let store_id: String = c
        .query_row("SELECT value FROM meta WHERE key = 'store_id'", [], |r| {
            r.get(0)
        })
        .unwrap();
    // A memory saved without a key is exported under `slm:<store id>:<id>`.
    let key_of = |id: i64| -> String {
        c.query_row(
            "SELECT key FROM idempotency_keys WHERE memory_id = ?1",
            [id],
            |r| r.get(0),
        )
        .unwrap_or_else(|_| format!("slm:{store_id}:{id}"))
    };
    let mut st = c
        .prepare(
            "SELECT id, text, kind, source, profile, scope, session_id, speaker, created_at, event_at, valid_from, \
             valid_until, known_at, pinned, bookkeeping IS NOT NULL, superseded_by, origin FROM memories ORDER BY id",
        )
        .unwrap();
    let rows: Vec<(i64, serde_json::Value, Option<i64>)> = st
        .query_map([], |r| {
            let v = serde_json::json!({
                "text": r.get::<_, String>(1)?, "kind": r.get::<_, String>(2)?, "source": r.get::<_, String>(3)?,
                "profile": r.get::<_, String>(4)?, "scope": r.get::<_, String>(5)?,
                "session_id": r.get::<_, Option<String>>(6)?, "speaker": r.get::<_, Option<String>>(7)?,
                "created_at": r.get::<_, i64>(8)?, "event_at": r.get::<_, i64>(9)?,
                "valid_from": r.get::<_, Option<i64>>(10)?, "valid_until": r.get::<_, Option<i64>>(11)?,
                "known_at": r.get::<_, i64>(12)?, "pinned": r.get::<_, i64>(13)?, "bookkeeping": r.get::<_, bool>(14)?,
                "origin": r.get::<_, Option<String>>(16)?,
            });
            Ok((r.get(0)?, v, r.get(15)?))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut out = BTreeMap::new();
    for (id, mut v, sup) in rows {
        let mut tags: Vec<String> = c
            .prepare("SELECT tag FROM tags WHERE memory_id = ?1 ORDER BY tag")
            .unwrap()
            .query_map([id], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        tags.sort();
        let mut links: Vec<String> = c
            .prepare("SELECT dst, kind FROM links WHERE src = ?1")
            .unwrap()
            .query_map([id], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .map(|(dst, kind)| format!("{kind}->{}", key_of(dst)))
            .collect();
        links.sort();
        v["tags"] = serde_json::json!(tags);
        v["links"] = serde_json::json!(links);
        v["superseded_by"] = serde_json::json!(sup.map(key_of));
        out.insert(key_of(id), v);
    }
    out
}

fn export_lines(env: &Env, args: &[&str]) -> (String, String) {
    let mut a = vec!["export"];
    a.extend_from_slice(args);
    let out = env.run(&a);
    assert_eq!(code(&out), 0, "export: {}", stderr(&out));
    (stdout(&out), stderr(&out))
}

/// A store with every field and both link kinds (session `next` links, corrections made by
/// `--supersedes` forwards and by `update --superseded-by` backwards), two profiles, a
/// bookkeeping row, and a deleted memory (so ids in a fresh store differ).
fn rich_store(env: &Env) {
    let lines = [
        r#"{"text":"We chose Postgres for the analytics warehouse","kind":"decision","tags":["db","analytics"],"session_id":"s1","speaker":"Ann","pinned":true,"scope":"shared","source":"agent","event_at":"2023-04-02","valid_from":"2023-04-01","valid_until":"2024-04-01","id":"dec-1"}"#,
        r#"{"text":"The staging database listens on port 6543","kind":"fact","tags":["db"],"session_id":"s1","speaker":"Bo","event_at":1680000000000,"key":"my-own-key","origin":"notes/db.md:4"}"#,
        r#"{"text":"Correction: the staging database listens on port 6544","kind":"fact","session_id":"s1","id":"fix-1","supersedes":"my-own-key"}"#,
        r#"{"text":"Priya owns the finance dashboard in Grafana","kind":"fact","scope":"global","id":"p-1","known_at":"2023-01-05"}"#,
        r#"{"text":"session ended","kind":"bookkeeping","id":"bk-1"}"#,
        r#"{"text":"Work profile: deploys need two approvals","profile":"work","id":"w-1","tags":["deploy"]}"#,
        r#"{"text":"Work profile: deploys run from the release branch","profile":"work","id":"w-2","supersedes":["w-1"]}"#,
    ];
    let file = env.dir.path().join("seed.jsonl");
    write(&file, &(lines.join("\n") + "\n"));
    let out = env.json(&["import", file.to_str().unwrap()]);
    assert_eq!(out["imported"], 7, "{out}");
    assert_eq!(out["links"]["linked"], 2, "{out}");
    let doomed = env.remember("A memory that is deleted before the export", &[]);
    assert_eq!(code(&env.run(&["delete", &doomed.to_string()])), 0);
    let plain = env.remember(
        "The release train leaves every second Tuesday",
        &[
            "--kind",
            "event",
            "--tag",
            "release",
            "--session",
            "s2",
            "--at",
            "2023-05-01",
        ],
    );
    let later = env.remember(
        "Tuesday release trains are announced in the ops channel",
        &[
            "--session",
            "s2",
            "--source",
            "hook",
            "--idempotency-key",
            "rk",
        ],
    );
    // A backwards correction: the older memory corrects the newer one.
    let u = env.run(&[
        "update",
        &later.to_string(),
        "--superseded-by",
        &plain.to_string(),
    ]);
    assert_eq!(code(&u), 0, "{}", stderr(&u));
    env.remember(
        "We rejected MongoDB for analytics",
        &["--kind", "decision", "--pin"],
    );
}

const QUESTIONS: &[&str] = &[
    "Which database did we choose for analytics?",
    "What port does the staging database listen on?",
    "Who owns the finance dashboard?",
    "How often does the release train leave?",
];

/// The tier and top result of a question, asked at the tests' pinned clock.
fn top(env: &Env, q: &str) -> (String, Option<String>) {
    let out = env
        .cmd(&[
            "recall",
            q,
            "--include-shared",
            "--include-global",
            "--json",
        ])
        .env("SLM_NOW", common::NOW)
        .output()
        .unwrap();
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    (
        r["tier"].as_str().unwrap_or_default().to_string(),
        r["results"][0]["text"].as_str().map(str::to_string),
    )
}

#[test]
fn export_then_import_into_a_fresh_home_gives_the_same_memories_and_answers() {
    // The real model: recall must answer the same after the round trip.
    let a = Env::new();
    rich_store(&a);
    let (lines, summary) = export_lines(&a, &["--all-profiles", "--include-bookkeeping"]);
    // Standard output holds the lines alone; each is an import line with its key.
    let parsed: Vec<serde_json::Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l:?}")))
        .collect();
    assert_eq!(parsed.len(), 10, "{lines}");
    assert!(
        parsed
            .iter()
            .all(|l| l["key"].is_string() && l["text"].is_string())
    );
    assert!(summary.contains("exported 10 memories"), "{summary}");

    let file = a.dir.path().join("all.jsonl");
    write(&file, &lines);
    // Another clock: creation and learning times must come from the lines, not from now.
    let b = Env::new().with("SLM_NOW", "2025-06-01T08:00:00Z");
    let out = b.run_stdin(&["import", "-", "--json"], lines.as_bytes());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["imported"], 10, "{v}");
    assert_eq!(v["links"]["linked"], 3, "{v}");
    assert_eq!(v["links"]["unresolved"].as_array().unwrap().len(), 0, "{v}");

    // Memory by memory, every field and link, matched by key.
    let sa = snapshot(&a.path("store.db"));
    let sb = snapshot(&b.path("store.db"));
    assert_eq!(sa.len(), 10);
    for (k, va) in &sa {
        assert_eq!(Some(va), sb.get(k), "memory {k} differs");
    }
    assert_eq!(sa, sb);
    // The ids differ (a deleted memory in a), so the match above is by key, not by accident.
    let max_id = |e: &Env| -> i64 {
        rusqlite::Connection::open(e.path("store.db"))
            .unwrap()
            .query_row("SELECT MAX(id) FROM memories", [], |r| r.get(0))
            .unwrap()
    };
    assert_ne!(max_id(&a), max_id(&b));
    // An export of the copy is the same export, and importing it again adds nothing.
    assert_eq!(
        export_lines(&b, &["--all-profiles", "--include-bookkeeping"]).0,
        lines
    );
    let again = b.json(&["import", file.to_str().unwrap()]);
    assert_eq!(again["imported"], 0, "{again}");
    assert_eq!(again["links"]["linked"], 0, "{again}");
    assert_eq!(snapshot(&b.path("store.db")), sb);

    // The same questions get the same top answer.
    for q in QUESTIONS {
        let (ta, ra) = top(&a, q);
        assert!(ra.is_some(), "{q}: nothing in the original store");
        assert_eq!((ta, ra), top(&b, q), "{q}");
    }

    // Profiles and bookkeeping: the default export is this profile's, without bookkeeping.
    let (mine, _) = export_lines(&a, &[]);
    assert_eq!(mine.lines().count(), 7, "{mine}");
    assert!(!mine.contains("session ended") && !mine.contains("Work profile"));
    let (work, _) = export_lines(&a, &["--profile", "work"]);
    assert_eq!(work.lines().count(), 2, "{work}");
}

#[test]
fn export_and_import_run_through_the_worker_when_it_runs() {
    let env = common::worker_env().with("SLM_EMBEDDER", "hash");
    let _stop = common::StopWorker(&env);
    rich_store(&env);
    let (cold, cold_summary) = export_lines(&env, &["--all-profiles", "--no-worker", "--json"]);
    let s: serde_json::Value = serde_json::from_str(cold_summary.trim()).unwrap();
    assert_eq!(s["served_by"], "cold", "{s}");
    common::start_worker(&env, &[]);
    let (warm, warm_summary) = export_lines(&env, &["--all-profiles", "--json"]);
    let s: serde_json::Value = serde_json::from_str(warm_summary.trim()).unwrap();
    assert_eq!(s["served_by"], "worker", "{s}");
    assert_eq!(s["command"], "export");
    assert_eq!(
        warm, cold,
        "the worker and the cold path write the same lines"
    );
    // Import through the worker, into another profile (the same profile rules apply).
    let file = env.dir.path().join("x.jsonl");
    write(
        &file,
        "{\"text\":\"Imported through the worker\",\"id\":\"wk\"}\n",
    );
    let v = env.json(&["import", file.to_str().unwrap(), "--profile", "other"]);
    assert_eq!(v["served_by"], "worker", "{v}");
    assert_eq!(v["imported"], 1, "{v}");
    let listed = env.json(&["list", "--profile", "other"]);
    assert_eq!(listed["memories"][0]["text"], "Imported through the worker");
    // A bad line still refuses the whole import, changing nothing.
    write(&file, "{\"text\":\"fine\"}\n{\"text\":\"\"}\n");
    let out = env.run(&["import", file.to_str().unwrap()]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("line 2"), "{}", stderr(&out));
}

// ---- backup and restore ---------------------------------------------------------------

fn manifest(p: &Path) -> PathBuf {
    PathBuf::from(format!("{}.manifest.json", p.display()))
}

fn ids_in(store: &Path) -> BTreeMap<i64, String> {
    let c =
        rusqlite::Connection::open_with_flags(store, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    c.prepare("SELECT id, text FROM memories")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn integrity(store: &Path) -> String {
    rusqlite::Connection::open_with_flags(store, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .unwrap()
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap()
}

/// The data dir's file names (to show a refused restore created nothing).
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with("worker.log"))
        .collect();
    v.sort();
    v
}

#[test]
fn a_backup_taken_while_the_worker_writes_is_consistent_and_holds_every_acknowledged_write() {
    // Small steps with pauses: the backup stays open for a second or more while writes land.
    let env = common::worker_env()
        .with("SLM_EMBEDDER", "hash")
        .with("SLM_TEST_BACKUP_STEP", "2,40");
    let _stop = common::StopWorker(&env);
    let seed: String = (0..400)
        .map(|i| {
            format!(
                "{{\"text\":\"seed memory number {i} about the warehouse and its nightly load\"}}\n"
            )
        })
        .collect();
    let out = env.run_stdin(&["import", "-"], seed.as_bytes());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    common::start_worker(&env, &[]);

    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let acked = std::sync::Arc::new(std::sync::Mutex::new(Vec::<(
        std::time::Instant,
        i64,
        String,
    )>::new()));
    let writer = {
        let (stop, acked) = (stop.clone(), acked.clone());
        let cmd = |args: &[&str]| env.cmd(args);
        let mut cmds = Vec::new();
        for i in 0..400 {
            let text = format!("written during the backup, number {i}");
            cmds.push((cmd(&["remember", &text, "--json"]), text));
        }
        std::thread::spawn(move || {
            for (mut c, text) in cmds {
                if stop.load(std::sync::atomic::Ordering::SeqCst) {
                    break;
                }
                let o = c.output().unwrap();
                assert_eq!(
                    o.status.code(),
                    Some(0),
                    "{}",
                    String::from_utf8_lossy(&o.stderr)
                );
                let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
                assert_eq!(v["served_by"], "worker", "{v}");
                acked.lock().unwrap().push((
                    std::time::Instant::now(),
                    v["id"].as_i64().unwrap(),
                    text,
                ));
            }
        })
    };
    // Let some writes land, then back up while the writer keeps going.
    while acked.lock().unwrap().len() < 10 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let dest = env.dir.path().join("copy.slm-backup");
    let began = std::time::Instant::now();
    let before: Vec<(i64, String)> = acked
        .lock()
        .unwrap()
        .iter()
        .map(|(_, id, t)| (*id, t.clone()))
        .collect();
    let b = env.json(&["backup", dest.to_str().unwrap()]);
    let ended = std::time::Instant::now();
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    writer.join().unwrap();
    assert!(b["manifest"]["sha256"].is_string(), "{b}");
    let during = acked
        .lock()
        .unwrap()
        .iter()
        .filter(|(t, _, _)| *t > began && *t < ended)
        .count();
    assert!(
        during >= 3,
        "only {during} writes landed while the backup ran; it did not overlap"
    );

    assert_eq!(integrity(&dest), "ok");
    let copy = ids_in(&dest);
    for (id, text) in &before {
        assert_eq!(
            copy.get(id),
            Some(text),
            "acknowledged memory {id} is missing from the backup"
        );
    }
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(manifest(&dest)).unwrap()).unwrap();
    assert_eq!(m["memories"].as_u64().unwrap() as usize, copy.len(), "{m}");
    assert_eq!(m["schema_version"], slm::store::schema::latest());
    assert!(m["slm_version"].is_string());
    // Not a file beside it but the copy and its manifest (one self-contained file, no log).
    assert!(!PathBuf::from(format!("{}-wal", dest.display())).exists());
    // The worker answered all along, and a backup never replaces a file.
    let again = env.run(&["backup", dest.to_str().unwrap()]);
    assert_eq!(code(&again), 2, "{}", stderr(&again));
    assert!(
        stderr(&again).contains("never replaces"),
        "{}",
        stderr(&again)
    );
}

#[test]
fn restore_refuses_truncated_and_foreign_files_and_puts_a_good_backup_in_place() {
    let env = common::worker_env().with("SLM_EMBEDDER", "hash");
    let _stop = common::StopWorker(&env);
    for i in 0..30 {
        env.remember(
            &format!("backed up memory {i} about the zebra migration"),
            &[],
        );
    }
    let dest = env.dir.path().join("good.backup");
    assert_eq!(code(&env.run(&["backup", dest.to_str().unwrap()])), 0);
    for i in 0..5 {
        env.remember(&format!("written after the backup {i}"), &[]);
    }
    common::start_worker(&env, &[]);
    let home = env.home();
    let listing = names(&home);
    let count = || {
        env.json(&["list", "--all", "--limit", "1000"])["memories"]
            .as_array()
            .unwrap()
            .len()
    };
    assert_eq!(count(), 35);

    // Truncated: the manifest's size and sha256 no longer match.
    let bad = env.dir.path().join("bad.backup");
    let bytes = std::fs::read(&dest).unwrap();
    std::fs::write(&bad, &bytes[..bytes.len() / 2]).unwrap();
    std::fs::copy(manifest(&dest), manifest(&bad)).unwrap();
    let out = env.run(&["restore", bad.to_str().unwrap()]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("truncated") && stderr(&out).contains("nothing was changed"),
        "{}",
        stderr(&out)
    );

    // Foreign: an SQLite file that is no slm store, with a manifest that matches it.
    let foreign = env.dir.path().join("foreign.db");
    {
        let c = rusqlite::Connection::open(&foreign).unwrap();
        c.execute_batch("CREATE TABLE songs(title TEXT); INSERT INTO songs VALUES ('x');")
            .unwrap();
    }
    let (sha, len) = {
        use sha2::Digest;
        let b = std::fs::read(&foreign).unwrap();
        (
            sha2::Sha256::digest(&b)
                .iter()
                .map(|x| format!("{x:02x}"))
                .collect::<String>(),
            b.len(),
        )
    };
    let mut m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(manifest(&dest)).unwrap()).unwrap();
    m["sha256"] = sha.into();
    m["bytes"] = len.into();
    m["memories"] = 1.into();
    std::fs::write(manifest(&foreign), m.to_string()).unwrap();
    let out = env.run(&["restore", foreign.to_str().unwrap()]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not an slm store"),
        "{}",
        stderr(&out)
    );

    // Anything without a manifest is not a backup slm wrote.
    let text = env.dir.path().join("notes.txt");
    write(&text, "hello");
    let out = env.run(&["restore", text.to_str().unwrap()]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("manifest"), "{}", stderr(&out));

    // None of it changed anything: same files, same memories, the worker still answers.
    assert_eq!(names(&home), listing);
    assert_eq!(count(), 35);
    assert_eq!(env.json(&["worker", "status"])["running"], true);

    // --dry-run says what would happen and changes nothing.
    let dry = env.json(&["restore", dest.to_str().unwrap(), "--dry-run"]);
    assert_eq!(dry["dry_run"], true, "{dry}");
    assert_eq!(dry["current_memories"], 35, "{dry}");
    assert!(
        dry["plan"][0].as_str().unwrap().contains("stop the worker"),
        "{dry}"
    );
    assert_eq!(names(&home), listing);
    assert_eq!(count(), 35);

    // The real thing: the worker stops, the store before is kept aside, the indexes are rebuilt.
    let r = env.json(&["restore", dest.to_str().unwrap()]);
    assert_eq!(r["memories"], 30, "{r}");
    assert!(r["worker_stopped"].is_number(), "{r}");
    let aside = PathBuf::from(r["kept_aside"][0].as_str().unwrap());
    assert!(aside.starts_with(&home) && aside.exists(), "{r}");
    assert_eq!(ids_in(&aside).len(), 35, "the store before is kept, whole");
    assert_eq!(count(), 30);
    let hit = env.recall("zebra migration", &[]);
    assert!(
        !common::ids(&hit).is_empty(),
        "keyword index rebuilt: {hit}"
    );
    // A second restore keeps the first one's store aside too, under a new name.
    let r2 = env.json(&["restore", dest.to_str().unwrap()]);
    let aside2 = PathBuf::from(r2["kept_aside"][0].as_str().unwrap());
    assert_ne!(aside, aside2);
    assert!(aside.exists() && aside2.exists());
}

#[test]
fn a_damaged_store_names_backup_and_restore() {
    let env = hash_env();
    env.remember("something to lose", &[]);
    let store = env.path("store.db");
    let _ = std::fs::remove_file(env.path("store.db-wal"));
    let _ = std::fs::remove_file(env.path("store.db-shm"));
    std::fs::write(&store, vec![0x42u8; 64 * 1024]).unwrap();
    let out = env.run(&["list"]);
    assert_ne!(code(&out), 0);
    let e = stderr(&out);
    assert!(e.contains("slm restore") && e.contains("slm backup"), "{e}");
}

// ---- notes ----------------------------------------------------------------------------

/// The fixture folder copied into a temp dir (named `notes`), with the files not committed:
/// a binary file with a notes extension, an image, and a 5 MB notes file.
fn notes_copy(env: &Env) -> PathBuf {
    let dst = env.dir.path().join("notes");
    copy_tree(&fixture("notes"), &dst);
    let mut bin = vec![0u8; 4096];
    for (i, b) in bin.iter_mut().enumerate() {
        *b = (i * 7 % 251) as u8;
    }
    std::fs::write(dst.join("people").join("scan.md"), &bin).unwrap();
    std::fs::write(dst.join("projects").join("diagram.png"), &bin).unwrap();
    let big = "A very long line of log output that nobody wrote as a note. "
        .repeat(5 * 1024 * 1024 / 60 + 1);
    std::fs::write(dst.join("projects").join("huge.md"), big).unwrap();
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_650_000_000);
    std::fs::File::options()
        .write(true)
        .open(dst.join("people").join("priya.txt"))
        .unwrap()
        .set_modified(t)
        .unwrap();
    dst
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            copy_tree(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

fn memories(env: &Env) -> Vec<serde_json::Value> {
    env.json(&["list", "--all", "--limit", "1000"])["memories"]
        .as_array()
        .unwrap()
        .clone()
}

fn by_text<'a>(ms: &'a [serde_json::Value], needle: &str) -> &'a serde_json::Value {
    let hits: Vec<_> = ms
        .iter()
        .filter(|m| m["text"].as_str().unwrap().contains(needle))
        .collect();
    assert_eq!(hits.len(), 1, "{needle}: {hits:?}");
    hits[0]
}

#[test]
fn a_notes_folder_imports_as_expected_and_again_changes_nothing_and_an_edit_supersedes_one() {
    let env = hash_env();
    let dir = notes_copy(&env);
    let d = dir.to_str().unwrap();
    let v = env.json(&["import", d]);
    assert_eq!(v["format"], "markdown", "{v}");
    assert_eq!(v["files"], 5, "{v}");
    assert_eq!(v["created"], 9, "{v}");
    let skipped: BTreeMap<String, String> = v["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let p = s["path"].as_str().unwrap();
            (
                p.rsplit('/').next().unwrap().to_string(),
                s["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(skipped.len(), 3, "{skipped:?}");
    assert!(skipped["scan.md"].contains("binary"), "{skipped:?}");
    assert!(skipped["huge.md"].contains("limit"), "{skipped:?}");
    assert!(
        skipped["diagram.png"].contains("not a notes file"),
        "{skipped:?}"
    );

    let ms = memories(&env);
    assert_eq!(ms.len(), 9, "{ms:?}");
    assert!(
        !ms.iter()
            .any(|m| m["text"].as_str().unwrap().contains("Editor state"))
    );
    // A heading's text stays with its paragraphs; tags come from the folders and front matter.
    let db = by_text(&ms, "We chose Postgres");
    assert_eq!(
        db["text"],
        "Analytics > Database\nWe chose Postgres for the analytics warehouse because the team already runs it."
    );
    assert_eq!(db["tags"], serde_json::json!(["db", "notes", "projects"]));
    assert_eq!(db["source"], "import");
    // Dated by front matter, else by the file's modification time.
    let day = chrono::DateTime::parse_from_rfc3339("2024-03-01T00:00:00Z")
        .unwrap()
        .timestamp_millis();
    assert!(
        (db["event_at"].as_i64().unwrap() - day).abs() < 86_400_000,
        "{db}"
    );
    let leave = by_text(&ms, "on leave");
    assert_eq!(leave["event_at"], 1_650_000_000_000i64, "{leave}");
    assert_eq!(leave["tags"], serde_json::json!(["notes", "people"]));
    // Sourced with the file path and line.
    let origin = leave["origin"].as_str().unwrap();
    assert!(origin.ends_with("notes/people/priya.txt:3"), "{origin}");
    let nested = by_text(&ms, "hosted column store");
    assert_eq!(
        nested["tags"],
        serde_json::json!(["archive", "notes", "projects"])
    );
    // A short label joins the block after it; a fenced block keeps its blank lines.
    let steps = by_text(&ms, "Steps:");
    assert!(
        steps["text"]
            .as_str()
            .unwrap()
            .contains("make build\n\nmake deploy"),
        "{steps}"
    );

    // Again: nothing new, nothing changed.
    let again = env.json(&["import", d]);
    assert_eq!(
        (again["created"].as_u64(), again["changed"].as_u64()),
        (Some(0), Some(0)),
        "{again}"
    );
    assert_eq!(again["unchanged"], 9, "{again}");
    assert_eq!(memories(&env).len(), 9);

    // Edit one paragraph: --dry-run says it would supersede one memory and writes nothing.
    let priya = dir.join("people").join("priya.txt");
    let edited = std::fs::read_to_string(&priya)
        .unwrap()
        .replace("first two weeks of August", "last two weeks of September");
    write(&priya, &edited);
    let dry = env.json(&["import", d, "--dry-run"]);
    assert_eq!(dry["dry_run"], true);
    assert_eq!(
        (dry["created"].as_u64(), dry["changed"].as_u64()),
        (Some(0), Some(1)),
        "{dry}"
    );
    assert_eq!(dry["superseded"], serde_json::json!([leave["id"]]), "{dry}");
    let human = env.run(&["import", d, "--dry-run"]);
    assert!(
        stdout(&human).contains("~ ") && stdout(&human).contains("September"),
        "{}",
        stdout(&human)
    );
    assert_eq!(memories(&env).len(), 9);

    let done = env.json(&["import", d]);
    assert_eq!(
        (done["created"].as_u64(), done["changed"].as_u64()),
        (Some(0), Some(1)),
        "{done}"
    );
    assert_eq!(
        done["superseded"],
        serde_json::json!([leave["id"]]),
        "{done}"
    );
    let ms = memories(&env);
    assert_eq!(ms.len(), 10);
    let new = by_text(&ms, "September");
    let old = by_text(&ms, "August");
    assert_eq!(old["superseded_by"], new["id"], "{old}");
    let superseded: Vec<_> = ms
        .iter()
        .filter(|m| !m["superseded_by"].is_null())
        .collect();
    assert_eq!(
        superseded.len(),
        1,
        "exactly one memory superseded: {superseded:?}"
    );
    // And once more: still nothing to do.
    let after = env.json(&["import", d]);
    assert_eq!(
        (after["created"].as_u64(), after["changed"].as_u64()),
        (Some(0), Some(0)),
        "{after}"
    );
}

#[test]
fn one_notes_file_by_extension_and_bad_paths_are_clear_errors() {
    let env = hash_env();
    let f = env.dir.path().join("todo.md");
    write(
        &f,
        "# Todo\n\nRenew the TLS certificate for the staging box before the end of June.\n",
    );
    let v = env.json(&["import", f.to_str().unwrap()]);
    assert_eq!(v["format"], "markdown", "{v}");
    assert_eq!(v["created"], 1, "{v}");
    let out = env.run(&[
        "import",
        env.dir.path().join("missing").to_str().unwrap(),
        "--format",
        "markdown",
    ]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("nothing was imported"),
        "{}",
        stderr(&out)
    );
    let out = env.run(&["import", "-", "--format", "markdown"]);
    assert_eq!(code(&out), 2);
    assert_eq!(memories(&env).len(), 1);
}
