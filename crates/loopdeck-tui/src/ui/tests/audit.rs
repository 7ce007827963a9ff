//! The console's list of decisions made (issue 20 §6): the palette's
//! "audit" opens it over the screen, read from the audit log,
//! newest first, with where each stands; at 80x24 and 200x60, in English
//! and Chinese.

use std::path::PathBuf;

use chrono::TimeDelta;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{now, press, screen, workspace_model};
use crate::app::{Effect, Event, HelpPage, Mode, Model, update};
use crate::model::{AuditEntry, AuditStanding};

const SIZES: [(u16, u16); 2] = [(80, 24), (200, 60)];

fn snap(m: &Model, name: &str) {
    for (w, h) in SIZES {
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), screen(m, w, h));
    }
}

fn entries() -> Vec<AuditEntry> {
    let e = |id: &str, mins: i64, by: &str, project: &str, summary: &str, standing| AuditEntry {
        id: id.into(),
        at: Some(now() - TimeDelta::minutes(mins)),
        by: by.into(),
        project: PathBuf::from(project),
        summary: summary.into(),
        standing,
    };
    vec![
        e(
            "20260601T115800.000001Z-aaaaaa",
            2,
            "yibo",
            "/w/prd-master/lint-synonyms",
            "undo of 20260601T113000.000001Z-bbbbbb",
            AuditStanding::Reversal,
        ),
        e(
            "20260601T113000.000001Z-bbbbbb",
            30,
            "yibo",
            "/w/prd-master/lint-synonyms",
            "answer OQ-6: 先按库龄天数，金额阈值下一版再加",
            AuditStanding::Undone("20260601T115800.000001Z-aaaaaa".into()),
        ),
        e(
            "20260601T090000.000001Z-cccccc",
            180,
            "mei\u{1b}[31m",
            "/w/dwp/shop-api/.dwp/plans/PLAN_search_index",
            "approve",
            AuditStanding::InForce,
        ),
    ]
}

#[test]
fn a_opens_the_decisions_made_read_afresh_newest_first() {
    let _en = crate::i18n::scoped(crate::i18n::Lang::En);
    let (_t, mut m) = workspace_model();
    // `:audit` and Enter.
    press(&mut m, KeyCode::Char(':'));
    for c in "audit".chars() {
        press(&mut m, KeyCode::Char(c));
    }
    let effects = update(
        &mut m,
        Event::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)),
    );
    assert!(effects.contains(&Effect::ReadAudit), "{effects:?}");
    assert_eq!((m.mode, m.help_page), (Mode::Help, HelpPage::Audit));
    let s = screen(&m, 80, 24);
    assert!(s.contains("reading the audit log…"), "{s}");
    update(&mut m, Event::Audit(Ok(entries())));
    let s = screen(&m, 200, 60);
    assert!(s.contains("Decisions made · 3 · Esc close"), "{s}");
    let undone = s.lines().position(|l| l.contains("answer OQ-6")).unwrap();
    let undo = s.lines().position(|l| l.contains("undo of")).unwrap();
    assert!(undo < undone, "newest first: {s}");
    assert!(
        s.contains("undone by 20260601T115800.000001Z-aaaaaa"),
        "{s}"
    );
    // A name with an escape sequence is shown, never obeyed.
    assert!(!s.contains('\u{1b}'), "{s}");
    super::assert_clean(&s, "audit");
    snap(&m, "audit");
    // Esc closes; `?` still opens the keys.
    press(&mut m, KeyCode::Esc);
    assert_eq!(m.mode, Mode::Normal);
    press(&mut m, KeyCode::Char('?'));
    assert_eq!(m.help_page, HelpPage::Keys);
    let s = screen(&m, 200, 60);
    assert!(!s.contains("audit:"), "palette only, no key: {s}");
}

#[test]
fn nothing_yet_or_unreadable_is_said_in_chinese_too() {
    let _zh = crate::i18n::scoped(crate::i18n::Lang::ZhCn);
    let (_t, mut m) = workspace_model();
    update(
        &mut m,
        crate::app::Event::Key(KeyEvent::new(KeyCode::Char(':'), KeyModifiers::NONE)),
    );
    for c in "审计".chars() {
        press(&mut m, KeyCode::Char(c));
    }
    let effects = update(
        &mut m,
        Event::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)),
    );
    assert!(effects.contains(&Effect::ReadAudit), "{effects:?}");
    update(&mut m, Event::Audit(Ok(Vec::new())));
    let s = screen(&m, 80, 24);
    assert!(s.contains("尚无决策"), "{s}");
    update(&mut m, Event::Audit(Ok(entries())));
    snap(&m, "audit_zh");
    update(&mut m, Event::Audit(Err("permission denied".into())));
    let s = screen(&m, 200, 60);
    assert!(s.contains("无法读取审计日志：permission denied"), "{s}");
}
