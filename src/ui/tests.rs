use super::*;
use crate::app::{Event, update};
use crate::model::{Format, Project};
use chrono::{TimeZone, Utc};
use ratatui::{Terminal, backend::TestBackend};
use std::path::PathBuf;

fn hostile_model() -> Model {
    let now = Utc.with_ymd_and_hms(2026, 6, 1, 12, 0, 0).unwrap();
    let mut m = Model::new(vec!["ws\u{1b}[2J".into()], true, now);
    let mut p = Project::new(
        Format::Gsd,
        PathBuf::from("x"),
        "evil\u{1b}]0;pwned\u{7}\u{202e}名前".into(),
    );
    p.id = "x".into();
    p.status = "exec\u{9b}31m".into();
    p.updated_at = Some(now - chrono::Duration::minutes(3));
    p.resume.waiting_for = Some("line1\nline2\u{1b}[31m".into());
    update(&mut m, Event::Loaded(vec![p]));
    m
}

fn screen(m: &Model, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| render(m, f)).unwrap();
    let buf = t.backend().buffer().clone();
    let mut out = String::new();
    for y in 0..h {
        for x in 0..w {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

#[test]
fn no_cell_holds_a_control_or_bidi_character() {
    let m = hostile_model();
    for (w, h) in [(80, 24), (200, 60)] {
        let s = screen(&m, w, h);
        for c in s.chars() {
            assert!(
                c == '\n'
                    || !(c.is_control()
                        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')),
                "{c:?} at {w}x{h}"
            );
        }
        assert!(
            s.contains("^[]0;pwned^G"),
            "escape shown visibly at {w}x{h}"
        );
        assert!(s.contains("READ-ONLY"));
    }
}

#[test]
fn wrapped_cjk_stays_inside_the_border() {
    let now = Utc.with_ymd_and_hms(2026, 6, 1, 12, 0, 0).unwrap();
    let mut m = Model::new(vec!["ws".into()], false, now);
    let mut p = Project::new(
        Format::Gsd,
        PathBuf::from("x"),
        "审批规则引擎的层级上限审批规则引擎的层级上限审批规则引擎".into(),
    );
    p.status = "规则引擎执行中状态".into();
    p.inbox.push(crate::model::InboxItem {
        kind: crate::model::InboxKind::Waiting,
        reference: ".planning/WAITING.json".into(),
        title: "[Phase 3] 超过 3 级的审批是否允许加签？这决定规则引擎的层级上限。".into(),
        since: None,
        options: vec![],
    });
    update(&mut m, Event::Loaded(vec![p]));
    let s = screen(&m, 100, 30);
    for line in s.lines().skip(1).take(28) {
        assert!(
            line.ends_with('│') || line.ends_with('┐') || line.ends_with('┘'),
            "{line}"
        );
    }
}
