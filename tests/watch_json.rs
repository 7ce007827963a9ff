//! `loopdeck watch --json`, run as a user runs it: the real binary on a
//! temp copy of the example workspace, with this test as the writer. Each
//! change to the files shows up as its own line; nothing is printed while
//! nothing changes; SIGTERM and a reader that goes away end it with exit 0.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::feed::{DEADLINE, Feed, RESTOCK, append, is, started, workspace};

use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

#[test]
fn the_snapshot_holds_every_list_row() {
    let (_dir, root) = workspace();
    let mut feed = Feed::start(&root);
    let snap = started(&mut feed);
    let list = common::loopdeck()
        .args(["list", "--json"])
        .arg(&root)
        .output()
        .unwrap();
    let list: Value = serde_json::from_slice(&list.stdout).unwrap();
    let ids = |v: &Value| {
        let mut ids: Vec<String> = v["projects"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["id"].as_str().unwrap().to_owned())
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(ids(&snap), ids(&list));
    assert_eq!(snap["roots"], list["roots"]);
    assert_eq!(snap["problems"], serde_json::json!([]));
    // Each row has list's keys, in list's order.
    let keys = |p: &Value| p.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        keys(&snap["projects"][0]),
        keys(&list["projects"][0]),
        "a snapshot row is a list row"
    );
    let restock = snap["projects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == RESTOCK)
        .unwrap();
    assert_eq!(restock["format"], "devloop");
    assert_eq!(restock["needs_human"], 1);
}

#[test]
fn each_change_on_disk_is_its_line_and_quiet_is_quiet() {
    let (_dir, root) = workspace();
    let restock = root.join(RESTOCK);
    let mut feed = Feed::start(&root);
    started(&mut feed);
    feed.quiet(Duration::from_secs(1));

    // An agent appends to a timeline.
    append(
        &restock.join("timeline.ndjson"),
        "{\"ts\":\"2026-06-01T12:00:01Z\",\"source\":\"coder\",\"kind\":\"note\",\"summary\":\"appended one\"}\n",
    );
    let v = feed.wait_for("the appended event", |v| is(v, "timeline_event"));
    assert_eq!(v["project"], RESTOCK);
    assert_eq!(v["event"]["summary"], "appended one");
    assert_eq!(v["event"]["source"], "coder");

    // A bug moves, and a new one is opened.
    append(
        &restock.join("bugs.ndjson"),
        concat!(
            "{\"id\":\"bug-20260601-0902-d4e8\",\"discovered_at\":\"2026-06-01T09:02:10Z\",\"source\":\"human\",\"unit_id\":\"restock-fe\",\"category\":\"ui\",\"severity\":\"low\",\"title\":\"t\",\"affected_units\":[\"restock-fe\"],\"status\":\"fixing\",\"status_history\":[{\"ts\":\"2026-06-01T12:00:02Z\",\"from\":\"open\",\"to\":\"fixing\",\"by\":\"coder\"}],\"fix_refs\":[]}\n",
            "{\"id\":\"bug-new-1\",\"discovered_at\":\"2026-06-01T12:00:02Z\",\"source\":\"human\",\"unit_id\":\"restock-fe\",\"category\":\"unknown\",\"severity\":\"high\",\"title\":\"a fresh bug\",\"affected_units\":[\"restock-fe\"],\"status\":\"open\",\"status_history\":[],\"fix_refs\":[]}\n",
        ),
    );
    let moved = feed.wait_for("the bug transition", |v| is(v, "bug_transitioned"));
    assert_eq!(moved["bug"]["id"], "bug-20260601-0902-d4e8");
    assert_eq!(moved["from"], "open");
    assert_eq!(moved["to"], "fixing");
    let opened = feed.wait_for("the new bug", |v| is(v, "bug_opened"));
    assert_eq!(opened["bug"]["id"], "bug-new-1");
    assert_eq!(opened["bug"]["title"], "a fresh bug");

    // A PRD state.json rewritten in place.
    let state = root.join("prd-master/fba-smart-restock/state.json");
    let text = fs::read_to_string(&state).unwrap().replace(
        "\"project_name\": \"fba-smart-restock\"",
        "\"project_name\": \"renamed in place\"",
    );
    fs::write(&state, text).unwrap();
    let v = feed.wait_for("the PRD rewrite", |v| {
        is(v, "project_changed") && v["project"]["name"] == "renamed in place"
    });
    assert_eq!(v["project"]["id"], "prd-master/fba-smart-restock");
    assert_eq!(v["project"]["format"], "prd-master");

    // A GSD STATE.md replaced by rename.
    let planning = root.join("gsd/scene1-active-phase/.planning");
    let text = fs::read_to_string(planning.join("STATE.md"))
        .unwrap()
        .replace("  percent: 20\n", "  percent: 55\n");
    fs::write(planning.join("STATE.md.tmp"), text).unwrap();
    fs::rename(planning.join("STATE.md.tmp"), planning.join("STATE.md")).unwrap();
    feed.wait_for("the GSD rename", |v| {
        is(v, "project_changed")
            && v["project"]["id"] == "gsd/scene1-active-phase"
            && v["project"]["progress_percent"] == 55
    });

    // The timeline cut back to its first two lines: a reset, no news.
    let timeline = restock.join("timeline.ndjson");
    let text = fs::read_to_string(&timeline).unwrap();
    let two: String = text.lines().take(2).map(|l| format!("{l}\n")).collect();
    fs::OpenOptions::new()
        .write(true)
        .open(&timeline)
        .unwrap()
        .set_len(two.len() as u64)
        .unwrap();
    let from = feed.seen.len();
    let v = feed.wait_for("the truncated log", |v| is(v, "timeline_reset"));
    assert_eq!(v["project"], RESTOCK);
    assert_eq!(v["timeline"].as_array().unwrap().len(), 2);
    assert!(
        !feed.seen[from..].iter().any(|v| is(v, "timeline_event")),
        "a truncation is no news: {:#?}",
        &feed.seen[from..]
    );

    // A project deleted, then recreated.
    let review = root.join("prd-master/restock-v1-review");
    fs::remove_dir_all(&review).unwrap();
    let v = feed.wait_for("the deleted project", |v| is(v, "project_removed"));
    assert_eq!(v["project"]["id"], "prd-master/restock-v1-review");
    // Its inbox items left with it, just before.
    let gone: Vec<&Value> = feed
        .seen
        .iter()
        .filter(|v| {
            is(v, "inbox_removed") && v["item"]["project"] == "prd-master/restock-v1-review"
        })
        .collect();
    assert_eq!(gone.len(), 2, "{gone:#?}");
    common::copy_dir(
        &common::repo().join("examples/workspace/prd-master/restock-v1-review"),
        &review,
    );
    let v = feed.wait_for("the recreated project", |v| is(v, "project_added"));
    assert_eq!(v["project"]["id"], "prd-master/restock-v1-review");
    assert_eq!(v["project"]["needs_human"], 2);

    // A GSD agent starts waiting for a human, then stops.
    let waiting = root.join("gsd/scene2-next-action/.planning/WAITING.json");
    fs::write(
        &waiting,
        r#"{"status":"waiting","type":"decision","question":"ship it?","options":["yes","no"],"since":"2026-06-01T12:00:00Z"}"#,
    )
    .unwrap();
    let added = feed.wait_for("the item appearing", |v| {
        is(v, "inbox_added") && v["item"]["project"] == "gsd/scene2-next-action"
    });
    assert_eq!(added["item"]["kind"], "waiting");
    assert_eq!(added["item"]["title"], "ship it?");
    let key = added["key"].as_str().unwrap().to_owned();
    assert!(key.contains("scene2-next-action#waiting:"), "{key}");
    fs::remove_file(&waiting).unwrap();
    let left = feed.wait_for("the item leaving", |v| is(v, "inbox_removed"));
    assert_eq!(left["key"], key.as_str(), "an item leaves under its key");

    // Then nothing changes, and nothing is printed.
    feed.quiet(Duration::from_secs(1));

    // SIGTERM ends the run cleanly.
    let pid = libc::pid_t::try_from(feed.child.id()).unwrap();
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    assert_eq!(feed.exit_code(), Some(0));
    assert_eq!(feed.stderr(), "");
}

/// A root that does not exist beside one that does: the snapshot has it
/// among its problems and every project of the other root; with no root
/// that exists, the command line is wrong (exit 2), as for `list`.
#[test]
fn a_missing_root_is_a_problem_of_the_snapshot() {
    let (dir, root) = workspace();
    let gone = dir.path().join("gone");
    let mut cmd = common::feed::command(&root);
    cmd.arg(&gone);
    let mut feed = Feed::spawn(cmd);
    let snap = started(&mut feed);
    assert_eq!(
        snap["problems"],
        serde_json::json!([format!("{}: does not exist", gone.display())])
    );
    let list = common::loopdeck()
        .args(["list", "--json"])
        .arg(&root)
        .output()
        .unwrap();
    let list: Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(
        snap["projects"].as_array().unwrap().len(),
        list["projects"].as_array().unwrap().len()
    );
    drop(feed);
    let out = common::feed::command(&gone).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("loopdeck: {} does not exist\n", gone.display())
    );
}

/// The whole root deleted and recreated: its projects go, then come back
/// (the watcher watches each root's parent, so a recreated root is seen).
#[test]
fn a_root_deleted_and_recreated_is_followed() {
    let (_dir, root) = workspace();
    let mut feed = Feed::start(&root);
    started(&mut feed);
    fs::remove_dir_all(&root).unwrap();
    feed.wait_for("the projects going", |v| {
        is(v, "project_removed") && v["project"]["id"] == RESTOCK
    });
    common::copy_dir(&common::repo().join("examples/workspace"), &root);
    feed.wait_for("the projects back", |v| {
        is(v, "project_added") && v["project"]["id"] == RESTOCK
    });
    // And later edits are still seen.
    append(
        &root.join(RESTOCK).join("timeline.ndjson"),
        "{\"ts\":\"2026-06-01T12:00:01Z\",\"source\":\"coder\",\"kind\":\"note\",\"summary\":\"after the return\"}\n",
    );
    feed.wait_for("an append after the return", |v| {
        is(v, "timeline_event") && v["event"]["summary"] == "after the return"
    });
}

/// The reader goes away (`loopdeck watch --json | head -1`): the feed
/// ends with exit 0 and says nothing, even while nothing changes.
#[test]
fn a_closed_reader_ends_the_run_quietly() {
    let (_dir, root) = workspace();
    let mut child = common::feed::command(&root).spawn().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    assert!(first.contains("\"type\":\"snapshot\""), "{first}");
    drop(out);
    let end = Instant::now() + DEADLINE;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < end, "still running with no reader");
        thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(0), "stderr: {err}");
    assert_eq!(err, "");
}

/// Without --json: the table, then a plain line per change, made safe.
#[test]
fn plain_lines_are_safe() {
    let (_dir, root) = workspace();
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("loopdeck"))
        .arg("watch")
        .arg(&root)
        .env("XDG_CONFIG_HOME", "/nonexistent-loopdeck-test-config")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let out = child.stdout.take().unwrap();
    thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let wait = |rx: &Receiver<String>, want: &dyn Fn(&str) -> bool| -> String {
        let end = Instant::now() + DEADLINE;
        loop {
            let left = end.checked_duration_since(Instant::now()).expect("a line");
            let l = rx.recv_timeout(left).expect("a line");
            if want(&l) {
                return l;
            }
        }
    };
    // Live in the snapshot's last line, or in a watcher line after it
    // (when the watches took longer than the first reading).
    wait(&rx, &|l| {
        l.starts_with("watching: live") || l.contains(" watcher  live")
    });
    append(
        &root.join(RESTOCK).join("timeline.ndjson"),
        "{\"ts\":\"2026-06-01T12:00:01Z\",\"source\":\"coder\",\"kind\":\"note\",\"summary\":\"plain \\u001b]0;pwned\\u0007 text\"}\n",
    );
    let line = wait(&rx, &|l| l.contains(" event "));
    assert!(line.contains("coder note: plain"), "{line}");
    assert!(
        !line.contains('\u{1b}') && !line.contains('\u{7}'),
        "{line:?}"
    );
    let _ = child.kill();
    let _ = child.wait();
}

/// Issue 20 §1: an agent writing a project over and over changes its row,
/// never its waiting questions: an item whose content did not change sends
/// no `inbox_changed` (each write re-aged every PRD question before: 14
/// lines in 10 s for one unchanged item).
#[test]
fn an_unchanged_item_sends_no_inbox_changed_under_agent_writes() {
    let (_dir, root) = workspace();
    let state = root.join("prd-master/lint-synonyms/state.json");
    let mut feed = Feed::start(&root);
    started(&mut feed);
    let from = feed.seen.len();
    for n in 1..=5 {
        let mut v: Value = serde_json::from_slice(&fs::read(&state).unwrap()).unwrap();
        v["project_name"] = Value::from(format!("agent write {n}"));
        v["last_updated_at_utc"] = Value::from(format!("2026-06-01T12:0{n}:00Z"));
        fs::write(&state, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
        // Only this write's reading says this name.
        feed.wait_for("the agent's write", |v| {
            is(v, "project_changed") && v["project"]["name"] == format!("agent write {n}")
        });
    }
    let lines: Vec<&Value> = feed.seen[from..]
        .iter()
        .filter(|v| is(v, "inbox_changed"))
        .collect();
    assert!(
        lines.is_empty(),
        "inbox_changed for unchanged items: {lines:?}"
    );
}
