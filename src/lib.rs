//! loopdeck: a terminal console for the humans who supervise AI-agent
//! software projects. The library holds everything; `main.rs` is the edge.
//!
//! Layering: `model` (types, no I/O) ← `store` (disk) ← `formats` (one module
//! per file format) ← `cli`, `app` and `ui`. `model`, `store` and `formats`
//! never depend on the terminal crates (`tests/architecture.rs` checks it).
//! `config`, `exit`, `guard`, `i18n` and `options` are neutral: the command line
//! and the console both use them, and neither imports the other.

pub mod config;
pub mod exit;
pub mod guard;
pub mod i18n;
pub mod model;
pub mod options;
pub mod store;
pub mod who;

pub mod app;
pub mod cli;
pub mod formats;
pub mod runtime;
pub mod ui;
pub mod watch;
