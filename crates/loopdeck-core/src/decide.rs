//! Making decisions: a verb on a project (`act`), or a new project in a
//! workspace, under the write rules (locks, compare and swap, atomic
//! replace, whole-line appends, the audit log); undoing and redoing them;
//! settling one a kill or a full disk interrupted; the audit trail. The
//! errors are typed ([`ActError`], [`Failure`]): the caller says them.

pub use crate::formats::act::{ANSWER_FORMS, act, act_on_workspace};
pub use crate::store::process::host_name;
pub use crate::store::txn::{
    ActError, Failure, FileChange, Outcome, Refusal, Stamp, WriteOptions, gate,
};

/// The audit log: every decision, its undo and redo, where each stands.
pub mod audit {
    pub use crate::formats::audit::{entry, of_project, undo, undo_found};
    pub use crate::store::audit::{
        Effect, FileRecord, NO_DIR, Op, Record, Standing, Which, default_dir, history,
    };
    // The workspace's tests: an undo without the format's vetting (a
    // store test's directory is no project), and a fresh id.
    #[cfg(feature = "testing")]
    pub use crate::{formats::audit::undo_checked, store::audit::new_id};
}

/// Decisions on another machine's project, over ssh: the `loopdeck call`
/// protocol (one JSON call on stdin, one JSON answer on stdout).
pub mod remote;

/// Decisions a kill or a full disk interrupted, settled.
pub mod intent {
    pub use crate::store::intent::{Settled, recover};
    // The workspace's tests plant an interrupted decision's intent.
    #[cfg(feature = "testing")]
    pub use crate::store::intent::{Added, Intent};
}
