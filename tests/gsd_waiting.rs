//! GSD's WAITING.json under `.gsd/` (issue 19 §2): gsd-tools'
//! `signal-waiting` writes `.gsd/WAITING.json` whenever a `.gsd/` folder
//! exists (state.cjs, `cmdSignalWaiting`), else `.planning/WAITING.json`;
//! its `signal-resume` removes both. loopdeck reads it there (show, inbox,
//! the watch feed), answers it bound to that file's bytes, and removes both
//! as gsd-tools' resume does. Through the real binary.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::feed::{Feed, is, started};
use common::loopdeck;

const NOW: &str = "2026-06-01T12:00:00Z";
const STATE: &str = "# Project State\n\n## Current Position\n\nPhase: 3 of 5 (API)\nStatus: Executing\n\n### Decisions\n\n- [Phase 1]: Use Rust\n\n### Blockers\n\nNone\n";
/// As gsd-tools 1.42.3 writes it (`JSON.stringify(signal, null, 2)`).
const SIGNAL: &str = "{\n  \"status\": \"waiting\",\n  \"type\": \"decision_point\",\n  \"question\": \"REST or gRPC?\",\n  \"options\": [\n    \"REST\",\n    \"gRPC\"\n  ],\n  \"since\": \"2026-06-01T11:00:00.000Z\",\n  \"phase\": \"3\"\n}";

fn project(root: &Path) -> PathBuf {
    let dir = root.join("p");
    fs::create_dir_all(dir.join(".planning")).unwrap();
    fs::write(dir.join(".planning/STATE.md"), STATE).unwrap();
    dir
}

fn run(args: &[&str], audit: &Path) -> Output {
    loopdeck()
        .env("XDG_STATE_HOME", audit)
        .args(args)
        .args(["--now", NOW])
        .output()
        .unwrap()
}

fn show(dir: &Path) -> serde_json::Value {
    // A reading remembers when items were first seen: in this test
    // process's own state directory.
    let out = run(
        &["show", "--json", dir.to_str().unwrap()],
        &common::state_home(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_question_under_gsd_is_shown_answered_and_removed_with_its_twin() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project(tmp.path());
    let audit = tmp.path().join("audit");
    fs::create_dir(dir.join(".gsd")).unwrap();
    fs::write(dir.join(".gsd/WAITING.json"), SIGNAL).unwrap();

    let v = show(&dir);
    let inbox = v["inbox"].as_array().unwrap();
    assert_eq!(inbox.len(), 1, "{v}");
    assert_eq!(inbox[0]["ref"], ".gsd/WAITING.json");
    assert_eq!(inbox[0]["title"], "[Phase 3] REST or gRPC?");
    let out = run(&["inbox", tmp.path().to_str().unwrap()], &audit);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("REST or gRPC?"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    // A stale `.planning/` copy beside it: named, not shown.
    fs::write(
        dir.join(".planning/WAITING.json"),
        r#"{"status":"waiting","question":"Old question?","options":[]}"#,
    )
    .unwrap();
    let v = show(&dir);
    assert_eq!(v["inbox"].as_array().unwrap().len(), 1);
    assert_eq!(v["inbox"][0]["title"], "[Phase 3] REST or gRPC?");
    assert!(
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "gsd.stale-waiting"),
        "{}",
        v["findings"]
    );

    // The answer is bound to the bytes of the file shown.
    let sha = v["inbox"][0]["act"]["target"].as_str().unwrap().to_owned();
    let d = dir.to_str().unwrap();
    let out = run(&["act", d, "answer", "--by", "alice", &sha, "2"], &audit);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let state = fs::read_to_string(dir.join(".planning/STATE.md")).unwrap();
    assert!(
        state.contains("- [Phase 3]: REST or gRPC? → gRPC — answered by alice\n"),
        "{state}"
    );
    assert!(!dir.join(".gsd/WAITING.json").exists());
    assert!(!dir.join(".planning/WAITING.json").exists());
    assert!(show(&dir)["inbox"].as_array().unwrap().is_empty());
}

#[test]
fn an_answer_bound_to_a_replaced_gsd_question_is_a_conflict() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project(tmp.path());
    let audit = tmp.path().join("audit");
    fs::create_dir(dir.join(".gsd")).unwrap();
    fs::write(dir.join(".gsd/WAITING.json"), SIGNAL).unwrap();
    let sha = show(&dir)["inbox"][0]["act"]["target"]
        .as_str()
        .unwrap()
        .to_owned();
    fs::write(
        dir.join(".gsd/WAITING.json"),
        SIGNAL.replace("REST or gRPC?", "Ship now?"),
    )
    .unwrap();
    let d = dir.to_str().unwrap();
    let out = run(&["act", d, "answer", "--by", "alice", &sha, "2"], &audit);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains(".gsd/WAITING.json"));
    assert!(dir.join(".gsd/WAITING.json").exists());
    assert_eq!(
        fs::read_to_string(dir.join(".planning/STATE.md")).unwrap(),
        STATE
    );
}

#[test]
fn the_watch_feed_sees_a_question_gsd_tools_writes_under_gsd() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ws");
    let dir = project(&root);
    let mut feed = Feed::start(&root);
    started(&mut feed);
    // gsd-tools' signal-waiting after `.gsd/` was made.
    fs::create_dir(dir.join(".gsd")).unwrap();
    fs::write(dir.join(".gsd/WAITING.json"), SIGNAL).unwrap();
    let added = feed.wait_for("the question appearing", |v| is(v, "inbox_added"));
    assert_eq!(added["item"]["title"], "[Phase 3] REST or gRPC?");
    // gsd-tools' signal-resume.
    fs::remove_file(dir.join(".gsd/WAITING.json")).unwrap();
    let left = feed.wait_for("the question leaving", |v| is(v, "inbox_removed"));
    assert_eq!(left["key"], added["key"]);
}
