//! The plain (non-JSON) output of the headless commands. Every string from a
//! project file passes through `sanitize_line` here, so no control or escape
//! byte from file content reaches the terminal; columns are aligned by
//! display width, so CJK text lines up. The words come from the `cli`
//! catalogue (`crate::t!`), in the language in force.

use std::fmt::Write as _;

use super::views::{AnsweredRow, CheckView, InboxRow, Resume, Row};
use crate::model::text::{pad, sanitize_line, width};
use chrono::{DateTime, Utc};

use crate::model::{
    Age, Finding, Frontier, Level, Phrase, Project, Question, Scenario, StallLimits,
};
use crate::t;

fn s(text: &str) -> String {
    sanitize_line(text).into_owned()
}

/// What loopdeck says, in the language in force, made safe.
fn said(p: &Phrase) -> String {
    s(&p.shown())
}

fn age(seconds: Option<i64>) -> String {
    crate::i18n::age(seconds)
}

/// A finding's level as the plain output says it.
pub fn level(l: Level) -> &'static str {
    match l {
        Level::Error => t!("cli.level.error"),
        Level::Warning => t!("cli.level.warning"),
        Level::Info => t!("cli.level.info"),
    }
}

/// The widest of `words`, at least `min` columns: a label column sized for
/// the words of the language in force.
fn widest(min: usize, words: &[&str]) -> usize {
    words.iter().map(|w| width(w)).fold(min, usize::max)
}

/// Lay out `rows` (already sanitized) under `header`; the last column is not
/// padded.
pub(super) fn grid(header: &[&str], rows: &[Vec<String>]) -> String {
    let cols = header.len();
    let mut widths: Vec<usize> = header.iter().map(|h| width(h)).collect();
    for r in rows {
        for (i, cell) in r.iter().enumerate().take(cols) {
            widths[i] = widths[i].max(width(cell)).min(56);
        }
    }
    let mut out = String::new();
    let line = |cells: Vec<&str>, out: &mut String| {
        let mut l = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i + 1 == cols {
                l.push_str(c);
            } else {
                l.push_str(&pad(c, widths[i]));
                l.push_str("  ");
            }
        }
        out.push_str(l.trim_end());
        out.push('\n');
    };
    line(header.to_vec(), &mut out);
    for r in rows {
        line(r.iter().map(String::as_str).collect(), &mut out);
    }
    out
}

pub fn list(rows: &[Row<'_>]) -> String {
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let mut name = s(r.name);
            if !r.problems.is_empty() {
                name.push_str("  ");
                name.push_str(&t!("cli.list.problems", n = r.problems.len()));
            }
            if !r.escalated_by.is_empty() {
                let rules: Vec<String> = r.escalated_by.iter().map(|n| s(n)).collect();
                name.push_str("  ");
                name.push_str(&t!("cli.list.escalated", rules = rules.join(", ")));
            }
            // A stall is said beside the status it contradicts.
            let status = match &r.stalled {
                Some(stall) => format!("{} · {}", s(r.status), stall.shown()),
                None => s(r.status),
            };
            vec![
                age(r.age_seconds),
                r.format.to_owned(),
                status,
                r.stage.map_or_else(|| "-".to_owned(), said),
                r.progress_percent
                    .map_or("-".to_owned(), |p| format!("{p}%")),
                r.needs_human.to_string(),
                s(r.id),
                name,
            ]
        })
        .collect();
    let mut out = grid(
        &[
            t!("cli.list.age"),
            t!("cli.list.format"),
            t!("cli.list.status"),
            t!("cli.list.stage"),
            t!("cli.list.done"),
            t!("cli.list.human"),
            t!("cli.list.id"),
            t!("cli.list.name"),
        ],
        &body,
    );
    let _ = writeln!(out, "{}", t!("cli.list.count", n = rows.len()));
    out
}

pub fn inbox(rows: &[InboxRow<'_>], answered: &[AnsweredRow<'_>]) -> String {
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let mut title = said(r.title);
            if !r.options.is_empty() {
                let opts: Vec<String> = r.options.iter().map(|o| s(o)).collect();
                title.push_str(&format!("  [{}]", opts.join(" / ")));
            }
            if !r.escalated_shown.is_empty() {
                let rules: Vec<String> = r.escalated_shown.iter().map(|n| s(n)).collect();
                title.push_str("  ");
                title.push_str(&t!("cli.inbox.escalated", rules = rules.join(", ")));
            }
            vec![
                age(r.age_seconds),
                s(r.project),
                r.kind.shown().to_owned(),
                s(r.reference),
                title,
            ]
        })
        .collect();
    let mut out = grid(
        &[
            t!("cli.inbox.age"),
            t!("cli.inbox.project"),
            t!("cli.inbox.kind"),
            t!("cli.inbox.ref"),
            t!("cli.inbox.waiting_for"),
        ],
        &body,
    );
    let _ = writeln!(out, "{}", t!("cli.inbox.count", n = rows.len()));
    let escalated = rows.iter().filter(|r| !r.escalated_by.is_empty()).count();
    if escalated > 0 {
        let _ = writeln!(out, "{}", t!("cli.inbox.escalated_count", n = escalated));
    }
    if !answered.is_empty() {
        let body: Vec<Vec<String>> = answered
            .iter()
            .map(|r| {
                let by = match r.answered_by {
                    Some(by) => t!("cli.inbox.answer_by", answer = s(r.answer), by = s(by)),
                    None => s(r.answer),
                };
                vec![
                    age(r.age_seconds),
                    s(r.project),
                    s(r.reference),
                    said(r.title),
                    by,
                ]
            })
            .collect();
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "{}",
            t!("cli.inbox.answered_title", n = answered.len())
        );
        out.push_str(&grid(
            &[
                t!("cli.inbox.answered_age"),
                t!("cli.inbox.project"),
                t!("cli.inbox.ref"),
                t!("cli.inbox.question"),
                t!("cli.inbox.answer"),
            ],
            &body,
        ));
    }
    out
}

fn question_line(q: &Question) -> String {
    let mut l = format!("  {}  {}", s(&q.id), s(&q.title));
    if let Some(p) = &q.priority {
        l.push_str(&format!("  [{}]", s(p)));
    }
    if let Some(o) = &q.owner {
        l.push_str("  ");
        l.push_str(&t!("cli.show.owner", owner = s(o)));
    }
    if !q.waiting_on.is_empty() {
        l.push_str("  ");
        l.push_str(&t!("cli.show.waits_on", ids = s(&q.waiting_on.join(", "))));
    }
    if let Some(e) = &q.evidence_needed {
        l.push_str("  ");
        l.push_str(&t!("cli.show.evidence", evidence = s(e)));
    }
    l
}

fn frontier(out: &mut String, f: &Frontier) {
    if f.questions.is_empty() && f.research.is_empty() && f.blocked.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n{}", t!("cli.show.frontier"));
    for (label, qs) in [
        (t!("cli.show.questions"), &f.questions),
        (t!("cli.show.research"), &f.research),
        (t!("cli.show.blocked"), &f.blocked),
    ] {
        if !qs.is_empty() {
            let _ = writeln!(out, " {label}");
            for q in qs.iter() {
                let _ = writeln!(out, "{}", question_line(q));
            }
        }
    }
    if f.snapshot_stale {
        let _ = writeln!(
            out,
            " {}",
            t!("cli.show.snapshot_stale", ids = s(&f.stale_ids.join(", ")))
        );
    }
}

fn findings(out: &mut String, fs: &[Finding]) {
    if fs.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n{}", t!("cli.show.findings"));
    let lw = widest(7, &[Level::Error, Level::Warning, Level::Info].map(level));
    for f in fs {
        let word = pad(level(f.level), lw);
        let at = f
            .reference
            .as_deref()
            .map(|r| format!(" ({})", s(r)))
            .unwrap_or_default();
        let _ = writeln!(out, "  {word} {}{at}: {}", f.code, s(&f.message));
    }
}

pub fn show(
    p: &Project,
    row: &Row<'_>,
    resume: &Resume<'_>,
    now: DateTime<Utc>,
    limits: &StallLimits,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}  [{}]  {}", s(&p.name), row.format, s(&row.path));
    let (status, stage) = (
        s(row.status),
        row.stage.map_or_else(|| "-".to_owned(), said),
    );
    let summary = match row.age_seconds.map(Age::of) {
        Some(Age::Future) => t!(
            "cli.show.summary_future",
            status = status,
            stage = stage,
            n = row.needs_human
        ),
        _ => t!(
            "cli.show.summary",
            status = status,
            stage = stage,
            age = age(row.age_seconds),
            n = row.needs_human
        ),
    };
    let _ = writeln!(out, "{summary}");
    // Work that says it runs, silent past its limit; a devloop project's
    // token burn.
    for stall in p.stalls(now, limits) {
        let sentence = s(&stall.sentence(now));
        let _ = writeln!(out, "{}", t!("cli.show.stalled", sentence = sentence));
    }
    if let Some(tokens) = p.detail.loops.as_ref().and_then(|l| l.tokens) {
        let tokens = tokens.shown();
        let _ = writeln!(out, "{}", t!("cli.show.tokens", tokens = tokens));
    }
    let heading = match resume.scenario {
        Some(Scenario::Future) => t!("cli.show.resume_future").to_owned(),
        Some(sc) => t!("cli.show.resume", scenario = format!("{sc:?}")),
        None => t!("cli.show.resume", scenario = "?"),
    };
    let _ = writeln!(out, "\n{heading}");
    let done: Vec<String> = resume.completed.iter().map(|c| s(c)).collect();
    let files: Vec<String> = resume.read_first.iter().map(|f| s(f)).collect();
    let labelled = [
        (t!("cli.show.stopped_at"), resume.stopped_at.map(said)),
        (t!("cli.show.why"), resume.reason.map(said)),
        (t!("cli.show.waiting_for"), resume.waiting_for.map(said)),
        (
            t!("cli.show.completed"),
            (!done.is_empty()).then(|| done.join(", ")),
        ),
        (
            t!("cli.show.read_first"),
            (!files.is_empty()).then(|| files.join(", ")),
        ),
    ];
    let lw = widest(12, &labelled.each_ref().map(|(l, _)| *l));
    for (label, v) in &labelled {
        if let Some(v) = v {
            let _ = writeln!(out, "  {} {v}", pad(label, lw));
        }
    }
    let _ = writeln!(out, "  {}", advice(resume));
    for e in &resume.excerpts {
        let _ = writeln!(out, "  ── {}", s(&e.file));
        for l in &e.lines {
            let _ = writeln!(out, "     {}", s(l));
        }
    }
    frontier(&mut out, &p.frontier);
    if !p.inbox.is_empty() {
        let _ = writeln!(out, "\n{}", t!("cli.show.waiting"));
        for i in &p.inbox {
            let _ = writeln!(out, "  {}  {}", s(&i.reference), said(&i.title));
        }
    }
    if !p.decisions.is_empty() {
        let _ = writeln!(out, "\n{}", t!("cli.show.decisions"));
        for d in &p.decisions {
            let id = d.id.as_deref().or(d.stage.as_deref()).unwrap_or("-");
            let _ = writeln!(out, "  {}  {}", s(id), s(&d.summary));
        }
    }
    if !p.blockers.is_empty() {
        let _ = writeln!(out, "\n{}", t!("cli.show.blockers"));
        for b in &p.blockers {
            let _ = writeln!(out, "  {}", said(b));
        }
    }
    if let Some(n) = p.pending_todos {
        let _ = writeln!(out, "\n{}", t!("cli.show.todos", n = n));
    }
    findings(&mut out, &p.findings);
    if !p.problems.is_empty() {
        let _ = writeln!(out, "\n{}", t!("cli.show.problems"));
        for pr in &p.problems {
            let _ = writeln!(out, "  {}", s(&pr.to_string()));
        }
    }
    if !p.statusline.is_empty() {
        let _ = writeln!(
            out,
            "\n{}",
            t!("cli.show.statusline", line = s(&p.statusline))
        );
    }
    out
}

/// What the seed's scenario says to do on return, in the language in force
/// (the JSON's `advice` is the English of the same words).
fn advice(r: &Resume<'_>) -> String {
    match (r.scenario, r.since_seconds) {
        (Some(Scenario::A), _) => t!("cli.advice.a").to_owned(),
        (Some(Scenario::B), _) => t!("cli.advice.b").to_owned(),
        (Some(Scenario::C), Some(seconds)) => t!("cli.advice.c", days = seconds / 86_400),
        (Some(Scenario::Future), _) => t!("cli.advice.future").to_owned(),
        _ => t!("cli.advice.unknown").to_owned(),
    }
}

pub fn check(v: &CheckView<'_>) -> String {
    let mut rows: Vec<Vec<String>> = Vec::new();
    for p in &v.projects {
        for pr in p.problems {
            rows.push(vec![
                level(Level::Error).to_owned(),
                s(p.id),
                "unreadable".to_owned(),
                s(&pr.file),
                s(&pr.reason),
            ]);
        }
        for f in p.findings {
            rows.push(vec![
                level(f.level).to_owned(),
                s(p.id),
                f.code.clone(),
                s(f.reference.as_deref().unwrap_or("-")),
                s(&f.message),
            ]);
        }
    }
    let mut out = grid(
        &[
            t!("cli.check.level"),
            t!("cli.check.project"),
            t!("cli.check.code"),
            t!("cli.check.ref"),
            t!("cli.check.message"),
        ],
        &rows,
    );
    let m = &v.summary;
    let summary = t!(
        "cli.check.summary",
        projects = t!("cli.list.count", n = m.projects),
        errors = t!("cli.check.errors", n = m.errors),
        warnings = t!("cli.check.warnings", n = m.warnings),
        info = m.info
    );
    let _ = writeln!(out, "{summary}");
    out
}
