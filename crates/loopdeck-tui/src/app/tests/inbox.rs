//! The Inbox, on the pure update (and on a frame drawn with ratatui's
//! TestBackend): its filter by kind, Esc back from a jump, and a resume
//! offered only while the agent's token holds.

use super::{code, key, model, project, screen, three};
use crate::app::*;
use crate::model::InboxKind;
use chrono::TimeZone;

#[test]
fn the_inbox_filter_matches_the_kind_column() {
    let mut p = project("plan", Format::Dwp, 1);
    p.inbox[0].kind = InboxKind::Evidence;
    let mut m = model(vec![p, project("other", Format::Gsd, 1)]);
    update(&mut m, key('i'));
    update(&mut m, key('/'));
    for c in InboxKind::Evidence.label().chars() {
        update(&mut m, key(c));
    }
    let rows = panes::inbox(&m);
    assert_eq!(rows.len(), 1, "only the evidence item");
    assert_eq!(m.projects[rows[0].0].name, "plan");
}

#[test]
fn esc_after_a_jump_returns_to_the_inbox_on_the_next_item() {
    let mut m = three();
    update(&mut m, key('i'));
    let first = panes::inbox_key(&m, panes::inbox(&m)[0]);
    update(&mut m, code(KeyCode::Enter));
    assert_eq!((m.screen, m.focus), (Screen::Projects, Focus::Detail));
    update(&mut m, code(KeyCode::Esc));
    assert_eq!(m.screen, Screen::Inbox);
    assert_eq!(m.inbox.selected, 1, "the item after {first:?}");
    // Without a jump, Esc leaves the detail for the list as before.
    update(&mut m, key('p'));
    update(&mut m, code(KeyCode::Enter));
    update(&mut m, code(KeyCode::Esc));
    assert_eq!((m.screen, m.focus), (Screen::Projects, Focus::List));
}

/// A paused agent's resume token is judged against the console's "now":
/// once it lapses, the inbox offers only a restart.
#[test]
fn the_console_offers_resume_only_while_the_token_holds() {
    let mut p = project("loop", Format::Devloop, 0);
    let paused = Utc.with_ymd_and_hms(2026, 5, 31, 0, 0, 0).unwrap();
    p.detail.agents.push(crate::model::Agent {
        agent: "dev-1".into(),
        status: "paused".into(),
        status_kind: crate::model::StatusKind::Waiting,
        step: None,
        step_index: None,
        total_steps: None,
        doing: None,
        unit: None,
        progress_pct: None,
        paused_at: Some(paused),
        has_resume_token: true,
        resume_expires_at: Some(paused + chrono::Duration::hours(24)),
        started_at: None,
        error: None,
        activity: None,
    });
    p.inbox.push(crate::model::InboxItem {
        kind: InboxKind::Resume,
        act: None,
        reference: "agent-state/dev-1.json".into(),
        title: "dev-1 paused".into(),
        since: Some(paused),
        options: vec!["resume".into(), "restart".into()],
        subject: Some("dev-1".into()),
        why_not: None,
    });
    let mut m = model(vec![p]);
    update(&mut m, key('i'));
    // The model's clock is 2026-06-01T12:00Z: the token lapsed at 06-01T00:00Z.
    let s = screen(&m, 120, 20);
    assert!(s.contains("[restart]"), "{s}");
    assert!(!s.contains("resume / restart"), "{s}");
    m.now = paused + chrono::Duration::hours(2);
    let s = screen(&m, 120, 20);
    assert!(s.contains("[resume / restart]"), "{s}");
}
