//! The project list: newest update first, format, status, waiting count, age.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::widgets::{Block, Borders, Row, Table, TableState};

use crate::app::Model;
use crate::model::text::sanitize_line;
use crate::model::{Format, relative_age, since_seconds};

fn badge(f: Format) -> &'static str {
    match f {
        Format::PrdMaster => "PRD",
        Format::Gsd => "GSD",
        Format::Dwp => "DWP",
        Format::Devloop => "DEV",
    }
}

pub fn render(m: &Model, f: &mut Frame, area: Rect) {
    let visible = area.height.saturating_sub(3) as usize;
    // Only the visible rows are built.
    let offset = m.selected.saturating_sub(visible.saturating_sub(1));
    let rows = m
        .projects
        .iter()
        .skip(offset)
        .take(visible.max(1))
        .map(|p| {
            let age = since_seconds(p.updated_at, m.now)
                .map(relative_age)
                .unwrap_or_else(|| "?".into());
            let waiting = if p.needs_human() > 0 {
                format!("●{}", p.needs_human())
            } else {
                String::new()
            };
            Row::new(vec![
                age,
                badge(p.format).to_owned(),
                sanitize_line(&p.status).into_owned(),
                waiting,
                sanitize_line(&p.name).into_owned(),
            ])
        });
    let table = Table::new(
        rows,
        [
            Constraint::Length(4),
            Constraint::Length(3),
            Constraint::Length(10),
            Constraint::Length(3),
            Constraint::Min(10),
        ],
    )
    .header(
        Row::new(vec!["AGE", "FMT", "STATUS", "ASK", "PROJECT"])
            .style(Style::new().add_modifier(Modifier::BOLD)),
    )
    .row_highlight_style(Style::new().add_modifier(Modifier::REVERSED))
    .block(Block::new().borders(Borders::ALL).title(" Projects "));
    let mut state =
        TableState::default().with_selected((!m.projects.is_empty()).then(|| m.selected - offset));
    f.render_stateful_widget(table, area, &mut state);
}
