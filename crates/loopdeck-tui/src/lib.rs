//! loopdeck's console: `app` (one owned model and a pure `update` that
//! returns effects as data, tested without I/O), `ui` (render only: what
//! the model holds, drawn with ratatui), and `runtime` (the terminal, the
//! input, the timers and the effects). Built on `loopdeck-core`'s public
//! API alone; the binary hands it its settings ([`runtime::Settings`]),
//! it never reads the config file itself.
//!
//! Tests, one layout (as ratatui's): a module's unit tests are
//! `#[cfg(test)] mod tests`, inline, in `<module>/tests.rs`, or in
//! `<module>/tests/` by topic; nothing is named after an issue number.

#![warn(unreachable_pub)]

// The names the modules use for the core's model and the catalogues.
pub(crate) use loopdeck_core::model;
pub(crate) use loopdeck_i18n as i18n;
pub(crate) use loopdeck_i18n::t;

pub mod app;
pub mod runtime;
pub mod ui;
