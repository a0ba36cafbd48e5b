//! Saved views (migration 10): a named question with its filters, per profile, that the
//! dashboard lists and re-runs as a question caller (`dashboard`).

use super::{Store, Writer};
use crate::Result;
use rusqlite::params;
use serde::{Deserialize, Serialize};

/// The filters a view re-runs its question with (the dashboard search's own).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ViewFilters {
    /// Show closest matches (`--show-weak`).
    #[serde(default)]
    pub show_weak: bool,
    #[serde(default)]
    pub kind: Option<String>,
    /// A time window as recall takes it (`7d`, `2w`, …).
    #[serde(default)]
    pub window: Option<String>,
}

/// One saved view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedView {
    pub profile: String,
    pub name: String,
    pub query: String,
    pub filters: ViewFilters,
    pub created_at: i64,
}

impl Store {
    /// A profile's views, by name.
    pub fn views(&self, profile: &str) -> Result<Vec<SavedView>> {
        let mut st = self.conn.prepare_cached(
            "SELECT profile, name, query, filters, created_at FROM views WHERE profile = ?1 ORDER BY name",
        )?;
        let rows = st.query_map([profile], |r| {
            let filters: String = r.get(3)?;
            Ok(SavedView {
                profile: r.get(0)?,
                name: r.get(1)?,
                query: r.get(2)?,
                filters: serde_json::from_str(&filters).unwrap_or_default(),
                created_at: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }
}

impl Writer<'_> {
    /// Save a view; one of the same name in the same profile is replaced.
    pub fn put_view(&self, v: &SavedView) -> Result<()> {
        let filters =
            serde_json::to_string(&v.filters).map_err(|e| crate::Error::Other(e.to_string()))?;
        self.tx
            .prepare_cached(
                "INSERT OR REPLACE INTO views(profile, name, query, filters, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![v.profile, v.name, v.query, filters, v.created_at])?;
        Ok(())
    }

    /// Remove a view; true when there was one.
    pub fn delete_view(&self, profile: &str, name: &str) -> Result<bool> {
        Ok(self
            .tx
            .prepare_cached("DELETE FROM views WHERE profile = ?1 AND name = ?2")?
            .execute(params![profile, name])?
            > 0)
    }
}
