//! `slm eval`: recall quality, measured by anyone with one command.
//!
//! `eval locomo` builds a fresh temporary store per conversation (one dialog turn = one
//! memory, text "Speaker: what they said", image captions kept as text, dated by its
//! session), asks every question through the same engine the CLI uses, and reports
//! turn-level evidence recall (R@k, hit@k, MRR) per category, the tiers, latency per
//! stage and the data's quirks. `--baseline bm25|dense` runs simple methods on the same
//! data in the same process, so every report carries a ratio against them.
//! `eval notes` asks plain workplace notes in other words (see `notes`).
//! `eval questions` runs a question list against a LoCoMo store and counts how many met
//! the expectation (`none` or `not-supported`).

pub mod args;
pub mod locomo;
pub mod notes;
pub mod pairs;
pub mod ranking;
pub mod reader;
pub mod report;
pub mod variants;

use crate::embed::manifest::FusionScale;
use crate::embed::query::QueryMode;
use crate::engine::{Engine, ModelMode, OpenOptions};
use crate::memory::NewMemory;
use crate::output::Style;
use crate::paths::Paths;
use crate::recall::filters::Filters;
use crate::recall::tiers::AnswerTier;
use crate::recall::{RecallRequest, View};
use crate::{Error, Result};
use args::{EvalCommand, EvalLocomoArgs, EvalQuestionsArgs};
use locomo::{Conversation, Quirks};
use report::QuestionOutcome;
use std::collections::HashMap;
use std::path::PathBuf;

/// The dev data the project reads in place (never copied into the repository).
pub const DEFAULT_LOCOMO: &str = "../shared/data/locomo-dev.json";

pub fn run(c: EvalCommand, style: Style) -> Result<i32> {
    match c {
        EvalCommand::Locomo(a) => run_locomo(a, style),
        EvalCommand::Questions(a) => run_questions(a, style),
        EvalCommand::Pairs(a) => pairs::run(a, style),
        EvalCommand::Notes(a) => notes::run(a, style),
    }
}

/// A throwaway store in a temporary directory, with the real model from the cache dir.
pub struct TempStore {
    pub dir: tempfile::TempDir,
    pub engine: Engine,
    /// dia_id → memory id
    pub ids: HashMap<String, i64>,
    /// memory id → the number of its conversation's session
    pub sessions: HashMap<i64, usize>,
}

/// A temporary directory (a throwaway store, a bench run), removed when dropped.
pub fn tempdir(prefix: &str) -> Result<tempfile::TempDir> {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir()
        .map_err(|e| Error::io("creating a temporary directory", e))
}

/// Build a store holding these conversations, all in the default profile.
pub fn build_store(convs: &[&Conversation]) -> Result<TempStore> {
    let dir = tempdir("slm-eval")?;
    let real = Paths::from_env();
    let paths = Paths::at(dir.path(), &real.cache);
    let engine = Engine::open(paths, OpenOptions::model(ModelMode::Load))?;
    let mut ids = HashMap::new();
    let mut sessions = HashMap::new();
    let total: usize = convs.iter().map(|c| c.turns.len()).sum();
    let pb = crate::progress::bar(total as u64, "building");
    for conv in convs {
        let profile = crate::DEFAULT_PROFILE.to_string();
        for chunk in conv.turns.chunks(128) {
            let items: Vec<NewMemory> = chunk
                .iter()
                .map(|t| NewMemory {
                    text: format!("{}: {}", t.speaker, t.text),
                    kind: Some(crate::memory::Kind::Event),
                    source: Some(crate::memory::Source::Import),
                    profile: Some(profile.clone()),
                    session_id: Some(format!("{}:session_{}", conv.sample_id, t.session)),
                    speaker: Some(t.speaker.clone()),
                    event_at: Some(t.at),
                    idempotency_key: Some(format!("{}:{}", conv.sample_id, t.dia_id)),
                    ..Default::default()
                })
                .collect();
            let res = engine.remember_batch(items, &mut |_| {})?;
            for (t, r) in chunk.iter().zip(res) {
                ids.insert(format!("{}:{}", conv.sample_id, t.dia_id), r.id);
                sessions.insert(r.id, t.session);
            }
            pb.inc(chunk.len() as u64);
        }
    }
    engine.refresh_baselines(usize::MAX)?;
    // A worker embeds passages in the background; an evaluation waits for them.
    engine.passage_backlog(usize::MAX, None)?;
    pb.finish_and_clear();
    Ok(TempStore {
        dir,
        engine,
        ids,
        sessions,
    })
}

/// The answer check's mode for an evaluation store (its `settings.json`).
pub fn set_answer_check(data_dir: &std::path::Path, mode: &str) -> Result<()> {
    let body = serde_json::json!({ "answer_check": { "mode": mode } }).to_string();
    let p = data_dir.join("settings.json");
    std::fs::write(&p, body).map_err(|e| Error::io(format!("writing {}", p.display()), e))
}

/// Best support score of a memory passing the word-match and name tests (what the
/// threshold trade-off moves against).
fn support_max_of(resp: &crate::recall::RecallResponse) -> f64 {
    resp.explain
        .as_ref()
        .map(|e| {
            e.support
                .iter()
                .filter(|s| s.word_match && s.names_ok)
                .map(|s| s.score)
                .fold(0.0, f64::max)
        })
        .unwrap_or(0.0)
}

/// Pinned "now" for a conversation: the day after its last session.
fn clock_after(convs: &[&Conversation]) -> i64 {
    convs
        .iter()
        .flat_map(|c| c.turns.iter().map(|t| t.at))
        .max()
        .unwrap_or(0)
        + 86_400_000
}

pub fn request(query: &str, now_ms: i64, limit: usize, explain: bool) -> RecallRequest {
    RecallRequest {
        query: query.to_string(),
        filters: Filters {
            profile: crate::DEFAULT_PROFILE.into(),
            ..Default::default()
        },
        limit,
        depth: 0,
        max_tokens: None,
        show_weak: false,
        view: View::Person,
        explain,
        support_gate: true,
        now_ms,
        budget_s: None,
        keyword_only: false,
        warming_estimate_ms: None,
        ranking: crate::recall::ranking_mode::Mode::Off,
    }
}

fn run_locomo(a: EvalLocomoArgs, style: Style) -> Result<i32> {
    let mut quirks = Quirks::default();
    let convs = locomo::load(&a.path, &a.conversations, &mut quirks)?;
    if convs.is_empty() {
        return Err(Error::Input(format!(
            "{}: no conversations (check --conversations)",
            a.path.display()
        )));
    }
    let audit = match &a.audit {
        Some(p) => Some(locomo::load_audit(p, &convs, &mut quirks)?),
        None => None,
    };
    for b in &a.baseline {
        if b != "bm25" && b != "dense" {
            return Err(Error::Usage(format!(
                "--baseline {b:?}: expected bm25 or dense"
            )));
        }
    }
    let kmax = a.k.iter().copied().max().unwrap_or(10).max(3);
    let mut baselines: HashMap<String, Vec<QuestionOutcome>> = HashMap::new();
    let total_q: usize = convs.iter().map(|c| c.questions.len()).sum();
    let mut misses = match &a.misses {
        Some(p) => Some(std::io::BufWriter::new(
            std::fs::File::create(p)
                .map_err(|e| Error::io(format!("creating {}", p.display()), e))?,
        )),
        None => None,
    };
    let mut signals = match &a.signals {
        Some(p) => Some(std::io::BufWriter::new(
            std::fs::File::create(p)
                .map_err(|e| Error::io(format!("creating {}", p.display()), e))?,
        )),
        None => None,
    };
    let mut variants = vec![variants::Variant {
        name: "as configured".into(),
        scale: match &a.scale {
            Some(spec) => variants::parse_scale(spec)?,
            None => FusionScale::ONE,
        },
        query: None,
    }];
    // One run per questions' encoder, side by side on the same stores.
    for (i, m) in a.query_encoder.iter().enumerate() {
        let mode = QueryMode::parse(m)?;
        let v = variants::Variant {
            name: format!("query encoder: {m}"),
            query: Some(mode),
            ..variants[0].clone()
        };
        if i == 0 {
            variants[0] = v;
        } else {
            variants.push(v);
        }
    }
    if a.ablate {
        variants.extend(variants::ablations(&variants[0].scale));
    }
    let grid = match &a.tune {
        Some(spec) => variants::grid(spec, &variants[0].scale)?,
        None => Vec::new(),
    };
    let ranking_modes = ranking::parse_modes(&a.ranking)?;
    let mut ranking_runs = ranking::Runs::default();
    let grid_from = variants.len();
    variants.extend(grid);
    let mut per_variant: Vec<Vec<QuestionOutcome>> = vec![Vec::new(); variants.len()];
    let mut threshold_used = crate::recall::tiers::SUPPORTED_AT;
    // The reader's AUCs: the evidence against the closest non-evidence (categories 1-4), and
    // the evidence against what an adversarial question's best-judged memory scored.
    let mut reader_pairs = reader::Pairs::default();
    let mut adversarial_neg: Vec<f64> = Vec::new();
    for conv in &convs {
        let store = build_store(&[conv])?;
        set_answer_check(store.dir.path(), &a.answer_check)?;
        if let Some(slot) = store.engine.answer_reader() {
            crate::embed::reader::wait_loaded(slot, std::time::Duration::from_secs(60));
        }
        threshold_used = crate::recall::tiers::support_threshold(&store.engine);
        let now_ms = clock_after(&[conv]);
        let pb = crate::progress::bar(
            (conv.questions.len() * variants.len()) as u64,
            &conv.sample_id,
        );
        for (vi, variant) in variants.iter().enumerate() {
            crate::recall::classify::set_eval_scale(Some(variant.scale));
            variants::set_query_mode(&store.engine, variant.query)?;
            for q in &conv.questions {
                pb.inc(1);
                let resolve = |ev: &[String], quirks: &mut Quirks| -> Vec<i64> {
                    ev.iter()
                        .filter_map(|d| {
                            let id = store.ids.get(&format!("{}:{d}", conv.sample_id)).copied();
                            if id.is_none() {
                                quirks.unresolved_evidence += 1;
                            }
                            id
                        })
                        .collect()
                };
                // quirks are counted once, on the first variant's pass
                let mut scratch = Quirks::default();
                let qk = if vi == 0 { &mut quirks } else { &mut scratch };
                let gold = resolve(&q.evidence, qk);
                let corrected = audit
                    .as_ref()
                    .and_then(|m| m.get(&(conv.index, q.index)))
                    .map(|ev| resolve(ev, &mut Quirks::default()));
                if gold.is_empty() && q.category != 5 {
                    qk.no_evidence += 1;
                }
                if q.question.trim().is_empty() {
                    continue;
                }
                let req = request(&q.question, now_ms, kmax, true);
                let resp = crate::recall::run(&store.engine, &req)?;
                let support_max = support_max_of(&resp);
                if vi == 0 {
                    let judged = reader::judged(&resp);
                    if q.category == 5 {
                        if let Some(p) = judged.iter().map(|(_, p)| *p).max_by(f64::total_cmp) {
                            adversarial_neg.push(p);
                        }
                    } else if !gold.is_empty() {
                        reader_pairs.add(&judged, &gold);
                    }
                }
                let gib = resp.explain.as_ref().and_then(|e| e.gibberish).is_some();
                // The support check alone, beside the judged answer.
                let unjudged = if vi == 0
                    && resp.answer_check_status
                        == crate::recall::answer_check::AnswerCheckStatus::Judged
                {
                    let off = crate::recall::run_unjudged(&store.engine, &req)?;
                    Some((off.tier, if gib { -1.0 } else { support_max_of(&off) }))
                } else {
                    None
                };
                if let (Some(w), 0) = (misses.as_mut(), vi) {
                    write_miss(w, &store, conv, q, &gold, &resp, true)?;
                }
                if let (Some(w), 0) = (signals.as_mut(), vi) {
                    write_miss(w, &store, conv, q, &gold, &resp, false)?;
                }
                let session_of = |ids: &[i64]| -> Vec<usize> {
                    ids.iter()
                        .map(|id| store.sessions.get(id).copied().unwrap_or(0))
                        .collect()
                };
                // This question's outcome for one ranked list (a baseline's: tier supported,
                // no support score, no timing).
                let outcome = |ranked: Vec<i64>| QuestionOutcome {
                    conversation: conv.sample_id.clone(),
                    question: q.question.clone(),
                    category: q.category,
                    gold_sessions: session_of(&gold),
                    ranked_sessions: session_of(&ranked),
                    gold: gold.clone(),
                    gold_audited: corrected.clone().unwrap_or_else(|| gold.clone()),
                    ranked,
                    tier: AnswerTier::Supported,
                    support_max: 0.0,
                    timing: Default::default(),
                    unjudged: None,
                };
                let ranked: Vec<i64> = resp.ranked_ids.iter().take(kmax).copied().collect();
                per_variant[vi].push(QuestionOutcome {
                    tier: resp.tier,
                    support_max: if gib { -1.0 } else { support_max },
                    timing: resp.timing_ms.clone(),
                    unjudged,
                    ..outcome(ranked)
                });
                if vi != 0 {
                    continue;
                }
                for b in &a.baseline {
                    let ranked = baseline(&store.engine, b, &q.question, kmax)?;
                    baselines
                        .entry(b.clone())
                        .or_default()
                        .push(outcome(ranked));
                }
            }
        }
        crate::recall::classify::set_eval_scale(None);
        pb.finish_and_clear();
        if !ranking_modes.is_empty() {
            ranking::conversation(
                &store,
                conv,
                now_ms,
                &ranking_modes,
                kmax,
                &mut ranking_runs,
            )?;
        }
    }
    let outcomes = std::mem::take(&mut per_variant[0]);
    let mut rep = report::Report::build(
        &a.k,
        &outcomes,
        &baselines,
        quirks,
        total_q,
        audit.is_some(),
    );
    rep.supported_at = threshold_used;
    let mut md = rep.markdown();
    let mut extra = serde_json::Map::new();
    if a.ablate || a.query_encoder.len() > 1 {
        let rows: Vec<variants::VariantRow> =
            std::iter::once(variants::row(&variants[0].name, &outcomes))
                .chain((1..grid_from).map(|i| variants::row(&variants[i].name, &per_variant[i])))
                .collect();
        let (title, key) = if a.ablate {
            ("ablation (each channel off in turn)", "ablation")
        } else {
            ("the questions' encoders, side by side", "query_encoders")
        };
        md.push_str(&variants::markdown_rows(title, &rows));
        extra.insert(key.into(), serde_json::to_value(&rows).unwrap_or_default());
    }
    if grid_from < variants.len() {
        let loco = variants::loco(&variants[grid_from..], &per_variant[grid_from..]);
        md.push_str(&loco.markdown());
        extra.insert(
            "tune".into(),
            serde_json::to_value(&loco).unwrap_or_default(),
        );
    }
    if !ranking_modes.is_empty() {
        let t = ranking::table(&ranking_runs, &ranking_modes);
        md.push_str(&t.markdown());
        extra.insert(
            "ranking".into(),
            serde_json::to_value(&t).unwrap_or_default(),
        );
    }
    let adversarial_auc = reader::auc(&reader_pairs.pos, &adversarial_neg);
    if let Some(auc) = reader_pairs.auc() {
        md.push_str(&format!(
            "\nreader ROC AUC: evidence vs closest non-evidence {auc:.3} ({} / {}); evidence vs adversarial questions' best-judged memory {} ({} adversarial)\n",
            reader_pairs.pos.len(),
            reader_pairs.neg.len(),
            adversarial_auc.map(|a| format!("{a:.3}")).unwrap_or_else(|| "-".into()),
            adversarial_neg.len()
        ));
    }
    extra.insert(
        "reader".into(),
        serde_json::json!({ "auc_evidence_vs_closest": reader_pairs.auc(), "auc_evidence_vs_adversarial": adversarial_auc,
            "evidence": reader_pairs.pos.len(), "closest": reader_pairs.neg.len(), "adversarial": adversarial_neg.len() }),
    );
    if let Some(p) = &a.markdown {
        std::fs::write(p, &md).map_err(|e| Error::io(format!("writing {}", p.display()), e))?;
    }
    crate::output::emit(
        style,
        "eval",
        {
            let mut v = serde_json::to_value(&rep).unwrap_or_default();
            if let Some(o) = v.as_object_mut() {
                o.extend(extra);
            }
            v
        },
        || md.clone(),
    )?;
    Ok(0)
}

/// One line of `--misses` (`only_misses`): an answerable question with evidence in the top 3
/// that was not supported, or an adversarial one that was; of `--signals`: every answerable
/// question with evidence in the top 3, and every adversarial one.
fn write_miss(
    w: &mut impl std::io::Write,
    store: &TempStore,
    conv: &Conversation,
    q: &locomo::Question,
    gold: &[i64],
    resp: &crate::recall::RecallResponse,
    only_misses: bool,
) -> Result<()> {
    let top3 = resp.ranked_ids.iter().take(3).any(|id| gold.contains(id));
    let supported = resp.tier == AnswerTier::Supported;
    let miss = if q.category == 5 {
        supported
    } else {
        top3 && !supported
    };
    let wanted = if only_misses {
        miss
    } else {
        q.category == 5 || top3
    };
    if !wanted {
        return Ok(());
    }
    let text = |id: &i64| store.engine.get(*id).ok().flatten().map(|m| m.text);
    let rec = serde_json::json!({
        "conversation": conv.sample_id,
        "category": q.category,
        "question": q.question,
        "tier": resp.tier,
        "gold": gold.iter().map(|id| serde_json::json!({"id": id, "text": text(id)})).collect::<Vec<_>>(),
        "top": resp.ranked_ids.iter().take(3).map(|id| serde_json::json!({"id": id, "text": text(id)})).collect::<Vec<_>>(),
        "support": resp.explain.as_ref().map(|e| e.support.iter().take(5).collect::<Vec<_>>()),
    });
    writeln!(w, "{rec}").map_err(|e| Error::io("writing the misses", e))
}

/// The simple methods every report is compared with: BM25 alone, or cosine alone; no
/// floor, no tiers.
fn baseline(engine: &Engine, which: &str, query: &str, k: usize) -> Result<Vec<i64>> {
    let vis = crate::index::bm25::Visibility {
        profile: crate::DEFAULT_PROFILE.into(),
        shared: false,
        global: false,
    };
    match which {
        "bm25" => {
            let words = crate::text::content_words(query);
            let words = if words.is_empty() {
                crate::text::words(query)
            } else {
                words
            };
            Ok(engine
                .bm25_search(&words, &vis, k)?
                .into_iter()
                .map(|(id, _)| id)
                .collect())
        }
        _ => {
            let Some(v) = engine.embed_query(query) else {
                return Ok(Vec::new());
            };
            let v = v?;
            Ok(engine
                .with_vectors(|vx| vx.map(|vx| vx.search(&v, k, |_| true)))?
                .transpose()?
                .unwrap_or_default()
                .into_iter()
                .map(|(id, _)| id)
                .collect())
        }
    }
}

fn run_questions(a: EvalQuestionsArgs, style: Style) -> Result<i32> {
    let expect = match a.expect.as_str() {
        "none" => AnswerTier::None,
        "not-supported" => AnswerTier::Related,
        other => {
            return Err(Error::Usage(format!(
                "--expect {other:?}: expected none or not-supported"
            )));
        }
    };
    let raw = std::fs::read_to_string(&a.file)
        .map_err(|e| Error::io(format!("reading {}", a.file.display()), e))?;
    let questions: Vec<String> = raw
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    let path = a
        .store
        .clone()
        .unwrap_or_else(|| PathBuf::from(DEFAULT_LOCOMO));
    let mut quirks = Quirks::default();
    let convs = locomo::load(&path, &[], &mut quirks)?;
    let refs: Vec<&Conversation> = convs.iter().collect();
    let store = build_store(&refs)?;
    let now_ms = clock_after(&refs);
    let mut failures = Vec::new();
    let mut rows = Vec::new();
    for q in &questions {
        let resp = crate::recall::run(&store.engine, &request(q, now_ms, 10, false))?;
        let ok = match expect {
            AnswerTier::None => resp.tier == AnswerTier::None,
            _ => resp.tier != AnswerTier::Supported,
        };
        rows.push(serde_json::json!({"question": q, "tier": resp.tier, "ok": ok, "results": resp.results.iter().map(|r| r.id).collect::<Vec<_>>()}));
        if !ok {
            failures.push((
                q.clone(),
                resp.tier,
                resp.results.first().map(|r| r.preview.clone()),
            ));
        }
    }
    let met = questions.len() - failures.len();
    let body = serde_json::json!({
        "file": a.file.display().to_string(),
        "expect": a.expect,
        "questions": questions.len(),
        "met": met,
        "share": if questions.is_empty() { 0.0 } else { met as f64 / questions.len() as f64 },
        "failures": failures.iter().map(|(q, t, p)| serde_json::json!({"question": q, "tier": t, "top": p})).collect::<Vec<_>>(),
        "rows": rows,
    });
    crate::output::emit(style, "eval", body, || {
        let mut s = format!(
            "{met}/{} met the expectation ({}) on {}\n",
            questions.len(),
            a.expect,
            a.file.display()
        );
        for (q, t, p) in &failures {
            s.push_str(&format!(
                "  FAIL {q:?} → {t}{}\n",
                p.as_ref()
                    .map(|p| format!(" (top: {p})"))
                    .unwrap_or_default()
            ));
        }
        s.trim_end().to_string()
    })?;
    Ok(0)
}
