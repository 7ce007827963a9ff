//! What DWP's own verifier (`verify/plan_contract.py`) checks of a plan's
//! folder and Markdown, with its words: an incomplete plan folder (README.md,
//! PROGRESS.md, PROMPTS.md, `analysis_results/`), the README's Goal+Context
//! pair and `Plan Status: N/M` count, the final task's shape, and each task
//! record's fields (Goal, Touched Surface, Acceptance Criteria, Validation,
//! and Context for a task still to be run). Codes: `dwp.folder-incomplete`,
//! `dwp.readme-goal-context`, `dwp.plan-status-count`,
//! `dwp.final-task-shape`, `dwp.task-record-field`.

use super::markdown::unfenced;
use super::{Plan, README};
use crate::model::{Finding, Level, Task};
use crate::store;

/// How much of a task file is read for its fields.
const TASK_FILE_PREFIX: usize = 256 * 1024;

/// The record fields every task carries (DWP_SPECIFICATION §5).
const FIELDS: [&str; 4] = [
    "Goal",
    "Touched Surface",
    "Acceptance Criteria",
    "Validation",
];

/// The labels that end a field (plan_contract's `field_content`).
const LABELS: [&str; 10] = [
    "Context",
    "Goal",
    "Touched Surface",
    "Acceptance Criteria",
    "Validation",
    "Instructions",
    "Read Before Starting",
    "Completion & Log",
    "Completion log",
    "Skills disposition",
];

const CONTEXT_WHY: &str = "task-specific background; the agent MUST be able to start from this section alone (DWP_SPECIFICATION §5)";

fn push(findings: &mut Vec<Finding>, code: &str, msg: String, at: String) {
    findings.push(Finding::new(Level::Error, code, msg).at(at));
}

/// A label `**NAME**`, `**NAME:**`, `**NAME :**` at byte `i` of `lower`
/// (the text in ASCII lower case): the end of the label and its trailing
/// `:`/`·`/`-`, or `None`.
fn label_at(lower: &str, i: usize, name: &str) -> Option<usize> {
    let rest = lower.get(i..)?.strip_prefix("**")?;
    let rest = rest.strip_prefix(name)?;
    let after_ws = rest.trim_start();
    let after_colon = after_ws.strip_prefix(':').unwrap_or(after_ws);
    let after = after_colon.strip_prefix("**")?;
    let after = after.trim_start_matches([' ', '\t']);
    let after = after
        .strip_prefix(':')
        .or_else(|| after.strip_prefix('·'))
        .or_else(|| after.strip_prefix('-'))
        .unwrap_or(after);
    Some(lower.len() - after.len())
}

/// A heading `## NAME` / `### 2. NAME` on the line starting at `start`
/// (`line` without its line ending): its end, or `None`.
fn heading_is(line: &str, name: &str) -> bool {
    let hashes = line.len() - line.trim_start_matches('#').len();
    if !(2..=6).contains(&hashes) {
        return false;
    }
    let rest = &line[hashes..];
    if !rest.starts_with([' ', '\t']) {
        return false;
    }
    let rest = rest.trim_start_matches([' ', '\t']);
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let rest = if digits > 0 {
        let r = &rest[digits..];
        r.strip_prefix('.')
            .unwrap_or(r)
            .trim_start_matches([' ', '\t'])
    } else {
        rest
    };
    rest.trim_end_matches([' ', '\t']) == name
}

fn is_boundary_heading(line: &str) -> bool {
    let hashes = line.len() - line.trim_start_matches('#').len();
    (2..=6).contains(&hashes) && line[hashes..].starts_with([' ', '\t'])
}

/// [`Fields::content`] of `body`.
#[cfg(test)]
pub(super) fn field_content(body: &str, name: &str) -> String {
    Fields::of(body).content(name)
}

/// A text whose fields are looked up one after another: its line endings
/// made `\n` and its ASCII lower case, once for all of them.
pub(super) struct Fields {
    body: String,
    lower: String,
}

impl Fields {
    pub(super) fn of(body: &str) -> Fields {
        let body = body.replace("\r\n", "\n");
        let lower = body.to_ascii_lowercase();
        Fields { body, lower }
    }

    /// The content of field `name` (a `## NAME` heading or a `**NAME:**`
    /// label) up to the next heading or field label, trimmed as
    /// plan_contract trims it; empty when there is none.
    pub(super) fn content(&self, name: &str) -> String {
        field_in(&self.body, &self.lower, name)
    }
}

/// The labels that end a field, in lower case.
fn lower_labels() -> &'static [String] {
    static LOWER: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    LOWER.get_or_init(|| LABELS.iter().map(|l| l.to_ascii_lowercase()).collect())
}

fn field_in(body: &str, lower: &str, name: &str) -> String {
    let name = name.to_ascii_lowercase();
    // The leftmost heading or label.
    let mut found: Option<(usize, usize)> = None;
    let mut offset = 0;
    for line in lower.split_inclusive('\n') {
        let text = line.trim_end_matches('\n');
        if heading_is(text, &name) {
            found = Some((offset, offset + text.len()));
            break;
        }
        offset += line.len();
    }
    for (i, _) in lower.match_indices("**") {
        if found.is_some_and(|(s, _)| s <= i) {
            break;
        }
        if let Some(end) = label_at(lower, i, &name) {
            found = Some((i, end));
            break;
        }
    }
    let Some((_, end)) = found else {
        return String::new();
    };
    let rest = &lower[end..];
    let mut stop = rest.len();
    let mut at = 0;
    for line in rest.split_inclusive('\n') {
        // A heading counts only at a line's start (the field's own line
        // is the rest of the label's line).
        if at > 0 && is_boundary_heading(line) {
            stop = at;
            break;
        }
        at += line.len();
    }
    let labels = lower_labels();
    for (i, _) in rest.match_indices("**") {
        if i >= stop {
            break;
        }
        if labels.iter().any(|l| label_at(rest, i, l).is_some()) {
            stop = i;
            break;
        }
    }
    body[end..end + stop]
        .trim_matches([' ', '\n', '\r', '`', '·', ':', '-'])
        .to_owned()
}

/// Every structural finding of the verifier on `plan`.
pub(super) fn check(findings: &mut Vec<Finding>, plan: &Plan<'_>, tasks: &[Task]) {
    if plan.has(super::FINALIZING) {
        // The verifier stops at an interrupted finalization.
        return;
    }
    let era = plan.state_era();
    let legacy = era.is_none_or(|v| v < 2);
    if !legacy {
        // The verifier reads the folder of a ready plan only.
        let state = plan.state;
        let ready = state
            .and_then(|s| s.materialization.as_deref())
            .is_some_and(|m| m == "ready")
            && state.is_none_or(|s| s.promotion.as_ref().is_none_or(|p| p.is_null()));
        if !ready {
            return;
        }
    }
    if !folder(findings, plan, legacy) {
        return;
    }
    let Some(bytes) = plan.readme_bytes else {
        return;
    };
    let readme = String::from_utf8_lossy(bytes);
    let clean = unfenced(&readme);
    if legacy {
        legacy_final_task(findings, plan);
        if plan.readme.is_some_and(|r| r.plan_status.is_none()) {
            push(
                findings,
                "dwp.plan-status-count",
                "README has no Plan Status count (`Plan Status: N/M`) — the verifier requires one"
                    .to_owned(),
                README.to_owned(),
            );
        }
        return;
    }
    let fields = Fields::of(&clean);
    if fields.content("Goal").is_empty() || fields.content("Context").is_empty() {
        push(
            findings,
            "dwp.readme-goal-context",
            "plan README lacks a non-empty Context section alongside Goal — the v2 Goal+Context pair is required (guide/authoring.md §4.1)".to_owned(),
            README.to_owned(),
        );
    }
    if plan.readme.is_some_and(|r| r.plan_status.is_none()) {
        push(
            findings,
            "dwp.plan-status-count",
            "README Plan Status count disagrees with task checkboxes/state: the README has no `Plan Status: N/M` line".to_owned(),
            README.to_owned(),
        );
    }
    let lite = plan
        .state
        .and_then(|s| s.format.as_deref())
        .is_some_and(|f| f == "lite");
    if lite {
        lite_records(findings, &readme, tasks);
    } else {
        full_records(findings, plan, tasks);
    }
}

/// The ids of the plan's task files (`N.task_*.md`) whose name after
/// `N.task_` satisfies `rest`.
fn file_ids(plan: &Plan<'_>, rest: impl Fn(&str) -> bool) -> Vec<u64> {
    let mut ids: Vec<u64> = plan
        .names
        .iter()
        .filter_map(|n| {
            let (id, tail) = n.split_once(".task_")?;
            let id: u64 = id.parse().ok()?;
            (tail.ends_with(".md") && rest(tail)).then_some(id)
        })
        .collect();
    ids.sort_unstable();
    ids
}

/// A plan before the v2 state layer: its final task by the shapes DWP
/// accepts (DWP_SPECIFICATION §6.5), read from the task files on disk: a
/// single `N.task_final_review*.md` last (2.3.0+) naming its security pass,
/// final-state validation and skills reconciliation, or the pre-2.3.0
/// security review, skills & agents discovery and executive report.
fn legacy_final_task(findings: &mut Vec<Finding>, plan: &Plan<'_>) {
    let all = file_ids(plan, |_| true);
    let highest = all.last().copied().unwrap_or(0);
    let finals = file_ids(plan, |t| t.starts_with("final_review"));
    let old_shape = [
        "security_review.md",
        "skills_agents_discovery.md",
        "executive_report.md",
    ]
    .iter()
    .any(|name| !file_ids(plan, |t| t == *name).is_empty());
    let at = README.to_owned();
    if finals.len() > 1 {
        push(
            findings,
            "dwp.final-task-shape",
            format!("exactly one Final Review task ({} found)", finals.len()),
            at,
        );
    } else if let Some(&last) = finals.first() {
        if last != highest {
            push(
                findings,
                "dwp.final-task-shape",
                format!(
                    "mandatory final task: Final Review must be the last task (found id {last}, highest id {highest})"
                ),
                at.clone(),
            );
        }
        let name = plan
            .names
            .iter()
            .find(|n| n.starts_with(&format!("{last}.task_final_review")) && n.ends_with(".md"));
        let body = name
            .and_then(|n| store::read_prefix_in(plan.dir, n, TASK_FILE_PREFIX).ok())
            .map(|b| String::from_utf8_lossy(&b).to_lowercase())
            .unwrap_or_default();
        let final_state = [
            "final-state",
            "full validation",
            "full suite",
            "full gate",
            "complete applicable",
        ]
        .iter()
        .any(|w| body.contains(w));
        let absent: Vec<&str> = [
            ("security-pass", body.contains("security")),
            ("final-state-validation", final_state),
            ("skills-reconciliation", body.contains("skills")),
        ]
        .into_iter()
        .filter(|(_, present)| !present)
        .map(|(label, _)| label)
        .collect();
        if !absent.is_empty() {
            push(
                findings,
                "dwp.final-task-shape",
                format!(
                    "Final Review file does not mention: {} (DWP_SPECIFICATION §6.1) — the filename alone does not prove coverage",
                    absent.join(" ")
                ),
                at,
            );
        }
    } else if !old_shape {
        push(
            findings,
            "dwp.final-task-shape",
            "mandatory final task missing — accepted shapes: {N}.task_final_review.md last (DWP 2.3.0+), or {N-2}.task_security_review.md + {N-1}.task_skills_agents_discovery.md + {N}.task_executive_report.md (pre-2.3.0)".to_owned(),
            at,
        );
    }
}

/// The folder's files. Returns whether there is a README to read on.
fn folder(findings: &mut Vec<Finding>, plan: &Plan<'_>, legacy: bool) -> bool {
    let at = |f: &str| f.to_owned();
    let has_readme = plan.has(README);
    if !has_readme {
        let what = if legacy { "task list" } else { "task records" };
        push(
            findings,
            "dwp.folder-incomplete",
            format!(
                "plan has no README.md — its {what} live{} there; complete or discard this partial materialization with create/refine",
                if legacy { "s" } else { "" }
            ),
            at(README),
        );
        if !legacy {
            // The v2/v5 verifier stops there.
            return false;
        }
    }
    for file in ["PROGRESS.md", "PROMPTS.md"] {
        if !plan.has(file) {
            push(
                findings,
                "dwp.folder-incomplete",
                format!("partial materialization: missing {file} — recover with create/refine"),
                at(file),
            );
        }
    }
    if !has_readme {
        return false;
    }
    let results = plan.dir.join("analysis_results");
    if !(plan.has("analysis_results") && results.is_dir()) {
        push(
            findings,
            "dwp.folder-incomplete",
            "partial materialization: missing analysis_results/".to_owned(),
            "analysis_results/".to_owned(),
        );
    }
    true
}

fn state_ref(t: &Task) -> String {
    format!("task {}", t.id.trim())
}

/// A Full plan's task files: each record's fields and the final task.
fn full_records(findings: &mut Vec<Finding>, plan: &Plan<'_>, tasks: &[Task]) {
    let n = tasks.len();
    for (i, t) in tasks.iter().enumerate() {
        let Some(file) = t.locator.as_deref().filter(|f| !f.starts_with('#')) else {
            continue;
        };
        if !file.starts_with(&format!("{}.task_", t.id.trim())) {
            continue;
        }
        if plan.task_file(file) != Some(true) {
            continue;
        }
        let Some(bytes) = plan.task_prefix(file, TASK_FILE_PREFIX) else {
            continue;
        };
        let body = String::from_utf8_lossy(&bytes);
        let fields = Fields::of(&body);
        for name in FIELDS {
            if fields.content(name).is_empty() {
                push(
                    findings,
                    "dwp.task-record-field",
                    format!("Task {} lacks non-empty {name}", t.id.trim()),
                    state_ref(t),
                );
            }
        }
        if t.status != "completed" && fields.content("Context").is_empty() {
            push(
                findings,
                "dwp.task-record-field",
                format!(
                    "Task {} lacks non-empty Context — {CONTEXT_WHY}",
                    t.id.trim()
                ),
                state_ref(t),
            );
        }
        let lower = body.to_lowercase();
        if i + 1 == n {
            if !file.contains("task_final_review")
                || !["security", "final-state", "skills"]
                    .iter()
                    .all(|w| lower.contains(w))
            {
                push(
                    findings,
                    "dwp.final-task-shape",
                    "Full final task must be the Final Review, naming its security pass, final-state validation and skills reconciliation".to_owned(),
                    state_ref(t),
                );
            }
        } else if file.contains("task_final_review") {
            push(
                findings,
                "dwp.final-task-shape",
                "Final Review must be last".to_owned(),
                state_ref(t),
            );
        }
    }
}

/// A Lite plan's inline records: `## Task N … {#task-N}` headings.
fn lite_records(findings: &mut Vec<Finding>, readme: &str, tasks: &[Task]) {
    let readme = readme.replace("\r\n", "\n");
    let clean = unfenced(&readme);
    // (id, heading text, byte offset of the line after it in `readme`)
    let mut headers: Vec<(u64, String, usize)> = Vec::new();
    let mut offset = 0;
    for (line, raw) in clean.split('\n').zip(readme.split_inclusive('\n')) {
        offset += raw.len();
        let Some(rest) = line.strip_prefix("##") else {
            continue;
        };
        if !rest.starts_with([' ', '\t']) {
            continue;
        }
        let rest = rest.trim_start();
        let Some(rest) = rest.strip_prefix("Task") else {
            continue;
        };
        let rest = rest.trim_start();
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let Ok(id) = digits.parse::<u64>() else {
            continue;
        };
        if line.contains(&format!("{{#task-{id}}}")) {
            headers.push((id, line.to_owned(), offset));
        }
    }
    let n = tasks.len() as u64;
    let finals: Vec<u64> = headers
        .iter()
        .filter(|(_, h, _)| h.to_lowercase().contains("final review"))
        .map(|(id, _, _)| *id)
        .collect();
    if finals != [n] {
        push(
            findings,
            "dwp.final-task-shape",
            "Lite plan lacks Final Review as the unique last task".to_owned(),
            README.to_owned(),
        );
    }
    for (id, _, start) in &headers {
        let tail = &readme[*start..];
        let end = tail
            .match_indices("\n## ")
            .next()
            .map_or(tail.len(), |(i, _)| i + 1);
        let end = if tail.starts_with("## ") { 0 } else { end };
        let body = &tail[..end];
        let fields = Fields::of(body);
        for name in FIELDS {
            if fields.content(name).is_empty() {
                push(
                    findings,
                    "dwp.task-record-field",
                    format!("Lite task lacks {name}: {id}"),
                    format!("task {id}"),
                );
            }
        }
        let status = tasks
            .iter()
            .find(|t| t.id.trim() == id.to_string())
            .map(|t| t.status.as_str());
        if status != Some("completed") && fields.content("Context").is_empty() {
            push(
                findings,
                "dwp.task-record-field",
                format!("Lite task lacks Context: {id} — {CONTEXT_WHY}"),
                format!("task {id}"),
            );
        }
        let lower = body.to_lowercase();
        if *id == n
            && !["security", "final-state", "skills"]
                .iter()
                .all(|w| lower.contains(w))
        {
            push(
                findings,
                "dwp.final-task-shape",
                "Lite Final Review lacks its security, final-state validation or skills part"
                    .to_owned(),
                format!("task {id}"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_by_heading_or_label() {
        let body = "# T\n\n## Goal\n\nShip it.\n\n## 2. Context\n\n`x`\n\n**Validation:** cargo test\n**Acceptance Criteria**: \n\n## Touched Surface\n-\n";
        assert_eq!(field_content(body, "Goal"), "Ship it.");
        assert_eq!(field_content(body, "context"), "x");
        assert_eq!(field_content(body, "Validation"), "cargo test");
        assert_eq!(field_content(body, "Acceptance Criteria"), "");
        assert_eq!(field_content(body, "Touched Surface"), "");
        assert_eq!(field_content(body, "Instructions"), "");
        // A deeper heading of the same name, CRLF.
        assert_eq!(field_content("### Goal\r\nA\r\n## B\r\n", "Goal"), "A");
    }
}
