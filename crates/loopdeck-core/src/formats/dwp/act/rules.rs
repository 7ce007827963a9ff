//! The protected updater's rules, on a parsed `state.json`: the shape a
//! state must have before and after a decision ("invalid input: …",
//! "invalid candidate: …", naming every problem), the derived plan status,
//! and the gate evidence a completion needs. Every value is untrusted.

use serde_json::Value;

/// The schema era of a state: v1 names a task's file in `file`, v2 and v5
/// in `locator`. A decision never changes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Era {
    V1,
    Locator,
}

impl Era {
    pub(super) fn of(state: &Value) -> Era {
        match state.get("schema").and_then(Value::as_str) {
            Some(s) if s.ends_with("/v1.json") => Era::V1,
            _ => Era::Locator,
        }
    }
}

/// Every problem of `state` under the updater's state contract
/// (`state_contract.state_errors`), empty when it holds: what the updater
/// refuses as "invalid input".
pub(super) fn state_errors(state: &Value) -> Vec<String> {
    super::contract::state_errors(state, false)
}

/// The input a decision of `scope` is refused on ("invalid input").
pub(super) fn input_errors(state: &Value, scope: super::Scope) -> Vec<String> {
    match scope {
        super::Scope::Full => state_errors(state),
        super::Scope::Shape => super::contract::shape_errors(state),
    }
}

/// [`input_errors`] of `Scope::Full` for a state whose shape holds
/// (`input_errors` of `Scope::Shape` is empty): not checked again.
pub(super) fn input_errors_past_shape(state: &Value) -> Vec<String> {
    super::contract::errors_past_shape(state, false)
}

/// What the updater demands of its own candidate ("invalid candidate"):
/// the contract, strictly (the shape alone for a [`super::Scope::Shape`]
/// decision).
pub(super) fn candidate_errors(state: &Value, scope: super::Scope) -> Vec<String> {
    match scope {
        super::Scope::Full => super::contract::state_errors(state, true),
        super::Scope::Shape => super::contract::shape_errors(state),
    }
}

pub(super) fn task_id(t: &Value) -> Option<u64> {
    t.get("id").and_then(Value::as_u64)
}

pub(super) fn status(t: &Value) -> Option<&str> {
    t.get("status").and_then(Value::as_str)
}

/// The plan status the updater derives (`state_contract.derive_status`).
pub(super) fn derive_status(state: &Value) -> &'static str {
    super::contract::derive_status(state)
}

/// Does the task carry what a completion needs: for every command, its
/// latest gate record passed with exit code 0, a command and evidence?
pub(super) fn has_passing_evidence(task: &Value) -> bool {
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
                && !g
                    .get("evidence")
                    .and_then(Value::as_str)
                    .is_some_and(|e| e.trim().to_lowercase().starts_with("invalidated by refine"))
        })
}

/// Recount `completed_count` and re-derive `status`, as the updater does
/// after every change.
pub(super) fn recount(state: &mut Value) {
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
pub(super) fn clip(s: &str, max: usize) -> String {
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
                 "completed_at": "2026-01-01T00:00:00Z", "gates": [{"command": "t", "passes": true, "exit_code": 0, "last_run": "x", "evidence": "1 passed"}]},
                {"id": 2, "file": "2.task_b.md", "title": "B", "status": "pending"}]})
    }

    #[test]
    fn a_coherent_state_has_no_errors() {
        assert_eq!(state_errors(&v1()), Vec::<String>::new());
        assert_eq!(Era::of(&v1()), Era::V1);
    }

    /// The closed shape first (each problem named with its path), then,
    /// on a well-shaped state, the coherence rules.
    #[test]
    fn every_problem_is_named() {
        let mut s = v1();
        s["tasks"][1]["status"] = json!("done");
        s["tasks"][0]["locator"] = json!({"kind": "file", "value": "1.task_a.md"});
        assert_eq!(
            state_errors(&s),
            vec![
                "$.tasks[0]: unexpected field locator",
                "$.tasks[1].status: unknown value 'done'"
            ]
        );
        let mut s = v1();
        s["completed_count"] = json!(2);
        s["task_count"] = json!(3);
        s["blocked"] = json!({"task": 2, "reason": "", "since": "x"});
        assert_eq!(
            state_errors(&s),
            vec![
                "task identity/count mismatch",
                "completed_count mismatch",
                "active blocker does not identify a blocked task",
                "plan status disagrees with task/blocker state",
            ]
        );
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
