//! `loopdeck act DIR add-decision|add-blocker|resolve-blocker|answer` on
//! GSD projects, through the real binary on real files in temp dirs: golden
//! before/after bytes, every untouched byte kept, refusals that write
//! nothing, the write flags, and parity over every real STATE.md (GSD's own
//! statusline parser reads the same fields after each decision, and
//! loopdeck's reader still reads the project).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure

mod common;

use std::fs;
use std::path::PathBuf;
use std::process::Output;

use common::{loopdeck, repo};
use loopdeck_core::formats::gsd::{self, statusline};

const NOW: &str = "2026-06-01T12:00:00Z";
/// `--now` as gsd-tools writes `last_updated` (`toISOString()`).
const NOW_GSD: &str = "\"2026-06-01T12:00:00.000Z\"";

struct Project {
    tmp: tempfile::TempDir,
    dir: PathBuf,
}

impl Project {
    fn new(state: &[u8]) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("proj");
        fs::create_dir_all(dir.join(".planning")).unwrap();
        fs::write(dir.join(".planning/STATE.md"), state).unwrap();
        Project { tmp, dir }
    }

    fn with(self, rel: &str, bytes: &str) -> Self {
        let p = self.dir.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, bytes).unwrap();
        self
    }

    fn state(&self) -> Vec<u8> {
        fs::read(self.dir.join(".planning/STATE.md")).unwrap()
    }

    fn text(&self) -> String {
        String::from_utf8(self.state()).unwrap()
    }

    fn exists(&self, rel: &str) -> bool {
        self.dir.join(rel).exists()
    }

    /// `loopdeck act DIR ARGS --now NOW --by alice`, with the audit log in
    /// the temp dir.
    fn act(&self, args: &[&str]) -> Output {
        self.act_with(args, &[])
    }

    fn act_with(&self, args: &[&str], extra: &[&str]) -> Output {
        loopdeck()
            .env("XDG_STATE_HOME", self.tmp.path().join("state"))
            .arg("act")
            .arg(&self.dir)
            .args(args)
            .args(["--now", NOW, "--by", "alice"])
            .args(extra)
            .output()
            .unwrap()
    }
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn ok(o: &Output) {
    assert_eq!(code(o), 0, "stderr: {}", stderr(o));
}

const TEMPLATE: &str = "---
gsd_state_version: '1.0'
milestone: v2.0
milestone_name: Code Quality
status: executing
active_phase: \"4.5\"
next_phases: [\"4.5\"]
progress:
  total_phases: 17
  completed_phases: 10
  percent: 59
current_phase: \"4\"
last_updated: \"2026-05-30T08:00:00.000Z\"
---

# Project State

## Current Position

Phase: 4 of 17 (Observability)
Status: Executing Phase 4

## Accumulated Context

### Decisions

None yet.

### Pending Todos

None yet.

### Blockers/Concerns

None yet.

## Session Continuity

Last session: 2026-05-30T08:00:00Z
Stopped at: Phase 4 P3
Resume file: None
";

fn refreshed(text: &str) -> String {
    text.replacen("\"2026-05-30T08:00:00.000Z\"", NOW_GSD, 1)
}

#[test]
fn add_decision_golden() {
    let p = Project::new(TEMPLATE.as_bytes());
    ok(&p.act(&[
        "add-decision",
        "Use SQLite",
        "--phase",
        "4",
        "--rationale",
        "one machine",
    ]));
    let expected = refreshed(TEMPLATE).replacen(
        "### Decisions\n\nNone yet.\n",
        "### Decisions\n\n- [Phase 4]: Use SQLite — one machine\n",
        1,
    );
    assert_eq!(p.text(), expected);
    // A second one follows it; without --phase the active phase is used.
    ok(&p.act(&["add-decision", "  Cache in Redis  "]));
    let expected = expected.replacen(
        "one machine\n",
        "one machine\n- [Phase 4.5]: Cache in Redis\n",
        1,
    );
    assert_eq!(p.text(), expected);
    let read = gsd::load(&p.dir).unwrap();
    assert_eq!(read.decisions.len(), 2);
    assert_eq!(read.decisions[1].summary, "Cache in Redis");
    assert_eq!(read.decisions[1].stage.as_deref(), Some("Phase 4.5"));
    assert_eq!(
        read.updated_at.unwrap().to_rfc3339(),
        "2026-06-01T12:00:00+00:00"
    );
}

#[test]
fn blockers_golden_on_a_crlf_file_without_a_final_newline() {
    let before = "---\r\nstatus: planning\r\nlast_updated: 2026-05-01 # hand\r\n---\r\n# State\r\n\r\n### Blockers/Concerns\r\n\r\n- [Phase 1]: API key missing\r\n- Design review pending";
    let p = Project::new(before.as_bytes());
    ok(&p.act(&["add-blocker", "CI is red"]));
    let added = before
        .replacen("2026-05-01 # hand", &format!("{NOW_GSD} # hand"), 1)
        .replacen("pending", "pending\r\n- CI is red", 1);
    assert_eq!(p.text(), added);
    ok(&p.act(&["resolve-blocker", "api KEY"]));
    let resolved = added.replacen("- [Phase 1]: API key missing\r\n", "", 1);
    assert_eq!(p.text(), resolved);
    assert_eq!(
        gsd::load(&p.dir).unwrap().blockers,
        vec!["Design review pending", "CI is red"]
    );
    ok(&p.act(&["resolve-blocker", "design review"]));
    ok(&p.act(&["resolve-blocker", "ci is red"]));
    assert_eq!(
        p.text(),
        resolved.replacen("- Design review pending\r\n- CI is red", "None", 1)
    );
    assert!(gsd::load(&p.dir).unwrap().blockers.is_empty());
}

#[test]
fn a_file_without_frontmatter_takes_the_line_and_gains_no_frontmatter() {
    let before =
        "# Project State\n\nStatus: planning\n\n## Key Decisions\n- Stack: Rust\n\n## Next\n";
    let p = Project::new(before.as_bytes());
    ok(&p.act(&["add-decision", "Use clap", "--phase", "Phase 1"]));
    // `## Key Decisions` is the file's own heading, not gsd-tools': its
    // scaffold goes at the end, as `gsd-tools state add-decision` writes.
    assert_eq!(
        p.text(),
        format!("{before}\n## Decisions\n\n- [Phase 1]: Use clap\n")
    );
}

const WAITING: &str = r#"{
  "status": "waiting",
  "type": "decision_point",
  "question": "Which database?",
  "options": ["SQLite", "Postgres"],
  "since": "2026-06-01T09:00:00.000Z",
  "phase": "3"
}"#;

#[test]
fn answer_records_a_decision_then_removes_waiting_json() {
    let p = Project::new(TEMPLATE.as_bytes())
        .with(".planning/WAITING.json", WAITING)
        .with(".gsd/WAITING.json", WAITING);
    let item = &gsd::load(&p.dir).unwrap().inbox[0];
    let address = item.act.as_ref().unwrap();
    assert_eq!(address.verb, "answer");
    assert_eq!(address.options, vec!["SQLite", "Postgres"]);
    assert_eq!(
        address.target.as_deref(),
        Some(loopdeck_core::store::sha256_hex(WAITING.as_bytes()).as_str())
    );
    // The console's path: the item's address, and a full-width 2 as typed
    // through an IME.
    let target = address.target.clone().unwrap();
    ok(&p.act(&[address.verb, &target, "２"]));
    assert_eq!(
        p.text(),
        refreshed(TEMPLATE).replacen(
            "### Decisions\n\nNone yet.\n",
            "### Decisions\n\n- [Phase 3]: Which database? → Postgres — answered by alice\n",
            1
        )
    );
    assert!(!p.exists(".planning/WAITING.json"));
    assert!(
        !p.exists(".gsd/WAITING.json"),
        "gsd-tools' signal-resume removes both"
    );
    assert!(gsd::load(&p.dir).unwrap().inbox.is_empty());
}

#[test]
fn answer_bound_to_the_waiting_json_it_was_read_from() {
    let p = Project::new(TEMPLATE.as_bytes()).with(".planning/WAITING.json", WAITING);
    let sha = loopdeck_core::store::sha256_hex(WAITING.as_bytes());
    ok(&p.act(&["answer", &sha[..12], "SQLite"]));
    assert!(
        p.text()
            .contains("- [Phase 3]: Which database? → SQLite — answered by alice\n")
    );
    assert!(!p.exists(".planning/WAITING.json"));
}

#[test]
fn answer_with_free_text_and_no_phase_in_the_signal() {
    let p = Project::new(TEMPLATE.as_bytes()).with(
        ".planning/WAITING.json",
        r#"{"status":"waiting","question":"Ship\nit?","options":[]}"#,
    );
    ok(&p.act(&["answer", "Yes, on Friday"]));
    assert!(
        p.text()
            .contains("- [Phase 4.5]: Ship it? → Yes, on Friday — answered by alice\n")
    );
    assert!(!p.exists(".planning/WAITING.json"));
}

fn assert_refused(p: &Project, args: &[&str], exit: i32, says: &str) {
    let state = p.state();
    let waiting = fs::read(p.dir.join(".planning/WAITING.json")).ok();
    let o = p.act(args);
    assert_eq!(code(&o), exit, "{args:?}: {}", stderr(&o));
    assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    assert_eq!(p.state(), state, "{args:?}: STATE.md untouched");
    assert_eq!(
        fs::read(p.dir.join(".planning/WAITING.json")).ok(),
        waiting,
        "{args:?}: WAITING.json untouched"
    );
    assert!(!p.exists(".planning/STATE.md.lock"), "no lock left behind");
}

/// A GSD project where nothing waits (no WAITING.json, as in the example
/// scene): every answer, with an id-looking first word or not, is told
/// that nothing is waiting and what an answer goes to; exit 1, no file
/// written. An answer pinned to a sha256 is a conflict instead (exit 3):
/// the question read is gone since.
#[test]
fn an_answer_where_nothing_waits_says_so_whatever_its_first_word() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("scene1");
    common::copy_dir(
        &repo().join("examples/workspace/gsd/scene1-active-phase"),
        &dir,
    );
    assert!(!dir.join(".planning/WAITING.json").exists());
    let before = common::snapshot(&dir);
    let state = tmp.path().join("state");
    let act = |args: &[&str]| {
        loopdeck()
            .env("XDG_STATE_HOME", &state)
            .arg("act")
            .arg(&dir)
            .args(args)
            .args(["--now", NOW])
            .output()
            .unwrap()
    };
    let said = "loopdeck: nothing is waiting for an answer in this project: an answer goes to \
                the question in .planning/WAITING.json (or .gsd/WAITING.json), and neither exists\n";
    for args in [
        &["answer", "OQ-1", "x"][..],
        &["answer", "x"],
        &["answer", "2"],
        &["answer", "Q-7", "   "],
        &["answer", "yes", "--json"],
    ] {
        let o = act(args);
        assert_eq!(code(&o), 1, "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o), said, "{args:?}");
        assert_eq!(common::snapshot(&dir), before, "{args:?}: nothing written");
    }
    let o = act(&["answer", "0123456789abcdef", "x"]);
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    assert!(stderr(&o).contains("is gone"), "{}", stderr(&o));
    assert_eq!(common::snapshot(&dir), before);
}

#[test]
fn refusals_write_nothing() {
    let p = Project::new(TEMPLATE.as_bytes());
    assert_refused(
        &p,
        &["answer", "yes"],
        1,
        "nothing is waiting for an answer",
    );
    assert_refused(
        &p,
        &["resolve-blocker", "nothing"],
        1,
        "no blocker matches \"nothing\"",
    );
    assert_refused(&p, &["add-decision", "two\nlines"], 1, "one line");
    assert_refused(&p, &["add-blocker", "   "], 1, "empty");
    assert_refused(&p, &["approve"], 1, "not a gsd decision");
    let p = p.with(".planning/WAITING.json", WAITING);
    assert_refused(&p, &["answer", "3"], 1, "option 3 does not exist");
    assert_refused(&p, &["answer", "Q-1", "yes"], 1, "has no id");
    // Bound to another WAITING.json than the one on disk: a conflict.
    assert_refused(
        &p,
        &["answer", "0123456789abcdef", "yes"],
        3,
        "changed on disk",
    );
    let p = p.with(".planning/WAITING.json", "{\"question\": ");
    assert_refused(&p, &["answer", "yes"], 1, "does not parse");
    let p = p.with(
        ".planning/WAITING.json",
        r#"{"status":"answered","question":"q"}"#,
    );
    assert_refused(&p, &["answer", "yes"], 1, "already answered");
}

/// Texts GSD's own parsers would read as structure (issue 19 §1): a line
/// break for JavaScript is refused by name, a bold label and a heading run
/// are escaped (rendering the same), a placeholder gsd-tools deletes is
/// refused, and a phase is a phase number.
#[test]
fn texts_gsd_reads_as_structure_are_refused_or_escaped() {
    let p = Project::new(TEMPLATE.as_bytes());
    assert_refused(
        &p,
        &["add-decision", "Use gRPC\u{2028}Phase: 9 of 9 (pwned)"],
        1,
        "U+2028 LINE SEPARATOR",
    );
    assert_refused(&p, &["add-decision", "a\u{202E}b"], 1, "U+202E");
    assert_refused(&p, &["add-blocker", "Nonexistent bucket"], 1, "\"none\"");
    assert_refused(&p, &["add-decision", "tests: none yet"], 1, "\"none yet\"");
    assert_refused(
        &p,
        &["add-decision", "x", "--phase", "1 (planned)"],
        1,
        "phase number",
    );
    ok(&p.act(&["add-decision", "**Status:** Complete ## Blockers"]));
    ok(&p.act(&["add-blocker", "see [RESOLVED] in ### notes"]));
    let text = p.text();
    assert!(
        text.contains("- [Phase 4.5]: **Status\\:** Complete #\\# Blockers\n"),
        "{text}"
    );
    assert!(
        text.contains("- see \\[RESOLVED\\] in #\\#\\# notes\n"),
        "{text}"
    );
    // GSD's status and position read as before (loopdeck's port of the
    // hook's rules).
    let read = gsd::load(&p.dir).unwrap();
    assert_eq!(read.decisions.len(), 1);
    let before = statusline::statusline(TEMPLATE);
    assert_eq!(
        statusline::statusline(&text),
        before,
        "the statusline reads as before"
    );
}

/// A text held by several blockers resolves none of them unless `--all`
/// (gsd-tools removes every line holding it, silently): the refusal names
/// them and writes nothing.
#[test]
fn resolving_a_text_several_blockers_hold_needs_all() {
    let p = Project::new(
        b"---\nstatus: x\n---\n# S\n### Blockers\n- API key missing\n- Design review\n- API rate limit\n",
    );
    assert_refused(&p, &["resolve-blocker", "API"], 1, "is in 2 blockers");
    let o = p.act(&["resolve-blocker", "API"]);
    assert!(stderr(&o).contains("- API key missing"), "{}", stderr(&o));
    assert!(stderr(&o).contains("- API rate limit"), "{}", stderr(&o));
    assert!(stderr(&o).contains("--all"), "{}", stderr(&o));
    ok(&p.act(&["resolve-blocker", "key missing"]));
    assert!(!p.text().contains("API key missing"));
    assert!(p.text().contains("- API rate limit\n"));
    let p = Project::new(
        b"---\nstatus: x\n---\n# S\n### Blockers\n- API key missing\n- Design review\n- API rate limit\n",
    );
    ok(&p.act(&["resolve-blocker", "API", "--all"]));
    let text = p.text();
    assert!(!text.contains("API"), "{text}");
    assert!(text.contains("- Design review\n"), "{text}");
}

#[test]
fn resolve_refusal_lists_the_blockers() {
    let p = Project::new(
        b"---\nstatus: x\n---\n# S\n### Blockers\n- API key missing\n- Design review\n",
    );
    let o = p.act(&["resolve-blocker", "billing"]);
    assert_eq!(code(&o), 1);
    let err = stderr(&o);
    assert!(
        err.contains(
            "the blockers under `### Blockers` are:\n  - API key missing\n  - Design review"
        ),
        "{err}"
    );
}

#[test]
fn a_state_md_that_does_not_parse_is_never_written() {
    for (bytes, says) in [
        (&b"---\nstatus: x\nno closing line\n"[..], "never closes"),
        (&b"---\nstatus: \xff\xfe\n---\n# S\n"[..], "not UTF-8"),
        (&b"\x00\x01\x02binary\n# S\n"[..], "control character"),
        (&b""[..], "empty"),
        (&b"plain words, no heading\n"[..], "neither a frontmatter"),
    ] {
        let p = Project::new(bytes);
        for args in [
            &["add-decision", "x"][..],
            &["add-blocker", "x"],
            &["resolve-blocker", "x"],
        ] {
            assert_refused(&p, args, 1, says);
        }
    }
}

#[test]
fn dry_run_and_readonly_write_nothing() {
    let p = Project::new(TEMPLATE.as_bytes()).with(".planning/WAITING.json", WAITING);
    let o = p.act_with(&["add-decision", "x"], &["--dry-run"]);
    ok(&o);
    assert!(String::from_utf8_lossy(&o.stdout).contains("dry run"));
    let o = p.act_with(&["answer", "1"], &["--dry-run"]);
    ok(&o);
    assert_eq!(p.text(), TEMPLATE);
    assert!(p.exists(".planning/WAITING.json"));
    let o = p.act_with(&["add-blocker", "x"], &["--readonly"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("read-only"));
    assert_eq!(p.text(), TEMPLATE);
}

#[test]
fn expect_sha256_binds_the_decision_to_the_bytes_read() {
    let p = Project::new(TEMPLATE.as_bytes());
    let wrong = "0".repeat(64);
    let o = p.act_with(&["add-blocker", "x"], &["--expect-sha256", &wrong]);
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    assert!(stderr(&o).contains("changed on disk"), "{}", stderr(&o));
    assert_eq!(p.text(), TEMPLATE);
    let right = loopdeck_core::store::sha256_hex(TEMPLATE.as_bytes());
    ok(&p.act_with(&["add-blocker", "x"], &["--expect-sha256", &right]));
    assert!(p.text().contains("\n- x\n"));
}

// ---------------------------------------------------------------------------
// Parity over every real STATE.md.

fn real_files() -> Vec<(String, String)> {
    let dirs = [
        repo().join("tests/fixtures/gsd-real-world"),
        PathBuf::from("/work/shared/real-world/gsd"),
    ];
    let mut out = Vec::new();
    for dir in dirs.iter().filter(|d| d.is_dir()) {
        let mut names: Vec<_> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.join("STATE.md").is_file())
            .collect();
        names.sort();
        for d in names {
            let name = format!(
                "{}/{}",
                dir.file_name().unwrap().to_string_lossy(),
                d.file_name().unwrap().to_string_lossy()
            );
            out.push((name, fs::read_to_string(d.join("STATE.md")).unwrap()));
        }
    }
    assert!(out.len() >= 60, "the real files are there");
    out
}

/// The lines of `after` that are not in `before` and the other way round,
/// in order (a plain LCS over lines).
fn line_changes(before: &str, after: &str) -> (Vec<String>, Vec<String>) {
    let a: Vec<&str> = before.split_inclusive('\n').collect();
    let b: Vec<&str> = after.split_inclusive('\n').collect();
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let (mut gone, mut new) = (Vec::new(), Vec::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            new.push(b[j].trim_end_matches(['\r', '\n']).to_owned());
            j += 1;
        } else {
            gone.push(a[i].trim_end_matches(['\r', '\n']).to_owned());
            i += 1;
        }
    }
    (gone, new)
}

/// Lines a decision may change besides its own entry: the frontmatter's
/// `last_updated`, placeholders replaced, blank lines of a scaffold.
fn allowed_gone(line: &str) -> bool {
    let t = line.trim().to_lowercase();
    line.starts_with("last_updated:")
        || t.is_empty()
        || t.trim_start_matches(['-', '*', ' ', '('])
            .starts_with("none")
        || t.starts_with("no decisions")
}

fn check_parity(name: &str, before: &str, after: &str, entry: &str, verb: &str) {
    assert_eq!(
        statusline::parse_state_md(before),
        statusline::parse_state_md(after),
        "{name} {verb}: GSD's statusline parser reads other fields"
    );
    let (gone, new) = line_changes(before, after);
    for g in &gone {
        assert!(
            allowed_gone(g) || (verb == "resolve-blocker" && g.contains(entry)),
            "{name} {verb}: line removed: {g:?}"
        );
    }
    for n in &new {
        let t = n.trim();
        assert!(
            n.starts_with("last_updated: \"2026-06-01T12:00:00.000Z\"")
                || t.is_empty()
                || t == "None"
                || t == "## Decisions"
                || t == "### Blockers"
                || (verb != "resolve-blocker" && n.contains(entry)),
            "{name} {verb}: line added: {n:?}"
        );
    }
}

#[test]
fn parity_over_every_real_state_md() {
    for (name, original) in real_files() {
        for crlf in [false, true] {
            let before = if crlf {
                original.replace('\n', "\r\n")
            } else {
                original.clone()
            };
            let p = Project::new(before.as_bytes());
            let read_before = gsd::load(&p.dir).unwrap();
            let status_before = loopdeck()
                .args(["status"])
                .arg(&p.dir)
                .output()
                .unwrap()
                .stdout;

            let entry = format!("loopdeck parity decision {crlf}");
            ok(&p.act(&["add-decision", &entry, "--phase", "9"]));
            let after = p.text();
            check_parity(&name, &before, &after, &entry, "add-decision");
            let read = gsd::load(&p.dir).unwrap();
            assert!(read.problems.is_empty(), "{name}: {:?}", read.problems);
            assert_eq!(read.statusline, read_before.statusline, "{name}");
            assert_eq!(read.status, read_before.status, "{name}");
            assert_eq!(read.stage, read_before.stage, "{name}");
            assert_eq!(
                read.decisions.len(),
                read_before.decisions.len() + 1,
                "{name}: the reader sees the new decision"
            );
            assert!(
                read.decisions
                    .iter()
                    .any(|d| d.summary == entry && d.stage.as_deref() == Some("Phase 9")),
                "{name}"
            );

            let blocker = format!("loopdeck parity blocker {crlf}");
            let before = after;
            ok(&p.act(&["add-blocker", &blocker]));
            let after = p.text();
            check_parity(&name, &before, &after, &blocker, "add-blocker");
            let read = gsd::load(&p.dir).unwrap();
            assert!(
                read.blockers.contains(&blocker.clone().into()),
                "{name}: the reader sees the new blocker: {:?}",
                read.blockers
            );

            let before = after;
            ok(&p.act(&["resolve-blocker", &blocker]));
            let after = p.text();
            check_parity(&name, &before, &after, &blocker, "resolve-blocker");
            let read = gsd::load(&p.dir).unwrap();
            assert!(!read.blockers.contains(&blocker.clone().into()), "{name}");
            assert_eq!(
                read.blockers.len() + 1,
                blockers_in(&before),
                "{name}: only that blocker went"
            );

            let status_after = loopdeck()
                .args(["status"])
                .arg(&p.dir)
                .output()
                .unwrap()
                .stdout;
            assert_eq!(status_after, status_before, "{name}: `loopdeck status`");
        }
    }
}

/// The files stay where they were: nothing but STATE.md was created.
#[test]
fn nothing_else_is_left_in_planning() {
    let p = Project::new(TEMPLATE.as_bytes());
    ok(&p.act(&["add-blocker", "x"]));
    let names: Vec<String> = fs::read_dir(p.dir.join(".planning"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["STATE.md"]);
}

fn blockers_in(text: &str) -> usize {
    let (_, body) = gsd::frontmatter::split(text);
    gsd::body::parse(body).blockers.len()
}
