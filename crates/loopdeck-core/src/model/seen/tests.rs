#![allow(clippy::unwrap_used, clippy::expect_used)]
use std::path::PathBuf;

use chrono::{DateTime, TimeZone, Utc};

use super::*;
use crate::model::{Bug, Format, InboxKind, StatusKind};

fn at(minute: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 6, 1, 10, minute, 0).unwrap()
}

fn ev(minute: u32, summary: &str) -> Event {
    Event {
        at: Some(at(minute)),
        source: "coder".to_owned(),
        kind: "note".to_owned(),
        summary: summary.to_owned(),
        unit: None,
    }
}

fn item(kind: InboxKind, reference: &str, title: &str) -> InboxItem {
    InboxItem {
        kind,
        reference: reference.to_owned(),
        title: title.to_owned().into(),
        since: None,
        options: Vec::new(),
        subject: None,
        act: None,
        why_not: None,
    }
}

fn bug(id: &str, status: &str) -> Bug {
    Bug {
        id: id.to_owned(),
        status: status.to_owned(),
        status_kind: StatusKind::Unknown,
        severity: "high".to_owned(),
        title: format!("bug {id}"),
        unit: None,
        history: Vec::new(),
        act: None,
    }
}

fn project() -> Project {
    let mut p = Project::new(Format::Devloop, PathBuf::from("/w/shop"), "shop".to_owned());
    p.status = "running".to_owned();
    p.stage = Some("L1".to_owned().into());
    p.progress_percent = Some(40);
    p.inbox = vec![
        item(InboxKind::Question, "Q-1", "Which region first?"),
        item(InboxKind::Resume, "coder", "resume the coder"),
    ];
    p.detail.bugs = vec![bug("B-1", "open"), bug("B-2", "open")];
    p.detail.timeline = vec![ev(1, "a"), ev(2, "b")];
    p
}

#[test]
fn nothing_changed_is_empty() {
    let p = project();
    let s = Seen::of(&p, at(5));
    let d = since(&s, &p);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(d.looked_at, at(5));
}

#[test]
fn every_kind_of_change_is_told() {
    let before = project();
    let seen = Seen::of(&before, at(5));
    let mut now = before.clone();
    now.status = "blocked".to_owned();
    now.stage = Some("L2".to_owned().into());
    now.progress_percent = Some(55);
    // Q-1 answered, Q-2 asked; the resume item stays.
    now.inbox.remove(0);
    now.inbox
        .push(item(InboxKind::Question, "Q-2", "缓存策略选哪个？"));
    // B-1 fixed, B-2 gone, B-3 new.
    now.detail.bugs = vec![bug("B-1", "fixed"), bug("B-3", "open")];
    now.detail
        .timeline
        .extend([ev(6, "c"), ev(7, "d"), ev(8, "e")]);
    let d = since(&seen, &now);
    assert_eq!(
        d.status,
        Some(Change {
            before: "running".to_owned(),
            after: "blocked".to_owned()
        })
    );
    assert_eq!(
        d.stage
            .as_ref()
            .map(|c| (c.before.as_deref(), c.after.as_deref())),
        Some((Some("L1"), Some("L2")))
    );
    assert_eq!(
        d.progress_percent.as_ref().map(|c| (c.before, c.after)),
        Some((Some(40), Some(55)))
    );
    let refs = |v: &[Waiting]| v.iter().map(|w| w.reference.clone()).collect::<Vec<_>>();
    assert_eq!(refs(&d.new_items), ["Q-2"]);
    assert_eq!(d.new_items[0].title, "缓存策略选哪个？");
    assert_eq!(refs(&d.answered), ["Q-1"]);
    let moves: Vec<(String, Option<String>, Option<String>)> = d
        .bugs
        .iter()
        .map(|b| (b.id.clone(), b.before.clone(), b.after.clone()))
        .collect();
    assert_eq!(
        moves,
        [
            ("B-1".into(), Some("open".into()), Some("fixed".into())),
            ("B-2".into(), Some("open".into()), None),
            ("B-3".into(), None, Some("open".into())),
        ]
    );
    assert_eq!((d.new_events, d.more_events), (3, false));
    assert!(!d.is_empty());
}

/// The same reference under another kind is another item.
#[test]
fn an_item_is_known_by_kind_and_reference() {
    let before = project();
    let seen = Seen::of(&before, at(5));
    let mut now = before.clone();
    now.inbox[0].kind = InboxKind::Evidence;
    let d = since(&seen, &now);
    assert_eq!(d.new_items.len(), 1);
    assert_eq!(d.answered.len(), 1);
}

/// The last event seen pushed out of the tail: the tail's later events
/// are counted, and there may be more.
#[test]
fn a_last_event_out_of_the_tail_counts_by_time() {
    let seen = Seen::of(&project(), at(5));
    let mut now = project();
    now.detail.timeline = vec![ev(10, "x"), ev(11, "y")];
    let d = since(&seen, &now);
    assert_eq!((d.new_events, d.more_events), (2, true));
    // Rewritten under it (same times, other text): only the later ones.
    now.detail.timeline = vec![ev(1, "A"), ev(2, "B"), ev(9, "C")];
    let d = since(&seen, &now);
    assert_eq!((d.new_events, d.more_events), (1, false));
}

#[test]
fn keys_fold_the_working_directory_in() {
    let mut p = project();
    p.path = PathBuf::from("./shop");
    let a = key(std::path::Path::new("/w"), &p);
    p.path = PathBuf::from("/w/x/../shop");
    let b = key(std::path::Path::new("/elsewhere"), &p);
    assert_eq!(a, "devloop:/w/shop");
    assert_eq!(a, b);
}

#[test]
fn a_first_reading_is_a_baseline_and_nothing_is_changed() {
    let mut m = Memory::new(PathBuf::from("/"), BTreeMap::new());
    let p = project();
    m.read(std::slice::from_ref(&p), true, at(5));
    m.refresh([&p], true);
    assert!(m.dirty);
    assert!(!m.changed(&p) && !m.any_changed());
    let mut q = p.clone();
    q.status = "blocked".to_owned();
    m.refresh([&q], false);
    assert!(m.changed(&q) && m.any_changed());
    assert_eq!(
        m.since(&q).and_then(|s| s.status).map(|c| c.after),
        Some("blocked".to_owned())
    );
}

/// Opening a project records it, but the Overview keeps comparing with
/// what was seen before it was opened until the detail is left.
#[test]
fn looking_records_and_keeps_the_before_while_open() {
    let mut m = Memory::new(PathBuf::from("/"), BTreeMap::new());
    let p = project();
    m.read(std::slice::from_ref(&p), true, at(5));
    let mut q = p.clone();
    q.status = "blocked".to_owned();
    m.dirty = false;
    m.refresh([&q], true);
    assert!(m.changed(&q));
    m.look(Some(&q), at(20));
    assert!(m.dirty);
    assert!(!m.changed(&q), "seen now");
    m.refresh([&q], true);
    assert!(!m.changed(&q), "seen now");
    assert_eq!(
        m.since(&q).map(|s| s.looked_at),
        Some(at(5)),
        "the before stays"
    );
    assert!(m.since(&q).is_some_and(|s| s.status.is_some()));
    m.look(None, at(21));
    assert!(m.since(&q).is_some_and(|s| s.is_empty()));
    assert_eq!(m.projects.values().next().map(|s| s.at), Some(at(20)));
}

#[test]
fn projects_not_found_are_forgotten_after_the_limit() {
    let old = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap();
    let mut gone = project();
    gone.path = PathBuf::from("/w/gone");
    let mut recent = project();
    recent.path = PathBuf::from("/w/recent");
    let mut kept = project();
    kept.path = PathBuf::from("/w/kept");
    let mut map = BTreeMap::new();
    map.insert(key(Path::new("/"), &gone), Seen::of(&gone, old));
    map.insert(key(Path::new("/"), &recent), Seen::of(&recent, at(0)));
    map.insert(key(Path::new("/"), &kept), Seen::of(&kept, old));
    let mut m = Memory::new(PathBuf::from("/"), map);
    // A partial reading forgets nothing.
    m.read(&[], false, at(30));
    assert_eq!(m.projects.len(), 3);
    m.read(std::slice::from_ref(&kept), true, at(30));
    let left: Vec<&str> = m.projects.keys().map(String::as_str).collect();
    assert_eq!(left, ["devloop:/w/kept", "devloop:/w/recent"]);
    assert!(m.dirty);
}

/// GSD's WAITING.json keeps its reference when a new question replaces
/// the old one: what changed says so (the old one answered, a new one).
#[test]
fn a_question_replaced_under_the_same_ref_is_answered_and_new() {
    let mut p = Project::new(Format::Gsd, PathBuf::from("/w/a"), "a".to_owned());
    p.inbox.push(item(
        InboxKind::Waiting,
        ".planning/WAITING.json",
        "old question",
    ));
    let mut m = Memory::new(PathBuf::from("/"), BTreeMap::new());
    m.read(std::slice::from_ref(&p), true, at(0));
    p.inbox[0].title = "a new question".to_owned().into();
    m.refresh(std::slice::from_ref(&p), true);
    assert!(m.changed(&p), "marked changed");
    let since = m.since(&p).unwrap();
    assert_eq!(since.answered.len(), 1);
    assert_eq!(since.new_items[0].title, "a new question");
}
