//! Per-project memory (issue 35): a memory written inside a git repository records its
//! project; questions asked inside one see that project's memories and those with no
//! project, never another project's; `--all-projects` widens, `--project` names one.

use crate::common::{Env, code, ids, stderr};
use std::path::{Path, PathBuf};
use std::process::Output;

fn env() -> Env {
    Env::new().with("SLM_EMBEDDER", "hash")
}

fn run_in(env: &Env, dir: &Path, args: &[&str]) -> Output {
    env.cmd(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

fn json_in(env: &Env, dir: &Path, args: &[&str]) -> serde_json::Value {
    let mut a = args.to_vec();
    a.push("--json");
    let out = run_in(env, dir, &a);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)))
}

/// A folder that is a git repository (what slm looks for is the `.git` entry).
fn repo(env: &Env, name: &str) -> PathBuf {
    let d = env.dir.path().join("code").join(name);
    std::fs::create_dir_all(d.join(".git")).unwrap();
    std::fs::create_dir_all(d.join("src")).unwrap();
    d
}

fn listed(v: &serde_json::Value) -> Vec<i64> {
    let mut v: Vec<i64> = v["memories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_i64().unwrap())
        .collect();
    v.sort();
    v
}

#[test]
fn each_repository_sees_its_own_memories_and_the_unprojected_ones() {
    let env = env();
    let api = repo(&env, "api");
    let web = repo(&env, "web");
    let outside = env.dir.path().join("notes");
    std::fs::create_dir_all(&outside).unwrap();
    let remember = |dir: &Path, text: &str| -> i64 {
        json_in(&env, dir, &["remember", text])["id"]
            .as_i64()
            .unwrap()
    };
    let a = remember(
        &api.join("src"),
        "The deploy target is fly.io in the api service",
    );
    let w = remember(&web, "The deploy target is Netlify for the web frontend");
    let g = remember(&outside, "The deploy window is Tuesday mornings");

    let shown = json_in(&env, &api, &["show", &a.to_string()]);
    let project = shown["memory"]["project"].as_str().unwrap().to_string();
    assert!(project.starts_with("api-"), "{shown}");
    assert!(json_in(&env, &outside, &["show", &g.to_string()])["memory"]["project"].is_null());

    assert_eq!(listed(&json_in(&env, &api, &["list"])), vec![a, g]);
    assert_eq!(listed(&json_in(&env, &web, &["list"])), vec![w, g]);
    assert_eq!(
        listed(&json_in(&env, &outside, &["list"])),
        vec![a, w, g],
        "outside any repository: every project"
    );
    assert_eq!(
        listed(&json_in(&env, &api, &["list", "--all-projects"])),
        vec![a, w, g]
    );
    assert_eq!(
        listed(&json_in(&env, &outside, &["list", "--project", &project])),
        vec![a, g]
    );

    // Questions: the other project's memory is never a candidate, even a weak one.
    let r = json_in(&env, &api, &["recall", "deploy target", "--show-weak"]);
    let got = ids(&r);
    assert!(got.contains(&a), "{r}");
    assert!(!got.contains(&w), "another project's memory leaked: {r}");
    let r = json_in(
        &env,
        &api,
        &["recall", "deploy target", "--show-weak", "--all-projects"],
    );
    assert!(ids(&r).contains(&w), "{r}");

    // Session context and hooks read the same way.
    let block = json_in(&env, &web, &["session-context"]);
    let in_block: Vec<i64> = block["memory_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    assert!(in_block.contains(&w) && in_block.contains(&g), "{block}");
    assert!(!in_block.contains(&a), "{block}");

    // The same text in another project is another memory (the first is not visible there);
    // a text already saved outside any project is visible here, so it is that memory.
    let w2 = remember(&web, "The deploy target is fly.io in the api service");
    assert_ne!(w2, a);
    assert_eq!(remember(&api, "The deploy window is Tuesday mornings"), g);
}

#[test]
fn project_flags_are_checked() {
    let env = env();
    let out = env.run(&["list", "--project", "x", "--all-projects"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let out = env.run(&["list", "--project", " "]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
}
