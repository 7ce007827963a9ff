//! The project list, newest update first unless sorted otherwise, and
//! grouped by format or root when asked (the title says how); status
//! symbol and colour, age, format badge, waiting-for-human count, name.
//! A group's header row spans the list and is never selected.

use super::View;
use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Row, Table, TableState};

use super::widgets::{age, block, clean, column_widths, fitted_row, inner};
use crate::app::Focus;
use crate::app::panes::{self, ListRow};
use crate::model::Format;

fn badge(f: Format) -> &'static str {
    f.shape().badge
}

/// The widths of the columns before the name (status, age, format, ask):
/// each at least as wide as its English words were (1, 6, 3, 4), and wide
/// enough for its header and every age in the language spoken (`3分钟`).
pub(super) fn columns(m: &View) -> [u16; 4] {
    use crate::model::text::width;
    let oldest = m.projects.iter().filter_map(|p| p.updated_at).min();
    let ages = super::widgets::widest_age(m, oldest);
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

pub(super) fn render(m: &View, f: &mut Frame, area: Rect) {
    let t = &m.theme;
    let rows = panes::list_rows(m);
    let shown = rows
        .iter()
        .filter(|r| matches!(r, ListRow::Project(_)))
        .count();
    let height = area.height.saturating_sub(3) as usize;
    // The selection is a project (`list.selected` counts projects only):
    // its row as drawn counts the headers before it.
    let at = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| matches!(r, ListRow::Project(_)))
        .nth(m.list.selected)
        .map_or(0, |(at, _)| at);
    let mut first = m.list.first.window(at, height.max(1), rows.len());
    // The first project of a group brings its header into view.
    if first == at
        && height > 1
        && at
            .checked_sub(1)
            .is_some_and(|h| matches!(rows[h], ListRow::Header { .. }))
    {
        first = m.list.first.window(at - 1, height, rows.len());
    }
    let [status_w, age_w, format_w, ask_w] = columns(m);
    let widths = [
        Constraint::Length(status_w),
        Constraint::Length(age_w),
        Constraint::Length(format_w),
        Constraint::Length(ask_w),
        Constraint::Min(8),
    ];
    let cols = column_widths(&widths, inner(area).width);
    let room = inner(area).width as usize;
    let mut headers: Vec<(usize, String)> = Vec::new();
    let visible = rows.iter().skip(first).take(height.max(1)).enumerate();
    let visible: Vec<Row> = visible
        .map(|(k, row)| match *row {
            ListRow::Header {
                key,
                projects,
                waiting,
            } => {
                headers.push((k, header(m, key, projects, waiting, room)));
                Row::new(Vec::<Span>::new())
            }
            ListRow::Project(i) => project_row(m, i, &cols),
        })
        .collect();

    let total = m.projects.len();
    let sort = m.sort.label();
    let title = match (m.list.filter.is_empty(), m.group.label()) {
        (true, None) => crate::t!("ui.list.title", shown = shown, total = total, sort = sort),
        (false, None) => crate::t!(
            "ui.list.title_filtered",
            filter = m.list.filter,
            shown = shown,
            total = total,
            sort = sort
        ),
        (true, Some(group)) => crate::t!(
            "ui.list.title_grouped",
            shown = shown,
            total = total,
            sort = sort,
            group = group
        ),
        (false, Some(group)) => crate::t!(
            "ui.list.title_filtered_grouped",
            filter = m.list.filter,
            shown = shown,
            total = total,
            sort = sort,
            group = group
        ),
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
    let selected = (shown > 0).then(|| at.saturating_sub(first));
    let mut state = TableState::default().with_selected(selected);
    f.render_stateful_widget(table, area, &mut state);
    // Each project row drawn, under the column headings, is a click on
    // its project (counted as the selection counts: projects only); a
    // group's header is no target.
    let body = inner(area);
    let is_project = |r: &&ListRow| matches!(r, ListRow::Project(_));
    let mut ordinal = rows[..first.min(rows.len())]
        .iter()
        .filter(is_project)
        .count();
    for (k, row) in rows.iter().skip(first).take(height).enumerate() {
        let y = body.y.saturating_add(1).saturating_add(k as u16);
        if y >= body.bottom() {
            break;
        }
        if let ListRow::Project(i) = *row {
            m.hit(
                Rect::new(body.x, y, body.width, 1),
                crate::app::Target::ListRow(ordinal, panes::project_key(&m.projects[i])),
            );
            ordinal += 1;
        }
    }
    // The headers span the columns: drawn over their empty rows (below
    // the border and the column headings).
    let body = inner(area);
    for (k, text) in headers {
        let y = body.y.saturating_add(1).saturating_add(k as u16);
        if y >= body.y.saturating_add(body.height) {
            break;
        }
        let line = Rect {
            y,
            height: 1,
            ..body
        };
        // A rule after the words sets the header off from the projects.
        let rule = room.saturating_sub(crate::model::text::width(&text) + 1);
        let line_text = Line::from(vec![
            Span::styled(text, t.bold),
            Span::styled(format!(" {}", "─".repeat(rule)), t.muted),
        ]);
        f.render_widget(Paragraph::new(line_text), line);
    }
}

/// A group's header: its name (made safe, cut to leave the counts whole)
/// and counts, in `room` columns.
fn header(m: &View, key: panes::GroupKey, projects: usize, waiting: usize, room: usize) -> String {
    use crate::model::text::width;
    let name = panes::group_name(m, key);
    let name = clean(&name);
    let counts = crate::t!("ui.list.group", name = "", n = projects, waiting = waiting);
    // A root's end tells it from its neighbours (`…/acme-restock-beta`).
    let name = super::widgets::path_tail(&name, room.saturating_sub(width(&counts)));
    crate::t!(
        "ui.list.group",
        name = name,
        n = projects,
        waiting = waiting
    )
}

/// A project's row.
fn project_row<'a>(m: &View, i: usize, cols: &[u16]) -> Row<'a> {
    let t = &m.theme;
    let p = &m.projects[i];
    // Work that says it runs while its files are silent does not look
    // fresh: its own mark, and how long after the name.
    let stall = p.stall(m.now, &m.stall);
    let (sym, style) = match stall {
        Some(_) => {
            // A stall an `[[escalate]]` rule names: in the rule's colour.
            let rules = crate::app::escalate::stall_rules(m, p);
            let (sym, style) = t.stalled();
            match rules.first() {
                Some(_) => (
                    sym,
                    t.escalated(rules.iter().find_map(|r| r.colour.as_deref())),
                ),
                None => (sym, style),
            }
        }
        None => t.project_status(p),
    };
    // `!` and the rule's colour: an `[[escalate]]` rule fires on an item.
    let fired: Vec<&crate::model::escalate::Rule> = p
        .inbox
        .iter()
        .flat_map(|item| crate::model::escalate::fired(&m.rules, p, item, m.now))
        .collect();
    let (waiting, waiting_style) = match p.needs_human() {
        0 => (String::new(), t.warn),
        n if !fired.is_empty() => (
            format!("!{n}"),
            t.escalated(fired.iter().find_map(|r| r.colour.as_deref())),
        ),
        n => (format!("◆{n}"), t.warn),
    };
    // The marks survive a name cut to its column: a problem, a reading
    // held back while the file settles, a project gone from disk.
    let mut mark = String::new();
    if let Some(s) = &stall {
        mark.push_str(" · ");
        mark.push_str(&s.shown());
    }
    if !p.problems.is_empty() {
        mark.push_str(" !");
    }
    match m.freshness(p) {
        // Before the name (below): a narrow list keeps the names.
        crate::app::Freshness::Current | crate::app::Freshness::Refreshing => {}
        crate::app::Freshness::Rereading => {
            mark.push(' ');
            mark.push_str(crate::t!("ui.list.rereading"));
        }
        crate::app::Freshness::Gone => {
            mark.push(' ');
            mark.push_str(crate::t!("ui.list.gone"));
        }
    }
    // Another host's project while its feed is not live: as of its last
    // line, maybe no longer so.
    if crate::app::hosts::is_stale(m, p) {
        mark.push(' ');
        mark.push_str(crate::t!("ui.list.host_not_live"));
    }
    // Before the name: shown from the last run's snapshot, not read yet
    // (the header and the hint bar say `◌ refreshing…`); else changed
    // since you looked (a snapshot's row never is).
    let changed = if m.is_cached(p) {
        "◌ "
    } else if m.seen.changed(p) {
        "• "
    } else {
        ""
    };
    // Measured as drawn: safe first, then cut.
    let label = p.label();
    let shown = clean(&label);
    let name = if mark.is_empty() {
        format!("{changed}{shown}")
    } else {
        let room = cols
            .get(4)
            .map_or(0, |&w| w as usize)
            .saturating_sub(crate::model::text::width(&mark) + crate::model::text::width(changed));
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
            Span::styled(waiting, waiting_style),
            Span::raw(name),
        ],
        cols,
    )
}

#[cfg(test)]
mod tests {
    //! The list grouped by format and by root: headers drawn across the
    //! list, never highlighted, in English and Chinese, at 80x24 and wide.

    use crossterm::event::KeyCode;

    use super::super::tests::{assert_clean, press, screen, workspace_model};
    use crate::app::{Model, panes};
    use crate::i18n::{Lang, scoped};

    const SIZES: [(u16, u16); 2] = [(80, 24), (200, 60)];

    /// Every header the list draws, as the catalogue says it (whole: the
    /// view may cut a long name).
    fn headers(m: &Model) -> Vec<String> {
        panes::list_rows(m)
            .into_iter()
            .filter_map(|r| match r {
                panes::ListRow::Header {
                    key,
                    projects,
                    waiting,
                } => Some(crate::t!(
                    "ui.list.group",
                    name = stable(&panes::group_name(m, key)),
                    n = projects,
                    waiting = waiting
                )),
                panes::ListRow::Project(_) => None,
            })
            .collect()
    }

    /// `name` with the example workspace's random directory name as the
    /// screens have it (`ui-ws-XXXXXX`).
    fn stable(name: &str) -> String {
        match name.split_once("ui-ws-") {
            Some((before, after)) => {
                let rest: String = after.chars().skip(6).collect();
                format!("{before}ui-ws-XXXXXX{rest}")
            }
            None => name.to_owned(),
        }
    }

    /// The line of `s` holding `text`, if one does.
    fn line_of<'a>(s: &'a str, text: &str) -> Option<&'a str> {
        s.lines().find(|l| l.contains(text))
    }

    /// Grouped screens of `m` at both sizes, snapshotted as `{name}_{w}x{h}`:
    /// the title says the grouping, every header of a group is drawn
    /// whole on its own line (the wide screen shows every group).
    fn check(m: &Model, name: &str) -> Vec<String> {
        let group = m.group.label().unwrap();
        let title = crate::t!(
            "ui.list.title_grouped",
            shown = panes::projects(m).len(),
            total = m.projects.len(),
            sort = m.sort.label(),
            group = group
        );
        let all = headers(m);
        assert!(all.len() > 1, "{all:?}");
        SIZES
            .iter()
            .map(|&(w, h)| {
                let s = screen(m, w, h);
                assert_clean(&s, name);
                insta::assert_snapshot!(format!("{name}_{w}x{h}"), s);
                assert!(s.contains(&title), "{title:?} missing:\n{s}");
                assert!(line_of(&s, &all[0]).is_some(), "{:?}:\n{s}", all[0]);
                if w > 100 {
                    // Each whole, or its name's start cut (…/) before
                    // whole counts: a root keeps its end.
                    for header in &all {
                        let (name, counts) = header.split_once(" · ").unwrap();
                        let end = name.rsplit('/').next().unwrap();
                        let drawn = s.lines().any(|l| {
                            l.contains(header.as_str())
                                || (l.contains("…/") && l.contains(&format!("{end} · {counts}")))
                        });
                        assert!(drawn, "{header:?}:\n{s}");
                    }
                }
                s
            })
            .collect()
    }

    /// The example workspace's format directories as roots, given in
    /// this order (not the alphabet's).
    fn by_roots(m: &mut Model) {
        let ws = m.projects[0]
            .path
            .ancestors()
            .find(|a| a.file_name().is_some_and(|n| n == "workspace"))
            .unwrap()
            .to_path_buf();
        m.roots = ["gsd", "prd-master", "devloop", "dwp"]
            .iter()
            .map(|d| ws.join(d).to_string_lossy().into_owned())
            .collect();
    }

    #[test]
    fn grouped_by_format() {
        let (_t, mut m) = workspace_model();
        press(&mut m, KeyCode::Char('b'));
        press(&mut m, KeyCode::Home);
        let screens = check(&m, "list_by_format");
        assert!(
            screens[1].contains("PRD-master · 7 projects"),
            "{}",
            screens[1]
        );
        // The first project of the first group is selected, its header
        // above it, in view.
        let s = &screens[0];
        let lines: Vec<&str> = s.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.contains("PRD-master ·"))
            .unwrap();
        assert!(lines[at - 1].contains("PROJECT"), "{s}");
    }

    #[test]
    fn grouped_by_format_in_chinese() {
        let _zh = scoped(Lang::ZhCn);
        let (_t, mut m) = workspace_model();
        press(&mut m, KeyCode::Char('b'));
        press(&mut m, KeyCode::Home);
        let screens = check(&m, "list_by_format_zh");
        for s in &screens {
            assert!(s.contains("按格式") && !s.contains("by format"), "{s}");
            assert!(s.contains("个项目") && !s.contains(" projects"), "{s}");
        }
    }

    #[test]
    fn grouped_by_root_in_command_line_order() {
        let (_t, mut m) = workspace_model();
        by_roots(&mut m);
        press(&mut m, KeyCode::Char('b'));
        press(&mut m, KeyCode::Char('b'));
        let screens = check(&m, "list_by_root");
        // Rows of the list start at its left border; a long root keeps
        // its end.
        let s = &screens[1];
        let at = |root: &str| {
            s.find(&format!("/workspace/{root} ·"))
                .unwrap_or_else(|| panic!("{root}:\n{s}"))
        };
        assert!(
            at("gsd") < at("prd-master") && at("prd-master") < at("devloop"),
            "{s}"
        );
        assert!(at("devloop") < at("dwp"), "{s}");
    }

    #[test]
    fn grouped_by_root_in_chinese() {
        let _zh = scoped(Lang::ZhCn);
        let (_t, mut m) = workspace_model();
        by_roots(&mut m);
        press(&mut m, KeyCode::Char('b'));
        press(&mut m, KeyCode::Char('b'));
        for s in check(&m, "list_by_root_zh") {
            assert!(s.contains("按根目录") && !s.contains("by root"), "{s}");
        }
    }

    /// Moving down past the screen scrolls by projects, the headers
    /// passing by; at the top again, Home shows the first header.
    #[test]
    fn scrolling_a_grouped_list_keeps_the_selection_drawn_and_home_shows_the_header() {
        let (_t, mut m) = workspace_model();
        press(&mut m, KeyCode::Char('b'));
        let first = headers(&m)[0].clone();
        press(&mut m, KeyCode::End);
        let s = screen(&m, 80, 24);
        let last = m.selected_project().unwrap().name.clone();
        assert!(s.contains(&super::clean(&last).to_string()), "{s}");
        assert!(line_of(&s, &first).is_none(), "scrolled away:\n{s}");
        press(&mut m, KeyCode::Home);
        let s = screen(&m, 80, 24);
        assert!(line_of(&s, &first).is_some(), "{s}");
    }
}
