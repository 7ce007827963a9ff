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

