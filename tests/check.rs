//! `loopdeck check`: every finding of every project; exit 1 when any is an
//! error (or a file cannot be read), 0 otherwise: a linter for CI.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use common::{NOW, loopdeck, workspace, write};
use serde_json::Value;

fn check(root: &str) -> (i32, Value) {
    let out = loopdeck()
        .args(["check", root, "--json", "--now", NOW])
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        serde_json::from_slice(&out.stdout).unwrap(),
    )
}

#[test]
fn exit_code_follows_the_errors_it_reports() {
    let (_t, ws) = workspace();
    let (code, v) = check(ws.to_str().unwrap());
    assert_eq!(v["schema_version"], 1);
    let mut errors = 0;
    let mut warnings = 0;
    for p in v["projects"].as_array().unwrap() {
        errors += p["problems"].as_array().unwrap().len();
        for f in p["findings"].as_array().unwrap() {
            match f["level"].as_str().unwrap() {
                "error" => errors += 1,
                "warning" => warnings += 1,
                _ => {}
            }
        }
        // Each project's findings are exactly what `show` reports for it.
        let shown = common::json(&["show", p["path"].as_str().unwrap()]);
        assert_eq!(shown["findings"], p["findings"], "{}", p["id"]);
    }
    assert_eq!(v["summary"]["errors"], errors);
    assert_eq!(v["summary"]["warnings"], warnings);
    assert!(warnings > 0, "the example workspace has lint findings");
    assert_eq!(code, i32::from(errors > 0));
}

#[test]
fn a_clean_root_passes_and_a_broken_one_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let good = r#"{"workflow_version":"0.6","current_stage":"2","last_updated_at_utc":"2026-05-31T12:00:00Z"}"#;
    write(&tmp.path().join("good/state.json"), good);
    let (code, v) = check(tmp.path().to_str().unwrap());
    assert_eq!((code, v["summary"]["errors"].as_u64()), (0, Some(0)));
    assert_eq!(
        v["projects"].as_array().unwrap().len(),
        0,
        "only projects with something to say"
    );

    write(
        &tmp.path().join("broken/state.json"),
        r#"{"workflow_version": "0.6", "current_st"#,
    );
    write(&tmp.path().join("broken/scene-anchor.md"), "# 场景");
    let (code, v) = check(tmp.path().to_str().unwrap());
    assert_eq!(code, 1);
    let broken = &v["projects"][0];
    assert_eq!(broken["id"], "broken");
    assert!(
        broken["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "prd.state-corrupt" && f["level"] == "error")
    );
    let plain = loopdeck()
        .args(["check", tmp.path().to_str().unwrap(), "--now", NOW])
        .output()
        .unwrap();
    assert_eq!(plain.status.code(), Some(1));
    let text = String::from_utf8(plain.stdout).unwrap();
    assert!(text.contains("prd.state-corrupt"));
    assert!(
        text.lines()
            .last()
            .unwrap()
            .starts_with("2 projects: 2 errors"),
        "{text}"
    );
}
