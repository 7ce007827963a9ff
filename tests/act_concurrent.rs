//! 50 `loopdeck act` processes started at once on one file: every decision
//! lands (no lost update), every process exits 0, the file still reads.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::process::{Command, Stdio};

use common::repo;

const N: usize = 50;

fn bin() -> std::path::PathBuf {
    assert_cmd::cargo::cargo_bin("loopdeck")
}

#[test]
fn fifty_concurrent_gsd_decisions_all_land() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("repo");
    fs::create_dir_all(project.join(".planning")).unwrap();
    let src = repo().join("examples/workspace/gsd/paused-waiting/.planning/STATE.md");
    fs::copy(&src, project.join(".planning/STATE.md")).unwrap();
    let state = tmp.path().join("state");
    let children: Vec<_> = (0..N)
        .map(|i| {
            Command::new(bin())
                .args(["act"])
                .arg(&project)
                .args(["add-decision", &format!("concurrent decision {i:02}")])
                .args(["--phase", "1", "--by", "stress"])
                .env("XDG_STATE_HOME", &state)
                .env("XDG_CONFIG_HOME", "/nonexistent-loopdeck-test-config")
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for (i, child) in children.into_iter().enumerate() {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "writer {i} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let text = fs::read_to_string(project.join(".planning/STATE.md")).unwrap();
    for i in 0..N {
        let needle = format!("concurrent decision {i:02}");
        assert_eq!(text.matches(&needle).count(), 1, "{needle} landed once");
    }
    // The file still reads as the same GSD project, with every decision.
    let shown = common::json(&["show", project.to_str().unwrap()]);
    let decisions = shown["decisions"].as_array().unwrap();
    let ours = decisions
        .iter()
        .filter(|d| {
            d["summary"]
                .as_str()
                .is_some_and(|s| s.contains("concurrent decision"))
        })
        .count();
    assert_eq!(ours, N);
    // No temp file or lock is left behind.
    let left: Vec<String> = fs::read_dir(project.join(".planning"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "STATE.md" && n != "WAITING.json")
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    // Each decision is in the audit log.
    let audit = fs::read_to_string(state.join("loopdeck/audit.ndjson")).unwrap_or_default();
    assert_eq!(
        audit
            .lines()
            .filter(|l| l.contains("concurrent decision"))
            .count(),
        N
    );
}
