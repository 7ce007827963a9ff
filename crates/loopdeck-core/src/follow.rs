//! Following projects on disk as agents write them: the engine the
//! console and `watch --json` share (a watcher on directories, a pure
//! read scheduler, readings of only what changed).
//!
//! A front end starts an [`Engine`] on its roots with a [`Sink`] (its one
//! channel), hands every [`Msg`] it receives back to
//! [`Engine::handle`], and applies each [`Update`] (a [`Reading`] of some
//! projects, the [`Liveness`] of the watch) to its own model; it asks for
//! re-reads with [`Target`]s, and runs slow jobs on [`job_worker`].

pub use crate::watch::{
    Engine, Liveness, Mode, Msg, Options, Reading, Sink, Target, Update, job_worker,
};

// The workspace's tests drive the watcher alone.
#[cfg(feature = "testing")]
pub use crate::watch::watcher;
