#![allow(clippy::unwrap_used, clippy::expect_used)]
use std::path::PathBuf;

use chrono::{TimeZone, Utc};

use super::*;
use crate::model::{Format, InboxKind, Problem};

fn at(minute: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 6, 1, 10, minute, 0).unwrap()
}

fn item(kind: InboxKind, reference: &str, since: Option<DateTime<Utc>>) -> InboxItem {
    InboxItem {
        kind,
        reference: reference.to_owned(),
        title: format!("about {reference}").into(),
        since,
        options: Vec::new(),
        subject: None,
        act: None,
        why_not: None,
    }
}

fn project(path: &str, items: Vec<InboxItem>) -> Project {
    let mut p = Project::new(Format::PrdMaster, PathBuf::from(path), "p".to_owned());
    p.inbox = items;
    p
}

fn since(p: &Project, reference: &str) -> Option<DateTime<Utc>> {
    p.inbox
        .iter()
        .find(|i| i.reference == reference)
        .and_then(|i| i.since)
}

/// An item without a time from its files waits since it was first seen:
/// later readings, after other writes to the project, keep that time;
/// one with a time from its files keeps its own.
#[test]
fn an_item_waits_since_it_was_first_seen_whatever_else_changes() {
    let mut mem = FirstSeen::default();
    let mut ps = vec![project(
        "/w/a",
        vec![
            item(InboxKind::Question, "OQ-4", None),
            item(InboxKind::Waiting, "WAITING.json", Some(at(1))),
        ],
    )];
    assert!(mem.fill(&mut ps, at(10)));
    assert_eq!(since(&ps[0], "OQ-4"), Some(at(10)));
    assert_eq!(since(&ps[0], "WAITING.json"), Some(at(1)));
    assert_eq!(mem.source(&ps[0], &ps[0].inbox[0]), Some(Source::FirstSeen));
    assert_eq!(mem.source(&ps[0], &ps[0].inbox[1]), Some(Source::File));
    // OQ-6 answered, a new OQ-9 asked: OQ-4 keeps its time.
    let mut ps = vec![project(
        "/w/a",
        vec![
            item(InboxKind::Question, "OQ-9", None),
            item(InboxKind::Question, "OQ-4", None),
        ],
    )];
    assert!(mem.fill(&mut ps, at(30)));
    assert_eq!(since(&ps[0], "OQ-4"), Some(at(10)));
    assert_eq!(since(&ps[0], "OQ-9"), Some(at(30)));
    // Nothing new: nothing to save.
    let mut again = ps.clone();
    for p in &mut again {
        for i in &mut p.inbox {
            i.since = None;
        }
    }
    assert!(!mem.fill(&mut again, at(40)));
    assert_eq!(since(&again[0], "OQ-4"), Some(at(10)));
}

/// An item answered is forgotten (asked again, it waits afresh), unless
/// its project read with problems; other projects' items stay.
#[test]
fn an_answered_item_is_forgotten_but_not_by_a_broken_reading() {
    let mut mem = FirstSeen::default();
    let mut ps = vec![
        project("/w/a", vec![item(InboxKind::Question, "OQ-1", None)]),
        project("/w/ab", vec![item(InboxKind::Question, "OQ-1", None)]),
    ];
    mem.fill(&mut ps, at(1));
    // /w/a breaks: its item is not forgotten.
    let mut broken = project("/w/a", Vec::new());
    broken.problems.push(Problem {
        file: "state.json".to_owned(),
        reason: "cannot read".to_owned(),
    });
    mem.fill(std::slice::from_mut(&mut broken), at(2));
    assert_eq!(mem.at.len(), 2);
    // /w/a reads well without it: forgotten; /w/ab (a path /w/a is a
    // prefix of) keeps its own.
    let mut answered = project("/w/a", Vec::new());
    assert!(mem.fill(std::slice::from_mut(&mut answered), at(3)));
    assert_eq!(mem.at.len(), 1);
    assert!(mem.at.keys().all(|k| k.starts_with("/w/ab#")));
    let mut asked_again = vec![project(
        "/w/a",
        vec![item(InboxKind::Question, "OQ-1", None)],
    )];
    mem.fill(&mut asked_again, at(4));
    assert_eq!(since(&asked_again[0], "OQ-1"), Some(at(4)));
}
