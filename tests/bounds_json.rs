//! One JSON parser limit for the readers and the decisions. Valid JSON
//! nested 200 levels deep, or holding `1e999999`, used to be shown and
//! offered by the readers (which skip unknown fields without looking that
//! deep) and called corrupt by `act` (which edits the file as a whole
//! document). Now `check`/`show` and `act` refuse the same files, with the
//! same reason, for PRD-master and devloop. The real binary on copies of
//! the example workspace.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

const FBA: &str = "prd-master/fba-smart-restock";
const REVIEW: &str = "prd-master/restock-v1-review";
const DEVLOOP: &str = "devloop/data/companies/acme/projects";

fn deep() -> String {
    format!("{}{}", "[".repeat(200), "]".repeat(200))
}

/// Put `"key": value` first in the object `file` holds.
fn plant(file: &Path, key: &str, value: &str) {
    let text = fs::read_to_string(file).unwrap();
    let at = text.find('{').unwrap() + 1;
    let planted = format!("{}\n  \"{key}\": {value},{}", &text[..at], &text[at..]);
    fs::write(file, planted).unwrap();
}

/// Every problem and finding `check --json` reports for the project at
/// `dir`, as text.
fn reported(dir: &Path) -> Vec<String> {
    let out = common::loopdeck()
        .args(["check", "--json", "--now", common::NOW])
        .arg(dir)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let p = &v["projects"][0];
    let none = Vec::new();
    let list = |key: &str| p[key].as_array().unwrap_or(&none).clone();
    let mut all: Vec<String> = list("problems")
        .iter()
        .map(|p| {
            format!(
                "{}: {}",
                p["file"].as_str().unwrap(),
                p["reason"].as_str().unwrap()
            )
        })
        .collect();
    all.extend(
        list("findings")
            .iter()
            .map(|f| f["message"].as_str().unwrap().to_owned()),
    );
    all
}

/// `act DIR ARGS --dry-run`: exit code and stderr.
fn act(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = common::loopdeck()
        .arg("act")
        .arg(dir)
        .args(args)
        .args(["--dry-run", "--now", common::NOW])
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The items `inbox --json ROOT` offers for the project at `dir`.
fn offered(root: &Path, dir: &Path) -> Vec<String> {
    let out = common::loopdeck()
        .args(["inbox", "--json", "--now", common::NOW])
        .arg(root)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| Path::new(i["path"].as_str().unwrap()) == dir)
        .map(|i| format!("{} {}", i["kind"], i["ref"]))
        .collect()
}

/// The reason a report gives in `(…)` after `prefix`, up to the `); `
/// that closes it.
fn reason_after<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let start = text.find(prefix)? + prefix.len();
    let end = text[start..].find("); ")? + start;
    Some(&text[start..end])
}

fn workspace() -> (tempfile::TempDir, PathBuf) {
    common::workspace()
}

/// PRD-master: what `check` says of the state, `act` says too, word for
/// word, and nothing is offered from a state no decision can edit.
fn prd_agrees(project: &str, key: &str, value: &str, what: &str, question: &str) {
    let (_tmp, root) = workspace();
    let dir = root.join(project);
    assert!(
        !offered(&root, &dir).is_empty(),
        "the example offers something to begin with"
    );
    plant(&dir.join("state.json"), key, value);
    let findings = reported(&dir);
    let said = findings
        .iter()
        .find_map(|f| reason_after(f, "state.json cannot be used ("))
        .unwrap_or_else(|| panic!("check says the state cannot be used: {findings:#?}"));
    assert!(said.starts_with(what), "{said}");
    let (code, err) = act(&dir, &["answer", question, "yes"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!("state.json cannot be used ({said}); ")),
        "act says what check says ({said}): {err}"
    );
    assert!(!err.contains("corrupt"), "valid JSON is not corrupt: {err}");
    assert_eq!(
        offered(&root, &dir),
        Vec::<String>::new(),
        "nothing offered"
    );
}

#[test]
fn prd_master_state_nested_200_deep_is_refused_alike() {
    prd_agrees(
        FBA,
        "deep",
        &deep(),
        "nested too deep (line 2, column ",
        "OQ-7",
    );
}

#[test]
fn prd_master_state_with_1e999999_is_refused_alike() {
    prd_agrees(
        REVIEW,
        "big",
        "1e999999",
        "number out of range (line 2, column 17)",
        "OQ-1",
    );
}

/// devloop: the reason `check` gives for `file` is the reason `act` gives.
fn devloop_agrees(dir: &Path, file: &str, what: &str, args: &[&str]) {
    let problems = reported(dir);
    let prefix = format!("{file}: ");
    let said = problems
        .iter()
        .find_map(|p| p.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("check names {file}: {problems:#?}"));
    assert!(said.starts_with(what), "{said}");
    let (code, err) = act(dir, args);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!("({said})")),
        "act gives check's reason ({said}): {err}"
    );
}

#[test]
fn devloop_agent_state_nested_200_deep_is_refused_alike() {
    let (_tmp, root) = workspace();
    let dir = root.join(DEVLOOP).join("p-restock");
    let agent = "agent-state/integrator.json";
    assert!(
        offered(&root, &dir).iter().any(|i| i.contains(agent)),
        "the example offers the paused agent to begin with"
    );
    plant(&dir.join(agent), "deep", &deep());
    devloop_agrees(
        &dir,
        agent,
        "nested too deep (line 2, column ",
        &["resume-agent", "integrator", "restart"],
    );
    assert!(
        !offered(&root, &dir).iter().any(|i| i.contains(agent)),
        "an agent state no decision can edit is not offered"
    );
}

#[test]
fn devloop_project_with_1e999999_is_refused_alike() {
    let (_tmp, root) = workspace();
    let dir = root.join(DEVLOOP).join("p-shipped");
    plant(&dir.join("project.json"), "big", "1e999999");
    devloop_agrees(
        &dir,
        "project.json",
        "number out of range (line 2, column 17)",
        &["sign-off"],
    );
}
