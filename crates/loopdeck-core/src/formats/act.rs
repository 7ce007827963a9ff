//! `loopdeck act`: find the project a directory holds and hand the decision
//! to its format, which alone knows the files and rules. The console calls
//! the same function.

use std::path::Path;

use crate::model::{Format, Project, Request, Verb};
use crate::store::txn::{ActError, Outcome, Refusal, WriteOptions};

use super::{devloop, dwp, gsd, prd_master};

/// Make `req` on the project `project` (as read by `show`).
pub fn act(project: &Project, req: &Request, opts: &WriteOptions) -> Result<Outcome, ActError> {
    lengths(&req.verb)?;
    match project.format {
        Format::PrdMaster => prd_master::act::act(&project.path, req, opts),
        Format::Gsd => gsd::act::act(&project.path, req, opts),
        Format::Dwp => dwp::act::act(&project.path, req, opts),
        Format::Devloop => devloop::act::act(&project.path, req, opts),
    }
}

/// `new-project` works on a workspace, not on a project.
pub fn act_on_workspace(
    workspace: &Path,
    req: &Request,
    opts: &WriteOptions,
) -> Result<Outcome, ActError> {
    lengths(&req.verb)?;
    match &req.verb {
        Verb::NewProject { .. } => prd_master::act::new_project(workspace, req, opts),
        other => Err(ActError::Refused(Refusal::new(format!(
            "{} needs a project directory",
            other.name()
        )))),
    }
}

/// Every text of the decision within its limit (see
/// [`Verb::check_lengths`]), else refused before any file is read.
fn lengths(verb: &Verb) -> Result<(), ActError> {
    verb.check_lengths()
        .map_err(|msg| ActError::Refused(Refusal::new(msg)))
}

/// `act DIR answer --help`: the two forms, as the formats' act code reads
/// them (PRD-master's `prd_master::act`, GSD's `gsd::act::bind` and
/// `pick`): kept here, beside them, so the file names it says are the
/// formats' own. Laid out by hand: the help prints it as it is.
pub const ANSWER_FORMS: &str = "\
PRD-master: answer OQ-ID TEXT
  TEXT answers question OQ-ID (`OQ-7`).

GSD: answer [SHA256] TEXT|N|LETTER
  Answers the question in .planning/WAITING.json (.gsd/WAITING.json when there is one),
  which has no id. When it offers options, N picks the one numbered N (1 for the first),
  LETTER the one it keys (`B` for `B. ...`), and an option's own text picks that option;
  any other TEXT is recorded as written.
  SHA256 (the sha256 of that WAITING.json, or its first 8 or more hex digits, as
  `loopdeck show DIR --json` lists the file) answers only if the file still has those
  bytes (exit 3 if not).
  The answer goes under Decisions in STATE.md as
  `- [Phase N]: question → answer — answered by NAME` (`— WHY` with --rationale WHY);
  the WAITING.json is removed.";
