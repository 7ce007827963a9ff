//! loopdeck: a terminal console for the humans who supervise AI-agent
//! software projects. The library holds everything; `main.rs` is the edge.
//!
//! Layering: `model` (types, no I/O) ← `store` (disk) ← `formats` (one module
//! per file format) ← `cli`, `app` and `ui`. `model`, `store` and `formats`
//! never depend on the terminal crates (`tests/architecture.rs` checks it).
//! `config`, `exit`, `guard`, `i18n` and `options` are neutral: the command line
//! and the console both use them, and neither imports the other.
//!
//! Tests, one layout (as ratatui's: beside the module, or in `tests/`):
//! a module's unit tests are `#[cfg(test)] mod tests`, inline at the end of
//! its file, or in `<module>/tests.rs` when long (where Rust finds
//! `mod tests;` declared in `<module>.rs` or `<module>/mod.rs`: no
//! `#[path]`), or in `<module>/tests/` when they span several topics: the
//! shared helpers in `tests/mod.rs`, one file per topic named after what it
//! tests (`app/tests/`, `ui/tests/`, `config/tests/`). Test-only helpers
//! that other modules' tests use are a `#[cfg(test)]` module of their own
//! (`i18n::testing`, `ui::testing`, `model::every_string`). Integration
//! tests in the crate's `tests/` run the binary: one file per topic, its
//! parts in `tests/<file>/`, shared helpers in `tests/common/`. Nothing is
//! named after an issue number.

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
