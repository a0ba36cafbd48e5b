//! Why a time value given on the command line or in data could not be read. The
//! messages name the accepted forms, since they are shown to the person who typed them.

/// The accepted spellings of a point in time, quoted in every date error.
const EXPECTED_DATE: &str = "expected a date like 2024-01-31 or 2024-01-31T09:00Z \
     (also \"8 May, 2023\", \"1:56 pm on 8 May, 2023\", \"2023-05\", \"yesterday\", \"3d ago\")";
/// The accepted spellings of a `--window`, quoted in every window error.
const EXPECTED_WINDOW: &str = "expected a window like 7d, 12h, 2w, 3m or 1y, a range like \
     2024-01-01..2024-02-01 (either side may be empty), or a period like 2024-03";

/// A time value that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimeError {
    /// Digits and separators that do not name a real day ("32/13/2020", "2023-02-29").
    #[error("{0:?} is not a calendar date; {expected}", expected = EXPECTED_DATE)]
    NotACalendarDate(String),
    /// Text that is not a date in any accepted form.
    #[error("{expected}", expected = EXPECTED_DATE)]
    NotADate,
    /// A `--window` range with neither side ("..").
    #[error("a range needs a start, an end or both; {expected}", expected = EXPECTED_WINDOW)]
    EmptyRange,
    /// One side of a `--window` range is not a date.
    #[error("range {side} {value:?}: {reason}")]
    RangeSide {
        /// "start" or "end".
        side: &'static str,
        value: String,
        reason: Box<TimeError>,
    },
    /// A `--window` range whose end is not after its start.
    #[error("the range {0:?} ends before it starts")]
    Backwards(String),
    /// A `--window` duration that reaches outside chrono's calendar.
    #[error("the duration {0:?} reaches past the calendar; {expected}", expected = EXPECTED_WINDOW)]
    BeyondCalendar(String),
    /// Text that is not a window in any accepted form.
    #[error("{expected}", expected = EXPECTED_WINDOW)]
    NotAWindow,
}
