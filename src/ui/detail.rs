//! The selected project's resume card: where it stopped, why, what it waits
//! for, what to read first.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use crate::app::Model;
use crate::model::text::sanitize_line;
use crate::model::{Scenario, since_seconds};

fn field(label: &'static str, value: &str) -> Line<'static> {
    Line::from(vec![
        Span::styled(
            format!("{label:<12}"),
            Style::new().add_modifier(Modifier::BOLD),
        ),
        Span::raw(sanitize_line(value).into_owned()),
    ])
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
    let mut lines = vec![
        field("stage", p.stage.as_deref().unwrap_or("-")),
        field("status", &p.status),
    ];
    for (label, v) in [
        ("stopped at", &p.resume.stopped_at),
        ("why", &p.resume.reason),
        ("waiting for", &p.resume.waiting_for),
    ] {
        if let Some(v) = v {
            lines.push(field(label, v));
        }
    }
    if !p.resume.read_first.is_empty() {
        lines.push(field("read first", &p.resume.read_first.join(", ")));
    }
    for item in &p.inbox {
        lines.push(field("ask", &format!("{} {}", item.reference, item.title)));
    }
    for pr in &p.problems {
        lines.push(field("problem", &pr.to_string()));
    }
    if !p.findings.is_empty() {
        lines.push(field("findings", &p.findings.len().to_string()));
    }
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block.title(title)),
        area,
    );
}
