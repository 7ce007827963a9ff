//! A decision as the audit log tells it (`loopdeck audit`, the console's
//! "decisions made" list): who made it, when, on which project, in a few
//! words, and where it stands now. Built by `store::audit` from its
//! records; shown by the CLI and the console alike.

use std::path::PathBuf;

use chrono::{DateTime, Utc};

/// One decision of the audit log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    /// Its audit id (the time it was made, to the microsecond, and six random
    /// hex digits).
    pub id: String,
    /// When it was written (the real clock).
    pub at: Option<DateTime<Utc>>,
    /// Who made it (`--by`, or the login name).
    pub by: String,
    /// The project's directory.
    pub project: PathBuf,
    /// The verb, what it was about and the start of its text
    /// (`answer OQ-4: 先按库龄天数…`, `undo of 2026…`).
    pub summary: String,
    /// Where it stands now.
    pub standing: AuditStanding,
}

/// Where a decision stands now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuditStanding {
    /// Made and not undone.
    InForce,
    /// Undone by the undo with this audit id.
    Undone(String),
    /// Undone, then put back by the redo with this audit id.
    Redone(String),
    /// An undo or a redo itself.
    Reversal,
}

impl AuditEntry {
    /// The project's directory name (its path when it has none).
    pub fn project_name(&self) -> String {
        self.project
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.project.to_string_lossy().into_owned())
    }
}

impl AuditStanding {
    /// In a word (`undone`), for a narrow screen.
    pub fn short(&self) -> &'static str {
        match self {
            AuditStanding::InForce => crate::t!("cli.audit.in_force"),
            AuditStanding::Undone(_) => crate::t!("cli.audit.undone_short"),
            AuditStanding::Redone(_) => crate::t!("cli.audit.redone_short"),
            AuditStanding::Reversal => crate::t!("cli.audit.reversal"),
        }
    }

    /// In the language spoken (`in force`, `undone by ID`…).
    pub fn shown(&self) -> String {
        match self {
            AuditStanding::InForce => crate::t!("cli.audit.in_force").to_owned(),
            AuditStanding::Undone(by) => crate::t!("cli.audit.undone", id = by),
            AuditStanding::Redone(by) => crate::t!("cli.audit.redone", id = by),
            AuditStanding::Reversal => crate::t!("cli.audit.reversal").to_owned(),
        }
    }
}
