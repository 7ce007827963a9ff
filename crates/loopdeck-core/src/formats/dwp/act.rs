//! The decisions a Deep Work Plan takes (`loopdeck act PLAN_DIR VERB`),
//! under the rules and messages of the plan's protected updater
//! (`update-state.py`, seed 002 §受保护的状态更新): `approve`, `block`,
//! `unblock`, `reopen`, `reconcile` and `unlock --confirm`.
//!
//! Every decision but `unlock` is one transaction on `state.json` guarded
//! by the updater's `state.json.lock` directory; `manifest.json` is never
//! touched, and a state keeps its schema era (v1 `file`, v2/v5 `locator`).

mod contract;
mod reconcile;
mod rules;
mod unlock;
mod verbs;

use std::path::Path;

use serde_json::{Value, json};

use crate::formats::jsonedit::JsonDoc;
use crate::model::{Address, Format, Request, Verb};
use crate::store::transact;
use crate::store::txn::{ActError, Edit, LockKind, Outcome, Refusal, Snapshot, Txn, WriteOptions};

pub(crate) const STATE: &str = "state.json";
pub(crate) const README: &str = "README.md";
pub(crate) const PROGRESS: &str = "PROGRESS.md";
pub(crate) const LOCK: &str = "state.json.lock";
/// The marker an interrupted finalization leaves.
pub(crate) const FINALIZING: &str = ".finalizing.json";

/// How much of the updater's state contract a decision is held to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// Every rule: what update-state.py checks before and after its writes.
    Full,
    /// The closed shape and its budgets only: approval, which the updater
    /// never writes (execute records it before the first task). A plan
    /// whose evidence the contract rejects may still be approved; `check`
    /// reports the evidence, and every later updater write refuses it.
    Shape,
}

/// Make `req` on the plan in `dir`.
pub(crate) fn act(dir: &Path, req: &Request, opts: &WriteOptions) -> Result<Outcome, ActError> {
    stale_snapshot(dir, req, opts)?;
    let verb = req.verb.clone();
    match verb {
        Verb::Unlock { confirm } => unlock::unlock(dir, confirm, opts),
        Verb::Approve => run(dir, req, opts, Scope::Shape, verbs::approve),
        Verb::Block {
            task,
            reason,
            needs,
        } => run(dir, req, opts, Scope::Full, move |c| {
            verbs::block(c, &task, &reason, needs.as_deref())
        }),
        Verb::Unblock { task } => run(dir, req, opts, Scope::Full, move |c| {
            verbs::unblock(c, &task)
        }),
        Verb::Reopen { task, reason } => run(dir, req, opts, Scope::Full, move |c| {
            verbs::reopen(c, &task, &reason)
        }),
        Verb::Reconcile => run(dir, req, opts, Scope::Full, reconcile::reconcile),
        other => Err(ActError::not_for(Format::Dwp, &other)),
    }
}

/// `--expect-sha256`, checked first with the updater's message ("stale
/// state snapshot"). The store checks it again inside its lock, right
/// before the rename; this is the updater's early, explicit refusal.
fn stale_snapshot(dir: &Path, req: &Request, opts: &WriteOptions) -> Result<(), ActError> {
    let Some(expect) = &opts.expect_sha256 else {
        return Ok(());
    };
    if opts.gate().is_err() || matches!(req.verb, Verb::Unlock { .. }) {
        return Ok(());
    }
    let found = crate::store::read_in(dir, STATE, crate::store::txn::DECISION_READ_LIMIT)
        .ok()
        .map(|b| crate::store::sha256_hex(&b));
    if found.as_deref() == Some(expect.trim().to_lowercase().as_str()) {
        return Ok(());
    }
    Err(ActError::Changed(format!(
        "stale state snapshot: state.json changed on disk since the decision was made (expected sha256 {expect}, found {})",
        found.as_deref().unwrap_or("no file")
    )))
}

/// What a verb works on: the parsed state (checked coherent), the other
/// files it may read, who decides and when.
pub(crate) struct Ctx<'s> {
    pub value: Value,
    pub files: Files<'s>,
    pub by: String,
    /// `now` as the plan's timestamps spell it (RFC 3339, `Z`).
    pub now: String,
    /// Edits to files other than `state.json` (README, PROGRESS.md).
    pub extra: Vec<Edit>,
}

/// Where a verb reads the plan's other files from.
pub(crate) enum Files<'s> {
    /// A transaction: each file read once, and checked unchanged when
    /// the edits are committed.
    Snapshot(&'s mut Snapshot),
    /// A reading (the offers a reader makes): the README's bytes as read
    /// (`None`: no README). No rule reads PROGRESS.md, which a decision only
    /// appends to: a trial sees none.
    Read { readme: Option<&'s [u8]> },
}

impl Ctx<'_> {
    pub(crate) fn state(&mut self) -> &mut Value {
        &mut self.value
    }

    /// The bytes of `file` (`None`: it does not exist).
    pub(crate) fn read(&mut self, file: &str) -> Result<Option<&[u8]>, ActError> {
        match &mut self.files {
            Files::Snapshot(snap) => snap.read(file),
            Files::Read { readme } => Ok(if file == README { *readme } else { None }),
        }
    }
}

pub(crate) fn refuse(msg: impl Into<String>) -> ActError {
    ActError::Refused(Refusal::new(msg))
}

/// One transaction on `state.json`: read and check it ("invalid input"),
/// apply `verb`, check the candidate ("invalid candidate"), stop at an
/// existing lock, and hand the edits to the store.
fn run(
    dir: &Path,
    req: &Request,
    opts: &WriteOptions,
    scope: Scope,
    verb: impl FnOnce(&mut Ctx<'_>) -> Result<(), ActError>,
) -> Result<Outcome, ActError> {
    let decision = serde_json::to_value(&req.verb).unwrap_or(Value::Null);
    let txn = Txn::new(
        dir,
        STATE,
        LockKind::MkdirDir,
        opts,
        &req.by,
        req.now,
        json!({ "format": "dwp", "decision": decision }),
    );
    let now = req.now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let by = req.by.clone();
    transact(&txn, move |snap| {
        // Seed 002: an interrupted publication leaves `.finalizing.json`;
        // normal validation fails until its evidence is inspected and the
        // finalizer's recovery ran for the same candidate.
        if snap.read(FINALIZING)?.is_some() {
            return Err(refuse(
                "a finalization was interrupted (.finalizing.json): the updater refuses every state change until its evidence is inspected and the finalizer's recovery runs for the same candidate; loopdeck does not recover it",
            ));
        }
        let Some(bytes) = snap.read(STATE)? else {
            return Err(refuse(
                "no state.json: this plan has no state layer, so there is nothing for the protected updater to change",
            ));
        };
        let mut doc =
            JsonDoc::parse(bytes).map_err(|e| refuse(format!("cannot read state: {e}")))?;
        let value = std::mem::take(doc.value_mut());
        let (value, mut extra) = apply(value, Files::Snapshot(&mut *snap), by, now, scope, verb)?;
        *doc.value_mut() = value;
        // The updater takes its lock at write time: an existing one stops
        // the write (the store checks again when it takes it).
        if crate::store::locate(snap.project(), LOCK).is_ok_and(|p| p.is_some()) {
            return Err(ActError::Locked(
                "state is locked; inspect interrupted writer before recovering lock".to_owned(),
            ));
        }
        let mut edits = vec![Edit::Replace {
            file: STATE.to_owned(),
            bytes: doc
                .into_bytes()
                .map_err(|e| refuse(format!("cannot write state: {e}")))?,
        }];
        edits.append(&mut extra);
        Ok(edits)
    })
}

/// The updater's rules around one verb, on a parsed state: check the input
/// ("invalid input"), apply `verb`, check the candidate ("invalid
/// candidate", the schema era, no completion). Returns the new state and
/// the edits to the other files. Pure but for what `files` reads: a
/// transaction and a reader's trial ([`offers`]) judge alike.
pub(crate) fn apply(
    value: Value,
    files: Files<'_>,
    by: String,
    now: String,
    scope: Scope,
    verb: impl FnOnce(&mut Ctx<'_>) -> Result<(), ActError>,
) -> Result<(Value, Vec<Edit>), ActError> {
    let errors = rules::input_errors(&value, scope);
    if !errors.is_empty() {
        return Err(refuse(format!("invalid input: {}", errors.join("; "))));
    }
    apply_to_valid(value, files, by, now, scope, verb)
}

/// [`apply`] on a state already checked valid (a reader's trials check it
/// once, not once per trial).
fn apply_to_valid(
    value: Value,
    files: Files<'_>,
    by: String,
    now: String,
    scope: Scope,
    verb: impl FnOnce(&mut Ctx<'_>) -> Result<(), ActError>,
) -> Result<(Value, Vec<Edit>), ActError> {
    let completed = |v: &Value| v.get("status").and_then(Value::as_str) == Some("completed");
    let was_completed = completed(&value);
    let era = rules::Era::of(&value);
    let mut ctx = Ctx {
        value,
        files,
        by,
        now,
        extra: Vec::new(),
    };
    verb(&mut ctx)?;
    if completed(&ctx.value) && !was_completed {
        return Err(refuse(
            "this decision would complete the plan: completion goes through the plan's finalizer, which verifies every artifact first; loopdeck never publishes it",
        ));
    }
    let errors = rules::candidate_errors(&ctx.value, scope);
    if !errors.is_empty() {
        return Err(refuse(format!("invalid candidate: {}", errors.join("; "))));
    }
    if rules::Era::of(&ctx.value) != era {
        return Err(refuse("invalid candidate: the schema era changed"));
    }
    Ok((ctx.value, ctx.extra))
}

/// Text a trial types where a verb needs a reason.
const SAMPLE_REASON: &str = "reason";

/// A verb as a trial runs it.
type Trial<'a> = &'a dyn Fn(&mut Ctx<'_>) -> Result<(), ActError>;

/// The decisions the protected updater would take on the plan as read:
/// `state` (state.json as parsed) and `readme` (README.md's bytes, `None`
/// when there is none). Each candidate is tried in memory with the very
/// code `act` runs ([`apply`] and the verb), so the console never offers
/// what the rules refuse; nothing is read or written. `approve` and
/// `reconcile` are the plan's (no target); `block`, `unblock` and
/// `reopen` name their task by its id. `unlock` is not a rule of the
/// state: the reader offers it with the stale lock it reports.
pub(crate) fn offers(state: &Value, readme: Option<&[u8]>) -> Vec<Address> {
    let now = "1970-01-01T00:00:00Z";
    let ok = |scope: Scope, verb: Trial<'_>| {
        apply_to_valid(
            state.clone(),
            Files::Read { readme },
            "loopdeck".to_owned(),
            now.to_owned(),
            scope,
            verb,
        )
        .is_ok()
    };
    let mut out = Vec::new();
    // The full contract begins with the shape: checked once for both.
    let shaped = rules::input_errors(state, Scope::Shape).is_empty();
    if shaped && ok(Scope::Shape, &verbs::approve) {
        out.push(Address::new("approve", None, Vec::new()));
    }
    if !shaped || !rules::input_errors_past_shape(state).is_empty() {
        return out;
    }
    let ok = |verb: Trial<'_>| ok(Scope::Full, verb);
    if readme.is_some() && ok(&reconcile::reconcile) {
        out.push(Address::new("reconcile", None, Vec::new()));
    }
    let blocker = state
        .get("blocked")
        .and_then(|b| b.get("task"))
        .and_then(Value::as_u64);
    let tasks = state.get("tasks").and_then(Value::as_array);
    let all = tasks.map(Vec::as_slice).unwrap_or_default();
    for t in all {
        let Some(id) = rules::task_id(t) else {
            continue;
        };
        let task = id.to_string();
        let completed = rules::status(t) == Some("completed");
        // The updater blocks a later task too, but that blocker cannot be
        // resolved before the earlier tasks are completed (the plan is
        // stranded): `act` takes it, the console does not suggest it.
        let earlier_open = all.iter().any(|o| {
            rules::task_id(o).is_some_and(|n| n < id) && rules::status(o) != Some("completed")
        });
        let tries: [(&'static str, bool, Trial<'_>); 3] = [
            ("block", !completed && !earlier_open, &|c| {
                verbs::block(c, &task, SAMPLE_REASON, None)
            }),
            ("unblock", blocker == Some(id), &|c| {
                verbs::unblock(c, &task)
            }),
            ("reopen", completed, &|c| {
                verbs::reopen(c, &task, SAMPLE_REASON)
            }),
        ];
        for (verb, worth, f) in tries {
            if worth && ok(f) {
                out.push(Address::new(verb, Some(task.clone()), Vec::new()));
            }
        }
    }
    out
}

/// Why the plan as read refuses `verb` (a plan-wide decision: `approve`
/// or `reconcile`), in the words `act` would use; `None` when it takes it.
pub(crate) fn refusal(state: &Value, readme: Option<&[u8]>, verb: &str) -> Option<String> {
    let (scope, f): (Scope, Trial<'_>) = match verb {
        "approve" => (Scope::Shape, &verbs::approve),
        "reconcile" => (Scope::Full, &reconcile::reconcile),
        _ => return None,
    };
    apply(
        state.clone(),
        Files::Read { readme },
        "loopdeck".to_owned(),
        "1970-01-01T00:00:00Z".to_owned(),
        scope,
        f,
    )
    .err()
    .map(|e| e.to_string())
}

/// The updater's gates for any decision but approval: a ready plan, an
/// approved one.
pub(crate) fn ready_and_approved(state: &Value) -> Result<(), ActError> {
    ready(state)?;
    let approval = state
        .get("approval")
        .and_then(Value::as_str)
        .unwrap_or("approved");
    if !matches!(approval, "approved" | "pre_approved") {
        return Err(refuse("plan is not approved"));
    }
    Ok(())
}

pub(crate) fn ready(state: &Value) -> Result<(), ActError> {
    let materialization = state
        .get("materialization")
        .and_then(Value::as_str)
        .unwrap_or("ready");
    let promotion = state.get("promotion").is_some_and(|p| !p.is_null());
    if materialization != "ready" || promotion {
        return Err(refuse("plan is not ready"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::model::InboxKind;

    /// Every real plan (tests/fixtures/dwp-real-world, from
    /// shared/real-world/dwp).
    fn real_plans() -> Vec<PathBuf> {
        let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("tests/fixtures/dwp-real-world");
        let mut out = Vec::new();
        for group in std::fs::read_dir(root).unwrap() {
            for plan in std::fs::read_dir(group.unwrap().path()).unwrap() {
                let plan = plan.unwrap().path();
                if plan.join(STATE).is_file() {
                    out.push(plan);
                }
            }
        }
        out.sort();
        assert_eq!(out.len(), 4);
        out
    }

    #[test]
    fn every_real_state_is_coherent_and_rewritten_byte_for_byte() {
        for plan in real_plans() {
            let bytes = std::fs::read(plan.join(STATE)).unwrap();
            let doc = JsonDoc::parse(&bytes).unwrap();
            assert_eq!(
                rules::state_errors(&doc.clone().into_value()),
                Vec::<String>::new(),
                "{plan:?}"
            );
            // The write path's bytes for an unchanged value are the file's.
            assert_eq!(doc.to_bytes().unwrap(), bytes, "{plan:?}");
        }
    }

    /// An edit to a real state changes only the edited value's bytes: the
    /// v5 fixture's inline objects (`{ "kind": "file", "value": ... }`)
    /// stay on their line (the shared `JsonDoc` splices).
    #[test]
    fn an_edit_to_a_real_state_changes_only_its_value() {
        for plan in real_plans() {
            let bytes = std::fs::read(plan.join(STATE)).unwrap();
            let mut doc = JsonDoc::parse(&bytes).unwrap();
            let old = doc.value_mut()["updated_at"].as_str().unwrap().to_owned();
            doc.value_mut()["updated_at"] = Value::from("2030-01-01T00:00:00Z");
            let want = String::from_utf8(bytes.clone()).unwrap().replacen(
                &format!("\"{old}\""),
                "\"2030-01-01T00:00:00Z\"",
                1,
            );
            assert_eq!(
                String::from_utf8(doc.to_bytes().unwrap()).unwrap(),
                want,
                "{plan:?}"
            );
        }
    }

    #[test]
    fn inbox_items_carry_their_decision() {
        let full = real_plans()
            .into_iter()
            .find(|p| p.ends_with("PLAN_full_migration_fixture"))
            .unwrap();
        let p = crate::formats::dwp::load(&full).unwrap();
        let approval = p
            .inbox
            .iter()
            .find(|i| i.kind == InboxKind::Approval)
            .unwrap();
        assert_eq!(approval.act.as_ref().map(|a| a.verb), Some("approve"));

        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("PLAN_blocked_case");
        std::fs::create_dir(&dir).unwrap();
        let interrupted = real_plans()
            .into_iter()
            .find(|p| p.ends_with("PLAN_interrupted_fixture"))
            .unwrap();
        for f in ["manifest.json", "README.md", "PROGRESS.md"] {
            std::fs::copy(interrupted.join(f), dir.join(f)).unwrap();
        }
        let mut s: Value =
            serde_json::from_slice(&std::fs::read(interrupted.join(STATE)).unwrap()).unwrap();
        s["tasks"][1]["status"] = json!("blocked");
        s["status"] = json!("blocked");
        s["blocked"] = json!({"task": 2, "reason": "r", "since": "2026-06-01T10:00:00Z"});
        std::fs::write(dir.join(STATE), serde_json::to_vec_pretty(&s).unwrap()).unwrap();
        // The README unticks Task 1: a desync too.
        let readme = std::fs::read_to_string(dir.join(README)).unwrap();
        std::fs::write(dir.join(README), readme.replace("[x] Task 1", "[ ] Task 1")).unwrap();
        std::fs::create_dir(dir.join(LOCK)).unwrap();
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        std::fs::File::open(dir.join(LOCK))
            .unwrap()
            .set_modified(old)
            .unwrap();

        let p = crate::formats::dwp::load(&dir).unwrap();
        let acts: Vec<(InboxKind, &str, Option<&str>)> = p
            .inbox
            .iter()
            .filter_map(|i| {
                i.act
                    .as_ref()
                    .map(|a| (i.kind, a.verb, a.target.as_deref()))
            })
            .collect();
        assert!(
            acts.contains(&(InboxKind::Blocked, "unblock", Some("2"))),
            "{acts:?}"
        );
        assert!(
            acts.contains(&(InboxKind::Desync, "reconcile", None)),
            "{acts:?}"
        );
        assert!(
            acts.contains(&(InboxKind::Blocked, "unlock", None)),
            "{acts:?}"
        );
    }
}
