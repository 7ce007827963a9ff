//! Issue 7's console behaviour, on the pure update (and, where "visible" is
//! the point, on a frame drawn with ratatui's TestBackend).

use super::tests::{code, devloop, key, model, project, selected, three};
use super::*;
use crate::model::{Event as TimelineEvent, InboxKind, Problem};
use chrono::TimeZone;
use crossterm::event::KeyEvent;
use ratatui::{Terminal, backend::TestBackend};

fn screen(m: &Model, w: u16, h: u16) -> String {
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

fn settle_all(m: &mut Model) {
    let seq = m.hold_seq;
    update(m, Event::Settle(seq));
}

// 1. Never a dead console.

#[test]
fn a_failed_loader_is_shown_and_keys_still_act() {
    let mut m = Model::new(vec!["/w".into()], false, chrono::Utc::now());
    assert!(m.loading);
    let why = "reading the projects: No such local time".to_owned();
    assert_eq!(
        update(&mut m, Event::Failed(why.clone())),
        vec![Effect::Render]
    );
    assert!(!m.loading, "no longer 'reading…'");
    assert_eq!(m.failure.as_deref(), Some(why.as_str()));
    let s = screen(&m, 120, 20);
    assert!(s.contains("reading failed"), "{s}");
    assert!(s.contains("No such local time"), "{s}");
    assert!(!s.contains("reading…"), "{s}");
    assert_eq!(update(&mut m, key('r')), vec![Effect::Reload], "r retries");
    update(&mut m, Event::Loaded(vec![project("a", Format::Gsd, 0)]));
    assert_eq!(m.failure, None, "a good reading clears it");
}

// 2. Identity.

#[test]
fn the_open_project_keeps_its_identity_while_its_file_is_missing() {
    let mut m = three();
    update(&mut m, key('j'));
    update(&mut m, code(KeyCode::Enter));
    assert_eq!(selected(&m), "beta");
    let (alpha, gamma) = (m.projects[0].clone(), m.projects[2].clone());
    // An editor's save with a gap: beta is missing from one reading.
    let effects = update(&mut m, Event::Loaded(vec![alpha.clone(), gamma.clone()]));
    assert!(
        effects.contains(&Effect::SettleAfter(m.hold_seq)),
        "{effects:?}"
    );
    assert_eq!(selected(&m), "beta", "not swapped for another project");
    assert_eq!(m.focus, Focus::Detail);
    let beta = m.selected_project().cloned().expect("beta is shown");
    assert_eq!(m.freshness(&beta), Freshness::Rereading);
    // The file is back before the settle time: current again.
    let mut back = beta.clone();
    back.status = "saved".into();
    update(
        &mut m,
        Event::Loaded(vec![alpha.clone(), back, gamma.clone()]),
    );
    let p = m.selected_project().expect("beta");
    assert_eq!(
        (p.status.as_str(), m.freshness(p)),
        ("saved", Freshness::Current)
    );
    settle_all(&mut m);
    assert_eq!(selected(&m), "beta", "a late settle changes nothing");
}

#[test]
fn a_deleted_project_says_so_in_place_until_the_user_moves_on() {
    let mut m = three();
    update(&mut m, key('j'));
    update(&mut m, code(KeyCode::Enter));
    let (alpha, gamma) = (m.projects[0].clone(), m.projects[2].clone());
    update(&mut m, Event::Loaded(vec![alpha.clone(), gamma.clone()]));
    settle_all(&mut m);
    let p = m.selected_project().expect("still shown");
    assert_eq!((p.name.as_str(), m.freshness(p)), ("beta", Freshness::Gone));
    let s = screen(&m, 120, 20);
    assert!(s.contains("gone from disk"), "{s}");
    assert!(s.contains("beta (gone)"), "the list row says so too:\n{s}");
    // Further readings keep it while it is selected.
    update(&mut m, Event::Loaded(vec![alpha.clone(), gamma.clone()]));
    assert_eq!(selected(&m), "beta");
    // Moving away forgets it.
    update(&mut m, code(KeyCode::Esc));
    update(&mut m, key('k'));
    assert_eq!(selected(&m), "alpha");
    let names: Vec<&str> = m.projects.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, vec!["alpha", "gamma"]);
}

// 3. Last good reading.

#[test]
fn a_half_written_file_keeps_the_last_good_reading_until_it_settles() {
    let mut good = project("beta", Format::PrdMaster, 1);
    good.status = "in_progress".into();
    let mut m = model(vec![good.clone()]);
    let mut torn = project("beta", Format::PrdMaster, 0);
    torn.status = "rebuilt".into();
    torn.problems.push(Problem {
        file: "state.json".into(),
        reason: "EOF while parsing an object at line 3 column 0".into(),
    });
    let effects = update(&mut m, Event::Loaded(vec![torn.clone()]));
    assert!(effects.contains(&Effect::SettleAfter(1)), "{effects:?}");
    let p = &m.projects[0];
    assert_eq!(p.status, "in_progress", "the last good reading stays");
    assert_eq!(p.inbox.len(), 1);
    assert_eq!(m.freshness(p), Freshness::Rereading);
    let s = screen(&m, 120, 20);
    assert!(s.contains("re-reading"), "{s}");
    assert!(s.contains("(re-reading)"), "the list row says so too:\n{s}");
    // The writer finishes: the new good reading shows at once.
    let mut done = good.clone();
    done.status = "validated".into();
    update(&mut m, Event::Loaded(vec![done.clone()]));
    assert_eq!(
        (m.projects[0].status.as_str(), m.freshness(&m.projects[0])),
        ("validated", Freshness::Current)
    );
    // Broken again, and it stays broken past the settle time: the new
    // reading shows, problem and all.
    let effects = update(&mut m, Event::Loaded(vec![torn.clone()]));
    assert_eq!(m.projects[0].status, "validated");
    assert!(effects.contains(&Effect::SettleAfter(2)));
    update(&mut m, Event::Loaded(vec![torn.clone()]));
    assert_eq!(
        m.projects[0].status, "validated",
        "still within the settle time"
    );
    update(&mut m, Event::Settle(2));
    assert_eq!(m.projects[0].status, "rebuilt");
    assert_eq!(m.projects[0].problems, torn.problems);
    assert_eq!(m.freshness(&m.projects[0]), Freshness::Current);
    // Later readings with the same problem are shown as they are.
    assert!(
        !update(&mut m, Event::Loaded(vec![torn]))
            .iter()
            .any(|e| matches!(e, Effect::SettleAfter(_)))
    );
}

// 4. Filters.

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
fn esc_clears_a_kept_filter_and_slash_starts_afresh() {
    let mut m = devloop();
    update(&mut m, key('4'));
    update(&mut m, key('/'));
    update(&mut m, key('3'));
    update(&mut m, code(KeyCode::Enter));
    assert_eq!(m.filter_label(Tab::Timeline).as_deref(), Some("/3"));
    assert!(
        screen(&m, 120, 24).contains("/3"),
        "the filter is in the title"
    );
    // A second `/` types a new filter, not "3" followed by more.
    update(&mut m, key('/'));
    update(&mut m, key('4'));
    assert_eq!(m.pane(Tab::Timeline).filter, "4");
    update(&mut m, code(KeyCode::Enter));
    // Esc clears it first, staying in the tab; the next Esc leaves.
    update(&mut m, code(KeyCode::Esc));
    assert_eq!(
        (m.pane(Tab::Timeline).filter.as_str(), m.focus),
        ("", Focus::Detail)
    );
    assert_eq!(panes::timeline(&m.projects[0], "").len(), 5);
    update(&mut m, code(KeyCode::Esc));
    assert_eq!(m.focus, Focus::List);
}

// 5. Timeline reads back.

fn ev(i: usize) -> TimelineEvent {
    TimelineEvent {
        at: None,
        source: "coder".into(),
        kind: "run".into(),
        summary: format!("event {i}"),
        unit: None,
    }
}

#[test]
fn scrolling_up_past_the_timeline_top_reads_further_back() {
    let mut m = devloop(); // events 0..5 on screen
    update(&mut m, key('4'));
    let path = m.projects[0].path.clone();
    // g asks for everything back to the file's start.
    let asked = update(&mut m, key('g'));
    assert_eq!(
        asked,
        vec![
            Effect::ReadOlder {
                path: path.clone(),
                anchor: ev(0),
                want: OLDER_TO_TOP
            },
            Effect::Render
        ]
    );
    assert_eq!(update(&mut m, key('k')), vec![], "one read at a time");
    // Not yet the file's start: g reads on by itself (one press).
    let older: Vec<TimelineEvent> = (0..3).map(|i| ev(100 + i)).collect();
    let asked = update(
        &mut m,
        Event::Older {
            path: path.clone(),
            anchor: ev(0),
            events: older.clone(),
            at_start: false,
        },
    );
    assert_eq!(
        asked,
        vec![
            Effect::ReadOlder {
                path: path.clone(),
                anchor: ev(100),
                want: OLDER_TO_TOP
            },
            Effect::Render
        ]
    );
    let oldest: Vec<TimelineEvent> = (0..2).map(|i| ev(50 + i)).collect();
    let asked = update(
        &mut m,
        Event::Older {
            path: path.clone(),
            anchor: ev(100),
            events: oldest,
            at_start: true,
        },
    );
    assert_eq!(asked, vec![Effect::Render], "the file's start: no more");
    assert_eq!(m.projects[0].detail.timeline.len(), 10);
    assert_eq!(m.projects[0].detail.timeline[0], ev(50));
    assert_eq!(m.pane(Tab::Timeline).selected, 0, "g lands on the first");
    assert_eq!(update(&mut m, key('k')), vec![], "at the file's start");
}

/// k at the top of what was read reads a step further back; at the
/// file's first line, nothing more.
#[test]
fn k_at_the_timeline_top_reads_a_step_back() {
    let mut m = devloop(); // events 0..5 on screen
    update(&mut m, key('4'));
    let path = m.projects[0].path.clone();
    update(&mut m, key('g'));
    update(
        &mut m,
        Event::Older {
            path: path.clone(),
            anchor: ev(0),
            events: (0..3).map(|i| ev(100 + i)).collect(),
            at_start: false,
        },
    );
    // A read that found nothing more stops g's reading on (never a loop).
    let asked = update(
        &mut m,
        Event::Older {
            path: path.clone(),
            anchor: ev(100),
            events: Vec::new(),
            at_start: false,
        },
    );
    assert_eq!(asked, vec![Effect::Render]);
    assert_eq!(m.pane(Tab::Timeline).selected, 0, "g lands on the first");
    // k at the top reads a step further back.
    let asked = update(&mut m, key('k'));
    assert_eq!(
        asked,
        vec![Effect::ReadOlder {
            path: path.clone(),
            anchor: ev(100),
            want: OLDER_STEP
        }]
    );
    update(
        &mut m,
        Event::Older {
            path: path.clone(),
            anchor: ev(100),
            events: vec![ev(200)],
            at_start: true,
        },
    );
    assert_eq!(m.pane(Tab::Timeline).selected, 1, "k keeps its event");
    update(&mut m, key('g'));
    assert_eq!(
        update(&mut m, key('k')),
        vec![],
        "the file's first line: no more"
    );
    // A reload (a new event appended) keeps what was read back.
    let mut p = m.projects[0].clone();
    p.detail.timeline = (0..5).chain([5]).map(ev).collect();
    update(&mut m, Event::Loaded(vec![p]));
    let t: Vec<String> = m.projects[0]
        .detail
        .timeline
        .iter()
        .map(|e| e.summary.clone())
        .collect();
    let expected: Vec<String> = [200, 100, 101, 102, 0, 1, 2, 3, 4, 5]
        .iter()
        .map(|i| format!("event {i}"))
        .collect();
    assert_eq!(t, expected);
}

// 6. Keys.

#[test]
fn keys_do_nothing_while_the_terminal_is_too_small_except_quit() {
    let mut m = three();
    update(&mut m, Event::Size(MIN_WIDTH - 1, 30));
    assert!(screen(&m, MIN_WIDTH - 1, 30).contains("too small"));
    for k in ['j', 'i', '/', '?', ':', 'r'] {
        assert_eq!(update(&mut m, key(k)), vec![], "{k}");
    }
    assert_eq!(code_effects(&mut m, KeyCode::Enter), vec![]);
    assert_eq!(
        (selected(&m).as_str(), m.screen, m.mode),
        ("alpha", Screen::Projects, Mode::Normal)
    );
    assert_eq!(update(&mut m, key('q')), vec![Effect::Quit]);
    update(&mut m, Event::Size(100, 30));
    assert_eq!(
        update(&mut m, key('j')),
        vec![Effect::Render],
        "keys act again"
    );
}

fn code_effects(m: &mut Model, k: KeyCode) -> Vec<Effect> {
    update(m, Event::Key(KeyEvent::new(k, KeyModifiers::NONE)))
}

#[test]
fn help_scrolls_with_the_movement_keys() {
    let mut m = three();
    m.page = 3;
    update(&mut m, key('?'));
    update(&mut m, code(KeyCode::PageDown));
    assert_eq!(m.help_scroll, 3);
    update(&mut m, key('j'));
    update(&mut m, key('k'));
    update(&mut m, key('k'));
    assert_eq!(m.help_scroll, 2);
    update(&mut m, code(KeyCode::PageUp));
    assert_eq!(m.help_scroll, 0);
    // At a small size the rows below the fold come into view.
    let rows = help_rows(&m);
    let last = rows.last().expect("rows").description.clone();
    assert!(!screen(&m, 60, 12).contains(&last));
    // The keys end where the legend of symbols begins; G shows its end.
    m.page = 8;
    update(&mut m, code(KeyCode::PageDown));
    update(&mut m, code(KeyCode::PageDown));
    // One row more since `b` (group) has a help row.
    update(&mut m, key('j'));
    assert!(screen(&m, 60, 12).contains(&last), "{}", screen(&m, 60, 12));
    update(&mut m, key('G'));
    assert!(screen(&m, 60, 12).contains("█░      progress"));
    update(&mut m, key('q'));
    assert_eq!(m.mode, Mode::Normal);
}

#[test]
fn another_project_opens_on_its_overview() {
    let mut m = model(vec![
        project("one", Format::Devloop, 0),
        project("two", Format::Devloop, 0),
    ]);
    update(&mut m, key('4'));
    assert_eq!(m.tab, Tab::Timeline);
    update(&mut m, code(KeyCode::Esc));
    update(&mut m, key('j'));
    assert_eq!((selected(&m).as_str(), m.tab), ("two", Tab::Overview));
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

// 7. One keymap.

#[test]
fn one_table_drives_dispatch_help_hints_and_palette() {
    let mut m = devloop();
    update(&mut m, key('3'));
    assert_eq!(m.tab, Tab::Bugs);
    // Every key help lists here does what the table says.
    for b in KEYMAP
        .iter()
        .filter(|b| b.mode == Mode::Normal && !b.keys.is_empty())
    {
        if !commands::active(&m, Mode::Normal).any(|a| std::ptr::eq(a, b)) {
            continue;
        }
        for k in b.keys {
            let ev = match *k {
                Key::Char(c) => KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE),
                Key::Ctrl(c) => KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL),
                Key::Alt(c) => KeyEvent::new(KeyCode::Char(c), KeyModifiers::ALT),
                Key::Code(c) => KeyEvent::new(c, KeyModifiers::NONE),
                Key::Digit | Key::AnyDigit => KeyEvent::new(KeyCode::Char('1'), KeyModifiers::NONE),
            };
            let got = lookup(&m, &ev).expect("bound");
            let first = commands::active(&m, Mode::Normal)
                .find(|a| a.keys.contains(k))
                .expect("a row");
            assert_eq!(
                std::mem::discriminant(&got),
                std::mem::discriminant(&first.command),
                "{k:?}"
            );
        }
        assert!(
            help_rows(&m).iter().any(|r| r.keys == b.label),
            "help lists {}",
            b.label
        );
    }
    let h: Vec<String> = hints(&m).into_iter().map(|h| h.text).collect();
    assert_eq!(h.first().map(String::as_str), Some("s status"), "{h:?}");
    assert!(h.iter().any(|t| t == "Enter history"), "{h:?}");
    assert!(!h.iter().any(|t| t == "f follow"), "not on Bugs: {h:?}");
    // The palette offers the table's descriptions.
    let found = commands_matching(&m, "severity");
    assert_eq!(found.first().map(|f| f.0), Some(Command::CycleBugSeverity));
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

/// A root that cannot be read is said in the header; the projects of the
/// other roots are listed as usual.
#[test]
fn an_unreadable_root_is_said_in_the_header() {
    let mut m = three();
    let problem = "/mnt/gone: does not exist".to_owned();
    assert_eq!(
        update(&mut m, Event::RootProblems(vec![problem.clone()])),
        vec![Effect::Render]
    );
    let s = screen(&m, 120, 20);
    let header = s.lines().next().unwrap_or_default();
    assert!(
        header.contains("✗ cannot read /mnt/gone: does not exist"),
        "{s}"
    );
    assert!(s.contains("alpha"), "{s}");
    // The same problems again change nothing.
    assert!(update(&mut m, Event::RootProblems(vec![problem])).is_empty());
}

/// `g` on a log larger than the console holds stops reading back there,
/// and says so, instead of reading the whole file into memory.
#[test]
fn g_stops_reading_back_at_the_timeline_hold_and_says_so() {
    let mut m = devloop();
    update(&mut m, key('4'));
    let path = m.projects[0].path.clone();
    update(&mut m, key('g'));
    let many: Vec<TimelineEvent> = (0..crate::app::TIMELINE_HOLD)
        .map(|i| ev(1_000 + i))
        .collect();
    let asked = update(
        &mut m,
        Event::Older {
            path,
            anchor: ev(0),
            events: many,
            at_start: false,
        },
    );
    assert_eq!(asked, vec![Effect::Render]);
    let status = m.status.clone().unwrap_or_default();
    assert!(status.contains("newest 200005 events"), "{status}");
}
