//! The seed rules read right: a resume token judged against `--now`,
//! units out of retries and an unsure triage reaching the inbox and the
//! loops. Real files in temp dirs, the binary run as a user runs it.

use std::fs;
use std::path::Path;

use serde_json::Value;

use super::common::{loopdeck, write};
use super::{meta, paused_project, show};

fn inbox_at(root: &Path, now: &str) -> Vec<Value> {
    let out = loopdeck()
        .args(["inbox", root.to_str().unwrap(), "--json", "--now", now])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["items"].as_array().unwrap().clone()
}

#[test]
fn a_resume_token_is_judged_against_now_in_every_view() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = paused_project(tmp.path());
    // Paused 2026-05-20T09:00Z, and nothing happened since: the token lives
    // until 2026-05-21T09:00Z. Before the fix, the reader compared the
    // expiry with the project's last update (the pause itself), so it
    // offered resume forever.
    fs::write(
        dir.join("project.json"),
        meta("p-paused").replace("2026-06-01T10:00:00Z", "2026-05-20T09:00:00Z"),
    )
    .unwrap();
    let resume = |items: &[Value]| -> Vec<String> {
        items.iter().find(|i| i["kind"] == "resume").unwrap()["options"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o.as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        resume(&inbox_at(tmp.path(), "2026-05-20T20:00:00Z")),
        vec!["resume", "restart"]
    );
    assert_eq!(
        resume(&inbox_at(tmp.path(), "2026-05-21T09:00:00Z")),
        vec!["restart"]
    );
    // Six days after expiry.
    assert_eq!(
        resume(&inbox_at(tmp.path(), "2026-05-27T09:00:00Z")),
        vec!["restart"]
    );
    // `show` carries the same rule, and the agent its expiry.
    let out = loopdeck()
        .args(["show", dir.to_str().unwrap(), "--json"])
        .args(["--now", "2026-05-27T09:00:00Z"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["inbox"][0]["options"], serde_json::json!(["restart"]));
    assert_eq!(v["agents"][0]["resume_expires_at"], "2026-05-21T09:00:00Z");
}

#[test]
fn units_out_of_retries_and_an_unsure_triage_reach_the_inbox_and_the_loops() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data/companies/acme/projects/p-loops");
    write(&dir.join("project.json"), meta("p-loops"));
    write(
        &dir.join("units.json"),
        r#"{"units":[
            {"id":"a-be","type":"be","status":"failed","depends_on":[],"retries":5,"retry_budget":5},
            {"id":"b-be","type":"be","status":"passed","depends_on":[]},
            {"id":"c-fe","type":"fe","status":"testing","depends_on":["b-be"]}],
          "l2_rounds":2,"l2_budget":3}"#,
    );
    write(
        &dir.join("integration/runs/run-int-20260601-0930/result.json"),
        r#"{"run_id":"run-int-20260601-0930","ok":false,"failures":[{"case":"e2e","failed_step":0,"involves":["b-be"]},{"case":"e2e-2","failed_step":1}]}"#,
    );
    write(
        &dir.join("integration/runs/run-int-20260601-0930/triage.json"),
        r#"{"run_id":"run-int-20260601-0930","category":"spec_ambiguous","confidence":0.3,"affected_units":["b-be"],"proposed_sdd_patch":null,"root_cause":"the spec does not say which status a duplicate gets"}"#,
    );
    write(
        &dir.join("prd.html"),
        r#"<article data-doc="prd" data-rev="3"><section data-rev="3"><h3>x</h3><p>y</p></section></article>"#,
    );
    let v = show(&dir);
    let items = v["inbox"].as_array().unwrap();
    let retries = items.iter().find(|i| i["kind"] == "retries-spent").unwrap();
    assert_eq!(retries["ref"], "a-be");
    assert_eq!(retries["subject"], "a-be");
    assert!(
        retries["title"]
            .as_str()
            .unwrap()
            .contains("5/5 retries used")
    );
    let triage = items.iter().find(|i| i["kind"] == "triage").unwrap();
    assert_eq!(triage["subject"], "b-be");
    assert!(triage["title"].as_str().unwrap().contains("0.30"));
    // The LoopStatusBar's data, from the files.
    let loops = &v["loops"];
    assert_eq!(loops["l1"]["passed"], 1);
    assert_eq!(loops["l1"]["failed"], 1);
    assert_eq!(loops["l1"]["testing"], 1);
    assert_eq!(loops["l2"]["status"], "failed");
    assert_eq!(loops["l2"]["rounds"], 2);
    assert_eq!(loops["l2"]["budget"], 3);
    assert_eq!(loops["l2"]["last_run"], "run-int-20260601-0930");
    assert_eq!(loops["l2"]["last_run_at"], "2026-06-01T09:30:00Z");
    assert_eq!(loops["l2"]["failures"], 2);
    assert_eq!(loops["l3"]["rev"], 3);
    assert_eq!(loops["l3"]["awaiting_feedback"], true);
    // Status kinds from the seed's words, not guessed.
    assert_eq!(v["units"][0]["status_kind"], "failed");
    assert_eq!(v["units"][2]["status_kind"], "running");
}
