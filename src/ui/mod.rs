//! Drawing the [`Model`]: `render` reads the model and nothing else (no
//! file access). Strings from files were sanitized when loaded; the few
//! that were not (paths from the command line) are sanitized here.
//!
//! Layout: a header line, the body, a one-line hint bar. At 100 columns and
//! more the projects screen shows the list and the detail side by side;
//! below that, only the focused side, with a breadcrumb.

mod detail;
mod devloop;
mod inbox;
mod list;
mod overlay;
mod tabs;
pub mod theme;
mod widgets;

#[cfg(test)]
mod tests;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};

use crate::app::{Focus, Liveness, Mode, Model, Screen};
use crate::model::text::sanitize_line;
pub use theme::Theme;

/// Below this width the projects screen shows one side at a time.
pub const SPLIT_WIDTH: u16 = 100;

pub fn render(m: &Model, f: &mut Frame) {
    let [header, body, hints] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(f.area());
    f.render_widget(header_line(m), header);
    match m.screen {
        Screen::Projects => projects_screen(m, f, body),
        Screen::Inbox => inbox::render(m, f, body),
    }
    f.render_widget(hint_line(m), hints);
    match m.mode {
        Mode::Help => overlay::help(m, f, body),
        Mode::Palette => overlay::palette(m, f, body),
        Mode::Normal | Mode::Filter => {}
    }
}

fn projects_screen(m: &Model, f: &mut Frame, area: Rect) {
    if area.width >= SPLIT_WIDTH {
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(38), Constraint::Percentage(62)])
                .areas(area);
        list::render(m, f, left);
        detail::render(m, f, right);
    } else {
        match m.focus {
            Focus::List => list::render(m, f, area),
            Focus::Detail => detail::render(m, f, area),
        }
    }
}

fn header_line(m: &Model) -> Line<'static> {
    let t = &m.theme;
    let roots: Vec<String> = m
        .roots
        .iter()
        .map(|r| sanitize_line(r).into_owned())
        .collect();
    let mut spans = vec![
        Span::styled(" loopdeck ", t.selection.patch(t.bold)),
        Span::raw(" "),
        Span::styled(roots.join(" "), t.muted),
        Span::raw("  "),
        Span::raw(if m.loading {
            "reading…".to_owned()
        } else {
            format!("{} projects", m.projects.len())
        }),
    ];
    let waiting = m.waiting_total();
    if waiting > 0 {
        spans.push(Span::raw("  "));
        spans.push(Span::styled(format!("◆ {waiting} waiting"), t.warn));
    }
    spans.push(Span::raw("  "));
    spans.push(match m.live {
        Liveness::Live => Span::styled("● live", t.ok),
        Liveness::Polling => Span::styled("○ polling", t.warn),
    });
    if m.readonly {
        spans.push(Span::raw("  "));
        spans.push(Span::styled("READ-ONLY", t.error.patch(t.bold)));
    }
    Line::from(spans)
}

fn hint_line(m: &Model) -> Line<'static> {
    let t = &m.theme;
    if m.mode == Mode::Filter {
        let filter = match (m.screen, m.focus) {
            (Screen::Inbox, _) => &m.inbox.filter,
            (Screen::Projects, Focus::List) => &m.list.filter,
            (Screen::Projects, Focus::Detail) => &m.pane(m.tab).filter,
        };
        return Line::from(vec![
            Span::styled("/", t.accent),
            Span::raw(format!("{filter}█")),
            Span::styled("   Enter keep · Esc clear", t.muted),
        ]);
    }
    let hint = match (m.mode, m.screen, m.focus) {
        (Mode::Help, ..) => "Esc close help",
        (Mode::Palette, ..) => "type to search · ↑/↓ choose · Enter run · Esc close",
        (_, Screen::Inbox, _) => {
            "j/k move · Enter jump to it · / filter · Esc back · ? help · q quit"
        }
        (_, Screen::Projects, Focus::List) => {
            "j/k move · Enter open · Tab/1-9 tabs · / filter · i inbox · : commands · ? help · q quit"
        }
        (_, Screen::Projects, Focus::Detail) => {
            "Tab/1-9 tabs · j/k move · Enter open · / filter · Esc back · ? help · q quit"
        }
    };
    Line::from(Span::styled(format!(" {hint}"), t.muted))
}
