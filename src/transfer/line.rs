//! One memory as one JSON object: the line format of `slm import` and `slm export`.
//!
//! Export writes every field a memory has that is not derived (embeddings, baselines,
//! entities, the bookkeeping reason and `updated_at` are recomputed on import), so
//! `slm export | slm import -` into an empty store gives the same memories. Times are Unix
//! milliseconds on export; import also takes date strings. Keys:
//!
//! * `id` — your own id for the memory; stored as the idempotency key `id:<id>`.
//! * `key` — an idempotency key verbatim (what export writes: the stored key, or
//!   `slm:<store id>:<memory id>` for a memory saved without one, so a second import of the
//!   same export adds nothing).
//! * neither — the line's own content is the key (re-running an import resumes).
//!
//! `supersedes` names, by key, the memories this one corrects (one string or a list); each
//! is looked up as a verbatim key, then as an `id`. Links are applied after every line is
//! in, so a line may name one that comes later.

use crate::memory::{self, Kind, Memory, NewMemory, Scope, Source};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One JSON Lines record. Unknown fields are an error, so a typo is not silently dropped.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Line {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default, alias = "session", skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speaker: Option<String>,
    #[serde(default, alias = "pin")]
    pub pinned: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Event time: a date/time string or Unix milliseconds.
    #[serde(default, alias = "at", skip_serializing_if = "Option::is_none")]
    pub event_at: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_from: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_until: Option<Value>,
    /// When slm stored it (system time); default: the import's now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<Value>,
    /// When slm learned it (what `--known-as-of` compares with); default: the import's now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known_at: Option<Value>,
    /// Where it came from, when it came from a file (`path:line`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    /// Your id for this memory; importing it again stores nothing new.
    #[serde(
        default,
        alias = "idempotency_key",
        skip_serializing_if = "Option::is_none"
    )]
    pub id: Option<Value>,
    /// An idempotency key, verbatim (export writes this).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// Keys of the memories this one corrects.
    #[serde(
        default,
        deserialize_with = "one_or_many",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub supersedes: Vec<String>,
    /// The project it was written in (none: visible from every project).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
}

fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
        Null(()),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(s) => vec![s],
        OneOrMany::Many(v) => v,
        OneOrMany::Null(()) => Vec::new(),
    })
}

/// A parsed line: the memory to write and the keys of the memories it corrects.
#[derive(Debug, Clone)]
pub struct Parsed {
    pub memory: NewMemory,
    pub supersedes: Vec<String>,
}

/// The key a memory saved without one is exported under: unique per store and memory.
pub fn minted_key(store_id: &str, memory_id: i64) -> String {
    format!("slm:{store_id}:{memory_id}")
}

impl Line {
    /// The line export writes for a stored memory, given its key and those it corrects.
    pub fn from_memory(m: &Memory, key: String, supersedes: Vec<String>) -> Line {
        Line {
            text: m.text.clone(),
            kind: Some(m.kind.as_str().into()),
            tags: m.tags.clone(),
            session_id: m.session_id.clone(),
            speaker: m.speaker.clone(),
            pinned: m.pinned,
            profile: Some(m.profile.clone()),
            scope: Some(m.scope.as_str().into()),
            source: Some(m.source.as_str().into()),
            event_at: Some(m.event_at.into()),
            valid_from: m.valid_from.map(Value::from),
            valid_until: m.valid_until.map(Value::from),
            created_at: Some(m.created_at.into()),
            known_at: Some(m.known_at.into()),
            origin: m.origin.clone(),
            id: None,
            key: Some(key),
            supersedes,
            project: m.project.clone(),
        }
    }

    /// Read one raw line (`raw` is its text, used as the key when it names none).
    pub fn parse(
        raw: &str,
        default_profile: &str,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<Parsed, String> {
        let l: Line = serde_json::from_str(raw).map_err(|e| e.to_string())?;
        memory::validate_text(&l.text).map_err(|e| e.to_string())?;
        let kind = vocab(&l.kind, "kind", Kind::parse, Kind::names)?;
        let scope = vocab(&l.scope, "scope", Scope::parse, Scope::names)?;
        let source = vocab(&l.source, "source", Source::parse, Source::names)?;
        // Without an id, the line itself is the key: re-running an interrupted import resumes
        // where it stopped instead of storing the first half twice.
        let key = match (&l.id, &l.key) {
            (Some(_), Some(_)) => return Err("give either id or key, not both".into()),
            (_, Some(k)) if k.trim().is_empty() => return Err("key: empty".into()),
            (_, Some(k)) => k.clone(),
            (Some(Value::String(s)), None) => format!("id:{s}"),
            (Some(Value::Number(n)), None) => format!("id:{n}"),
            (Some(_), None) => return Err("id: expected a string or a number".into()),
            (None, None) => format!("line:{:016x}", fnv64(raw.trim())),
        };
        if l.supersedes.iter().any(|s| s.trim().is_empty()) {
            return Err("supersedes: an empty key".into());
        }
        let memory = NewMemory {
            text: l.text,
            kind,
            source: Some(source.unwrap_or(Source::Import)),
            profile: Some(match l.profile {
                Some(p) => memory::parse_profile(&p).map_err(|e| format!("profile: {e}"))?,
                None => default_profile.to_string(),
            }),
            scope,
            session_id: l.session_id,
            speaker: l.speaker,
            tags: l.tags,
            event_at: json_time(&l.event_at, "event_at", now)?,
            valid_from: json_time(&l.valid_from, "valid_from", now)?,
            valid_until: json_time(&l.valid_until, "valid_until", now)?,
            known_at: json_time(&l.known_at, "known_at", now)?,
            created_at: json_time(&l.created_at, "created_at", now)?,
            pinned: l.pinned,
            idempotency_key: Some(key),
            supersedes: None,
            origin: l.origin,
            allow_secrets: false,
            project: l
                .project
                .map(|p| crate::project::parse_name(&p).map_err(|e| format!("project: {e}")))
                .transpose()?,
            picture: None,
        };
        Ok(Parsed {
            memory,
            supersedes: l.supersedes,
        })
    }
}

fn vocab<T>(
    v: &Option<String>,
    field: &str,
    parse: fn(&str) -> Option<T>,
    names: fn() -> String,
) -> Result<Option<T>, String> {
    v.as_deref()
        .map(|k| parse(k).ok_or_else(|| format!("{field} {k:?}: expected one of {}", names())))
        .transpose()
}

fn json_time(
    v: &Option<Value>,
    field: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Option<i64>, String> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_i64()
            .map(Some)
            .ok_or_else(|| format!("{field}: not an integer")),
        Some(Value::String(s)) => crate::timeparse::parse_point(s, now)
            .map(|t| Some(t.timestamp_millis()))
            .map_err(|e| format!("{field}: {e}")),
        Some(_) => Err(format!(
            "{field}: expected a date string or Unix milliseconds"
        )),
    }
}

/// A stable 64-bit FNV-1a hash (std's hasher may change between Rust releases).
pub fn fnv64(s: &str) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in s.as_bytes() {
        h ^= *b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> chrono::DateTime<chrono::Utc> {
        chrono::DateTime::from_timestamp_millis(1_683_720_000_000).unwrap()
    }

    #[test]
    fn an_exported_line_parses_back_to_the_same_memory() {
        let l = Line {
            text: "We chose Postgres".into(),
            kind: Some("decision".into()),
            tags: vec!["db".into()],
            profile: Some("work".into()),
            event_at: Some(5.into()),
            created_at: Some(7.into()),
            known_at: Some(8.into()),
            key: Some("id:x".into()),
            supersedes: vec!["id:y".into()],
            ..Default::default()
        };
        let raw = serde_json::to_string(&l).unwrap();
        let p = Line::parse(&raw, "default", now()).unwrap();
        assert_eq!(p.memory.idempotency_key.as_deref(), Some("id:x"));
        assert_eq!(p.memory.profile.as_deref(), Some("work"));
        assert_eq!(
            (p.memory.event_at, p.memory.created_at, p.memory.known_at),
            (Some(5), Some(7), Some(8))
        );
        assert_eq!(p.supersedes, vec!["id:y".to_string()]);
    }

    #[test]
    fn id_and_key_together_are_refused_and_supersedes_takes_one_string() {
        assert!(Line::parse(r#"{"text":"a","id":"1","key":"k"}"#, "d", now()).is_err());
        let p = Line::parse(r#"{"text":"a","supersedes":"k"}"#, "d", now()).unwrap();
        assert_eq!(p.supersedes, vec!["k".to_string()]);
        assert!(Line::parse(r#"{"text":"a","bogus":1}"#, "d", now()).is_err());
    }
}
