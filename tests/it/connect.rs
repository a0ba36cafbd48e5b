//! `slm connect`: slm's MCP server (and Claude Code's hooks) written into a copy of a
//! realistic config of each agent (`fixtures/connect/`), through the real binary. The
//! user's own entries stay, a second run changes nothing, `--remove` gives back the exact
//! bytes, and a malformed file is refused untouched.

use crate::common::{Env, bin, code, fixture, stderr};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A test home (HOME points into the temp dir, never at the real one).
fn env() -> Env {
    let e = Env::new();
    let home = e.dir.path().join("user");
    std::fs::create_dir_all(&home).unwrap();
    let h = home.display().to_string();
    e.with("HOME", &h).with("CODEX_HOME", "")
}

fn user_home(e: &Env) -> PathBuf {
    e.dir.path().join("user")
}

/// A copy of `fixtures/connect/<name>` in the test's temp dir.
fn copy(e: &Env, name: &str) -> PathBuf {
    let to = e.dir.path().join(name);
    std::fs::copy(fixture("connect").join(name), &to).unwrap();
    to
}

/// The path slm writes for itself (the running binary, resolved).
fn slm_path() -> String {
    std::fs::canonicalize(bin()).unwrap().display().to_string()
}

fn run_json(e: &Env, args: &[&str]) -> Value {
    let v = e.json(args);
    assert!(v.get("error").is_none(), "{args:?} failed: {v}");
    v
}

fn read_json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap())
        .unwrap_or_else(|err| panic!("{} is not JSON after slm's edit: {err}", p.display()))
}

/// Connect with `--yes`, check a second run is a no-op and `--remove` gives back the
/// bytes; returns the file(s) as they were while connected.
fn round_trip(e: &Env, agent: &str, files: &[(&str, &Path)]) -> Vec<Vec<u8>> {
    let original: Vec<Vec<u8>> = files
        .iter()
        .map(|(_, p)| std::fs::read(p).unwrap())
        .collect();
    let mut args = vec!["connect", agent, "--yes"];
    for (flag, p) in files {
        args.extend([*flag, p.to_str().unwrap()]);
    }
    let v = run_json(e, &args);
    assert_eq!(v["changed"], true, "{v}");
    for (i, f) in v["files"].as_array().unwrap().iter().enumerate() {
        let backup = f["backup"].as_str().expect("a backup path");
        assert!(backup.contains(".slm-backup-"), "{backup}");
        assert_eq!(
            std::fs::read(backup).unwrap(),
            original[i],
            "the backup holds the old bytes"
        );
        assert!(!f["added"].as_array().unwrap().is_empty(), "{f}");
    }
    let connected: Vec<Vec<u8>> = files
        .iter()
        .map(|(_, p)| std::fs::read(p).unwrap())
        .collect();
    assert_ne!(connected, original);

    let again = run_json(e, &args);
    assert_eq!(
        again["changed"], false,
        "a second connect changes nothing: {again}"
    );
    let out = e.run(&args);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("already connected"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let now: Vec<Vec<u8>> = files
        .iter()
        .map(|(_, p)| std::fs::read(p).unwrap())
        .collect();
    assert_eq!(
        now, connected,
        "a second connect leaves the bytes as they were"
    );

    let mut rm = args.clone();
    rm.push("--remove");
    let v = run_json(e, &rm);
    assert_eq!(v["changed"], true, "{v}");
    let after: Vec<Vec<u8>> = files
        .iter()
        .map(|(_, p)| std::fs::read(p).unwrap())
        .collect();
    for (i, (_, p)) in files.iter().enumerate() {
        assert_eq!(
            String::from_utf8_lossy(&after[i]),
            String::from_utf8_lossy(&original[i]),
            "--remove restores {} byte for byte",
            p.display()
        );
    }
    connected
}

#[test]
fn claude_code_gets_mcp_and_hooks_and_keeps_the_users_own() {
    let e = env();
    let mcp = copy(&e, "claude.json");
    let settings = copy(&e, "claude-settings.json");
    let before_mcp = read_json(&mcp);
    let before_settings = read_json(&settings);
    let connected = round_trip(
        &e,
        "claude",
        &[("--config", &mcp), ("--hooks-config", &settings)],
    );
    let m: Value = serde_json::from_slice(&connected[0]).unwrap();
    assert_eq!(m["mcpServers"]["slm"]["command"], slm_path().as_str());
    assert_eq!(m["mcpServers"]["slm"]["args"], serde_json::json!(["mcp"]));
    for k in ["github", "playwright"] {
        assert_eq!(m["mcpServers"][k], before_mcp["mcpServers"][k], "{k} kept");
    }
    assert_eq!(m["projects"], before_mcp["projects"]);
    assert_eq!(m["numStartups"], 41);
    let s: Value = serde_json::from_slice(&connected[1]).unwrap();
    let ups = s["hooks"]["UserPromptSubmit"].as_array().unwrap();
    assert_eq!(
        ups[0], before_settings["hooks"]["UserPromptSubmit"][0],
        "the user's hook stays first"
    );
    assert_eq!(
        ups[1]["hooks"][0]["command"],
        format!("{} hook recall", slm_path()).as_str()
    );
    assert_eq!(
        s["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        format!("{} session-context", slm_path()).as_str()
    );
    // Capture: the prompt, files the edit tools changed, and the session's end.
    let capture = format!("{} hook capture", slm_path());
    assert_eq!(ups[2]["hooks"][0]["command"], capture.as_str());
    let post = &s["hooks"]["PostToolUse"][0];
    assert_eq!(post["matcher"], "Write|Edit|MultiEdit|NotebookEdit");
    assert_eq!(post["hooks"][0]["command"], capture.as_str());
    assert_eq!(
        s["hooks"]["SessionEnd"][0]["hooks"][0]["command"],
        capture.as_str()
    );
    assert_eq!(
        s["hooks"]["PreToolUse"],
        before_settings["hooks"]["PreToolUse"]
    );
    assert_eq!(s["permissions"], before_settings["permissions"]);
    // The edit is text-preserving: the user's lines are all still there, in order.
    let text = String::from_utf8_lossy(&connected[0]).to_string();
    let mut at = 0;
    for line in std::fs::read_to_string(fixture("connect").join("claude.json"))
        .unwrap()
        .lines()
    {
        let line = line.trim_end_matches(',');
        at = at
            + text[at..]
                .find(line)
                .unwrap_or_else(|| panic!("lost line {line:?}:\n{text}"));
    }
}

#[test]
fn codex_gets_a_toml_table_and_keeps_comments() {
    let e = env();
    let cfg = copy(&e, "codex-config.toml");
    let connected = round_trip(&e, "codex", &[("--config", &cfg)]);
    let text = String::from_utf8(connected[0].clone()).unwrap();
    let original = std::fs::read_to_string(&cfg).unwrap();
    let block = format!(
        "[mcp_servers.slm]\ncommand = \"{}\"\nargs = [\"mcp\"]\n\n",
        slm_path()
    );
    assert_eq!(
        text.replacen(&block, "", 1),
        original,
        "the user's lines and comments stay as they were, slm's table beside the other servers"
    );
    let doc: toml_edit::DocumentMut = text.parse().unwrap();
    assert_eq!(
        doc["mcp_servers"]["slm"]["command"].as_str(),
        Some(slm_path().as_str())
    );
    assert_eq!(doc["mcp_servers"]["slm"]["args"][0].as_str(), Some("mcp"));
    assert_eq!(
        doc["mcp_servers"]["context7"]["command"].as_str(),
        Some("npx")
    );
}

#[test]
fn cursor_and_gemini_keep_their_indentation_and_servers() {
    for (agent, name, indent) in [
        ("cursor", "cursor-mcp.json", "        \"slm\": {"),
        ("gemini", "gemini-settings.json", "\t\t\"slm\": {"),
    ] {
        let e = env();
        let cfg = copy(&e, name);
        let before = read_json(&cfg);
        let connected = round_trip(&e, agent, &[("--config", &cfg)]);
        let text = String::from_utf8(connected[0].clone()).unwrap();
        assert!(
            text.contains(indent),
            "{agent}: slm's entry copies the file's indentation:\n{text}"
        );
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["mcpServers"]["slm"]["command"], slm_path().as_str());
        for (k, server) in before["mcpServers"].as_object().unwrap() {
            assert_eq!(&v["mcpServers"][k], server, "{agent}: {k} kept");
        }
    }
}

#[test]
fn a_malformed_config_is_refused_untouched_naming_its_line() {
    let e = env();
    for (agent, name, text, line) in [
        (
            "cursor",
            "mcp.json",
            "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n    \"b\": {}\n  }\n}\n",
            "line 4",
        ),
        (
            "codex",
            "config.toml",
            "model = \"x\"\n\n[mcp_servers.a\ncommand = \"x\"\n",
            "line 3",
        ),
    ] {
        let p = e.dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        let out = e.run(&["connect", agent, "--yes", "--config", p.to_str().unwrap()]);
        assert_eq!(code(&out), 2, "{}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains(name) && err.contains(line), "{agent}: {err}");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), text, "untouched");
        let backups = std::fs::read_dir(e.dir.path())
            .unwrap()
            .filter(|f| {
                f.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .contains("slm-backup")
            })
            .count();
        assert_eq!(backups, 0);
    }
}

#[test]
fn dry_run_and_no_terminal_change_nothing() {
    let e = env();
    let cfg = copy(&e, "cursor-mcp.json");
    let original = std::fs::read(&cfg).unwrap();
    let p = cfg.to_str().unwrap();
    let v = run_json(&e, &["connect", "cursor", "--dry-run", "--config", p]);
    assert_eq!(v["changed"], false);
    assert!(
        v["files"][0]["diff"]
            .as_str()
            .unwrap()
            .contains("+        \"slm\": {"),
        "{v}"
    );
    let out = e.run(&["connect", "cursor", "--dry-run", "--config", p]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("dry run"));
    // No terminal and no --yes: refused, exit 2, nothing written.
    let out = e.run(&["connect", "cursor", "--config", p]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("--yes"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&cfg).unwrap(), original);
}

#[test]
fn status_print_and_a_file_slm_created() {
    let e = env();
    let home = user_home(&e);
    let v = run_json(&e, &["connect", "--status"]);
    let agents = v["agents"].as_array().unwrap();
    assert_eq!(agents.len(), 4);
    assert!(agents.iter().all(|a| a["connected"] == false), "{v}");

    // Gemini CLI at its default place under $HOME, which does not exist yet.
    let v = run_json(&e, &["connect", "gemini", "--yes"]);
    assert_eq!(v["files"][0]["created"], true, "{v}");
    let file = home.join(".gemini/settings.json");
    assert_eq!(read_json(&file)["mcpServers"]["slm"]["args"][0], "mcp");
    let v = run_json(&e, &["connect", "--status"]);
    let by = |id: &str| {
        v["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["agent"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(by("gemini")["connected"], true, "{v}");
    assert_eq!(by("claude")["connected"], false);
    let out = e.run(&["connect", "--status"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Gemini CLI") && text.contains("connected"),
        "{text}"
    );

    // --remove deletes a file slm created when nothing else was added to it.
    run_json(&e, &["connect", "gemini", "--yes", "--remove"]);
    assert!(!file.exists());

    let v = run_json(&e, &["connect", "--print"]);
    assert_eq!(
        v["entry"]["mcpServers"]["slm"]["command"],
        slm_path().as_str()
    );
    assert_eq!(
        v["entry"]["mcpServers"]["slm"]["args"],
        serde_json::json!(["mcp"])
    );
    let out = e.run(&["connect", "--print"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("\"mcpServers\"") && !text.contains("Some("),
        "{text}"
    );
}

#[test]
fn remove_after_the_user_edited_takes_out_only_slms_entries() {
    let e = env();
    let cfg = copy(&e, "cursor-mcp.json");
    let p = cfg.to_str().unwrap();
    run_json(&e, &["connect", "cursor", "--yes", "--config", p]);
    // The user adds a server of their own after slm's.
    let text = std::fs::read_to_string(&cfg).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["mcpServers"]["mine"] = serde_json::json!({"command": "mine"});
    std::fs::write(&cfg, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let r = run_json(
        &e,
        &["connect", "cursor", "--yes", "--remove", "--config", p],
    );
    assert_eq!(r["files"][0]["restored_from"], Value::Null, "{r}");
    let after = read_json(&cfg);
    assert!(after["mcpServers"].get("slm").is_none(), "{after}");
    for k in ["playwright", "context7", "mine"] {
        assert!(after["mcpServers"].get(k).is_some(), "{k} kept: {after}");
    }

    // An entry named slm that slm did not write is refused, never replaced.
    std::fs::write(
        &cfg,
        "{\"mcpServers\": {\"slm\": {\"command\": \"node\", \"args\": [\"x.js\"]}}}",
    )
    .unwrap();
    let out = e.run(&["connect", "cursor", "--yes", "--config", p]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("did not write"), "{}", stderr(&out));
}
