//! Which models an engine loads (`ModelMode`), and the questions' encoder among them: the
//! memory model for stored texts, the fast query encoder for questions when it pairs
//! (`embed::query`), nothing on the keyword-only path.

use super::{Engine, ModelMode};
use crate::embed::query::{NotUsed, QueryMode, QueryOnly};
use crate::embed::{self, Embedder, ModelStatus};
use crate::paths::Paths;
use crate::settings::Settings;
use std::sync::Arc;

/// What opening loaded: the embedder (None: keyword only), why the memory model is not
/// loaded, why questions do not go through the fast encoder.
pub(super) type Loaded = (
    Option<Arc<dyn Embedder>>,
    Option<ModelStatus>,
    Option<NotUsed>,
);

pub(super) fn load(paths: &Paths, settings: &Settings, mode: ModelMode) -> Loaded {
    match mode {
        ModelMode::Skip => (None, None, None),
        ModelMode::Load => match embed::load_paired(paths, settings) {
            Ok((e, why)) => (Some(Arc::from(e)), None, why),
            Err(status) => (None, Some(status), None),
        },
        ModelMode::Query => {
            if std::env::var(embed::EMBEDDER_ENV).is_ok_and(|v| !v.is_empty()) {
                return (None, None, None);
            }
            let (memory_dir, runtime) = embed::onnx::locate(paths, settings);
            let memory_id = embed::query::memory_model_id(&memory_dir);
            match embed::query::load(paths, settings, &memory_id, &runtime) {
                Ok(fast) => (
                    Some(Arc::new(QueryOnly::new(Box::new(fast), &memory_dir))),
                    None,
                    None,
                ),
                Err(why) => (None, None, Some(why)),
            }
        }
    }
}

impl Engine {
    /// The model that embeds stored texts: None where none is loaded, and in a process that
    /// loaded only the fast query encoder (stored texts wait for the worker).
    pub(super) fn memory_model(&self) -> Option<&Arc<dyn Embedder>> {
        self.embedder.as_ref().filter(|e| e.embeds_documents())
    }

    /// Memories this engine's vector search cannot see yet: saved since the worker last ran,
    /// waiting for their embedding by the memory model, which this process did not load (the
    /// cold path with the fast query encoder). 0 where the memory model is loaded (it embeds
    /// its backlog itself) or no vector search runs.
    pub fn unseen_by_vectors(&self) -> crate::Result<i64> {
        if self.embedder.is_none() || self.memory_model().is_some() {
            return Ok(0);
        }
        self.pending_embeddings()
    }

    /// Why questions do not go through the fast query encoder (None: they do, or no model).
    pub fn query_status(&self) -> Option<&NotUsed> {
        self.query_status.as_ref()
    }

    /// Switch the questions' encoder of a loaded pair (`slm eval --query-encoder`); false when
    /// there is no pair to switch. Cached question vectors are forgotten.
    pub fn set_query_mode(&self, mode: QueryMode) -> bool {
        let Some(pair) = self.embedder.as_ref().and_then(|e| e.as_paired()) else {
            return mode == QueryMode::Full;
        };
        pair.set_mode(mode);
        if let Ok(mut c) = self.query_vecs.lock() {
            c.clear();
        }
        true
    }
}
