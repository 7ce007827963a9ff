//! `loopdeck watch --json` whose reader stops reading while an agent
//! appends fast to a devloop timeline: the feed's memory stays bounded
//! (the changes wait merged, not one message per append), and when the
//! reader reads again the feed goes on with a `timeline_gap` and the
//! project's row, ending on the state on disk. The real binary, Linux only
//! (`/proc/PID/status`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::ChildStdout;
use std::time::Duration;

use common::feed::command;
use serde_json::Value;

const RESTOCK: &str = "data/companies/acme/projects/p-restock";

/// Events appended while the reader does not read.
const APPENDS: usize = 60_000;

fn resident_kib(pid: u32) -> u64 {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

fn line(out: &mut BufReader<ChildStdout>) -> Value {
    let mut l = String::new();
    assert!(out.read_line(&mut l).unwrap() > 0, "the feed ended");
    serde_json::from_str(&l).unwrap()
}

fn event(i: usize) -> String {
    format!(
        "{{\"ts\":\"2026-06-02T00:00:00Z\",\"source\":\"coder\",\"kind\":\"note\",\"summary\":\"bounds {i}\"}}\n"
    )
}

#[test]
fn a_stalled_reader_costs_bounded_memory_and_resumes_with_a_gap() {
    if !Path::new("/proc/self/status").exists() {
        eprintln!("skipped: no /proc");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("devloop");
    common::copy_dir(&common::repo().join("examples/workspace/devloop"), &root);
    let timeline = root.join(RESTOCK).join("timeline.ndjson");

    let mut child = command(&root).spawn().unwrap();
    let pid = child.id();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let snap = line(&mut out);
    assert_eq!(snap["type"], "snapshot");
    // Changes from here on are seen once the watches are in place.
    if snap["watcher"]["state"] != "live" {
        loop {
            let v = line(&mut out);
            if v["type"] == "watcher" && v["watcher"]["state"] == "live" {
                break;
            }
        }
    }
    let before = resident_kib(pid);

    // The reader stops reading; an agent appends as agents do (open,
    // write one event, close), in bursts: about the rate of a busy agent.
    for i in 0..APPENDS {
        let mut f = fs::OpenOptions::new().append(true).open(&timeline).unwrap();
        f.write_all(event(i).as_bytes()).unwrap();
        drop(f);
        if i % 100 == 99 {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    // Let the watcher deliver what it has (not a measure: a settle).
    std::thread::sleep(Duration::from_secs(2));
    let after = resident_kib(pid);
    eprintln!("resident before {before} KiB, after {APPENDS} appends unread {after} KiB");

    // The reader reads again: the feed goes on with a gap, the row, and
    // the events its reading still holds, up to the last one appended.
    let last = format!("bounds {}", APPENDS - 1);
    let (mut gap, mut changed, mut lines) = (false, None, 0usize);
    loop {
        let v = line(&mut out);
        lines += 1;
        if v["type"] == "timeline_gap" && v["project"] == RESTOCK {
            gap = true;
        }
        if v["type"] == "project_changed" && v["project"]["id"] == RESTOCK {
            changed = Some(v["project"].clone());
        }
        if v["type"] == "timeline_event" && v["event"]["summary"] == last.as_str() {
            break;
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(gap, "a timeline_gap says events are missing");
    let row = changed.expect("the project's row");
    let list = common::loopdeck()
        .args(["list", "--json"])
        .arg(&root)
        .output()
        .unwrap();
    let list: Value = serde_json::from_slice(&list.stdout).unwrap();
    let now = list["projects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == RESTOCK)
        .unwrap();
    for key in ["status", "needs_human", "updated_at", "format"] {
        assert_eq!(row[key], now[key], "{key}: the row as list gives it now");
    }
    assert!(
        lines < APPENDS / 2,
        "coalesced: {lines} lines for {APPENDS} appends"
    );
    // A bound far below what one message per append costs (~200 bytes
    // each: ~12 MiB here).
    assert!(
        after.saturating_sub(before) < 4 * 1024,
        "resident {before} KiB before, {after} KiB after {APPENDS} unread appends"
    );
}
