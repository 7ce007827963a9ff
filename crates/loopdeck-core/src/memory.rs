//! What the console remembers in the state directory
//! (`$XDG_STATE_HOME/loopdeck`): what the user last looked at in each
//! project, and when each waiting item was first seen.

pub use crate::store::audit::default_dir as state_dir;

/// What the user last looked at (`seen.json`).
pub mod seen {
    pub use crate::store::seen::*;
}

/// When each waiting item was first seen (`first-seen.json`).
pub mod first_seen {
    pub use crate::store::first_seen::*;
}
