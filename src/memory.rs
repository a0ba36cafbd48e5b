//! What a memory is: the row slm stores, and the small closed vocabularies around it.

use serde::{Deserialize, Serialize};

/// Largest memory text slm accepts, in bytes. A memory is a note, not a document:
/// 32 KiB is ~6,000 words, far above any LoCoMo turn (< 1 KiB) or a long decision record,
/// and it keeps one embedding meaningful (the model reads only its first 256 tokens anyway;
/// BM25 sees all of it).
pub const MAX_TEXT_BYTES: usize = 32 * 1024;

macro_rules! vocab {
    ($(#[$m:meta])* $name:ident { $($var:ident = $s:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum $name { $($var),+ }
        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$var),+];
            pub fn as_str(&self) -> &'static str { match self { $($name::$var => $s),+ } }
            pub fn parse(s: &str) -> Option<Self> {
                match s.trim().to_ascii_lowercase().as_str() { $($s => Some($name::$var),)+ _ => None }
            }
            pub fn names() -> String {
                [$($s),+].join(", ")
            }
            /// An optional value given as `flag` (a command-line flag, or the agent argument
            /// of the same meaning): absent is `None`, an unknown name a usage error.
            pub fn parse_flag(flag: &str, v: Option<&str>) -> crate::Result<Option<Self>> {
                v.map(|v| {
                    Self::parse(v).ok_or_else(|| {
                        crate::Error::Usage(format!("{flag} {v:?}: expected one of {}", Self::names()))
                    })
                })
                .transpose()
            }
        }
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { f.write_str(self.as_str()) }
        }
    };
}

vocab!(
    /// What sort of thing was saved. `prompt` is a captured request typed to an agent;
    /// `bookkeeping` is hook noise (also set automatically, see `text::bookkeeping_reason`).
    Kind { Note = "note", Decision = "decision", Fact = "fact", Prompt = "prompt", Event = "event", Bookkeeping = "bookkeeping" }
);
vocab!(
    /// Who saved it.
    Source { User = "user", Agent = "agent", Hook = "hook", CapturedPrompt = "captured_prompt", Import = "import" }
);
vocab!(
    /// Who may read it: `personal` stays in its profile; `shared` and `global` join a
    /// recall only when asked for (or by an operator policy).
    Scope { Personal = "personal", Shared = "shared", Global = "global" }
);

/// A stored memory, as the store returns it. Times are Unix milliseconds (UTC).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Memory {
    pub id: i64,
    pub text: String,
    pub kind: Kind,
    pub source: Source,
    pub profile: String,
    pub scope: Scope,
    pub session_id: Option<String>,
    pub speaker: Option<String>,
    pub tags: Vec<String>,
    /// System time of the insert.
    pub created_at: i64,
    /// When the thing it describes happened (defaults to `created_at`).
    pub event_at: i64,
    pub valid_from: Option<i64>,
    pub valid_until: Option<i64>,
    /// System time slm learned it (what `--known-as-of` compares with).
    pub known_at: i64,
    pub updated_at: i64,
    pub pinned: bool,
    /// Why this row was recognised as bookkeeping, when it was.
    pub bookkeeping: Option<String>,
    /// The memory that corrected this one.
    pub superseded_by: Option<i64>,
    pub confidence: f64,
    pub trust: f64,
    pub idempotency_key: Option<String>,
    /// How close this memory sits to a typical memory (mean cosine to a sample); see `baseline`.
    pub baseline_sim: Option<f32>,
    pub embedding_model: Option<String>,
    /// Where it came from when it came from a file: `path:line` (a Markdown import).
    #[serde(default)]
    pub origin: Option<String>,
    /// How many times this text was saved: 1, and one more for each save of the same text
    /// that was acknowledged as this memory instead of being stored again.
    #[serde(default = "one")]
    pub seen_count: i64,
    /// When the same text was last saved again (None: never).
    #[serde(default)]
    pub last_seen_at: Option<i64>,
    /// The project it was written in (`project`); None: visible from every project.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
}

fn one() -> i64 {
    1
}

/// A memory to be written. Everything but the text has a default (also when read back
/// from JSON, as a spooled capture is).
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct NewMemory {
    pub text: String,
    pub kind: Option<Kind>,
    pub source: Option<Source>,
    pub profile: Option<String>,
    pub scope: Option<Scope>,
    pub session_id: Option<String>,
    pub speaker: Option<String>,
    pub tags: Vec<String>,
    pub event_at: Option<i64>,
    pub valid_from: Option<i64>,
    pub valid_until: Option<i64>,
    pub known_at: Option<i64>,
    /// System time of the insert (default: now). An import of an export keeps the original.
    #[serde(default)]
    pub created_at: Option<i64>,
    pub pinned: bool,
    pub idempotency_key: Option<String>,
    /// The memory this one corrects (it will be marked superseded).
    pub supersedes: Option<i64>,
    /// Where it came from when it came from a file (`path:line`).
    #[serde(default)]
    pub origin: Option<String>,
    /// Store the text as given: the well-known shapes of secrets in it are not redacted
    /// (`--allow-secrets`; see `text::redact_secrets`).
    #[serde(default)]
    pub allow_secrets: bool,
    /// The project it is written in (`project`); None: visible from every project.
    #[serde(default)]
    pub project: Option<String>,
    /// The picture this memory is about (`slm remember --image`), its file already kept
    /// (`media::save`).
    #[serde(default)]
    pub picture: Option<PictureRef>,
}

/// A picture that passed the checks, as its memory refers to it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PictureRef {
    pub sha256: String,
    /// png, jpg, webp or gif.
    pub ext: String,
    /// The file's name when it was saved.
    pub name: String,
    pub bytes: u64,
    pub width: u32,
    pub height: u32,
    /// The user's own words about it.
    #[serde(default)]
    pub note: Option<String>,
    /// A PDF's page (from 1); None for a picture.
    #[serde(default)]
    pub page: Option<u32>,
    /// A PDF page's text is already in the memory: true when the page had a text layer, false
    /// when it had none (wordless). None for a picture, which waits for OCR.
    #[serde(default)]
    pub text_layer: Option<bool>,
}

/// A change to an existing memory; `None` leaves a field as it is.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct MemoryPatch {
    pub text: Option<String>,
    pub kind: Option<Kind>,
    pub tags: Option<Vec<String>>,
    pub pinned: Option<bool>,
    pub scope: Option<Scope>,
    pub event_at: Option<i64>,
    pub valid_from: Option<Option<i64>>,
    pub valid_until: Option<Option<i64>>,
    pub superseded_by: Option<Option<i64>>,
}

/// Check a memory text before anything is written.
pub fn validate_text(text: &str) -> crate::Result<()> {
    if text.trim().is_empty() {
        return Err(crate::Error::Input(
            "the memory text is empty; nothing was stored".into(),
        ));
    }
    if text.len() > MAX_TEXT_BYTES {
        return Err(crate::Error::Input(format!(
            "the memory text is {} bytes; the limit is {} bytes (MAX_TEXT_BYTES); nothing was stored",
            text.len(),
            MAX_TEXT_BYTES
        )));
    }
    Ok(())
}

/// A text cut to [`MAX_TEXT_BYTES`] at a character boundary: what a hook or a history import
/// keeps of a longer prompt or reply (they must not fail on what someone typed).
pub fn clip_text(s: &str) -> String {
    if s.len() <= MAX_TEXT_BYTES {
        return s.to_string();
    }
    let mut end = MAX_TEXT_BYTES;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}

/// The longest profile name accepted (a name, not a text).
pub const MAX_PROFILE_BYTES: usize = 128;

/// A profile name as given on the command line, in an import line or by an agent. Empty is
/// refused rather than read as a profile named "" (which would switch profiles silently);
/// an empty `SLM_PROFILE` is treated as unset before parsing (see `cli::run`).
pub fn parse_profile(s: &str) -> Result<String, String> {
    let t = s.trim();
    if t.is_empty() {
        return Err("a profile name cannot be empty (leave it out for the default profile)".into());
    }
    if t.len() > MAX_PROFILE_BYTES || t.chars().any(char::is_control) {
        return Err(format!(
            "a profile name is at most {MAX_PROFILE_BYTES} bytes without control characters"
        ));
    }
    Ok(t.to_string())
}
