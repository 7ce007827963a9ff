//! Deep Work Plan: each `.dwp/plans/PLAN_*` directory is a project (seed 002),
//! and so is a bare `PLAN_*` directory whose JSON declares a DWP plan.
//!
//! A plan is Markdown first (`README.md`, `PROGRESS.md`, task files) with an
//! optional JSON projection beside it: `manifest.json` (static identity) and
//! `state.json` (live per-task state with gate records). loopdeck reads both
//! and never writes either here. Markdown wins every disagreement: the
//! README's task checkboxes are reconciled against `state.json` and every
//! difference is a finding with its direction.
//!
//! Schemas v1 (task `file`), v2 (`locator {kind, value}`) and v5 (the v2
//! shape under a new URL) are read alike; unknown fields are ignored; a
//! field of the wrong type is dropped and reported, never the whole plan.
//!
//! Status words: `pending`, `executing` (the plan's `in_progress`),
//! `blocked` (an active blocker or a blocked task), `completed`; an unknown
//! value is shown as written. Progress counts tasks done by the Markdown
//! (a task's README checkbox, else its state) over every task: a skipped
//! task stays in the total, since skipped work never completes a plan
//! (seed 002); a plan whose remaining tasks are skipped is never shown as
//! completed, whatever its state.json says.

pub(crate) mod act;
pub(crate) mod checks;
pub(crate) mod evidence;
mod find;
pub(crate) mod manifest;
testing_pub!(
    pub mod markdown;
);
pub(crate) mod schema;
mod structure;

use std::path::Path;

use chrono::{DateTime, Utc};

use super::{file_name, parse_time};
use crate::model::{
    Address, Arg, Checkpoint, Finding, Gate, InboxItem, InboxKind, Level, Outcome, Phrase, Project,
    StatusKind, Task,
};
use crate::phrase;
use crate::store;
pub(crate) use find::discover;
#[cfg(test)]
use find::load;
use markdown::Readme;
use schema::{Manifest, Scalar, State, TaskEntry};

/// The directory that holds plans; the walk does not enter it.
pub(crate) const DWP_DIR: &str = ".dwp";

const PLANS_DIR: &str = "plans";
const PLAN_PREFIX: &str = "PLAN_";
const MANIFEST: &str = "manifest.json";
const STATE: &str = "state.json";
const README: &str = "README.md";
const PROGRESS: &str = "PROGRESS.md";
/// Left by an interrupted publication of the plan's final state.
const FINALIZING: &str = act::FINALIZING;
/// The receipt a finished publication writes.
const RECEIPT: &str = "analysis_results/FINALIZATION.json";
/// The protected updater's lock directory (`<state.json>.lock`, made with mkdir).
const LOCK: &str = "state.json.lock";

/// What the plan's README says you meant then (a resume card's excerpt):
/// the plan's own Goal and Context sections (`## Goal`, `## 1. Goal`; not
/// a Lite task's `### Goal`, nor a `## Non-goals`), not the status lines
/// above them (Standard, Plan Format, Materialization, Approval: on the
/// card already). A README without either: from its top. `None` for
/// another file (read as any other).
pub(crate) fn meant(rel: &str, text: &str) -> Option<Vec<String>> {
    if rel != README {
        return None;
    }
    let body = super::markdown::body(text);
    let chosen = super::excerpt::sections(body, |name| match name {
        "goal" => Some(0),
        "context" => Some(1),
        _ => None,
    });
    let lines = super::excerpt::prose(chosen.into_iter());
    Some(if lines.is_empty() {
        super::excerpt::prose(body.lines())
    } else {
        lines
    })
}

/// What one plan directory holds, once read.
pub(crate) struct Plan<'a> {
    pub dir: &'a Path,
    /// Names of the entries of the plan directory.
    pub names: &'a [String],
    pub manifest: Option<&'a Manifest>,
    pub state: Option<&'a State>,
    pub readme: Option<&'a Readme>,
    /// `state.json` as the decisions read it (`None`: missing, or not JSON).
    pub state_json: Option<&'a serde_json::Value>,
    /// README.md's bytes, when it is UTF-8 text.
    pub readme_bytes: Option<&'a [u8]>,
    /// Whether a task file's own log still says pending, per file: many
    /// tasks may name the same file, and each file is read once.
    pub log_pending: std::cell::RefCell<std::collections::HashMap<String, bool>>,
    /// What the checks learnt of each task file they looked at (where it
    /// is, its first bytes): the state's checks and the verifier's look
    /// at the same files, and each is found and read once.
    pub task_files: std::cell::RefCell<std::collections::HashMap<String, TaskFile>>,
}

/// A task file as the checks found it.
#[derive(Default)]
pub(crate) struct TaskFile {
    /// `None`: it names a path that leaves the plan directory; else
    /// whether it is a file there.
    pub is_file: Option<bool>,
    /// Its first bytes (`None`: it could not be read), once read.
    prefix: Option<Option<std::rc::Rc<Vec<u8>>>>,
}

impl Plan<'_> {
    /// Where task file `file` is: `None` outside the plan directory, else
    /// whether it is a file ([`store::locate`] then [`store::is_file`]).
    pub(crate) fn task_file(&self, file: &str) -> Option<bool> {
        if let Some(t) = self.task_files.borrow().get(file) {
            return t.is_file;
        }
        let is_file = match store::locate(self.dir, file) {
            Err(_) => None,
            Ok(Some(path)) => Some(store::is_file(&path)),
            Ok(None) => Some(false),
        };
        self.task_files.borrow_mut().insert(
            file.to_owned(),
            TaskFile {
                is_file,
                prefix: None,
            },
        );
        is_file
    }

    /// The first `n` bytes of task file `file` ([`store::read_prefix_in`];
    /// `None`: they cannot be read), read once.
    pub(crate) fn task_prefix(&self, file: &str, n: usize) -> Option<std::rc::Rc<Vec<u8>>> {
        if let Some(Some(prefix)) = self.task_files.borrow().get(file).map(|t| t.prefix.clone()) {
            return prefix;
        }
        let prefix = store::read_prefix_in(self.dir, file, n)
            .ok()
            .map(std::rc::Rc::new);
        self.task_files
            .borrow_mut()
            .entry(file.to_owned())
            .or_default()
            .prefix = Some(prefix.clone());
        prefix
    }

    pub(crate) fn has(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }

    /// The `state.json` schema version (1, 2, 5...), when it declares one.
    pub(crate) fn state_era(&self) -> Option<u32> {
        self.state
            .and_then(|s| s.schema.as_deref())
            .and_then(|u| schema::schema_version(u, "state"))
    }
}

/// `in_progress`, `In Progress`, `in-progress` → `in_progress`.
pub(crate) fn norm(raw: &str) -> String {
    raw.trim().to_lowercase().replace([' ', '-'], "_")
}

/// A task id as a number (`1`, `"1"`), for matching README `Task N`.
pub(crate) fn task_num(id: &str) -> Option<u64> {
    id.trim().parse().ok()
}

fn task_of(e: &TaskEntry) -> Task {
    Task {
        status_kind: StatusKind::Unknown,
        id: e.id.as_ref().map(Scalar::text).unwrap_or_default(),
        title: e.title.clone().unwrap_or_default(),
        status: e
            .status
            .as_deref()
            .map(norm)
            .unwrap_or_else(|| "unknown".to_owned()),
        md_checked: None,
        locator: e
            .locator
            .as_ref()
            .and_then(|l| l.value.clone())
            .or_else(|| e.file.clone()),
        started_at: e.started_at.clone(),
        completed_at: e.completed_at.clone(),
        commit: e.commit.as_ref().map(Scalar::text),
        gates: e
            .gates
            .iter()
            .map(|g| Gate {
                command: g.command.clone().unwrap_or_default(),
                passes: g.passes == Some(true),
                exit_code: g.exit_code,
                last_run: g.last_run.clone(),
                evidence: g.evidence.clone(),
            })
            .collect(),
        outcome: e.outcome.as_ref().map(|o| Outcome {
            tried: o.tried.clone(),
            failed: o.failed.clone(),
            worked: o.worked.clone(),
            notes: o.notes.clone(),
        }),
    }
}

/// Tasks of a plan without `state.json`: its README checkboxes.
fn tasks_from_readme(readme: &Readme) -> Vec<Task> {
    let mut seen = std::collections::BTreeSet::new();
    readme
        .checkboxes
        .iter()
        .filter(|b| seen.insert(b.task))
        .map(|b| Task {
            status_kind: StatusKind::Unknown,
            id: b.task.to_string(),
            title: b.title.clone(),
            status: if b.checked { "completed" } else { "pending" }.to_owned(),
            md_checked: Some(b.checked),
            locator: b.file.clone(),
            started_at: None,
            completed_at: None,
            commit: None,
            gates: Vec::new(),
            outcome: None,
        })
        .collect()
}

/// Fill `p` from what the plan holds.
fn fill(p: &mut Project, plan: &Plan<'_>) {
    let state = plan.state;
    if let Some(title) = plan
        .manifest
        .and_then(|m| m.title.clone())
        .filter(|t| !t.trim().is_empty())
    {
        p.name = title;
    } else if let Some(name) = plan
        .manifest
        .and_then(|m| m.name.clone())
        .or_else(|| state.and_then(|s| s.plan.clone()))
        .filter(|t| !t.trim().is_empty())
    {
        p.name = name;
    }
    p.updated_at = updated_at(p, plan);

    let mut tasks: Vec<Task> = match (state, plan.readme) {
        (Some(s), _) => s.tasks.iter().map(task_of).collect(),
        (None, Some(r)) => tasks_from_readme(r),
        (None, None) => Vec::new(),
    };
    for t in &mut tasks {
        t.status_kind = task_kind(&t.status);
    }
    let desync = match (state, plan.readme) {
        (Some(_), Some(r)) => checks::reconcile(&mut p.findings, &mut tasks, r),
        _ => Vec::new(),
    };
    checks::run(&mut p.findings, plan, &tasks);
    structure::check(&mut p.findings, plan, &tasks);
    let finalizing = plan.has(FINALIZING);
    if finalizing {
        finalization(p, plan);
    }

    // Status: the plan's own word, except that a blocker always shows.
    let blocker = state.and_then(|s| s.blocked.as_ref());
    let any_blocked = tasks.iter().any(|t| t.status == "blocked");
    let derived = checks::derive_status(&tasks, blocker.is_some());
    let raw_status = match state.and_then(|s| s.status.as_deref()) {
        Some(s) => norm(s),
        None => derived.to_owned(),
    };
    // `completed` is believed only when the tasks make it so: skipped (or
    // unfinished) work never completes a plan; the disagreement itself is
    // the `dwp.status-incoherent` finding.
    let raw_status = if raw_status == "completed" && !tasks.is_empty() {
        derived.to_owned()
    } else {
        raw_status
    };
    p.status = if blocker.is_some() || any_blocked {
        "blocked".to_owned()
    } else {
        match raw_status.as_str() {
            "in_progress" => "executing".to_owned(),
            "" => "unknown".to_owned(),
            _ => raw_status,
        }
    };
    // A plan with a state but no README is a partial materialization
    // (plan_contract: "plan has no README.md"), never a plan at work.
    if state.is_some() && !plan.has(README) && p.status != "blocked" {
        p.status = "incomplete".to_owned();
    }
    p.status_kind = plan_kind(&p.status);

    let total = tasks.len();
    let skipped = tasks.iter().filter(|t| t.status == "skipped").count();
    let done = tasks
        .iter()
        .filter(|t| t.md_checked.unwrap_or(t.status == "completed"))
        .count();
    p.progress_percent = (done * 100).checked_div(total).map(|x| x.min(100) as u8);

    let current = current_task(&tasks, state);
    p.stage = match current {
        Some(t) => Some(phrase!(
            "phrase.dwp.stage_task",
            task = &t.id,
            total = tasks.len()
        )),
        None if skipped > 0 => Some(phrase!(
            "phrase.dwp.stage_done_skipped",
            done = done,
            total = total,
            skipped = skipped
        )),
        None if !tasks.is_empty() => {
            Some(phrase!("phrase.dwp.stage_done", done = done, total = total))
        }
        None => None,
    };

    let flags = waiting(p, plan, &tasks, &desync, finalizing);
    stale_lock(p, plan.dir);
    offers(p, plan, finalizing);
    p.detail.checkpoint = state
        .and_then(|s| s.checkpoint.as_ref())
        .map(|c| Checkpoint {
            task: c.task.as_ref().map(Scalar::text),
            step: c.step.as_ref().map(Scalar::text),
            at: c.at.clone(),
            note: c.note.clone(),
        });
    resume(p, plan, &tasks, current, &flags);
    p.statusline = statusline(p, plan, &tasks, current, (done, total), &flags);
    p.detail.tasks = tasks;
    p.activity = activity(p);
}

/// How long a plan at work may leave `state.json` unwritten before it is
/// stalled. The agent rewrites it at every protocol node: a task started,
/// each gate run, a task completed, a checkpoint before any interruption,
/// a blocked stop (seed 002); the seed's own example is silent for 52
/// minutes at most (a task started at 14:10, its gate run at 15:01:50).
/// Two hours is more than twice that.
pub(crate) const STALL_AFTER: chrono::TimeDelta = chrono::TimeDelta::hours(2);

/// The claim of work going on: the plan is executing with a task in
/// progress and nothing waits for a human (a blocker, an approval, a
/// desync, a finalization). Its last sign of life is the latest of the
/// state's `updated_at`, the checkpoint's time, a task's start and a gate
/// run.
fn activity(p: &Project) -> Option<crate::model::Activity> {
    let tasks = &p.detail.tasks;
    let at_work = p.status == "executing" && tasks.iter().any(|t| t.status == "in_progress");
    if !at_work || !p.inbox.is_empty() {
        return None;
    }
    let stamps = tasks
        .iter()
        .flat_map(|t| {
            t.gates
                .iter()
                .map(|g| g.last_run.as_deref())
                .chain([t.started_at.as_deref(), t.completed_at.as_deref()])
        })
        .chain([p.detail.checkpoint.as_ref().and_then(|c| c.at.as_deref())])
        .flatten()
        .filter_map(parse_time);
    Some(crate::model::Activity {
        last: stamps.chain(p.updated_at).max(),
        limit: Some(STALL_AFTER),
    })
}

/// The kind of a plan status as loopdeck shows it (seed 002's plan words,
/// `in_progress` shown as `executing`); any other word is `Unknown`.
pub(crate) fn plan_kind(status: &str) -> StatusKind {
    match status {
        "pending" => StatusKind::Planning,
        "executing" | "in_progress" => StatusKind::Running,
        "blocked" => StatusKind::Blocked,
        "completed" => StatusKind::Done,
        "unreadable" => StatusKind::Failed,
        _ => StatusKind::Unknown,
    }
}

/// The kind of a task status (seed 002: pending, in_progress, completed,
/// blocked, skipped). `skipped` (removed from scope by refine) is neither
/// done nor failed nor waiting: it stays `Unknown`, shown muted.
pub(crate) fn task_kind(status: &str) -> StatusKind {
    match status {
        "pending" => StatusKind::Planning,
        "in_progress" => StatusKind::Running,
        "completed" => StatusKind::Done,
        "blocked" => StatusKind::Blocked,
        _ => StatusKind::Unknown,
    }
}

/// Fill the inbox (and the blockers) with what waits for a human: the
/// active blocker and blocked tasks, a pending approval, a desync, an
/// interrupted finalization.
fn waiting(
    p: &mut Project,
    plan: &Plan<'_>,
    tasks: &[Task],
    desync: &[Phrase],
    finalizing: bool,
) -> Flags {
    // The plan's last write is not when an item began to wait (approving
    // it re-aged its desync item): an item without a time of its own waits
    // from when a reading first showed it (`model::first_seen`).
    let since: Option<DateTime<Utc>> = None;
    let blocker = plan.state.and_then(|s| s.blocked.as_ref());
    if let Some(b) = blocker {
        let task = b.task.as_ref().map(Scalar::text);
        let reason = b
            .reason
            .clone()
            .map_or_else(|| phrase!("phrase.dwp.no_reason"), Phrase::Quoted);
        let needs = b.needs.as_deref().filter(|n| !n.trim().is_empty());
        p.blockers.push(match (&task, needs) {
            (Some(t), Some(n)) => phrase!(
                "phrase.dwp.blocker_task_needs",
                task = t,
                reason = &reason,
                needs = n
            ),
            (Some(t), None) => phrase!("phrase.dwp.blocker_task", task = t, reason = &reason),
            (None, Some(n)) => phrase!("phrase.dwp.blocker_needs", reason = &reason, needs = n),
            (None, None) => reason.clone(),
        });
        p.inbox.push(InboxItem {
            kind: InboxKind::Blocked,
            act: Some(address("unblock", task.clone())),
            reference: task
                .as_ref()
                .map_or_else(|| "blocked".to_owned(), |t| format!("task {t}")),
            title: match needs {
                Some(n) => phrase!("phrase.dwp.blocked_needs", reason = reason, needs = n),
                None => reason,
            },
            since: b.since.as_deref().and_then(parse_time).or(since),
            options: Vec::new(),
            subject: task.clone(),
            why_not: None,
        });
    }
    let blocker_task = blocker.and_then(|b| b.task.as_ref()).map(Scalar::text);
    for t in tasks.iter().filter(|t| t.status == "blocked") {
        if blocker_task.as_deref().map(str::trim) == Some(t.id.trim()) {
            continue;
        }
        p.inbox.push(InboxItem {
            kind: InboxKind::Blocked,
            act: Some(address("block", Some(t.id.clone()))),
            reference: format!("task {}", t.id),
            title: phrase!(
                "phrase.dwp.task_blocked_unrecorded",
                task = &t.id,
                title = &t.title
            ),
            since,
            options: Vec::new(),
            subject: Some(t.id.clone()),
            why_not: None,
        });
    }
    let approval = checks::approval(plan);
    let completed = p.status == "completed";
    if approval.value == "pending" && !completed {
        p.findings.push(
            Finding::new(
                Level::Warning,
                "dwp.approval-pending",
                format!(
                    "the plan awaits approval ({}); an explicit execute request approves its current scope",
                    approval.source
                ),
            )
            .at(approval.reference),
        );
        let created = plan
            .manifest
            .and_then(|m| m.created_at.as_deref())
            .and_then(parse_time);
        // A v1 state cannot hold `approval`: its approval lives in the
        // README's Approval line, so a v1 plan without a README has nowhere
        // to record one and offers no decision.
        let v1 = plan
            .state
            .and_then(|s| s.schema.as_deref())
            .is_some_and(|u| u.ends_with("/v1.json"));
        let recordable = !v1 || plan.readme.is_some();
        p.inbox.push(InboxItem {
            kind: InboxKind::Approval,
            act: recordable.then(|| address("approve", None)),
            reference: "approval".to_owned(),
            title: if recordable {
                phrase!("phrase.dwp.approve", plan = &p.name, n = tasks.len())
            } else {
                phrase!("phrase.dwp.approve_v1", plan = &p.name, n = tasks.len())
            },
            since: created.or(since),
            options: Vec::new(),
            subject: None,
            why_not: None,
        });
    }
    if !desync.is_empty() {
        p.inbox.push(InboxItem {
            kind: InboxKind::Desync,
            act: Some(address("reconcile", None)),
            reference: README.to_owned(),
            title: phrase!(
                "phrase.dwp.desync",
                found = desync.to_vec(),
                end = phrase!("phrase.dwp.desync_reconcile")
            ),
            since,
            options: Vec::new(),
            subject: None,
            why_not: None,
        });
    }
    if finalizing {
        let marker_since = finalizing_since(plan.dir);
        p.inbox.push(InboxItem {
            kind: InboxKind::Finalization,
            act: None,
            reference: FINALIZING.to_owned(),
            title: phrase!("phrase.dwp.finalization"),
            since: marker_since.or(since),
            options: Vec::new(),
            subject: None,
            why_not: None,
        });
    }
    Flags {
        finalizing,
        desync: !desync.is_empty(),
        approval_pending: approval.value == "pending" && !completed,
    }
}

/// What resolves a refused reconciliation, in a few words; else the
/// updater's own refusal (`why`, in `act`'s words, quoted as it says it).
fn reconcile_fix(why: &str, approve_offered: bool) -> Phrase {
    if why.contains("plan is not approved") && approve_offered {
        phrase!("phrase.dwp.fix_approve")
    } else if why.contains("completion requires successful gates") {
        phrase!("phrase.dwp.fix_gates")
    } else if why.starts_with("invalid input") {
        phrase!("phrase.dwp.fix_contract")
    } else if why.contains("blocker") {
        phrase!("phrase.dwp.fix_blocker")
    } else {
        Phrase::quoted(why)
    }
}

/// The decisions the plan takes as read (`Project::acts`): exactly those
/// its protected updater accepts (`act::offers` tries each one with the
/// act code). An inbox item keeps its decision only when it is one of them
/// (an unlock aside: a lock is no rule of the state). A README that is not
/// UTF-8 offers no approval, reconciliation or reopen, which edit or read it. An
/// interrupted finalization (`.finalizing.json`) offers nothing but
/// unlocking: the updater refuses every state change until it is recovered.
fn offers(p: &mut Project, plan: &Plan<'_>, finalizing: bool) {
    let readme_unreadable = plan.readme.is_some() && plan.readme_bytes.is_none();
    let acts: Vec<Address> = plan
        .state_json
        .filter(|_| !finalizing)
        .map(|s| act::offers(s, plan.readme_bytes))
        .unwrap_or_default()
        .into_iter()
        .filter(|a| !(readme_unreadable && matches!(a.verb, "approve" | "reconcile" | "reopen")))
        .collect();
    let approve_offered = acts.iter().any(|a| a.verb == "approve");
    for item in &mut p.inbox {
        let offered = item.act.as_ref().is_some_and(|a| {
            a.verb == "unlock"
                || acts
                    .iter()
                    .any(|o| o.verb == a.verb && o.target == a.target)
        });
        if !offered {
            let verb = item.act.take().map(|a| a.verb);
            // The updater's refusal is quoted in its own (English) words.
            let why = |verb: &str| {
                if finalizing {
                    (phrase!("phrase.dwp.why_finalizing"), String::new())
                } else if readme_unreadable {
                    (phrase!("phrase.dwp.why_readme_not_utf8"), String::new())
                } else {
                    match plan
                        .state_json
                        .and_then(|s| act::refusal(s, plan.readme_bytes, verb))
                    {
                        Some(r) => (Phrase::quoted(r.clone()), r),
                        None => (phrase!("phrase.dwp.why_state_unreadable"), String::new()),
                    }
                }
            };
            // Said in one line, with what resolves it (issue 20 §4).
            item.why_not = Some(match (item.kind, verb) {
                (InboxKind::Finalization, _) => phrase!(
                    "phrase.dwp.why_finalization",
                    plan = plan.dir.display().to_string()
                ),
                (InboxKind::Desync, _) => {
                    let (said, refusal) = why("reconcile");
                    let fix = match said.key() {
                        None => reconcile_fix(&refusal, approve_offered),
                        Some(_) => said,
                    };
                    item.title
                        .set("end", phrase!("phrase.dwp.desync_refused", fix = &fix));
                    phrase!("phrase.dwp.why_reconcile", fix = fix)
                }
                (_, Some(verb)) => {
                    phrase!("phrase.dwp.why_refused", verb = verb, why = why(verb).0)
                }
                (_, None) => item.title.clone(),
            });
        }
    }
    p.acts = acts;
}

/// Where a waiting item is decided (`loopdeck act PLAN VERB [TARGET]`).
fn address(verb: &'static str, target: Option<String>) -> Address {
    Address {
        verb,
        target,
        options: Vec::new(),
    }
}

/// `state.updated_at`, else `manifest.created_at`, else the mtime of
/// `state.json` or `README.md`.
fn updated_at(p: &mut Project, plan: &Plan<'_>) -> Option<DateTime<Utc>> {
    let bad = |field: &str, raw: &str, p: &mut Project| {
        p.findings.push(
            Finding::new(
                Level::Warning,
                "dwp.bad-timestamp",
                format!("{field} `{raw}` is not a timestamp"),
            )
            .at(field.to_owned()),
        );
    };
    if let Some(raw) = plan.state.and_then(|s| s.updated_at.as_deref()) {
        match parse_time(raw) {
            Some(t) => return Some(t),
            None => bad("updated_at", raw, p),
        }
    }
    if let Some(raw) = plan.manifest.and_then(|m| m.created_at.as_deref()) {
        match parse_time(raw) {
            Some(t) => return Some(t),
            None => bad("created_at", raw, p),
        }
    }
    [STATE, README, MANIFEST]
        .into_iter()
        .filter(|f| plan.has(f))
        .find_map(|f| store::mtime(&plan.dir.join(f)))
}

/// The task being worked on: the checkpoint's, the blocker's, else the first
/// in progress, blocked or pending (in that order).
fn current_task<'t>(tasks: &'t [Task], state: Option<&State>) -> Option<&'t Task> {
    let by_id = |id: Option<&Scalar>| {
        let id = id?.text();
        tasks.iter().find(|t| t.id.trim() == id.trim())
    };
    state
        .and_then(|s| by_id(s.checkpoint.as_ref().and_then(|c| c.task.as_ref())))
        .or_else(|| state.and_then(|s| by_id(s.blocked.as_ref().and_then(|b| b.task.as_ref()))))
        .or_else(|| {
            ["in_progress", "blocked", "pending"]
                .into_iter()
                .find_map(|st| tasks.iter().find(|t| t.status == st))
        })
}

/// The file of a task, when it is one (not a Lite anchor) inside the plan.
fn task_file(dir: &Path, t: &Task) -> Option<String> {
    let loc = t.locator.as_deref()?;
    if loc.starts_with('#') {
        return None;
    }
    store::contained_file(dir, loc).map(|_| loc.to_owned())
}

/// Plan-wide conditions that wait for a human (besides a blocker).
struct Flags {
    finalizing: bool,
    desync: bool,
    approval_pending: bool,
}

fn resume(p: &mut Project, plan: &Plan<'_>, tasks: &[Task], current: Option<&Task>, f: &Flags) {
    let state = plan.state;
    let checkpoint = state.and_then(|s| s.checkpoint.as_ref());
    let blocker = state.and_then(|s| s.blocked.as_ref());
    let task_id = |id: &str| phrase!("phrase.dwp.task", task = id);
    let describe = |t: &Task| {
        if t.title.is_empty() {
            task_id(&t.id)
        } else {
            phrase!("phrase.dwp.task_titled", task = &t.id, title = &t.title)
        }
    };
    p.resume.stopped_at = match (checkpoint, current) {
        (Some(c), _) => {
            let task = c.task.as_ref().map(Scalar::text);
            let named = task
                .as_deref()
                .and_then(|id| tasks.iter().find(|t| t.id.trim() == id.trim()))
                .map(describe)
                .or_else(|| task.as_deref().map(task_id));
            match (named, c.step.as_ref().map(Scalar::text)) {
                (Some(n), Some(s)) => Some(phrase!("phrase.dwp.task_at_step", task = n, step = s)),
                (Some(n), None) => Some(n),
                (None, Some(s)) => Some(phrase!("phrase.dwp.step", step = s)),
                (None, None) => None,
            }
        }
        (None, Some(t)) => Some(phrase!(
            "phrase.dwp.task_status",
            task = describe(t),
            status = &t.status
        )),
        (None, None) if tasks.iter().any(|t| t.status == "skipped") => Some(phrase!(
            "phrase.dwp.none_left_skipped",
            n = tasks.iter().filter(|t| t.status == "skipped").count()
        )),
        (None, None) if !tasks.is_empty() => Some(phrase!("phrase.dwp.all_done")),
        (None, None) => None,
    };
    p.resume.reason = blocker
        .and_then(|b| b.reason.clone())
        .or_else(|| checkpoint.and_then(|c| c.note.clone()))
        .map(Phrase::Quoted)
        .or_else(|| {
            f.finalizing
                .then(|| phrase!("phrase.dwp.finalizer_interrupted"))
        });
    p.resume.waiting_for = if let Some(b) = blocker {
        Some(match b.needs.as_deref().filter(|n| !n.trim().is_empty()) {
            Some(n) => Phrase::quoted(n),
            None => match &b.task {
                Some(t) => phrase!("phrase.dwp.resolve_blocker_on", task = t.text()),
                None => phrase!("phrase.dwp.resolve_blocker"),
            },
        })
    } else if f.approval_pending {
        Some(phrase!("phrase.dwp.awaits_approval"))
    } else if f.finalizing {
        Some(phrase!("phrase.dwp.inspect_finalization"))
    } else if f.desync && p.acts.iter().any(|a| a.verb == "reconcile") {
        Some(phrase!("phrase.dwp.reconcile"))
    } else if f.desync {
        Some(phrase!("phrase.dwp.desync_refused_waits"))
    } else {
        None
    };
    let mut read_first: Vec<String> = [README, PROGRESS]
        .into_iter()
        .filter(|f| store::contained_file(plan.dir, f).is_some())
        .map(str::to_owned)
        .collect();
    if let Some(f) = current.and_then(|t| task_file(plan.dir, t)) {
        read_first.push(f);
    }
    p.resume.read_first = read_first;
}

fn statusline(
    p: &Project,
    plan: &Plan<'_>,
    tasks: &[Task],
    current: Option<&Task>,
    (done, total): (usize, usize),
    f: &Flags,
) -> String {
    let name = file_name(plan.dir);
    let blocked_on = plan
        .state
        .and_then(|s| s.blocked.as_ref())
        .and_then(|b| b.task.as_ref())
        .map(Scalar::text)
        .or_else(|| {
            tasks
                .iter()
                .find(|t| t.status == "blocked")
                .map(|t| t.id.clone())
        });
    let tail = if let Some(t) = blocked_on {
        format!("blocked on task {t}")
    } else if p.status == "blocked" {
        "blocked".to_owned()
    } else if f.finalizing {
        "finalization interrupted".to_owned()
    } else if f.desync {
        "README/state desync".to_owned()
    } else if f.approval_pending {
        "awaiting approval".to_owned()
    } else if let Some(t) = current.filter(|_| p.status != "completed") {
        format!("task {} {}", t.id, t.status)
    } else if p.status != "completed"
        && let skipped @ 1.. = tasks.iter().filter(|t| t.status == "skipped").count()
    {
        format!("{skipped} skipped, not completed")
    } else {
        p.status.clone()
    };
    if tasks.is_empty() {
        format!("{name} · {tail}")
    } else {
        format!("{name} · {done}/{total} tasks · {tail}")
    }
}

/// The interrupted finalization: a finding that says what the marker and
/// the state show.
fn finalization(p: &mut Project, plan: &Plan<'_>) {
    let mut msg = "interrupted finalization: .finalizing.json is present; inspect the plan's artifacts and recover for the same candidate before claiming completion".to_owned();
    let marker: Option<serde_json::Value> =
        store::read_in(plan.dir, FINALIZING, store::STATE_FILE_LIMIT)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
    let state_sha = store::stamps::sha256_in(plan.dir, STATE);
    if let (Some(m), Some(sha)) = (&marker, &state_sha) {
        let field = |k: &str| m.get(k).and_then(|v| v.as_str()).map(str::to_lowercase);
        if let Some(candidate) = field("candidate_sha256") {
            msg.push_str(if &candidate == sha {
                "; state.json already holds the candidate, but no receipt confirms it"
            } else {
                "; state.json is not the candidate: the publication did not land"
            });
        } else if let Some(before) = field("state_sha256") {
            msg.push_str(if &before == sha {
                "; state.json is unchanged since the finalizer started"
            } else {
                "; state.json changed after the finalizer started"
            });
        }
    }
    if store::contained_file(plan.dir, RECEIPT).is_none() {
        msg.push_str("; no analysis_results/FINALIZATION.json receipt");
    }
    p.findings
        .push(Finding::new(Level::Error, "dwp.finalization-interrupted", msg).at(FINALIZING));
}

/// When the interrupted finalization started: the marker's `started_at`,
/// else its mtime.
fn finalizing_since(dir: &Path) -> Option<DateTime<Utc>> {
    store::read_in(dir, FINALIZING, store::STATE_FILE_LIMIT)
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|m| m.get("started_at")?.as_str().and_then(parse_time))
        .or_else(|| {
            store::contained(dir, FINALIZING)
                .ok()
                .and_then(|p| store::mtime(&p))
        })
}

/// A writer holds the lock only for the moment of a write; one older than
/// this was left by a writer that crashed (or one that hangs).
const LOCK_STALE_SECONDS: i64 = 60;

/// Report a stale `state.json.lock` with its age. Never removed here: only
/// a human who has checked that no writer is active may remove it. The age
/// is real time (the wall clock), since a lock is live or not now.
fn stale_lock(p: &mut Project, dir: &Path) {
    let Ok(Some(path)) = store::locate(dir, LOCK) else {
        return;
    };
    let Some(since) = store::mtime(&path) else {
        return;
    };
    let age = (Utc::now() - since).num_seconds();
    if age < LOCK_STALE_SECONDS {
        return;
    }
    p.findings.push(
        Finding::new(
            Level::Warning,
            "dwp.stale-lock",
            format!(
                "state.json.lock has been held for {} (since {}); a writer holds it only while it writes, so one probably crashed. Check that no writer is active before removing it",
                crate::model::relative_age(age),
                since.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
            ),
        )
        .at(LOCK),
    );
    p.inbox.push(InboxItem {
        kind: InboxKind::Blocked,
        act: Some(address("unlock", None)),
        reference: LOCK.to_owned(),
        title: phrase!("phrase.dwp.stale_lock", age = Arg::Age(age)),
        since: Some(since),
        options: Vec::new(),
        subject: None,
        why_not: None,
    });
}

#[cfg(test)]
mod tests;
