//! The console never offers a decision the rules refuse: every decision a
//! reader offers (`Project::acts`, each inbox item's `act`, each bug's
//! `act`), with each of its options, is built as the console builds it
//! (`Address::build`, sample text in the fields it requires) and made dry
//! (`act --dry-run`'s path) on copies of the example workspace, every real
//! DWP plan and every real GSD STATE.md: each must be accepted. A
//! requirement alone is refused without a devloop server, with a message
//! that names the config to set.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::path::Path;

use chrono::{DateTime, Utc};
use common::{copy_dir, repo, workspace};
use loopdeck_core::decide::WriteOptions;
use loopdeck_core::decide::act;
use loopdeck_core::model::{Address, Format, Project, Request};

/// Every project of the example workspace, the real DWP plans and the real
/// GSD files, read from a temp dir.
fn projects(root: &Path) -> Vec<Project> {
    let (_tmp, ws) = workspace();
    copy_dir(&ws, &root.join("workspace"));
    copy_dir(
        &repo().join("tests/fixtures/dwp-real-world"),
        &root.join("dwp-real-world"),
    );
    let gsd = repo().join("tests/fixtures/gsd-real-world");
    for e in fs::read_dir(&gsd).unwrap() {
        let e = e.unwrap();
        let state = e.path().join("STATE.md");
        if state.is_file() {
            common::write(
                &root
                    .join("gsd-real-world")
                    .join(e.file_name())
                    .join(".planning/STATE.md"),
                fs::read(&state).unwrap(),
            );
        }
    }
    loopdeck_core::read::discover(&[root.to_path_buf()]).projects
}

/// What a user types into the fields `a` needs for `option`: sample text,
/// and for a duplicate bug another bug of the project.
fn values(p: &Project, a: &Address, option: Option<&str>) -> Vec<String> {
    a.fields(option)
        .iter()
        .map(|f| match f.label {
            "duplicate of (bug id)" => p
                .detail
                .bugs
                .iter()
                .map(|b| b.id.clone())
                .find(|id| Some(id) != a.target.as_ref())
                .unwrap_or_default(),
            "phase" => String::new(),
            label => format!("sample {label}"),
        })
        .collect()
}

/// Every project read from a temp dir, the decisions' `now`, and dry-run
/// options with an audit directory there.
fn dry_run_on_every_project() -> (tempfile::TempDir, Vec<Project>, DateTime<Utc>, WriteOptions) {
    let tmp = tempfile::tempdir().unwrap();
    let all = projects(&tmp.path().join("root"));
    let opts = WriteOptions {
        dry_run: true,
        audit_dir: Some(tmp.path().join("audit")),
        ..Default::default()
    };
    (tmp, all, common::NOW.parse().unwrap(), opts)
}

#[test]
fn every_offered_decision_is_accepted_by_the_act_code() {
    let (_tmp, all, now, opts) = dry_run_on_every_project();
    let mut tried = Vec::new();
    let mut failed = Vec::new();
    for p in &all {
        // As the console gathers them, each once, at the decision's `now`.
        for a in p.addresses_at(now) {
            for option in a.picks() {
                let verb = match a.build(option, &values(p, &a, option)) {
                    Ok(v) => v,
                    Err(e) => {
                        failed.push(format!(
                            "{} {:?}: {} {:?} {option:?}: cannot build: {e}",
                            p.format.as_str(),
                            p.id,
                            a.verb,
                            a.target
                        ));
                        continue;
                    }
                };
                let req = Request {
                    verb,
                    by: "tester".to_owned(),
                    now,
                    devloop_api: None,
                    config_file: None,
                };
                tried.push((p.format, a.verb));
                match (a.verb, act(p, &req, &opts)) {
                    ("requirement", Err(e)) if e.to_string().contains("[devloop]") => {}
                    ("requirement", r) => failed.push(format!(
                        "{} {:?}: requirement without a server: {:?}",
                        p.format.as_str(),
                        p.id,
                        r.map(|_| "accepted")
                    )),
                    (_, Ok(_)) => {}
                    (_, Err(e)) => failed.push(format!(
                        "{} {:?}: {} {:?} {option:?}: {e}",
                        p.format.as_str(),
                        p.id,
                        a.verb,
                        a.target
                    )),
                }
            }
        }
    }
    assert!(failed.is_empty(), "refused:\n{}", failed.join("\n"));
    // The readers offer row and project decisions in every format that
    // has them.
    for (format, verb) in [
        (Format::Dwp, "block"),
        (Format::Dwp, "reopen"),
        (Format::Gsd, "add-decision"),
        (Format::Gsd, "resolve-blocker"),
        (Format::Devloop, "resume-agent"),
        (Format::Devloop, "abandon"),
        (Format::Devloop, "requirement"),
        (Format::Devloop, "bug"),
    ] {
        assert!(
            tried.contains(&(format, verb)),
            "no {} project offers {verb}",
            format.as_str()
        );
    }
}

/// The console writes exactly what it previewed: the write expects every
/// file the preview read (`Outcome::read`) to hold the same bytes. A file
/// changed between the preview and the confirm (here: a line break
/// appended, which keeps every file readable) stops every offered
/// decision with "changed on disk", nothing written — a devloop bug's
/// `bugs.ndjson` too, which no reading stamps.
#[test]
fn every_offered_decision_written_from_its_preview_is_refused_when_a_read_file_moved() {
    let (_tmp, all, now, dry) = dry_run_on_every_project();
    let mut checked = Vec::new();
    let mut failed = Vec::new();
    for p in &all {
        for a in p.addresses_at(now) {
            if a.verb == "requirement" {
                continue; // a server's business, not a file's
            }
            let option = a.options.first().map(String::as_str);
            let Ok(verb) = a.build(option, &values(p, &a, option)) else {
                continue;
            };
            let req = Request {
                verb,
                by: "tester".to_owned(),
                now,
                devloop_api: None,
                config_file: None,
            };
            let Ok(preview) = act(p, &req, &dry) else {
                continue;
            };
            if preview.read.is_empty() {
                // A stale lock removed: no file is decided on.
                assert_eq!(a.verb, "unlock", "{:?}", p.id);
                continue;
            }
            for (file, _) in &preview.read {
                let path = p.path.join(file);
                let mut bytes = fs::read(&path).unwrap();
                bytes.push(b'\n');
                fs::write(&path, &bytes).unwrap();
            }
            let write = WriteOptions {
                dry_run: false,
                expect_files: preview.read.clone(),
                ..dry.clone()
            };
            let before: Vec<Vec<u8>> = preview
                .read
                .iter()
                .map(|(f, _)| fs::read(p.path.join(f)).unwrap())
                .collect();
            match act(p, &req, &write) {
                Err(loopdeck_core::decide::ActError::Changed(_)) => {
                    checked.push((p.format, a.verb));
                }
                r => failed.push(format!(
                    "{} {:?}: {} {:?}: {:?}",
                    p.format.as_str(),
                    p.id,
                    a.verb,
                    a.target,
                    r.map(|o| o.files.len())
                )),
            }
            let after: Vec<Vec<u8>> = preview
                .read
                .iter()
                .map(|(f, _)| fs::read(p.path.join(f)).unwrap())
                .collect();
            assert_eq!(before, after, "nothing written for {:?} {}", p.id, a.verb);
        }
    }
    assert!(failed.is_empty(), "not stopped:\n{}", failed.join("\n"));
    assert!(checked.contains(&(Format::Devloop, "bug")), "{checked:?}");
    assert!(
        checked.contains(&(Format::PrdMaster, "answer")),
        "{checked:?}"
    );
}
