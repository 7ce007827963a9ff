//! Where a click lands (issue 11 §6): the hit map `render_hits` returns
//! is where the frame drew each row and tab title, found in the buffer
//! (by the text drawn and the highlight of the selected row), at 80x24
//! and wide; nothing is clickable on a border, a header, under the help
//! or a drawer.

use crossterm::event::KeyCode;
use ratatui::buffer::Buffer;
use ratatui::style::Modifier;
use ratatui::{Terminal, backend::TestBackend};

use super::{press, select, workspace_model};
use crate::app::{Tab, Target, panes};
use crate::ui::widgets::clean;
use crate::ui::*;

const SIZES: [(u16, u16); 2] = [(80, 24), (200, 60)];

fn frame(m: &Model, w: u16, h: u16) -> (Buffer, Hits) {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    let mut hits = Hits::default();
    t.draw(|f| hits = render_hits(m, &Theme::fallback(true), f))
        .unwrap();
    (t.backend().buffer().clone(), hits)
}

/// Every cell where `needle` starts to be drawn, as (column, row).
fn find(buf: &Buffer, needle: &str) -> Vec<(u16, u16)> {
    let mut out = Vec::new();
    for y in 0..buf.area.height {
        let (mut text, mut cols) = (String::new(), Vec::new());
        let mut x = 0;
        while x < buf.area.width {
            let sym = buf[(x, y)].symbol();
            cols.extend(std::iter::repeat_n(x, sym.len()));
            text.push_str(sym);
            x += (unicode_width::UnicodeWidthStr::width(sym) as u16).max(1);
        }
        out.extend(text.match_indices(needle).map(|(i, _)| (cols[i], y)));
    }
    out
}

/// The target of list row `row` (its project's key with it).
fn list_row(m: &Model, row: usize) -> Target {
    let i = panes::projects(m)[row];
    Target::ListRow(row, panes::project_key(&m.projects[i]))
}

/// The one spot of `target`.
fn spot(hits: &Hits, target: Target) -> Rect {
    let found: Vec<Rect> = hits
        .spots()
        .iter()
        .filter(|(_, t)| *t == target)
        .map(|(r, _)| *r)
        .collect();
    assert_eq!(found.len(), 1, "{target:?} in {:?}", hits.spots());
    found[0]
}

/// The word drawn from (`x`, `y`), up to a space or a cut (`…`).
fn word_at(buf: &Buffer, x: u16, y: u16) -> String {
    let mut out = String::new();
    for x in x..buf.area.right() {
        let sym = buf[(x, y)].symbol();
        if sym == "…" || sym == " " {
            break;
        }
        out.push_str(sym);
    }
    out
}

/// Drawn in the selection's style (reversed, without colour).
fn highlighted(buf: &Buffer, x: u16, y: u16) -> bool {
    buf[(x, y)].modifier.contains(Modifier::REVERSED)
}

#[test]
fn list_rows_are_clicked_where_they_are_drawn() {
    for (w, h) in SIZES {
        let (_t, mut m) = workspace_model();
        // At the end: at 80x24 the list scrolls, row 0 and 1 off screen.
        press(&mut m, KeyCode::End);
        let (buf, hits) = frame(&m, w, h);
        let rows = panes::projects(&m);
        let list: Vec<(Rect, usize)> = hits
            .spots()
            .iter()
            .filter_map(|(r, t)| match t {
                Target::ListRow(i, _) => Some((*r, *i)),
                _ => None,
            })
            .collect();
        assert!(list.len() >= 10, "{w}x{h}: {list:?}");
        if h == 24 {
            assert!(list.iter().all(|(_, i)| *i >= 1), "scrolled: {list:?}");
        }
        for (rect, row) in &list {
            let name = clean(&m.projects[rows[*row]].name).into_owned();
            let at = find(&buf, &name);
            assert!(
                at.iter().any(|&(x, y)| y == rect.y
                    && (rect.x..rect.right()).contains(&x)
                    && hits.at(x, y) == Some(list_row(&m, *row))),
                "{w}x{h}: row {row} ({name}) drawn at {at:?}, spot {rect:?}"
            );
        }
        // Row 3 where row 3 is drawn, the selected row where it is lit.
        let three = spot(&hits, list_row(&m, 3));
        let name = clean(&m.projects[rows[3]].name).into_owned();
        assert!(find(&buf, &name).iter().any(|&(_, y)| y == three.y));
        let last = spot(&hits, list_row(&m, m.list.selected));
        assert!(highlighted(&buf, last.x + 3, last.y), "{w}x{h}");
        assert!(!highlighted(&buf, three.x + 3, three.y), "{w}x{h}");
        // Border, header and hint bar: nothing.
        let first = list.iter().map(|(r, _)| r.y).min().unwrap();
        for y in [0, 1, first - 1, h - 1] {
            assert_eq!(hits.at(three.x + 2, y), None, "{w}x{h} line {y}");
        }
        assert_eq!(hits.at(three.x - 1, three.y), None, "the border");
    }
}

#[test]
fn tab_titles_are_clicked_where_they_are_drawn() {
    for (w, h) in SIZES {
        let (_t, mut m) = workspace_model();
        select(&mut m, "devloop/data/companies/acme/projects/p-restock");
        press(&mut m, KeyCode::Enter);
        let (buf, hits) = frame(&m, w, h);
        let mut seen = 0;
        for (i, tab) in m.tabs().iter().enumerate() {
            let title = format!("{} {}", i + 1, tab.title());
            let Some(&(x, y)) = find(&buf, &title).first() else {
                continue; // cut off a narrow bar
            };
            seen += 1;
            let w_title = title.len() as u16;
            for dx in 0..w_title {
                assert_eq!(hits.at(x + dx, y), Some(Target::Tab(*tab)), "{title}");
            }
            assert_eq!(spot(&hits, Target::Tab(*tab)).y, y);
        }
        assert!(seen >= 5, "{w}x{h}: {seen} titles");
    }
}

#[test]
fn table_rows_are_clicked_where_they_are_drawn() {
    for (w, h) in SIZES {
        let (_t, mut m) = workspace_model();
        select(&mut m, "devloop/data/companies/acme/projects/p-restock");
        press(&mut m, KeyCode::Enter);
        press(&mut m, KeyCode::Char('2'));
        assert_eq!(m.tab, Tab::Units);
        press(&mut m, KeyCode::Down);
        let (buf, hits) = frame(&m, w, h);
        let p = m.selected_project().unwrap();
        let units = panes::units(p, "");
        // The unit column, as its header is drawn.
        let header = crate::t!("panes.units.col_unit");
        let &(unit_x, header_y) = find(&buf, header).first().unwrap();
        let mut seen = 0;
        for (rect, t) in hits.spots() {
            let Target::TableRow(Tab::Units, i) = *t else {
                continue;
            };
            seen += 1;
            assert!(rect.y > header_y && (rect.x..rect.right()).contains(&unit_x));
            let id = p.detail.units[units[i]].id.to_string();
            let drawn = word_at(&buf, unit_x, rect.y);
            assert!(
                drawn.len() >= 5 && id.starts_with(&drawn),
                "{w}x{h}: unit {i} ({id}) is not on {rect:?}: {drawn:?}"
            );
            // Lit exactly when it is the selected row.
            assert_eq!(
                highlighted(&buf, rect.x + 1, rect.y),
                i == 1,
                "{w}x{h} row {i}"
            );
        }
        assert_eq!(seen, units.len(), "{w}x{h}");
        // An open drawer covers the rows: none is clickable, the tabs are.
        press(&mut m, KeyCode::Enter);
        assert!(m.drawer.is_some());
        let (_, hits) = frame(&m, w, h);
        assert!(
            !hits
                .spots()
                .iter()
                .any(|(_, t)| matches!(t, Target::TableRow(..))),
            "{w}x{h}"
        );
        assert!(
            hits.spots()
                .contains(&(spot(&hits, Target::Tab(Tab::Bugs)), Target::Tab(Tab::Bugs)))
        );
    }
}

#[test]
fn inbox_rows_are_clicked_where_they_are_drawn_and_nothing_under_the_help() {
    for (w, h) in SIZES {
        let (_t, mut m) = workspace_model();
        press(&mut m, KeyCode::Char('i'));
        for _ in 0..3 {
            press(&mut m, KeyCode::Down);
        }
        let (buf, hits) = frame(&m, w, h);
        let rows: Vec<(Rect, usize)> = hits
            .spots()
            .iter()
            .map(|(r, t)| match t {
                Target::InboxRow(i) => (*r, *i),
                other => panic!("{other:?} on the inbox"),
            })
            .collect();
        assert!(rows.len() >= 3, "{w}x{h}: {rows:?}");
        for (rect, i) in &rows {
            assert_eq!(
                highlighted(&buf, rect.x + 1, rect.y),
                *i == 3,
                "{w}x{h} {i}"
            );
            // The row's age is drawn in its first cell.
            let (pi, ii) = panes::inbox(&m)[*i];
            let age = crate::i18n::age(crate::model::since_seconds(
                m.projects[pi].inbox[ii].since,
                m.now,
            ));
            assert!(find(&buf, &age).contains(&(rect.x, rect.y)), "{w}x{h} {i}");
        }
        press(&mut m, KeyCode::Char('?'));
        let (_, hits) = frame(&m, w, h);
        assert_eq!(hits, Hits::default(), "{w}x{h}: under the help");
    }
}

/// Grouped, the list draws a header before each group: a click on a
/// header selects nothing, a click on a project selects that project.
#[test]
fn a_grouped_list_is_clicked_on_its_projects_never_its_headers() {
    for (w, h) in SIZES {
        let (_t, mut m) = workspace_model();
        press(&mut m, KeyCode::Char('b'));
        let (buf, hits) = frame(&m, w, h);
        let rows = panes::projects(&m);
        let mut checked = 0;
        for (rect, t) in hits.spots() {
            let Target::ListRow(i, _) = t else { continue };
            let name = clean(&m.projects[rows[*i]].name).into_owned();
            assert!(
                find(&buf, &name).iter().any(|&(_, y)| y == rect.y),
                "{w}x{h}: row {i} ({name}) not drawn at line {}",
                rect.y
            );
            checked += 1;
        }
        assert!(checked >= 10, "{w}x{h}: {checked}");
        // Every group header on screen: drawn, and no target.
        let mut headers = 0;
        for r in panes::list_rows(&m) {
            if let panes::ListRow::Header { key, .. } = r {
                let group = panes::group_name(&m, key);
                for &(x, y) in &find(&buf, &format!("{group} · ")) {
                    assert_eq!(hits.at(x, y), None, "{w}x{h}: the header {group}");
                    headers += 1;
                }
            }
        }
        assert!(headers >= 1, "{w}x{h}: no header on screen");
    }
}
