//! Issue 9 under a hostile file system: `loopdeck watch --json` run as a
//! user runs it, on real files, with this test as the writer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::feed::{DEADLINE, Feed, RESTOCK, append, is, started, workspace};

use std::fs;
use std::io::Write;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

fn note(summary: &str) -> String {
    format!(
        "{{\"ts\":\"2026-06-01T12:00:01Z\",\"source\":\"coder\",\"kind\":\"note\",\"summary\":\"{summary}\"}}\n"
    )
}

/// A root given as a symbolic link to the workspace (`~/work -> /data/work`):
/// the walk lists through it, so the watches must too. Live means seen.
#[test]
fn a_root_that_is_a_symlink_is_watched() {
    let (dir, real) = workspace();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let mut feed = Feed::start_with(&link, &[]);
    let snap = started(&mut feed);
    assert!(
        snap["projects"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["id"] == RESTOCK)
    );
    // The read that follows the watches' setup is over.
    thread::sleep(Duration::from_millis(1500));
    append(
        &real.join(RESTOCK).join("timeline.ndjson"),
        &note("through the link"),
    );
    feed.wait_for("the append under a linked root", |v| {
        is(v, "timeline_event") && v["event"]["summary"] == "through the link"
    });
}

/// A directory the user could not read when the run began (no watch can be
/// added to it) is made readable: its projects appear, and from then on
/// its edits are seen too, as anywhere else while the header says live.
/// Run as nobody (root ignores permission bits).
#[test]
fn a_directory_made_readable_is_watched_from_then_on() {
    let Some(setpriv) = common::setpriv() else {
        return;
    };
    let (dir, root) = workspace();
    common::world_readable(dir.path());
    let gsd = root.join("gsd");
    common::chmod(&gsd, 0o000);
    let mut cmd = Command::new(setpriv);
    cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(assert_cmd::cargo::cargo_bin("loopdeck"))
        .args(["watch", "--json"])
        .arg(&root)
        .env("NO_COLOR", "1")
        .env("LC_ALL", "C.UTF-8")
        .env("XDG_CONFIG_HOME", "/nonexistent-loopdeck-test-config")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut feed = Feed::spawn(cmd);
    let snap = started(&mut feed);
    assert!(
        !snap["projects"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["id"] == "gsd/scene1-active-phase"),
        "unreadable at the start"
    );
    common::chmod(&gsd, 0o755);
    feed.wait_for("the projects of the directory made readable", |v| {
        is(v, "project_added") && v["project"]["id"] == "gsd/scene1-active-phase"
    });
    let state = gsd.join("scene1-active-phase/.planning/STATE.md");
    let text = fs::read_to_string(&state)
        .unwrap()
        .replace("  percent: 20\n", "  percent: 55\n");
    fs::write(&state, text).unwrap();
    feed.wait_for("an edit inside it", |v| {
        is(v, "project_changed")
            && v["project"]["id"] == "gsd/scene1-active-phase"
            && v["project"]["progress_percent"] == 55
    });
}

/// The root's parent deleted and recreated (a checkout dir wiped and cloned
/// again): the projects come back, and later edits are seen.
#[test]
fn a_root_whose_parent_is_deleted_and_recreated_is_followed() {
    let dir = tempfile::tempdir().unwrap();
    let parent = dir.path().join("checkout");
    let root = parent.join("ws");
    common::copy_dir(&common::repo().join("examples/workspace"), &root);
    let mut feed = Feed::start_with(&root, &[]);
    started(&mut feed);
    fs::remove_dir_all(&parent).unwrap();
    feed.wait_for("the projects going", |v| {
        is(v, "project_removed") && v["project"]["id"] == RESTOCK
    });
    fs::create_dir(&parent).unwrap();
    thread::sleep(Duration::from_millis(300));
    common::copy_dir(&common::repo().join("examples/workspace"), &root);
    feed.wait_for("the projects back", |v| {
        is(v, "project_added") && v["project"]["id"] == RESTOCK
    });
    thread::sleep(Duration::from_millis(500));
    append(
        &root.join(RESTOCK).join("timeline.ndjson"),
        &note("after the parent came back"),
    );
    feed.wait_for("an append after the return", |v| {
        is(v, "timeline_event") && v["event"]["summary"] == "after the parent came back"
    });
}

/// An agent appends fast, sometimes a line in two writes: every event of
/// the file is reported once, in order, a torn line never; an event left
/// out only after a `timeline_gap` says so.
#[test]
fn rapid_appends_are_reported_once_each_in_order() {
    let (_dir, root) = workspace();
    let log = root.join(RESTOCK).join("timeline.ndjson");
    let mut feed = Feed::start_with(&root, &[]);
    started(&mut feed);
    thread::sleep(Duration::from_millis(500));
    const N: usize = 600;
    let mut f = fs::OpenOptions::new().append(true).open(&log).unwrap();
    for i in 0..N {
        let line = note(&format!("rapid {i}"));
        if i % 50 == 7 {
            // Torn: the first half now, the rest after a reading could look.
            let (a, b) = line.split_at(line.len() / 2);
            f.write_all(a.as_bytes()).unwrap();
            thread::sleep(Duration::from_millis(120));
            f.write_all(b.as_bytes()).unwrap();
        } else {
            f.write_all(line.as_bytes()).unwrap();
        }
        if i % 10 == 9 {
            thread::sleep(Duration::from_millis(15));
        }
    }
    let last = format!("rapid {}", N - 1);
    feed.wait_for("the last event", |v| {
        is(v, "timeline_event") && v["event"]["summary"] == last.as_str()
    });
    // Whatever else is in flight.
    while feed.next(Duration::from_millis(1500)).is_some() {}
    let mut expect = 0usize;
    let mut gap = false;
    for v in &feed.seen {
        if is(v, "timeline_gap") {
            gap = true;
        } else if is(v, "timeline_reset") {
            panic!("an append is no reset: {v}");
        } else if is(v, "timeline_event") {
            let s = v["event"]["summary"].as_str().unwrap();
            let i: usize = s
                .strip_prefix("rapid ")
                .unwrap_or_else(|| panic!("not an appended event: {v}"))
                .parse()
                .unwrap_or_else(|_| panic!("a torn line reported: {v}"));
            assert!(
                i >= expect,
                "event {i} again or out of order (expected {expect})"
            );
            assert!(
                i == expect || gap,
                "events {expect}..{i} lost without a gap"
            );
            expect = i + 1;
            gap = false;
        }
    }
    assert_eq!(expect, N);
}

/// A project directory renamed inside the root: it leaves under its old id
/// and comes back under the new one, whose edits are seen; one renamed out
/// of the root leaves, and its edits there are not reported.
#[test]
fn directories_renamed_within_and_out_of_the_root_are_followed() {
    let (dir, root) = workspace();
    let mut feed = Feed::start_with(&root, &[]);
    started(&mut feed);
    let companies = root.join("devloop/data/companies");
    fs::rename(companies.join("acme"), companies.join("acme2")).unwrap();
    let moved = "devloop/data/companies/acme2/projects/p-restock";
    feed.wait_for("the project under its new path", |v| {
        is(v, "project_added") && v["project"]["id"] == moved
    });
    assert!(
        feed.seen
            .iter()
            .any(|v| is(v, "project_removed") && v["project"]["id"] == RESTOCK)
    );
    thread::sleep(Duration::from_millis(300));
    append(
        &root.join(moved).join("timeline.ndjson"),
        &note("after the rename"),
    );
    feed.wait_for("an append after the rename", |v| {
        is(v, "timeline_event")
            && v["event"]["summary"] == "after the rename"
            && v["project"] == moved
    });
    // Out of the root.
    let out = dir.path().join("outside");
    fs::rename(root.join("devloop"), &out).unwrap();
    feed.wait_for("the project leaving", |v| {
        is(v, "project_removed") && v["project"]["id"] == moved
    });
    thread::sleep(Duration::from_millis(300));
    append(
        &out.join("data/companies/acme2/projects/p-restock/timeline.ndjson"),
        &note("outside now"),
    );
    // A sign that the feed is still live: an edit in the root.
    let state = root.join("prd-master/fba-smart-restock/state.json");
    let text = fs::read_to_string(&state).unwrap().replace(
        "\"project_name\": \"fba-smart-restock\"",
        "\"project_name\": \"still here\"",
    );
    fs::write(&state, text).unwrap();
    feed.wait_for("the edit in the root", |v| {
        is(v, "project_changed") && v["project"]["name"] == "still here"
    });
    while feed.next(Duration::from_millis(1000)).is_some() {}
    assert!(
        !feed
            .seen
            .iter()
            .any(|v| v.to_string().contains("outside now")),
        "an edit out of the root reported"
    );
}

/// A project directory replaced by a file of the same name: it leaves,
/// and the feed goes on.
#[test]
fn a_project_directory_replaced_by_a_file_leaves() {
    let (_dir, root) = workspace();
    let mut feed = Feed::start_with(&root, &[]);
    started(&mut feed);
    let review = root.join("prd-master/restock-v1-review");
    fs::remove_dir_all(&review).unwrap();
    fs::write(&review, "now a file\n").unwrap();
    feed.wait_for("the project leaving", |v| {
        is(v, "project_removed") && v["project"]["id"] == "prd-master/restock-v1-review"
    });
    fs::remove_file(&review).unwrap();
    common::copy_dir(
        &common::repo().join("examples/workspace/prd-master/restock-v1-review"),
        &review,
    );
    feed.wait_for("the project back", |v| {
        is(v, "project_added") && v["project"]["id"] == "prd-master/restock-v1-review"
    });
}

/// A reader that stops reading (an SSH session stalled) while changes pour
/// in: the pipe fills and a write blocks. SIGTERM still ends the run.
#[test]
fn sigterm_ends_a_run_blocked_on_a_full_pipe() {
    let (_dir, root) = workspace();
    let mut child = common::feed::command(&root)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The pipe is held open and never read.
    let _out = child.stdout.take().unwrap();
    let log = root.join(RESTOCK).join("timeline.ndjson");
    thread::sleep(Duration::from_millis(1500));
    let long = "x".repeat(2000);
    let end = Instant::now() + Duration::from_secs(10);
    let mut i = 0;
    // Well past a pipe's 64 KiB.
    while Instant::now() < end && i < 400 {
        append(&log, &note(&format!("{long} {i}")));
        i += 1;
        if i % 20 == 0 {
            thread::sleep(Duration::from_millis(100));
        }
    }
    thread::sleep(Duration::from_secs(2));
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let end = Instant::now() + DEADLINE;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > end {
            let _ = child.kill();
            panic!("SIGTERM did not end a run blocked on its output");
        }
        thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(0));
}

/// A root that is a link, pointed at another tree (`ln -sfn`, the way a
/// release or a checkout is switched): the new tree's projects show, and
/// its later edits are seen.
#[test]
fn a_root_link_pointed_elsewhere_is_followed() {
    let (dir, first) = workspace();
    let second = dir.path().join("ws2");
    common::copy_dir(&common::repo().join("examples/workspace"), &second);
    let link = dir.path().join("current");
    std::os::unix::fs::symlink(&first, &link).unwrap();
    let mut feed = Feed::start_with(&link, &[]);
    started(&mut feed);
    thread::sleep(Duration::from_millis(1000));
    // Switched as `ln -sfn` does: a new link renamed over the old.
    let tmp = dir.path().join("current.tmp");
    std::os::unix::fs::symlink(&second, &tmp).unwrap();
    fs::rename(&tmp, &link).unwrap();
    thread::sleep(Duration::from_millis(1500));
    append(
        &second.join(RESTOCK).join("timeline.ndjson"),
        &note("in the new tree"),
    );
    feed.wait_for("an append in the tree the link points at now", |v| {
        is(v, "timeline_event") && v["event"]["summary"] == "in the new tree"
    });
}
