//! End to end (tmux): another process writes to the projects the way
//! agents do, and the console shows each change with no key pressed:
//! lines appended to a devloop timeline (one of them in two halves), a
//! state file rewritten in place and replaced by rename, a log truncated,
//! deleted and recreated, a project deleted and recreated.
//!
//! Every wait is for text only that step produces.
//!
//! Needs tmux (Linux: inotify); skipped, saying so, without it outside CI.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::path::Path;
use std::process::Command;
use std::thread::sleep;
use std::time::Duration;

use common::tmux::{Tmux, skip_without_tmux};
use common::{NOW, copy_dir, repo};

/// Run `script` in a shell of its own: the writer is another process.
fn writer(script: &str, dir: &Path) {
    let st = Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(st.success(), "{script}");
}

fn event(summary: &str) -> String {
    format!(r#"{{"ts":1780315200,"source":"coder","kind":"note","summary":"{summary}"}}"#)
}

fn prd(name: &str) -> String {
    format!(
        r#"{{"workflow_version":"0.6","current_stage":"2","project_name":"{name}","last_updated_at_utc":"2026-05-01T11:59:00Z"}}"#
    )
}

#[cfg(target_os = "linux")]
#[test]
fn writes_by_another_process_show_with_no_key_pressed() {
    if skip_without_tmux() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("ws");
    let company = root.join("dl/data/companies/acme/projects");
    copy_dir(
        &repo().join("examples/workspace/devloop/data/companies/acme/projects/p-restock"),
        &company.join("p-restock"),
    );
    let dl = company.join("p-restock");
    let alpha = root.join("prd/alpha");
    std::fs::create_dir_all(&alpha).unwrap();
    std::fs::write(alpha.join("state.json"), prd("alpha-one")).unwrap();

    let tmux = Tmux::new("live");
    tmux.start(&root, NOW, "150", "40");
    tmux.wait_for("alpha-one");
    // The devloop project is the newest: selected. Its Timeline follows.
    tmux.keys(&["4"]);
    tmux.wait_for("(following)");
    sleep(Duration::from_millis(300));

    // An appended line.
    writer(
        &format!(
            "printf '%s\\n' '{}' >> timeline.ndjson",
            event("appended-one")
        ),
        &dl,
    );
    tmux.wait_for("appended-one");

    // Half a line is never shown; its rest completes it.
    let half = event("half-and-whole");
    let (head, tail) = half.split_at(half.len() - 8);
    writer(&format!("printf '%s' '{head}' >> timeline.ndjson"), &dl);
    sleep(Duration::from_millis(600));
    let s = tmux.screen();
    assert!(!s.contains("half-and"), "a torn line was shown:\n{s}");
    writer(&format!("printf '%s\\n' '{tail}' >> timeline.ndjson"), &dl);
    tmux.wait_for("half-and-whole");

    // A state file rewritten in place (same inode), then replaced by rename.
    writer(
        &format!("printf '%s' '{}' > state.json", prd("alpha-two")),
        &alpha,
    );
    tmux.wait_for("alpha-two");
    writer(
        &format!(
            "printf '%s' '{}' > .state.tmp && mv .state.tmp state.json",
            prd("alpha-three")
        ),
        &alpha,
    );
    tmux.wait_for("alpha-three");

    // The log truncated, then written again: what it held is gone.
    writer(
        &format!(
            ": > timeline.ndjson && printf '%s\\n' '{}' >> timeline.ndjson",
            event("after-truncate")
        ),
        &dl,
    );
    tmux.wait_for("after-truncate");
    tmux.wait_gone("appended-one");

    // The log deleted, then recreated (a new inode).
    writer("rm timeline.ndjson", &dl);
    tmux.wait_gone("after-truncate");
    writer(
        &format!(
            "printf '%s\\n' '{}' > timeline.ndjson",
            event("recreated-log")
        ),
        &dl,
    );
    tmux.wait_for("recreated-log");

    // A project deleted (gone after its hold), then created again.
    writer("rm -rf alpha", &root.join("prd"));
    tmux.wait_gone("alpha-three");
    writer(
        &format!(
            "mkdir alpha && printf '%s' '{}' > alpha/state.json",
            prd("alpha-four")
        ),
        &root.join("prd"),
    );
    tmux.wait_for("alpha-four");
}
