//! loopdeck's core: the format-neutral model, the one way to touch disk
//! (`store`), the four file formats (`formats`), and the engine that
//! follows projects on disk (`watch`). No terminal crate is a dependency:
//! the console (`loopdeck-tui`) and the command line (the `loopdeck`
//! binary) are built on what this crate makes public, and nothing else.
//!
//! What it offers (see each module):
//! - [`model`]: the types every view shows (projects, inbox items, the
//!   detail parts, phrases, escalation rules, stalls) and their text rules;
//! - [`read`]: find and read projects, read a project's excerpts, older
//!   events, a revision's section diff, and what each format looks like;
//! - [`decide`]: make a decision (`act`), undo and redo it, settle
//!   interrupted ones, the audit trail, and the typed errors;
//! - [`memory`]: what the user looked at and when items were first seen,
//!   kept in the state directory;
//! - [`follow`]: the watch engine shared by the console and `watch --json`;
//! - [`fleet`]: other machines' projects over ssh (hosts, the ssh command);
//! - [`guard`] and [`who`]: panics caught per directory, the login name.
//!
//! How it does it stays private: `formats` (each format's file names and
//! rules) and `store` (bounded reads, atomic replace, locks, compare and
//! swap, the audit log) are not public, so no crate above names a
//! format's files. The workspace's integration tests, benches and fuzz
//! targets reach them through the `testing` feature only.
//!
//! Tests, one layout (as ratatui's): a module's unit tests are
//! `#[cfg(test)] mod tests`, inline, in `<module>/tests.rs`, or in
//! `<module>/tests/` by topic; nothing is named after an issue number.

#![warn(unreachable_pub, missing_docs)]

// The catalogues' words and macros, under the names the modules use.
pub(crate) use loopdeck_i18n as i18n;
pub(crate) use loopdeck_i18n::t;

pub mod guard;
pub mod model;
pub mod who;

/// Declares an item `pub` when the `testing` feature is on and
/// `pub(crate)` when it is off: the few internals of `formats`, `store`
/// and `watch` that the workspace's integration tests, benches and fuzz
/// targets name (the modules on their paths included), and nothing else.
/// The item is written `pub` inside `testing_pub!( ... );`; the macro
/// writes it twice under opposite `cfg`s, since `cfg_attr` cannot change
/// a visibility. Parentheses, not braces, so that rustfmt still formats
/// the item.
macro_rules! testing_pub {
    ($(#[$attr:meta])* pub $($item:tt)*) => {
        #[cfg(feature = "testing")]
        $(#[$attr])* pub $($item)*
        #[cfg(not(feature = "testing"))]
        $(#[$attr])* pub(crate) $($item)*
    };
}

// Private to the crate; public only to the workspace's own tests,
// benches and fuzz targets (`--features testing`), never to another
// crate's code. The watch engine is public as `follow`.
testing_pub!(
    pub mod formats;
);
testing_pub!(
    pub mod store;
);
mod watch;

pub mod decide;
pub mod fleet;
pub mod follow;
pub mod memory;
pub mod read;
