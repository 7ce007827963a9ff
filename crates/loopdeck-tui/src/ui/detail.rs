//! The selected project: a tab bar, the devloop status strip, the current
//! tab, and a drawer (unit or bug) over it.

use super::View;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::widgets::{block, clean, fit, path_tail};
use super::{devloop, tabs};
use crate::app::{Focus, Tab, Target};
use crate::model::text::{truncate, width};

/// `split`: the list is on screen beside the detail (else a breadcrumb
/// says where the detail is).
pub(super) fn render(m: &View, f: &mut Frame, area: Rect, split: bool) {
    let t = &m.theme;
    let focused = m.focus == Focus::Detail;
    let Some(p) = m.selected_project() else {
        let msg = if m.loading {
            crate::t!("panes.detail.loading")
        } else {
            crate::t!("panes.detail.none")
        };
        f.render_widget(
            Paragraph::new(msg).block(block(m, crate::t!("panes.detail.title"), focused)),
            area,
        );
        return;
    };
    // Below the split width the detail has the screen: say where we are.
    // The name gives way (cut with …) to where we are; the path tells apart
    // two projects of the same name and gives way (leading directories
    // first) to both when the border is short.
    let room = area.width.saturating_sub(2) as usize;
    let (before, mut after) = if !split {
        (
            crate::t!("panes.detail.projects").to_owned(),
            format!(" › {}", m.tab.title()),
        )
    } else {
        (" ".to_owned(), format!(" · {}", p.format.as_str()))
    };
    // Said in place, before the path gives way: a held-back reading, a
    // project gone from disk, the tab's filter.
    match m.freshness(p) {
        crate::app::Freshness::Current => {}
        crate::app::Freshness::Refreshing => after.push_str(crate::t!("panes.detail.refreshing")),
        crate::app::Freshness::Rereading => after.push_str(crate::t!("panes.detail.rereading")),
        crate::app::Freshness::Gone => after.push_str(crate::t!("panes.detail.gone")),
    }
    if crate::app::hosts::is_stale(m, p) {
        after.push_str(crate::t!("panes.detail.host_not_live"));
    }
    if let Some(filter) = m.filter_label(m.tab) {
        after.push_str(&format!(" {filter}"));
    }
    let name_room = room.saturating_sub(width(&before) + width(&after) + 1);
    let head = format!("{before}{}{after}", truncate(&clean(&p.label()), name_room));
    let head = truncate(&head, room).into_owned();
    let path = clean(&p.path.to_string_lossy()).into_owned();
    let left = room.saturating_sub(width(&head) + 4);
    let mut title = vec![Span::raw(head)];
    if left >= 6 {
        title.push(Span::styled(
            format!(" · {} ", path_tail(&path, left)),
            t.muted,
        ));
    } else {
        title.push(Span::raw(" "));
    }
    let mut outer = block(m, Line::from(title), focused);
    // Scrolled up while events arrive: say so under the Timeline.
    let below = if m.tab == Tab::Timeline {
        m.timeline_new_below()
    } else {
        0
    };
    if below > 0 {
        outer = outer.title_bottom(
            Line::from(Span::styled(
                // The key that follows again, as `[keys]` has it.
                match crate::app::keys_here(m, crate::app::Command::FollowTimeline) {
                    key if key.is_empty() => crate::t!("panes.detail.new_below", n = below),
                    key => crate::t!("panes.detail.new_below_follow", n = below, key = key),
                },
                t.warn.patch(t.bold),
            ))
            .right_aligned(),
        );
    }
    let inside = outer.inner(area);
    f.render_widget(outer, area);

    // The loops' strip, where the format has loops.
    let strip = if p.detail.loops.is_some() {
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
    let mut x = tab_bar.x;
    let tabs = m.tabs();
    // Every title in full where they fit; else the others cut to a few
    // characters, then to their number: the selected tab is always named
    // whole, and every tab keeps its number (its key).
    let label = |i: usize, tab: &Tab, level: usize| {
        let title = tab.title();
        match level {
            _ if *tab == m.tab => format!(" {} {title} ", i + 1),
            0 => format!(" {} {title} ", i + 1),
            1 => format!(" {} {} ", i + 1, truncate(title, 4)),
            _ => format!(" {} ", i + 1),
        }
    };
    let level = (0..2)
        .find(|&level| {
            tabs.iter()
                .enumerate()
                .map(|(i, tab)| width(&label(i, tab, level)))
                .sum::<usize>()
                <= usize::from(tab_bar.width)
        })
        .unwrap_or(2);
    for (i, tab) in tabs.iter().enumerate() {
        let style = if *tab == m.tab {
            t.selection.patch(t.bold)
        } else {
            t.muted
        };
        let span = Span::styled(label(i, tab, level), style);
        // A click on a title (as much of it as the bar shows) shows its tab.
        let w = u16::try_from(span.width()).unwrap_or(u16::MAX);
        let shown = w.min(tab_bar.right().saturating_sub(x));
        m.hit(Rect::new(x, tab_bar.y, shown, 1), Target::Tab(*tab));
        x = x.saturating_add(shown);
        spans.push(span);
    }
    f.render_widget(fit(Line::from(spans), tab_bar.width), tab_bar);
    if strip > 0 {
        devloop::strip(m, p, f, strip_area);
    }
    tabs::render(m, p, f, body);
    // An open drawer covers the rows and takes the keys: they wait.
    if m.drawer.is_some() {
        m.hits
            .borrow_mut()
            .forget(|t| matches!(t, Target::TableRow(..)));
    }
}
