//! Many `act bug` processes at once on one `bugs.ndjson`.

use std::fs;
use std::process::{Child, Command, Stdio};

use serde_json::Value;

use super::{NOW, Ws, bug, show};

fn spawn(w: &Ws, dir: &std::path::Path, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_loopdeck"))
        .env("NO_COLOR", "1")
        .env("LC_ALL", "C.UTF-8")
        .env("XDG_CONFIG_HOME", "/nonexistent-loopdeck-test-config")
        .env("XDG_STATE_HOME", w.state.path())
        .arg("act")
        .arg(dir)
        .args(args)
        .args(["--by", "yibo", "--now", NOW])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// 50 processes each move their own bug: all 50 lines and 50 events land,
/// whole, and the reader sees every bug moved.
#[test]
fn fifty_transitions_started_at_once_all_land() {
    let w = Ws::new();
    let dir = w.dir("p-restock");
    let mut text = String::new();
    for i in 0..50 {
        text.push_str(&format!(
            "{{\"id\":\"bug-20260601-1200-{i:04}\",\"source\":\"human\",\"category\":\"unknown\",\"severity\":\"low\",\"title\":\"t{i}\",\"affected_units\":[],\"status\":\"open\",\"status_history\":[],\"fix_refs\":[]}}\n"
        ));
    }
    fs::write(dir.join("bugs.ndjson"), &text).unwrap();
    let events_before = fs::read_to_string(dir.join("timeline.ndjson"))
        .unwrap()
        .lines()
        .count();
    let children: Vec<Child> = (0..50)
        .map(|i| {
            let id = format!("bug-20260601-1200-{i:04}");
            spawn(&w, &dir, &["bug", &id, "fixing"])
        })
        .collect();
    for c in children {
        let o = c.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let bugs = fs::read_to_string(dir.join("bugs.ndjson")).unwrap();
    assert_eq!(bugs.lines().count(), 100);
    for l in bugs.lines() {
        serde_json::from_str::<Value>(l).unwrap();
    }
    let timeline = fs::read_to_string(dir.join("timeline.ndjson")).unwrap();
    assert_eq!(timeline.lines().count(), events_before + 50);
    let v = show(&dir, NOW);
    for i in 0..50 {
        assert_eq!(
            bug(&v, &format!("bug-20260601-1200-{i:04}"))["status"],
            "fixing"
        );
    }
}

/// 20 processes move the same bug to fixing: one wins, the others see it
/// already moved (or the lock) and write nothing: one line, one history.
#[test]
fn one_bug_moved_by_twenty_processes_moves_once() {
    let w = Ws::new();
    let dir = w.dir("p-restock");
    let id = super::OPEN_BUG;
    let children: Vec<Child> = (0..20)
        .map(|_| spawn(&w, &dir, &["bug", id, "fixing"]))
        .collect();
    let mut won = 0;
    for c in children {
        let o = c.wait_with_output().unwrap();
        match o.status.code() {
            Some(0) => won += 1,
            Some(1 | 3) => {}
            other => panic!("{other:?}: {}", String::from_utf8_lossy(&o.stderr)),
        }
    }
    assert_eq!(won, 1);
    let moved = fs::read_to_string(dir.join("bugs.ndjson"))
        .unwrap()
        .lines()
        .filter(|l| l.contains(id) && !l.contains("\"status\":\"open\""))
        .count();
    assert_eq!(moved, 1);
}
