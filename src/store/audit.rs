//! loopdeck's audit log: every decision written (who, when, which files,
//! sha256 before and after, the decision) and the bytes it replaced, for
//! the last decisions, so `loopdeck undo` can put them back.
//!
//! FIRST VERSION: a stub; the store's rewrite fills it.

use std::path::{Path, PathBuf};

use super::txn::{ActError, Outcome, Refusal, WriteOptions};

/// loopdeck's audit directory: `$XDG_STATE_HOME/loopdeck` (else
/// `~/.local/state/loopdeck`).
pub fn default_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "loopdeck")
        .and_then(|d| d.state_dir().map(Path::to_path_buf))
}

/// Which decision to undo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Which {
    Last,
    Id(String),
}

/// Put back the bytes decision `which` replaced; refused (a conflict) when
/// a file has moved on since.
pub fn undo(dir: &Path, which: &Which, opts: &WriteOptions) -> Result<Outcome, ActError> {
    let _ = (dir, which, opts);
    Err(ActError::Refused(Refusal::new("undo is not built yet")))
}
