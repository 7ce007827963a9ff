//! The detail tabs common to several formats: Overview (the resume card),
//! Frontier (PRD-master), Phases & Decisions (GSD), Tasks (DWP), Findings.

use super::View;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::devloop;
use super::widgets::{Spec, clip, empty, field, fit, spans_wrapped, table, with_detail, wrapped};
use crate::app::panes::{self, FrontierRow, PhaseRow};
use crate::app::{Focus, Tab};
use crate::model::{
    CLOCK_SKEW, Finding, Level, Project, Scenario, StatusKind, ago, clock_skew, since_seconds,
};

pub fn render(m: &View, p: &Project, f: &mut Frame, area: Rect) {
    match m.tab {
        Tab::Overview => overview(m, p, f, area),
        Tab::Frontier => frontier(m, p, f, area),
        Tab::Phases => phases(m, p, f, area),
        Tab::Tasks => tasks(m, p, f, area),
        Tab::Findings => findings(m, p, f, area),
        Tab::Units => devloop::units(m, p, f, area),
        Tab::Bugs => devloop::bugs(m, p, f, area),
        Tab::Timeline => devloop::timeline(m, p, f, area),
        Tab::Revisions => super::revisions::render(m, p, f, area),
        Tab::Agents => devloop::agents(m, p, f, area),
    }
}

fn focused(m: &View) -> bool {
    m.focus == Focus::Detail
}

/// The resume card: where it stopped, why, what it waits for, what to read.
fn overview(m: &View, p: &Project, f: &mut Frame, area: Rect) {
    let t = &m.theme;
    let w = area.width;
    let mut lines = Vec::new();
    super::since::section(m, p, w, &mut lines);
    let since = since_seconds(p.updated_at, m.now);
    let scenario = since.map(Scenario::for_age);
    let (sym, style) = t.status(p.status_kind);
    let done = p.status_kind == StatusKind::Done;
    let advice = match scenario {
        Some(Scenario::Future) => {
            "the last update is in the future: check the clock (see Findings)".to_owned()
        }
        _ if done && p.inbox.is_empty() => "completed: nothing waits on you".to_owned(),
        _ if done => "completed: only what waits for you below".to_owned(),
        Some(Scenario::A) => "back within the hour: act on the next action".to_owned(),
        Some(Scenario::B) => "back after a while: review, then decide".to_owned(),
        Some(Scenario::C) => format!(
            "away {} days: reread before acting",
            since.unwrap_or(0) / 86_400
        ),
        None => String::new(),
    };
    let updated = since.map_or_else(
        || "update time unknown".to_owned(),
        |s| format!("updated {}", ago(s)),
    );
    spans_wrapped(
        &mut lines,
        w,
        vec![
            Span::styled(format!("{sym} {}", p.status), style),
            Span::styled(format!("   {updated}"), t.muted),
            Span::styled(
                if advice.is_empty() {
                    advice
                } else {
                    format!("   {advice}")
                },
                t.muted,
            ),
        ],
    );
    lines.push(Line::default());
    let label = t.bold;
    if let Some(stage) = &p.stage {
        field(&mut lines, w, "stage", stage, label);
    }
    if let Some(pct) = p.progress_percent {
        field(
            &mut lines,
            w,
            "progress",
            &super::widgets::bar(f64::from(pct), 20),
            label,
        );
    }
    for (name, value) in [
        ("stopped at", &p.resume.stopped_at),
        ("why", &p.resume.reason),
        ("waiting for", &p.resume.waiting_for),
    ] {
        if let Some(v) = value {
            field(&mut lines, w, name, v, label);
        }
    }
    if !p.resume.completed.is_empty() {
        field(
            &mut lines,
            w,
            "completed",
            &p.resume.completed.join(", "),
            label,
        );
    }
    if !p.resume.read_first.is_empty() {
        field(
            &mut lines,
            w,
            "read first",
            &p.resume.read_first.join(", "),
            label,
        );
    }
    if !p.inbox.is_empty() {
        lines.push(Line::default());
        lines.push(Line::from(Span::styled(
            format!("Waiting for you ({})", p.inbox.len()),
            t.warn.patch(t.bold),
        )));
        for item in &p.inbox {
            let mut text = format!("{} {}", item.reference, item.title);
            let options = p.options_at(item, m.now);
            if !options.is_empty() {
                text.push_str(&format!("  [{}]", options.join(" / ")));
            }
            field(
                &mut lines,
                w,
                &format!("◆ {}", kind(item.kind)),
                &text,
                t.warn,
            );
        }
    }
    let errors = p
        .findings
        .iter()
        .filter(|f| f.level == Level::Error)
        .count();
    let total = p.findings.len() + usize::from(skew(m, p).is_some());
    if errors + p.problems.len() > 0 || total > 0 {
        lines.push(Line::default());
        let text = format!(
            "{total} finding{} ({errors} error{}), {} unreadable file{} — see Findings",
            if total == 1 { "" } else { "s" },
            if errors == 1 { "" } else { "s" },
            p.problems.len(),
            if p.problems.len() == 1 { "" } else { "s" }
        );
        let style = if errors + p.problems.len() > 0 {
            t.error
        } else {
            t.muted
        };
        wrapped(&mut lines, w, &text, style);
    }
    if scenario == Some(Scenario::C) {
        lines.push(Line::default());
        lines.push(Line::from(Span::styled("What you meant then", t.bold)));
        let loaded = m
            .excerpts
            .as_ref()
            .filter(|(path, _)| path == &p.path)
            .map(|(_, e)| e.as_slice())
            .unwrap_or_default();
        if p.resume.read_first.is_empty() {
            wrapped(
                &mut lines,
                w,
                "nothing to reread: the project's files name no scene anchor, plan or notes to read first",
                t.muted,
            );
        } else if loaded.is_empty() {
            wrapped(
                &mut lines,
                w,
                &format!(
                    "nothing to reread: {} could not be read or hold no text",
                    p.resume.read_first.join(", ")
                ),
                t.muted,
            );
        }
        for e in loaded {
            lines.push(fit(
                Line::from(Span::styled(format!("── {}", e.file), t.muted)),
                w,
            ));
            for l in &e.lines {
                wrapped(
                    &mut lines,
                    w,
                    &format!("   {l}"),
                    ratatui::style::Style::new(),
                );
            }
        }
    }
    if !p.statusline.is_empty() {
        lines.push(Line::default());
        wrapped(&mut lines, w, &p.statusline, t.muted);
    }
    // j/k scroll the card; the last screenful is as far as it goes.
    let max = lines.len().saturating_sub(area.height as usize);
    let scroll = m.pane(Tab::Overview).selected.min(max) as u16;
    f.render_widget(Paragraph::new(lines).scroll((scroll, 0)), area);
}

/// The clock-skew finding for `p` against the console's "now", unless the
/// reader already put one among the project's findings.
fn skew(m: &View, p: &Project) -> Option<Finding> {
    if p.findings.iter().any(|f| f.code == CLOCK_SKEW) {
        return None;
    }
    clock_skew(p, m.now)
}

pub fn kind(k: crate::model::InboxKind) -> &'static str {
    k.label()
}

fn frontier(m: &View, p: &Project, f: &mut Frame, area: Rect) {
    let t = &m.theme;
    let pane = m.pane(Tab::Frontier);
    let rows = panes::frontier(p, &pane.filter);
    let [top, rest] = Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(area);
    let note = if p.frontier.snapshot_stale {
        Span::styled(
            format!(
                " snapshot stale: next_action names {}",
                p.frontier.stale_ids.join(", ")
            ),
            t.warn,
        )
    } else {
        Span::styled(
            format!(
                " {} for you · {} research · {} blocked",
                p.frontier.questions.len(),
                p.frontier.research.len(),
                p.frontier.blocked.len()
            ),
            t.muted,
        )
    };
    f.render_widget(fit(Line::from(note), top.width), top);
    if rows.is_empty() {
        return empty(m, f, rest, "no open questions");
    }
    let fr = &p.frontier;
    let chosen = rows.get(pane.selected).map(|r| match *r {
        FrontierRow::Question(j) => &fr.questions[j],
        FrontierRow::Research(j) => &fr.research[j],
        FrontierRow::Blocked(j) => &fr.blocked[j],
    });
    let rest = match chosen {
        None => rest,
        Some(q) => with_detail(
            m,
            f,
            rest,
            6,
            &[
                (&q.id, &q.title),
                ("owner", q.owner.as_deref().unwrap_or("")),
                ("evidence", q.evidence_needed.as_deref().unwrap_or("")),
                ("accept if", q.acceptance_threshold.as_deref().unwrap_or("")),
                ("due", q.due_by.as_deref().unwrap_or("")),
                ("waits on", &q.waiting_on.join(", ")),
            ],
        ),
    };
    table(
        m,
        f,
        rest,
        Spec {
            header: vec!["", "ID", "P", "OWNER", "QUESTION", "WAITS ON"],
            widths: &[
                Constraint::Length(9),
                Constraint::Length(7),
                Constraint::Length(3),
                Constraint::Length(12),
                Constraint::Min(10),
                Constraint::Length(14),
            ],
            len: rows.len(),
            scroll: &pane.first,
            selected: pane.selected,
            focused: focused(m),
        },
        |i| {
            let (label, style, q) = match rows[i] {
                FrontierRow::Question(j) => ("◆ ask", t.warn, &fr.questions[j]),
                FrontierRow::Research(j) => ("… fact", t.info, &fr.research[j]),
                FrontierRow::Blocked(j) => ("✗ wait", t.muted, &fr.blocked[j]),
            };
            vec![
                Span::styled(label, style),
                Span::raw(q.id.clone()),
                Span::raw(q.priority.clone().unwrap_or_default()),
                Span::raw(q.owner.clone().unwrap_or_default()),
                Span::raw(q.title.clone()),
                Span::raw(q.waiting_on.join(", ")),
            ]
        },
    );
}

/// GSD: position, decisions, blockers, session continuity.
fn phases(m: &View, p: &Project, f: &mut Frame, area: Rect) {
    let t = &m.theme;
    let mut head = Vec::new();
    let w = area.width;
    if let Some(stage) = &p.stage {
        field(&mut head, w, "position", stage, t.bold);
    }
    if let Some(s) = &p.resume.last_session {
        field(&mut head, w, "session", s, t.bold);
    }
    if let Some(s) = &p.resume.reason {
        field(&mut head, w, "stopped", s, t.bold);
    }
    if !p.resume.read_first.is_empty() {
        field(
            &mut head,
            w,
            "resume with",
            &p.resume.read_first.join(", "),
            t.bold,
        );
    }
    if let Some(s) = &p.resume.waiting_for {
        field(&mut head, w, "next", s, t.bold);
    }
    if let Some(n) = p.pending_todos {
        field(&mut head, w, "todos", &format!("{n} pending"), t.bold);
    }
    let head_h = (head.len() as u16).min(area.height / 2);
    let [top, rest] =
        Layout::vertical([Constraint::Length(head_h), Constraint::Min(1)]).areas(area);
    f.render_widget(Paragraph::new(clip(head, head_h, w)), top);
    let pane = m.pane(Tab::Phases);
    let rows = panes::phases(p, &pane.filter);
    if rows.is_empty() {
        return empty(m, f, rest, "no decisions or blockers recorded");
    }
    let rest = match rows.get(pane.selected) {
        Some(PhaseRow::Decision(j)) => {
            let d = &p.decisions[*j];
            let head = d.stage.clone().unwrap_or_else(|| "decision".to_owned());
            with_detail(
                m,
                f,
                rest,
                4,
                &[
                    (&head, &d.summary),
                    ("why", d.rationale.as_deref().unwrap_or("")),
                ],
            )
        }
        Some(PhaseRow::Blocker(j)) => with_detail(m, f, rest, 4, &[("blocker", &p.blockers[*j])]),
        None => rest,
    };
    table(
        m,
        f,
        rest,
        Spec {
            header: vec!["", "PHASE", "DECISION / BLOCKER", "WHY"],
            widths: &[
                Constraint::Length(2),
                Constraint::Length(10),
                Constraint::Min(10),
                Constraint::Percentage(35),
            ],
            len: rows.len(),
            scroll: &pane.first,
            selected: pane.selected,
            focused: focused(m),
        },
        |i| match rows[i] {
            PhaseRow::Decision(j) => {
                let d = &p.decisions[j];
                vec![
                    Span::styled("✓", t.ok),
                    Span::raw(d.stage.clone().unwrap_or_default()),
                    Span::raw(d.summary.clone()),
                    Span::raw(d.rationale.clone().unwrap_or_default()),
                ]
            }
            PhaseRow::Blocker(j) => vec![
                Span::styled("✗", t.error),
                Span::raw(String::new()),
                Span::styled(p.blockers[j].clone(), t.error),
                Span::raw(String::new()),
            ],
        },
    );
}

/// DWP: tasks with their checkbox, gates and outcome; the selected task's
/// gates below the table.
fn tasks(m: &View, p: &Project, f: &mut Frame, area: Rect) {
    let t = &m.theme;
    let pane = m.pane(Tab::Tasks);
    let rows = panes::tasks(p, &pane.filter);
    if rows.is_empty() {
        return empty(m, f, area, "no tasks");
    }
    let [top, bottom] =
        Layout::vertical([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(area);
    let tasks = &p.detail.tasks;
    table(
        m,
        f,
        top,
        Spec {
            header: vec!["", "#", "MD", "TASK", "STATUS", "GATES"],
            widths: &[
                Constraint::Length(1),
                Constraint::Length(4),
                Constraint::Length(4),
                Constraint::Min(10),
                Constraint::Length(12),
                Constraint::Length(7),
            ],
            len: rows.len(),
            scroll: &pane.first,
            selected: pane.selected,
            focused: focused(m),
        },
        |i| {
            let task = &tasks[rows[i]];
            let (sym, style) = t.status(task.status_kind);
            // ≠: the README's checkbox and the state disagree (Markdown wins).
            let done = task.status_kind == StatusKind::Done;
            let md = match task.md_checked {
                Some(true) if done => "[x]",
                Some(false) if !done => "[ ]",
                Some(true) => "[x]≠",
                Some(false) => "[ ]≠",
                None => " - ",
            };
            let passing = task.gates.iter().filter(|g| g.passes).count();
            vec![
                Span::styled(sym, style),
                Span::raw(task.id.clone()),
                Span::raw(md),
                Span::raw(task.title.clone()),
                Span::styled(task.status.clone(), style),
                Span::raw(format!("{passing}/{}", task.gates.len())),
            ]
        },
    );
    let Some(task) = rows.get(pane.selected).map(|&i| &tasks[i]) else {
        return;
    };
    let w = bottom.width;
    let mut lines = Vec::new();
    wrapped(
        &mut lines,
        w,
        &format!("Task {} · {}", task.id, task.title),
        t.bold,
    );
    for g in &task.gates {
        let (sym, style) = if g.passes {
            ("✓", t.ok)
        } else {
            ("✗", t.error)
        };
        let text = format!("{} {}", g.command, g.evidence.as_deref().unwrap_or(""));
        field(&mut lines, w, &format!("{sym} gate"), &text, style);
    }
    if let Some(o) = &task.outcome {
        if let Some(worked) = &o.worked {
            field(&mut lines, w, "worked", worked, t.bold);
        }
        if !o.tried.is_empty() {
            field(&mut lines, w, "tried", &o.tried.join("; "), t.bold);
        }
        if !o.failed.is_empty() {
            field(&mut lines, w, "failed", &o.failed.join("; "), t.bold);
        }
    }
    if let Some(c) = p
        .detail
        .checkpoint
        .as_ref()
        .filter(|c| c.task.as_deref() == Some(task.id.as_str()))
    {
        let text = format!(
            "{} {}",
            c.step.as_deref().unwrap_or(""),
            c.note.as_deref().unwrap_or("")
        );
        field(&mut lines, w, "checkpoint", &text, t.info);
    }
    f.render_widget(Paragraph::new(clip(lines, bottom.height, w)), bottom);
}

fn findings(m: &View, p: &Project, f: &mut Frame, area: Rect) {
    let t = &m.theme;
    let pane = m.pane(Tab::Findings);
    let rows = panes::findings(p, &pane.filter);
    let total = rows.len() + p.problems.len();
    // Clock skew depends on "now", so the console adds it here, above the
    // findings the reader made.
    let area = match skew(m, p) {
        Some(fd) => {
            let mut lines = Vec::new();
            field(
                &mut lines,
                area.width,
                &format!("◆ {}", fd.code),
                &fd.message,
                t.warn,
            );
            let h = (lines.len() as u16).min(area.height / 2);
            let [top, rest] =
                Layout::vertical([Constraint::Length(h), Constraint::Min(1)]).areas(area);
            f.render_widget(Paragraph::new(clip(lines, h, area.width)), top);
            rest
        }
        None => area,
    };
    if total == 0 {
        return empty(m, f, area, "no findings");
    }
    let area = match rows.get(pane.selected) {
        Some(&j) => {
            let fd = &p.findings[j];
            with_detail(
                m,
                f,
                area,
                5,
                &[
                    ("code", &fd.code),
                    ("message", &fd.message),
                    ("at", fd.reference.as_deref().unwrap_or("")),
                ],
            )
        }
        None => match p.problems.get(pane.selected.saturating_sub(rows.len())) {
            Some(pr) => with_detail(
                m,
                f,
                area,
                5,
                &[("unreadable", &pr.file), ("why", &pr.reason)],
            ),
            None => area,
        },
    };
    table(
        m,
        f,
        area,
        Spec {
            header: vec!["LEVEL", "CODE", "REF", "MESSAGE"],
            widths: &[
                Constraint::Length(8),
                Constraint::Length(28),
                Constraint::Length(16),
                Constraint::Min(10),
            ],
            len: total,
            scroll: &pane.first,
            selected: pane.selected,
            focused: focused(m),
        },
        |i| match rows.get(i) {
            Some(&j) => {
                let fd = &p.findings[j];
                let (label, style) = match fd.level {
                    Level::Error => ("✗ error", t.error),
                    Level::Warning => ("◆ warn", t.warn),
                    Level::Info => ("· info", t.info),
                };
                vec![
                    Span::styled(label, style),
                    Span::raw(fd.code.clone()),
                    Span::raw(fd.reference.clone().unwrap_or_default()),
                    Span::raw(fd.message.clone()),
                ]
            }
            None => {
                let pr = &p.problems[i - rows.len()];
                vec![
                    Span::styled("✗ read", t.error),
                    Span::raw("unreadable"),
                    Span::raw(pr.file.clone()),
                    Span::raw(pr.reason.clone()),
                ]
            }
        },
    );
}
