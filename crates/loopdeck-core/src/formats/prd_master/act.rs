//! The decisions this format allows (`loopdeck act`): answer a stage-1
//! question, bring a fact node's evidence, choose one of the offered
//! options, start a new project. Each is one transaction on `state.json`
//! (loopdeck's own lock: the seed defines none) that also appends the
//! exchange to `conversation.md`.
//!
//! A corrupt `state.json` is never written: every decision on it is
//! refused. `act` offers no rebuild of its own: the rebuilt stage is shown
//! by the reader and confirmed by PRD-master, which sets the corrupt file
//! aside first.

mod answer;
mod choose;
pub(crate) mod doc;
mod lang;
pub(crate) mod newproject;
mod quote;

use std::path::Path;

use crate::model::{Format, Request, Verb};
use crate::store::transact;
use crate::store::txn::{ActError, LockKind, Outcome, Refusal, Txn, WriteOptions};
use crate::store::{self, StoreError};

use super::STATE_FILE;
use answer::Resolve;

fn txn(dir: &Path, primary: &str, req: &Request, opts: &WriteOptions) -> Txn {
    Txn::new(
        dir,
        primary,
        LockKind::Owner,
        opts,
        &req.by,
        req.now,
        serde_json::to_value(&req.verb).unwrap_or(serde_json::Value::Null),
    )
}

/// Make `req` on the project in `dir`.
pub(crate) fn act(dir: &Path, req: &Request, opts: &WriteOptions) -> Result<Outcome, ActError> {
    let t = txn(dir, STATE_FILE, req, opts);
    match &req.verb {
        Verb::Answer {
            id: Some(id),
            text,
            key_decision,
            rationale,
        } => transact(&t, |snap| {
            answer::decide(
                snap,
                req,
                Resolve::Answer,
                id,
                text,
                *key_decision,
                rationale.as_deref(),
            )
        }),
        Verb::Answer { id: None, .. } => Err(ActError::Refused(Refusal::new(
            "a PRD-master answer names its question: `answer OQ-ID TEXT`",
        ))),
        Verb::Evidence { id, text } => transact(&t, |snap| {
            answer::decide(snap, req, Resolve::Evidence, id, text, false, None)
        }),
        Verb::Choose { option } => transact(&t, |snap| choose::decide(snap, req, option)),
        Verb::NewProject { .. } => Err(ActError::Refused(Refusal::new(
            "new-project works on a workspace directory, not inside a project",
        ))),
        other => Err(ActError::not_for(Format::PrdMaster, other)),
    }
}

/// Step 3b: start a new project in `workspace` (a directory named after
/// the project, holding a fresh v0.6 `state.json` and `conversation.md`).
pub(crate) fn new_project(
    workspace: &Path,
    req: &Request,
    opts: &WriteOptions,
) -> Result<Outcome, ActError> {
    let Verb::NewProject {
        name,
        work_type,
        mode,
    } = &req.verb
    else {
        return Err(ActError::not_for(Format::PrdMaster, &req.verb));
    };
    let refuse = |m: String| ActError::Refused(Refusal::new(m));
    if let Some(why) = newproject::bad_name(name) {
        return Err(refuse(format!("{why}: `{name}`")));
    }
    let mode = newproject::mode_for(work_type, mode.as_deref()).map_err(refuse)?;
    match store::locate(workspace, name) {
        Ok(None) => {}
        Ok(Some(_)) => {
            return Err(refuse(format!(
                "{name} already exists in {}; a new project gets a new directory",
                workspace.display()
            )));
        }
        Err(e) => return Err(refuse(format!("{name}: {e}"))),
    }
    // A symlink whose target is missing is not "missing".
    if std::fs::symlink_metadata(workspace.join(name)).is_ok() {
        return Err(refuse(format!(
            "{name} already exists in {}",
            workspace.display()
        )));
    }
    opts.gate()?;
    let primary = format!("{name}/{STATE_FILE}");
    let t = txn(workspace, &primary, req, opts);
    let decide =
        |snap: &mut store::txn::Snapshot| newproject::decide(snap, req, name, work_type, mode);
    if opts.dry_run {
        return transact(&t, decide);
    }
    let created = store::create_dir_in(workspace, name).map_err(|e| match e {
        StoreError::Io(io) if io.kind() == std::io::ErrorKind::AlreadyExists => {
            refuse(format!("{name} already exists in {}", workspace.display()))
        }
        other => ActError::Store {
            file: name.clone(),
            source: other,
        },
    })?;
    let result = transact(&t, decide);
    if result.is_err() {
        store::remove_empty_dir(&created);
    }
    result
}
