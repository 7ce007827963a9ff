//! Deep Work Plan: each `.dwp/plans/PLAN_*` directory is a project (seed 002).
//! (Being written: see issue 3.)

use crate::model::Project;
use crate::store::WalkEntry;

/// The directory that holds plans; the walk does not enter it.
pub const DWP_DIR: &str = ".dwp";

/// Every plan of the repository `entry` describes (it holds `.dwp/`), or the
/// plan `entry` itself is (a `PLAN_*` directory under `.dwp/plans/`).
pub fn discover(_entry: &WalkEntry<'_>) -> Vec<Project> {
    Vec::new()
}
