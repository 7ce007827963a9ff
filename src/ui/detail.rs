//! The selected project's resume card: where it stopped, why, what it waits
//! for, what to read first.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::app::Model;
use crate::model::text::{sanitize_line, wrap};
use crate::model::{Scenario, since_seconds};

const LABEL: usize = 12;

/// A labelled value, wrapped by display width under its label (the view
/// wraps, not ratatui: its wrapper lets a wide character cross the border).
fn field(lines: &mut Vec<Line<'static>>, width: u16, label: &'static str, value: &str) {
    let room = (width as usize).saturating_sub(LABEL).max(1);
    for (i, part) in wrap(&sanitize_line(value), room).into_iter().enumerate() {
        let head = if i == 0 {
            format!("{label:<LABEL$}")
        } else {
            " ".repeat(LABEL)
        };
        lines.push(Line::from(vec![
            Span::styled(head, Style::new().add_modifier(Modifier::BOLD)),
            Span::raw(part),
        ]));
    }
}

pub fn render(m: &Model, f: &mut Frame, area: Rect) {
    let block = Block::new().borders(Borders::ALL);
    let Some(p) = m.selected_project() else {
        f.render_widget(
            Paragraph::new("no project selected").block(block.title(" Resume ")),
            area,
        );
        return;
    };
    let scenario = since_seconds(p.updated_at, m.now).map(Scenario::for_age);
    let title = format!(
        " {} · {} · scenario {} ",
        sanitize_line(&p.name),
        p.format.as_str(),
        scenario.map_or("?".into(), |s| format!("{s:?}"))
    );
    let w = area.width.saturating_sub(2);
    let mut lines = Vec::new();
    field(&mut lines, w, "stage", p.stage.as_deref().unwrap_or("-"));
    field(&mut lines, w, "status", &p.status);
    for (label, v) in [
        ("stopped at", &p.resume.stopped_at),
        ("why", &p.resume.reason),
        ("waiting for", &p.resume.waiting_for),
    ] {
        if let Some(v) = v {
            field(&mut lines, w, label, v);
        }
    }
    if !p.resume.read_first.is_empty() {
        field(&mut lines, w, "read first", &p.resume.read_first.join(", "));
    }
    for item in &p.inbox {
        field(
            &mut lines,
            w,
            "ask",
            &format!("{} {}", item.reference, item.title),
        );
    }
    for pr in &p.problems {
        field(&mut lines, w, "problem", &pr.to_string());
    }
    if !p.findings.is_empty() {
        field(&mut lines, w, "findings", &p.findings.len().to_string());
    }
    f.render_widget(Paragraph::new(lines).block(block.title(title)), area);
}
