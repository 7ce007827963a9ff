//! End to end (tmux), issue 11 §4: `y` copies with OSC 52 and `o` / `e`
//! hand the terminal to `$PAGER` / `$EDITOR` and take it back.
//!
//! - Copy: tmux with `set-clipboard on` takes the console's OSC 52 into
//!   its own paste buffer: `tmux show-buffer` holds the copied text.
//! - Pager: `$PAGER` is a script that shows the file it got, reads a line
//!   from the terminal and writes it to a marker file. The line typed
//!   reaches the script whole (the console reads no key while it runs);
//!   after it the console is redrawn and its keys work; Ctrl-C stops the
//!   pager, not the console; a missing `$EDITOR` is said in the status
//!   line.
//!
//! Needs tmux; skipped, saying so, without it outside CI.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::thread::sleep;
use std::time::{Duration, Instant};

use common::NOW;
use common::tmux::{Tmux, skip_without_tmux};

/// The list narrowed to the one project matching `text`.
fn filter(tmux: &Tmux, text: &str) {
    tmux.keys(&["/"]);
    tmux.keys(&["-l", text]);
    tmux.keys(&["Enter"]);
    tmux.wait_for(&format!("Projects /{text} 1/"));
}

#[test]
fn y_puts_the_selected_item_in_tmuxs_buffer() {
    if skip_without_tmux() {
        return;
    }
    let (_tmp, ws) = common::workspace();
    let tmux = Tmux::new("copy");
    tmux.start(&ws, NOW, "140", "40");
    tmux.run(&["set-option", "-g", "set-clipboard", "on"]);
    tmux.wait_for("fba-smart-restock");

    // A project: its path.
    filter(&tmux, "fba-smart");
    tmux.keys(&["y"]);
    let s = tmux.wait_for("your terminal must allow clipboard writes");
    assert!(s.contains("copied "), "{s}");
    let path = ws.join("prd-master/fba-smart-restock");
    let buffer = wait_buffer(&tmux, |b| b == path.to_str().unwrap());
    assert_eq!(buffer, path.to_str().unwrap());

    // An inbox item: its reference and title (UTF-8 through base64).
    tmux.keys(&["i"]);
    tmux.keys(&["/"]);
    tmux.keys(&["-l", "OQ-7"]);
    tmux.keys(&["Enter"]);
    // Two projects ask OQ-7, the same question.
    tmux.wait_for("/OQ-7 · 2 ");
    tmux.keys(&["y"]);
    tmux.wait_for("copied OQ-7");
    let buffer = wait_buffer(&tmux, |b| b.starts_with("OQ-7"));
    assert_eq!(buffer, "OQ-7 批量导出是否进入 MVP");
}

/// tmux's newest paste buffer, once `ok` (tmux takes the sequence in as
/// the pane's output arrives).
fn wait_buffer(tmux: &Tmux, ok: impl Fn(&str) -> bool) -> String {
    let start = Instant::now();
    loop {
        let b = tmux.run(&["show-buffer"]);
        if ok(&b) {
            return b;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "tmux's buffer never got it: {b:?}"
        );
        sleep(Duration::from_millis(50));
    }
}

#[test]
fn o_runs_the_pager_with_the_terminal_and_comes_back() {
    if skip_without_tmux() {
        return;
    }
    let (tmp, ws) = common::workspace();
    let marker = tmp.path().join("marker");
    let pager = tmp.path().join("pager.sh");
    fs::write(
        &pager,
        format!(
            "#!/bin/sh\nprintf 'PAGER GOT %s\\n' \"$1\"\nprintf 'type a line: '\nread line\nprintf '%s\\n' \"$line\" > '{}'\n",
            marker.display()
        ),
    )
    .unwrap();
    fs::set_permissions(&pager, fs::Permissions::from_mode(0o755)).unwrap();
    let tmux = Tmux::new("pager");
    let env_pager = format!("PAGER={}", pager.display());
    tmux.start_with(
        &ws,
        NOW,
        "140",
        "40",
        &[&env_pager, "EDITOR=loopdeck-no-such-editor"],
        &[],
    );
    tmux.wait_for("fba-smart-restock");
    filter(&tmux, "fba-smart");

    tmux.keys(&["o"]);
    let state = ws.join("prd-master/fba-smart-restock/state.json");
    let s = tmux.wait_for("type a line:");
    assert!(
        s.contains(&format!("PAGER GOT {}", state.display())),
        "the pager got the project's state file:\n{s}"
    );
    // The console's screen is gone while the pager has the terminal.
    assert!(!s.contains("Projects /fba-smart"), "{s}");
    // Every key goes to the pager, none to the console (`i` would open
    // its inbox, `q` quit it).
    tmux.keys(&["-l", "iqjy hello"]);
    tmux.keys(&["Enter"]);
    let start = Instant::now();
    while !marker.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the pager never ended"
        );
        sleep(Duration::from_millis(50));
    }
    sleep(Duration::from_millis(100));
    assert_eq!(fs::read_to_string(&marker).unwrap(), "iqjy hello\n");

    // Back: the console redrawn as it was, and its keys work.
    let s = tmux.wait_for("Projects /fba-smart 1/");
    assert!(
        !s.contains("PAGER GOT"),
        "the screen is the console's:\n{s}"
    );
    assert!(!s.contains("EXITED"), "{s}");
    tmux.keys(&["i"]);
    tmux.wait_for("Inbox");

    // A missing program is said, and the console comes back from it too.
    tmux.keys(&["p"]);
    tmux.wait_for("Projects /fba-smart 1/");
    tmux.keys(&["e"]);
    // The shell's own error is printed while it has the terminal: wait for
    // the console drawn back over it, with the failure said in it.
    let s = tmux.wait_until("the console back after the missing editor", |s| {
        s.contains("Projects /fba-smart 1/") && s.contains("loopdeck-no-such-editor: not found")
    });
    assert!(
        !s.contains("loopdeck-no-such-editor: 1:"),
        "the shell's raw line is gone:\n{s}"
    );

    // Ctrl-C in the pager stops the pager, not the console. (Last: the
    // harness's own `sh -c`, in the console's process group here as no
    // interactive shell would be, dies of it and ends the pane at quit.)
    tmux.keys(&["p"]);
    tmux.wait_for("Projects /fba-smart 1/");
    tmux.keys(&["o"]);
    tmux.wait_for("type a line:");
    tmux.keys(&["C-c"]);
    let s = tmux.wait_until("the console back after Ctrl-C", |s| {
        s.contains("Projects /fba-smart 1/") && s.contains("pager.sh")
    });
    assert!(
        s.contains("exited with status 130") || s.contains("stopped by a signal"),
        "{s}"
    );
    assert!(!s.contains("EXITED"), "{s}");

    tmux.keys(&["i"]);
    tmux.wait_for("Inbox");
}
