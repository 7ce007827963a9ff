//! Every reader keeps, per file it read whole, the sha256 and length of the
//! bytes it read (`show --json` lists them as `files`): checked on every
//! real file in tests/fixtures (60 GSD `STATE.md`, LF and CRLF, and the
//! Deep Work Plan skill's fixtures) and on every project of the example
//! workspace, against the bytes on disk.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::path::Path;

use common::{copy_dir, json, repo, workspace, write};
use sha2::{Digest, Sha256};

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `show DIR --json`'s stamps, each checked against the file on disk;
/// returns their names.
fn checked_stamps(dir: &Path) -> Vec<String> {
    let shown = json(&["show", dir.to_str().unwrap()]);
    let files = shown["files"].as_array().expect("files");
    let mut names = Vec::new();
    for f in files {
        let name = f["file"].as_str().unwrap();
        let bytes = std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(f["sha256"], sha256_hex(&bytes), "{}: {name}", dir.display());
        assert_eq!(f["len"], bytes.len() as u64, "{}: {name}", dir.display());
        names.push(name.to_owned());
    }
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(names, sorted, "sorted, each once");
    names
}

#[test]
fn every_real_gsd_file_is_stamped_lf_and_crlf() {
    let tmp = tempfile::tempdir().unwrap();
    let src = repo().join("tests/fixtures/gsd-real-world");
    let mut n = 0;
    for e in std::fs::read_dir(&src).unwrap() {
        let e = e.unwrap();
        let state = e.path().join("STATE.md");
        if !state.is_file() {
            continue;
        }
        let lf = std::fs::read_to_string(&state).unwrap();
        let crlf = lf.replace('\n', "\r\n");
        for (ending, text) in [("lf", lf), ("crlf", crlf)] {
            let dir = tmp.path().join(ending).join(e.file_name());
            write(&dir.join(".planning/STATE.md"), &text);
            let names = checked_stamps(&dir);
            assert_eq!(names, [".planning/STATE.md"], "{}", dir.display());
        }
        n += 1;
    }
    assert_eq!(n, 60, "every real file");
}

#[test]
fn every_real_dwp_plan_is_stamped() {
    let tmp = tempfile::tempdir().unwrap();
    let src = repo().join("tests/fixtures/dwp-real-world");
    let mut n = 0;
    for e in std::fs::read_dir(&src).unwrap() {
        let e = e.unwrap();
        for plan in std::fs::read_dir(e.path()).unwrap() {
            let plan = plan.unwrap();
            if !plan.file_name().to_string_lossy().starts_with("PLAN_") {
                continue;
            }
            // As a plan lives in a repository: .dwp/plans/PLAN_*.
            let repo_dir = tmp.path().join(e.file_name());
            let dir = repo_dir.join(".dwp/plans").join(plan.file_name());
            copy_dir(&plan.path(), &dir);
            let names = checked_stamps(&dir);
            for f in ["state.json", "manifest.json", "README.md"] {
                assert_eq!(
                    names.iter().any(|n| n == f),
                    dir.join(f).is_file(),
                    "{}: {f} in {names:?}",
                    dir.display()
                );
            }
            n += 1;
        }
    }
    assert_eq!(n, 4, "every real plan");
}

#[test]
fn every_example_project_is_stamped_with_its_state_files() {
    let (_t, ws) = workspace();
    let list = json(&["list", ws.to_str().unwrap()]);
    let projects = list["projects"].as_array().unwrap();
    assert!(projects.len() >= 20);
    for p in projects {
        let dir = Path::new(p["path"].as_str().unwrap());
        let names = checked_stamps(dir);
        let has = |f: &str| names.iter().any(|n| n == f);
        match p["format"].as_str().unwrap() {
            "gsd" => assert!(has(".planning/STATE.md"), "{names:?}"),
            "prd-master" if dir.join("state.json").is_file() => {
                assert!(has("state.json") || p["status"] == "rebuilt", "{names:?}")
            }
            "dwp" if dir.join("state.json").is_file() => assert!(has("state.json"), "{names:?}"),
            "devloop" => {
                assert!(has("project.json"), "{names:?}");
                assert!(has("units.json"), "{names:?}");
                // NDJSON logs are read from their end, never whole: no stamp.
                assert!(!names.iter().any(|n| n.ends_with(".ndjson")), "{names:?}");
            }
            _ => {}
        }
    }
}

/// A stamp names the bytes read: a file edited since is stamped anew.
#[test]
fn a_stamp_is_of_the_bytes_read() {
    let (_t, ws) = workspace();
    let dir = ws.join("gsd/paused-waiting");
    let before = json(&["show", dir.to_str().unwrap()]);
    let state = dir.join(".planning/STATE.md");
    let mut text = std::fs::read_to_string(&state).unwrap();
    text.push_str("\n<!-- edited -->\n");
    std::fs::write(&state, &text).unwrap();
    let after = json(&["show", dir.to_str().unwrap()]);
    let stamp = |v: &serde_json::Value| v["files"][0]["sha256"].as_str().unwrap().to_owned();
    assert_ne!(stamp(&before), stamp(&after));
    assert_eq!(stamp(&after), sha256_hex(text.as_bytes()));
}
