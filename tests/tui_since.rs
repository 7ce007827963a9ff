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

/// A project the console listed but the user never opened is compared
/// with how the console first read it (its baseline), so a returning user
/// sees what changed there too; one no console has read yet is `null`.
#[test]
fn a_project_never_opened_is_compared_with_its_first_reading() {
    if skip_without_tmux() {
        return;
    }
    let (tmp, ws) = common::workspace();
    let (state, env) = common::state_dir(tmp.path());

    // First start: the list is read; nothing is opened; quit.
    let first = Tmux::new("since-baseline");
    first.start_with(&ws, NOW, "80", "24", &[&env], &[]);
    first.wait_for("scene1-active-phase");
    first.keys(&["q"]);
    first.wait_for("EXITED:0");
    drop(first);

    // scene1 moves on; a project appears that no console has read.
    let file = ws.join("gsd/scene1-active-phase/.planning/STATE.md");
    let text = fs::read_to_string(&file).unwrap();
    assert!(text.contains("percent: 20"), "{text}");
    fs::write(&file, text.replace("percent: 20", "percent: 35")).unwrap();
    let fresh = ws.join("gsd/appeared-later");
    fs::create_dir_all(fresh.join(".planning")).unwrap();
    fs::copy(
        ws.join("gsd/scene2-next-action/.planning/STATE.md"),
        fresh.join(".planning/STATE.md"),
    )
    .unwrap();

    let json = |args: &[&str]| -> serde_json::Value {
        let out = common::loopdeck()
            .env("XDG_STATE_HOME", &state)
            .args(args)
            .args(["--now", NOW, "--json"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let list = json(&["list", "--changed", ws.to_str().unwrap()]);
    let rows = list["projects"].as_array().unwrap();
    let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["gsd/scene1-active-phase"], "{list}");
    let since = &rows[0]["since_you_looked"];
    assert_eq!(since["looked_at"], NOW, "{since}");
    assert_eq!(since["progress_percent"]["before"], 20, "{since}");
    assert_eq!(since["progress_percent"]["after"], 35, "{since}");

    let show = json(&["show", fresh.to_str().unwrap()]);
    assert_eq!(show["since_you_looked"], serde_json::Value::Null, "{show}");
}
