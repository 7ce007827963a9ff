//! The format-neutral kind of a status word. Each reader maps its format's
//! own status enum to a kind; views colour and mark by the kind and never
//! guess from the word.

use serde::{Deserialize, Serialize};

/// What a status means to the human watching, whatever the format calls it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StatusKind {
    /// Finished: completed, shipped, verified, fixed.
    Done,
    /// Work is going on: executing, coding, testing, in progress.
    Running,
    /// Waits for a human: a question, an approval, a paused agent.
    Waiting,
    /// Not started or still being shaped: planning, research, discussion, open.
    Planning,
    /// Cannot go on until something else happens.
    Blocked,
    /// Went wrong: a failed run, an error, a file that cannot be read.
    Failed,
    /// The state was rebuilt from other files (the state file is missing or corrupt).
    Rebuilt,
    /// Nothing is known, or the word is not one the format defines.
    #[default]
    Unknown,
}
