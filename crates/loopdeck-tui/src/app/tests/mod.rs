//! Key handling, tested on the pure update function: no terminal, no disk.
//!
//! The helpers every `app` test uses (`key`, `code`, `project`, `model`,
//! `three`, `devloop`, …) live here; each topic's tests are a file beside
//! this one.

use super::*;
use crate::model::{Bug, Event as TimelineEvent, InboxItem, InboxKind};
use chrono::TimeZone;
use crossterm::event::KeyEvent;
use ratatui::{Terminal, backend::TestBackend};

mod cached;
mod copy;
mod group;
mod hosts;
mod inbox;
mod keys;
mod lang;
mod mouse;
mod navigation;
mod notice;
mod palette;
mod reading;
mod revisions;
mod sort;
mod timeline;

/// The frame `m` draws at `w` x `h` with the fallback theme, every cell
/// as drawn, one line of text per row.
pub(super) fn screen(m: &Model, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("test backend");
    t.draw(|f| crate::ui::render(m, &crate::ui::Theme::fallback(false), f))
        .expect("draws");
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

pub(super) fn key(c: char) -> Event {
    Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

pub(super) fn code(k: KeyCode) -> Event {
    Event::Key(KeyEvent::new(k, KeyModifiers::NONE))
}

pub(super) fn project(name: &str, format: Format, waiting: usize) -> Project {
    let mut p = Project::new(format, PathBuf::from(format!("/w/{name}")), name.to_owned());
    p.id = name.to_owned();
    for i in 0..waiting {
        p.inbox.push(InboxItem {
            kind: InboxKind::Question,
            act: None,
            reference: format!("OQ-{i}"),
            title: format!("question {i} of {name}").into(),
            since: Some(
                Utc.with_ymd_and_hms(2026, 5, 1 + i as u32, 0, 0, 0)
                    .unwrap(),
            ),
            options: vec![],
            subject: None,
            why_not: None,
        });
    }
    p
}

pub(super) fn model(projects: Vec<Project>) -> Model {
    let mut m = Model::new(
        vec!["/w".into()],
        false,
        Utc.with_ymd_and_hms(2026, 6, 1, 12, 0, 0).unwrap(),
    );
    update(&mut m, Event::Loaded(projects));
    m
}

pub(super) fn three() -> Model {
    model(vec![
        project("alpha", Format::Gsd, 0),
        project("beta", Format::PrdMaster, 2),
        project("gamma", Format::Devloop, 1),
    ])
}

pub(super) fn selected(m: &Model) -> String {
    m.selected_project()
        .map(|p| p.name.clone())
        .unwrap_or_default()
}

#[test]
fn moving_renders_only_when_the_selection_changes() {
    let mut m = three();
    assert_eq!(selected(&m), "alpha");
    assert_eq!(update(&mut m, key('k')), vec![], "already at the top");
    assert_eq!(update(&mut m, key('j')), vec![Effect::Render]);
    assert_eq!(selected(&m), "beta");
    update(&mut m, key('G'));
    assert_eq!(selected(&m), "gamma");
    assert_eq!(update(&mut m, code(KeyCode::Down)), vec![]);
    update(&mut m, code(KeyCode::Home));
    assert_eq!(selected(&m), "alpha");
    m.page = 2;
    update(&mut m, code(KeyCode::PageDown));
    assert_eq!(selected(&m), "gamma");
    update(&mut m, code(KeyCode::PageUp));
    assert_eq!(selected(&m), "alpha");
}

#[test]
fn reload_keeps_the_selected_project_by_id() {
    let mut m = three();
    update(&mut m, key('j'));
    update(
        &mut m,
        Event::Loaded(vec![
            project("new", Format::Gsd, 0),
            project("gamma", Format::Devloop, 0),
            project("beta", Format::PrdMaster, 0),
        ]),
    );
    assert_eq!(selected(&m), "beta");
    // alpha is missing from this reading: held (first row) until it settles.
    assert_eq!(m.list.selected, 3);
    let seq = m.hold_seq;
    update(&mut m, Event::Settle(seq));
    assert_eq!(
        m.list.selected, 2,
        "alpha settled as gone and left the list"
    );
    assert_eq!(selected(&m), "beta");
}

#[test]
fn filter_narrows_the_list_and_esc_clears_it() {
    let mut m = three();
    update(&mut m, key('/'));
    assert_eq!(m.mode, Mode::Filter);
    update(&mut m, key('g'));
    update(&mut m, key('a'));
    update(&mut m, key('m'));
    assert_eq!(panes::projects(&m).len(), 1);
    assert_eq!(selected(&m), "gamma");
    update(&mut m, code(KeyCode::Enter));
    assert_eq!((m.mode, m.list.filter.as_str()), (Mode::Normal, "gam"));
    assert_eq!(
        update(&mut m, key('q')),
        vec![Effect::Quit],
        "keys act again after Enter"
    );
    let mut m = three();
    update(&mut m, key('/'));
    update(&mut m, key('z'));
    assert!(panes::projects(&m).is_empty());
    update(&mut m, code(KeyCode::Esc));
    assert_eq!((m.mode, panes::projects(&m).len()), (Mode::Normal, 3));
}

#[test]
fn tabs_follow_the_format_and_number_keys_pick_them() {
    let mut m = three();
    update(&mut m, key('G'));
    assert_eq!(m.tabs(), panes::tabs_for(Format::Devloop));
    update(&mut m, key('3'));
    assert_eq!((m.tab, m.focus), (Tab::Bugs, Focus::Detail));
    update(&mut m, code(KeyCode::Tab));
    assert_eq!(m.tab, Tab::Timeline);
    update(&mut m, code(KeyCode::BackTab));
    update(&mut m, code(KeyCode::BackTab));
    assert_eq!(m.tab, Tab::Units);
    assert_eq!(update(&mut m, key('9')), vec![], "no ninth tab");
    update(&mut m, code(KeyCode::Esc));
    assert_eq!(m.focus, Focus::List);
    update(&mut m, key('g'));
    assert_eq!(m.tab, Tab::Overview, "a GSD project has no Units tab");
    assert_eq!(m.tabs(), panes::tabs_for(Format::Gsd));
}

#[test]
fn inbox_is_oldest_first_and_enter_jumps_to_the_item() {
    let mut m = three();
    update(&mut m, key('i'));
    assert_eq!(m.screen, Screen::Inbox);
    let rows = panes::inbox(&m);
    let titles: Vec<String> = rows
        .iter()
        .map(|&(p, i)| m.projects[p].inbox[i].title.en().into_owned())
        .collect();
    assert_eq!(
        titles,
        vec![
            "question 0 of beta",
            "question 0 of gamma",
            "question 1 of beta"
        ]
    );
    update(&mut m, key('j'));
    update(&mut m, code(KeyCode::Enter));
    assert_eq!((m.screen, m.focus), (Screen::Projects, Focus::Detail));
    assert_eq!(selected(&m), "gamma");
    update(&mut m, key('i'));
    update(&mut m, key('g'));
    update(&mut m, code(KeyCode::Enter));
    assert_eq!(
        (selected(&m).as_str(), m.tab),
        ("beta", Tab::Frontier),
        "a question opens the Frontier"
    );
}

#[test]
fn help_and_palette_take_the_keys_until_closed() {
    let mut m = three();
    update(&mut m, key('?'));
    assert_eq!(m.mode, Mode::Help);
    assert_eq!(
        update(&mut m, key('j')),
        vec![Effect::Render],
        "help takes movement: it scrolls"
    );
    assert_eq!((m.help_scroll, selected(&m).as_str()), (1, "alpha"));
    update(&mut m, code(KeyCode::Esc));
    assert_eq!(m.mode, Mode::Normal);
    update(&mut m, key(':'));
    for c in "inbox".chars() {
        update(&mut m, key(c));
    }
    let found = commands::matching(&m, &m.palette.input);
    assert_eq!(found.first().map(|f| f.0), Some(Command::Inbox));
    update(&mut m, code(KeyCode::Enter));
    assert_eq!((m.mode, m.screen), (Mode::Normal, Screen::Inbox));
    update(&mut m, key(':'));
    for c in "quit".chars() {
        update(&mut m, key(c));
    }
    assert_eq!(update(&mut m, code(KeyCode::Enter)), vec![Effect::Quit]);
}

#[test]
fn ctrl_l_redraws_and_release_events_are_ignored() {
    let mut m = three();
    assert_eq!(
        update(
            &mut m,
            Event::Key(KeyEvent::new(KeyCode::Char('l'), KeyModifiers::CONTROL))
        ),
        vec![Effect::FullRedraw]
    );
    let mut release = KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE);
    release.kind = KeyEventKind::Release;
    assert_eq!(update(&mut m, Event::Key(release)), vec![]);
    assert_eq!(update(&mut m, key('r')), vec![Effect::Reload]);
}

pub(super) fn devloop() -> Model {
    let mut p = project("dev", Format::Devloop, 0);
    for (i, (status, sev)) in [("open", "high"), ("fixed", "low"), ("open", "low")]
        .iter()
        .enumerate()
    {
        p.detail.bugs.push(Bug {
            status_kind: crate::model::StatusKind::Unknown,
            id: format!("bug-{i}"),
            status: (*status).into(),
            severity: (*sev).into(),
            title: format!("bug {i}"),
            unit: None,
            history: vec![],
            act: None,
        });
    }
    for i in 0..5 {
        p.detail.timeline.push(TimelineEvent {
            at: None,
            source: "coder".into(),
            kind: "run".into(),
            summary: format!("event {i}"),
            unit: None,
        });
    }
    model(vec![p])
}

#[test]
fn timeline_follows_its_end_until_the_user_scrolls_up() {
    let mut m = devloop();
    update(&mut m, key('4'));
    assert_eq!(m.tab, Tab::Timeline);
    assert_eq!(
        m.pane(Tab::Timeline).selected,
        4,
        "starts at the newest event"
    );
    update(&mut m, key('k'));
    assert!(!m.follow_timeline);
    let mut p = m.projects[0].clone();
    p.detail.timeline.push(TimelineEvent {
        at: None,
        source: "tester".into(),
        kind: "run".into(),
        summary: "event 5".into(),
        unit: None,
    });
    update(&mut m, Event::Loaded(vec![p.clone()]));
    assert_eq!(m.pane(Tab::Timeline).selected, 3, "scrolled up: stays put");
    update(&mut m, key('G'));
    assert!(m.follow_timeline);
    p.detail.timeline.push(TimelineEvent {
        at: None,
        source: "tester".into(),
        kind: "run".into(),
        summary: "event 6".into(),
        unit: None,
    });
    update(&mut m, Event::Loaded(vec![p]));
    assert_eq!(
        m.pane(Tab::Timeline).selected,
        6,
        "following: jumps to the new end"
    );
}

#[test]
fn bug_filters_cycle_through_the_values_present() {
    let mut m = devloop();
    update(&mut m, key('3'));
    assert_eq!(panes::bugs(&m, &m.projects[0]).len(), 3);
    update(&mut m, key('s'));
    assert_eq!(m.bug_filter.status.as_deref(), Some("fixed"));
    assert_eq!(panes::bugs(&m, &m.projects[0]).len(), 1);
    update(&mut m, key('s'));
    assert_eq!(m.bug_filter.status.as_deref(), Some("open"));
    update(&mut m, key('v'));
    assert_eq!(panes::bugs(&m, &m.projects[0]).len(), 1, "open and high");
    update(&mut m, key('s'));
    assert_eq!(m.bug_filter.status, None, "cycles back to all");
    update(&mut m, code(KeyCode::Enter));
    assert_eq!(m.drawer, Some(Drawer::Bug("bug-0".into())));
    update(&mut m, code(KeyCode::Esc));
    assert_eq!(
        (m.drawer.clone(), m.focus),
        (None, Focus::Detail),
        "Esc closes the drawer first"
    );
}

pub(super) fn ctrl(c: char) -> Event {
    Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

pub(super) fn unit(id: &str) -> crate::model::Unit {
    let mut u = crate::model::Unit::new(id, "be", "pending", crate::model::StatusKind::Unknown);
    u.layer = Some(0);
    u
}

#[test]
fn the_timeline_follows_new_events_even_when_the_list_has_the_keys() {
    let mut m = devloop();
    update(&mut m, key('4'));
    update(&mut m, code(KeyCode::Esc));
    assert_eq!(m.focus, Focus::List);
    let mut p = m.projects[0].clone();
    p.detail.timeline.push(TimelineEvent {
        at: None,
        source: "tester".into(),
        kind: "run".into(),
        summary: "event 5".into(),
        unit: None,
    });
    update(&mut m, Event::Loaded(vec![p]));
    assert_eq!(m.pane(Tab::Timeline).selected, 5);
}

#[test]
fn detail_selections_survive_a_reload_by_identity() {
    let mut p = project("dev", Format::Devloop, 0);
    p.detail.units = vec![unit("a"), unit("b"), unit("c")];
    let mut m = model(vec![p.clone()]);
    update(&mut m, key('2'));
    update(&mut m, key('G'));
    update(&mut m, code(KeyCode::Enter));
    assert_eq!(m.drawer, Some(Drawer::Unit("c".into())));
    p.detail.units.insert(0, unit("0-new"));
    update(&mut m, Event::Loaded(vec![p.clone()]));
    assert_eq!(
        m.pane(Tab::Units).selected,
        3,
        "still on c, now the fourth row"
    );
    assert_eq!(m.drawer, Some(Drawer::Unit("c".into())));
    p.detail.units.retain(|u| u.id != "c");
    update(&mut m, Event::Loaded(vec![p]));
    assert_eq!(m.drawer, None, "a drawer on a vanished unit closes");
    assert_eq!(m.pane(Tab::Units).selected, 2, "clamped to the rows left");
}

#[test]
fn a_filter_that_matches_nothing_keeps_the_selection() {
    let mut m = three();
    update(&mut m, key('j'));
    update(&mut m, key('/'));
    update(&mut m, key('z'));
    assert!(panes::projects(&m).is_empty());
    update(&mut m, code(KeyCode::Backspace));
    assert_eq!(selected(&m), "beta");
}

#[test]
fn filtering_a_following_timeline_stays_at_its_end() {
    let mut m = devloop();
    update(&mut m, key('4'));
    update(&mut m, key('/'));
    update(&mut m, key('e'));
    assert!(m.follow_timeline);
    assert_eq!(m.pane(Tab::Timeline).selected, 4);
}

#[test]
fn a_drawer_takes_the_movement_keys() {
    let mut m = devloop();
    update(&mut m, key('3'));
    update(&mut m, code(KeyCode::Enter));
    assert!(m.drawer.is_some());
    update(&mut m, key('j'));
    update(&mut m, key('j'));
    assert_eq!((m.drawer_scroll, m.pane(Tab::Bugs).selected), (2, 0));
    update(&mut m, key('g'));
    assert_eq!(m.drawer_scroll, 0);
}

#[test]
fn ctrl_c_quits_from_every_mode() {
    for opener in ['/', ':', '?'] {
        let mut m = three();
        update(&mut m, key(opener));
        assert_ne!(m.mode, Mode::Normal);
        assert_eq!(update(&mut m, ctrl('c')), vec![Effect::Quit], "{opener}");
    }
}

#[test]
fn inbox_enter_lands_on_the_item_itself() {
    let mut m = three();
    let mut p = m.projects[1].clone();
    p.frontier.questions = (0..2)
        .map(|i| crate::model::Question {
            id: format!("OQ-{i}"),
            title: String::new(),
            kind: "decision".into(),
            priority: None,
            owner: None,
            status: None,
            waiting_on: vec![],
            evidence_needed: None,
            acceptance_threshold: None,
            due_by: None,
        })
        .collect();
    let others = (m.projects[0].clone(), m.projects[2].clone());
    update(&mut m, Event::Loaded(vec![others.0, p, others.1]));
    update(&mut m, key('i'));
    update(&mut m, key('G'));
    update(&mut m, code(KeyCode::Enter));
    assert_eq!((selected(&m).as_str(), m.tab), ("beta", Tab::Frontier));
    assert_eq!(m.pane(Tab::Frontier).selected, 1, "OQ-1, the item chosen");
}

#[test]
fn a_window_scrolls_only_when_the_selection_leaves_it() {
    let s = Scroll::new();
    assert_eq!(s.window(0, 10, 100), 0);
    assert_eq!(
        s.window(15, 10, 100),
        6,
        "down past the bottom: the window follows"
    );
    assert_eq!(s.window(14, 10, 100), 6, "up inside the window: it stays");
    assert_eq!(s.window(6, 10, 100), 6);
    assert_eq!(s.window(3, 10, 100), 3, "up past the top: it follows");
    assert_eq!(
        s.window(3, 10, 5),
        0,
        "a shorter list pulls the window back"
    );
}

#[test]
fn inbox_enter_finds_the_row_by_the_item_subject() {
    let mut p = project("plan", Format::Dwp, 0);
    p.detail.tasks = ["1", "2", "3"]
        .iter()
        .map(|id| crate::model::Task {
            status_kind: crate::model::StatusKind::Unknown,
            id: (*id).into(),
            title: String::new(),
            status: "pending".into(),
            md_checked: None,
            locator: None,
            started_at: None,
            completed_at: None,
            commit: None,
            gates: vec![],
            outcome: None,
        })
        .collect();
    p.inbox.push(InboxItem {
        kind: InboxKind::Blocked,
        act: None,
        reference: "task 3".into(),
        title: "blocked".into(),
        since: None,
        options: vec![],
        subject: Some("3".into()),
        why_not: None,
    });
    let mut m = model(vec![p]);
    update(&mut m, key('i'));
    update(&mut m, code(KeyCode::Enter));
    assert_eq!((m.tab, m.pane(Tab::Tasks).selected), (Tab::Tasks, 2));
}

/// A unit out of retries and an unsure triage open the Units tab on the
/// unit they name.
#[test]
fn devloop_retries_and_triage_items_open_their_unit() {
    for kind in [InboxKind::RetriesSpent, InboxKind::Triage] {
        let mut p = project("loop", Format::Devloop, 0);
        p.detail.units = ["a", "b", "c"].iter().map(|id| unit(id)).collect();
        p.inbox.push(InboxItem {
            kind,
            reference: "b".into(),
            title: "needs a human".into(),
            since: None,
            options: vec![],
            subject: Some("b".into()),
            act: None,
            why_not: None,
        });
        let mut m = model(vec![p]);
        update(&mut m, key('i'));
        update(&mut m, code(KeyCode::Enter));
        let p = m.selected_project().unwrap();
        let row = m.pane(Tab::Units).selected;
        let keys = panes::keys(&m, p, Tab::Units);
        assert_eq!((m.tab, keys[row].as_str()), (Tab::Units, "b"), "{kind:?}");
    }
}
