//! The detail tabs common to several formats: Overview (the resume card),
//! Frontier (PRD-master), Phases & Decisions (GSD), Tasks (DWP), Findings.

use super::View;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::devloop;
use super::widgets::{
    Spec, clip, col, empty, field, fit, spans_wrapped, table, with_detail, wrapped,
};
use crate::app::panes::{self, FrontierRow, PhaseRow};
use crate::app::{Focus, Tab};
use crate::i18n::ago;
use crate::model::{
    CLOCK_SKEW, Finding, Level, Project, Scenario, StatusKind, clock_skew, since_seconds,
};

pub(super) fn render(m: &View, p: &Project, f: &mut Frame, area: Rect) {
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
    let stalls = p.stalls(m.now, &m.stall);
    let (sym, style) = match stalls.first() {
        Some(_) => t.stalled(),
        None => t.project_status(p),
    };
    let done = p.status_kind == StatusKind::Done;
    let advice = match scenario {
        Some(Scenario::Future) => crate::t!("panes.overview.future").to_owned(),
        _ if done && p.inbox.is_empty() => crate::t!("panes.overview.done_nothing").to_owned(),
        _ if done => crate::t!("panes.overview.done_below").to_owned(),
        Some(Scenario::A) => crate::t!("panes.overview.scenario_a").to_owned(),
        Some(Scenario::B) => crate::t!("panes.overview.scenario_b").to_owned(),
        Some(Scenario::C) => crate::t!(
            "panes.overview.scenario_c",
            days = since.unwrap_or(0) / 86_400
        ),
        None => String::new(),
    };
    let updated = match since.map(|s| (s, crate::model::Age::of(s))) {
        None => crate::t!("panes.overview.updated_unknown").to_owned(),
        Some((s, crate::model::Age::Future)) => crate::t!(
            "panes.overview.updated_future",
            age = crate::i18n::age(Some(-s))
        ),
        Some((s, _)) => crate::t!("panes.overview.updated", ago = ago(s)),
    };
    spans_wrapped(
        &mut lines,
        w,
        vec![
            Span::styled(
                match p.stall(m.now, &m.stall) {
                    Some(s) => format!("{sym} {} · {}", p.status, s.shown()),
                    None => format!("{sym} {}", p.status),
                },
                style,
            ),
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
        field(
            &mut lines,
            w,
            crate::t!("panes.overview.stage"),
            &stage.shown(),
            label,
        );
    }
    // Work that says it runs, silent past its limit: each agent, or the
    // project itself.
    for s in &stalls {
        field(
            &mut lines,
            w,
            crate::t!("panes.overview.stalled"),
            &s.sentence(m.now),
            t.stalled().1.patch(t.bold),
        );
    }
    if let Some(pct) = p.progress_percent {
        field(
            &mut lines,
            w,
            crate::t!("panes.overview.progress"),
            &super::widgets::bar(f64::from(pct), 20),
            label,
        );
    }
    if let Some(tokens) = p.detail.loops.as_ref().and_then(|l| l.tokens) {
        field(
            &mut lines,
            w,
            crate::t!("panes.overview.tokens"),
            &tokens.shown(),
            label,
        );
    }
    for (name, value) in [
        (crate::t!("panes.overview.stopped_at"), &p.resume.stopped_at),
        (crate::t!("panes.field.why"), &p.resume.reason),
        (
            crate::t!("panes.overview.waiting_for"),
            &p.resume.waiting_for,
        ),
    ] {
        if let Some(v) = value {
            field(&mut lines, w, name, &v.shown(), label);
        }
    }
    if !p.resume.completed.is_empty() {
        field(
            &mut lines,
            w,
            crate::t!("panes.overview.completed"),
            &p.resume.completed.join(", "),
            label,
        );
    }
    if !p.resume.read_first.is_empty() {
        field(
            &mut lines,
            w,
            crate::t!("panes.overview.read_first"),
            &p.resume.read_first.join(", "),
            label,
        );
    }
    if !p.inbox.is_empty() {
        lines.push(Line::default());
        lines.push(Line::from(Span::styled(
            crate::t!("panes.overview.waiting_for_you", n = p.inbox.len()),
            t.warn.patch(t.bold),
        )));
        for item in &p.inbox {
            let mut text = format!("{} {}", item.reference, item.title.shown());
            let options = p.options_at(item, m.now);
            if !options.is_empty() {
                text.push_str(&format!("  [{}]", options.join(" / ")));
            }
            field(
                &mut lines,
                w,
                &format!("◆ {}", item.kind.shown()),
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
        let text = crate::t!(
            "panes.overview.findings_summary",
            findings = crate::t!("panes.overview.findings", n = total),
            errors = crate::t!("panes.overview.errors", n = errors),
            unreadable = crate::t!("panes.overview.unreadable", n = p.problems.len()),
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
        lines.push(Line::from(Span::styled(
            crate::t!("panes.overview.meant_then"),
            t.bold,
        )));
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
                crate::t!("panes.overview.nothing_named"),
                t.muted,
            );
        } else if loaded.is_empty() {
            wrapped(
                &mut lines,
                w,
                &crate::t!(
                    "panes.overview.nothing_read",
                    files = p.resume.read_first.join(", ")
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

fn frontier(m: &View, p: &Project, f: &mut Frame, area: Rect) {
    let t = &m.theme;
    let pane = m.pane(Tab::Frontier);
    let rows = panes::frontier(p, &pane.filter);
    let [top, rest] = Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(area);
    let note = if p.frontier.snapshot_stale {
        Span::styled(
            format!(
                " {}",
                crate::t!(
                    "panes.frontier.stale",
                    ids = p.frontier.stale_ids.join(", ")
                )
            ),
            t.warn,
        )
    } else {
        Span::styled(
            format!(
                " {}",
                crate::t!(
                    "panes.frontier.counts",
                    questions = p.frontier.questions.len(),
                    research = p.frontier.research.len(),
                    blocked = p.frontier.blocked.len()
                )
            ),
            t.muted,
        )
    };
    f.render_widget(fit(Line::from(note), top.width), top);
    if rows.is_empty() {
        return empty(m, f, rest, crate::t!("panes.frontier.empty"));
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
                (
                    crate::t!("panes.frontier.owner"),
                    q.owner.as_deref().unwrap_or(""),
                ),
                (
                    crate::t!("panes.frontier.evidence"),
                    q.evidence_needed.as_deref().unwrap_or(""),
                ),
                (
                    crate::t!("panes.frontier.accept_if"),
                    q.acceptance_threshold.as_deref().unwrap_or(""),
                ),
                (
                    crate::t!("panes.frontier.due"),
                    q.due_by.as_deref().unwrap_or(""),
                ),
                (
                    crate::t!("panes.frontier.waits_on"),
                    &q.waiting_on.join(", "),
                ),
            ],
        ),
    };
    let (ask, fact, wait) = (
        crate::t!("panes.frontier.ask"),
        crate::t!("panes.frontier.fact"),
        crate::t!("panes.frontier.wait"),
    );
    let header = vec![
        "",
        "ID",
        crate::t!("panes.frontier.col_priority"),
        crate::t!("panes.frontier.col_owner"),
        crate::t!("panes.frontier.col_question"),
        crate::t!("panes.frontier.col_waits_on"),
    ];
    let widths = [
        col(9, &[ask, fact, wait]),
        Constraint::Length(7),
        col(3, &[header[2]]),
        col(12, &[header[3]]),
        Constraint::Min(10),
        col(14, &[header[5]]),
    ];
    table(
        m,
        f,
        rest,
        Spec {
            header,
            widths: &widths,
            len: rows.len(),
            scroll: &pane.first,
            selected: pane.selected,
            focused: focused(m),
        },
        |i| {
            let (label, style, q) = match rows[i] {
                FrontierRow::Question(j) => (ask, t.warn, &fr.questions[j]),
                FrontierRow::Research(j) => (fact, t.info, &fr.research[j]),
                FrontierRow::Blocked(j) => (wait, t.muted, &fr.blocked[j]),
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
        field(
            &mut head,
            w,
            crate::t!("panes.phases.position"),
            &stage.shown(),
            t.bold,
        );
    }
    if let Some(s) = &p.resume.last_session {
        field(&mut head, w, crate::t!("panes.phases.session"), s, t.bold);
    }
    if let Some(s) = &p.resume.reason {
        field(
            &mut head,
            w,
            crate::t!("panes.phases.stopped"),
            &s.shown(),
            t.bold,
        );
    }
    if !p.resume.read_first.is_empty() {
        field(
            &mut head,
            w,
            crate::t!("panes.phases.resume_with"),
            &p.resume.read_first.join(", "),
            t.bold,
        );
    }
    if let Some(s) = &p.resume.waiting_for {
        field(
            &mut head,
            w,
            crate::t!("panes.phases.next"),
            &s.shown(),
            t.bold,
        );
    }
    if let Some(n) = p.pending_todos {
        field(
            &mut head,
            w,
            crate::t!("panes.phases.todos"),
            &crate::t!("panes.phases.pending", n = n),
            t.bold,
        );
    }
    let head_h = (head.len() as u16).min(area.height / 2);
    let [top, rest] =
        Layout::vertical([Constraint::Length(head_h), Constraint::Min(1)]).areas(area);
    f.render_widget(Paragraph::new(clip(head, head_h, w)), top);
    let pane = m.pane(Tab::Phases);
    let rows = panes::phases(p, &pane.filter);
    if rows.is_empty() {
        return empty(m, f, rest, crate::t!("panes.phases.empty"));
    }
    let rest = match rows.get(pane.selected) {
        Some(PhaseRow::Decision(j)) => {
            let d = &p.decisions[*j];
            let head = d
                .stage
                .clone()
                .unwrap_or_else(|| crate::t!("panes.phases.decision").to_owned());
            with_detail(
                m,
                f,
                rest,
                4,
                &[
                    (&head, &d.summary),
                    (
                        crate::t!("panes.field.why"),
                        d.rationale.as_deref().unwrap_or(""),
                    ),
                ],
            )
        }
        Some(PhaseRow::Blocker(j)) => with_detail(
            m,
            f,
            rest,
            4,
            &[(crate::t!("panes.phases.blocker"), &p.blockers[*j].shown())],
        ),
        None => rest,
    };
    table(
        m,
        f,
        rest,
        Spec {
            header: vec![
                "",
                crate::t!("panes.phases.col_phase"),
                crate::t!("panes.phases.col_item"),
                crate::t!("panes.phases.col_why"),
            ],
            widths: &[
                Constraint::Length(2),
                col(10, &[crate::t!("panes.phases.col_phase")]),
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
                Span::styled(p.blockers[j].shown().into_owned(), t.error),
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
        return empty(m, f, area, crate::t!("panes.tasks.empty"));
    }
    let [top, bottom] =
        Layout::vertical([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(area);
    let tasks = &p.detail.tasks;
    table(
        m,
        f,
        top,
        Spec {
            header: vec![
                "",
                "#",
                "MD",
                crate::t!("panes.tasks.col_task"),
                crate::t!("panes.tasks.col_status"),
                crate::t!("panes.tasks.col_gates"),
            ],
            widths: &[
                Constraint::Length(1),
                Constraint::Length(4),
                Constraint::Length(4),
                Constraint::Min(10),
                col(12, &[crate::t!("panes.tasks.col_status")]),
                col(7, &[crate::t!("panes.tasks.col_gates")]),
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
        &crate::t!("panes.tasks.heading", id = task.id, title = task.title),
        t.bold,
    );
    for g in &task.gates {
        let (sym, style) = if g.passes {
            ("✓", t.ok)
        } else {
            ("✗", t.error)
        };
        let text = format!("{} {}", g.command, g.evidence.as_deref().unwrap_or(""));
        let label = format!("{sym} {}", crate::t!("panes.tasks.gate"));
        field(&mut lines, w, &label, &text, style);
    }
    if let Some(o) = &task.outcome {
        if let Some(worked) = &o.worked {
            field(
                &mut lines,
                w,
                crate::t!("panes.tasks.worked"),
                worked,
                t.bold,
            );
        }
        if !o.tried.is_empty() {
            let tried = o.tried.join("; ");
            field(
                &mut lines,
                w,
                crate::t!("panes.tasks.tried"),
                &tried,
                t.bold,
            );
        }
        if !o.failed.is_empty() {
            let failed = o.failed.join("; ");
            field(
                &mut lines,
                w,
                crate::t!("panes.tasks.failed"),
                &failed,
                t.bold,
            );
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
        field(
            &mut lines,
            w,
            crate::t!("panes.tasks.checkpoint"),
            &text,
            t.info,
        );
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
        return empty(m, f, area, crate::t!("panes.findings.empty"));
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
                    (crate::t!("panes.findings.code"), &fd.code),
                    (crate::t!("panes.findings.message"), &fd.message),
                    (
                        crate::t!("panes.findings.at"),
                        fd.reference.as_deref().unwrap_or(""),
                    ),
                ],
            )
        }
        None => match p.problems.get(pane.selected.saturating_sub(rows.len())) {
            Some(pr) => with_detail(
                m,
                f,
                area,
                5,
                &[
                    (crate::t!("panes.findings.unreadable"), &pr.file),
                    (crate::t!("panes.field.why"), &pr.reason),
                ],
            ),
            None => area,
        },
    };
    let (error, warning, info, read) = (
        crate::t!("panes.findings.error"),
        crate::t!("panes.findings.warning"),
        crate::t!("panes.findings.info"),
        crate::t!("panes.findings.read"),
    );
    let header = vec![
        crate::t!("panes.findings.col_level"),
        crate::t!("panes.findings.col_code"),
        crate::t!("panes.findings.col_ref"),
        crate::t!("panes.findings.col_message"),
    ];
    let widths = [
        col(8, &[header[0], error, warning, info, read]),
        col(28, &[header[1]]),
        col(16, &[header[2]]),
        Constraint::Min(10),
    ];
    table(
        m,
        f,
        area,
        Spec {
            header,
            widths: &widths,
            len: total,
            scroll: &pane.first,
            selected: pane.selected,
            focused: focused(m),
        },
        |i| match rows.get(i) {
            Some(&j) => {
                let fd = &p.findings[j];
                let (label, style) = match fd.level {
                    Level::Error => (error, t.error),
                    Level::Warning => (warning, t.warn),
                    Level::Info => (info, t.info),
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
                    Span::styled(read, t.error),
                    Span::raw(crate::t!("panes.findings.unreadable")),
                    Span::raw(pr.file.clone()),
                    Span::raw(pr.reason.clone()),
                ]
            }
        },
    );
}
