//! Every text a decision carries has a limit, named when refused (100 KB
//! decisions, reasons and answers were accepted): nothing is written.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

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
        let before = common::tree(&dir);
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
            common::tree(&dir),
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

/// Who decides is a name: 200 characters at most (it is written into the
/// project's own files, `— answered by NAME`, and every audit record).
#[test]
fn a_decider_past_a_names_limit_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("state");
    let dir = tmp.path().join("p");
    common::copy_dir(&repo().join("examples/workspace/gsd/paused-waiting"), &dir);
    let before = common::tree(&dir);
    let name = "名".repeat(201);
    let out = act(&state, &dir, &["answer", "A", "--by", &name]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("--by (who decides) is 201 characters long; a name takes at most 200"),
        "{err}"
    );
    assert_eq!(common::tree(&dir), before, "something written");
    let name = "名".repeat(200);
    let out = act(&state, &dir, &["answer", "A", "--by", &name]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let state_md = std::fs::read_to_string(dir.join(".planning/STATE.md")).unwrap();
    assert!(
        state_md.contains(&format!("answered by {name}")),
        "{state_md}"
    );
}
