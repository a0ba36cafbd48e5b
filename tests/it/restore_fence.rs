//! A restore is one fenced operation (issue 38): no process that opened the store before
//! it can write into the file it moved aside, a worker that is starting is waited for and
//! stopped, and what restore reports is what it put in place.

use crate::common::{self, Env, StopWorker, code, stderr};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn texts(env: &Env) -> BTreeSet<String> {
    common::stored_texts(env).into_iter().collect()
}

fn backup(env: &Env, name: &str) -> PathBuf {
    let dest = env.dir.path().join(name);
    let out = env.run(&["backup", dest.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "backup: {}", stderr(&out));
    dest
}

fn set_aside(home: &Path) -> Vec<String> {
    std::fs::read_dir(home)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".before-restore-") && !n.ends_with("-wal") && !n.ends_with("-shm"))
        .collect()
}

#[test]
fn a_restore_while_a_worker_is_starting_loses_no_later_write() {
    // The worker pauses between opening the store and listening: the moment in which the
    // restore of issue 38 moved the store aside under it, and it served and wrote the old
    // file from then on.
    let env = common::worker_env().with("SLM_TEST_OPENED_PAUSE_MS", "1500");
    let _stop = StopWorker(&env);
    env.remember("seed: the backups go to the NAS", &[]);
    let b = backup(&env, "b.db");
    assert_eq!(code(&env.run(&["worker", "stop"])), 0);
    // Answered in-process; it spawns a worker, which is now inside its pause.
    env.remember("before: written after the backup", &[]);
    std::thread::sleep(Duration::from_millis(200));
    let r = env.run(&["restore", b.to_str().unwrap()]);
    assert_eq!(code(&r), 0, "restore: {}", stderr(&r));
    // Long enough for a worker that was not stopped to finish loading and listen.
    std::thread::sleep(Duration::from_millis(3000));
    env.remember("after: written once the restore was done", &[]);
    let seen = texts(&env);
    assert_eq!(code(&env.run(&["worker", "stop"])), 0);
    let stored = texts(&env);
    let want: BTreeSet<String> = [
        "seed: the backups go to the NAS",
        "after: written once the restore was done",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(seen, want, "what the worker served after the restore");
    assert_eq!(
        stored, want,
        "what the store holds once every worker is gone"
    );
}

#[test]
fn a_process_that_opened_the_store_before_a_restore_writes_nothing_into_the_old_one() {
    let env = Env::new().with("SLM_WORKER", "off");
    env.remember("seed: the cache is Redis", &[]);
    let b = backup(&env, "b.db");
    for i in 0..3 {
        env.remember(&format!("line {i} before the import"), &[]);
    }
    // An import whose batches are slow enough to straddle the restore.
    let lines: String = (0..400)
        .map(|i| format!("{{\"text\": \"imported memory number {i} about the racing import\"}}\n"))
        .collect();
    let file = env.dir.path().join("many.jsonl");
    std::fs::write(&file, lines).unwrap();
    let import = env.spawn(&["import", file.to_str().unwrap(), "--batch", "1", "--json"]);
    // Restore once the import has written some lines (it loads the model first).
    let t = Instant::now();
    while !texts(&env).iter().any(|t| t.starts_with("imported")) {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the import never wrote"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let r = env.run(&["restore", b.to_str().unwrap(), "--json"]);
    let out = import.wait_with_output().unwrap();
    assert_eq!(code(&r), 0, "restore: {}", stderr(&r));
    let live = texts(&env);
    let imported_live = live.iter().filter(|t| t.starts_with("imported")).count();
    if code(&out) == 0 {
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        panic!(
            "the import says it imported everything ({v}), but the restore replaced the store while it ran"
        );
    }
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let e = v["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        e.contains("replaced by `slm restore`") && e.contains("were not written"),
        "the import says which lines were saved where: {v}"
    );
    assert_eq!(
        imported_live, 0,
        "nothing lands in the restored store without being reported"
    );
    assert!(live.contains("seed: the cache is Redis"));
    // Running it again puts every line in the restored store.
    let again = env.json(&["import", file.to_str().unwrap()]);
    assert_eq!(again["imported"], 400, "{again}");
}

#[test]
fn a_restore_racing_writers_reports_what_it_put_in_place() {
    let env = Env::new().with("SLM_WORKER", "off");
    for i in 0..5 {
        env.remember(&format!("backed up memory {i}"), &[]);
    }
    let b = backup(&env, "b.db");
    let writers: Vec<_> = (0..3)
        .map(|w| {
            let home = env.home();
            let run = env.dir.path().join("run");
            std::thread::spawn(move || {
                let t = Instant::now();
                let mut n = 0;
                while t.elapsed() < Duration::from_secs(4) {
                    let _ = std::process::Command::new(common::bin())
                        .args(["remember", &format!("writer {w} memory {n}")])
                        .env("SLM_HOME", &home)
                        .env("SLM_WORKER", "off")
                        .env("SLM_RUNTIME_DIR", &run)
                        .env("SLM_NOW", common::NOW)
                        .output();
                    n += 1;
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(800));
    let r = env.run(&["restore", b.to_str().unwrap(), "--json"]);
    for w in writers {
        w.join().unwrap();
    }
    assert_eq!(code(&r), 0, "restore: {}", stderr(&r));
    let v: Value = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!(v["memories"], 5, "{v}");
    assert_eq!(set_aside(&env.home()).len(), 1);
}

#[test]
fn a_backup_killed_before_its_last_rename_leaves_nothing_in_the_way() {
    let env = Env::new().with("SLM_WORKER", "off");
    env.remember("a memory to back up", &[]);
    let dest = env.dir.path().join("b.db");
    // What a backup killed between writing its manifest and renaming its copy leaves: a
    // manifest without its file, and the copy under its temporary name of a dead process.
    let first = backup(&env, "first.db");
    std::fs::copy(
        format!("{}.manifest.json", first.display()),
        format!("{}.manifest.json", dest.display()),
    )
    .unwrap();
    let dead_partial = PathBuf::from(format!("{}.partial-999999", dest.display()));
    std::fs::copy(&first, &dead_partial).unwrap();
    let b = backup(&env, "b.db");
    assert!(
        !dead_partial.exists(),
        "the dead backup's partial copy is removed"
    );
    let r = env.run(&["restore", b.to_str().unwrap(), "--dry-run"]);
    assert_eq!(code(&r), 0, "the new backup restores: {}", stderr(&r));
    // A file at the target that is not ours is never replaced.
    let r = env.run(&["backup", b.to_str().unwrap()]);
    assert_eq!(code(&r), 2, "{}", stderr(&r));
}

#[test]
fn a_restore_killed_mid_swap_is_named_by_the_missing_store_hint() {
    let env = Env::new().with("SLM_WORKER", "off");
    env.remember("a memory before the interrupted restore", &[]);
    let b = backup(&env, "b.db");
    // What a restore killed between moving the store aside and putting the copy in place
    // leaves: the store aside, the checked copy under its temporary name, the old indexes.
    let home = env.home();
    let store = home.join("store.db");
    std::fs::rename(
        &store,
        home.join("store.db.before-restore-20230510T120000Z"),
    )
    .unwrap();
    for s in ["-wal", "-shm"] {
        let _ = std::fs::rename(
            home.join(format!("store.db{s}")),
            home.join(format!("store.db.before-restore-20230510T120000Z{s}")),
        );
    }
    let copy = home.join("store.db.restoring-999999");
    std::fs::copy(&b, &copy).unwrap();
    let out = env.run(&["list", "--json"]);
    assert_eq!(code(&out), 1);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "STORE_MISSING", "{v}");
    let hint = v["error"]["hint"].as_str().unwrap();
    assert!(
        hint.contains("store.db.restoring-999999") && hint.contains("mv "),
        "{hint}"
    );
}
