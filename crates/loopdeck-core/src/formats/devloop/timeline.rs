//! `timeline.ndjson` (read from its end: a 30 MB timeline costs what a
//! 30 KB one does), `changelog.ndjson` and the `history/` archive.

use std::collections::BTreeMap;
use std::path::Path;

use chrono::{DateTime, Utc};

use super::html::rev_number;
use super::schema::{ChangelogLine, EventLine};
use crate::model::{ChangeSummary, Event, Finding, Level, Project, Revision};
use crate::store::ndjson::{self, Tail, incremental};
use crate::store::{self, StoreError};

pub(crate) const TIMELINE: &str = "timeline.ndjson";
pub(crate) const CHANGELOG: &str = "changelog.ndjson";
pub(crate) const HISTORY_DIR: &str = "history";
/// Events kept: the last 50, oldest first.
pub(crate) const TIMELINE_EVENTS: usize = 50;
/// The most read from the end of the timeline, whatever its size (lines are
/// at most 1 KB by the seed; the rest leaves room for garbage lines).
const TIMELINE_BYTES: u64 = 1024 * 1024;
const TIMELINE_CHUNK: usize = 64 * 1024;
/// Changelog entries kept (one per document write: a handful per day).
const CHANGELOG_ENTRIES: usize = 500;
const CHANGELOG_BYTES: u64 = 4 * 1024 * 1024;

testing_pub!(
    /// The event a timeline line describes, when it has the seed's required
    /// fields (`ts` a time, `source`, `kind`).
    pub fn event(line: &[u8]) -> Option<Event> {
        let e: EventLine = serde_json::from_slice(line).ok()?;
        let at = e.ts.at()?;
        let reference = e.reference.map(|r| r.0);
        Some(Event {
            at: Some(at),
            source: e.source,
            kind: e.kind,
            summary: e.summary.unwrap_or_default(),
            unit: reference
                .as_deref()
                .and_then(|r| r.strip_prefix("unit/"))
                .map(str::to_owned),
        })
    }
);

/// Report an NDJSON file's unreadable lines and torn tail.
pub(crate) fn report_lines(p: &mut Project, file: &str, skipped: usize, torn: bool) {
    if skipped > 0 {
        p.detail.skipped_lines.insert(file.to_owned(), skipped);
        p.findings.push(
            Finding::new(
                Level::Warning,
                "devloop.skipped-lines",
                format!(
                    "{skipped} line(s) of {file} skipped: not JSON, or without the seed's required fields"
                ),
            )
            .at(file),
        );
    }
    if torn {
        p.findings.push(
            Finding::new(
                Level::Info,
                "devloop.torn-line",
                format!(
                    "{file} ends in a line without its newline (a write in progress, or a writer that died); it is ignored"
                ),
            )
            .at(file),
        );
    }
}

/// For `check`: every NDJSON log of the project read whole (streamed in
/// chunks, never held), each torn record in the middle of one a warning
/// naming the file and its line numbers (a warning, as the readers' own
/// `devloop.skipped-lines`: the record is lost, but the log reads, and an
/// append-only log cannot be made whole again, so it does not fail a CI
/// check for good). The readers only see the tails
/// they read; a record torn mid-file further up is lost without a word
/// otherwise. The last line without its newline is not torn mid-file (an
/// agent may be appending it): the readers report it as `devloop.torn-line`.
pub(crate) fn check_logs(p: &mut Project, dir: &Path) {
    for file in [TIMELINE, CHANGELOG, super::BUGS] {
        match ndjson::torn::scan_in(dir, file) {
            Ok(t) if t.count > 0 => p.findings.push(torn_mid_file(file, &t)),
            Ok(_) | Err(StoreError::Vanished) => {}
            // Said once: the readers have reported it already.
            Err(_) if p.problems.iter().any(|x| x.file == file) => {}
            Err(e) => p.problem(file, e.to_string()),
        }
    }
}

fn torn_mid_file(file: &str, t: &ndjson::torn::Torn) -> Finding {
    let mut numbers: Vec<String> = t.lines.iter().map(u64::to_string).collect();
    if t.count > t.lines.len() as u64 {
        numbers.push(format!("and {} more", t.count - t.lines.len() as u64));
    }
    let message = if t.count == 1 {
        format!(
            "{file} line {} is torn: it does not parse as JSON and more lines follow it (a record cut short by a full disk or a killed writer); readers skip it",
            numbers.join(", ")
        )
    } else {
        format!(
            "{file} has {} torn lines mid-file (lines {}): they do not parse as JSON and more lines follow them (records cut short by a full disk or a killed writer); readers skip them",
            t.count,
            numbers.join(", ")
        )
    };
    Finding::new(Level::Warning, "devloop.torn-mid-file", message).at(file)
}

/// The last events into `p.detail.timeline`; returns the time of the last.
pub(crate) fn read(p: &mut Project, dir: &Path) -> Option<DateTime<Utc>> {
    let tail: Tail<Event> = match incremental::tail_in(
        dir,
        TIMELINE,
        TIMELINE_EVENTS,
        TIMELINE_BYTES,
        TIMELINE_CHUNK,
        event,
    ) {
        Ok(t) => t,
        Err(StoreError::Vanished) => return None,
        Err(e) => {
            p.problem(TIMELINE, e.to_string());
            return None;
        }
    };
    report_lines(p, TIMELINE, tail.skipped, tail.torn);
    let last = tail.items.last().and_then(|e| e.at);
    p.detail.timeline = tail.items;
    last
}

/// What the changelog says beyond its list of revisions.
#[derive(Debug, Default)]
pub(crate) struct Changes {
    /// Units an SDD revision changed that the units revision after it did
    /// not reset: unit → (sdd rev, units rev).
    pub missed_resets: BTreeMap<String, (String, String)>,
    /// The latest revision of each kind (`prd_rev` → 3).
    pub latest: BTreeMap<String, u64>,
}

/// `changelog.ndjson` into `p.detail.revisions` (else the `history/`
/// archive names), with findings for archives that are missing. The
/// section diffs are not computed here (`formats::complete`,
/// `formats::compare_revision`): most views never show them.
pub(crate) fn changelog(p: &mut Project, dir: &Path) -> Changes {
    let tail = match incremental::tail_in(
        dir,
        CHANGELOG,
        CHANGELOG_ENTRIES,
        CHANGELOG_BYTES,
        ndjson::CHUNK,
        |l| serde_json::from_slice::<ChangelogLine>(l).ok(),
    ) {
        Ok(t) => t,
        Err(StoreError::Vanished) => {
            p.detail.revisions = history_revisions(dir);
            return Changes::default();
        }
        Err(e) => {
            p.problem(CHANGELOG, e.to_string());
            return Changes::default();
        }
    };
    report_lines(p, CHANGELOG, tail.skipped, tail.torn);
    let mut changes = Changes::default();
    let mut pending_sdd: Option<(String, Vec<String>)> = None;
    for entry in &tail.items {
        let rev = entry.rev.as_ref().map(|r| r.0.clone()).unwrap_or_default();
        if let Some(n) = rev_number(&rev) {
            let latest = changes.latest.entry(entry.kind.clone()).or_insert(n);
            *latest = (*latest).max(n);
        }
        let diff = entry.diff.clone().unwrap_or_default();
        match entry.kind.as_str() {
            "sdd_rev" => pending_sdd = Some((rev.clone(), diff.units_changed.clone())),
            "units_rev" => {
                if let Some((sdd_rev, changed)) = pending_sdd.take() {
                    let reset: std::collections::HashSet<&String> = diff
                        .units_changed
                        .iter()
                        .chain(&diff.units_added)
                        .chain(&diff.units_removed)
                        .collect();
                    for unit in changed {
                        if !reset.contains(&&unit) {
                            changes
                                .missed_resets
                                .insert(unit, (sdd_rev.clone(), rev.clone()));
                        } else {
                            changes.missed_resets.remove(&unit);
                        }
                    }
                }
            }
            _ => {}
        }
        let archive = entry
            .archive_ref
            .as_deref()
            .map(str::trim)
            .filter(|a| !a.is_empty());
        if let Some(a) = archive {
            match store::locate(dir, a) {
                Ok(Some(_)) => {}
                Ok(None) => p.findings.push(
                    Finding::new(
                        Level::Info,
                        "devloop.archive-missing",
                        format!(
                            "changelog {} rev {rev} names the archive {a}, which does not exist",
                            entry.kind
                        ),
                    )
                    .at(CHANGELOG),
                ),
                Err(_) => p.findings.push(
                    Finding::new(
                        Level::Warning,
                        "devloop.archive-outside",
                        format!(
                            "changelog {} rev {rev} names an archive outside the project ({a}); it is never opened",
                            entry.kind
                        ),
                    )
                    .at(CHANGELOG),
                ),
            }
        }
        let mut summary = format!("rev {rev}");
        for part in [entry.trigger.as_deref(), entry.summary.as_deref()]
            .into_iter()
            .flatten()
            .filter(|s| !s.trim().is_empty())
        {
            summary.push_str(" · ");
            summary.push_str(part);
        }
        if let Some(a) = archive {
            summary.push_str(&format!(" · previous revision archived as {a}"));
        }
        let text = |s: &Option<String>| s.clone().filter(|s| !s.trim().is_empty());
        p.detail.revisions.push(Revision {
            event: Event {
                at: entry.ts.as_ref().and_then(|t| t.at()),
                source: entry.by.clone().unwrap_or_default(),
                kind: entry.kind.clone(),
                summary,
                unit: None,
            },
            rev,
            trigger: text(&entry.trigger),
            note: text(&entry.summary),
            changed: ChangeSummary {
                sections_added: diff.sections_added,
                sections_changed: diff.sections_changed,
                sections_removed: diff.sections_removed,
                units_added: diff.units_added,
                units_changed: diff.units_changed,
                units_removed: diff.units_removed,
            },
            archive: archive.map(str::to_owned),
            sections: None,
        });
    }
    changes
}

/// One archived revision: `history/{kind}-rev-{N}.{ext}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Archived {
    /// `prd`, `sdd`, `units`...
    pub kind: String,
    pub rev: u64,
    /// Relative to the project.
    pub file: String,
}

/// The `history/` archive, oldest revision first within each kind.
pub(crate) fn history(dir: &Path) -> Vec<Archived> {
    let Ok(Some(path)) = store::locate(dir, HISTORY_DIR) else {
        return Vec::new();
    };
    let mut out: Vec<Archived> = store::list_names(&path)
        .into_iter()
        .filter_map(|name| {
            let (stem, _ext) = name.rsplit_once('.')?;
            let (kind, rev) = stem.rsplit_once("-rev-")?;
            let rev = rev.parse().ok()?;
            Some(Archived {
                kind: kind.to_owned(),
                rev,
                file: format!("{HISTORY_DIR}/{name}"),
            })
        })
        .collect();
    out.sort_by(|a, b| a.kind.cmp(&b.kind).then(a.rev.cmp(&b.rev)));
    out
}

/// Revisions from the archive names, when there is no changelog, oldest
/// first by the time each archive was written (kind and number break ties
/// and order archives without a time), so PRD and SDD revisions interleave
/// as they happened.
fn history_revisions(dir: &Path) -> Vec<Revision> {
    let mut revisions: Vec<Revision> = history(dir)
        .into_iter()
        .map(|a| Revision {
            event: Event {
                at: store::contained_file(dir, &a.file).and_then(|f| store::mtime(&f)),
                source: String::new(),
                kind: format!("{}_rev", a.kind),
                summary: format!("rev {} · archived as {}", a.rev, a.file),
                unit: None,
            },
            rev: a.rev.to_string(),
            trigger: None,
            note: None,
            changed: ChangeSummary::default(),
            archive: None,
            sections: None,
        })
        .collect();
    revisions.sort_by_key(|r| r.event.at);
    revisions
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Format;
    use std::fs;

    #[test]
    fn events_need_ts_source_and_kind() {
        let e = event(br#"{"ts":1780315105,"source":"coder","kind":"runtime_state","ref":"unit/a-be","summary":"x"}"#).unwrap();
        assert_eq!(e.at.unwrap().to_rfc3339(), "2026-06-01T11:58:25+00:00");
        assert_eq!(e.unit.as_deref(), Some("a-be"));
        let e = event(br#"{"ts":"2026-06-01T11:58:25Z","source":"human","kind":"k"}"#).unwrap();
        assert_eq!(e.summary, "");
        for bad in [
            &br#"{"source":"coder","kind":"k"}"#[..],
            br#"{"ts":"later","source":"coder","kind":"k"}"#,
            br#"{"ts":1,"kind":"k"}"#,
            br#"{"ts":1,"source":"s","kind":7}"#,
            b"not json",
            b"[1,2]",
        ] {
            assert!(event(bad).is_none(), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn the_tail_is_the_last_fifty_oldest_first() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        let mut text = String::new();
        for i in 0..120 {
            text.push_str(&format!(
                "{{\"ts\":{},\"source\":\"system\",\"kind\":\"k\",\"summary\":\"e{i}\"}}\n",
                1_780_000_000 + i
            ));
            if i % 10 == 0 {
                text.push_str("{oops\n");
            }
        }
        text.push_str("{\"ts\":1790000000,\"source\":\"sys");
        fs::write(d.join(TIMELINE), text).unwrap();
        let mut p = Project::new(Format::Devloop, d.to_path_buf(), "x".into());
        let last = read(&mut p, d).unwrap();
        let tl = &p.detail.timeline;
        assert_eq!(tl.len(), 50);
        assert_eq!(tl[0].summary, "e70");
        assert_eq!(tl[49].summary, "e119");
        assert_eq!(last, tl[49].at.unwrap());
        // The garbage lines after e70, e80 ... e110 are met on the way back.
        assert_eq!(p.detail.skipped_lines.get(TIMELINE), Some(&5));
        let codes: Vec<&str> = p.findings.iter().map(|f| f.code.as_str()).collect();
        assert_eq!(codes, vec!["devloop.skipped-lines", "devloop.torn-line"]);
    }

    #[test]
    fn changelog_finds_missed_resets_and_missing_archives() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        fs::create_dir_all(d.join("history")).unwrap();
        fs::write(d.join("history/sdd-rev-3.html"), "x").unwrap();
        fs::write(
            d.join(CHANGELOG),
            concat!(
                r#"{"ts":"2026-06-01T10:33:20Z","kind":"sdd_rev","rev":4,"by":"architect","trigger":"prd@rev3","summary":"s","diff":{"units_changed":["a-be","b-be","c-fe"]},"archive_ref":"history/sdd-rev-3.html"}"#,
                "\n",
                r#"{"ts":"2026-06-01T10:33:21Z","kind":"units_rev","rev":4,"by":"architect","trigger":"sdd@rev4","summary":"reset","diff":{"units_changed":["b-be","c-fe"]},"archive_ref":"history/units-rev-3.json"}"#,
                "\n",
            ),
        )
        .unwrap();
        let mut p = Project::new(Format::Devloop, d.to_path_buf(), "x".into());
        let c = changelog(&mut p, d);
        assert_eq!(
            c.missed_resets.get("a-be"),
            Some(&("4".to_owned(), "4".to_owned()))
        );
        assert_eq!(c.missed_resets.len(), 1);
        assert_eq!(c.latest.get("sdd_rev"), Some(&4));
        assert_eq!(p.detail.revisions.len(), 2);
        assert_eq!(p.detail.revisions[0].event.source, "architect");
        let codes: Vec<&str> = p.findings.iter().map(|f| f.code.as_str()).collect();
        assert_eq!(codes, vec!["devloop.archive-missing"]);
        assert_eq!(
            history(d),
            vec![Archived {
                kind: "sdd".into(),
                rev: 3,
                file: "history/sdd-rev-3.html".into()
            }]
        );
    }
}
