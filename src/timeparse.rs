//! Time words in queries and time values on the command line, turned into concrete UTC
//! intervals relative to a pinned clock.
//!
//! This module owns every reading of time text in slm: the phrases in a recall query
//! ("last Friday", "two weeks ago", "in May 2023", "since 2022"), the values of `--at`,
//! `--as-of`, `--known-as-of`, `--valid-at` and import fields ("2023-05-08T13:56Z",
//! LoCoMo's "1:56 pm on 8 May, 2023", "3d ago"), and `--window` ("7d", "a..b", "2024-03").
//! `now` is always passed in, never read from the system, so a pinned clock (`SLM_NOW`)
//! gives the same answer on every run.
//!
//! Conventions: all arithmetic is in UTC; weeks start on Monday; "05/08/2023" is read
//! month/day/year (the US order of the English chat logs and benchmarks slm is measured
//! on; ISO "2023-05-08" is the unambiguous spelling); seasons are meteorological and
//! northern-hemisphere, with "winter 2022" running from December 2022 to February 2023.
//! Nothing here panics: all calendar arithmetic is checked and a phrase that would leave
//! chrono's range is simply not recognised.

use chrono::{
    DateTime, Datelike, Days, Months, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, Timelike, Utc,
};
use serde::Serialize;

/// How far back "recently" and "lately" reach, in days. Two weeks is the horizon people
/// usually mean in conversation, and it spans the gap between typical LoCoMo sessions.
pub const RECENT_DAYS: i64 = 14;
/// What "a few" and "several" count as: the usual reading of "few" in English.
pub const FEW: i64 = 3;
/// What "a couple (of)" counts as.
pub const COUPLE: i64 = 2;
/// Largest count read as a duration ("in 99999999 days" is noise, not a time); about
/// 270 years of days, which also keeps every shift inside chrono's range.
pub const MAX_COUNT: i64 = 100_000;
/// Earliest year a bare 4-digit number in a query may name (brief: 1900..=2100), so
/// "2022 apples" or "room 1234" are not years.
pub const YEAR_MIN: i32 = 1900;
/// Latest year a bare 4-digit number in a query may name.
pub const YEAR_MAX: i32 = 2100;
/// Outside an interval, proximity halves every this many interval lengths: one length
/// means a day tolerates a day or two and a month a few weeks, as the brief asks.
pub const HALF_LIFE_LENGTHS: f64 = 1.0;
/// Shortest proximity half-life, in seconds (one day): event times are often known only
/// to the day (a date-only `--at` lands at midnight), so an hour-long interval must not
/// punish an event that happened that afternoon.
pub const MIN_HALF_LIFE_SECS: f64 = 86_400.0;
/// Added to an interval that ends "now" so it includes now: events are stored in Unix
/// milliseconds, and one millisecond turns the closed "[x, now]" into closed-open form.
pub const NOW_INCLUSIVE_MS: i64 = 1;
/// Start of open-ended ranges ("..2024-02-01", "before X"): 0001-01-01T00:00:00Z, the
/// earliest instant RFC 3339 can write, so such intervals still serialise plainly.
pub const FAR_PAST_SECS: i64 = -62_135_596_800;
/// End of open-ended ranges ("2024-01-01.."): 9999-12-31T23:59:59Z, RFC 3339's latest.
pub const FAR_FUTURE_SECS: i64 = 253_402_300_799;

const EXPECTED_DATE: &str = "expected a date like 2024-01-31 or 2024-01-31T09:00Z \
     (also \"8 May, 2023\", \"1:56 pm on 8 May, 2023\", \"2023-05\", \"yesterday\", \"3d ago\")";
const EXPECTED_WINDOW: &str = "expected a window like 7d, 12h, 2w, 3m or 1y, a range like \
     2024-01-01..2024-02-01 (either side may be empty), or a period like 2024-03";

/// A closed-open interval [start, end).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Interval {
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
}

impl Interval {
    pub fn contains(&self, t: DateTime<Utc>) -> bool {
        self.start <= t && t < self.end
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimeRef {
    pub interval: Interval,
    /// The words that matched, lower-cased and space-joined.
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
    /// Every time reference found in the query, in order of appearance.
    pub refs: Vec<TimeRef>,
    /// The question asks for a time ("when did…", "what year", "how long ago").
    pub asks_when: bool,
    pub order: Option<EventOrder>,
}

// ---------------------------------------------------------------------------------------
// Calendar helpers: every one returns None instead of overflowing.

fn far_past() -> DateTime<Utc> {
    DateTime::from_timestamp(FAR_PAST_SECS, 0).unwrap_or(DateTime::<Utc>::MIN_UTC)
}

fn far_future() -> DateTime<Utc> {
    DateTime::from_timestamp(FAR_FUTURE_SECS, 0).unwrap_or(DateTime::<Utc>::MAX_UTC)
}

/// The end of an interval that closes at `now` inclusively.
fn through(now: DateTime<Utc>) -> DateTime<Utc> {
    TimeDelta::try_milliseconds(NOW_INCLUSIVE_MS)
        .and_then(|d| now.checked_add_signed(d))
        .unwrap_or(now)
}

fn iv(start: DateTime<Utc>, end: DateTime<Utc>) -> Option<Interval> {
    (start < end).then_some(Interval { start, end })
}

fn day_start(d: NaiveDate) -> DateTime<Utc> {
    d.and_time(NaiveTime::MIN).and_utc()
}

fn add_days(d: NaiveDate, n: i64) -> Option<NaiveDate> {
    d.checked_add_signed(TimeDelta::try_days(n)?)
}

fn days_iv(d: NaiveDate, n: u64) -> Option<Interval> {
    iv(day_start(d), day_start(d.checked_add_days(Days::new(n))?))
}

fn day_iv(d: NaiveDate) -> Option<Interval> {
    days_iv(d, 1)
}

fn week_iv(d: NaiveDate) -> Option<Interval> {
    days_iv(
        d.checked_sub_days(Days::new(d.weekday().num_days_from_monday().into()))?,
        7,
    )
}

fn months_iv(y: i32, m: u32, count: u32) -> Option<Interval> {
    let s = NaiveDate::from_ymd_opt(y, m, 1)?;
    iv(
        day_start(s),
        day_start(s.checked_add_months(Months::new(count))?),
    )
}

fn year_iv(y: i32) -> Option<Interval> {
    months_iv(y, 1, 12)
}

/// The first of the month `n` months from `d`'s month.
fn month_shift(d: NaiveDate, n: i64) -> Option<NaiveDate> {
    let first = NaiveDate::from_ymd_opt(d.year(), d.month(), 1)?;
    let k = Months::new(u32::try_from(n.unsigned_abs()).ok()?);
    if n >= 0 {
        first.checked_add_months(k)
    } else {
        first.checked_sub_months(k)
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Unit {
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Year,
}

/// A unit word and its multiplier (a fortnight is two weeks).
fn unit_word(w: &str) -> Option<(Unit, i64)> {
    Some(match w {
        "minute" | "minutes" | "min" | "mins" => (Unit::Minute, 1),
        "hour" | "hours" | "hr" | "hrs" => (Unit::Hour, 1),
        "day" | "days" => (Unit::Day, 1),
        "week" | "weeks" => (Unit::Week, 1),
        "fortnight" | "fortnights" => (Unit::Week, 2),
        "month" | "months" => (Unit::Month, 1),
        "year" | "years" => (Unit::Year, 1),
        _ => return None,
    })
}

/// `t` moved by `n` units; months and years move on the calendar (Mar 31 - 1 month = Feb 28).
fn shift(t: DateTime<Utc>, unit: Unit, n: i64) -> Option<DateTime<Utc>> {
    let delta = match unit {
        Unit::Minute => TimeDelta::try_minutes(n)?,
        Unit::Hour => TimeDelta::try_hours(n)?,
        Unit::Day => TimeDelta::try_days(n)?,
        Unit::Week => TimeDelta::try_weeks(n)?,
        Unit::Month | Unit::Year => {
            let months = if unit == Unit::Year {
                n.checked_mul(12)?
            } else {
                n
            };
            let k = Months::new(u32::try_from(months.unsigned_abs()).ok()?);
            return if months >= 0 {
                t.checked_add_months(k)
            } else {
                t.checked_sub_months(k)
            };
        }
    };
    t.checked_add_signed(delta)
}

/// The calendar unit (minute, hour, day, Monday week, month, year) that contains `t`.
fn unit_period(t: DateTime<Utc>, unit: Unit) -> Option<Interval> {
    let trunc = |t: DateTime<Utc>, d: TimeDelta| iv(t, t.checked_add_signed(d)?);
    match unit {
        Unit::Minute => trunc(
            t.with_second(0)?.with_nanosecond(0)?,
            TimeDelta::try_minutes(1)?,
        ),
        Unit::Hour => trunc(
            t.with_minute(0)?.with_second(0)?.with_nanosecond(0)?,
            TimeDelta::try_hours(1)?,
        ),
        Unit::Day => day_iv(t.date_naive()),
        Unit::Week => week_iv(t.date_naive()),
        Unit::Month => months_iv(t.year(), t.month(), 1),
        Unit::Year => year_iv(t.year()),
    }
}

// ---------------------------------------------------------------------------------------
// Words.

/// Lower-cased words; '-', '/' and ':' stay inside dates and times ("2023-05-08",
/// "05/08/2023") but split ordinary hyphenated words ("mid-May" → "mid", "may").
fn tokens(s: &str) -> Vec<String> {
    let keep = |c: char| matches!(c, '-' | '/' | ':');
    let mut out = Vec::new();
    for raw in s
        .to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || keep(c)))
    {
        let w = raw.trim_matches(keep);
        if w.is_empty() {
            continue;
        }
        if w.contains('-') && !w.bytes().any(|b| b.is_ascii_digit()) {
            out.extend(w.split('-').filter(|p| !p.is_empty()).map(str::to_string));
        } else {
            out.push(w.to_string());
        }
    }
    out
}

fn tok(t: &[String], i: usize) -> &str {
    t.get(i).map_or("", String::as_str)
}

fn prev(t: &[String], i: usize) -> &str {
    i.checked_sub(1).map_or("", |j| tok(t, j))
}

/// Whether the words of `phrase` occur consecutively in `t`.
fn has_phrase(t: &[String], phrase: &str) -> bool {
    let p: Vec<&str> = phrase.split_whitespace().collect();
    !p.is_empty()
        && t.windows(p.len())
            .any(|w| w.iter().zip(&p).all(|(a, b)| a == b))
}

fn number_word(w: &str) -> Option<i64> {
    #[rustfmt::skip]
    const WORDS: [&str; 21] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
        "nineteen", "twenty",
    ];
    if let Some(n) = WORDS.iter().position(|x| *x == w) {
        return i64::try_from(n).ok();
    }
    if w == "thirty" {
        return Some(30);
    }
    if w.is_empty() || w.len() > 6 || !w.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    w.parse::<i64>().ok().filter(|n| *n <= MAX_COUNT)
}

/// A count at `t[i..]`: (value, whether it is vague, words used). "a week", "two weeks",
/// "a couple of days", "a few weeks", "several months".
fn count_at(t: &[String], i: usize) -> Option<(i64, bool, usize)> {
    let a = usize::from(matches!(tok(t, i), "a" | "an"));
    let w = tok(t, i + a);
    let (n, fuzzy) = match w {
        "couple" => (COUPLE, true),
        "few" | "several" => (FEW, true),
        _ if a == 1 => return Some((1, false, 1)),
        _ => (number_word(w)?, false),
    };
    let of = usize::from(w == "couple" && tok(t, i + a + 1) == "of");
    Some((n, fuzzy, a + 1 + of))
}

/// Days from Monday.
fn weekday_word(w: &str) -> Option<i64> {
    #[rustfmt::skip]
    const NAMES: [&str; 7] = [
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    ];
    NAMES
        .iter()
        .position(|d| *d == w)
        .and_then(|i| i64::try_from(i).ok())
}

/// Full names, and the usual abbreviations ("jan", "sept").
fn month_word(w: &str) -> Option<u32> {
    #[rustfmt::skip]
    const NAMES: [&str; 12] = [
        "january", "february", "march", "april", "may", "june", "july", "august", "september",
        "october", "november", "december",
    ];
    let abbrev = |m: &str| (w.len() == 3 || w == "sept") && m.starts_with(w);
    let i = NAMES.iter().position(|m| *m == w || abbrev(m))?;
    u32::try_from(i + 1).ok()
}

/// Words before a month name that show it is a month: "may", "march" and "june" are also
/// a verb, a verb and a name, so a bare month word with no day or year beside it needs one.
const MONTH_CUES: &[&str] = &[
    "in", "of", "during", "since", "before", "after", "until", "till", "by", "from", "between",
    "and", "to", "through", "around", "on", "early", "mid", "late", "or",
];
/// Words before a bare 4-digit number that make it a year ("in 2022", "since 2019").
const YEAR_CUES: &[&str] = &[
    "in", "during", "since", "of", "from", "by", "before", "after", "until", "till", "year",
    "between", "and", "to", "through", "around", "or",
];

fn day_word(w: &str) -> Option<u32> {
    let digits = ["st", "nd", "rd", "th"]
        .iter()
        .find_map(|s| w.strip_suffix(s))
        .unwrap_or(w);
    if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u32>().ok().filter(|d| (1..=31).contains(d))
}

fn year_word(w: &str) -> Option<i32> {
    if w.len() != 4 || !w.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    w.parse::<i32>()
        .ok()
        .filter(|y| (YEAR_MIN..=YEAR_MAX).contains(y))
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Season {
    Spring,
    Summer,
    Autumn,
    Winter,
}

fn season_word(w: &str) -> Option<Season> {
    Some(match w {
        "spring" => Season::Spring,
        "summer" => Season::Summer,
        "autumn" | "fall" => Season::Autumn,
        "winter" => Season::Winter,
        _ => return None,
    })
}

fn season_iv(s: Season, y: i32) -> Option<Interval> {
    let m = match s {
        Season::Spring => 3,
        Season::Summer => 6,
        Season::Autumn => 9,
        Season::Winter => 12,
    };
    months_iv(y, m, 3)
}

/// Which occurrence of a weekday, month or season a phrase means.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Rel {
    /// Bare ("on Friday", "in May"): the latest one that has begun by today.
    Recent,
    /// "last": the latest one that is wholly before today (for months: before this month).
    Last,
    /// "this": the one in the current week or year.
    This,
    /// "next": the one in the next week; for months and seasons, the first one to begin after today.
    Next,
}

fn weekday_rel(today: NaiveDate, want: i64, rel: Rel) -> Option<NaiveDate> {
    let cur = i64::from(today.weekday().num_days_from_monday());
    add_days(
        today,
        match rel {
            Rel::Recent => -(cur - want).rem_euclid(7),
            Rel::Last => -((cur - want - 1).rem_euclid(7) + 1),
            Rel::This => want - cur,
            Rel::Next => 7 + want - cur,
        },
    )
}

fn month_rel(today: NaiveDate, m: u32, rel: Rel) -> Option<Interval> {
    let (y, cur) = (today.year(), today.month());
    let y = match rel {
        Rel::Recent if m > cur => y - 1,
        Rel::Last if m >= cur => y - 1,
        Rel::Next if m <= cur => y + 1,
        _ => y,
    };
    months_iv(y, m, 1)
}

fn season_rel(today: NaiveDate, s: Season, rel: Rel) -> Option<Interval> {
    let t = day_start(today);
    let all: Vec<Interval> = (-2..=1)
        .filter_map(|k| season_iv(s, today.year() + k))
        .collect();
    match rel {
        Rel::Recent => all.iter().rev().find(|i| i.start <= t).copied(),
        Rel::Last => all.iter().rev().find(|i| i.end <= t).copied(),
        Rel::This => all
            .iter()
            .find(|i| i.contains(t))
            .copied()
            .or_else(|| season_iv(s, today.year())),
        Rel::Next => all.iter().find(|i| i.start > t).copied(),
    }
}

// ---------------------------------------------------------------------------------------
// Phrase matchers: each looks at `t[i..]` and returns (words used, interval).

type Hit = Option<(usize, Interval)>;

struct Ctx {
    now: DateTime<Utc>,
    today: NaiveDate,
}

fn match_at(t: &[String], i: usize, c: &Ctx) -> Hit {
    if i >= t.len() {
        return None;
    }
    rolling(t, i, c)
        .or_else(|| named(t, i, c))
        .or_else(|| single(t, i, c))
        .or_else(|| ago(t, i, c))
        .or_else(|| date_phrase(t, i, c))
        .or_else(|| month_phrase(t, i, c))
        .or_else(|| season_phrase(t, i, c))
        .or_else(|| year_phrase(t, i))
        .or_else(|| {
            Some((
                1,
                day_iv(weekday_rel(c.today, weekday_word(tok(t, i))?, Rel::Recent)?)?,
            ))
        })
        .filter(|(n, _)| *n > 0)
}

/// "past 3 days", "last two weeks", "next 24 hours", "past week": a span ending (or
/// starting) now, as opposed to the calendar "last week".
fn rolling(t: &[String], i: usize, c: &Ctx) -> Hit {
    let w = tok(t, i);
    let forward = match w {
        "last" | "past" => false,
        "next" => true,
        _ => return None,
    };
    let (n, k) = match count_at(t, i + 1) {
        Some((n, _, k)) => (n, k),
        None if w == "past" => (1, 0),
        None => return None,
    };
    let (unit, mult) = unit_word(tok(t, i + 1 + k))?;
    let n = n.checked_mul(mult)?;
    let ivl = if forward {
        iv(c.now, shift(c.now, unit, n)?)?
    } else {
        iv(shift(c.now, unit, -n)?, through(c.now))?
    };
    Some((k + 2, ivl))
}

/// "last/this/next" + week, weekend, month, year, night, weekday, month name or season.
fn named(t: &[String], i: usize, c: &Ctx) -> Hit {
    let (rel, skip) = match (tok(t, i), tok(t, i + 1)) {
        ("this", "past") => (Rel::Last, 2),
        ("last" | "previous", _) => (Rel::Last, 1),
        ("this" | "current", _) => (Rel::This, 1),
        ("next" | "coming", _) => (Rel::Next, 1),
        _ => return None,
    };
    let step = match rel {
        Rel::Last => -1,
        Rel::Next => 1,
        _ => 0,
    };
    let today = c.today;
    let w = tok(t, i + skip);
    let ivl = match w {
        "week" => week_iv(add_days(today, 7 * step)?)?,
        "weekend" => {
            let wk = week_iv(add_days(today, 7 * step)?)?;
            iv(
                wk.start.checked_add_signed(TimeDelta::try_days(5)?)?,
                wk.end,
            )?
        }
        "month" => {
            let d = month_shift(today, step)?;
            months_iv(d.year(), d.month(), 1)?
        }
        "year" => year_iv(today.year() + i32::try_from(step).ok()?)?,
        "night" if rel == Rel::Last => day_iv(add_days(today, -1)?)?,
        "night" | "morning" | "afternoon" | "evening" if rel == Rel::This => day_iv(today)?,
        _ => {
            if let Some(wd) = weekday_word(w) {
                day_iv(weekday_rel(today, wd, rel)?)?
            } else if let Some(m) = month_word(w) {
                month_rel(today, m, rel)?
            } else {
                season_rel(today, season_word(w)?, rel)?
            }
        }
    };
    Some((skip + 1, ivl))
}

fn single(t: &[String], i: usize, c: &Ctx) -> Hit {
    let today = c.today;
    let day = |n: i64| day_iv(add_days(today, n)?);
    match (tok(t, i), tok(t, i + 1), tok(t, i + 2)) {
        ("today" | "tonight", _, _) => Some((1, day(0)?)),
        ("yesterday", _, _) => Some((1, day(-1)?)),
        ("tomorrow", _, _) => Some((1, day(1)?)),
        ("day", "before", "yesterday") => Some((3, day(-2)?)),
        ("day", "after", "tomorrow") => Some((3, day(2)?)),
        ("recently" | "lately", _, _) => Some((
            1,
            iv(shift(c.now, Unit::Day, -RECENT_DAYS)?, through(c.now))?,
        )),
        ("weekend", _, _) if prev(t, i) == "the" => {
            // "over the weekend": the one under way, else the one just gone.
            let back = if today.weekday().num_days_from_monday() >= 5 {
                0
            } else {
                -7
            };
            let wk = week_iv(add_days(today, back)?)?;
            Some((
                1,
                iv(
                    wk.start.checked_add_signed(TimeDelta::try_days(5)?)?,
                    wk.end,
                )?,
            ))
        }
        _ => None,
    }
}

/// "3 days ago", "two weeks ago", "a month ago", "a couple of days ago", "a few weeks ago".
/// An exact count names the calendar unit it lands in; a vague one widens to one unit
/// either side, since "a few weeks" is anything from two to four.
fn ago(t: &[String], i: usize, c: &Ctx) -> Hit {
    let (n, fuzzy, k) = count_at(t, i)?;
    let (unit, mult) = unit_word(tok(t, i + k))?;
    if tok(t, i + k + 1) != "ago" {
        return None;
    }
    let n = n.checked_mul(mult)?;
    let ivl = if fuzzy {
        let far = unit_period(shift(c.now, unit, -(n + 1))?, unit)?;
        let near = unit_period(shift(c.now, unit, -(n - 1))?, unit)?;
        iv(far.start, near.end)?
    } else {
        unit_period(shift(c.now, unit, -n)?, unit)?
    };
    Some((k + 2, ivl))
}

/// One day of month `m`; without a year, the occurrence nearest today, because a bare
/// "May 12" said on May 10 is more likely the coming one than one a year ago.
fn dated(today: NaiveDate, y: Option<i32>, m: u32, d: u32) -> Option<Interval> {
    let date = match y {
        Some(y) => NaiveDate::from_ymd_opt(y, m, d)?,
        None => (-1..=1)
            .filter_map(|k| NaiveDate::from_ymd_opt(today.year() + k, m, d))
            .min_by_key(|x| x.signed_duration_since(today).num_days().abs())?,
    };
    day_iv(date)
}

/// "2023-05-08", "2023/05/08", "05/08/2023" (month/day/year), "2023-05".
fn numeric_date(w: &str) -> Option<Interval> {
    if w.len() > 10
        || !w
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'-' || b == b'/')
    {
        return None;
    }
    let sep = if w.contains('-') { '-' } else { '/' };
    let parts: Vec<&str> = w.split(sep).collect();
    let num = |s: &str| {
        (!s.is_empty() && s.len() <= 4)
            .then(|| s.parse::<u32>().ok())
            .flatten()
    };
    let year = |s: &str| (s.len() == 4).then(|| s.parse::<i32>().ok()).flatten();
    match parts[..] {
        [y, m, d] if y.len() == 4 => day_iv(NaiveDate::from_ymd_opt(year(y)?, num(m)?, num(d)?)?),
        [m, d, y] if sep == '/' && y.len() == 4 && m.len() <= 2 => {
            day_iv(NaiveDate::from_ymd_opt(year(y)?, num(m)?, num(d)?)?)
        }
        [y, m] if y.len() == 4 && m.len() <= 2 => months_iv(year(y)?, num(m)?, 1),
        _ => None,
    }
}

/// Numeric dates, "8 May 2023", "8th of May", "May 8th", "May 8, 2023".
fn date_phrase(t: &[String], i: usize, c: &Ctx) -> Hit {
    if let Some(ivl) = numeric_date(tok(t, i)) {
        return Some((1, ivl));
    }
    if let Some(d) = day_word(tok(t, i)) {
        let of = usize::from(tok(t, i + 1) == "of");
        if let Some(m) = month_word(tok(t, i + 1 + of)) {
            let y = year_word(tok(t, i + 2 + of));
            return Some((2 + of + usize::from(y.is_some()), dated(c.today, y, m, d)?));
        }
    }
    let m = month_word(tok(t, i))?;
    let d = day_word(tok(t, i + 1))?;
    let y = year_word(tok(t, i + 2));
    Some((2 + usize::from(y.is_some()), dated(c.today, y, m, d)?))
}

/// "May 2023", "in May", "May of 2023", "early/mid/late May", "the end of May", "early 2023".
/// Thirds of a month are days 1–10, 11–20 and 21–end; thirds of a year are four months.
fn month_phrase(t: &[String], i: usize, c: &Ctx) -> Hit {
    let (third, q) = match (tok(t, i), tok(t, i + 1)) {
        ("early", _) => (Some(0), 1),
        ("mid", _) => (Some(1), 1),
        ("late", _) => (Some(2), 1),
        ("beginning" | "start", "of") => (Some(0), 2),
        ("middle", "of") => (Some(1), 2),
        ("end", "of") => (Some(2), 2),
        _ => (None, 0),
    };
    let j = i + q;
    if let (Some(th), Some(y)) = (third, year_word(tok(t, j))) {
        return Some((q + 1, months_iv(y, 1 + 4 * th, 4)?));
    }
    let m = month_word(tok(t, j))?;
    let of = usize::from(tok(t, j + 1) == "of" && year_word(tok(t, j + 2)).is_some());
    let y = year_word(tok(t, j + 1 + of));
    if third.is_none() && y.is_none() && !MONTH_CUES.contains(&prev(t, i)) {
        return None;
    }
    let full = match y {
        Some(y) => months_iv(y, m, 1)?,
        None => month_rel(c.today, m, Rel::Recent)?,
    };
    let ivl = match third {
        None => full,
        Some(th) => {
            let start = full
                .start
                .checked_add_signed(TimeDelta::try_days(10 * i64::from(th))?)?;
            let end = if th == 2 {
                full.end
            } else {
                start.checked_add_signed(TimeDelta::try_days(10)?)?
            };
            iv(start, end)?
        }
    };
    Some((q + 1 + of + usize::from(y.is_some()), ivl))
}

/// "summer 2022", "the summer of 2022", "in the summer" (the latest one begun).
fn season_phrase(t: &[String], i: usize, c: &Ctx) -> Hit {
    let s = season_word(tok(t, i))?;
    let of = usize::from(tok(t, i + 1) == "of" && year_word(tok(t, i + 2)).is_some());
    if let Some(y) = year_word(tok(t, i + 1 + of)) {
        return Some((2 + of, season_iv(s, y)?));
    }
    // "fall" and "spring" are also verbs and nouns: only "in (the) summer" is a season.
    let cue = |w: &str| matches!(w, "in" | "during" | "over" | "since");
    let p = prev(t, i);
    (cue(p) || (p == "the" && i >= 2 && cue(tok(t, i - 2))))
        .then(|| season_rel(c.today, s, Rel::Recent))
        .flatten()
        .map(|ivl| (1, ivl))
}

fn year_phrase(t: &[String], i: usize) -> Hit {
    let y = year_word(tok(t, i))?;
    YEAR_CUES
        .contains(&prev(t, i))
        .then(|| year_iv(y))
        .flatten()
        .map(|ivl| (1, ivl))
}

// ---------------------------------------------------------------------------------------
// Queries.

/// Phrases that ask for a time, matched as whole words anywhere in the query.
#[rustfmt::skip]
const WHEN_PHRASES: &[&str] = &[
    "when did", "when was", "when were", "when is", "when are", "when will", "when do",
    "when does", "when had", "when has", "when have", "when would", "since when", "what date",
    "what year", "what month", "what day", "what time", "what week", "which date", "which year",
    "which month", "which day", "which week", "how long ago", "how long has", "how long have",
    "how long had", "date of",
];

/// The unit (and count) just before a "before"/"after" at `i`: "the week before" gives
/// (Week, 1), "two days after" gives (Day, 2); with the index where those words start.
fn unit_before(t: &[String], i: usize, used: &[bool]) -> Option<(Unit, i64, usize)> {
    let u = i.checked_sub(1)?;
    let (unit, mult) = unit_word(tok(t, u)).filter(|_| !used.get(u).copied().unwrap_or(true))?;
    let counted = (u.saturating_sub(3)..u).find_map(|j| {
        count_at(t, j)
            .filter(|(_, _, k)| j + k == u)
            .map(|(n, _, _)| (n, j))
    });
    let (n, from) = counted.unwrap_or((1, u));
    Some((unit, n.checked_mul(mult)?, from))
}

/// Find time references in a natural-language query, relative to `now`.
pub fn parse_query(query: &str, now: DateTime<Utc>) -> QueryTime {
    let t = tokens(query);
    let c = Ctx {
        now,
        today: now.date_naive(),
    };
    let mut refs: Vec<TimeRef> = Vec::new();
    let mut used = vec![false; t.len()];
    let mut push = |ivl: Option<Interval>, matched: String| {
        if let Some(interval) =
            ivl.filter(|x| x.start < x.end && !refs.iter().any(|r| r.interval == *x))
        {
            refs.push(TimeRef { interval, matched });
        }
    };
    let words = |a: usize, b: usize| t.get(a..b).map_or(String::new(), |s| s.join(" "));
    let mut i = 0;
    while i < t.len() {
        let side = tok(&t, i);
        let wraps = matches!(
            side,
            "since" | "before" | "after" | "until" | "till" | "between"
        );
        // "before the 8th of May": the article is not part of X.
        let x_at = i + 1 + usize::from(tok(&t, i + 1) == "the");
        if let Some((n, x)) = wraps.then(|| match_at(&t, x_at, &c)).flatten() {
            let mut end_i = x_at + n;
            used[x_at..end_i].iter_mut().for_each(|u| *u = true);
            // "the week before X", "two days after X": a span of that size beside X.
            let lead = matches!(side, "before" | "after")
                .then(|| unit_before(&t, i, &used))
                .flatten();
            let mut from = i;
            let sided = match (side, lead) {
                ("before", Some((unit, k, j))) => {
                    from = j;
                    shift(x.start, unit, -k).and_then(|s| iv(s, x.start))
                }
                ("after", Some((unit, k, j))) => {
                    from = j;
                    shift(x.end, unit, k).and_then(|e| iv(x.end, e))
                }
                ("since", _) => iv(x.start, through(now)),
                ("before", _) => iv(far_past(), x.start),
                // After something in the future there is no "now" to stop at.
                ("after", _) if x.end < now => iv(x.end, through(now)),
                ("after", _) => iv(x.end, far_future()),
                ("between", _) => match (tok(&t, end_i), match_at(&t, end_i + 1, &c)) {
                    ("and", Some((m, y))) => {
                        used[end_i + 1..end_i + 1 + m]
                            .iter_mut()
                            .for_each(|u| *u = true);
                        end_i += 1 + m;
                        iv(x.start, y.end)
                    }
                    _ => None,
                },
                _ => iv(far_past(), x.end),
            };
            // A side that would be empty ("since tomorrow") still tells us X itself.
            match sided {
                Some(s) => {
                    used[from..i].iter_mut().for_each(|u| *u = true);
                    push(Some(s), words(from, end_i));
                }
                None => push(Some(x), words(x_at, x_at + n)),
            }
            i = end_i;
        } else if let Some((n, x)) = match_at(&t, i, &c) {
            used[i..i + n].iter_mut().for_each(|u| *u = true);
            push(Some(x), words(i, i + n));
            i += n;
        } else {
            i += 1;
        }
    }
    let free = |w: &str| t.iter().zip(&used).any(|(x, u)| x == w && !u);
    let free_last = t.iter().enumerate().any(|(k, x)| {
        let owner = matches!(
            prev(&t, k),
            "the" | "my" | "his" | "her" | "their" | "our" | "your"
        );
        x == "last" && !used[k] && (owner || tok(&t, k + 1) == "time")
    });
    let order = if has_phrase(&t, "what order")
        || has_phrase(&t, "which order")
        || ["sequence", "chronological", "chronologically", "timeline"]
            .iter()
            .any(|w| free(w))
    {
        Some(EventOrder::Sequence)
    } else if free("first") || free("earliest") {
        Some(EventOrder::Earliest)
    } else if free_last
        || free("latest")
        || has_phrase(&t, "most recent")
        || has_phrase(&t, "most recently")
    {
        Some(EventOrder::Latest)
    } else if free("before") || has_phrase(&t, "prior to") || has_phrase(&t, "earlier than") {
        Some(EventOrder::Before)
    } else if free("after") || has_phrase(&t, "later than") {
        Some(EventOrder::After)
    } else {
        None
    };
    let asks_when = tok(&t, 0) == "when"
        || WHEN_PHRASES.iter().any(|p| has_phrase(&t, p))
        || (has_phrase(&t, "how many") && t.iter().any(|w| w == "ago"));
    QueryTime {
        refs,
        asks_when,
        order,
    }
}

// ---------------------------------------------------------------------------------------
// Command-line values.

/// "1:56 pm", "1:56pm", "13:56", "13:56:10", "10 am", "noon".
fn time_of_day(s: &str) -> Option<NaiveTime> {
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
fn timestamp(v: &str) -> Option<Interval> {
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
fn parse_duration(s: &str) -> Option<(Unit, i64)> {
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
fn whole_phrase(v: &str, c: &Ctx) -> Option<Interval> {
    let t = tokens(v);
    match_at(&t, 0, c)
        .filter(|(n, _)| *n == t.len())
        .map(|(_, ivl)| ivl)
}

/// Parse an absolute point in time given on the command line or in data. Date-only
/// values give the start of the named period ("2023-05" → 2023-05-01T00:00Z).
pub fn parse_point(value: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>, String> {
    parse_period(value, now).map(|i| i.start)
}

/// Like [`parse_point`] but returns the whole named period: "2023-05" → all of May 2023;
/// "2023-05-08" → that day; "2023-05-08T13:56Z" → that minute; "now", "3d ago" → one second.
pub fn parse_period(value: &str, now: DateTime<Utc>) -> Result<Interval, String> {
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
            format!("{v:?} is not a calendar date; {EXPECTED_DATE}")
        } else {
            EXPECTED_DATE.to_string()
        }
    })
}

/// Parse a `--window` value: a trailing duration ("7d" → [now - 7 days, now]), a range
/// "a..b" meaning [start(a), start(b)) with either side open, or one period ("2024-03").
pub fn parse_window(value: &str, now: DateTime<Utc>) -> Result<Interval, String> {
    let v = value.trim();
    if let Some((a, b)) = v.split_once("..") {
        let (a, b) = (a.trim(), b.trim_start_matches('.').trim());
        if a.is_empty() && b.is_empty() {
            return Err(format!(
                "a range needs a start, an end or both; {EXPECTED_WINDOW}"
            ));
        }
        let side = |s: &str, open: DateTime<Utc>, name: &str| {
            if s.is_empty() {
                Ok(open)
            } else {
                parse_point(s, now).map_err(|e| format!("range {name} {s:?}: {e}"))
            }
        };
        let (start, end) = (side(a, far_past(), "start")?, side(b, far_future(), "end")?);
        return iv(start, end).ok_or_else(|| format!("the range {v:?} ends before it starts"));
    }
    if let Some((unit, n)) = parse_duration(v) {
        return shift(now, unit, -n)
            .and_then(|s| iv(s, through(now)))
            .ok_or_else(|| {
                format!("the duration {v:?} reaches past the calendar; {EXPECTED_WINDOW}")
            });
    }
    parse_period(v, now).map_err(|_| EXPECTED_WINDOW.to_string())
}

/// How close an event time is to an interval, in 0..=1: 1.0 inside; outside, halving
/// every [`HALF_LIFE_LENGTHS`] interval lengths (at least [`MIN_HALF_LIFE_SECS`]) of
/// distance, so a day tolerates a day or two and a month a few weeks.
pub fn proximity(event: DateTime<Utc>, interval: &Interval) -> f64 {
    if interval.contains(event) {
        return 1.0;
    }
    let secs = |a: DateTime<Utc>, b: DateTime<Utc>| {
        a.signed_duration_since(b).num_milliseconds() as f64 / 1000.0
    };
    let dist = if event < interval.start {
        secs(interval.start, event)
    } else {
        secs(event, interval.end)
    }
    .max(0.0);
    let half = (secs(interval.end, interval.start) * HALF_LIFE_LENGTHS).max(MIN_HALF_LIFE_SECS);
    (-dist / half).exp2().clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    /// Wednesday 2023-05-10 12:00 UTC.
    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2023, 5, 10, 12, 0, 0).unwrap()
    }
    fn at(y: i32, m: u32, d: u32, h: u32, mi: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(y, m, d, h, mi, 0).unwrap()
    }
    fn d(y: i32, m: u32, dd: u32) -> DateTime<Utc> {
        at(y, m, dd, 0, 0)
    }
    fn span(a: DateTime<Utc>, b: DateTime<Utc>) -> Interval {
        Interval { start: a, end: b }
    }
    fn days(y: i32, m: u32, dd: u32, n: i64) -> Interval {
        span(d(y, m, dd), d(y, m, dd) + TimeDelta::days(n))
    }
    fn refs(q: &str) -> Vec<Interval> {
        parse_query(q, now())
            .refs
            .iter()
            .map(|r| r.interval)
            .collect()
    }
    fn one(q: &str) -> Interval {
        let r = refs(q);
        assert_eq!(r.len(), 1, "{q:?} gave {r:?}");
        r[0]
    }
    fn upto_now(start: DateTime<Utc>) -> Interval {
        span(start, now() + TimeDelta::milliseconds(1))
    }

    #[test]
    fn day_words() {
        assert_eq!(one("what did I do today?"), days(2023, 5, 10, 1));
        assert_eq!(one("Tonight's plan"), days(2023, 5, 10, 1));
        assert_eq!(one("notes from this morning"), days(2023, 5, 10, 1));
        assert_eq!(one("YESTERDAY."), days(2023, 5, 9, 1));
        assert_eq!(one("what did we eat last night"), days(2023, 5, 9, 1));
        assert_eq!(one("the day before yesterday"), days(2023, 5, 8, 1));
        assert_eq!(one("tomorrow"), days(2023, 5, 11, 1));
    }

    #[test]
    fn weekdays() {
        let q = parse_query("What did we decide last Friday?", now());
        assert_eq!(q.refs.len(), 1);
        assert_eq!(q.refs[0].interval, days(2023, 5, 5, 1));
        assert_eq!(q.refs[0].matched, "last friday");
        assert_eq!(q.order, None);
        assert_eq!(one("what happened on Friday"), days(2023, 5, 5, 1));
        assert_eq!(
            one("on Wednesday"),
            days(2023, 5, 10, 1),
            "today counts for a bare weekday"
        );
        assert_eq!(
            one("last Wednesday"),
            days(2023, 5, 3, 1),
            "last is strictly before today"
        );
        assert_eq!(one("last Tuesday"), days(2023, 5, 9, 1));
        assert_eq!(one("this Friday"), days(2023, 5, 12, 1));
        assert_eq!(one("this Monday"), days(2023, 5, 8, 1));
        assert_eq!(
            one("next Friday"),
            days(2023, 5, 19, 1),
            "next means next week's"
        );
        assert_eq!(one("this past Sunday"), days(2023, 5, 7, 1));
    }

    #[test]
    fn calendar_units() {
        assert_eq!(one("last week"), days(2023, 5, 1, 7));
        assert_eq!(one("this week"), days(2023, 5, 8, 7));
        assert_eq!(one("next week"), days(2023, 5, 15, 7));
        assert_eq!(one("last month"), span(d(2023, 4, 1), d(2023, 5, 1)));
        assert_eq!(one("this month"), span(d(2023, 5, 1), d(2023, 6, 1)));
        assert_eq!(one("last year"), span(d(2022, 1, 1), d(2023, 1, 1)));
        assert_eq!(one("this year"), span(d(2023, 1, 1), d(2024, 1, 1)));
        assert_eq!(one("last weekend"), days(2023, 5, 6, 2));
        assert_eq!(one("this weekend"), days(2023, 5, 13, 2));
        assert_eq!(one("over the weekend"), days(2023, 5, 6, 2));
        let jan = at(2023, 1, 15, 9, 0);
        assert_eq!(
            parse_query("last month", jan).refs[0].interval,
            span(d(2022, 12, 1), d(2023, 1, 1))
        );
    }

    #[test]
    fn ago() {
        assert_eq!(one("3 days ago"), days(2023, 5, 7, 1));
        assert_eq!(one("three days ago"), days(2023, 5, 7, 1));
        assert_eq!(one("a week ago"), days(2023, 5, 1, 7));
        assert_eq!(one("two weeks ago"), days(2023, 4, 24, 7));
        assert_eq!(one("a month ago"), span(d(2023, 4, 1), d(2023, 5, 1)));
        assert_eq!(one("twelve months ago"), span(d(2022, 5, 1), d(2022, 6, 1)));
        assert_eq!(one("2 years ago"), span(d(2021, 1, 1), d(2022, 1, 1)));
        assert_eq!(one("a couple of days ago"), days(2023, 5, 7, 3));
        assert_eq!(one("a few weeks ago"), span(d(2023, 4, 10), d(2023, 5, 1)));
        assert_eq!(one("a fortnight ago"), days(2023, 4, 24, 7));
        let q = parse_query("what happened 99999999 days ago", now());
        assert!(q.refs.is_empty(), "absurd counts are not durations");
    }

    #[test]
    fn rolling_spans() {
        assert_eq!(
            one("in the past 3 days"),
            upto_now(now() - TimeDelta::days(3))
        );
        assert_eq!(
            one("over the last two weeks"),
            upto_now(now() - TimeDelta::days(14))
        );
        assert_eq!(one("the past week"), upto_now(now() - TimeDelta::days(7)));
        assert_eq!(one("the last few months"), upto_now(at(2023, 2, 10, 12, 0)));
        assert_eq!(
            one("what have I been doing recently"),
            upto_now(now() - TimeDelta::days(RECENT_DAYS))
        );
        assert_eq!(
            one("lately"),
            upto_now(now() - TimeDelta::days(RECENT_DAYS))
        );
        assert_eq!(
            one("in the next 2 days"),
            span(now(), now() + TimeDelta::days(2))
        );
    }

    #[test]
    fn months() {
        let may = span(d(2023, 5, 1), d(2023, 6, 1));
        assert_eq!(one("in May 2023"), may);
        assert_eq!(one("May 2023"), may);
        assert_eq!(one("may of 2023"), may);
        assert_eq!(
            one("what did we do in May"),
            may,
            "the current month has begun"
        );
        assert_eq!(
            one("in June"),
            span(d(2022, 6, 1), d(2022, 7, 1)),
            "not in the future"
        );
        assert_eq!(one("since January"), upto_now(d(2023, 1, 1)));
        assert_eq!(one("early May 2023"), days(2023, 5, 1, 10));
        assert_eq!(one("mid-May 2023"), days(2023, 5, 11, 10));
        assert_eq!(one("late May 2023"), days(2023, 5, 21, 11));
        assert_eq!(one("late february 2023"), days(2023, 2, 21, 8));
        assert_eq!(one("the end of April"), days(2023, 4, 21, 10));
        assert_eq!(one("early 2022"), span(d(2022, 1, 1), d(2022, 5, 1)));
        assert_eq!(one("last May"), span(d(2022, 5, 1), d(2022, 6, 1)));
        assert_eq!(one("next March"), span(d(2024, 3, 1), d(2024, 4, 1)));
        assert_eq!(one("sept 2021"), span(d(2021, 9, 1), d(2021, 10, 1)));
        assert!(refs("You may go now").is_empty());
        assert!(refs("Did June call?").is_empty());
        assert!(refs("we march on").is_empty());
    }

    #[test]
    fn years() {
        let y22 = span(d(2022, 1, 1), d(2023, 1, 1));
        assert_eq!(one("what happened in 2022"), y22);
        assert_eq!(one("during 2022?"), y22);
        assert_eq!(one("the year 2022"), y22);
        assert_eq!(one("since 2022"), upto_now(d(2022, 1, 1)));
        assert!(refs("I have 2022 apples").is_empty());
        assert!(refs("room 1999").is_empty());
        assert!(
            refs("in 1850").is_empty(),
            "outside {YEAR_MIN}..={YEAR_MAX}"
        );
        assert!(refs("in 99999999").is_empty());
    }

    #[test]
    fn explicit_dates() {
        let day = days(2023, 5, 8, 1);
        for q in [
            "on 2023-05-08",
            "8 May 2023",
            "8 May, 2023",
            "May 8, 2023",
            "May 8th",
            "the 8th of May",
            "05/08/2023",
            "5/8/2023",
            "2023/05/08",
            "8th of May 2023",
        ] {
            assert_eq!(one(q), day, "{q}");
        }
        assert_eq!(one("May 12"), days(2023, 5, 12, 1), "nearest occurrence");
        assert_eq!(one("Dec 25"), days(2022, 12, 25, 1));
        assert_eq!(one("in 2023-04"), span(d(2023, 4, 1), d(2023, 5, 1)));
        assert!(refs("on 2023-02-30").is_empty());
        assert!(refs("13/45/2023").is_empty());
    }

    #[test]
    fn since_before_after_between() {
        let q = parse_query("what happened before May 2023?", now());
        assert_eq!(q.order, Some(EventOrder::Before));
        assert_eq!(q.refs.len(), 1);
        assert_eq!(q.refs[0].interval, span(far_past(), d(2023, 5, 1)));
        assert_eq!(q.refs[0].matched, "before may 2023");
        let q = parse_query("what did we do after last Friday", now());
        assert_eq!(q.order, Some(EventOrder::After));
        assert_eq!(q.refs[0].interval, upto_now(d(2023, 5, 6)));
        assert_eq!(
            parse_query("after next week", now()).refs[0].interval,
            span(d(2023, 5, 22), far_future())
        );
        assert_eq!(one("since yesterday"), upto_now(d(2023, 5, 9)));
        assert_eq!(one("since 2023-05-01"), upto_now(d(2023, 5, 1)));
        assert_eq!(
            one("since tomorrow"),
            days(2023, 5, 11, 1),
            "an empty side falls back to X"
        );
        assert_eq!(one("until 2022"), span(far_past(), d(2023, 1, 1)));
        assert_eq!(
            one("between March and April 2023"),
            span(d(2023, 3, 1), d(2023, 5, 1))
        );
        assert_eq!(
            parse_query("what did she do before the wedding", now()).order,
            Some(EventOrder::Before)
        );
        assert_eq!(parse_query("the day before yesterday", now()).order, None);
    }

    #[test]
    fn spans_beside_an_anchor() {
        assert_eq!(one("the week before 9 June 2023"), days(2023, 6, 2, 7));
        assert_eq!(one("two days after 2023-05-01"), days(2023, 5, 2, 2));
        assert_eq!(one("a couple of days before May 8th"), days(2023, 5, 6, 2));
        let q = parse_query("what did she visit after the summer of 2022?", now());
        assert_eq!(q.refs[0].interval, upto_now(d(2022, 9, 1)));
        assert_eq!(q.refs[0].matched, "after the summer of 2022");
        assert_eq!(refs("In 2021 or 2022?").len(), 2);
        let o = |s: &str| parse_query(s, now()).order;
        assert_eq!(
            o("What did John say in his last message?"),
            Some(EventOrder::Latest)
        );
    }

    #[test]
    fn seasons() {
        assert_eq!(one("last summer"), span(d(2022, 6, 1), d(2022, 9, 1)));
        assert_eq!(one("this summer"), span(d(2023, 6, 1), d(2023, 9, 1)));
        assert_eq!(one("this spring"), span(d(2023, 3, 1), d(2023, 6, 1)));
        assert_eq!(one("last winter"), span(d(2022, 12, 1), d(2023, 3, 1)));
        assert_eq!(one("next winter"), span(d(2023, 12, 1), d(2024, 3, 1)));
        assert_eq!(
            one("the summer of 2021"),
            span(d(2021, 6, 1), d(2021, 9, 1))
        );
        assert_eq!(one("in the fall"), span(d(2022, 9, 1), d(2022, 12, 1)));
        assert!(refs("did she fall?").is_empty());
        let oct = at(2023, 10, 2, 0, 0);
        assert_eq!(
            parse_query("last summer", oct).refs[0].interval,
            span(d(2023, 6, 1), d(2023, 9, 1))
        );
    }

    #[test]
    fn asks_when_and_order() {
        let q = parse_query("When did Caroline go to the LGBTQ support group?", now());
        assert!(q.asks_when && q.refs.is_empty() && q.order.is_none());
        for s in [
            "What date was the party?",
            "what year did she move",
            "How long ago did he quit?",
            "How long has she lived there",
            "in which month was it",
            "how many years ago did we meet",
        ] {
            assert!(parse_query(s, now()).asks_when, "{s}");
        }
        for s in [
            "What did she say when she arrived",
            "what did we decide",
            "How long did the trip last",
        ] {
            assert!(!parse_query(s, now()).asks_when, "{s}");
        }
        let o = |s: &str| parse_query(s, now()).order;
        assert_eq!(
            o("What was the first book she read?"),
            Some(EventOrder::Earliest)
        );
        assert_eq!(
            o("earliest memory of the beach"),
            Some(EventOrder::Earliest)
        );
        assert_eq!(
            o("When was the last time we met?"),
            Some(EventOrder::Latest)
        );
        assert_eq!(o("her latest project"), Some(EventOrder::Latest));
        assert_eq!(o("the most recent deploy"), Some(EventOrder::Latest));
        assert_eq!(o("the last book he mentioned"), Some(EventOrder::Latest));
        assert_eq!(o("after the move, what changed"), Some(EventOrder::After));
        assert_eq!(
            o("In what order did they visit the cities?"),
            Some(EventOrder::Sequence)
        );
        assert_eq!(o("the sequence of events"), Some(EventOrder::Sequence));
        assert_eq!(o("last week"), None);
    }

    #[test]
    fn several_refs_in_one_query() {
        let q = parse_query(
            "Did we talk yesterday or on 2023-05-01, or in May 2022?",
            now(),
        );
        let m: Vec<&str> = q.refs.iter().map(|r| r.matched.as_str()).collect();
        assert_eq!(m, ["yesterday", "2023-05-01", "may 2022"]);
        assert_eq!(
            refs("yesterday and yesterday again").len(),
            1,
            "duplicates collapse"
        );
    }

    #[test]
    fn points() {
        let p = |s: &str| parse_point(s, now());
        assert_eq!(p("2023-05-08T13:56:00Z").unwrap(), at(2023, 5, 8, 13, 56));
        assert_eq!(
            p("2023-05-08T15:56:00+02:00").unwrap(),
            at(2023, 5, 8, 13, 56)
        );
        assert_eq!(p("2023-05-08T13:56Z").unwrap(), at(2023, 5, 8, 13, 56));
        assert_eq!(p("2023-05-08T08:56-05:00").unwrap(), at(2023, 5, 8, 13, 56));
        assert_eq!(p("2023-05-08 13:56").unwrap(), at(2023, 5, 8, 13, 56));
        assert_eq!(p("2023-05-08T13:56").unwrap(), at(2023, 5, 8, 13, 56));
        assert_eq!(
            p("2023-05-08 13:56:30.250").unwrap(),
            at(2023, 5, 8, 13, 56) + TimeDelta::milliseconds(30_250)
        );
        assert_eq!(p("2023-05-08").unwrap(), d(2023, 5, 8));
        assert_eq!(p("2023-05").unwrap(), d(2023, 5, 1));
        assert_eq!(p("2023").unwrap(), d(2023, 1, 1));
        assert_eq!(p("1:56 pm on 8 May, 2023").unwrap(), at(2023, 5, 8, 13, 56));
        assert_eq!(
            p("10:00 am on 3 March, 2024").unwrap(),
            at(2024, 3, 3, 10, 0)
        );
        assert_eq!(
            p("12:30 am on 1 June, 2023").unwrap(),
            at(2023, 6, 1, 0, 30)
        );
        assert_eq!(p("May 8, 2023 at 13:56").unwrap(), at(2023, 5, 8, 13, 56));
        assert_eq!(p("8 May, 2023").unwrap(), d(2023, 5, 8));
        assert_eq!(p("May 8, 2023").unwrap(), d(2023, 5, 8));
        assert_eq!(p("8 May 2023").unwrap(), d(2023, 5, 8));
        assert_eq!(p("May 2023").unwrap(), d(2023, 5, 1));
        assert_eq!(p(" now ").unwrap(), now());
        assert_eq!(p("Today").unwrap(), d(2023, 5, 10));
        assert_eq!(p("yesterday").unwrap(), d(2023, 5, 9));
        assert_eq!(p("last friday").unwrap(), d(2023, 5, 5));
        assert_eq!(p("3d ago").unwrap(), now() - TimeDelta::days(3));
        assert_eq!(p("2 weeks ago").unwrap(), now() - TimeDelta::days(14));
        assert_eq!(p("a month ago").unwrap(), at(2023, 4, 10, 12, 0));
    }

    #[test]
    fn point_errors() {
        for s in [
            "",
            "   ",
            "blursday",
            "x",
            "13:00 pm on 8 May, 2023",
            "1:56 pm on May 2023",
            "ago",
            "🐙 ago",
            "2023-13",
            "in 99999999",
        ] {
            let e = parse_point(s, now()).unwrap_err();
            assert!(
                e.contains("expected a date like 2024-01-31 or 2024-01-31T09:00Z"),
                "{s:?}: {e}"
            );
        }
        let e = parse_point("32/13/2020", now()).unwrap_err();
        assert!(
            e.starts_with("\"32/13/2020\" is not a calendar date"),
            "{e}"
        );
        assert!(parse_point("2023-02-29", now()).is_err());
        assert!(parse_point("2024-02-29", now()).is_ok());
    }

    #[test]
    fn periods() {
        let p = |s: &str| parse_period(s, now()).unwrap();
        assert_eq!(p("2023-05"), span(d(2023, 5, 1), d(2023, 6, 1)));
        assert_eq!(p("2023-05-08"), days(2023, 5, 8, 1));
        assert_eq!(p("2023"), span(d(2023, 1, 1), d(2024, 1, 1)));
        assert_eq!(p("8 May, 2023"), days(2023, 5, 8, 1));
        assert_eq!(p("May 2023"), span(d(2023, 5, 1), d(2023, 6, 1)));
        assert_eq!(p("last week"), days(2023, 5, 1, 7));
        assert_eq!(
            p("2023-05-08T13:56Z"),
            span(at(2023, 5, 8, 13, 56), at(2023, 5, 8, 13, 57))
        );
    }

    #[test]
    fn windows() {
        let w = |s: &str| parse_window(s, now());
        assert_eq!(w("7d").unwrap(), upto_now(now() - TimeDelta::days(7)));
        assert_eq!(w("12h").unwrap(), upto_now(now() - TimeDelta::hours(12)));
        assert_eq!(w("2w").unwrap(), upto_now(now() - TimeDelta::days(14)));
        assert_eq!(w("3m").unwrap(), upto_now(at(2023, 2, 10, 12, 0)));
        assert_eq!(w("1y").unwrap(), upto_now(at(2022, 5, 10, 12, 0)));
        assert_eq!(
            w("30min").unwrap(),
            upto_now(now() - TimeDelta::minutes(30))
        );
        assert_eq!(w("2 weeks").unwrap(), upto_now(now() - TimeDelta::days(14)));
        assert_eq!(
            w("2024-01-01..2024-02-01").unwrap(),
            span(d(2024, 1, 1), d(2024, 2, 1))
        );
        assert_eq!(w("..2024-02-01").unwrap(), span(far_past(), d(2024, 2, 1)));
        assert_eq!(
            w("2024-01-01..").unwrap(),
            span(d(2024, 1, 1), far_future())
        );
        assert_eq!(w("2023-05-01..now").unwrap(), span(d(2023, 5, 1), now()));
        assert_eq!(w("2024-03").unwrap(), span(d(2024, 3, 1), d(2024, 4, 1)));
        assert_eq!(w("yesterday").unwrap(), days(2023, 5, 9, 1));
        assert_eq!(w("2023").unwrap(), span(d(2023, 1, 1), d(2024, 1, 1)));
        for s in ["", "fortnight-ish", "soon", "7", "-7d", "..", "🐙"] {
            let e = w(s).unwrap_err();
            assert!(e.contains("expected a window like 7d"), "{s:?}: {e}");
        }
        let e = w("2024-02-01..2024-01-01").unwrap_err();
        assert!(e.contains("ends before it starts"), "{e}");
        let e = w("2024-01-01..soon").unwrap_err();
        assert!(e.starts_with("range end \"soon\": expected a date"), "{e}");
        assert!(w("999999y").is_err(), "counts above MAX_COUNT are refused");
        assert!(w("99999y").is_ok(), "still inside the calendar");
    }

    #[test]
    fn proximity_decays_with_distance_relative_to_length() {
        let day = days(2023, 5, 5, 1);
        assert_eq!(proximity(at(2023, 5, 5, 15, 0), &day), 1.0);
        assert_eq!(proximity(d(2023, 5, 5), &day), 1.0);
        assert!(
            (proximity(d(2023, 5, 7), &day) - 0.5).abs() < 1e-9,
            "one day past the end halves it"
        );
        let mut last = 1.0;
        for k in 1..60 {
            let p = proximity(day.end + TimeDelta::hours(k * 6), &day);
            assert!(p < last && p > 0.0, "{k}: {p}");
            last = p;
        }
        let before = proximity(day.start - TimeDelta::days(1), &day);
        assert!((before - 0.5).abs() < 1e-9);
        let month = span(d(2023, 4, 1), d(2023, 5, 1));
        let two_weeks = proximity(d(2023, 5, 15), &month);
        assert!(two_weeks > 0.6 && two_weeks < 0.8, "{two_weeks}");
        assert!(proximity(d(2023, 5, 15), &day) < 0.01);
        let hour = span(at(2023, 5, 5, 9, 0), at(2023, 5, 5, 10, 0));
        assert!(
            proximity(at(2023, 5, 5, 15, 0), &hour) > 0.8,
            "short intervals keep a one-day half-life"
        );
        let empty = span(d(2023, 5, 5), d(2023, 5, 5));
        assert!((0.0..=1.0).contains(&proximity(d(2023, 5, 5), &empty)));
        let inverted = span(d(2023, 5, 6), d(2023, 5, 5));
        assert!((0.0..=1.0).contains(&proximity(d(2023, 5, 1), &inverted)));
        let far = proximity(DateTime::<Utc>::MAX_UTC, &day);
        assert!((0.0..=1.0).contains(&far));
    }

    #[test]
    fn odd_inputs_never_panic() {
        let long = "last ".repeat(5000);
        let words = "since before after between and the last this next past a few couple of 3 99999999 days weeks months ago in may 2023 8th friday summer fall early mid late end 🐙 ago 05/08/2023 2023-05-08 0/0/0 --- :: // .. yesterday today 12:99 pm on 31 february 2023";
        let mut odd: Vec<String> = [
            "",
            "   ",
            "in 99999999",
            "last",
            "🐙 ago",
            "ago",
            "of may",
            "31 february 2023",
            "9999-99-99",
            "0000-00-00T00:00Z",
            "1:1:1:1 on 1 may 2023",
            "-",
            "..",
            "...",
            "a..b..c",
            "99999999999999999999d",
            "\u{0}",
            "İİİ",
            "ß",
            "2023-05-08T13:56:00+99:99",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        odd.push(long);
        odd.push("🐙".repeat(10_000));
        let vocab: Vec<&str> = words.split(' ').collect();
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..3000 {
            let len = (seed % 7) as usize + 1;
            let mut s = Vec::new();
            for _ in 0..len {
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                s.push(vocab[(seed >> 33) as usize % vocab.len()]);
            }
            odd.push(s.join(" "));
        }
        let clocks = [
            now(),
            DateTime::<Utc>::MIN_UTC,
            DateTime::<Utc>::MAX_UTC,
            d(1, 1, 1),
            at(2024, 2, 29, 23, 59),
        ];
        for c in clocks {
            for s in &odd {
                let q = parse_query(s, c);
                for r in &q.refs {
                    assert!(r.interval.start < r.interval.end, "{s:?}");
                    let p = proximity(c, &r.interval);
                    assert!((0.0..=1.0).contains(&p));
                }
                let _ = parse_point(s, c);
                let _ = parse_window(s, c);
                if let Ok(i) = parse_period(s, c) {
                    assert!(i.start < i.end, "{s:?}");
                }
            }
        }
    }
}
