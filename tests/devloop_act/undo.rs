//! Undoing a devloop decision that also appended to `timeline.ndjson`
//! (seed 003: append-only): the replaced file is put back, the event the
//! decision appended stays, and a compensating human event records the
//! undo with the audit id. The log is never rewritten.

use std::fs;
use std::path::Path;

use serde_json::Value;

use super::common::{loopdeck, settle_prd_conflict};
use super::{NOW, Ws, code, err};

fn undo(w: &Ws, args: &[&str]) -> std::process::Output {
    loopdeck()
        .env("XDG_STATE_HOME", w.state.path())
        .env("LOGNAME", "carol")
        .arg("undo")
        .args(args)
        .output()
        .unwrap()
}

/// The timeline's lines after `before`, which must stay its prefix.
fn appended_events(before: &[u8], path: &Path) -> Vec<Value> {
    let after = fs::read(path).unwrap();
    assert!(after.starts_with(before), "timeline.ndjson was rewritten");
    String::from_utf8(after[before.len()..].to_vec())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn undoing_a_sign_off_appends_a_compensating_event_and_keeps_the_log() {
    let w = Ws::new();
    let dir = w.dir("p-shipped");
    settle_prd_conflict(&dir);
    let project_before = fs::read(dir.join("project.json")).unwrap();
    let timeline = dir.join("timeline.ndjson");
    let tl_before = fs::read(&timeline).unwrap();

    let o = w.act(&dir, &["sign-off"], &["--json"]);
    assert_eq!(code(&o), 0, "{}", err(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let id = v["audit_id"].as_str().unwrap().to_owned();
    let signed = appended_events(&tl_before, &timeline);
    assert_eq!(signed.len(), 1);
    let tl_signed = fs::read(&timeline).unwrap();

    // The undo's own `--by` and `--now` are the event's.
    let o = undo(&w, &[&id, "--by", "dana", "--now", "2026-06-02T08:00:00Z"]);
    assert_eq!(code(&o), 0, "{}", err(&o));
    assert_eq!(fs::read(dir.join("project.json")).unwrap(), project_before);
    // The signed-off event is still there; one event after it says it
    // was undone, by whom, with the audit id.
    let events = appended_events(&tl_signed, &timeline);
    assert_eq!(events.len(), 1, "{events:?}");
    let e = &events[0];
    assert_eq!(e["source"], "human");
    assert_eq!(e["kind"], "decision_undone");
    assert_eq!(e["ref"], id.as_str());
    let summary = e["summary"].as_str().unwrap();
    assert!(
        summary.contains("dana") && summary.contains("sign-off") && summary.contains(&id),
        "{summary}"
    );
    assert_eq!(e["payload"]["undone"], id.as_str());
    let at = chrono::DateTime::parse_from_rfc3339("2026-06-02T08:00:00Z").unwrap();
    assert_eq!(e["ts"], at.timestamp());
    assert_eq!(
        e["payload"]["decision"],
        serde_json::json!({"verb": "sign-off"})
    );
    // The reader shows the project shipped again, its timeline ending on
    // the undo.
    let show = super::show(&dir, NOW);
    assert_eq!(show["project"]["status"], "shipped");
    let last = show["timeline"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["kind"], "decision_undone");

    // A redo takes the undo back: signed off again, and the timeline says
    // that too, after the rest.
    let tl_undone = fs::read(&timeline).unwrap();
    let o = loopdeck()
        .env("XDG_STATE_HOME", w.state.path())
        .env("LOGNAME", "carol")
        .args(["redo", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", err(&o));
    assert_eq!(super::show(&dir, NOW)["project"]["status"], "shipped-final");
    let events = appended_events(&tl_undone, &timeline);
    assert_eq!(events.len(), 1, "{events:?}");
    let summary = events[0]["summary"].as_str().unwrap();
    assert!(
        summary.contains(&format!("the undo of decision {id}")),
        "{summary}"
    );
}
