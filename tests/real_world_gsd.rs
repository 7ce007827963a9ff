//! Every real `STATE.md` in tests/fixtures/gsd-real-world (copied from
//! shared/real-world/gsd, 60 public repositories) reads without a problem,
//! and `loopdeck status` prints exactly what GSD's own statusline hook
//! prints for it, with LF and with CRLF line endings.
//!
//! `expected-statuslines.json` was produced by running the hook's
//! `parseStateMd` + `formatGsdState` (open-gsd/gsd-core 17007a8d, after PR
//! #4164 fixed issue #3945) under node on the same files; it is the
//! reference implementation's output, not ours. Regenerated and compared on
//! 2026-11-30: identical; and on 2026-12-02 with the published
//! get-shit-done-cc 1.42.3 hook (`hook-statuslines.js` beside the fixtures):
//! identical. `expected-statuslines-crlf.json` is that hook's output on the
//! same files with CRLF line endings (`node hook-statuslines.js
//! tests/fixtures/gsd-real-world crlf PACKAGE`): its frontmatter rule needs
//! `---\n`, so on 38 of them it reads the body alone. An older hook (string comparison of the phase
//! counters) differs on exactly two files, Minhmice__block_detected and
//! MoBkr__samnan-platform (0 of 0 phases: "milestone complete").
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use common::{NOW, json, loopdeck, repo};

fn fixtures() -> BTreeMap<String, String> {
    expected_lines("expected-statuslines.json")
}

fn expected_lines(file: &str) -> BTreeMap<String, String> {
    let dir = repo().join("tests/fixtures/gsd-real-world");
    let expected: BTreeMap<String, String> =
        serde_json::from_slice(&fs::read(dir.join(file)).unwrap()).unwrap();
    assert_eq!(expected.len(), 60);
    expected
}

/// The fixture set is the whole real-world set: every folder SOURCES.md
/// names holds a STATE.md, has an expected statusline, and nothing else is
/// there. So the parity test below runs over every real file.
#[test]
fn every_real_file_has_an_expected_statusline() {
    let dir = repo().join("tests/fixtures/gsd-real-world");
    let expected = fixtures();
    let folders: BTreeSet<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let sources = fs::read_to_string(dir.join("SOURCES.md")).unwrap();
    let listed: BTreeSet<String> = sources
        .lines()
        .filter_map(|l| l.strip_prefix("| "))
        .filter_map(|l| l.split(" |").next())
        .filter(|name| name.contains("__"))
        .map(str::to_owned)
        .collect();
    let keys: BTreeSet<String> = expected.keys().cloned().collect();
    assert_eq!(folders, keys, "one expected statusline per fixture folder");
    assert_eq!(
        folders, listed,
        "the fixture folders are the ones SOURCES.md names"
    );
    for name in &folders {
        assert!(dir.join(name).join("STATE.md").is_file(), "{name}");
    }
}

fn install(root: &Path, name: &str, crlf: bool) {
    let src = fs::read_to_string(
        repo()
            .join("tests/fixtures/gsd-real-world")
            .join(name)
            .join("STATE.md"),
    )
    .unwrap();
    let text = if crlf { src.replace('\n', "\r\n") } else { src };
    common::write(&root.join(name).join(".planning/STATE.md"), text);
}

#[test]
fn every_real_file_reads_without_a_problem() {
    let expected = fixtures();
    for crlf in [false, true] {
        let tmp = tempfile::tempdir().unwrap();
        for name in expected.keys() {
            install(tmp.path(), name, crlf);
        }
        let v = json(&["list", tmp.path().to_str().unwrap()]);
        let projects = v["projects"].as_array().unwrap();
        assert_eq!(projects.len(), expected.len(), "crlf={crlf}");
        for p in projects {
            assert_eq!(p["format"], "gsd");
            assert_eq!(
                p["problems"].as_array().unwrap().len(),
                0,
                "{} crlf={crlf}: {}",
                p["id"],
                p["problems"]
            );
            assert!(p["updated_at"].is_string(), "{}", p["id"]);
            assert!(!p["status"].as_str().unwrap().is_empty());
        }
    }
}

#[test]
fn status_is_byte_identical_to_gsd_statusline() {
    let expected = fixtures();
    let crlf_lines = expected_lines("expected-statuslines-crlf.json");
    assert_eq!(
        expected.keys().collect::<Vec<_>>(),
        crlf_lines.keys().collect::<Vec<_>>()
    );
    let tmp = tempfile::tempdir().unwrap();
    for (name, lf_line) in &expected {
        for crlf in [false, true] {
            let line = if crlf { &crlf_lines[name] } else { lf_line };
            let root = tmp.path().join(if crlf { "crlf" } else { "lf" });
            install(&root, name, crlf);
            let out = loopdeck()
                .args(["status", root.join(name).to_str().unwrap(), "--now", NOW])
                .output()
                .unwrap();
            assert!(out.status.success());
            assert_eq!(
                String::from_utf8(out.stdout).unwrap(),
                format!("{line}\n"),
                "{name} crlf={crlf}"
            );
        }
    }
}

/// An independent, deliberately simple reading: does the file state a
/// current phase, and does it list at least one decision?
fn has_phase_and_decisions(text: &str) -> (bool, bool) {
    let mut phase = false;
    let mut decisions = false;
    let mut in_decisions = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('#') {
            in_decisions = t.to_lowercase().contains("decision");
            continue;
        }
        let bare = t.trim_start_matches(['-', '*', ' ']).replace("**", "");
        let lower = bare.to_lowercase();
        for key in [
            "phase:",
            "current phase:",
            "active phase:",
            "active_phase:",
            "current_phase:",
        ] {
            if let Some(v) = lower.strip_prefix(key) {
                let v = v.trim().trim_matches('"');
                if !v.is_empty() && !["—", "-", "null"].contains(&v) && !v.starts_with("none") {
                    phase = true;
                }
            }
        }
        if in_decisions
            && (t.starts_with("- ") || t.starts_with("* "))
            && !lower.starts_with("none")
        {
            decisions = true;
        }
    }
    (phase, decisions)
}

#[test]
fn show_reads_body_sections_of_real_files() {
    let expected = fixtures();
    let tmp = tempfile::tempdir().unwrap();
    let mut checked = (0, 0);
    for name in expected.keys() {
        install(tmp.path(), name, false);
        let text = fs::read_to_string(tmp.path().join(name).join(".planning/STATE.md")).unwrap();
        let (phase, decisions) = has_phase_and_decisions(&text);
        let v = json(&["show", tmp.path().join(name).to_str().unwrap()]);
        if phase {
            assert!(
                v["project"]["stage"].is_string(),
                "{name}: the file states a phase"
            );
            checked.0 += 1;
        }
        if decisions {
            assert!(
                !v["decisions"].as_array().unwrap().is_empty(),
                "{name}: the file lists decisions"
            );
            checked.1 += 1;
        }
        assert!(
            !v["findings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f["code"] == "gsd.bad-timestamp"),
            "{name}"
        );
    }
    assert!(
        checked.0 > 40 && checked.1 > 20,
        "the fixtures exercise both: {checked:?}"
    );
}
