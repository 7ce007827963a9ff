//! The plan's conformance findings, with the meaning DWP's own checker
//! (`verify/plan_contract.py`) gives them: README ↔ state reconciliation
//! (Markdown wins), counts, task files and links, Lite anchors, blocker and
//! status coherence, materialization, approval, schema and spec versions,
//! and gate evidence. Every code is prefixed `dwp.`.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};

use super::evidence::{admits_never_ran, fails, invalidated, latest_per_command};
use super::markdown::{Readme, log_says_pending};
use super::schema::{Scalar, TaskEntry, schema_version};
use super::{Plan, README, STATE, norm, task_num};
use crate::formats::file_name;
use crate::model::{Finding, Level, Phrase, Task};
use crate::phrase;

/// Schema versions loopdeck reads (v5 is a snapshot of the v2 shape).
const KNOWN_SCHEMAS: [u32; 3] = [1, 2, 5];
/// The newest DWP spec series loopdeck knows.
const KNOWN_SPEC_MAJOR: u64 = 5;
const TASK_STATUSES: [&str; 5] = ["pending", "in_progress", "completed", "blocked", "skipped"];
const APPROVALS: [&str; 3] = ["pending", "approved", "pre_approved"];
/// How much of a task file is read to find its log's status line.
const TASK_FILE_PREFIX: usize = 256 * 1024;

fn push(findings: &mut Vec<Finding>, level: Level, code: &str, msg: String, at: String) {
    findings.push(Finding::new(level, code, msg).at(at));
}

/// Reconcile the README's checkboxes with the state's tasks: set each
/// task's `md_checked`, report every disagreement with its direction, and
/// return a short description of each for the inbox.
pub(crate) fn reconcile(
    findings: &mut Vec<Finding>,
    tasks: &mut [Task],
    readme: &Readme,
) -> Vec<Phrase> {
    let mut desync = Vec::new();
    if readme.checkboxes.is_empty() {
        if !tasks.is_empty() {
            push(
                findings,
                Level::Warning,
                "dwp.readme-no-checkboxes",
                "the README has no task checkboxes (`- [ ] Task N`), so state.json cannot be checked against the Markdown".to_owned(),
                README.to_owned(),
            );
        }
        return desync;
    }
    let mut boxes: BTreeMap<u64, bool> = BTreeMap::new();
    for b in &readme.checkboxes {
        if let Entry::Vacant(slot) = boxes.entry(b.task) {
            slot.insert(b.checked);
        } else {
            push(
                findings,
                Level::Error,
                "dwp.readme-duplicate-checkbox",
                format!(
                    "the README has more than one checkbox for task {} (again on line {}); the first counts",
                    b.task, b.line
                ),
                format!("task {}", b.task),
            );
        }
    }
    let mut known = BTreeSet::new();
    for t in tasks.iter_mut() {
        let Some(n) = task_num(&t.id) else { continue };
        known.insert(n);
        let Some(&ticked) = boxes.get(&n) else {
            push(
                findings,
                Level::Error,
                "dwp.readme-task-missing",
                format!(
                    "state.json has task {n} ({}) but the README has no checkbox for it (Markdown wins: state.json is stale)",
                    t.status
                ),
                format!("task {n}"),
            );
            desync.push(phrase!("phrase.dwp.desync_not_in_readme", task = n));
            continue;
        };
        t.md_checked = Some(ticked);
        let completed = t.status == "completed";
        if ticked && !completed {
            push(
                findings,
                Level::Error,
                "dwp.desync",
                format!(
                    "README ticks task {n} but state.json says {} (Markdown wins: state.json is stale)",
                    t.status
                ),
                format!("task {n}"),
            );
            desync.push(phrase!(
                "phrase.dwp.desync_ticked",
                task = n,
                status = &t.status
            ));
        } else if !ticked && completed {
            push(
                findings,
                Level::Error,
                "dwp.desync",
                format!(
                    "state.json says task {n} is completed but the README leaves it unticked (Markdown wins: state.json is stale)"
                ),
                format!("task {n}"),
            );
            desync.push(phrase!("phrase.dwp.desync_unticked", task = n));
        }
    }
    for n in boxes.keys().filter(|n| !known.contains(n)) {
        push(
            findings,
            Level::Error,
            "dwp.readme-unknown-task",
            format!(
                "the README has a checkbox for task {n}, which state.json does not have (Markdown wins: state.json is stale)"
            ),
            format!("task {n}"),
        );
        desync.push(phrase!("phrase.dwp.desync_only_in_readme", task = *n));
    }
    desync
}

/// The plan status its tasks and blocker imply (the checker's rule): a
/// blocker or a blocked task → blocked; every task completed → completed
/// (a skipped task never completes a plan); any task started → in_progress.
pub(crate) fn derive_status(tasks: &[Task], has_blocker: bool) -> &'static str {
    if has_blocker || tasks.iter().any(|t| t.status == "blocked") {
        "blocked"
    } else if !tasks.is_empty() && tasks.iter().all(|t| t.status == "completed") {
        "completed"
    } else if tasks.iter().any(|t| t.status != "pending") {
        "in_progress"
    } else {
        "pending"
    }
}

/// The plan's approval and where it comes from.
pub(crate) struct Approval {
    pub value: String,
    pub source: &'static str,
    pub reference: String,
}

/// `state.approval`; when absent, the README's `Approval:` line; when both
/// are absent, `pending` (seed 002).
pub(crate) fn approval(plan: &Plan<'_>) -> Approval {
    if let Some(a) = plan.state.and_then(|s| s.approval.as_deref()) {
        return Approval {
            value: norm(a),
            source: "state.json approval",
            reference: format!("{STATE}#approval"),
        };
    }
    if let Some(a) = plan.readme.and_then(|r| r.approval.clone()) {
        return Approval {
            value: a,
            source: "the README's Approval line",
            reference: README.to_owned(),
        };
    }
    Approval {
        value: "pending".to_owned(),
        source: "neither state.json nor the README records an approval",
        reference: if plan.readme.is_some() { README } else { STATE }.to_owned(),
    }
}

/// Every plan-level and task-level finding except the reconciliation.
pub(crate) fn run(findings: &mut Vec<Finding>, plan: &Plan<'_>, tasks: &[Task]) {
    versions(findings, plan);
    super::manifest::check(findings, plan);
    identity(findings, plan);
    counts(findings, plan, tasks);
    for (i, t) in tasks.iter().enumerate() {
        let entry = plan.state.and_then(|s| s.tasks.get(i));
        task_record(findings, plan, t, entry);
        if let Some(e) = entry {
            gates(findings, plan, t, e);
        }
    }
    coherence(findings, plan, tasks);
    lifecycle(findings, plan);
}

fn versions(findings: &mut Vec<Finding>, plan: &Plan<'_>) {
    let urls = [
        ("state", STATE, plan.state.and_then(|s| s.schema.as_deref())),
        (
            "manifest",
            super::MANIFEST,
            plan.manifest.and_then(|m| m.schema.as_deref()),
        ),
    ];
    for (kind, file, url) in urls {
        let Some(url) = url else { continue };
        match schema_version(url, kind) {
            Some(v) if KNOWN_SCHEMAS.contains(&v) => {}
            Some(v) if v > 5 => push(
                findings,
                Level::Warning,
                "dwp.spec-newer",
                format!(
                    "{file} declares schema v{v} ({url}), newer than loopdeck knows (v1, v2, v5); it is read as v5"
                ),
                format!("{file}#schema"),
            ),
            _ => push(
                findings,
                Level::Warning,
                "dwp.schema-unknown",
                format!("{file} declares an unknown schema ({url}); it is read as v2"),
                format!("{file}#schema"),
            ),
        }
    }
    let state_era = plan.state_era();
    let manifest_era = plan
        .manifest
        .and_then(|m| m.schema.as_deref())
        .and_then(|u| schema_version(u, "manifest"));
    let mismatch = state_era
        .zip(manifest_era)
        .filter(|(s, m)| matches!(s, 2 | 5) && s != m);
    if let Some((s, m)) = mismatch {
        push(
            findings,
            Level::Warning,
            "dwp.schema-era-mismatch",
            format!(
                "state.json is v{s} but manifest.json is v{m}: a v{s} state needs its v{s} creation manifest (a torn write or a partial migration)"
            ),
            format!("{}#schema", super::MANIFEST),
        );
    }
    // The README's Standard line wins over the manifest's spec_version.
    let declared = plan.readme.and_then(|r| r.standard.clone()).or_else(|| {
        plan.manifest
            .and_then(|m| m.spec_version.as_ref())
            .map(Scalar::text)
    });
    if let Some(spec) = declared {
        let major = spec
            .trim()
            .split('.')
            .next()
            .and_then(|m| m.parse::<u64>().ok());
        if major.is_some_and(|m| m > KNOWN_SPEC_MAJOR) {
            push(
                findings,
                Level::Warning,
                "dwp.spec-newer",
                format!(
                    "the plan declares DWP spec {spec}, newer than loopdeck knows (5.x): it is read as 5.x and may mean more than loopdeck shows"
                ),
                "spec_version".to_owned(),
            );
        }
    }
}

fn identity(findings: &mut Vec<Finding>, plan: &Plan<'_>) {
    let dir = file_name(plan.dir);
    let named = [
        (STATE, "plan", plan.state.and_then(|s| s.plan.as_deref())),
        (
            super::MANIFEST,
            "name",
            plan.manifest.and_then(|m| m.name.as_deref()),
        ),
    ];
    for (file, field, value) in named {
        if let Some(v) = value.filter(|v| *v != dir) {
            push(
                findings,
                Level::Warning,
                "dwp.plan-identity",
                format!("{file} names the plan `{v}` but its directory is `{dir}`"),
                format!("{file}#{field}"),
            );
        }
    }
}

fn counts(findings: &mut Vec<Finding>, plan: &Plan<'_>, tasks: &[Task]) {
    let completed = tasks.iter().filter(|t| t.status == "completed").count();
    if let Some(state) = plan.state {
        if let Some(n) = state.task_count.filter(|n| *n != tasks.len() as u64) {
            push(
                findings,
                Level::Error,
                "dwp.task-count",
                format!(
                    "state.json task_count is {n} but it records {} tasks",
                    tasks.len()
                ),
                format!("{STATE}#task_count"),
            );
        }
        if let Some(n) = state.completed_count.filter(|n| *n != completed as u64) {
            push(
                findings,
                Level::Error,
                "dwp.completed-count",
                format!(
                    "state.json completed_count is {n} but {completed} of its tasks are completed"
                ),
                format!("{STATE}#completed_count"),
            );
        }
    }
    let mut seen = BTreeSet::new();
    let mut reported = BTreeSet::new();
    for (i, t) in tasks.iter().enumerate() {
        let id = t.id.trim();
        if id.is_empty() {
            push(
                findings,
                Level::Warning,
                "dwp.task-id-missing",
                format!("tasks[{i}] ({}) has no id", t.title),
                format!("{STATE}#tasks[{i}]"),
            );
        } else if !seen.insert(id.to_owned()) && reported.insert(id.to_owned()) {
            push(
                findings,
                Level::Error,
                "dwp.duplicate-task-id",
                format!("more than one task has the id {id}"),
                format!("task {id}"),
            );
        }
    }
    if let Some((said_done, said_total)) = plan.readme.and_then(|r| r.plan_status) {
        let Some(readme) = plan.readme else { return };
        let ticked: BTreeSet<u64> = readme
            .checkboxes
            .iter()
            .filter(|b| b.checked)
            .map(|b| b.task)
            .collect();
        let want = (ticked.len() as u64, tasks.len() as u64);
        if (said_done, said_total) != want {
            push(
                findings,
                Level::Error,
                "dwp.plan-status-count",
                format!(
                    "the README says Plan Status: {said_done}/{said_total}, but its checkboxes tick {} of the plan's {} tasks",
                    want.0, want.1
                ),
                README.to_owned(),
            );
        }
    }
}

/// `file` or `inline`: from the v2 locator, the v1 `file`, or (a plan
/// without state) the README link.
fn locator_kind(t: &Task, entry: Option<&TaskEntry>) -> Option<String> {
    match entry {
        Some(e) => match (&e.locator, &e.file) {
            (Some(l), _) => l.kind.as_deref().map(norm),
            (None, Some(_)) => Some("file".to_owned()),
            (None, None) => None,
        },
        None => t
            .locator
            .as_deref()
            .map(|l| if l.starts_with('#') { "inline" } else { "file" }.to_owned()),
    }
}

/// A task's own record: its status word, its file or anchor, the README
/// link to it, and its log.
fn task_record(findings: &mut Vec<Finding>, plan: &Plan<'_>, t: &Task, entry: Option<&TaskEntry>) {
    let at = format!("task {}", t.id);
    if entry.is_some() && !TASK_STATUSES.contains(&t.status.as_str()) {
        push(
            findings,
            Level::Warning,
            "dwp.task-status-unknown",
            format!(
                "task {} has status `{}`, not one of pending, in_progress, completed, blocked, skipped",
                t.id, t.status
            ),
            at.clone(),
        );
    }
    let kind = locator_kind(t, entry);
    let value = t.locator.as_deref();
    let completed = t.status == "completed";
    if let (Some(format), Some(kind)) = (
        plan.state.and_then(|s| s.format.as_deref()).map(norm),
        &kind,
    ) {
        let expected = if format == "lite" { "inline" } else { "file" };
        if matches!(format.as_str(), "lite" | "full") && kind != expected {
            push(
                findings,
                Level::Warning,
                "dwp.locator-format",
                format!(
                    "task {} has a `{kind}` locator in a {format} plan (expected `{expected}`)",
                    t.id
                ),
                at.clone(),
            );
        }
    }
    match (kind.as_deref(), value) {
        (Some("file"), Some(file)) => {
            task_file(findings, plan, t, file, completed);
        }
        (Some("inline"), Some(anchor)) => {
            if anchor != format!("#task-{}", t.id.trim()) {
                push(
                    findings,
                    Level::Warning,
                    "dwp.locator-mismatch",
                    format!(
                        "task {} points at the anchor `{anchor}`, not `#task-{}`",
                        t.id,
                        t.id.trim()
                    ),
                    at.clone(),
                );
            }
            if let Some(readme) = plan.readme {
                let n = readme.anchor_count(anchor);
                if n != 1 {
                    push(
                        findings,
                        Level::Error,
                        "dwp.lite-anchor-missing",
                        format!(
                            "Lite task {}: the README has {n} `{{{anchor}}}` records (exactly one expected)",
                            t.id
                        ),
                        at.clone(),
                    );
                }
                if completed && readme.inline_log_pending(anchor) {
                    log_pending(findings, t);
                }
            }
        }
        (_, None) if entry.is_some() => push(
            findings,
            Level::Warning,
            "dwp.task-locator-missing",
            format!("task {} names neither a file nor an anchor", t.id),
            at,
        ),
        _ => {}
    }
}

fn log_pending(findings: &mut Vec<Finding>, t: &Task) {
    push(
        findings,
        Level::Error,
        "dwp.task-log-pending",
        format!(
            "task {} is completed in state but its Completion & Log still says \"Status: pending\": close the log or reopen the task",
            t.id
        ),
        format!("task {}", t.id),
    );
}

/// A Full task's file: inside the plan, present, linked from the README,
/// and (when completed) with a closed log.
fn task_file(findings: &mut Vec<Finding>, plan: &Plan<'_>, t: &Task, file: &str, completed: bool) {
    let at = format!("task {}", t.id);
    let expected_prefix = format!("{}.task_", t.id.trim());
    match plan.task_file(file) {
        None => {
            push(
                findings,
                Level::Error,
                "dwp.task-file-outside",
                format!(
                    "task {} names `{file}`, which leaves the plan directory; it is never opened",
                    t.id
                ),
                at,
            );
            return;
        }
        Some(true) => {
            if completed {
                let cached = plan.log_pending.borrow().get(file).copied();
                let pending = cached.unwrap_or_else(|| {
                    let p = plan
                        .task_prefix(file, TASK_FILE_PREFIX)
                        .is_some_and(|b| log_says_pending(&String::from_utf8_lossy(&b)));
                    plan.log_pending.borrow_mut().insert(file.to_owned(), p);
                    p
                });
                if pending {
                    log_pending(findings, t);
                }
            }
        }
        Some(false) => push(
            findings,
            Level::Error,
            "dwp.task-file-missing",
            format!(
                "task {} names the file `{file}`, which is missing from the plan",
                t.id
            ),
            at.clone(),
        ),
    }
    if !file.starts_with(&expected_prefix) {
        push(
            findings,
            Level::Warning,
            "dwp.locator-mismatch",
            format!(
                "task {}'s file `{file}` does not start with `{expected_prefix}`",
                t.id
            ),
            at.clone(),
        );
    }
    if let Some(readme) = plan.readme {
        // Pre-v2 READMEs may list tasks without links: then correspondence
        // is not checked (as the plan's own checker does).
        let current = plan.state_era().is_some_and(|e| e >= 2);
        if (current || readme.has_task_links()) && !readme.links_to(file) {
            push(
                findings,
                Level::Error,
                "dwp.readme-task-link-missing",
                format!("the README does not link task {}'s file `{file}`", t.id),
                at,
            );
        }
    }
}

/// Gate evidence of one state task.
fn gates(findings: &mut Vec<Finding>, plan: &Plan<'_>, t: &Task, e: &TaskEntry) {
    let at = format!("task {}", t.id);
    let (latest, malformed) = latest_per_command(&e.gates);
    if malformed > 0 {
        push(
            findings,
            Level::Warning,
            "dwp.gate-malformed",
            format!(
                "task {}: {malformed} gate record(s) carry no `passes` boolean; their result cannot be read",
                t.id
            ),
            at.clone(),
        );
    }
    for g in &latest {
        if g.passes != Some(true) || invalidated(g) {
            continue;
        }
        let evidence = g.evidence.as_deref().unwrap_or_default();
        if admits_never_ran(evidence) {
            push(
                findings,
                Level::Error,
                "dwp.gate-never-ran",
                format!(
                    "the passing gate `{}` of task {} has evidence that admits the check never ran (“{evidence}”); it certifies nothing",
                    g.command.as_deref().unwrap_or_default(),
                    t.id
                ),
                at.clone(),
            );
        }
    }
    if t.status != "completed" {
        return;
    }
    let failing: Vec<String> = latest
        .iter()
        .filter(|g| fails(g))
        .map(|g| {
            let mut s = format!("`{}`", g.command.as_deref().unwrap_or_default());
            if let Some(c) = g.exit_code {
                s.push_str(&format!(" exit {c}"));
            }
            if let Some(ev) = g.evidence.as_deref().filter(|e| !e.is_empty()) {
                s.push_str(&format!(": {ev}"));
            }
            s
        })
        .collect();
    if !failing.is_empty() {
        push(
            findings,
            Level::Error,
            "dwp.completed-with-failing-gate",
            format!(
                "task {} is completed but its latest gate failed with no later passing run ({})",
                t.id,
                failing.join("; ")
            ),
            at,
        );
    } else if latest.iter().any(|g| invalidated(g)) {
        push(
            findings,
            Level::Error,
            "dwp.gate-invalidated",
            format!(
                "task {} is completed but relies on gate evidence invalidated by refine: rerun its gate",
                t.id
            ),
            at,
        );
    } else if plan.state_era().is_some_and(|v| v >= 2)
        && (e.completed_at.is_none() || latest.is_empty())
    {
        push(
            findings,
            Level::Error,
            "dwp.completed-without-evidence",
            format!(
                "task {} is completed without {}",
                t.id,
                if latest.is_empty() {
                    "any gate evidence"
                } else {
                    "completed_at"
                }
            ),
            at,
        );
    }
}

/// The blocker, the checkpoint and the plan status against the tasks.
fn coherence(findings: &mut Vec<Finding>, plan: &Plan<'_>, tasks: &[Task]) {
    let Some(state) = plan.state else { return };
    let find = |id: &str| tasks.iter().find(|t| t.id.trim() == id.trim());
    let blocker = state.blocked.as_ref();
    if let Some(b) = blocker {
        match b.task.as_ref().map(Scalar::text) {
            None => push(
                findings,
                Level::Error,
                "dwp.blocker-task-not-blocked",
                "the active blocker names no task".to_owned(),
                format!("{STATE}#blocked"),
            ),
            Some(id) => match find(&id) {
                Some(t) if t.status == "blocked" => {}
                Some(t) => push(
                    findings,
                    Level::Error,
                    "dwp.blocker-task-not-blocked",
                    format!(
                        "the active blocker names task {id}, which is {}, not blocked",
                        t.status
                    ),
                    format!("task {id}"),
                ),
                None => push(
                    findings,
                    Level::Error,
                    "dwp.blocker-task-not-blocked",
                    format!("the active blocker names task {id}, which the plan does not have"),
                    format!("task {id}"),
                ),
            },
        }
    }
    let blocker_task = blocker.and_then(|b| b.task.as_ref()).map(Scalar::text);
    stranded(findings, tasks, blocker_task.as_deref());
    for t in tasks.iter().filter(|t| t.status == "blocked") {
        if blocker_task.as_deref().map(str::trim) != Some(t.id.trim()) {
            push(
                findings,
                Level::Warning,
                "dwp.blocked-without-blocker",
                format!(
                    "task {} is blocked but state.json records no blocker for it (reason, since, needs)",
                    t.id
                ),
                format!("task {}", t.id),
            );
        }
    }
    if let Some(id) = state
        .checkpoint
        .as_ref()
        .and_then(|c| c.task.as_ref())
        .map(Scalar::text)
        .filter(|id| find(id).is_none())
    {
        push(
            findings,
            Level::Warning,
            "dwp.checkpoint-unknown-task",
            format!("the checkpoint names task {id}, which the plan does not have"),
            format!("{STATE}#checkpoint"),
        );
    }
    if let Some(status) = state
        .status
        .as_deref()
        .map(norm)
        .filter(|_| !tasks.is_empty())
    {
        let derived = derive_status(tasks, blocker.is_some());
        if status != derived {
            push(
                findings,
                Level::Error,
                "dwp.status-incoherent",
                format!(
                    "state.json status is `{status}` but its tasks and blocker make it `{derived}`"
                ),
                format!("{STATE}#status"),
            );
        }
    }
}

/// A blocker on a task with an unfinished earlier task: the updater
/// accepts it, but resolving it (`--resolve-blocker` resumes or completes
/// the task) needs every earlier task completed, and while it stands no
/// earlier task can move either. The plan is stranded until the blocker is
/// re-decided by hand.
fn stranded(findings: &mut Vec<Finding>, tasks: &[Task], blocker_task: Option<&str>) {
    let Some(id) = blocker_task.map(str::trim) else {
        return;
    };
    let Some(n) = task_num(id) else { return };
    let open: Vec<&str> = tasks
        .iter()
        .filter(|t| task_num(&t.id).is_some_and(|m| m < n) && t.status != "completed")
        .map(|t| t.id.trim())
        .collect();
    if open.is_empty() {
        return;
    }
    push(
        findings,
        Level::Warning,
        "dwp.blocker-stranded",
        format!(
            "the blocker on task {id} can be resolved only once task {} is completed, and while it stands the updater moves no other task: the plan is stranded until state.json's blocker is cleared by hand (the updater cannot clear it)",
            open.join(", ")
        ),
        format!("task {id}"),
    );
}

/// Materialization, promotion and approval values.
fn lifecycle(findings: &mut Vec<Finding>, plan: &Plan<'_>) {
    let state = plan.state;
    let materialization = state.and_then(|s| s.materialization.as_deref()).map(norm);
    let promoting = state.is_some_and(|s| s.promotion.as_ref().is_some_and(|p| !p.is_null()))
        || materialization.as_deref() == Some("promoting");
    let readme_materializing = plan.readme.is_some_and(|r| r.materializing);
    if promoting {
        push(
            findings,
            Level::Error,
            "dwp.promotion-unresolved",
            "a Lite → Full promotion is unresolved (promotion marker or materialization `promoting`): finish it before executing the plan".to_owned(),
            format!("{STATE}#promotion"),
        );
    } else if let Some(m) = materialization.as_deref().filter(|m| *m != "ready") {
        push(
            findings,
            Level::Error,
            "dwp.not-materialized",
            format!(
                "materialization is `{m}`, not ready: the plan folder is incomplete; complete or discard it before executing"
            ),
            format!("{STATE}#materialization"),
        );
    } else if materialization.is_none() && plan.state_era().is_some_and(|v| v >= 2) {
        push(
            findings,
            Level::Error,
            "dwp.not-materialized",
            "state.json records no materialization, so the plan is not known to be ready"
                .to_owned(),
            format!("{STATE}#materialization"),
        );
    } else if readme_materializing {
        push(
            findings,
            Level::Error,
            "dwp.not-materialized",
            "the README says Plan Status: materializing: the plan folder is incomplete; complete or discard it before executing".to_owned(),
            README.to_owned(),
        );
    }
    let a = approval(plan);
    if !APPROVALS.contains(&a.value.as_str()) {
        push(
            findings,
            Level::Warning,
            "dwp.approval-unknown",
            format!(
                "approval is `{}` ({}), not one of pending, approved, pre_approved",
                a.value, a.source
            ),
            a.reference,
        );
    }
}
