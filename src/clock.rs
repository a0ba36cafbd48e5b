//! The one source of "now" for slm.
//!
//! Tests, benchmarks and evaluations pin the clock with `SLM_NOW` (RFC 3339) so that
//! "last Friday" and "the newest memories" mean the same thing on every run.

use chrono::{DateTime, Utc};

/// Environment variable that pins the clock (RFC 3339, e.g. `2023-05-10T12:00:00Z`).
pub const NOW_ENV: &str = "SLM_NOW";

#[derive(Debug, Clone, Copy)]
pub enum Clock {
    System,
    Pinned(DateTime<Utc>),
}

impl Clock {
    /// The clock the environment asks for; an unparseable `SLM_NOW` is an error, not ignored.
    pub fn from_env() -> crate::Result<Self> {
        match std::env::var(NOW_ENV) {
            Ok(v) if !v.trim().is_empty() => DateTime::parse_from_rfc3339(v.trim())
                .map(|t| Clock::Pinned(t.with_timezone(&Utc)))
                .map_err(|e| {
                    crate::Error::Usage(format!("{NOW_ENV}={v:?} is not an RFC 3339 time: {e}"))
                }),
            _ => Ok(Clock::System),
        }
    }

    pub fn now(&self) -> DateTime<Utc> {
        match self {
            Clock::System => Utc::now(),
            Clock::Pinned(t) => *t,
        }
    }

    pub fn now_ms(&self) -> i64 {
        self.now().timestamp_millis()
    }
}

/// Milliseconds since the epoch to a UTC time (saturating on nonsense values).
pub fn from_ms(ms: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(ms).unwrap_or(DateTime::<Utc>::MIN_UTC)
}

/// RFC 3339 rendering used in JSON and listings.
pub fn fmt_ms(ms: i64) -> String {
    from_ms(ms).to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}
