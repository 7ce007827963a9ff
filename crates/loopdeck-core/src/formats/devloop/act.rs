//! The decisions a devloop project allows (`loopdeck act`, seeds 003/004):
//!
//! - `bug BUG-ID STATUS`: one step of the bug lifecycle (the reader's own
//!   table, [`super::lifecycle::next_states`]), a whole new line in
//!   `bugs.ndjson` carrying the full record and its `status_history`
//!   entry, and a `bug_transitioned` timeline event ([`bug`]).
//! - `resume-agent AGENT resume|restart`: for a paused agent, recorded in
//!   `agent-state/AGENT.json` as `resume_decision` ([`agent`]).
//! - `sign-off`, `abandon`, `requirement TEXT`: through the devloop server
//!   when `[devloop] api` names one; without it, sign-off and abandon write
//!   `project.json` and the timeline, and a requirement is refused
//!   ([`project`], [`http`]).
//!
//! Every human action appends a `timeline.ndjson` event with
//! `source: "human"` in the seed's shape ([`event`]). Timeline appends are
//! never compared against a snapshot: agents append to it all the time, and
//! an append cannot lose their lines.

mod agent;
mod bug;
mod event;
pub(crate) mod http;
mod pause;
mod project;
mod undone;

pub(crate) use project::FINISHED;
pub(crate) use undone::undone_event;

use std::path::Path;

use crate::model::{Format, Request, Verb};
use crate::store::txn::{ActError, Outcome, Refusal, WriteOptions};

/// Make `req` on the project in `dir`.
pub(crate) fn act(dir: &Path, req: &Request, opts: &WriteOptions) -> Result<Outcome, ActError> {
    match &req.verb {
        Verb::Bug {
            id,
            status,
            note,
            duplicate_of,
            fix_ref,
        } => bug::act(
            dir,
            req,
            opts,
            &bug::Move {
                id,
                to: status,
                note: note.as_deref(),
                duplicate_of: duplicate_of.as_deref(),
                fix_ref: fix_ref.as_deref(),
            },
        ),
        Verb::ResumeAgent { agent, choice } => agent::act(dir, req, opts, agent, choice),
        Verb::SignOff | Verb::Abandon | Verb::Requirement { .. } => project::act(dir, req, opts),
        other => Err(ActError::not_for(Format::Devloop, other)),
    }
}

fn refuse(msg: impl Into<String>) -> ActError {
    ActError::Refused(Refusal::new(msg))
}

/// The decision as the audit log and `--json` record it.
fn decision(req: &Request) -> serde_json::Value {
    serde_json::to_value(&req.verb).unwrap_or_default()
}

/// `2026-06-01T12:00:00Z`: the shape of every time the seed's files hold.
fn stamp(t: chrono::DateTime<chrono::Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}
