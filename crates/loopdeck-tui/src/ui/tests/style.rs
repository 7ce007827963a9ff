//! Styles, not only characters: the selection, status colours by kind, the
//! focused border and `NO_COLOR`, checked on ratatui's buffer.

use std::path::PathBuf;

use chrono::Duration;
use crossterm::event::KeyCode;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::{Terminal, backend::TestBackend};

use super::{now, press, workspace_model};
use crate::app::{Event, Tab, update};
use crate::model::{Format, Project, StatusKind, Task};
use crate::ui::*;

fn buffer(m: &Model, theme: &Theme, w: u16, h: u16) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| render(m, theme, f)).unwrap();
    t.backend().buffer().clone()
}

/// The cells of `area` as a buffer of their own (at the origin).
fn region(buf: &Buffer, area: Rect) -> Buffer {
    let mut out = Buffer::empty(Rect::new(0, 0, area.width, area.height));
    for y in 0..area.height {
        for x in 0..area.width {
            out[(x, y)] = buf[(area.x + x, area.y + y)].clone();
        }
    }
    out
}

fn row_text(buf: &Buffer, y: u16, x0: u16, x1: u16) -> String {
    let mut s = String::new();
    let mut x = x0;
    while x < x1 {
        let sym = buf[(x, y)].symbol();
        s.push_str(sym);
        x += (unicode_width::UnicodeWidthStr::width(sym) as u16).max(1);
    }
    s
}

fn project(name: &str, status: &str, kind: StatusKind, minutes: i64) -> Project {
    let mut p = Project::new(
        Format::Gsd,
        PathBuf::from(format!("/w/{name}")),
        name.into(),
    );
    p.id = name.into();
    p.status = status.into();
    p.status_kind = kind;
    p.updated_at = Some(now() - Duration::minutes(minutes));
    p
}

/// A model of `projects` and the theme it is drawn in.
fn model(projects: Vec<Project>, no_color: bool) -> (Model, Theme) {
    let mut m = Model::new(vec!["ws".into()], false, now());
    update(&mut m, Event::Loaded(projects));
    (m, Theme::fallback(no_color))
}

/// Under `NO_COLOR` the list's rows carry no style but the selection's
/// reverse video: the rows compared as a whole buffer.
#[test]
fn the_selected_row_and_only_it_is_highlighted() {
    let (mut m, th) = model(
        vec![
            project("alpha", "executing", StatusKind::Running, 1),
            project("beta", "paused", StatusKind::Waiting, 2),
            project("gamma", "complete", StatusKind::Done, 3),
        ],
        true,
    );
    press(&mut m, KeyCode::Down);
    let buf = buffer(&m, &th, 60, 10);
    // Rows 3..6: inside the list's border, under the header and its titles.
    let area = Rect::new(1, 3, 58, 3);
    let lines: Vec<String> = (0..3).map(|y| row_text(&buf, 3 + y, 1, 59)).collect();
    assert!(lines[1].contains("beta"), "{lines:?}");
    let mut expected = Buffer::with_lines(lines);
    expected.set_style(
        Rect::new(0, 1, 58, 1),
        Style::new().add_modifier(Modifier::REVERSED),
    );
    assert_eq!(region(&buf, area), expected);
}

/// The words that were guessed wrong ("discovering", "Discovery phase",
/// "recovered" showed as ✗ error) take the colour of the kind the reader set.
#[test]
fn status_colour_and_symbol_follow_the_kind() {
    let rows = [
        ("a", "discovering", StatusKind::Planning, "…", Color::Blue),
        (
            "b",
            "Discovery phase",
            StatusKind::Planning,
            "…",
            Color::Blue,
        ),
        ("c", "recovered", StatusKind::Done, "✓", Color::Green),
        ("d", "blocked", StatusKind::Blocked, "✗", Color::Red),
        ("e", "waiting", StatusKind::Waiting, "◆", Color::Yellow),
        // Waiting by its status, nothing asked of a human: paused.
        ("f", "paused", StatusKind::Waiting, "⏸", Color::Yellow),
    ];
    let projects = rows
        .iter()
        .enumerate()
        .map(|(i, (n, s, k, _, _))| {
            let mut p = project(n, s, *k, i as i64 + 1);
            if *n == "e" {
                p.inbox.push(crate::model::InboxItem {
                    kind: crate::model::InboxKind::Waiting,
                    act: None,
                    reference: "WAITING.json".into(),
                    title: "Which?".into(),
                    since: None,
                    options: Vec::new(),
                    subject: None,
                    why_not: None,
                });
            }
            p
        })
        .collect();
    let (m, th) = model(projects, false);
    let buf = buffer(&m, &th, 60, 12);
    for (i, (name, _, _, sym, color)) in rows.iter().enumerate() {
        let y = 3 + i as u16;
        assert!(row_text(&buf, y, 1, 59).contains(name));
        let cell = &buf[(1, y)];
        assert_eq!((cell.symbol(), cell.fg), (*sym, *color), "row {name}");
    }
}

#[test]
fn the_focused_pane_has_the_accent_border() {
    let (mut m, th) = model(
        vec![project("alpha", "executing", StatusKind::Running, 1)],
        false,
    );
    let t = th.clone();
    let list_w = (120u16 * 3 / 10).clamp(34, 60);
    let corner = |buf: &Buffer, x: u16| {
        let c = &buf[(x, 1)];
        assert_eq!(c.symbol(), "┌");
        Style::new().fg(c.fg).add_modifier(c.modifier)
    };
    let buf = buffer(&m, &th, 120, 30);
    assert_eq!(corner(&buf, 0), t.accent);
    assert_eq!(corner(&buf, list_w), t.muted);
    press(&mut m, KeyCode::Enter);
    let buf = buffer(&m, &th, 120, 30);
    assert_eq!(corner(&buf, 0), t.muted);
    assert_eq!(corner(&buf, list_w), t.accent);
}

/// `NO_COLOR`: not one cell of any view has a colour, the status symbols
/// are all there, and the selection is reverse video.
#[test]
fn no_color_means_no_colour_at_all_and_symbols_still_there() {
    let (_t, mut m) = workspace_model();
    let th = Theme::fallback(true);
    let mut screens = vec![("projects", buffer(&m, &th, 200, 60))];
    let all: String = (0..60)
        .map(|y| row_text(&screens[0].1, y, 0, 200))
        .collect();
    for sym in ["✓", "▶", "◆", "✗", "…", "↻"] {
        assert!(all.contains(sym), "{sym} shown without colour");
    }
    press(&mut m, KeyCode::Enter);
    for tab in m.tabs().to_vec() {
        m.tab = tab;
        screens.push(("tab", buffer(&m, &th, 120, 40)));
    }
    press(&mut m, KeyCode::Esc);
    press(&mut m, KeyCode::Char('i'));
    screens.push(("inbox", buffer(&m, &th, 120, 40)));
    for (name, buf) in &screens {
        for c in buf.content() {
            assert_eq!((c.fg, c.bg), (Color::Reset, Color::Reset), "{name}: {c:?}");
        }
    }
    let reversed = screens[0]
        .1
        .content()
        .iter()
        .filter(|c| c.modifier.contains(Modifier::REVERSED))
        .count();
    assert!(reversed > 0, "the selection is reverse video");
}

/// The README checkbox agrees with a task the reader calls done, whatever
/// word the state uses: no `≠` from comparing the word with "completed".
#[test]
fn the_task_checkbox_compares_by_kind() {
    let mut p = Project::new(Format::Dwp, "/w/plan".into(), "plan".into());
    p.id = "plan".into();
    p.detail.tasks.push(Task {
        id: "1".into(),
        title: "ship it".into(),
        status: "done".into(),
        status_kind: StatusKind::Done,
        md_checked: Some(true),
        locator: None,
        started_at: None,
        completed_at: None,
        commit: None,
        gates: Vec::new(),
        outcome: None,
    });
    let (mut m, th) = model(vec![p], true);
    press(&mut m, KeyCode::Enter);
    m.tab = Tab::Tasks;
    let buf = buffer(&m, &th, 80, 24);
    let all: String = (0..24).map(|y| row_text(&buf, y, 0, 80) + "\n").collect();
    assert!(all.contains("[x] "), "{all}");
    assert!(!all.contains('≠'), "{all}");
}

/// A timeline event is coloured by its kind, not by "FAIL" in its text.
#[test]
fn timeline_style_comes_from_the_event_kind() {
    let mut p = Project::new(Format::Devloop, "/w/d".into(), "d".into());
    p.id = "d".into();
    for (kind, summary) in [
        ("prd_drafted", "FAIL-safe mode agreed"),
        ("unit_failed", "restock-be 7/8"),
    ] {
        p.detail.timeline.push(crate::model::Event {
            at: Some(now()),
            source: "system".into(),
            kind: kind.into(),
            summary: summary.into(),
            unit: None,
        });
    }
    let (mut m, th) = model(vec![p], false);
    press(&mut m, KeyCode::Enter);
    m.tab = Tab::Timeline;
    let buf = buffer(&m, &th, 80, 24);
    let red = th.error.fg;
    let fg_of = |word: &str| {
        (0..24)
            .find_map(|y| {
                let text = row_text(&buf, y, 0, 80);
                let x = text.find(word)?;
                Some(buf[(text[..x].chars().count() as u16, y)].fg)
            })
            .unwrap()
    };
    assert_ne!(Some(fg_of("prd_drafted")), red);
    assert_eq!(Some(fg_of("unit_failed")), red);
}
