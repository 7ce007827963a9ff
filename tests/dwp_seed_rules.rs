//! Seed 002 rules through the real binary, on copies of DWP's own published
//! fixtures (tests/fixtures/dwp-real-world) changed the way an agent would
//! change them.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::{NOW, json, loopdeck, repo};
use serde_json::Value;

const INTERRUPTED: &str = "skill_tests_efficiency_interrupted-plan/PLAN_interrupted_fixture";

/// A bare copy of the interrupted fixture (three tasks, task 1 completed
/// with one gate record), and its path.
fn interrupted() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("PLAN_interrupted_fixture");
    common::copy_dir(
        &repo()
            .join("tests/fixtures/dwp-real-world")
            .join(INTERRUPTED),
        &dir,
    );
    (tmp, dir)
}

fn edit_state(dir: &Path, f: impl FnOnce(&mut Value)) {
    let path = dir.join("state.json");
    let mut s: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    f(&mut s);
    fs::write(&path, serde_json::to_string_pretty(&s).unwrap()).unwrap();
}

fn codes(show: &Value) -> Vec<String> {
    show["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_gate_that_reports_passed_tests_ran() {
    let (_t, dir) = interrupted();
    let ran = [
        "42 passed, 0 failed; 2 ignored (slow benches not run)",
        "Ran 12 tests in 0.341s OK (e2e suite not run: no browser)",
        "test result: ok. 7 passed; 0 failed; 1 ignored (network tests not run)",
    ];
    let never = [
        "command not executed: python3 is missing on PATH",
        "Ran 0 tests in 0.000s",
        "未运行：沙箱中没有解释器",
    ];
    for (evidence, flagged) in ran
        .iter()
        .map(|e| (e, false))
        .chain(never.iter().map(|e| (e, true)))
    {
        edit_state(&dir, |s| {
            s["tasks"][0]["gates"][0]["evidence"] = (*evidence).into()
        });
        let v = json(&["show", dir.to_str().unwrap()]);
        assert_eq!(
            codes(&v).contains(&"dwp.gate-never-ran".to_owned()),
            flagged,
            "{evidence}: {}",
            v["findings"]
        );
    }
}

#[test]
fn a_plan_whose_remaining_tasks_are_skipped_is_not_completed() {
    let (_t, dir) = interrupted();
    edit_state(&dir, |s| {
        s["status"] = "completed".into();
        s["checkpoint"] = Value::Null;
        s["approval"] = "approved".into();
        for t in [1, 2] {
            s["tasks"][t]["status"] = "skipped".into();
        }
    });
    let state: Value = serde_json::from_slice(&fs::read(dir.join("state.json")).unwrap()).unwrap();
    let tasks = state["tasks"].as_array().unwrap();
    let done = tasks.iter().filter(|t| t["status"] == "completed").count();
    let percent = (done * 100 / tasks.len()) as u64;
    assert!(percent < 100);

    let v = json(&["list", dir.to_str().unwrap()]);
    let row = &v["projects"][0];
    assert_ne!(row["status"], "completed", "{row}");
    assert_eq!(row["progress_percent"], percent, "{row}");

    let v = json(&["show", dir.to_str().unwrap()]);
    assert_ne!(v["project"]["status"], "completed");
    assert!(codes(&v).contains(&"dwp.status-incoherent".to_owned()));
    let stage = v["project"]["stage"].as_str().unwrap();
    assert_eq!(
        stage,
        format!("{done}/{} tasks done, 2 skipped", tasks.len())
    );

    let out = loopdeck()
        .args(["status", dir.to_str().unwrap(), "--now", NOW])
        .output()
        .unwrap();
    assert!(out.status.success());
    let line = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        line.trim_end(),
        format!(
            "PLAN_interrupted_fixture · {done}/{} tasks · 2 skipped, not completed",
            tasks.len()
        )
    );
}
