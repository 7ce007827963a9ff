//! End to end (tmux): the console started twice on one workspace, its
//! state directory its own. The second start draws the first run's
//! snapshot at once, every row marked `◌ refreshing…` (every byte the
//! console sends is logged, from its very first frame), then this run's
//! reading corrects it: a project renamed between the runs shows its new
//! name, one deleted leaves, and the mark goes. A snapshot cut short is
//! ignored: the console starts as without one.
//!
//! Needs tmux; skipped, saying so, without it outside CI.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;
use std::path::Path;

use common::NOW;
use common::tmux::{Tmux, skip_without_tmux};

fn prd(dir: &Path, name: &str) {
    fs::create_dir_all(dir).unwrap();
    fs::write(
        dir.join("state.json"),
        format!(
            r#"{{"workflow_version":"0.6","current_stage":"2","project_name":"{name}","last_updated_at_utc":"2026-05-01T11:59:00Z"}}"#
        ),
    )
    .unwrap();
}

fn snapshot_file(state: &Path) -> std::path::PathBuf {
    fs::read_dir(state.join("loopdeck"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().contains("snapshot-"))
        .expect("the first run kept a snapshot")
}

#[test]
fn the_second_start_draws_the_snapshot_refreshing_then_the_reading() {
    if skip_without_tmux() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("ws");
    prd(&root.join("alpha"), "alpha-one");
    prd(&root.join("beta"), "beta-gone");
    prd(&root.join("gamma"), "gamma-same");
    let state = t.path().join("state");
    let env = format!("XDG_STATE_HOME={}", state.display());

    // First run: read, quit; it keeps the snapshot.
    let first = Tmux::new("cached-1");
    first.start_with(&root, NOW, "100", "30", &[&env], &[]);
    first.wait_for("alpha-one");
    let s = first.screen();
    assert!(!s.contains("refreshing"), "no snapshot yet:\n{s}");
    first.keys(&["q"]);
    first.wait_for("EXITED:0");
    snapshot_file(&state);

    // Between the runs: alpha renamed, beta deleted.
    prd(&root.join("alpha"), "alpha-two");
    fs::remove_dir_all(root.join("beta")).unwrap();

    let log = t.path().join("second.log");
    let second = Tmux::new("cached-2");
    second.start_logged(&root, NOW, ("100", "30"), &[&env], &log);
    let s = second.wait_until("the reading's rows", |s| {
        s.contains("alpha-two") && !s.contains("refreshing")
    });
    assert!(!s.contains("beta-gone"), "deleted: gone at once\n{s}");
    assert!(s.contains("gamma-same"), "{s}");
    assert!(s.contains("2 projects"), "{s}");
    // What was drawn before: the snapshot, marked.
    let drawn = String::from_utf8_lossy(&fs::read(&log).unwrap()).into_owned();
    let first_mark = drawn
        .find("refreshing")
        .expect("the snapshot drawn, marked");
    let old_name = drawn.find("alpha-one").expect("the snapshot's name drawn");
    let new_name = drawn.find("alpha-two").expect("the reading's name drawn");
    assert!(
        drawn.contains("beta-gone"),
        "the snapshot row drawn: {drawn:?}"
    );
    assert!(old_name < new_name && first_mark < new_name);
    second.keys(&["q"]);
    second.wait_for("EXITED:0");

    // A snapshot cut short: not read; the console starts as without one.
    let file = snapshot_file(&state);
    let bytes = fs::read(&file).unwrap();
    fs::write(&file, &bytes[..bytes.len() / 2]).unwrap();
    let log = t.path().join("third.log");
    let third = Tmux::new("cached-3");
    third.start_logged(&root, NOW, ("100", "30"), &[&env], &log);
    third.wait_for("alpha-two");
    third.keys(&["q"]);
    third.wait_for("EXITED:0");
    let drawn = String::from_utf8_lossy(&fs::read(&log).unwrap()).into_owned();
    assert!(!drawn.contains("refreshing"), "{drawn}");
    assert!(drawn.contains("reading…"), "as without a snapshot");
}
