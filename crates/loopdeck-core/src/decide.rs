//! Making decisions: a verb on a project (`act`), or a new project in a
//! workspace, under the write rules (locks, compare and swap, atomic
//! replace, whole-line appends, the audit log); undoing and redoing them;
//! settling one a kill or a full disk interrupted; the audit trail. The
//! errors are typed ([`ActError`], [`Failure`]): the caller says them.

pub use crate::formats::act::{act, act_on_workspace};
pub use crate::store::lock::host_name;
pub use crate::store::txn::{
    ActError, Failure, FileChange, Outcome, Refusal, Stamp, WriteOptions, gate,
};

/// The audit log: every decision, its undo and redo, where each stands.
pub mod audit {
    pub use crate::store::audit::*;
}

/// Decisions a kill or a full disk interrupted, settled.
pub mod intent {
    pub use crate::store::intent::*;
}
