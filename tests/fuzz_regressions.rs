//! Every crash the fuzzers found, replayed on the stable toolchain: each
//! file under `tests/fixtures/fuzz/<target>/` is run through the target of
//! that name (the bodies in `fuzz/src/lib.rs`, shared with the cargo-fuzz
//! binaries). A target panics when loopdeck breaks one of its rules.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../fuzz/src/lib.rs"]
mod harness;

use std::fs;
use std::path::PathBuf;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fuzz")
}

/// Replay every reproducer kept for `target`; the file names say what broke.
fn replay(target: &str) {
    let dir = fixtures().join(target);
    let Ok(rd) = fs::read_dir(&dir) else { return };
    let mut files: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    files.sort();
    for f in files {
        let data = fs::read(&f).unwrap();
        eprintln!("replaying {}", f.display());
        assert!(harness::run(target, &data), "no target {target}");
    }
}

#[test]
fn every_reproducer_names_a_target() {
    let Ok(rd) = fs::read_dir(fixtures()) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        assert!(
            harness::TARGETS.iter().any(|(t, _)| *t == name),
            "tests/fixtures/fuzz/{name} is not a fuzz target's name"
        );
    }
}

#[test]
fn prd_state() {
    replay("prd_state");
}
#[test]
fn gsd_state() {
    replay("gsd_state");
}
#[test]
fn dwp_readme() {
    replay("dwp_readme");
}
#[test]
fn devloop_html() {
    replay("devloop_html");
}
#[test]
fn ndjson_tail() {
    replay("ndjson_tail");
}
#[test]
fn ndjson_fold() {
    replay("ndjson_fold");
}
#[test]
fn jsonedit() {
    replay("jsonedit");
}
#[test]
fn decide_prd() {
    replay("decide_prd");
}
#[test]
fn decide_gsd() {
    replay("decide_gsd");
}
#[test]
fn decide_dwp() {
    replay("decide_dwp");
}
#[test]
fn decide_devloop() {
    replay("decide_devloop");
}
