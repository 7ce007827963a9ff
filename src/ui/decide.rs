//! The decision form over the console: the chooser, the editor, the
//! confirm dialog with the diff, and what went wrong.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Wrap};

use super::View;
use super::overlay::centered;
use super::widgets::block;
use super::widgets::clean;
use crate::app::decide::Stage;

pub fn render(m: &View, f: &mut Frame, area: Rect) {
    let Some(form) = &m.form else {
        return;
    };
    let area = centered(
        area,
        area.width.saturating_sub(4).min(100),
        area.height.saturating_sub(2),
    );
    f.render_widget(Clear, area);
    let mut lines: Vec<Line> = vec![Line::raw(clean(&form.heading).into_owned())];
    match &form.stage {
        Stage::Choose => {
            for (i, c) in form.choices.iter().enumerate() {
                lines.push(Line::raw(format!("{} {}", i + 1, clean(&c.label()))));
            }
        }
        Stage::Edit | Stage::Discard => {
            for i in &form.inputs {
                lines.push(Line::raw(format!(
                    "{}: {}",
                    i.field.label,
                    clean(&i.text())
                )));
            }
        }
        Stage::Previewing => lines.push(Line::raw("computing what would change…")),
        Stage::Writing => lines.push(Line::raw("writing…")),
        Stage::Confirm { files, .. } => {
            for fd in files {
                lines.extend(fd.diff.lines().map(|l| Line::raw(clean(l).into_owned())));
            }
            lines.push(Line::raw("w write · n/Esc no"));
        }
        Stage::Failed { message, .. } => lines.push(Line::raw(clean(message).into_owned())),
    }
    if let Some(note) = &form.note {
        lines.push(Line::raw(clean(note).into_owned()));
    }
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block(m, format!(" {} ", clean(&form.title())), true)),
        area,
    );
}
