//! `list`, `show`, `reindex`, `doctor`.

use super::args::{GlobalArgs, ListArgs, ShowArgs};
use super::write::open;
use crate::Result;
use crate::engine::ModelMode;
use crate::output::Style;
use crate::output::emit;
use crate::service::Op;
use crate::store::ListFilter;
use serde_json::json;

pub fn list(a: ListArgs, g: &GlobalArgs, style: Style) -> Result<i32> {
    let filter = ListFilter {
        profile: Some(g.profile.clone()),
        kind: crate::memory::Kind::parse_flag("--kind", a.kind.as_deref())?,
        tag: a.tag,
        session_id: a.session,
        include_bookkeeping: a.all,
        limit: Some(a.limit),
        newest_first: true,
        project: super::current_project(g),
        ..Default::default()
    };
    super::forward::forward(Op::List { filter }, g, style, None)
}

pub fn show(a: ShowArgs, g: &GlobalArgs, style: Style) -> Result<i32> {
    let op = Op::Show {
        id: a.id,
        profile: g.profile.clone(),
    };
    super::forward::forward(op, g, style, None)
}

pub fn reindex(_g: &GlobalArgs, style: Style) -> Result<i32> {
    // The worker's in-memory indexes would be rebuilt under it: it leaves first, and the
    // next command starts a fresh one on the new indexes.
    let stopped = crate::worker::client::stop(&crate::paths::Paths::from_env())?;
    if let Some(pid) = stopped {
        eprintln!("slm: stopped the worker (pid {pid}) while the indexes are rebuilt");
    }
    let engine = open(ModelMode::Load)?;
    let (n, embedded) = engine.reindex()?;
    let model = engine.model_status().map(|s| s.detail.clone());
    emit(
        style,
        "reindex",
        json!({ "memories": n, "embedded": embedded, "model_missing": model }),
        || {
            let mut s =
                format!("rebuilt the indexes over {n} memories ({embedded} newly embedded)");
            if let Some(m) = &model {
                s.push_str(&format!(
                    "\nno embedding model ({m}): the vector index was not built"
                ));
            }
            s
        },
    )?;
    Ok(0)
}

pub fn doctor(_g: &GlobalArgs, style: Style) -> Result<i32> {
    // Doctor reports; it does not fail because the usual open could not write (a full
    // disk, a read-only dir): it looks again without writing and says what went wrong.
    let (engine, open_error) = match open(ModelMode::Load) {
        Ok(e) => (e, None),
        Err(e @ (crate::Error::LostStore { .. } | crate::Error::NewerSchema { .. })) => {
            return Err(e);
        }
        Err(e) => {
            let opts = crate::engine::OpenOptions {
                no_writes: true,
                ..crate::engine::OpenOptions::model(ModelMode::Load)
            };
            match crate::engine::Engine::open(crate::paths::Paths::from_env(), opts) {
                Ok(engine) => (engine, Some(e.to_string())),
                Err(_) => return Err(e),
            }
        }
    };
    let no_writes = engine.no_writes();
    let free = crate::store::free_bytes(&engine.paths.data);
    let writes_ok = no_writes.is_none() && open_error.is_none();
    let count = engine.count()?;
    let generation = engine.generation()?;
    let integrity = engine
        .reader()
        .and_then(|r| r.integrity_check())
        .unwrap_or_else(|e| e.to_string());
    let bm25 = engine.bm25_health();
    let vectors = engine.vector_health();
    let pending = engine.pending_embeddings()?;
    let pending_passages = engine.pending_passages()?;
    // The probe: one embedding made now (its length, or why it failed), for people; the
    // JSON keeps its fields.
    let mut probe_text: Option<std::result::Result<usize, String>> = None;
    let (model, probe) = match engine.embedder() {
        Some(e) => {
            let probe = e
                .embed(&["slm doctor probe: is the model alive?"])
                .map(|mut v| v.pop().unwrap_or_default());
            let probe = match probe {
                Ok(v) => {
                    probe_text = Some(Ok(v.len()));
                    json!({ "dimension": v.len(), "norm": v.iter().map(|x| x * x).sum::<f32>().sqrt(), "first": &v[..v.len().min(4)] })
                }
                Err(e) => {
                    probe_text = Some(Err(e.to_string()));
                    json!({ "error": e.to_string() })
                }
            };
            (
                json!({ "state": "loaded", "id": e.id(), "dimension": e.dim(), "similarity_floor": e.similarity_floor(),
                        "license": e.license(), "dir": crate::embed::onnx::locate(&engine.paths, &engine.settings).0.display().to_string(),
                        "vectors_of_other_models_or_missing": pending }),
                probe,
            )
        }
        None => (json!(engine.model_status()), json!(null)),
    };
    let reader = reader_health(&engine);
    let pictures = engine.picture_status()?;
    let picture_channel = engine.picture_channel_status();
    let query_encoder = query_encoder_health(&engine);
    let ok = engine.embedder().is_some() && bm25.usable() && integrity == "ok" && writes_ok;
    let worker = crate::worker::client::status(&engine.paths).ok().flatten();
    let vector_count = engine.with_vectors(|v| v.map(|v| v.len()))?;
    let body = json!({
        "ok": ok,
        "data_dir": engine.paths.data.display().to_string(),
        "cache_dir": engine.paths.cache.display().to_string(),
        "store": { "path": engine.paths.store().display().to_string(), "schema": crate::store::schema::latest(),
                   "memories": count, "generation": generation, "integrity": integrity },
        "writes": { "ok": writes_ok, "no_writes": no_writes, "free_bytes": free, "open_error": open_error },
        "bm25": { "health": bm25, "documents": engine.num_docs() },
        "vectors": { "health": vectors, "size": vector_count, "pending_embeddings": pending,
                     "pending_passages": pending_passages },
        "model": model,
        "probe_embedding": probe,
        "reader": reader,
        "query_encoder": query_encoder,
        "pictures": pictures,
        "picture_channel": picture_channel,
        "worker": worker,
    });
    emit(style, "doctor", body.clone(), || {
        let mut s = String::new();
        let mark = |good: bool| {
            if good {
                style.green("ok  ")
            } else {
                style.red("FIX ")
            }
        };
        s.push_str(&format!(
            "{}store      {} ({}, generation {generation}, integrity check: {integrity})\n",
            mark(integrity == "ok"),
            engine.paths.store().display(),
            memories(count as usize)
        ));
        if integrity != "ok" {
            s.push_str("           damaged: `slm export` saves what can still be read; `slm restore BACKUP` puts back a copy made by `slm backup BACKUP` (the damaged store is kept aside)\n");
        }
        let free_text = free
            .map(|f| format!("{:.1} MB free", f as f64 / 1e6))
            .unwrap_or_else(|| "free space unknown".into());
        s.push_str(&match (no_writes, &open_error) {
            (None, None) => format!("{}writes     ok ({free_text})\n", mark(true)),
            (why, err) => format!(
                "{}writes     {}: reads work, nothing can be written ({free_text}){}\n",
                mark(false),
                why.map(|w| w.to_string())
                    .unwrap_or_else(|| "opening for writing failed".into()),
                err.as_ref().map(|e| format!("; {e}")).unwrap_or_default()
            ),
        });
        s.push_str(&format!(
            "{}keywords   {bm25}, {}\n",
            mark(bm25.usable()),
            memories(engine.num_docs() as usize)
        ));
        match engine.embedder() {
            Some(e) => {
                s.push_str(&format!(
                    "{}model      {} ({} dimensions; licence: {})\n",
                    mark(true),
                    e.id(),
                    e.dim(),
                    e.license().unwrap_or("see its model directory")
                ));
                s.push_str(&match &probe_text {
                    Some(Ok(d)) => {
                        format!(
                            "{}probe      a test embedding works ({d} dimensions)\n",
                            mark(true)
                        )
                    }
                    Some(Err(e)) => {
                        format!("{}probe      a test embedding failed: {e}\n", mark(false))
                    }
                    None => format!("{}probe      no test embedding was made\n", mark(false)),
                });
                s.push_str(&format!(
                    "{}vectors    {vectors}, {}{}\n",
                    mark(vectors.usable()),
                    memories(vector_count.unwrap_or(0)),
                    match pending {
                        0 => String::new(),
                        1 => "; 1 memory waits for its embedding by this model (the worker catches up, `slm reindex` does it now)".into(),
                        n => format!("; {n} memories wait for their embedding by this model (the worker catches up, `slm reindex` does it now)"),
                    }
                ));
                if pending_passages > 0 {
                    s.push_str(&format!(
                        "{}passages   {pending_passages} {} passages' vectors (recall uses their own vectors meanwhile; the worker catches up, `slm reindex` does it now)\n",
                        mark(true),
                        if pending_passages == 1 {
                            "memory waits for its"
                        } else {
                            "memories wait for their"
                        }
                    ));
                }
            }
            None => {
                let st = engine.model_status();
                s.push_str(&format!(
                    "{}model      {}\n           recall runs keyword-only until this is fixed{}\n",
                    mark(false),
                    st.map(|m| m.detail.clone()).unwrap_or_default(),
                    st.and_then(|m| m.fix.clone())
                        .map(|f| format!("; run: {f}"))
                        .unwrap_or_default()
                ));
            }
        }
        if engine.embedder().is_some() {
            s.push_str(&query_encoder_line(&query_encoder, &mark));
        }
        s.push_str(&match reader["state"].as_str() {
            Some("ready") => format!(
                "{}reader     {} ({}; the answer check's judge)\n",
                mark(true),
                reader["dir"].as_str().unwrap_or_default(),
                reader["licence"]
                    .as_str()
                    .unwrap_or("licence: see the model's card")
            ),
            Some("not_configured") => {
                "    reader     none (the stand-in embedder of plumbing tests)\n".to_string()
            }
            _ => format!(
                "{}reader     unavailable: {}\n           fix: {}\n",
                mark(false),
                reader["detail"].as_str().unwrap_or_default(),
                reader["fix"].as_str().unwrap_or_default()
            ),
        });
        s.push_str(&pictures_line(&pictures, &mark));
        s.push_str(&picture_channel_line(&picture_channel));
        s.push_str(&match &worker {
            Some(w) => format!(
                "{}worker     pid {}, version {}, up {:.0} s\n",
                mark(true),
                w.pid,
                w.version,
                w.uptime_s
            ),
            None => "    worker     not running (the next command starts it)\n".to_string(),
        });
        s.trim_end().to_string()
    })?;
    Ok(if ok { 0 } else { 1 })
}

/// "1 memory", "3 memories".
fn memories(n: usize) -> String {
    if n == 1 {
        "1 memory".into()
    } else {
        format!("{n} memories")
    }
}

/// The reader as doctor sees it: loaded or why not (waits for its background load).
fn reader_health(engine: &crate::engine::Engine) -> serde_json::Value {
    use crate::embed::reranker::State;
    let dir = crate::embed::reader::configured_dir(&engine.paths, &engine.settings);
    let fix = if dir == crate::embed::reader::default_dir(&engine.paths) {
        "run scripts/setup.sh --models-only: it installs slm's reader and checks it by sha256"
            .to_string()
    } else {
        format!(
            "{} needs model.onnx, tokenizer.json, config.json, special_tokens_map.json and tokenizer_config.json; or remove answer_check.reader_dir (and SLM_READER_DIR) to use slm's own reader",
            dir.display()
        )
    };
    let Some(slot) = engine.answer_reader() else {
        return json!({ "state": "not_configured", "dir": dir.display().to_string() });
    };
    let dir = dir.display().to_string();
    crate::embed::reader::wait_loaded(slot, std::time::Duration::from_secs(30));
    let state = slot.lock().map(|g| g.clone()).ok();
    match state.as_deref() {
        Some(State::Ready(_)) => {
            let own = dir
                == crate::embed::reader::default_dir(&engine.paths)
                    .display()
                    .to_string();
            json!({ "state": "ready", "name": crate::embed::reader::READER_NAME, "dir": dir,
                    "model": own.then_some(crate::embed::reader::DEFAULT_READER),
                    "licence": own.then_some(crate::embed::reader::DEFAULT_READER_LICENCE) })
        }
        Some(State::Unavailable(why)) => {
            json!({ "state": "unavailable", "detail": why, "dir": dir, "fix": fix })
        }
        _ => {
            json!({ "state": "unavailable", "detail": "it did not finish loading within 30 s", "dir": dir, "fix": fix })
        }
    }
}

/// What encodes questions: the fast query encoder (its id, licence, the memory model it pairs
/// with), or the memory model and why.
fn query_encoder_health(engine: &crate::engine::Engine) -> serde_json::Value {
    let Some(e) = engine.embedder() else {
        return json!(null);
    };
    let dir = crate::embed::query::locate(&engine.paths);
    match (e.query_encoder(), engine.query_status()) {
        (Some(id), _) => {
            let m = crate::embed::Manifest::read(&dir).unwrap_or_default();
            json!({ "state": "fast", "id": id, "pairs_with": e.id(), "dir": dir.display().to_string(),
                    "licence": m.license })
        }
        (None, Some(why)) => json!({ "state": why.state, "detail": why.detail, "fix": why.fix,
                                     "dir": dir.display().to_string() }),
        (None, None) => {
            json!({ "state": "full", "detail": "through the memory model" })
        }
    }
}

fn query_encoder_line(q: &serde_json::Value, mark: &dyn Fn(bool) -> String) -> String {
    let text = |k: &str| q[k].as_str().unwrap_or_default().to_string();
    match q["state"].as_str() {
        Some("fast") => format!(
            "{}questions  {} (a query encoder that pairs with {}; licence: {})\n",
            mark(true),
            text("id"),
            text("pairs_with"),
            q["licence"].as_str().unwrap_or("see its model directory")
        ),
        // Chosen in settings: nothing to fix.
        Some("full") | Some("none") | None => {
            format!("{}questions  {}\n", mark(true), text("detail"))
        }
        Some(_) => format!(
            "{}questions  through the memory model: {}{}\n",
            mark(false),
            text("detail"),
            q["fix"]
                .as_str()
                .map(|f| format!("; fix: {f}"))
                .unwrap_or_default()
        ),
    }
}

/// Doctor's line on pictures and their OCR models.
fn pictures_line(p: &crate::engine::PictureStatus, mark: &dyn Fn(bool) -> String) -> String {
    let counts = if p.pictures == 0 {
        "no pictures yet".to_string()
    } else {
        let mut parts = vec![format!("{} read", p.read)];
        if p.wordless > 0 {
            parts.push(format!("{} with no words found", p.wordless));
        }
        if p.pending > 0 {
            parts.push(format!("{} waiting to be read", p.pending));
        }
        if p.failed > 0 {
            let first = p
                .failures
                .first()
                .map(|(id, name, why)| format!(" (#{id} {name}: {why})"))
                .unwrap_or_default();
            parts.push(format!("{} could not be read{first}", p.failed));
        }
        format!(
            "{} {}: {}",
            p.pictures,
            if p.pictures == 1 {
                "picture"
            } else {
                "pictures"
            },
            parts.join(", ")
        )
    };
    match &p.ocr_unavailable {
        None => format!(
            "{}pictures   {counts}; OCR {} ({})\n",
            mark(true),
            p.ocr_dir,
            p.ocr_licence
        ),
        // Only pictures need it: a store without any is not broken without it.
        Some(why) => format!(
            "{}pictures   {counts}; OCR unavailable: {why}\n           pictures are found by their note and name until it is installed; fix: scripts/setup.sh\n",
            if p.pictures > 0 {
                mark(false)
            } else {
                "    ".to_string()
            }
        ),
    }
}

/// Doctor's line on the picture channel: the user's image–text model, or why there is none.
/// Never a fault: slm installs no such model (docs/pictures.md).
fn picture_channel_line(c: &serde_json::Value) -> String {
    match c["why_not"].as_str() {
        None => format!(
            "    picture channel: image–text model in {} (wordless pictures are scored by what they show; media floor {})\n",
            c["image_model_dir"].as_str().unwrap_or(""),
            c["media_floor"]
        ),
        Some(why) => {
            format!("    picture channel: off ({why}); wordless pictures are found by their note\n")
        }
    }
}
