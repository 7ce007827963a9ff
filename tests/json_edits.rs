//! JSON edits are edits: `loopdeck act` on a PRD-master state rewrites
//! only what the decision changes; every untouched byte stays (big
//! integers, `1.50`, `1e3`, `\/` and `\u00e9` escapes, a duplicate key, a
//! one-line object, tabs, CRLF). Real binary, real files in temp dirs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;

use common::loopdeck;
use serde_json::Value;

/// Fields no answer touches, as a hand-written file might hold them.
const EXTRAS: &[&str] = &[
    "\"x_big\": 123456789012345678901234,",
    "\"x_price\": 1.50,",
    "\"x_limit\": 1e3,",
    "\"x_path\": \"a\\/b \\u00e9\",",
    "\"x_inline\": {\"a\": [1, 2], \"b\": \"c\"},",
    "\"x_dup\": 1,",
    "\"x_dup\": 2,",
];

/// The example project's state with `EXTRAS` after `workflow_version`,
/// indented with tabs or two spaces, lines ending CRLF or LF.
fn state(tabs: bool, crlf: bool) -> String {
    let src = fs::read_to_string(
        common::repo().join("examples/workspace/prd-master/fba-smart-restock/state.json"),
    )
    .unwrap();
    let mut lines = Vec::new();
    for line in src.lines() {
        let spaces = line.len() - line.trim_start_matches(' ').len();
        let indent = if tabs {
            "\t".repeat(spaces / 2)
        } else {
            " ".repeat(spaces)
        };
        lines.push(format!("{indent}{}", line.trim_start()));
        if line.trim_start().starts_with("\"workflow_version\"") {
            let one = if tabs { "\t" } else { "  " };
            lines.extend(EXTRAS.iter().map(|e| format!("{one}{e}")));
        }
    }
    let nl = if crlf { "\r\n" } else { "\n" };
    lines.join(nl) + nl
}

/// `answer OQ-7` on a copy of the example project holding `state`: the
/// state written.
fn answered(state: &str) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let xdg = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("fba-smart-restock");
    common::copy_dir(
        &common::repo().join("examples/workspace/prd-master/fba-smart-restock"),
        &dir,
    );
    fs::write(dir.join("state.json"), state).unwrap();
    let out = loopdeck()
        .env("XDG_STATE_HOME", xdg.path())
        .arg("act")
        .arg(&dir)
        .args(["answer", "OQ-7", "进入 MVP，只导出 CSV"])
        .args(["--now", "2026-06-01T12:00:00Z", "--by", "alice"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    fs::read_to_string(dir.join("state.json")).unwrap()
}

fn check(tabs: bool, crlf: bool) {
    let before = state(tabs, crlf);
    let after = answered(&before);
    let nl = if crlf { "\r\n" } else { "\n" };
    let one = if tabs { "\t" } else { "  " };
    // The untouched fields, byte for byte, in place.
    let block: String = EXTRAS.iter().map(|e| format!("{one}{e}{nl}")).collect();
    assert!(after.contains(&block), "extras rewritten:\n{after}");
    let head = |s: &str| s[..s.find("\"last_updated_at_utc\"").unwrap()].to_owned();
    assert_eq!(head(&after), head(&before));
    // The decision landed, in the file's style.
    let v: Value = serde_json::from_str(&after).unwrap();
    let open = v["open_questions"].as_array().unwrap();
    assert!(open.iter().all(|q| q["id"] != "OQ-7"), "{after}");
    assert!(after.contains("进入 MVP，只导出 CSV"), "{after}");
    assert_eq!(
        after.matches("\r\n").count() == after.matches('\n').count(),
        crlf
    );
    for line in after.lines() {
        let body = line.trim_start_matches(['\t', ' ']);
        let indent = &line[..line.len() - body.len()];
        assert!(
            if tabs {
                !indent.contains(' ')
            } else {
                !indent.contains('\t')
            },
            "{line:?}"
        );
    }
}

#[test]
fn an_answer_keeps_untouched_bytes_in_a_spaces_lf_state() {
    check(false, false);
}

#[test]
fn an_answer_keeps_untouched_bytes_in_a_tabs_crlf_state() {
    check(true, true);
}
