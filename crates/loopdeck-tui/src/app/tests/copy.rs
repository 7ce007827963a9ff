//! `y` copies and `o` / `e` open (issue 11 §4), on the pure update: the
//! example workspace (and projects written to temp dirs) read as the
//! console reads them, keys pressed, the effects checked.

use std::path::{Path, PathBuf};

use chrono::TimeZone;

use super::{code, key};
use crate::app::*;

const REFUSAL: &str = "(OSC 52: your terminal must allow clipboard writes)";

fn workspace() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("examples/workspace")
}

/// The console on `root`, every project read.
fn console(root: &Path, readonly: bool) -> Model {
    let mut m = Model::new(
        vec![root.to_string_lossy().into_owned()],
        readonly,
        Utc.with_ymd_and_hms(2026, 6, 1, 12, 0, 0).unwrap(),
    );
    let projects = loopdeck_core::read::discover(&[root.to_path_buf()]).projects;
    update(&mut m, Event::Loaded(projects));
    m
}

fn typed(m: &mut Model, s: &str) {
    for c in s.chars() {
        update(m, key(c));
    }
}

/// Narrow the focused list to `text` (the filter stays).
fn filter(m: &mut Model, text: &str) {
    update(m, key('/'));
    typed(m, text);
    update(m, code(KeyCode::Enter));
}

/// Open the detail of the one project matching `text`, on `tab`.
fn open(m: &mut Model, text: &str, tab: Tab) {
    filter(m, text);
    assert_eq!(panes::projects(m).len(), 1, "one project matches {text}");
    update(m, code(KeyCode::Enter));
    run(m, Command::GoTab(tab));
    assert_eq!((m.focus, m.tab), (Focus::Detail, tab));
}

/// What `y` puts on the clipboard here.
fn y(m: &mut Model) -> Option<String> {
    update(m, key('y')).into_iter().find_map(|e| match e {
        Effect::Copy(text) => Some(text),
        _ => None,
    })
}

/// What `c` (`o` or `e`) opens here: the file and its project's directory.
fn opened(m: &mut Model, c: char) -> Option<(PathBuf, String, bool)> {
    update(m, key(c)).into_iter().find_map(|e| match e {
        Effect::Open { dir, file, editor } => Some((dir, file, editor)),
        _ => None,
    })
}

#[test]
fn y_copies_a_projects_path_from_the_list_and_the_overview() {
    let root = workspace();
    let mut m = console(&root, false);
    filter(&mut m, "fba-smart");
    let path = root.join("prd-master/fba-smart-restock");
    assert_eq!(y(&mut m).as_deref(), Some(path.to_str().unwrap()));
    let status = m.status.clone().unwrap();
    assert!(status.starts_with("copied "), "{status}");
    assert!(status.ends_with(REFUSAL), "{status}");
    update(&mut m, code(KeyCode::Enter));
    assert_eq!(m.tab, Tab::Overview);
    assert_eq!(y(&mut m).as_deref(), Some(path.to_str().unwrap()));
}

/// A project found under a relative root is copied as an absolute path,
/// from where the console started.
#[test]
fn a_relative_project_path_is_copied_absolute() {
    let mut p = Project::new(Format::Gsd, PathBuf::from("work/alpha"), "alpha".into());
    p.id = "alpha".into();
    let mut m = Model::new(vec![".".into()], false, Utc::now());
    m.seen.base = PathBuf::from("/home/me");
    update(&mut m, Event::Loaded(vec![p]));
    assert_eq!(y(&mut m).as_deref(), Some("/home/me/work/alpha"));
}

#[test]
fn y_copies_an_inbox_items_reference_and_title() {
    let mut m = console(&workspace(), false);
    update(&mut m, key('i'));
    filter(&mut m, "OQ-7");
    assert_eq!(y(&mut m).as_deref(), Some("OQ-7 批量导出是否进入 MVP"));
    assert_eq!(
        m.status.as_deref(),
        Some(format!("copied OQ-7 批量导出是否进入 MVP {REFUSAL}").as_str())
    );
}

#[test]
fn y_copies_a_question_a_task_a_finding() {
    let mut m = console(&workspace(), false);
    open(&mut m, "fba-smart", Tab::Frontier);
    assert_eq!(y(&mut m).as_deref(), Some("OQ-7 批量导出是否进入 MVP"));

    let mut m = console(&workspace(), false);
    open(&mut m, "PLAN_search_index", Tab::Tasks);
    update(&mut m, key('j'));
    assert_eq!(
        y(&mut m).as_deref(),
        Some("2 Build the incremental indexer")
    );

    let mut m = console(&workspace(), false);
    open(&mut m, "PLAN_search_index", Tab::Findings);
    let first = &m.selected_project().unwrap().findings;
    let expected = first[panes::findings(m.selected_project().unwrap(), "")[0]]
        .message
        .clone();
    assert!(expected.contains("README ticks task 2"), "{expected}");
    assert_eq!(y(&mut m), Some(expected));
}

#[test]
fn y_copies_a_bug_a_unit_a_timeline_event() {
    let mut m = console(&workspace(), false);
    open(&mut m, "p-restock", Tab::Bugs);
    assert_eq!(y(&mut m).as_deref(), Some("bug-20260530-1012-77aa"));
    // In the bug's drawer too.
    update(&mut m, code(KeyCode::Enter));
    assert!(m.drawer.is_some());
    assert_eq!(y(&mut m).as_deref(), Some("bug-20260530-1012-77aa"));

    let mut m = console(&workspace(), false);
    open(&mut m, "p-restock", Tab::Units);
    let first = {
        let p = m.selected_project().unwrap();
        p.detail.units[panes::units(p, "")[0]].id.to_string()
    };
    assert_eq!(y(&mut m), Some(first));

    // The Timeline follows its end: the newest event.
    let mut m = console(&workspace(), false);
    open(&mut m, "p-restock", Tab::Timeline);
    let newest = m
        .selected_project()
        .unwrap()
        .detail
        .timeline
        .last()
        .unwrap()
        .summary
        .clone();
    assert_eq!(y(&mut m), Some(newest));
    update(&mut m, key('g'));
    assert_eq!(y(&mut m).as_deref(), Some("PASS sales-sync-be 8/8"));
}

/// A GSD agent waiting on a yes/no question, read from a temp dir.
fn yes_no_project(root: &Path) {
    let planning = root.join("ship/.planning");
    std::fs::create_dir_all(&planning).unwrap();
    std::fs::write(
        planning.join("STATE.md"),
        "---\ngsd_state_version: 1.0\nstatus: paused\nstopped_at: \"Phase 2\"\nlast_updated: \"2026-06-01T11:00:00.000Z\"\n---\n\n# Project State\n",
    )
    .unwrap();
    std::fs::write(
        planning.join("WAITING.json"),
        r#"{"status":"waiting","type":"decision","question":"Ship the release today?","options":["yes, ship it","no, wait"],"since":"2026-06-01T10:00:00Z","phase":"2"}"#,
    )
    .unwrap();
}

/// In the inbox, `y` picks an item's yes option when it has one (issue
/// 10), and copies only otherwise; the hints and the help say which.
#[test]
fn the_inboxs_y_picks_yes_before_it_copies() {
    let tmp = tempfile::tempdir().unwrap();
    yes_no_project(tmp.path());
    std::fs::create_dir_all(tmp.path().join("other")).unwrap();
    std::fs::copy(
        workspace().join("prd-master/fba-smart-restock/state.json"),
        tmp.path().join("other/state.json"),
    )
    .unwrap();
    let mut m = console(tmp.path(), false);
    update(&mut m, key('i'));
    filter(&mut m, "Ship the release");
    let texts = |m: &Model| -> Vec<String> { hints(m).into_iter().map(|h| h.text).collect() };
    let help_y = |m: &Model| {
        help_rows(m)
            .into_iter()
            .find(|r| r.keys == "y")
            .map(|r| r.description)
    };
    assert!(
        texts(&m).contains(&"y/n yes/no".to_owned()),
        "{:?}",
        texts(&m)
    );
    assert!(!texts(&m).contains(&"y copy".to_owned()));
    assert_eq!(
        help_y(&m).as_deref(),
        Some("inbox: pick the item's yes option")
    );
    let effects = update(&mut m, key('y'));
    assert!(!effects.iter().any(|e| matches!(e, Effect::Copy(_))));
    assert_eq!(m.mode, Mode::Decide, "y picked the yes option");
    update(&mut m, code(KeyCode::Esc));
    update(&mut m, code(KeyCode::Esc));
    assert_eq!(m.mode, Mode::Normal);

    // An item without a yes option: y copies.
    filter(&mut m, "OQ-7");
    assert!(texts(&m).contains(&"y copy".to_owned()), "{:?}", texts(&m));
    assert!(
        !texts(&m)
            .iter()
            .any(|t| t.starts_with("y/n") || t == "y yes")
    );
    assert!(help_y(&m).unwrap().starts_with("copy"));
    assert_eq!(y(&mut m).as_deref(), Some("OQ-7 批量导出是否进入 MVP"));
    assert_eq!(m.mode, Mode::Normal);
}

/// What a file holds is cleaned before it reaches the clipboard: no
/// escape, no newline (a pasted newline runs a command), no bidi
/// override; 200 KB is cut to 100 KB, and the status says so.
#[test]
fn copied_text_is_clean_and_capped() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("evil");
    std::fs::create_dir_all(&dir).unwrap();
    let mut state: serde_json::Value = serde_json::from_slice(
        &std::fs::read(workspace().join("prd-master/fba-smart-restock/state.json")).unwrap(),
    )
    .unwrap();
    let hostile = "rm -rf ~\n\u{1b}]52;c;ZXZpbA==\u{7}\u{202e}txt.exe\u{9b}2J";
    let questions = state["open_questions"].as_array_mut().unwrap();
    questions[0]["title"] = serde_json::Value::from(hostile);
    questions[1]["title"] = serde_json::Value::from("x".repeat(200 * 1024));
    std::fs::write(dir.join("state.json"), state.to_string()).unwrap();

    let mut m = console(tmp.path(), false);
    update(&mut m, key('i'));
    let texts: Vec<String> = (0..2)
        .map(|_| {
            let t = y(&mut m).unwrap();
            update(&mut m, key('j'));
            t
        })
        .collect();
    let evil = texts.iter().find(|t| t.contains("rm -rf")).unwrap();
    assert!(
        !evil
            .chars()
            .any(|c| c.is_control() || c == '\u{202e}' || c == '\u{9b}'),
        "{evil:?}"
    );
    assert!(
        evil.contains("rm -rf ~  ]52;c;ZXZpbA==  txt.exe 2J"),
        "{evil:?}"
    );
    let long = texts.iter().find(|t| t.contains("xxxx")).unwrap();
    assert!(long.len() <= copy::MAX_COPY, "{}", long.len());
    assert!(long.len() > copy::MAX_COPY - 64, "{}", long.len());
    // Cut at a character, never inside one.
    let (cleaned, cut) = copy::clean(&"问".repeat(copy::MAX_COPY));
    assert!(cut && cleaned.len() <= copy::MAX_COPY);
    assert!(cleaned.chars().all(|c| c == '问'));
}

#[test]
fn the_status_says_when_the_copy_was_cut() {
    let mut p = Project::new(Format::Gsd, PathBuf::from("/w/a"), "a".into());
    p.id = "a".into();
    p.blockers.push("b".repeat(copy::MAX_COPY + 10).into());
    let mut m = Model::new(vec!["/w".into()], false, Utc::now());
    update(&mut m, Event::Loaded(vec![p]));
    update(&mut m, code(KeyCode::Enter));
    run(&mut m, Command::GoTab(Tab::Phases));
    assert_eq!(y(&mut m).map(|t| t.len()), Some(copy::MAX_COPY));
    let status = m.status.clone().unwrap();
    assert!(
        status.starts_with("copied the first 100 KB of bbb"),
        "{status}"
    );
    assert!(status.ends_with(REFUSAL));
}

/// `o` opens the file of what is selected, each a file the project has.
#[test]
fn o_opens_the_selected_file() {
    let root = workspace();
    let check = |m: &mut Model, want: &str| {
        let (dir, file, editor) = opened(m, 'o').expect("an open effect");
        assert_eq!(file, want);
        assert!(!editor);
        assert!(dir.join(&file).is_file(), "{}", dir.join(&file).display());
    };
    let mut m = console(&root, false);
    filter(&mut m, "fba-smart");
    check(&mut m, "state.json");
    update(&mut m, code(KeyCode::Enter));
    // The Overview: the resume card's first "read first" file.
    check(&mut m, "scene-anchor.md");

    let mut m = console(&root, false);
    filter(&mut m, "paused-waiting");
    check(&mut m, ".planning/STATE.md");
    update(&mut m, key('i'));
    filter(&mut m, "超过 3 级的审批是否允许加签");
    assert_eq!(panes::inbox(&m).len(), 1);
    check(&mut m, ".planning/WAITING.json");

    let mut m = console(&root, false);
    open(&mut m, "p-restock", Tab::Bugs);
    check(&mut m, "bugs.ndjson");
    open_units(&mut m);
    check(&mut m, "units.json");
    update(&mut m, code(KeyCode::Enter));
    check(&mut m, "units.json");
    run(&mut m, Command::GoTab(Tab::Agents));
    check(&mut m, "agent-state/coder.json");
    run(&mut m, Command::GoTab(Tab::Overview));
    check(
        &mut m,
        "units/restock-plan-be/runs/run-20260601-1048/result.json",
    );

    let mut m = console(&root, false);
    open(&mut m, "PLAN_search_index", Tab::Tasks);
    update(&mut m, key('j'));
    check(&mut m, "2.task_incremental_indexer.md");
}

fn open_units(m: &mut Model) {
    run(m, Command::GoTab(Tab::Units));
}

/// `e` asks for the editor; read-only, it is off and says why (`o` still
/// opens the pager).
#[test]
fn e_opens_the_editor_unless_read_only() {
    let mut m = console(&workspace(), false);
    filter(&mut m, "fba-smart");
    let (_, file, editor) = opened(&mut m, 'e').unwrap();
    assert_eq!((file.as_str(), editor), ("state.json", true));

    let mut m = console(&workspace(), true);
    filter(&mut m, "fba-smart");
    assert_eq!(opened(&mut m, 'e'), None);
    assert!(m.status.as_deref().unwrap().starts_with("read-only"));
    assert!(
        help_rows(&m)
            .iter()
            .any(|r| r.keys == "e" && r.off && r.description.contains("$EDITOR"))
    );
    assert!(opened(&mut m, 'o').is_some());
}

/// With nothing selected, y, o and e do nothing and are not offered.
#[test]
fn nothing_selected_nothing_copied() {
    let tmp = tempfile::tempdir().unwrap();
    let mut m = console(tmp.path(), false);
    assert_eq!(y(&mut m), None);
    assert_eq!(opened(&mut m, 'o'), None);
    assert!(!hints(&m).iter().any(|h| h.text == "y copy"));
}
