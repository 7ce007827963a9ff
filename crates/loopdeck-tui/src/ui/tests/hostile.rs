//! Hostile strings, drawn: the model holds every string as its file does
//! (escape sequences, C1 controls, bidirectional overrides), and every
//! screen, tab, drawer and overlay draws it safe, measured as drawn. No
//! test here sanitizes a project first: that is the proof that the view
//! does it.

use std::path::PathBuf;

use chrono::Duration;
use crossterm::event::KeyCode;

use super::{assert_clean, now, press, screen, workspace_projects};
use crate::app::{Event, update};
use crate::model::every_string::each_string;
use crate::model::{Format, InboxItem, InboxKind, Project};
use crate::ui::*;

/// An OSC title change, a BEL, a right-to-left override and a C1 CSI.
const EVIL: &str = "\u{1b}]0;pwned\u{7}\u{202e}\u{9b}31m";

const SIZES: [(u16, u16); 3] = [(80, 24), (120, 40), (200, 60)];

fn draw_clean(m: &Model, context: &str) -> usize {
    let mut shown = 0;
    for (w, h) in SIZES {
        let s = screen(m, w, h);
        assert_clean(&s, &format!("{context} at {w}x{h}"));
        shown += s.matches("^[]0;pwned^G<U+202E><U+009B>31m").count();
    }
    shown
}

fn to_list(m: &mut Model) {
    for _ in 0..6 {
        if m.focus == crate::app::Focus::List && m.drawer.is_none() {
            return;
        }
        press(m, KeyCode::Esc);
    }
}

/// Every string of every example project carries an escape; every view
/// of every project is drawn without a control character, and the escape
/// is shown in caret notation.
#[test]
fn every_string_hostile_every_view_clean() {
    let (_tmp, mut projects) = workspace_projects();
    for p in &mut projects {
        each_string(p, &mut |s| s.push_str(EVIL));
    }
    let n = projects.len();
    let mut m = Model::new(vec![format!("ws{EVIL}")], false, now());
    update(&mut m, Event::Loaded(projects));
    update(&mut m, Event::RootProblems(vec![format!("gone{EVIL}: x")]));
    let mut shown = draw_clean(&m, "list");
    for i in 0..n {
        to_list(&mut m);
        press(&mut m, KeyCode::Home);
        for _ in 0..i {
            press(&mut m, KeyCode::Down);
        }
        press(&mut m, KeyCode::Enter);
        let id = m.selected_project().map(|p| p.id.clone()).unwrap();
        for t in 0..m.tabs().len() {
            press(&mut m, KeyCode::Char(char::from(b'1' + t as u8)));
            let tab = m.tab;
            shown += draw_clean(&m, &format!("{id} {tab:?}"));
            // The drawer of the tab, on its first row and its last.
            for end in [KeyCode::Home, KeyCode::End] {
                press(&mut m, end);
                press(&mut m, KeyCode::Enter);
                shown += draw_clean(&m, &format!("{id} {tab:?} drawer"));
                if m.drawer.is_some() {
                    press(&mut m, KeyCode::Esc);
                }
            }
        }
    }
    to_list(&mut m);
    press(&mut m, KeyCode::Char('i'));
    for i in 0..40 {
        shown += draw_clean(&m, &format!("inbox row {i}"));
        press(&mut m, KeyCode::Down);
    }
    press(&mut m, KeyCode::Char('?'));
    draw_clean(&m, "help");
    press(&mut m, KeyCode::Esc);
    press(&mut m, KeyCode::Char(':'));
    draw_clean(&m, "palette");
    press(&mut m, KeyCode::Esc);
    update(&mut m, Event::Failed(format!("reading{EVIL}")));
    shown += draw_clean(&m, "failure");
    assert!(shown > 500, "the escapes are shown, not dropped: {shown}");
}

/// A control character takes room once shown (`ESC` is `^[`, two
/// columns): a name made of them is cut to its column with `…`, like
/// any long name, and never runs past the border.
#[test]
fn widths_are_measured_as_drawn() {
    let name = format!("{}end", "\u{1b}".repeat(40));
    let mut p = Project::new(Format::Gsd, PathBuf::from("/w/x"), name.clone());
    p.id = "x".into();
    p.updated_at = Some(now() - Duration::minutes(1));
    // A problem's mark, kept after a name cut to its column.
    p.problem("STATE.md", "unreadable");
    p.inbox.push(InboxItem {
        kind: InboxKind::Waiting,
        reference: "\u{1b}".repeat(30),
        title: name.clone().into(),
        since: None,
        options: vec![],
        subject: None,
        act: None,
        why_not: None,
    });
    let mut m = Model::new(vec!["ws".into()], false, now());
    update(&mut m, Event::Loaded(vec![p]));
    for (w, h) in [(80, 24), (120, 30)] {
        let s = screen(&m, w, h);
        let row = s.lines().find(|l| l.contains("GSD")).unwrap_or_default();
        assert!(row.contains('…'), "cut with a mark at {w}x{h}:\n{s}");
        assert!(row.contains("… !"), "the problem mark survives:\n{s}");
        assert!(!row.contains("end"), "{s}");
    }
    press(&mut m, KeyCode::Enter);
    for (w, h) in [(80, 24), (120, 30)] {
        let s = screen(&m, w, h);
        let title = s.lines().nth(1).unwrap_or_default();
        assert!(title.contains("^[^["), "{s}");
        assert!(title.ends_with('┐'), "the title stays in its border: {s}");
        assert!(
            title.contains("… · gsd") || title.contains("… › Overview"),
            "the name gives way, not what follows it: {s}"
        );
        for line in s.lines().skip(2).take(h as usize - 4) {
            if !line.is_empty() {
                assert!(line.ends_with('│'), "{w}x{h}: {line}\n{s}");
            }
        }
    }
}

/// Scenario C's excerpts are read from files as they are: drawn safe.
#[test]
fn excerpts_with_escapes_are_drawn_safe() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("notes.md"),
        format!("# plan{EVIL}\nstep one{EVIL}\n"),
    )
    .unwrap();
    let mut p = Project::new(Format::Gsd, dir.path().to_path_buf(), "old".into());
    p.id = "old".into();
    p.updated_at = Some(now() - Duration::days(30));
    p.resume.read_first = vec!["notes.md".to_owned()];
    let mut m = Model::new(vec!["ws".into()], false, now());
    // What the runtime does with the effect: read the excerpts, raw.
    for e in update(&mut m, Event::Loaded(vec![p])) {
        if let crate::app::Effect::ReadExcerpts(path) = e {
            let p = m.projects[0].clone();
            update(
                &mut m,
                Event::Excerpts(path, loopdeck_core::read::excerpts(&p, 2, 8)),
            );
        }
    }
    press(&mut m, KeyCode::Enter);
    let raw = m.excerpts.as_ref().map(|(_, e)| e[0].lines[0].clone());
    assert_eq!(raw, Some(format!("# plan{EVIL}")), "held as read");
    let shown = draw_clean(&m, "excerpts");
    assert!(shown >= 3, "{shown}");
}
