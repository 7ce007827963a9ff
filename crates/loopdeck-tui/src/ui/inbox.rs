//! The inbox: everything waiting for a human across all projects, oldest
//! first. Enter jumps to the item in its project.

use super::View;
use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::Span;

use super::widgets::{Spec, age, block, empty, inner, table, with_detail};
use crate::app::panes;
use crate::model::text::width;

pub(super) fn render(m: &View, f: &mut Frame, area: Rect) {
    let t = &m.theme;
    let rows = panes::inbox(m);
    let new = m.new_total();
    let title = if !m.inbox.filter.is_empty() {
        crate::t!(
            "ui.inbox.title_filtered",
            filter = m.inbox.filter,
            n = rows.len()
        )
    } else if new > 0 {
        crate::t!("ui.inbox.title_new", n = rows.len(), new = new)
    } else {
        crate::t!("ui.inbox.title", n = rows.len())
    };
    f.render_widget(block(m, format!(" {title} "), true), area);
    let body = answered(m, f, inner(area));
    if rows.is_empty() {
        return empty(m, f, body, crate::t!("ui.inbox.empty"));
    }
    let body = match rows.get(m.inbox.selected) {
        Some(&(pi, ii)) => {
            let p = &m.projects[pi];
            let item = &p.inbox[ii];
            // Options as they stand now (a resume token lapses with time).
            let options = p.options_at(item, m.now).join(" / ");
            // What an evidence request needs, from the node it is about:
            // its acceptance threshold and due date.
            let node = item.subject.as_deref().and_then(|id| {
                p.frontier
                    .research
                    .iter()
                    .chain(&p.frontier.questions)
                    .find(|q| q.id == id)
            });
            let field = |get: fn(&crate::model::Question) -> Option<&String>| {
                node.and_then(get).map(String::as_str).unwrap_or_default()
            };
            // In the language spoken (what the files say stays as it is).
            let title = item.title.shown();
            // Its reader's words, or what a server-only decision needs.
            let why_not = crate::app::decide::item_why_not(m, item).unwrap_or_default();
            with_detail(
                m,
                f,
                body,
                5,
                &[
                    (crate::t!("ui.inbox.field_project"), &p.label()),
                    (item.kind.shown(), &title),
                    (crate::t!("ui.inbox.field_options"), &options),
                    (crate::t!("ui.inbox.field_why_not"), &why_not),
                    (
                        crate::t!("ui.inbox.field_accept_if"),
                        field(|q| q.acceptance_threshold.as_ref()),
                    ),
                    (
                        crate::t!("ui.inbox.field_due"),
                        field(|q| q.due_by.as_ref()),
                    ),
                    (
                        crate::t!("ui.inbox.field_escalated"),
                        &crate::model::escalate::fired(&m.rules, p, item, m.now)
                            .iter()
                            .map(|r| r.shown())
                            .collect::<Vec<_>>()
                            .join(", "),
                    ),
                    (crate::t!("ui.inbox.field_ref"), &item.reference),
                ],
            )
        }
        None => body,
    };
    // The age and kind columns fit their header and every value in the
    // language spoken (`3分钟`), never narrower than in English (6, 9).
    let oldest = rows
        .iter()
        .filter_map(|&(pi, ii)| m.projects[pi].inbox[ii].since)
        .min();
    // One more for the `!` of an escalated item.
    let mark_w = usize::from(!m.rules.is_empty());
    let age_w = 6
        .max(width(crate::t!("ui.inbox.age")))
        .max(super::widgets::widest_age(m, oldest) + mark_w);
    let kinds = crate::model::InboxKind::ALL
        .iter()
        .map(|k| width(k.shown()))
        .max()
        .unwrap_or(0);
    let kind_w = 9.max(width(crate::t!("ui.inbox.kind"))).max(kinds);
    table(
        m,
        f,
        body,
        Spec {
            header: vec![
                crate::t!("ui.inbox.age"),
                crate::t!("ui.inbox.project"),
                crate::t!("ui.inbox.kind"),
                crate::t!("ui.inbox.waiting_for"),
            ],
            widths: &[
                Constraint::Length(u16::try_from(age_w).unwrap_or(u16::MAX)),
                Constraint::Percentage(25),
                Constraint::Length(u16::try_from(kind_w).unwrap_or(u16::MAX)),
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
            // The question first: its reference (a file, an id) is in the
            // detail, and would cut the question at 80 columns.
            let mut text = format!("{mark}{}", item.title.shown());
            let options = p.options_at(item, m.now);
            if !options.is_empty() {
                text.push_str(&format!("  [{}]", options.join(" / ")));
            }
            // `!` and the rule's colour: an `[[escalate]]` rule fires on it.
            let fired = crate::model::escalate::fired(&m.rules, p, item, m.now);
            if !fired.is_empty() {
                let style = t.escalated(fired.iter().find_map(|r| r.colour.as_deref()));
                return vec![
                    Span::styled(format!("!{}", age(m, item.since)), style),
                    Span::raw(p.label().into_owned()),
                    Span::styled(item.kind.shown(), t.warn),
                    Span::styled(text, style),
                ];
            }
            vec![
                Span::raw(age(m, item.since)),
                Span::raw(p.label().into_owned()),
                Span::styled(item.kind.shown(), t.warn),
                Span::raw(text),
            ]
        },
    );
}

/// What the human answered that the agents have not acted on yet, under
/// the queue: not waiting for you, so apart from it and never counted in
/// it, newest answer first, a line each (as many as a third of the pane
/// holds). Returns the area left for the queue.
fn answered(m: &View, f: &mut Frame, area: Rect) -> Rect {
    use ratatui::layout::Layout;
    use ratatui::text::Line;
    let mut all: Vec<(&crate::model::Project, &crate::model::AnsweredItem)> = m
        .projects
        .iter()
        .flat_map(|p| p.answered.iter().map(move |a| (p, a)))
        .collect();
    if all.is_empty() || area.height < 8 {
        return area;
    }
    all.sort_by(|a, b| crate::model::oldest_first(b.1.at, a.1.at));
    let room = (area.height / 3).max(2) as usize;
    let shown = all.len().min(room - 1);
    let t = &m.theme;
    let mut lines = vec![Line::from(Span::styled(
        crate::t!("ui.inbox.answered_title", n = all.len()),
        t.muted,
    ))];
    for (p, a) in all.iter().take(shown) {
        let by = match &a.by {
            Some(by) => crate::t!(
                "ui.inbox.answered_by",
                answer = a.answer,
                by = by,
                age = age(m, a.at)
            ),
            None => crate::t!(
                "ui.inbox.answered_anon",
                answer = a.answer,
                age = age(m, a.at)
            ),
        };
        let line = crate::model::text::sanitize_line(&format!(
            "  {} · {} → {by}",
            p.label(),
            a.title.shown()
        ))
        .into_owned();
        lines.push(Line::from(Span::styled(line, t.muted)));
    }
    if shown < all.len() {
        lines.push(Line::from(Span::styled(
            crate::t!("ui.inbox.answered_more", n = all.len() - shown),
            t.muted,
        )));
    }
    let height = u16::try_from(lines.len()).unwrap_or(u16::MAX);
    let [queue, _, below] = Layout::vertical([
        Constraint::Min(3),
        Constraint::Length(1),
        Constraint::Length(height),
    ])
    .areas(area);
    f.render_widget(ratatui::widgets::Paragraph::new(lines), below);
    queue
}
