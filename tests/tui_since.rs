//! End to end (tmux), across two starts (issue 11 §1): open a project,
//! quit; its file changes; the next start marks it in the list, `n`
//! jumps to it and its Overview says what changed since you looked.
//! The memory goes to a temp `XDG_STATE_HOME`. Needs tmux; skipped,
//! saying so, without it outside CI.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;

use common::NOW;
use common::tmux::{Tmux, skip_without_tmux};

#[test]
fn a_change_between_two_starts_is_marked_and_told() {
    if skip_without_tmux() {
        return;
    }
    let (tmp, ws) = common::workspace();
    let (state, env) = common::state_dir(tmp.path());

    // First start: nothing is marked; open paused-waiting, quit.
    let first = Tmux::new("since-1");
    first.start_with(&ws, NOW, "80", "24", &[&env], &[]);
    let s = first.wait_for("paused-waiting");
    assert!(!s.contains("• "), "{s}");
    first.keys(&["/"]);
    first.keys(&["-l", "paused-waiting"]);
    first.keys(&["Enter"]);
    first.wait_for("Projects /paused-waiting 1/");
    first.keys(&["Enter"]);
    first.wait_for("projects › paused-waiting");
    first.keys(&["q"]);
    first.wait_for("EXITED:0");
    let saved = fs::read_to_string(state.join("loopdeck/seen.json")).unwrap();
    assert!(saved.contains("paused-waiting"), "{saved}");
    drop(first);

    // The project moves on while the console is closed.
    let file = ws.join("gsd/paused-waiting/.planning/STATE.md");
    let text = fs::read_to_string(&file).unwrap();
    fs::write(&file, text.replace("percent: 45", "percent: 60")).unwrap();

    // Second start: marked in the list; n goes to it; the Overview tells.
    let second = Tmux::new("since-2");
    second.start_with(&ws, NOW, "80", "24", &[&env], &[]);
    let s = second.wait_for("• paused-waiting");
    assert_eq!(s.matches("• ").count(), 1, "only it changed:\n{s}");
    second.keys(&["n"]);
    second.keys(&["Enter"]);
    let s = second.wait_for("Since you looked");
    assert!(s.contains("progress    45% → 60%"), "{s}");
    assert!(s.contains("projects › paused-waiting"), "{s}");
    // Seen now: back in the list, it is no longer marked.
    second.keys(&["Escape"]);
    second.wait_gone("• paused-waiting");
    second.keys(&["q"]);
    second.wait_for("EXITED:0");
    // What was seen is kept for the next start.
    let saved: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(state.join("loopdeck/seen.json")).unwrap())
            .unwrap();
    let entry = saved["projects"]
        .as_object()
        .unwrap()
        .iter()
        .find(|(k, _)| k.ends_with("gsd/paused-waiting"))
        .map(|(_, v)| v.clone())
        .unwrap();
    assert_eq!(entry["progress_percent"], 60, "{entry}");
}
