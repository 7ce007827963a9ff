//! Issue 20 §1: an item's age is how long it has waited, not its project's
//! last write. An item whose files say since when it waits keeps that
//! (`file`); one whose files do not waits from the first reading that
//! showed it (`first_seen`), kept in the state directory across runs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::path::Path;

use common::{loopdeck, repo};

fn inbox(state: &Path, root: &Path, now: &str, extra: &[&str]) -> Vec<serde_json::Value> {
    let out = loopdeck()
        .env("XDG_STATE_HOME", state)
        .arg("inbox")
        .arg(root)
        .args(["--json", "--now", now])
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["items"].as_array().unwrap().clone()
}

fn item<'a>(items: &'a [serde_json::Value], reference: &str) -> &'a serde_json::Value {
    items
        .iter()
        .find(|i| i["ref"] == reference)
        .unwrap_or_else(|| panic!("no {reference} in {items:?}"))
}

#[test]
fn a_question_keeps_its_age_when_its_project_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("state");
    let root = tmp.path().join("ws");
    let prd = root.join("lint-synonyms");
    let gsd = root.join("paused-waiting");
    common::copy_dir(
        &repo().join("examples/workspace/prd-master/lint-synonyms"),
        &prd,
    );
    common::copy_dir(&repo().join("examples/workspace/gsd/paused-waiting"), &gsd);

    // Read-only first: nothing remembered.
    let items = inbox(&state, &root, "2026-06-01T12:00:00Z", &["--readonly"]);
    assert_eq!(item(&items, "OQ-6")["waiting_since_source"], "first_seen");
    assert!(!state.join("loopdeck/first-seen.json").exists());

    let items = inbox(&state, &root, "2026-06-01T12:00:00Z", &[]);
    let oq6 = item(&items, "OQ-6");
    assert_eq!(oq6["waiting_since"], "2026-06-01T12:00:00Z");
    assert_eq!(oq6["waiting_since_source"], "first_seen");
    assert_eq!(oq6["age_seconds"], 0);
    // WAITING.json says since when: from the file.
    let waiting = item(&items, ".planning/WAITING.json");
    assert_eq!(waiting["waiting_since_source"], "file");

    // The agent writes the project (its update time moves); an hour on,
    // OQ-6 has waited an hour, not 0s.
    let path = prd.join("state.json");
    let mut v: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    v["last_updated_at_utc"] = serde_json::Value::from("2026-06-01T12:59:00Z");
    v["current_substep"] = serde_json::Value::from("moved-on");
    fs::write(&path, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    let items = inbox(&state, &root, "2026-06-01T13:00:00Z", &[]);
    let oq6 = item(&items, "OQ-6");
    assert_eq!(oq6["waiting_since"], "2026-06-01T12:00:00Z");
    assert_eq!(oq6["age_seconds"], 3600);
    // Oldest first: the WAITING.json question (09:xx by its file) leads.
    assert_eq!(items[0]["ref"], ".planning/WAITING.json");
}

/// The first-seen clock belongs to the project, not to how its root was
/// typed: `inbox /abs/ws`, then `inbox ws` and `inbox .` from elsewhere,
/// find the same first sighting.
#[test]
fn every_spelling_of_a_root_shares_one_clock() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("state");
    let root = tmp.path().join("ws");
    common::copy_dir(
        &repo().join("examples/workspace/prd-master/lint-synonyms"),
        &root.join("lint-synonyms"),
    );
    let run = |cwd: &Path, spelling: &str, now: &str| {
        let out = loopdeck()
            .current_dir(cwd)
            .env("XDG_STATE_HOME", &state)
            .args(["inbox", spelling, "--json", "--now", now])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        item(v["items"].as_array().unwrap(), "OQ-6").clone()
    };
    let first = run(tmp.path(), root.to_str().unwrap(), "2026-06-01T12:00:00Z");
    assert_eq!(first["waiting_since"], "2026-06-01T12:00:00Z");
    for (cwd, spelling) in [
        (tmp.path().to_path_buf(), "ws"),
        (root.clone(), "."),
        (root.join("lint-synonyms"), ".."),
        (tmp.path().to_path_buf(), "./ws/../ws/"),
    ] {
        let oq6 = run(&cwd, spelling, "2026-06-03T12:00:00Z");
        assert_eq!(oq6["waiting_since"], "2026-06-01T12:00:00Z", "{spelling}");
        assert_eq!(oq6["age_seconds"], 2 * 86_400, "{spelling}");
    }
    let memory = fs::read_to_string(state.join("loopdeck/first-seen.json")).unwrap();
    assert_eq!(memory.matches("#question:OQ-6").count(), 1, "{memory}");
}
