#![allow(clippy::unwrap_used, clippy::expect_used)]
use std::path::PathBuf;

use chrono::{DateTime, TimeZone, Utc};

use super::*;
use crate::model::{InboxKind, StatusKind};

fn at(minute: u32) -> Option<DateTime<Utc>> {
    Utc.with_ymd_and_hms(2026, 6, 1, 10, minute, 0).single()
}

fn ev(minute: u32, summary: &str) -> Event {
    Event {
        at: at(minute),
        source: "coder".to_owned(),
        kind: "note".to_owned(),
        summary: summary.to_owned(),
        unit: None,
    }
}

fn project(id: &str) -> Project {
    let mut p = Project::new(Format::Devloop, PathBuf::from("/w").join(id), id.to_owned());
    p.id = id.to_owned();
    p
}

fn bug(id: &str, status: &str) -> Bug {
    Bug {
        id: id.to_owned(),
        status: status.to_owned(),
        status_kind: StatusKind::Unknown,
        severity: "major".to_owned(),
        title: format!("bug {id}"),
        unit: None,
        history: Vec::new(),
        act: None,
    }
}

fn item(kind: InboxKind, reference: &str, title: &str) -> InboxItem {
    InboxItem {
        kind,
        reference: reference.to_owned(),
        title: title.to_owned().into(),
        since: at(0),
        options: Vec::new(),
        subject: None,
        act: None,
        why_not: None,
    }
}

/// A short name for each change, to compare whole lists.
fn names(changes: &[Change<'_>]) -> Vec<String> {
    changes
        .iter()
        .map(|c| match c {
            Change::Added(p) => format!("added {}", p.id),
            Change::Removed(p) => format!("removed {}", p.id),
            Change::Changed { project, .. } => format!("changed {}", project.id),
            Change::Events {
                project,
                events,
                gap,
            } => format!(
                "events{} {} {}",
                if *gap { "+gap" } else { "" },
                project.id,
                events
                    .iter()
                    .map(|e| e.summary.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            Change::TimelineReset { project } => format!("reset {}", project.id),
            Change::BugOpened { project, bug } => format!("opened {} {}", project.id, bug.id),
            Change::BugTransitioned { project, bug, from } => {
                format!("moved {} {} {from}->{}", project.id, bug.id, bug.status)
            }
            Change::InboxAdded { project, key, .. } => format!("in+ {} {key}", project.id),
            Change::InboxRemoved { project, key, .. } => format!("in- {} {key}", project.id),
            Change::InboxChanged { project, key, .. } => format!("in~ {} {key}", project.id),
        })
        .collect()
}

#[test]
fn the_same_reading_changes_nothing() {
    let mut a = project("a");
    a.detail.timeline = vec![ev(1, "x")];
    a.inbox = vec![item(InboxKind::Waiting, "WAITING.json", "t")];
    let old = vec![a.clone(), project("b")];
    assert!(diff(&old, &old.clone()).is_empty());
}

#[test]
fn projects_added_removed_and_changed_bring_their_inbox() {
    let mut a = project("a");
    a.inbox = vec![item(InboxKind::Question, "Q-1", "pick")];
    let b = project("b");
    let old = vec![a, b.clone()];
    let mut b2 = b;
    b2.status = "coding".to_owned();
    let mut c = project("c");
    c.inbox = vec![item(InboxKind::Blocked, "u1", "stuck")];
    c.detail.timeline = vec![ev(1, "old news")];
    c.detail.bugs = vec![bug("B-1", "open")];
    let new = vec![b2, c];
    assert_eq!(
        names(&diff(&old, &new)),
        [
            "in- a question:Q-1",
            "removed a",
            "changed b",
            "added c",
            "in+ c blocked:u1",
        ]
    );
}

#[test]
fn a_project_is_known_by_path_format_and_id() {
    let a = project("a");
    let mut gsd = a.clone();
    gsd.format = Format::Gsd;
    let new = [a.clone(), gsd];
    let changes = diff(std::slice::from_ref(&a), &new);
    assert_eq!(names(&changes), ["added a"]);
    assert!(matches!(changes[0], Change::Added(p) if p.format == Format::Gsd));
}

#[test]
fn appended_events_are_new_even_when_the_tail_scrolls() {
    let mut a = project("a");
    a.detail.timeline = (0..5).map(|i| ev(i, &format!("e{i}"))).collect();
    let old = vec![a.clone()];
    // A tail of 5: two appended, the two oldest scrolled out.
    a.detail.timeline = (2..7).map(|i| ev(i, &format!("e{i}"))).collect();
    assert_eq!(names(&diff(&old, &[a])), ["changed a", "events a e5,e6"]);
}

#[test]
fn repeated_identical_events_are_counted_by_overlap() {
    let same = |n: usize| (0..n).map(|_| ev(1, "tick")).collect::<Vec<_>>();
    assert_eq!(tail(&same(2), &same(3)), Tail::NewFrom(2));
    assert_eq!(tail(&same(3), &same(3)), Tail::NewFrom(3));
    assert_eq!(tail(&[], &same(2)), Tail::NewFrom(0));
}

#[test]
fn a_truncated_log_is_a_reset_not_news() {
    let old: Vec<Event> = (0..5).map(|i| ev(i, &format!("e{i}"))).collect();
    // Cut back to its first two lines: nothing new.
    assert_eq!(tail(&old, &old[..2]), Tail::Reset);
    // Emptied.
    assert_eq!(tail(&old, &[]), Tail::Reset);
    // Replaced with other, older lines.
    assert_eq!(tail(&old, &[ev(0, "restored")]), Tail::Reset);
    // Rotated, then written to, or outrun: what follows the old last
    // event is new (in the same second too), with a possible gap.
    assert_eq!(tail(&old, &[ev(9, "after")]), Tail::Gap);
    assert_eq!(tail(&old, &[ev(4, "same second")]), Tail::Gap);
    // An event without a time cannot be placed: reset.
    let untimed = Event {
        at: None,
        ..ev(9, "?")
    };
    assert_eq!(tail(&old, &[untimed]), Tail::Reset);

    let mut a = project("a");
    a.detail.timeline = old.clone();
    let before = vec![a.clone()];
    a.detail.timeline.truncate(2);
    assert_eq!(names(&diff(&before, &[a])), ["changed a", "reset a"]);
}

#[test]
fn more_appended_than_the_tail_holds_is_news_with_a_gap() {
    let mut a = project("a");
    a.detail.timeline = (0..3).map(|i| ev(i, &format!("e{i}"))).collect();
    let old = vec![a.clone()];
    a.detail.timeline = (5..8).map(|i| ev(i, &format!("e{i}"))).collect();
    assert_eq!(
        names(&diff(&old, &[a])),
        ["changed a", "events+gap a e5,e6,e7"]
    );
}

#[test]
fn bugs_open_and_move() {
    let mut a = project("a");
    a.detail.bugs = vec![bug("B-1", "open"), bug("B-2", "open")];
    let old = vec![a.clone()];
    a.detail.bugs = vec![bug("B-1", "fixing"), bug("B-2", "open"), bug("B-3", "open")];
    assert_eq!(
        names(&diff(&old, &[a])),
        ["changed a", "moved a B-1 open->fixing", "opened a B-3"]
    );
}

#[test]
fn inbox_items_appear_leave_and_change_by_key() {
    let mut a = project("a");
    a.inbox = vec![
        item(InboxKind::Question, "Q-1", "pick"),
        item(InboxKind::Waiting, "WAITING.json", "blocked on you"),
    ];
    let old = vec![a.clone()];
    a.inbox = vec![
        item(InboxKind::Question, "Q-1", "pick one"),
        item(InboxKind::Question, "Q-2", "and this"),
    ];
    assert_eq!(
        names(&diff(&old, &[a])),
        [
            "changed a",
            "in- a waiting:WAITING.json",
            "in~ a question:Q-1",
            "in+ a question:Q-2",
        ]
    );
}

#[test]
fn items_sharing_a_key_are_told_apart_by_order() {
    let mut a = project("a");
    a.inbox = vec![item(InboxKind::Blocked, "u", "one")];
    let old = vec![a.clone()];
    a.inbox.push(item(InboxKind::Blocked, "u", "two"));
    assert_eq!(names(&diff(&old, &[a])), ["changed a", "in+ a blocked:u#2"]);
}
