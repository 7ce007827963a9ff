//! What `act` promises about `loopdeck undo` is what `undo` then does
//! (ARCHITECTURE.md write rule 6): a decision that is itself a line of an
//! append-only log says it cannot be undone, and undo refuses it; one that
//! replaced a file beside a timeline event says undo puts the file back and
//! the event stays, and undo does exactly that.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::path::Path;

use common::{NOW, loopdeck, workspace};

const PROJECTS: &str = "devloop/data/companies/acme/projects";
const OPEN_BUG: &str = "bug-20260601-0902-d4e8";

fn run(state: &Path, args: &[&str]) -> (String, String, i32) {
    let out = loopdeck()
        .env("XDG_STATE_HOME", state)
        .args(args)
        .args(["--by", "yibo", "--now", NOW])
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap(),
    )
}

/// The audit id in `act`'s last line.
fn audit_id(stdout: &str) -> String {
    let last = stdout.lines().last().unwrap();
    let at = last.find("(audit ").unwrap() + "(audit ".len();
    last[at..]
        .split([';', ')'])
        .next()
        .unwrap()
        .trim()
        .to_owned()
}

#[test]
fn act_bug_says_it_cannot_be_undone_and_undo_refuses_it() {
    let (_tmp, ws) = workspace();
    let state = tempfile::tempdir().unwrap();
    let dir = ws.join(PROJECTS).join("p-restock");
    let (out, err, code) = run(
        state.path(),
        &["act", dir.to_str().unwrap(), "bug", OPEN_BUG, "fixing"],
    );
    assert_eq!(code, 0, "{err}");
    let last = out.lines().last().unwrap();
    assert!(!last.contains("puts it back"), "{last}");
    assert!(
        last.contains("it cannot be undone: bugs.ndjson is an append-only log"),
        "{last}"
    );
    let id = audit_id(&out);
    assert!(
        last.contains(&format!("`loopdeck undo {id}` refuses it")),
        "{last}"
    );
    let bugs = fs::read(dir.join("bugs.ndjson")).unwrap();
    // As said: undo refuses it, and writes nothing.
    let (_, err, code) = run(state.path(), &["undo", &id]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("cannot be undone"), "{err}");
    assert_eq!(fs::read(dir.join("bugs.ndjson")).unwrap(), bugs);
}

#[test]
fn a_decision_beside_a_timeline_event_says_what_undo_puts_back_and_what_stays() {
    let (_tmp, ws) = workspace();
    let state = tempfile::tempdir().unwrap();
    let dir = ws.join(PROJECTS).join("p-shipped");
    common::settle_prd_conflict(&dir);
    let project_before = fs::read(dir.join("project.json")).unwrap();
    let (out, err, code) = run(state.path(), &["act", dir.to_str().unwrap(), "sign-off"]);
    assert_eq!(code, 0, "{err}");
    let last = out.lines().last().unwrap();
    let id = audit_id(&out);
    assert!(
        last.contains(&format!("`loopdeck undo {id}` puts back project.json;"))
            && last.contains("what was appended to timeline.ndjson stays"),
        "{last}"
    );
    let timeline = fs::read(dir.join("timeline.ndjson")).unwrap();
    let (_, err, code) = run(state.path(), &["undo", &id]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(fs::read(dir.join("project.json")).unwrap(), project_before);
    // The timeline is never rewritten: its event stays, and one more says
    // the decision was undone.
    let after = fs::read(dir.join("timeline.ndjson")).unwrap();
    assert!(after.starts_with(&timeline));
    let added = String::from_utf8_lossy(&after[timeline.len()..]).into_owned();
    assert_eq!(added.lines().count(), 1, "{added}");
    assert!(added.contains("\"kind\":\"decision_undone\""), "{added}");
}
