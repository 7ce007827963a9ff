//! The selected project: a tab bar, the devloop status strip, the current
//! tab, and a drawer (unit or bug) over it.

use super::View;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::widgets::block;
use super::{devloop, tabs};
use crate::app::Focus;
use crate::model::Format;

/// `split`: the list is on screen beside the detail (else a breadcrumb
/// says where the detail is).
pub fn render(m: &View, f: &mut Frame, area: Rect, split: bool) {
    let t = &m.theme;
    let focused = m.focus == Focus::Detail;
    let Some(p) = m.selected_project() else {
        let msg = if m.loading {
            "reading projects…"
        } else {
            "no project selected"
        };
        f.render_widget(
            Paragraph::new(msg).block(block(m, " Detail ", focused)),
            area,
        );
        return;
    };
    // Below the split width the detail has the screen: say where we are.
    let mut title = if !split {
        format!(" projects › {} › {} ", p.name, m.tab.title())
    } else {
        format!(" {} · {} ", p.name, p.format.as_str())
    };
    // Said in place: a held-back reading, a project gone, the tab's filter.
    match m.freshness(p) {
        crate::app::Freshness::Current => {}
        crate::app::Freshness::Rereading => title.push_str("· re-reading… "),
        crate::app::Freshness::Gone => title.push_str("· gone from disk "),
    }
    if let Some(filter) = m.filter_label(m.tab) {
        title.push_str(&format!("{filter} "));
    }
    let outer = block(m, title, focused);
    let inside = outer.inner(area);
    f.render_widget(outer, area);

    let strip = if p.format == Format::Devloop {
        devloop::STRIP_HEIGHT
    } else {
        0
    };
    let [tab_bar, strip_area, body] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(strip),
        Constraint::Min(1),
    ])
    .areas(inside);
    let mut spans = Vec::new();
    for (i, tab) in m.tabs().iter().enumerate() {
        let style = if *tab == m.tab {
            t.selection.patch(t.bold)
        } else {
            t.muted
        };
        spans.push(Span::styled(format!(" {} {} ", i + 1, tab.title()), style));
    }
    f.render_widget(Line::from(spans), tab_bar);
    if strip > 0 {
        devloop::strip(m, p, f, strip_area);
    }
    tabs::render(m, p, f, body);
}
