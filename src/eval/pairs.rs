//! `slm eval pairs`: where a model puts "this note answers this question" on its cosine
//! scale, against the same questions paired with notes that do not answer them. The
//! evidence floor (`similarity_floor` in `slm-model.json`) and the support check's lift are
//! read off these figures, so they are measured per model, not carried over from another.

use super::args::EvalPairsArgs;
use crate::engine::{Engine, ModelMode, OpenOptions};
use crate::output::Style;
use crate::paths::Paths;
use crate::{Error, Result};
use serde::Serialize;
use std::path::PathBuf;

/// The pairs the project wrote (workplace and personal notes, asked in other words).
pub const DEFAULT_PAIRS: &str = "fixtures/similarity-pairs.tsv";

/// The cosines the table prints the pass rates at.
const THRESHOLDS: [f64; 9] = [0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6];

#[derive(Debug, Serialize)]
pub struct Spread {
    pub n: usize,
    pub min: f64,
    pub p10: f64,
    pub median: f64,
    pub p90: f64,
    pub max: f64,
}

fn spread(mut v: Vec<f64>) -> Spread {
    v.sort_by(|a, b| a.total_cmp(b));
    let at = |p: f64| {
        if v.is_empty() {
            0.0
        } else {
            v[((v.len() - 1) as f64 * p).round() as usize]
        }
    };
    Spread {
        n: v.len(),
        min: at(0.0),
        p10: at(0.1),
        median: at(0.5),
        p90: at(0.9),
        max: at(1.0),
    }
}

pub fn run(a: EvalPairsArgs, style: Style) -> Result<i32> {
    let file = a.file.unwrap_or_else(|| PathBuf::from(DEFAULT_PAIRS));
    let raw = std::fs::read_to_string(&file)
        .map_err(|e| Error::io(format!("reading {}", file.display()), e))?;
    let mut qs = Vec::new();
    let mut notes = Vec::new();
    for (n, line) in raw.lines().enumerate() {
        let line = line.trim_end();
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let (q, d) = line.split_once('\t').ok_or_else(|| {
            Error::Input(format!(
                "{}:{}: expected question<TAB>note",
                file.display(),
                n + 1
            ))
        })?;
        qs.push(q.trim().to_string());
        notes.push(d.trim().to_string());
    }
    if qs.len() < 2 {
        return Err(Error::Input(format!(
            "{}: needs at least two pairs (the mismatched pairings are the unrelated ones)",
            file.display()
        )));
    }
    let dir = super::tempdir("slm-eval-pairs")?;
    let real = Paths::from_env();
    let engine = Engine::open(
        Paths::at(dir.path(), &real.cache),
        OpenOptions::model(ModelMode::Load),
    )?;
    let e = engine.embedder().ok_or_else(|| {
        Error::Input("no embedding model is loaded (run scripts/setup.sh --models-only)".into())
    })?;
    let qv = e.embed_queries(&qs.iter().map(String::as_str).collect::<Vec<_>>())?;
    let dv = e.embed(&notes.iter().map(String::as_str).collect::<Vec<_>>())?;
    let mut answer = Vec::new();
    let mut unrelated = Vec::new();
    for (i, q) in qv.iter().enumerate() {
        for (j, d) in dv.iter().enumerate() {
            let c = crate::embed::cosine(q, d) as f64;
            if i == j {
                answer.push(c);
            } else {
                unrelated.push(c);
            }
        }
    }
    let floor = e.similarity_floor();
    let share_above =
        |v: &[f64], t: f64| v.iter().filter(|c| **c >= t).count() as f64 / v.len() as f64;
    let floor_row = floor.map(|f| {
        serde_json::json!({
            "floor": f,
            "answers_at_or_above": share_above(&answer, f as f64),
            "unrelated_at_or_above": share_above(&unrelated, f as f64),
        })
    });
    let thresholds: Vec<serde_json::Value> = THRESHOLDS
        .iter()
        .map(|t| {
            serde_json::json!({
                "cosine": t,
                "answers_at_or_above": share_above(&answer, *t),
                "unrelated_at_or_above": share_above(&unrelated, *t),
            })
        })
        .collect();
    let body = serde_json::json!({
        "model": e.id(),
        "file": file.display().to_string(),
        "answer": spread(answer.clone()),
        "unrelated": spread(unrelated.clone()),
        "similarity_floor": floor_row,
        "thresholds": thresholds,
    });
    crate::output::emit(style, "eval", body.clone(), || {
        let f = |s: &serde_json::Value| {
            format!(
                "n {:>4}  min {:.3}  p10 {:.3}  median {:.3}  p90 {:.3}  max {:.3}",
                s["n"],
                s["min"].as_f64().unwrap_or(0.0),
                s["p10"].as_f64().unwrap_or(0.0),
                s["median"].as_f64().unwrap_or(0.0),
                s["p90"].as_f64().unwrap_or(0.0),
                s["max"].as_f64().unwrap_or(0.0)
            )
        };
        let mut out = format!(
            "{} on {}\n  answers    {}\n  unrelated  {}\n",
            e.id(),
            file.display(),
            f(&body["answer"]),
            f(&body["unrelated"])
        );
        out.push_str("  cosine ≥   answers  unrelated\n");
        for t in body["thresholds"].as_array().into_iter().flatten() {
            out.push_str(&format!(
                "  {:<9.2}  {:>7.3}  {:>9.3}\n",
                t["cosine"].as_f64().unwrap_or(0.0),
                t["answers_at_or_above"].as_f64().unwrap_or(0.0),
                t["unrelated_at_or_above"].as_f64().unwrap_or(0.0)
            ));
        }
        if let Some(fr) = &body["similarity_floor"].as_object() {
            out.push_str(&format!(
                "  the model's floor {:.2}: answers {:.3}, unrelated {:.3}\n",
                fr["floor"].as_f64().unwrap_or(0.0),
                fr["answers_at_or_above"].as_f64().unwrap_or(0.0),
                fr["unrelated_at_or_above"].as_f64().unwrap_or(0.0)
            ));
        }
        out.trim_end().to_string()
    })?;
    Ok(0)
}
