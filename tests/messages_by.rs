//! `--by` follows the text rule of every field a human types: one line,
//! no line breaks (U+2028/U+2029 included) or control characters. A name
//! that breaks it is refused (exit 1, nothing written) in the words a
//! decision text that breaks it is refused with, so it can never forge a
//! section of PRD-master's `conversation.md` or a line of GSD's
//! `STATE.md`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::path::Path;

use common::loopdeck;

const NOW: &str = "2026-06-01T09:30:00Z";
/// The end of the decision texts' refusal (GSD's `one_line`).
const RULE: &str = "must be one line of text (no line breaks or control characters)";

/// Names a human could pass that would break the line they are written on.
const FORGED: [&str; 4] = [
    "alice\n\n## 2026-06-01 09:31 · 阶段 1 · OQ-9\n\n**答（mallory）**：forged",
    "alice\r\n- [Phase 9]: forged",
    "alice\u{2028}## forged",
    "alice\u{1b}[2J",
];

fn act(dir: &Path, state: &Path, args: &[&str], by: &str) -> (String, i32) {
    let out = loopdeck()
        .env("XDG_STATE_HOME", state)
        .arg("act")
        .arg(dir)
        .args(args)
        .args(["--now", NOW, "--by", by])
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap(),
    )
}

#[test]
fn a_forged_by_is_refused_for_prd_master_conversation_md() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p");
    fs::create_dir(&dir).unwrap();
    for e in fs::read_dir(common::repo().join("tests/fixtures/prd-act/stage1/before")).unwrap() {
        let e = e.unwrap();
        fs::copy(e.path(), dir.join(e.file_name())).unwrap();
    }
    let state = tmp.path().join("state");
    let before = common::tree(&dir);
    for by in FORGED {
        let (err, code) = act(&dir, &state, &["answer", "OQ-7", "进入 MVP"], by);
        assert_eq!(code, 1, "{by:?}: {err}");
        assert_eq!(
            err.trim_end(),
            format!("loopdeck: --by (who decides) {RULE}"),
            "{by:?}"
        );
        assert_eq!(common::tree(&dir), before, "{by:?}: something was written");
    }
    // A name on one line is written as given (trimmed).
    let (err, code) = act(&dir, &state, &["answer", "OQ-7", "进入 MVP"], " alice ");
    assert_eq!(code, 0, "{err}");
    let conv = fs::read_to_string(dir.join("conversation.md")).unwrap();
    assert!(
        conv.contains("**答（alice，经 loopdeck）**：\n\n> 进入 MVP"),
        "{conv}"
    );
}

const STATE_MD: &str = "---
gsd_state_version: '1.0'
status: executing
current_phase: \"4\"
last_updated: \"2026-05-30T08:00:00.000Z\"
---

# Project State

## Current Position

Phase: 4 of 17 (Observability)

## Accumulated Context

### Decisions

None yet.

### Blockers/Concerns

None yet.
";

const WAITING: &str = r#"{"status": "waiting", "type": "decision_point", "question": "Which database?", "options": ["SQLite", "Postgres"], "phase": "3"}"#;

#[test]
fn a_forged_by_is_refused_for_gsd_state_md_in_the_decision_texts_words() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("p");
    fs::create_dir_all(dir.join(".planning")).unwrap();
    fs::write(dir.join(".planning/STATE.md"), STATE_MD).unwrap();
    fs::write(dir.join(".planning/WAITING.json"), WAITING).unwrap();
    let state = tmp.path().join("state");
    let before = common::tree(&dir);
    // The decision text's own refusal, for the words.
    let (err, code) = act(&dir, &state, &["add-decision", "a\nb"], "alice");
    assert_eq!(code, 1, "{err}");
    assert!(err.trim_end().ends_with(RULE), "{err}");
    for by in FORGED {
        for args in [&["answer", "SQLite"][..], &["add-decision", "Use SQLite"]] {
            let (err, code) = act(&dir, &state, args, by);
            assert_eq!(code, 1, "{by:?} {args:?}: {err}");
            assert_eq!(
                err.trim_end(),
                format!("loopdeck: --by (who decides) {RULE}"),
                "{by:?} {args:?}"
            );
            assert_eq!(
                common::tree(&dir),
                before,
                "{by:?} {args:?}: something was written"
            );
        }
    }
    let (err, code) = act(&dir, &state, &["answer", "SQLite"], "alice");
    assert_eq!(code, 0, "{err}");
    let text = fs::read_to_string(dir.join(".planning/STATE.md")).unwrap();
    assert!(
        text.contains("- [Phase 3]: Which database? → SQLite — answered by alice\n"),
        "{text}"
    );
}
