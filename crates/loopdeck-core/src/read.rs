//! Finding and reading projects: every root walked, one directory read
//! again, a project completed and checked, what a view asks for later
//! (excerpts of its read-first files, a revision's section diff, events
//! older than those held), and what the disk allows a view to open.

use std::path::Path;

use crate::model::{Event, Project};

pub use crate::formats::{
    Discovery, check, compare_revision, complete, discover, excerpts, file_name, light_status,
    load_dir, read_under,
};
pub use crate::store::{StoreError, contained, locate_file};

/// Events of `p`'s log before the newest one `is_anchor` accepts, up to
/// `want`, newest last; where its format keeps such a log
/// (`Shape::older_events`).
pub struct Older {
    /// The events read back, oldest first.
    pub events: Vec<Event>,
    /// The walk reached the log's first line: nothing older exists.
    pub at_start: bool,
    /// The anchor was not found (the log was replaced): nothing was read.
    pub lost: bool,
}

/// Read back events older than those a reading of the project at `dir`
/// holds (see [`Older`]).
pub fn older_events(
    dir: &Path,
    is_anchor: impl Fn(&Event) -> bool,
    want: usize,
) -> Result<Older, StoreError> {
    let o = crate::formats::devloop::older::before(dir, is_anchor, want)?;
    Ok(Older {
        events: o.events,
        at_start: o.at_start,
        lost: o.lost,
    })
}

/// `p`'s project again from `dir` (a test helper's `Project::path`).
pub fn project_at(dir: &Path) -> Option<Project> {
    load_dir(dir).projects.into_iter().find(|p| p.path == dir)
}
