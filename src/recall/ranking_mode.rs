//! Stage 7: the ranking mode. Learned adaptive ranking is off unless `SLM_RANKING` is
//! `v1`, `v2` or `v2-ensemble`, and none of those is built in this version: they give a
//! clear note and the normal order. An unknown value is a usage error, never ignored.

use serde::Serialize;

pub const RANKING_ENV: &str = "SLM_RANKING";

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RankingMode {
    /// "off", or the requested mode.
    pub requested: String,
    pub applied: bool,
    pub note: Option<String>,
}

pub fn resolve() -> crate::Result<RankingMode> {
    let v = std::env::var(RANKING_ENV).unwrap_or_default();
    match v.trim() {
        "" | "off" => Ok(RankingMode {
            requested: "off".into(),
            applied: false,
            note: None,
        }),
        m @ ("v1" | "v2" | "v2-ensemble") => Ok(RankingMode {
            requested: m.into(),
            applied: false,
            note: Some(format!(
                "{RANKING_ENV}={m}: learned ranking is not available in this version; the order comes from fusion and the reranker"
            )),
        }),
        other => Err(crate::Error::Usage(format!(
            "{RANKING_ENV}={other:?}: expected off, v1, v2 or v2-ensemble"
        ))),
    }
}
