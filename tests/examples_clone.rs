//! The example workspace as a fresh `git clone` leaves it: every file's
//! mtime is the moment of the clone, long after the reference time the
//! README's quick start passes as `--now`. Every project still reads as
//! examples/workspace/README.md describes it, with no setup step: the
//! projects dated only by mtime before (two rebuilt PRD-master projects,
//! a GSD STATE.md without frontmatter) are dated by what their own files
//! record.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use common::{NOW, copy_dir, json, loopdeck, repo, set_mtimes};
use serde_json::Value;

/// A copy of the example workspace whose every mtime is now.
fn cloned() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("workspace");
    copy_dir(&repo().join("examples/workspace"), &ws);
    set_mtimes(&ws, &chrono::Utc::now().to_rfc3339());
    (tmp, ws)
}

#[test]
fn a_fresh_clone_lists_no_project_in_the_future() {
    let (_t, ws) = cloned();
    let v = json(&["list", ws.to_str().unwrap()]);
    let projects = v["projects"].as_array().unwrap();
    assert_eq!(projects.len(), 20);
    for p in projects {
        let updated = p["updated_at"].as_str().unwrap();
        assert!(
            updated <= NOW && p["age_seconds"].as_i64().unwrap() >= 0,
            "{}: updated {updated}, after --now {NOW}",
            p["id"]
        );
    }
    let updated = |id: &str| -> Value {
        projects
            .iter()
            .find(|p| p["id"] == id)
            .unwrap_or_else(|| panic!("{id} not listed"))["updated_at"]
            .clone()
    };
    // The dates the example's README gives them.
    assert_eq!(
        updated("prd-master/rebuilt-from-deliverables"),
        "2026-05-20T06:30:00Z"
    );
    assert_eq!(updated("prd-master/bugfix-rebuilt"), "2026-05-27T03:00:00Z");
    assert_eq!(updated("gsd/no-frontmatter"), "2026-05-30T08:20:00Z");
    // The newest is the newest the README names, not a clone-dated one.
    assert_eq!(
        projects[0]["id"],
        "devloop/data/companies/acme/projects/p-restock"
    );

    // The table a human reads: no AGE `future`.
    let out = loopdeck()
        .args(["list", ws.to_str().unwrap(), "--now", NOW])
        .output()
        .unwrap();
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success());
    assert!(!table.contains("future"), "{table}");
    let row = |id: &str| {
        table
            .lines()
            .find(|l| l.contains(id))
            .unwrap_or_else(|| panic!("{id}: {table}"))
            .split_whitespace()
            .next()
            .unwrap()
            .to_owned()
    };
    assert_eq!(row("prd-master/rebuilt-from-deliverables"), "12d");
    assert_eq!(row("prd-master/bugfix-rebuilt"), "5d");
    assert_eq!(row("gsd/no-frontmatter"), "2d");
}

#[test]
fn a_fresh_clone_shows_each_case_as_the_readme_says() {
    let (_t, ws) = cloned();
    let show = |p: &str| json(&["show", ws.join(p).to_str().unwrap()]);
    // Executing with STATE.md silent for 2 days: stalled 2d.
    let v = show("gsd/no-frontmatter");
    assert_eq!(v["project"]["status"], "executing");
    assert_eq!(v["project"]["updated_at"], "2026-05-30T08:20:00Z");
    assert_eq!(
        v["project"]["stalled"]["silent_seconds"],
        2 * 86400 + 3 * 3600 + 40 * 60,
        "{}",
        v["project"]
    );
    // Rebuilt, at the stage the chain gives, in scenario B (not "a clock
    // is wrong").
    for (p, stage) in [
        ("prd-master/rebuilt-from-deliverables", "5.3"),
        ("prd-master/bugfix-rebuilt", "1.5"),
    ] {
        let v = show(p);
        assert_eq!(
            (
                v["project"]["status"].as_str(),
                v["project"]["stage"].as_str()
            ),
            (Some("rebuilt"), Some(stage)),
            "{p}"
        );
        let out = loopdeck()
            .args(["show", ws.join(p).to_str().unwrap(), "--now", NOW])
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            !text.contains("clock") && !text.contains("future"),
            "{p}: {text}"
        );
    }
}
