//! End to end (tmux): `--readonly` writes nothing at all. A console run
//! with it reads what was looked at last time (the Overview still says
//! what changed since), but saves nothing: the state directory is byte for
//! byte, mtime for mtime, what it was; the header and the section say so.
//! Needs tmux; skipped, saying so, without it outside CI.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use common::NOW;
use common::tmux::{Tmux, skip_without_tmux};
use sha2::{Digest, Sha256};

/// Every entry under `dir` (directories too): path, kind, mode, size,
/// mtime to the nanosecond, and a file's sha256.
fn listing(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let m = fs::symlink_metadata(e.path()).unwrap();
            let bytes = if m.is_file() {
                let sum = Sha256::digest(fs::read(e.path()).unwrap());
                sum.iter().map(|b| format!("{b:02x}")).collect()
            } else {
                String::new()
            };
            out.push(format!(
                "{} {:o} {} {}.{} {bytes}",
                e.path().display(),
                m.mode(),
                m.len(),
                m.mtime(),
                m.mtime_nsec()
            ));
            if m.is_dir() {
                stack.push(e.path());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn readonly_reads_since_you_looked_and_saves_nothing() {
    if skip_without_tmux() {
        return;
    }
    let (tmp, ws) = common::workspace();
    let (state, env) = common::state_dir(tmp.path());

    // A console that may write: it remembers what was looked at.
    let first = Tmux::new("ro-1");
    first.start_with(&ws, NOW, "80", "24", &[&env], &[]);
    first.wait_for("paused-waiting");
    first.keys(&["/"]);
    first.keys(&["-l", "paused-waiting"]);
    first.keys(&["Enter"]);
    first.wait_for("Projects /paused-waiting 1/");
    first.keys(&["Enter"]);
    first.wait_for("projects › paused-waiting");
    first.keys(&["q"]);
    first.wait_for("EXITED:0");
    assert!(state.join("loopdeck/seen.json").is_file());
    drop(first);

    // The project moves on while the console is closed.
    let file = ws.join("gsd/paused-waiting/.planning/STATE.md");
    let text = fs::read_to_string(&file).unwrap();
    fs::write(&file, text.replace("percent: 45", "percent: 60")).unwrap();
    let before = listing(&state);

    // Read-only: the header says nothing is saved; what changed since the
    // last look is still told, and said not to be saved; looking at
    // projects (which a writing console remembers) saves nothing.
    let ro = Tmux::new("ro-2");
    ro.start_with(&ws, NOW, "80", "24", &[&env], &["--readonly"]);
    let s = ro.wait_for("• paused-waiting");
    assert!(s.contains("READ-ONLY · nothing saved"), "{s}");
    ro.keys(&["n"]);
    ro.keys(&["Enter"]);
    let s = ro.wait_for("Since you looked");
    assert!(s.contains("read-only: this look is not saved"), "{s}");
    assert!(s.contains("progress    45% → 60%"), "{s}");
    ro.keys(&["Escape"]);
    ro.wait_for("Projects");
    ro.keys(&["j"]);
    ro.keys(&["Enter"]);
    ro.wait_for("projects › ");
    ro.keys(&["Escape"]);
    ro.keys(&["q"]);
    ro.wait_for("EXITED:0");
    drop(ro);
    assert_eq!(
        listing(&state),
        before,
        "--readonly wrote to the state directory"
    );
}
