//! The typed arguments of each agent call (MCP tools, `GET /recall`).
//!
//! Every tool's input schema says `additionalProperties: false`, so each struct denies
//! unknown fields: a misspelt argument is an error naming it, never silently ignored. MCP
//! sends JSON types and HTTP sends every value as a string, so numbers and flags accept
//! either ([`Int`], [`Num`], [`Flag`]). Every field is optional here; required ones are
//! checked by the caller, so a type error can always be traced to the argument that has it.

use crate::{Error, Result};
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer};
use serde_json::{Value, json};

/// The most ids one `fetch` takes: each is one lookup through the worker (a few ms), so
/// 100 answer within about a second, and an agent never needs more than a page of them.
pub const MAX_FETCH_IDS: usize = 100;

/// A whole number, as a JSON integer or a string of digits.
#[derive(Debug, Clone, Copy)]
pub struct Int(pub i64);

/// A number, as a JSON number or a string.
#[derive(Debug, Clone, Copy)]
pub struct Num(pub f64);

/// true or false, as a JSON boolean or "true"/"false"/"1"/"0".
#[derive(Debug, Clone, Copy)]
pub struct Flag(pub bool);

impl<'de> Deserialize<'de> for Int {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let n = match &v {
            Value::Number(n) => n.as_i64(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        };
        n.map(Int)
            .ok_or_else(|| D::Error::custom(format!("expected a whole number, got {v}")))
    }
}

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let n = match &v {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        };
        n.map(Num)
            .ok_or_else(|| D::Error::custom(format!("expected a number, got {v}")))
    }
}

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        match &v {
            Value::Bool(b) => Ok(Flag(*b)),
            Value::String(s) if s == "true" || s == "1" => Ok(Flag(true)),
            Value::String(s) if s == "false" || s == "0" => Ok(Flag(false)),
            _ => Err(D::Error::custom(format!("expected true or false, got {v}"))),
        }
    }
}

/// `recall` and `search` (search takes no `include_related`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecallParams {
    pub query: Option<String>,
    pub include_related: Option<Flag>,
    pub show_weak: Option<Flag>,
    pub depth: Option<Int>,
    pub max_tokens: Option<Int>,
    pub budget_s: Option<Num>,
    pub limit: Option<Int>,
    pub window: Option<String>,
    pub as_of: Option<String>,
    pub known_as_of: Option<String>,
    pub valid_at: Option<String>,
    pub include_shared: Option<Flag>,
    pub include_global: Option<Flag>,
    pub kind: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpandParams {
    pub fact_id: Option<Int>,
    pub memory_id: Option<Int>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FetchParams {
    pub ids: Option<Vec<Int>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeedbackParams {
    pub recall_id: Option<String>,
    pub memory_id: Option<Int>,
    pub helpful: Option<Flag>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RememberParams {
    pub content: Option<String>,
    pub kind: Option<String>,
    pub tags: Option<Vec<String>>,
    pub session_id: Option<String>,
    pub scope: Option<String>,
    pub idempotency_key: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionInitParams {
    pub mode: Option<String>,
    pub max_tokens: Option<Int>,
    pub include_shared: Option<Flag>,
    pub include_global: Option<Flag>,
}

/// `args` (a JSON object, or null for none) as the tool's parameter struct. Unknown
/// arguments and wrongly typed values are usage errors that name the argument.
pub fn parse<P: DeserializeOwned>(tool: &str, args: &Value) -> Result<P> {
    let args = match args {
        Value::Null => json!({}),
        Value::Object(_) => args.clone(),
        _ => {
            return Err(Error::Usage(format!(
                "{tool}: arguments must be a JSON object"
            )));
        }
    };
    serde_json::from_value::<P>(args.clone()).map_err(|e| {
        // serde says what is wrong, not where: try each argument alone to name it.
        let culprit = args.as_object().and_then(|o| {
            o.iter()
                .find(|(k, v)| serde_json::from_value::<P>(json!({ k.as_str(): v })).is_err())
                .map(|(k, _)| k.clone())
        });
        let msg = e.to_string();
        match culprit {
            Some(k) if !msg.starts_with("unknown field") => {
                Error::Usage(format!("{tool}: {k}: {msg}"))
            }
            _ => Error::Usage(format!("{tool}: {msg}")),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_and_mistyped_arguments_are_named() {
        let e = parse::<RecallParams>("recall", &json!({"query": "x", "limt": 3}))
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown field `limt`"), "{e}");
        let e = parse::<RecallParams>("recall", &json!({"query": "x", "depth": "deep"}))
            .unwrap_err()
            .to_string();
        assert!(e.contains("depth") && e.contains("whole number"), "{e}");
        let p = parse::<RecallParams>(
            "recall",
            &json!({"query": "x", "depth": "0", "show_weak": "1"}),
        )
        .unwrap();
        assert_eq!(p.depth.map(|d| d.0), Some(0));
        assert!(p.show_weak.is_some_and(|f| f.0));
        assert!(parse::<FetchParams>("fetch", &json!([1])).is_err());
        assert!(
            parse::<FetchParams>("fetch", &Value::Null)
                .unwrap()
                .ids
                .is_none()
        );
    }
}
