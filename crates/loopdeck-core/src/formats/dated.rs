//! When a project last changed, when the format keeps no timestamp of its
//! own: the date its files record for themselves (GSD's `Last activity:`
//! and `Last session:` lines, a conversation's dated exchanges), refined by
//! the files' modification time.
//!
//! A modification time alone says when the bytes were last written on this
//! disk: a copy, a checkout or a `git clone` sets it to the moment they ran,
//! so a project cloned today reads as updated today. What a file records
//! survives them; the mtime is finer (a bare date says nothing of the hour).
//! So the mtime is taken when it falls on the day the record names (in
//! whatever time zone it was written: UTC−12 to UTC+14), and not before a
//! moment the record gives (a wall-clock time without its zone may be up
//! to 14 hours off UTC either way); otherwise the record is the date. A
//! record later than the file's last write (beyond the zones' slack: a
//! mistyped year, a clock set wrong) is not believed: the mtime is.

use chrono::{DateTime, NaiveDate, TimeDelta, Utc};

use super::parse_time;

/// A date a file records for itself, as precise as it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Recorded {
    /// A bare date (`2026-05-30`): some time that day, in the writer's zone.
    Day(NaiveDate),
    /// A moment with its zone (`2026-05-30T08:20:00.000Z`,
    /// `2026-05-20 06:30 UTC`).
    At(DateTime<Utc>),
    /// A wall-clock time without its zone (`2026-03-24 09:45`), read as
    /// UTC: the writer's zone may put it 14 hours either way.
    Wall(DateTime<Utc>),
}

/// How far a time zone puts a wall clock from UTC, at most.
const ZONES: TimeDelta = TimeDelta::hours(14);

impl Recorded {
    /// The earliest moment the record can mean, in UTC (a bare date:
    /// its midnight).
    fn start(self) -> DateTime<Utc> {
        match self {
            Recorded::Day(d) => d.and_hms_opt(0, 0, 0).map_or(DateTime::UNIX_EPOCH, |t| t.and_utc()),
            Recorded::At(t) | Recorded::Wall(t) => t,
        }
    }
}

/// The date at the start of a value as people and agents write it:
/// `2026-05-30 -- 03-01-PLAN complete`, `2026-05-30T08:20:00.000Z`,
/// `2026-03-24 09:45`, `2026-05-20 06:30 UTC · 阶段 5.3`,
/// `2026-02-09 (Phase 6 Plan 02 execution)`. `None` when it does not start
/// with one (narrative text, a placeholder).
pub(crate) fn recorded(value: &str) -> Option<Recorded> {
    let mut words = value.split_whitespace();
    let first = words.next()?;
    if let Some(second) = words.next().filter(|w| w.contains(':')) {
        // A date and a time of day, its zone said by a `UTC` after it.
        if let Some(t) = parse_time(&format!("{first} {second}")) {
            let zoned = words.next().is_some_and(|w| w == "UTC" || w == "Z");
            return Some(if zoned {
                Recorded::At(t)
            } else {
                Recorded::Wall(t)
            });
        }
    }
    if first.len() > 10
        && let Some(t) = parse_time(first)
    {
        return Some(Recorded::At(t));
    }
    // A bare date, maybe with punctuation stuck to it (`2026-04-10,`).
    let date = first.get(..10)?;
    let after = first[10..].chars().next();
    if after.is_some_and(|c| c.is_alphanumeric() || c == ':' || c == '-') {
        return None;
    }
    NaiveDate::parse_from_str(date, "%Y-%m-%d")
        .ok()
        .map(Recorded::Day)
}

/// The latest of several records.
pub(crate) fn latest(records: impl IntoIterator<Item = Recorded>) -> Option<Recorded> {
    records.into_iter().max_by_key(|r| r.start())
}

/// When a project last changed: `record` (what its files say), refined by
/// `mtime` (their modification time) when that falls on the recorded day
/// and not before a recorded moment; `mtime` alone without a record.
pub(crate) fn dated(
    record: Option<Recorded>,
    mtime: Option<DateTime<Utc>>,
) -> Option<DateTime<Utc>> {
    let Some(record) = record else {
        return mtime;
    };
    let day = match record {
        Recorded::Day(d) => d,
        Recorded::At(t) | Recorded::Wall(t) => t.date_naive(),
    };
    let midnight = Recorded::Day(day).start();
    // That day somewhere on Earth: from UTC+14's midnight to UTC−12's.
    let from = match record {
        Recorded::Day(_) => midnight - ZONES,
        Recorded::At(t) => t,
        Recorded::Wall(t) => t - ZONES,
    };
    let to = midnight + TimeDelta::hours(24) + ZONES;
    Some(match mtime {
        Some(m) if m >= from && m < to => m,
        // Recorded after the file was last written: not believed.
        Some(m) if record.start() - ZONES > m => m,
        _ => record.start(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().to_utc()
    }

    fn day(s: &str) -> Recorded {
        Recorded::Day(NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap())
    }

    #[test]
    fn records_are_read_as_written() {
        assert_eq!(recorded("2026-05-30 -- 03-01-PLAN complete"), Some(day("2026-05-30")));
        assert_eq!(recorded("2026-04-10 — 补录 quick"), Some(day("2026-04-10")));
        assert_eq!(recorded("2026-02-09 (Phase 6 Plan 02 execution)"), Some(day("2026-02-09")));
        assert_eq!(recorded("2026-04-10,"), Some(day("2026-04-10")));
        assert_eq!(
            recorded("2026-05-30T08:20:00.000Z"),
            Some(Recorded::At(at("2026-05-30T08:20:00Z")))
        );
        assert_eq!(
            recorded("2026-03-24 09:45"),
            Some(Recorded::Wall(at("2026-03-24T09:45:00Z")))
        );
        assert_eq!(
            recorded("2026-05-20 06:30 UTC · 阶段 5.3"),
            Some(Recorded::At(at("2026-05-20T06:30:00Z")))
        );
        for none in ["Completed 03-01-PLAN.md", "None", "", "2026-05-3", "20260530", "2026-05-30x"] {
            assert_eq!(recorded(none), None, "{none}");
        }
    }

    #[test]
    fn the_record_wins_over_a_copys_mtime_and_the_mtime_refines_its_day() {
        let d = Some(day("2026-05-30"));
        // A clone months later: the record.
        assert_eq!(
            dated(d, Some(at("2026-12-07T06:29:00Z"))),
            Some(at("2026-05-30T00:00:00Z"))
        );
        // Written that day (in UTC+8 it began at 16:00 UTC the day before):
        // the mtime's hour.
        for m in ["2026-05-30T08:20:00Z", "2026-05-29T16:30:00Z", "2026-05-31T11:00:00Z"] {
            assert_eq!(dated(d, Some(at(m))), Some(at(m)), "{m}");
        }
        // Written before that day began anywhere: the record says a day
        // after the file's last write, and is not believed.
        assert_eq!(
            dated(d, Some(at("2026-05-29T09:00:00Z"))),
            Some(at("2026-05-29T09:00:00Z"))
        );
        // A day after: the record (a copy's mtime).
        assert_eq!(
            dated(d, Some(at("2026-06-01T00:00:00Z"))),
            Some(at("2026-05-30T00:00:00Z"))
        );
        // A recorded moment: the mtime only from it on, that day.
        let t = Some(Recorded::At(at("2026-05-30T08:20:00Z")));
        assert_eq!(
            dated(t, Some(at("2026-05-30T09:00:00Z"))),
            Some(at("2026-05-30T09:00:00Z"))
        );
        for m in ["2026-05-30T08:00:00Z", "2026-06-02T09:00:00Z"] {
            assert_eq!(dated(t, Some(at(m))), Some(at("2026-05-30T08:20:00Z")), "{m}");
        }
        // A wall-clock time in its writer's zone (09:45 in UTC+8 is 01:45
        // UTC): the mtime that day, never a time after the write.
        let wall = recorded("2026-03-24 09:45");
        assert_eq!(
            dated(wall, Some(at("2026-03-24T01:46:00Z"))),
            Some(at("2026-03-24T01:46:00Z"))
        );
        // Recorded after the file's last write (a mistyped year): the mtime.
        for r in [Some(day("2027-05-30")), recorded("2027-05-30T08:20:00Z"), wall] {
            let m = at("2026-01-02T03:04:05Z");
            assert_eq!(dated(r, Some(m)), Some(m), "{r:?}");
        }
        // No record: the mtime; neither: nothing.
        assert_eq!(dated(None, Some(at("2026-12-07T06:29:00Z"))), Some(at("2026-12-07T06:29:00Z")));
        assert_eq!(dated(None, None), None);
        assert_eq!(dated(d, None), Some(at("2026-05-30T00:00:00Z")));
    }

    #[test]
    fn the_latest_record_is_the_last_activity() {
        let t = Recorded::At(at("2026-05-30T08:20:00Z"));
        assert_eq!(latest([day("2026-05-30"), t]), Some(t));
        assert_eq!(latest([t, day("2026-05-31")]), Some(day("2026-05-31")));
        assert_eq!(latest([]), None);
    }
}
