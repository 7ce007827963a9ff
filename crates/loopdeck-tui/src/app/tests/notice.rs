//! Notifications, new-item marks and the Timeline's "N new below"
//! (issue 9 §4, §5), on the pure update.

use super::{code, devloop, key, model, project};
use crate::app::*;
use crate::model::{Event as TimelineEvent, InboxItem, InboxKind, Problem};
use chrono::TimeZone;

fn notifies(effects: &[Effect]) -> Vec<(String, String)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Notify { title, body } => Some((title.clone(), body.clone())),
            _ => None,
        })
        .collect()
}

fn ask(p: &mut Project, reference: &str, kind: InboxKind) {
    p.inbox.push(InboxItem {
        kind,
        act: None,
        reference: reference.into(),
        title: format!("about {reference}").into(),
        since: Some(Utc.with_ymd_and_hms(2026, 5, 20, 0, 0, 0).unwrap()),
        options: vec![],
        subject: None,
        why_not: None,
    });
}

fn broken(p: &Project) -> Project {
    let mut b = p.clone();
    b.inbox.clear();
    b.problems.push(Problem {
        file: "state.json".into(),
        reason: "EOF while parsing".into(),
    });
    b
}

/// The inbox as a frame draws it: the rows on screen recorded.
fn draw_inbox(m: &Model, height: usize) {
    let len = panes::inbox(m).len();
    m.inbox.first.window(m.inbox.selected, height, len);
}

#[test]
fn the_first_reading_of_a_run_notifies_nothing() {
    let mut m = Model::new(vec!["/w".into()], false, Utc::now());
    let effects = update(
        &mut m,
        Event::Loaded(vec![project("alpha", Format::Gsd, 3)]),
    );
    assert_eq!(notifies(&effects), vec![]);
    assert_eq!(m.new_total(), 0, "nothing is new on opening");
}

/// A partial reading that arrives before the first full one (a change
/// during the start) does not make the full one's items new.
#[test]
fn the_run_is_primed_by_its_first_full_reading() {
    let mut m = Model::new(vec!["/w".into()], false, Utc::now());
    let b = project("beta", Format::PrdMaster, 1);
    let effects = update(
        &mut m,
        Event::Reread {
            dirs: vec![b.path.clone()],
            trees: vec![],
            projects: vec![b.clone()],
        },
    );
    assert_eq!(notifies(&effects), vec![]);
    let effects = update(
        &mut m,
        Event::Loaded(vec![project("alpha", Format::Gsd, 2), b.clone()]),
    );
    assert_eq!(notifies(&effects), vec![]);
    assert_eq!(m.new_total(), 0);
    let effects = update(
        &mut m,
        Event::Loaded(vec![project("alpha", Format::Gsd, 3), b]),
    );
    assert_eq!(notifies(&effects).len(), 1);
}

#[test]
fn a_new_item_notifies_once() {
    let a = project("alpha", Format::Gsd, 0);
    let b = project("beta", Format::PrdMaster, 1);
    let mut m = model(vec![a.clone(), b.clone()]);
    let mut a2 = a.clone();
    ask(&mut a2, "WAITING.json", InboxKind::Waiting);
    let effects = update(&mut m, Event::Loaded(vec![a2.clone(), b.clone()]));
    assert_eq!(
        notifies(&effects),
        vec![(
            "loopdeck · alpha".to_owned(),
            "waiting: about WAITING.json".to_owned()
        )]
    );
    assert_eq!(m.new_total(), 1);
    // The same reading again, a partial reading of another project, a
    // partial reading of this one unchanged: nothing more.
    let effects = update(&mut m, Event::Loaded(vec![a2.clone(), b.clone()]));
    assert_eq!(notifies(&effects), vec![]);
    let effects = update(
        &mut m,
        Event::Reread {
            dirs: vec![b.path.clone()],
            trees: vec![],
            projects: vec![b.clone()],
        },
    );
    assert_eq!(notifies(&effects), vec![]);
    let effects = update(
        &mut m,
        Event::Reread {
            dirs: vec![a2.path.clone()],
            trees: vec![],
            projects: vec![a2.clone()],
        },
    );
    assert_eq!(notifies(&effects), vec![]);
    assert_eq!(m.new_total(), 1, "still not seen");
}

/// A partial reading looks for new items among the projects it read
/// (exactly its directories, or under its trees), and finds them there
/// whatever else the list holds.
#[test]
fn a_partial_reading_finds_the_new_items_of_what_it_read() {
    let a = project("alpha", Format::Gsd, 0);
    let b = project("beta", Format::PrdMaster, 0);
    let mut m = model(vec![a.clone(), b.clone()]);
    let mut a2 = a.clone();
    ask(&mut a2, "WAITING.json", InboxKind::Waiting);
    let effects = update(
        &mut m,
        Event::Reread {
            dirs: vec![a.path.clone()],
            trees: vec![],
            projects: vec![a2.clone()],
        },
    );
    assert_eq!(notifies(&effects).len(), 1, "read as a directory");
    let mut b2 = b.clone();
    ask(&mut b2, "q-1", InboxKind::Question);
    let parent = b.path.parent().unwrap().to_path_buf();
    let effects = update(
        &mut m,
        Event::Reread {
            dirs: vec![],
            trees: vec![parent],
            projects: vec![a2.clone(), b2.clone()],
        },
    );
    assert_eq!(
        notifies(&effects),
        vec![(
            "loopdeck · beta".to_owned(),
            "question: about q-1".to_owned()
        )],
        "read under a tree"
    );
    assert_eq!(m.new_total(), 2);
}

#[test]
fn several_new_items_in_one_reading_are_one_notification() {
    let a = project("alpha", Format::Gsd, 0);
    let mut m = model(vec![a.clone(), project("beta", Format::PrdMaster, 0)]);
    let (a2, b2) = (
        project("alpha", Format::Gsd, 2),
        project("beta", Format::PrdMaster, 1),
    );
    let effects = update(&mut m, Event::Loaded(vec![a2, b2]));
    assert_eq!(
        notifies(&effects),
        vec![(
            "loopdeck".to_owned(),
            "3 new questions waiting · alpha, beta".to_owned()
        )]
    );
    assert_eq!(m.new_total(), 3);
}

#[test]
fn a_held_or_broken_reading_is_not_a_transition() {
    let b = project("beta", Format::PrdMaster, 1);
    let mut m = model(vec![b.clone()]);
    // Caught mid-write: held, the item stays shown.
    let effects = update(&mut m, Event::Loaded(vec![broken(&b)]));
    assert!(effects.iter().any(|e| matches!(e, Effect::SettleAfter(_))));
    assert_eq!(notifies(&effects), vec![]);
    // Missing for an editor's save: held as well.
    assert_eq!(notifies(&update(&mut m, Event::Loaded(vec![]))), vec![]);
    let effects = update(&mut m, Event::Loaded(vec![b.clone()]));
    assert_eq!(notifies(&effects), vec![], "back before the settle time");
    // Broken past the settle time: the broken reading is shown (without
    // the item); when it reads well again, the same item is not new.
    update(&mut m, Event::Loaded(vec![broken(&b)]));
    let seq = m.hold_seq;
    let effects = update(&mut m, Event::Settle(seq));
    assert_eq!(m.projects[0].inbox.len(), 0, "the broken reading shows");
    assert_eq!(notifies(&effects), vec![]);
    let effects = update(&mut m, Event::Loaded(vec![b.clone()]));
    assert_eq!(notifies(&effects), vec![], "the same item, read well again");
    assert_eq!(m.new_total(), 0);
}

/// Decided: a project that leaves the disk and comes back with the same
/// item does not ring again; an item answered (its project read well
/// without it) and asked again does.
#[test]
fn an_item_that_returns_rings_again_only_if_it_was_answered() {
    let a = project("alpha", Format::Gsd, 0);
    let b = project("beta", Format::PrdMaster, 1);
    let mut m = model(vec![a.clone(), b.clone()]);
    // beta is deleted (gone after the settle), then restored.
    update(&mut m, Event::Loaded(vec![a.clone()]));
    let seq = m.hold_seq;
    update(&mut m, Event::Settle(seq));
    assert!(m.projects.iter().all(|p| p.name != "beta"), "gone");
    let effects = update(&mut m, Event::Loaded(vec![a.clone(), b.clone()]));
    assert_eq!(notifies(&effects), vec![], "back with the same item");
    // Answered: beta reads well without it.
    let answered = project("beta", Format::PrdMaster, 0);
    let effects = update(&mut m, Event::Loaded(vec![a.clone(), answered]));
    assert_eq!(notifies(&effects), vec![]);
    // Asked again: a new transition.
    let effects = update(&mut m, Event::Loaded(vec![a.clone(), b.clone()]));
    assert_eq!(notifies(&effects).len(), 1);
    assert_eq!(m.new_total(), 1);
    // Answered while unseen: the mark goes with it.
    update(
        &mut m,
        Event::Loaded(vec![a.clone(), project("beta", Format::PrdMaster, 0)]),
    );
    assert_eq!(m.new_total(), 0);
}

#[test]
fn marks_stay_until_the_inbox_shows_the_row_and_a_key_is_pressed() {
    let mut m = model(vec![project("alpha", Format::Gsd, 0)]);
    update(
        &mut m,
        Event::Loaded(vec![project("alpha", Format::Gsd, 4)]),
    );
    assert_eq!(m.new_total(), 4);
    update(&mut m, key('i'));
    assert_eq!(m.screen, Screen::Inbox);
    assert_eq!(m.new_total(), 4, "not drawn yet: not seen");
    // A frame showing the first two rows, then a key: those two are seen.
    draw_inbox(&m, 2);
    update(&mut m, key('j'));
    assert_eq!(m.new_total(), 2);
    let rows = panes::inbox(&m);
    let p = &m.projects[0];
    let new: Vec<bool> = rows
        .iter()
        .map(|&(_, ii)| m.notices.is_new(p, &p.inbox[ii]))
        .collect();
    assert_eq!(new, [false, false, true, true]);
    // A reading alone sees nothing (the user may be away).
    draw_inbox(&m, 10);
    update(
        &mut m,
        Event::Loaded(vec![project("alpha", Format::Gsd, 4)]),
    );
    assert_eq!(m.new_total(), 2);
    // Nor does a key after a reading whose rows were not drawn yet.
    update(&mut m, key('j'));
    assert_eq!(m.new_total(), 2);
    draw_inbox(&m, 10);
    update(&mut m, key('j'));
    assert_eq!(m.new_total(), 0);
}

#[test]
fn opening_the_project_sees_its_items() {
    let a = project("alpha", Format::Gsd, 0);
    let b = project("beta", Format::PrdMaster, 0);
    let mut m = model(vec![a.clone(), b.clone()]);
    let (a2, b2) = (
        project("alpha", Format::Gsd, 1),
        project("beta", Format::PrdMaster, 2),
    );
    update(&mut m, Event::Loaded(vec![a2.clone(), b2.clone()]));
    assert_eq!(m.new_total(), 3);
    let beta_row = panes::projects(&m)
        .iter()
        .position(|&i| m.projects[i].name == "beta")
        .unwrap();
    for _ in 0..beta_row {
        update(&mut m, key('j'));
    }
    assert_eq!(m.new_total(), 3, "selecting in the list is not opening");
    update(&mut m, code(KeyCode::Enter));
    assert_eq!(m.focus, Focus::Detail);
    assert_eq!(m.new_total(), 1, "beta's two are seen, alpha's is not");
    // A new item for the open project stays marked until a key.
    let mut b3 = b2.clone();
    ask(&mut b3, "OQ-9", InboxKind::Question);
    update(&mut m, Event::Loaded(vec![a2.clone(), b3]));
    assert_eq!(m.new_total(), 2);
    update(&mut m, key('j'));
    assert_eq!(m.new_total(), 1);
}

fn event(i: usize) -> TimelineEvent {
    TimelineEvent {
        at: Some(
            Utc.with_ymd_and_hms(2026, 6, 1, 10, 0, 0).unwrap()
                + chrono::Duration::seconds(i as i64),
        ),
        source: "coder".into(),
        kind: "run".into(),
        summary: format!("event {i}"),
        unit: None,
    }
}

/// The loader's tail: the last `tail` of events `0..end`.
fn tail(p: &Project, end: usize, tail: usize) -> Project {
    let mut p = p.clone();
    p.detail.timeline = (end.saturating_sub(tail)..end).map(event).collect();
    p
}

#[test]
fn a_timeline_scrolled_up_counts_what_arrived_below_and_stays_put() {
    let mut m = devloop();
    let base = tail(&m.projects[0], 5, 5);
    update(&mut m, Event::Loaded(vec![base.clone()]));
    update(&mut m, key('4'));
    assert_eq!(m.tab, Tab::Timeline);
    assert_eq!(m.timeline_new_below(), 0);
    update(&mut m, key('k'));
    update(&mut m, key('k'));
    assert!(!m.follow_timeline);
    assert_eq!(m.pane(Tab::Timeline).selected, 2);
    // Three appended; the loader's tail (5) moves on past the selection.
    update(&mut m, Event::Loaded(vec![tail(&base, 8, 5)]));
    assert_eq!(m.timeline_new_below(), 3);
    let p = &m.projects[0];
    assert_eq!(
        p.detail.timeline[m.pane(Tab::Timeline).selected].summary,
        "event 2",
        "the selected event stays"
    );
    assert_eq!(
        m.pane(Tab::Timeline).selected,
        2,
        "at the same row: the view does not jump"
    );
    // Two more, by a partial reading.
    update(
        &mut m,
        Event::Reread {
            dirs: vec![base.path.clone()],
            trees: vec![],
            projects: vec![tail(&base, 10, 5)],
        },
    );
    assert_eq!(m.timeline_new_below(), 5);
    assert_eq!(m.pane(Tab::Timeline).selected, 2);
    // Back at the end: cleared, and the tail alone again.
    update(&mut m, key('f'));
    assert_eq!(m.timeline_new_below(), 0);
    update(&mut m, Event::Loaded(vec![tail(&base, 11, 5)]));
    assert_eq!(m.projects[0].detail.timeline.len(), 5, "memory stays flat");
    assert_eq!(m.timeline_new_below(), 0);
}

#[test]
fn returning_to_the_end_by_moving_down_clears_the_count() {
    let mut m = devloop();
    let base = tail(&m.projects[0], 5, 5);
    update(&mut m, Event::Loaded(vec![base.clone()]));
    update(&mut m, key('4'));
    update(&mut m, key('k'));
    update(&mut m, Event::Loaded(vec![tail(&base, 6, 50)]));
    assert_eq!(m.timeline_new_below(), 1);
    update(&mut m, key('G'));
    assert!(m.follow_timeline);
    assert_eq!(m.timeline_new_below(), 0);
    // Scrolled up again later: counts from there.
    update(&mut m, key('k'));
    assert_eq!(m.timeline_new_below(), 0);
    update(&mut m, Event::Loaded(vec![tail(&base, 8, 50)]));
    assert_eq!(m.timeline_new_below(), 2);
}

/// The key that sees a mark may do nothing else (j on the only row): the
/// frame is drawn again all the same, so the mark goes from the screen.
#[test]
fn a_key_that_only_sees_a_mark_redraws() {
    let mut m = model(vec![project("alpha", Format::Gsd, 0)]);
    update(
        &mut m,
        Event::Loaded(vec![project("alpha", Format::Gsd, 1)]),
    );
    update(&mut m, key('i'));
    draw_inbox(&m, 10);
    assert_eq!(update(&mut m, key('j')), vec![Effect::Render]);
    assert_eq!(m.new_total(), 0);
    assert_eq!(update(&mut m, key('j')), vec![], "nothing more to draw");
}

/// Scrolled up and away while an agent writes on: the events kept in
/// front of the tail stop at `KEEP_MAX` (memory stays bounded).
#[test]
fn the_events_kept_while_scrolled_up_are_bounded() {
    let mut m = devloop();
    let base = tail(&m.projects[0], 5, 5);
    update(&mut m, Event::Loaded(vec![base.clone()]));
    update(&mut m, key('4'));
    update(&mut m, key('k'));
    // Less than the tail (50) at a time, so the tail continues what is kept.
    let step = 40;
    let mut end = 5;
    let mut longest = 0;
    for _ in 0..(notice::KEEP_MAX / step + 10) {
        end += step;
        update(&mut m, Event::Loaded(vec![tail(&base, end, 50)]));
        longest = longest.max(m.projects[0].detail.timeline.len());
    }
    assert!(longest > 50, "kept while it could");
    assert!(longest <= notice::KEEP_MAX + step, "{longest}");
    assert!(m.projects[0].detail.timeline.len() <= notice::KEEP_MAX + step);
}

/// Issue 20 §3: on the first start after items arrived while the console
/// was closed, those items are marked new (the header's "N new", the
/// rows' •), told by the memory of the last run; with no memory (the very
/// first run) nothing is.
#[test]
fn items_that_arrived_while_away_are_marked_on_the_next_start() {
    let mut p = project("alpha", Format::Gsd, 2);
    ask(&mut p, "Q-A", InboxKind::Question);
    ask(&mut p, "Q-B", InboxKind::Question);
    // The last run saw every item but Q-B.
    let mut last_run = crate::model::first_seen::FirstSeen::default();
    let mut then = vec![p.clone()];
    then[0].inbox.retain(|i| i.reference != "Q-B");
    last_run.fill(&mut then, Utc::now());
    let remembered =
        crate::model::first_seen::FirstSeen::new(last_run.at.clone(), last_run.base.clone());

    let mut m = Model::new(vec!["/w".into()], false, Utc::now());
    m.first_seen = remembered;
    let effects = update(&mut m, Event::Loaded(vec![p.clone()]));
    assert_eq!(notifies(&effects), vec![], "no notification at start");
    assert_eq!(m.new_total(), 1);
    let new: Vec<&str> = m.projects[0]
        .inbox
        .iter()
        .filter(|i| m.notices.is_new(&m.projects[0], i))
        .map(|i| i.reference.as_str())
        .collect();
    assert_eq!(new, ["Q-B"]);

    // The very first run: no memory, nothing new.
    let mut m = Model::new(vec!["/w".into()], false, Utc::now());
    update(&mut m, Event::Loaded(vec![p]));
    assert_eq!(m.new_total(), 0);
}
