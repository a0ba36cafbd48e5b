//! Phrase matchers: each looks at the words `t[i..]` and returns how many words it used
//! and the interval they name ("last Friday", "3 days ago", "8 May 2023", "summer 2022").
//! [`match_at`] tries them in order; the query and value parsers both build on it.

use chrono::{DateTime, Datelike, NaiveDate, TimeDelta, Utc};

use super::calendar::{
    Unit, add_days, day_iv, iv, month_shift, months_iv, shift, through, unit_period, unit_word,
    week_iv, year_iv,
};
use super::words::{
    MONTH_CUES, Rel, YEAR_CUES, count_at, day_word, month_rel, month_word, prev, season_iv,
    season_rel, season_word, tok, weekday_rel, weekday_word, year_word,
};
use super::{Interval, RECENT_DAYS};

pub(super) type Hit = Option<(usize, Interval)>;

pub(super) struct Ctx {
    pub(super) now: DateTime<Utc>,
    pub(super) today: NaiveDate,
}

pub(super) fn match_at(t: &[String], i: usize, c: &Ctx) -> Hit {
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
pub(super) fn rolling(t: &[String], i: usize, c: &Ctx) -> Hit {
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
pub(super) fn named(t: &[String], i: usize, c: &Ctx) -> Hit {
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

pub(super) fn single(t: &[String], i: usize, c: &Ctx) -> Hit {
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
pub(super) fn ago(t: &[String], i: usize, c: &Ctx) -> Hit {
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
pub(super) fn dated(today: NaiveDate, y: Option<i32>, m: u32, d: u32) -> Option<Interval> {
    let date = match y {
        Some(y) => NaiveDate::from_ymd_opt(y, m, d)?,
        None => (-1..=1)
            .filter_map(|k| NaiveDate::from_ymd_opt(today.year() + k, m, d))
            .min_by_key(|x| x.signed_duration_since(today).num_days().abs())?,
    };
    day_iv(date)
}

/// "2023-05-08", "2023/05/08", "05/08/2023" (month/day/year), "2023-05".
pub(super) fn numeric_date(w: &str) -> Option<Interval> {
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
pub(super) fn date_phrase(t: &[String], i: usize, c: &Ctx) -> Hit {
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
pub(super) fn month_phrase(t: &[String], i: usize, c: &Ctx) -> Hit {
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
pub(super) fn season_phrase(t: &[String], i: usize, c: &Ctx) -> Hit {
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

pub(super) fn year_phrase(t: &[String], i: usize) -> Hit {
    let y = year_word(tok(t, i))?;
    YEAR_CUES
        .contains(&prev(t, i))
        .then(|| year_iv(y))
        .flatten()
        .map(|ivl| (1, ivl))
}
