//! loopdeck: a terminal console for the humans who supervise AI-agent
//! software projects. The library holds everything; `main.rs` is the edge.
//!
//! Layering: `model` (types, no I/O) ← `store` (disk) ← `formats` (one module
//! per file format) ← `cli`, `app` and `ui`. `model`, `store` and `formats`
//! never depend on the terminal crates (`tests/architecture.rs` checks it).

pub mod model;
pub mod store;

pub mod app;
pub mod cli;
pub mod formats;
pub mod runtime;
pub mod ui;
