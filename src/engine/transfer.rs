//! The engine's side of an import: correction links made by key after it, and the per-file
//! state a notes import compares itself with. (Export reads through `reader`, see
//! `transfer::export::page_of`.)
//! The writes follow the engine's write path (lease → SQLite commit → indexes catch up).

use super::Engine;
use crate::Result;
use crate::lock::WRITE_WAIT;
use serde::{Deserialize, Serialize};

/// "The memory stored under `new_key` corrects the one under `old_ref`", within a profile.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct KeyLink {
    pub profile: String,
    pub new_key: String,
    /// A verbatim key, or an import `id` (looked up as `id:<ref>` when no key matches).
    pub old_ref: String,
}

/// What linking by key did.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct LinkReport {
    pub linked: usize,
    pub already: usize,
    /// Links whose ends are not in the profile (a memory left out of the export, say).
    pub unresolved: Vec<KeyLink>,
}

impl Engine {
    /// Every (key, id) of a profile under a key prefix.
    pub fn keys_with_prefix(&self, profile: &str, prefix: &str) -> Result<Vec<(String, i64)>> {
        self.store()?.keys_with_prefix(profile, prefix)
    }

    /// Make the correction links an import named by key, in one transaction.
    pub fn supersede_by_keys(&self, links: &[KeyLink]) -> Result<LinkReport> {
        self.writable()?;
        let now = self.clock.now_ms();
        let _lease = self.lease(WRITE_WAIT)?;
        let report = self.store()?.write(|w| {
            let mut r = LinkReport::default();
            for l in links {
                let find = |k: &str| -> Result<Option<i64>> {
                    match w.id_for_key(&l.profile, k)? {
                        Some(id) => Ok(Some(id)),
                        None => w.id_for_key(&l.profile, &format!("id:{k}")),
                    }
                };
                match (find(&l.new_key)?, find(&l.old_ref)?) {
                    (Some(new), Some(old)) if new != old => {
                        if w.supersede_once(old, new, now)? {
                            r.linked += 1;
                        } else {
                            r.already += 1;
                        }
                    }
                    _ => r.unresolved.push(l.clone()),
                }
            }
            Ok(r)
        })?;
        self.after_commit(
            || self.apply_changes(),
            |e| format!("linked, but updating the indexes failed ({e})"),
        );
        Ok(report)
    }

    /// Set where memories came from (paragraphs of a re-imported file that moved).
    pub fn set_origins(&self, rows: &[(i64, String)]) -> Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        self.writable()?;
        let _lease = self.lease(WRITE_WAIT)?;
        self.store()?.write(|w| {
            for (id, o) in rows {
                w.set_origin(*id, Some(o))?;
            }
            Ok(())
        })?;
        Ok(())
    }

    /// The memories of a list of ids that exist, with their origin and whether corrected.
    pub fn origins(&self, ids: &[i64]) -> Result<Vec<(i64, Option<String>, bool)>> {
        let store = self.store()?;
        let mut out = Vec::with_capacity(ids.len());
        for &id in ids {
            if let Some(m) = store.get(id)? {
                out.push((id, m.origin, m.superseded_by.is_some()));
            }
        }
        Ok(out)
    }
}
