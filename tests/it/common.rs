//! The test environment: the real `slm` binary against a temporary home, with the clock
//! pinned (`SLM_NOW`) and the real model from the cache dir that `scripts/setup.sh` fills.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// slm's cache dir as `scripts/setup.sh` fills it (where the models are).
pub fn cache_dir() -> PathBuf {
    std::env::var_os("SLM_CACHE_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("XDG_CACHE_HOME")
                .filter(|v| !v.is_empty())
                .map(|x| PathBuf::from(x).join("slm"))
        })
        .unwrap_or_else(|| PathBuf::from(std::env::var("HOME").expect("HOME")).join(".cache/slm"))
}

/// The pinned clock of every test: a Wednesday.
pub const NOW: &str = "2023-05-10T12:00:00Z";

pub struct Env {
    pub dir: tempfile::TempDir,
    pub extra: Vec<(String, String)>,
}

impl Env {
    pub fn new() -> Env {
        Env {
            dir: tempfile::tempdir().expect("temp dir"),
            extra: Vec::new(),
        }
    }

    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    pub fn with(mut self, k: &str, v: &str) -> Env {
        self.extra.push((k.into(), v.into()));
        self
    }

    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(bin());
        c.args(args)
            .env("SLM_HOME", self.home())
            .env("SLM_NOW", NOW)
            .env("SLM_NO_PROGRESS", "1")
            .env_remove("SLM_PROFILE")
            .env_remove("SLM_PROJECT")
            .env_remove("SLM_RANKING")
            .env_remove("SLM_RECALL_NO_SUPPORT_GATE")
            .env_remove("SLM_MODEL_DIR")
            .env_remove("SLM_QUERY_ENCODER")
            .env_remove("SLM_QUERY_ENCODER_DIR")
            .env_remove("SLM_IMAGE_MODEL_DIR")
            .env_remove("NO_COLOR")
            // In-process with the model: these tests judge the engine. The worker module runs
            // the real worker (SLM_WORKER=auto) on its own socket directory.
            .env("SLM_WORKER", "inline")
            .env("SLM_RUNTIME_DIR", self.dir.path().join("run"));
        for (k, v) in &self.extra {
            c.env(k, v);
        }
        c
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd(args)
            .stdin(Stdio::null())
            .output()
            .expect("slm runs")
    }

    /// Start slm in the background, output captured (`wait_with_output` collects it).
    pub fn spawn(&self, args: &[&str]) -> std::process::Child {
        self.cmd(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("slm starts")
    }

    /// Start `slm mcp` (a stdio server) with its stdin, stdout and stderr piped.
    pub fn spawn_mcp(&self) -> std::process::Child {
        self.cmd(&["mcp"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("slm mcp starts")
    }

    pub fn run_stdin(&self, args: &[&str], input: &[u8]) -> Output {
        let mut child = self
            .cmd(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input)
            .expect("write stdin");
        child.wait_with_output().expect("wait")
    }

    /// Run and parse `--json` output; panics with stderr when it is not JSON.
    pub fn json(&self, args: &[&str]) -> serde_json::Value {
        let mut a = args.to_vec();
        a.push("--json");
        let out = self.run(&a);
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "not JSON ({e}) from {args:?}: stdout={} stderr={}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        })
    }

    /// Save a memory and return its id.
    /// A write SQLite refused because another writer held the lock past its wait says
    /// `retryable: true` (nothing was written); like a careful script, ask again, at most
    /// three times. A transfer test once met it right after a backup (not understood yet).
    pub fn remember(&self, text: &str, extra: &[&str]) -> i64 {
        let mut a = vec!["remember", text];
        a.extend_from_slice(extra);
        let mut v = self.json(&a);
        for _ in 0..3 {
            if v["error"]["retryable"] != true {
                break;
            }
            eprintln!("remember was told to retry: {v}");
            std::thread::sleep(std::time::Duration::from_millis(300));
            v = self.json(&a);
        }
        v["id"].as_i64().unwrap_or_else(|| panic!("no id in {v}"))
    }

    pub fn recall(&self, q: &str, extra: &[&str]) -> serde_json::Value {
        let mut a = vec!["recall", q];
        a.extend_from_slice(extra);
        self.json(&a)
    }

    pub fn path(&self, p: &str) -> PathBuf {
        self.home().join(p)
    }
}

/// The text of every memory `env` lists (the default profile, bookkeeping left out).
pub fn stored_texts(env: &Env) -> Vec<String> {
    let v = env.json(&["list", "--limit", "100000"]);
    v["memories"]
        .as_array()
        .unwrap_or_else(|| panic!("no memories in {v}"))
        .iter()
        .map(|m| m["text"].as_str().unwrap().to_string())
        .collect()
}

/// The binary under test: this build's, or `SLM_TEST_BIN` (to run a new test against an
/// older build and see it fail).
pub fn bin() -> PathBuf {
    std::env::var_os("SLM_TEST_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_slm")))
}

/// The ids of a recall's results, in order. Panics with the response when it has no
/// "results" (an error, or another command's output), so a test cannot pass on `[]`.
pub fn ids(v: &serde_json::Value) -> Vec<i64> {
    v["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no \"results\" in the response: {v}"))
        .iter()
        .map(|r| {
            r["id"]
                .as_i64()
                .unwrap_or_else(|| panic!("a result without an id: {r}"))
        })
        .collect()
}

pub fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

/// Stops the worker of a test home when the test ends, whatever happened.
pub struct StopWorker<'a>(pub &'a Env);
impl Drop for StopWorker<'_> {
    fn drop(&mut self) {
        let _ = self.0.run(&["worker", "stop"]);
    }
}

/// A test home whose commands go through the real worker (on its own socket directory).
pub fn worker_env() -> Env {
    Env::new()
        .with("SLM_WORKER", "auto")
        .with("SLM_WORKER_IDLE_S", "120")
}

/// Start the worker of `env` with extra environment (the worker keeps it for its life).
pub fn start_worker(env: &Env, extra: &[(&str, &str)]) -> serde_json::Value {
    let mut c = env.cmd(&["worker", "start", "--json"]);
    for (k, v) in extra {
        c.env(k, v);
    }
    let out = c.output().expect("slm runs");
    assert_eq!(code(&out), 0, "worker start: {}", stderr(&out));
    serde_json::from_slice(&out.stdout).expect("worker start --json")
}
