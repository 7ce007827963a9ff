//! The Timeline, on the pure update: a kept filter cleared by Esc, and
//! reading back past the top of what was read (`k`, `g`, the hold).

use super::{code, devloop, key, screen};
use crate::app::*;
use crate::model::Event as TimelineEvent;

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
