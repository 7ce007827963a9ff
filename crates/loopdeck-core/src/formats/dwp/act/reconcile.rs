//! `reconcile`: Markdown wins (seed 002 §投影与协调). Task statuses come
//! from the README's checkboxes; the reconciliation is recorded in
//! PROGRESS.md. A checked box never makes a task completed without passing
//! gate evidence, and an active blocker is resolved explicitly first.

use serde_json::Value;

use super::verbs::{finish, progress_note, transition};
use super::{Ctx, README, ready_and_approved, refuse, rules};
use crate::formats::dwp::markdown::Readme;
use crate::store::txn::ActError;

pub(super) fn reconcile(c: &mut Ctx<'_>) -> Result<(), ActError> {
    ready_and_approved(&c.value)?;
    let Some(bytes) = c.read(README)? else {
        return Err(refuse(
            "no README.md: there is no Markdown to reconcile state.json from",
        ));
    };
    let readme = Readme::parse(&String::from_utf8_lossy(bytes));
    let tasks = c.value["tasks"].as_array().cloned().unwrap_or_default();
    // (index, id, from, to, checked)
    let mut changes: Vec<(usize, u64, String, &'static str)> = Vec::new();
    for (i, t) in tasks.iter().enumerate() {
        let Some(id) = rules::task_id(t) else {
            continue;
        };
        let Some(cb) = readme.checkboxes.iter().find(|b| b.task == id) else {
            continue;
        };
        let status = rules::status(t).unwrap_or("");
        let done = status == "completed";
        if cb.checked && !done && status != "skipped" {
            changes.push((i, id, status.to_owned(), "completed"));
        } else if !cb.checked && done {
            changes.push((i, id, status.to_owned(), "in_progress"));
        }
    }
    if changes.is_empty() {
        return Err(refuse(
            "nothing to reconcile: the README's checkboxes and state.json agree",
        ));
    }
    let blocked = c.value.get("blocked").filter(|b| !b.is_null());
    let blocked_task = blocked.and_then(|b| b.get("task")).and_then(Value::as_u64);
    if blocked.is_some()
        && changes
            .iter()
            .any(|(_, id, _, _)| Some(*id) == blocked_task)
    {
        return Err(refuse("resolve the active blocker explicitly first"));
    }
    let unproven: Vec<String> = changes
        .iter()
        .filter(|(i, _, _, to)| *to == "completed" && !rules::has_passing_evidence(&tasks[*i]))
        .map(|(_, id, _, _)| format!("task {id}"))
        .collect();
    if !unproven.is_empty() {
        return Err(refuse(format!(
            "completion requires successful gates with command, exit code and evidence: the README checks {} but state.json holds no passing gate for it",
            unproven.join(", ")
        )));
    }
    let mut lines = Vec::new();
    for (i, id, from, to) in &changes {
        transition(c, *i, to);
        lines.push(format!(
            "Task {id}: state.json {from} → {to} (README box {})",
            if *to == "completed" {
                "checked"
            } else {
                "unchecked"
            }
        ));
    }
    let first = changes.iter().map(|(_, id, _, _)| *id).min().unwrap_or(1);
    let note = format!(
        "Reconciled from the README by {}: {} task(s) changed.",
        c.by,
        changes.len()
    );
    finish(c, first, "reconcile", &note);
    lines.push(format!(
        "state.json regenerated from the README's checkboxes (Markdown wins); plan {}, {}/{} completed",
        c.value["status"].as_str().unwrap_or(""),
        c.value["completed_count"],
        c.value["task_count"]
    ));
    progress_note(c, "Reconciliation", &lines)
}
