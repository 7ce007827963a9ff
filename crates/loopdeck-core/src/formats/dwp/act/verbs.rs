//! approve, block, unblock, reopen: each one change the updater allows,
//! refused with the updater's own message when its rules say no.

use serde_json::{Map, Value, json};

use super::contract;
use super::rules::{self, Era};
use super::{Ctx, PROGRESS, README, ready, ready_and_approved, refuse};
use crate::store::txn::{ActError, Edit};

/// `approval: approved` in a v2/v5 state (and the README's `Approval:`
/// line, so the two stay in step). A v1 state has no approval field: the
/// updater treats it as approved, and it stays v1.
pub(super) fn approve(c: &mut Ctx<'_>) -> Result<(), ActError> {
    ready(&c.value)?;
    let era = Era::of(&c.value);
    let readme = readme_approval(c)?;
    let current = c.value.get("approval").and_then(Value::as_str);
    let pending_in_readme = readme.as_ref().is_some_and(|(_, v)| v == "pending");
    match (era, current) {
        (_, Some("approved" | "pre_approved")) if !pending_in_readme => {
            return Err(refuse("plan is already approved"));
        }
        (Era::V1, None) if readme.is_some() && !pending_in_readme => {
            return Err(refuse(
                "plan is already approved (the README's Approval line)",
            ));
        }
        (Era::V1, None) if readme.is_none() => {
            // Seed 002: with no approval field, the README's Approval line
            // is the value, and with neither the plan is pending (what the
            // inbox shows). A v1 state cannot hold the field, so the line
            // is added to the README, below its title; the state stays v1.
            let bytes = c.read(README)?.map(<[u8]>::to_vec);
            let Some(bytes) = bytes else {
                return Err(refuse(
                    "a v1 plan records its approval in README.md, and this plan has none",
                ));
            };
            c.extra.push(Edit::Replace {
                file: README.to_owned(),
                bytes: with_approval_line(&bytes),
            });
            return Ok(());
        }
        _ => {}
    }
    if era == Era::Locator {
        set(c.state(), "approval", json!("approved"));
    }
    let now = c.now.clone();
    set(c.state(), "updated_at", json!(now));
    if let Some((range, _)) = readme
        && pending_in_readme
    {
        let bytes = c.read(README)?.map(<[u8]>::to_vec).unwrap_or_default();
        let mut out = bytes[..range.0].to_vec();
        out.extend_from_slice(b"approved");
        out.extend_from_slice(&bytes[range.1..]);
        c.extra.push(Edit::Replace {
            file: README.to_owned(),
            bytes: out,
        });
    }
    Ok(())
}

/// `bytes` with `Approval: approved` as a paragraph of its own after the
/// first `# ` title line (at the top when there is none), in the file's
/// own line ending; every other byte kept.
fn with_approval_line(bytes: &[u8]) -> Vec<u8> {
    let eol: &[u8] = if bytes.windows(2).any(|w| w == b"\r\n") {
        b"\r\n"
    } else {
        b"\n"
    };
    let mut at = 0;
    let mut title_end = None;
    let mut indent: &[u8] = b"";
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        let start = at;
        at += line.len();
        let body = line.trim_ascii_start();
        if body.starts_with(b"# ") {
            // A README indented as a whole keeps its indentation.
            indent = &line[..line.len() - body.len()];
            title_end = Some((start, at));
            break;
        }
    }
    let mut out = Vec::with_capacity(bytes.len() + 24);
    match title_end {
        Some((_, end)) => {
            out.extend_from_slice(&bytes[..end]);
            if !bytes[..end].ends_with(b"\n") {
                out.extend_from_slice(eol);
            }
            out.extend_from_slice(eol);
            out.extend_from_slice(indent);
            out.extend_from_slice(b"Approval: approved");
            out.extend_from_slice(eol);
            out.extend_from_slice(&bytes[end..]);
        }
        None => {
            out.extend_from_slice(b"Approval: approved");
            out.extend_from_slice(eol);
            out.extend_from_slice(eol);
            out.extend_from_slice(bytes);
        }
    }
    out
}

/// A README label's value: its byte range and its normalised word.
type Labelled = ((usize, usize), String);

/// The byte range of the value on the README's first `Approval:` line
/// outside fenced code, and that value lower-cased.
fn readme_approval(c: &mut Ctx<'_>) -> Result<Option<Labelled>, ActError> {
    let Some(bytes) = c.read(README)? else {
        return Ok(None);
    };
    // Not UTF-8: its bytes are left alone.
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Ok(None);
    };
    let mut offset = 0;
    let mut fence: Option<char> = None;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let trimmed = line.trim();
        for f in ['`', '~'] {
            if trimmed.starts_with(&format!("{f}{f}{f}")) {
                fence = match fence {
                    Some(open) if open == f => None,
                    None => Some(f),
                    keep => keep,
                };
            }
        }
        if fence.is_some() {
            continue;
        }
        let Some(value) = crate::formats::dwp::markdown::labelled(line, "Approval") else {
            continue;
        };
        // `value` lies inside `line`: its offset is the pointers' distance.
        let at = value.as_ptr() as usize - line.as_ptr() as usize;
        let skip = value.len() - value.trim_start_matches(['`', '*', '"', '\'']).len();
        let word: String = value[skip..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '-'))
            .collect();
        let wstart = start + at + skip;
        return Ok(Some((
            (wstart, wstart + word.len()),
            word.to_lowercase().replace('-', "_"),
        )));
    }
    Ok(None)
}

/// `--block-reason`: the task is blocked and the plan records why, since
/// when, and what it needs.
pub(super) fn block(
    c: &mut Ctx<'_>,
    task: &str,
    reason: &str,
    needs: Option<&str>,
) -> Result<(), ActError> {
    ready_and_approved(&c.value)?;
    let (i, id) = find_task(&c.value, task)?;
    if rules::status(&c.value["tasks"][i]) == Some("completed") {
        return Err(refuse(
            "completed task requires an explicit refine/reopen reason",
        ));
    }
    if reason.trim().is_empty() {
        return Err(refuse("blocking requires a reason"));
    }
    if reason.chars().count() > contract::BLOCK_REASON_MAX {
        return Err(refuse(format!(
            "block reason exceeds {} chars",
            contract::BLOCK_REASON_MAX
        )));
    }
    let needs = needs.unwrap_or("");
    if needs.chars().count() > contract::BLOCK_NEEDS_MAX {
        return Err(refuse(format!(
            "block needs exceeds {} chars",
            contract::BLOCK_NEEDS_MAX
        )));
    }
    let existing = c.value.get("blocked").filter(|b| !b.is_null()).cloned();
    if existing
        .as_ref()
        .is_some_and(|b| b.get("task").and_then(Value::as_u64) != Some(id))
    {
        return Err(refuse("cannot replace an unrelated blocker"));
    }
    // The updater blocks any task, a later one too (update-state.py has no
    // prior-task rule for `blocked`). Such a blocker can only be resolved
    // once every earlier task is completed: `check` reports the stranded
    // plan (`dwp.blocker-stranded`), the decision itself is the updater's.
    let since = existing
        .as_ref()
        .and_then(|b| b.get("since").cloned())
        .unwrap_or_else(|| json!(c.now));
    let blocker = json!({"task": id, "reason": reason, "since": since, "needs": needs});
    set(c.state(), "blocked", blocker);
    transition(c, i, "blocked");
    let note = format!("Task {id} blocked by {}: {reason}", c.by);
    finish(c, id, "blocked", &note);
    // execute/SKILL.md: a stop is logged and PROGRESS.md's active context
    // lists the unresolved blocker.
    let mut entry = format!(
        "Task {id} blocked (unresolved blocker): {}",
        one_line(reason)
    );
    if !needs.trim().is_empty() {
        entry.push_str(&format!(" — needs: {}", one_line(needs)));
    }
    progress_note(c, "Blocked", &[entry])?;
    Ok(())
}

/// `--resolve-blocker`: only the current blocker's own task, and it goes
/// back to in_progress.
pub(super) fn unblock(c: &mut Ctx<'_>, task: &str) -> Result<(), ActError> {
    ready_and_approved(&c.value)?;
    let (i, id) = find_task(&c.value, task)?;
    let blocked = c.value.get("blocked").filter(|b| !b.is_null());
    if blocked.is_none_or(|b| b.get("task").and_then(Value::as_u64) != Some(id)) {
        return Err(refuse("cannot resolve an unrelated or absent blocker"));
    }
    prior_completed(&c.value, id)?;
    set(c.state(), "blocked", Value::Null);
    transition(c, i, "in_progress");
    let note = format!("Task {id} unblocked by {}; resumed.", c.by);
    finish(c, id, "resume", &note);
    let entry = format!("Task {id} unblocked (blocker resolved, blocked → in_progress)");
    progress_note(c, "Unblocked", &[entry])?;
    Ok(())
}

/// `--reopen-reason`: a completed task back to in_progress, as the
/// format's refine does it: the README box unticked and marked
/// `(re-validate: REASON)` (its `Plan Status` count one lower), the task's
/// gate evidence stamped `invalidated by refine` (retained history, never
/// passing evidence: its gates must run again), and the reopen recorded in
/// PROGRESS.md. README, state.json and PROGRESS.md then agree, so neither
/// `check` nor "Markdown wins" undoes it.
pub(super) fn reopen(c: &mut Ctx<'_>, task: &str, reason: &str) -> Result<(), ActError> {
    ready_and_approved(&c.value)?;
    let (i, id) = find_task(&c.value, task)?;
    if reason.trim().is_empty() {
        return Err(refuse(
            "reopening requires a reason: give --reason with what the refine changed (it is written to the README and PROGRESS.md)",
        ));
    }
    if c.value.get("blocked").is_some_and(|b| !b.is_null()) {
        return Err(refuse("resolve the active blocker explicitly first"));
    }
    let status = rules::status(&c.value["tasks"][i]).unwrap_or("");
    if status != "completed" {
        return Err(refuse(format!(
            "task {id} is {status}, not completed: there is nothing to reopen"
        )));
    }
    prior_completed(&c.value, id)?;
    transition(c, i, "in_progress");
    invalidate_gates(&mut c.value["tasks"][i]);
    let note = format!("Task {id} reopened by {}: {reason}", c.by);
    finish(c, id, "reopen", &note);
    untick(c, id, reason)?;
    let entry = vec![format!(
        "Task {id} reopened (completed → in_progress): {}; its gate evidence is invalidated by refine and the README box is unticked (re-validate)",
        one_line(reason)
    )];
    progress_note(c, "Reopen", &entry)?;
    Ok(())
}

/// The prefix refine stamps on gate evidence it invalidates
/// (state_contract.py `INVALIDATED_PREFIX`).
pub(super) const INVALIDATED_PREFIX: &str = "invalidated by refine";

/// Stamp every gate record of `task` not stamped yet: its evidence becomes
/// `invalidated by refine: OLD`, within the evidence budget.
fn invalidate_gates(task: &mut Value) {
    let Some(gates) = task.get_mut("gates").and_then(Value::as_array_mut) else {
        return;
    };
    for g in gates {
        let Some(obj) = g.as_object_mut() else {
            continue;
        };
        let old = obj.get("evidence").and_then(Value::as_str).unwrap_or("");
        if old.trim().to_lowercase().starts_with(INVALIDATED_PREFIX) {
            continue;
        }
        let stamped = if old.trim().is_empty() {
            INVALIDATED_PREFIX.to_owned()
        } else {
            format!("{INVALIDATED_PREFIX}: {old}")
        };
        obj.insert(
            "evidence".to_owned(),
            json!(rules::clip(&stamped, contract::GATE_EVIDENCE_MAX)),
        );
    }
}

/// The README's side of a reopen: task `id`'s checked box becomes
/// `[ ]` with ` (re-validate: REASON)` at the end of its line, and a
/// `Plan Status: N/M` count goes one down. Every other byte is kept; a
/// README without the box (or none at all) is left alone.
fn untick(c: &mut Ctx<'_>, id: u64, reason: &str) -> Result<(), ActError> {
    let Some(bytes) = c.read(README)?.map(<[u8]>::to_vec) else {
        return Ok(());
    };
    let Ok(text) = String::from_utf8(bytes) else {
        // Its box could not be unticked: the reopen would leave the README
        // ticking a task the state reopened, which "Markdown wins" undoes.
        return Err(refuse(
            "README.md is not UTF-8 text, so loopdeck cannot untick the task's box: the reopen would leave README and state.json disagreeing; untick it (with `(re-validate: REASON)`) by hand, or save the README as UTF-8",
        ));
    };
    let readme = crate::formats::dwp::markdown::Readme::parse(&text);
    let Some(line_no) = readme
        .checkboxes
        .iter()
        .find(|b| b.task == id && b.checked)
        .map(|b| b.line)
    else {
        return Ok(());
    };
    let status_line = plan_status_line(&text);
    let mut out = String::with_capacity(text.len() + reason.len() + 20);
    for (n, line) in text.split_inclusive('\n').enumerate() {
        if n + 1 == line_no {
            let body = line.trim_end_matches(['\r', '\n']);
            let eol = &line[body.len()..];
            let (box_at, _) = body
                .match_indices("[x]")
                .chain(body.match_indices("[X]"))
                .min()
                .unwrap_or((usize::MAX, ""));
            if box_at == usize::MAX {
                out.push_str(line);
                continue;
            }
            out.push_str(&body[..box_at]);
            out.push_str("[ ]");
            out.push_str(&body[box_at + 3..]);
            out.push_str(&format!(" (re-validate: {})", marker_text(reason)));
            out.push_str(eol);
        } else if status_line == Some(n) {
            out.push_str(&one_down(line));
        } else {
            out.push_str(line);
        }
    }
    c.extra.push(Edit::Replace {
        file: README.to_owned(),
        bytes: out.into_bytes(),
    });
    Ok(())
}

/// A reason as the README marker carries it: one line; no `(`/`)` that
/// would end the marker early, no `[`/`]`/`{`/`}` a reader could take for a
/// box, a link or a Lite anchor, and no `Plan Status:` (DWP's verifier and
/// loopdeck read that count anywhere on a line). The reason itself is
/// recorded whole in PROGRESS.md.
fn marker_text(reason: &str) -> String {
    let text: String = one_line(reason)
        .trim()
        .chars()
        .map(|ch| match ch {
            '(' | ')' | '[' | ']' | '{' | '}' => '/',
            c => c,
        })
        .collect();
    text.replace("Plan Status:", "Plan Status -")
}

/// The 0-based index of the first line outside fenced code carrying
/// `Plan Status: N/M`.
fn plan_status_line(text: &str) -> Option<usize> {
    let clean = crate::formats::dwp::markdown::unfenced(text);
    clean.lines().position(|l| {
        l.find("Plan Status:").is_some_and(|pos| {
            let rest = l[pos + "Plan Status:".len()..].trim_start_matches(['*', ' ', '\t']);
            rest.split_once('/')
                .is_some_and(|(a, _)| a.trim().parse::<u64>().is_ok())
        })
    })
}

/// `line` with the N of its `Plan Status: N/M` one lower (kept at 0).
fn one_down(line: &str) -> String {
    let Some(pos) = line.find("Plan Status:") else {
        return line.to_owned();
    };
    let head = pos + "Plan Status:".len();
    let rest = &line[head..];
    let skip = rest.len() - rest.trim_start_matches(['*', ' ', '\t']).len();
    let digits_at = head + skip;
    let digits: String = line[digits_at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    let Ok(n) = digits.parse::<u64>() else {
        return line.to_owned();
    };
    format!(
        "{}{}{}",
        &line[..digits_at],
        n.saturating_sub(1),
        &line[digits_at + digits.len()..]
    )
}

/// The task `arg` names (`2`, `Task 2`, `task-2`, `#task-2`): its index
/// and id, or the updater's refusal listing the ids there are.
pub(super) fn find_task(state: &Value, arg: &str) -> Result<(usize, u64), ActError> {
    let digits: String = arg
        .trim()
        .trim_start_matches('#')
        .trim_start_matches(|c: char| c.is_ascii_alphabetic())
        .trim_start_matches(['-', '_', ' '])
        .to_owned();
    let tasks = state.get("tasks").and_then(Value::as_array);
    let all = tasks.map(Vec::as_slice).unwrap_or_default();
    let found = digits.parse::<u64>().ok().and_then(|n| {
        all.iter()
            .position(|t| rules::task_id(t) == Some(n))
            .map(|i| (i, n))
    });
    found.ok_or_else(|| {
        let have: Vec<String> = all
            .iter()
            .filter_map(rules::task_id)
            .map(|n| n.to_string())
            .collect();
        refuse(format!(
            "no task {} in this plan (have: [{}])",
            arg.trim(),
            have.join(", ")
        ))
    })
}

fn prior_completed(state: &Value, id: u64) -> Result<(), ActError> {
    let tasks = state.get("tasks").and_then(Value::as_array);
    let open = tasks
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .any(|t| {
            rules::task_id(t).is_some_and(|n| n < id) && rules::status(t) != Some("completed")
        });
    if open {
        return Err(refuse("prior required task is not completed"));
    }
    Ok(())
}

/// Set task `i`'s status and, on a real change, stamp `started_at` (first
/// start) and `completed_at` (first completion) when absent, as the updater
/// does in every era (update-state.py; the v2/v5 task schema has both
/// fields, and state_contract requires `completed_at` on a completed task).
pub(super) fn transition(c: &mut Ctx<'_>, i: usize, to: &str) {
    let now = c.now.clone();
    let Some(task) = c.value["tasks"][i].as_object_mut() else {
        return;
    };
    let from = task.get("status").and_then(Value::as_str).unwrap_or("");
    if from != to {
        if matches!(to, "in_progress" | "completed" | "blocked") && !task.contains_key("started_at")
        {
            task.insert("started_at".to_owned(), json!(now));
        }
        if to == "completed" && !task.contains_key("completed_at") {
            task.insert("completed_at".to_owned(), json!(now));
        }
    }
    task.insert("status".to_owned(), json!(to));
}

/// What the updater does after every change: recount, re-derive the plan
/// status, stamp `updated_at`, move the checkpoint.
pub(super) fn finish(c: &mut Ctx<'_>, task: u64, step: &str, note: &str) {
    rules::recount(c.state());
    let now = c.now.clone();
    set(c.state(), "updated_at", json!(now));
    let checkpoint = json!({
        "task": task,
        "step": step,
        "at": now,
        "note": rules::clip(&one_line(note), contract::CHECKPOINT_NOTE_MAX),
    });
    set(c.state(), "checkpoint", checkpoint);
}

/// Set `key` on the state's root object, in place when it exists.
pub(super) fn set(state: &mut Value, key: &str, value: Value) {
    if let Some(root) = state.as_object_mut() {
        insert(root, key, value);
    }
}

fn insert(obj: &mut Map<String, Value>, key: &str, value: Value) {
    obj.insert(key.to_owned(), value);
}

/// Untrusted text on one Markdown line: line breaks and control
/// characters become spaces.
pub(super) fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// Append a dated section to PROGRESS.md (created when missing); every
/// byte already there stays.
pub(super) fn progress_note(
    c: &mut Ctx<'_>,
    title: &str,
    lines: &[String],
) -> Result<(), ActError> {
    let before = c.read(PROGRESS)?.map(<[u8]>::to_vec);
    let crlf = before
        .as_deref()
        .is_some_and(|b| b.windows(2).any(|w| w == b"\r\n"));
    let nl = if crlf { "\r\n" } else { "\n" };
    let mut out = before
        .clone()
        .unwrap_or_else(|| format!("# Progress{nl}").into_bytes());
    if !out.is_empty() && !out.ends_with(b"\n") {
        out.extend_from_slice(nl.as_bytes());
    }
    let mut entry = format!("{nl}## {title} — {} ({}){nl}{nl}", c.now, one_line(&c.by));
    for l in lines {
        entry.push_str(&format!("- {}{nl}", one_line(l)));
    }
    out.extend_from_slice(entry.as_bytes());
    c.extra.push(Edit::Replace {
        file: PROGRESS.to_owned(),
        bytes: out,
    });
    Ok(())
}
