//! Issue 19 §3: a Deep Work Plan inbox item (and the resume card) may only
//! suggest a decision the rules accept. Over every DWP plan of the example
//! workspace, every real plan, and copies put out of sync both ways (a
//! README box unticked by hand: reconcile is legal; a box ticked without
//! gate evidence: it is not), each item's decision is made dry with the
//! act code and must be accepted, and an item or resume line that names
//! `reconcile` carries it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::path::Path;

use chrono::{DateTime, Utc};
use common::{copy_dir, repo};
use loopdeck_core::decide::WriteOptions;
use loopdeck_core::decide::act;
use loopdeck_core::model::{Format, InboxKind, Project, Request};

const INTERRUPTED: &str = "tests/fixtures/dwp-real-world/skill_tests_efficiency_interrupted-plan/PLAN_interrupted_fixture";
const SEARCH: &str = "examples/workspace/dwp/shop-api/.dwp/plans/PLAN_search_index";

/// `plan` copied to `root/name`, its README edited by `edit`.
fn variant(root: &Path, plan: &str, name: &str, edit: impl FnOnce(String) -> String) {
    let dir = root.join(name).join(Path::new(plan).file_name().unwrap());
    copy_dir(&repo().join(plan), &dir);
    let readme = dir.join("README.md");
    let text = fs::read_to_string(&readme).unwrap();
    let new = edit(text.clone());
    assert_ne!(new, text, "{name}: the edit applies");
    fs::write(&readme, new).unwrap();
}

/// Every DWP plan to try, read from a temp dir.
fn plans(root: &Path) -> Vec<Project> {
    copy_dir(
        &repo().join("examples/workspace/dwp"),
        &root.join("workspace"),
    );
    copy_dir(
        &repo().join("tests/fixtures/dwp-real-world"),
        &root.join("real"),
    );
    variant(root, INTERRUPTED, "unticked", |t| {
        t.replace("- [x] Task 1", "- [ ] Task 1")
    });
    variant(root, INTERRUPTED, "ticked", |t| {
        t.replace("- [ ] Task 2", "- [x] Task 2")
    });
    variant(root, SEARCH, "approved", |t| {
        t.replace("Approval: pending", "Approval: approved")
    });
    // The approved copy's state says so too (the shape the updater reads).
    let state = root.join("approved/PLAN_search_index/state.json");
    let text = fs::read_to_string(&state)
        .unwrap()
        .replace("\"approval\": \"pending\"", "\"approval\": \"approved\"");
    fs::write(&state, text).unwrap();
    loopdeck_core::read::discover(&[root.to_path_buf()])
        .projects
        .into_iter()
        .filter(|p| p.format == Format::Dwp)
        .collect()
}

fn dry(tmp: &Path) -> WriteOptions {
    WriteOptions {
        dry_run: true,
        audit_dir: Some(tmp.join("audit")),
        ..Default::default()
    }
}

#[test]
fn every_dwp_item_suggests_only_a_decision_the_rules_accept() {
    let tmp = tempfile::tempdir().unwrap();
    let all = plans(&tmp.path().join("root"));
    let now: DateTime<Utc> = common::NOW.parse().unwrap();
    let opts = dry(tmp.path());
    let mut failed = Vec::new();
    let mut desync = 0;
    let mut reconcile_offered = 0;
    for p in &all {
        let offered_reconcile = p.acts.iter().any(|a| a.verb == "reconcile");
        for item in &p.inbox {
            let says_reconcile = item.title.en().contains("reconcile state.json from it");
            if item.kind == InboxKind::Desync {
                desync += 1;
            }
            match &item.act {
                Some(a) => {
                    let Ok(verb) = a.build(None, &[]) else {
                        // Decisions with fields are tried by acts_offered.
                        continue;
                    };
                    let req = Request {
                        verb,
                        by: "tester".to_owned(),
                        now,
                        devloop_api: None,
                        config_file: None,
                    };
                    if let Err(e) = act(p, &req, &opts) {
                        failed.push(format!(
                            "{}: {} offers {}: {e}",
                            p.id,
                            item.title.en(),
                            a.verb
                        ));
                    }
                    if a.verb == "reconcile" {
                        reconcile_offered += 1;
                    }
                    if says_reconcile && a.verb != "reconcile" {
                        failed.push(format!("{}: {} carries {}", p.id, item.title.en(), a.verb));
                    }
                }
                None if says_reconcile => {
                    failed.push(format!(
                        "{}: {} suggests a refused reconcile",
                        p.id,
                        item.title.en()
                    ));
                }
                None => {}
            }
        }
        let waiting = p.resume.waiting_for.as_ref().map(|s| s.en());
        let waiting = waiting.as_deref().unwrap_or("");
        if waiting.starts_with("reconcile") && !offered_reconcile {
            failed.push(format!("{}: resume says {waiting:?}", p.id));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    // The example plan out of sync, before and after approval, and the
    // ticked copy are refused reconcile; the unticked copy is offered it.
    assert_eq!(desync, 4, "desync items");
    assert_eq!(reconcile_offered, 1, "reconcile offered");
}

/// A desync item whose reconcile the rules refuse says why and what
/// resolves it.
#[test]
fn a_refused_reconcile_is_explained_not_offered() {
    let tmp = tempfile::tempdir().unwrap();
    let all = plans(&tmp.path().join("root"));
    let item = |dir: &str| {
        let p = all
            .iter()
            .find(|p| p.path.to_string_lossy().contains(dir))
            .unwrap_or_else(|| panic!("{dir}"));
        p.inbox
            .iter()
            .find(|i| i.kind == InboxKind::Desync)
            .cloned()
            .unwrap_or_else(|| panic!("{dir}: no desync item"))
    };
    let ticked = item("ticked/PLAN_interrupted_fixture");
    assert!(ticked.act.is_none());
    assert!(
        ticked.title.en().ends_with(
            "; Markdown wins, but reconcile is refused: a ticked task has no passing gate evidence: run its gates and record them, or untick its README box"
        ),
        "{:?}",
        ticked.title
    );
    let search = item("workspace/shop-api/.dwp/plans/PLAN_search_index");
    assert!(search.act.is_none());
    assert!(
        search.title.en().ends_with(
            "; Markdown wins, but reconcile is refused: state.json breaks the updater's state contract (see `loopdeck check`)"
        ),
        "{:?}",
        search.title
    );
    let unticked = item("unticked/PLAN_interrupted_fixture");
    assert_eq!(unticked.act.as_ref().map(|a| a.verb), Some("reconcile"));
    assert!(
        unticked
            .title
            .en()
            .ends_with("; Markdown wins: reconcile state.json from it")
    );
}

/// A README that is not UTF-8: reopen (which unticks its box) is refused,
/// so it is not offered either.
#[test]
fn no_reopen_is_offered_where_the_readme_cannot_be_unticked() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    let dir = root.join("PLAN_interrupted_fixture");
    copy_dir(&repo().join(INTERRUPTED), &dir);
    let mut bytes = fs::read(dir.join("README.md")).unwrap();
    bytes.extend_from_slice(b"\n\xff\xfe\n");
    fs::write(dir.join("README.md"), bytes).unwrap();
    let p = loopdeck_core::read::discover(&[root])
        .projects
        .into_iter()
        .find(|p| p.format == Format::Dwp)
        .unwrap();
    assert!(!p.acts.is_empty(), "block is still offered");
    assert!(!p.acts.iter().any(|a| a.verb == "reopen"), "{:?}", p.acts);
}
