//! GSD and PRD-master read rules (issue 7, §2–3), on real files in temp
//! dirs, through the real binary.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;
use std::path::Path;

use common::{NOW, json, loopdeck, write};
use serde_json::Value;

const BOM: &str = "\u{feff}";

fn show(dir: &Path) -> Value {
    json(&["show", dir.to_str().unwrap()])
}

#[test]
fn json_with_a_byte_order_mark_is_read_in_gsd_and_prd_master() {
    let tmp = tempfile::tempdir().unwrap();
    // GSD: WAITING.json written by a Windows editor.
    let gsd = tmp.path().join("gsd");
    write(
        &gsd.join(".planning/STATE.md"),
        "---\nstatus: executing\n---\n",
    );
    write(
        &gsd.join(".planning/WAITING.json"),
        format!(r#"{BOM}{{"status":"waiting","question":"Which DB?","options":["A","B"]}}"#),
    );
    let v = show(&gsd);
    assert_eq!(v["project"]["problems"], serde_json::json!([]), "{v}");
    assert_eq!(v["inbox"][0]["title"], "Which DB?");
    // PRD-master: state.json with a BOM is read, not rebuilt.
    let prd = tmp.path().join("prd");
    write(
        &prd.join("state.json"),
        format!(
            r#"{BOM}{{"workflow_version":"0.6","current_stage":"3","last_updated_at_utc":"2026-05-30T10:00:00Z","project_name":"bom"}}"#
        ),
    );
    let v = show(&prd);
    assert_eq!(v["project"]["problems"], serde_json::json!([]), "{v}");
    assert_eq!(v["project"]["name"], "bom");
    assert_eq!(v["project"]["stage"], "3");
    assert_ne!(v["project"]["status"], "rebuilt");
}

/// An independent count: unticked boxes under a heading that mentions todos.
fn unticked_todos(text: &str) -> usize {
    let mut inside = false;
    let mut n = 0;
    for line in text.lines() {
        if line.starts_with('#') {
            inside = line.to_lowercase().contains("todo");
        } else if inside && line.trim_start().starts_with("- [ ]") {
            n += 1;
        }
    }
    n
}

#[test]
fn pending_todos_are_shown_and_carried_in_json() {
    let src =
        common::repo().join("tests/fixtures/gsd-real-world/Minamon44__portfolio-website/STATE.md");
    let text = fs::read_to_string(&src).unwrap();
    let want = unticked_todos(&text);
    assert!(want > 0, "the real file lists todos");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("site");
    write(&dir.join(".planning/STATE.md"), &text);
    assert_eq!(show(&dir)["pending_todos"], want);
    let out = loopdeck()
        .args(["show", dir.to_str().unwrap(), "--now", NOW])
        .output()
        .unwrap();
    let out = String::from_utf8(out.stdout).unwrap();
    assert!(out.contains(&format!("Pending todos: {want}")), "{out}");
    // No todo section: nothing is claimed.
    let bare = tmp.path().join("bare");
    write(
        &bare.join(".planning/STATE.md"),
        "---\nstatus: executing\n---\n",
    );
    assert_eq!(show(&bare)["pending_todos"], Value::Null);
}

#[test]
fn stopped_at_and_last_session_come_only_from_the_session_section() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p");
    // Archived text above the Session section states an older stop point.
    write(
        &dir.join(".planning/STATE.md"),
        "# Project State\n\n## Current Position\n\nPhase: 4 of 6 (Sync)\nStatus: Executing\n\n## Milestone v1.0 (archived)\n\nLast session: 2025-01-02T03:04:05Z\nStopped at: Completed 01-03-PLAN.md\n\n## Session Continuity\n\nLast session: 2026-05-30T10:00:00Z\nStopped at: Phase 4 planned\nResume file: None\n",
    );
    let v = show(&dir);
    assert_eq!(v["resume"]["last_session"], "2026-05-30T10:00:00Z");
    assert_eq!(v["resume"]["reason"], "stopped at: Phase 4 planned");
}

fn listed(root: &Path) -> Vec<Value> {
    json(&["list", root.to_str().unwrap()])["projects"]
        .as_array()
        .unwrap()
        .clone()
}

#[cfg(unix)]
#[test]
fn broken_gsd_links_keep_the_project_listed_with_a_problem() {
    use std::os::unix::fs::symlink;
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    // A STATE.md link whose target is gone.
    let a = root.join("dangling");
    fs::create_dir_all(a.join(".planning")).unwrap();
    symlink("STATE-old.md", a.join(".planning/STATE.md")).unwrap();
    // A .planning linked to a directory outside the project.
    let outside = tmp.path().join("elsewhere/.planning");
    write(&outside.join("STATE.md"), "---\nstatus: executing\n---\n");
    let b = root.join("linked-out");
    fs::create_dir_all(&b).unwrap();
    symlink(&outside, b.join(".planning")).unwrap();
    // A .planning link to a directory inside the project is simply read.
    let c = root.join("linked-in");
    write(
        &c.join("docs/planning/STATE.md"),
        "---\nstatus: executing\n---\n",
    );
    symlink("docs/planning", c.join(".planning")).unwrap();
    // A plain file named .planning is no project.
    write(&root.join("not-gsd/.planning"), "notes");

    let rows = listed(&root);
    let by_id = |id: &str| {
        rows.iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("{id} is listed: {rows:?}"))
            .clone()
    };
    assert_eq!(rows.len(), 3, "{rows:?}");
    for id in ["dangling", "linked-out"] {
        let r = by_id(id);
        let problems = r["problems"].as_array().unwrap();
        assert_eq!(problems.len(), 1, "{r}");
        assert_eq!(problems[0]["file"], ".planning/STATE.md");
        assert_eq!(r["status"], "unreadable");
    }
    assert!(
        by_id("dangling")["problems"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("does not exist")
    );
    assert!(
        by_id("linked-out")["problems"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("leaves the project")
    );
    let inside = by_id("linked-in");
    assert_eq!(inside["problems"], serde_json::json!([]));
    assert_eq!(inside["status"], "executing");
    // `show` on the project itself says the same.
    let v = show(&a);
    assert_eq!(v["project"]["problems"][0]["file"], ".planning/STATE.md");
}
