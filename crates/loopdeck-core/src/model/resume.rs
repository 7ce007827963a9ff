//! The resume card: where a project stopped, why, what it waits for, and what
//! to read first. The scenario depends on how long ago the project was last
//! updated, so it is computed against a caller-supplied "now".

use chrono::{DateTime, Datelike, Utc};
use serde::{Deserialize, Serialize};

use super::{Finding, Level, Phrase, Project};

/// Seed 000's three resume scenarios, by time since the last update.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Scenario {
    /// Under one hour: act on the next action directly.
    A,
    /// Up to seven days: show the progress review card.
    B,
    /// Beyond seven days: show the scene anchor, the proposal and the open
    /// questions, and ask what changed.
    C,
    /// The last update is ahead of "now" (beyond [`SKEW_TOLERANCE_SECONDS`]):
    /// a clock is wrong, so no time-based advice holds.
    Future,
}

pub use crate::i18n::{Age, SKEW_TOLERANCE_SECONDS};

impl Scenario {
    /// Below this age (one hour), scenario A.
    pub const A_LIMIT_SECONDS: i64 = 3600;
    /// Up to this age (seven days), scenario B; past it, C.
    pub const B_LIMIT_SECONDS: i64 = 7 * 24 * 3600;

    /// The scenario for a project last updated `since_seconds` ago. An
    /// update ahead of now by more than [`SKEW_TOLERANCE_SECONDS`] is
    /// [`Scenario::Future`], never "just now".
    pub fn for_age(since_seconds: i64) -> Scenario {
        if since_seconds < -SKEW_TOLERANCE_SECONDS {
            Scenario::Future
        } else if since_seconds < Self::A_LIMIT_SECONDS {
            Scenario::A
        } else if since_seconds <= Self::B_LIMIT_SECONDS {
            Scenario::B
        } else {
            Scenario::C
        }
    }
}

/// Facts of the resume card, gathered by the format reader.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResumeCard {
    /// Where the project stopped (stage, phase, step).
    pub stopped_at: Option<Phrase>,
    /// Why it stopped, when the files say.
    pub reason: Option<Phrase>,
    /// What it waits for now.
    pub waiting_for: Option<Phrase>,
    /// When the last working session ended, as the files say.
    pub last_session: Option<String>,
    /// The stages already completed (seed 000, Step 3a's "已完成"), as the
    /// state lists them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub completed: Vec<String>,
    /// Files worth reading before acting, relative to the project directory.
    /// Only files that exist inside the project are listed.
    pub read_first: Vec<String>,
}

/// The opening lines of a file worth rereading (scenario C's card).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Excerpt {
    /// The file, relative to the project.
    pub file: String,
    /// What it says was meant, trimmed: its first meaningful lines (not
    /// blank, not a fence or a `---` rule), never its frontmatter, markup
    /// or JSON; for a format's own file, the sections that carry the
    /// intent (see `read::excerpts`).
    pub lines: Vec<String>,
}

/// Seconds from `updated_at` to `now` (negative when the update is ahead).
pub fn since_seconds(updated_at: Option<DateTime<Utc>>, now: DateTime<Utc>) -> Option<i64> {
    updated_at.map(|t| (now - t).num_seconds())
}

/// Short relative age: `45s`, `3m`, `5h`, `2d`, `7w`; `future` for a time
/// ahead of now by more than [`SKEW_TOLERANCE_SECONDS`] (never `0s`). The
/// form the data carries (findings, refusals); the console and the tables
/// show `i18n::age`.
pub fn relative_age(seconds: i64) -> String {
    match Age::of(seconds) {
        Age::Future => "future".to_owned(),
        Age::Seconds(n) => format!("{n}s"),
        Age::Minutes(n) => format!("{n}m"),
        Age::Hours(n) => format!("{n}h"),
        Age::Days(n) => format!("{n}d"),
        Age::Weeks(n) => format!("{n}w"),
    }
}

/// The age as prose: `3m ago`, or `in the future (2h ahead)`.
pub fn ago(seconds: i64) -> String {
    if seconds < -SKEW_TOLERANCE_SECONDS {
        format!("in the future ({} ahead)", relative_age(-seconds))
    } else {
        format!("{} ago", relative_age(seconds))
    }
}

/// A point in time for a narrow column: `06-01 12:00` in the year of
/// `now`, `2025-12-31 23:59` in any other year (so no date is ambiguous).
pub fn short_time(at: DateTime<Utc>, now: DateTime<Utc>) -> String {
    if at.year() == now.year() {
        at.format("%m-%d %H:%M").to_string()
    } else {
        at.format("%Y-%m-%d %H:%M").to_string()
    }
}

/// [`short_time`] with the seconds (`06-01 12:00:07`): for events less
/// than a minute apart, which the minute alone does not tell apart.
pub fn short_time_seconds(at: DateTime<Utc>, now: DateTime<Utc>) -> String {
    if at.year() == now.year() {
        at.format("%m-%d %H:%M:%S").to_string()
    } else {
        at.format("%Y-%m-%d %H:%M:%S").to_string()
    }
}

/// The `clock-skew` finding: the project says it was updated after `now`
/// (by more than [`SKEW_TOLERANCE_SECONDS`]), so its age and resume scenario
/// cannot be trusted. `None` when the update time is unknown or not ahead.
pub fn clock_skew(p: &Project, now: DateTime<Utc>) -> Option<Finding> {
    let at = p.updated_at?;
    let ahead = (at - now).num_seconds();
    (ahead > SKEW_TOLERANCE_SECONDS).then(|| {
        Finding::new(
            Level::Warning,
            CLOCK_SKEW,
            format!(
                "last update {} is {} ahead of now ({}): a clock is wrong, so its age and resume advice cannot be trusted",
                at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                relative_age(ahead),
                now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            ),
        )
    })
}

/// The code of the [`clock_skew`] finding.
pub const CLOCK_SKEW: &str = "clock-skew";

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn scenarios_split_at_one_hour_and_seven_days() {
        assert_eq!(Scenario::for_age(-5), Scenario::A);
        assert_eq!(
            Scenario::for_age(-SKEW_TOLERANCE_SECONDS - 1),
            Scenario::Future
        );
        assert_eq!(Scenario::for_age(-3 * 86_400), Scenario::Future);
        assert_eq!(Scenario::for_age(3599), Scenario::A);
        assert_eq!(Scenario::for_age(3600), Scenario::B);
        assert_eq!(Scenario::for_age(7 * 86_400), Scenario::B);
        assert_eq!(Scenario::for_age(7 * 86_400 + 1), Scenario::C);
    }

    #[test]
    fn relative_ages_are_short() {
        assert_eq!(relative_age(5), "5s");
        assert_eq!(relative_age(180), "3m");
        assert_eq!(relative_age(2 * 86_400 + 5), "2d");
        assert_eq!(relative_age(30 * 86_400), "4w");
    }

    #[test]
    fn a_time_in_the_future_is_said_so() {
        assert_eq!(relative_age(-10), "0s", "within the tolerance: just now");
        assert_eq!(relative_age(-7200), "future");
        assert_eq!(ago(-7200), "in the future (2h ahead)");
        assert_eq!(ago(180), "3m ago");
    }

    #[test]
    fn the_year_shows_when_it_is_not_this_year() {
        let now = Utc.with_ymd_and_hms(2026, 6, 1, 12, 0, 0).unwrap();
        let same = Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 0).unwrap();
        let last = Utc.with_ymd_and_hms(2025, 12, 31, 23, 59, 0).unwrap();
        assert_eq!(short_time(same, now), "01-02 03:04");
        assert_eq!(short_time(last, now), "2025-12-31 23:59");
    }

    #[test]
    fn clock_skew_is_a_finding_only_ahead_of_now() {
        let now = Utc.with_ymd_and_hms(2026, 6, 1, 12, 0, 0).unwrap();
        let mut p = Project::new(super::super::Format::Gsd, "x".into(), "x".into());
        assert_eq!(clock_skew(&p, now), None, "no time, no finding");
        p.updated_at = Some(now - chrono::Duration::hours(1));
        assert_eq!(clock_skew(&p, now), None);
        p.updated_at = Some(now + chrono::Duration::seconds(SKEW_TOLERANCE_SECONDS));
        assert_eq!(clock_skew(&p, now), None, "within the tolerance");
        p.updated_at = Some(now + chrono::Duration::days(3));
        let f = clock_skew(&p, now).unwrap();
        assert_eq!((f.level, f.code.as_str()), (Level::Warning, CLOCK_SKEW));
        assert!(f.message.contains("2026-06-04T12:00:00Z"), "{}", f.message);
        assert!(f.message.contains("3d ahead"), "{}", f.message);
    }
}
