//! What each devloop status word means (seed 003's enums), so no view has
//! to guess from the word. A word the seed does not define is `Unknown`.
//!
//! Decisions where the seed is silent on meaning: `shipped` is done (its
//! sign-off is an inbox item of its own); `abandoned` did not ship, so it is
//! failed; an `idle` agent has not started; a bug that is `fixed`, `wontfix`
//! or `duplicate` needs no more work, so it is done like `verified`.

use crate::model::StatusKind;

/// `project.json` status (ProjectMeta.status), plus loopdeck's own
/// `unreadable`.
pub(crate) fn project(status: &str) -> StatusKind {
    match status {
        "prd_drafting" => StatusKind::Planning,
        "running" => StatusKind::Running,
        "blocked" => StatusKind::Blocked,
        "shipped" | "shipped-final" => StatusKind::Done,
        "abandoned" | "unreadable" => StatusKind::Failed,
        _ => StatusKind::Unknown,
    }
}

/// `units.json` unit status.
pub(crate) fn unit(status: &str) -> StatusKind {
    match status {
        "pending" => StatusKind::Planning,
        "coding" | "testing" => StatusKind::Running,
        "failed" => StatusKind::Failed,
        "passed" => StatusKind::Done,
        "blocked" => StatusKind::Blocked,
        _ => StatusKind::Unknown,
    }
}

/// AgentRuntimeState status.
pub(crate) fn agent(status: &str) -> StatusKind {
    match status {
        "idle" => StatusKind::Planning,
        "running" => StatusKind::Running,
        "paused" => StatusKind::Waiting,
        "done" => StatusKind::Done,
        "error" => StatusKind::Failed,
        _ => StatusKind::Unknown,
    }
}

/// BugsNdjson status.
pub(crate) fn bug(status: &str) -> StatusKind {
    match status {
        "open" => StatusKind::Planning,
        "fixing" => StatusKind::Running,
        "fixed" | "verified" | "wontfix" | "duplicate" => StatusKind::Done,
        _ => StatusKind::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_seed_word_has_its_kind_and_others_are_unknown() {
        for (word, kind) in [
            ("prd_drafting", StatusKind::Planning),
            ("running", StatusKind::Running),
            ("blocked", StatusKind::Blocked),
            ("shipped", StatusKind::Done),
            ("shipped-final", StatusKind::Done),
            ("abandoned", StatusKind::Failed),
            ("Running", StatusKind::Unknown),
            ("recovered", StatusKind::Unknown),
        ] {
            assert_eq!(project(word), kind, "project {word}");
        }
        for (word, kind) in [
            ("pending", StatusKind::Planning),
            ("coding", StatusKind::Running),
            ("testing", StatusKind::Running),
            ("failed", StatusKind::Failed),
            ("passed", StatusKind::Done),
            ("blocked", StatusKind::Blocked),
            ("skipped", StatusKind::Unknown),
        ] {
            assert_eq!(unit(word), kind, "unit {word}");
        }
        for (word, kind) in [
            ("idle", StatusKind::Planning),
            ("running", StatusKind::Running),
            ("paused", StatusKind::Waiting),
            ("done", StatusKind::Done),
            ("error", StatusKind::Failed),
            ("stopped", StatusKind::Unknown),
        ] {
            assert_eq!(agent(word), kind, "agent {word}");
        }
        for (word, kind) in [
            ("open", StatusKind::Planning),
            ("fixing", StatusKind::Running),
            ("fixed", StatusKind::Done),
            ("verified", StatusKind::Done),
            ("wontfix", StatusKind::Done),
            ("duplicate", StatusKind::Done),
            ("reopened", StatusKind::Unknown),
        ] {
            assert_eq!(bug(word), kind, "bug {word}");
        }
    }

    #[test]
    fn words_the_old_guess_got_wrong() {
        // The old substring guess read every "block" as an error and knew
        // nothing of wontfix, duplicate, idle or prd_drafting.
        assert_eq!(unit("blocked"), StatusKind::Blocked);
        assert_eq!(project("blocked"), StatusKind::Blocked);
        assert_eq!(bug("wontfix"), StatusKind::Done);
        assert_eq!(bug("duplicate"), StatusKind::Done);
        assert_eq!(agent("idle"), StatusKind::Planning);
        assert_eq!(project("prd_drafting"), StatusKind::Planning);
    }
}
