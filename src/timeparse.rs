//! Time words in queries and time values on the command line, turned into concrete UTC
//! intervals relative to a pinned clock ("last Friday", "in May 2023", "two weeks ago",
//! "2023-05-08", LoCoMo's "1:56 pm on 8 May, 2023", `--window 7d`).
//!
//! All arithmetic is in UTC; weeks start on Monday; "05/08/2023" is read month/day/year.

use chrono::{
    DateTime, Datelike, Duration, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Utc, Weekday,
};
use serde::Serialize;

/// "recently" means the last this many days.
pub const RECENT_DAYS: i64 = 14;
/// "a few" counts as this many.
pub const FEW: i64 = 3;
/// Outside an interval, proximity halves every this fraction of the interval's own length
/// (at least one day): a day tolerates a day or two, a month a couple of weeks.
pub const HALF_LIFE_SHARE: f64 = 0.5;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Interval {
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimeRef {
    pub interval: Interval,
    pub matched: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EventOrder {
    Earliest,
    Latest,
    Before,
    After,
    Sequence,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct QueryTime {
    pub refs: Vec<TimeRef>,
    pub asks_when: bool,
    pub order: Option<EventOrder>,
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];
const WEEKDAYS: [(&str, Weekday); 7] = [
    ("monday", Weekday::Mon),
    ("tuesday", Weekday::Tue),
    ("wednesday", Weekday::Wed),
    ("thursday", Weekday::Thu),
    ("friday", Weekday::Fri),
    ("saturday", Weekday::Sat),
    ("sunday", Weekday::Sun),
];

fn month_of(w: &str) -> Option<u32> {
    let w = w.trim_end_matches('.');
    MONTHS
        .iter()
        .position(|m| {
            *m == w
                || (w.len() >= 3 && m.starts_with(w) && w != "mar" || w == "mar" && *m == "march")
        })
        .map(|i| i as u32 + 1)
}

fn number(w: &str) -> Option<i64> {
    let words = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve",
    ];
    if let Some(i) = words.iter().position(|x| *x == w) {
        return Some(i as i64);
    }
    match w {
        "a" | "an" => Some(1),
        "couple" => Some(2),
        "few" | "several" => Some(FEW),
        _ => w.parse::<i64>().ok().filter(|n| (0..=10_000).contains(n)),
    }
}

fn day_start(d: NaiveDate) -> DateTime<Utc> {
    Utc.from_utc_datetime(&d.and_time(NaiveTime::MIN))
}

fn day(d: NaiveDate) -> Interval {
    Interval {
        start: day_start(d),
        end: day_start(d + Duration::days(1)),
    }
}

fn month(y: i32, m: u32) -> Option<Interval> {
    let s = NaiveDate::from_ymd_opt(y, m, 1)?;
    let e = if m == 12 {
        NaiveDate::from_ymd_opt(y + 1, 1, 1)?
    } else {
        NaiveDate::from_ymd_opt(y, m + 1, 1)?
    };
    Some(Interval {
        start: day_start(s),
        end: day_start(e),
    })
}

fn year(y: i32) -> Option<Interval> {
    Some(Interval {
        start: day_start(NaiveDate::from_ymd_opt(y, 1, 1)?),
        end: day_start(NaiveDate::from_ymd_opt(y + 1, 1, 1)?),
    })
}

fn week_of(d: NaiveDate) -> Interval {
    let monday = d - Duration::days(d.weekday().num_days_from_monday() as i64);
    Interval {
        start: day_start(monday),
        end: day_start(monday + Duration::days(7)),
    }
}

fn shift_months(d: NaiveDate, n: i64) -> NaiveDate {
    let total = d.year() as i64 * 12 + d.month0() as i64 + n;
    let (y, m) = (
        (total.div_euclid(12)) as i32,
        (total.rem_euclid(12)) as u32 + 1,
    );
    NaiveDate::from_ymd_opt(y, m, d.day().min(28)).unwrap_or(d)
}

fn tokens(s: &str) -> Vec<String> {
    s.to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '/' || c == ':'))
        .filter(|t| !t.is_empty())
        .map(|t| t.trim_matches('-').to_string())
        .filter(|t| !t.is_empty())
        .collect()
}

fn strip_ordinal(w: &str) -> &str {
    for s in ["st", "nd", "rd", "th"] {
        if let Some(b) = w.strip_suffix(s) {
            if !b.is_empty() && b.chars().all(|c| c.is_ascii_digit()) {
                return b;
            }
        }
    }
    w
}

fn day_num(w: &str) -> Option<u32> {
    strip_ordinal(w)
        .parse::<u32>()
        .ok()
        .filter(|d| (1..=31).contains(d))
}

fn year_num(w: &str) -> Option<i32> {
    w.parse::<i32>().ok().filter(|y| (1900..=2100).contains(y))
}

/// Find time references in a query.
pub fn parse_query(query: &str, now: DateTime<Utc>) -> QueryTime {
    let t = tokens(query);
    let lower = query.to_lowercase();
    let today = now.date_naive();
    let mut refs: Vec<TimeRef> = Vec::new();
    let mut add = |i: Option<Interval>, m: String| {
        if let Some(i) = i {
            if i.start < i.end && !refs.iter().any(|r| r.interval == i) {
                refs.push(TimeRef {
                    interval: i,
                    matched: m,
                });
            }
        }
    };
    let n = t.len();
    let mut i = 0;
    while i < n {
        let w = t[i].as_str();
        let next = t.get(i + 1).map(String::as_str).unwrap_or("");
        let prev = if i > 0 { t[i - 1].as_str() } else { "" };
        match w {
            "today" | "tonight" => add(Some(day(today)), w.into()),
            "yesterday" => add(Some(day(today - Duration::days(1))), w.into()),
            "tomorrow" => add(Some(day(today + Duration::days(1))), w.into()),
            "recently" | "lately" => add(
                Some(Interval {
                    start: now - Duration::days(RECENT_DAYS),
                    end: now,
                }),
                w.into(),
            ),
            "morning" if prev == "this" => add(Some(day(today)), "this morning".into()),
            "night" if prev == "last" => {
                add(Some(day(today - Duration::days(1))), "last night".into())
            }
            "last" | "this" | "next" | "past" => {
                let dir: i64 = match w {
                    "last" | "past" => -1,
                    "next" => 1,
                    _ => 0,
                };
                if let Some((_, wd)) = WEEKDAYS.iter().find(|(name, _)| *name == next) {
                    let cur = today.weekday().num_days_from_monday() as i64;
                    let want = wd.num_days_from_monday() as i64;
                    let d = match dir {
                        -1 => {
                            today
                                - Duration::days(
                                    ((cur - want).rem_euclid(7)).max(1)
                                        + if (cur - want).rem_euclid(7) == 0 {
                                            6
                                        } else {
                                            0
                                        },
                                )
                        }
                        1 => {
                            today
                                + Duration::days(
                                    ((want - cur).rem_euclid(7)).max(1)
                                        + if (want - cur).rem_euclid(7) == 0 {
                                            6
                                        } else {
                                            0
                                        },
                                )
                        }
                        _ => today + Duration::days(want - cur),
                    };
                    add(Some(day(d)), format!("{w} {next}"));
                } else {
                    let unit = next;
                    let iv = match unit {
                        "week" => Some(week_of(today + Duration::days(7 * dir))),
                        "weekend" => {
                            let wk = week_of(today + Duration::days(7 * dir));
                            Some(Interval {
                                start: wk.start + Duration::days(5),
                                end: wk.end,
                            })
                        }
                        "month" => {
                            let d = shift_months(today, dir);
                            month(d.year(), d.month())
                        }
                        "year" => year(today.year() + dir as i32),
                        "summer" | "winter" | "spring" | "autumn" | "fall" => {
                            let (sm, len) = match unit {
                                "spring" => (3, 3),
                                "summer" => (6, 3),
                                "autumn" | "fall" => (9, 3),
                                _ => (12, 3),
                            };
                            let mut y = today.year() + if dir < 0 { -1 } else { 0 };
                            if dir < 0 && (today.month() as i32) > sm + len {
                                y += 1;
                            }
                            let s = NaiveDate::from_ymd_opt(y, sm as u32, 1);
                            s.map(|s| Interval {
                                start: day_start(s),
                                end: day_start(shift_months(s, len as i64)),
                            })
                        }
                        _ => None,
                    };
                    if iv.is_some() {
                        add(iv, format!("{w} {unit}"));
                    } else if let (Some(k), Some(u)) = (number(next), t.get(i + 2)) {
                        // "in the past 3 days", "over the last two weeks"
                        if let Some(d) = unit_days(u) {
                            add(
                                Some(Interval {
                                    start: now - Duration::days(k * d),
                                    end: now,
                                }),
                                format!("{w} {next} {u}"),
                            );
                        }
                    }
                }
            }
            "ago" if i >= 1 => {
                // "N units ago", "a couple of days ago", "a few weeks ago"
                let u = t[i - 1].as_str();
                let k = if i >= 2 { number(&t[i - 2]) } else { None };
                let k = match (k, i >= 3) {
                    (Some(k), _) => Some(k),
                    (None, true) if t[i - 2] == "of" => number(&t[i - 3]),
                    _ => None,
                };
                if let (Some(k), Some(d)) = (k.or(Some(1)), unit_days(u)) {
                    let center = today - Duration::days(k * d);
                    let half = (d / 2).max(0);
                    let iv = Interval {
                        start: day_start(center - Duration::days(half)),
                        end: day_start(center + Duration::days(half + 1)),
                    };
                    add(Some(iv), format!("{} {u} ago", k));
                }
            }
            _ => {
                if let Some(m) = month_of(w) {
                    if w == "may"
                        && !(prev == "in"
                            || prev == "of"
                            || prev == "early"
                            || prev == "mid"
                            || prev == "late"
                            || day_num(prev).is_some()
                            || day_num(next).is_some()
                            || year_num(next).is_some())
                    {
                        i += 1;
                        continue; // "may" the verb
                    }
                    let (d, y) = if let Some(d) = day_num(next) {
                        (Some(d), t.get(i + 2).and_then(|x| year_num(x)))
                    } else if let Some(d) = day_num(prev) {
                        (Some(d), year_num(next))
                    } else if prev == "of" && i >= 2 && day_num(&t[i - 2]).is_some() {
                        (day_num(&t[i - 2]), year_num(next))
                    } else {
                        (None, year_num(next))
                    };
                    let y = y.unwrap_or_else(|| {
                        if m > today.month() {
                            today.year() - 1
                        } else {
                            today.year()
                        }
                    });
                    let iv = match d {
                        Some(d) => NaiveDate::from_ymd_opt(y, m, d).map(day),
                        None => month(y, m).map(|full| {
                            let len = full.end - full.start;
                            match prev {
                                "early" => Interval {
                                    start: full.start,
                                    end: full.start + len / 3,
                                },
                                "mid" => Interval {
                                    start: full.start + len / 3,
                                    end: full.start + len * 2 / 3,
                                },
                                "late" => Interval {
                                    start: full.start + len * 2 / 3,
                                    end: full.end,
                                },
                                _ => full,
                            }
                        }),
                    };
                    add(iv, format!("{w} {y}"));
                } else if let Some(y) = year_num(w) {
                    if matches!(
                        prev,
                        "in" | "during" | "since" | "of" | "from" | "by" | "year"
                    ) && month_of(prev).is_none()
                    {
                        add(year(y), w.into());
                    }
                } else if let Ok(iv) = explicit_date(w) {
                    add(Some(iv), w.into());
                }
            }
        }
        i += 1;
    }
    let mut order = None;
    if lower.contains("in what order") || lower.contains("sequence") || lower.contains("chronolog")
    {
        order = Some(EventOrder::Sequence);
    } else if lower.contains("first time")
        || lower.contains("earliest")
        || t.first().is_some_and(|_| t.iter().any(|w| w == "first"))
    {
        order = Some(EventOrder::Earliest);
    } else if lower.contains("last time")
        || lower.contains("latest")
        || lower.contains("most recent")
    {
        order = Some(EventOrder::Latest);
    } else if t.iter().any(|w| w == "before") {
        order = Some(EventOrder::Before);
    } else if t.iter().any(|w| w == "after") {
        order = Some(EventOrder::After);
    }
    // "since X" / "before X" / "after X": the side of X.
    let mut sided = Vec::new();
    for r in &refs {
        let pos = lower
            .find(&r.matched.split(' ').next().unwrap_or("").to_string())
            .unwrap_or(0);
        let head = &lower[..pos];
        let far_past = Utc
            .with_ymd_and_hms(1970, 1, 1, 0, 0, 0)
            .single()
            .unwrap_or(now);
        if head.trim_end().ends_with("since") || head.trim_end().ends_with("after") {
            sided.push(TimeRef {
                interval: Interval {
                    start: r.interval.end.min(now),
                    end: now.max(r.interval.end),
                },
                matched: format!("after {}", r.matched),
            });
        } else if head.trim_end().ends_with("before") {
            sided.push(TimeRef {
                interval: Interval {
                    start: far_past,
                    end: r.interval.start,
                },
                matched: format!("before {}", r.matched),
            });
        }
    }
    refs.extend(
        sided
            .into_iter()
            .filter(|r| r.interval.start < r.interval.end),
    );
    let asks_when = lower.starts_with("when")
        || lower.contains(" when ")
        || lower.contains("what date")
        || lower.contains("what day")
        || lower.contains("what year")
        || lower.contains("what month")
        || lower.contains("what time")
        || lower.contains("how long ago")
        || lower.contains("how long has")
        || lower.contains("how long have");
    QueryTime {
        refs,
        asks_when,
        order,
    }
}

fn unit_days(u: &str) -> Option<i64> {
    match u.trim_end_matches('s') {
        "day" => Some(1),
        "week" => Some(7),
        "fortnight" => Some(14),
        "month" => Some(30),
        "year" => Some(365),
        _ => None,
    }
}

fn explicit_date(w: &str) -> Result<Interval, ()> {
    if let Ok(d) = NaiveDate::parse_from_str(w, "%Y-%m-%d") {
        return Ok(day(d));
    }
    if let Ok(d) = NaiveDate::parse_from_str(w, "%m/%d/%Y") {
        return Ok(day(d));
    }
    Err(())
}

const EXPECTED: &str = "expected a date like 2024-01-31, 2024-01-31T09:00Z, \"8 May, 2023\", \"3 days ago\" or \"yesterday\"";

/// Parse an absolute point in time (start of the named period for dates).
pub fn parse_point(value: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>, String> {
    parse_period(value, now).map(|i| i.start)
}

/// Parse a named period: "2023-05" → May 2023; "2023-05-08" → that day; a time → that instant.
pub fn parse_period(value: &str, now: DateTime<Utc>) -> Result<Interval, String> {
    let v = value.trim();
    if v.is_empty() {
        return Err(EXPECTED.into());
    }
    let lower = v.to_lowercase();
    let instant = |t: DateTime<Utc>| Interval {
        start: t,
        end: t + Duration::seconds(1),
    };
    match lower.as_str() {
        "now" => return Ok(instant(now)),
        "today" => return Ok(day(now.date_naive())),
        "yesterday" => return Ok(day(now.date_naive() - Duration::days(1))),
        _ => {}
    }
    if let Ok(t) = DateTime::parse_from_rfc3339(v) {
        return Ok(instant(t.with_timezone(&Utc)));
    }
    for f in [
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%d %H:%M",
    ] {
        if let Ok(t) = NaiveDateTime::parse_from_str(v, f) {
            return Ok(instant(Utc.from_utc_datetime(&t)));
        }
    }
    if let Some(z) = v.strip_suffix('Z') {
        for f in ["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H"] {
            if let Ok(t) = NaiveDateTime::parse_from_str(z, f) {
                return Ok(instant(Utc.from_utc_datetime(&t)));
            }
        }
    }
    if let Ok(i) = explicit_date(v) {
        return Ok(i);
    }
    if let Some((y, m)) = v.split_once('-') {
        if let (Some(y), Ok(m)) = (year_num(y), m.parse::<u32>()) {
            if let Some(i) = month(y, m) {
                return Ok(i);
            }
        }
    }
    if let Some(y) = year_num(v) {
        return year(y).ok_or_else(|| EXPECTED.to_string());
    }
    // LoCoMo style: "1:56 pm on 8 May, 2023", "8 May, 2023", "May 8, 2023", "8 May 2023".
    let (time_part, date_part) = match lower.split_once(" on ") {
        Some((t, d)) => (Some(t.trim().to_string()), d.trim().to_string()),
        None => (None, lower.clone()),
    };
    let toks = tokens(&date_part);
    let date = match toks.as_slice() {
        [d, m, y] if day_num(d).is_some() && month_of(m).is_some() => {
            year_num(y).and_then(|y| NaiveDate::from_ymd_opt(y, month_of(m)?, day_num(d)?))
        }
        [m, d, y] if day_num(d).is_some() && month_of(m).is_some() => {
            year_num(y).and_then(|y| NaiveDate::from_ymd_opt(y, month_of(m)?, day_num(d)?))
        }
        [m, y] if month_of(m).is_some() => year_num(y)
            .and_then(|y| NaiveDate::from_ymd_opt(y, month_of(m)?, 1))
            .map(|d| d.with_day(1).unwrap_or(d)),
        _ => None,
    };
    if let Some(d) = date {
        if let Some(tp) = time_part {
            let tp = tp.replace('.', "");
            for f in ["%I:%M %p", "%I:%M%p", "%H:%M", "%I %p"] {
                if let Ok(t) = NaiveTime::parse_from_str(&tp, f) {
                    return Ok(instant(Utc.from_utc_datetime(&d.and_time(t))));
                }
            }
            return Err(format!("could not read the time {tp:?}; {EXPECTED}"));
        }
        if toks.len() == 2 {
            return month(d.year(), d.month()).ok_or_else(|| EXPECTED.into());
        }
        return Ok(day(d));
    }
    // Relative: "3d ago", "2 weeks ago", "3d".
    let rel = lower.trim_end_matches(" ago").trim();
    if let Some(d) = parse_duration(rel) {
        if lower.ends_with("ago") {
            return Ok(instant(now - d));
        }
    }
    Err(EXPECTED.into())
}

/// "7d", "12h", "2w", "3m" (months ≈ 30 days), "1y", "2 weeks".
fn parse_duration(s: &str) -> Option<Duration> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit())?;
    let (num, unit) = s.split_at(split);
    let n: i64 = num.parse().ok().filter(|n| (0..=100_000).contains(n))?;
    let unit = unit.trim();
    let days = match unit {
        "h" | "hour" | "hours" => return Some(Duration::hours(n)),
        "min" | "minute" | "minutes" => return Some(Duration::minutes(n)),
        "d" | "day" | "days" => n,
        "w" | "week" | "weeks" => n * 7,
        "m" | "mo" | "month" | "months" => n * 30,
        "y" | "year" | "years" => n * 365,
        _ => return None,
    };
    Some(Duration::days(days))
}

/// Parse `--window`: "7d" (the last 7 days), "a..b" ([start(a), start(b))), or one period.
pub fn parse_window(value: &str, now: DateTime<Utc>) -> Result<Interval, String> {
    let v = value.trim();
    if let Some((a, b)) = v.split_once("..") {
        let far_past = Utc
            .with_ymd_and_hms(1970, 1, 1, 0, 0, 0)
            .single()
            .ok_or("clock")?;
        let start = if a.trim().is_empty() {
            far_past
        } else {
            parse_point(a, now)?
        };
        let end = if b.trim().is_empty() {
            now + Duration::seconds(1)
        } else {
            parse_point(b, now)?
        };
        if end <= start {
            return Err(format!(
                "the window ends ({end}) before it starts ({start})"
            ));
        }
        return Ok(Interval { start, end });
    }
    if let Some(d) = parse_duration(v) {
        return Ok(Interval {
            start: now - d,
            end: now + Duration::seconds(1),
        });
    }
    parse_period(v, now).map_err(|_| format!("expected a duration like 7d, 12h, 2w, a range like 2024-01-01..2024-02-01, or a period like 2024-03"))
}

/// 1.0 inside the interval; outside, halves every HALF_LIFE_SHARE of its length (≥ 1 day).
pub fn proximity(event: DateTime<Utc>, interval: &Interval) -> f64 {
    if event >= interval.start && event < interval.end {
        return 1.0;
    }
    let dist = if event < interval.start {
        interval.start - event
    } else {
        event - interval.end
    };
    let len = (interval.end - interval.start).num_seconds().max(86_400) as f64;
    let half = (len * HALF_LIFE_SHARE).max(86_400.0);
    0.5f64.powf(dist.num_seconds() as f64 / half)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2023, 5, 10, 12, 0, 0).unwrap() // a Wednesday
    }
    fn d(y: i32, m: u32, dd: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(y, m, dd, 0, 0, 0).unwrap()
    }

    #[test]
    fn last_friday_is_the_friday_before_today() {
        let q = parse_query("What did we decide last Friday?", now());
        assert_eq!(
            q.refs[0].interval,
            Interval {
                start: d(2023, 5, 5),
                end: d(2023, 5, 6)
            }
        );
    }

    #[test]
    fn months_years_and_dates() {
        assert_eq!(
            parse_query("in May 2023", now()).refs[0].interval,
            Interval {
                start: d(2023, 5, 1),
                end: d(2023, 6, 1)
            }
        );
        assert_eq!(
            parse_query("what happened in 2022", now()).refs[0]
                .interval
                .start,
            d(2022, 1, 1)
        );
        assert_eq!(
            parse_query("on 2023-05-08", now()).refs[0].interval.start,
            d(2023, 5, 8)
        );
        assert_eq!(
            parse_query("on 8 May 2023", now()).refs[0].interval.start,
            d(2023, 5, 8)
        );
        assert_eq!(
            parse_query("May 8th", now()).refs[0].interval.start,
            d(2023, 5, 8)
        );
        assert!(parse_query("You may go now", now()).refs.is_empty());
        assert!(parse_query("I have 2022 apples", now()).refs.is_empty());
    }

    #[test]
    fn relative_phrases() {
        let q = parse_query("two weeks ago", now());
        assert!(
            q.refs[0].interval.start <= d(2023, 4, 26) && q.refs[0].interval.end > d(2023, 4, 26)
        );
        assert_eq!(
            parse_query("yesterday", now()).refs[0].interval.start,
            d(2023, 5, 9)
        );
        assert_eq!(
            parse_query("last week", now()).refs[0].interval,
            Interval {
                start: d(2023, 5, 1),
                end: d(2023, 5, 8)
            }
        );
        assert_eq!(
            parse_query("last month", now()).refs[0].interval.start,
            d(2023, 4, 1)
        );
        assert!(!parse_query("recently", now()).refs.is_empty());
        assert!(!parse_query("in the past 3 days", now()).refs.is_empty());
    }

    #[test]
    fn asks_when_and_order() {
        let q = parse_query("When did Caroline go to the LGBTQ support group?", now());
        assert!(q.asks_when && q.refs.is_empty());
        assert_eq!(
            parse_query("what was the first thing", now()).order,
            Some(EventOrder::Earliest)
        );
        assert_eq!(
            parse_query("what happened before May 2023", now()).order,
            Some(EventOrder::Before)
        );
    }

    #[test]
    fn points_and_windows() {
        assert_eq!(
            parse_point("1:56 pm on 8 May, 2023", now()).unwrap(),
            Utc.with_ymd_and_hms(2023, 5, 8, 13, 56, 0).unwrap()
        );
        assert_eq!(parse_point("8 May, 2023", now()).unwrap(), d(2023, 5, 8));
        assert_eq!(parse_point("May 8, 2023", now()).unwrap(), d(2023, 5, 8));
        assert_eq!(parse_point("2023-05", now()).unwrap(), d(2023, 5, 1));
        assert_eq!(
            parse_point("2023-05-08T13:56:00Z", now()).unwrap(),
            Utc.with_ymd_and_hms(2023, 5, 8, 13, 56, 0).unwrap()
        );
        assert_eq!(
            parse_point("3d ago", now()).unwrap(),
            now() - Duration::days(3)
        );
        assert!(
            parse_point("next blursday", now())
                .unwrap_err()
                .contains("expected a date")
        );
        let w = parse_window("7d", now()).unwrap();
        assert_eq!(w.start, now() - Duration::days(7));
        let w = parse_window("2024-01-01..2024-02-01", now()).unwrap();
        assert_eq!((w.start, w.end), (d(2024, 1, 1), d(2024, 2, 1)));
        assert!(parse_window("2024-02-01..2024-01-01", now()).is_err());
        assert!(parse_window("soon", now()).is_err());
    }

    #[test]
    fn proximity_decays() {
        let i = Interval {
            start: d(2023, 5, 5),
            end: d(2023, 5, 6),
        };
        assert_eq!(proximity(d(2023, 5, 5) + Duration::hours(3), &i), 1.0);
        let a = proximity(d(2023, 5, 7), &i);
        let b = proximity(d(2023, 5, 9), &i);
        assert!(a > b && b > 0.0);
    }

    #[test]
    fn no_panics() {
        for s in [
            "",
            "   ",
            "in 99999999",
            "last",
            "🐙 ago",
            "ago",
            "of may",
            "31 february 2023",
            &"last ".repeat(5000),
        ] {
            let _ = parse_query(s, now());
            let _ = parse_point(s, now());
            let _ = parse_window(s, now());
        }
    }
}
