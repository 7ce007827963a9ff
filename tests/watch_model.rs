//! `loopdeck watch --json --model` (the hidden feed loopdeck's own hosts
//! read, issue 22) run as the console runs it over ssh: the real binary on
//! a temporary copy of example projects, its lines decoded with
//! `model::wire` and compared with what a reading of the same directories
//! loads.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

use common::feed::{DEADLINE, Feed, RESTOCK, append, is, started};
use loopdeck_core::model::wire::{self, MODEL_SCHEMA, path_to_value, project_from_value};
use loopdeck_core::model::{Format, Project};
use serde_json::Value;

const GSD: &str = "gsd/scene1-active-phase";
const PAUSED: &str = "gsd/paused-waiting";

/// A few example projects of every format, copied under a temp root.
fn projects() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ws");
    let examples = common::repo().join("examples/workspace");
    for dir in [
        RESTOCK,
        GSD,
        PAUSED,
        "prd-master/fba-smart-restock",
        "dwp/shop-api",
    ] {
        common::copy_dir(&examples.join(dir), &root.join(dir));
    }
    (tmp, root)
}

/// `loopdeck watch ROOT --json --model ARGS`.
fn model_feed(root: &Path, args: &[&str]) -> Feed {
    let mut cmd = common::feed::command(root);
    cmd.arg("--model").args(args);
    Feed::spawn(cmd)
}

/// What a reading of `root` loads, by directory and format.
fn read(root: &Path) -> Vec<Project> {
    let found = loopdeck_core::read::discover(&[root.to_path_buf()]);
    assert!(found.problems.is_empty(), "{:?}", found.problems);
    found.projects
}

fn decode(v: &Value) -> Project {
    project_from_value(v.clone()).unwrap_or_else(|e| panic!("{e}: {v}"))
}

fn find<'a>(projects: &'a [Project], dir: &Path, format: Format) -> &'a Project {
    projects
        .iter()
        .find(|p| p.path == dir && p.format == format)
        .unwrap_or_else(|| panic!("no {format:?} project at {}", dir.display()))
}

#[test]
fn the_snapshot_decodes_to_what_a_reading_loads() {
    let (_tmp, root) = projects();
    let mut feed = model_feed(&root, &[]);
    let snap = started(&mut feed);
    assert_eq!(snap["model_schema"], MODEL_SCHEMA);
    assert_eq!(snap["loopdeck_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(snap["roots"][0], root.to_str().unwrap());
    assert!(snap["problems"].as_array().unwrap().is_empty(), "{snap}");
    assert!(snap["watcher"]["state"].is_string(), "{snap}");
    let sent: Vec<Project> = snap["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(decode)
        .collect();
    let mut loaded = read(&root);
    assert!(loaded.len() >= 5, "{}", loaded.len());
    assert_eq!(sent.len(), loaded.len());
    for p in &sent {
        assert_eq!(p, find(&loaded, &p.path, p.format), "{}", p.path.display());
    }
    // What only the wire carries came through.
    loaded.retain(|p| p.format == Format::Devloop);
    let restock = find(&sent, &root.join(RESTOCK), Format::Devloop);
    assert!(!restock.acts.is_empty());
    assert!(restock.detail.agents.iter().any(|a| a.activity.is_some()));
    assert!(restock.inbox.iter().any(|i| i.title.key().is_some()));
}

#[test]
fn a_change_sends_the_project_whole_and_a_removal_its_path() {
    let (_tmp, root) = projects();
    let mut feed = model_feed(&root, &[]);
    started(&mut feed);
    // The read that follows the watches' setup is over.
    thread::sleep(Duration::from_millis(1500));

    // An event appended to a devloop timeline.
    let restock = root.join(RESTOCK);
    append(
        &restock.join("timeline.ndjson"),
        "{\"ts\":\"2026-06-01T12:00:01Z\",\"source\":\"coder\",\"kind\":\"note\",\"summary\":\"sent whole \\u001b[31m\"}\n",
    );
    let line = feed.wait_for("the appended event", |v| {
        is(v, "project")
            && decode(&v["project"])
                .detail
                .timeline
                .last()
                .is_some_and(|e| e.summary == "sent whole \u{1b}[31m")
    });
    let sent = decode(&line["project"]);
    assert_eq!(&sent, find(&read(&root), &restock, Format::Devloop));

    // A GSD state rewritten.
    let state = root.join(GSD).join(".planning/STATE.md");
    let text = fs::read_to_string(&state).unwrap();
    let rewritten = format!("{text}\n<!-- rewritten by the test -->\n");
    fs::write(&state, &rewritten).unwrap();
    let gsd = root.join(GSD);
    let line = feed.wait_for("the rewritten state", |v| {
        is(v, "project")
            && v["project"]["path"] == gsd.to_str().unwrap()
            && decode(&v["project"])
                .files
                .iter()
                .any(|f| f.len == rewritten.len() as u64)
    });
    assert_eq!(
        &decode(&line["project"]),
        find(&read(&root), &gsd, Format::Gsd)
    );

    // A project directory removed.
    let paused = root.join(PAUSED);
    fs::remove_dir_all(&paused).unwrap();
    let line = feed.wait_for("the removal", |v| is(v, "project_removed"));
    assert_eq!(line["path"], path_to_value(&paused), "{line}");
    assert_eq!(line["format"], "gsd", "{line}");
    assert_eq!(wire::path_from_value(line["path"].clone()).unwrap(), paused);
    // The model feed has no rows nor item lines.
    for v in &feed.seen {
        let ty = v["type"].as_str().unwrap();
        assert!(
            [
                "snapshot",
                "project",
                "project_removed",
                "watcher",
                "problems"
            ]
            .contains(&ty),
            "{v}"
        );
    }
}

#[test]
fn an_idle_feed_beats_at_its_interval_and_no_faster() {
    let (_tmp, root) = projects();
    let mut feed = model_feed(&root, &["--heartbeat", "1"]);
    started(&mut feed);
    let first = Instant::now();
    let beat = |v: &Value| is(v, "heartbeat");
    let a = feed.wait_for("a heartbeat", beat);
    assert!(
        first.elapsed() < Duration::from_secs(10),
        "{:?}",
        first.elapsed()
    );
    let b = feed.wait_for("another heartbeat", beat);
    let at = |v: &Value| chrono::DateTime::parse_from_rfc3339(v["at"].as_str().unwrap()).unwrap();
    let gap = at(&b) - at(&a);
    assert!(gap >= chrono::TimeDelta::milliseconds(900), "{gap}");
    // Nothing but the envelope.
    assert_eq!(a.as_object().unwrap().len(), 3, "{a}");
    // Without --heartbeat, an idle model feed says nothing.
    let mut quiet = model_feed(&root, &[]);
    started(&mut quiet);
    let end = Instant::now() + Duration::from_millis(2500);
    while let Some(left) = end.checked_duration_since(Instant::now()) {
        if let Some(v) = quiet.next(left) {
            assert!(!beat(&v), "{v}");
        }
    }
}

#[test]
fn the_model_flags_need_json_and_each_other_and_stay_hidden() {
    let (_tmp, root) = projects();
    let r = root.to_str().unwrap();
    for args in [
        vec!["watch", "--model", r],
        vec!["watch", "--json", "--heartbeat", "5", r],
        vec!["watch", "--json", "--model", "--heartbeat", "0", r],
    ] {
        let out = common::loopdeck()
            .args(&args)
            .timeout(DEADLINE)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    let help = Command::new(assert_cmd::cargo::cargo_bin("loopdeck"))
        .args(["watch", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    assert!(help.contains("--json"), "{help}");
    assert!(
        !help.contains("--model") && !help.contains("--heartbeat"),
        "{help}"
    );
}
