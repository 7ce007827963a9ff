//! Every string of a project, for tests: the model keeps strings as the
//! files hold them, and the tests prove that each one, however hostile, is
//! drawn safe by the view and printed safe by the plain CLI. `each_string`
//! reaches every string field of [`Project`] (a new field belongs here
//! too, or no test covers it).

use super::*;

/// Apply `f` to every string held by `p` (paths and map keys included).
pub fn each_string(p: &mut Project, f: &mut dyn FnMut(&mut String)) {
    let mut path = p.path.to_string_lossy().into_owned();
    f(&mut path);
    p.path = PathBuf::from(path);
    f(&mut p.id);
    f(&mut p.name);
    f(&mut p.status);
    if let Some(s) = &mut p.stage {
        s.each_text_mut(f);
    }
    f(&mut p.statusline);
    p.blockers.iter_mut().for_each(|b| b.each_text_mut(f));
    for i in &mut p.inbox {
        f(&mut i.reference);
        i.title.each_text_mut(f);
        all(&mut i.options, f);
        opt(&mut i.subject, f);
        if let Some(w) = &mut i.why_not {
            w.each_text_mut(f);
        }
        if let Some(a) = &mut i.act {
            opt(&mut a.target, f);
            all(&mut a.options, f);
        }
    }
    for i in &mut p.answered {
        f(&mut i.reference);
        i.title.each_text_mut(f);
        f(&mut i.answer);
        opt(&mut i.by, f);
        opt(&mut i.subject, f);
        if let Some(a) = &mut i.act {
            opt(&mut a.target, f);
            all(&mut a.options, f);
        }
    }
    for pr in &mut p.problems {
        f(&mut pr.file);
        f(&mut pr.reason);
    }
    for fd in &mut p.findings {
        f(&mut fd.code);
        f(&mut fd.message);
        opt(&mut fd.reference, f);
    }
    let fr = &mut p.frontier;
    for q in fr
        .questions
        .iter_mut()
        .chain(&mut fr.research)
        .chain(&mut fr.blocked)
    {
        question(q, f);
    }
    all(&mut fr.stale_ids, f);
    for d in &mut p.decisions {
        opt(&mut d.id, f);
        f(&mut d.summary);
        opt(&mut d.rationale, f);
        opt(&mut d.stage, f);
    }
    let r = &mut p.resume;
    for said in [&mut r.stopped_at, &mut r.reason, &mut r.waiting_for]
        .into_iter()
        .flatten()
    {
        said.each_text_mut(f);
    }
    opt(&mut r.last_session, f);
    all(&mut r.completed, f);
    all(&mut r.read_first, f);
    detail(&mut p.detail, f);
}

fn opt(s: &mut Option<String>, f: &mut dyn FnMut(&mut String)) {
    if let Some(s) = s {
        f(s);
    }
}

fn all(v: &mut [String], f: &mut dyn FnMut(&mut String)) {
    v.iter_mut().for_each(f);
}

fn short(s: &mut compact_str::CompactString, f: &mut dyn FnMut(&mut String)) {
    let mut owned = s.to_string();
    f(&mut owned);
    *s = owned.into();
}

fn keys<V>(m: &mut std::collections::BTreeMap<String, V>, f: &mut dyn FnMut(&mut String)) {
    *m = std::mem::take(m)
        .into_iter()
        .map(|(mut k, v)| {
            f(&mut k);
            (k, v)
        })
        .collect();
}

fn question(q: &mut Question, f: &mut dyn FnMut(&mut String)) {
    f(&mut q.id);
    f(&mut q.title);
    f(&mut q.kind);
    opt(&mut q.priority, f);
    opt(&mut q.owner, f);
    opt(&mut q.status, f);
    all(&mut q.waiting_on, f);
    opt(&mut q.evidence_needed, f);
    opt(&mut q.acceptance_threshold, f);
    opt(&mut q.due_by, f);
}

fn run(r: &mut Run, f: &mut dyn FnMut(&mut String)) {
    f(&mut r.run_id);
    opt(&mut r.unit_id, f);
    opt(&mut r.loop_name, f);
    opt(&mut r.next_action, f);
    for fl in &mut r.failures {
        f(&mut fl.test);
        f(&mut fl.expected);
        f(&mut fl.got);
        opt(&mut fl.hint, f);
    }
}

fn detail(d: &mut Detail, f: &mut dyn FnMut(&mut String)) {
    for t in &mut d.tasks {
        f(&mut t.id);
        f(&mut t.title);
        f(&mut t.status);
        opt(&mut t.locator, f);
        opt(&mut t.started_at, f);
        opt(&mut t.completed_at, f);
        opt(&mut t.commit, f);
        for g in &mut t.gates {
            f(&mut g.command);
            opt(&mut g.last_run, f);
            opt(&mut g.evidence, f);
        }
        if let Some(o) = &mut t.outcome {
            all(&mut o.tried, f);
            all(&mut o.failed, f);
            opt(&mut o.worked, f);
            opt(&mut o.notes, f);
        }
    }
    if let Some(c) = &mut d.checkpoint {
        opt(&mut c.task, f);
        opt(&mut c.step, f);
        opt(&mut c.at, f);
        opt(&mut c.note, f);
    }
    for u in &mut d.units {
        short(&mut u.id, f);
        short(&mut u.kind, f);
        short(&mut u.status, f);
        u.depends_on.iter_mut().for_each(|s| short(s, f));
        u.downstream.iter_mut().for_each(|s| short(s, f));
        if let Some(m) = &mut u.more {
            opt(&mut m.contract_hash, f);
            opt(&mut m.last_run, f);
            m.runs.iter_mut().for_each(|r| run(r, f));
            opt(&mut m.contract, f);
            all(&mut m.acceptance, f);
        }
    }
    if let Some(dag) = &mut d.dag {
        dag.cycles.iter_mut().for_each(|c| all(c, f));
        for r in &mut dag.unknown_refs {
            f(&mut r.unit);
            f(&mut r.depends_on);
        }
    }
    for a in &mut d.agents {
        f(&mut a.agent);
        f(&mut a.status);
        opt(&mut a.step, f);
        opt(&mut a.doing, f);
        opt(&mut a.unit, f);
        opt(&mut a.error, f);
    }
    for b in &mut d.bugs {
        f(&mut b.id);
        f(&mut b.status);
        f(&mut b.severity);
        f(&mut b.title);
        opt(&mut b.unit, f);
        if let Some(a) = &mut b.act {
            opt(&mut a.target, f);
            all(&mut a.options, f);
        }
        for h in &mut b.history {
            opt(&mut h.from, f);
            f(&mut h.to);
            opt(&mut h.at, f);
            opt(&mut h.by, f);
            opt(&mut h.note, f);
        }
    }
    if let Some(stats) = &mut d.bug_stats {
        keys(&mut stats.by_status, f);
        keys(&mut stats.by_severity, f);
    }
    keys(&mut d.skipped_lines, f);
    d.integration_runs.iter_mut().for_each(|r| run(r, f));
    for e in d
        .timeline
        .iter_mut()
        .chain(d.revisions.iter_mut().map(|r| &mut r.event))
    {
        f(&mut e.source);
        f(&mut e.kind);
        f(&mut e.summary);
        opt(&mut e.unit, f);
    }
    for r in &mut d.revisions {
        f(&mut r.rev);
        opt(&mut r.trigger, f);
        opt(&mut r.note, f);
        let c = &mut r.changed;
        for list in [
            &mut c.sections_added,
            &mut c.sections_changed,
            &mut c.sections_removed,
            &mut c.units_added,
            &mut c.units_changed,
            &mut c.units_removed,
        ] {
            all(list, f);
        }
        opt(&mut r.archive, f);
        if let Some(s) = &mut r.sections {
            opt(&mut s.old, f);
            opt(&mut s.new, f);
            opt(&mut s.problem, f);
            for c in &mut s.sections {
                f(&mut c.title);
                for l in &mut c.lines {
                    f(&mut l.text);
                }
            }
        }
    }
    if let Some(p) = &mut d.progress {
        f(&mut p.phase);
        for part in &mut p.breakdown {
            f(&mut part.part);
        }
    }
    if let Some(l) = &mut d.loops {
        f(&mut l.l2.status);
        opt(&mut l.l2.last_run, f);
        l.l3.awaiting.iter_mut().for_each(|a| a.each_text_mut(f));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    const MARK: &str = "\u{1b}[0m";

    /// The English words of `p`'s phrases that hold no text from a file
    /// (all loopdeck's own): nothing in them to mark.
    fn own_words(p: &Project) -> std::collections::BTreeSet<String> {
        let i = p.inbox.iter();
        let said = i
            .clone()
            .map(|i| &i.title)
            .chain(i.filter_map(|i| i.why_not.as_ref()))
            .chain(p.answered.iter().map(|a| &a.title))
            .chain(&p.blockers)
            .chain(
                [
                    &p.resume.stopped_at,
                    &p.resume.reason,
                    &p.resume.waiting_for,
                ]
                .into_iter()
                .flatten(),
            )
            .chain(p.detail.loops.iter().flat_map(|l| &l.l3.awaiting));
        said.filter(|s| {
            let mut texts = 0;
            (*s).clone().each_text_mut(&mut |_| texts += 1);
            texts == 0
        })
        .map(|s| s.en().into_owned())
        .collect()
    }

    /// Walk `before` and `after` (the same project, `after` marked by
    /// `each_string`) side by side; every string leaf left unmarked is
    /// pushed to `missed` unless loopdeck wrote it (an enum's name, a
    /// time).
    fn compare(
        key: &str,
        before: &Value,
        after: &Value,
        own: &std::collections::BTreeSet<String>,
        missed: &mut Vec<String>,
    ) {
        const OWN: &[&str] = &["format", "status_kind", "level", "verb", "kind"];
        match (before, after) {
            (Value::String(b), Value::String(a)) => {
                let ours = OWN.contains(&key)
                    && b.bytes()
                        .all(|c| c.is_ascii_lowercase() || c == b'-' || c == b'_')
                    || chrono::DateTime::parse_from_rfc3339(b).is_ok();
                // loopdeck's own sentence (a `Phrase`): every text from a
                // file inside it marked, or none there to mark.
                let said =
                    a.contains(MARK) && a.replace(MARK, "") == *b || a == b && own.contains(b);
                if a != &format!("{b}{MARK}") && !(ours && a == b) && !said {
                    missed.push(format!("{key}: {b:?} -> {a:?}"));
                }
            }
            (Value::Array(b), Value::Array(a)) => {
                assert_eq!(b.len(), a.len());
                for (x, y) in b.iter().zip(a) {
                    compare(key, x, y, own, missed);
                }
            }
            (Value::Object(b), Value::Object(a)) => {
                assert_eq!(b.len(), a.len(), "{key}");
                for ((kb, x), (ka, y)) in b.iter().zip(a) {
                    if kb != ka && ka != &format!("{kb}{MARK}") {
                        missed.push(format!("key {kb:?} -> {ka:?}"));
                    }
                    compare(kb, x, y, own, missed);
                }
            }
            (b, a) => assert_eq!(b, a, "{key}"),
        }
    }

    /// Every string of every example project is reached: a string field
    /// added to the model without a line in `each_string` fails here (and
    /// then no hostile-string test would cover it).
    #[test]
    fn every_string_of_every_example_project_is_reached() {
        let ws = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("examples/workspace");
        let projects = crate::formats::discover(&[ws]).projects;
        assert!(projects.len() > 15, "{}", projects.len());
        let mut missed = Vec::new();
        for p in projects {
            let mut marked = p.clone();
            each_string(&mut marked, &mut |s| s.push_str(MARK));
            let (mut b, mut a) = (
                serde_json::to_value(&p).unwrap(),
                serde_json::to_value(&marked).unwrap(),
            );
            // The stamps are loopdeck's, computed from the bytes.
            for v in [&mut b, &mut a] {
                v.as_object_mut().unwrap().remove("files");
            }
            compare("", &b, &a, &own_words(&p), &mut missed);
        }
        assert!(missed.is_empty(), "{missed:#?}");
    }
}
