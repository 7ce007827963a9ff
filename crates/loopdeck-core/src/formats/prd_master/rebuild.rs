//! The seed's fallback when `state.json` is missing or corrupt: infer the
//! work type and stage from the deliverables on disk, first match wins.

use std::path::Path;

use crate::formats::dated::{self, Recorded};
use crate::store;
use crate::store::ndjson::{RevLine, ReverseLines};

/// The heading that marks a confirmed value argument in the scene anchor.
pub(crate) const VALUE_SECTION: &str = "价值论证（阶段 2 已确认）";
pub(crate) const SCENE_ANCHOR: &str = "scene-anchor.md";

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rebuilt {
    pub work_type: Option<&'static str>,
    pub stage: String,
    /// The deliverable that decided the stage (relative path), if any.
    pub evidence: Option<String>,
}

fn exists(dir: &Path, rel: &str) -> bool {
    store::contained_file(dir, rel).is_some()
}

/// Does the scene anchor (at `anchor`, relative to the project) hold the
/// confirmed value-argument section?
pub(crate) fn scene_anchor_has_value(dir: &Path, anchor: &str) -> bool {
    store::read_in(dir, anchor, store::STATE_FILE_LIMIT)
        .is_ok_and(|b| String::from_utf8_lossy(&b).contains(VALUE_SECTION))
}

/// How much of a conversation's end is read to date it: exchanges are
/// appended, so the newest are there, whatever the file has grown to.
const CONVERSATION_TAIL: u64 = 1024 * 1024;

/// The latest moment `conversation` (relative to the project) dates an
/// exchange with: the time at the start of a heading, as loopdeck's own
/// answers append them (`## 2026-06-01T11:28:00Z · 阶段 1 · OQ-6`) and as
/// people write them (`## 2026-05-20 06:30 UTC · 阶段 5.3`), among the
/// headings of its last [`CONVERSATION_TAIL`] bytes. `None` when they date
/// none (or it cannot be read).
pub(crate) fn conversation_dated(dir: &Path, conversation: &str) -> Option<Recorded> {
    let mut lines = ReverseLines::open_in(dir, conversation, CONVERSATION_TAIL).ok()?;
    let mut records = Vec::new();
    while let Ok(Some(line)) = lines.next_line() {
        let RevLine::Line(line) = line else { continue };
        let line = String::from_utf8_lossy(line);
        if let Some(heading) = line.trim_start().strip_prefix('#')
            && let Some(r) = dated::recorded(heading.trim_start_matches('#').trim())
        {
            records.push(r);
        }
    }
    dated::latest(records)
}

/// Page ids `p01`..`pNN` declared in `output/ppt.md`.
fn declared_pages(text: &str) -> Vec<String> {
    let mut pages = Vec::new();
    let b = text.as_bytes();
    for i in 0..b.len().saturating_sub(2) {
        let boundary = i == 0 || !b[i - 1].is_ascii_alphanumeric();
        let end_ok = b.get(i + 3).is_none_or(|c| !c.is_ascii_digit());
        if boundary
            && b[i] == b'p'
            && b[i + 1].is_ascii_digit()
            && b[i + 2].is_ascii_digit()
            && end_ok
        {
            let id = text[i..i + 3].to_owned();
            if !pages.contains(&id) {
                pages.push(id);
            }
        }
    }
    pages
}

/// Is page `id` on disk? A file named `id*` in `output/`, `output/ppt/` or
/// `output/pages/` (the seed does not fix the page file name).
fn page_exists(dir: &Path, id: &str) -> bool {
    ["output", "output/ppt", "output/pages"].iter().any(|sub| {
        store::list_names(&dir.join(sub)).iter().any(|n| {
            n.starts_with(id)
                && n != "ppt.md"
                && store::contained_file(dir, &format!("{sub}/{n}")).is_some()
        })
    })
}

/// A `drafts/r3-*.md` inside the project (a `drafts` link out of it counts
/// for nothing).
fn drafts_r3(dir: &Path) -> Option<String> {
    store::list_names(&dir.join("drafts"))
        .into_iter()
        .filter(|n| n.starts_with("r3-") && n.ends_with(".md"))
        .map(|n| format!("drafts/{n}"))
        .find(|rel| store::contained_file(dir, rel).is_some())
}

pub(crate) fn rebuild(dir: &Path) -> Rebuilt {
    let work_type = if exists(dir, "output/bugfix.md") {
        Some("bugfix")
    } else if exists(dir, "output/requirements.md") {
        Some("feature")
    } else {
        None
    };
    let (stage, evidence) = stage(dir);
    Rebuilt {
        work_type,
        stage: stage.to_owned(),
        evidence,
    }
}

fn stage(dir: &Path) -> (&'static str, Option<String>) {
    if exists(dir, "output/ppt.md") {
        let text = store::contained(dir, "output/ppt.md")
            .and_then(|p| store::read_bounded(&p, store::STATE_FILE_LIMIT))
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        let pages = declared_pages(&text);
        let all = !pages.is_empty() && pages.iter().all(|p| page_exists(dir, p));
        return (
            if all { "6.3" } else { "6.2" },
            Some("output/ppt.md".to_owned()),
        );
    }
    if exists(dir, "output/requirements.md") {
        return ("需求契约已生成", Some("output/requirements.md".to_owned()));
    }
    if exists(dir, "output/PRD详细版.md") {
        return (
            "PRD 已生成，待需求契约",
            Some("output/PRD详细版.md".to_owned()),
        );
    }
    if let Some(d) = drafts_r3(dir) {
        return ("5.3", Some(d));
    }
    if exists(dir, "proposal-v1.md") {
        return ("4.5", Some("proposal-v1.md".to_owned()));
    }
    if exists(dir, SCENE_ANCHOR) {
        let stage = if scene_anchor_has_value(dir, SCENE_ANCHOR) {
            "3"
        } else {
            "1.5"
        };
        return (stage, Some(SCENE_ANCHOR.to_owned()));
    }
    ("0", None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let t = tempfile::tempdir().unwrap();
        for (name, content) in files {
            let p = t.path().join(name);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, content).unwrap();
        }
        t
    }

    #[test]
    fn chain_order_follows_the_seed() {
        type Case<'a> = (Vec<(&'a str, &'a str)>, &'a str, Option<&'a str>);
        let cases: Vec<Case> = vec![
            (vec![], "0", None),
            (vec![("scene-anchor.md", "# 场景")], "1.5", None),
            (
                vec![("scene-anchor.md", "## 价值论证（阶段 2 已确认）")],
                "3",
                None,
            ),
            (
                vec![("scene-anchor.md", "x"), ("proposal-v1.md", "v1")],
                "4.5",
                None,
            ),
            (
                vec![("proposal-v1.md", "v1"), ("drafts/r3-a.md", "r3")],
                "5.3",
                None,
            ),
            (
                vec![("drafts/r3-a.md", "r3"), ("output/PRD详细版.md", "prd")],
                "PRD 已生成，待需求契约",
                None,
            ),
            (
                vec![("output/requirements.md", "req")],
                "需求契约已生成",
                Some("feature"),
            ),
            (
                vec![
                    ("output/bugfix.md", "b"),
                    ("output/ppt.md", "p01 p02"),
                    ("output/p01.md", ""),
                ],
                "6.2",
                Some("bugfix"),
            ),
            (
                vec![
                    ("output/ppt.md", "- p01 封面\n- p02 问题"),
                    ("output/p01.md", ""),
                    ("output/ppt/p02-问题.html", ""),
                ],
                "6.3",
                None,
            ),
        ];
        for (files, stage, work_type) in cases {
            let t = tree(&files);
            let r = rebuild(t.path());
            assert_eq!(r.stage, stage, "{files:?}");
            assert_eq!(r.work_type, work_type, "{files:?}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn drafts_outside_the_project_count_for_nothing() {
        let t = tree(&[("outside/r3-x.md", "r3"), ("p/proposal-v1.md", "v1")]);
        std::os::unix::fs::symlink(t.path().join("outside"), t.path().join("p/drafts")).unwrap();
        assert_eq!(rebuild(&t.path().join("p")).stage, "4.5");
    }
}
