//! The DWP reader on plans written into temp dirs.

use super::*;
use crate::model::Format;
use crate::store::WalkEntry;
use serde_json::{Value, json};
use std::fs;
use std::path::PathBuf;

mod contract;
mod discovery;
mod offers;

const PLAN: &str = "PLAN_test_plan";

/// A plan's files, by name; written under `repo/.dwp/plans/PLAN_test_plan/`.
struct Files(Vec<(String, String)>);

impl Files {
    fn set(&mut self, name: &str, content: impl Into<String>) -> &mut Self {
        let content = content.into();
        match self.0.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = content,
            None => self.0.push((name.to_owned(), content)),
        }
        self
    }

    fn remove(&mut self, name: &str) -> &mut Self {
        self.0.retain(|(n, _)| n != name);
        self
    }

    fn get(&self, name: &str) -> String {
        let (_, s) = self.0.iter().find(|(n, _)| n == name).unwrap();
        s.clone()
    }

    fn state(&self) -> Value {
        serde_json::from_str(&self.get(STATE)).unwrap()
    }

    /// Change `manifest.json` with `f`.
    fn edit_manifest(&mut self, f: impl FnOnce(&mut Value)) -> &mut Self {
        let mut m: Value = serde_json::from_str(&self.get(MANIFEST)).unwrap();
        f(&mut m);
        self.set(MANIFEST, serde_json::to_string_pretty(&m).unwrap())
    }

    /// Change `state.json` with `f`.
    fn edit_state(&mut self, f: impl FnOnce(&mut Value)) -> &mut Self {
        let mut s = self.state();
        f(&mut s);
        self.set(STATE, serde_json::to_string_pretty(&s).unwrap())
    }
}

fn task_file(id: usize) -> String {
    format!("{id}.task_t{id}.md")
}

/// Task `id`'s file in a plan of `n` tasks: the last is the Final Review
/// (the verifier requires `N.task_final_review*.md` last).
fn file_for(id: usize, n: usize) -> String {
    if id == n {
        format!("{id}.task_final_review.md")
    } else {
        task_file(id)
    }
}

/// The body of a task file with every field the verifier requires; the
/// final task names its security pass, final-state validation and skills.
fn task_body(id: usize) -> String {
    format!(
        "# Task {id}\n\n## Goal\n\nx\n\n## Context\n\nc\n\n## Touched Surface\n\nsrc/\n\n## Acceptance Criteria\n\na\n\n## Validation\n\ncargo test\n\nFinal Review: security pass, final-state validation, skills reconciliation.\n"
    )
}

fn task_json(id: usize, n: usize, status: &str) -> Value {
    let mut t = json!({
        "id": id,
        "locator": {"kind": "file", "value": file_for(id, n)},
        "title": format!("T{id}"),
        "status": status,
        "gates": [],
    });
    if status == "completed" {
        t["completed_at"] = json!("2026-05-30T10:00:00Z");
        t["gates"] = json!([{"command": "cargo test", "passes": true, "exit_code": 0,
                             "last_run": "2026-05-30T09:59:00Z", "evidence": "12 passed, 0 failed"}]);
    }
    t
}

/// A coherent v2 Full plan whose tasks have `statuses`: state, manifest,
/// README (ticks agreeing with the state), PROGRESS.md and task files.
fn full_plan(statuses: &[&str]) -> Files {
    let tasks: Vec<Value> = statuses
        .iter()
        .enumerate()
        .map(|(i, s)| task_json(i + 1, statuses.len(), s))
        .collect();
    let done = statuses.iter().filter(|s| **s == "completed").count();
    let status = if statuses.contains(&"blocked") {
        "blocked"
    } else if statuses.iter().all(|s| *s == "completed") {
        "completed"
    } else if statuses.iter().any(|s| *s != "pending") {
        "in_progress"
    } else {
        "pending"
    };
    let state = json!({
        "schema": "https://deepworkplan.com/schema/plan-state/v2.json",
        "plan": PLAN,
        "updated_at": "2026-05-31T09:45:00Z",
        "status": status,
        "completed_count": done,
        "task_count": statuses.len(),
        "format": "full",
        "materialization": "ready",
        "approval": "approved",
        "promotion": null,
        "tasks": tasks,
        "checkpoint": null,
        "blocked": null,
    });
    let manifest = json!({
        "schema": "https://deepworkplan.com/schema/plan-manifest/v2.json",
        "spec_version": "5.0.0",
        "name": PLAN,
        "title": "Test plan",
        "archetype": "individual",
        "rigor": "standard",
        "plan_format": "full",
        "created_at": "2026-05-26T08:00:00Z",
        "task_count": statuses.len(),
    });
    let mut readme =
        "# Plan: PLAN_test_plan\n\nApproval: approved\n\n## 1. Goal\n\ng\n\n## 2. Context\n\nc\n\n## 4. Task List & Links\n\n".to_owned();
    let mut files = Files(Vec::new());
    for (i, s) in statuses.iter().enumerate() {
        let id = i + 1;
        let tick = if *s == "completed" { "x" } else { " " };
        readme.push_str(&format!(
            "- [{tick}] Task {id}: T{id}\n  See: [{f}](./{f})\n",
            f = file_for(id, statuses.len())
        ));
        files.set(&file_for(id, statuses.len()), task_body(id));
    }
    readme.push_str(&format!(
        "\n## 5. Plan Status\n\nPlan Status: {done}/{}\n",
        statuses.len()
    ));
    files
        .set(STATE, serde_json::to_string_pretty(&state).unwrap())
        .set(MANIFEST, serde_json::to_string_pretty(&manifest).unwrap())
        .set(README, readme)
        .set(PROGRESS, "# Progress\n")
        .set("PROMPTS.md", "# Prompts\n")
        .set("analysis_results/.keep", "");
    files
}

/// Write `files` as a plan under a repo and read the repo as the walk would.
fn read(files: &Files) -> (tempfile::TempDir, Project) {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let dir = repo.join(DWP_DIR).join(PLANS_DIR).join(PLAN);
    for (name, content) in &files.0 {
        let path = dir.join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, content).unwrap();
    }
    fs::create_dir_all(&dir).unwrap();
    let p = read_repo(&repo).pop().expect("the plan is found");
    (tmp, p)
}

fn read_repo(repo: &Path) -> Vec<Project> {
    let dirs = vec![DWP_DIR.to_owned()];
    discover(&WalkEntry {
        path: repo,
        files: &[],
        dirs: &dirs,
    })
}

fn plan_dir(tmp: &tempfile::TempDir) -> PathBuf {
    tmp.path()
        .join("repo")
        .join(DWP_DIR)
        .join(PLANS_DIR)
        .join(PLAN)
}

fn codes(p: &Project) -> Vec<&str> {
    p.findings.iter().map(|f| f.code.as_str()).collect()
}

fn finding<'a>(p: &'a Project, code: &str) -> &'a Finding {
    p.findings
        .iter()
        .find(|f| f.code == code)
        .unwrap_or_else(|| panic!("no {code} in {:#?}", p.findings))
}

#[test]
fn a_coherent_plan_has_no_findings() {
    let (_t, p) = read(&full_plan(&["completed", "in_progress", "pending"]));
    assert!(p.findings.is_empty(), "{:#?}", p.findings);
    assert!(p.problems.is_empty(), "{:?}", p.problems);
    assert!(p.inbox.is_empty());
    assert_eq!(p.format, Format::Dwp);
    assert_eq!(p.name, "Test plan");
    assert_eq!(p.status, "executing");
    assert_eq!(
        p.stage.as_ref().map(|s| s.en()).as_deref(),
        Some("task 2/3")
    );
    assert_eq!(p.progress_percent, Some(33));
    assert_eq!(
        p.updated_at.unwrap().to_rfc3339(),
        "2026-05-31T09:45:00+00:00"
    );
    assert_eq!(
        p.statusline,
        "PLAN_test_plan · 1/3 tasks · task 2 in_progress"
    );
    let t = &p.detail.tasks;
    assert_eq!(t.len(), 3);
    assert_eq!(
        (t[0].id.as_str(), t[0].title.as_str(), t[0].status.as_str()),
        ("1", "T1", "completed")
    );
    assert_eq!(t[0].md_checked, Some(true));
    assert_eq!(t[1].md_checked, Some(false));
    assert_eq!(t[0].locator.as_deref(), Some("1.task_t1.md"));
    assert_eq!(
        t[0].gates[0].evidence.as_deref(),
        Some("12 passed, 0 failed")
    );
    assert!(t[0].gates[0].passes);
    assert_eq!(
        p.resume.read_first,
        vec!["README.md", "PROGRESS.md", "2.task_t2.md"]
    );
    assert_eq!(
        p.resume.stopped_at.as_ref().map(|s| s.en()).as_deref(),
        Some("task 2 (T2), in_progress")
    );
}

#[test]
fn v1_plans_read_their_task_file_field() {
    let mut f = full_plan(&["completed", "pending"]);
    f.edit_state(|s| {
        s["schema"] = json!("https://deepworkplan.com/schema/plan-state/v1.json");
        for key in ["format", "materialization", "approval", "promotion"] {
            s.as_object_mut().unwrap().remove(key);
        }
        for t in s["tasks"].as_array_mut().unwrap() {
            let file = t["locator"]["value"].clone();
            t.as_object_mut().unwrap().remove("locator");
            t["file"] = file;
        }
    });
    let (_t, p) = read(&f);
    assert!(p.findings.is_empty(), "{:#?}", p.findings);
    assert_eq!(
        p.detail.tasks[1].locator.as_deref(),
        Some("2.task_final_review.md")
    );
    assert_eq!(p.detail.tasks[0].md_checked, Some(true));
    // Without its approval the README line speaks (here: approved).
    assert!(p.inbox.is_empty());
}

#[test]
fn v5_is_the_v2_shape_and_newer_specs_are_flagged() {
    let mut f = full_plan(&["completed", "pending"]);
    f.edit_state(|s| s["schema"] = json!("https://deepworkplan.com/schema/plan-state/v5.json"));
    let mut m: Value = serde_json::from_str(&f.get(MANIFEST)).unwrap();
    m["schema"] = json!("https://deepworkplan.com/schema/plan-manifest/v5.json");
    f.set(MANIFEST, m.to_string());
    let (_t, p) = read(&f);
    assert!(p.findings.is_empty(), "{:#?}", p.findings);
    assert_eq!(p.detail.tasks.len(), 2);

    m["spec_version"] = json!("6.1.0");
    f.set(MANIFEST, m.to_string());
    let (_t, p) = read(&f);
    assert_eq!(codes(&p), vec!["dwp.spec-newer"]);
    assert_eq!(finding(&p, "dwp.spec-newer").level, Level::Warning);
    assert_eq!(p.detail.tasks.len(), 2, "still read");

    // The README's Standard line wins over the manifest.
    let readme = format!("**Standard:** DWP spec 5.0.0\n{}", f.get(README));
    f.set(README, readme);
    let (_t, p) = read(&f);
    assert!(p.findings.is_empty(), "{:#?}", p.findings);

    f.edit_state(|s| s["schema"] = json!("https://deepworkplan.com/schema/plan-state/v7.json"));
    let (_t, p) = read(&f);
    assert!(finding(&p, "dwp.spec-newer").message.contains("v7"));
    assert_eq!(p.detail.tasks.len(), 2);
}

#[test]
fn markdown_wins_in_both_directions_and_fences_are_ignored() {
    let mut f = full_plan(&["completed", "in_progress", "completed", "pending"]);
    let readme = "# Plan\n\nApproval: approved\n\n## Goal\n\ng\n\n## Context\n\nc\n\nPlan Status: 2/4\n\n```markdown\n- [x] Task 4: example only\n- [ ] Task 1: example only\n```\n\n~~~\n- [ ] Task 3\n~~~\n\n## Task List\n\n- [x] Task 1: T1 [1.task_t1.md](./1.task_t1.md)\n- [x] Task 2: T2 [2.task_t2.md](./2.task_t2.md)\n- [ ] Task 3: T3 [3.task_t3.md](./3.task_t3.md)\n- [ ] Task 4: T4 [4.task_final_review.md](./4.task_final_review.md)\n";
    f.set(README, readme);
    let (_t, p) = read(&f);
    let desync: Vec<&Finding> = p
        .findings
        .iter()
        .filter(|f| f.code == "dwp.desync")
        .collect();
    assert_eq!(desync.len(), 2, "{:#?}", p.findings);
    assert_eq!(desync[0].level, Level::Error);
    assert_eq!(desync[0].reference.as_deref(), Some("task 2"));
    assert!(
        desync[0]
            .message
            .contains("README ticks task 2 but state.json says in_progress"),
        "{}",
        desync[0].message
    );
    assert_eq!(desync[1].reference.as_deref(), Some("task 3"));
    assert!(
        desync[1]
            .message
            .contains("state.json says task 3 is completed but the README leaves it unticked"),
        "{}",
        desync[1].message
    );
    assert_eq!(codes(&p), vec!["dwp.desync", "dwp.desync"]);
    let checked: Vec<Option<bool>> = p.detail.tasks.iter().map(|t| t.md_checked).collect();
    assert_eq!(
        checked,
        vec![Some(true), Some(true), Some(false), Some(false)]
    );
    let items: Vec<InboxKind> = p.inbox.iter().map(|i| i.kind).collect();
    assert_eq!(items, vec![InboxKind::Desync]);
    assert!(
        p.inbox[0]
            .title
            .en()
            .contains("task 2: README ticked, state in_progress")
    );
    assert!(
        p.inbox[0]
            .title
            .en()
            .contains("task 3: README unticked, state completed")
    );
    // Markdown wins the count: tasks 1 and 2 are ticked.
    assert_eq!(p.progress_percent, Some(50));
    assert!(
        p.statusline.ends_with("· 2/4 tasks · README/state desync"),
        "{}",
        p.statusline
    );
}

#[test]
fn readme_and_state_inventories_must_match() {
    let mut f = full_plan(&["completed", "pending"]);
    let readme = "# Plan\nApproval: approved\n\n## Goal\n\ng\n\n## Context\n\nc\n\nPlan Status: 1/2\n\n- [x] Task 1: T1 [1.task_t1.md](./1.task_t1.md)\n- [ ] Task 3: ghost\n- [x] Task 1: again\n[2.task_final_review.md](./2.task_final_review.md)\n";
    f.set(README, readme);
    let (_t, p) = read(&f);
    assert_eq!(
        codes(&p),
        vec![
            "dwp.readme-duplicate-checkbox",
            "dwp.readme-task-missing",
            "dwp.readme-unknown-task"
        ]
    );
    assert_eq!(p.detail.tasks[1].md_checked, None);
    assert_eq!(p.inbox.len(), 1);
    assert_eq!(p.inbox[0].kind, InboxKind::Desync);
}

#[test]
fn a_completed_task_whose_latest_gate_failed() {
    let mut f = full_plan(&["completed", "pending"]);
    f.edit_state(|s| {
        let gates = s["tasks"][0]["gates"].as_array_mut().unwrap();
        gates.push(json!({"command": "cargo clippy", "passes": false, "exit_code": 101, "evidence": "2 errors"}));
    });
    let (_t, p) = read(&f);
    assert_eq!(codes(&p), vec!["dwp.completed-with-failing-gate"]);
    let msg = &finding(&p, "dwp.completed-with-failing-gate").message;
    assert!(msg.contains("`cargo clippy` exit 101: 2 errors"), "{msg}");

    // A later passing run of the same command supersedes the failure.
    f.edit_state(|s| {
        let gates = s["tasks"][0]["gates"].as_array_mut().unwrap();
        gates.push(
            json!({"command": "cargo clippy", "passes": true, "exit_code": 0, "evidence": "clean"}),
        );
    });
    let (_t, p) = read(&f);
    assert!(p.findings.is_empty(), "{:#?}", p.findings);

    // Not completed: a failing gate is no finding.
    let mut f = full_plan(&["completed", "in_progress"]);
    f.edit_state(|s| {
        s["tasks"][1]["gates"] =
            json!([{"command": "t", "passes": false, "exit_code": 1, "evidence": "3 failed"}]);
    });
    let (_t, p) = read(&f);
    assert!(p.findings.is_empty(), "{:#?}", p.findings);
}

#[test]
fn a_passing_gate_that_never_ran() {
    for evidence in ["running 0 tests", "ran=0", "集成测试未运行", "no tests ran"] {
        let mut f = full_plan(&["completed", "pending"]);
        f.edit_state(|s| s["tasks"][0]["gates"][0]["evidence"] = json!(evidence));
        let (_t, p) = read(&f);
        assert_eq!(codes(&p), vec!["dwp.gate-never-ran"], "{evidence}");
        assert_eq!(finding(&p, "dwp.gate-never-ran").level, Level::Error);
    }
    // A gate that reports passed tests ran, whatever part it left out.
    for evidence in [
        "42 passed, 0 failed; 2 ignored (slow benches not run)",
        "Ran 12 tests in 0.341s OK (e2e suite not run: no browser)",
    ] {
        let mut f = full_plan(&["completed", "pending"]);
        f.edit_state(|s| s["tasks"][0]["gates"][0]["evidence"] = json!(evidence));
        let (_t, p) = read(&f);
        assert!(p.findings.is_empty(), "{evidence}: {:#?}", p.findings);
    }
}

#[test]
fn evidence_invalidated_by_refine_and_missing_evidence() {
    let mut f = full_plan(&["completed", "pending"]);
    f.edit_state(|s| {
        s["tasks"][0]["gates"][0]["evidence"] = json!("invalidated by refine: criteria changed")
    });
    let (_t, p) = read(&f);
    assert_eq!(codes(&p), vec!["dwp.gate-invalidated"]);

    f.edit_state(|s| s["tasks"][0]["gates"] = json!([]));
    let (_t, p) = read(&f);
    assert_eq!(codes(&p), vec!["dwp.completed-without-evidence"]);

    f.edit_state(|s| {
        s["tasks"][0]["gates"] = json!([{"command": "t", "passes": "yes", "evidence": "ok"}])
    });
    let (_t, p) = read(&f);
    assert_eq!(
        codes(&p),
        vec!["dwp.gate-malformed", "dwp.completed-without-evidence"]
    );
    assert_eq!(p.problems.len(), 1, "the wrong type is a problem too");
    assert_eq!(p.detail.tasks[0].gates.len(), 1, "the gate is still shown");
}

#[test]
fn an_interrupted_finalization() {
    let mut f = full_plan(&["completed", "in_progress"]);
    let state = f.get(STATE);
    let sha = store::sha256_hex(state.as_bytes());
    f.set(
        FINALIZING,
        json!({"candidate_sha256": "00", "artifacts_sha256": "11"}).to_string(),
    );
    let (tmp, p) = read(&f);
    assert_eq!(codes(&p), vec!["dwp.finalization-interrupted"]);
    let msg = &finding(&p, "dwp.finalization-interrupted").message;
    assert!(msg.contains("not the candidate"), "{msg}");
    assert!(
        msg.contains("no analysis_results/FINALIZATION.json receipt"),
        "{msg}"
    );
    assert_eq!(p.inbox.len(), 1);
    assert_eq!(p.inbox[0].kind, InboxKind::Finalization);
    assert_eq!(
        p.inbox[0].since,
        store::mtime(&plan_dir(&tmp).join(FINALIZING)),
        "a marker without started_at dates from its mtime"
    );
    assert!(p.statusline.ends_with("finalization interrupted"));

    f.set(
        FINALIZING,
        json!({"state_sha256": sha, "started_at": "2026-05-31T10:00:00Z"}).to_string(),
    );
    f.set("analysis_results/FINALIZATION.json", "{}");
    let (_t, p) = read(&f);
    let msg = &finding(&p, "dwp.finalization-interrupted").message;
    assert!(
        msg.contains("unchanged since the finalizer started"),
        "{msg}"
    );
    assert!(!msg.contains("receipt"), "{msg}");
    assert_eq!(
        p.inbox[0].since.unwrap().to_rfc3339(),
        "2026-05-31T10:00:00+00:00"
    );
    // Any bytes at all: the marker's presence is what counts.
    f.set(FINALIZING, "\u{0}garbage");
    let (_t, p) = read(&f);
    assert_eq!(codes(&p), vec!["dwp.finalization-interrupted"]);
    assert!(p.problems.is_empty());
}

#[test]
fn counts_and_the_plan_status_line() {
    let mut f = full_plan(&["completed", "pending", "pending"]);
    f.edit_state(|s| {
        s["completed_count"] = json!(2);
        s["task_count"] = json!(4);
    });
    let readme = format!("Plan Status: 2/3 completed\n\n{}", f.get(README));
    f.set(README, readme);
    let (_t, p) = read(&f);
    assert_eq!(
        codes(&p),
        vec![
            "dwp.task-count",
            "dwp.completed-count",
            "dwp.plan-status-count"
        ]
    );
    assert!(
        finding(&p, "dwp.plan-status-count")
            .message
            .contains("tick 1 of the plan's 3 tasks")
    );
    let readme = format!("Plan Status: 1/3 completed\n\n{}", f.get(README));
    f.set(README, readme);
    f.edit_state(|s| {
        s["completed_count"] = json!(1);
        s["task_count"] = json!(3);
        s["tasks"][2]["id"] = json!(2);
    });
    let (_t, p) = read(&f);
    assert!(
        codes(&p).contains(&"dwp.duplicate-task-id"),
        "{:#?}",
        p.findings
    );
}

#[test]
fn task_files_and_readme_links_of_a_full_plan() {
    let mut f = full_plan(&["completed", "pending", "pending"]);
    f.remove("2.task_t2.md");
    let readme = f.get(README).replace(
        "[3.task_final_review.md](./3.task_final_review.md)",
        "3.task_final_review.md",
    );
    f.set(README, readme);
    f.edit_state(|s| s["tasks"][0]["locator"]["value"] = json!("../../../secret.md"));
    let (_t, p) = read(&f);
    assert_eq!(
        codes(&p),
        vec![
            "dwp.task-file-outside",
            "dwp.task-file-missing",
            "dwp.readme-task-link-missing",
        ]
    );
    assert_eq!(
        finding(&p, "dwp.task-file-missing").reference.as_deref(),
        Some("task 2")
    );
}

#[test]
fn a_completed_task_whose_log_still_says_pending() {
    let mut f = full_plan(&["completed", "pending"]);
    f.set(
        "1.task_t1.md",
        format!("{}\n## Completion & Log\n\nStatus: pending\n", task_body(1)),
    );
    let (_t, p) = read(&f);
    assert_eq!(codes(&p), vec!["dwp.task-log-pending"]);
}

#[test]
fn blockers_and_status_coherence() {
    let mut f = full_plan(&["completed", "blocked", "pending"]);
    f.edit_state(|s| {
        s["blocked"] = json!({"task": 2, "reason": "sandbox key rejected", "since": "2026-05-31T09:45:00Z", "needs": "a valid key"});
        s["checkpoint"] = json!({"task": 2, "step": "instructions:3", "at": "2026-05-31T09:45:00Z", "note": "client written"});
    });
    let (_t, p) = read(&f);
    assert!(p.findings.is_empty(), "{:#?}", p.findings);
    assert_eq!(p.status, "blocked");
    assert_eq!(p.inbox.len(), 1);
    let item = &p.inbox[0];
    assert_eq!(item.kind, InboxKind::Blocked);
    assert_eq!(item.reference, "task 2");
    assert_eq!(item.title, "sandbox key rejected — needs: a valid key");
    assert_eq!(
        item.since.unwrap().to_rfc3339(),
        "2026-05-31T09:45:00+00:00"
    );
    assert_eq!(
        p.blockers,
        vec!["task 2: sandbox key rejected (needs: a valid key)"]
    );
    assert_eq!(
        p.resume.stopped_at.as_ref().map(|s| s.en()).as_deref(),
        Some("task 2 (T2), step instructions:3")
    );
    assert_eq!(
        p.resume.reason.as_ref().map(|s| s.en()).as_deref(),
        Some("sandbox key rejected")
    );
    assert_eq!(
        p.resume.waiting_for.as_ref().map(|s| s.en()).as_deref(),
        Some("a valid key")
    );
    assert_eq!(
        p.statusline,
        "PLAN_test_plan · 1/3 tasks · blocked on task 2"
    );
    let cp = p.detail.checkpoint.as_ref().unwrap();
    assert_eq!(
        (cp.task.as_deref(), cp.step.as_deref()),
        (Some("2"), Some("instructions:3"))
    );

    // The blocker names a task that is not blocked; the status lies.
    f.edit_state(|s| {
        s["tasks"][1]["status"] = json!("in_progress");
        s["status"] = json!("in_progress");
    });
    let (_t, p) = read(&f);
    assert_eq!(
        codes(&p),
        vec!["dwp.blocker-task-not-blocked", "dwp.status-incoherent"]
    );
    assert!(
        finding(&p, "dwp.blocker-task-not-blocked")
            .message
            .contains("task 2, which is in_progress")
    );
    assert_eq!(p.status, "blocked", "an active blocker always shows");

    // A blocked task without a blocker record still reaches the inbox.
    f.edit_state(|s| {
        s["tasks"][1]["status"] = json!("blocked");
        s["status"] = json!("blocked");
        s["blocked"] = Value::Null;
    });
    let (_t, p) = read(&f);
    assert_eq!(codes(&p), vec!["dwp.blocked-without-blocker"]);
    assert_eq!(p.inbox[0].kind, InboxKind::Blocked);
}

#[test]
fn approval_falls_back_to_the_readme_then_pending() {
    let mut f = full_plan(&["pending", "pending"]);
    f.edit_state(|s| {
        s.as_object_mut().unwrap().remove("approval");
    });
    let (_t, p) = read(&f);
    assert!(p.inbox.is_empty(), "the README says approved");

    let readme = f
        .get(README)
        .replace("Approval: approved", "**Approval:** pending");
    f.set(README, readme);
    let (_t, p) = read(&f);
    assert_eq!(codes(&p), vec!["dwp.approval-pending"]);
    assert_eq!(finding(&p, "dwp.approval-pending").level, Level::Warning);
    assert_eq!(p.inbox.len(), 1);
    assert_eq!(p.inbox[0].kind, InboxKind::Approval);
    assert_eq!(
        p.inbox[0].since.unwrap().to_rfc3339(),
        "2026-05-26T08:00:00+00:00",
        "pending since the plan was created"
    );
    assert!(p.statusline.ends_with("awaiting approval"));

    let readme = f.get(README).replace("**Approval:** pending\n", "");
    f.set(README, readme);
    let (_t, p) = read(&f);
    assert_eq!(codes(&p), vec!["dwp.approval-pending"], "neither: pending");

    // The state's value wins over the README.
    f.edit_state(|s| s["approval"] = json!("pre_approved"));
    let (_t, p) = read(&f);
    assert!(p.findings.is_empty(), "{:#?}", p.findings);
    f.edit_state(|s| s["approval"] = json!("maybe"));
    let (_t, p) = read(&f);
    assert_eq!(codes(&p), vec!["dwp.approval-unknown"]);
}

#[test]
fn materialization_and_promotion() {
    let mut f = full_plan(&["pending", "pending"]);
    f.edit_state(|s| s["materialization"] = json!("materializing"));
    let (_t, p) = read(&f);
    assert_eq!(codes(&p), vec!["dwp.not-materialized"]);
    f.edit_state(|s| {
        s["materialization"] = json!("promoting");
        s["promotion"] = json!({"target": "full"});
    });
    let (_t, p) = read(&f);
    assert_eq!(codes(&p), vec!["dwp.promotion-unresolved"]);
}

#[test]
fn a_lite_plan_keeps_its_tasks_in_the_readme() {
    let mut f = full_plan(&["completed", "pending"]);
    f.remove("1.task_t1.md").remove("2.task_final_review.md");
    f.edit_manifest(|m| m["plan_format"] = json!("lite"));
    f.edit_state(|s| {
        s["format"] = json!("lite");
        for (i, t) in s["tasks"].as_array_mut().unwrap().iter_mut().enumerate() {
            t["locator"] = json!({"kind": "inline", "value": format!("#task-{}", i + 1)});
        }
    });
    f.set(
        README,
        "# Plan: Lite\n\nApproval: approved\n\n## Goal\n\ng\n\n## Context\n\nc\n\nPlan Status: 1/2 completed\n\n## Task 1: T1 {#task-1}\n\n**Goal:** g\n**Touched Surface:** s\n**Acceptance Criteria:** a\n**Validation:** v\n\n### Completion & Log\n\nStatus: pending\n\n## Task 2: Final Review\n\n## Task List\n\n- [x] Task 1: T1\n- [ ] Task 2: Final Review\n",
    );
    let (_t, p) = read(&f);
    // Task 2's heading lacks its anchor: no unique Final Review either.
    assert_eq!(
        codes(&p),
        vec![
            "dwp.task-log-pending",
            "dwp.lite-anchor-missing",
            "dwp.final-task-shape"
        ]
    );
    assert_eq!(
        finding(&p, "dwp.lite-anchor-missing").reference.as_deref(),
        Some("task 2")
    );
    assert_eq!(p.resume.read_first, vec!["README.md", "PROGRESS.md"]);
}

#[test]
fn wrong_types_never_lose_the_plan() {
    let mut f = full_plan(&["completed", "pending"]);
    f.edit_state(|s| {
        s["updated_at"] = json!(20260531);
        s["completed_count"] = json!("one");
        s["tasks"][0]["title"] = json!(["not", "a", "title"]);
        s["tasks"][1]["gates"] = json!("none");
        s["checkpoint"] = json!({"task": true, "step": 4, "note": "n"});
    });
    let (_t, p) = read(&f);
    assert_eq!(p.detail.tasks.len(), 2);
    assert_eq!(p.detail.tasks[0].title, "");
    assert_eq!(p.detail.tasks[0].status, "completed");
    assert_eq!(
        p.detail.checkpoint.as_ref().unwrap().step.as_deref(),
        Some("4")
    );
    let reasons: Vec<&str> = p.problems.iter().map(|x| x.reason.as_str()).collect();
    assert_eq!(p.problems.len(), 5, "{reasons:?}");
    assert!(p.problems.iter().all(|x| x.file == STATE));
    for field in [
        "`updated_at`",
        "`completed_count`",
        "`tasks[0].title`",
        "`tasks[1].gates`",
        "`checkpoint.task`",
    ] {
        assert!(
            reasons.iter().any(|r| r.contains(field)),
            "{field}: {reasons:?}"
        );
    }
    // The next source of the last update takes over.
    assert_eq!(
        p.updated_at.unwrap().to_rfc3339(),
        "2026-05-26T08:00:00+00:00"
    );
}

#[test]
fn truncated_json_is_a_problem_and_the_readme_still_speaks() {
    let mut f = full_plan(&["completed", "pending"]);
    f.set(
        STATE,
        r#"{"schema": "https://deepworkplan.com/schema/plan-state/v2.json", "tasks": [{"id": 1"#,
    );
    f.set(MANIFEST, "[]");
    let (_t, p) = read(&f);
    assert_eq!(p.problems.len(), 2, "{:?}", p.problems);
    let state = p.problems.iter().find(|x| x.file == STATE).unwrap();
    assert!(
        state.reason.starts_with("truncated JSON"),
        "{}",
        state.reason
    );
    let manifest = p.problems.iter().find(|x| x.file == MANIFEST).unwrap();
    assert_eq!(manifest.reason, "expected a JSON object");
    // The Markdown is the source of truth: its checkboxes give the tasks.
    let t = &p.detail.tasks;
    assert_eq!(t.len(), 2);
    assert_eq!(
        (t[0].status.as_str(), t[0].md_checked),
        ("completed", Some(true))
    );
    assert_eq!(t[1].title, "T2");
    assert_eq!(t[1].locator.as_deref(), Some("2.task_final_review.md"));
    assert_eq!(p.status, "executing");
    assert_eq!(p.progress_percent, Some(50));
    assert_eq!(p.name, PLAN);
    assert!(p.updated_at.is_some(), "the file's mtime");
}

#[test]
fn a_completed_plan() {
    let (_t, p) = read(&full_plan(&["completed", "completed"]));
    assert!(p.findings.is_empty(), "{:#?}", p.findings);
    assert_eq!(p.status, "completed");
    assert_eq!(p.progress_percent, Some(100));
    assert_eq!(
        p.stage.as_ref().map(|s| s.en()).as_deref(),
        Some("2/2 tasks done")
    );
    assert_eq!(p.statusline, "PLAN_test_plan · 2/2 tasks · completed");
}

#[test]
fn a_stale_lock_is_reported_never_removed() {
    let f = full_plan(&["completed", "pending"]);
    let (tmp, _) = read(&f);
    let lock = plan_dir(&tmp).join(LOCK);
    fs::create_dir(&lock).unwrap();
    let p = load(&plan_dir(&tmp)).unwrap();
    assert!(p.findings.is_empty(), "a fresh lock is a write in progress");
    let old: std::time::SystemTime = chrono::DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
        .unwrap()
        .into();
    fs::File::open(&lock).unwrap().set_modified(old).unwrap();
    let p = load(&plan_dir(&tmp)).unwrap();
    assert_eq!(codes(&p), vec!["dwp.stale-lock"]);
    let f = finding(&p, "dwp.stale-lock");
    assert_eq!(f.level, Level::Warning);
    assert!(
        f.message.contains("since 2026-01-01T00:00:00Z"),
        "{}",
        f.message
    );
    assert!(lock.is_dir(), "never removed");
}

/// A Lite plan's README (the real-world fixture) holds its tasks' records
/// inline, each with its own `### Goal` and `### Context`: what was meant
/// is the plan's `## Goal` and `## Context`, not the tasks' Goals crowding
/// them out. A section is known by its whole title (numbered or not), so
/// a `## Non-goals` is not the Goal.
#[test]
fn what_you_meant_then_is_the_plans_goal_and_context_not_its_tasks() {
    let readme = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../../tests/fixtures/dwp-real-world/skill_tests_fixtures_lite-plan/PLAN_lite_fixture/README.md",
    );
    let text = fs::read_to_string(readme).unwrap();
    assert_eq!(
        meant(README, &text).unwrap(),
        vec![
            "## Goal",
            "Keep the fixture contract valid.",
            "## Context",
            "Fixture-only plan under the skill repo's tests; no product surface."
        ]
    );
    let text = "# Plan: x\n\n## 1. Non-goals\n\nNo UI.\n\n## 2) Context\n\nThe API.\n\n## 3. Goal\n\nShip it.\n\n### Goal notes\n\nsoon\n\n## 4. Task List\n";
    assert_eq!(
        meant(README, text).unwrap(),
        vec![
            "## 3. Goal",
            "Ship it.",
            "### Goal notes",
            "soon",
            "## 2) Context",
            "The API."
        ]
    );
}
