//! Notes imports that stay right when files change under them (issue 38): a reverted
//! paragraph is stored again, links never lead out of the folder, FIFOs and dangling links are
//! listed and never block, and a note file that is gone is reported. The real binary against
//! temporary homes, with the hash embedder (these tests judge the import, not the model).

use crate::common::{Env, code, stderr};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

fn env() -> Env {
    Env::new().with("SLM_EMBEDDER", "hash")
}

fn write(p: &Path, s: &str) {
    if let Some(d) = p.parent() {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(p, s).unwrap();
}

fn out_text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

/// Every memory of the home, corrected ones too.
fn memories(env: &Env) -> Vec<serde_json::Value> {
    env.json(&["list", "--all", "--limit", "1000"])["memories"]
        .as_array()
        .unwrap()
        .clone()
}

fn texts(env: &Env) -> Vec<String> {
    memories(env)
        .iter()
        .map(|m| m["text"].as_str().unwrap().to_string())
        .collect()
}

/// Run slm, killing it when it has not finished in `limit` (a FIFO must never block it).
fn run_within(env: &Env, args: &[&str], limit: Duration) -> Output {
    let mut child = env.spawn(args);
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > limit {
            child.kill().unwrap();
            let out = child.wait_with_output().unwrap();
            panic!(
                "slm {args:?} still running after {limit:?}: stdout={} stderr={}",
                out_text(&out),
                stderr(&out)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn json_of(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!("not JSON ({e}): {} / {}", out_text(o), stderr(o));
    })
}

/// The skipped entries of an import report, by file name.
fn skipped(v: &serde_json::Value) -> std::collections::BTreeMap<String, String> {
    v["skipped"]
        .as_array()
        .unwrap_or_else(|| panic!("no skipped list: {v}"))
        .iter()
        .map(|s| {
            let p = s["path"].as_str().unwrap();
            (
                p.rsplit('/').next().unwrap().to_string(),
                s["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

const POSTGRES: &str = "We chose Postgres 15 for the analytics warehouse because the team already runs it in production.";
const CLICKHOUSE: &str = "We chose ClickHouse 24 for the analytics warehouse because the team already runs it in production.";

#[test]
fn a_reverted_note_is_stored_again_and_supersedes_the_edit() {
    let env = env();
    let dir = env.dir.path().join("notes");
    let note = dir.join("db.md");
    let other = format!(
        "# Analytics\n\n{POSTGRES}\n\nThe staging database listens on port 6543 and is rebuilt every night.\n"
    );
    write(&note, &other);
    let d = dir.to_str().unwrap();
    let v = env.json(&["import", d]);
    assert_eq!(v["created"], 2, "{v}");
    let first = memories(&env)
        .into_iter()
        .find(|m| m["text"].as_str().unwrap().contains("Postgres 15"))
        .unwrap();

    // Edit: the ClickHouse paragraph supersedes the Postgres one.
    write(&note, &other.replace(POSTGRES, CLICKHOUSE));
    let v = env.json(&["import", d]);
    assert_eq!(
        (v["created"].as_u64(), v["changed"].as_u64()),
        (Some(0), Some(1)),
        "{v}"
    );
    assert_eq!(v["superseded"], serde_json::json!([first["id"]]), "{v}");
    let ms = memories(&env);
    let click = ms
        .iter()
        .find(|m| m["text"].as_str().unwrap().contains("ClickHouse 24"))
        .unwrap()
        .clone();

    // Revert: a new current memory with the Postgres text that supersedes the ClickHouse one.
    write(&note, &other);
    let v = env.json(&["import", d]);
    assert_eq!(
        (v["created"].as_u64(), v["changed"].as_u64()),
        (Some(0), Some(1)),
        "{v}"
    );
    assert_eq!(v["superseded"], serde_json::json!([click["id"]]), "{v}");
    let ms = memories(&env);
    assert_eq!(ms.len(), 4, "the revert is written as a new memory: {ms:?}");
    let click_now = ms.iter().find(|m| m["id"] == click["id"]).unwrap();
    let reverted_id = click_now["superseded_by"]
        .as_i64()
        .unwrap_or_else(|| panic!("the ClickHouse memory is still current: {click_now}"));
    let reverted = ms.iter().find(|m| m["id"] == reverted_id).unwrap();
    assert!(
        reverted["text"].as_str().unwrap().contains("Postgres 15"),
        "{reverted}"
    );
    assert!(reverted["superseded_by"].is_null(), "{reverted}");
    assert_ne!(reverted_id, first["id"].as_i64().unwrap());
    // The report named the memory it wrote.
    let written: Vec<i64> = v["outcomes"][0]["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_i64().unwrap())
        .collect();
    assert_eq!(written, vec![reverted_id], "{v}");

    // Recall answers with the reverted text, not the edit.
    let r = env.recall(
        "which database did we choose for the analytics warehouse",
        &[],
    );
    let top = r["results"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(top.contains("Postgres 15"), "{r}");
    assert!(
        !r["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["text"].as_str().unwrap().contains("ClickHouse")),
        "{r}"
    );

    // Unchanged files again: nothing to do, and nothing claimed.
    for _ in 0..2 {
        let v = env.json(&["import", d]);
        assert_eq!(
            (
                v["created"].as_u64(),
                v["changed"].as_u64(),
                v["unchanged"].as_u64()
            ),
            (Some(0), Some(0), Some(2)),
            "{v}"
        );
        assert_eq!(v["superseded"], serde_json::json!([]), "{v}");
        assert_eq!(memories(&env).len(), 4);
    }

    // And the chain goes on: edit again, then back again.
    write(&note, &other.replace(POSTGRES, CLICKHOUSE));
    let v = env.json(&["import", d]);
    assert_eq!(v["superseded"], serde_json::json!([reverted_id]), "{v}");
    write(&note, &other);
    let v = env.json(&["import", d]);
    assert_eq!(v["changed"], 1, "{v}");
    let ms = memories(&env);
    assert_eq!(ms.len(), 6, "{ms:?}");
    let current: Vec<&serde_json::Value> =
        ms.iter().filter(|m| m["superseded_by"].is_null()).collect();
    assert_eq!(current.len(), 2, "{current:?}");
    assert!(
        current
            .iter()
            .any(|m| m["text"].as_str().unwrap().contains("Postgres 15")),
        "{current:?}"
    );
}

/// A folder `notes` with one real note, beside a folder `outside` with a secret.
fn linked_folder(env: &Env) -> (PathBuf, PathBuf) {
    let dir = env.dir.path().join("notes");
    let outside = env.dir.path().join("outside");
    write(
        &dir.join("real.md"),
        "Renew the TLS certificate for the staging box before the end of June, it expires then.\n",
    );
    write(
        &outside.join("secret.md"),
        "The root password of the billing database is hunter2-correct-horse, never share it.\n",
    );
    write(
        &outside.join("deeper").join("more.md"),
        "Another secret outside the folder: the VPN pre-shared key is swordfish-battery-staple.\n",
    );
    write(
        &dir.join(".drafts").join("plan.md"),
        "A draft inside the folder, in a hidden folder: the offsite is planned for the first week of May.\n",
    );
    std::os::unix::fs::symlink("/etc/passwd", dir.join("passwd.md")).unwrap();
    std::os::unix::fs::symlink("../outside/secret.md", dir.join("secret.md")).unwrap();
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::os::unix::fs::symlink("../../outside/secret.md", dir.join("sub").join("up.md")).unwrap();
    std::os::unix::fs::symlink("../outside", dir.join("elsewhere")).unwrap();
    std::os::unix::fs::symlink(".drafts/plan.md", dir.join("plan.md")).unwrap();
    (dir, outside)
}

fn assert_nothing_from_outside(env: &Env) {
    for t in texts(env) {
        assert!(
            !t.contains("hunter2") && !t.contains("swordfish") && !t.contains("root:"),
            "a file from outside the folder was imported: {t}"
        );
    }
}

#[test]
fn symlinks_are_not_followed_and_are_listed_as_skipped() {
    let env = env();
    let (dir, _) = linked_folder(&env);
    let d = dir.to_str().unwrap();

    let dry = env.json(&["import", d, "--dry-run"]);
    let sk = skipped(&dry);
    for name in ["passwd.md", "secret.md", "up.md", "elsewhere", "plan.md"] {
        let reason = sk
            .get(name)
            .unwrap_or_else(|| panic!("{name} not listed as skipped: {dry}"));
        assert!(reason.contains("link"), "{name}: {reason}");
        assert!(reason.contains("--follow-links"), "{name}: {reason}");
    }
    let planned = dry.to_string();
    assert!(
        !planned.contains("hunter2") && !planned.contains("root:"),
        "{dry}"
    );
    assert_eq!(dry["created"], 1, "{dry}");

    let v = env.json(&["import", d]);
    assert_eq!(v["created"], 1, "{v}");
    assert_eq!(v["files"], 1, "{v}");
    assert_eq!(texts(&env).len(), 1);
    assert_nothing_from_outside(&env);
    // The person reads the reasons too.
    let human = env.run(&["import", d, "--dry-run"]);
    let s = out_text(&human);
    assert!(s.contains("passwd.md") && s.contains("link"), "{s}");
}

#[test]
fn follow_links_follows_only_links_that_stay_inside_the_folder() {
    let env = env();
    let (dir, _) = linked_folder(&env);
    let d = dir.to_str().unwrap();
    let v = env.json(&["import", d, "--follow-links"]);
    let sk = skipped(&v);
    for name in ["passwd.md", "secret.md", "up.md", "elsewhere"] {
        let reason = sk
            .get(name)
            .unwrap_or_else(|| panic!("{name} not listed as skipped: {v}"));
        assert!(reason.contains("outside the folder"), "{name}: {reason}");
    }
    assert!(!sk.contains_key("plan.md"), "{v}");
    assert_eq!(v["created"], 2, "{v}");
    assert_nothing_from_outside(&env);
    assert!(
        texts(&env).iter().any(|t| t.contains("offsite")),
        "{:?}",
        texts(&env)
    );
    // Again: the link's target is the same note, so nothing changes.
    let v = env.json(&["import", d, "--follow-links"]);
    assert_eq!(
        (v["created"].as_u64(), v["changed"].as_u64()),
        (Some(0), Some(0)),
        "{v}"
    );
    // --follow-links is for notes.
    let f = env.dir.path().join("m.jsonl");
    write(&f, "{\"text\":\"a line of JSON\"}\n");
    let out = env.run(&["import", f.to_str().unwrap(), "--follow-links"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("--follow-links"), "{}", stderr(&out));
}

#[test]
fn a_fifo_and_a_dangling_link_are_listed_as_skipped_and_never_block() {
    let env = env();
    let dir = env.dir.path().join("notes");
    write(
        &dir.join("real.md"),
        "Renew the TLS certificate for the staging box before the end of June, it expires then.\n",
    );
    let fifo = dir.join("pipe.md");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    std::os::unix::fs::symlink("nowhere.md", dir.join("dangling.md")).unwrap();
    let d = dir.to_str().unwrap();
    for extra in [&["--dry-run"][..], &[][..], &["--follow-links"][..]] {
        let mut args = vec!["import", d, "--json"];
        args.extend_from_slice(extra);
        let out = run_within(&env, &args, Duration::from_secs(60));
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let v = json_of(&out);
        let sk = skipped(&v);
        assert!(
            sk.get("pipe.md").is_some_and(|r| r.contains("FIFO")),
            "{extra:?}: {v}"
        );
        assert!(
            sk.get("dangling.md").is_some_and(|r| r.contains("link")),
            "{extra:?}: {v}"
        );
    }
    // Named on its own, a FIFO is refused without being opened.
    let out = run_within(
        &env,
        &["import", fifo.to_str().unwrap(), "--json"],
        Duration::from_secs(60),
    );
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let v = json_of(&out);
    assert!(v.to_string().contains("FIFO"), "{v}");
    assert!(v.to_string().contains("nothing was imported"), "{v}");
    assert_eq!(texts(&env).len(), 1);
}

#[test]
fn a_note_file_that_is_gone_is_reported_and_kept() {
    let env = env();
    let dir = env.dir.path().join("notes");
    write(
        &dir.join("keep.md"),
        "Renew the TLS certificate for the staging box before the end of June, it expires then.\n",
    );
    let gone = dir.join("team").join("leave.md");
    write(
        &gone,
        "Priya is on leave for the first two weeks of August; Tom covers the on-call rota.\n\nThe quarterly planning meeting moved from Monday to Thursday mornings at ten.\n",
    );
    let d = dir.to_str().unwrap();
    let v = env.json(&["import", d]);
    assert_eq!(v["created"], 3, "{v}");
    let mut ids: Vec<i64> = memories(&env)
        .iter()
        .filter(|m| !m["text"].as_str().unwrap().contains("TLS"))
        .map(|m| m["id"].as_i64().unwrap())
        .collect();
    ids.sort();
    std::fs::remove_file(&gone).unwrap();

    let v = env.json(&["import", d]);
    assert_eq!(v["no_longer_in_files"], 2, "{v}");
    let files = v["files_gone"].as_array().unwrap_or_else(|| panic!("{v}"));
    assert_eq!(files.len(), 1, "{v}");
    assert!(
        files[0]["path"]
            .as_str()
            .unwrap()
            .ends_with("team/leave.md"),
        "{v}"
    );
    let mut listed: Vec<i64> = files[0]["ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_i64().unwrap())
        .collect();
    listed.sort();
    assert_eq!(listed, ids, "{v}");
    // Kept, and the person is told how to forget them.
    assert_eq!(memories(&env).len(), 3);
    let human = out_text(&env.run(&["import", d]));
    assert!(human.contains("leave.md"), "{human}");
    assert!(
        human.contains(&format!("slm delete {} {}", ids[0], ids[1])),
        "{human}"
    );
    // Once deleted, they are no longer reported.
    let del: Vec<String> = ids.iter().map(|i| i.to_string()).collect();
    let mut args = vec!["delete"];
    args.extend(del.iter().map(String::as_str));
    let out = env.run(&args);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v = env.json(&["import", d]);
    assert_eq!(v["no_longer_in_files"], 0, "{v}");
    // A single file import reports nothing about the rest of its folder.
    let v = env.json(&["import", dir.join("keep.md").to_str().unwrap()]);
    assert_eq!(v["no_longer_in_files"], 0, "{v}");
}
