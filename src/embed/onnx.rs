//! The real embedder: an ONNX sentence-embedding model run by fastembed on ONNX Runtime,
//! loaded from local files only (`ort-load-dynamic`; no download at build or run time).

use super::{Embedder, Manifest, ModelStatus};
use crate::paths::Paths;
use crate::settings::Settings;
use crate::{Error, Result};
use fastembed::{
    InitOptionsUserDefined, Pooling, TextEmbedding, TokenizerFiles, UserDefinedEmbeddingModel,
};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// Texts per ONNX run. 32 was the fastest of 8/16/32/64 on 2 cores in `slm bench ingest`.
pub const BATCH_SIZE: usize = 32;

/// Environment variable choosing an installed model by id (overrides settings `model.id`).
pub const MODEL_ID_ENV: &str = "SLM_MODEL_ID";

/// Where the model directory and the runtime library are, by precedence:
/// `SLM_MODEL_DIR` > settings `model.dir` > `SLM_MODEL_ID` > settings `model.id` > the
/// default model; `ORT_DYLIB_PATH` > settings > cache.
pub fn locate(paths: &Paths, settings: &Settings) -> (PathBuf, PathBuf) {
    let by_id = |id: String| paths.cache.join("models").join(id);
    let model = std::env::var_os(super::MODEL_DIR_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| settings.model.dir.clone())
        .or_else(|| {
            std::env::var(MODEL_ID_ENV)
                .ok()
                .filter(|v| !v.is_empty())
                .map(by_id)
        })
        .or_else(|| settings.model.id.clone().map(by_id))
        .unwrap_or_else(|| paths.default_model_dir());
    let runtime = std::env::var_os(super::ORT_LIB_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| settings.model.runtime.clone())
        .unwrap_or_else(|| paths.default_runtime());
    (model, runtime)
}

static RUNTIME: OnceLock<std::result::Result<ort::environment::Environment, String>> =
    OnceLock::new();

/// Load ONNX Runtime once per process, from an explicit path (never a default search that
/// could pick up a random library or abort the process), and make the process's one ONNX
/// Runtime environment (ONNX Runtime allows only one): every session, fastembed's and
/// our own, is built on it.
pub fn init_runtime(lib: &Path) -> std::result::Result<(), String> {
    environment(lib).map(|_| ())
}

/// The process's ONNX Runtime environment, made on first use from `lib`.
pub fn environment(lib: &Path) -> std::result::Result<ort::environment::Environment, String> {
    let r = RUNTIME.get_or_init(|| {
        if !lib.is_file() {
            return Err(format!(
                "ONNX Runtime library not found at {}",
                lib.display()
            ));
        }
        match ort::init_from(lib) {
            // Nothing leaves the machine: ONNX Runtime's telemetry is off.
            Ok(builder) => builder
                .with_name("slm")
                .with_telemetry(false)
                .build()
                .map_err(|e| format!("ONNX Runtime at {} could not start: {e}", lib.display())),
            Err(e) => Err(format!(
                "ONNX Runtime at {} could not be loaded: {e}",
                lib.display()
            )),
        }
    });
    r.clone()
}

/// A session of our own (OCR, the image–text model) on the process's environment: two
/// intra-op threads (this machine's cores), never spinning ([`ORT_SPINNING`]).
pub fn cpu_session(
    env: &ort::environment::Environment,
    path: &Path,
) -> std::result::Result<ort::session::Session, String> {
    ort::session::Session::builder(env)
        .map_err(|e| e.to_string())?
        .with_intra_threads(2)
        .map_err(|e| e.to_string())?
        .with_config_entry(
            "session.intra_op.allow_spinning",
            if ORT_SPINNING { "1" } else { "0" },
        )
        .map_err(|e| e.to_string())?
        .commit_from_file(path)
        .map_err(|e| e.to_string())
}

pub struct OnnxEmbedder {
    model: Mutex<TextEmbedding>,
    tokenizer: Option<tokenizers::Tokenizer>,
    card: super::ModelCard,
}

/// Whether ONNX Runtime's intra-op threads spin while waiting for work. Off: on a 2-core
/// machine that also runs the user's work, spinning threads steal the cores the query needs.
/// Measured here (warm worker, 30 runs each, load average ~5): the query-embedding stage
/// p50 19 ms with spinning off against 35–44 ms with it on. Spinning only within a run
/// (`session.force_spinning_stop`) was measured too: one query alone 18.9 ms against 23.5 ms
/// (Python, 200 questions alternating), but through the worker (`slm bench worker`, 27,000
/// memories) three callers went from p50 61.5 to 90.3 ms and one caller's p90 from 41.7 to
/// 55.9 ms, since the spinning threads take the cores the other recalls and producers need.
pub(crate) const ORT_SPINNING: bool = false;

/// The model's tokenizer for counting: its own vocabulary, but without the fixed padding
/// and truncation its tokenizer.json may carry (Fixed 128 for all-MiniLM-L6-v2), which
/// would make every text count as exactly 128 tokens and undercount long ones.
pub fn counting_tokenizer(tokenizer_json: &[u8]) -> Option<tokenizers::Tokenizer> {
    // The direct reader (`embed::tokenizer`): EmbeddingGemma's tokenizer through the generic
    // one took about a second on every cold-path recall that counts tokens.
    let mut t = super::tokenizer::from_bytes(tokenizer_json).ok()?;
    t.with_padding(None);
    t.with_truncation(None).ok()?;
    Some(t)
}

/// Count word pieces with a counting tokenizer (special tokens left out).
pub fn count_with(t: &tokenizers::Tokenizer, text: &str) -> usize {
    t.encode(text, false)
        .map(|e| e.len())
        .unwrap_or_else(|_| super::fallback_token_count(text))
}

pub(crate) fn read(dir: &Path, name: &str) -> std::result::Result<Vec<u8>, String> {
    std::fs::read(dir.join(name)).map_err(|e| {
        format!(
            "{} is missing or unreadable ({e})",
            dir.join(name).display()
        )
    })
}

impl OnnxEmbedder {
    pub fn load(
        model_dir: &Path,
        runtime: &Path,
    ) -> std::result::Result<OnnxEmbedder, ModelStatus> {
        let status = ModelStatus::of(model_dir, runtime);
        const FIX: &str = super::SETUP_FIX;
        let manifest = Manifest::read(model_dir).map_err(|e| status("invalid", e, None))?;
        let onnx = read(model_dir, "model.onnx").map_err(|e| status("missing", e, Some(FIX)))?;
        let files = (|| -> std::result::Result<TokenizerFiles, String> {
            Ok(TokenizerFiles {
                tokenizer_file: read(model_dir, "tokenizer.json")?,
                config_file: read(model_dir, "config.json")?,
                special_tokens_map_file: read(model_dir, "special_tokens_map.json")?,
                tokenizer_config_file: read(model_dir, "tokenizer_config.json")?,
            })
        })()
        .map_err(|e| status("missing", e, Some(FIX)))?;
        let env = environment(runtime).map_err(|e| status("missing", e, Some(FIX)))?;
        let pooling = match manifest.pooling.as_deref() {
            Some("cls") => Pooling::Cls,
            _ => Pooling::Mean,
        };
        let mut user = UserDefinedEmbeddingModel::new(onnx, files.clone()).with_pooling(pooling);
        if let Some(k) = &manifest.output_key {
            user.output_key = Some(fastembed::OutputKey::ByName(Box::leak(
                k.clone().into_boxed_str(),
            )));
        }
        let max_length = manifest
            .max_length
            .unwrap_or(super::manifest::DEFAULT_MAX_LENGTH);
        let mut opts = InitOptionsUserDefined::new()
            .with_max_length(max_length)
            .with_environment(env);
        if !ORT_SPINNING {
            opts = opts.with_session_config("session.intra_op.allow_spinning", "0");
        }
        let mut model = TextEmbedding::try_new_from_user_defined(user, opts).map_err(|e| {
            status(
                "broken",
                format!("the model could not be loaded: {e}"),
                None,
            )
        })?;
        let probe = model.embed(vec!["slm probe"], None).map_err(|e| {
            status(
                "broken",
                format!("the model loaded but a probe embedding failed: {e}"),
                None,
            )
        })?;
        let dim = probe.first().map(|v| v.len()).unwrap_or(0);
        if dim == 0 || manifest.dimension.is_some_and(|d| d != dim) {
            return Err(status(
                "broken",
                format!(
                    "the model returned {dim}-d vectors, its manifest says {:?}",
                    manifest.dimension
                ),
                None,
            ));
        }
        let tokenizer = counting_tokenizer(&files.tokenizer_file);
        Ok(OnnxEmbedder {
            model: Mutex::new(model),
            tokenizer,
            card: super::ModelCard::new(model_dir, &manifest, dim),
        })
    }
}

impl Embedder for OnnxEmbedder {
    super::card_methods!();
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let mut model = self
            .model
            .lock()
            .map_err(crate::error::poisoned(super::EMBEDDER_LOCK))?;
        // Batches are padded to their longest text: embedding texts of similar length
        // together wastes far less work than the arrival order would.
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        let sorted: Vec<&str> = order.iter().map(|&i| texts[i]).collect();
        let embedded = model
            .embed(&sorted, Some(BATCH_SIZE))
            .map_err(|e| Error::Model(e.to_string()))?;
        let mut out = vec![Vec::new(); texts.len()];
        for (slot, mut v) in order.into_iter().zip(embedded) {
            super::normalize(&mut v);
            out[slot] = v;
        }
        Ok(out)
    }
    /// Word pieces of `text` as the model sees them, special tokens left out (a budget counts
    /// what is shown to an agent, not the model's framing).
    fn count_tokens(&self, text: &str) -> usize {
        match &self.tokenizer {
            Some(t) => count_with(t, text),
            None => super::fallback_token_count(text),
        }
    }
}
