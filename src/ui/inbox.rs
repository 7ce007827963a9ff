//! The inbox: everything waiting for a human across all projects, oldest
//! first. Enter jumps to the item in its project.

use super::View;
use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::Span;

use super::tabs::kind;
use super::widgets::{Spec, age, block, empty, inner, table, with_detail};
use crate::app::panes;

pub fn render(m: &View, f: &mut Frame, area: Rect) {
    let t = &m.theme;
    let rows = panes::inbox(m);
    let new = m.new_total();
    let mut title = if new > 0 {
        format!(" Inbox · {} waiting · {new} new ", rows.len())
    } else {
        format!(" Inbox · {} waiting ", rows.len())
    };
    if !m.inbox.filter.is_empty() {
        title = format!(" Inbox /{} · {} ", m.inbox.filter, rows.len());
    }
    f.render_widget(block(m, title, true), area);
    let body = inner(area);
    if rows.is_empty() {
        return empty(m, f, body, "nothing is waiting for you");
    }
    let body = match rows.get(m.inbox.selected) {
        Some(&(pi, ii)) => {
            let p = &m.projects[pi];
            let item = &p.inbox[ii];
            // Options as they stand now (a resume token lapses with time).
            let options = p.options_at(item, m.now).join(" / ");
            with_detail(
                m,
                f,
                body,
                5,
                &[
                    ("project", &p.name),
                    (kind(item.kind), &item.title),
                    ("options", &options),
                    ("ref", &item.reference),
                ],
            )
        }
        None => body,
    };
    table(
        m,
        f,
        body,
        Spec {
            header: vec!["AGE", "PROJECT", "KIND", "WAITING FOR"],
            widths: &[
                Constraint::Length(6),
                Constraint::Percentage(25),
                Constraint::Length(9),
                Constraint::Min(10),
            ],
            len: rows.len(),
            scroll: &m.inbox.first,
            selected: m.inbox.selected,
            focused: true,
        },
        |i| {
            let (pi, ii) = rows[i];
            let p = &m.projects[pi];
            let item = &p.inbox[ii];
            // • marks an item that arrived since the user last looked.
            let mark = if m.notices.is_new(p, item) {
                "• "
            } else {
                ""
            };
            let mut text = format!("{mark}{} {}", item.reference, item.title);
            let options = p.options_at(item, m.now);
            if !options.is_empty() {
                text.push_str(&format!("  [{}]", options.join(" / ")));
            }
            vec![
                Span::raw(age(m, item.since)),
                Span::raw(p.name.clone()),
                Span::styled(kind(item.kind), t.warn),
                Span::raw(text),
            ]
        },
    );
}
