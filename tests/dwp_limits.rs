//! Issue 19 §3/§5: loopdeck refuses what DWP's protected updater refuses as
//! "invalid input" (its state contract: the closed plan-state shape with
//! its length budgets, gate evidence, coherence), naming the problem and
//! the limit, and writes nothing. Run on copies of real plans.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::{copy_dir, loopdeck, repo, snapshot};
use serde_json::{Value, json};

const NOW: &str = "2026-10-01T12:00:00Z";

fn copy(rel: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(Path::new(rel).file_name().unwrap());
    copy_dir(&repo().join(rel), &dir);
    (tmp, dir)
}

/// `act DIR ARGS` is refused (exit 1) with `msg` in its words, nothing written.
fn refused(tmp: &Path, dir: &Path, args: &[&str], msg: &str) {
    let before = snapshot(dir);
    let out = loopdeck()
        .env("XDG_STATE_HOME", tmp.join("state"))
        .arg("act")
        .arg(dir)
        .args(args)
        .args(["--now", NOW, "--by", "pm"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    assert!(err.contains(msg), "{args:?}: {err:?} lacks {msg:?}");
    assert_eq!(snapshot(dir), before, "{args:?} wrote");
}

fn edit(dir: &Path, f: impl FnOnce(&mut Value)) {
    let path = dir.join("state.json");
    let mut v: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    f(&mut v);
    fs::write(&path, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
}

const LITE: &str = "tests/fixtures/dwp-real-world/skill_tests_fixtures_lite-plan/PLAN_lite_fixture";

/// The example plan whose gate evidence the contract rejects: the updater
/// takes no write on it, and neither does loopdeck. Approval, which the
/// updater never writes, is held to the closed shape only.
#[test]
fn a_state_the_contract_rejects_takes_no_decision() {
    let (tmp, dir) = copy("examples/workspace/dwp/shop-api/.dwp/plans/PLAN_search_index");
    let out = loopdeck()
        .env("XDG_STATE_HOME", tmp.path().join("state"))
        .arg("act")
        .arg(&dir)
        .args(["approve", "--now", NOW, "--by", "pm"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for args in [
        &["block", "2", "--reason", "x"][..],
        &["reopen", "1", "--reason", "x"],
        &["reconcile"],
    ] {
        refused(
            tmp.path(),
            &dir,
            args,
            "invalid input: passing gate has zero-selection evidence; completed task 3 has a failing gate without a later passing run",
        );
    }
}

/// Every budget of the updater's LIMITS, and the blocker's, is checked on
/// the state as read, with the field and the limit named.
#[test]
fn each_field_budget_is_refused_with_its_limit() {
    let cases: [(&str, usize); 8] = [
        ("/tasks/0/gates/0/command", 500),
        ("/tasks/0/gates/0/evidence", 500),
        ("/tasks/0/outcome/worked", 500),
        ("/tasks/0/outcome/notes", 1000),
        ("/checkpoint/step", 200),
        ("/checkpoint/note", 500),
        ("/updated_by/agent", 100),
        ("/updated_by/model", 100),
    ];
    for (ptr, max) in cases {
        let (tmp, dir) = copy(LITE);
        edit(&dir, |v| {
            v["tasks"][0]["gates"] = json!([{"command": "t", "passes": false, "exit_code": 1,
                "last_run": "2026-01-01T00:00:00Z", "evidence": "1 failed"}]);
            v["tasks"][0]["outcome"] = json!({});
            v["checkpoint"] = json!({"task": 1, "at": "2026-01-01T00:00:00Z"});
            v["updated_by"] = json!({});
            let (parent, key) = ptr.rsplit_once('/').unwrap();
            v.pointer_mut(parent).unwrap()[key] = json!("é".repeat(max + 1));
        });
        let path = format!("${}", ptr.replace('/', ".")).replace(".0", "[0]");
        refused(
            tmp.path(),
            &dir,
            &["block", "1", "--reason", "x"],
            &format!(
                "invalid input: {path}: exceeds maximum length ({max} chars, has {})",
                max + 1
            ),
        );
    }
}

/// The closed v2 shape: a field the schema does not know is refused.
#[test]
fn an_unknown_field_is_refused_as_the_contract_does() {
    let (tmp, dir) = copy(LITE);
    edit(&dir, |v| v["tasks"][1]["owner"] = json!("bob"));
    refused(
        tmp.path(),
        &dir,
        &["block", "1", "--reason", "x"],
        "invalid input: $.tasks[1]: unexpected field owner",
    );
}

/// The blocker's own budgets, given on the command line.
#[test]
fn a_blocker_text_over_its_budget_is_refused() {
    let (tmp, dir) = copy(LITE);
    let long = "r".repeat(1001);
    refused(
        tmp.path(),
        &dir,
        &["block", "1", "--reason", &long],
        // The limit every one-line text has, which is the updater's here.
        "--reason is 1001 characters long; `block` takes at most 1000",
    );
    let long = "n".repeat(501);
    refused(
        tmp.path(),
        &dir,
        &["block", "1", "--reason", "x", "--needs", &long],
        "block needs exceeds 500 chars",
    );
}
