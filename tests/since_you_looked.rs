//! `list --changed` and `show --json`'s `since_you_looked` (issue 11 §1):
//! what changed since the user last looked at a project in the console,
//! from the memory in `$XDG_STATE_HOME/loopdeck/seen.json` (a temp dir).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;
use std::path::Path;

use common::{NOW, loopdeck};
use serde_json::{Value, json};

fn run(state: &Path, args: &[&str]) -> (Value, String) {
    let out = loopdeck()
        .env("XDG_STATE_HOME", state)
        .args(args)
        .args(["--now", NOW, "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    (
        serde_json::from_slice(&out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The memory of one project as the console saves it: seen a day ago at
/// 30%, with nothing waiting.
fn remember(state: &Path, project: &Path) {
    let dir = state.join("loopdeck");
    fs::create_dir_all(&dir).unwrap();
    let key = format!("gsd:{}", project.display());
    let memory = json!({
        "version": 1,
        "projects": {
            key: {
                "at": "2026-05-31T12:00:00Z",
                "status": "paused",
                "stage": "Phase 3 of 6 (审批规则引擎)",
                "progress_percent": 30,
                "waiting": [],
                "bugs": {},
                "last_event": null
            }
        }
    });
    fs::write(dir.join("seen.json"), memory.to_string()).unwrap();
}

#[test]
fn only_what_changed_since_you_looked_is_listed() {
    let (tmp, ws) = common::workspace();
    let state = tmp.path().join("state");
    let project = ws.join("gsd/paused-waiting");
    let ws_arg = ws.to_str().unwrap();
    let project_arg = project.to_str().unwrap();

    // No memory: nothing changed, and show says it was never seen.
    let (list, _) = run(&state, &["list", "--changed", ws_arg]);
    assert_eq!(list["projects"], json!([]));
    let (show, _) = run(&state, &["show", project_arg]);
    assert_eq!(show["since_you_looked"], Value::Null);

    remember(&state, &project);
    let (list, err) = run(&state, &["list", "--changed", ws_arg]);
    assert_eq!(err, "");
    let rows = list["projects"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{list}");
    assert_eq!(rows[0]["id"], "gsd/paused-waiting");
    let since = &rows[0]["since_you_looked"];
    assert_eq!(since["looked_at"], "2026-05-31T12:00:00Z");
    assert_eq!(since["progress_percent"]["before"], 30);
    assert_eq!(since["progress_percent"]["after"], 45);
    assert!(
        since.get("status").is_none() && since.get("stage").is_none(),
        "{since}"
    );
    assert!(
        !since["new_items"].as_array().unwrap().is_empty(),
        "{since}"
    );
    // The plain table: that project alone.
    let out = loopdeck()
        .env("XDG_STATE_HOME", &state)
        .args(["list", "--changed", ws_arg, "--now", NOW])
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("paused-waiting"), "{table}");
    assert!(!table.contains("scene1-active-phase"), "{table}");

    let (show, _) = run(&state, &["show", project_arg]);
    assert_eq!(show["since_you_looked"]["progress_percent"]["before"], 30);
    // A headless command is not looking: the memory is as it was.
    let (again, _) = run(&state, &["list", "--changed", ws_arg]);
    assert_eq!(again["projects"].as_array().unwrap().len(), 1);
}

#[test]
fn a_corrupt_memory_is_said_and_empty() {
    let (tmp, ws) = common::workspace();
    let state = tmp.path().join("state");
    fs::create_dir_all(state.join("loopdeck")).unwrap();
    fs::write(state.join("loopdeck/seen.json"), "{\"version\":1,").unwrap();
    let (list, err) = run(&state, &["list", "--changed", ws.to_str().unwrap()]);
    assert_eq!(list["projects"], json!([]));
    assert!(err.contains("seen.json could not be read"), "{err}");
}
