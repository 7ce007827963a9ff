//! End to end (tmux): an idle console sleeps. Nothing changes on disk and
//! no key is pressed: its threads make (almost) no context switch, where
//! the input thread used to wake five times a second to look whether a
//! pager was about to run. It still wakes for what matters: a resize
//! redraws it, a key acts.
//!
//! A count, not a timing: the context switches of every thread of the
//! console (`/proc/PID/task/*/status`) over three idle seconds.
//!
//! Needs tmux and Linux's /proc; skipped, saying so, without tmux outside
//! CI.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::thread::sleep;
use std::time::{Duration, Instant};

use common::NOW;
use common::tmux::{Tmux, skip_without_tmux};

/// Each live thread of `pid` (its id and name) with its context switches,
/// voluntary and not.
fn switches(pid: u32) -> BTreeMap<(u32, String), u64> {
    let mut out = BTreeMap::new();
    let Ok(tasks) = fs::read_dir(format!("/proc/{pid}/task")) else {
        return out;
    };
    for task in tasks.filter_map(Result::ok) {
        let Ok(tid) = task.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let dir = task.path();
        // A thread that ended between the listing and the read: left out.
        let Ok(status) = fs::read_to_string(dir.join("status")) else {
            continue;
        };
        let name = fs::read_to_string(dir.join("comm")).unwrap_or_default();
        let n: u64 = status
            .lines()
            .filter(|l| {
                l.starts_with("voluntary_ctxt_switches:")
                    || l.starts_with("nonvoluntary_ctxt_switches:")
            })
            .filter_map(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
            .sum();
        out.insert((tid, name.trim().to_owned()), n);
    }
    out
}

fn total(s: &BTreeMap<(u32, String), u64>) -> u64 {
    s.values().sum()
}

/// Wait (up to ten seconds) for the console to settle after it started:
/// the watches set up, the reading again after them, the memory written.
/// Half a second with no switch at all, or the ten seconds are up (a
/// console that never sleeps then fails the count that follows).
fn settle(pid: u32) {
    let start = Instant::now();
    let mut last = total(&switches(pid));
    while start.elapsed() < Duration::from_secs(10) {
        sleep(Duration::from_millis(500));
        let now = total(&switches(pid));
        if now == last {
            return;
        }
        last = now;
    }
}

/// Once settled, `pid` makes (almost) no context switch in 3 s.
fn assert_asleep(pid: u32, what: &str) {
    settle(pid);
    let before = switches(pid);
    sleep(Duration::from_secs(3));
    let after = switches(pid);
    let delta = total(&after).saturating_sub(total(&before));
    let per_thread: Vec<String> = after
        .iter()
        .map(|(k, n)| {
            let was = before.get(k).copied().unwrap_or(0);
            format!("{} ({}): +{}", k.1, k.0, n.saturating_sub(was))
        })
        .collect();
    eprintln!("{what}, 3 s: {delta} context switches: {per_thread:#?}");
    // When the input thread polled crossterm every 200 ms it made ≥ 15
    // here; a stray switch or two (the kernel's own doing) are allowed.
    assert!(
        delta <= 3,
        "{what} switched {delta} times in 3 s: {per_thread:#?}"
    );
}

#[test]
fn an_idle_console_does_not_wake() {
    if skip_without_tmux() {
        return;
    }
    asleep_then_awake("idle", &[]);
}

/// With stdin not a terminal, crossterm reads `/dev/tty`: the console
/// sleeps on that one, and wakes on it, the same.
#[test]
fn an_idle_console_reading_dev_tty_does_not_wake_either() {
    if skip_without_tmux() {
        return;
    }
    asleep_then_awake("idle-dev-tty", &["</dev/null"]);
}

/// crossterm reads at most 1 KiB of the terminal each time new bytes
/// arrive: a longer burst of keys (no bracketed paste) leaves bytes in the
/// terminal until the next key. The console sleeps meanwhile (the terminal
/// is watched for new bytes, not for bytes waiting, which would wake it
/// over and over), and the next key is read.
#[test]
fn a_long_burst_of_keys_leaves_the_console_asleep() {
    if skip_without_tmux() {
        return;
    }
    let (_tmp, ws) = common::workspace();
    let tmux = Tmux::new("idle-burst");
    tmux.start(&ws, NOW, "120", "30");
    tmux.wait_for("● live");
    let pid = tmux.console_pid();
    // Down and up, 2,000 times: 4 KiB, the selection where it was.
    tmux.keys(&["-l", &"jk".repeat(2000)]);
    assert_asleep(pid, "a console after a burst of keys");
    // Keys still reach it (crossterm takes the rest of the burst, then
    // them, a KiB per key).
    let start = Instant::now();
    while !tmux.screen().contains("Inbox") {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the inbox never opened:\n{}",
            tmux.screen()
        );
        tmux.keys(&["i"]);
        sleep(Duration::from_millis(300));
    }
}

/// The console on the example workspace (`args` added to its command
/// line, which `sh` runs): asleep once settled, awake for a resize and a
/// key.
fn asleep_then_awake(label: &str, args: &[&str]) {
    let (_tmp, ws) = common::workspace();
    let tmux = Tmux::new(label);
    tmux.start_with(&ws, NOW, "120", "30", &[], args);
    tmux.wait_for("fba-smart-restock");
    // Watching: no more first readings to come.
    tmux.wait_for("● live");
    let pid = tmux.console_pid();
    // What its stdin is: the pane's terminal, or /dev/null as asked.
    let stdin = fs::read_link(format!("/proc/{pid}/fd/0")).unwrap();
    assert_eq!(
        stdin.to_str() == Some("/dev/null"),
        args.contains(&"</dev/null"),
        "stdin: {}",
        stdin.display()
    );
    assert_asleep(pid, "an idle console");

    // Asleep, it still wakes for what matters: a resize redraws it...
    tmux.run(&["resize-window", "-t", "e2e", "-x", "30", "-y", "6"]);
    tmux.wait_for("too small");
    tmux.run(&["resize-window", "-t", "e2e", "-x", "120", "-y", "30"]);
    tmux.wait_until("the console drawn again", |s| {
        !s.contains("too small") && s.contains("fba-smart-restock")
    });
    // ... and a key acts.
    tmux.keys(&["i"]);
    tmux.wait_for("Inbox");
    tmux.keys(&["q"]);
    tmux.wait_for("EXITED:0");
}
