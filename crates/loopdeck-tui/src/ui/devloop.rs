//! devloop panes: the L1/L2/L3 status strip (the seed dashboard's
//! LoopStatusBar), Units (the DAG by layers, with a unit drawer), Bugs (with
//! filters and a history drawer), Timeline (following its end) and Agents.

use super::View;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::widgets::{
    Spec, bar, block, clean, col, column_widths, empty, field, fit, inner, safe_line, scroll_of,
    table, with_detail, wrapped,
};
use crate::app::{Drawer, Focus, Tab, panes};
use crate::model::{Project, short_time};
use crate::t;

pub(super) const STRIP_HEIGHT: u16 = 1;

fn focused(m: &View) -> bool {
    m.focus == Focus::Detail
}

/// The seed's LoopStatusBar on one line: L1 units by status and agents
/// running (and stalled) · L2 gate, rounds, last run and its failures · L3
/// PRD revision, status, awaiting feedback · the tokens used of the budget.
/// Details are dropped, least useful first, until it fits.
pub(super) fn strip(m: &View, p: &Project, f: &mut Frame, area: Rect) {
    let t = &m.theme;
    let d = &p.detail;
    let loops = d.loops.clone().unwrap_or_default();
    let (l1, l2, l3) = (&loops.l1, &loops.l2, &loops.l3);
    // Running agents, and those of them silent past their limit apart.
    let stalled = d
        .agents
        .iter()
        .filter(|a| p.agent_stall(a, m.now, &m.stall).is_some())
        .count();
    let running = d
        .agents
        .iter()
        .filter(|a| a.status == "running")
        .count()
        .saturating_sub(stalled);
    // The token burn, before the breach too.
    let tokens = loops.tokens.map(|tk| {
        let style = match tk.percent {
            100.. => t.error,
            80..=99 => t.warn,
            _ => t.muted,
        };
        (t!("common.tokens.short", pct = tk.percent), style)
    });
    let l1_style = if l1.passed == l1.total && l1.total > 0 {
        t.ok
    } else if l1.failed + l1.blocked > 0 {
        t.warn
    } else {
        t.info
    };
    // The gate in full, then as the narrowest strip says it.
    let (gate, gate_short, gate_style) = match &d.dag {
        Some(dag) if dag.l2_gate_open => (
            t!("panes.strip.gate_open"),
            t!("panes.strip.gate_open_short"),
            t.ok,
        ),
        Some(dag) if !dag.cycles.is_empty() => {
            let cycle = t!("panes.strip.gate_cycle");
            (cycle, cycle, t.error)
        }
        Some(_) => (
            t!("panes.strip.gate_closed"),
            t!("panes.strip.gate_closed_short"),
            t.muted,
        ),
        None => {
            let none = t!("panes.strip.no_units");
            (none, none, t.muted)
        }
    };
    let l2_style = match l2.status.as_str() {
        "failed" => t.error,
        "running" => t.warn,
        "shipped" => t.ok,
        _ => t.muted,
    };
    let (l3_sym, l3_style) = t.project_status(p);
    // Level 0 says everything; each level after drops a detail. The last
    // three drop the PRD revision, then the words around the counts, then
    // L2's failure count and the stall's words (`◷1`), for the tokens'
    // sake (80 columns, or the detail beside the list, hold the rest).
    const LAST: usize = 6;
    for level in 0..=LAST {
        let mut l1_text = if level < 5 {
            t!("panes.strip.passed", passed = l1.passed, total = l1.total)
        } else {
            format!("{}/{}", l1.passed, l1.total)
        };
        if level < 3 {
            let testing = l1.testing + l1.coding;
            if testing > 0 {
                l1_text.push_str(&format!(" · {}", t!("panes.strip.testing", n = testing)));
            }
            if l1.failed > 0 {
                l1_text.push_str(&format!(" · {}", t!("panes.strip.failed", n = l1.failed)));
            }
            if l1.blocked > 0 {
                l1_text.push_str(&format!(" · {}", t!("panes.strip.blocked", n = l1.blocked)));
            }
        }
        let mut l2_text = if level < 3 {
            let round = t!("panes.strip.round", rounds = l2.rounds, budget = l2.budget);
            format!(" · {} · {round}", l2.status)
        } else if level < 5 {
            format!(" · {} {}/{}", l2.status, l2.rounds, l2.budget)
        } else {
            format!(" · {}", l2.status)
        };
        if let Some(run) = l2.last_run.as_ref().filter(|_| level < 2) {
            l2_text.push_str(&format!(" · {}", t!("panes.strip.last", run = run)));
            if let Some(at) = l2.last_run_at.filter(|_| level < 1) {
                l2_text.push_str(&format!(" {}", at.format("%Y-%m-%d %H:%M")));
            }
        }
        if l2.failures > 0 && level < LAST {
            l2_text.push_str(&format!(" · {}", t!("panes.strip.failed", n = l2.failures)));
        }
        let rev = l3.rev.filter(|_| level < 4).map_or(String::new(), |r| {
            format!(" · {}", t!("panes.strip.rev", rev = r))
        });
        let mut spans = vec![
            Span::styled(" L1 ", t.bold),
            Span::styled(l1_text, l1_style),
        ];
        if level < 1 {
            spans.push(Span::styled(
                format!(" · {}", t!("panes.strip.running", n = running)),
                t.muted,
            ));
        }
        if stalled > 0 {
            let (sym, style) = t.stalled();
            let text = if level < LAST {
                format!(" · {}", t!("panes.strip.stalled", n = stalled))
            } else {
                format!(" {sym}{stalled}")
            };
            spans.push(Span::styled(text, style));
        }
        spans.extend([
            Span::styled("  L2 ", t.bold),
            Span::styled(if level < 3 { gate } else { gate_short }, gate_style),
            Span::styled(l2_text, l2_style),
            Span::styled("  L3 ", t.bold),
            Span::styled(format!("{l3_sym} {}{rev}", p.status), l3_style),
        ]);
        if l3.awaiting_feedback {
            let why = if level < 2 {
                let names: Vec<_> = l3.awaiting.iter().map(|a| a.shown()).collect();
                let names = names.join(t!("panes.strip.awaiting_sep"));
                format!(" · {}", t!("panes.strip.awaiting_for", names = names))
            } else {
                format!(" · {}", t!("panes.strip.awaiting"))
            };
            spans.push(Span::styled(why, t.warn));
        }
        if let Some((text, style)) = &tokens {
            spans.push(Span::styled(format!("  {text}"), *style));
        }
        if let Some(pr) = d.progress.as_ref().filter(|_| level < 1) {
            spans.push(Span::styled(format!("  {}", bar(pr.percent, 10)), t.muted));
        }
        // Measured as drawn (a status from the file may hold an escape).
        let line = safe_line(Line::from(spans));
        if line.width() <= usize::from(area.width) || level == LAST {
            f.render_widget(line, area);
            return;
        }
    }
}

/// Units in DAG order, upstream first; each row names the units it
/// depends on (upstream → this unit).
pub(super) fn units(m: &View, p: &Project, f: &mut Frame, area: Rect) {
    let t = &m.theme;
    let pane = m.pane(Tab::Units);
    let rows = panes::units(p, &pane.filter);
    if rows.is_empty() {
        return empty(m, f, area, t!("panes.units.empty"));
    }
    let u = &p.detail.units;
    let (area, legend) = match area.height {
        h if h > 6 => {
            let [a, l] = Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(area);
            (a, Some(l))
        }
        _ => (area, None),
    };
    if let Some(l) = legend {
        f.render_widget(
            fit(
                Line::from(Span::styled(
                    format!(" {}", t!("panes.units.legend")),
                    t.muted,
                )),
                l.width,
            ),
            l,
        );
    }
    let header = vec![
        t!("panes.units.col_layer"),
        "",
        t!("panes.units.col_unit"),
        t!("panes.units.col_type"),
        t!("panes.units.col_status"),
        t!("panes.units.col_upstream"),
        t!("panes.units.col_downstream"),
    ];
    let widths = [
        col(6, &[header[0]]),
        Constraint::Length(1),
        Constraint::Min(12),
        col(5, &[header[3]]),
        col(10, &[header[4]]),
        Constraint::Percentage(25),
        Constraint::Percentage(25),
    ];
    let cols = column_widths(&widths, area.width);
    table(
        m,
        f,
        area,
        Spec {
            header,
            widths: &widths,
            len: rows.len(),
            scroll: &pane.first,
            selected: pane.selected,
            focused: focused(m),
        },
        |i| {
            let unit = &u[rows[i]];
            let (sym, style) = t.status(unit.status_kind);
            let layer = unit
                .layer
                .map_or_else(|| "∞".to_owned(), |l| format!("L{l}"));
            // The ≠ mark survives an id cut to its column.
            let id = if unit.contract_ok() == Some(false) {
                let room = cols.get(2).map_or(0, |&w| w as usize).saturating_sub(2);
                format!("{} ≠", crate::model::text::truncate(&clean(&unit.id), room))
            } else {
                unit.id.to_string()
            };
            let up = if unit.depends_on.is_empty() {
                String::new()
            } else {
                format!("{} →", unit.depends_on.join(", "))
            };
            let down = if unit.downstream.is_empty() {
                String::new()
            } else {
                format!("→ {}", unit.downstream.join(", "))
            };
            vec![
                Span::styled(
                    layer,
                    if unit.layer.is_none() {
                        t.error
                    } else {
                        t.muted
                    },
                ),
                Span::styled(sym, style),
                Span::raw(id),
                Span::raw(unit.kind.to_string()),
                Span::styled(unit.status.to_string(), style),
                Span::styled(up, t.muted),
                Span::styled(down, t.muted),
            ]
        },
    );
    if let Some(Drawer::Unit(id)) = &m.drawer
        && let Some(unit) = u.iter().find(|x| x.id == id.as_str())
    {
        let area = drawer_area(area);
        let w = inner(area).width;
        let mut lines = Vec::new();
        field(
            &mut lines,
            w,
            t!("panes.field.status"),
            &unit.status,
            t.bold,
        );
        if let Some(h) = unit.contract_hash() {
            let mark = match unit.contract_ok() {
                Some(true) => t!("panes.units.matches"),
                Some(false) => t!("panes.units.differs"),
                None => "",
            };
            let hash = format!("{h}{mark}");
            field(&mut lines, w, t!("panes.units.hash"), &hash, t.bold);
        }
        if let (Some(r), Some(b)) = (unit.retries(), unit.retry_budget()) {
            let retries = format!("{r}/{b}");
            field(&mut lines, w, t!("panes.units.retries"), &retries, t.bold);
        }
        if let Some(c) = unit.contract() {
            lines.push(Line::from(Span::styled(t!("panes.units.contract"), t.bold)));
            wrapped(&mut lines, w, c, Style::new());
        }
        if !unit.acceptance().is_empty() {
            lines.push(Line::from(Span::styled(
                t!("panes.units.acceptance"),
                t.bold,
            )));
            for a in unit.acceptance() {
                wrapped(&mut lines, w, &format!("• {a}"), Style::new());
            }
        }
        for r in unit.runs().iter().take(3) {
            let (sym, style) = if r.ok {
                (t!("panes.units.pass"), t.ok)
            } else {
                (t!("panes.units.fail"), t.error)
            };
            lines.push(safe_line(Line::from(vec![
                Span::styled(sym, style),
                Span::raw(format!(" {} {}/{}", r.run_id, r.passed, r.total)),
            ])));
            for fl in &r.failures {
                let text = match &fl.hint {
                    Some(h) => t!(
                        "panes.units.failure_hint",
                        test = fl.test,
                        expected = fl.expected,
                        got = fl.got,
                        hint = h
                    ),
                    None => t!(
                        "panes.units.failure",
                        test = fl.test,
                        expected = fl.expected,
                        got = fl.got
                    ),
                };
                wrapped(&mut lines, w, &format!("  {text}"), t.error);
            }
        }
        super::overlay::clear(f, area);
        let n = lines.len();
        f.render_widget(
            Paragraph::new(lines)
                .scroll((scroll_of(m, n, area), 0))
                .block(block(m, t!("panes.units.drawer", id = unit.id), true)),
            area,
        );
    }
}

fn drawer_area(area: Rect) -> Rect {
    let [_, right] =
        Layout::horizontal([Constraint::Percentage(30), Constraint::Percentage(70)]).areas(area);
    right
}

pub(super) fn bugs(m: &View, p: &Project, f: &mut Frame, area: Rect) {
    let t = &m.theme;
    let [top, rest] = Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(area);
    let stats = p.detail.bug_stats.as_ref();
    let by_status = stats.map_or(String::new(), |s| {
        s.by_status
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(" · ")
    });
    f.render_widget(
        fit(
            Line::from(vec![
                Span::styled(
                    format!(
                        " {}",
                        t!(
                            "panes.bugs.filters",
                            status = m
                                .bug_filter
                                .status
                                .as_deref()
                                .unwrap_or(t!("panes.bugs.all")),
                            severity = m
                                .bug_filter
                                .severity
                                .as_deref()
                                .unwrap_or(t!("panes.bugs.all"))
                        )
                    ),
                    t.bold,
                ),
                Span::styled(
                    format!("   {}   {by_status}", t!("panes.bugs.cycle")),
                    t.muted,
                ),
            ]),
            top.width,
        ),
        top,
    );
    let rows = panes::bugs(m, p);
    if rows.is_empty() {
        return empty(m, f, rest, t!("panes.bugs.empty"));
    }
    let b = &p.detail.bugs;
    let rest = match rows.get(m.pane(Tab::Bugs).selected) {
        Some(&i) => {
            let bug = &b[i];
            with_detail(
                m,
                f,
                rest,
                4,
                &[
                    (t!("panes.bugs.bug"), &bug.id),
                    (t!("panes.bugs.title"), &bug.title),
                    (t!("panes.field.unit"), bug.unit.as_deref().unwrap_or("")),
                ],
            )
        }
        None => rest,
    };
    table(
        m,
        f,
        rest,
        Spec {
            header: vec![
                t!("panes.bugs.col_severity"),
                "",
                t!("panes.bugs.col_status"),
                t!("panes.bugs.col_bug"),
                t!("panes.bugs.col_title"),
            ],
            widths: &[
                col(8, &[t!("panes.bugs.col_severity")]),
                Constraint::Length(1),
                col(10, &[t!("panes.bugs.col_status")]),
                col(24, &[t!("panes.bugs.col_bug")]),
                Constraint::Min(10),
            ],
            len: rows.len(),
            scroll: &m.pane(Tab::Bugs).first,
            selected: m.pane(Tab::Bugs).selected,
            focused: focused(m),
        },
        |i| {
            let bug = &b[rows[i]];
            let (sym, style) = t.status(bug.status_kind);
            let sev = match bug.severity.as_str() {
                "critical" | "high" => t.error,
                "medium" => t.warn,
                _ => t.muted,
            };
            vec![
                Span::styled(bug.severity.clone(), sev),
                Span::styled(sym, style),
                Span::styled(bug.status.clone(), style),
                Span::raw(bug.id.clone()),
                Span::raw(bug.title.clone()),
            ]
        },
    );
    if let Some(Drawer::Bug(id)) = &m.drawer
        && let Some(bug) = b.iter().find(|x| &x.id == id)
    {
        let area = drawer_area(rest);
        let w = inner(area).width;
        let mut lines = Vec::new();
        wrapped(&mut lines, w, &bug.title, t.bold);
        field(
            &mut lines,
            w,
            t!("panes.bugs.severity"),
            &bug.severity,
            t.bold,
        );
        if let Some(u) = &bug.unit {
            field(&mut lines, w, t!("panes.field.unit"), u, t.bold);
        }
        lines.push(Line::from(Span::styled(t!("panes.bugs.history"), t.bold)));
        for h in &bug.history {
            let mut text = format!(
                "{} → {}  {} {}",
                h.from.as_deref().unwrap_or("·"),
                h.to,
                h.at.as_deref().unwrap_or(""),
                h.by.as_deref().unwrap_or("")
            );
            if let Some(note) = &h.note {
                text.push_str(&format!(" — {note}"));
            }
            wrapped(&mut lines, w, &text, Style::new());
        }
        super::overlay::clear(f, area);
        let n = lines.len();
        f.render_widget(
            Paragraph::new(lines)
                .scroll((scroll_of(m, n, area), 0))
                .block(block(m, t!("panes.bugs.drawer", id = bug.id), true)),
            area,
        );
    }
}

/// A stable colour per event source.
fn source_style(m: &View, source: &str) -> Style {
    let t = &m.theme;
    let palette = [t.info, t.ok, t.accent, t.warn, t.muted];
    if source == "human" {
        return t.warn.patch(t.bold);
    }
    let h = source
        .bytes()
        .fold(0usize, |a, b| a.wrapping_mul(31).wrapping_add(b as usize));
    palette[h % palette.len()]
}

/// What a timeline event's `kind` says about an outcome: `Some(true)` a
/// pass or a ship, `Some(false)` a failure or a block, `None` neither. By
/// the kind the writer chose (seed 003's `TimelineEvent.kind` examples),
/// never by words inside the free-text summary.
pub(super) fn event_outcome(kind: &str) -> Option<bool> {
    match kind {
        "unit_passed" | "integration_passed" | "project_shipped" => Some(true),
        "unit_failed" | "integration_failed" | "unit_blocked" | "project_blocked" => Some(false),
        _ => None,
    }
}

/// Newest at the bottom; the selection follows the end unless the user
/// moved up (`f` or `G` follows again).
pub(super) fn timeline(m: &View, p: &Project, f: &mut Frame, area: Rect) {
    let t = &m.theme;
    let pane = m.pane(Tab::Timeline);
    let rows = panes::timeline(p, &pane.filter);
    if rows.is_empty() {
        return empty(m, f, area, t!("panes.timeline.empty"));
    }
    let ev = &p.detail.timeline;
    let title = if m.follow_timeline {
        t!("panes.timeline.col_following")
    } else {
        t!("panes.timeline.col_follow")
    };
    // Events are in time order: when the first or the last is not of this
    // year, some row shows its year, and the column makes room for it.
    let other_year = |i: Option<&usize>| {
        i.and_then(|&i| ev[i].at)
            .is_some_and(|a| short_time(a, m.now).len() > 11)
    };
    // Events less than a minute apart (a run's steps) are told apart by
    // their seconds: the column shows them when any two neighbours are.
    let seconds = rows.windows(2).any(|w| match (ev[w[0]].at, ev[w[1]].at) {
        (Some(a), Some(b)) => (b - a).num_seconds().abs() < 60,
        _ => false,
    });
    let time = |a| {
        if seconds {
            crate::model::short_time_seconds(a, m.now)
        } else {
            short_time(a, m.now)
        }
    };
    let time_w = if other_year(rows.first()) || other_year(rows.last()) {
        16
    } else {
        11
    } + if seconds { 3 } else { 0 };
    table(
        m,
        f,
        area,
        Spec {
            header: vec![
                t!("panes.timeline.col_time"),
                t!("panes.timeline.col_source"),
                title,
            ],
            widths: &[
                col(time_w, &[t!("panes.timeline.col_time")]),
                col(12, &[t!("panes.timeline.col_source")]),
                Constraint::Min(10),
            ],
            len: rows.len(),
            scroll: &pane.first,
            selected: pane.selected.min(rows.len() - 1),
            focused: focused(m),
        },
        |i| {
            let e = &ev[rows[i]];
            let at = e.at.map_or_else(|| "?".to_owned(), time);
            let summary = format!("{} {}", e.kind, e.summary);
            let style = match event_outcome(&e.kind) {
                Some(false) => t.error.patch(t.bold),
                Some(true) => t.ok.patch(t.bold),
                None => Style::new(),
            };
            vec![
                Span::styled(at, t.muted),
                Span::styled(e.source.clone(), source_style(m, &e.source)),
                Span::styled(summary, style),
            ]
        },
    );
}

pub(super) fn agents(m: &View, p: &Project, f: &mut Frame, area: Rect) {
    let t = &m.theme;
    let pane = m.pane(Tab::Agents);
    let rows = panes::agents(p, &pane.filter);
    if rows.is_empty() {
        return empty(m, f, area, t!("panes.agents.empty"));
    }
    let a = &p.detail.agents;
    // An agent whose state says it runs while its files are silent past
    // its limit says so in place of `▶ running`, which would look fresh.
    let statuses: Vec<(String, Style)> = rows
        .iter()
        .map(|&i| {
            let ag = &a[i];
            match p.agent_stall(ag, m.now, &m.stall) {
                Some(s) => {
                    let (sym, style) = t.stalled();
                    (format!("{sym} {}", s.shown()), style)
                }
                None => {
                    let (sym, style) = t.status(ag.status_kind);
                    (format!("{sym} {}", ag.status), style)
                }
            }
        })
        .collect();
    let status_w = statuses
        .iter()
        .map(|(s, _)| crate::model::text::width(&clean(s)))
        .max()
        .unwrap_or(0)
        .clamp(9, 24);
    table(
        m,
        f,
        area,
        Spec {
            header: vec![
                t!("panes.agents.col_agent"),
                t!("panes.agents.col_status"),
                t!("panes.agents.col_step"),
                t!("panes.agents.col_progress"),
                t!("panes.agents.col_doing"),
            ],
            widths: &[
                col(12, &[t!("panes.agents.col_agent")]),
                col(status_w as u16, &[t!("panes.agents.col_status")]),
                col(5, &[t!("panes.agents.col_step")]),
                col(17, &[t!("panes.agents.col_progress")]),
                Constraint::Min(10),
            ],
            len: rows.len(),
            scroll: &pane.first,
            selected: pane.selected,
            focused: focused(m),
        },
        |i| {
            let ag = &a[rows[i]];
            let (status, style) = statuses[i].clone();
            let pct =
                ag.progress_pct
                    .map(f64::from)
                    .or_else(|| match (ag.step_index, ag.total_steps) {
                        (Some(s), Some(n)) if n > 0 => Some((s as f64) / (n as f64) * 100.0),
                        _ => None,
                    });
            let mut doing = ag.doing.clone().unwrap_or_default();
            if let Some(at) = ag.paused_at {
                // How long it has been paused, as every age is shown
                // (`1d`, `26w`; never `4440h`).
                let secs = (m.now - at).num_seconds();
                let age = crate::i18n::age(Some(secs));
                doing = if secs < -crate::model::SKEW_TOLERANCE_SECONDS {
                    t!("panes.agents.paused_future", doing = doing)
                } else if secs >= 24 * 3600 {
                    t!("panes.agents.paused_expired", age = age, doing = doing)
                } else {
                    t!("panes.agents.paused", age = age, doing = doing)
                };
            }
            vec![
                Span::raw(ag.agent.clone()),
                Span::styled(status, style),
                Span::raw(ag.step.clone().unwrap_or_default()),
                Span::raw(pct.map(|p| bar(p, 10)).unwrap_or_default()),
                Span::raw(doing),
            ]
        },
    );
}
