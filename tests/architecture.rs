//! Layering, checked on the sources:
//! - the backend never depends on the terminal: `model/`, `store/` and
//!   `formats/` do not name ratatui or crossterm, nor the modules above them;
//! - the console's loop (`runtime`) does not depend on the command line
//!   (`cli`): what both need (exit codes, global options, the config) lives
//!   in neutral modules;
//! - the console's behaviour (`app`) does not depend on its drawing (`ui`).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

use std::fs;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn sources(module: &str) -> Vec<(PathBuf, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    let dir = src.join(module);
    if dir.is_dir() {
        rust_files(&dir, &mut files);
    }
    let single = src.join(format!("{module}.rs"));
    if single.is_file() {
        files.push(single);
    }
    assert!(!files.is_empty(), "{module} has sources");
    files
        .into_iter()
        .map(|f| {
            let text = fs::read_to_string(&f).unwrap();
            (f, text)
        })
        .collect()
}

/// The crate's top-level modules `text` names: `crate::x`, and each name
/// of a `crate::{x, y::z}` group.
fn crate_modules(text: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = Vec::new();
    for (i, _) in text.match_indices("crate::") {
        let rest = &text[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut start = true;
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if c.is_whitespace() => {}
                    _ if start && depth == 0 => {
                        out.push(ident(&group[j..]));
                        start = false;
                    }
                    _ => {}
                }
            }
        } else {
            out.push(ident(rest));
        }
    }
    out
}

/// Every place in `module` that uses one of `forbidden` (crate modules, or
/// crates when `crates` is set).
fn violations(module: &str, forbidden: &[&str], crates: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for (f, text) in sources(module) {
        for m in crate_modules(&text) {
            if forbidden.contains(&m.as_str()) {
                found.push(format!("{} uses crate::{m}", f.display()));
            }
        }
        for c in crates {
            if text.contains(c) {
                found.push(format!("{} mentions {c}", f.display()));
            }
        }
    }
    found
}

#[test]
fn the_checker_sees_grouped_and_plain_imports() {
    assert_eq!(
        crate_modules("use crate::{formats, ui::Theme};\nlet x = crate::cli::EXIT_OK;"),
        ["formats", "ui", "cli"]
    );
    assert_eq!(
        crate_modules("use crate::{app::{self, Model}, model::x};"),
        ["app", "model"]
    );
}

#[test]
fn backend_modules_do_not_import_terminal_crates() {
    for module in ["model", "store", "formats"] {
        let v = violations(
            module,
            &["ui", "app", "runtime", "cli"],
            &["ratatui", "crossterm"],
        );
        assert!(v.is_empty(), "{v:#?}");
    }
}

#[test]
fn neutral_modules_import_neither_side() {
    for module in ["config", "exit", "options", "guard", "i18n"] {
        let v = violations(
            module,
            &["ui", "app", "runtime", "cli"],
            &["ratatui", "crossterm"],
        );
        assert!(v.is_empty(), "{v:#?}");
    }
}

#[test]
fn runtime_does_not_import_the_command_line() {
    let v = violations("runtime", &["cli"], &[]);
    assert!(v.is_empty(), "{v:#?}");
}

/// The app's own code never reaches for the UI (its tests may draw a
/// frame to check what a state looks like).
#[test]
fn app_does_not_import_the_ui() {
    let v: Vec<String> = violations("app", &["ui"], &[])
        .into_iter()
        .filter(|v| !v.contains("/tests"))
        .collect();
    assert!(v.is_empty(), "{v:#?}");
}
