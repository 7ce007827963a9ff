//! devloop: `data/companies/{cid}/projects/{pid}/` (seeds 003 and 004).
//! (Being written: see issue 3.)

use crate::model::Project;
use crate::store::WalkEntry;

/// Sub-directories of a devloop project that never hold another project;
/// the walk does not enter them once the project is found.
pub const OWN_DIRS: &[&str] = &[];

/// The devloop project in the directory `entry` describes, if it holds a
/// `project.json` with `company_id` and `status`.
pub fn discover(_entry: &WalkEntry<'_>) -> Option<Project> {
    None
}
