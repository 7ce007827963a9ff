//! Screens rendered with ratatui's TestBackend: snapshots of every view at
//! 80x24 and 200x60 over the example workspace, and hostile strings.
//!
//! The helpers every `ui` test uses (`workspace_model`, `press`, `select`,
//! `screen`, `assert_clean`, …) live here; each topic's tests are a file
//! beside this one.

use std::path::{Path, PathBuf};

use chrono::{TimeZone, Utc};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::*;
use crate::app::{Event, Tab, update};
use crate::model::{Format, InboxItem, InboxKind, Project};

mod audit;
mod cached;
mod decide;
mod escalate;
mod hostile;
mod lang;
mod lang_panes;
mod mouse;
mod notice;
mod small;
mod stall;
mod style;
mod text;

const SIZES: [(u16, u16); 2] = [(80, 24), (200, 60)];

pub(super) fn now() -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 6, 1, 12, 0, 0).unwrap()
}

pub(super) fn screen(m: &Model, w: u16, h: u16) -> String {
    stable_tmp(&super::testing::screen(m, w, h))
}

/// The example workspace is copied under `target/` by a path relative to the
/// crate (so paths in titles do not depend on the checkout); its random
/// directory name is replaced for the snapshots.
const WS_PREFIX: &str = "ui-ws-";

fn stable_tmp(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find(WS_PREFIX) {
        out.push_str(&rest[..i + WS_PREFIX.len()]);
        rest = &rest[i + WS_PREFIX.len()..];
        let n = rest
            .char_indices()
            .take_while(|(_, c)| c.is_ascii_alphanumeric())
            .count()
            .min(6);
        out.push_str(&"X".repeat(n));
        rest = &rest[n..];
    }
    out.push_str(rest);
    out
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

fn touch_all(dir: &Path, at: chrono::DateTime<Utc>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            touch_all(&e.path(), at);
        } else {
            let f = std::fs::File::options()
                .append(true)
                .open(e.path())
                .unwrap();
            f.set_modified(at.into()).unwrap();
        }
    }
}

/// The example workspace, as a fresh clone leaves it, loaded as the
/// console loads it.
pub(super) fn workspace_model() -> (tempfile::TempDir, Model) {
    let (tmp, projects) = workspace_projects();
    let mut m = Model::new(vec!["workspace".into()], false, now());
    update(&mut m, Event::Loaded(projects));
    (tmp, m)
}

/// The projects of the example workspace (copied, every mtime now, as a
/// fresh clone has them), as the console's loader reads them.
pub(super) fn workspace_projects() -> (tempfile::TempDir, Vec<Project>) {
    std::fs::create_dir_all("target/tmp").unwrap();
    let tmp = tempfile::Builder::new()
        .prefix(WS_PREFIX)
        .tempdir_in("target/tmp")
        .unwrap();
    // Relative, as a user would type it (tempfile made it absolute).
    let ws = Path::new("target/tmp")
        .join(tmp.path().file_name().unwrap())
        .join("workspace");
    copy(
        &Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("examples/workspace"),
        &ws,
    );
    // Every mtime now, as a `git clone` leaves them: each project is dated
    // by what its files record, as the example's README says.
    touch_all(&ws, Utc::now());
    // As the console loads them: strings as the files hold them.
    let projects = loopdeck_core::read::discover(std::slice::from_ref(&ws)).projects;
    (tmp, projects)
}

/// Press a key and carry out what the runtime would (reading excerpts).
pub(super) fn press(m: &mut Model, code: KeyCode) {
    let effects = update(m, Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    // What the runtime answers the view's own requests with.
    for e in effects {
        match e {
            crate::app::Effect::ReadExcerpts(path) => {
                if let Some(p) = m.projects.iter().find(|p| p.path == path).cloned() {
                    update(
                        m,
                        Event::Excerpts(path, loopdeck_core::read::excerpts(&p, 2, 8)),
                    );
                }
            }
            crate::app::Effect::CompareRevision { path, index, key } => {
                let p = m.projects.iter().find(|p| p.path == path).cloned();
                if let Some(p) = p
                    && let Some(diff) = loopdeck_core::read::compare_revision(&p, index)
                {
                    let (diff, files) = (Box::new(diff), p.files);
                    update(
                        m,
                        Event::Compared {
                            path,
                            key,
                            diff,
                            files,
                        },
                    );
                }
            }
            _ => {}
        }
    }
}

pub(super) fn select(m: &mut Model, id: &str) {
    press(m, KeyCode::Home);
    for _ in 0..m.projects.len() {
        if m.selected_project().is_some_and(|p| p.id == id) {
            return;
        }
        press(m, KeyCode::Down);
    }
    panic!("no project {id}");
}

fn snap(m: &Model, name: &str) {
    for (w, h) in SIZES {
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), screen(m, w, h));
    }
}

/// A project of each format and the tabs worth a snapshot on it (the
/// English and the Chinese snapshots take the same views).
pub(super) const VIEWS: &[(&str, &[Tab])] = &[
    (
        "prd-master/fba-smart-restock",
        &[Tab::Overview, Tab::Frontier, Tab::Findings],
    ),
    ("prd-master/lint-synonyms", &[Tab::Findings]),
    ("prd-master/approval-flow-legacy", &[Tab::Overview]),
    ("gsd/paused-waiting", &[Tab::Overview, Tab::Phases]),
    (
        "dwp/shop-api/.dwp/plans/PLAN_search_index",
        &[Tab::Overview, Tab::Tasks, Tab::Findings],
    ),
    (
        "devloop/data/companies/acme/projects/p-restock",
        &[
            Tab::Overview,
            Tab::Units,
            Tab::Bugs,
            Tab::Timeline,
            Tab::Revisions,
            Tab::Agents,
            Tab::Findings,
        ],
    ),
];

/// The console's first screen on the example as a fresh clone leaves it
/// (every mtime now, months after the reference time): no project is in
/// the future, none sorts to the top for it, and the Overview of one dated
/// by its own files never says to check the clock.
#[test]
fn a_fresh_clone_of_the_example_opens_with_nothing_in_the_future() {
    let (_t, mut m) = workspace_model();
    let first = screen(&m, 200, 60);
    assert!(!first.contains("future"), "{first}");
    let row = |id: &str| {
        first
            .lines()
            .find(|l| l.contains(&format!(" {id} ")))
            .unwrap_or_else(|| panic!("{id}: {first}"))
            .to_owned()
    };
    assert!(row("rebuilt-from-deliverables").contains(" 12d "));
    assert!(row("bugfix-rebuilt").contains(" 5d "));
    assert!(row("no-frontmatter").contains(" 2d "));
    assert_eq!(
        m.selected_project().map(|p| p.id.as_str()),
        Some("devloop/data/companies/acme/projects/p-restock"),
        "the newest project the example dates is selected first"
    );
    for id in [
        "prd-master/rebuilt-from-deliverables",
        "prd-master/bugfix-rebuilt",
        "gsd/no-frontmatter",
    ] {
        select(&mut m, id);
        let overview = screen(&m, 200, 60);
        assert!(
            !overview.contains("clock") && !overview.contains("future"),
            "{id}: {overview}"
        );
    }
}

/// Back after half a year, a GSD project's Overview quotes what was meant
/// then from STATE.md's body (its Project Reference), not the frontmatter.
#[test]
fn what_you_meant_then_is_the_state_body_not_its_frontmatter() {
    let (_t, projects) = workspace_projects();
    let later = Utc.with_ymd_and_hms(2026, 12, 6, 12, 0, 0).unwrap();
    let mut m = Model::new(vec!["workspace".into()], false, later);
    update(&mut m, Event::Loaded(projects));
    select(&mut m, "gsd/paused-waiting");
    let overview = screen(&m, 200, 60);
    assert!(overview.contains("What you meant then"), "{overview}");
    assert!(
        overview.contains("**Core value:** 差旅报销 5 个工作日内走完审批。"),
        "{overview}"
    );
    for fm in ["gsd_state_version", "milestone_name", "paused_at:"] {
        assert!(!overview.contains(fm), "{fm}: {overview}");
    }
}

#[test]
fn snapshots_of_every_view() {
    let (_t, mut m) = workspace_model();
    snap(&m, "projects");

    let tabs = VIEWS;
    for (id, wanted) in tabs {
        if !m.projects.iter().any(|p| p.id == *id) {
            continue; // a format whose reader has not landed yet
        }
        select(&mut m, id);
        for tab in *wanted {
            let n = m.tabs().iter().position(|t| t == tab).unwrap();
            update(
                &mut m,
                Event::Key(KeyEvent::new(
                    KeyCode::Char((b'1' + n as u8) as char),
                    KeyModifiers::NONE,
                )),
            );
            let name = format!(
                "{}_{}",
                id.rsplit('/').next().unwrap(),
                tab.title().split(' ').next().unwrap().to_lowercase()
            );
            snap(&m, &name);
            if matches!(tab, Tab::Units | Tab::Bugs) {
                press(&mut m, KeyCode::Enter);
                snap(&m, &format!("{name}_drawer"));
                press(&mut m, KeyCode::Esc);
            }
        }
        press(&mut m, KeyCode::Esc);
    }

    press(&mut m, KeyCode::Char('i'));
    snap(&m, "inbox");
    press(&mut m, KeyCode::Esc);
    press(&mut m, KeyCode::Char('?'));
    snap(&m, "help");
    press(&mut m, KeyCode::Esc);
    press(&mut m, KeyCode::Char(':'));
    press(&mut m, KeyCode::Char('t'));
    press(&mut m, KeyCode::Char('a'));
    snap(&m, "palette");
    press(&mut m, KeyCode::Esc);
    press(&mut m, KeyCode::Char('/'));
    for c in "gsd".chars() {
        press(&mut m, KeyCode::Char(c));
    }
    snap(&m, "filter");
}

fn hostile_model() -> Model {
    let mut m = Model::new(vec!["ws\u{1b}[2J".into()], true, now());
    let evil = "evil\u{1b}]0;pwned\u{7}\u{202e}名前\u{9b}31m";
    let mut p = Project::new(Format::Gsd, PathBuf::from("x"), evil.into());
    p.id = "x".into();
    p.status = format!("exec{evil}");
    p.updated_at = Some(now() - chrono::Duration::minutes(3));
    p.resume.waiting_for = Some(format!("line1\n{evil}").into());
    p.inbox.push(InboxItem {
        kind: InboxKind::Waiting,
        act: None,
        reference: evil.into(),
        title: evil.into(),
        since: None,
        options: vec![evil.into()],
        subject: None,
        why_not: None,
    });
    update(&mut m, Event::Loaded(vec![p]));
    m
}

pub(super) fn assert_clean(s: &str, context: &str) {
    for c in s.chars() {
        let bidi = matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}');
        assert!(c == '\n' || !(c.is_control() || bidi), "{c:?} in {context}");
    }
}

#[test]
fn no_cell_holds_a_control_or_bidi_character() {
    let mut m = hostile_model();
    for (w, h) in [(80, 24), (200, 60)] {
        let s = screen(&m, w, h);
        assert_clean(&s, &format!("{w}x{h}"));
        assert!(
            s.contains("^[]0;pwned^G"),
            "escape shown visibly at {w}x{h}:\n{s}"
        );
        assert!(s.contains("READ-ONLY"));
    }
    press(&mut m, KeyCode::Char('i'));
    assert_clean(&screen(&m, 120, 30), "inbox");
    press(&mut m, KeyCode::Esc);
    press(&mut m, KeyCode::Enter);
    assert_clean(&screen(&m, 80, 24), "detail");
}

#[test]
fn wrapped_cjk_stays_inside_the_border() {
    let mut m = Model::new(vec!["ws".into()], false, now());
    let mut p = Project::new(
        Format::Gsd,
        PathBuf::from("x"),
        "审批规则引擎的层级上限审批规则引擎的层级上限审批规则引擎".into(),
    );
    p.status = "规则引擎执行中状态".into();
    p.inbox.push(InboxItem {
        kind: InboxKind::Waiting,
        act: None,
        reference: ".planning/WAITING.json".into(),
        title: "[Phase 3] 超过 3 级的审批是否允许加签？这决定规则引擎的层级上限。".into(),
        since: None,
        options: vec![],
        subject: None,
        why_not: None,
    });
    update(&mut m, Event::Loaded(vec![p]));
    press(&mut m, KeyCode::Enter);
    for (w, h) in [(100, 30), (80, 24), (120, 40)] {
        let s = screen(&m, w, h);
        for line in s
            .lines()
            .skip(1)
            .take(h as usize - 2)
            .filter(|l| !l.is_empty())
        {
            assert!(
                line.ends_with('│') || line.ends_with('┐') || line.ends_with('┘'),
                "{w}x{h}: {line}"
            );
        }
        assert!(s.contains("超过"), "the question is shown");
    }
}

#[test]
fn moving_up_inside_the_window_does_not_scroll_the_list() {
    let mut m = Model::new(vec!["ws".into()], false, now());
    let projects = (0..100)
        .map(|i| {
            let mut p = Project::new(
                Format::Gsd,
                PathBuf::from(format!("/w/{i}")),
                format!("project-{i:03}"),
            );
            p.id = format!("{i}");
            p
        })
        .collect();
    update(&mut m, Event::Loaded(projects));
    press(&mut m, KeyCode::End);
    let first_row = |s: &str| s.lines().nth(3).unwrap_or("").to_owned();
    let before = first_row(&screen(&m, 80, 24));
    press(&mut m, KeyCode::Up);
    press(&mut m, KeyCode::Up);
    let after = screen(&m, 80, 24);
    assert_eq!(first_row(&after), before, "the window stayed put");
    assert!(after.contains("project-097"));
}
