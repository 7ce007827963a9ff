//! The project list, newest update first unless sorted otherwise (the
//! title says how); status symbol and colour, age,
//! format badge, waiting-for-human count, name.

use super::View;
use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::Span;
use ratatui::widgets::{Row, Table, TableState};

use super::widgets::{age, block, clean, column_widths, fitted_row, inner};
use crate::app::{Focus, panes};
use crate::model::Format;

fn badge(f: Format) -> &'static str {
    match f {
        Format::PrdMaster => "PRD",
        Format::Gsd => "GSD",
        Format::Dwp => "DWP",
        Format::Devloop => "DEV",
    }
}

/// The widths of the columns before the name (status, age, format, ask):
/// each at least as wide as its English words were (1, 6, 3, 4), and wide
/// enough for its header and every age in the language spoken (`3分钟`).
pub(super) fn columns(m: &View) -> [u16; 4] {
    use crate::model::text::width;
    let ages = m
        .projects
        .iter()
        .map(|p| width(&age(m, p.updated_at)))
        .max()
        .unwrap_or(0);
    let at_least = |least: usize, header: &str, values: usize| {
        u16::try_from(least.max(width(header)).max(values)).unwrap_or(u16::MAX)
    };
    [
        1,
        at_least(6, crate::t!("ui.list.age"), ages),
        at_least(3, crate::t!("ui.list.format"), 0),
        at_least(4, crate::t!("ui.list.ask"), 0),
    ]
}

pub fn render(m: &View, f: &mut Frame, area: Rect) {
    let t = &m.theme;
    let rows = panes::projects(m);
    let height = area.height.saturating_sub(3) as usize;
    let first = m
        .list
        .first
        .window(m.list.selected, height.max(1), rows.len());
    let [status_w, age_w, format_w, ask_w] = columns(m);
    let widths = [
        Constraint::Length(status_w),
        Constraint::Length(age_w),
        Constraint::Length(format_w),
        Constraint::Length(ask_w),
        Constraint::Min(8),
    ];
    let cols = column_widths(&widths, inner(area).width);
    let visible = rows.iter().skip(first).take(height.max(1)).map(|&i| {
        let p = &m.projects[i];
        let (sym, style) = t.status(p.status_kind);
        let waiting = if p.needs_human() > 0 {
            format!("◆{}", p.needs_human())
        } else {
            String::new()
        };
        // The marks survive a name cut to its column: a problem, a reading
        // held back while the file settles, a project gone from disk.
        let mut mark = String::new();
        if !p.problems.is_empty() {
            mark.push_str(" !");
        }
        match m.freshness(p) {
            crate::app::Freshness::Current => {}
            crate::app::Freshness::Rereading => {
                mark.push(' ');
                mark.push_str(crate::t!("ui.list.rereading"));
            }
            crate::app::Freshness::Gone => {
                mark.push(' ');
                mark.push_str(crate::t!("ui.list.gone"));
            }
        }
        // Changed since you looked: a mark before the name.
        let changed = if m.seen.changed(p) { "• " } else { "" };
        // Measured as drawn: safe first, then cut.
        let shown = clean(&p.name);
        let name = if mark.is_empty() {
            format!("{changed}{shown}")
        } else {
            let room = cols.get(4).map_or(0, |&w| w as usize).saturating_sub(
                crate::model::text::width(&mark) + crate::model::text::width(changed),
            );
            format!(
                "{changed}{}{mark}",
                crate::model::text::truncate(&shown, room)
            )
        };
        fitted_row(
            vec![
                Span::styled(sym, style),
                Span::raw(age(m, p.updated_at)),
                Span::raw(badge(p.format)),
                Span::styled(waiting, t.warn),
                Span::raw(name),
            ],
            &cols,
        )
    });
    let title = if m.list.filter.is_empty() {
        crate::t!(
            "ui.list.title",
            shown = rows.len(),
            total = m.projects.len(),
            sort = m.sort.label()
        )
    } else {
        crate::t!(
            "ui.list.title_filtered",
            filter = m.list.filter,
            shown = rows.len(),
            total = m.projects.len(),
            sort = m.sort.label()
        )
    };
    let title = format!(" {title} ");
    let table = Table::new(visible, widths)
        .header(
            Row::new(vec![
                "",
                crate::t!("ui.list.age"),
                crate::t!("ui.list.format"),
                crate::t!("ui.list.ask"),
                crate::t!("ui.list.project"),
            ])
            .style(t.bold),
        )
        .row_highlight_style(t.selection)
        .block(block(m, title, m.focus == Focus::List));
    let selected = (!rows.is_empty()).then(|| m.list.selected.saturating_sub(first));
    let mut state = TableState::default().with_selected(selected);
    f.render_stateful_widget(table, area, &mut state);
    // Each row drawn, under the header, is a click on its project.
    let body = inner(area);
    let shown = rows.len().saturating_sub(first).min(height);
    for k in 0..shown {
        let y = body.y.saturating_add(1).saturating_add(k as u16);
        if y < body.bottom() {
            m.hit(
                Rect::new(body.x, y, body.width, 1),
                crate::app::Target::ListRow(first + k),
            );
        }
    }
}
