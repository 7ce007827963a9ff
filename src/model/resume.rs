//! The resume card: where a project stopped, why, what it waits for, and what
//! to read first. The scenario depends on how long ago the project was last
//! updated, so it is computed against a caller-supplied "now".

use chrono::{DateTime, Utc};
use serde::Serialize;

/// Seed 000's three resume scenarios, by time since the last update.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Scenario {
    /// Under one hour: act on the next action directly.
    A,
    /// Up to seven days: show the progress review card.
    B,
    /// Beyond seven days: show the scene anchor, the proposal and the open
    /// questions, and ask what changed.
    C,
}

impl Scenario {
    pub const A_LIMIT_SECONDS: i64 = 3600;
    pub const B_LIMIT_SECONDS: i64 = 7 * 24 * 3600;

    /// The scenario for a project last updated `since_seconds` ago. A clock
    /// skew (an update in the future) counts as "just now".
    pub fn for_age(since_seconds: i64) -> Scenario {
        if since_seconds < Self::A_LIMIT_SECONDS {
            Scenario::A
        } else if since_seconds <= Self::B_LIMIT_SECONDS {
            Scenario::B
        } else {
            Scenario::C
        }
    }
}

/// Facts of the resume card, gathered by the format reader.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ResumeCard {
    /// Where the project stopped (stage, phase, step).
    pub stopped_at: Option<String>,
    /// Why it stopped, when the files say.
    pub reason: Option<String>,
    /// What it waits for now.
    pub waiting_for: Option<String>,
    /// When the last working session ended, as the files say.
    pub last_session: Option<String>,
    /// The stages already completed (seed 000, Step 3a's "已完成"), as the
    /// state lists them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub completed: Vec<String>,
    /// Files worth reading before acting, relative to the project directory.
    /// Only files that exist inside the project are listed.
    pub read_first: Vec<String>,
}

/// The opening lines of a file worth rereading (scenario C's card).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Excerpt {
    pub file: String,
    pub lines: Vec<String>,
}

/// Seconds from `updated_at` to `now` (negative when the update is ahead).
pub fn since_seconds(updated_at: Option<DateTime<Utc>>, now: DateTime<Utc>) -> Option<i64> {
    updated_at.map(|t| (now - t).num_seconds())
}

/// Short relative age: `45s`, `3m`, `5h`, `2d`, `7w`.
pub fn relative_age(seconds: i64) -> String {
    let s = seconds.max(0);
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m", s / 60),
        3600..=86_399 => format!("{}h", s / 3600),
        86_400..=1_209_599 => format!("{}d", s / 86_400),
        _ => format!("{}w", s / 604_800),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenarios_split_at_one_hour_and_seven_days() {
        assert_eq!(Scenario::for_age(-5), Scenario::A);
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
}
