//! The plain (non-JSON) output of the headless commands. Every string from a
//! project file passes through `sanitize_line` here, so no control or escape
//! byte from file content reaches the terminal; columns are aligned by
//! display width, so CJK text lines up.

use std::fmt::Write as _;

use super::views::{CheckView, InboxRow, Resume, Row};
use crate::model::text::{pad, sanitize_line, width};
use crate::model::{Finding, Frontier, Project, Question, relative_age};

fn s(text: &str) -> String {
    sanitize_line(text).into_owned()
}

fn age(seconds: Option<i64>) -> String {
    seconds.map(relative_age).unwrap_or_else(|| "?".to_owned())
}

/// Lay out `rows` (already sanitized) under `header`; the last column is not
/// padded.
fn grid(header: &[&str], rows: &[Vec<String>]) -> String {
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
                name.push_str(&format!(
                    "  (!{} problem{})",
                    r.problems.len(),
                    if r.problems.len() == 1 { "" } else { "s" }
                ));
            }
            vec![
                age(r.age_seconds),
                r.format.to_owned(),
                s(r.status),
                s(r.stage.unwrap_or("-")),
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
            "AGE", "FORMAT", "STATUS", "STAGE", "DONE", "HUMAN", "ID", "NAME",
        ],
        &body,
    );
    let _ = writeln!(
        out,
        "{} project{}",
        rows.len(),
        if rows.len() == 1 { "" } else { "s" }
    );
    out
}

pub fn inbox(rows: &[InboxRow<'_>]) -> String {
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let mut title = s(r.title);
            if !r.options.is_empty() {
                let opts: Vec<String> = r.options.iter().map(|o| s(o)).collect();
                title.push_str(&format!("  [{}]", opts.join(" / ")));
            }
            vec![
                age(r.age_seconds),
                s(r.project),
                serde_json::to_value(r.kind)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default(),
                s(r.reference),
                title,
            ]
        })
        .collect();
    let mut out = grid(&["AGE", "PROJECT", "KIND", "REF", "WAITING FOR"], &body);
    let _ = writeln!(
        out,
        "{} item{} waiting for a human",
        rows.len(),
        if rows.len() == 1 { "" } else { "s" }
    );
    out
}

fn question_line(q: &Question) -> String {
    let mut l = format!("  {}  {}", s(&q.id), s(&q.title));
    if let Some(p) = &q.priority {
        l.push_str(&format!("  [{}]", s(p)));
    }
    if let Some(o) = &q.owner {
        l.push_str(&format!("  owner: {}", s(o)));
    }
    if !q.waiting_on.is_empty() {
        l.push_str(&format!("  waits on: {}", s(&q.waiting_on.join(", "))));
    }
    if let Some(e) = &q.evidence_needed {
        l.push_str(&format!("  evidence: {}", s(e)));
    }
    l
}

fn frontier(out: &mut String, f: &Frontier) {
    if f.questions.is_empty() && f.research.is_empty() && f.blocked.is_empty() {
        return;
    }
    let _ = writeln!(out, "\nFrontier");
    for (label, qs) in [
        ("questions for you", &f.questions),
        ("research", &f.research),
        ("blocked", &f.blocked),
    ] {
        if !qs.is_empty() {
            let _ = writeln!(out, " {label}:");
            for q in qs.iter() {
                let _ = writeln!(out, "{}", question_line(q));
            }
        }
    }
    if f.snapshot_stale {
        let _ = writeln!(
            out,
            " snapshot stale: next_action names {}",
            s(&f.stale_ids.join(", "))
        );
    }
}

fn findings(out: &mut String, fs: &[Finding]) {
    if fs.is_empty() {
        return;
    }
    let _ = writeln!(out, "\nFindings");
    for f in fs {
        let level = format!("{:?}", f.level).to_lowercase();
        let at = f
            .reference
            .as_deref()
            .map(|r| format!(" ({})", s(r)))
            .unwrap_or_default();
        let _ = writeln!(out, "  {level:<7} {}{at}: {}", f.code, s(&f.message));
    }
}

pub fn show(p: &Project, row: &Row<'_>, resume: &Resume<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}  [{}]  {}", s(&p.name), row.format, s(&row.path));
    let _ = writeln!(
        out,
        "status {}  ·  stage {}  ·  updated {} ago  ·  {} waiting for a human",
        s(row.status),
        s(row.stage.unwrap_or("-")),
        age(row.age_seconds),
        row.needs_human
    );
    let _ = writeln!(
        out,
        "\nResume (scenario {})",
        resume
            .scenario
            .map_or("?".to_owned(), |sc| format!("{sc:?}"))
    );
    for (label, v) in [
        ("stopped at", resume.stopped_at),
        ("why", resume.reason),
        ("waiting for", resume.waiting_for),
    ] {
        if let Some(v) = v {
            let _ = writeln!(out, "  {label:<12} {}", s(v));
        }
    }
    if !resume.completed.is_empty() {
        let done: Vec<String> = resume.completed.iter().map(|c| s(c)).collect();
        let _ = writeln!(out, "  {:<12} {}", "completed", done.join(", "));
    }
    if !resume.read_first.is_empty() {
        let files: Vec<String> = resume.read_first.iter().map(|f| s(f)).collect();
        let _ = writeln!(out, "  {:<12} {}", "read first", files.join(", "));
    }
    let _ = writeln!(out, "  {}", resume.advice);
    for e in &resume.excerpts {
        let _ = writeln!(out, "  ── {}", s(&e.file));
        for l in &e.lines {
            let _ = writeln!(out, "     {}", s(l));
        }
    }
    frontier(&mut out, &p.frontier);
    if !p.inbox.is_empty() {
        let _ = writeln!(out, "\nWaiting for you");
        for i in &p.inbox {
            let _ = writeln!(out, "  {}  {}", s(&i.reference), s(&i.title));
        }
    }
    if !p.decisions.is_empty() {
        let _ = writeln!(out, "\nDecisions");
        for d in &p.decisions {
            let id = d.id.as_deref().or(d.stage.as_deref()).unwrap_or("-");
            let _ = writeln!(out, "  {}  {}", s(id), s(&d.summary));
        }
    }
    if !p.blockers.is_empty() {
        let _ = writeln!(out, "\nBlockers");
        for b in &p.blockers {
            let _ = writeln!(out, "  {}", s(b));
        }
    }
    if let Some(n) = p.pending_todos {
        let _ = writeln!(out, "\nPending todos: {n}");
    }
    findings(&mut out, &p.findings);
    if !p.problems.is_empty() {
        let _ = writeln!(out, "\nProblems");
        for pr in &p.problems {
            let _ = writeln!(out, "  {}", s(&pr.to_string()));
        }
    }
    if !p.statusline.is_empty() {
        let _ = writeln!(out, "\nstatusline: {}", s(&p.statusline));
    }
    out
}

pub fn check(v: &CheckView<'_>) -> String {
    let mut rows: Vec<Vec<String>> = Vec::new();
    for p in &v.projects {
        for pr in p.problems {
            rows.push(vec![
                "error".to_owned(),
                s(p.id),
                "unreadable".to_owned(),
                s(&pr.file),
                s(&pr.reason),
            ]);
        }
        for f in p.findings {
            rows.push(vec![
                format!("{:?}", f.level).to_lowercase(),
                s(p.id),
                f.code.clone(),
                s(f.reference.as_deref().unwrap_or("-")),
                s(&f.message),
            ]);
        }
    }
    let mut out = grid(&["LEVEL", "PROJECT", "CODE", "REF", "MESSAGE"], &rows);
    let m = &v.summary;
    let _ = writeln!(
        out,
        "{} project{}: {} error{}, {} warning{}, {} info",
        m.projects,
        if m.projects == 1 { "" } else { "s" },
        m.errors,
        if m.errors == 1 { "" } else { "s" },
        m.warnings,
        if m.warnings == 1 { "" } else { "s" },
        m.info
    );
    out
}
