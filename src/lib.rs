//! loopdeck: a terminal console for the humans who supervise AI-agent
//! software projects. This package is the binary: the command line
//! (`cli`), the config file (`config`), the console's settings made from
//! it (`console`), and the exit codes (`exit`). It is built on
//! `loopdeck-core` (the model, the store, the formats, the watch engine:
//! its public API alone), `loopdeck-tui` (the console) and
//! `loopdeck-i18n` (the words); see ARCHITECTURE.md.
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

// The names the modules use for the core's model and the catalogues.
pub(crate) use loopdeck_core::model;
pub(crate) use loopdeck_i18n as i18n;
pub(crate) use loopdeck_i18n::t;

pub mod cli;
pub mod config;
pub mod console;
pub mod exit;
pub mod options;
