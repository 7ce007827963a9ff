//! The decision flows on the pure update: no terminal, no disk.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use chrono::{TimeZone, Utc};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{Decided, FileDiff, Stage};
use crate::app::{Effect, Event, Mode, Model, Screen, update};
use crate::model::{Address, FileStamp, Format, InboxItem, InboxKind, Project, Verb};

pub(crate) fn key(c: char) -> Event {
    Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

pub(crate) fn code(k: KeyCode) -> Event {
    Event::Key(KeyEvent::new(k, KeyModifiers::NONE))
}

pub(crate) fn ctrl(c: char) -> Event {
    Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

/// A PRD project with questions OQ-1 and OQ-2 waiting, read from
/// state.json with sha256 `aaa…`.
pub(crate) fn prd(name: &str) -> Project {
    let mut p = Project::new(
        Format::PrdMaster,
        PathBuf::from(format!("/w/{name}")),
        name.to_owned(),
    );
    p.id = name.to_owned();
    for (i, id) in ["OQ-1", "OQ-2"].iter().enumerate() {
        p.inbox.push(InboxItem {
            kind: InboxKind::Question,
            act: Some(Address::new("answer", Some((*id).to_owned()), Vec::new())),
            reference: (*id).to_owned(),
            title: format!("question {id}"),
            since: Some(
                Utc.with_ymd_and_hms(2026, 5, 1 + i as u32, 0, 0, 0)
                    .unwrap(),
            ),
            options: Vec::new(),
            subject: Some((*id).to_owned()),
        });
    }
    p.files.push(FileStamp {
        file: "state.json".into(),
        sha256: "a".repeat(64),
        len: 10,
    });
    p
}

pub(crate) fn model(projects: Vec<Project>, readonly: bool) -> Model {
    let mut m = Model::new(
        vec!["/w".into()],
        readonly,
        Utc.with_ymd_and_hms(2026, 6, 1, 12, 0, 0).unwrap(),
    );
    update(&mut m, Event::Loaded(projects));
    m
}

fn typed(m: &mut Model, s: &str) {
    for c in s.chars() {
        update(m, key(c));
    }
}

/// The `Effect::Decide` among `effects`: (seq, verb, expect, dry_run).
fn decide(effects: &[Effect]) -> (u64, Verb, Vec<(String, String)>, bool) {
    effects
        .iter()
        .find_map(|e| match e {
            Effect::Decide {
                seq,
                verb,
                expect,
                dry_run,
                ..
            } => Some((*seq, verb.clone(), expect.clone(), *dry_run)),
            _ => None,
        })
        .expect("a decision effect")
}

fn done(files: &[&str], audit: Option<&str>) -> Decided {
    Decided::Done {
        files: files
            .iter()
            .map(|f| FileDiff {
                file: (*f).to_owned(),
                diff: format!("--- a/{f}\n+++ b/{f}\n"),
            })
            .collect(),
        audit_id: audit.map(str::to_owned),
    }
}

#[test]
fn answering_from_the_inbox_previews_confirms_writes_and_moves_on() {
    let mut m = model(vec![prd("alpha")], false);
    update(&mut m, key('i'));
    assert_eq!(m.screen, Screen::Inbox);
    update(&mut m, key('a'));
    assert_eq!(m.mode, Mode::Decide);
    assert_eq!(m.form.as_ref().unwrap().stage, Stage::Edit);
    typed(&mut m, "Postgres 用");
    // Ctrl-S asks for the preview: the same decision, dry, against the
    // bytes the console read.
    let (seq, verb, expect, dry) = decide(&update(&mut m, ctrl('s')));
    assert!(dry);
    assert_eq!(expect, vec![("state.json".to_owned(), "a".repeat(64))]);
    assert_eq!(
        verb,
        Verb::Answer {
            id: Some("OQ-1".into()),
            text: "Postgres 用".into(),
            key_decision: false,
            rationale: None
        }
    );
    update(
        &mut m,
        Event::Decided {
            seq,
            result: done(&["state.json", "conversation.md"], None),
        },
    );
    // The confirm defaults to No: Enter goes back to the text, kept.
    assert!(matches!(
        m.form.as_ref().unwrap().stage,
        Stage::Confirm { yes: false, .. }
    ));
    update(&mut m, code(KeyCode::Enter));
    assert_eq!(m.form.as_ref().unwrap().stage, Stage::Edit);
    assert_eq!(m.form.as_ref().unwrap().inputs[0].text(), "Postgres 用");
    let (seq, _, _, _) = decide(&update(&mut m, ctrl('s')));
    update(
        &mut m,
        Event::Decided {
            seq,
            result: done(&["state.json"], None),
        },
    );
    // Ctrl-S (the key that opened the confirm) does not write; `w` does.
    assert!(
        !update(&mut m, ctrl('s'))
            .iter()
            .any(|e| matches!(e, Effect::Decide { .. }))
    );
    let (seq, verb2, _, dry) = decide(&update(&mut m, key('w')));
    assert!(!dry);
    assert_eq!(verb2, verb);
    assert_eq!(m.form.as_ref().unwrap().stage, Stage::Writing);
    let effects = update(
        &mut m,
        Event::Decided {
            seq,
            result: done(&["state.json", "conversation.md"], Some("A1")),
        },
    );
    assert!(effects.contains(&Effect::Reread(PathBuf::from("/w/alpha"))));
    assert!(m.form.is_none());
    assert_eq!(m.mode, Mode::Normal);
    assert!(
        m.status.as_deref().unwrap().contains("answer OQ-1"),
        "{:?}",
        m.status
    );
    assert_eq!(m.inbox.selected, 1, "the inbox moved to the next item");
    assert_eq!(m.last.as_ref().unwrap().id, "A1");
}

#[test]
fn an_empty_answer_is_refused_and_esc_asks_before_discarding_text() {
    let mut m = model(vec![prd("alpha")], false);
    update(&mut m, key('i'));
    update(&mut m, key('a'));
    let effects = update(&mut m, ctrl('s'));
    assert!(!effects.iter().any(|e| matches!(e, Effect::Decide { .. })));
    assert_eq!(
        m.form.as_ref().unwrap().note.as_deref(),
        Some("answer is empty")
    );
    typed(&mut m, "x");
    update(&mut m, code(KeyCode::Esc));
    assert_eq!(m.form.as_ref().unwrap().stage, Stage::Discard);
    update(&mut m, key('n'));
    assert_eq!(m.form.as_ref().unwrap().stage, Stage::Edit);
    assert_eq!(m.form.as_ref().unwrap().inputs[0].text(), "x");
    update(&mut m, code(KeyCode::Esc));
    update(&mut m, key('y'));
    assert!(m.form.is_none());
    assert_eq!(m.mode, Mode::Normal);
}

#[test]
fn a_conflict_keeps_the_text_rereads_and_retries_against_the_new_reading() {
    let mut m = model(vec![prd("alpha")], false);
    update(&mut m, key('i'));
    update(&mut m, key('a'));
    typed(&mut m, "yes");
    let (seq, ..) = decide(&update(&mut m, ctrl('s')));
    let effects = update(
        &mut m,
        Event::Decided {
            seq,
            result: Decided::Failed {
                message: "state.json changed on disk since it was read".into(),
                conflict: true,
            },
        },
    );
    assert!(effects.contains(&Effect::Reread(PathBuf::from("/w/alpha"))));
    assert!(matches!(
        m.form.as_ref().unwrap().stage,
        Stage::Failed { conflict: true, .. }
    ));
    // The project is read again, with new bytes.
    let mut fresh = prd("alpha");
    fresh.files[0].sha256 = "b".repeat(64);
    update(&mut m, Event::Loaded(vec![fresh]));
    update(&mut m, code(KeyCode::Enter));
    let f = m.form.as_ref().unwrap();
    assert_eq!(f.stage, Stage::Edit);
    assert_eq!(f.inputs[0].text(), "yes");
    let (_, _, expect, _) = decide(&update(&mut m, ctrl('s')));
    assert_eq!(expect, vec![("state.json".to_owned(), "b".repeat(64))]);
}

#[test]
fn undo_previews_then_undoes_the_last_decision_with_its_own_confirm() {
    let mut m = model(vec![prd("alpha")], false);
    assert!(
        update(&mut m, key('u'))
            .iter()
            .all(|e| !matches!(e, Effect::Undo { .. }))
    );
    assert!(m.status.as_deref().unwrap().contains("nothing to undo"));
    m.last = Some(super::Last {
        id: "A1".into(),
        label: "answer OQ-1".into(),
        path: PathBuf::from("/w/alpha"),
        format: Format::PrdMaster,
    });
    let effects = update(&mut m, key('u'));
    let seq = effects
        .iter()
        .find_map(|e| match e {
            Effect::Undo {
                seq,
                id,
                dry_run: true,
            } if id == "A1" => Some(*seq),
            _ => None,
        })
        .expect("an undo preview");
    update(
        &mut m,
        Event::Decided {
            seq,
            result: done(&["state.json"], None),
        },
    );
    // `u` again does not confirm.
    assert!(update(&mut m, key('u')).is_empty());
    let effects = update(&mut m, key('w'));
    let seq = effects
        .iter()
        .find_map(|e| match e {
            Effect::Undo {
                seq,
                dry_run: false,
                ..
            } => Some(*seq),
            _ => None,
        })
        .expect("the undo");
    update(
        &mut m,
        Event::Decided {
            seq,
            result: Decided::Failed {
                message: "state.json moved on since the decision".into(),
                conflict: true,
            },
        },
    );
    assert!(matches!(
        &m.form.as_ref().unwrap().stage,
        Stage::Failed { message, .. } if message.contains("moved on")
    ));
}

#[test]
fn read_only_no_decision_key_works_and_hints_say_why() {
    let mut m = model(vec![prd("alpha")], true);
    update(&mut m, key('i'));
    let effects = update(&mut m, key('a'));
    assert!(!effects.iter().any(|e| matches!(e, Effect::Decide { .. })));
    assert!(m.form.is_none());
    assert!(m.status.as_deref().unwrap().contains("read-only"));
    let h = crate::app::hints(&m);
    let a = h.iter().find(|h| h.text.starts_with("a ")).expect("a hint");
    assert!(a.off, "{h:?}");
    assert!(
        crate::app::help_rows(&m)
            .iter()
            .any(|r| r.keys == "a" && r.off)
    );
}

#[test]
fn an_inbox_option_is_picked_by_its_digit_full_width_too() {
    let mut p = prd("alpha");
    p.inbox.truncate(1);
    p.inbox[0].act = Some(Address::new(
        "choose",
        None,
        vec!["keep".into(), "drop".into()],
    ));
    p.inbox[0].options = vec!["keep".into(), "drop".into()];
    let mut m = model(vec![p], false);
    update(&mut m, key('i'));
    let (_, verb, _, dry) = decide(&update(&mut m, key('２')));
    assert!(dry);
    assert_eq!(
        verb,
        Verb::Choose {
            option: "drop".into()
        }
    );
}
