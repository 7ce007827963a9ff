//! Small pieces shared by the panes.

use super::View;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders};

use std::borrow::Cow;

use crate::model::since_seconds;
use crate::model::text::{sanitize_line, sanitize_text, truncate, width as text_width, wrap};
use chrono::{DateTime, Utc};

/// A string from a project file made safe to draw on one line (see
/// `model::text`): borrowed when it is clean, which it nearly always is.
/// The model keeps strings as the files hold them; every pane draws them
/// through this, or through the helpers below that call it, and measures
/// what it draws (`ESC` is shown as `^[`, two columns).
pub(super) fn clean(s: &str) -> Cow<'_, str> {
    sanitize_line(s)
}

/// `span` with its text made safe to draw: the same span when clean.
pub(super) fn safe_span(span: Span<'_>) -> Span<'_> {
    let fixed = match sanitize_line(&span.content) {
        Cow::Borrowed(_) => None,
        Cow::Owned(s) => Some(s),
    };
    match fixed {
        None => span,
        Some(s) => Span::styled(s, span.style),
    }
}

/// Every span of `line` made safe to draw ([`safe_span`]).
pub(super) fn safe_line(line: Line<'_>) -> Line<'_> {
    let Line {
        spans,
        style,
        alignment,
    } = line;
    Line {
        spans: spans.into_iter().map(safe_span).collect(),
        style,
        alignment,
    }
}

/// The first row to draw so that `selected` stays in a window of `height`
/// rows (only the visible rows are built).
pub(super) fn offset(selected: usize, height: usize) -> usize {
    if height == 0 {
        selected
    } else {
        selected.saturating_sub(height - 1)
    }
}

/// A bordered block, its border accented when it has the keys; its title
/// is drawn safe ([`safe_line`]).
pub(super) fn block<'a>(m: &View, title: impl Into<Line<'a>>, focused: bool) -> Block<'a> {
    let title = safe_line(title.into());
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

/// "3m", "2d", "future"; "?" without a time (in the language spoken).
pub(super) fn age(m: &View, at: Option<DateTime<Utc>>) -> String {
    crate::i18n::age(since_seconds(at, m.now))
}

/// The widest age a column of times can show, in the language spoken,
/// without formatting every one (1,000 rows a frame): each unit at its
/// most digits (59s, 59m, 23h, 13d), the weeks of `oldest`, "future", "?".
pub(super) fn widest_age(m: &View, oldest: Option<DateTime<Utc>>) -> usize {
    [59, 59 * 60, 23 * 3600, 13 * 86_400]
        .into_iter()
        .map(|s| crate::i18n::age(Some(s)))
        .chain([age(m, oldest), crate::i18n::age(Some(-3600)), age(m, None)])
        .map(|a| crate::model::text::width(&a))
        .max()
        .unwrap_or(0)
}

/// The label column of [`field`].
const LABEL: usize = 12;

/// A labelled value wrapped by display width under its label (the view
/// wraps, not ratatui: its wrapper lets a wide character cross a border).
/// A label too wide for its column (an id, a finding code) gets a line of
/// its own, so label and value never run together and nothing is cut.
pub(super) fn field(
    lines: &mut Vec<Line<'static>>,
    width: u16,
    label: &str,
    value: &str,
    label_style: Style,
) {
    let (label, value) = (clean(label), clean(value));
    let room = (width as usize).saturating_sub(LABEL).max(1);
    let label_w = text_width(&label);
    let mut first = if label_w < LABEL {
        Some(format!("{label}{}", " ".repeat(LABEL - label_w)))
    } else {
        for part in wrap(&label, (width as usize).max(1)) {
            lines.push(Line::from(Span::styled(part, label_style)));
        }
        None
    };
    for part in wrap(&value, room) {
        let head = first.take().unwrap_or_else(|| " ".repeat(LABEL));
        lines.push(Line::from(vec![
            Span::styled(head, label_style),
            Span::raw(part),
        ]));
    }
}

/// `line` made safe and cut to `width` display columns: whole spans while they fit, then
/// the one that does not, ended with `…` (measured by display width, so a
/// wide character is never split).
pub(super) fn fit(line: Line<'static>, width: u16) -> Line<'static> {
    let line = safe_line(line);
    let max = width as usize;
    if line.width() <= max {
        return line;
    }
    if max == 0 {
        return Line::default();
    }
    let mut used = 0;
    let mut out = Vec::new();
    for span in line.spans {
        let w = span.width();
        if used + w < max {
            used += w;
            out.push(span);
            continue;
        }
        let cut = truncate(&span.content, max - used).into_owned();
        let cut = if cut.ends_with('…') {
            cut
        } else {
            // The span fits exactly but more follows: mark the cut.
            format!(
                "{}…",
                truncate(&span.content, (max - used).saturating_sub(1)).trim_end_matches('…')
            )
        };
        out.push(Span::styled(cut, span.style));
        break;
    }
    Line::from(out).style(line.style)
}

/// `lines` cut to `height`: when some do not fit, the last shown line ends
/// with `…`, so a cut is never silent.
pub(super) fn clip(mut lines: Vec<Line<'static>>, height: u16, width: u16) -> Vec<Line<'static>> {
    if lines.len() > height as usize {
        lines.truncate(height as usize);
        if let Some(last) = lines.pop() {
            let mut spans = last.spans;
            spans.push(Span::raw("…"));
            lines.push(fit(Line::from(spans), width));
        }
    }
    lines
}

/// Spans laid on one line when they fit in `width`; else each on its own
/// wrapped lines (leading spaces dropped), so nothing is cut.
pub(super) fn spans_wrapped(lines: &mut Vec<Line<'static>>, width: u16, spans: Vec<Span<'static>>) {
    let spans: Vec<Span<'static>> = spans.into_iter().map(safe_span).collect();
    let total: usize = spans.iter().map(Span::width).sum();
    if total <= width as usize {
        lines.push(Line::from(spans));
        return;
    }
    for s in spans {
        let text = s.content.trim_start();
        if !text.is_empty() {
            wrapped(lines, width, text, s.style);
        }
    }
}

/// A path in at most `max` columns: whole leading components give way to
/// `…/` (the tail names the project); a last component still too wide is
/// cut at its end.
pub(super) fn path_tail(path: &str, max: usize) -> String {
    if text_width(path) <= max {
        return path.to_owned();
    }
    let mut rest = path;
    while let Some(i) = rest.find('/') {
        rest = &rest[i + 1..];
        if rest.is_empty() {
            break;
        }
        if text_width(rest) + 2 <= max {
            return format!("…/{rest}");
        }
    }
    truncate(
        path.rsplit('/').find(|c| !c.is_empty()).unwrap_or(path),
        max,
    )
    .into_owned()
}

/// Text made safe and wrapped to `width`, each line styled alike; its
/// line breaks are kept.
pub(super) fn wrapped(lines: &mut Vec<Line<'static>>, width: u16, text: &str, style: Style) {
    for part in sanitize_text(text).split('\n') {
        for l in wrap(part, width as usize) {
            lines.push(Line::from(Span::styled(l, style)));
        }
    }
}

/// A text progress bar: `[████░░░░░░] 40%`.
pub(super) fn bar(percent: f64, cells: usize) -> String {
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
pub(super) fn inner(area: Rect) -> Rect {
    Rect {
        x: area.x.saturating_add(1),
        y: area.y.saturating_add(1),
        width: area.width.saturating_sub(2),
        height: area.height.saturating_sub(2),
    }
}

/// The drawer's scroll, clamped so the last line stays at the bottom.
pub(super) fn scroll_of(m: &View, lines: usize, area: Rect) -> u16 {
    let room = area.height.saturating_sub(2) as usize;
    m.drawer_scroll.min(lines.saturating_sub(room) as u16)
}

/// Draw a table of `len` rows of which only the visible ones are built
/// (`row(i)` makes row `i`), keeping `selected` in view. `selected` is
/// highlighted only when the pane has the keys.
pub(super) struct Spec<'a> {
    /// The pane's scroll window (kept between frames).
    pub scroll: &'a crate::app::Scroll,
    pub header: Vec<&'a str>,
    pub widths: &'a [ratatui::layout::Constraint],
    pub len: usize,
    pub selected: usize,
    pub focused: bool,
}

/// A column `min` wide (what the English words need) or as wide as the
/// widest of `words` in the language spoken (a Chinese character is two
/// columns).
pub(super) fn col(min: u16, words: &[&str]) -> Constraint {
    let widest = words.iter().map(|w| text_width(w)).max().unwrap_or(0);
    Constraint::Length(min.max(u16::try_from(widest).unwrap_or(u16::MAX)))
}

/// The column widths ratatui's `Table` gives `widths` in `width` columns
/// (its defaults: columns from the left, one space between them, no
/// highlight symbol).
pub(super) fn column_widths(widths: &[ratatui::layout::Constraint], width: u16) -> Vec<u16> {
    use ratatui::layout::{Flex, Layout};
    Layout::horizontal(widths.to_vec())
        .flex(Flex::Start)
        .spacing(1)
        .split(Rect::new(0, 0, width, 1))
        .iter()
        .map(|r| r.width)
        .collect()
}

/// One table row whose cells are made safe and cut to their columns with
/// `…` (the detail under the table shows them in full).
pub(super) fn fitted_row<'a>(cells: Vec<Span<'a>>, widths: &[u16]) -> ratatui::widgets::Row<'a> {
    ratatui::widgets::Row::new(cells.into_iter().enumerate().map(|(i, span)| {
        let span = safe_span(span);
        let w = widths.get(i).copied().unwrap_or(0) as usize;
        let cell = if span.width() > w {
            Span::styled(truncate(&span.content, w).into_owned(), span.style)
        } else {
            span
        };
        ratatui::widgets::Cell::from(cell)
    }))
}

pub(super) fn table<'a>(
    m: &View,
    f: &mut ratatui::Frame,
    area: Rect,
    spec: Spec<'a>,
    row: impl Fn(usize) -> Vec<Span<'a>>,
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
    let cols = column_widths(widths, area.width);
    let rows: Vec<Row> = (first..len.min(first + height.max(1)))
        .map(|i| fitted_row(row(i), &cols))
        .collect();
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
    scrolled_off(m, f, area, first, len.saturating_sub(first + height.max(1)));
    // Each row drawn, under the header, is a click on it: an inbox row on
    // the inbox, else a row of the tab shown.
    for (k, i) in (first..len.min(first + height)).enumerate() {
        let y = area.y.saturating_add(1).saturating_add(k as u16);
        if y >= area.bottom() {
            break;
        }
        let target = if m.screen == crate::app::Screen::Inbox {
            crate::app::Target::InboxRow(i)
        } else {
            crate::app::Target::TableRow(m.tab, i)
        };
        m.hit(Rect::new(area.x, y, area.width, 1), target);
    }
}

/// How many rows are scrolled off above and below, at the header line's
/// right end (`↑3 ↓12`), so a table cut by the screen says it is.
fn scrolled_off(m: &View, f: &mut ratatui::Frame, area: Rect, above: usize, below: usize) {
    let mut marks = Vec::new();
    if above > 0 {
        marks.push(format!("↑{above}"));
    }
    if below > 0 {
        marks.push(format!("↓{below}"));
    }
    if marks.is_empty() || area.height == 0 {
        return;
    }
    let text = format!(" {} ", marks.join(" "));
    let w = u16::try_from(crate::model::text::width(&text)).unwrap_or(u16::MAX);
    if w >= area.width {
        return;
    }
    let at = Rect::new(area.right() - w, area.y, w, 1);
    f.render_widget(Line::from(Span::styled(text, m.theme.muted)), at);
}

/// "nothing here" in the muted style.
pub(super) fn empty(m: &View, f: &mut ratatui::Frame, area: Rect, what: &str) {
    f.render_widget(
        Line::from(Span::styled(format!(" {what}"), m.theme.muted)),
        area,
    );
}

/// Split `area` into a table and, under it, the selected row in full (a
/// table cuts long text with `…`; this is where it can be read): at least
/// `rows` lines, more when the fields need them, up to half the area; a
/// last line that still does not fit ends with `…`. Without room for both,
/// the table keeps the whole area. Returns the table's area.
pub(super) fn with_detail(
    m: &View,
    f: &mut ratatui::Frame,
    area: Rect,
    rows: u16,
    fields: &[(&str, &str)],
) -> Rect {
    use ratatui::layout::{Constraint, Layout};
    if area.height < rows + 5 {
        return area;
    }
    let w = area.width;
    let mut lines = vec![Line::from(Span::styled(
        "─".repeat(w as usize),
        m.theme.muted,
    ))];
    for (label, value) in fields.iter().filter(|(_, v)| !v.is_empty()) {
        field(&mut lines, w, label, value, m.theme.bold);
    }
    let room = (lines.len() as u16).clamp(rows, (area.height / 2).max(rows));
    let lines = clip(lines, room, w);
    let [table, detail] =
        Layout::vertical([Constraint::Min(3), Constraint::Length(room)]).areas(area);
    f.render_widget(ratatui::widgets::Paragraph::new(lines), detail);
    table
}
