//! Sanitizing a whole project once, when the console loads it: every string
//! that came from a file is made terminal-safe (see `text.rs`), so nothing
//! drawn later can smuggle an escape sequence to the terminal. One-line
//! fields become single lines; long texts (contracts, notes) keep their line
//! breaks for the view to split.

use super::text::{sanitize_line, sanitize_text};
use super::*;

fn line(s: &mut String) {
    if let std::borrow::Cow::Owned(clean) = sanitize_line(s) {
        *s = clean;
    }
}

fn text(s: &mut String) {
    if let std::borrow::Cow::Owned(clean) = sanitize_text(s) {
        *s = clean;
    }
}

fn opt(s: &mut Option<String>) {
    if let Some(s) = s {
        line(s);
    }
}

fn all(v: &mut [String]) {
    v.iter_mut().for_each(line);
}

/// [`line`] for the compact strings of units (replaced only when unsafe).
fn short(s: &mut compact_str::CompactString) {
    if let std::borrow::Cow::Owned(clean) = sanitize_line(s) {
        *s = clean.into();
    }
}

/// Make every file-derived string of `p` safe to draw.
pub fn sanitize_project(p: &mut Project) {
    line(&mut p.id);
    line(&mut p.name);
    line(&mut p.status);
    opt(&mut p.stage);
    line(&mut p.statusline);
    all(&mut p.blockers);
    for i in &mut p.inbox {
        line(&mut i.reference);
        line(&mut i.title);
        all(&mut i.options);
        opt(&mut i.subject);
    }
    for pr in &mut p.problems {
        line(&mut pr.file);
        line(&mut pr.reason);
    }
    for f in &mut p.findings {
        line(&mut f.message);
        opt(&mut f.reference);
    }
    let fr = &mut p.frontier;
    for q in fr
        .questions
        .iter_mut()
        .chain(&mut fr.research)
        .chain(&mut fr.blocked)
    {
        question(q);
    }
    all(&mut fr.stale_ids);
    for d in &mut p.decisions {
        opt(&mut d.id);
        line(&mut d.summary);
        opt(&mut d.rationale);
        opt(&mut d.stage);
    }
    let r = &mut p.resume;
    opt(&mut r.stopped_at);
    opt(&mut r.reason);
    opt(&mut r.waiting_for);
    opt(&mut r.last_session);
    all(&mut r.completed);
    all(&mut r.read_first);
    detail(&mut p.detail);
}

fn question(q: &mut Question) {
    line(&mut q.id);
    line(&mut q.title);
    line(&mut q.kind);
    opt(&mut q.priority);
    opt(&mut q.owner);
    opt(&mut q.status);
    all(&mut q.waiting_on);
    opt(&mut q.evidence_needed);
    opt(&mut q.acceptance_threshold);
    opt(&mut q.due_by);
}

fn run(r: &mut Run) {
    line(&mut r.run_id);
    opt(&mut r.unit_id);
    opt(&mut r.loop_name);
    opt(&mut r.next_action);
    for f in &mut r.failures {
        line(&mut f.test);
        line(&mut f.expected);
        line(&mut f.got);
        opt(&mut f.hint);
    }
}

fn detail(d: &mut Detail) {
    for t in &mut d.tasks {
        line(&mut t.id);
        line(&mut t.title);
        line(&mut t.status);
        opt(&mut t.locator);
        opt(&mut t.started_at);
        opt(&mut t.completed_at);
        opt(&mut t.commit);
        for g in &mut t.gates {
            line(&mut g.command);
            opt(&mut g.last_run);
            opt(&mut g.evidence);
        }
        if let Some(o) = &mut t.outcome {
            all(&mut o.tried);
            all(&mut o.failed);
            opt(&mut o.worked);
            opt(&mut o.notes);
        }
    }
    if let Some(c) = &mut d.checkpoint {
        opt(&mut c.task);
        opt(&mut c.step);
        opt(&mut c.at);
        opt(&mut c.note);
    }
    for u in &mut d.units {
        short(&mut u.id);
        short(&mut u.kind);
        short(&mut u.status);
        u.depends_on.iter_mut().for_each(short);
        u.downstream.iter_mut().for_each(short);
        if let Some(m) = &mut u.more {
            opt(&mut m.contract_hash);
            opt(&mut m.last_run);
            m.runs.iter_mut().for_each(run);
            if let Some(c) = &mut m.contract {
                text(c);
            }
            all(&mut m.acceptance);
        }
    }
    if let Some(dag) = &mut d.dag {
        dag.cycles.iter_mut().for_each(|c| all(c));
        for r in &mut dag.unknown_refs {
            line(&mut r.unit);
            line(&mut r.depends_on);
        }
    }
    for a in &mut d.agents {
        line(&mut a.agent);
        line(&mut a.status);
        opt(&mut a.step);
        opt(&mut a.doing);
        opt(&mut a.unit);
        opt(&mut a.error);
    }
    for b in &mut d.bugs {
        line(&mut b.id);
        line(&mut b.status);
        line(&mut b.severity);
        line(&mut b.title);
        opt(&mut b.unit);
        for h in &mut b.history {
            opt(&mut h.from);
            line(&mut h.to);
            opt(&mut h.at);
            opt(&mut h.by);
            opt(&mut h.note);
        }
    }
    if let Some(stats) = &mut d.bug_stats {
        stats.by_status = std::mem::take(&mut stats.by_status)
            .into_iter()
            .map(|(k, v)| (sanitize_line(&k).into_owned(), v))
            .collect();
        stats.by_severity = std::mem::take(&mut stats.by_severity)
            .into_iter()
            .map(|(k, v)| (sanitize_line(&k).into_owned(), v))
            .collect();
    }
    d.integration_runs.iter_mut().for_each(run);
    for e in d.timeline.iter_mut().chain(&mut d.revisions) {
        line(&mut e.source);
        line(&mut e.kind);
        line(&mut e.summary);
        opt(&mut e.unit);
    }
    if let Some(p) = &mut d.progress {
        line(&mut p.phase);
        for part in &mut p.breakdown {
            line(&mut part.part);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn every_kind_of_field_is_cleaned() {
        let evil = "x\u{1b}]0;t\u{7}\u{202e}";
        let mut p = Project::new(Format::Devloop, PathBuf::from("p"), evil.into());
        p.stage = Some(evil.into());
        p.inbox.push(InboxItem {
            kind: InboxKind::Waiting,
            act: None,
            reference: evil.into(),
            title: evil.into(),
            since: None,
            options: vec![evil.into()],
            subject: None,
        });
        p.detail.timeline.push(Event {
            at: None,
            source: evil.into(),
            kind: evil.into(),
            summary: evil.into(),
            unit: Some(evil.into()),
        });
        let mut u = Unit::new(evil, evil, evil, crate::model::StatusKind::Unknown);
        u.depends_on = Box::new([evil.into()]);
        u.downstream = Box::new([evil.into()]);
        u.layer = Some(0);
        u.more_mut().contract = Some(format!("line1\n{evil}"));
        u.more_mut().acceptance = vec![evil.into()];
        p.detail.units.push(u);
        sanitize_project(&mut p);
        fn strings(v: &serde_json::Value, out: &mut Vec<String>) {
            match v {
                serde_json::Value::String(s) => out.push(s.clone()),
                serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
                serde_json::Value::Object(o) => o.values().for_each(|x| strings(x, out)),
                _ => {}
            }
        }
        let mut found = Vec::new();
        strings(&serde_json::to_value(&p).unwrap(), &mut found);
        assert!(found.len() > 10);
        for s in found {
            assert!(
                !s.chars()
                    .any(|c| (c.is_control() && c != '\n') || c == '\u{202e}'),
                "{s:?}"
            );
        }
        assert_eq!(
            p.detail.units[0].contract(),
            Some("line1\nx^[]0;t^G<U+202E>")
        );
    }
}
