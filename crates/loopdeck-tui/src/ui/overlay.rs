//! Help (`?`) and the command palette (`:`), drawn over the body.

use super::View;
use ratatui::Frame;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::Theme;
use super::widgets::{block, offset};
use crate::app::help_rows;
use crate::model::StatusKind;

/// Every symbol the console draws, in its colour, with what it means: the
/// `?` help lists them after the keys. The status symbols come from
/// [`Theme::status`], so the legend cannot drift from what the views draw.
pub(super) fn legend(t: &Theme) -> Vec<(&'static str, Style, &'static str)> {
    let status = |kind| t.status(kind);
    let row = |(sym, style): (&'static str, Style), meaning| (sym, style, meaning);
    vec![
        row(status(StatusKind::Done), crate::t!("ui.legend.done")),
        row(status(StatusKind::Running), crate::t!("ui.legend.running")),
        row(t.stalled(), crate::t!("ui.legend.stalled")),
        row(status(StatusKind::Waiting), crate::t!("ui.legend.waiting")),
        row(t.paused(), crate::t!("ui.legend.paused")),
        row(
            status(StatusKind::Planning),
            crate::t!("ui.legend.planning"),
        ),
        row(status(StatusKind::Blocked), crate::t!("ui.legend.blocked")),
        row(status(StatusKind::Rebuilt), crate::t!("ui.legend.rebuilt")),
        row(status(StatusKind::Unknown), crate::t!("ui.legend.unknown")),
        ("!", t.error, crate::t!("ui.legend.problem")),
        (
            "!2 !4d",
            t.escalated(None),
            crate::t!("ui.legend.escalated"),
        ),
        ("•", t.warn, crate::t!("ui.legend.new")),
        ("●", t.ok, crate::t!("ui.legend.live")),
        ("○", t.warn, crate::t!("ui.legend.polling")),
        ("◌", t.muted, crate::t!("ui.legend.starting")),
        ("⟳", t.warn, crate::t!("ui.legend.rereading")),
        ("◌", t.muted, crate::t!("ui.legend.refreshing")),
        ("→", t.muted, crate::t!("ui.legend.upstream")),
        ("∞", t.muted, crate::t!("ui.legend.cycle")),
        ("≠", t.muted, crate::t!("ui.legend.differs")),
        ("[x] [ ]", t.muted, crate::t!("ui.legend.checkbox")),
        ("█░", t.muted, crate::t!("ui.legend.progress")),
    ]
}

pub(super) fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let [row] = Layout::vertical([Constraint::Length(height.min(area.height))])
        .flex(Flex::Center)
        .areas(area);
    let [cell] = Layout::horizontal([Constraint::Length(width.min(area.width))])
        .flex(Flex::Center)
        .areas(row);
    cell
}

/// Clear `area` for a dialog drawn over the screen. A wide character of
/// the screen under it whose second half falls on the dialog's left edge is
/// blanked: a terminal would draw it over the border (ratatui does not
/// send a cell a wide character covers).
pub(super) fn clear(f: &mut Frame, area: Rect) {
    f.render_widget(Clear, area);
    let Some(left) = area.x.checked_sub(1) else {
        return;
    };
    let buf = f.buffer_mut();
    for y in area.top()..area.bottom() {
        let cell = &mut buf[(left, y)];
        if unicode_width::UnicodeWidthStr::width(cell.symbol()) > 1 {
            cell.set_symbol(" ");
        }
    }
}

/// A help row's keys in their column: 8 display columns, more when the
/// keys need them, and always a space before the words.
fn keys(k: &str) -> String {
    let pad = 8usize.saturating_sub(crate::model::text::width(k)).max(1);
    format!(" {k}{}", " ".repeat(pad))
}

/// Every key of the current view, then every symbol the console draws,
/// scrolled by `m.help_scroll` when the screen is shorter than the list.
pub(super) fn help(m: &View, f: &mut Frame, area: Rect) {
    let t = &m.theme;
    let mut lines: Vec<Line> = help_rows(m)
        .into_iter()
        .map(|r| {
            if r.off {
                // A decision in read-only mode: greyed, with the reason.
                Line::from(vec![
                    Span::styled(keys(r.keys), t.muted),
                    Span::styled(
                        crate::t!("ui.help.off", description = r.description),
                        t.muted,
                    ),
                ])
            } else {
                Line::from(vec![
                    Span::styled(keys(r.keys), t.accent),
                    Span::raw(r.description),
                ])
            }
        })
        .collect();
    lines.push(Line::raw(""));
    lines.push(Line::from(Span::styled(
        format!(" {}", crate::t!("ui.help.symbols")),
        t.bold,
    )));
    lines.extend(legend(t).into_iter().map(|(sym, style, meaning)| {
        // Padded by display width: the symbols are one cell wide or more.
        let pad = 8usize.saturating_sub(crate::model::text::width(sym));
        Line::from(vec![
            Span::styled(format!(" {sym}"), style),
            Span::raw(" ".repeat(pad)),
            Span::raw(meaning),
        ])
    }));
    let total = lines.len() as u16;
    let area = centered(area, 72, total.saturating_add(2));
    let room = area.height.saturating_sub(2);
    let scroll = m.help_scroll.min(total.saturating_sub(room));
    let title = if total > room {
        format!(
            " {} ",
            crate::t!(
                "ui.help.title_scrolled",
                from = scroll + 1,
                to = (scroll + room).min(total),
                total = total
            )
        )
    } else {
        format!(" {} ", crate::t!("ui.help.title"))
    };
    clear(f, area);
    f.render_widget(
        Paragraph::new(lines)
            .scroll((scroll, 0))
            .block(block(m, title, true)),
        area,
    );
}

/// Every decision made, newest first (`loopdeck audit`'s list): age, by
/// whom, project, the decision in a few words, where it stands. Scrolled
/// by `m.help_scroll`; strings from the log are made safe.
pub(super) fn audit(m: &View, f: &mut Frame, area: Rect) {
    use crate::model::text::{pad, sanitize_line, truncate};
    let t = &m.theme;
    let width = area.width.saturating_sub(4).min(150);
    let inner = usize::from(width.saturating_sub(2));
    let lines: Vec<Line> = match &m.audit {
        None => vec![Line::from(Span::styled(
            format!(" {}", crate::t!("ui.audit.reading")),
            t.muted,
        ))],
        Some(Err(why)) => vec![Line::from(Span::styled(
            format!(
                " {}",
                crate::t!("ui.audit.failed", why = sanitize_line(why))
            ),
            t.error,
        ))],
        Some(Ok(entries)) if entries.is_empty() => vec![Line::from(Span::styled(
            format!(" {}", crate::t!("ui.audit.none")),
            t.muted,
        ))],
        Some(Ok(entries)) => entries
            .iter()
            .map(|e| {
                let age = super::widgets::age(m, e.at);
                let by = truncate(&sanitize_line(&e.by), 10).into_owned();
                let project = truncate(&sanitize_line(&e.project_name()), 20).into_owned();
                // Which undo undid it, where there is room for its id.
                let standing = if inner >= 120 {
                    e.standing.shown()
                } else {
                    e.standing.short().to_owned()
                };
                let style = match e.standing {
                    crate::model::AuditStanding::InForce => Style::new(),
                    _ => t.muted,
                };
                let used = 1 + 7 + 11 + 21 + 2 + crate::model::text::width(&standing);
                let summary = truncate(
                    &sanitize_line(&e.summary),
                    inner.saturating_sub(used).max(8),
                )
                .into_owned();
                Line::from(vec![
                    Span::styled(format!(" {}", pad(&age, 7)), t.muted),
                    Span::styled(pad(&by, 11), t.accent),
                    Span::raw(pad(&project, 21)),
                    Span::styled(summary, style),
                    Span::raw("  "),
                    Span::styled(standing, t.muted),
                ])
            })
            .collect(),
    };
    let total = lines.len() as u16;
    let area = centered(area, width, total.saturating_add(2));
    let room = area.height.saturating_sub(2);
    let scroll = m.help_scroll.min(total.saturating_sub(room));
    let n = m
        .audit
        .as_ref()
        .and_then(|a| a.as_ref().ok())
        .map_or(0, Vec::len);
    let title = if total > room {
        crate::t!(
            "ui.audit.title_scrolled",
            from = scroll + 1,
            to = (scroll + room).min(total),
            total = total
        )
    } else {
        crate::t!("ui.audit.title", n = n)
    };
    clear(f, area);
    f.render_widget(
        Paragraph::new(lines)
            .scroll((scroll, 0))
            .block(block(m, format!(" {title} "), true)),
        area,
    );
}

/// One palette row `inner` columns wide: the entry's label, and its keys
/// right-aligned (by display width; the label is cut to leave them room).
fn entry(label: &str, keys: &str, inner: usize, style: Style, keys_style: Style) -> Line<'static> {
    use crate::model::text::{truncate, width};
    let keys = super::widgets::clean(keys);
    let keys_w = width(&keys);
    // " label", at least one space, "keys ".
    let room = if keys.is_empty() {
        inner.saturating_sub(1)
    } else {
        inner.saturating_sub(keys_w + 3)
    };
    let label = truncate(&super::widgets::clean(label), room).into_owned();
    let gap = inner.saturating_sub(1 + width(&label) + keys_w + usize::from(!keys.is_empty()));
    // The selection spans the row.
    let mut spans = vec![
        Span::styled(format!(" {label}"), style),
        Span::styled(" ".repeat(gap), style),
    ];
    if !keys.is_empty() {
        spans.push(Span::styled(format!("{keys} "), keys_style));
    }
    Line::from(spans)
}

pub(super) fn palette(m: &View, f: &mut Frame, area: Rect) {
    let t = &m.theme;
    let matches = crate::app::palette::entries(m, &m.palette.input);
    let height = 12u16.min(area.height);
    let area = centered(area, 56, height);
    let list_h = height.saturating_sub(3) as usize;
    let first = offset(m.palette.selected, list_h);
    let mut lines = vec![Line::from(vec![
        Span::styled(": ", t.accent),
        Span::raw(format!("{}█", m.palette.input)),
    ])];
    let inner = usize::from(area.width.saturating_sub(2));
    for (i, e) in matches.iter().enumerate().skip(first).take(list_h) {
        let selected = i == m.palette.selected;
        let style = if selected { t.selection } else { Style::new() };
        lines.push(entry(
            &e.label,
            &e.keys,
            inner,
            style,
            if selected { t.selection } else { t.accent },
        ));
    }
    if matches.is_empty() {
        lines.push(Line::from(Span::styled(
            format!(" {}", crate::t!("ui.palette.none")),
            t.muted,
        )));
    }
    clear(f, area);
    f.render_widget(
        Paragraph::new(lines).block(block(
            m,
            format!(" {} ", crate::t!("ui.palette.title")),
            true,
        )),
        area,
    );
}

/// The hosts view (`H`): each host, where its feed is, and for one that
/// is not live, why and what will resolve it.
pub(super) fn hosts(m: &View, f: &mut Frame, area: Rect) {
    use crate::app::hosts::HostState;
    use crate::model::text::{pad, sanitize_line, truncate};
    let t = &m.theme;
    let width = area.width.saturating_sub(4).min(150);
    let inner = usize::from(width.saturating_sub(2));
    let name_w = m
        .hosts
        .iter()
        .map(|h| crate::model::text::width(&h.name))
        .max()
        .unwrap_or(0)
        .min(24);
    let mut lines: Vec<Line> = Vec::new();
    if m.hosts.is_empty() {
        lines.push(Line::from(Span::styled(
            format!(" {}", crate::t!("ui.hosts.none")),
            t.muted,
        )));
    }
    for h in &m.hosts {
        let projects = m
            .projects
            .iter()
            .filter(|p| p.host.as_ref() == Some(&h.name))
            .count();
        let (mark, style, state) = match &h.state {
            HostState::Connecting { attempt: 0 } => {
                ("◌", t.muted, crate::t!("ui.hosts.connecting").to_owned())
            }
            HostState::Connecting { attempt } => (
                "◌",
                t.muted,
                crate::t!("ui.hosts.reconnecting", n = attempt),
            ),
            HostState::Live { watcher } => (
                "●",
                t.ok,
                match watcher {
                    crate::app::Liveness::Polling { every_secs, .. } => {
                        crate::t!("ui.hosts.live_polling", n = projects, secs = every_secs)
                    }
                    _ => crate::t!("ui.hosts.live", n = projects),
                },
            ),
            HostState::Stale { last_line, reason } => (
                "○",
                t.warn,
                crate::t!(
                    "ui.hosts.stale",
                    age = super::widgets::age(m, *last_line),
                    why = sanitize_line(reason)
                ),
            ),
            HostState::Failed { message, .. } => (
                "✗",
                t.error,
                crate::t!("ui.hosts.failed", why = sanitize_line(message)),
            ),
            HostState::Refused { message } => (
                "✗",
                t.error,
                crate::t!("ui.hosts.refused", why = sanitize_line(message)),
            ),
        };
        let name = truncate(&sanitize_line(&h.name), name_w).into_owned();
        let rights = if h.writable {
            crate::t!("ui.hosts.writable")
        } else {
            crate::t!("ui.hosts.readonly")
        };
        let dest = truncate(&sanitize_line(&h.destination), 24).into_owned();
        let used = 3 + name_w + 2 + 26 + crate::model::text::width(rights) + 2;
        let state = truncate(&state, inner.saturating_sub(used).max(12)).into_owned();
        lines.push(Line::from(vec![
            Span::styled(format!(" {mark} "), style),
            Span::styled(pad(&name, name_w + 2), t.accent),
            Span::styled(pad(&dest, 26), t.muted),
            Span::styled(pad(&state, inner.saturating_sub(used).max(12) + 2), style),
            Span::styled(rights, t.muted),
        ]));
        // What resolves it, on its own line under the host.
        let resolve = match &h.state {
            HostState::Failed { hint, retry_at, .. } => {
                let retry = retry_at.map(|at| {
                    let secs = (at - m.now).num_seconds().max(0);
                    crate::t!("ui.hosts.retry_in", secs = secs)
                });
                let text = [hint.as_deref().map(sanitize_line), retry.map(Into::into)]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join(" · ");
                (!text.is_empty()).then_some(text)
            }
            HostState::Refused { .. } => Some(crate::t!("ui.hosts.refused_hint").to_owned()),
            HostState::Stale { .. } => Some(crate::t!("ui.hosts.stale_hint").to_owned()),
            _ => None,
        };
        // What its roots could not read there.
        for problem in &h.problems {
            let indent = 3 + name_w + 2;
            let text = truncate(
                &sanitize_line(problem),
                inner.saturating_sub(indent + 2).max(8),
            )
            .into_owned();
            lines.push(Line::from(Span::styled(
                format!("{}✗ {text}", " ".repeat(indent)),
                t.error,
            )));
        }
        if let Some(text) = resolve {
            let indent = 3 + name_w + 2;
            let text = truncate(&text, inner.saturating_sub(indent + 2).max(8)).into_owned();
            lines.push(Line::from(Span::styled(
                format!("{}→ {text}", " ".repeat(indent)),
                t.muted,
            )));
        }
    }
    let total = lines.len() as u16;
    let area = centered(area, width, total.saturating_add(2));
    let room = area.height.saturating_sub(2);
    let scroll = m.help_scroll.min(total.saturating_sub(room));
    let live = m.hosts.iter().filter(|h| h.state.is_live()).count();
    let title = crate::t!("ui.hosts.title", live = live, n = m.hosts.len());
    clear(f, area);
    f.render_widget(
        Paragraph::new(lines)
            .scroll((scroll, 0))
            .block(block(m, format!(" {title} "), true)),
        area,
    );
}

#[cfg(test)]
mod tests {
    #[test]
    fn keys_that_fill_their_column_keep_a_space_before_the_words() {
        assert_eq!(super::keys("g Home"), " g Home  ");
        assert_eq!(super::keys("^Q M-x F"), " ^Q M-x F ");
        assert_eq!(super::keys("^Q M-x F10"), " ^Q M-x F10 ");
    }
}
