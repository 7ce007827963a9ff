//! Drawing the [`Model`]: `render` reads the model and nothing else (no
//! file access). Every string from a project file is sanitized before it
//! reaches a cell.

mod detail;
mod list;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::app::Model;
use crate::model::text::sanitize_line;

/// Below this width the detail pane is dropped and the list gets the screen.
const SPLIT_WIDTH: u16 = 100;

pub fn render(m: &Model, f: &mut Frame) {
    let [header, body, hints] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(f.area());
    f.render_widget(header_line(m), header);
    if body.width >= SPLIT_WIDTH {
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                .areas(body);
        list::render(m, f, left);
        detail::render(m, f, right);
    } else {
        let [top, bottom] =
            Layout::vertical([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(body);
        list::render(m, f, top);
        detail::render(m, f, bottom);
    }
    f.render_widget(
        Line::from(" j/k move  g/G top/bottom  PgUp/PgDn page  ^L redraw  q quit")
            .style(Style::new().add_modifier(Modifier::DIM)),
        hints,
    );
}

fn header_line(m: &Model) -> Line<'static> {
    let roots: Vec<String> = m
        .roots
        .iter()
        .map(|r| sanitize_line(r).into_owned())
        .collect();
    let mut spans = vec![
        Span::styled(
            " loopdeck ",
            Style::new().add_modifier(Modifier::BOLD | Modifier::REVERSED),
        ),
        Span::raw(format!(" {}  ", roots.join(" "))),
        Span::raw(if m.loading {
            "loading…".to_owned()
        } else {
            format!("{} projects", m.projects.len())
        }),
        Span::raw(format!("  {} waiting", m.waiting_total())),
    ];
    if m.readonly {
        spans.push(Span::styled(
            "  READ-ONLY",
            Style::new().add_modifier(Modifier::BOLD),
        ));
    }
    Line::from(spans)
}

#[cfg(test)]
mod tests;
