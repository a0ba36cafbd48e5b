//! `settings.json` in the data dir: the few switches a user may set once.
//!
//! Every field has a default, so a missing file, a missing field or an older file all
//! work. Unknown fields are kept out of the way (ignored), never an error, so a newer
//! slm's settings do not break an older one.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct Settings {
    pub retrieval: RetrievalSettings,
    pub model: ModelSettings,
    pub reranker: RerankerSettings,
    pub worker: WorkerSettings,
    pub answer_check: AnswerCheckSettings,
    pub pictures: PictureSettings,
}

/// The media floor the spec gives a wordless picture's picture-channel score (cosine of an
/// image–text model's two vectors).
pub const DEFAULT_MEDIA_FLOOR: f32 = 0.30;

/// `pictures` in settings.json: the picture channel (`media::clip`, `recall::channels`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct PictureSettings {
    /// `false` leaves the picture channel out of every recall (pictures are still saved and
    /// read, and found by their words).
    pub enabled: bool,
    /// A bring-your-own image–text model folder in the immich layout (`media::clip`);
    /// `SLM_IMAGE_MODEL_DIR` overrides it. Default: `<cache>/models/image-text`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image_model_dir: Option<PathBuf>,
    /// The score a wordless picture's picture channel must reach to stay (spec: 0.30).
    pub media_floor: f32,
}

impl Default for PictureSettings {
    fn default() -> Self {
        PictureSettings {
            enabled: true,
            image_model_dir: None,
            media_floor: DEFAULT_MEDIA_FLOOR,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct WorkerSettings {
    /// Questions answered at once (default: the machine's cores; see `worker::slots`).
    pub recall_slots: Option<usize>,
    /// Seconds without a request after which the worker exits (default 900).
    pub idle_timeout_s: Option<u64>,
    /// Seconds a question waits for a starting worker before answering cold (default 10).
    pub question_wait_s: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct RetrievalSettings {
    /// The support check (spec: "Does any memory support the question?"). `false` brings
    /// back the ungated behaviour, like `SLM_RECALL_NO_SUPPORT_GATE=1`.
    pub answer_support_gate: bool,
    /// Let shared memories join every recall without `--include-shared` (operator policy).
    pub include_shared: bool,
    /// Let global memories join every recall without `--include-global` (operator policy).
    pub include_global: bool,
}

impl Default for RetrievalSettings {
    fn default() -> Self {
        RetrievalSettings {
            answer_support_gate: true,
            include_shared: false,
            include_global: false,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ModelSettings {
    /// Which installed model to use, by its id (a folder under the cache dir's `models/`):
    /// `all-minilm-l6-v2-int8` (the default) or `embeddinggemma-300m-int8`.
    /// `SLM_MODEL_ID` overrides it.
    pub id: Option<String>,
    /// A user-supplied embedding model directory (model.onnx + tokenizer files, optional slm-model.json).
    pub dir: Option<PathBuf>,
    /// The ONNX Runtime shared library to load.
    pub runtime: Option<PathBuf>,
    /// Which encoder embeds questions: `fast` (the small query encoder setup installs, when
    /// it pairs with the memory model; the default) or `full` (the memory model itself).
    /// `SLM_QUERY_ENCODER` overrides it (`embed::query`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct RerankerSettings {
    /// A user-supplied ONNX cross-encoder directory (model.onnx + tokenizer files).
    pub dir: Option<PathBuf>,
}

/// How long one recall's local answer check may take, in milliseconds, unless settings say
/// otherwise. Measured with `slm bench worker --memories 27000` (EmbeddingGemma's judge: the
/// question and the top three memories' sentences embedded): the judge's own time p50 131 ms,
/// p90 185 ms with one caller; 500 leaves room for three callers sharing two cores.
pub const LOCAL_JUDGE_BUDGET_MS: u64 = 500;
/// The same for the hosted judge. Not measured (no endpoint is reachable from where slm is
/// built): 1.5 s is the time a hosted chat completion of a few hundred tokens usually takes.
pub const HOSTED_JUDGE_BUDGET_MS: u64 = 1500;

/// `answer_check` in settings.json: which judge looks at the top three results (see
/// `recall::answer_check`). Nothing leaves the machine unless `mode` is `hosted` *and*
/// `hosted.consent_at` records the consent given by `slm answer-check hosted`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct AnswerCheckSettings {
    /// `auto` (a local judge when one is installed, otherwise off; never hosted), `local`,
    /// `hosted` or `off`. Kept as text so an unknown value is a clear usage error at the
    /// point of use instead of a parse failure of the whole file.
    pub mode: String,
    /// The judge's time budget per recall; past it the status is `skipped`. Unset: the
    /// judge's own default ([`LOCAL_JUDGE_BUDGET_MS`], [`HOSTED_JUDGE_BUDGET_MS`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget_ms: Option<u64>,
    /// A reader (a cross-encoder directory: `model.onnx` and its four tokenizer files) that
    /// judges instead of the embedding model (`embed::reader`); `SLM_READER_DIR` overrides.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reader_dir: Option<std::path::PathBuf>,
    pub hosted: HostedJudgeSettings,
}

impl Default for AnswerCheckSettings {
    fn default() -> Self {
        AnswerCheckSettings {
            mode: "auto".into(),
            budget_ms: None,
            reader_dir: None,
            hosted: HostedJudgeSettings::default(),
        }
    }
}

/// The hosted judge the user chose, and the record of their consent. The key itself is
/// never stored: only the name of the environment variable it is read from.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq, Eq)]
#[serde(default)]
pub struct HostedJudgeSettings {
    /// An OpenAI-compatible base URL, e.g. `https://api.example.com/v1`; the judge posts to
    /// `{endpoint}/chat/completions`.
    pub endpoint: Option<String>,
    pub model: Option<String>,
    /// The environment variable holding the API key (read at each recall, never stored).
    pub key_env: Option<String>,
    /// When the user consented (RFC 3339). Without it nothing is sent.
    pub consent_at: Option<String>,
    /// What the user was told would leave the machine when they consented.
    pub consented_payload: Option<String>,
    /// The endpoint, model and key variable the consent was given for. Consent is void when
    /// the fields above no longer match what it covered (issue 38: a hand-edited endpoint
    /// must not inherit the consent given for another).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consented_to: Option<ConsentScope>,
    /// sha256 (hex) of what the consent covered: the endpoint, model and key variable, and
    /// the description of what is sent (`recall::answer_check::hosted::consent_digest`). The
    /// check compares it with the settings as they are, so editing one field, or the record
    /// above, voids the consent instead of stretching it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consent_digest: Option<String>,
}

/// What one consent to the hosted judge covered, as `slm answer-check hosted` recorded it.
#[derive(Debug, Clone, Serialize, Deserialize, Default, PartialEq, Eq)]
#[serde(default)]
pub struct ConsentScope {
    /// The endpoint as checked (no trailing slash).
    pub endpoint: String,
    pub model: String,
    /// The name of the key's variable (never the key).
    pub key_env: String,
}

impl HostedJudgeSettings {
    /// Forget the consent and what it covered (the endpoint, model and variable name stay,
    /// so consenting again is one command). True when there was a consent to forget.
    pub fn revoke_consent(&mut self) -> bool {
        let had = self.consent_at.take().is_some();
        self.consented_payload = None;
        self.consented_to = None;
        self.consent_digest = None;
        had
    }
}

impl Settings {
    /// Read settings; a broken file is an input error naming the file, not a silent default.
    pub fn load(path: &std::path::Path) -> crate::Result<Self> {
        match std::fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| crate::Error::Input(format!("{}: {e}", path.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Settings::default()),
            Err(e) => Err(crate::Error::io(format!("reading {}", path.display()), e)),
        }
    }

    /// Replace the `answer_check` section of the settings file, atomically (a temporary
    /// file, then a rename), so a crash never leaves half a file. Everything else in the
    /// file is kept as written (fields this slm does not know included; defaults are not
    /// written out).
    pub fn save_answer_check(
        path: &std::path::Path,
        answer_check: &AnswerCheckSettings,
    ) -> crate::Result<()> {
        let mut doc = match std::fs::read(path) {
            Ok(bytes) => serde_json::from_slice::<serde_json::Value>(&bytes)
                .map_err(|e| crate::Error::Input(format!("{}: {e}", path.display())))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => serde_json::json!({}),
            Err(e) => return Err(crate::Error::io(format!("reading {}", path.display()), e)),
        };
        let section = serde_json::to_value(answer_check)
            .map_err(|e| crate::Error::Other(format!("serialising settings: {e}")))?;
        let Some(obj) = doc.as_object_mut() else {
            return Err(crate::Error::Input(format!(
                "{}: expected a JSON object",
                path.display()
            )));
        };
        obj.insert("answer_check".into(), section);
        let mut text = serde_json::to_string_pretty(&doc)
            .map_err(|e| crate::Error::Other(format!("serialising settings: {e}")))?;
        text.push('\n');
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| crate::Error::io(format!("creating {}", dir.display()), e))?;
        }
        crate::paths::write_atomic(path, text.as_bytes())
            .map_err(|e| crate::Error::io(format!("writing {}", path.display()), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saving_the_answer_check_keeps_everything_else() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(
            &path,
            r#"{"retrieval": {"include_shared": true}, "from_a_newer_slm": {"x": 1}}"#,
        )
        .unwrap();
        let ac = AnswerCheckSettings {
            mode: "off".into(),
            ..Default::default()
        };
        Settings::save_answer_check(&path, &ac).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(v["from_a_newer_slm"]["x"], 1);
        assert_eq!(v["retrieval"], serde_json::json!({"include_shared": true}));
        assert!(v.get("model").is_none(), "defaults are not written out");
        assert_eq!(v["answer_check"]["mode"], "off");
        let back = Settings::load(&path).unwrap();
        assert!(back.retrieval.include_shared && back.retrieval.answer_support_gate);
        assert_eq!(back.answer_check.budget_ms, None);
        assert!(
            v["answer_check"].get("budget_ms").is_none(),
            "an unset budget is not written out: the judge's default applies"
        );
    }
}

/// The settings file as it is now, read again only when it changed: a long-lived worker
/// must follow `slm answer-check off` the moment it is written (consent), but reading and
/// parsing the file on every recall was waste. A `stat` tells: every save replaces the file
/// by a rename (a new inode), and an edit in place changes its length or modification time.
#[derive(Debug)]
pub struct Live {
    path: std::path::PathBuf,
    last: std::sync::Mutex<Option<(Stamp, std::sync::Arc<Settings>)>>,
}

/// What says the settings file changed: inode, length and modification time (`None` when
/// there is no file, so the defaults).
type Stamp = Option<(u64, u64, Option<std::time::SystemTime>)>;

fn stamp(path: &std::path::Path) -> crate::Result<Stamp> {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(path) {
        Ok(m) => Ok(Some((m.ino(), m.len(), m.modified().ok()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(crate::Error::io(format!("reading {}", path.display()), e)),
    }
}

impl Live {
    pub fn new(path: std::path::PathBuf) -> Live {
        Live {
            path,
            last: std::sync::Mutex::new(None),
        }
    }

    /// The settings now: the last read when the file is unchanged, else read again (a
    /// broken file is the same input error as [`Settings::load`]).
    pub fn current(&self) -> crate::Result<std::sync::Arc<Settings>> {
        let now = stamp(&self.path)?;
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((s, settings)) = last.as_ref() {
            if *s == now {
                return Ok(settings.clone());
            }
        }
        let settings = std::sync::Arc::new(Settings::load(&self.path)?);
        *last = Some((now, settings.clone()));
        Ok(settings)
    }
}
