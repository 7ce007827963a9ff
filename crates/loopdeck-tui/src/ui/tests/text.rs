//! No text lost, times honest, every pane honest: screens of small
//! hand-made projects and of the example workspace.

use std::path::PathBuf;

use chrono::{Duration, TimeZone, Utc};
use crossterm::event::KeyCode;
use ratatui::layout::Constraint;
use ratatui::text::{Line, Span};

use super::{now, press, screen, select, workspace_model};
use crate::app::{Event, update};
use crate::model::text::{truncate, width};
use crate::model::{Finding, Format, Level, Project, StatusKind};
use crate::ui::widgets::{column_widths, field, fit, path_tail};
use crate::ui::*;

fn model_of(projects: Vec<Project>) -> Model {
    let mut m = Model::new(vec!["ws".into()], false, now());
    update(&mut m, Event::Loaded(projects));
    m
}

fn project(path: &str, name: &str) -> Project {
    let mut p = Project::new(Format::Gsd, PathBuf::from(path), name.into());
    p.id = path.into();
    p.updated_at = Some(now() - Duration::minutes(5));
    p
}

fn key(m: &mut Model, c: char) {
    press(m, KeyCode::Char(c));
}

#[test]
fn a_label_wider_than_its_column_gets_its_own_line() {
    let mut lines = Vec::new();
    field(
        &mut lines,
        40,
        "prd.fact-field-synonym",
        "OQ-4 uses `type`",
        Default::default(),
    );
    let text: Vec<String> = lines.iter().map(ToString::to_string).collect();
    assert_eq!(
        text,
        ["prd.fact-field-synonym", "            OQ-4 uses `type`"]
    );
}

#[test]
fn findings_code_and_message_never_run_together() {
    let (_t, mut m) = workspace_model();
    select(&mut m, "prd-master/lint-synonyms");
    press(&mut m, KeyCode::Enter);
    key(&mut m, '3');
    let s = screen(&m, 80, 24);
    let p = m.selected_project().unwrap();
    let fd = &p.findings[0];
    assert!(
        !s.contains(&format!("{}{}", fd.code, &fd.message[..4])),
        "code and message run together:\n{s}"
    );
    assert!(s.contains(&format!("│message     {}", fd.message)), "{s}");
}

#[test]
fn inbox_and_bug_details_name_each_field() {
    let (_t, mut m) = workspace_model();
    key(&mut m, 'i');
    let s = screen(&m, 80, 24);
    // The oldest item: a sign-off waiting 6 days by its files (the PRD
    // questions, whose files say no time, wait from this first reading).
    assert!(s.contains("│project     供应商对账助手"), "{s}");
    assert!(!s.contains("供应商对账助手shipped"), "{s}");

    key(&mut m, 'i');
    press(&mut m, KeyCode::Esc);
    select(&mut m, "devloop/data/companies/acme/projects/p-restock");
    press(&mut m, KeyCode::Enter);
    key(&mut m, '3');
    let s = screen(&m, 80, 24);
    assert!(!s.contains("77aasales"), "{s}");
    assert!(s.contains("│bug         bug-20260530-1012-77aa"), "{s}");
}

/// Every row of the inbox shows its text, or the part of it that fits its
/// column followed by `…`: never a cut without a mark.
#[test]
fn a_cell_too_narrow_ends_with_an_ellipsis() {
    let (_t, mut m) = workspace_model();
    key(&mut m, 'i');
    let s = screen(&m, 80, 24);
    let widths = [
        Constraint::Length(6),
        Constraint::Percentage(25),
        Constraint::Length(9),
        Constraint::Min(10),
    ];
    let room = column_widths(&widths, 78)[3] as usize;
    let mut cut = 0;
    for (pi, ii) in crate::app::panes::inbox(&m).into_iter().take(12) {
        let item = &m.projects[pi].inbox[ii];
        let mut text = item.title.shown().into_owned();
        if !item.options.is_empty() {
            text.push_str(&format!("  [{}]", item.options.join(" / ")));
        }
        let shown = truncate(&text, room);
        if width(&text) > room {
            cut += 1;
            assert!(shown.ends_with('…'));
        }
        assert!(s.contains(shown.as_ref()), "{shown:?} not on\n{s}");
    }
    assert!(cut >= 5, "the example has long rows ({cut})");
}

#[test]
fn fit_cuts_at_the_end_by_display_width() {
    let line = Line::from(vec![Span::raw("审批 "), Span::raw("规则引擎的层级")]);
    let cut = fit(line, 8).to_string();
    assert_eq!(cut, "审批 规…");
    assert!(width(&cut) <= 8);
    let exact = Line::from(vec![Span::raw("abcd"), Span::raw("ef")]);
    assert_eq!(fit(exact, 5).to_string(), "abcd…");
    assert_eq!(fit(Line::from("short"), 8).to_string(), "short");
    assert_eq!(fit(Line::from("short"), 0).to_string(), "");
}

#[test]
fn a_path_gives_way_by_whole_leading_directories() {
    assert_eq!(path_tail("/w/a/cyclic", 20), "/w/a/cyclic");
    assert_eq!(path_tail("/home/u/work/a/cyclic", 12), "…/a/cyclic");
    assert_eq!(path_tail("/w/PLAN_search_index", 10), "PLAN_sear…");
}

#[test]
fn two_projects_of_the_same_name_show_their_paths() {
    let mut m = model_of(vec![project("/w/a/cyclic", "cyclic"), {
        let mut p = project("/w/b/cyclic", "cyclic");
        p.updated_at = Some(now() - Duration::minutes(9));
        p
    }]);
    let mut titles = Vec::new();
    for down in [0, 1] {
        press(&mut m, KeyCode::Home);
        for _ in 0..down {
            press(&mut m, KeyCode::Down);
        }
        press(&mut m, KeyCode::Enter);
        let s = screen(&m, 80, 24);
        titles.push(s.lines().nth(1).unwrap_or("").to_owned());
        press(&mut m, KeyCode::Esc);
    }
    assert!(titles[0].contains("/w/a/cyclic"), "{titles:?}");
    assert!(titles[1].contains("/w/b/cyclic"), "{titles:?}");
    press(&mut m, KeyCode::Home);
    let split = screen(&m, 120, 30);
    assert!(split.contains("cyclic · gsd · /w/a/cyclic"), "{split}");
}

#[test]
fn a_completed_project_is_not_told_to_decide() {
    let mut p = project("/w/done", "done");
    p.status = "milestone complete".into();
    p.status_kind = StatusKind::Done;
    p.updated_at = Some(now() - Duration::days(2));
    let mut m = model_of(vec![p]);
    press(&mut m, KeyCode::Enter);
    let s = screen(&m, 80, 24);
    assert!(!s.contains("review, then decide"), "{s}");
    assert!(s.contains("completed: nothing waits on you"), "{s}");
}

#[test]
fn scenario_c_with_nothing_to_reread_says_so() {
    let mut p = project("/w/old", "old");
    p.updated_at = Some(now() - Duration::days(30));
    let mut m = model_of(vec![p]);
    press(&mut m, KeyCode::Enter);
    let s = screen(&m, 80, 24);
    assert!(s.contains("away 30 days: reread before acting"), "{s}");
    assert!(s.contains("nothing to reread"), "{s}");

    // Files named, but none can be read: say that too.
    let dir = tempfile::tempdir().unwrap();
    let mut p = project(&dir.path().to_string_lossy(), "old");
    p.updated_at = Some(now() - Duration::days(30));
    p.resume.read_first = vec!["scene-anchor.md".into()];
    let mut m = model_of(vec![p]);
    press(&mut m, KeyCode::Enter);
    let s = screen(&m, 80, 24);
    assert!(
        s.contains("nothing to reread: scene-anchor.md could not be read or"),
        "{s}"
    );
}

#[test]
fn a_time_in_the_future_is_said_so_and_is_a_finding() {
    let mut p = project("/w/skew", "skew");
    p.updated_at = Some(now() + Duration::days(3));
    let mut m = model_of(vec![p]);
    let list = screen(&m, 80, 24);
    assert!(
        list.contains("  1 project  "),
        "one project, not '1 projects': {list}"
    );
    assert!(list.contains("future"), "{list}");
    assert!(!list.contains(" 0s "), "{list}");
    press(&mut m, KeyCode::Enter);
    let s = screen(&m, 80, 24);
    assert!(s.contains("updated in the future (3d ahead)"), "{s}");
    assert!(!s.contains("back within the hour"), "{s}");
    assert!(s.contains("1 finding"), "{s}");
    key(&mut m, '3');
    let s = screen(&m, 80, 24);
    assert!(s.contains("◆ clock-skew"), "{s}");
    assert!(s.contains("2026-06-04T12:00:00Z"), "{s}");
}

#[test]
fn a_finding_the_reader_already_made_is_not_shown_twice() {
    let mut p = project("/w/skew", "skew");
    p.updated_at = Some(now() + Duration::days(3));
    p.findings
        .push(crate::model::clock_skew(&p, now()).unwrap());
    let mut m = model_of(vec![p]);
    press(&mut m, KeyCode::Enter);
    key(&mut m, '3');
    let s = screen(&m, 120, 30);
    assert_eq!(s.matches("clock-skew").count(), 2, "row + detail:\n{s}");
}

#[test]
fn timeline_times_show_the_year_when_it_is_not_this_year() {
    let mut p = Project::new(Format::Devloop, "/w/d".into(), "d".into());
    p.id = "d".into();
    p.updated_at = Some(now());
    for at in [
        Utc.with_ymd_and_hms(2025, 12, 31, 23, 59, 0).unwrap(),
        Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 0).unwrap(),
    ] {
        p.detail.timeline.push(crate::model::Event {
            at: Some(at),
            source: "coder".into(),
            kind: "unit_coded".into(),
            summary: "x".into(),
            unit: None,
        });
    }
    let mut m = model_of(vec![p]);
    press(&mut m, KeyCode::Enter);
    let n = m
        .tabs()
        .iter()
        .position(|t| *t == crate::app::Tab::Timeline)
        .unwrap();
    key(&mut m, (b'1' + n as u8) as char);
    let s = screen(&m, 80, 24);
    assert!(s.contains("2025-12-31 23:59"), "{s}");
    assert!(s.contains("│01-02 03:04 "), "this year's without: {s}");
}

#[test]
fn timeline_colours_by_event_kind_not_by_words_in_the_summary() {
    assert_eq!(
        crate::ui::devloop::event_outcome("unit_failed"),
        Some(false)
    );
    assert_eq!(
        crate::ui::devloop::event_outcome("integration_passed"),
        Some(true)
    );
    assert_eq!(crate::ui::devloop::event_outcome("prd_drafted"), None);
}

/// A long title and a long finding at 80x24: cut with `…` in the tables,
/// wrapped in full below them.
#[test]
fn snapshot_of_long_text() {
    let mut p = project(
        "/w/very/long/path/to/a-project-with-a-long-name",
        "审批规则引擎：超过三级审批时是否允许加签以及层级上限如何设置的长期讨论",
    );
    p.status = "executing".into();
    p.status_kind = StatusKind::Running;
    p.findings.push(
        Finding::new(
            Level::Warning,
            "gsd.a-very-long-finding-code-that-overflows",
            "The Session Continuity section names a stopped-at phase that the roadmap does not list; 会话连续性一节指向的阶段在路线图中不存在，请核对。",
        )
        .at(".planning/STATE.md#session-continuity"),
    );
    let mut m = model_of(vec![p]);
    insta::assert_snapshot!("long_text_projects_80x24", screen(&m, 80, 24));
    press(&mut m, KeyCode::Enter);
    key(&mut m, '3');
    insta::assert_snapshot!("long_text_findings_80x24", screen(&m, 80, 24));
}

/// A mark after a cut id (the contract-hash `≠`) stays on screen.
#[test]
fn the_contract_mark_survives_a_cut_unit_id() {
    let (_t, mut m) = workspace_model();
    select(&mut m, "devloop/data/companies/acme/projects/p-restock");
    press(&mut m, KeyCode::Enter);
    key(&mut m, '2');
    let p = m.selected_project().unwrap();
    let unit = p
        .detail
        .units
        .iter()
        .find(|u| u.contract_ok() == Some(false))
        .unwrap();
    let s = screen(&m, 80, 24);
    let shown = s
        .lines()
        .find(|l| l.contains(&format!("✓ {}", &unit.id[..8])))
        .unwrap_or_default();
    assert!(shown.contains(" ≠"), "{shown}\n{s}");
}
