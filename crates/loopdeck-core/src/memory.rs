//! What the console remembers in the state directory
//! (`$XDG_STATE_HOME/loopdeck`): what the user last looked at in each
//! project, when each waiting item was first seen, and the last reading
//! of every project of a set of roots (the snapshot).

pub use crate::store::audit::default_dir as state_dir;

/// What the user last looked at (`seen.json`).
pub mod seen {
    pub use crate::store::seen::*;
}

/// When each waiting item was first seen (`first-seen.json`).
pub mod first_seen {
    pub use crate::store::first_seen::*;
}

/// The last reading of every project of a set of roots
/// (`snapshot-<hex>.json`): the console's first frame and `list --cached`.
pub mod snapshot {
    pub use crate::store::snapshot::{
        Cached, Entry, LOOPDECK_VERSION, MIN_GAP, RACY, SnapshotError, Taken, VERSION, Writer,
        changed_since, file_for, load, save, take,
    };
}
