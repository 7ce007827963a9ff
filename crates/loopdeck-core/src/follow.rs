//! Following projects on disk as agents write them: the engine the
//! console and `watch --json` share (a watcher on directories, a pure
//! read scheduler, readings of only what changed).

pub use crate::watch::*;
