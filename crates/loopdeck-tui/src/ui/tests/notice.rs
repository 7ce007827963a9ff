//! Snapshots of what arrived while the user looked elsewhere (issue 9 §4,
//! §5): the header's "N new" and the inbox's • marks, and the Timeline's
//! "N new below", at 80x24 and 200x60 over the example workspace.

use chrono::Duration;
use crossterm::event::KeyCode;

use super::{now, press, screen, select, workspace_model};
use crate::app::{Event, Model, Screen, Tab, update};
use crate::model::{Event as TimelineEvent, InboxItem, InboxKind};

const SIZES: [(u16, u16); 2] = [(80, 24), (200, 60)];

fn snap(m: &Model, name: &str) {
    for (w, h) in SIZES {
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), screen(m, w, h));
    }
}

/// The workspace read again with a new question in one project, a new
/// approval in another.
#[test]
fn new_items_are_marked_in_the_header_and_the_inbox() {
    let (_t, mut m) = workspace_model();
    let waiting = m.waiting_total();
    let mut fresh = m.projects.clone();
    // The question was written long ago (it sorts first, oldest first);
    // the approval just now (last).
    for (asked, (p, (kind, title, age))) in fresh
        .iter_mut()
        .zip([
            (
                InboxKind::Question,
                "Ship the restock rules on Monday?",
                60 * 24 * 60,
            ),
            (InboxKind::Approval, "Approve plan v3", 2),
        ])
        .enumerate()
    {
        p.inbox.push(InboxItem {
            kind,
            reference: format!("NEW-{asked}"),
            title: title.into(),
            since: Some(now() - Duration::minutes(age)),
            options: vec![],
            subject: None,
            act: None,
            why_not: None,
        });
    }
    update(&mut m, Event::Loaded(fresh));
    assert_eq!(m.waiting_total(), waiting + 2);
    assert_eq!(m.new_total(), 2);
    let s = screen(&m, 200, 60);
    assert!(
        s.contains(&format!("◆ {} waiting · 2 new", waiting + 2)),
        "{s}"
    );
    snap(&m, "new_projects");
    press(&mut m, KeyCode::Char('i'));
    assert_eq!(m.screen, Screen::Inbox);
    let s = screen(&m, 200, 60);
    assert!(
        s.contains("• Ship the restock rules on Monday?") && s.contains("• Approve plan v3"),
        "{s}"
    );
    snap(&m, "new_inbox");
    // A key with the rows on screen: seen, the marks go.
    press(&mut m, KeyCode::Down);
    assert_eq!(m.new_total(), 0);
    let s = screen(&m, 200, 60);
    assert!(!s.contains("• ") && !s.contains(" new"), "{s}");
}

#[test]
fn a_timeline_scrolled_up_says_how_many_events_arrived_below() {
    let (_t, mut m) = workspace_model();
    let id = "devloop/data/companies/acme/projects/p-restock";
    if !m.projects.iter().any(|p| p.id == id) {
        return; // the devloop reader has not landed
    }
    select(&mut m, id);
    let n = m.tabs().iter().position(|t| *t == Tab::Timeline).unwrap();
    press(&mut m, KeyCode::Char((b'1' + n as u8) as char));
    assert_eq!(m.tab, Tab::Timeline);
    press(&mut m, KeyCode::Up);
    press(&mut m, KeyCode::Up);
    assert!(!m.follow_timeline);
    let before = screen(&m, 200, 60);
    assert!(!before.contains("new below"), "{before}");
    let mut fresh = m.projects.clone();
    let p = fresh.iter_mut().find(|p| p.id == id).unwrap();
    let last = p.detail.timeline.last().and_then(|e| e.at).unwrap_or(now());
    for i in 1..=3 {
        p.detail.timeline.push(TimelineEvent {
            at: Some(last + Duration::seconds(i)),
            source: "tester".into(),
            kind: "unit_passed".into(),
            summary: format!("arrived while scrolled up {i}"),
            unit: None,
        });
    }
    update(&mut m, Event::Loaded(fresh));
    assert_eq!(m.timeline_new_below(), 3);
    let s = screen(&m, 200, 60);
    assert!(s.contains("↓ 3 new below · f follows"), "{s}");
    snap(&m, "timeline_new_below");
    // The key named is the one in force: remapped, then unbound.
    let keys =
        |toml: &str| -> Vec<crate::app::keymap::KeyEntry> { crate::app::keymap::Keys::of(toml).0 };
    m.keymap = crate::app::keymap::build(&keys("[keys]\nfollow = \"F\"\n")).unwrap();
    let s = screen(&m, 200, 60);
    assert!(s.contains("↓ 3 new below · F follows"), "{s}");
    m.keymap = crate::app::keymap::build(&keys("[keys]\nfollow = \"\"\n")).unwrap();
    let s = screen(&m, 200, 60);
    assert!(
        s.contains("↓ 3 new below ") && !s.contains("follows"),
        "{s}"
    );
    m.keymap = crate::app::keymap::build(&[]).unwrap();
    press(&mut m, KeyCode::Char('f'));
    assert!(!screen(&m, 200, 60).contains("new below"));
}

/// The too-small screen names the quit keys in force.
#[test]
fn the_too_small_screen_names_the_quit_key_in_force() {
    let (_t, mut m) = workspace_model();
    let entries = crate::app::keymap::Keys::of("[keys]\nquit = \"Q\"\n").0;
    m.keymap = crate::app::keymap::build(&entries).unwrap();
    let s = screen(&m, 39, 8);
    assert!(s.contains("Q quits") && !s.contains("q quits"), "{s}");
    // Unbound: Ctrl-C still quits, and the screen says so.
    let entries = crate::app::keymap::Keys::of("[keys]\nquit = \"\"\n").0;
    m.keymap = crate::app::keymap::build(&entries).unwrap();
    let s = screen(&m, 39, 8);
    assert!(s.contains("Ctrl-C quits"), "{s}");
}

/// An answered item waiting for its agent is shown under the queue, apart
/// from it, with what was answered, by whom and when, and is counted
/// neither in the header's `◆ N waiting` nor in the inbox's title.
#[test]
fn answered_items_wait_for_the_agent_apart_from_the_queue() {
    let (_t, mut m) = workspace_model();
    let waiting = m.waiting_total();
    let mut fresh = m.projects.clone();
    fresh[0].answered.push(crate::model::AnsweredItem {
        kind: InboxKind::Choice,
        reference: "next_action".into(),
        title: "Ship V1 now?".into(),
        answer: "Ship it".into(),
        at: Some(now() - Duration::minutes(5)),
        by: Some("alice".into()),
        subject: None,
        act: None,
    });
    update(&mut m, Event::Loaded(fresh));
    assert_eq!(m.waiting_total(), waiting);
    press(&mut m, KeyCode::Char('i'));
    let s = screen(&m, 200, 60);
    assert!(
        s.contains(&format!("◆ {waiting} waiting"))
            && s.contains(&format!("Inbox · {waiting} waiting")),
        "{s}"
    );
    assert!(
        s.contains("answered · waiting for the agent: 1")
            && s.contains("Ship V1 now? → Ship it (by alice, 5m ago)"),
        "{s}"
    );
    snap(&m, "answered_inbox");
}
