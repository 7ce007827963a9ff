//! GSD placeholders (issue 19 §2), through the real binary: what gsd-tools'
//! add-blocker / add-decision substitution empties (`None`, `None.` among
//! blockers; `None yet`, `No decisions yet` among decisions) goes when
//! loopdeck adds an entry, and nothing else does (gsd-tools turns
//! `- (none)` into `- ()` and keeps it; loopdeck keeps the human's line as
//! it is). A placeholder item (`*None.*`, `(none)`, `n/a`) is not listed as
//! a blocker by `show`, and is refused as a new blocker, so nothing
//! accepted is then hidden.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::loopdeck;

const NOW: &str = "2026-06-01T12:00:00Z";

fn project(state: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p");
    fs::create_dir_all(dir.join(".planning")).unwrap();
    fs::write(dir.join(".planning/STATE.md"), state).unwrap();
    (tmp, dir)
}

fn act(tmp: &Path, dir: &Path, args: &[&str]) -> Output {
    loopdeck()
        .env("XDG_STATE_HOME", tmp.join("audit"))
        .arg("act")
        .arg(dir)
        .arg(args[0])
        .args(["--now", NOW, "--by", "alice"])
        .args(&args[1..])
        .output()
        .unwrap()
}

fn state(dir: &Path) -> String {
    fs::read_to_string(dir.join(".planning/STATE.md")).unwrap()
}

fn blockers_shown(dir: &Path) -> Vec<String> {
    let out = loopdeck()
        .args(["show", "--json"])
        .arg(dir)
        .args(["--now", NOW])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["blockers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn only_the_lines_gsd_tools_empties_go_when_an_entry_is_added() {
    // Real shapes (MiszczuZPolski__KAM `- *None.*`, Minamon44 `- (none)`,
    // `None yet.` under blockers, Mocktra-Forge__Mockly `- None yet.`
    // under decisions): gsd-tools leaves `- **`, `- ()`, `yet.`, `- `.
    for (heading, kept, verb, text) in [
        (
            "### Blockers",
            "- *None.*",
            "add-blocker",
            "API key missing",
        ),
        ("### Blockers", "- (none)", "add-blocker", "API key missing"),
        (
            "### Blockers/Concerns",
            "None yet.",
            "add-blocker",
            "API key missing",
        ),
        ("### Decisions", "- None yet.", "add-decision", "Use gRPC"),
    ] {
        let before = format!("# S\n\n{heading}\n\n{kept}\n\n## Session\n");
        let (tmp, dir) = project(&before);
        let out = act(tmp.path(), &dir, &[verb, text]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let after = state(&dir);
        assert!(
            after.contains(&format!("\n{kept}\n")),
            "{kept:?} kept: {after}"
        );
        assert!(after.contains(text), "{after}");
    }
    // What gsd-tools empties goes, as gsd-tools removes it.
    for (heading, gone, verb) in [
        ("### Blockers", "None.", "add-blocker"),
        ("### Blockers", "None", "add-blocker"),
        ("### Decisions", "No decisions yet.", "add-decision"),
        ("### Decisions", "None yet.", "add-decision"),
    ] {
        let (tmp, dir) = project(&format!("# S\n\n{heading}\n\n{gone}\n\n## Session\n"));
        let out = act(tmp.path(), &dir, &[verb, "Use gRPC"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !state(&dir).contains(gone),
            "{gone:?} goes: {}",
            state(&dir)
        );
    }
}

#[test]
fn placeholder_items_are_not_blockers_and_are_not_accepted_as_one() {
    let before = "# S\n\n### Blockers\n\n- *None.*\n- (none)\n- _n/a_\n- real one\n";
    let (tmp, dir) = project(before);
    assert_eq!(blockers_shown(&dir), vec!["real one"]);
    for text in ["n/a", "N/A.", "TBD", "(none)", "*None.*", "—", "-"] {
        let out = act(tmp.path(), &dir, &["add-blocker", "--", text]);
        assert_eq!(out.status.code(), Some(1), "{text:?} refused");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("placeholder") || err.contains("\"none\""),
            "{text:?}: {err}"
        );
        assert_eq!(state(&dir), before, "{text:?} wrote");
    }
    // A blocker that only mentions such a word is one.
    let out = act(
        tmp.path(),
        &dir,
        &["add-blocker", "TBD: who owns the API key"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        blockers_shown(&dir),
        vec!["real one", "TBD: who owns the API key"]
    );
}
