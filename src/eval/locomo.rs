//! Reading LoCoMo-format files (`locomo10.json`) and their audit corrections, tolerant of
//! the data's known quirks: malformed evidence ("D8:6; D9:17", "D"), evidence that resolves
//! to no turn, questions without evidence. Quirks are counted, never fatal.

use serde::Deserialize;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

#[derive(Debug, Clone)]
pub struct Turn {
    pub dia_id: String,
    pub speaker: String,
    pub text: String,
    pub session: usize,
    pub at: i64,
}

#[derive(Debug, Clone)]
pub struct Question {
    pub index: usize,
    pub question: String,
    pub category: u8,
    pub evidence: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Conversation {
    pub sample_id: String,
    pub index: usize,
    pub turns: Vec<Turn>,
    pub questions: Vec<Question>,
}

#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct Quirks {
    /// Evidence strings that were not one `D<session>:<turn>` id (split where possible).
    pub malformed_evidence: usize,
    /// Evidence ids naming no turn of the conversation.
    pub unresolved_evidence: usize,
    /// Questions with no usable evidence at all.
    pub no_evidence: usize,
    /// Session dates that could not be read (turns dated by the previous session).
    pub bad_dates: usize,
    /// Audit entries that match no loaded question (another conversation, or other text).
    pub audit_mismatch: usize,
}

/// Split one evidence string into turn ids: "D8:6; D9:17" → ["D8:6", "D9:17"].
pub fn split_evidence(raw: &str, quirks: &mut Quirks) -> Vec<String> {
    let parts: Vec<String> = raw
        .split(|c: char| c == ';' || c == ',' || c.is_whitespace())
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect();
    let valid: Vec<String> = parts.iter().filter(|p| is_dia_id(p)).cloned().collect();
    if parts.len() != 1 || valid.len() != 1 {
        quirks.malformed_evidence += 1;
    }
    valid
}

fn is_dia_id(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('D') else {
        return false;
    };
    let Some((a, b)) = rest.split_once(':') else {
        return false;
    };
    !a.is_empty()
        && !b.is_empty()
        && a.chars().all(|c| c.is_ascii_digit())
        && b.chars().all(|c| c.is_ascii_digit())
}

pub fn load(path: &Path, only: &[String], quirks: &mut Quirks) -> crate::Result<Vec<Conversation>> {
    let bytes = std::fs::read(path)
        .map_err(|e| crate::Error::io(format!("reading {}", path.display()), e))?;
    let root: Value = serde_json::from_slice(&bytes)
        .map_err(|e| crate::Error::Input(format!("{}: {e}", path.display())))?;
    let arr = root.as_array().ok_or_else(|| {
        crate::Error::Input(format!(
            "{}: expected a JSON array of conversations",
            path.display()
        ))
    })?;
    let now = chrono::Utc::now();
    let mut out = Vec::new();
    for (index, conv) in arr.iter().enumerate() {
        let sample_id = conv
            .get("sample_id")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        if !only.is_empty() && !only.contains(&sample_id) {
            continue;
        }
        let c = conv.get("conversation").cloned().unwrap_or(Value::Null);
        let mut turns = Vec::new();
        let mut last_at = 0i64;
        for n in 1..=200usize {
            let Some(session) = c.get(format!("session_{n}")).and_then(Value::as_array) else {
                if n > 60 { break } else { continue }
            };
            let date = c
                .get(format!("session_{n}_date_time"))
                .and_then(Value::as_str)
                .unwrap_or("");
            let at = match crate::timeparse::parse_point(date, now) {
                Ok(t) => t.timestamp_millis(),
                Err(_) => {
                    quirks.bad_dates += 1;
                    last_at
                }
            };
            last_at = at;
            for (i, t) in session.iter().enumerate() {
                let mut text = t
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                if let Some(cap) = t.get("blip_caption").and_then(Value::as_str) {
                    text.push_str(&format!(" [shares an image: {cap}]"));
                }
                if text.trim().is_empty() {
                    continue;
                }
                turns.push(Turn {
                    dia_id: t
                        .get("dia_id")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                    speaker: t
                        .get("speaker")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                    text,
                    session: n,
                    // Turns of one session share its date; a minute apart keeps their order.
                    at: at + i as i64 * 60_000,
                });
            }
        }
        let mut questions = Vec::new();
        for (qi, q) in conv
            .get("qa")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let evidence: Vec<String> = q
                .get("evidence")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .flat_map(|e| split_evidence(e, quirks))
                .collect();
            questions.push(Question {
                index: qi,
                question: q
                    .get("question")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                category: q.get("category").and_then(Value::as_u64).unwrap_or(0) as u8,
                evidence,
            });
        }
        out.push(Conversation {
            sample_id,
            index,
            turns,
            questions,
        });
    }
    Ok(out)
}

#[derive(Debug, Deserialize)]
struct AuditEntry {
    question_id: String,
    #[serde(default)]
    question: Option<String>,
    #[serde(default)]
    correct_evidence: Option<Vec<String>>,
}

/// Audit corrections: (conversation index, question index) → corrected evidence.
pub fn load_audit(
    path: &Path,
    convs: &[Conversation],
    quirks: &mut Quirks,
) -> crate::Result<HashMap<(usize, usize), Vec<String>>> {
    let bytes = std::fs::read(path)
        .map_err(|e| crate::Error::io(format!("reading {}", path.display()), e))?;
    let entries: Vec<AuditEntry> = serde_json::from_slice(&bytes)
        .map_err(|e| crate::Error::Input(format!("{}: {e}", path.display())))?;
    let mut out = HashMap::new();
    for e in entries {
        let Some(rest) = e.question_id.strip_prefix("locomo_") else {
            quirks.audit_mismatch += 1;
            continue;
        };
        let Some((ci, qi)) = rest.split_once("_qa") else {
            quirks.audit_mismatch += 1;
            continue;
        };
        let (Ok(ci), Ok(qi)) = (ci.parse::<usize>(), qi.parse::<usize>()) else {
            quirks.audit_mismatch += 1;
            continue;
        };
        let Some(ev) = e.correct_evidence else {
            continue;
        };
        let Some(conv) = convs.iter().find(|c| c.index == ci) else {
            quirks.audit_mismatch += 1;
            continue;
        };
        {
            match (conv.questions.get(qi), &e.question) {
                (Some(q), Some(text)) if q.question.trim() != text.trim() => {
                    quirks.audit_mismatch += 1;
                    continue;
                }
                (None, _) => {
                    quirks.audit_mismatch += 1;
                    continue;
                }
                _ => {}
            }
        }
        let mut tmp = Quirks::default();
        let ids: Vec<String> = ev
            .iter()
            .flat_map(|s| split_evidence(s, &mut tmp))
            .collect();
        out.insert((ci, qi), ids);
    }
    Ok(out)
}
