//! `bugs.ndjson`: append-only, one whole bug per line; the latest line of
//! each id is its state (seed 003, BugsNdjson).
//!
//! Every reading folds the file into one compact record per bug (see
//! [`super::bugfold`]): memory grows with the number of distinct bugs,
//! never with the size of the file or of its lines, and the console,
//! `watch`, `list` and `show` all hold the same bounded fold.

use super::bugfold::{self, Reading};
use super::BUGS;
use super::lifecycle::{legal, next_states};
use super::timeline::report_lines;
use crate::model::{Bug, Finding, Level, Project};
use crate::store::{StoreError, cache};
use std::path::Path;


/// What a reading of `bugs.ndjson` found.
#[derive(Clone)]
enum Scanned {
    Vanished,
    Problem(String),
    Read(Reading),
}

/// The bugs into `p.detail.bugs` (by id, so by discovery time) and
/// `p.detail.bug_stats`. Inside a cached reading, an unchanged file is not
/// read again, and an appended one is read from where the last reading
/// stopped.
pub(crate) fn read(p: &mut Project, dir: &Path) {
    let Reading {
        bugs,
        stats,
        skipped,
        torn,
    } = match cache::memo_stat(dir, BUGS, scan) {
        Scanned::Vanished => return,
        Scanned::Problem(e) => return p.problem(BUGS, e),
        Scanned::Read(r) => r,
    };
    report_lines(p, BUGS, skipped, torn);
    findings(p, &bugs);
    let mut bugs = bugs;
    // A bug duplicates another one: with no other bug in the file, the act
    // refuses `duplicate`, so it is not offered.
    let first = bugs.first().map(|b| b.id.clone());
    if bugs.iter().all(|b| Some(&b.id) == first.as_ref()) {
        for a in bugs.iter_mut().filter_map(|b| b.act.as_mut()) {
            a.options.retain(|o| o != "duplicate");
        }
    }
    p.detail.bugs = bugs;
    p.detail.bug_stats = Some(stats);
}

fn scan(dir: &Path) -> Scanned {
    match bugfold::read(dir, BUGS) {
        Ok(r) => Scanned::Read(r),
        Err(StoreError::Vanished) => Scanned::Vanished,
        Err(e) => Scanned::Problem(e.to_string()),
    }
}

/// Transitions the bug lifecycle does not allow.
fn findings(p: &mut Project, bugs: &[Bug]) {
    for b in bugs {
        for t in &b.history {
            let Some(from) = t.from.as_deref() else {
                continue;
            };
            if from != t.to && legal(from, &t.to) == Some(false) {
                let when =
                    t.at.as_deref()
                        .map_or(String::new(), |a| format!(" at {a}"));
                let by =
                    t.by.as_deref()
                        .map_or(String::new(), |b| format!(" by {b}"));
                p.findings.push(
                    Finding::new(
                        Level::Warning,
                        "devloop.bug-illegal-transition",
                        format!(
                            "{} went {from} → {}{when}{by}, which the bug lifecycle does not allow (from {from}: {})",
                            b.id,
                            t.to,
                            next_states(from).join(", ")
                        ),
                    )
                    .at(b.id.as_str()),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::bugfold::MAX_BUGS_LISTED;
    use super::*;
    use crate::model::Format;
    use std::fs;

    fn bugs(text: &str) -> Project {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join(BUGS), text).unwrap();
        let mut p = Project::new(Format::Devloop, tmp.path().to_path_buf(), "x".into());
        read(&mut p, tmp.path());
        p
    }

    #[test]
    fn the_latest_line_of_each_id_is_its_state() {
        let p = bugs(concat!(
            r#"{"id":"bug-1","status":"open","severity":"high","title":"t1","status_history":[]}"#,
            "\n",
            r#"{"id":"bug-2","status":"open","severity":"low","title":"t2","unit_id":"a-be","status_history":[]}"#,
            "\n",
            r#"{"id":"bug-1","status":"fixing","severity":"high","title":"t1","status_history":[{"ts":"2026-06-01T10:00:00Z","from":"open","to":"fixing","by":"coder"}]}"#,
            "\n",
            "not json at all\n",
            r#"{"id":"bug-3","severity":"low"}"#,
            "\n",
            r#"{"id":"bug-1","status":"fixed","severity":"high","title":"t1","status_history":[{"ts":"2026-06-01T10:00:00Z","from":"open","to":"fixing","by":"coder"},{"ts":"2026-06-01T11:00:00Z","from":"fixing","to":"fixed","by":"coder","note":"run-x"}]}"#,
            "\n",
            r#"{"id":"bug-2","status":"wontfix","severity":"lo"#,
        ));
        let ids: Vec<(&str, &str)> = p
            .detail
            .bugs
            .iter()
            .map(|b| (b.id.as_str(), b.status.as_str()))
            .collect();
        assert_eq!(ids, vec![("bug-1", "fixed"), ("bug-2", "open")]);
        let b1 = &p.detail.bugs[0];
        assert_eq!(b1.history.len(), 2);
        assert_eq!(b1.history[1].note.as_deref(), Some("run-x"));
        assert_eq!(p.detail.bugs[1].unit.as_deref(), Some("a-be"));
        let act = b1.act.as_ref().unwrap();
        assert_eq!((act.verb, act.target.as_deref()), ("bug", Some("bug-1")));
        assert_eq!(
            act.options,
            ["verified", "fixing", "open", "wontfix", "duplicate"]
        );
        let stats = p.detail.bug_stats.as_ref().unwrap();
        assert_eq!(stats.total, 2);
        assert_eq!(stats.by_status.get("fixed"), Some(&1));
        assert_eq!(stats.by_status.get("open"), Some(&1));
        assert_eq!(stats.by_severity.get("high"), Some(&1));
        assert_eq!(stats.by_severity.get("low"), Some(&1));
        // "not json" and bug-3 without a status; the torn bug-2 line is
        // reported as torn, not counted.
        assert_eq!(p.detail.skipped_lines.get(BUGS), Some(&2));
    }

    #[test]
    fn an_illegal_transition_is_a_finding() {
        let p = bugs(concat!(
            r#"{"id":"bug-1","status":"verified","severity":"high","title":"t","status_history":[{"ts":"2026-06-01T10:00:00Z","from":"open","to":"verified","by":"system"}]}"#,
            "\n",
            r#"{"id":"bug-2","status":"verified","severity":"high","title":"t","status_history":[{"from":"open","to":"fixing"},{"from":"fixing","to":"fixed"},{"from":"fixed","to":"verified"}]}"#,
            "\n",
            // Rebuilt from successive lines: open, then verified.
            "{\"id\":\"bug-3\",\"status\":\"open\",\"severity\":\"low\"}\n",
            "{\"id\":\"bug-3\",\"status\":\"verified\",\"severity\":\"low\"}\n",
            "{\"id\":\"bug-4\",\"status\":\"open\",\"severity\":\"low\",\"status_history\":[{\"from\":\"open\",\"to\":\"reopened\"}]}\n",
        ));
        let found: Vec<(&str, &str)> = p
            .findings
            .iter()
            .filter(|f| f.code == "devloop.bug-illegal-transition")
            .map(|f| (f.reference.as_deref().unwrap(), f.message.as_str()))
            .collect();
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].0, "bug-1");
        assert!(
            found[0]
                .1
                .contains("open → verified at 2026-06-01T10:00:00Z by system"),
            "{}",
            found[0].1
        );
        assert_eq!(found[1].0, "bug-3");
        assert_eq!(legal("open", "fixed"), Some(false));
        assert_eq!(legal("fixed", "verified"), Some(true));
        assert_eq!(legal("verified", "open"), Some(false));
        assert_eq!(legal("open", "reopened"), None);
    }

    #[test]
    fn history_is_rebuilt_from_successive_lines_when_not_cumulative() {
        let p = bugs(concat!(
            "{\"id\":\"bug-1\",\"status\":\"open\",\"severity\":\"high\",\"title\":\"t\"}\n",
            "{\"id\":\"bug-1\",\"status\":\"fixing\",\"severity\":\"high\",\"title\":\"t\"}\n",
            "{\"id\":\"bug-1\",\"status\":\"fixing\",\"severity\":\"high\",\"title\":\"t2\"}\n",
            "{\"id\":\"bug-1\",\"status\":\"fixed\",\"severity\":\"high\",\"title\":\"t3\"}\n",
        ));
        let b = &p.detail.bugs[0];
        assert_eq!(b.title, "t3");
        let steps: Vec<(Option<&str>, &str)> = b
            .history
            .iter()
            .map(|t| (t.from.as_deref(), t.to.as_str()))
            .collect();
        assert_eq!(
            steps,
            vec![(Some("open"), "fixing"), (Some("fixing"), "fixed")]
        );
    }

    #[test]
    fn every_bug_is_counted_but_only_the_newest_are_listed() {
        let mut text = String::new();
        for i in 0..MAX_BUGS_LISTED + 10 {
            let sev = if i % 2 == 0 { "high" } else { "low" };
            text.push_str(&format!(
                "{{\"id\":\"bug-{i:05}\",\"status\":\"open\",\"severity\":\"{sev}\",\"title\":\"t\"}}\n"
            ));
        }
        text.push_str("{\"id\":\"bug-x\",\"title\":\"no status\"}\n");
        let p = bugs(&text);
        assert_eq!(p.detail.bugs.len(), MAX_BUGS_LISTED);
        assert_eq!(p.detail.bugs[0].id, "bug-00010", "the newest lines");
        let stats = p.detail.bug_stats.as_ref().unwrap();
        assert_eq!(stats.total, MAX_BUGS_LISTED + 10);
        assert_eq!(
            stats.by_severity.get("high"),
            Some(&(MAX_BUGS_LISTED / 2 + 5))
        );
        assert_eq!(p.detail.skipped_lines.get(BUGS), Some(&1));
    }

    #[test]
    fn a_latest_line_that_does_not_parse_falls_back_to_the_one_before() {
        let p = bugs(concat!(
            "{\"id\":\"bug-1\",\"status\":\"open\",\"severity\":\"high\",\"title\":\"t\"}\n",
            "{\"id\":\"bug-1\",\"status\":\"fixing\",\"severity\":[}\n",
        ));
        assert_eq!(p.detail.bugs[0].status, "open");
        assert_eq!(p.detail.skipped_lines.get(BUGS), Some(&1));
    }
}
