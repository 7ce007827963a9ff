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
    // The record's time is the real clock (as its id); the `--now` the
    // decision was made as of is kept beside it.
    assert_eq!(log[1]["now"], "2026-06-02T08:00:00+00:00", "{}", log[1]);
    let at = chrono::DateTime::parse_from_rfc3339(log[1]["at"].as_str().unwrap()).unwrap();
    let age = chrono::Utc::now().signed_duration_since(at);
    assert!(age.num_seconds().abs() < 600, "{}", log[1]);
    let id = log[1]["id"].as_str().unwrap();
    assert_eq!(
        &id[..15],
        at.with_timezone(&chrono::Utc)
            .format("%Y%m%dT%H%M%S")
            .to_string(),
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

/// A GSD project from the examples in `tmp/name`.
fn gsd_copy(tmp: &std::path::Path, name: &str) -> std::path::PathBuf {
    let project = tmp.join(name);
    common::copy_dir(
        &repo().join("examples/workspace/gsd/paused-waiting"),
        &project,
    );
    project
}

fn state_md(project: &std::path::Path) -> Vec<u8> {
    fs::read(project.join(".planning/STATE.md")).unwrap()
}

/// `loopdeck ARGS` with the state directory `state`, in `cwd`.
fn run_in(cwd: &std::path::Path, state: &std::path::Path, args: &[&str]) -> std::process::Output {
    loopdeck()
        .current_dir(cwd)
        .env("XDG_STATE_HOME", state)
        .args(args)
        .output()
        .unwrap()
}

fn add_blocker(state: &std::path::Path, project: &std::path::Path, text: &str) {
    let out = run_in(
        project,
        state,
        &["act", project.to_str().unwrap(), "add-blocker", text],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Undo is a stack: `undo --last` again steps further back (it re-applied
/// the decision it had just undone); `redo` puts back, newest undo first;
/// each end of the stack is refused saying so.
#[test]
fn undo_steps_back_and_redo_steps_forward() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("state");
    let p = gsd_copy(tmp.path(), "p");
    let original = state_md(&p);
    add_blocker(&state, &p, "first blocker");
    let one = state_md(&p);
    add_blocker(&state, &p, "second blocker");
    let two = state_md(&p);
    let undo = |args: &[&str]| run_in(&p, &state, args);
    let out = undo(&["undo", "--last"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(state_md(&p), one);
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(said.contains("undoes add-blocker"), "{said}");
    assert!(
        said.contains(&format!("in p ({})", p.canonicalize().unwrap().display())),
        "{said}"
    );
    assert!(undo(&["undo", "--last"]).status.success());
    assert_eq!(state_md(&p), original, "the second undo steps further back");
    let out = undo(&["undo", "--last"]);
    assert_eq!(out.status.code(), Some(1));
    let why = String::from_utf8_lossy(&out.stderr);
    assert!(
        why.contains("undone already") && why.contains("loopdeck redo"),
        "{why}"
    );
    assert_eq!(state_md(&p), original);
    let out = undo(&["redo"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("redoes undo of"));
    assert_eq!(state_md(&p), one, "redo puts back the newest undo first");
    assert!(undo(&["redo"]).status.success());
    assert_eq!(state_md(&p), two);
    let out = undo(&["redo"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no undo"));
    // And back down again: the redone decisions are in force.
    assert!(undo(&["undo", "--last"]).status.success());
    assert_eq!(state_md(&p), one);
}

/// `undo --last DIR` undoes that project's newest decision, not another
/// project's newer one; without DIR, the current directory's project.
#[test]
fn undo_last_is_the_named_or_current_projects() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("state");
    let a = gsd_copy(tmp.path(), "alpha");
    let b = gsd_copy(tmp.path(), "beta");
    let (a0, b0) = (state_md(&a), state_md(&b));
    add_blocker(&state, &a, "alpha's blocker");
    add_blocker(&state, &b, "beta's blocker");
    let b1 = state_md(&b);
    // From the workspace (no project of its own): DIR names alpha.
    let out = run_in(tmp.path(), &state, &["undo", "--last", a.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("in alpha ("));
    assert_eq!(state_md(&a), a0);
    assert_eq!(state_md(&b), b1, "beta's newer decision stays");
    // alpha has nothing left to undo: refused, beta untouched.
    let out = run_in(tmp.path(), &state, &["undo", "--last", a.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(state_md(&b), b1);
    // In alpha's .planning directory, `undo` is alpha's: still nothing.
    let out = run_in(&a.join(".planning"), &state, &["undo"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(state_md(&b), b1);
    // In beta, beta's.
    let out = run_in(&b, &state, &["undo", "--last"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("in beta ("));
    assert_eq!(state_md(&b), b0);
    // A directory in no project is a usage error naming it.
    let none = tmp.path().join("empty");
    fs::create_dir(&none).unwrap();
    let out = run_in(
        tmp.path(),
        &state,
        &["undo", "--last", none.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("empty"));
}

/// Undoing a new project removes its directory once empty, so the name
/// can be used again; redo makes it again.
#[test]
fn undoing_a_new_project_frees_its_name() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("state");
    let ws = tmp.path().join("ws");
    fs::create_dir(&ws).unwrap();
    let make = || {
        run_in(
            &ws,
            &state,
            &[
                "act",
                ws.to_str().unwrap(),
                "new-project",
                "restock",
                "--work-type",
                "feature",
            ],
        )
    };
    let out = make();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = ws.join("restock");
    let made = fs::read(dir.join("state.json")).unwrap();
    let out = run_in(&ws, &state, &["undo", "--last"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!dir.exists(), "the empty directory is removed");
    let out = run_in(&ws, &state, &["redo"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(fs::read(dir.join("state.json")).unwrap(), made);
    let out = run_in(&ws, &state, &["undo", "--last", dir.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!dir.exists());
    let out = make();
    assert!(
        out.status.success(),
        "the name is free again: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
