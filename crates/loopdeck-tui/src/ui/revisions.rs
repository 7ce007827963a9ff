//! devloop's Revisions tab (the seed dashboard's PrdDiffPanel): the
//! changelog newest first, and on Enter a drawer with what the changelog
//! says changed and the PRD or SDD compared section by section with the
//! revision before (added green, removed red, changed yellow).

use super::View;
use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::widgets::{
    Spec, block, col, empty, field, inner, scroll_of, table, with_detail, wrapped,
};
use crate::app::{Drawer, Focus, Tab, panes};
use crate::model::{ChangeSummary, LineKind, Project, Revision, SectionKind, short_time};
use crate::t;

/// What a revision changed, counted (`+1 section ~3 units`) in the
/// language spoken (`Changed::counts` words it in English).
fn counts(c: &ChangeSummary) -> String {
    let mut parts = Vec::new();
    for (sign, list, section) in [
        ('+', &c.sections_added, true),
        ('~', &c.sections_changed, true),
        ('-', &c.sections_removed, true),
        ('+', &c.units_added, false),
        ('~', &c.units_changed, false),
        ('-', &c.units_removed, false),
    ] {
        if !list.is_empty() {
            let n = list.len();
            let what = if section {
                t!("panes.revisions.sections", n = n)
            } else {
                t!("panes.revisions.units", n = n)
            };
            parts.push(format!("{sign}{what}"));
        }
    }
    parts.join(" ")
}

/// `prd_rev` → `prd`.
fn doc(kind: &str) -> &str {
    kind.strip_suffix("_rev").unwrap_or(kind)
}

pub(super) fn render(m: &View, p: &Project, f: &mut Frame, area: Rect) {
    let t = &m.theme;
    let pane = m.pane(Tab::Revisions);
    let rows = panes::revisions(p, &pane.filter);
    if rows.is_empty() {
        return empty(m, f, area, t!("panes.revisions.empty"));
    }
    let revs = &p.detail.revisions;
    let selected = pane.selected.min(rows.len() - 1);
    let r = &revs[rows[selected]];
    let changes = counts(&r.changed);
    let revision = t!(
        "panes.revisions.doc_rev",
        doc = doc(&r.event.kind),
        rev = r.rev
    );
    let rest = with_detail(
        m,
        f,
        area,
        3,
        &[
            (t!("panes.revisions.revision"), &revision),
            (
                t!("panes.field.trigger"),
                r.trigger.as_deref().unwrap_or(""),
            ),
            (t!("panes.field.summary"), r.note.as_deref().unwrap_or("")),
            (t!("panes.revisions.changes"), &changes),
        ],
    );
    let time_w = if rows.iter().any(|&i| {
        revs[i]
            .event
            .at
            .is_some_and(|a| short_time(a, m.now).len() > 11)
    }) {
        16
    } else {
        11
    };
    table(
        m,
        f,
        rest,
        Spec {
            header: vec![
                t!("panes.revisions.col_time"),
                t!("panes.revisions.col_doc"),
                t!("panes.revisions.col_rev"),
                t!("panes.revisions.col_by"),
                t!("panes.revisions.col_changes"),
                t!("panes.revisions.col_summary"),
            ],
            widths: &[
                col(time_w, &[t!("panes.revisions.col_time")]),
                col(5, &[t!("panes.revisions.col_doc")]),
                col(4, &[t!("panes.revisions.col_rev")]),
                col(10, &[t!("panes.revisions.col_by")]),
                col(16, &[t!("panes.revisions.col_changes")]),
                Constraint::Min(10),
            ],
            len: rows.len(),
            scroll: &pane.first,
            selected,
            focused: m.focus == Focus::Detail,
        },
        |i| {
            let r = &revs[rows[i]];
            let at = r
                .event
                .at
                .map_or_else(|| "?".to_owned(), |a| short_time(a, m.now));
            let summary = [r.trigger.as_deref(), r.note.as_deref()]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" · ");
            vec![
                Span::styled(at, t.muted),
                Span::styled(doc(&r.event.kind).to_owned(), t.bold),
                Span::raw(r.rev.clone()),
                Span::styled(r.event.source.clone(), t.info),
                Span::styled(counts(&r.changed), t.muted),
                Span::raw(summary),
            ]
        },
    );
    if let Some(Drawer::Revision(key)) = &m.drawer
        && let Some(r) = revs.iter().find(|r| &panes::revision_key(r) == key)
    {
        drawer(m, r, f, area);
    }
}

/// The revision in full: what the changelog says, then the section diff.
fn drawer(m: &View, r: &Revision, f: &mut Frame, area: Rect) {
    let t = &m.theme;
    let w = inner(area).width;
    let mut lines: Vec<Line<'static>> = Vec::new();
    let at = r
        .event
        .at
        .map_or_else(|| "?".to_owned(), |a| short_time(a, m.now));
    field(&mut lines, w, t!("panes.revisions.when"), &at, t.bold);
    field(
        &mut lines,
        w,
        t!("panes.revisions.by"),
        &r.event.source,
        t.bold,
    );
    if let Some(trigger) = &r.trigger {
        field(&mut lines, w, t!("panes.field.trigger"), trigger, t.bold);
    }
    if let Some(note) = &r.note {
        field(&mut lines, w, t!("panes.field.summary"), note, t.bold);
    }
    if let Some(a) = &r.archive {
        field(&mut lines, w, t!("panes.revisions.before"), a, t.bold);
    }
    let c = &r.changed;
    for (label, list) in [
        (t!("panes.revisions.sections_added"), &c.sections_added),
        (t!("panes.revisions.sections_changed"), &c.sections_changed),
        (t!("panes.revisions.sections_removed"), &c.sections_removed),
        (t!("panes.revisions.units_added"), &c.units_added),
        (t!("panes.revisions.units_changed"), &c.units_changed),
        (t!("panes.revisions.units_removed"), &c.units_removed),
    ] {
        if !list.is_empty() {
            field(&mut lines, w, label, &list.join(", "), t.bold);
        }
    }
    lines.push(Line::default());
    match &r.sections {
        None if r.has_sections() => {
            wrapped(&mut lines, w, t!("panes.revisions.comparing"), t.muted)
        }
        None => wrapped(&mut lines, w, t!("panes.revisions.no_diff"), t.muted),
        Some(d) => {
            let from = d.old.as_deref().unwrap_or(t!("panes.revisions.first"));
            let to = d.new.as_deref().unwrap_or("?");
            let compared = t!("panes.revisions.compared", from = from, to = to);
            wrapped(&mut lines, w, &compared, t.bold);
            if let Some(problem) = &d.problem {
                let text = t!("panes.revisions.cannot_compare", problem = problem);
                wrapped(&mut lines, w, &text, t.warn);
            }
            if d.sections.is_empty() && d.problem.is_none() {
                wrapped(&mut lines, w, t!("panes.revisions.none_changed"), t.muted);
            }
            for s in &d.sections {
                let (heading, style) = match s.kind {
                    SectionKind::Added => (
                        t!("panes.revisions.added", mark = '+', title = s.title),
                        t.ok,
                    ),
                    SectionKind::Removed => (
                        t!("panes.revisions.removed", mark = '-', title = s.title),
                        t.error,
                    ),
                    SectionKind::Changed => (
                        t!("panes.revisions.changed", mark = '~', title = s.title),
                        t.warn,
                    ),
                };
                wrapped(&mut lines, w, &heading, style.patch(t.bold));
                for l in &s.lines {
                    let style = match l.kind {
                        LineKind::Added => t.ok,
                        LineKind::Removed => t.error,
                        LineKind::Context => Style::new(),
                        LineKind::Gap => t.muted,
                    };
                    wrapped(
                        &mut lines,
                        w,
                        &format!("  {} {}", l.kind.sign(), l.text),
                        style,
                    );
                }
                if s.more > 0 {
                    wrapped(
                        &mut lines,
                        w,
                        &format!("    {}", t!("panes.revisions.more", n = s.more)),
                        t.muted,
                    );
                }
            }
            if d.unchanged > 0 {
                wrapped(
                    &mut lines,
                    w,
                    &t!("panes.revisions.unchanged", n = d.unchanged),
                    t.muted,
                );
            }
        }
    }
    super::overlay::clear(f, area);
    let n = lines.len();
    f.render_widget(
        Paragraph::new(lines)
            .scroll((scroll_of(m, n, area), 0))
            .block(block(
                m,
                t!(
                    "panes.revisions.drawer",
                    doc = doc(&r.event.kind),
                    rev = r.rev
                ),
                true,
            )),
        area,
    );
}

#[cfg(test)]
mod tests {
    use super::super::tests::{press, screen, select, workspace_model};
    use crate::app::{Drawer, Tab};
    use crossterm::event::KeyCode;

    const SIZES: [(u16, u16); 2] = [(80, 24), (200, 60)];
    const P_RESTOCK: &str = "devloop/data/companies/acme/projects/p-restock";

    fn snap(m: &crate::app::Model, name: &str) {
        for (w, h) in SIZES {
            insta::assert_snapshot!(format!("{name}_{w}x{h}"), screen(m, w, h));
        }
    }

    /// The example's changelog newest first, then the drawers of the
    /// newest PRD revision (a section added, its CJK title) and the newest
    /// SDD revision (three units' contracts changed).
    #[test]
    fn the_revisions_tab_and_its_section_diffs() {
        let (_t, mut m) = workspace_model();
        select(&mut m, P_RESTOCK);
        let n = m.tabs().iter().position(|t| *t == Tab::Revisions).unwrap();
        press(&mut m, KeyCode::Char(char::from(b'1' + n as u8)));
        let s = screen(&m, 200, 60);
        let first = s.find("units").unwrap();
        assert!(first < s.find("重置 restock-plan-be").unwrap());
        snap(&m, "p-restock_revisions");
        // units 4, sdd 4, prd 3: the newest PRD revision.
        press(&mut m, KeyCode::Down);
        press(&mut m, KeyCode::Down);
        press(&mut m, KeyCode::Enter);
        assert!(matches!(&m.drawer, Some(Drawer::Revision(k)) if k.starts_with("prd_rev|3|")));
        let s = screen(&m, 200, 60);
        assert!(s.contains("+ 按箱规取整 (added)"), "{s}");
        assert!(s.contains("history/prd-rev-2.html → prd.html"), "{s}");
        snap(&m, "p-restock_revisions_prd_drawer");
        press(&mut m, KeyCode::Esc);
        press(&mut m, KeyCode::Up);
        press(&mut m, KeyCode::Enter);
        let s = screen(&m, 200, 60);
        assert!(s.contains("~ Unit · restock-fe (changed)"), "{s}");
        assert!(s.contains("+ table columns: store, sku, qty, cases"), "{s}");
        snap(&m, "p-restock_revisions_sdd_drawer");
    }

    /// The drawer says it is comparing until the runtime answers (the
    /// reading itself compares nothing).
    #[test]
    fn the_drawer_says_it_is_comparing_until_the_diff_arrives() {
        let (_t, mut m) = workspace_model();
        select(&mut m, P_RESTOCK);
        let n = m.tabs().iter().position(|t| *t == Tab::Revisions).unwrap();
        press(&mut m, KeyCode::Char(char::from(b'1' + n as u8)));
        press(&mut m, KeyCode::Down);
        press(&mut m, KeyCode::Down);
        // Enter without the runtime's answer.
        let key = crossterm::event::KeyEvent::from(KeyCode::Enter);
        crate::app::update(&mut m, crate::app::Event::Key(key));
        let s = screen(&m, 200, 60);
        assert!(s.contains(crate::t!("panes.revisions.comparing")), "{s}");
        assert!(!s.contains("按箱规取整 (added)"), "{s}");
    }
}
