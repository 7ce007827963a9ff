//! `act bug BUG-ID STATUS`: one step of the bug lifecycle (seed 003,
//! BugTracker.transition / P-9), written as the seed writes it: a whole new
//! line in `bugs.ndjson` carrying the bug's full latest record with the new
//! status and one more `status_history` entry `{ts, from, to, by, note}`,
//! and a `bug_transitioned` event in `timeline.ndjson`.
//!
//! The latest record is found as the reader finds it: the last complete
//! line with that id that parses as a bug (a torn tail is skipped). The
//! lifecycle is the reader's table ([`lifecycle::next_states`]).

use std::path::Path;

use serde_json::{Map, Value};

use super::event::{Event, one_line};
use super::{decision, refuse, stamp};
use crate::formats::devloop::bugfold::MAX_CHAIN;
use crate::formats::devloop::BUGS;
use crate::formats::devloop::lifecycle::{self, STATES};
use crate::formats::devloop::schema::BugLine;
use crate::model::Request;
use crate::store::StoreError;
use crate::store::ndjson::{self, RevLine, ReverseLines};
use crate::store::transact;
use crate::store::txn::{ActError, Edit, LockKind, Outcome, Snapshot, Txn, WriteOptions};

/// What the human asks of one bug.
pub(super) struct Move<'a> {
    pub id: &'a str,
    pub to: &'a str,
    pub note: Option<&'a str>,
    pub duplicate_of: Option<&'a str>,
    pub fix_ref: Option<&'a str>,
}

pub(super) fn act(
    dir: &Path,
    req: &Request,
    opts: &WriteOptions,
    m: &Move<'_>,
) -> Result<Outcome, ActError> {
    let txn = Txn::new(
        dir,
        BUGS,
        LockKind::Owner,
        opts,
        &req.by,
        req.now,
        decision(req),
    );
    transact(&txn, |snap| decide(snap, req, m))
}

fn decide(snap: &mut Snapshot, req: &Request, m: &Move<'_>) -> Result<Vec<Edit>, ActError> {
    if !STATES.contains(&m.to) {
        return Err(refuse(format!(
            "`{}` is not a bug status; the seed's statuses are {}",
            m.to,
            STATES.join(", ")
        )));
    }
    let found = find(snap, m)?;
    let Some(mut record) = found.record else {
        return Err(refuse(format!("{BUGS} has no bug `{}`", m.id)));
    };
    let from = record
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    check_move(&from, m, found.duplicate_found)?;

    let mut steps = rebuilt(&record, &found.older);
    steps.push(history_entry(req, &from, m));
    match record.get_mut("status_history") {
        Some(Value::Array(h)) => h.extend(steps),
        None | Some(Value::Null) => {
            record.insert("status_history".into(), Value::Array(steps));
        }
        Some(_) => {
            return Err(refuse(format!(
                "{}'s status_history is not a list; the bug cannot be moved without losing it",
                m.id
            )));
        }
    }
    record.insert("status".into(), Value::from(m.to));
    if let Some(d) = m.duplicate_of {
        record.insert("duplicate_of".into(), Value::from(d));
    }
    if let Some(r) = m.fix_ref {
        match record.get_mut("fix_refs") {
            Some(Value::Array(refs)) => {
                if !refs.iter().any(|x| x.as_str() == Some(r)) {
                    refs.push(Value::from(r));
                }
            }
            None | Some(Value::Null) => {
                record.insert("fix_refs".into(), Value::Array(vec![Value::from(r)]));
            }
            Some(_) => {
                return Err(refuse(format!(
                    "{}'s fix_refs is not a list; --fix-ref cannot be added to it",
                    m.id
                )));
            }
        }
    }
    let line = serde_json::to_vec(&Value::Object(record)).unwrap_or_default();

    let mut summary = format!("{} {from} → {} by {}", m.id, m.to, req.by);
    if let Some(d) = m.duplicate_of {
        summary.push_str(&format!(" (duplicate of {d})"));
    }
    if let Some(n) = m.note.filter(|n| !n.trim().is_empty()) {
        summary.push_str(": ");
        summary.push_str(&one_line(n));
    }
    let mut payload = Map::new();
    payload.insert("from".into(), Value::from(from.as_str()));
    payload.insert("to".into(), Value::from(m.to));
    payload.insert("by".into(), Value::from(req.by.as_str()));
    if let Some(n) = m.note {
        payload.insert("note".into(), Value::from(n));
    }
    if let Some(d) = m.duplicate_of {
        payload.insert("duplicate_of".into(), Value::from(d));
    }
    if let Some(r) = m.fix_ref {
        payload.insert("fix_ref".into(), Value::from(r));
    }
    let event = Event {
        kind: "bug_transitioned",
        reference: Some(m.id),
        summary,
        payload: Some(Value::Object(payload)),
    };
    Ok(vec![
        Edit::AppendLine {
            file: BUGS.to_owned(),
            line,
        },
        event.edit(req.now),
    ])
}

/// Is `from → m.to` a step of the lifecycle, with the options it needs?
fn check_move(from: &str, m: &Move<'_>, duplicate_found: bool) -> Result<(), ActError> {
    if from == m.to {
        return Err(refuse(format!("{} is already {from}", m.id)));
    }
    match lifecycle::legal(from, m.to) {
        Some(true) => {}
        Some(false) => {
            let next = lifecycle::next_states(from);
            return Err(refuse(if next.is_empty() {
                format!(
                    "{} is {from}, a final status: it cannot go to {}",
                    m.id, m.to
                )
            } else {
                format!(
                    "{} is {from}: {from} → {} is not a step of the bug lifecycle (no skipping); from {from} it can go to {}",
                    m.id,
                    m.to,
                    next.join(", ")
                )
            }));
        }
        None => {
            return Err(refuse(format!(
                "{} has status `{from}`, which is not one of the seed's ({}); loopdeck does not move it",
                m.id,
                STATES.join(", ")
            )));
        }
    }
    match (m.to, m.duplicate_of) {
        ("duplicate", None) => Err(refuse(format!(
            "say which bug {} duplicates: --duplicate-of BUG-ID",
            m.id
        ))),
        ("duplicate", Some(d)) if d == m.id => {
            Err(refuse(format!("{} cannot duplicate itself", m.id)))
        }
        ("duplicate", Some(d)) if !duplicate_found => Err(refuse(format!(
            "{BUGS} has no bug `{d}` for {} to duplicate",
            m.id
        ))),
        (to, Some(_)) if to != "duplicate" => Err(refuse(
            "--duplicate-of goes with the status duplicate".to_owned(),
        )),
        _ => Ok(()),
    }
}

fn history_entry(req: &Request, from: &str, m: &Move<'_>) -> Value {
    let mut h = Map::new();
    h.insert("ts".into(), Value::from(stamp(req.now)));
    h.insert("from".into(), Value::from(from));
    h.insert("to".into(), Value::from(m.to));
    h.insert("by".into(), Value::from(req.by.as_str()));
    if let Some(n) = m.note {
        h.insert("note".into(), Value::from(n));
    }
    Value::Object(h)
}

/// The bug `id`'s latest record, and whether the bug it duplicates is in
/// the file.
#[derive(Default)]
struct Found {
    record: Option<Map<String, Value>>,
    duplicate_found: bool,
    /// The statuses of the bug's older lines, newest first, repeats
    /// dropped, at most the reader's [`MAX_CHAIN`] + 1 (the steps its
    /// views rebuild).
    older: Vec<String>,
}

/// The bug's latest record, found as the reader finds it. A log the
/// decision may read whole is read through the snapshot (and compared
/// before the append); a larger one is walked from its end in bounded
/// steps and never held: an append needs no whole-file read, so `act bug`
/// decides on a log of any size the console lists.
fn find(snap: &mut Snapshot, m: &Move<'_>) -> Result<Found, ActError> {
    match snap.read(BUGS) {
        Ok(Some(bytes)) => return Ok(latest(bytes, m.id, m.duplicate_of)),
        Ok(None) => return Err(no_log(m)),
        Err(ActError::Store {
            source: StoreError::TooLarge { .. },
            ..
        }) => {}
        Err(e) => return Err(e),
    }
    let dir = snap.project().to_path_buf();
    let store = |source| ActError::Store {
        file: BUGS.to_owned(),
        source,
    };
    // An agent's line appended during the walk: walk again, so the record
    // is the latest one (at most three times; then the last walk stands).
    let mut found = Found::default();
    for _ in 0..3 {
        let mut lines = match ReverseLines::open_in(&dir, BUGS, u64::MAX) {
            Ok(l) => l.with_chunk(WALK_CHUNK),
            Err(StoreError::Vanished) => return Err(no_log(m)),
            Err(e) => return Err(store(e)),
        };
        let len = lines.file_len();
        let mut finder = Finder::new(m.id, m.duplicate_of);
        while let Some(line) = lines.next_line().map_err(store)? {
            if let RevLine::Line(l) = line {
                finder.line(l);
            }
        }
        found = finder.found;
        let now = std::fs::symlink_metadata(dir.join(BUGS)).map(|md| md.len());
        if now.ok() == Some(len) {
            break;
        }
    }
    Ok(found)
}

/// The read step of a walk over a large log.
const WALK_CHUNK: usize = 1024 * 1024;

fn no_log(m: &Move<'_>) -> ActError {
    refuse(format!(
        "this project has no {BUGS}, so there is no bug {} to move",
        m.id
    ))
}

/// Lines met newest first.
struct Finder<'a> {
    id: &'a str,
    duplicate_of: Option<&'a str>,
    found: Found,
}

impl<'a> Finder<'a> {
    fn new(id: &'a str, duplicate_of: Option<&'a str>) -> Self {
        Finder {
            id,
            duplicate_of,
            found: Found::default(),
        }
    }

    /// One complete line; a line with the id that does not parse as a bug
    /// falls back to the one before.
    fn line(&mut self, line: &[u8]) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        // Past what the reader holds of a line, the reader skips it: so
        // does the decision, so both see the same latest record.
        if line.len() > ndjson::MAX_LINE {
            return;
        }
        let Some(key) = ndjson::top_level_str(line, "id") else {
            return;
        };
        if Some(key) == self.duplicate_of {
            self.found.duplicate_found = true;
        }
        if key != self.id {
            return;
        }
        let f = &mut self.found;
        if f.record.is_some() {
            if let Some(st) = ndjson::top_level_str(line, "status")
                && f.older.last().map(String::as_str) != Some(st)
                && f.older.len() <= MAX_CHAIN
            {
                f.older.push(st.to_owned());
            }
        } else if crate::formats::json::from_slice::<BugLine>(line).is_ok()
            && let Ok(Value::Object(m)) = crate::formats::json::from_slice::<Value>(line)
        {
            f.record = Some(m);
        }
    }
}

/// A latest record without a cumulative history (its writer appended a
/// line per change without `status_history`) whose bug has moved: the
/// steps its older lines show, oldest first, rebuilt as the reader rebuilds
/// them (`{from, to}`: those lines say no time or author). Written ahead of
/// the new entry, so the history the views showed is not lost.
fn rebuilt(record: &Map<String, Value>, older: &[String]) -> Vec<Value> {
    let empty = match record.get("status_history") {
        None | Some(Value::Null) => true,
        Some(Value::Array(h)) => h.is_empty(),
        Some(_) => false,
    };
    let Some(mut later) = record.get("status").and_then(Value::as_str) else {
        return Vec::new();
    };
    if !empty || later == "open" {
        return Vec::new();
    }
    let mut steps = Vec::new();
    for s in older {
        if s != later {
            let mut h = Map::new();
            h.insert("from".into(), Value::from(s.as_str()));
            h.insert("to".into(), Value::from(later));
            steps.push(Value::Object(h));
            later = s;
        }
    }
    steps.reverse();
    steps
}

/// As the reader reads: complete lines only (a last line without its
/// newline is a write in progress), newest first.
fn latest(bytes: &[u8], id: &str, duplicate_of: Option<&str>) -> Found {
    let complete = match bytes.iter().rposition(|&b| b == b'\n') {
        Some(end) => &bytes[..end],
        None => &[][..],
    };
    let mut finder = Finder::new(id, duplicate_of);
    for line in complete.rsplit(|&b| b == b'\n') {
        finder.line(line);
    }
    finder.found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Format, Project, Verb};

    fn req() -> Request {
        Request {
            verb: Verb::Abandon,
            by: "yibo".into(),
            now: "2026-06-01T12:00:00Z".parse().unwrap(),
            devloop_api: None,
            config_file: None,
        }
    }

    fn mv<'a>(id: &'a str, to: &'a str) -> Move<'a> {
        Move {
            id,
            to,
            note: None,
            duplicate_of: (to == "duplicate").then_some("b0"),
            fix_ref: None,
        }
    }

    /// The write accepts exactly the steps the reader calls legal, and what
    /// it writes the reader reads back without an illegal-transition
    /// finding: one table, both sides.
    #[test]
    fn the_write_and_the_reader_share_one_lifecycle() {
        for from in STATES {
            for to in STATES {
                let tmp = tempfile::tempdir().unwrap();
                let text = format!(
                    "{{\"id\":\"b0\",\"status\":\"open\"}}\n{{\"id\":\"b1\",\"status\":\"{from}\",\"status_history\":[{{\"from\":\"open\",\"to\":\"{from}\"}}]}}\n"
                );
                std::fs::write(tmp.path().join(BUGS), &text).unwrap();
                let mut snap = Snapshot::new(tmp.path());
                let got = decide(&mut snap, &req(), &mv("b1", to));
                let legal = from != to && lifecycle::legal(from, to) == Some(true);
                assert_eq!(got.is_ok(), legal, "{from} → {to}: {got:?}");
                let Ok(edits) = got else { continue };
                let Edit::AppendLine { line, .. } = &edits[0] else {
                    panic!("{edits:?}")
                };
                let mut after = text.into_bytes();
                after.extend_from_slice(line);
                after.push(b'\n');
                std::fs::write(tmp.path().join(BUGS), after).unwrap();
                let mut p = Project::new(Format::Devloop, tmp.path().into(), "x".into());
                crate::formats::devloop::bugs::read(&mut p, tmp.path());
                let b = p.detail.bugs.iter().find(|b| b.id == "b1").unwrap();
                assert_eq!(b.status, *to);
                // open → from (when from is not reachable from open, the
                // fixture's own step is the finding, not ours).
                let ours: Vec<_> = p
                    .findings
                    .iter()
                    .filter(|f| f.message.contains(&format!("{from} → {to}")))
                    .collect();
                assert!(ours.is_empty(), "{from} → {to}: {ours:?}");
            }
        }
    }

    #[test]
    fn a_history_kept_only_in_older_lines_is_carried_into_the_new_line() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(
            tmp.path().join(BUGS),
            concat!(
                "{\"id\":\"b1\",\"status\":\"open\"}\n",
                "{\"id\":\"b1\",\"status\":\"fixing\"}\n",
                "{\"id\":\"b1\",\"status\":\"fixing\",\"title\":\"t\"}\n",
                "{\"id\":\"b1\",\"status\":\"fixed\"}\n",
            ),
        )
        .unwrap();
        let mut snap = Snapshot::new(tmp.path());
        let edits = decide(&mut snap, &req(), &mv("b1", "verified")).unwrap();
        let Edit::AppendLine { line, .. } = &edits[0] else {
            panic!()
        };
        let v: Value = serde_json::from_slice(line).unwrap();
        let steps: Vec<(&str, &str)> = v["status_history"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| (h["from"].as_str().unwrap(), h["to"].as_str().unwrap()))
            .collect();
        assert_eq!(
            steps,
            vec![
                ("open", "fixing"),
                ("fixing", "fixed"),
                ("fixed", "verified")
            ]
        );
    }

    /// The reader skips a line longer than it holds (it shows the bug at
    /// its line before); the decision starts from that same line.
    #[test]
    fn a_line_too_long_for_the_reader_is_skipped_by_the_decision_too() {
        let long = format!(
            "{{\"id\":\"b1\",\"status\":\"fixing\",\"title\":\"{}\"}}\n",
            "t".repeat(ndjson::MAX_LINE)
        );
        let text = format!("{{\"id\":\"b1\",\"status\":\"open\"}}\n{long}");
        let f = latest(text.as_bytes(), "b1", None);
        assert_eq!(f.record.unwrap()["status"], "open");
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join(BUGS), &text).unwrap();
        let mut p = Project::new(Format::Devloop, tmp.path().into(), "x".into());
        crate::formats::devloop::bugs::read(&mut p, tmp.path());
        assert_eq!(p.detail.bugs[0].status, "open", "the reader's view");
    }

    #[test]
    fn the_latest_complete_parsable_line_is_the_record() {
        let text = concat!(
            "{\"id\":\"b1\",\"status\":\"open\",\"n\":1}\n",
            "{\"id\":\"b2\",\"status\":\"open\"}\n",
            "{\"id\":\"b1\",\"status\":\"fixing\",\"n\":2}\n",
            "{\"id\":\"b1\",\"status\":[}\n",
            "{\"id\":\"b1\",\"status\":\"fixed\",\"n\":3}",
        );
        let f = latest(text.as_bytes(), "b1", Some("b2"));
        let r = f.record.unwrap();
        assert_eq!(r["n"], 2, "the torn tail and the broken line are skipped");
        assert!(f.duplicate_found);
        assert!(!latest(text.as_bytes(), "b1", Some("b3")).duplicate_found);
        assert!(latest(text.as_bytes(), "b9", None).record.is_none());
    }
}
