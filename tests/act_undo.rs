//! `loopdeck undo` through the binary: who and when are the caller's
//! (`--by`, `--now`), and a devloop bug transition (an append-only log) is
//! refused with the file untouched.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;

use common::{loopdeck, repo};

fn audit_lines(state: &std::path::Path) -> Vec<serde_json::Value> {
    fs::read_to_string(state.join("loopdeck/audit.ndjson"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn undo_records_who_and_when_the_caller_says() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("p");
    common::copy_dir(
        &repo().join("examples/workspace/gsd/paused-waiting"),
        &project,
    );
    let state = tmp.path().join("state");
    let original = fs::read(project.join(".planning/STATE.md")).unwrap();
    loopdeck()
        .env("XDG_STATE_HOME", &state)
        .args([
            "act",
            project.to_str().unwrap(),
            "add-blocker",
            "b",
            "--by",
            "ann",
        ])
        .assert()
        .success();
    assert_ne!(
        fs::read(project.join(".planning/STATE.md")).unwrap(),
        original
    );
    loopdeck()
        .env("XDG_STATE_HOME", &state)
        .args([
            "undo",
            "--last",
            "--by",
            "bob",
            "--now",
            "2026-06-02T08:00:00Z",
        ])
        .assert()
        .success();
    assert_eq!(
        fs::read(project.join(".planning/STATE.md")).unwrap(),
        original
    );
    let log = audit_lines(&state);
    assert_eq!(log.len(), 2);
    assert_eq!(log[0]["by"], "ann");
    assert_eq!(log[1]["by"], "bob");
    assert!(
        log[1]["at"]
            .as_str()
            .unwrap()
            .starts_with("2026-06-02T08:00:00"),
        "{}",
        log[1]
    );
}

#[test]
fn a_bug_transition_is_not_undone_and_the_logs_stay_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    common::copy_dir(&repo().join("examples/workspace/devloop"), &ws);
    let dir = ws.join("data/companies/acme/projects/p-restock");
    let state = tmp.path().join("state");
    let shown = common::json(&["show", dir.to_str().unwrap()]);
    let bug = shown["bugs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["status"] == "open")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    loopdeck()
        .env("XDG_STATE_HOME", &state)
        .args(["act", dir.to_str().unwrap(), "bug", &bug, "fixing"])
        .assert()
        .success();
    let bugs = fs::read(dir.join("bugs.ndjson")).unwrap();
    let timeline = fs::read(dir.join("timeline.ndjson")).unwrap();
    loopdeck()
        .env("XDG_STATE_HOME", &state)
        .args(["undo", "--last"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("append-only"));
    assert_eq!(fs::read(dir.join("bugs.ndjson")).unwrap(), bugs);
    assert_eq!(fs::read(dir.join("timeline.ndjson")).unwrap(), timeline);
}
