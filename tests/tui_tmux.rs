//! End to end: the real binary in tmux, driven with `send-keys` and read
//! with `capture-pane`. Navigate, filter, open help and the inbox, quit;
//! the terminal must leave the alternate screen, and a project whose name
//! holds an OSC title sequence must not change the pane title.
//!
//! Needs tmux. CI installs it (`.ci/run`); on a machine without it the test
//! says so and passes only outside CI.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::process::Command;
use std::thread::sleep;
use std::time::{Duration, Instant};

use common::{NOW, workspace, write};

struct Tmux {
    socket: String,
}

impl Tmux {
    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "e2e"])
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "e2e"];
        args.extend_from_slice(keys);
        self.run(&args);
    }

    /// Wait until the screen shows `needle` (the console draws on events,
    /// so poll for a while rather than sleep a fixed time).
    fn wait_for(&self, needle: &str) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if s.contains(needle) {
                return s;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "never saw {needle:?}; screen:\n{s}"
            );
            sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .arg("kill-server")
            .output();
    }
}

fn tmux_available() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn navigate_filter_help_inbox_quit_in_tmux() {
    if !tmux_available() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have tmux (.ci/run installs it)"
        );
        eprintln!(
            "tmux is not installed: skipping the end-to-end console test (apt-get install tmux)"
        );
        return;
    }
    let (_t, ws) = workspace();
    // A project whose name tries to set the terminal title.
    write(
        &ws.join("prd-master/osc-title/state.json"),
        r#"{"workflow_version":"0.6","current_stage":"2","project_name":"osc\u001b]2;PWNED-TITLE\u0007name","last_updated_at_utc":"2026-06-01T11:59:00Z"}"#,
    );
    let bin = assert_cmd::cargo::cargo_bin("loopdeck");
    let tmux = Tmux {
        socket: format!("loopdeck-e2e-{}", std::process::id()),
    };
    let cmd = format!(
        "{} {} --now {NOW}; echo EXITED:$?; sleep 60",
        bin.display(),
        ws.display()
    );
    tmux.run(&[
        "-f",
        "/dev/null",
        "new-session",
        "-d",
        "-s",
        "e2e",
        "-x",
        "100",
        "-y",
        "30",
        "env",
        "NO_COLOR=1",
        "sh",
        "-c",
        &cmd,
    ]);
    tmux.run(&["select-pane", "-t", "e2e", "-T", "e2e-title"]);

    // The hostile name appears once the projects are read: the escape is
    // shown, not obeyed.
    let s = tmux.wait_for("osc^[]2;PWNED-TITLE^Gname");
    assert!(s.contains("loopdeck"), "{s}");
    assert!(!s.contains("reading"), "loaded:\n{s}");
    assert_eq!(
        tmux.run(&["display", "-p", "-t", "e2e", "#{alternate_on}"])
            .trim(),
        "1"
    );

    // Navigate: the selection moves down the list.
    tmux.keys(&["j", "j"]);
    let s = tmux.wait_for("◆");
    assert!(s.contains("Projects"), "{s}");

    // Filter the list to the GSD projects.
    tmux.keys(&["/", "g", "s", "d", "Enter"]);
    let s = tmux.wait_for("Projects /gsd");
    assert!(
        !s.contains("fba-smart-restock"),
        "the filter hides other projects:\n{s}"
    );
    assert!(s.contains("paused-waiting"), "{s}");
    tmux.keys(&["Escape"]);

    // Help lists the keys.
    tmux.keys(&["?"]);
    let s = tmux.wait_for("Keys");
    assert!(s.contains("inbox: everything waiting for a human"), "{s}");
    tmux.keys(&["Escape"]);

    // The inbox, oldest first.
    tmux.keys(&["i"]);
    let s = tmux.wait_for("Inbox");
    assert!(s.contains("waiting"), "{s}");
    tmux.keys(&["Escape"]);

    // Into a project's detail and across its tabs, then a resize below
    // the split width and back: one pane with a breadcrumb, then both.
    tmux.keys(&["g", "Enter"]);
    tmux.wait_for("Overview");
    tmux.keys(&["Tab"]);
    tmux.run(&["resize-window", "-t", "e2e", "-x", "70", "-y", "20"]);
    let s = tmux.wait_for("projects ›");
    assert!(
        s.lines()
            .all(|l| unicode_width::UnicodeWidthStr::width(l) <= 70),
        "{s}"
    );
    tmux.run(&["resize-window", "-t", "e2e", "-x", "120", "-y", "30"]);
    let s = tmux.wait_for("Projects ");
    assert!(
        !s.contains("projects ›"),
        "wide again: list and detail side by side:\n{s}"
    );
    tmux.keys(&["Escape"]);

    tmux.keys(&["q"]);
    let s = tmux.wait_for("EXITED:0");
    assert!(
        !s.contains("Projects"),
        "the console's screen is gone:\n{s}"
    );
    assert_eq!(
        tmux.run(&["display", "-p", "-t", "e2e", "#{alternate_on}"])
            .trim(),
        "0",
        "left the alternate screen"
    );
    assert_eq!(
        tmux.run(&["display", "-p", "-t", "e2e", "#{pane_title}"])
            .trim(),
        "e2e-title",
        "no file changed the title"
    );
}
