//! The Markdown body of `STATE.md`: Current Position, Decisions,
//! Blockers/Concerns and Session Continuity, as GSD's template writes them
//! and as people edit them (bold keys, bullets, varying headings).

use crate::model::{Decision, StatusKind};

testing_pub!(
    #[derive(Debug, Default, Clone, PartialEq, Eq)]
    /// What loopdeck reads from the Markdown body of `STATE.md`.
    pub struct Body {
        pub(crate) phase: Option<String>,
        pub(crate) plan: Option<String>,
        pub(crate) status: Option<String>,
        pub(crate) last_activity: Option<String>,
        /// A `Last updated:` line (not the template's, but written by hand
        /// in STATE.md files that have no frontmatter).
        pub(crate) last_updated: Option<String>,
        pub(crate) progress_percent: Option<u8>,
        pub(crate) decisions: Vec<Decision>,
        /// The Blockers/Concerns list's items, placeholders left out.
        pub blockers: Vec<String>,
        pub(crate) last_session: Option<String>,
        pub(crate) stopped_at: Option<String>,
        pub(crate) resume_file: Option<String>,
        /// The Pending Todos section's count: `None` without such a section.
        pub(crate) pending_todos: Option<usize>,
        pub(crate) lines: usize,
    }
);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    Other,
    Decisions,
    Blockers,
    Todos,
}

/// `**Key:** value`, `- Key: value`, `Key: value` → `value` (case-insensitive key).
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let t = line.trim_start_matches(['-', '*', ' ', '\t']);
    let head = t.get(..key.len())?;
    if !head.eq_ignore_ascii_case(key) {
        return None;
    }
    let rest = t[key.len()..].trim_start_matches('*');
    let rest = rest.strip_prefix(':')?;
    let value = rest.trim_start_matches('*').trim();
    (!value.is_empty() && !is_none_marker(value)).then_some(value)
}

/// Placeholders people write for "nothing": `None`, `None yet`, `none
/// active (between milestones)`, `N/A`, `—`, `(none)`.
pub(crate) fn is_none_marker(s: &str) -> bool {
    let t = s.trim();
    // `(none yet — project just initialized)`: the same marker in parentheses.
    let t = t
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or(t);
    let l = t.trim().trim_end_matches('.').to_lowercase();
    if matches!(
        l.as_str(),
        "none" | "n/a" | "-" | "—" | "(none)" | "tbd" | ""
    ) {
        return true;
    }
    // "None yet", "None active (between milestones)", "None — all clear";
    // but not "none of the tests pass", which is a real blocker.
    l.strip_prefix("none ").is_some_and(|rest| {
        ["yet", "active", "currently", "(", "—", "-", "at this"]
            .iter()
            .any(|w| rest.starts_with(w))
    })
}

/// A list item that says "nothing here" to a reader: a placeholder word
/// (`None`, `n/a`, `TBD`, `None yet.`), also in emphasis or parentheses
/// (`*None.*`, `(none)`), or no word at all (`**`, `()`: what gsd-tools'
/// placeholder substitution leaves of those). Neither a blocker nor a
/// decision: not listed, not offered for resolving, refused as a new
/// blocker (so nothing loopdeck accepts is then hidden).
pub(crate) fn is_placeholder_item(item: &str) -> bool {
    is_none_marker(item.trim().trim_matches(['*', '_', ' ']))
        || !item.chars().any(char::is_alphanumeric)
}

fn percent_in(s: &str) -> Option<u8> {
    let pct = s.find('%')?;
    let digits = crate::formats::trailing_digits(&s[..pct]);
    digits.parse::<u32>().ok().map(|p| p.min(100) as u8)
}

/// A todo bullet that is still pending: not a placeholder, not ticked.
fn is_pending_todo(item: &str) -> bool {
    let lower = item.trim_start().to_ascii_lowercase();
    !is_none_marker(item) && !lower.starts_with("[x]")
}

/// `3 pending todos`, `2 todos`: a count written as a sentence.
fn stated_count(line: &str) -> Option<usize> {
    let digits: String = line.chars().take_while(char::is_ascii_digit).collect();
    let rest = line[digits.len()..].trim_start().to_ascii_lowercase();
    let n = digits.parse().ok()?;
    (rest.starts_with("pending") || rest.starts_with("todo")).then_some(n)
}

/// `[Phase 2]: summary — rationale` (GSD's `add-decision` format).
fn decision(item: &str) -> Decision {
    let (stage, rest) = match item.strip_prefix('[').and_then(|r| r.split_once(']')) {
        Some((stage, rest)) => (
            Some(stage.trim().to_owned()),
            rest.trim_start_matches(':').trim(),
        ),
        None => (None, item),
    };
    let (summary, rationale) = match rest.split_once(" — ") {
        Some((s, r)) => (s.trim().to_owned(), Some(r.trim().to_owned())),
        None => (rest.trim().to_owned(), None),
    };
    Decision {
        id: None,
        summary,
        rationale,
        stage,
    }
}

/// The level of a Markdown `#` heading (`## Session` → 2), if `line` is one.
fn heading_level(trimmed: &str) -> Option<usize> {
    let level = trimmed.bytes().take_while(|b| *b == b'#').count();
    (level > 0).then_some(level)
}

testing_pub!(
    /// Read the body of `STATE.md` (what follows its frontmatter).
    pub fn parse(body: &str) -> Body {
        let mut b = Body::default();
        // The sections gsd-tools writes decisions and blockers into (its own
        // regex, its own bounds): what is there is a decision or a blocker
        // unless the reader's own heading names another list (so `### Concerns`
        // and an item after a `# ` heading inside it are read as gsd-tools
        // reads them).
        let gsd = |list| super::section::gsd_section(body, list).map(|(_, start, end)| start..end);
        let gsd_decisions = gsd(super::section::List::Decisions);
        let gsd_blockers = gsd(super::section::List::Blockers);
        let mut offset = 0;
        let mut section = Section::Other;
        // The current section was opened by a bold line, not a `#` heading.
        let mut bold_opened = false;
        // The level of the `## Session …` heading we are under: `Last session`,
        // `Stopped at` and `Resume file` are read only there (seed 001: scoped
        // to the Session section so archived text never matches).
        let mut session: Option<usize> = None;
        for raw in body.split_inclusive('\n') {
            let at = offset;
            offset += raw.len();
            b.lines += 1;
            let line = raw.strip_suffix('\n').unwrap_or(raw).trim_end_matches('\r');
            let trimmed = line.trim();
            let heading = trimmed.starts_with('#')
                || (trimmed.starts_with("**") && trimmed.ends_with("**") && trimmed.len() > 4);
            if heading {
                let h = trimmed.trim_matches(['#', '*', ' ']).to_ascii_lowercase();
                if let Some(level) = heading_level(trimmed) {
                    if h.contains("session") {
                        session = Some(level);
                    } else if session.is_some_and(|s| level <= s) {
                        session = None;
                    }
                }
                let bold = !trimmed.starts_with('#');
                let named = if h.contains("decision") {
                    Some(Section::Decisions)
                } else if h.contains("blocker") {
                    Some(Section::Blockers)
                } else if h.contains("todo") {
                    b.pending_todos.get_or_insert(0);
                    Some(Section::Todos)
                } else {
                    None
                };
                section = match named {
                    Some(s) => {
                        bold_opened = bold;
                        s
                    }
                    // A bold label inside a list under a `#` heading
                    // (`**Phase 6 status:**` under `### Blockers/Concerns`)
                    // groups its items; it does not end the list (gsd-tools'
                    // sections run to the next `##`). Under a bold section
                    // name, the next bold line is the next section.
                    None if bold && !bold_opened => section,
                    None => {
                        bold_opened = false;
                        Section::Other
                    }
                };
                continue;
            }
            let bullet = trimmed
                .strip_prefix("- ")
                .or_else(|| trimmed.strip_prefix("* "))
                .map(str::trim);
            let in_decisions = gsd_decisions.as_ref().is_some_and(|r| r.contains(&at));
            let in_blockers = gsd_blockers.as_ref().is_some_and(|r| r.contains(&at));
            // A heading the reader names (`**Decisions**` inside gsd-tools'
            // blockers section) keeps its list.
            let listed = match (section, in_decisions, in_blockers) {
                (Section::Other, true, false) => Section::Decisions,
                (Section::Other, false, true) => Section::Blockers,
                _ => section,
            };
            match (listed, bullet) {
                (Section::Decisions, Some(item)) if !is_placeholder_item(item) => {
                    b.decisions.push(decision(item));
                    continue;
                }
                (Section::Blockers, Some(item)) if !is_placeholder_item(item) => {
                    b.blockers.push(item.to_owned());
                    continue;
                }
                (Section::Todos, Some(item)) => {
                    if is_pending_todo(item)
                        && let Some(n) = b.pending_todos.as_mut()
                    {
                        *n += 1;
                    }
                    continue;
                }
                (Section::Todos, None) => {
                    // "3 pending todos — see /gsd:check-todos": the count, stated.
                    if let Some(n) = stated_count(trimmed)
                        && let Some(count) = b.pending_todos.as_mut()
                    {
                        *count = (*count).max(n);
                    }
                }
                _ => {}
            }
            let first = |slot: &mut Option<String>, key: &str| {
                if slot.is_none()
                    && let Some(v) = field(line, key)
                {
                    *slot = Some(v.to_owned());
                }
            };
            first(&mut b.phase, "Phase");
            first(&mut b.phase, "Current Phase");
            first(&mut b.phase, "Active Phase");
            first(&mut b.plan, "Plan");
            first(&mut b.status, "Status");
            first(&mut b.last_activity, "Last activity");
            first(&mut b.last_updated, "Last updated");
            if session.is_some() {
                first(&mut b.last_session, "Last session");
                first(&mut b.stopped_at, "Stopped at");
                first(&mut b.resume_file, "Resume file");
            }
            if b.progress_percent.is_none()
                && let Some(v) = field(line, "Progress")
            {
                b.progress_percent = percent_in(v);
            }
        }
        b
    }
);

/// Status normalisation for loopdeck's views: GSD's free-text status mapped to
/// the seed's canonical words, the first match winning (a paused project that
/// says "executing" too is paused); an unknown word is passed through.
pub(crate) fn normalize_status(raw: Option<&str>, paused_at: bool) -> String {
    let raw = raw.unwrap_or("").trim();
    let l = raw.to_lowercase();
    let has = |s: &str| l.contains(s);
    if has("paused") || has("stopped") || paused_at {
        "paused"
    } else if has("executing") || has("in progress") || has("in-progress") || has("in_progress") {
        "executing"
    } else if has("planning") || has("ready to plan") {
        "planning"
    } else if has("discussing") {
        "discussing"
    } else if has("verif") {
        "verifying"
    } else if has("complete") || has("done") {
        "completed"
    } else if has("ready to execute") {
        "executing"
    } else if raw.is_empty() {
        "unknown"
    } else {
        return raw.to_owned();
    }
    .to_owned()
}

/// The kind of each status [`normalize_status`] yields: the seed's
/// canonical values (seed 001, 状态值), plus loopdeck's `unreadable`. A word
/// the seed does not define (a raw status passed through) is `Unknown`.
pub(crate) fn status_kind(status: &str) -> StatusKind {
    match status {
        "discussing" | "planning" => StatusKind::Planning,
        "executing" | "verifying" => StatusKind::Running,
        "completed" => StatusKind::Done,
        "paused" => StatusKind::Waiting,
        "unreadable" => StatusKind::Failed,
        _ => StatusKind::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_sections() {
        let b = parse(
            "## Current Position\n\nPhase: 2 of 5 (数据层)\n**Plan:** 1 of 3\nStatus: Ready to execute\nProgress: [██░░░░░░░░] 17%\n\n## Accumulated Context\n\n### Decisions\n\n- [Phase 1]: 用 SQLite — 单机足够\n- None yet\n\n### Blockers/Concerns\n\n- [Phase 2]: API key missing\n\n## Session Continuity\n\nLast session: 2026-05-30T10:00:00Z\nStopped at: Completed 02-01-PLAN.md\nResume file: None\n",
        );
        assert_eq!(b.phase.as_deref(), Some("2 of 5 (数据层)"));
        assert_eq!(b.plan.as_deref(), Some("1 of 3"));
        assert_eq!(b.progress_percent, Some(17));
        assert_eq!(b.decisions.len(), 1);
        assert_eq!(b.decisions[0].stage.as_deref(), Some("Phase 1"));
        assert_eq!(b.decisions[0].summary, "用 SQLite");
        assert_eq!(b.decisions[0].rationale.as_deref(), Some("单机足够"));
        assert_eq!(b.blockers, vec!["[Phase 2]: API key missing"]);
        assert_eq!(b.stopped_at.as_deref(), Some("Completed 02-01-PLAN.md"));
        assert_eq!(b.resume_file, None, "`None` is a placeholder, not a file");
    }

    #[test]
    fn session_fields_come_only_from_the_session_section() {
        let b = parse(
            "## Archive\n\n### v1.0\nStopped at: Completed 01-03-PLAN.md\nLast session: 2025-01-01T00:00:00Z\nResume file: .planning/old.md\n\n## Session Continuity\n\n### Where we are\n\n**Last session:** 2026-05-30T10:00:00Z\n**Stopped at:** Phase 4 planned\n\n## Later notes\nStopped at: not this either\n",
        );
        assert_eq!(b.stopped_at.as_deref(), Some("Phase 4 planned"));
        assert_eq!(b.last_session.as_deref(), Some("2026-05-30T10:00:00Z"));
        assert_eq!(b.resume_file, None, "the archived resume file is not read");
        let none = parse("## Phase 3 (archived)\nStopped at: Completed 03-01-PLAN.md\n");
        assert_eq!(none.stopped_at, None, "no Session section: no stop point");
    }

    #[test]
    fn pending_todos_are_counted() {
        let b = parse(
            "### Pending Todos\n\n[From .planning/todos/pending/]\n\n- [ ] Plan Phase 4\n- [x] Done already\n- Confirm the deployment target\n\n### Blockers/Concerns\n- [ ] not a todo\n",
        );
        assert_eq!(b.pending_todos, Some(2));
        assert_eq!(
            parse("### Pending Todos\n\nNone yet.\n").pending_todos,
            Some(0)
        );
        assert_eq!(
            parse("### Active Todos\n- (none yet — project just initialized)\n").pending_todos,
            Some(0)
        );
        assert_eq!(
            parse("### Pending Todos\n3 pending todos — see /gsd:check-todos\n").pending_todos,
            Some(3)
        );
        assert_eq!(
            parse("## Current Position\nPhase: 1 of 2\n").pending_todos,
            None
        );
    }

    #[test]
    fn bold_labels_group_items_without_ending_the_list() {
        let b = parse(
            "### Blockers/Concerns\n\n**Phase 6 status:**\n- a\n\n**IT constraint:**\n- b\n\n**Decisions**\n- d\n## Session\n- not a blocker\n",
        );
        assert_eq!(b.blockers, vec!["a", "b"]);
        assert_eq!(b.decisions.len(), 1);
        let b = parse("**Notes**\n- n\n");
        assert!(b.blockers.is_empty() && b.decisions.is_empty());
        // Sections named by bold lines end at the next bold line.
        let b = parse("**Decisions**\n- d\n\n**Next steps**\n- do X\n");
        assert_eq!(b.decisions.len(), 1);
    }

    #[test]
    fn gsd_tools_sections_are_read_as_gsd_tools_reads_them() {
        // `### Concerns` is gsd-tools' blockers heading; a `# ` heading
        // does not end its section; a scaffold at the end is read too.
        let b = parse(
            "## Key Decisions\n- k\n### Concerns\n- c\n# Aside\n- c2\n## Session\n- s\n\n## Decisions\n\n- [Phase ?]: d\n",
        );
        assert_eq!(b.blockers, vec!["c", "c2"]);
        let d: Vec<&str> = b.decisions.iter().map(|d| d.summary.as_str()).collect();
        assert_eq!(d, vec!["k", "d"]);
        // The heading's line may hold more before it (gsd-tools' regex is
        // unanchored).
        let b = parse("Notes ## Blockers\n- x\n");
        assert_eq!(b.blockers, vec!["x"]);
    }

    #[test]
    fn placeholders_are_not_values() {
        let b = parse("Phase: none active (between milestones)\nPlan: —\nStatus: Ready to plan\n");
        assert_eq!(b.phase, None);
        assert_eq!(b.plan, None);
        assert_eq!(b.status.as_deref(), Some("Ready to plan"));
        assert_eq!(
            parse("Phase: Not started (defining requirements)\n")
                .phase
                .as_deref(),
            Some("Not started (defining requirements)")
        );
        let b = parse("### Blockers/Concerns\n- None yet\n- none of the tests pass on CI\n");
        assert_eq!(b.blockers, vec!["none of the tests pass on CI"]);
        // In emphasis or parentheses, or what gsd-tools' next add-blocker
        // leaves of those (`- **`, `- ()`): not blockers either.
        let b = parse("### Blockers\n- *None.*\n- (none)\n- **\n- ()\n- _n/a_\n- x\n");
        assert_eq!(b.blockers, vec!["x"]);
        let b = parse("### Decisions\n- None yet.\n- *None.*\n- [Phase 1]: n/a\n");
        assert_eq!(b.decisions.len(), 1);
    }

    #[test]
    fn every_status_has_the_seeds_kind_and_no_guess() {
        let kind = |raw: &str| status_kind(&normalize_status(Some(raw), false));
        assert_eq!(kind("Discussing phase 2"), StatusKind::Planning);
        assert_eq!(kind("Ready to plan"), StatusKind::Planning);
        assert_eq!(kind("Executing Phase 4"), StatusKind::Running);
        assert_eq!(
            kind("Phase complete — ready for verification"),
            StatusKind::Running
        );
        assert_eq!(kind("Done"), StatusKind::Done);
        assert_eq!(kind("Paused — waiting on credentials"), StatusKind::Waiting);
        assert_eq!(status_kind("unreadable"), StatusKind::Failed);
        // Words the seed does not define. The old substring guess read
        // "discovering" and "Discovery phase" as errors (they hold "over").
        for word in ["discovering", "Discovery phase", "recovered"] {
            assert_eq!(kind(word), StatusKind::Unknown, "{word}");
        }
        assert_eq!(kind("setup"), StatusKind::Unknown);
        assert_eq!(
            status_kind(&normalize_status(None, false)),
            StatusKind::Unknown
        );
    }

    #[test]
    fn status_normalisation_order() {
        let n = |s: &str| normalize_status(Some(s), false);
        assert_eq!(n("Paused — waiting on credentials"), "paused");
        assert_eq!(n("Executing Phase 4"), "executing");
        assert_eq!(n("in progress"), "executing");
        assert_eq!(n("Ready to plan"), "planning");
        assert_eq!(n("discussing"), "discussing");
        assert_eq!(n("Phase complete — ready for verification"), "verifying");
        assert_eq!(n("Done"), "completed");
        assert_eq!(n("Ready to execute"), "executing");
        assert_eq!(n("setup"), "setup");
        assert_eq!(normalize_status(None, false), "unknown");
        assert_eq!(normalize_status(Some("executing"), true), "paused");
    }
}
