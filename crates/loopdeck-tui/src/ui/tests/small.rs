//! Smaller things users expect (issue 11 §6): the legend of symbols in
//! `?`, the light theme, the sorted list's title and the list that widens
//! on a wide terminal.

use std::path::PathBuf;

use crossterm::event::KeyCode;
use ratatui::style::{Color, Style};
use ratatui::{Terminal, backend::TestBackend};

use super::{now, press, screen, workspace_model};
use crate::app::{Event, update};
use crate::model::{Format, InboxItem, InboxKind, Project, StatusKind};
use crate::ui::overlay::legend;
use crate::ui::*;

const SIZES: [(u16, u16); 2] = [(80, 24), (200, 60)];

fn snap(m: &Model, name: &str) {
    for (w, h) in SIZES {
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), screen(m, w, h));
    }
}

#[test]
fn the_legend_names_every_status_symbol_and_mark() {
    let t = Theme::fallback(false);
    let rows = legend(&t);
    let kinds = [
        StatusKind::Done,
        StatusKind::Running,
        StatusKind::Waiting,
        StatusKind::Planning,
        StatusKind::Blocked,
        StatusKind::Failed,
        StatusKind::Rebuilt,
        StatusKind::Unknown,
    ];
    for kind in kinds {
        let (sym, style) = t.status(kind);
        assert!(
            rows.iter().any(|(s, st, _)| *s == sym && *st == style),
            "{kind:?} ({sym}) is in the legend, in its colour"
        );
    }
    // The marks the views draw besides the status symbols.
    for mark in ["!", "•", "●", "○", "◌", "⟳", "⏸", "◷", "→", "∞", "≠", "█░"]
    {
        assert!(rows.iter().any(|(s, _, _)| *s == mark), "{mark}");
    }
    for (sym, _, meaning) in &rows {
        // The help is 72 wide: the symbol's column and the meaning fit.
        assert!(
            crate::model::text::width(meaning) <= 61,
            "{sym}: {meaning} fits the help"
        );
    }
}

/// The legend comes after the keys: at 80x24 it is below the fold, so
/// the help is scrolled to its end; at 200x60 all of it shows.
#[test]
fn help_ends_with_the_legend() {
    let (_t, mut m) = workspace_model();
    press(&mut m, KeyCode::Char('?'));
    let top = screen(&m, 80, 24);
    assert!(top.contains("Keys & symbols 1-"), "{top}");
    press(&mut m, KeyCode::Char('G'));
    snap(&m, "help_legend");
    let end = screen(&m, 80, 24);
    assert!(end.contains(" ↻       rebuilt from other files"), "{end}");
    let all = screen(&m, 200, 60);
    assert!(all.contains(" q       quit") && all.contains(" █░      progress"));
}

/// WCAG's contrast ratio of two 24-bit colours.
fn contrast(a: Color, b: Color) -> f64 {
    let lum = |c: Color| {
        let Color::Rgb(r, g, b) = c else {
            panic!("{c:?} is not a 24-bit colour");
        };
        let ch = |v: u8| {
            let v = f64::from(v) / 255.0;
            if v <= 0.039_28 {
                v / 12.92
            } else {
                ((v + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * ch(r) + 0.7152 * ch(g) + 0.0722 * ch(b)
    };
    let (x, y) = (lum(a), lum(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

#[test]
fn the_light_theme_reads_on_a_light_background() {
    let t = Theme::builtin("light", false).unwrap();
    assert_eq!(t.name, "light");
    let white = Color::Rgb(0xff, 0xff, 0xff);
    let cream = Color::Rgb(0xfd, 0xf6, 0xe3);
    let styles = [
        ("accent", t.accent),
        ("muted", t.muted),
        ("ok", t.ok),
        ("warn", t.warn),
        ("error", t.error),
        ("info", t.info),
    ];
    for (name, style) in styles {
        let fg = style.fg.unwrap();
        for bg in [white, cream] {
            assert!(contrast(fg, bg) >= 4.5, "{name} on {bg:?}");
        }
    }
    let (sf, sb) = (t.selection.fg.unwrap(), t.selection.bg.unwrap());
    assert!(contrast(sf, sb) >= 4.5, "the selected row's text");
    assert!(
        contrast(sb, white) >= 1.3,
        "the selection bar shows on white"
    );
    // The check means something: the dark theme's yellow fails it.
    let dark = Theme::builtin("solarized-dark", false).unwrap();
    assert!(contrast(dark.warn.fg.unwrap(), white) < 4.5);
    // NO_COLOR still wins.
    let plain = Theme::builtin("light", true).unwrap();
    assert_eq!((plain.warn.fg, plain.selection.bg), (None, None));
}

/// Drawn in the light theme, the selected row is the theme's bar and a
/// waiting project's ◆ its warn colour.
#[test]
fn the_light_theme_draws_the_selection_and_warnings_in_its_colours() {
    let t = Theme::builtin("light", false).unwrap();
    let mut m = Model::new(vec!["ws".into()], false, now());
    let mut a = Project::new(Format::Gsd, PathBuf::from("/w/a"), "alpha".into());
    a.id = "a".into();
    a.status_kind = StatusKind::Running;
    let mut b = Project::new(Format::Gsd, PathBuf::from("/w/b"), "beta".into());
    b.id = "b".into();
    b.status_kind = StatusKind::Waiting;
    b.inbox.push(waiting_item());
    update(&mut m, Event::Loaded(vec![a, b]));
    let mut term = Terminal::new(TestBackend::new(60, 10)).unwrap();
    term.draw(|f| render(&m, &t, f)).unwrap();
    let buf = term.backend().buffer();
    // Row 3: alpha, selected; row 4: beta, waiting.
    let selected = &buf[(10, 3)];
    assert_eq!(
        (selected.fg, selected.bg),
        (t.selection.fg.unwrap(), t.selection.bg.unwrap())
    );
    let waiting = &buf[(1, 4)];
    assert_eq!((waiting.symbol(), waiting.fg), ("◆", t.warn.fg.unwrap()));
    assert_ne!(t.warn, Theme::builtin("default", false).unwrap().warn);
    assert_ne!(t.selection, Style::new());
}

#[test]
fn the_sorted_list_says_its_order() {
    let (_t, mut m) = workspace_model();
    assert!(screen(&m, 80, 24).contains(" Projects 20/20 · by update "));
    press(&mut m, KeyCode::Down);
    press(&mut m, KeyCode::Char('S'));
    press(&mut m, KeyCode::Char('S'));
    snap(&m, "projects_by_waiting");
    press(&mut m, KeyCode::Char('S'));
    snap(&m, "projects_by_status");
}

/// A project named `name`, read now.
fn named(name: &str) -> Project {
    let mut p = Project::new(
        Format::Dwp,
        PathBuf::from(format!("/w/{name}")),
        name.into(),
    );
    p.id = name.into();
    p.updated_at = Some(now());
    p
}

fn list_width(s: &str) -> usize {
    // The list's top border ends where the detail's begins.
    let top = s.lines().nth(1).unwrap_or("");
    top.chars().position(|c| c == '┐').map_or(0, |i| i + 1)
}

#[test]
fn the_list_widens_for_long_names_on_a_wide_terminal() {
    let long = "Refactor checkout into an explicit state machine with retries";
    let mut m = Model::new(vec!["ws".into()], false, now());
    update(&mut m, Event::Loaded(vec![named(long), named("short")]));
    // 200 columns: the name is whole (61 + 20 columns of the rest).
    let wide = screen(&m, 200, 30);
    assert!(wide.contains(long), "{wide}");
    assert_eq!(list_width(&wide), 81);
    // 120 columns: at most 45% (54), the name cut.
    let mid = screen(&m, 120, 30);
    assert_eq!(list_width(&mid), 54);
    assert!(mid.contains("Refactor checkout into an explici…"), "{mid}");
    // Short names keep the list at 30% (34 to 60 columns).
    let mut m = Model::new(vec!["ws".into()], false, now());
    update(&mut m, Event::Loaded(vec![named("short")]));
    assert_eq!(list_width(&screen(&m, 200, 30)), 60);
    assert_eq!(list_width(&screen(&m, 120, 30)), 36);
}

/// `?` starts with the keys a newcomer needs: quit, help, the inbox,
/// decide, and the next project changed since you looked.
#[test]
fn help_starts_with_a_newcomers_keys() {
    let (_t, mut m) = workspace_model();
    press(&mut m, KeyCode::Char('?'));
    let rows = crate::app::help_rows(&m);
    let first: Vec<&str> = rows.iter().take(5).map(|r| r.keys).collect();
    assert_eq!(first, ["q", "?", "i", "a", "n"], "{rows:?}");
    let top = screen(&m, 80, 24);
    let at = |s: &str| top.find(s).unwrap_or(usize::MAX);
    assert!(at(" q ") < at(" ? ") && at(" ? ") < at(" i "), "{top}");
}

fn waiting_item() -> InboxItem {
    InboxItem {
        kind: InboxKind::Waiting,
        act: None,
        reference: ".planning/WAITING.json".into(),
        title: "Which?".into(),
        since: None,
        options: Vec::new(),
        subject: None,
        why_not: None,
    }
}

/// A project whose status waits for a human shows the waiting `◆` while
/// something waits for one, and the paused `⏸` once nothing does: the
/// example's GSD `paused-waiting` (`status: paused`), before and after its
/// WAITING.json is answered (`loopdeck act DIR answer` removes it). Sorted
/// by status, it then ranks below every project with items waiting and
/// below what failed or is blocked.
#[test]
fn a_paused_project_that_asks_nothing_is_not_drawn_waiting() {
    let (tmp, projects) = super::workspace_projects();
    let ws = std::path::Path::new("target/tmp")
        .join(tmp.path().file_name().unwrap())
        .join("workspace");
    let row = |m: &Model| {
        let s = screen(m, 200, 60);
        let line = s
            .lines()
            .find(|l| l.contains(" paused-waiting "))
            .unwrap_or_else(|| panic!("{s}"))
            .to_owned();
        // The list's cell: from its border to the detail's.
        line[..line.find("││").unwrap()].to_owned()
    };
    let mut m = Model::new(vec!["workspace".into()], false, now());
    update(&mut m, Event::Loaded(projects));
    let before = row(&m);
    assert!(before.starts_with("│◆ 2h     GSD ◆1 "), "{before}");

    std::fs::remove_file(ws.join("gsd/paused-waiting/.planning/WAITING.json")).unwrap();
    let projects = loopdeck_core::read::discover(std::slice::from_ref(&ws)).projects;
    let paused = projects
        .iter()
        .find(|p| p.id == "gsd/paused-waiting")
        .unwrap();
    assert_eq!(
        (paused.status.as_str(), paused.needs_human()),
        ("paused", 0)
    );
    update(&mut m, Event::Loaded(projects));
    let after = row(&m);
    assert!(after.starts_with("│⏸ 2h     GSD      "), "{after}");
    assert!(!after.contains('◆'), "{after}");
    // Its Overview says paused too.
    super::select(&mut m, "gsd/paused-waiting");
    let overview = screen(&m, 200, 60);
    assert!(
        overview.contains("│⏸ paused   updated 2h ago"),
        "{overview}"
    );
    assert!(!overview.contains("◆ paused"), "{overview}");

    // By status: after every project with items waiting, and after what
    // failed, is blocked or was rebuilt; before work going on.
    m.sort = crate::app::panes::Sort::Status;
    let order: Vec<usize> = crate::app::panes::projects(&m);
    let at = order
        .iter()
        .position(|&i| m.projects[i].id == "gsd/paused-waiting")
        .unwrap();
    for (n, &i) in order.iter().enumerate() {
        let p = &m.projects[i];
        let stalled = p.stall(m.now, &m.stall).is_some();
        let first = p.needs_human() > 0
            || stalled
            || matches!(
                p.status_kind,
                StatusKind::Failed | StatusKind::Blocked | StatusKind::Rebuilt
            );
        assert_eq!(n < at, first, "{} at {n}, paused at {at}", p.id);
    }
}
