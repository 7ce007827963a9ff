//! End to end (tmux): the header says when changes are polled for and
//! why (the watch limit, simulated with the testing knob
//! `LOOPDECK_MAX_WATCHES`), and a root deleted and recreated shows its new
//! project with no key pressed.
//!
//! Needs tmux (Linux: inotify); skipped, saying so, without it outside CI.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::path::Path;

use common::NOW;
use common::tmux::{Tmux, skip_without_tmux};

fn state(dir: &Path, name: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let tmp = dir.join(".state.json.tmp");
    std::fs::write(
        &tmp,
        format!(
            r#"{{"workflow_version":"0.6","current_stage":"2","project_name":"{name}","last_updated_at_utc":"2026-06-01T11:59:00Z"}}"#
        ),
    )
    .unwrap();
    std::fs::rename(&tmp, dir.join("state.json")).unwrap();
}

#[cfg(target_os = "linux")]
#[test]
fn the_header_says_polling_and_why_when_the_watch_limit_is_reached() {
    if skip_without_tmux() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("ws");
    state(&root.join("a"), "alpha-one");
    state(&root.join("b"), "bravo-one");
    let tmux = Tmux::new("watch-limit");
    tmux.start_with(&root, NOW, "200", "30", &["LOOPDECK_MAX_WATCHES=2"], &[]);
    tmux.wait_for("alpha-one");
    // The header shows the reason's first 40 characters; the whole one
    // is in `Liveness` (tests/watcher.rs).
    let s = tmux.wait_for("○ polling 10s: inotify watch limit reached (LOOPDECK_M");
    assert!(!s.contains("● live"), "{s}");
}

#[cfg(target_os = "linux")]
#[test]
fn a_root_deleted_and_recreated_shows_its_new_project_with_no_key_pressed() {
    if skip_without_tmux() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("ws");
    state(&root.join("a"), "alpha-one");
    let tmux = Tmux::new("watch-root");
    tmux.start(&root, NOW, "200", "30");
    tmux.wait_for("alpha-one");
    tmux.wait_for("● live");
    std::fs::remove_dir_all(&root).unwrap();
    tmux.wait_for("alpha-one (gone)");
    state(&root.join("c"), "charlie-new");
    tmux.wait_for("charlie-new");
    // And later edits in the recreated root are seen too.
    state(&root.join("c"), "charlie-two");
    let s = tmux.wait_for("charlie-two");
    assert!(s.contains("● live"), "{s}");
}

/// A root on the command line that does not exist, beside one that does:
/// the console opens on the other, its header naming the missing root as
/// one it cannot read (as for a dangling link).
#[cfg(target_os = "linux")]
#[test]
fn a_missing_root_is_named_in_the_header_and_the_others_open() {
    if skip_without_tmux() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("ws");
    state(&root.join("a"), "alpha-one");
    let gone = t.path().join("gone");
    let tmux = Tmux::new("watch-missing-root");
    tmux.start_with(&root, NOW, "200", "30", &[], &[gone.to_str().unwrap()]);
    tmux.wait_for("alpha-one");
    let s = tmux.wait_for(&format!("cannot read {}: does not exist", gone.display()));
    assert!(!s.contains("EXITED"), "{s}");
}
