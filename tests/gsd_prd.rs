//! GSD and PRD-master read rules (issue 7, §2–3), on real files in temp
//! dirs, through the real binary.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;
use std::path::Path;

use common::{NOW, json, loopdeck, write};
use serde_json::Value;

const BOM: &str = "\u{feff}";

fn show(dir: &Path) -> Value {
    json(&["show", dir.to_str().unwrap()])
}

#[test]
fn json_with_a_byte_order_mark_is_read_in_gsd_and_prd_master() {
    let tmp = tempfile::tempdir().unwrap();
    // GSD: WAITING.json written by a Windows editor.
    let gsd = tmp.path().join("gsd");
    write(
        &gsd.join(".planning/STATE.md"),
        "---\nstatus: executing\n---\n",
    );
    write(
        &gsd.join(".planning/WAITING.json"),
        format!(r#"{BOM}{{"status":"waiting","question":"Which DB?","options":["A","B"]}}"#),
    );
    let v = show(&gsd);
    assert_eq!(v["project"]["problems"], serde_json::json!([]), "{v}");
    assert_eq!(v["inbox"][0]["title"], "Which DB?");
    // PRD-master: state.json with a BOM is read, not rebuilt.
    let prd = tmp.path().join("prd");
    write(
        &prd.join("state.json"),
        format!(
            r#"{BOM}{{"workflow_version":"0.6","current_stage":"3","last_updated_at_utc":"2026-05-30T10:00:00Z","project_name":"bom"}}"#
        ),
    );
    let v = show(&prd);
    assert_eq!(v["project"]["problems"], serde_json::json!([]), "{v}");
    assert_eq!(v["project"]["name"], "bom");
    assert_eq!(v["project"]["stage"], "3");
    assert_ne!(v["project"]["status"], "rebuilt");
}

/// An independent count: unticked boxes under a heading that mentions todos.
fn unticked_todos(text: &str) -> usize {
    let mut inside = false;
    let mut n = 0;
    for line in text.lines() {
        if line.starts_with('#') {
            inside = line.to_lowercase().contains("todo");
        } else if inside && line.trim_start().starts_with("- [ ]") {
            n += 1;
        }
    }
    n
}

#[test]
fn pending_todos_are_shown_and_carried_in_json() {
    let src =
        common::repo().join("tests/fixtures/gsd-real-world/Minamon44__portfolio-website/STATE.md");
    let text = fs::read_to_string(&src).unwrap();
    let want = unticked_todos(&text);
    assert!(want > 0, "the real file lists todos");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("site");
    write(&dir.join(".planning/STATE.md"), &text);
    assert_eq!(show(&dir)["pending_todos"], want);
    let out = loopdeck()
        .args(["show", dir.to_str().unwrap(), "--now", NOW])
        .output()
        .unwrap();
    let out = String::from_utf8(out.stdout).unwrap();
    assert!(out.contains(&format!("Pending todos: {want}")), "{out}");
    // No todo section: nothing is claimed.
    let bare = tmp.path().join("bare");
    write(
        &bare.join(".planning/STATE.md"),
        "---\nstatus: executing\n---\n",
    );
    assert_eq!(show(&bare)["pending_todos"], Value::Null);
}

#[test]
fn stopped_at_and_last_session_come_only_from_the_session_section() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p");
    // Archived text above the Session section states an older stop point.
    write(
        &dir.join(".planning/STATE.md"),
        "# Project State\n\n## Current Position\n\nPhase: 4 of 6 (Sync)\nStatus: Executing\n\n## Milestone v1.0 (archived)\n\nLast session: 2025-01-02T03:04:05Z\nStopped at: Completed 01-03-PLAN.md\n\n## Session Continuity\n\nLast session: 2026-05-30T10:00:00Z\nStopped at: Phase 4 planned\nResume file: None\n",
    );
    let v = show(&dir);
    assert_eq!(v["resume"]["last_session"], "2026-05-30T10:00:00Z");
    assert_eq!(v["resume"]["reason"], "stopped at: Phase 4 planned");
}

fn listed(root: &Path) -> Vec<Value> {
    json(&["list", root.to_str().unwrap()])["projects"]
        .as_array()
        .unwrap()
        .clone()
}

#[cfg(unix)]
#[test]
fn broken_gsd_links_keep_the_project_listed_with_a_problem() {
    use std::os::unix::fs::symlink;
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    // A STATE.md link whose target is gone.
    let a = root.join("dangling");
    fs::create_dir_all(a.join(".planning")).unwrap();
    symlink("STATE-old.md", a.join(".planning/STATE.md")).unwrap();
    // A .planning linked to a directory outside the project.
    let outside = tmp.path().join("elsewhere/.planning");
    write(&outside.join("STATE.md"), "---\nstatus: executing\n---\n");
    let b = root.join("linked-out");
    fs::create_dir_all(&b).unwrap();
    symlink(&outside, b.join(".planning")).unwrap();
    // A .planning link to a directory inside the project is simply read.
    let c = root.join("linked-in");
    write(
        &c.join("docs/planning/STATE.md"),
        "---\nstatus: executing\n---\n",
    );
    symlink("docs/planning", c.join(".planning")).unwrap();
    // A plain file named .planning is no project.
    write(&root.join("not-gsd/.planning"), "notes");

    let rows = listed(&root);
    let by_id = |id: &str| {
        rows.iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("{id} is listed: {rows:?}"))
            .clone()
    };
    assert_eq!(rows.len(), 3, "{rows:?}");
    for id in ["dangling", "linked-out"] {
        let r = by_id(id);
        let problems = r["problems"].as_array().unwrap();
        assert_eq!(problems.len(), 1, "{r}");
        assert_eq!(problems[0]["file"], ".planning/STATE.md");
        assert_eq!(r["status"], "unreadable");
    }
    assert!(
        by_id("dangling")["problems"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("does not exist")
    );
    assert!(
        by_id("linked-out")["problems"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("leaves the project")
    );
    let inside = by_id("linked-in");
    assert_eq!(inside["problems"], serde_json::json!([]));
    assert_eq!(inside["status"], "executing");
    // `show` on the project itself says the same.
    let v = show(&a);
    assert_eq!(v["project"]["problems"][0]["file"], ".planning/STATE.md");
}

fn inbox_options(v: &Value) -> Vec<String> {
    v["inbox"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|i| i["options"].as_array().cloned().unwrap_or_default())
        .map(|o| o.as_str().unwrap().to_owned())
        .collect()
}

fn findings_with(v: &Value, code: &str) -> Vec<String> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == code)
        .map(|f| f["message"].as_str().unwrap().to_owned())
        .collect()
}

/// A v0.5 state paused in stage 1 with a next_action of another type,
/// holding answer options of its own.
const V05_STAGE1: &str = r#"{"workflow_version":"0.5","current_stage":"1.2","project_name":"legacy",
 "last_updated_at_utc":"2026-05-30T10:00:00Z","completed_stages":["0","1.1"],
 "next_action":{"type":"user_decision","description":"选一个方向","askuserquestion_options":["方向 A","方向 B"]},
 "open_questions":[
  {"id":"OQ-1","title":"谁付费","kind":"decision","owner":"user","priority":"P0","depends_on":[]},
  {"id":"OQ-2","title":"定价","kind":"decision","owner":"user","priority":"P1","depends_on":["OQ-1"]},
  {"id":"OQ-3","title":"竞品价格","kind":"fact","owner":"agent","priority":"P1","depends_on":[]}]}"#;

#[test]
fn legacy_stage1_resumes_with_a_recomputed_frontier_and_no_old_options() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("legacy");
    write(&dir.join("state.json"), V05_STAGE1);
    write(&dir.join("scene-anchor.md"), "# 场景锚点\n");
    let v = show(&dir);
    // The old options belong to the replaced action: nowhere.
    assert!(inbox_options(&v).is_empty(), "{}", v["inbox"]);
    let card = v["resume"]["waiting_for"].as_str().unwrap();
    assert!(!card.contains("方向 A"), "{card}");
    // The new next action is stage 1's frontier: OQ-1 (OQ-2 waits on it),
    // with OQ-3 researched by the agent.
    assert!(
        card.contains("stage1_frontier") || card.contains("frontier"),
        "{card}"
    );
    assert!(
        card.contains("OQ-1") && !card.contains("OQ-2") && card.contains("OQ-3"),
        "{card}"
    );
    let legacy = findings_with(&v, "prd.legacy-state").join(" ");
    assert!(
        legacy.contains("stage1_frontier") && legacy.contains("user_decision"),
        "{legacy}"
    );
    // Not reported as a saved state that disobeys the seed: it was migrated.
    assert!(findings_with(&v, "prd.next-action-not-frontier").is_empty());
    let table = loopdeck()
        .args(["show", dir.to_str().unwrap(), "--now", NOW])
        .output()
        .unwrap();
    let table = String::from_utf8(table.stdout).unwrap();
    assert!(!table.contains("方向 A"), "{table}");
    let inbox = json(&["inbox", tmp.path().to_str().unwrap()]);
    assert!(!inbox.to_string().contains("方向 A"), "{inbox}");
}

#[test]
fn legacy_project_without_the_value_section_does_the_value_argument_next() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("old");
    // Pre-0.5 (no workflow_version), old stage 3.1 (debate), unfinished.
    write(
        &dir.join("state.json"),
        r#"{"current_stage":"3.1","last_updated_at_utc":"2026-05-30T10:00:00Z","completed_stages":["0","1","2"],
            "next_action":{"type":"user_decision","description":"V0 方案对吗？","askuserquestion_options":["接受","再吵一轮"]}}"#,
    );
    write(&dir.join("scene-anchor.md"), "# 场景锚点\n\n没有价值部分\n");
    let v = show(&dir);
    assert_eq!(v["project"]["stage"], "4.1");
    let card = v["resume"]["waiting_for"].as_str().unwrap();
    assert!(card.contains("价值论证"), "{card}");
    assert!(!card.contains("接受"), "{card}");
    assert!(inbox_options(&v).is_empty(), "{}", v["inbox"]);
    // The card names the stages already done, as migrated (old 2 is new 3).
    assert_eq!(v["resume"]["completed"], serde_json::json!(["0", "1", "3"]));
}

#[test]
fn the_resume_card_shows_the_completed_stages() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p");
    let state = r#"{"state_schema_version":3,"workflow_version":"0.6","current_stage":"4.5","last_updated_at_utc":"2026-05-28T10:00:00Z",
        "completed_stages":["0","1","2","3","4.1","4.2","4.3","4.4"],
        "next_action":{"type":"user_decision","description":"V1 方案对吗？","askuserquestion_options":["接受 V1 走终稿","继续吵一轮"]}}"#;
    write(&dir.join("state.json"), state);
    let want: Vec<String> = serde_json::from_str::<Value>(state).unwrap()["completed_stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect();
    let v = show(&dir);
    assert_eq!(v["resume"]["completed"], serde_json::json!(want));
    // A current state keeps its own action and options.
    assert_eq!(inbox_options(&v), vec!["接受 V1 走终稿", "继续吵一轮"]);
    let out = loopdeck()
        .args(["show", dir.to_str().unwrap(), "--now", NOW])
        .output()
        .unwrap();
    let out = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.contains(&format!("completed    {}", want.join(", "))),
        "{out}"
    );
}

#[test]
fn awaiting_evidence_names_the_status_the_seed_gives_its_owner() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p");
    write(
        &dir.join("state.json"),
        r#"{"workflow_version":"0.6","current_stage":"1","last_updated_at_utc":"2026-05-30T10:00:00Z",
            "next_action":{"type":"stage1_frontier","question_ids":[],"research_ids":["A","U"]},
            "open_questions":[
             {"id":"A","title":"t","kind":"fact","owner":"agent","priority":"P1","depends_on":[],"status":"awaiting_evidence"},
             {"id":"U","title":"t","kind":"fact","owner":"企业 IT 数据负责人","priority":"P1","depends_on":[],"status":"awaiting_evidence"}]}"#,
    );
    let v = show(&dir);
    let msgs = findings_with(&v, "prd.fact-field-synonym");
    let for_id = |id: &str| {
        msgs.iter()
            .find(|m| m.starts_with(&format!("{id} has status")))
            .unwrap_or_else(|| panic!("{id}: {msgs:?}"))
            .clone()
    };
    assert!(for_id("A").contains("pending_research"), "{msgs:?}");
    assert!(!for_id("A").contains("pending_user"), "{msgs:?}");
    assert!(for_id("U").contains("pending_user"), "{msgs:?}");
}

#[test]
fn a_state_json_directory_is_a_problem_not_a_quiet_rebuild() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p");
    fs::create_dir_all(dir.join("state.json")).unwrap();
    write(&dir.join("conversation.md"), "# 对话\n");
    for row in [
        listed(tmp.path()).into_iter().next().unwrap(),
        show(&dir)["project"].clone(),
    ] {
        let problems = row["problems"].as_array().unwrap();
        assert_eq!(problems.len(), 1, "{row}");
        assert_eq!(problems[0]["file"], "state.json");
        assert!(
            problems[0]["reason"]
                .as_str()
                .unwrap()
                .contains("directory"),
            "{row}"
        );
        assert_eq!(row["status"], "rebuilt", "the rest is still rebuilt");
    }
}

/// 0 of 0 phases (a real file): the statusline follows the hook's string
/// comparison ("milestone complete"), the views say there are no phases.
#[test]
fn zero_phases_statusline_matches_the_hook_and_the_views_stay_true() {
    let real = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/gsd-real-world/Minhmice__block_detected/STATE.md");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p");
    write(&dir.join(".planning/STATE.md"), fs::read(&real).unwrap());
    let out = loopdeck()
        .args(["status", dir.to_str().unwrap()])
        .output()
        .unwrap();
    let line = String::from_utf8(out.stdout).unwrap();
    assert!(line.ends_with("· milestone complete\n"), "{line}");
    let v = show(&dir);
    let stage = v["project"]["stage"].as_str().unwrap();
    assert!(!stage.contains("complete"), "{v}");
    assert_eq!(v["project"]["status"], "planning", "{v}");
    // Without a Phase line, the stage says there are no phases yet.
    let bare = tmp.path().join("bare");
    write(
        &bare.join(".planning/STATE.md"),
        "---
milestone: v1.0
status: planning
progress:
  total_phases: 0
  completed_phases: 0
  percent: 0
---
",
    );
    let v = show(&bare);
    assert_eq!(v["project"]["stage"], "no phases yet", "{v}");
    assert!(
        v["statusline"]
            .as_str()
            .unwrap()
            .ends_with("milestone complete"),
        "{v}"
    );
}
