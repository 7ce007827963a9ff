//! Strings stay as the files hold them; the terminal is protected where
//! they are printed. Project files carrying escape sequences (an OSC that
//! sets the terminal title, a CSI colour, a BEL, a C1 CSI, a right-to-left
//! override): `--json` gives each string back exactly (JSON-escaped, so
//! the bytes on the terminal are still text), and every plain output shows
//! the escapes in caret notation, never as the bytes themselves.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::path::{Path, PathBuf};

use common::{NOW, copy_dir, json, loopdeck, repo, write};

/// What the hostile strings hold, as a JSON string escapes it.
const EVIL_JSON: &str = r"\u001b]2;PWNED\u0007\u001b[31m\u009b1m\u202e";
/// The same, as the string itself.
const EVIL: &str = "\u{1b}]2;PWNED\u{7}\u{1b}[31m\u{9b}1m\u{202e}";
/// The same, as a terminal must show it.
const SHOWN: &str = "^[]2;PWNED^G^[[31m<U+009B>1m<U+202E>";

/// A workspace of one project per format, each with the hostile string in
/// a name, a title or a decision.
fn hostile_workspace() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    // PRD-master (a real example): the project name and OQ-7's title.
    let mut prd: serde_json::Value = serde_json::from_slice(
        &std::fs::read(repo().join("examples/workspace/prd-master/fba-smart-restock/state.json"))
            .unwrap(),
    )
    .unwrap();
    prd["project_name"] = format!("prd{EVIL}").into();
    prd["open_questions"][0]["title"] = format!("q{EVIL}").into();
    write(&ws.join("prd/state.json"), prd.to_string());
    assert!(
        prd.to_string().contains(r"\u001b]2;PWNED"),
        "written escaped"
    );
    // GSD: raw escape bytes in Markdown (a decision and a blocker).
    let state = std::fs::read_to_string(
        repo().join("examples/workspace/gsd/paused-waiting/.planning/STATE.md"),
    )
    .unwrap();
    let state = state.replacen(
        "### Decisions\n",
        &format!("### Decisions\n\n- [Phase 1]: gsd{EVIL} — why{EVIL}\n"),
        1,
    );
    assert!(state.contains("gsd\u{1b}"), "the decision is in");
    write(&ws.join("gsd/.planning/STATE.md"), state);
    // devloop: a bug whose title carries the escape.
    let dev = ws.join("dev/data/companies/acme/projects/p-x");
    copy_dir(
        &repo().join("examples/workspace/devloop/data/companies/acme/projects/p-restock"),
        &dev,
    );
    let mut bugs = std::fs::read_to_string(dev.join("bugs.ndjson")).unwrap();
    bugs.push_str(&format!(
        r#"{{"id":"bug-evil","discovered_at":"2026-06-01T10:00:00Z","source":"triage","category":"unknown","severity":"high","title":"bug{EVIL_JSON}","affected_units":[],"status":"open","status_history":[],"fix_refs":[]}}"#
    ));
    bugs.push('\n');
    write(&dev.join("bugs.ndjson"), bugs);
    (tmp, ws)
}

fn no_escape_bytes(out: &[u8], what: &str) {
    let text = String::from_utf8_lossy(out);
    for c in text.chars() {
        let bidi = matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        assert!(
            c == '\n' || !(c.is_control() || bidi),
            "{what}: {c:?} reached the terminal:\n{text}"
        );
    }
}

#[test]
fn show_json_gives_the_strings_back_as_the_files_hold_them() {
    let (_t, ws) = hostile_workspace();
    let prd = json(&["show", ws.join("prd").to_str().unwrap()]);
    assert_eq!(prd["project"]["name"], format!("prd{EVIL}"));
    assert_eq!(prd["frontier"]["questions"][0]["title"], format!("q{EVIL}"));
    let gsd = json(&["show", ws.join("gsd").to_str().unwrap()]);
    let decisions = gsd["decisions"].as_array().unwrap();
    assert!(
        decisions
            .iter()
            .any(|d| d["summary"] == format!("gsd{EVIL}") && d["rationale"] == format!("why{EVIL}")),
        "{decisions:?}"
    );
    let dev = json(&[
        "show",
        ws.join("dev/data/companies/acme/projects/p-x")
            .to_str()
            .unwrap(),
    ]);
    let bugs = dev["bugs"].as_array().unwrap();
    assert!(
        bugs.iter().any(|b| b["title"] == format!("bug{EVIL}")),
        "{bugs:?}"
    );
    // On the terminal, the JSON itself is text: `\u001b`, not ESC.
    let out = loopdeck()
        .args(["show", ws.join("prd").to_str().unwrap(), "--json"])
        .args(["--now", NOW])
        .output()
        .unwrap();
    no_escape_bytes(&out.stdout, "show --json");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(r"prd\u001b]2;PWNED\u0007"), "{text}");
    // `list --json` and `inbox --json` alike.
    let list = json(&["list", ws.to_str().unwrap()]);
    let names: Vec<&str> = list["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&format!("prd{EVIL}").as_str()), "{names:?}");
    let inbox = json(&["inbox", ws.to_str().unwrap()]);
    assert!(
        inbox["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["title"] == format!("q{EVIL}")),
        "{inbox}"
    );
}

#[test]
fn plain_output_shows_escapes_and_never_sends_them() {
    let (_t, ws) = hostile_workspace();
    let dev = ws.join("dev/data/companies/acme/projects/p-x");
    let (prd, gsd) = (ws.join("prd"), ws.join("gsd"));
    let path = |p: &Path| p.to_str().unwrap().to_owned();
    let runs: Vec<(Vec<String>, &str)> = vec![
        (vec!["list".into(), path(&ws)], "prd"),
        (vec!["inbox".into(), path(&ws)], "q"),
        (vec!["check".into(), path(&ws)], ""),
        (vec!["show".into(), path(&prd)], "prd"),
        (vec!["show".into(), path(&gsd)], "gsd"),
        (vec!["status".into(), path(&prd)], "prd"),
        // The plain show of devloop lists no bugs: no escape, nothing shown.
        (vec!["show".into(), path(&dev)], ""),
    ];
    for (args, prefix) in runs {
        let out = loopdeck()
            .args(&args)
            .args(["--now", NOW])
            .output()
            .unwrap();
        no_escape_bytes(&out.stdout, &format!("{args:?} stdout"));
        no_escape_bytes(&out.stderr, &format!("{args:?} stderr"));
        if !prefix.is_empty() {
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(
                text.contains(&format!("{prefix}{SHOWN}")),
                "{args:?} shows the escape:\n{text}"
            );
        }
    }
}

#[test]
fn messages_about_hostile_paths_are_shown_safe() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(format!("gone{EVIL}"));
    for args in [
        vec!["show", dir.to_str().unwrap()],
        vec!["list", dir.to_str().unwrap()],
        vec!["status", dir.to_str().unwrap()],
    ] {
        let out = loopdeck().args(&args).output().unwrap();
        assert!(!out.status.success(), "{args:?}");
        no_escape_bytes(&out.stderr, &format!("{args:?} stderr"));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("gone{SHOWN}")), "{args:?}: {err}");
    }
}

/// A real GSD file loopdeck did not write, with an escape added: it reads,
/// and its other strings are the file's own bytes.
#[test]
fn a_real_state_md_keeps_its_bytes_in_the_model() {
    let tmp = tempfile::tempdir().unwrap();
    let src = repo().join("tests/fixtures/gsd-real-world");
    let mut checked = 0;
    for e in std::fs::read_dir(&src).unwrap() {
        let e = e.unwrap();
        let state = e.path().join("STATE.md");
        if !state.is_file() {
            continue;
        }
        let text = std::fs::read_to_string(&state).unwrap();
        // The first entry under the Decisions heading, when there is one.
        let Some(at) = text.find("### Decisions") else {
            continue;
        };
        let Some(line) = text[at..]
            .lines()
            .skip(1)
            .take_while(|l| !l.starts_with('#'))
            .find(|l| l.starts_with("- "))
        else {
            continue;
        };
        let dir = tmp.path().join(e.file_name());
        write(&dir.join(".planning/STATE.md"), &text);
        if json(&["show", dir.to_str().unwrap()])["decisions"]
            .as_array()
            .is_none_or(Vec::is_empty)
        {
            continue; // "- None yet."
        }
        let evil = text.replacen(line, &format!("{line}{EVIL}"), 1);
        write(&dir.join(".planning/STATE.md"), &evil);
        let shown = json(&["show", dir.to_str().unwrap()]);
        let decisions = shown["decisions"].as_array().unwrap();
        assert!(
            decisions.iter().any(|d| {
                [&d["summary"], &d["rationale"]]
                    .iter()
                    .any(|s| s.as_str().is_some_and(|s| s.ends_with(EVIL)))
            }),
            "{}: {decisions:?}",
            e.path().display()
        );
        checked += 1;
    }
    assert!(checked >= 20, "{checked}");
}
