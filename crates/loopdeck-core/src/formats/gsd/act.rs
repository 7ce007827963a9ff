//! The decisions this format allows (`loopdeck act`), with gsd-tools'
//! semantics (`state add-decision`, `add-blocker`, `resolve-blocker`,
//! `signal-resume`): lines spliced into `.planning/STATE.md` under GSD's
//! own lock (`.planning/STATE.md.lock`, O_EXCL, holding the pid), its
//! `last_updated` refreshed, every other byte kept.

use std::path::Path;

use serde_json::Value;

use super::body::is_placeholder_item;
use super::splice::{Doc, List, flatten, one_line};
use super::text::{self, Field};
use super::{GSD_WAITING_FILE, STATE_FILE, WAITING_FILE};
use crate::model::{Address, Format, Request, Verb};
use crate::store::transact;
use crate::store::txn::{ActError, Edit, LockKind, Outcome, Refusal, Snapshot, Txn, WriteOptions};

/// Make `req` on the project in `dir`.
pub(crate) fn act(dir: &Path, req: &Request, opts: &WriteOptions) -> Result<Outcome, ActError> {
    match &req.verb {
        Verb::AddDecision { .. }
        | Verb::AddBlocker { .. }
        | Verb::ResolveBlocker { .. }
        | Verb::Answer { .. } => {}
        other => return Err(ActError::not_for(Format::Gsd, other)),
    }
    let decision = serde_json::to_value(&req.verb).unwrap_or(Value::Null);
    let txn = Txn::new(
        dir,
        STATE_FILE,
        LockKind::PidFile,
        opts,
        &req.by,
        req.now,
        decision,
    );
    transact(&txn, |snap| decide(snap, req))
}

fn refuse(msg: impl Into<String>) -> ActError {
    ActError::Refused(Refusal::new(msg))
}

/// The edits `req` makes, from the files as `snap` reads them.
fn decide(snap: &mut Snapshot, req: &Request) -> Result<Vec<Edit>, ActError> {
    let bytes = snap
        .read(STATE_FILE)?
        .ok_or_else(|| refuse(format!("{STATE_FILE} does not exist")))?
        .to_vec();
    let mut doc = Doc::parse(&bytes).map_err(|why| refuse(format!("{STATE_FILE}: {why}")))?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let mut edits = Vec::new();
    match &req.verb {
        Verb::AddDecision {
            text: summary,
            phase,
            rationale,
        } => {
            let summary = text::entry("the decision", summary, Field::Decision).map_err(refuse)?;
            let rationale = rationale
                .as_deref()
                .filter(|r| !r.trim().is_empty())
                .map(|r| text::entry("the rationale", r, Field::Decision))
                .transpose()
                .map_err(refuse)?;
            let phase = match phase {
                // `--phase "Phase 3"` means phase 3.
                Some(p) => text::phase(p).map_err(refuse)?,
                None => current_phase(&doc, &text),
            };
            doc.add(
                List::Decisions,
                decision_entry(&phase, &summary, rationale.as_deref()),
            )
            .map_err(|why| refuse(format!("{STATE_FILE}: {why}")))?;
        }
        Verb::AddBlocker { text: blocker } => {
            let blocker = text::entry("the blocker", blocker, Field::Blocker).map_err(refuse)?;
            if is_placeholder_item(&blocker) {
                // The views would hide it: nothing accepted is then hidden.
                return Err(refuse(format!(
                    "the blocker \"{}\" says \"nothing here\" (a placeholder), which loopdeck does not list as a blocker: write what blocks the project",
                    flatten(&blocker)
                )));
            }
            doc.add(List::Blockers, format!("- {blocker}"))
                .map_err(|why| refuse(format!("{STATE_FILE}: {why}")))?;
        }
        Verb::ResolveBlocker { text: needle, all } => {
            let needle = one_line("the blocker to resolve", needle).map_err(refuse)?;
            resolve(&mut doc, &needle, *all)?;
        }
        Verb::Answer {
            id,
            text: answer,
            rationale,
            ..
        } => {
            let waiting = waiting_file(snap)?;
            bind(snap, waiting, id.as_deref())?;
            let answer = text::entry("the answer", answer, Field::Decision).map_err(refuse)?;
            let entry = answer_entry(
                snap,
                waiting,
                &doc,
                &text,
                req,
                &answer,
                rationale.as_deref(),
            )?;
            doc.add(List::Decisions, entry)
                .map_err(|why| refuse(format!("{STATE_FILE}: {why}")))?;
            // Both, as gsd-tools' signal-resume removes them.
            for file in [WAITING_FILE, GSD_WAITING_FILE] {
                if snap.read(file)?.is_some() {
                    edits.push(Edit::Remove {
                        file: file.to_owned(),
                    });
                }
            }
        }
        other => return Err(ActError::not_for(Format::Gsd, other)),
    }
    doc.refresh_last_updated(req.now);
    edits.insert(
        0,
        Edit::Replace {
            file: STATE_FILE.to_owned(),
            bytes: doc.to_bytes(),
        },
    );
    Ok(edits)
}

/// The decisions `STATE.md` takes as read (`text`, its bytes as UTF-8):
/// `add-decision` and `add-blocker` on the project, and `resolve-blocker`
/// on each of the reader's `blockers` that the act finds (the needle is
/// the blocker's own text). `None` when the act edits no such file (it
/// does not parse as GSD's `STATE.md`): then nothing can be decided, an
/// answer to WAITING.json included.
pub(crate) fn offers(text: &str, blockers: &[String]) -> Option<Vec<Address>> {
    let doc = Doc::parse(text.as_bytes()).ok()?;
    let mut out = vec![
        Address::new("add-decision", None, Vec::new()),
        Address::new("add-blocker", None, Vec::new()),
    ];
    for b in blockers {
        let found = one_line("the blocker to resolve", b)
            .ok()
            .and_then(|needle| doc.clone().resolve(List::Blockers, &needle))
            // Only a blocker its own text names alone: resolving by
            // text removes every line containing it, and a row stands for
            // one line.
            .is_some_and(|removed| removed.len() == 1);
        if found && !out.iter().any(|a| a.target.as_ref() == Some(b)) {
            out.push(Address::new("resolve-blocker", Some(b.clone()), Vec::new()));
        }
    }
    Some(out)
}

/// The WAITING.json an answer settles: `.gsd/`'s when there is one
/// (gsd-tools' `signal-waiting` writes there whenever `.gsd/` exists), else
/// `.planning/`'s, as the reader shows it.
fn waiting_file(snap: &mut Snapshot) -> Result<&'static str, ActError> {
    Ok(if snap.read(GSD_WAITING_FILE)?.is_some() {
        GSD_WAITING_FILE
    } else {
        WAITING_FILE
    })
}

/// An answer to a project where nothing waits: none of the WAITING.json
/// files exists. Said before anything about the answer itself (its id, its
/// text): there is nothing to answer.
fn nothing_waiting() -> ActError {
    refuse(format!(
        "nothing is waiting for an answer in this project: an answer goes to the question in {WAITING_FILE} (or {GSD_WAITING_FILE}), and neither exists"
    ))
}

/// A GSD question has no id; `answer SHA256 TEXT` binds the answer to the
/// `WAITING.json` it was read from instead (its sha256, or a prefix of at
/// least 8 hex digits, as `show --json` lists the file): a question
/// replaced or removed since is a conflict (exit 3), never answered by
/// mistake. With no such file and no sha256 given (none, or an id like
/// `OQ-1`), nothing is waiting: that is the refusal, whatever was given.
fn bind(snap: &mut Snapshot, file: &str, id: Option<&str>) -> Result<(), ActError> {
    let pin = id.map(|id| {
        let hex = id.trim().to_ascii_lowercase();
        let ok = (8..=64).contains(&hex.len()) && hex.bytes().all(|b| b.is_ascii_hexdigit());
        ok.then_some(hex)
    });
    let found = snap.read(file)?.map(crate::store::sha256_hex);
    match (pin, found) {
        (Some(Some(pin)), None) => Err(ActError::Changed(format!(
            "{file}: changed on disk: the question answered (sha256 {pin}…) is gone"
        ))),
        (_, None) => Err(nothing_waiting()),
        (None, Some(_)) => Ok(()),
        (Some(None), Some(_)) => Err(refuse(format!(
            "a GSD project's waiting question has no id (`{}` given): `loopdeck act DIR answer TEXT`, or `answer SHA256 TEXT` with the sha256 of {file} as read",
            flatten(id.unwrap_or_default())
        ))),
        (Some(Some(pin)), Some(found)) if !found.starts_with(&pin) => Err(ActError::Changed(
            format!(
                "{file}: changed on disk: the question answered had sha256 {pin}…, the file now has {found}"
            ),
        )),
        (Some(Some(_)), Some(_)) => Ok(()),
    }
}

/// `- [Phase N]: summary — rationale`, gsd-tools' `add-decision` line.
fn decision_entry(phase: &str, summary: &str, rationale: Option<&str>) -> String {
    match rationale {
        Some(r) => format!("- [Phase {phase}]: {summary} — {r}"),
        None => format!("- [Phase {phase}]: {summary}"),
    }
}

/// Remove the blocker matching `needle` (every one with `all`), or refuse
/// naming the blockers: none matches, or several do without `all`
/// (gsd-tools removes every line holding the text, silently).
fn resolve(doc: &mut Doc, needle: &str, all: bool) -> Result<(), ActError> {
    let listed = doc.items(List::Blockers);
    let heading = doc.heading(List::Blockers);
    if !all
        && let Some(matched) = doc.clone().resolve(List::Blockers, needle)
        && matched.len() > 1
    {
        let list = matched
            .iter()
            .map(|b| format!("\n  - {}", flatten(b)))
            .collect::<String>();
        return Err(refuse(format!(
            "\"{}\" is in {} blockers:{list}\nname one by a text only it holds, or pass --all to resolve all {}",
            flatten(needle),
            matched.len(),
            matched.len()
        )));
    }
    match doc.resolve(List::Blockers, needle) {
        None => Err(refuse(match doc.other_heading(List::Blockers) {
            // The reader lists those blockers; gsd-tools never sees them.
            Some(own) => format!(
                "{STATE_FILE} has no blockers section gsd-tools reads ({}): the blockers under `{own}` are the file's own, which gsd-tools' resolve-blocker does not reach; edit them by hand, or rename that heading to ### Blockers",
                List::Blockers.gsd_headings()
            ),
            None => format!(
                "{STATE_FILE} has no blockers section ({}): no blocker to resolve",
                List::Blockers.gsd_headings()
            ),
        })),
        Some(removed) if removed.is_empty() => {
            let list = if listed.is_empty() {
                " none".to_owned()
            } else {
                listed
                    .iter()
                    .map(|b| format!("\n  - {}", flatten(b)))
                    .collect::<String>()
            };
            Err(refuse(format!(
                "no blocker matches \"{}\"; the blockers under `{}` are:{list}",
                flatten(needle),
                heading.as_deref().map(flatten).unwrap_or_default()
            )))
        }
        Some(_) => Ok(()),
    }
}

/// `.planning/WAITING.json` as gsd-tools' `signal-waiting` writes it.
struct Waiting {
    question: String,
    options: Vec<String>,
    phase: Option<String>,
}

/// An option's label: a string, or an object's `label`/`name`/`value`/`title`.
pub(super) fn option_label(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Object(m) => ["label", "name", "value", "title"]
            .iter()
            .find_map(|k| m.get(*k).and_then(Value::as_str))
            .map_or_else(|| v.to_string(), str::to_owned),
        other => other.to_string(),
    }
}

fn read_waiting(snap: &mut Snapshot, file: &str) -> Result<Waiting, ActError> {
    let bytes = snap.read(file)?.ok_or_else(nothing_waiting)?;
    let v: Value = serde_json::from_slice(bytes)
        .map_err(|e| refuse(format!("{file} does not parse ({e}); it is left as it is")))?;
    let Value::Object(m) = v else {
        return Err(refuse(format!(
            "{file} is not a JSON object; it is left as it is"
        )));
    };
    let status = m
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or("waiting")
        .to_ascii_lowercase();
    if matches!(status.as_str(), "answered" | "resolved" | "done" | "closed") {
        return Err(refuse(format!(
            "the question in {file} is already {status}"
        )));
    }
    let question = m
        .get("question")
        .and_then(Value::as_str)
        .map(flatten)
        .filter(|q| !q.is_empty())
        .unwrap_or_else(|| "(no question text)".to_owned());
    let options = m
        .get("options")
        .and_then(Value::as_array)
        .map(|a| a.iter().map(|o| flatten(&option_label(o))).collect())
        .unwrap_or_default();
    let phase = match m.get("phase") {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(flatten(s)),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    Ok(Waiting {
        question,
        options,
        phase,
    })
}

/// A number typed with ASCII or full-width digits (`2`, `２`).
fn typed_number(s: &str) -> Option<usize> {
    if s.is_empty() {
        return None;
    }
    let mut n: usize = 0;
    for c in s.chars() {
        let d = match c {
            '0'..='9' => c as u32 - '0' as u32,
            '\u{ff10}'..='\u{ff19}' => c as u32 - 0xff10,
            _ => return None,
        };
        n = n.checked_mul(10)?.checked_add(d as usize)?;
    }
    Some(n)
}

/// Options written `A：…`, `B. …`, `(C) …`: a lone letter (ASCII or
/// full-width) names the one option it keys.
fn lettered(options: &[String], answer: &str) -> Option<String> {
    let mut chars = answer.chars();
    let key = match (chars.next()?, chars.next()) {
        (c @ 'A'..='Z' | c @ 'a'..='z', None) => c.to_ascii_uppercase(),
        (c @ '\u{ff21}'..='\u{ff3a}', None) => char::from_u32(c as u32 - 0xff21 + 'A' as u32)?,
        (c @ '\u{ff41}'..='\u{ff5a}', None) => char::from_u32(c as u32 - 0xff41 + 'A' as u32)?,
        _ => return None,
    };
    let keyed = |o: &&String| {
        let t = o.trim_start().trim_start_matches(['(', '（', '[']);
        let mut cs = t.chars();
        cs.next().is_some_and(|c| c.to_ascii_uppercase() == key)
            && cs.next().is_some_and(|sep| {
                matches!(
                    sep,
                    '：' | ':' | '.' | ')' | '）' | ']' | '、' | ' ' | '-' | '．'
                )
            })
    };
    let mut hits = options.iter().filter(keyed);
    match (hits.next(), hits.next()) {
        (Some(one), None) => Some(one.clone()),
        _ => None,
    }
}

/// The answer as recorded: an option's label when it names one (by its
/// label or its number), else the text itself.
fn pick(w: &Waiting, answer: &str, file: &str) -> Result<String, ActError> {
    if w.options.is_empty() {
        return Ok(answer.to_owned());
    }
    // A label first: options may themselves be numbers.
    if let Some(label) = w
        .options
        .iter()
        .find(|o| o.trim().to_lowercase() == answer.to_lowercase())
    {
        return Ok(label.clone());
    }
    if let Some(label) = lettered(&w.options, answer) {
        return Ok(label);
    }
    if let Some(n) = typed_number(answer) {
        return match n.checked_sub(1).and_then(|i| w.options.get(i)) {
            Some(label) => Ok(label.clone()),
            None => Err(refuse(format!(
                "option {n} does not exist; {file} offers:{}",
                w.options
                    .iter()
                    .enumerate()
                    .map(|(i, o)| format!("\n  {}. {o}", i + 1))
                    .collect::<String>()
            ))),
        };
    }
    Ok(answer.to_owned())
}

/// The decision line an answer to WAITING.json becomes:
/// `- [Phase N]: question → answer — answered by WHO`.
fn answer_entry(
    snap: &mut Snapshot,
    waiting: &str,
    doc: &Doc,
    text: &str,
    req: &Request,
    answer: &str,
    rationale: Option<&str>,
) -> Result<String, ActError> {
    let w = read_waiting(snap, waiting)?;
    let chosen = pick(&w, answer, waiting)?;
    let phase = match w.phase.as_deref().map(text::phase) {
        Some(Ok(p)) => p,
        _ => current_phase(doc, text),
    };
    let why = match rationale.filter(|r| !r.trim().is_empty()) {
        Some(r) => text::entry("the rationale", r, Field::Decision).map_err(refuse)?,
        None => format!("answered by {}", text::from_file(&req.by, Field::Decision)),
    };
    // The question and the option come from WAITING.json: escaped, never
    // refused (the human's answer is what is checked).
    Ok(decision_entry(
        &phase,
        &format!(
            "{} → {}",
            text::from_file(&w.question, Field::Decision),
            text::from_file(&chosen, Field::Decision)
        ),
        Some(&why),
    ))
}

/// The phase a decision without `--phase` is filed under: the current
/// phase when it reads as a phase number, else `?` as gsd-tools writes
/// (never a plan name or `1 (planned)`).
fn current_phase(doc: &Doc, text: &str) -> String {
    doc.current_phase(text)
        .and_then(|p| text::phase(&p).ok())
        .unwrap_or_else(|| "?".to_owned())
}

#[cfg(test)]
mod tests;
