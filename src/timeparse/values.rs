//! Reading time values given on the command line or in imported data: `--at`,
//! `--as-of`, `--valid-at` and import dates (points and periods), and `--window`
//! (a trailing duration, a range or a period). Failures are [`TimeError`]s.

use chrono::{DateTime, NaiveDateTime, NaiveTime, TimeDelta, Utc};

use super::Interval;
use super::TimeError;
use super::calendar::{Unit, far_future, far_past, iv, shift, through, unit_word, year_iv};
use super::phrases::{Ctx, match_at, numeric_date};
use super::words::{count_at, number_word, tok, tokens};

/// "1:56 pm", "1:56pm", "13:56", "13:56:10", "10 am", "noon".
pub(super) fn time_of_day(s: &str) -> Option<NaiveTime> {
    let s: String = s
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '.')
        .collect::<String>()
        .to_lowercase();
    match s.as_str() {
        "noon" | "midday" => return NaiveTime::from_hms_opt(12, 0, 0),
        "midnight" => return Some(NaiveTime::MIN),
        _ => {}
    }
    let (body, pm) = match (s.strip_suffix("am"), s.strip_suffix("pm")) {
        (Some(b), _) => (b, Some(false)),
        (_, Some(b)) => (b, Some(true)),
        _ => (s.as_str(), None),
    };
    let part = |p: &str| {
        (!p.is_empty() && p.len() <= 2 && p.bytes().all(|b| b.is_ascii_digit()))
            .then(|| p.parse::<u32>().ok())
            .flatten()
    };
    let mut it = body.split(':');
    let h = part(it.next()?)?;
    let m = it.next().map_or(Some(0), part)?;
    let sec = it.next().map_or(Some(0), part)?;
    if it.next().is_some() {
        return None;
    }
    let h = match pm {
        None => h,
        Some(_) if !(1..=12).contains(&h) => return None,
        Some(pm) => h % 12 + if pm { 12 } else { 0 },
    };
    NaiveTime::from_hms_opt(h, m, sec)
}

/// A full timestamp: RFC 3339, or ISO without seconds and/or zone ("2023-05-08T13:56Z",
/// "2023-05-08 13:56"); no zone means UTC. The period is the written precision.
pub(super) fn timestamp(v: &str) -> Option<Interval> {
    let span =
        |t: DateTime<Utc>, secs: i64| iv(t, t.checked_add_signed(TimeDelta::try_seconds(secs)?)?);
    if let Ok(t) = DateTime::parse_from_rfc3339(v) {
        return span(t.to_utc(), 1);
    }
    let mut s = v.to_ascii_uppercase();
    if s.get(10..11) == Some(" ") {
        s.replace_range(10..11, "T");
    }
    let zulu = s.strip_suffix('Z').unwrap_or(&s);
    for (f, secs) in [("%Y-%m-%dT%H:%M:%S%.f", 1), ("%Y-%m-%dT%H:%M", 60)] {
        if let Ok(t) = NaiveDateTime::parse_from_str(zulu, f) {
            return span(t.and_utc(), secs);
        }
        if let Ok(t) = DateTime::parse_from_str(&s, &format!("{f}%#z")) {
            return span(t.to_utc(), secs);
        }
    }
    None
}

/// "7d", "12h", "2w", "3m" (months), "1y", "30min", "2 weeks", "a week", "two fortnights".
pub(super) fn parse_duration(s: &str) -> Option<(Unit, i64)> {
    let s = s.trim();
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 {
        let n = number_word(&s[..digits])?;
        let (unit, mult) = match s[digits..].trim() {
            "d" => (Unit::Day, 1),
            "h" => (Unit::Hour, 1),
            "w" => (Unit::Week, 1),
            "m" | "mo" => (Unit::Month, 1),
            "y" => (Unit::Year, 1),
            u => unit_word(u)?,
        };
        return Some((unit, n.checked_mul(mult)?));
    }
    let t = tokens(s);
    let (n, _, k) = count_at(&t, 0)?;
    let (unit, mult) = unit_word(tok(&t, k))?;
    (k + 1 == t.len()).then_some((unit, n.checked_mul(mult)?))
}

/// A whole value read as one query phrase ("last friday", "8 may, 2023", "may 2023").
pub(super) fn whole_phrase(v: &str, c: &Ctx) -> Option<Interval> {
    let t = tokens(v);
    match_at(&t, 0, c)
        .filter(|(n, _)| *n == t.len())
        .map(|(_, ivl)| ivl)
}

/// Parse an absolute point in time given on the command line or in data. Date-only
/// values give the start of the named period ("2023-05" → 2023-05-01T00:00Z).
pub fn parse_point(value: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>, TimeError> {
    parse_period(value, now).map(|i| i.start)
}

/// Like [`parse_point`] but returns the whole named period: "2023-05" → all of May 2023;
/// "2023-05-08" → that day; "2023-05-08T13:56Z" → that minute; "now", "3d ago" → one second.
pub fn parse_period(value: &str, now: DateTime<Utc>) -> Result<Interval, TimeError> {
    let v = value.trim();
    let c = Ctx {
        now,
        today: now.date_naive(),
    };
    let lower = v.to_lowercase();
    let instant = |t: Option<DateTime<Utc>>| {
        t.and_then(|t| iv(t, t.checked_add_signed(TimeDelta::try_seconds(1)?)?))
    };
    let day_at = |d: Interval, time: &str| {
        let one_day = d.end.signed_duration_since(d.start) == TimeDelta::days(1);
        one_day
            .then(|| time_of_day(time))
            .flatten()
            .and_then(|tm| instant(Some(d.start.date_naive().and_time(tm).and_utc())))
    };
    let found = if v.is_empty() {
        None
    } else if lower == "now" {
        instant(Some(now))
    } else if let Some(i) = timestamp(v).or_else(|| numeric_date(&lower)) {
        Some(i)
    } else if v.len() == 4 && v.bytes().all(|b| b.is_ascii_digit()) {
        v.parse().ok().and_then(year_iv)
    } else if let Some((time, date)) = lower.split_once(" on ") {
        whole_phrase(date, &c).and_then(|d| day_at(d, time))
    } else if let Some((date, time)) = lower.rsplit_once(" at ") {
        whole_phrase(date, &c).and_then(|d| day_at(d, time))
    } else if let Some(rest) = lower.strip_suffix("ago") {
        parse_duration(rest).and_then(|(unit, n)| instant(shift(now, unit, -n)))
    } else {
        whole_phrase(&lower, &c)
    };
    found.ok_or_else(|| {
        let dated = v.bytes().any(|b| b.is_ascii_digit())
            && v.bytes()
                .all(|b| b.is_ascii_digit() || b == b'-' || b == b'/');
        if dated {
            TimeError::NotACalendarDate(v.to_string())
        } else {
            TimeError::NotADate
        }
    })
}

/// Parse a `--window` value: a trailing duration ("7d" → [now - 7 days, now]), a range
/// "a..b" meaning [start(a), start(b)) with either side open, or one period ("2024-03").
pub fn parse_window(value: &str, now: DateTime<Utc>) -> Result<Interval, TimeError> {
    let v = value.trim();
    if let Some((a, b)) = v.split_once("..") {
        let (a, b) = (a.trim(), b.trim_start_matches('.').trim());
        if a.is_empty() && b.is_empty() {
            return Err(TimeError::EmptyRange);
        }
        let side = |s: &str, open: DateTime<Utc>, name: &'static str| {
            if s.is_empty() {
                Ok(open)
            } else {
                parse_point(s, now).map_err(|e| TimeError::RangeSide {
                    side: name,
                    value: s.to_string(),
                    reason: Box::new(e),
                })
            }
        };
        let (start, end) = (side(a, far_past(), "start")?, side(b, far_future(), "end")?);
        return iv(start, end).ok_or_else(|| TimeError::Backwards(v.to_string()));
    }
    if let Some((unit, n)) = parse_duration(v) {
        return shift(now, unit, -n)
            .and_then(|s| iv(s, through(now)))
            .ok_or_else(|| TimeError::BeyondCalendar(v.to_string()));
    }
    parse_period(v, now).map_err(|_| TimeError::NotAWindow)
}
