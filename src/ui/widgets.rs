//! Small pieces shared by the panes.

use super::View;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders};

use crate::model::text::wrap;
use crate::model::{relative_age, since_seconds};
use chrono::{DateTime, Utc};

/// The first row to draw so that `selected` stays in a window of `height`
/// rows (only the visible rows are built).
pub fn offset(selected: usize, height: usize) -> usize {
    if height == 0 {
        selected
    } else {
        selected.saturating_sub(height - 1)
    }
}

/// A bordered block, its border accented when it has the keys.
pub fn block<'a>(m: &View, title: impl Into<Line<'a>>, focused: bool) -> Block<'a> {
    let style = if focused {
        m.theme.accent
    } else {
        m.theme.muted
    };
    Block::new()
        .borders(Borders::ALL)
        .border_type(BorderType::Plain)
        .border_style(style)
        .title(title)
}

/// "3m", "2d"; "?" without a time.
pub fn age(m: &View, at: Option<DateTime<Utc>>) -> String {
    since_seconds(at, m.now)
        .map(relative_age)
        .unwrap_or_else(|| "?".to_owned())
}

/// A labelled value wrapped by display width under its label (the view
/// wraps, not ratatui: its wrapper lets a wide character cross a border).
pub fn field(
    lines: &mut Vec<Line<'static>>,
    width: u16,
    label: &str,
    value: &str,
    label_style: Style,
) {
    const LABEL: usize = 12;
    let room = (width as usize).saturating_sub(LABEL).max(1);
    for (i, part) in wrap(value, room).into_iter().enumerate() {
        let head = if i == 0 {
            format!("{label:<LABEL$}")
        } else {
            " ".repeat(LABEL)
        };
        lines.push(Line::from(vec![
            Span::styled(head, label_style),
            Span::raw(part),
        ]));
    }
}

/// Text wrapped to `width`, each line styled alike.
pub fn wrapped(lines: &mut Vec<Line<'static>>, width: u16, text: &str, style: Style) {
    for part in text.split('\n') {
        for l in wrap(part, width as usize) {
            lines.push(Line::from(Span::styled(l, style)));
        }
    }
}

/// A text progress bar: `[████░░░░░░] 40%`.
pub fn bar(percent: f64, cells: usize) -> String {
    let pct = percent.clamp(0.0, 100.0);
    let filled = ((pct / 100.0) * cells as f64).round() as usize;
    format!(
        "[{}{}] {:.0}%",
        "█".repeat(filled),
        "░".repeat(cells - filled.min(cells)),
        pct
    )
}

/// The inner area of a bordered rect.
pub fn inner(area: Rect) -> Rect {
    Rect {
        x: area.x.saturating_add(1),
        y: area.y.saturating_add(1),
        width: area.width.saturating_sub(2),
        height: area.height.saturating_sub(2),
    }
}

/// Draw a table of `len` rows of which only the visible ones are built
/// (`row(i)` makes row `i`), keeping `selected` in view. `selected` is
/// highlighted only when the pane has the keys.
pub struct Spec<'a> {
    /// The pane's scroll window (kept between frames).
    pub scroll: &'a crate::app::Scroll,
    pub header: Vec<&'a str>,
    pub widths: &'a [ratatui::layout::Constraint],
    pub len: usize,
    pub selected: usize,
    pub focused: bool,
}

pub fn table<'a>(
    m: &View,
    f: &mut ratatui::Frame,
    area: Rect,
    spec: Spec<'a>,
    row: impl Fn(usize) -> ratatui::widgets::Row<'a>,
) {
    use ratatui::widgets::{Row, Table, TableState};
    let Spec {
        scroll,
        header,
        widths,
        len,
        selected,
        focused,
    } = spec;
    let height = area.height.saturating_sub(1) as usize;
    let first = scroll.window(selected, height, len);
    let rows: Vec<Row> = (first..len.min(first + height.max(1))).map(row).collect();
    let table = Table::new(rows, widths.to_vec())
        .header(Row::new(header).style(m.theme.bold))
        .row_highlight_style(if focused {
            m.theme.selection
        } else {
            Style::new()
        });
    let mut state =
        TableState::default().with_selected((len > 0).then(|| selected.saturating_sub(first)));
    f.render_stateful_widget(table, area, &mut state);
}

/// "nothing here" in the muted style.
pub fn empty(m: &View, f: &mut ratatui::Frame, area: Rect, what: &str) {
    f.render_widget(
        Line::from(Span::styled(format!(" {what}"), m.theme.muted)),
        area,
    );
}

/// Split `area` into a table and, under it, `rows` lines for the selected
/// row in full (a table cuts long text; this is where it can be read).
/// Without room for both, the table keeps the whole area.
pub fn with_detail(area: Rect, rows: u16) -> (Rect, Option<Rect>) {
    use ratatui::layout::{Constraint, Layout};
    if area.height < rows + 5 {
        return (area, None);
    }
    let [table, detail] =
        Layout::vertical([Constraint::Min(3), Constraint::Length(rows)]).areas(area);
    (table, Some(detail))
}

/// The selected row in full, under a rule.
pub fn detail_box(m: &View, f: &mut ratatui::Frame, area: Option<Rect>, fields: &[(&str, &str)]) {
    let Some(area) = area else { return };
    let w = area.width;
    let mut lines = vec![Line::from(Span::styled(
        "─".repeat(w as usize),
        m.theme.muted,
    ))];
    for (label, value) in fields.iter().filter(|(_, v)| !v.is_empty()) {
        field(&mut lines, w, label, value, m.theme.bold);
    }
    f.render_widget(ratatui::widgets::Paragraph::new(lines), area);
}
