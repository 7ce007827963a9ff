//! The detail tabs common to several formats: Overview (the resume card),
//! Frontier (PRD-master), Phases & Decisions (GSD), Tasks (DWP), Findings.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row};

use super::devloop;
use super::widgets::{Spec, age, detail_box, empty, field, table, with_detail, wrapped};
use crate::app::panes::{self, FrontierRow, PhaseRow};
use crate::app::{Focus, Model, Tab};
use crate::model::{Level, Project, Scenario, since_seconds};

pub fn render(m: &Model, p: &Project, f: &mut Frame, area: Rect) {
    match m.tab {
        Tab::Overview => overview(m, p, f, area),
        Tab::Frontier => frontier(m, p, f, area),
        Tab::Phases => phases(m, p, f, area),
        Tab::Tasks => tasks(m, p, f, area),
        Tab::Findings => findings(m, p, f, area),
        Tab::Units => devloop::units(m, p, f, area),
        Tab::Bugs => devloop::bugs(m, p, f, area),
        Tab::Timeline => devloop::timeline(m, p, f, area),
        Tab::Agents => devloop::agents(m, p, f, area),
    }
}

fn focused(m: &Model) -> bool {
    m.focus == Focus::Detail
}

/// The resume card: where it stopped, why, what it waits for, what to read.
fn overview(m: &Model, p: &Project, f: &mut Frame, area: Rect) {
    let t = &m.theme;
    let w = area.width;
    let mut lines = Vec::new();
    let since = since_seconds(p.updated_at, m.now);
    let scenario = since.map(Scenario::for_age);
    let (sym, style) = t.status(p.status_kind);
    lines.push(Line::from(vec![
        Span::styled(format!("{sym} {}", p.status), style),
        Span::styled(format!("   updated {} ago", age(m, p.updated_at)), t.muted),
        Span::styled(
            match scenario {
                Some(Scenario::A) => "   back within the hour: act on the next action".to_owned(),
                Some(Scenario::B) => "   back after a while: review, then decide".to_owned(),
                Some(Scenario::C) => format!(
                    "   away {} days: reread before acting",
                    since.unwrap_or(0) / 86_400
                ),
                None => String::new(),
            },
            t.muted,
        ),
    ]));
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
            if !item.options.is_empty() {
                text.push_str(&format!("  [{}]", item.options.join(" / ")));
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
    if errors + p.problems.len() > 0 || !p.findings.is_empty() {
        lines.push(Line::default());
        let text = format!(
            "{} finding{} ({errors} error{}), {} unreadable file{} — see Findings",
            p.findings.len(),
            if p.findings.len() == 1 { "" } else { "s" },
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
    if scenario == Some(Scenario::C)
        && let Some((path, excerpts)) = &m.excerpts
        && path == &p.path
        && !excerpts.is_empty()
    {
        lines.push(Line::default());
        lines.push(Line::from(Span::styled("What you meant then", t.bold)));
        for e in excerpts {
            lines.push(Line::from(Span::styled(format!("── {}", e.file), t.muted)));
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

pub fn kind(k: crate::model::InboxKind) -> &'static str {
    use crate::model::InboxKind as K;
    match k {
        K::Question => "question",
        K::Evidence => "evidence",
        K::Choice => "choice",
        K::Waiting => "waiting",
        K::Blocked => "blocked",
        K::Approval => "approval",
        K::Desync => "desync",
        K::Finalization => "finalize",
        K::Resume => "resume",
        K::Conflict => "conflict",
        K::Budget => "budget",
        K::SignOff => "sign-off",
        K::RetriesSpent => "retries",
        K::Triage => "triage",
    }
}

fn frontier(m: &Model, p: &Project, f: &mut Frame, area: Rect) {
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
    f.render_widget(Line::from(note), top);
    if rows.is_empty() {
        return empty(m, f, rest, "no open questions");
    }
    let fr = &p.frontier;
    let (rest, below) = with_detail(rest, 6);
    let chosen = rows.get(pane.selected).map(|r| match *r {
        FrontierRow::Question(j) => &fr.questions[j],
        FrontierRow::Research(j) => &fr.research[j],
        FrontierRow::Blocked(j) => &fr.blocked[j],
    });
    if let Some(q) = chosen {
        detail_box(
            m,
            f,
            below,
            &[
                (&q.id, &q.title),
                ("owner", q.owner.as_deref().unwrap_or("")),
                ("evidence", q.evidence_needed.as_deref().unwrap_or("")),
                ("accept if", q.acceptance_threshold.as_deref().unwrap_or("")),
                ("due", q.due_by.as_deref().unwrap_or("")),
                ("waits on", &q.waiting_on.join(", ")),
            ],
        );
    }
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
            Row::new::<Vec<Cell>>(vec![
                Span::styled(label, style).into(),
                q.id.clone().into(),
                q.priority.clone().unwrap_or_default().into(),
                q.owner.clone().unwrap_or_default().into(),
                q.title.clone().into(),
                q.waiting_on.join(", ").into(),
            ])
        },
    );
}

/// GSD: position, decisions, blockers, session continuity.
fn phases(m: &Model, p: &Project, f: &mut Frame, area: Rect) {
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
    let head_h = (head.len() as u16).min(area.height / 2);
    let [top, rest] =
        Layout::vertical([Constraint::Length(head_h), Constraint::Min(1)]).areas(area);
    f.render_widget(Paragraph::new(head), top);
    let pane = m.pane(Tab::Phases);
    let rows = panes::phases(p, &pane.filter);
    if rows.is_empty() {
        return empty(m, f, rest, "no decisions or blockers recorded");
    }
    let (rest, below) = with_detail(rest, 4);
    match rows.get(pane.selected) {
        Some(PhaseRow::Decision(j)) => {
            let d = &p.decisions[*j];
            let head = d.stage.clone().unwrap_or_else(|| "decision".to_owned());
            detail_box(
                m,
                f,
                below,
                &[
                    (&head, &d.summary),
                    ("why", d.rationale.as_deref().unwrap_or("")),
                ],
            );
        }
        Some(PhaseRow::Blocker(j)) => detail_box(m, f, below, &[("blocker", &p.blockers[*j])]),
        None => {}
    }
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
                Row::new::<Vec<Cell>>(vec![
                    Span::styled("✓", t.ok).into(),
                    d.stage.clone().unwrap_or_default().into(),
                    d.summary.clone().into(),
                    d.rationale.clone().unwrap_or_default().into(),
                ])
            }
            PhaseRow::Blocker(j) => Row::new::<Vec<Cell>>(vec![
                Span::styled("✗", t.error).into(),
                String::new().into(),
                Span::styled(p.blockers[j].clone(), t.error).into(),
                String::new().into(),
            ]),
        },
    );
}

/// DWP: tasks with their checkbox, gates and outcome; the selected task's
/// gates below the table.
fn tasks(m: &Model, p: &Project, f: &mut Frame, area: Rect) {
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
            let done = task.status == "completed";
            let md = match task.md_checked {
                Some(true) if done => "[x]",
                Some(false) if !done => "[ ]",
                Some(true) => "[x]≠",
                Some(false) => "[ ]≠",
                None => " - ",
            };
            let passing = task.gates.iter().filter(|g| g.passes).count();
            Row::new::<Vec<Cell>>(vec![
                Span::styled(sym, style).into(),
                task.id.clone().into(),
                md.into(),
                task.title.clone().into(),
                Span::styled(task.status.clone(), style).into(),
                format!("{passing}/{}", task.gates.len()).into(),
            ])
        },
    );
    let Some(task) = rows.get(pane.selected).map(|&i| &tasks[i]) else {
        return;
    };
    let w = bottom.width;
    let mut lines = vec![Line::from(Span::styled(
        format!("Task {} · {}", task.id, task.title),
        t.bold,
    ))];
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
    f.render_widget(Paragraph::new(lines), bottom);
}

fn findings(m: &Model, p: &Project, f: &mut Frame, area: Rect) {
    let t = &m.theme;
    let pane = m.pane(Tab::Findings);
    let rows = panes::findings(p, &pane.filter);
    let total = rows.len() + p.problems.len();
    if total == 0 {
        return empty(m, f, area, "no findings");
    }
    let (area, below) = with_detail(area, 5);
    match rows.get(pane.selected) {
        Some(&j) => {
            let fd = &p.findings[j];
            detail_box(
                m,
                f,
                below,
                &[
                    (&fd.code, &fd.message),
                    ("at", fd.reference.as_deref().unwrap_or("")),
                ],
            );
        }
        None => {
            if let Some(pr) = p.problems.get(pane.selected.saturating_sub(rows.len())) {
                detail_box(
                    m,
                    f,
                    below,
                    &[("unreadable", &pr.file), ("why", &pr.reason)],
                );
            }
        }
    }
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
                Row::new::<Vec<Cell>>(vec![
                    Span::styled(label, style).into(),
                    fd.code.clone().into(),
                    fd.reference.clone().unwrap_or_default().into(),
                    fd.message.clone().into(),
                ])
            }
            None => {
                let pr = &p.problems[i - rows.len()];
                Row::new::<Vec<Cell>>(vec![
                    Span::styled("✗ read", t.error).into(),
                    "unreadable".into(),
                    pr.file.clone().into(),
                    pr.reason.clone().into(),
                ])
            }
        },
    );
}
