//! `slm eval notes FILE`: plain workplace notes asked in other words.
//!
//! LoCoMo is chat between friends; most people store decisions, facts about systems and
//! people, and events. The project writes its own sets of such notes (`fixtures/notes-dev.json`
//! to tune on, `fixtures/notes-holdout.json` — another company, other systems — only to check
//! that what was tuned generalises). Each question lists the notes that answer it, or none.
//!
//! Reported: answerable questions that came back **supported with the right note first**,
//! right note in the top 3 / top 5, and unanswerable questions that were **not supported**,
//! with every miss listed (question, tier, the note that came first).

use super::args::EvalNotesArgs;
use crate::engine::{Engine, ModelMode, OpenOptions};
use crate::memory::NewMemory;
use crate::output::Style;
use crate::paths::Paths;
use crate::recall::tiers::AnswerTier;
use crate::{Error, Result};
use serde::Deserialize;
use std::collections::HashMap;

#[derive(Deserialize)]
struct NotesFile {
    notes: Vec<Note>,
    questions: Vec<Question>,
}

#[derive(Deserialize)]
struct Note {
    id: String,
    text: String,
    date: Option<String>,
}

#[derive(Deserialize)]
struct Question {
    q: String,
    answers: Vec<String>,
    #[serde(default)]
    kind: String,
}

/// Support thresholds the trade-off table replays (as `slm eval locomo`'s).
const TRADEOFF_AT: [f64; 8] = [0.30, 0.35, 0.40, 0.45, 0.50, 0.55, 0.60, 0.65];

/// The clock of every notes recall: the end of the year the notes are dated in, so "last
/// week" style questions do not depend on when the eval runs.
fn now_after(notes: &[(i64, &Note)]) -> i64 {
    notes.iter().map(|(at, _)| *at).max().unwrap_or(0) + 86_400_000
}

fn date_ms(d: &str) -> Result<i64> {
    let day = chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d")
        .map_err(|e| Error::Input(format!("note date {d:?}: {e} (expected YYYY-MM-DD)")))?;
    Ok(day
        .and_hms_opt(9, 0, 0)
        .expect("09:00 exists")
        .and_utc()
        .timestamp_millis())
}

pub fn run(a: EvalNotesArgs, style: Style) -> Result<i32> {
    let raw = std::fs::read_to_string(&a.file)
        .map_err(|e| Error::io(format!("reading {}", a.file.display()), e))?;
    let set: NotesFile = serde_json::from_str(&raw)
        .map_err(|e| Error::Input(format!("{}: {e}", a.file.display())))?;
    let mut dated = Vec::new();
    for n in &set.notes {
        let at = match &n.date {
            Some(d) => date_ms(d)?,
            None => 0,
        };
        dated.push((at, n));
    }
    for q in &set.questions {
        if let Some(bad) = q
            .answers
            .iter()
            .find(|id| !set.notes.iter().any(|n| &n.id == *id))
        {
            return Err(Error::Input(format!(
                "{}: question {:?} names note {bad:?}, which the file does not have",
                a.file.display(),
                q.q
            )));
        }
    }

    let dir = super::tempdir("slm-eval-notes")?;
    let paths = Paths::at(dir.path(), &Paths::from_env().cache);
    let engine = Engine::open(paths, OpenOptions::model(ModelMode::Load))?;
    super::set_answer_check(dir.path(), &a.answer_check)?;
    let query_mode = a
        .query_encoder
        .as_deref()
        .map(crate::embed::query::QueryMode::parse)
        .transpose()?;
    super::variants::set_query_mode(&engine, query_mode)?;
    // The reader is measured, not its start-up: wait for it to load.
    if let Some(slot) = engine.answer_reader() {
        crate::embed::reader::wait_loaded(slot, std::time::Duration::from_secs(60));
    }
    let items: Vec<NewMemory> = dated
        .iter()
        .map(|(at, n)| NewMemory {
            text: n.text.clone(),
            source: Some(crate::memory::Source::User),
            profile: Some(crate::DEFAULT_PROFILE.into()),
            event_at: (*at > 0).then_some(*at),
            idempotency_key: Some(n.id.clone()),
            ..Default::default()
        })
        .collect();
    let res = engine.remember_batch(items, &mut |_| {})?;
    let id_of: HashMap<&str, i64> = set
        .notes
        .iter()
        .zip(&res)
        .map(|(n, r)| (n.id.as_str(), r.id))
        .collect();
    let name_of: HashMap<i64, &str> = id_of.iter().map(|(k, v)| (*v, *k)).collect();
    engine.refresh_baselines(usize::MAX)?;
    engine.passage_backlog(usize::MAX, None)?;
    let now_ms = now_after(&dated);

    let mut answerable = 0usize;
    let mut supported_first = 0usize;
    let mut in_top3 = 0usize;
    let mut in_top5 = 0usize;
    let mut unanswerable = 0usize;
    let mut held_back = 0usize;
    let mut misses = Vec::new();
    let mut by_kind: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
    let mut latencies = Vec::new();
    let mut sweeps: Vec<(Vec<i64>, Vec<(i64, f64)>)> = Vec::new();
    let mut reader_pairs = super::reader::Pairs::default();
    // The same questions with the answer check off (only when it judged): side by side.
    let (mut off_first, mut off_held, mut judged_n) = (0usize, 0usize, 0usize);
    for q in &set.questions {
        let t = std::time::Instant::now();
        let resp = crate::recall::run(&engine, &super::request(&q.q, now_ms, 10, true))?;
        latencies.push(t.elapsed().as_secs_f64() * 1000.0);
        let order: Vec<i64> = resp.ranked_ids.clone();
        let gibberish = resp.explain.as_ref().and_then(|e| e.gibberish).is_some();
        // Each scored memory that passes the word tests, with its support score, in ranked
        // order: what the support check would have returned at another threshold.
        let passing: Vec<(i64, f64)> = resp
            .explain
            .as_ref()
            .map(|e| {
                let mut v: Vec<(i64, f64)> = e
                    .support
                    .iter()
                    .filter(|s| s.word_match && s.names_ok && !gibberish)
                    .map(|s| (s.id, s.score))
                    .collect();
                v.sort_by_key(|(id, _)| order.iter().position(|o| o == id).unwrap_or(usize::MAX));
                v
            })
            .unwrap_or_default();
        let first = resp.results.first().map(|r| r.id);
        let gold: Vec<i64> = q.answers.iter().map(|a| id_of[a.as_str()]).collect();
        let ok;
        if gold.is_empty() {
            unanswerable += 1;
            ok = resp.tier != AnswerTier::Supported;
            held_back += ok as usize;
        } else {
            answerable += 1;
            let rank = order.iter().position(|id| gold.contains(id));
            in_top3 += matches!(rank, Some(r) if r < 3) as usize;
            in_top5 += matches!(rank, Some(r) if r < 5) as usize;
            ok = resp.tier == AnswerTier::Supported && first.is_some_and(|f| gold.contains(&f));
            supported_first += ok as usize;
        }
        reader_pairs.add(&super::reader::judged(&resp), &gold);
        // With the check off, the same question: run again only when it was judged (the
        // check changes nothing else, so an unjudged answer is its own "off").
        let judged =
            resp.answer_check_status == crate::recall::answer_check::AnswerCheckStatus::Judged;
        judged_n += judged as usize;
        let rerun;
        let off = if judged {
            rerun = crate::recall::run_unjudged(&engine, &super::request(&q.q, now_ms, 10, true))?;
            &rerun
        } else {
            &resp
        };
        if gold.is_empty() {
            off_held += (off.tier != AnswerTier::Supported) as usize;
        } else {
            off_first += (off.tier == AnswerTier::Supported
                && off.results.first().is_some_and(|f| gold.contains(&f.id)))
                as usize;
        }
        sweeps.push((gold.clone(), passing));
        let e = by_kind.entry(q.kind.clone()).or_default();
        e.0 += 1;
        e.1 += ok as usize;
        if !ok {
            misses.push(serde_json::json!({
                "question": q.q,
                "kind": q.kind,
                "answers": q.answers,
                "tier": resp.tier,
                "first": first.and_then(|f| name_of.get(&f)).copied(),
                "first_text": resp.results.first().map(|r| r.preview.clone()),
                "gold_rank": order.iter().position(|id| gold.contains(id)).map(|r| r + 1),
            }));
        }
    }
    // The threshold trade-off on the same runs: at each support threshold, the answerable
    // questions whose first supported memory is a right one, and the unanswerable ones with
    // no supported memory (the present-tense route, which skips the score, is not replayed).
    let tradeoff: Vec<(f64, f64, f64)> = TRADEOFF_AT
        .iter()
        .map(|&t| {
            let (mut ok_a, mut ok_u) = (0usize, 0usize);
            for (gold, passing) in &sweeps {
                let first = passing.iter().find(|(_, s)| *s >= t).map(|(id, _)| *id);
                if gold.is_empty() {
                    ok_u += first.is_none() as usize;
                } else {
                    ok_a += first.is_some_and(|f| gold.contains(&f)) as usize;
                }
            }
            (
                t,
                ok_a as f64 / answerable.max(1) as f64,
                ok_u as f64 / unanswerable.max(1) as f64,
            )
        })
        .collect();
    latencies.sort_by(f64::total_cmp);
    let p50 = latencies.get(latencies.len() / 2).copied().unwrap_or(0.0);
    let share = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let body = serde_json::json!({
        "file": a.file.display().to_string(),
        "model": engine.embedder().map(|e| e.id().to_string()),
        "query_encoder": engine.embedder().map(|e| e.query_encoder().unwrap_or(e.id()).to_string()),
        "notes": set.notes.len(),
        "answerable": answerable,
        "supported_and_first": share(supported_first, answerable),
        "gold_in_top3": share(in_top3, answerable),
        "gold_in_top5": share(in_top5, answerable),
        "unanswerable": unanswerable,
        "unanswerable_not_supported": share(held_back, unanswerable),
        "by_kind": by_kind.iter().map(|(k, (n, ok))| (k.clone(), serde_json::json!({"questions": n, "met": ok}))).collect::<serde_json::Map<_, _>>(),
        "threshold_tradeoff": tradeoff.iter().map(|(t, a, u)| serde_json::json!({"supported_at": t, "answerable_supported_first": a, "unanswerable_not_supported": u})).collect::<Vec<_>>(),
        "recall_p50_ms": p50,
        "answer_check": { "mode": a.answer_check, "judged": judged_n,
            "off": { "supported_and_first": share(off_first, answerable), "unanswerable_not_supported": share(off_held, unanswerable) },
            "reader_auc": reader_pairs.auc(), "reader_pairs": { "answers": reader_pairs.pos.len(), "closest_non_answers": reader_pairs.neg.len() } },
        "misses": misses,
    });
    crate::output::emit(style, "eval", body.clone(), || {
        let mut s = format!(
            "{} — {} notes, model {}, questions by {}\n\
             answerable {answerable}: supported with the right note first {:.3}, right note in top 3 {:.3}, top 5 {:.3}\n\
             unanswerable {unanswerable}: not supported {:.3}\n",
            a.file.display(),
            set.notes.len(),
            body["model"].as_str().unwrap_or("none"),
            body["query_encoder"].as_str().unwrap_or("none"),
            share(supported_first, answerable),
            share(in_top3, answerable),
            share(in_top5, answerable),
            share(held_back, unanswerable),
        );
        s.push_str(&format!(
            "answer check {} ({judged_n} of {} judged); with it off: supported first {:.3}, unanswerable not supported {:.3}\n",
            a.answer_check,
            answerable + unanswerable,
            share(off_first, answerable),
            share(off_held, unanswerable),
        ));
        if let Some(auc) = reader_pairs.auc() {
            s.push_str(&format!(
                "reader ROC AUC, answering note vs closest non-answer: {auc:.3} ({} answers, {} non-answers)\n",
                reader_pairs.pos.len(),
                reader_pairs.neg.len()
            ));
        }
        for (k, (n, ok)) in &by_kind {
            s.push_str(&format!("  {k:<24} {ok}/{n}\n"));
        }
        s.push_str(&format!(
            "support threshold trade-off (this model's threshold: {}):\n",
            crate::recall::tiers::support_threshold(&engine)
        ));
        for (t, a, u) in &tradeoff {
            s.push_str(&format!(
                "  {t:.2}  supported with the right note first {a:.3}  unanswerable not supported {u:.3}\n"
            ));
        }
        s.push_str(&format!(
            "recall p50 {p50:.1} ms (in-process, --explain on)\n"
        ));
        if !misses.is_empty() {
            s.push_str("misses:\n");
            for m in &misses {
                s.push_str(&format!(
                    "  {} [{}] → {} (gold {} at rank {}; first {}: {})\n",
                    m["question"],
                    m["kind"].as_str().unwrap_or(""),
                    m["tier"].as_str().unwrap_or(""),
                    m["answers"],
                    m["gold_rank"],
                    m["first"].as_str().unwrap_or("-"),
                    m["first_text"].as_str().unwrap_or("-"),
                ));
            }
        }
        s.trim_end().to_string()
    })?;
    Ok(0)
}
