//! What the console's reader keeps between readings, so reading a project
//! again costs what changed, not what it holds: NDJSON logs go on from the
//! offset last read, and files whose size, mtime and inode did not change
//! are not parsed again.
//!
//! One `ReadCache` lives as long as a console (or a `watch` feed); a
//! one-shot command reads without one. It is shared by the reading threads
//! (`Send + Sync`).

/// State kept between readings (see the module documentation).
#[derive(Debug, Default)]
pub struct ReadCache {}

impl ReadCache {
    pub fn new() -> Self {
        Self::default()
    }
}
