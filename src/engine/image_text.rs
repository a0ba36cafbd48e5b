//! The picture channel's models in the engine: a bring-your-own image–text model
//! (`media::clip`) gives each picture a vector in the worker's background queue, and each
//! question a vector in the same space.
//!
//! The spec's rules for the question side: a recall never waits for the model to load (the
//! first question starts the load in the background and goes on without pictures, `warming`),
//! and the question's vector is asked once, for at most [`QUERY_WAIT`]. The cold path (a
//! command run without the worker) never loads it: it says `warming`, as the spec's cold
//! media worker does.

use super::Engine;
use crate::media::{self, clip};
use crate::{Error, Result};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// How long a recall waits for the question's picture vector (the spec's 0.3 s).
pub const QUERY_WAIT: Duration = Duration::from_millis(300);
/// The folder under the cache dir's `models/` looked in when settings name none.
pub const DEFAULT_DIR: &str = "image-text";

/// The textual tower's state: loaded on the first question that needs it.
enum Textual {
    NotStarted,
    Loading,
    Ready(Arc<clip::Textual>),
    Failed(String),
}

/// Where the textual tower is loaded for questions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuestionModel {
    /// In the background; questions meanwhile go without pictures (the worker).
    Background,
    /// Before the first question that needs it (inline: the process loads every model).
    Here,
    /// Never (the cold path and keyword-only commands).
    Never,
}

/// The two towers of the user's image–text model, each loaded when first needed.
pub struct PictureModels {
    questions: QuestionModel,
    visual: OnceLock<std::result::Result<(Arc<clip::Visual>, String), String>>,
    /// The model's id alone (what a recall needs; cheap, see `clip::Layout::model_id`).
    model_id: OnceLock<std::result::Result<String, String>>,
    textual: Arc<Mutex<Textual>>,
    /// The picture vectors of the last profile asked about, with what they were read for.
    cache: Mutex<Option<(VectorsKey, PictureVectors)>>,
}

/// A profile's picture vectors: (memory id, unit vector).
pub type PictureVectors = Arc<Vec<(i64, Vec<f32>)>>;

/// What a set of cached picture vectors was read for: profile, model, and the count and id
/// sum of the pictures with a vector (a vector added or removed changes them).
type VectorsKey = (String, String, i64, i64);

impl PictureModels {
    pub fn new(questions: QuestionModel) -> PictureModels {
        PictureModels {
            questions,
            visual: OnceLock::new(),
            model_id: OnceLock::new(),
            textual: Arc::new(Mutex::new(Textual::NotStarted)),
            cache: Mutex::new(None),
        }
    }
}

/// Whether the picture channel runs for a question, and with what.
pub enum PictureQuery {
    /// It cannot run; why, in words.
    Unavailable(String),
    /// The model is loading (or the question's vector was late): this recall goes without.
    Warming(String),
    /// The question's vector and the pictures' vectors of the same model.
    Ready {
        query: Vec<f32>,
        pictures: PictureVectors,
    },
}

impl Engine {
    /// The image–text model's folder: `SLM_IMAGE_MODEL_DIR` > settings > the cache dir's.
    pub fn image_model_dir(&self) -> PathBuf {
        std::env::var_os(clip::DIR_ENV)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| self.settings.pictures.image_model_dir.clone())
            .unwrap_or_else(|| self.paths.cache.join("models").join(DEFAULT_DIR))
    }

    fn runtime(&self) -> PathBuf {
        crate::embed::onnx::locate(&self.paths, &self.settings).1
    }

    /// The picture tower and its model id, loaded on first use (in the background queue).
    fn visual(&self) -> std::result::Result<(Arc<clip::Visual>, String), String> {
        self.picture_models
            .visual
            .get_or_init(|| {
                let layout = clip::Layout::find(&self.image_model_dir())?;
                let id = layout.model_id()?;
                let v = clip::Visual::load(&layout, &self.runtime()).map(|v| (Arc::new(v), id));
                // Said once, in the log: pictures then get no vector from this process.
                if let Err(why) = &v {
                    eprintln!("slm: the image–text model could not be loaded: {why}");
                }
                v
            })
            .clone()
    }

    /// The pictures' background work: up to `limit` read by OCR, then up to `limit` given a
    /// vector by the image–text model (when there is one). Returns how many changed.
    pub fn picture_work(&self, limit: usize) -> Result<usize> {
        let read = self.read_pictures(limit)?;
        Ok(read + self.embed_pictures(limit)?)
    }

    /// Give up to `limit` pictures a vector from the image–text model (the worker's
    /// background queue). Without a model, or with pictures off, nothing happens.
    pub fn embed_pictures(&self, limit: usize) -> Result<usize> {
        if self.read_only.is_some() || !self.settings.pictures.enabled {
            return Ok(0);
        }
        // No folder, no work: the common case costs one stat.
        if !self.image_model_dir().is_dir() {
            return Ok(0);
        }
        let Ok((visual, model)) = self.visual() else {
            return Ok(0);
        };
        let todo = self.store()?.pictures_without_vector(&model, limit)?;
        let mut done = 0;
        for (id, sha, ext) in todo {
            let file = media::path_of(&self.paths, &sha, &ext);
            let run = || {
                std::fs::read(&file)
                    .map_err(|e| e.to_string())
                    .and_then(|b| media::decode(&b))
                    .and_then(|img| visual.embed(&img))
            };
            let v = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run))
                .unwrap_or_else(|_| Err("the image–text model failed (a bug)".into()));
            if let Err(e) = &v {
                eprintln!(
                    "slm: picture {id} ({}) could not be given a vector: {e}",
                    file.display()
                );
            }
            let _lease = self.lease(crate::lock::WRITE_WAIT)?;
            self.store()?
                .write(|w| w.picture_vector(id, &model, v.as_deref().ok()))?;
            done += 1;
        }
        Ok(done)
    }

    /// The score a wordless picture's picture channel must reach (settings, spec 0.30).
    pub fn media_floor(&self) -> f32 {
        self.settings.pictures.media_floor
    }

    /// Whether the picture channel is submitted for a recall in `profile`: pictures are on
    /// and the profile holds at least one.
    pub fn picture_channel_submitted(&self, profile: &str) -> bool {
        self.settings.pictures.enabled
            && self
                .reader()
                .and_then(|s| s.profile_pictures(profile))
                .is_ok_and(|n| n > 0)
    }

    /// The picture channel's inputs for `question` in `profile`, once the channel is
    /// submitted ([`Engine::picture_channel_submitted`]); never waits for a load.
    pub fn picture_query(&self, question: &str, profile: &str) -> Result<PictureQuery> {
        let dir = self.image_model_dir();
        let layout = match clip::Layout::find(&dir) {
            Ok(l) => l,
            Err(why) => {
                return Ok(PictureQuery::Unavailable(format!(
                    "{why}; wordless pictures are found by their note"
                )));
            }
        };
        if self.picture_models.questions == QuestionModel::Never {
            return Ok(PictureQuery::Warming(
                "the image–text model loads in the worker; this answer ran without it".into(),
            ));
        }
        let textual = {
            let mut st = self
                .picture_models
                .textual
                .lock()
                .map_err(|_| Error::Other("the picture model's lock was poisoned".into()))?;
            match &*st {
                Textual::Ready(t) => t.clone(),
                Textual::Failed(why) => return Ok(PictureQuery::Unavailable(why.clone())),
                Textual::Loading => {
                    return Ok(PictureQuery::Warming(
                        "the image–text model is loading".into(),
                    ));
                }
                Textual::NotStarted if self.picture_models.questions == QuestionModel::Here => {
                    match clip::Textual::load(&layout, &self.runtime()) {
                        Ok(t) => {
                            let t = Arc::new(t);
                            *st = Textual::Ready(t.clone());
                            t
                        }
                        Err(e) => {
                            let why = format!("the image–text model could not be loaded: {e}");
                            *st = Textual::Failed(why.clone());
                            return Ok(PictureQuery::Unavailable(why));
                        }
                    }
                }
                Textual::NotStarted => {
                    *st = Textual::Loading;
                    let slot = self.picture_models.textual.clone();
                    let runtime = self.runtime();
                    std::thread::spawn(move || {
                        let got = clip::Textual::load(&layout, &runtime);
                        if let Ok(mut st) = slot.lock() {
                            *st = match got {
                                Ok(t) => Textual::Ready(Arc::new(t)),
                                Err(e) => Textual::Failed(format!(
                                    "the image–text model could not be loaded: {e}"
                                )),
                            };
                        }
                    });
                    return Ok(PictureQuery::Warming(
                        "the image–text model started loading; this answer ran without it".into(),
                    ));
                }
            }
        };
        // The id, never the visual model: a recall does not load it (the background does).
        let model = match self
            .picture_models
            .model_id
            .get_or_init(|| clip::Layout::find(&dir).and_then(|l| l.model_id()))
        {
            Ok(m) => m.clone(),
            Err(why) => return Ok(PictureQuery::Unavailable(why.clone())),
        };
        let pictures = self.picture_vectors(profile, &model)?;
        if pictures.is_empty() {
            return Ok(PictureQuery::Warming(
                "no picture has a vector yet (the worker's background queue gives them one)".into(),
            ));
        }
        // Asked once, for at most QUERY_WAIT: a late answer is dropped with its thread.
        let (tx, rx) = crossbeam_channel::bounded(1);
        let q = question.to_string();
        std::thread::spawn(move || {
            let _ = tx.send(textual.embed(&q));
        });
        match rx.recv_timeout(QUERY_WAIT) {
            Ok(Ok(query)) => Ok(PictureQuery::Ready { query, pictures }),
            Ok(Err(e)) => Err(Error::Model(format!(
                "the image–text model could not read the question: {e}"
            ))),
            Err(_) => Ok(PictureQuery::Warming(format!(
                "the question's picture vector took longer than {} ms",
                QUERY_WAIT.as_millis()
            ))),
        }
    }

    /// The profile's picture vectors of `model`, read again only when they changed.
    fn picture_vectors(&self, profile: &str, model: &str) -> Result<PictureVectors> {
        let (n, sum) = self.reader()?.picture_vector_key(profile, model)?;
        let key = (profile.to_string(), model.to_string(), n, sum);
        let mut cache = self
            .picture_models
            .cache
            .lock()
            .map_err(|_| Error::Other("the picture vectors' lock was poisoned".into()))?;
        if let Some((k, v)) = &*cache
            && *k == key
        {
            return Ok(v.clone());
        }
        let v = Arc::new(self.reader()?.picture_vectors(model, profile)?);
        *cache = Some((key, v.clone()));
        Ok(v)
    }

    /// What doctor says of the picture channel: the model folder and whether it is usable.
    pub fn picture_channel_status(&self) -> serde_json::Value {
        let dir = self.image_model_dir();
        let model = if !self.settings.pictures.enabled {
            Err("pictures are off in settings (pictures.enabled)".to_string())
        } else {
            // A load that failed in this process says more than the files being there.
            clip::Layout::find(&dir).and_then(|_| match self.picture_models.visual.get() {
                Some(Err(why)) => Err(why.clone()),
                _ => Ok(()),
            })
        };
        serde_json::json!({
            "image_model_dir": dir.display().to_string(),
            "available": model.is_ok(),
            "why_not": model.err(),
            "media_floor": self.settings.pictures.media_floor,
        })
    }
}
