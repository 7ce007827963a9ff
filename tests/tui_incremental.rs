//! End to end (tmux): with two projects, editing one re-reads only that
//! one. Project B's state file is a hard link to a file outside the root;
//! rewriting it there in place changes what B would read without telling
//! the watcher (inotify reports a change to the directory it was made
//! through). An edit of project A then shows on screen while B still shows
//! what it read at the start; a full reload (`r`) shows B's new name, so B
//! was readable all along. Reading every project on every change (as the
//! console did before) shows B's new name with A's edit.
//!
//! Needs tmux (Linux: inotify); skipped, saying so, without it outside CI.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::path::Path;
use std::thread::sleep;
use std::time::Duration;

use common::NOW;
use common::tmux::{Tmux, skip_without_tmux};

fn state(file: &Path, name: &str) {
    // In place (same inode): truncate and write.
    std::fs::write(
        file,
        format!(
            r#"{{"workflow_version":"0.6","current_stage":"2","project_name":"{name}","last_updated_at_utc":"2026-06-01T11:59:00Z"}}"#
        ),
    )
    .unwrap();
}

#[cfg(target_os = "linux")]
#[test]
fn editing_one_project_re_reads_only_that_one_in_tmux() {
    if skip_without_tmux() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("root");
    let outside = t.path().join("outside");
    for d in [root.join("a"), root.join("b"), outside.clone()] {
        std::fs::create_dir_all(d).unwrap();
    }
    state(&root.join("a").join("state.json"), "alpha-one");
    state(&outside.join("b.json"), "bravo-one");
    std::fs::hard_link(outside.join("b.json"), root.join("b").join("state.json")).unwrap();

    let tmux = Tmux::new("inc");
    tmux.start(&root, NOW, "140", "30");
    tmux.wait_for("alpha-one");
    tmux.wait_for("bravo-one");
    // Let the watcher settle in before the edits.
    sleep(Duration::from_millis(500));

    // B changes behind the watcher's back; then A is edited.
    state(&outside.join("b.json"), "bravo-two");
    sleep(Duration::from_millis(300));
    state(&root.join("a").join("state.json"), "alpha-two");
    tmux.wait_for("alpha-two");
    // Any read of B (a full reload) would have shown its new name by now.
    sleep(Duration::from_millis(700));
    let s = tmux.screen();
    assert!(s.contains("alpha-two"), "{s}");
    assert!(
        s.contains("bravo-one") && !s.contains("bravo-two"),
        "B was read again on A's edit:\n{s}"
    );

    // B was readable all along: a full reload shows its new name.
    tmux.keys(&["r"]);
    tmux.wait_for("bravo-two");
}
