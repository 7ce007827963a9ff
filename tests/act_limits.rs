//! Every text a decision carries has a limit, named when refused (100 KB
//! decisions, reasons and answers were accepted): nothing is written.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::path::Path;

use common::{loopdeck, repo};

fn act(state: &Path, dir: &Path, args: &[&str]) -> std::process::Output {
    loopdeck()
        .env("XDG_STATE_HOME", state)
        .arg("act")
        .arg(dir)
        .args(args)
        .output()
        .unwrap()
}

/// Every file under `dir`, with its bytes.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                out.push((e.path().display().to_string(), fs::read(e.path()).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// (example, verb and its arguments with `{}` for the text, the field's
/// words, its limit).
const CASES: &[(&str, &[&str], &str, usize)] = &[
    (
        "gsd/paused-waiting",
        &["add-decision", "{}"],
        "the decision",
        1_000,
    ),
    (
        "gsd/paused-waiting",
        &["add-decision", "Use gRPC", "--rationale", "{}"],
        "--rationale",
        1_000,
    ),
    (
        "gsd/paused-waiting",
        &["add-blocker", "{}"],
        "the blocker",
        1_000,
    ),
    (
        "gsd/paused-waiting",
        &["answer", "{}"],
        "the answer",
        10_000,
    ),
    (
        "dwp/shop-api::.dwp/plans/PLAN_checkout_refactor",
        &["reopen", "1", "--reason", "{}"],
        "--reason",
        1_000,
    ),
    (
        "dwp/shop-api::.dwp/plans/PLAN_checkout_refactor",
        &["block", "2", "--reason", "{}"],
        "--reason",
        1_000,
    ),
    (
        "prd-master/fba-smart-restock",
        &["choose", "{}"],
        "the option",
        1_000,
    ),
];

#[test]
fn a_text_past_its_limit_is_refused_naming_the_limit() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("state");
    for (n, (example, args, what, max)) in CASES.iter().enumerate() {
        let (example, sub) = example.split_once("::").unwrap_or((example, ""));
        let copy = tmp.path().join(format!("p{n}"));
        common::copy_dir(&repo().join("examples/workspace").join(example), &copy);
        let dir = copy.join(sub);
        let before = files(&dir);
        let long = "a".repeat(100_000);
        let args: Vec<&str> = args
            .iter()
            .map(|a| if *a == "{}" { long.as_str() } else { a })
            .collect();
        let out = act(&state, &dir, &args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{example} {}: {err}", args[0]);
        let want = format!(
            "{what} is 100000 characters long; `{}` takes at most {max}",
            args[0]
        );
        assert!(err.contains(&want), "{example}: `{want}` not in {err}");
        assert_eq!(
            files(&dir),
            before,
            "{example} {}: something written",
            args[0]
        );
    }
}

/// The limits count characters, not bytes: a GSD decision of exactly 1,000
/// Chinese characters (3,000 bytes) is taken, 1,001 is not.
#[test]
fn the_limit_counts_characters() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("state");
    let dir = tmp.path().join("p");
    common::copy_dir(&repo().join("examples/workspace/gsd/paused-waiting"), &dir);
    let at = "决".repeat(1_000);
    let out = act(&state, &dir, &["add-decision", &at, "--dry-run"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let over = "决".repeat(1_001);
    let out = act(&state, &dir, &["add-decision", &over, "--dry-run"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("1001 characters long"));
}
