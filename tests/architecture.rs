//! What the crate graph does not say, checked on the sources (issue 21):
//! the crates themselves keep the backend off the terminal (`loopdeck-core`
//! has no terminal crate, and neither it nor `loopdeck-i18n` depends on the
//! console or the binary), and the console off the command line.
//! - Inside the console crate, the behaviour (`app`) does not depend on its
//!   drawing (`ui`).
//! - No crate above the core names a format's files: the console and the
//!   command line learn them from the core's data (`Shape`, `Place`,
//!   `Outcome`), never from a string of their own (test code and comments
//!   aside: `act`'s `--help` text is written in doc comments).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

use std::fs;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            // Tests and their fixtures name what they test.
            if p.file_name().is_some_and(|n| n == "tests") {
                continue;
            }
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs")
            && p.file_name().is_some_and(|n| n != "tests.rs")
        {
            out.push(p);
        }
    }
}

/// The production lines of every source file under `dir`: no comment
/// lines, nothing after a `#[cfg(test)]`.
fn code_lines(dir: &Path) -> Vec<(PathBuf, usize, String)> {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    let mut out = Vec::new();
    for f in files {
        let text = fs::read_to_string(&f).unwrap();
        for (n, line) in text.lines().enumerate() {
            let t = line.trim_start();
            if t.starts_with("#[cfg(test)]") {
                break;
            }
            if t.starts_with("//") {
                continue;
            }
            out.push((f.clone(), n + 1, line.to_owned()));
        }
    }
    out
}

#[test]
fn the_app_does_not_import_the_ui() {
    let app = repo().join("crates/loopdeck-tui/src/app");
    let v: Vec<String> = code_lines(&app)
        .into_iter()
        .filter(|(_, _, l)| l.contains("crate::ui") || l.contains("super::ui"))
        .map(|(f, n, l)| format!("{}:{n}: {}", f.display(), l.trim()))
        .collect();
    assert!(v.is_empty(), "{v:#?}");
}

#[test]
fn no_crate_above_the_core_names_a_formats_files() {
    const FILES: &[&str] = &[
        "state.json",
        "STATE.md",
        "WAITING.json",
        "project.json",
        "bugs.ndjson",
        "timeline.ndjson",
        "changelog.ndjson",
        "units.json",
        "agent-state",
        "PROGRESS.md",
        "conversation.md",
        ".finalizing.json",
        ".planning",
        ".dwp",
    ];
    let mut v = Vec::new();
    for dir in ["src", "crates/loopdeck-tui/src"] {
        for (f, n, line) in code_lines(&repo().join(dir)) {
            for name in FILES {
                if line.contains(&format!("\"{name}")) || line.contains(&format!("/{name}\"")) {
                    v.push(format!("{}:{n}: {}", f.display(), line.trim()));
                }
            }
        }
    }
    assert!(v.is_empty(), "{v:#?}");
}
