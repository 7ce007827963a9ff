//! End to end (tmux): the console's list of decisions made (issue 20 §6).
//! A decision made with `loopdeck act` and one made and undone appear,
//! newest first, when `:audit` is run from the palette, read from the
//! same audit log.
//!
//! Needs tmux; skipped, saying so, without it outside CI.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::NOW;
use common::tmux::{Tmux, skip_without_tmux};

#[cfg(target_os = "linux")]
#[test]
fn a_lists_the_decisions_made_newest_first_with_where_they_stand() {
    if skip_without_tmux() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("ws");
    common::copy_dir(&common::repo().join("examples/workspace/gsd"), &root);
    let (state, env) = common::state_dir(t.path());
    let project = root.join("paused-waiting");
    let act = |args: &[&str]| {
        let out = common::loopdeck()
            .env("XDG_STATE_HOME", &state)
            .args(args)
            .args(["--now", NOW])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let dir = project.to_str().unwrap();
    act(&[
        "act",
        dir,
        "add-decision",
        "Keep REST for the public API",
        "--by",
        "yibo",
    ]);
    act(&[
        "act",
        dir,
        "add-blocker",
        "Waiting on the legal review",
        "--by",
        "mei",
    ]);
    act(&["undo", "--last", dir]);

    let tmux = Tmux::new("audit");
    tmux.start_with(&root, NOW, "160", "30", &[&env], &[]);
    tmux.wait_for("paused-waiting");
    tmux.keys(&[":"]);
    tmux.keys(&["audit"]);
    tmux.wait_for("audit: every decision made");
    tmux.keys(&["Enter"]);
    let s = tmux.wait_for("Decisions made · 3");
    let line = |needle: &str| {
        s.lines()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no {needle}: {s}"))
    };
    // The undo, then the blocker it undid, then the decision in force.
    assert!(line("undo of") < line("add-blocker"), "{s}");
    assert!(line("add-blocker") < line("add-decision"), "{s}");
    assert!(
        s.lines()
            .any(|l| l.contains("add-blocker") && l.contains("undone by")),
        "{s}"
    );
    assert!(
        s.lines()
            .any(|l| l.contains("add-decision") && l.contains("in force")),
        "{s}"
    );
    tmux.keys(&["Escape"]);
    tmux.wait_gone("Decisions made");
}
