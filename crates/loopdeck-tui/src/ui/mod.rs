//! Drawing the [`Model`]: `render` reads the model and nothing else (no
//! file access). The model holds strings as the files hold them; they are
//! made safe here, where they are drawn (`widgets::clean` and the helpers
//! that call it), and only the rows on screen, measured as drawn.
//!
//! Layout: a header line, the body, a one-line hint bar. At 100 columns and
//! more the projects screen shows the list and the detail side by side;
//! below that, only the focused side, with a breadcrumb.

mod decide;
mod detail;
mod devloop;
mod inbox;
mod list;
mod overlay;
mod revisions;
mod since;
mod tabs;
pub mod theme;
mod widgets;

#[cfg(test)]
pub(crate) mod testing;
#[cfg(test)]
mod tests;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};

use crate::app::{Focus, Liveness, Mode, Model, Screen, Target};
use crate::model::text::{sanitize_line, truncate};
pub use theme::Theme;

/// Below this width the projects screen shows one side at a time.
pub const SPLIT_WIDTH: u16 = 100;

/// Below this the console asks for a larger terminal instead of drawing
/// (the app ignores keys then: one definition for both).
use crate::app::{MIN_HEIGHT, MIN_WIDTH};

/// What the views draw from: the app's model, and the theme, which
/// belongs to the UI (the app knows nothing of styles). Reads as the model.
/// The panes note here where they drew what a click can land on.
pub struct View<'a> {
    pub model: &'a Model,
    pub theme: &'a Theme,
    hits: std::cell::RefCell<Hits>,
}

impl View<'_> {
    /// A click in `rect` lands on `target` (drawn later: over what was
    /// noted before).
    fn hit(&self, rect: Rect, target: Target) {
        if rect.width > 0 && rect.height > 0 {
            self.hits.borrow_mut().spots.push((rect, target));
        }
    }
}

/// What the last frame drew where a click can land: the rows of the list,
/// the inbox and the detail tab's table, the tab titles. The runtime keeps
/// the last frame's and maps a click through it ([`Hits::at`]); the app
/// never sees geometry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hits {
    spots: Vec<(Rect, Target)>,
}

impl Hits {
    /// What a click at (`column`, `row`) lands on, if anything.
    pub fn at(&self, column: u16, row: u16) -> Option<Target> {
        let at = ratatui::layout::Position::new(column, row);
        self.spots
            .iter()
            .rev()
            .find(|(r, _)| r.contains(at))
            .map(|&(_, t)| t)
    }

    /// Every spot noted, in drawing order.
    pub fn spots(&self) -> &[(Rect, Target)] {
        &self.spots
    }

    fn forget(&mut self, gone: impl Fn(&Target) -> bool) {
        self.spots.retain(|(_, t)| !gone(t));
    }
}

impl std::ops::Deref for View<'_> {
    type Target = Model;
    fn deref(&self) -> &Model {
        self.model
    }
}

/// Draw `model` in `theme`.
pub fn render(model: &Model, theme: &Theme, f: &mut Frame) {
    render_hits(model, theme, f);
}

/// Draw `model` in `theme`; return where a click lands ([`Hits`]).
pub fn render_hits(model: &Model, theme: &Theme, f: &mut Frame) -> Hits {
    let view = View {
        model,
        theme,
        hits: std::cell::RefCell::default(),
    };
    draw(&view, f);
    view.hits.into_inner()
}

fn draw(m: &View, f: &mut Frame) {
    let area = f.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        // With the decision form open, q does not quit (its text would be
        // lost): say what a larger terminal brings back instead.
        let how = if m.mode == Mode::Decide {
            crate::t!("ui.small.kept").to_owned()
        } else {
            // The quit keys in force (`[keys]`), if any.
            match crate::app::keys_here(m, crate::app::Command::Quit) {
                // Unbound: Ctrl-C, which cannot be, still quits.
                key if key.is_empty() => crate::t!("ui.small.ctrl_c").to_owned(),
                key => crate::t!("ui.small.quits", key = key),
            }
        };
        let msg = crate::t!(
            "ui.small.message",
            w = area.width,
            h = area.height,
            min_w = MIN_WIDTH,
            min_h = MIN_HEIGHT,
            how = how
        );
        f.render_widget(
            ratatui::widgets::Paragraph::new(msg).wrap(ratatui::widgets::Wrap { trim: true }),
            area,
        );
        return;
    }
    let [header, body, hints] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(f.area());
    f.render_widget(header_line(m, header.width), header);
    match m.screen {
        Screen::Projects => projects_screen(m, f, body),
        Screen::Inbox => inbox::render(m, f, body),
    }
    f.render_widget(hint_line(m, hints.width), hints);
    match m.mode {
        Mode::Help if m.help_page == crate::app::HelpPage::Audit => overlay::audit(m, f, body),
        Mode::Help if m.help_page == crate::app::HelpPage::Hosts => overlay::hosts(m, f, body),
        Mode::Help => overlay::help(m, f, body),
        Mode::Palette => overlay::palette(m, f, body),
        Mode::Decide => decide::render(m, f, body),
        Mode::Normal | Mode::Filter => {}
    }
    // Under the help, the palette or a dialog nothing is clickable.
    if matches!(m.mode, Mode::Help | Mode::Palette | Mode::Decide) {
        m.hits.borrow_mut().forget(|_| true);
    }
}

/// The list's columns besides the name (status, age, format, ask: see
/// `list::columns`), the gaps between the five columns and its border.
fn list_chrome(m: &View) -> usize {
    list::columns(m).iter().map(|&w| w as usize).sum::<usize>() + 4 + 2
}

/// How wide the project list would be with every name whole (and its
/// problem mark), as drawn.
fn list_width(m: &View) -> u16 {
    let longest = m
        .projects
        .iter()
        .map(|p| {
            // The problem mark `!` and the changed mark `• `, as drawn.
            let mark = if p.problems.is_empty() { 0 } else { 2 }
                + if m.seen.changed(p) || m.is_cached(p) {
                    2
                } else {
                    0
                };
            crate::model::text::width(&widgets::clean(&p.label())) + mark
        })
        .max()
        .unwrap_or(0);
    u16::try_from(list_chrome(m) + longest).unwrap_or(u16::MAX)
}

fn projects_screen(m: &View, f: &mut Frame, area: Rect) {
    if area.width >= SPLIT_WIDTH {
        // The list takes 30% (34 to 60 columns), more when names need it,
        // up to 45%; the detail gets the rest.
        let least = (area.width * 3 / 10).clamp(34, 60);
        let most = (area.width * 45 / 100).max(least);
        let list_w = list_width(m).clamp(least, most);
        let [left, right] =
            Layout::horizontal([Constraint::Length(list_w), Constraint::Min(1)]).areas(area);
        list::render(m, f, left);
        detail::render(m, f, right, true);
    } else {
        match m.focus {
            Focus::List => list::render(m, f, area),
            Focus::Detail => detail::render(m, f, area, false),
        }
    }
}

/// The header: counts and badges first, so a long root never pushes the
/// waiting count or READ-ONLY off the line; the roots get what is left.
/// The other hosts in the header: how many are live, and the first one
/// that is not, with its state (`H` shows them all).
fn hosts_span(m: &View) -> Option<Span<'static>> {
    use crate::app::hosts::HostState;
    if m.hosts.is_empty() {
        return None;
    }
    let t = &m.theme;
    let live = m.hosts.iter().filter(|h| h.state.is_live()).count();
    let n = m.hosts.len();
    let Some(first) = m.hosts.iter().find(|h| !h.state.is_live()) else {
        // All live: one whose roots cannot all be read there is named.
        if let Some(h) = m.hosts.iter().find(|h| !h.problems.is_empty()) {
            return Some(Span::styled(
                format!(
                    "  ⇄ {} · ✗ {}",
                    crate::t!("ui.header.hosts_live", n = n),
                    crate::t!("ui.header.host_problems", host = sanitize_line(&h.name))
                ),
                t.error,
            ));
        }
        return Some(Span::styled(
            format!("  ⇄ {}", crate::t!("ui.header.hosts_live", n = n)),
            t.ok,
        ));
    };
    let name = sanitize_line(&first.name).into_owned();
    let (what, style) = match &first.state {
        HostState::Connecting { .. } => {
            (crate::t!("ui.header.host_connecting", host = name), t.muted)
        }
        HostState::Stale { last_line, .. } => (
            crate::t!(
                "ui.header.host_stale",
                host = name,
                age = widgets::age(m, *last_line)
            ),
            t.warn,
        ),
        HostState::Failed { .. } => (crate::t!("ui.header.host_failed", host = name), t.error),
        HostState::Refused { .. } => (crate::t!("ui.header.host_refused", host = name), t.error),
        HostState::Live { .. } => (String::new(), t.ok),
    };
    Some(Span::styled(
        format!(
            "  ⇄ {} · {what}",
            crate::t!("ui.header.hosts_some", live = live, n = n)
        ),
        style,
    ))
}

fn header_line(m: &View, width: u16) -> Line<'static> {
    let t = &m.theme;
    let mut right = vec![
        Span::styled(" loopdeck ", t.selection.patch(t.bold)),
        Span::raw(" "),
        Span::raw(if m.loading && m.cached.is_empty() {
            crate::t!("ui.header.reading").to_owned()
        } else {
            crate::t!("ui.header.projects", n = m.projects.len())
        }),
    ];
    // Shown from the last run's snapshot until this run's reading comes.
    if !m.cached.is_empty() {
        right.push(Span::styled(
            format!(" · {}", crate::t!("ui.header.refreshing")),
            t.muted,
        ));
    }
    let waiting = m.waiting_total();
    if waiting > 0 {
        right.push(Span::styled(
            format!("  ◆ {}", crate::t!("ui.header.waiting", n = waiting)),
            t.warn,
        ));
        // Arrived since the user last looked (marked • in the inbox).
        let new = m.new_total();
        if new > 0 {
            right.push(Span::styled(
                format!(" · {}", crate::t!("ui.header.new", n = new)),
                t.warn.patch(t.bold),
            ));
        }
        // Raised by an `[[escalate]]` rule (marked ! in the inbox).
        let escalated = crate::app::escalate::escalated_total(m);
        if escalated > 0 {
            right.push(Span::styled(
                format!(" · {}", crate::t!("ui.header.escalated", n = escalated)),
                t.escalated(None),
            ));
        }
    }
    right.push(match &m.live {
        Liveness::Starting => {
            Span::styled(format!("  ◌ {}", crate::t!("ui.header.watching")), t.muted)
        }
        Liveness::Live { .. } => Span::styled(format!("  ● {}", crate::t!("ui.header.live")), t.ok),
        Liveness::Polling { every_secs, .. } => Span::styled(
            format!("  ○ {}", crate::t!("ui.header.polling", secs = every_secs)),
            t.warn,
        ),
    });
    // Why it polls matters more than the roots: it gets the room first.
    let polling = right.len() - 1;
    if let Some(hosts) = hosts_span(m) {
        right.push(hosts);
    }
    if m.readonly {
        right.push(Span::styled(
            format!("  {}", crate::t!("ui.header.readonly")),
            t.error.patch(t.bold),
        ));
    }
    // The `[notify] command` fails: said here until it runs well again.
    if let Some(why) = &m.hook_failure {
        right.push(Span::styled(
            format!(
                "  {}",
                crate::t!("ui.header.hook_failed", why = sanitize_line(why))
            ),
            t.error,
        ));
    }
    if let Some(first) = m.root_problems.first() {
        let root = sanitize_line(first);
        let text = match m.root_problems.len() {
            1 => crate::t!("ui.header.cannot_read", root = root),
            n => crate::t!("ui.header.cannot_read_more", root = root, more = n - 1),
        };
        right.push(Span::styled(format!("  ✗ {text}"), t.error));
    }
    let used: usize = right.iter().map(|s| s.width()).sum();
    let mut room = (width as usize).saturating_sub(used + 2);
    if let Liveness::Polling { every_secs, reason } = &m.live
        && room > 8
    {
        let why = truncate(&sanitize_line(reason), room - 2).into_owned();
        room = room.saturating_sub(unicode_width::UnicodeWidthStr::width(why.as_str()) + 2);
        right[polling] = Span::styled(
            format!(
                "  ○ {}",
                crate::t!("ui.header.polling_why", secs = every_secs, why = why)
            ),
            t.warn,
        );
    }
    if room > 4 {
        let roots: Vec<String> = m
            .roots
            .iter()
            .map(|r| sanitize_line(r).into_owned())
            .collect();
        right.push(Span::styled(
            format!("  {}", truncate(&roots.join(" "), room)),
            t.muted,
        ));
    }
    Line::from(right)
}

/// The keys that matter here (from the keymap), as many as fit, most
/// important first; a failure, a re-reading or a gone project first of all.
fn hint_line(m: &View, width: u16) -> Line<'static> {
    let t = &m.theme;
    if m.mode == Mode::Filter {
        return Line::from(vec![
            Span::styled("/", t.accent),
            Span::raw(format!("{}█", m.focused_filter())),
            Span::styled(format!("   {}", crate::t!("ui.hints.filter")), t.muted),
        ]);
    }
    if m.mode == Mode::Palette {
        // Typing: the palette's own keys, not the keymap's.
        return Line::from(Span::styled(
            format!(" {}", crate::t!("ui.hints.palette")),
            t.muted,
        ));
    }
    let mut spans = Vec::new();
    let mut used = 0usize;
    let notice = if let Some(why) = &m.failure {
        Some((
            format!(
                " ✗ {} ",
                crate::t!("ui.hints.failed", why = sanitize_line(why))
            ),
            t.error,
        ))
    } else {
        m.selected_project().and_then(|p| match m.freshness(p) {
            crate::app::Freshness::Current => None,
            crate::app::Freshness::Refreshing => {
                Some((format!(" ◌ {} ", crate::t!("ui.hints.refreshing")), t.muted))
            }
            crate::app::Freshness::Rereading => {
                Some((format!(" ⟳ {} ", crate::t!("ui.hints.rereading")), t.warn))
            }
            crate::app::Freshness::Gone => {
                Some((format!(" ✗ {} ", crate::t!("ui.hints.gone")), t.error))
            }
        })
    };
    if let Some((text, style)) = notice {
        let text = truncate(&text, width as usize).into_owned();
        used += unicode_width::UnicodeWidthStr::width(text.as_str());
        spans.push(Span::styled(text, style.patch(t.bold)));
    }
    if let Some(status) = &m.status {
        let text = truncate(&format!(" {} ", sanitize_line(status)), width as usize).into_owned();
        used += unicode_width::UnicodeWidthStr::width(text.as_str());
        spans.push(Span::styled(text, t.accent.patch(t.bold)));
    }
    if m.mode == Mode::Decide
        && let Some(form) = &m.form
    {
        // The form's own keys, here only (the dialog keeps its rows).
        let keys = format!(" {}", decide::keys(form));
        let room = (width as usize).saturating_sub(used);
        spans.push(Span::styled(truncate(&keys, room).into_owned(), t.muted));
        return Line::from(spans);
    }
    let hints = crate::app::hints(m);
    // Read-only: the decision keys greyed and crossed out, and the reason
    // said once (not when the status line says it already).
    let said = m.status.is_some() && m.status.as_deref() == crate::app::decide::readonly_reason(m);
    if hints.iter().any(|h| h.off) && !said {
        let text = format!(" {} ", crate::t!("ui.hints.readonly"));
        let w = unicode_width::UnicodeWidthStr::width(text.as_str());
        if used + w <= width as usize {
            used += w;
            spans.push(Span::styled(text, t.warn.patch(t.bold)));
        }
    }
    // `?` is kept however narrow: room for it is set aside, and it comes
    // last, after as many of the others as fit.
    let (kept, rest): (Vec<_>, Vec<_>) = hints.into_iter().partition(|h| h.keep);
    let kept_w: usize = kept
        .iter()
        .map(|h| unicode_width::UnicodeWidthStr::width(h.text.as_str()) + 3)
        .sum();
    let mut first = true;
    let mut full = false;
    for h in rest.into_iter().chain(kept) {
        let add = if first {
            format!(" {}", h.text)
        } else {
            format!(" · {}", h.text)
        };
        let w = unicode_width::UnicodeWidthStr::width(add.as_str());
        let room = if h.keep {
            width as usize
        } else {
            (width as usize).saturating_sub(kept_w)
        };
        if full && !h.keep || used + w > room {
            full = true;
            continue;
        }
        used += w;
        first = false;
        if h.off {
            // The separator plain, the key crossed out.
            let (sep, key) = add.split_at(add.len() - h.text.len());
            spans.push(Span::styled(sep.to_owned(), t.muted));
            spans.push(Span::styled(
                key.to_owned(),
                t.muted.add_modifier(ratatui::style::Modifier::CROSSED_OUT),
            ));
        } else {
            spans.push(Span::styled(add, t.muted));
        }
    }
    Line::from(spans)
}
