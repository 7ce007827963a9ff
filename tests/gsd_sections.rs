//! Where loopdeck writes a GSD decision, blocker and answer (issue 19 §2):
//! where gsd-tools' own section rule finds it, on every real STATE.md, LF
//! and CRLF. A file whose decisions (or blockers) sit under a heading that
//! rule does not take (`## Key Decisions`, `**Blockers/Concerns**`…) gets
//! gsd-tools' own scaffold at its end, as `gsd-tools state add-decision`
//! writes it, and keeps its own section byte for byte.
//!
//! The rule, as gsd-tools 1.42.3 writes it (state.cjs, cmdStateAddDecision,
//! cmdStateAddBlocker):
//! `###?\s*(?:Decisions|Decisions Made|Accumulated.*Decisions)\s*\n([\s\S]*?)(?=\n###?|\n##[^#]|$)`
//! (`Blockers|Blockers/Concerns|Concerns` for blockers), case-insensitive;
//! without a match it appends `\n## Decisions\n\n- entry\n` (`### Blockers`).
//! This test reads it line by line, which is all these files need; the
//! byte-exact port is unit-tested against the JavaScript in
//! src/formats/gsd/splice/tests.rs, and bench/compat/gsd runs gsd-tools
//! itself.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;
use std::path::Path;

use common::{loopdeck, repo};

const NOW: &str = "2026-06-01T12:00:00Z";

fn decisions_title(t: &str) -> bool {
    let t = t.to_ascii_lowercase();
    t == "decisions"
        || t == "decisions made"
        || (t.starts_with("accumulated") && t.ends_with("decisions"))
}

fn blockers_title(t: &str) -> bool {
    let t = t.to_ascii_lowercase();
    t == "blockers" || t == "blockers/concerns" || t == "concerns"
}

/// The body of gsd-tools' section: the lines after the first line holding
/// `##` + a title the rule takes, up to the next line starting with `##`.
fn gsd_body(text: &str, title: fn(&str) -> bool) -> Option<Vec<String>> {
    let lines: Vec<&str> = text.split('\n').map(|l| l.trim_end_matches('\r')).collect();
    let heading = lines.iter().position(|l| {
        l.find("##")
            .is_some_and(|k| title(l[k..].trim_start_matches('#').trim()))
    })?;
    Some(
        lines[heading + 1..]
            .iter()
            .take_while(|l| !l.starts_with("##"))
            .map(|l| (*l).to_owned())
            .collect(),
    )
}

/// The lines of a file, its frontmatter's `last_updated` aside (the one
/// line every decision refreshes).
fn kept_lines(text: &str) -> Vec<&str> {
    text.split('\n')
        .map(|l| l.trim_end_matches('\r'))
        .filter(|l| !l.starts_with("last_updated:"))
        .collect()
}

fn act(dir: &Path, state: &Path, args: &[&str]) {
    let out = loopdeck()
        .env("XDG_STATE_HOME", state)
        .arg("act")
        .arg(dir)
        .args(args)
        .args(["--now", NOW, "--by", "alice"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Checks one decision: the entry is in gsd-tools' section after it; a
/// file that had none kept every line and gained gsd-tools' scaffold.
fn placed(
    name: &str,
    before: &str,
    after: &str,
    entry: &str,
    title: fn(&str) -> bool,
    scaffold: &str,
) -> Vec<String> {
    let mut bad = Vec::new();
    let line = after
        .split('\n')
        .map(|l| l.trim_end_matches('\r'))
        .find(|l| l.contains(entry))
        .map(str::to_owned);
    let Some(line) = line else {
        return vec![format!("{name}: {entry:?} not written")];
    };
    match gsd_body(after, title) {
        Some(body) if body.contains(&line) => {}
        _ => bad.push(format!(
            "{name}: {line:?} is not in the section gsd-tools reads"
        )),
    }
    if gsd_body(before, title).is_none() {
        let (b, a) = (kept_lines(before), kept_lines(after));
        let b: Vec<&str> = {
            let end = b.iter().rposition(|l| !l.is_empty()).map_or(0, |i| i + 1);
            b[..end].to_vec()
        };
        let tail: Vec<&str> = a.get(b.len()..).unwrap_or_default().to_vec();
        let tail: Vec<&str> = tail.into_iter().filter(|l| !l.is_empty()).collect();
        if !a.starts_with(&b) || tail != [scaffold, line.as_str()] {
            bad.push(format!(
                "{name}: not gsd-tools' scaffold after the file's own lines: {tail:?}"
            ));
        }
    }
    bad
}

#[test]
fn every_entry_is_where_gsd_tools_reads_it_on_every_real_file() {
    let fixtures = repo().join("tests/fixtures/gsd-real-world");
    let mut names: Vec<_> = fs::read_dir(&fixtures)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("STATE.md").is_file())
        .collect();
    names.sort();
    assert_eq!(names.len(), 60, "the 60 real files are there");
    let mut bad = Vec::new();
    let (mut own_decisions, mut own_blockers) = (0, 0);
    for path in &names {
        let original = fs::read_to_string(path.join("STATE.md")).unwrap();
        if gsd_body(&original, decisions_title).is_none()
            && original.to_lowercase().contains("decision")
        {
            own_decisions += 1;
        }
        if gsd_body(&original, blockers_title).is_none()
            && original.to_lowercase().contains("blocker")
        {
            own_blockers += 1;
        }
        for crlf in [false, true] {
            let name = format!(
                "{}{}",
                path.file_name().unwrap().to_string_lossy(),
                if crlf { " (CRLF)" } else { "" }
            );
            let text = if crlf {
                original.replace('\n', "\r\n")
            } else {
                original.clone()
            };
            let tmp = tempfile::tempdir().unwrap();
            let dir = tmp.path().join("p");
            let state = dir.join(".planning/STATE.md");
            fs::create_dir_all(dir.join(".planning")).unwrap();
            fs::write(&state, &text).unwrap();
            let audit = tmp.path().join("audit");

            let decision = "loopdeck places this decision";
            act(&dir, &audit, &["add-decision", "--phase", "9", decision]);
            let after = fs::read_to_string(&state).unwrap();
            bad.extend(placed(
                &name,
                &text,
                &after,
                decision,
                decisions_title,
                "## Decisions",
            ));

            let blocker = "loopdeck places this blocker";
            let before = after;
            act(&dir, &audit, &["add-blocker", blocker]);
            let after = fs::read_to_string(&state).unwrap();
            bad.extend(placed(
                &name,
                &before,
                &after,
                blocker,
                blockers_title,
                "### Blockers",
            ));

            // An answer is a decision line: the same rule.
            fs::write(
                dir.join(".planning/WAITING.json"),
                r#"{"status":"waiting","question":"Which transport?","options":["REST","gRPC"]}"#,
            )
            .unwrap();
            act(&dir, &audit, &["answer", "2"]);
            let answered = fs::read_to_string(&state).unwrap();
            bad.extend(placed(
                &name,
                &after,
                &answered,
                "Which transport? → gRPC",
                decisions_title,
                "## Decisions",
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{} misplaced:\n{}",
        bad.len(),
        bad.join("\n")
    );
    // The files this is about (issue 19: 14 keep decisions under their
    // own heading, 7 their blockers) are among the real ones.
    assert!(
        own_decisions >= 14 && own_blockers >= 7,
        "{own_decisions} {own_blockers}"
    );
}
