//! `slm session-context`: loading context, not a question. Pinned first, then the newest
//! memories; bookkeeping, prompts and corrected memories left out; a hard token budget per
//! mode, cut at a line and marked as cut.

use crate::common::{Env, code};

fn seeded() -> (Env, Vec<String>) {
    let env = Env::new();
    let mut lines = Vec::new();
    let mut import = String::new();
    for i in 0..40 {
        let text = format!(
            "Decision {i}: the {} service keeps its {} in region eu-west-{}",
            ["billing", "search", "auth", "mail"][i % 4],
            ["queue", "cache", "logs", "secrets"][(i / 4) % 4],
            i % 3
        );
        import.push_str(&serde_json::json!({ "text": text, "kind": "decision", "event_at": format!("2023-04-{:02}", 1 + i % 28) }).to_string());
        import.push('\n');
        lines.push(text);
    }
    let out = env.run_stdin(&["import", "-"], import.as_bytes());
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    env.remember("Always answer in British English", &["--pin"]);
    env.remember("session ended", &[]);
    env.remember("please refactor the billing module", &["--kind", "prompt"]);
    (env, lines)
}

#[test]
fn pinned_first_noise_left_out_and_the_mode_budget_holds() {
    let (env, _) = seeded();
    let v = env.json(&["session-context"]);
    assert_eq!(v["mode"], "start");
    assert_eq!(v["budget_tokens"], 1500);
    let text = v["text"].as_str().unwrap();
    let first_memory = text.lines().nth(1).unwrap();
    assert!(
        first_memory.contains("pinned") && first_memory.contains("British English"),
        "{text}"
    );
    assert!(!text.contains("session ended"), "bookkeeping is left out");
    assert!(
        !text.contains("refactor the billing module"),
        "prompts are left out"
    );
    assert!(v["tokens_used"].as_u64().unwrap() <= 1500);
    let c = env.json(&["session-context", "--mode", "compact"]);
    assert_eq!(c["budget_tokens"], 500);
    assert_eq!(c["cut"], true, "{c}");
    assert!(c["tokens_used"].as_u64().unwrap() <= 500);
    let bad = env.run(&["session-context", "--mode", "everything"]);
    assert_eq!(code(&bad), 2);
}

#[test]
fn any_budget_is_never_exceeded_and_the_cut_is_at_a_line_and_marked() {
    let (env, lines) = seeded();
    for budget in [1usize, 7, 20, 33, 64, 150, 400, 2000] {
        let v = env.json(&["session-context", "--max-tokens", &budget.to_string()]);
        let used = v["tokens_used"].as_u64().unwrap() as usize;
        assert!(used <= budget, "budget {budget}: used {used}: {v}");
        let text = v["text"].as_str().unwrap();
        for l in text.lines().skip(1) {
            let whole = l.starts_with("[… cut:")
                || l.contains("British English")
                || lines.iter().any(|m| l.ends_with(m.as_str()));
            assert!(whole, "budget {budget}: a line was cut inside: {l:?}");
        }
        if v["cut"] == true && budget >= 64 {
            assert!(
                text.lines().last().unwrap().starts_with("[… cut:"),
                "budget {budget}: marked: {text}"
            );
        }
        if budget == 2000 {
            assert_eq!(v["cut"], false, "everything fits in 2000: {v}");
            assert_eq!(v["memory_ids"].as_array().unwrap().len(), 41);
        }
    }
}

#[test]
fn the_cold_path_counts_with_the_same_tokenizer() {
    let (env, _) = seeded();
    let warm = env.json(&["session-context", "--max-tokens", "300"]);
    let cold = env.json(&["session-context", "--max-tokens", "300", "--no-worker"]);
    assert_eq!(cold["served_by"], "cold");
    assert_eq!(warm["tokens_used"], cold["tokens_used"], "{warm}\n{cold}");
    assert_eq!(warm["memory_ids"], cold["memory_ids"]);
}

#[test]
fn an_old_pinned_memory_is_not_crowded_out_by_many_newer_ones() {
    let env = Env::new();
    env.remember(
        "Always deploy from the release branch",
        &["--pin", "--at", "2020-01-01"],
    );
    let mut import = String::new();
    for i in 0..260 {
        import.push_str(&serde_json::json!({ "text": format!("note {i} about the weekly sync"), "event_at": "2023-05-01" }).to_string());
        import.push('\n');
    }
    let out = env.run_stdin(&["import", "-"], import.as_bytes());
    assert_eq!(code(&out), 0);
    for i in 0..5 {
        env.remember(
            &format!("please summarise thread {i}"),
            &["--kind", "prompt"],
        );
    }
    let v = env.json(&["session-context"]);
    let first = v["text"].as_str().unwrap().lines().nth(1).unwrap_or("");
    assert!(first.contains("release branch"), "{v}");
    assert!(!v["text"].as_str().unwrap().contains("please summarise"));
}
