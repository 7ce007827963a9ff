//! The decision flows on the pure update: no terminal, no disk.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use chrono::{TimeZone, Utc};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{Decided, FileDiff, Stage, Why};
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
            title: format!("question {id}").into(),
            since: Some(
                Utc.with_ymd_and_hms(2026, 5, 1 + i as u32, 0, 0, 0)
                    .unwrap(),
            ),
            options: Vec::new(),
            subject: Some((*id).to_owned()),
            why_not: None,
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

/// The sequence number of the decision or undo `effects` ask the runtime
/// to make.
pub(in crate::app) fn seq(effects: &[Effect]) -> u64 {
    effects
        .iter()
        .find_map(|e| match e {
            Effect::Decide { seq, .. } | Effect::Undo { seq, .. } => Some(*seq),
            _ => None,
        })
        .expect("a decision effect")
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

pub(in crate::app) fn done(files: &[&str], audit: Option<&str>) -> Decided {
    Decided::Done {
        said: Vec::new(),
        read: Vec::new(),
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

/// The inbox's first question answered with `text` up to its preview;
/// the preview's seq.
fn previewed(m: &mut Model, text: &str) -> u64 {
    update(m, key('i'));
    update(m, key('a'));
    typed(m, text);
    decide(&update(m, ctrl('s'))).0
}

/// The effect numbered `seq` failed: a conflict or a refusal.
fn failed(m: &mut Model, seq: u64, message: &str, conflict: bool) -> Vec<Effect> {
    update(
        m,
        Event::Decided {
            seq,
            result: Decided::Failed {
                message: message.into(),
                why: if conflict { Why::Changed } else { Why::Refused },
            },
        },
    )
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
    let seq = previewed(&mut m, "yes");
    let effects = failed(
        &mut m,
        seq,
        "state.json changed on disk since it was read",
        true,
    );
    assert!(effects.contains(&Effect::Reread(PathBuf::from("/w/alpha"))));
    assert!(matches!(
        m.form.as_ref().unwrap().stage,
        Stage::Failed {
            why: Why::Changed,
            ..
        }
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
        host: None,
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
                ..
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
    failed(&mut m, seq, "state.json moved on since the decision", true);
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

fn alt_enter() -> Event {
    Event::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::ALT))
}

/// A devloop project with bug BUG-1 (open → fixing, wontfix, duplicate)
/// and BUG-2, on its Bugs tab.
fn devloop_on_bugs() -> Model {
    let mut p = Project::new(Format::Devloop, PathBuf::from("/w/loop"), "loop".into());
    p.id = "loop".into();
    for id in ["BUG-1", "BUG-2"] {
        p.detail.bugs.push(crate::model::Bug {
            id: id.into(),
            title: format!("{id} title"),
            status: "open".into(),
            status_kind: crate::model::StatusKind::Waiting,
            severity: "P2".into(),
            unit: None,
            history: Vec::new(),
            act: Some(Address::new(
                "bug",
                Some(id.into()),
                vec!["fixing".into(), "wontfix".into(), "duplicate".into()],
            )),
        });
    }
    let mut m = model(vec![p], false);
    update(&mut m, code(KeyCode::Enter));
    let bugs = m
        .tabs()
        .iter()
        .position(|t| *t == crate::app::Tab::Bugs)
        .unwrap();
    update(&mut m, key(char::from_digit(bugs as u32 + 1, 10).unwrap()));
    assert_eq!(m.tab, crate::app::Tab::Bugs);
    m
}

#[test]
fn a_bug_row_offers_its_legal_states_and_the_fields_each_needs() {
    let mut m = devloop_on_bugs();
    update(&mut m, key('j'));
    assert_eq!(crate::app::decide::hint(&m).as_deref(), Some("a bug"));
    update(&mut m, key('a'));
    let f = m.form.as_ref().unwrap();
    assert_eq!(f.stage, Stage::Choose);
    let labels: Vec<String> = f.choices.iter().map(super::Choice::label).collect();
    assert_eq!(labels, ["fixing", "wontfix", "duplicate"]);
    assert_eq!(f.choices[0].address.target.as_deref(), Some("BUG-2"));
    // `3`: duplicate needs the other bug's id (one line) and takes a note.
    update(&mut m, key('3'));
    let f = m.form.as_ref().unwrap();
    assert_eq!(f.stage, Stage::Edit);
    assert_eq!(f.inputs.len(), 2);
    assert!(f.inputs[0].field.required && !f.inputs[0].field.multiline);
    typed(&mut m, "BUG-1");
    // Enter in a one-line field goes to the next field; Tab cycles.
    update(&mut m, code(KeyCode::Enter));
    assert_eq!(m.form.as_ref().unwrap().focus, 1);
    typed(&mut m, "same crash");
    update(&mut m, code(KeyCode::Enter));
    typed(&mut m, "second line");
    let (_, verb, _, _) = decide(&update(&mut m, alt_enter()));
    assert_eq!(
        verb,
        Verb::Bug {
            id: "BUG-2".into(),
            status: "duplicate".into(),
            note: Some("same crash\nsecond line".into()),
            duplicate_of: Some("BUG-1".into()),
            fix_ref: None,
        }
    );
    // Esc in the chooser closes; from the editor with nothing typed it
    // goes back to the chooser.
    update(&mut m, code(KeyCode::Esc));
    update(&mut m, code(KeyCode::Esc));
    update(&mut m, key('y'));
    assert!(m.form.is_none());
}

#[test]
fn pasted_text_lands_whole_with_line_breaks_and_one_line_fields_stay_one_line() {
    let mut m = devloop_on_bugs();
    update(&mut m, key('a'));
    update(&mut m, key('3'));
    update(&mut m, Event::Paste("BUG-2\r\nextra\tmore".into()));
    update(&mut m, code(KeyCode::Tab));
    update(&mut m, Event::Paste("line 1\r\nline 2 ✅ 中文".into()));
    let f = m.form.as_ref().unwrap();
    assert_eq!(f.inputs[0].text(), "BUG-2 extra more");
    assert_eq!(f.inputs[1].text(), "line 1\nline 2 ✅ 中文");
    assert_eq!(
        f.inputs[1].chars(),
        "line 1\nline 2 ✅ 中文".chars().count()
    );
    // Paste never acts outside a text field.
    let mut m = model(vec![prd("alpha")], false);
    assert!(update(&mut m, Event::Paste("q".into())).is_empty());
    assert!(m.form.is_none());
}

#[test]
fn over_4000_characters_is_warned_once_then_sent() {
    let mut m = model(vec![prd("alpha")], false);
    update(&mut m, key('i'));
    update(&mut m, key('a'));
    update(&mut m, Event::Paste("长".repeat(super::LONG_TEXT + 1)));
    let effects = update(&mut m, ctrl('s'));
    assert!(!effects.iter().any(|e| matches!(e, Effect::Decide { .. })));
    assert!(
        m.form
            .as_ref()
            .unwrap()
            .note
            .as_deref()
            .unwrap()
            .contains("over 4000"),
        "{:?}",
        m.form.as_ref().unwrap().note
    );
    let (_, verb, _, _) = decide(&update(&mut m, ctrl('s')));
    assert!(matches!(verb, Verb::Answer { text, .. } if text.chars().count() == 4001));
}

#[test]
fn an_answer_after_the_preview_was_left_is_ignored() {
    let mut m = model(vec![prd("alpha")], false);
    let seq = previewed(&mut m, "x");
    update(&mut m, code(KeyCode::Esc));
    assert_eq!(m.form.as_ref().unwrap().stage, Stage::Edit);
    let effects = update(
        &mut m,
        Event::Decided {
            seq,
            result: done(&["state.json"], None),
        },
    );
    assert!(effects.is_empty());
    assert_eq!(m.form.as_ref().unwrap().stage, Stage::Edit);
}

#[test]
fn ctrl_c_in_the_form_cancels_it_and_never_quits_with_text_typed() {
    let mut m = model(vec![prd("alpha")], false);
    update(&mut m, key('i'));
    update(&mut m, key('a'));
    typed(&mut m, "half an answer");
    let effects = update(&mut m, ctrl('c'));
    assert!(!effects.contains(&Effect::Quit));
    assert_eq!(m.form.as_ref().unwrap().stage, Stage::Discard);
}

#[test]
fn a_refusal_at_the_preview_keeps_the_text_and_says_why() {
    let mut m = model(vec![prd("alpha")], false);
    let seq = previewed(&mut m, "x");
    let effects = failed(&mut m, seq, "OQ-1 waits on OQ-0, still open", false);
    assert!(!effects.iter().any(|e| matches!(e, Effect::Reread(_))));
    update(&mut m, code(KeyCode::Enter));
    let f = m.form.as_ref().unwrap();
    assert_eq!(f.stage, Stage::Edit);
    assert_eq!(f.inputs[0].text(), "x");
}

#[test]
fn after_a_conflict_a_question_answered_elsewhere_is_no_longer_offered() {
    let mut m = model(vec![prd("alpha")], false);
    let seq = previewed(&mut m, "x");
    failed(&mut m, seq, "state.json changed on disk", true);
    let mut fresh = prd("alpha");
    fresh.inbox.remove(0);
    update(&mut m, Event::Loaded(vec![fresh]));
    update(&mut m, code(KeyCode::Enter));
    let f = m.form.as_ref().unwrap();
    assert!(
        matches!(&f.stage, Stage::Failed { message, .. } if message.contains("no longer offered")),
        "{:?}",
        f.stage
    );
    assert_eq!(f.inputs[0].text(), "x", "the text is still there");
}

/// A GSD project waiting on WAITING.json (options Yes / No).
fn gsd_waiting() -> Model {
    let mut p = Project::new(Format::Gsd, PathBuf::from("/w/g"), "g".into());
    p.id = "g".into();
    p.inbox.push(InboxItem {
        kind: InboxKind::Waiting,
        act: Some(Address::new(
            "answer",
            Some("c".repeat(64)),
            vec!["Yes, add the signer".into(), "No".into()],
        )),
        reference: ".planning/WAITING.json".into(),
        title: "[Phase 3] allow an extra signer?".into(),
        since: None,
        options: vec!["Yes, add the signer".into(), "No".into()],
        subject: None,
        why_not: None,
    });
    p.blockers.push("waiting on the bank's sandbox".into());
    model(vec![p], false)
}

#[test]
fn gsd_waiting_is_answered_on_the_phases_tab_and_by_y_in_the_inbox() {
    let mut m = gsd_waiting();
    update(&mut m, code(KeyCode::Enter));
    let phases = m
        .tabs()
        .iter()
        .position(|t| *t == crate::app::Tab::Phases)
        .unwrap();
    update(
        &mut m,
        key(char::from_digit(phases as u32 + 1, 10).unwrap()),
    );
    update(&mut m, key('a'));
    let f = m.form.as_ref().unwrap();
    let labels: Vec<String> = f.choices.iter().map(super::Choice::label).collect();
    assert_eq!(labels, ["Yes, add the signer", "No", "type an answer…"]);
    // The third choice is free text.
    update(&mut m, key('3'));
    typed(&mut m, "only above 3 levels");
    let (_, verb, _, _) = decide(&update(&mut m, ctrl('s')));
    assert!(matches!(&verb, Verb::Answer { id: Some(sha), text, .. }
        if sha == &"c".repeat(64) && text == "only above 3 levels"));

    let mut m = gsd_waiting();
    update(&mut m, key('i'));
    let (_, verb, _, _) = decide(&update(&mut m, key('y')));
    assert!(matches!(&verb, Verb::Answer { text, .. } if text == "Yes, add the signer"));
    let mut m = gsd_waiting();
    update(&mut m, key('i'));
    let (_, verb, _, _) = decide(&update(&mut m, key('n')));
    assert!(matches!(&verb, Verb::Answer { text, .. } if text == "No"));
}

#[test]
fn the_confirm_scrolls_within_the_diff_and_back_up_at_once_after_g() {
    let mut m = model(vec![prd("alpha")], false);
    m.page = 5;
    let seq = previewed(&mut m, "x");
    let diff: String = (0..20).map(|i| format!("+line {i}\n")).collect();
    update(
        &mut m,
        Event::Decided {
            seq,
            result: Decided::Done {
                said: Vec::new(),
                read: Vec::new(),
                files: vec![FileDiff {
                    file: "state.json".into(),
                    diff,
                }],
                audit_id: None,
            },
        },
    );
    let scroll = |m: &Model| match &m.form.as_ref().unwrap().stage {
        Stage::Confirm { scroll, .. } => *scroll,
        other => panic!("{other:?}"),
    };
    update(&mut m, key('G'));
    assert_eq!(scroll(&m), 16, "21 lines, 5 a page");
    update(&mut m, key('k'));
    assert_eq!(scroll(&m), 15);
    for _ in 0..30 {
        update(&mut m, key('j'));
    }
    assert_eq!(scroll(&m), 16);
}

#[test]
fn pasted_control_characters_are_dropped() {
    let mut m = model(vec![prd("alpha")], false);
    update(&mut m, key('i'));
    update(&mut m, key('a'));
    update(
        &mut m,
        Event::Paste("ok\u{1b}[31m red\u{7}\tand\u{9b}2J".into()),
    );
    assert_eq!(
        m.form.as_ref().unwrap().inputs[0].text(),
        "ok[31m red\tand2J"
    );
}

/// Enter right after a conflict, before the project is read again, waits
/// for that reading: a retry against the reading that conflicted would
/// only conflict again.
#[test]
fn a_retry_before_the_project_is_read_again_waits_for_the_reading() {
    let mut m = model(vec![prd("alpha"), prd("beta")], false);
    let seq = previewed(&mut m, "yes");
    failed(
        &mut m,
        seq,
        "state.json changed on disk since it was read",
        true,
    );
    let path = m.form.as_ref().unwrap().path.clone();
    update(&mut m, code(KeyCode::Enter));
    let f = m.form.as_ref().unwrap();
    assert!(matches!(f.stage, Stage::Failed { .. }) && f.retry_queued);
    // Another project's reading does not release it.
    let other = if path.ends_with("alpha") {
        "beta"
    } else {
        "alpha"
    };
    update(
        &mut m,
        Event::Reread {
            dirs: vec![PathBuf::from(format!("/w/{other}"))],
            trees: vec![],
            projects: vec![prd(other)],
        },
    );
    assert!(matches!(
        m.form.as_ref().unwrap().stage,
        Stage::Failed { .. }
    ));
    let mut fresh = prd(path.file_name().unwrap().to_str().unwrap());
    fresh.files[0].sha256 = "b".repeat(64);
    update(
        &mut m,
        Event::Reread {
            dirs: vec![path.clone()],
            trees: vec![],
            projects: vec![fresh],
        },
    );
    let f = m.form.as_ref().unwrap();
    assert_eq!(f.stage, Stage::Edit);
    assert_eq!(f.inputs[0].text(), "yes");
    assert_eq!(f.base, vec![("state.json".to_owned(), "b".repeat(64))]);
}

/// A Frontier row with its own answer and the project's `next_action`
/// choice: the list says each verb, and the dialog is headed by what the
/// picked choice decides.
#[test]
fn a_list_of_several_decisions_names_each_and_heads_the_dialog_by_the_pick() {
    let mut p = prd("alpha");
    p.inbox.truncate(1);
    p.frontier.questions.push(crate::model::Question {
        id: "OQ-1".into(),
        title: "question OQ-1".into(),
        kind: "decision".into(),
        priority: None,
        owner: None,
        status: None,
        waiting_on: Vec::new(),
        evidence_needed: None,
        acceptance_threshold: None,
        due_by: None,
    });
    p.inbox.push(InboxItem {
        kind: InboxKind::Choice,
        act: Some(Address::new(
            "choose",
            None,
            vec!["keep".into(), "drop".into()],
        )),
        reference: "next_action".into(),
        title: "V1 right?".into(),
        since: None,
        options: vec!["keep".into(), "drop".into()],
        subject: None,
        why_not: None,
    });
    let mut m = model(vec![p], false);
    update(&mut m, code(KeyCode::Enter));
    let front = m
        .tabs()
        .iter()
        .position(|t| *t == crate::app::Tab::Frontier)
        .unwrap();
    update(&mut m, key(char::from_digit(front as u32 + 1, 10).unwrap()));
    update(&mut m, key('a'));
    let f = m.form.as_ref().unwrap();
    let labels: Vec<String> = f.choices.iter().map(super::Choice::label).collect();
    assert_eq!(labels, ["answer OQ-1", "choose: keep", "choose: drop"]);
    assert_eq!(f.heading_now(), "OQ-1 question OQ-1");
    let (_, verb, _, _) = decide(&update(&mut m, key('3')));
    assert_eq!(
        verb,
        Verb::Choose {
            option: "drop".into()
        }
    );
    assert_eq!(m.form.as_ref().unwrap().heading_now(), "V1 right?");
}

/// The watcher's reading of the write can be merged before the write's
/// own answer (the audit append and its fsync
/// come after the files are renamed). The inbox must then still land on
/// the item after the one answered, not skip it.
#[test]
fn a_reading_before_the_answer_does_not_skip_the_next_item() {
    let three = |with_first: bool| {
        let mut p = prd("alpha");
        let mut third = p.inbox[1].clone();
        third.reference = "OQ-3".into();
        third.title = "question OQ-3".into();
        third.act = Some(Address::new("answer", Some("OQ-3".into()), Vec::new()));
        third.subject = Some("OQ-3".into());
        third.since = Some(Utc.with_ymd_and_hms(2026, 5, 3, 0, 0, 0).unwrap());
        p.inbox.push(third);
        if !with_first {
            p.inbox.remove(0);
            p.files[0].sha256 = "b".repeat(64);
        }
        p
    };
    let mut m = model(vec![three(true)], false);
    update(&mut m, key('i'));
    let titles = |m: &Model| -> Vec<String> {
        crate::app::panes::inbox(m)
            .iter()
            .map(|&(pi, ii)| m.projects[pi].inbox_at(m.now)[ii].title.en().into_owned())
            .collect()
    };
    let first = titles(&m)[m.inbox.selected].clone();
    let second = titles(&m)[m.inbox.selected + 1].clone();
    update(&mut m, key('a'));
    typed(&mut m, "ok");
    let (seq, ..) = decide(&update(&mut m, ctrl('s')));
    update(
        &mut m,
        Event::Decided {
            seq,
            result: done(&["state.json"], None),
        },
    );
    let (seq, ..) = decide(&update(&mut m, key('w')));
    // The watcher's reading of the write arrives first …
    update(&mut m, Event::Loaded(vec![three(false)]));
    assert!(!titles(&m).contains(&first));
    // … then the write's answer.
    update(
        &mut m,
        Event::Decided {
            seq,
            result: done(&["state.json"], Some("A1")),
        },
    );
    assert_eq!(titles(&m)[m.inbox.selected], second, "{:?}", titles(&m));
}

/// The terminal shrinks below 40x8 while an
/// answer is typed; the user types on (the text holds a `q`): the console
/// must not quit and throw the text away.
#[test]
fn a_q_typed_while_too_small_does_not_quit_the_form() {
    let mut m = model(vec![prd("alpha")], false);
    update(&mut m, Event::Size(100, 30));
    update(&mut m, key('i'));
    update(&mut m, key('a'));
    typed(&mut m, "allow");
    update(&mut m, Event::Size(35, 7));
    let effects = update(&mut m, key('q'));
    assert!(!effects.contains(&Effect::Quit), "quit with the text typed");
}

/// "No longer offered … Esc closes": Esc asks before throwing the text
/// away, and `y` closes; it never comes back to the same dialog.
#[test]
fn esc_leaves_a_question_no_longer_offered() {
    let mut m = model(vec![prd("alpha")], false);
    let seq = previewed(&mut m, "x");
    failed(&mut m, seq, "changed", true);
    let mut fresh = prd("alpha");
    fresh.inbox.remove(0);
    update(&mut m, Event::Loaded(vec![fresh]));
    update(&mut m, code(KeyCode::Enter));
    assert!(m.form.as_ref().unwrap().gone);
    update(&mut m, code(KeyCode::Esc));
    assert_eq!(m.form.as_ref().unwrap().stage, Stage::Discard);
    update(&mut m, key('y'));
    assert!(m.form.is_none());
}

/// An undo refused because the file moved on: nothing was typed, so Esc
/// closes (it used to preview the refused undo again, for ever).
#[test]
fn esc_closes_an_undo_refused_because_the_file_moved_on() {
    let mut m = model(vec![prd("alpha")], false);
    m.last = Some(super::Last {
        host: None,
        id: "A1".into(),
        label: "answer OQ-1".into(),
        path: PathBuf::from("/w/alpha"),
        format: Format::PrdMaster,
    });
    let seq = super::tests::seq(&update(&mut m, key('u')));
    failed(
        &mut m,
        seq,
        "state.json has moved on since decision A1; nothing undone",
        true,
    );
    let effects = update(&mut m, code(KeyCode::Esc));
    assert!(!effects.iter().any(|e| matches!(e, Effect::Undo { .. })));
    assert!(m.form.is_none());
}

/// BUG-1 on its way to wontfix with `note` typed, then moved to fixing by
/// another writer: the conflict, the reading, Enter (pick again).
fn moved_on_after_a_note(note: &str) -> Model {
    let mut m = devloop_on_bugs();
    update(&mut m, key('a'));
    update(&mut m, key('2')); // wontfix: a note
    typed(&mut m, note);
    let (seq, ..) = decide(&update(&mut m, ctrl('s')));
    failed(&mut m, seq, "bugs.ndjson changed on disk", true);
    let mut p = m.projects[0].clone();
    p.detail.bugs[0].status = "fixing".into();
    p.detail.bugs[0].act = Some(Address::new(
        "bug",
        Some("BUG-1".into()),
        vec!["fixed".into(), "open".into(), "duplicate".into()],
    ));
    update(&mut m, Event::Loaded(vec![p]));
    update(&mut m, code(KeyCode::Enter));
    m
}

/// A bug moved on between the choice and the retry: its new states are
/// offered again (the text kept), never the old one for ever.
#[test]
fn a_retry_offers_a_moved_bugs_states_again() {
    // The bug is now `fixing`: fixed, open, duplicate.
    let mut m = moved_on_after_a_note("not ours");
    let f = m.form.as_ref().unwrap();
    assert_eq!(f.stage, Stage::Choose);
    let labels: Vec<String> = f.choices.iter().map(super::Choice::label).collect();
    assert_eq!(labels, ["fixed", "open", "duplicate"]);
    assert!(f.note.as_deref().unwrap().contains("no longer offered"));
    // `open` takes a note too: the text typed is still there.
    update(&mut m, key('2'));
    assert_eq!(m.form.as_ref().unwrap().inputs[0].text(), "not ours");
}

/// The write is made against every file the preview read, not only
/// those the reading stamped (a bug's log).
#[test]
fn the_write_expects_the_bytes_the_preview_read() {
    let mut m = model(vec![prd("alpha")], false);
    let seq = previewed(&mut m, "x");
    update(
        &mut m,
        Event::Decided {
            seq,
            result: Decided::Done {
                said: Vec::new(),
                read: vec![
                    ("state.json".into(), "a".repeat(64)),
                    ("bugs.ndjson".into(), "c".repeat(64)),
                ],
                files: vec![],
                audit_id: None,
            },
        },
    );
    let (_, _, expect, dry) = decide(&update(&mut m, key('w')));
    assert!(!dry);
    assert_eq!(
        expect,
        vec![
            ("state.json".to_owned(), "a".repeat(64)),
            ("bugs.ndjson".to_owned(), "c".repeat(64)),
        ]
    );
}

/// Pasting into the filter types it (one line of it).
#[test]
fn a_paste_into_the_filter_is_typed() {
    let mut m = model(vec![prd("alpha"), prd("beta")], false);
    update(&mut m, key('/'));
    update(&mut m, Event::Paste("bet\na".into()));
    assert_eq!(m.list.filter, "bet a");
}

/// A bug moved on after a conflict: the list asks to pick again with the
/// note still typed, and Esc there asks before throwing it away.
#[test]
fn esc_in_the_pick_again_list_asks_before_losing_typed_text() {
    let mut m = moved_on_after_a_note("a long careful note");
    assert_eq!(m.form.as_ref().unwrap().stage, Stage::Choose);
    assert!(m.form.as_ref().unwrap().typed());
    update(&mut m, code(KeyCode::Esc));
    // Asks before discarding, as Edit does; `n` comes back to the list.
    assert_eq!(m.form.as_ref().unwrap().stage, Stage::Discard);
    update(&mut m, key('n'));
    assert_eq!(m.form.as_ref().unwrap().stage, Stage::Choose);
    assert_eq!(
        m.form.as_ref().unwrap().inputs[0].text(),
        "a long careful note"
    );
}

/// Picking again a state whose fields differ (fixed: note + fix ref)
/// keeps the note, a field they share.
#[test]
fn picking_again_keeps_the_text_of_the_fields_shared() {
    let mut m = moved_on_after_a_note("a long careful note");
    update(&mut m, key('1')); // fixed: note + fix ref
    let f = m.form.as_ref().unwrap();
    assert_eq!(
        f.inputs[0].text(),
        "a long careful note",
        "the note is lost"
    );
}

/// The project list filtered to no row still decides on the
/// project selected before the filter (not on screen).
#[test]
fn a_project_the_list_filter_hides_offers_nothing() {
    let mut beta = prd("beta");
    beta.acts.push(Address::new("sign-off", None, Vec::new()));
    let mut m = model(vec![prd("alpha"), beta], false);
    update(&mut m, key('/'));
    typed(&mut m, "beta");
    update(&mut m, code(KeyCode::Enter));
    assert!(crate::app::decide::offers(&m).is_some());
    update(&mut m, key('/'));
    update(&mut m, ctrl('u'));
    typed(&mut m, "zzzz");
    update(&mut m, code(KeyCode::Enter));
    assert!(
        crate::app::decide::offers(&m).is_none(),
        "offered: {:?}",
        crate::app::decide::offers(&m).map(|o| o.1)
    );
}

/// A decision sent to a server (no audit record) says it is done and
/// leaves the last audited decision undoable.
#[test]
fn a_decision_without_an_audit_record_keeps_the_last_one_undoable() {
    let mut m = model(vec![prd("alpha")], false);
    let last = super::Last {
        host: None,
        id: "A1".into(),
        label: "answer OQ-1".into(),
        path: PathBuf::from("/w/alpha"),
        format: Format::PrdMaster,
    };
    m.last = Some(last.clone());
    let seq = previewed(&mut m, "x");
    update(
        &mut m,
        Event::Decided {
            seq,
            result: done(&["state.json"], None),
        },
    );
    let (seq, ..) = decide(&update(&mut m, key('w')));
    update(
        &mut m,
        Event::Decided {
            seq,
            result: done(&[], None),
        },
    );
    assert_eq!(m.last, Some(last));
    assert!(
        m.status.as_deref().unwrap().ends_with("· done"),
        "{:?}",
        m.status
    );
}

/// A bug's move is a line of an append-only log that `loopdeck undo`
/// refuses: the status line says it cannot be undone, never "u undoes".
#[test]
fn a_bug_move_written_says_it_cannot_be_undone() {
    let mut m = devloop_on_bugs();
    update(&mut m, key('a'));
    update(&mut m, key('1')); // fixing: a note
    typed(&mut m, "on it");
    let (seq, verb, ..) = decide(&update(&mut m, ctrl('s')));
    assert!(matches!(verb, Verb::Bug { .. }), "{verb:?}");
    update(
        &mut m,
        Event::Decided {
            seq,
            result: done(&["timeline.ndjson", "bugs.ndjson"], None),
        },
    );
    let (seq, ..) = decide(&update(&mut m, key('w')));
    update(
        &mut m,
        Event::Decided {
            seq,
            result: done(&["timeline.ndjson", "bugs.ndjson"], Some("B1")),
        },
    );
    let status = m.status.clone().unwrap();
    assert!(!status.contains("undoes"), "{status}");
    assert!(
        status.ends_with("an append-only log: it cannot be undone"),
        "{status}"
    );
}

/// What a human types follows one text rule: a one-line field (a bug's
/// duplicate id) with a line separator in it, or a text with an escape,
/// is refused in the decision texts' words; nothing is sent.
#[test]
fn typed_fields_follow_the_one_line_rule() {
    let mut m = devloop_on_bugs();
    update(&mut m, key('a'));
    update(&mut m, key('3')); // duplicate: the id on one line, a note
    update(&mut m, Event::Paste("BUG-2\u{2028}## forged".into()));
    let effects = update(&mut m, ctrl('s'));
    assert!(!effects.iter().any(|e| matches!(e, Effect::Decide { .. })));
    let note = m.form.as_ref().unwrap().note.clone().unwrap();
    assert!(
        note.ends_with("must be one line of text (no line breaks or control characters)"),
        "{note}"
    );
    // The note (multi-line) keeps its line breaks, never an escape.
    let mut m = devloop_on_bugs();
    update(&mut m, key('a'));
    update(&mut m, key('1')); // fixing: a note
    update(&mut m, Event::Paste("two\nlines".into()));
    let (_, verb, ..) = decide(&update(&mut m, ctrl('s')));
    assert!(matches!(verb, Verb::Bug { note: Some(n), .. } if n == "two\nlines"));
    let mut m = devloop_on_bugs();
    update(&mut m, key('a'));
    update(&mut m, key('1'));
    update(&mut m, Event::Paste("bidi \u{202e}reversed".into()));
    let effects = update(&mut m, ctrl('s'));
    assert!(!effects.iter().any(|e| matches!(e, Effect::Decide { .. })));
    let note = m.form.as_ref().unwrap().note.clone().unwrap();
    assert!(note.contains("no control characters"), "{note}");
}

/// Issue 20 §3: the selection goes to the item that was below the decided
/// one at the moment of confirming, not when the form opened: a reading
/// that re-sorted the rows while the form was open is followed.
#[test]
fn after_a_decision_the_next_item_is_the_one_below_at_confirm() {
    let with = |c_first: bool| {
        let mut p = prd("alpha");
        let mut third = p.inbox[1].clone();
        third.reference = "OQ-3".into();
        third.title = "question OQ-3".into();
        third.act = Some(Address::new("answer", Some("OQ-3".into()), Vec::new()));
        third.subject = Some("OQ-3".into());
        // Later than OQ-2 at first; then (its file says so) just after the
        // first item, above OQ-2.
        let day = if c_first { 1 } else { 20 };
        third.since = Some(Utc.with_ymd_and_hms(2026, 5, day, 12, 0, 0).unwrap());
        p.inbox.push(third);
        p
    };
    let mut m = model(vec![with(false)], false);
    update(&mut m, key('i'));
    let titles = |m: &Model| -> Vec<String> {
        crate::app::panes::inbox(m)
            .iter()
            .map(|&(pi, ii)| m.projects[pi].inbox_at(m.now)[ii].title.en().into_owned())
            .collect()
    };
    let first = titles(&m)[m.inbox.selected].clone();
    update(&mut m, key('a'));
    typed(&mut m, "ok");
    // A reading while the form is open moves OQ-3 up, below the first.
    update(&mut m, Event::Loaded(vec![with(true)]));
    assert_eq!(
        titles(&m)[m.inbox.selected],
        first,
        "the form's item stays selected"
    );
    let below = titles(&m)[m.inbox.selected + 1].clone();
    assert_eq!(below, "question OQ-3", "{:?}", titles(&m));
    let (seq, ..) = decide(&update(&mut m, ctrl('s')));
    update(
        &mut m,
        Event::Decided {
            seq,
            result: done(&["state.json"], None),
        },
    );
    let (seq, ..) = decide(&update(&mut m, key('w')));
    update(
        &mut m,
        Event::Decided {
            seq,
            result: done(&["state.json"], Some("A1")),
        },
    );
    assert_eq!(titles(&m)[m.inbox.selected], below, "{:?}", titles(&m));
}

/// Issue 20 §4: an item that offers no decision says why on `a`, in the
/// hint and never silently; a decision only a server carries out, with
/// no server configured, is refused before the editor opens, naming the
/// config file to add it to.
#[test]
fn no_dead_ends_a_says_why_not_and_a_server_decision_is_refused_before_typing() {
    let mut p = prd("alpha");
    p.inbox[0].act = None;
    p.inbox[0].why_not = Some("the unit has no retries left: the server resumes it".into());
    p.inbox[1].act = Some(Address::new("requirement", None, Vec::new()));
    let mut m = model(vec![p], false);
    m.config_file = "/home/pm/.cfg/loopdeck/config.toml".into();
    update(&mut m, key('i'));
    let hints = crate::app::commands::hints(&m);
    assert!(
        hints.iter().any(|h| h.text == "a why no decision"),
        "{:?}",
        hints.iter().map(|h| &h.text).collect::<Vec<_>>()
    );
    update(&mut m, key('a'));
    assert_eq!(m.mode, Mode::Normal);
    assert_eq!(
        m.status.as_deref(),
        Some("No decision here: the unit has no retries left: the server resumes it")
    );
    // The requirement: refused at once, nothing to type; the hint and
    // the detail say so before `a` is pressed.
    update(&mut m, key('j'));
    let hints = crate::app::commands::hints(&m);
    assert!(
        hints.iter().any(|h| h.text == "a why no decision"),
        "{:?}",
        hints.iter().map(|h| &h.text).collect::<Vec<_>>()
    );
    update(&mut m, key('a'));
    assert!(m.form.is_none(), "the editor opened");
    let status = m.status.clone().unwrap_or_default();
    assert!(
        status.starts_with("No decision here: a new requirement goes to the devloop server")
            && status.contains("/home/pm/.cfg/loopdeck/config.toml")
            && status.contains("[devloop]"),
        "{status}"
    );
    // With a server, the editor opens.
    m.server = Some("http://127.0.0.1:9".into());
    update(&mut m, key('a'));
    assert_eq!(m.mode, Mode::Decide);
}
