//! `bugs.ndjson`: append-only, one whole bug per line; the latest line of
//! each id is its state (seed 003, BugsNdjson).
//!
//! The file is scanned once from its end. Every line costs a newline search
//! and a cheap top-level `"id"` lookup; only the first line met for each id
//! (its latest) is parsed in full. Memory grows with the number of distinct
//! bugs, never with the size of the file: a 200 MB file of updates to a few
//! thousand bugs holds a few thousand bugs.

use std::collections::HashMap;
use std::path::Path;

use super::schema::BugLine;
use super::timeline::report_lines;
use crate::model::{Bug, BugStats, BugTransition, Finding, Level, Project};
use crate::store::ndjson::{self, KeyVisitor, Latest, ReverseLines, keyed};
use crate::store::{StoreError, cache};

pub const BUGS: &str = "bugs.ndjson";
/// Bugs listed in full (the most recently updated); all are counted.
/// Lines past the listing are counted from two top-level lookups, not
/// parsed, so their other fields are not checked.
pub const MAX_BUGS_LISTED: usize = 1000;
/// Read step for the full scan: large, so the scan is bound by memory
/// bandwidth, not system calls.
const SCAN_CHUNK: usize = 1024 * 1024;

/// What a scan of `bugs.ndjson` found.
#[derive(Clone)]
enum Scanned {
    Vanished,
    Problem(String),
    Read {
        bugs: Vec<Bug>,
        stats: BugStats,
        skipped: usize,
        torn: bool,
    },
}

/// The bugs into `p.detail.bugs` (by id, so by discovery time) and
/// `p.detail.bug_stats`. Inside a cached reading, an unchanged file is not
/// scanned again.
pub fn read(p: &mut Project, dir: &Path) {
    let (bugs, stats) = match cache::memo_stat(dir, BUGS, scan) {
        Scanned::Vanished => return,
        Scanned::Problem(e) => return p.problem(BUGS, e),
        Scanned::Read {
            bugs,
            stats,
            skipped,
            torn,
        } => {
            report_lines(p, BUGS, skipped, torn);
            (bugs, stats)
        }
    };
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
    // Inside a cached reading: from the last offset, replayed.
    if let Some(read) = keyed::keyed_in(dir, BUGS, "id", "status", parses, replay) {
        return match read {
            Ok(scanned) => scanned,
            Err(StoreError::Vanished) => Scanned::Vanished,
            Err(e) => Scanned::Problem(e.to_string()),
        };
    }
    let lines = match ReverseLines::open_in(dir, BUGS, u64::MAX) {
        Ok(r) => r.with_chunk(SCAN_CHUNK),
        Err(StoreError::Vanished) => return Scanned::Vanished,
        Err(e) => return Scanned::Problem(e.to_string()),
    };
    let mut v = Visitor::default();
    let scan = match ndjson::scan_by_key(lines, "id", &mut v) {
        Ok(s) => s,
        Err(e) => return Scanned::Problem(e.to_string()),
    };
    finish(v, scan.skipped, scan.torn)
}

/// Does the visitor take `line` as a bug when it lists it in full?
fn parses(line: &[u8]) -> bool {
    serde_json::from_slice::<BugLine>(line).is_ok()
}

/// What [`ndjson::scan_by_key`] would give, from the lines a keyed log
/// kept: the same visitor, met with the same lines in the same order.
fn replay(log: &keyed::KeyedLog) -> Scanned {
    let (lines, chains) = log.lines_newest_first();
    let mut v = Visitor::default();
    let mut seen: HashMap<&str, bool> = HashMap::new();
    let mut skipped = log.keyless;
    for (k, line) in lines {
        match seen.get(k) {
            Some(false) => {}
            Some(true) => v.older(k, line),
            None => match v.latest(k, line) {
                Latest::Reject => skipped += 1,
                verdict => {
                    seen.insert(k, verdict == Latest::AcceptWithHistory);
                }
            },
        }
    }
    for (k, chain) in chains {
        if seen.get(k) == Some(&true) {
            for status in chain {
                v.older_status(k, status);
            }
        }
    }
    finish(v, skipped, log.torn())
}

fn finish(v: Visitor, skipped: usize, torn: bool) -> Scanned {
    let Visitor {
        mut bugs,
        chains,
        stats,
        ..
    } = v;
    for (i, chain) in chains {
        if let Some(bug) = bugs.get_mut(i) {
            bug.history = chain.transitions.into_iter().rev().collect();
        }
    }
    bugs.sort_by(|a, b| a.id.cmp(&b.id));
    Scanned::Read {
        bugs,
        stats,
        skipped,
        torn,
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

/// The status history of a bug whose latest line has none, rebuilt from its
/// successive lines (met newest first).
struct Chain {
    /// The status of the line met last (the next newer one).
    later: String,
    transitions: Vec<BugTransition>,
}

#[derive(Default)]
struct Visitor {
    bugs: Vec<Bug>,
    /// Index into `bugs` by id, for the ids whose history is rebuilt.
    chains: HashMap<usize, Chain>,
    by_id: HashMap<String, usize>,
    stats: BugStats,
}

impl KeyVisitor for Visitor {
    fn latest(&mut self, _key: &str, line: &[u8]) -> Latest {
        if self.bugs.len() >= MAX_BUGS_LISTED {
            // Past the listing, only the counts are needed: two cheap
            // lookups instead of a parse, so a file of a million bugs
            // scans as fast as one of a few.
            let [status, severity] = ndjson::top_level_strs(line, ["status", "severity"]);
            let Some(status) = status else {
                return Latest::Reject;
            };
            let severity = severity
                .filter(|s| !s.trim().is_empty())
                .unwrap_or("unknown");
            self.stats.total += 1;
            bump(&mut self.stats.by_status, status);
            bump(&mut self.stats.by_severity, severity);
            return Latest::Accept;
        }
        let Ok(b) = serde_json::from_slice::<BugLine>(line) else {
            return Latest::Reject;
        };
        let severity = b
            .severity
            .clone()
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(|| "unknown".to_owned());
        self.stats.total += 1;
        *self.stats.by_status.entry(b.status.clone()).or_insert(0) += 1;
        *self.stats.by_severity.entry(severity.clone()).or_insert(0) += 1;
        let history: Vec<BugTransition> = b
            .status_history
            .iter()
            .filter_map(|h| {
                Some(BugTransition {
                    from: h.from.clone(),
                    to: h.to.clone()?,
                    at: h.ts.as_ref().map(|t| t.text()),
                    by: h.by.clone(),
                    note: h.note.clone(),
                })
            })
            .collect();
        // No cumulative history on a bug that has moved: rebuild it from
        // its older lines.
        let rebuild = history.is_empty() && b.status != "open";
        let unit = b
            .unit_id
            .clone()
            .or_else(|| match b.affected_units.as_slice() {
                [only] => Some(only.clone()),
                _ => None,
            });
        let index = self.bugs.len();
        self.bugs.push(Bug {
            status_kind: super::kinds::bug(&b.status),
            id: b.id.clone(),
            status: b.status.clone(),
            severity,
            title: b.title.unwrap_or_default(),
            unit,
            history,
            act: address(&b.id, &b.status),
        });
        if rebuild {
            self.by_id.insert(b.id, index);
            self.chains.insert(
                index,
                Chain {
                    later: b.status,
                    transitions: Vec::new(),
                },
            );
            Latest::AcceptWithHistory
        } else {
            Latest::Accept
        }
    }

    fn older(&mut self, key: &str, line: &[u8]) {
        if let Some(status) = ndjson::top_level_str(line, "status") {
            self.older_status(key, status);
        }
    }
}

impl Visitor {
    /// The status of an older line of `key` (newest first).
    fn older_status(&mut self, key: &str, status: &str) {
        let Some(chain) = self.by_id.get(key).and_then(|i| self.chains.get_mut(i)) else {
            return;
        };
        if status != chain.later {
            chain.transitions.push(BugTransition {
                from: Some(status.to_owned()),
                to: std::mem::replace(&mut chain.later, status.to_owned()),
                at: None,
                by: None,
                note: None,
            });
        }
    }
}

/// The bug lifecycle (seed 003, P-9 / Process.BugLifecycle): Tester opens
/// (`open`), the next Coder round takes it (`fixing`), a green run fixes it
/// (`fixed`), a passing L2 verifies it (`verified`); the seed's own test:
/// "open → verified (skipping) → refused". Where the seed is silent: a bug
/// not yet verified may be closed as `wontfix` or `duplicate`, or go back
/// (a fix that failed again); `verified`, `wontfix` and `duplicate` are
/// final. The write side (`act bug`) checks against this same table.
pub(crate) fn next_states(from: &str) -> &'static [&'static str] {
    match from {
        "open" => &["fixing", "wontfix", "duplicate"],
        "fixing" => &["fixed", "open", "wontfix", "duplicate"],
        "fixed" => &["verified", "fixing", "open", "wontfix", "duplicate"],
        _ => &[],
    }
}

/// Where bug `id` at `status` is moved, and to what (`None` when final or
/// not a seed status).
fn address(id: &str, status: &str) -> Option<crate::model::Address> {
    let next = next_states(status);
    (!next.is_empty()).then(|| crate::model::Address {
        verb: "bug",
        target: Some(id.to_owned()),
        options: next.iter().map(|s| (*s).to_owned()).collect(),
    })
}

/// Is `from → to` a transition of the lifecycle? `None` when either word
/// is not one of the seed's statuses (that is another finding's business).
pub(crate) fn legal(from: &str, to: &str) -> Option<bool> {
    if !(STATES.contains(&from) && STATES.contains(&to)) {
        return None;
    }
    Some(next_states(from).contains(&to))
}

/// The seed's bug statuses (BugsNdjson `status`).
pub(crate) const STATES: &[&str] = &[
    "open",
    "fixing",
    "fixed",
    "verified",
    "wontfix",
    "duplicate",
];

/// Count one more `key` without allocating when it is already counted.
fn bump(counts: &mut std::collections::BTreeMap<String, usize>, key: &str) {
    match counts.get_mut(key) {
        Some(n) => *n += 1,
        None => {
            counts.insert(key.to_owned(), 1);
        }
    }
}

#[cfg(test)]
mod tests {
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
