//! Carrying out commands and the keys of the typing modes: what a key (or
//! the palette) does to the model, and which effects it asks for.

use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{
    Command, Drawer, Effect, Focus, Mode, Model, OLDER_STEP, OLDER_TO_TOP, Palette, Screen, Tab,
    Target, panes,
};
use crate::model::Event as TimelineEvent;

/// Older Timeline events arrived: put them in front of the project's.
pub(super) fn older(
    m: &mut Model,
    path: PathBuf,
    anchor: &TimelineEvent,
    events: Vec<TimelineEvent>,
    at_start: bool,
) -> Vec<Effect> {
    let back = m.timeline_back.entry(path.clone()).or_default();
    back.pending = false;
    back.at_start = at_start;
    let to_top = std::mem::take(&mut m.timeline_to_top);
    let Some(pi) = m
        .projects
        .iter()
        .position(|p| p.path == path && p.format.shape().older_events)
    else {
        return Vec::new();
    };
    // Only when the timeline still starts where the read began.
    if m.projects[pi].detail.timeline.first() != Some(anchor) {
        m.timeline_back.remove(&path);
        return vec![Effect::Render];
    }
    let (saved, _) = m.remember();
    let got = events.len();
    let timeline = &mut m.projects[pi].detail.timeline;
    let mut all = events;
    all.append(timeline);
    *timeline = all;
    let on_it = m
        .selected
        .as_ref()
        .is_some_and(|(h, p, f)| h.is_none() && p == &path && f.shape().older_events);
    if on_it {
        m.restore(
            saved
                .into_iter()
                .filter(|(t, _)| *t == Tab::Timeline)
                .collect(),
            None,
        );
        if to_top {
            m.pane_mut(Tab::Timeline).selected = 0;
        }
    }
    // `g` reads on until the file's first line, in one press (it took a
    // press per 5,000 events), while the project is still the one shown.
    if to_top && on_it && !at_start && got > 0 {
        let held = m.projects[pi].detail.timeline.len();
        if held >= super::TIMELINE_HOLD {
            m.status = Some(crate::t!("app.status.timeline_held", n = held));
            return vec![Effect::Render];
        }
        if let Some(anchor) = m.projects[pi].detail.timeline.first().cloned() {
            let back = m.timeline_back.entry(path.clone()).or_default();
            back.pending = true;
            m.timeline_to_top = true;
            return vec![
                Effect::ReadOlder {
                    path,
                    anchor,
                    want: OLDER_TO_TOP,
                },
                Effect::Render,
            ];
        }
    }
    vec![Effect::Render]
}

/// Carry out a command (from a key or the palette).
pub fn run(m: &mut Model, cmd: Command) -> Vec<Effect> {
    let render = vec![Effect::Render];
    // A decision (or an edit) on a row shown from the last run's snapshot
    // is refused, and said: its files may have changed since.
    if matches!(
        cmd,
        Command::Decide | Command::Pick(_) | Command::YesNo(_) | Command::Edit
    ) && let Some(why) = super::decide::still_reading(m)
    {
        m.status = Some(why);
        return render;
    }
    match cmd {
        Command::Quit => return vec![Effect::Quit],
        Command::Redraw => return vec![Effect::FullRedraw],
        Command::Reload => {
            // Read everything afresh: the section diffs too.
            for p in &mut m.projects {
                for r in &mut p.detail.revisions {
                    r.sections = None;
                }
            }
            m.comparing = None;
            return vec![Effect::Reload];
        }
        Command::Up
        | Command::Down
        | Command::Top
        | Command::Bottom
        | Command::PageUp
        | Command::PageDown => {
            return move_selection(m, cmd);
        }
        Command::NextTab | Command::PrevTab | Command::TabNumber(_) => {
            if m.screen == Screen::Inbox {
                return Vec::new();
            }
            let tabs = m.tabs();
            let at = tabs.iter().position(|t| *t == m.tab).unwrap_or(0);
            let next = match cmd {
                Command::NextTab => (at + 1) % tabs.len(),
                Command::PrevTab => (at + tabs.len() - 1) % tabs.len(),
                Command::TabNumber(n) if n < tabs.len() => n,
                _ => return Vec::new(),
            };
            m.enter_tab(tabs[next]);
            if m.focus == Focus::List && m.selected.is_some() {
                m.focus = Focus::Detail;
            }
        }
        Command::GoTab(tab) => {
            if !m.tabs().contains(&tab) {
                return Vec::new();
            }
            m.enter_tab(tab);
            m.screen = Screen::Projects;
            m.focus = Focus::Detail;
        }
        Command::Open => open(m),
        Command::Back => back(m),
        Command::Decide => return super::decide::open(m, None),
        Command::Pick(n) => return super::decide::pick_key(m, n),
        Command::YesNo(yes) => match super::decide::yes_no(m, yes) {
            Some(i) => return super::decide::open(m, Some(i)),
            None => return Vec::new(),
        },
        Command::Undo => return super::decide::undo(m),
        Command::NextChanged => next_changed(m),
        Command::Copy => return super::copy::copy(m),
        Command::Page => return super::copy::open(m, false),
        Command::Edit => return super::copy::open(m, true),
        // A new filter replaces the old one (which the title showed).
        Command::Filter => {
            m.focused_pane().filter.clear();
            m.mode = Mode::Filter;
            return filter_changed(m, Vec::new());
        }
        Command::Palette => {
            m.mode = Mode::Palette;
            m.palette = Palette::default();
        }
        Command::Help => {
            m.mode = Mode::Help;
            m.help_page = super::HelpPage::Keys;
            m.help_scroll = 0;
        }
        // Over the help's frame: read afresh each time it opens.
        Command::Audit => {
            m.mode = Mode::Help;
            m.help_page = super::HelpPage::Audit;
            m.help_scroll = 0;
            m.audit = None;
            return vec![Effect::ReadAudit, Effect::Render];
        }
        Command::Hosts => {
            m.mode = Mode::Help;
            m.help_page = super::HelpPage::Hosts;
            m.help_scroll = 0;
        }
        Command::CloseHelp => m.mode = Mode::Normal,
        Command::Inbox => {
            m.screen = Screen::Inbox;
            m.drawer = None;
            m.from_inbox = None;
        }
        Command::Projects => {
            m.screen = Screen::Projects;
            m.focus = Focus::List;
            m.drawer = None;
            m.from_inbox = None;
        }
        Command::CycleBugStatus | Command::CycleBugSeverity => {
            let Some(p) = m.selected_project() else {
                return Vec::new();
            };
            let mut values: Vec<String> = p
                .detail
                .bugs
                .iter()
                .map(|b| {
                    if cmd == Command::CycleBugStatus {
                        b.status.clone()
                    } else {
                        b.severity.clone()
                    }
                })
                .collect();
            // Severities from the worst down; statuses alphabetically.
            let rank = |v: &String| match v.as_str() {
                "critical" => 0,
                "high" => 1,
                "medium" => 2,
                "low" => 3,
                _ => 4,
            };
            if cmd == Command::CycleBugSeverity {
                values.sort_by(|a, b| rank(a).cmp(&rank(b)).then_with(|| a.cmp(b)));
            } else {
                values.sort();
            }
            values.dedup();
            let slot = if cmd == Command::CycleBugStatus {
                &mut m.bug_filter.status
            } else {
                &mut m.bug_filter.severity
            };
            *slot = match slot
                .as_ref()
                .and_then(|cur| values.iter().position(|v| v == cur))
            {
                None if slot.is_none() => values.first().cloned(),
                Some(i) => values.get(i + 1).cloned(),
                None => None,
            };
            m.pane_mut(Tab::Bugs).selected = 0;
            m.drawer = None;
        }
        Command::FollowTimeline => m.follow(),
        Command::CycleSort | Command::SortBy(_) => {
            let sort = match cmd {
                Command::SortBy(sort) => sort,
                _ => m.sort.next(),
            };
            if sort == m.sort {
                return Vec::new();
            }
            // The selection stays on the same project, wherever it moved.
            m.sort = sort;
            m.resync_list();
        }
        Command::CycleGroup | Command::GroupBy(_) => {
            let group = match cmd {
                Command::GroupBy(group) => group,
                _ => m.group.next(!m.hosts.is_empty()),
            };
            if group == m.group {
                return Vec::new();
            }
            // The selection stays on the same project, in its group.
            m.group = group;
            m.resync_list();
        }
    }
    render
}

/// A left click on `target`: a row not selected in the focused pane is
/// selected and its pane takes the focus; the selected row of the focused
/// pane opens, as Enter does; a tab title shows its tab. A target that no
/// longer matches what is shown (the model moved since the frame) does
/// nothing.
pub(super) fn click(m: &mut Model, target: Target) -> Vec<Effect> {
    match target {
        Target::ListRow(_, key) => {
            // The project drawn there, where it is now (a reading may have
            // moved it since the frame); gone, the click does nothing.
            let rows = panes::projects(m);
            let at = rows
                .iter()
                .position(|&i| panes::project_key(&m.projects[i]) == key);
            let Some(row) = at.filter(|_| m.screen == Screen::Projects) else {
                return Vec::new();
            };
            if m.focus == Focus::List && m.list.selected == row {
                return run(m, Command::Open);
            }
            // Back to the list by hand, as Esc from the detail.
            m.focus = Focus::List;
            m.drawer = None;
            m.from_inbox = None;
            m.select_row(row);
        }
        Target::Tab(tab) => {
            if m.screen != Screen::Projects || m.selected.is_none() {
                return Vec::new();
            }
            return run(m, Command::GoTab(tab));
        }
        Target::TableRow(tab, row) => {
            // With a drawer open the keys scroll it; the rows wait.
            if m.screen != Screen::Projects
                || tab != m.tab
                || tab == Tab::Overview
                || m.drawer.is_some()
            {
                return Vec::new();
            }
            let Some(p) = m.selected_project() else {
                return Vec::new();
            };
            let len = panes::detail_len(m, p);
            if row >= len {
                return Vec::new();
            }
            if m.focus == Focus::Detail && m.pane(tab).selected == row {
                return run(m, Command::Open);
            }
            m.focus = Focus::Detail;
            m.pane_mut(tab).selected = row;
            if tab == Tab::Timeline {
                m.follow_timeline = row + 1 == len;
            }
        }
        Target::InboxRow(row) => {
            if m.screen != Screen::Inbox || row >= panes::inbox(m).len() {
                return Vec::new();
            }
            if m.inbox.selected == row {
                return run(m, Command::Open);
            }
            m.inbox.selected = row;
        }
    }
    vec![Effect::Render]
}

/// Scroll a text view (help, a drawer) by `cmd`; the view clamps the
/// offset to its length. Renders only when the offset moved.
fn scroll(offset: &mut u16, cmd: Command, page: usize) -> Vec<Effect> {
    let page = page.max(1) as u16;
    let before = *offset;
    *offset = match cmd {
        Command::Up => before.saturating_sub(1),
        Command::Down => before.saturating_add(1),
        Command::Top => 0,
        Command::Bottom => u16::MAX / 2,
        Command::PageUp => before.saturating_sub(page),
        Command::PageDown => before.saturating_add(page),
        _ => before,
    };
    if *offset == before {
        Vec::new()
    } else {
        vec![Effect::Render]
    }
}

fn move_selection(m: &mut Model, cmd: Command) -> Vec<Effect> {
    // The help scrolls (the view clamps to its length).
    if m.mode == Mode::Help {
        return scroll(&mut m.help_scroll, cmd, m.page);
    }
    // An open drawer takes the movement keys: it scrolls (the UI clamps).
    if m.drawer.is_some() && m.screen == Screen::Projects {
        return scroll(&mut m.drawer_scroll, cmd, m.page);
    }
    let len = m.focused_len();
    let timeline =
        m.screen == Screen::Projects && m.focus == Focus::Detail && m.tab == Tab::Timeline;
    // Up past the Timeline's first event reads further back.
    let past_top = timeline
        && matches!(cmd, Command::Up | Command::PageUp | Command::Top)
        && (len == 0 || m.pane(Tab::Timeline).selected == 0 || cmd == Command::Top);
    let mut effects: Vec<Effect> = past_top
        .then(|| read_back(m, cmd == Command::Top))
        .flatten()
        .into_iter()
        .collect();
    if len == 0 {
        return effects;
    }
    let last = len - 1;
    let page = m.page.max(1);
    let on_list = m.screen == Screen::Projects && m.focus == Focus::List;
    let current = if on_list {
        m.list.selected
    } else {
        m.focused_pane().selected
    };
    let next = match cmd {
        Command::Up => current.saturating_sub(1),
        Command::Down => (current + 1).min(last),
        Command::Top => 0,
        Command::Bottom => last,
        Command::PageUp => current.saturating_sub(page),
        Command::PageDown => (current + page).min(last),
        _ => current,
    };
    if timeline {
        m.follow_timeline = next == last;
    }
    if next == current {
        return effects;
    }
    if on_list {
        m.select_row(next);
    } else {
        m.focused_pane().selected = next;
    }
    effects.push(Effect::Render);
    effects
}

/// Ask for the Timeline events before the first one held, unless the
/// file's first line is already on screen or a read is under way.
fn read_back(m: &mut Model, to_top: bool) -> Option<Effect> {
    let p = m.selected_project()?;
    // Another host's files are read there: its feed holds the tail.
    if !p.format.shape().older_events || p.host.is_some() {
        return None;
    }
    let anchor = p.detail.timeline.first()?.clone();
    let path = p.path.clone();
    let back = m.timeline_back.entry(path.clone()).or_default();
    if back.at_start || back.pending {
        return None;
    }
    back.pending = true;
    m.timeline_to_top = to_top;
    Some(Effect::ReadOlder {
        path,
        anchor,
        want: if to_top { OLDER_TO_TOP } else { OLDER_STEP },
    })
}

/// `n`: select the next project (after the selected one, round the list)
/// changed since the user looked. In the detail, it opens on its Overview.
fn next_changed(m: &mut Model) {
    let rows = panes::projects(m);
    let len = rows.len();
    let at = m.list.selected.min(len.saturating_sub(1));
    let next = (1..=len)
        .map(|j| (at + j) % len)
        .find(|&r| m.seen.changed(&m.projects[rows[r]]));
    match next {
        Some(r) => m.select_row(r),
        None => m.status = Some(crate::t!("app.status.nothing_changed").to_owned()),
    }
}

/// Enter: open what is selected.
fn open(m: &mut Model) {
    match (m.screen, m.focus) {
        (Screen::Inbox, _) => {
            let rows = panes::inbox(m);
            let Some(&(pi, ii)) = rows.get(m.inbox.selected) else {
                return;
            };
            let (place, reference, subject) = {
                let p = &m.projects[pi];
                let item = &p.inbox[ii];
                (
                    p.place_of(item),
                    item.reference.clone(),
                    item.subject.clone(),
                )
            };
            let came_from = panes::inbox_key(m, (pi, ii));
            m.screen = Screen::Projects;
            m.list.filter.clear();
            if let Some(row) = panes::projects(m).iter().position(|&i| i == pi) {
                m.select_row(row);
            }
            m.from_inbox = Some(came_from);
            m.focus = Focus::Detail;
            // The part its format shows it in, else the Overview.
            let tab = place.part.map_or(Tab::Overview, Tab::of);
            let tab = if m.tabs().contains(&tab) {
                tab
            } else {
                Tab::Overview
            };
            // Open the tab afresh, on the item itself.
            m.panes.remove(&tab);
            m.enter_tab(tab);
            if let Some(p) = m.selected_project() {
                let row = panes::keys(m, p, tab)
                    .iter()
                    .position(|k| *k == reference || subject.as_deref() == Some(k.as_str()));
                if let Some(row) = row {
                    m.pane_mut(tab).selected = row;
                }
            }
        }
        (Screen::Projects, Focus::List) => {
            if m.selected.is_some() {
                m.focus = Focus::Detail;
            }
        }
        (Screen::Projects, Focus::Detail) => {
            let Some(p) = m.selected_project() else {
                return;
            };
            let filter = m.pane(m.tab).filter.clone();
            let sel = m.pane(m.tab).selected;
            let drawer = match m.tab {
                Tab::Units => panes::units(p, &filter)
                    .get(sel)
                    .map(|&i| Drawer::Unit(p.detail.units[i].id.to_string())),
                Tab::Bugs => panes::bugs(m, p)
                    .get(sel)
                    .map(|&i| Drawer::Bug(p.detail.bugs[i].id.clone())),
                Tab::Revisions => panes::revisions(p, &filter)
                    .get(sel)
                    .map(|&i| Drawer::Revision(panes::revision_key(&p.detail.revisions[i]))),
                _ => None,
            };
            m.drawer = drawer;
            m.drawer_scroll = 0;
        }
    }
}

/// Esc: close the innermost thing open; a filter is the innermost thing
/// of its pane.
fn back(m: &mut Model) {
    if m.drawer.is_some() {
        m.drawer = None;
    } else if !m.focused_filter().is_empty() {
        let (saved, _) = m.remember();
        m.focused_pane().filter.clear();
        filter_changed(m, saved);
    } else if m.screen == Screen::Inbox {
        m.screen = Screen::Projects;
    } else if m.focus == Focus::Detail {
        match m.from_inbox.take() {
            // Back to the inbox, on the item after the one opened.
            Some(key) => {
                m.screen = Screen::Inbox;
                let rows = panes::inbox(m);
                if let Some(at) = rows.iter().position(|&r| panes::inbox_key(m, r) == key) {
                    m.inbox.selected = (at + 1).min(rows.len().saturating_sub(1));
                }
            }
            None => m.focus = Focus::List,
        }
    }
}

pub(super) fn filter_key(m: &mut Model, key: KeyEvent) -> Vec<Effect> {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let (saved, _) = m.remember();
    match key.code {
        KeyCode::Enter => m.mode = Mode::Normal,
        KeyCode::Esc => {
            m.mode = Mode::Normal;
            m.focused_pane().filter.clear();
        }
        KeyCode::Backspace => {
            m.focused_pane().filter.pop();
        }
        KeyCode::Char('u') if ctrl => m.focused_pane().filter.clear(),
        KeyCode::Char(c) if !ctrl => m.focused_pane().filter.push(c),
        _ => return Vec::new(),
    }
    filter_changed(m, saved)
}

/// After the focused filter changed: bound the selection, staying on the
/// same item when it still passes the filter.
fn filter_changed(m: &mut Model, saved: Vec<(Tab, String)>) -> Vec<Effect> {
    let detail = m.screen == Screen::Projects && m.focus == Focus::Detail;
    m.focused_pane().selected = 0;
    if m.screen == Screen::Projects && m.focus == Focus::List {
        m.resync_list();
    } else if detail {
        // A following timeline stays at its end.
        let tab = m.tab;
        m.restore(saved.into_iter().filter(|(t, _)| *t == tab).collect(), None);
        if tab == Tab::Timeline && m.follow_timeline {
            m.follow();
        }
    }
    vec![Effect::Render]
}

pub(super) fn palette_key(m: &mut Model, key: KeyEvent) -> Vec<Effect> {
    let matches = super::palette::entries(m, &m.palette.input);
    match key.code {
        KeyCode::Esc => m.mode = Mode::Normal,
        KeyCode::Enter => {
            m.mode = Mode::Normal;
            match matches.get(m.palette.selected).map(|e| &e.go) {
                Some(super::palette::Go::Command(cmd)) => return run(m, *cmd),
                Some(super::palette::Go::Project(id)) => {
                    super::palette::go_to_project(m, id);
                }
                Some(super::palette::Go::Theme(name)) => {
                    return super::palette::switch_theme(m, name);
                }
                None => {}
            }
        }
        KeyCode::Up => m.palette.selected = m.palette.selected.saturating_sub(1),
        KeyCode::Down => {
            m.palette.selected = (m.palette.selected + 1).min(matches.len().saturating_sub(1))
        }
        KeyCode::Backspace => {
            m.palette.input.pop();
            m.palette.selected = 0;
        }
        KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
            m.palette.input.push(c);
            m.palette.selected = 0;
        }
        _ => return Vec::new(),
    }
    vec![Effect::Render]
}
