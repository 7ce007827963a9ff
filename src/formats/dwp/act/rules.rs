//! The protected updater's rules, on a parsed `state.json`: the shape a
//! state must have before and after a decision ("invalid input: …",
//! "invalid candidate: …", naming every problem), the derived plan status,
//! and the gate evidence a completion needs. Every value is untrusted.

use serde_json::{Map, Value};

pub const TASK_STATUSES: [&str; 5] = ["pending", "in_progress", "completed", "blocked", "skipped"];
pub const PLAN_STATUSES: [&str; 4] = ["pending", "in_progress", "completed", "blocked"];

/// Closed-schema budgets the updater enforces on write (update-state.py
/// `LIMITS` and the plan-state v2/v5 schema's `maxLength`s).
pub const GATE_EVIDENCE_MAX: usize = 500;
pub const CHECKPOINT_NOTE_MAX: usize = 500;
pub const BLOCK_REASON_MAX: usize = 1000;
pub const BLOCK_NEEDS_MAX: usize = 500;

/// The schema era of a state: v1 names a task's file in `file`, v2 and v5
/// in `locator`. A decision never changes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    V1,
    Locator,
}

impl Era {
    pub fn of(state: &Value) -> Era {
        match state.get("schema").and_then(Value::as_str) {
            Some(s) if s.ends_with("/v1.json") => Era::V1,
            _ => Era::Locator,
        }
    }
}

/// Every problem of `state`, empty when it is coherent.
pub fn state_errors(state: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    let Some(root) = state.as_object() else {
        return vec!["state is not a JSON object".to_owned()];
    };
    let era = Era::of(state);
    let mut required = vec![
        "schema",
        "plan",
        "updated_at",
        "status",
        "completed_count",
        "task_count",
        "tasks",
    ];
    if era == Era::Locator {
        required.extend(["format", "materialization"]);
    }
    for key in required {
        if !root.contains_key(key) {
            errors.push(format!("missing {key}"));
        }
    }
    if let Some(s) = root.get("status")
        && !s.as_str().is_some_and(|s| PLAN_STATUSES.contains(&s))
    {
        errors.push(format!("invalid plan status {s}"));
    }
    let tasks = match root.get("tasks") {
        Some(Value::Array(t)) if !t.is_empty() => t.as_slice(),
        Some(_) => {
            errors.push("tasks must be a non-empty array".to_owned());
            &[]
        }
        None => &[],
    };
    let mut ids: Vec<u64> = Vec::new();
    for (i, t) in tasks.iter().enumerate() {
        task_errors(&mut errors, &mut ids, era, i, t);
    }
    let count = |key: &str| root.get(key).map(Value::as_u64);
    match count("task_count") {
        Some(Some(n)) if n as usize == tasks.len() => {}
        Some(Some(n)) => errors.push(format!("task_count is {n} but tasks holds {}", tasks.len())),
        Some(None) => errors.push("task_count is not a whole number".to_owned()),
        None => {}
    }
    let completed = tasks
        .iter()
        .filter(|t| status(t) == Some("completed"))
        .count();
    match count("completed_count") {
        Some(Some(n)) if n as usize == completed => {}
        Some(Some(n)) => errors.push(format!(
            "completed_count is {n} but {completed} tasks are completed"
        )),
        Some(None) => errors.push("completed_count is not a whole number".to_owned()),
        None => {}
    }
    match root.get("blocked") {
        None | Some(Value::Null) => {}
        Some(Value::Object(b)) => blocker_errors(&mut errors, b, tasks),
        Some(_) => errors.push("blocked must be null or an object".to_owned()),
    }
    errors
}

fn task_errors(errors: &mut Vec<String>, ids: &mut Vec<u64>, era: Era, i: usize, t: &Value) {
    let at = format!("tasks[{i}]");
    let Some(obj) = t.as_object() else {
        errors.push(format!("{at} is not an object"));
        return;
    };
    match obj.get("id").and_then(Value::as_u64) {
        Some(id) if id >= 1 => {
            if ids.contains(&id) {
                errors.push(format!("task id {id} appears twice"));
            }
            ids.push(id);
        }
        _ => errors.push(format!("{at}.id is not a positive integer")),
    }
    if !obj.get("title").is_some_and(Value::is_string) {
        errors.push(format!("{at}.title is missing"));
    }
    if !obj
        .get("status")
        .and_then(Value::as_str)
        .is_some_and(|s| TASK_STATUSES.contains(&s))
    {
        errors.push(format!(
            "{at}.status is not one of {}",
            TASK_STATUSES.join(", ")
        ));
    }
    match era {
        Era::V1 => {
            if !obj.get("file").is_some_and(Value::is_string) {
                errors.push(format!("{at}.file is missing (schema v1)"));
            }
            if obj.contains_key("locator") {
                errors.push(format!("{at}.locator is not a v1 field"));
            }
        }
        Era::Locator => {
            let loc = obj.get("locator").and_then(Value::as_object);
            if !loc.is_some_and(|l| {
                l.get("kind").is_some_and(Value::is_string)
                    && l.get("value").is_some_and(Value::is_string)
            }) {
                errors.push(format!("{at}.locator {{kind, value}} is missing"));
            }
            if !obj.get("gates").is_some_and(Value::is_array) {
                errors.push(format!("{at}.gates is missing"));
            }
        }
    }
    if let Some(g) = obj.get("gates")
        && !g.is_array()
    {
        errors.push(format!("{at}.gates is not an array"));
    }
}

fn blocker_errors(errors: &mut Vec<String>, b: &Map<String, Value>, tasks: &[Value]) {
    let reason = b.get("reason").and_then(Value::as_str).unwrap_or("");
    if reason.trim().is_empty() {
        errors.push("blocked.reason is missing".to_owned());
    }
    if !b.get("since").is_some_and(Value::is_string) {
        errors.push("blocked.since is missing".to_owned());
    }
    match b.get("task").and_then(Value::as_u64) {
        Some(id) => match tasks.iter().find(|t| task_id(t) == Some(id)) {
            Some(t) if status(t) == Some("blocked") => {}
            Some(t) => errors.push(format!(
                "blocked names task {id}, whose status is {}",
                status(t).unwrap_or("missing")
            )),
            None => errors.push(format!("blocked names task {id}, which is not in tasks")),
        },
        None => errors.push("blocked.task is not a task id".to_owned()),
    }
}

pub fn task_id(t: &Value) -> Option<u64> {
    t.get("id").and_then(Value::as_u64)
}

pub fn status(t: &Value) -> Option<&str> {
    t.get("status").and_then(Value::as_str)
}

/// The plan status the updater derives: blocked while a blocker is
/// recorded; completed only when every task is (skipped work never makes a
/// plan completed); in progress once any task has started; else pending.
pub fn derive_status(state: &Value) -> &'static str {
    if state.get("blocked").is_some_and(|b| !b.is_null()) {
        return "blocked";
    }
    let tasks = state.get("tasks").and_then(Value::as_array);
    let all = tasks.map(Vec::as_slice).unwrap_or_default();
    if !all.is_empty() && all.iter().all(|t| status(t) == Some("completed")) {
        return "completed";
    }
    if all
        .iter()
        .any(|t| matches!(status(t), Some("in_progress" | "completed" | "blocked")))
    {
        return "in_progress";
    }
    "pending"
}

/// Does the task carry what a completion needs: for every command, its
/// latest gate record passed with exit code 0, a command and evidence?
pub fn has_passing_evidence(task: &Value) -> bool {
    let gates = task.get("gates").and_then(Value::as_array);
    let mut latest: Vec<(&str, &Value)> = Vec::new();
    for g in gates.map(Vec::as_slice).unwrap_or_default() {
        let cmd = g.get("command").and_then(Value::as_str).unwrap_or("");
        match latest.iter_mut().find(|(c, _)| *c == cmd) {
            Some(slot) => slot.1 = g,
            None => latest.push((cmd, g)),
        }
    }
    !latest.is_empty()
        && latest.iter().all(|(cmd, g)| {
            !cmd.trim().is_empty()
                && g.get("evidence")
                    .and_then(Value::as_str)
                    .is_some_and(|e| !e.trim().is_empty())
                && g.get("passes") == Some(&Value::Bool(true))
                && g.get("exit_code").and_then(Value::as_i64) == Some(0)
        })
}

/// Recount `completed_count` and re-derive `status`, as the updater does
/// after every change.
pub fn recount(state: &mut Value) {
    let completed = state.get("tasks").and_then(Value::as_array).map_or(0, |t| {
        t.iter().filter(|t| status(t) == Some("completed")).count()
    });
    let derived = derive_status(state);
    if let Some(root) = state.as_object_mut() {
        root.insert("completed_count".to_owned(), Value::from(completed as u64));
        root.insert("status".to_owned(), Value::from(derived));
    }
}

/// Cut `s` to at most `max` characters.
pub fn clip(s: &str, max: usize) -> String {
    s.chars().take(max).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn v1() -> Value {
        json!({"schema": "https://deepworkplan.com/schema/plan-state/v1.json", "plan": "PLAN_x_y",
            "updated_at": "2026-01-01T00:00:00Z", "status": "in_progress", "completed_count": 1,
            "task_count": 2, "tasks": [
                {"id": 1, "file": "1.task_a.md", "title": "A", "status": "completed",
                 "gates": [{"command": "t", "passes": true, "exit_code": 0, "last_run": "x", "evidence": "1 passed"}]},
                {"id": 2, "file": "2.task_b.md", "title": "B", "status": "pending"}]})
    }

    #[test]
    fn a_coherent_state_has_no_errors() {
        assert_eq!(state_errors(&v1()), Vec::<String>::new());
        assert_eq!(Era::of(&v1()), Era::V1);
    }

    #[test]
    fn every_problem_is_named() {
        let mut s = v1();
        s["completed_count"] = json!(2);
        s["task_count"] = json!(3);
        s["tasks"][1]["status"] = json!("done");
        s["tasks"][0]["locator"] = json!({"kind": "file", "value": "1.task_a.md"});
        s["blocked"] = json!({"task": 2, "reason": "", "since": "x"});
        let e = state_errors(&s);
        assert_eq!(e.len(), 6, "{e:?}");
        assert!(e.iter().any(|m| m.contains("task_count is 3")));
        assert!(e.iter().any(|m| m.contains("completed_count is 2")));
        assert!(e.iter().any(|m| m.contains("tasks[1].status")));
        assert!(e.iter().any(|m| m.contains("locator is not a v1 field")));
        assert!(e.iter().any(|m| m.contains("blocked.reason")));
        assert!(e.iter().any(|m| m.contains("blocked names task 2")));
    }

    #[test]
    fn derived_status_and_evidence() {
        let mut s = v1();
        assert_eq!(derive_status(&s), "in_progress");
        s["tasks"][1]["status"] = json!("completed");
        assert_eq!(derive_status(&s), "completed");
        s["tasks"][1]["status"] = json!("skipped");
        assert_eq!(derive_status(&s), "in_progress");
        s["blocked"] = json!({"task": 2});
        assert_eq!(derive_status(&s), "blocked");
        assert!(has_passing_evidence(&s["tasks"][0]));
        assert!(!has_passing_evidence(&s["tasks"][1]));
        // The latest run of a command wins: a later failure undoes the pass.
        let mut t = s["tasks"][0].clone();
        if let Some(g) = t["gates"].as_array_mut() {
            g.push(
                json!({"command": "t", "passes": false, "exit_code": 1, "evidence": "1 failed"}),
            );
        }
        assert!(!has_passing_evidence(&t));
        t["gates"] = json!([{"command": "t", "passes": true, "exit_code": 0, "evidence": " "}]);
        assert!(!has_passing_evidence(&t));
    }
}
