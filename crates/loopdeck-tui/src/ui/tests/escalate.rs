//! `[[escalate]]` rules on screen (issue 20 §5): the inbox ranks first
//! what a rule raises, marks it `!` in the rule's colour and names the
//! rule in the detail; the list marks the project; the header counts; a
//! failing `[notify] command` is said in the header. At 80x24 and 200x60
//! over the example workspace, in English and Chinese.

use chrono::TimeDelta;
use crossterm::event::KeyCode;
use ratatui::style::{Color, Modifier};
use ratatui::{Terminal, backend::TestBackend};

use super::{now, press, screen, workspace_model};
use crate::app::{Event, Screen, update};
use crate::model::escalate::Rule;
use crate::ui::*;

const SIZES: [(u16, u16); 2] = [(80, 24), (200, 60)];

fn snap(m: &Model, name: &str) {
    for (w, h) in SIZES {
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), screen(m, w, h));
    }
}

/// Blocked DWP tasks that waited more than a day, in red.
fn rules() -> Vec<Rule> {
    vec![Rule {
        kinds: vec!["blocked".into(), "approval".into()],
        waited: Some(TimeDelta::days(1)),
        colour: Some("red".into()),
        ..Rule::any("dwp stuck")
    }]
}

#[test]
fn the_inbox_ranks_first_marks_and_names_what_a_rule_raises() {
    let _en = crate::i18n::scoped(crate::i18n::Lang::En);
    let (_t, mut m) = workspace_model();
    m.rules = rules();
    press(&mut m, KeyCode::Char('i'));
    assert_eq!(m.screen, Screen::Inbox);
    let s = screen(&m, 200, 60);
    let rows: Vec<&str> = s.lines().filter(|l| l.contains("│!")).collect();
    assert_eq!(rows.len(), 2, "{s}");
    // Ranked first: right under the column header.
    let header = s.lines().position(|l| l.contains("WAITING FOR")).unwrap();
    let first = s.lines().nth(header + 1).unwrap();
    assert!(first.contains("│!"), "{s}");
    assert!(s.contains("◆ ") && s.contains("· 2 escalated"), "{s}");
    // The detail of the selected (first) row names the rule and its wait.
    assert!(
        s.contains("escalated   dwp stuck (> 1d)") || s.contains("escalated  dwp stuck (> 1d)"),
        "{s}"
    );
    snap(&m, "escalated_inbox");
    press(&mut m, KeyCode::Esc);
    snap(&m, "escalated_list");

    // In the rule's colour, bold; under NO_COLOR bold alone.
    let mut term = Terminal::new(TestBackend::new(200, 60)).unwrap();
    press(&mut m, KeyCode::Char('i'));
    for (no_color, want) in [(false, Some(Color::Red)), (true, None)] {
        let theme = Theme::builtin("default", no_color).unwrap();
        term.draw(|f| render(&m, &theme, f)).unwrap();
        let buf = term.backend().buffer().clone();
        let (x, y) = (0..60)
            .flat_map(|y| (0..199).map(move |x| (x, y)))
            .find(|&(x, y)| buf[(x, y)].symbol() == "│" && buf[(x + 1, y)].symbol() == "!")
            .unwrap();
        let cell = &buf[(x + 1, y)];
        assert!(cell.modifier.contains(Modifier::BOLD));
        match want {
            Some(c) => assert_eq!(cell.fg, c),
            None => assert_eq!(cell.fg, Color::Reset),
        }
    }
}

#[test]
fn in_chinese_too_and_a_failing_command_is_said_in_the_header() {
    let _zh = crate::i18n::scoped(crate::i18n::Lang::ZhCn);
    let (_t, mut m) = workspace_model();
    m.rules = rules();
    update(
        &mut m,
        Event::Hook(Some("通知命令 curl 失败：exit status: 6".into())),
    );
    press(&mut m, KeyCode::Char('i'));
    let s = screen(&m, 200, 60);
    assert!(s.contains("2项已升级"), "{s}");
    assert!(s.contains("! 通知命令 curl 失败：exit status: 6"), "{s}");
    assert!(
        s.contains("已升级") && s.contains("dwp stuck (> 1d)"),
        "{s}"
    );
    snap(&m, "escalated_inbox_zh");
    // Five days before, nothing had waited a day.
    m.now = now() - TimeDelta::days(5);
    let s = screen(&m, 200, 60);
    assert!(!s.contains("│!") && !s.contains("已升级"), "{s}");
}
