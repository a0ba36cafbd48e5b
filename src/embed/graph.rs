//! An embedding graph that pools and normalises inside itself, run on ONNX Runtime
//! directly: EmbeddingGemma-300M as `scripts/models/embeddinggemma` builds it (Gemma 3
//! encoder with bidirectional attention, mean pooling, both dense layers, L2 norm).
//!
//! Interface (the builder writes exactly this): inputs `input_ids` and `attention_mask`,
//! int64 `[batch, sequence]`; output `output_key` (`sentence_embedding`), float32
//! `[batch, dimension]`. fastembed cannot run such a graph (it always pools the output
//! itself), so the tokenizer and the padding are done here.
//!
//! The model card's prefixes are added here, once: `query_prefix` before questions,
//! `document_prefix` before stored texts.

use super::{Embedder, Manifest, ModelStatus};
use crate::{Error, Result};
use ort::session::Session;
use ort::value::Tensor;
use std::ffi::CString;
use std::path::Path;

/// Texts per ONNX run (sorted by length first, so a batch pads little). 16 keeps the
/// attention buffers of a 512-token batch near 50 MB per layer.
pub const BATCH_SIZE: usize = 16;
/// Intra-op threads. Measured on this 2-core machine (onnxruntime 1.32, session 12), one
/// short query interleaved 200 times: p50 20.1 ms with two, 22.2 with one (the issue's
/// scratch figure, 17.5 against 20.6 the other way round, was not reproduced). Batches of
/// stored texts run side by side instead ([`parallel_runs`]).
pub const INTRA_THREADS: usize = 2;
/// Batches run at once at most, whatever the core count says.
pub const MAX_PARALLEL_RUNS: usize = 8;

/// Batches run side by side: one per core. ONNX Runtime parallelises one short batch
/// poorly, so two runs at once keep both cores busy: `slm bench ingest --memories 1000`,
/// three runs each way in one window, 37/45/40 memories/s one batch at a time against
/// 43/42/45 two at once.
fn parallel_runs() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, MAX_PARALLEL_RUNS)
}
/// Run `run` on every chunk, results in the chunks' order (`None`: its thread stopped
/// first). One chunk (a query) runs on the calling thread; more take turns on a few threads,
/// each taking the next chunk, all on the one session (`shared_run`). Bulk work always runs
/// on threads of its own, which lower themselves (`crate::priority`): the caller keeps its
/// priority, since it may hold a lock a request waits for, or serve one next.
fn side_by_side<C: Sync, T: Send>(
    chunks: &[C],
    bulk: bool,
    run: impl Fn(&C) -> Result<T> + Sync,
) -> Vec<Option<Result<T>>> {
    let threads = parallel_runs().min(chunks.len());
    if threads <= 1 && !bulk {
        return chunks.iter().map(|c| Some(run(c))).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done: Vec<(usize, Result<T>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads.max(1))
            .map(|_| {
                s.spawn(|| {
                    if bulk {
                        crate::priority::lower_this_thread();
                    }
                    let mut mine = Vec::new();
                    loop {
                        let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(chunk) = chunks.get(k) else { break };
                        let r = run(chunk);
                        let failed = r.is_err();
                        mine.push((k, r));
                        if failed {
                            break;
                        }
                    }
                    mine
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let mut results: Vec<Option<Result<T>>> = Vec::new();
    results.resize_with(chunks.len(), || None);
    for (k, r) in done {
        results[k] = Some(r);
    }
    results
}

/// The answer check's threshold when a manifest names an `answer_prompt` without one: the
/// value measured for EmbeddingGemma-300M int8 with `slm eval locomo` (dev): at 0.40 the
/// judge said "answers" to most adversarial questions too (support trade-off 0.937 / 0.434
/// at the support threshold 0.50), at 0.50 0.924 / 0.503.
pub const DEFAULT_ANSWER_AT: f64 = 0.50;
/// Tokens read per text when the manifest does not say (the builder writes 512).
pub const DEFAULT_MAX_LENGTH: usize = 512;

/// The tokenizer a graph runs with: the `tokenizers` crate's, or the compact one that loads in
/// milliseconds (`bpe`, for the fast query encoder, whose whole point is a fast start).
enum Tok {
    Full(Box<tokenizers::Tokenizer>),
    Compact(Box<super::bpe::Compact>),
}

impl Tok {
    fn ids(&self, text: &str) -> Result<Vec<u32>> {
        match self {
            Tok::Full(t) => t
                .encode(text, true)
                .map(|e| e.get_ids().to_vec())
                .map_err(|e| Error::Model(format!("tokenizing: {e}"))),
            Tok::Compact(c) => Ok(c.encode(text)),
        }
    }
}

pub struct GraphEmbedder {
    /// Run from any number of threads at once, without a lock (see `shared_run`).
    session: Session,
    tokenizer: Tok,
    /// Tokens read per text; longer ones are cut (see `token_ids`).
    max_length: usize,
    /// The post-processor's closing token (`<eos>`), kept at the end of a cut text.
    end_id: Option<u32>,
    output: CString,
    pad_id: i64,
    card: super::ModelCard,
    query_prefix: String,
    document_prefix: String,
    answer: Option<(String, f64)>,
}

impl GraphEmbedder {
    /// Tokenizes with [`super::bpe::Compact`] when the tokenizer has its shape
    /// (EmbeddingGemma's tokenizer.json takes the `tokenizers` crate about half a second to
    /// build, the compact form milliseconds; the ids are the same), else with `tokenizers`.
    pub fn load(model_dir: &Path, runtime: &Path) -> std::result::Result<Self, ModelStatus> {
        let status = ModelStatus::of(model_dir, runtime);
        const FIX: &str = super::SETUP_FIX;
        let manifest = Manifest::read(model_dir).map_err(|e| status("invalid", e, None))?;
        if !model_dir.join("tokenizer.json").is_file() {
            return Err(status(
                "missing",
                format!("{} is missing", model_dir.join("tokenizer.json").display()),
                Some(FIX),
            ));
        }
        if !model_dir.join("model.onnx").is_file() {
            return Err(status(
                "missing",
                format!("{} is missing", model_dir.join("model.onnx").display()),
                Some(FIX),
            ));
        }
        let env = super::onnx::environment(runtime).map_err(|e| status("missing", e, Some(FIX)))?;
        let broken = |what: &str, e: String| status("broken", format!("{what}: {e}"), None);
        let max_length = manifest.max_length.unwrap_or(DEFAULT_MAX_LENGTH).max(2);
        let (tokenizer, end_id, pad_id) = match super::bpe::Compact::load(model_dir) {
            Some(c) => {
                let end_id = c.encode("").last().copied();
                let pad_id = c.token("<pad>").unwrap_or(0) as i64;
                (Tok::Compact(Box::new(c)), end_id, pad_id)
            }
            None => {
                let tok_json = super::onnx::read(model_dir, "tokenizer.json")
                    .map_err(|e| status("missing", e, Some(FIX)))?;
                let mut tokenizer = super::tokenizer::from_bytes(&tok_json)
                    .map_err(|e| broken("its tokenizer.json could not be read", e))?;
                tokenizer.with_padding(None);
                // One tokenizer, untruncated (it also counts tokens for budgets); embeddings
                // cut long texts themselves. A second, truncating copy would cost as much
                // memory again.
                tokenizer
                    .with_truncation(None)
                    .map_err(|e| broken("its tokenizer could not be set up", e.to_string()))?;
                let end_id = tokenizer
                    .encode("", true)
                    .ok()
                    .and_then(|e| e.get_ids().last().copied());
                let pad_id = tokenizer.token_to_id("<pad>").unwrap_or(0) as i64;
                (Tok::Full(Box::new(tokenizer)), end_id, pad_id)
            }
        };
        let mut builder = Session::builder(&env)
            .map_err(|e| broken("ONNX Runtime could not start a session", e.to_string()))?;
        builder = builder
            .with_intra_threads(INTRA_THREADS)
            .map_err(|e| broken("setting threads", e.to_string()))?;
        if !super::onnx::ORT_SPINNING {
            builder = builder
                .with_config_entry("session.intra_op.allow_spinning", "0")
                .map_err(|e| broken("setting spinning", e.to_string()))?;
        }
        let session = builder
            .commit_from_file(model_dir.join("model.onnx"))
            .map_err(|e| broken("the model could not be loaded", e.to_string()))?;
        let output = CString::new(
            manifest
                .output_key
                .clone()
                .unwrap_or_else(|| "sentence_embedding".into()),
        )
        .map_err(|e| broken("its manifest's output_key", e.to_string()))?;
        let mut e = GraphEmbedder {
            session,
            tokenizer,
            max_length,
            end_id,
            output,
            pad_id,
            // The dimension is the probe's, below.
            card: super::ModelCard::new(model_dir, &manifest, 0),
            query_prefix: manifest.query_prefix.clone().unwrap_or_default(),
            document_prefix: manifest.document_prefix.clone().unwrap_or_default(),
            answer: manifest
                .answer_prompt
                .clone()
                .map(|p| (p, manifest.answer_at.unwrap_or(DEFAULT_ANSWER_AT))),
        };
        let probe = e.run(&["slm probe"]).map_err(|err| {
            broken(
                "the model loaded but a probe embedding failed",
                err.to_string(),
            )
        })?;
        let dim = probe.first().map(|v| v.len()).unwrap_or(0);
        if dim == 0 || manifest.dimension.is_some_and(|d| d != dim) {
            return Err(broken(
                "its output",
                format!(
                    "{dim}-d vectors, the manifest says {:?}",
                    manifest.dimension
                ),
            ));
        }
        e.card.dim = dim;
        Ok(e)
    }

    /// Token ids of already-prefixed texts, with the model's special tokens (BOS … EOS).
    pub fn token_ids(&self, texts: &[&str]) -> Result<Vec<Vec<u32>>> {
        texts
            .iter()
            .map(|t| {
                let mut ids = self.tokenizer.ids(t)?;
                // As truncation inside the tokenizer would: the first max_length - 1 tokens
                // (with <bos>), then the closing <eos>.
                if ids.len() > self.max_length {
                    ids.truncate(self.max_length - 1);
                    ids.extend(self.end_id);
                }
                Ok(ids)
            })
            .collect()
    }

    /// Embed already-prefixed texts, in their order.
    fn run(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let ids = self.token_ids(texts)?;
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_by_key(|&i| ids[i].len());
        let chunks: Vec<&[usize]> = order.chunks(BATCH_SIZE).collect();
        let run_chunk = |chunk: &&[usize]| {
            let rows: Vec<&Vec<u32>> = chunk.iter().map(|&i| &ids[i]).collect();
            self.run_ids(&rows)
        };
        let results = side_by_side(&chunks, crate::priority::in_bulk(), run_chunk);
        let mut out = vec![Vec::new(); ids.len()];
        for (chunk, vecs) in chunks.iter().zip(results) {
            let vecs = vecs.ok_or_else(|| Error::Model("an embedding thread stopped".into()))?;
            for (slot, v) in chunk.iter().zip(vecs?) {
                out[*slot] = v;
            }
        }
        Ok(out)
    }

    /// One ONNX run over token id rows, padded to the longest.
    pub fn run_ids(&self, rows: &[&Vec<u32>]) -> Result<Vec<Vec<f32>>> {
        let b = rows.len();
        let s = rows.iter().map(|r| r.len()).max().unwrap_or(0).max(1);
        let mut input = vec![self.pad_id; b * s];
        let mut mask = vec![0i64; b * s];
        for (i, r) in rows.iter().enumerate() {
            for (j, &t) in r.iter().enumerate() {
                input[i * s + j] = t as i64;
                mask[i * s + j] = 1;
            }
        }
        let err = |e: ort::Error| Error::Model(e.to_string());
        let input = Tensor::from_array(([b, s], input)).map_err(err)?;
        let mask = Tensor::from_array(([b, s], mask)).map_err(err)?;
        let out = super::shared_run::run_f32(
            &self.session,
            &[(c"input_ids", &input), (c"attention_mask", &mask)],
            &self.output,
        )
        .map_err(Error::Model)?;
        let (shape, data) = (out.shape, out.data);
        let dim = *shape.last().unwrap_or(&0) as usize;
        if dim == 0 || data.len() != b * dim {
            return Err(Error::Model(format!(
                "the graph returned shape {shape:?} for {b} texts"
            )));
        }
        Ok(data
            .chunks_exact(dim)
            .map(|c| {
                let mut v = c.to_vec();
                super::normalize(&mut v);
                v
            })
            .collect())
    }

    fn with_prefix(prefix: &str, texts: &[&str]) -> Vec<String> {
        texts.iter().map(|t| format!("{prefix}{t}")).collect()
    }
}

impl Embedder for GraphEmbedder {
    super::card_methods!();
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let p = Self::with_prefix(&self.document_prefix, texts);
        self.run(&p.iter().map(String::as_str).collect::<Vec<_>>())
    }
    fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let p = Self::with_prefix(&self.query_prefix, texts);
        self.run(&p.iter().map(String::as_str).collect::<Vec<_>>())
    }
    fn answer_prompt(&self) -> Option<(&str, f64)> {
        self.answer.as_ref().map(|(p, at)| (p.as_str(), *at))
    }
    fn embed_prompted(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        self.run(texts)
    }
    fn count_tokens(&self, text: &str) -> usize {
        match &self.tokenizer {
            Tok::Full(t) => super::onnx::count_with(t, text),
            Tok::Compact(c) => c.count(text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The installed EmbeddingGemma (scripts/setup.sh builds it), or None with a note.
    fn installed() -> Option<GraphEmbedder> {
        let paths = crate::paths::Paths::from_env();
        let dir = paths
            .cache
            .join("models")
            .join(crate::paths::EMBEDDINGGEMMA_MODEL_NAME);
        if !dir.join("model.onnx").is_file() {
            eprintln!("skipped: {} is not installed", dir.display());
            return None;
        }
        let (_, runtime) =
            crate::embed::onnx::locate(&paths, &crate::settings::Settings::default());
        Some(GraphEmbedder::load(&dir, &runtime).expect("the installed model loads"))
    }

    fn cos(a: &[f32], b: &[f32]) -> f64 {
        let dot: f64 = a.iter().zip(b).map(|(x, y)| *x as f64 * *y as f64).sum();
        let n = |v: &[f32]| v.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt();
        dot / (n(a) * n(b))
    }

    #[test]
    fn runs_from_many_threads_on_one_session_give_the_vectors_of_runs_one_at_a_time() {
        let Some(e) = installed() else { return };
        let fx: serde_json::Value =
            serde_json::from_str(include_str!("../../fixtures/embeddinggemma-reference.json"))
                .unwrap();
        let rows: Vec<(Vec<u32>, Vec<f32>)> = fx["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let ids = r["input_ids"].as_array().unwrap();
                let emb = r["embedding"].as_array().unwrap();
                (
                    ids.iter().map(|v| v.as_u64().unwrap() as u32).collect(),
                    emb.iter().map(|v| v.as_f64().unwrap() as f32).collect(),
                )
            })
            .collect();
        let one = |ids: &Vec<u32>| e.run_ids(&[ids]).unwrap().remove(0);
        let serial: Vec<Vec<f32>> = rows.iter().map(|(ids, _)| one(ids)).collect();
        // The Rust path reproduces the torch reference (the int8 graph: verify.py's bound).
        for ((v, (_, want)), i) in serial.iter().zip(&rows).zip(0..) {
            let c = cos(v, want);
            assert!(c >= 0.99, "row {i}: cosine {c:.5} to the reference");
        }
        // Four threads at once, each through every row in its own order.
        std::thread::scope(|s| {
            for t in 0..4usize {
                let (rows, serial, one) = (&rows, &serial, &one);
                s.spawn(move || {
                    for k in 0..rows.len() * 2 {
                        let i = (k * (t + 1) + t) % rows.len();
                        let c = cos(&one(&rows[i].0), &serial[i]);
                        assert!(c >= 0.99999, "thread {t}, row {i}: cosine {c:.6}");
                    }
                });
            }
        });
    }

    #[test]
    fn bulk_batches_run_on_lowered_threads_and_the_caller_keeps_its_priority() {
        let caller = crate::priority::this_thread_nice();
        let chunks: Vec<usize> = (0..5).collect();
        let nice_of = |&c: &usize| Ok((c, crate::priority::this_thread_nice()));
        let bulk = side_by_side(&chunks, true, nice_of);
        assert_eq!(crate::priority::this_thread_nice(), caller);
        for (k, r) in bulk.into_iter().enumerate() {
            let (c, nice) = r.unwrap().unwrap();
            assert_eq!(c, k, "results come back in the chunks' order");
            if let (Some(n), Some(at)) = (nice, caller) {
                assert_eq!(n, at.max(crate::priority::bulk_nice()), "chunk {k}");
            }
        }
        // One bulk chunk still leaves the caller's thread.
        let one = side_by_side(&chunks[..1], true, |_| Ok(std::thread::current().id()));
        assert_ne!(
            one[0].as_ref().unwrap().as_ref().unwrap(),
            &std::thread::current().id()
        );
        // Not bulk: nothing is lowered, and one chunk runs on the caller.
        for r in side_by_side(&chunks, false, nice_of) {
            assert_eq!(r.unwrap().unwrap().1, caller);
        }
        let one = side_by_side(&chunks[..1], false, |_| Ok(std::thread::current().id()));
        assert_eq!(
            one[0].as_ref().unwrap().as_ref().unwrap(),
            &std::thread::current().id()
        );
    }

    #[test]
    fn batches_run_side_by_side_come_back_in_the_order_of_the_texts() {
        let Some(e) = installed() else { return };
        // Three batches or more, lengths mixed so the length sort reorders them.
        let texts: Vec<String> = (0..3 * BATCH_SIZE + 5)
            .map(|i| {
                let words = [
                    "river", "invoice", "guitar", "passport", "lasagna", "firmware",
                ];
                let w = words[i % words.len()];
                format!("{} note {i} about the {w}", "very ".repeat((i * 7) % 11))
            })
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        // As bulk work (an import): the batches' threads yield, the caller keeps its priority.
        let nice = crate::priority::this_thread_nice();
        let together = {
            let _bulk = crate::priority::bulk_scope();
            e.embed(&refs).unwrap()
        };
        assert_eq!(crate::priority::this_thread_nice(), nice);
        assert_eq!(together.len(), texts.len());
        for (i, t) in refs.iter().enumerate() {
            let alone = e.embed(&[t]).unwrap().remove(0);
            let own = cos(&together[i], &alone);
            assert!(
                own >= 0.99,
                "text {i}: cosine {own:.4} to itself embedded alone"
            );
            // Its own vector, not a neighbour's, came back in its slot.
            for (j, other) in together.iter().enumerate() {
                if j != i {
                    assert!(own > cos(other, &alone), "text {i} is closer to slot {j}");
                }
            }
        }
    }
}
