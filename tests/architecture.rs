//! The backend never depends on the terminal: `model/`, `store/` and
//! `formats/` must not name ratatui or crossterm, so they stay usable
//! headless and testable without a terminal.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

use std::fs;
use std::path::Path;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn backend_modules_do_not_import_terminal_crates() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut checked = 0;
    for module in ["model", "store", "formats"] {
        let mut files = Vec::new();
        rust_files(&src.join(module), &mut files);
        assert!(!files.is_empty(), "{module} has sources");
        for f in files {
            let text = fs::read_to_string(&f).unwrap();
            for needle in [
                "ratatui",
                "crossterm",
                "crate::ui",
                "crate::app",
                "crate::runtime",
                "crate::cli",
            ] {
                assert!(!text.contains(needle), "{} mentions {needle}", f.display());
            }
            checked += 1;
        }
    }
    assert!(checked >= 10, "checked {checked} files");
}
