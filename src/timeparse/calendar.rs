//! Calendar arithmetic for time parsing: intervals of days, weeks, months and years, and
//! moving an instant by a unit. Every helper returns `None` instead of overflowing, which
//! is how the parser stays panic-free at the edges of chrono's range.

use chrono::{DateTime, Datelike, Days, Months, NaiveDate, NaiveTime, TimeDelta, Timelike, Utc};

use super::{FAR_FUTURE_SECS, FAR_PAST_SECS, Interval, NOW_INCLUSIVE_MS};

pub(super) fn far_past() -> DateTime<Utc> {
    DateTime::from_timestamp(FAR_PAST_SECS, 0).unwrap_or(DateTime::<Utc>::MIN_UTC)
}

pub(super) fn far_future() -> DateTime<Utc> {
    DateTime::from_timestamp(FAR_FUTURE_SECS, 0).unwrap_or(DateTime::<Utc>::MAX_UTC)
}

/// The end of an interval that closes at `now` inclusively.
pub(super) fn through(now: DateTime<Utc>) -> DateTime<Utc> {
    TimeDelta::try_milliseconds(NOW_INCLUSIVE_MS)
        .and_then(|d| now.checked_add_signed(d))
        .unwrap_or(now)
}

pub(super) fn iv(start: DateTime<Utc>, end: DateTime<Utc>) -> Option<Interval> {
    (start < end).then_some(Interval { start, end })
}

pub(super) fn day_start(d: NaiveDate) -> DateTime<Utc> {
    d.and_time(NaiveTime::MIN).and_utc()
}

pub(super) fn add_days(d: NaiveDate, n: i64) -> Option<NaiveDate> {
    d.checked_add_signed(TimeDelta::try_days(n)?)
}

pub(super) fn days_iv(d: NaiveDate, n: u64) -> Option<Interval> {
    iv(day_start(d), day_start(d.checked_add_days(Days::new(n))?))
}

pub(super) fn day_iv(d: NaiveDate) -> Option<Interval> {
    days_iv(d, 1)
}

pub(super) fn week_iv(d: NaiveDate) -> Option<Interval> {
    days_iv(
        d.checked_sub_days(Days::new(d.weekday().num_days_from_monday().into()))?,
        7,
    )
}

pub(super) fn months_iv(y: i32, m: u32, count: u32) -> Option<Interval> {
    let s = NaiveDate::from_ymd_opt(y, m, 1)?;
    iv(
        day_start(s),
        day_start(s.checked_add_months(Months::new(count))?),
    )
}

pub(super) fn year_iv(y: i32) -> Option<Interval> {
    months_iv(y, 1, 12)
}

/// The first of the month `n` months from `d`'s month.
pub(super) fn month_shift(d: NaiveDate, n: i64) -> Option<NaiveDate> {
    let first = NaiveDate::from_ymd_opt(d.year(), d.month(), 1)?;
    let k = Months::new(u32::try_from(n.unsigned_abs()).ok()?);
    if n >= 0 {
        first.checked_add_months(k)
    } else {
        first.checked_sub_months(k)
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Unit {
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Year,
}

/// A unit word and its multiplier (a fortnight is two weeks).
pub(super) fn unit_word(w: &str) -> Option<(Unit, i64)> {
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
pub(super) fn shift(t: DateTime<Utc>, unit: Unit, n: i64) -> Option<DateTime<Utc>> {
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
pub(super) fn unit_period(t: DateTime<Utc>, unit: Unit) -> Option<Interval> {
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
