//! The PRD and SDD compared section by section between a revision and the
//! one before it (seed 003's PrdDiffPanel: "section-level diff", seed 004:
//! "the Dashboard's diff view reads history/ directly"). A revision's text
//! is `history/{doc}-rev-{N}.html`, or the current `prd.html` / `sdd.html`
//! for the newest; the one before is the changelog's `archive_ref`.
//!
//! A section is a `<section>` (keyed by `data-unit-id` or `id` when it has
//! one, else by its first `h1`-`h3`), or a heading outside any section and
//! the text up to the next one. Nested sections belong to their outer one;
//! the `<footer data-changelog>` (the changelog again) is left out.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use similar::{Algorithm, DiffOp, DiffTag, TextDiff};

use super::html::{self, rev_number, squash};
use super::timeline::HISTORY_DIR;
use crate::model::{
    DiffLine, DocDiff, Finding, Level, LineKind, Project, Revision, SectionChange, SectionKind,
};
use crate::store::StoreError;

/// The newest PRD and SDD revisions compared at each reading; older ones
/// are listed without their sections.
pub(crate) const COMPARED: usize = 4;
/// A document larger than this is not compared.
pub(crate) const DOC_LIMIT: u64 = 1024 * 1024;
/// Sections of a document compared, at most.
const MAX_SECTIONS: usize = 500;
/// Lines of a section compared, at most.
const MAX_LINES: usize = 2000;
/// Diff lines kept per section.
pub(crate) const SHOWN_LINES: usize = 8;
/// Context lines around a change.
const CONTEXT: usize = 1;

/// One section of a document: its key (to match it across revisions), its
/// title and its text, one line per block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Section {
    pub key: String,
    pub title: String,
    pub lines: Vec<String>,
}

/// A document split into sections; `truncated` when it had more than
/// [`MAX_SECTIONS`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Sections {
    pub sections: Vec<Section>,
    pub truncated: bool,
}

/// Tags that end a line of text.
const BLOCKS: &[&str] = &[
    "p",
    "li",
    "pre",
    "div",
    "tr",
    "br",
    "ul",
    "ol",
    "dl",
    "dt",
    "dd",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "blockquote",
    "table",
    "section",
    "article",
    "header",
    "footer",
    "aside",
    "hr",
    "nav",
    "main",
];

#[derive(Default)]
struct Draft {
    key: Option<String>,
    title: Option<String>,
    text: String,
}

fn is_heading(name: &str) -> bool {
    matches!(name, "h1" | "h2" | "h3")
}

/// Whether tag `name` ends a heading left open: a section's start or end,
/// another heading, or the start of a block of body text. (`div` and
/// `span` do not: generators wrap a heading's words in them.)
fn ends_title(name: &str, end: bool) -> bool {
    name == "section"
        || !end
            && (is_heading(name)
                || matches!(
                    name,
                    "p" | "pre" | "ul" | "ol" | "dl" | "table" | "blockquote" | "hr"
                ))
}

/// Split `html` into its sections, in document order.
pub(crate) fn sections(html: &str) -> Sections {
    let tokens = html::tokens(html);
    let mut drafts: Vec<Draft> = Vec::new();
    // Text outside every section and heading (an aside, a preamble).
    let mut outside = Draft {
        key: Some("(outside sections)".to_owned()),
        ..Draft::default()
    };
    let mut current: Option<usize> = None;
    // How deep inside the current `<section>` (0: not in one).
    let mut depth = 0usize;
    // Inside a `<footer data-changelog>` or a raw-text element.
    let mut skip: Option<&str> = None;
    // The heading whose text becomes the current section's title.
    let mut title: Option<String> = None;
    let mut truncated = false;
    for token in &tokens {
        let t = match token {
            html::Token::Tag(t) => t,
            html::Token::Text(text) => {
                if skip.is_none() {
                    match &mut title {
                        Some(buf) => buf.push_str(text),
                        None => match current {
                            Some(i) => drafts[i].text.push_str(text),
                            None => outside.text.push_str(text),
                        },
                    }
                }
                continue;
            }
        };
        if let Some(name) = skip {
            if t.end && t.name == name {
                skip = None;
            }
            continue;
        }
        let name = t.name.as_ref();
        // A heading left open (`<h2>Title<p>…`) ends where its section's
        // text or the next section begins, so the next section never ends
        // up in its title.
        if title.is_some()
            && ends_title(name, t.end)
            && let (Some(buf), Some(i)) = (title.take(), current)
        {
            drafts[i].title = Some(squash(&buf));
        }
        if !t.end
            && (matches!(name, "script" | "style" | "template")
                || name == "footer" && t.has("data-changelog"))
        {
            skip = Some(match name {
                "script" => "script",
                "style" => "style",
                "template" => "template",
                _ => "footer",
            });
            continue;
        }
        if name == "section" && !t.end {
            depth += 1;
            if depth == 1 {
                if drafts.len() >= MAX_SECTIONS {
                    truncated = true;
                } else {
                    let key = t
                        .attr("data-unit-id")
                        .or_else(|| t.attr("id"))
                        .map(squash)
                        .filter(|k| !k.is_empty());
                    drafts.push(Draft {
                        key,
                        ..Draft::default()
                    });
                    current = Some(drafts.len() - 1);
                }
                continue;
            }
        }
        if name == "section" && t.end && depth > 0 {
            depth -= 1;
            if depth == 0 {
                current = None;
            }
            continue;
        }
        if is_heading(name) {
            if !t.end && title.is_none() {
                let untitled = current.is_some_and(|i| drafts[i].title.is_none());
                if depth == 0 {
                    // A heading outside every section starts one.
                    if drafts.len() >= MAX_SECTIONS {
                        truncated = true;
                    } else {
                        drafts.push(Draft::default());
                        current = Some(drafts.len() - 1);
                        title = Some(String::new());
                    }
                } else if untitled {
                    title = Some(String::new());
                }
            } else if t.end
                && let Some(buf) = title.take()
                && let Some(i) = current
            {
                drafts[i].title = Some(squash(&buf));
            }
        }
        if BLOCKS.contains(&name) {
            match &mut title {
                Some(buf) => buf.push(' '),
                None => match current {
                    Some(i) => drafts[i].text.push('\n'),
                    None => outside.text.push('\n'),
                },
            }
        }
    }
    if let (Some(buf), Some(i)) = (title, current) {
        drafts[i].title = Some(squash(&buf));
    }
    let outside_has_text = outside.text.lines().any(|l| !l.trim().is_empty());
    let mut seen: HashSet<String> = HashSet::new();
    let mut out = Vec::new();
    for (n, d) in drafts
        .into_iter()
        .chain(outside_has_text.then_some(outside))
        .enumerate()
    {
        let title = d.title.filter(|t| !t.is_empty());
        let base = d
            .key
            .clone()
            .or_else(|| title.clone())
            .unwrap_or_else(|| format!("section {}", n + 1));
        let mut key = base.clone();
        let mut k = 2;
        while !seen.insert(key.clone()) {
            key = format!("{base} ({k})");
            k += 1;
        }
        let lines: Vec<String> = d
            .text
            .lines()
            .map(squash)
            .filter(|l| !l.is_empty())
            .take(MAX_LINES)
            .collect();
        out.push(Section {
            title: title.unwrap_or_else(|| key.clone()),
            key,
            lines,
        });
    }
    Sections {
        sections: out,
        truncated,
    }
}

/// The sections of `old` and `new` that differ, in `new`'s order (a removed
/// section where it stood), and how many are the same.
pub(crate) fn compare(old: &[Section], new: &[Section]) -> (Vec<SectionChange>, usize) {
    let old_keys: Vec<&str> = old.iter().map(|s| s.key.as_str()).collect();
    let new_keys: Vec<&str> = new.iter().map(|s| s.key.as_str()).collect();
    let old_at: HashMap<&str, usize> = old_keys.iter().enumerate().map(|(i, k)| (*k, i)).collect();
    let in_new: HashSet<&str> = new_keys.iter().copied().collect();
    let mut changes = Vec::new();
    let mut same = 0;
    let mut pair = |o: &Section, n: &Section, changes: &mut Vec<SectionChange>| match body_diff(
        &o.lines, &n.lines,
    ) {
        None => same += 1,
        Some((lines, more)) => changes.push(SectionChange {
            title: n.title.clone(),
            kind: SectionKind::Changed,
            lines,
            more,
        }),
    };
    let ops = similar::capture_diff_slices(Algorithm::Myers, &old_keys, &new_keys);
    for op in ops {
        let (tag, olds, news) = op.as_tag_tuple();
        if tag == DiffTag::Equal {
            for (o, n) in olds.zip(news) {
                pair(&old[o], &new[n], &mut changes);
            }
            continue;
        }
        for o in olds {
            if !in_new.contains(old_keys[o]) {
                changes.push(whole(&old[o], SectionKind::Removed));
            }
        }
        for n in news {
            match old_at.get(new_keys[n]) {
                // Moved: compared where it stands now.
                Some(&o) => pair(&old[o], &new[n], &mut changes),
                None => changes.push(whole(&new[n], SectionKind::Added)),
            }
        }
    }
    (changes, same)
}

/// An added or removed section: its first lines.
fn whole(s: &Section, kind: SectionKind) -> SectionChange {
    let line = if kind == SectionKind::Added {
        LineKind::Added
    } else {
        LineKind::Removed
    };
    SectionChange {
        title: s.title.clone(),
        kind,
        lines: s
            .lines
            .iter()
            .take(SHOWN_LINES)
            .map(|l| DiffLine {
                kind: line,
                text: l.clone(),
            })
            .collect(),
        more: s.lines.len().saturating_sub(SHOWN_LINES),
    }
}

/// A few lines of unified diff between two bodies; `None` when equal.
fn body_diff(old: &[String], new: &[String]) -> Option<(Vec<DiffLine>, usize)> {
    if old == new {
        return None;
    }
    let old: Vec<&str> = old.iter().map(String::as_str).collect();
    let new: Vec<&str> = new.iter().map(String::as_str).collect();
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Myers)
        .diff_slices(&old, &new);
    let mut all = Vec::new();
    for (g, group) in diff.grouped_ops(CONTEXT).iter().enumerate() {
        if g > 0 {
            all.push(DiffLine {
                kind: LineKind::Gap,
                text: String::new(),
            });
        }
        for op in group {
            push_op(op, &old, &new, &mut all);
        }
    }
    let more = all.len().saturating_sub(SHOWN_LINES);
    all.truncate(SHOWN_LINES);
    Some((all, more))
}

fn push_op(op: &DiffOp, old: &[&str], new: &[&str], out: &mut Vec<DiffLine>) {
    let (tag, olds, news) = op.as_tag_tuple();
    let line = |kind: LineKind, text: &str| DiffLine {
        kind,
        text: text.to_owned(),
    };
    match tag {
        DiffTag::Equal => out.extend(olds.map(|i| line(LineKind::Context, old[i]))),
        DiffTag::Delete => out.extend(olds.map(|i| line(LineKind::Removed, old[i]))),
        DiffTag::Insert => out.extend(news.map(|i| line(LineKind::Added, new[i]))),
        DiffTag::Replace => {
            out.extend(olds.map(|i| line(LineKind::Removed, old[i])));
            out.extend(news.map(|i| line(LineKind::Added, new[i])));
        }
    }
}

/// The document a revision kind is about, and its current file.
fn document(kind: &str, dir: &Path) -> Option<(&'static str, String)> {
    match kind {
        "prd_rev" => {
            let file = if crate::store::contained_file(dir, "prd.html").is_none()
                && crate::store::contained_file(dir, "prd/index.html").is_some()
            {
                "prd/index.html"
            } else {
                "prd.html"
            };
            Some(("prd", file.to_owned()))
        }
        "sdd_rev" => Some(("sdd", "sdd.html".to_owned())),
        _ => None,
    }
}

/// A document read and split, kept between readings while it does not
/// change.
fn read_sections(dir: &Path, file: &str) -> Result<Arc<Sections>, StoreError> {
    crate::store::cache::memo_in(dir, file, DOC_LIMIT, |bytes| {
        Arc::new(sections(&crate::formats::text_of(bytes).0))
    })
}

/// Fill `sections` of the newest [`COMPARED`] PRD and SDD revisions of
/// `p.detail.revisions` (oldest first), for the headless commands that
/// print them (`show`, `check`). `archived`: the list came from the
/// `history/` names alone (each revision is its own archive; the current
/// file is not one of them). The console compares one revision when its
/// drawer opens ([`compare_revision`]).
pub(crate) fn compare_documents(p: &mut Project, dir: &Path, archived: bool) {
    let wanted: Vec<usize> = (0..p.detail.revisions.len())
        .rev()
        .filter(|&i| document(&p.detail.revisions[i].event.kind, dir).is_some())
        .take(COMPARED)
        .collect();
    for i in wanted {
        let Some((diff, findings)) = compare_revision(&p.detail.revisions, i, dir, archived) else {
            continue;
        };
        p.detail.revisions[i].sections = Some(diff);
        for f in findings {
            if !p
                .findings
                .iter()
                .any(|x| x.code == f.code && x.message == f.message)
            {
                p.findings.push(f);
            }
        }
    }
}

/// Whether the revisions of the project in `dir` come from the `history/`
/// names alone (there is no changelog).
pub(crate) fn archived(dir: &Path) -> bool {
    crate::store::contained_file(dir, super::timeline::CHANGELOG).is_none()
}

/// The section diff of revision `i` of `revs` (a PRD or SDD revision)
/// against the revision of its kind before it, and the findings of
/// archives that could not be read. `None`: not a PRD or SDD revision.
pub(crate) fn compare_revision(
    revs: &[Revision],
    i: usize,
    dir: &Path,
    archived: bool,
) -> Option<(DocDiff, Vec<Finding>)> {
    let r = revs.get(i)?;
    let (doc, current) = document(&r.event.kind, dir)?;
    let Some(n) = rev_number(&r.rev) else {
        let diff = DocDiff {
            problem: Some(format!(
                "rev {:?} is not a number: nothing to compare",
                r.rev
            )),
            ..DocDiff::default()
        };
        return Some((diff, Vec::new()));
    };
    let same_kind = |j: &usize| revs[*j].event.kind == r.event.kind;
    let newest = (0..revs.len())
        .filter(same_kind)
        .filter_map(|j| rev_number(&revs[j].rev))
        .max()
        .unwrap_or(n);
    let before = (0..i)
        .rev()
        .filter(same_kind)
        .filter_map(|j| rev_number(&revs[j].rev))
        .find(|&m| m < n);
    let new_file = if n == newest && !archived {
        current
    } else {
        format!("{HISTORY_DIR}/{doc}-rev-{n}.html")
    };
    let named = r.archive.clone().filter(|_| !archived);
    let old_file = named.clone().or_else(|| {
        before
            .or(n.checked_sub(1).filter(|&m| m > 0))
            .map(|m| format!("{HISTORY_DIR}/{doc}-rev-{m}.html"))
    });
    let mut diff = DocDiff {
        old: old_file.clone(),
        new: Some(new_file.clone()),
        ..DocDiff::default()
    };
    let mut findings = Vec::new();
    let mut problems = Vec::new();
    let mut load = |file: &str| match read_sections(dir, file) {
        Ok(s) => Some(s),
        Err(e) => {
            let gone = matches!(e, StoreError::Vanished);
            let why = if gone {
                "is not there".to_owned()
            } else {
                e.to_string()
            };
            // An archive the changelog names is reported once, by the
            // changelog's own check; a current document that is missing,
            // by the PRD and SDD readers.
            let archive = file.starts_with(&format!("{HISTORY_DIR}/"));
            if archive && (named.as_deref() != Some(file) || !gone) {
                findings.push(
                    Finding::new(
                        Level::Info,
                        "devloop.history-unreadable",
                        format!(
                            "{} rev {} cannot be compared with the revision before: {file} {why}",
                            doc, r.rev
                        ),
                    )
                    .at(file),
                );
            }
            problems.push(format!("{file} {why}"));
            None
        }
    };
    let new_doc = load(&new_file);
    let old_doc = match &old_file {
        Some(f) => load(f),
        None => Some(Arc::new(Sections::default())),
    };
    if let (Some(o), Some(nw)) = (&old_doc, &new_doc) {
        let (sections, unchanged) = compare(&o.sections, &nw.sections);
        diff.sections = sections;
        diff.unchanged = unchanged;
        if o.truncated || nw.truncated {
            problems.push(format!(
                "only the first {MAX_SECTIONS} sections are compared"
            ));
        }
    }
    if !problems.is_empty() {
        diff.problem = Some(problems.join("; "));
    }
    Some((diff, findings))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::devloop::timeline::{CHANGELOG, changelog};
    use crate::model::Format;
    use std::fs;

    const OLD: &str = r#"<!-- PM Agent 维护 -->
<article data-doc="prd" data-rev="2">
  <h1>补货</h1>
  <section data-rev="1"><h3>每日建议单</h3><p>09:00 前生成。</p><p>只出建议。</p></section>
  <section data-rev="1"><h3>依据</h3><p>可售天数。</p></section>
  <section data-unit-id="a-be"><h3>Unit · a-be</h3><pre>GET /a
200 { x }</pre></section>
  <footer data-changelog><p>rev 1 · init</p></footer>
</article>"#;

    const NEW: &str = r#"<!-- PM Agent 维护 -->
<article data-doc="prd" data-rev="3">
  <h1>补货</h1>
  <section data-rev="1"><h3>每日建议单</h3><p>09:00 前生成。</p><p>只出建议，&amp; 不下单。</p></section>
  <section data-unit-id="a-be"><h3>Unit · a-be (renamed)</h3><pre>GET /a
200 { x }</pre></section>
  <section data-rev="3"><h3>按箱规取整</h3><p>向上取整。</p></section>
  <footer data-changelog><p>rev 1 · init</p><p>rev 3 · 箱规</p></footer>
</article>"#;

    #[test]
    fn a_document_splits_into_sections_by_section_and_heading() {
        let s = sections(OLD);
        assert!(!s.truncated);
        let keys: Vec<&str> = s.sections.iter().map(|s| s.key.as_str()).collect();
        // The comment and the changelog footer are left out; the h1 outside
        // every section is one of its own.
        assert_eq!(keys, vec!["补货", "每日建议单", "依据", "a-be"]);
        assert_eq!(s.sections[1].lines, vec!["09:00 前生成。", "只出建议。"]);
        assert_eq!(s.sections[3].title, "Unit · a-be");
        assert_eq!(s.sections[3].lines, vec!["GET /a", "200 { x }"]);
    }

    #[test]
    fn a_heading_left_open_ends_at_its_text_or_the_next_section() {
        let s = sections(
            "<section id=a><h2>Title<p>Body one</section>\
             <section id=b><h3>Next<section id=c><h2>Inner</h2></section></section>\
             <h2><span>Wrapped</span> words</h2><p>after</p>",
        );
        let got: Vec<(&str, &str, Vec<&str>)> = s
            .sections
            .iter()
            .map(|x| {
                let lines = x.lines.iter().map(String::as_str).collect();
                (x.key.as_str(), x.title.as_str(), lines)
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("a", "Title", vec!["Body one"]),
                ("b", "Next", vec!["Inner"]),
                ("Wrapped words", "Wrapped words", vec!["after"]),
            ]
        );
    }

    #[test]
    fn sections_are_compared_added_removed_changed_with_a_few_diff_lines() {
        let (changes, same) = compare(&sections(OLD).sections, &sections(NEW).sections);
        let got: Vec<(SectionKind, &str)> =
            changes.iter().map(|c| (c.kind, c.title.as_str())).collect();
        assert_eq!(
            got,
            vec![
                (SectionKind::Changed, "每日建议单"),
                (SectionKind::Removed, "依据"),
                (SectionKind::Added, "按箱规取整"),
            ]
        );
        // The h1 and the unit (matched by its id, retitled, same text).
        assert_eq!(same, 2);
        let lines: Vec<(char, &str)> = changes[0]
            .lines
            .iter()
            .map(|l| (l.kind.sign(), l.text.as_str()))
            .collect();
        assert_eq!(
            lines,
            vec![
                (' ', "09:00 前生成。"),
                ('-', "只出建议。"),
                ('+', "只出建议，& 不下单。"),
            ]
        );
        assert_eq!(changes[1].lines[0].kind, LineKind::Removed);
        assert_eq!(changes[2].lines[0].text, "向上取整。");
    }

    #[test]
    fn a_long_change_keeps_a_few_lines_and_counts_the_rest() {
        let body = |n: usize, tag: &str| {
            (0..n)
                .map(|i| format!("<p>{tag} {i}</p>"))
                .collect::<String>()
        };
        let old = format!("<section id=s><h2>S</h2>{}</section>", body(30, "old"));
        let new = format!("<section id=s><h2>S</h2>{}</section>", body(30, "new"));
        let (changes, _) = compare(&sections(&old).sections, &sections(&new).sections);
        assert_eq!(changes[0].lines.len(), SHOWN_LINES);
        assert_eq!(changes[0].more, 60 - SHOWN_LINES);
    }

    fn project(d: &Path) -> Project {
        Project::new(Format::Devloop, d.to_path_buf(), "x".into())
    }

    /// The changelog as a reading takes it (no section diffs: most views
    /// never show them), then completed as `show` and `check` do.
    fn read(p: &mut Project, d: &Path) {
        changelog(p, d);
        assert!(
            p.detail.revisions.iter().all(|r| r.sections.is_none()),
            "a reading compares nothing"
        );
        crate::formats::complete(p);
    }

    fn line(kind: &str, rev: u64, archive: &str) -> String {
        format!(
            "{{\"ts\":\"2026-06-01T10:0{rev}:00Z\",\"kind\":\"{kind}\",\"rev\":{rev},\"by\":\"pm-agent\",\"trigger\":\"human_feedback\",\"summary\":\"s{rev}\",\"diff\":{{\"sections_added\":[\"#按箱规取整\"]}},\"archive_ref\":\"{archive}\"}}\n"
        )
    }

    /// Revision 2 is compared with its archive, the newest with the
    /// current file; a torn last line is left out (and said).
    #[test]
    fn the_reader_compares_each_revision_with_the_one_before() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        fs::create_dir_all(d.join("history")).unwrap();
        fs::write(d.join("history/prd-rev-1.html"), OLD).unwrap();
        fs::write(d.join("history/prd-rev-2.html"), OLD).unwrap();
        fs::write(d.join("prd.html"), NEW).unwrap();
        let mut text = line("prd_rev", 1, "");
        text.push_str(&line("prd_rev", 2, "history/prd-rev-1.html"));
        text.push_str(&line("prd_rev", 3, "history/prd-rev-2.html"));
        text.push_str("{\"ts\":\"2026-06-01T11:00:00Z\",\"kind\":\"prd_rev\",\"rev\":4");
        fs::write(d.join(CHANGELOG), text).unwrap();
        let mut p = project(d);
        read(&mut p, d);
        let r = &p.detail.revisions;
        assert_eq!(r.len(), 3, "the torn line is not a revision");
        assert!(p.findings.iter().any(|f| f.code == "devloop.torn-line"));
        assert_eq!(r[2].changed.sections_added, vec!["#按箱规取整"]);
        assert_eq!(r[2].note.as_deref(), Some("s3"));
        let first = r[0].sections.as_ref().unwrap();
        assert_eq!(first.old, None);
        assert!(first.sections.iter().all(|s| s.kind == SectionKind::Added));
        let second = r[1].sections.as_ref().unwrap();
        assert!(second.sections.is_empty() && second.problem.is_none());
        assert_eq!(second.unchanged, 4);
        let third = r[2].sections.as_ref().unwrap();
        assert_eq!(third.old.as_deref(), Some("history/prd-rev-2.html"));
        assert_eq!(third.new.as_deref(), Some("prd.html"));
        assert_eq!(third.sections.len(), 3);
        assert!(p.problems.is_empty(), "{:?}", p.problems);
    }

    /// Every named character reference decodes in a section's title as a
    /// browser shows it (`&mdash;` used to stay raw), numeric ones too, in
    /// the PRD and the SDD alike.
    #[test]
    fn entities_in_section_titles_show_decoded() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        fs::write(
            d.join("prd.html"),
            r#"<article data-doc="prd" data-rev="1"><section data-rev="1"><h3>补货 &mdash; 每日 &#8212; v&#x32; &copy;</h3><p>x</p></section></article>"#,
        )
        .unwrap();
        fs::write(
            d.join("sdd.html"),
            r#"<article data-doc="sdd"><section data-unit-id="a-be"><h3>x</h3></section><section><h3>Unit &middot; a-be &mdash; login &#x2014; &hellip;</h3></section></article>"#,
        )
        .unwrap();
        let mut text = line("prd_rev", 1, "");
        text.push_str(&line("sdd_rev", 1, ""));
        fs::write(d.join(CHANGELOG), text).unwrap();
        let mut p = project(d);
        read(&mut p, d);
        let titles: Vec<&str> = p
            .detail
            .revisions
            .iter()
            .flat_map(|r| &r.sections.as_ref().unwrap().sections)
            .map(|s| s.title.as_str())
            .collect();
        assert_eq!(
            titles,
            vec!["补货 — 每日 — v2 ©", "x", "Unit · a-be — login — …"]
        );
    }

    /// A history file that is not there: the revision says why, a finding
    /// says it once, the other revisions are still compared.
    #[test]
    fn a_missing_history_file_is_a_problem_not_a_crash() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        fs::create_dir_all(d.join("history")).unwrap();
        fs::write(d.join("history/sdd-rev-1.html"), OLD).unwrap();
        fs::write(d.join("sdd.html"), NEW).unwrap();
        let mut text = line("sdd_rev", 1, "");
        // Revision 2's own archive (history/sdd-rev-2.html) is missing.
        text.push_str(&line("sdd_rev", 2, "history/sdd-rev-1.html"));
        text.push_str(&line("sdd_rev", 3, "history/sdd-rev-2.html"));
        fs::write(d.join(CHANGELOG), text).unwrap();
        let mut p = project(d);
        read(&mut p, d);
        let r = &p.detail.revisions;
        let two = r[1].sections.as_ref().unwrap();
        assert_eq!(
            two.problem.as_deref(),
            Some("history/sdd-rev-2.html is not there")
        );
        assert!(two.sections.is_empty());
        let three = r[2].sections.as_ref().unwrap();
        assert!(three.problem.is_some());
        // The changelog's own check names the archive once; the comparison
        // of revision 2 (which needs it as its text) says so too.
        let codes: Vec<&str> = p.findings.iter().map(|f| f.code.as_str()).collect();
        assert_eq!(
            codes,
            vec!["devloop.archive-missing", "devloop.history-unreadable"]
        );
        assert!(r[0].sections.as_ref().unwrap().problem.is_none());
    }

    /// Without a changelog the archive names are the revisions, in the
    /// order they were written, each compared with the archive of its kind
    /// before it.
    #[test]
    fn archives_alone_are_compared_with_each_other() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        fs::create_dir_all(d.join("history")).unwrap();
        let archive = |name: &str, html: &str, at: &str| {
            let f = d.join("history").join(name);
            fs::write(&f, html).unwrap();
            let t: chrono::DateTime<chrono::Utc> = at.parse().unwrap();
            let t = std::time::SystemTime::from(t);
            fs::File::options()
                .write(true)
                .open(&f)
                .unwrap()
                .set_modified(t)
                .unwrap();
        };
        archive("prd-rev-1.html", OLD, "2026-06-01T09:00:00Z");
        archive("sdd-rev-1.html", OLD, "2026-06-01T10:00:00Z");
        archive("prd-rev-2.html", NEW, "2026-06-01T11:00:00Z");
        let mut p = project(d);
        read(&mut p, d);
        let r: Vec<_> = p
            .detail
            .revisions
            .iter()
            .filter(|r| r.event.kind == "prd_rev")
            .collect();
        let order: Vec<(&str, &str)> = p
            .detail
            .revisions
            .iter()
            .map(|r| (r.event.kind.as_str(), r.rev.as_str()))
            .collect();
        assert_eq!(
            order,
            [("prd_rev", "1"), ("sdd_rev", "1"), ("prd_rev", "2")]
        );
        assert_eq!(r.len(), 2);
        let two = r[1].sections.as_ref().unwrap();
        assert_eq!(two.old.as_deref(), Some("history/prd-rev-1.html"));
        assert_eq!(two.new.as_deref(), Some("history/prd-rev-2.html"));
        assert_eq!(two.sections.len(), 3);
    }

    /// A document beyond the limit is not read, and the revision says so.
    #[test]
    fn a_document_too_large_is_not_compared() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        fs::create_dir_all(d.join("history")).unwrap();
        fs::write(d.join("history/prd-rev-1.html"), OLD).unwrap();
        let big = "<p>x</p>".repeat((DOC_LIMIT as usize) / 8 + 1);
        fs::write(d.join("prd.html"), big).unwrap();
        let mut text = line("prd_rev", 1, "");
        text.push_str(&line("prd_rev", 2, "history/prd-rev-1.html"));
        fs::write(d.join(CHANGELOG), text).unwrap();
        let mut p = project(d);
        read(&mut p, d);
        let two = p.detail.revisions[1].sections.as_ref().unwrap();
        assert!(
            two.problem.as_deref().unwrap().contains("too large"),
            "{:?}",
            two.problem
        );
    }
}
