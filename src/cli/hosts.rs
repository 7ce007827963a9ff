//! `list`, `inbox` and `check` of other machines: one `ssh HOST loopdeck
//! COMMAND ROOT... --json` per host, all at once (a thread each, while the
//! local roots are read), the replies merged with the local result.
//!
//! Every row or item from a host carries `"host": NAME` (first); local
//! ones carry none, so a run without hosts prints what it always did. A
//! host that cannot be read (ssh fails, its loopdeck is missing or
//! answers something else than `"schema_version": 1`) is one problem of
//! the run, `host NAME: why`; the problems a host reports come back as
//! `host NAME: FILE`. The plain tables show a host's rows as `NAME · id`.
//! The JSON says which hosts were asked after `roots` (the local roots):
//! `"hosts": [{"name": …, "roots": […]}]`.
//!
//! Orders: `list` newest update first (unknown last), then id, format and
//! host, local first; `inbox` as the local inbox (a host's items are never
//! ranked first by a rule: its `[[escalate]]` rules are its own), then
//! host; `check` the local projects, then each host's in the hosts' order.

use std::cmp::Reverse;
use std::io::{self, Write};
use std::process::{Command, Stdio};
use std::thread::JoinHandle;

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::json;
use super::table;
use super::views::{
    AnsweredRow, CheckRow, CheckSummary, CheckView, InboxRow, Row, SCHEMA_VERSION, StallRow,
};
use crate::model::text::sanitize_line;
use crate::model::{Finding, Format, HostName, InboxKind, Level, Phrase, Problem};
use loopdeck_core::fleet::HostSpec;
use loopdeck_core::fleet::ssh::{self, Arg};

/// The longest part of a host's stderr a problem repeats.
const MAX_REASON_CHARS: usize = 300;

/// What every host is asked, besides the command and its roots.
#[derive(Debug, Default)]
pub(super) struct Flags {
    /// `--now`, as the local run has it.
    pub now: Option<String>,
    /// `--readonly`: no write there either.
    pub readonly: bool,
    /// `list --changed`.
    pub changed: bool,
}

/// The hosts being asked (each its thread).
pub(super) struct Asked(Vec<(HostSpec, JoinHandle<Result<Value, String>>)>);

/// One host's answer: its JSON (`"schema_version": 1`), or why there is none.
pub(super) struct Reply {
    pub host: HostSpec,
    pub result: Result<Value, String>,
}

/// Starts `loopdeck COMMAND ROOT... --json` on every host, each in its own
/// thread; [`Asked::wait`] collects the answers.
pub(super) fn ask(hosts: &[HostSpec], command: &'static str, flags: &Flags) -> Asked {
    let mut words = vec!["--json".to_owned()];
    if let Some(now) = &flags.now {
        words.extend(["--now".to_owned(), now.clone()]);
    }
    if flags.readonly {
        words.push("--readonly".to_owned());
    }
    if flags.changed {
        words.push("--changed".to_owned());
    }
    let key = match command {
        "inbox" => "items",
        _ => "projects",
    };
    Asked(
        hosts
            .iter()
            .map(|h| {
                let host = h.clone();
                let words = words.clone();
                let thread = std::thread::spawn(move || {
                    let mut args = vec![Arg::Word(command)];
                    args.extend(host.roots.iter().map(|r| Arg::Path(r)));
                    args.extend(words.iter().map(|w| Arg::Word(w)));
                    run_ssh(&host, &args, key)
                });
                (h.clone(), thread)
            })
            .collect(),
    )
}

impl Asked {
    /// Every host's reply, in the hosts' order.
    pub(super) fn wait(self) -> Vec<Reply> {
        self.0
            .into_iter()
            .map(|(host, thread)| Reply {
                result: thread
                    .join()
                    .unwrap_or_else(|_| Err("reading its reply failed".to_owned())),
                host,
            })
            .collect()
    }
}

/// Runs the remote command and judges what came back: JSON of schema 1
/// with `key` (exit 0, or 1 for findings and problems of its own), else
/// the reason, said as ssh or the remote shell said it.
fn run_ssh(host: &HostSpec, args: &[Arg<'_>], key: &str) -> Result<Value, String> {
    let out = Command::new("ssh")
        .args(ssh::argv(host, args))
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run ssh: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stderr
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .map(|l| l.chars().take(MAX_REASON_CHARS).collect::<String>());
    let code = out.status.code();
    let parsed = serde_json::from_slice::<Value>(&out.stdout);
    match (code, parsed) {
        (Some(0 | 1), Ok(v)) if v.is_object() => {
            let version = v.get("schema_version").cloned().unwrap_or(Value::Null);
            if version != SCHEMA_VERSION {
                return Err(format!(
                    "its loopdeck answers \"schema_version\": {version}, this one reads {SCHEMA_VERSION} (install the same loopdeck there)"
                ));
            }
            if !v.get(key).is_some_and(Value::is_array) {
                return Err(format!("its reply has no \"{key}\" list"));
            }
            Ok(v)
        }
        (Some(0 | 1), other) => Err(match (other, last) {
            (Err(e), _) => format!("its reply is not JSON ({e})"),
            _ => "its reply is not a JSON object".to_owned(),
        }),
        (code, _) => {
            let said = last.unwrap_or_else(|| match code {
                Some(c) => format!("ssh exited with {c}"),
                None => "ssh was stopped by a signal".to_owned(),
            });
            let missing = code == Some(127) || said.contains("command not found");
            Err(if missing {
                format!(
                    "{said} (install loopdeck there, or give its path as `command` in the host's [[host]] table)"
                )
            } else {
                said
            })
        }
    }
}

/// The run's problems: the local ones, then per host its failure or the
/// problems it reported, prefixed with the host.
fn problems(local: &[Problem], replies: &[Reply]) -> Vec<Problem> {
    let mut all = local.to_vec();
    for r in replies {
        let name = &r.host.name;
        match &r.result {
            Err(why) => all.push(Problem {
                file: format!("host {name}"),
                reason: why.clone(),
            }),
            Ok(v) => all.extend(list(v, "problems").iter().map(|p| {
                Problem {
                    file: format!(
                        "host {name}: {}",
                        p.get("file").and_then(Value::as_str).unwrap_or("-")
                    ),
                    reason: p
                        .get("reason")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                }
            })),
        }
    }
    all
}

fn list<'v>(v: &'v Value, key: &str) -> &'v [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// `row` with `"host": NAME` first.
fn tagged(host: &HostName, row: &Value) -> Value {
    let mut m = Map::new();
    m.insert("host".to_owned(), Value::from(&**host));
    if let Value::Object(fields) = row {
        for (k, v) in fields {
            if k != "host" {
                m.insert(k.clone(), v.clone());
            }
        }
    }
    Value::Object(m)
}

/// Each host's rows under `key`, tagged with the host.
fn remote_rows<'r>(
    replies: &'r [Reply],
    key: &'r str,
) -> impl Iterator<Item = (&'r HostName, &'r Value)> {
    replies.iter().flat_map(move |r| {
        let rows = r.result.as_ref().map_or(&[][..], |v| list(v, key));
        rows.iter().map(move |row| (&r.host.name, row))
    })
}

fn text<'v>(v: &'v Value, key: &str) -> &'v str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn time(s: Option<&str>) -> Option<DateTime<Utc>> {
    s.and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|t| t.with_timezone(&Utc))
}

fn format_of(name: &str) -> &'static str {
    Format::ALL
        .iter()
        .map(|f| f.as_str())
        .find(|f| *f == name)
        .unwrap_or("?")
}

fn kind_of(name: &str) -> InboxKind {
    InboxKind::ALL
        .into_iter()
        .find(|k| serde_json::to_value(k).is_ok_and(|v| v == name))
        .unwrap_or(InboxKind::Question)
}

fn shown_id(host: &HostName, id: &str) -> String {
    format!("{host} · {id}")
}

/// The top of every merged view: as the local one, with the hosts after
/// the roots.
fn head(
    now: Option<String>,
    roots: Vec<String>,
    replies: &[Reply],
    problems: &[Problem],
) -> Map<String, Value> {
    let hosts: Vec<Value> = replies
        .iter()
        .map(|r| {
            serde_json::json!({
                "name": &*r.host.name,
                "roots": r.host.roots,
            })
        })
        .collect();
    let mut m = Map::new();
    m.insert("schema_version".to_owned(), Value::from(SCHEMA_VERSION));
    m.insert("now".to_owned(), now.map_or(Value::Null, Value::from));
    m.insert("roots".to_owned(), Value::from(roots));
    m.insert("hosts".to_owned(), Value::from(hosts));
    m.insert(
        "problems".to_owned(),
        serde_json::to_value(problems).unwrap_or_default(),
    );
    m
}

/// The order `list` gives: newest update first (unknown last), then by
/// id, format and host (local first).
type ListKey = (bool, Reverse<Option<DateTime<Utc>>>, String, String, String);

fn list_key(updated: Option<&str>, id: &str, format: &str, host: Option<&HostName>) -> ListKey {
    let at = time(updated);
    (
        at.is_none(),
        Reverse(at),
        id.to_owned(),
        format.to_owned(),
        host.map(|h| h.to_string()).unwrap_or_default(),
    )
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireProblem {
    file: String,
    reason: String,
}

impl WireProblem {
    fn problem(self) -> Problem {
        Problem {
            file: self.file,
            reason: self.reason,
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireStall {
    agent: Option<String>,
    since: Option<String>,
    silent_seconds: i64,
    limit_seconds: i64,
}

/// A `list --json` row of a host, owned, for the plain table.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireRow {
    id: String,
    name: String,
    format: String,
    path: String,
    updated_at: Option<String>,
    age_seconds: Option<i64>,
    status: String,
    stage: Option<String>,
    progress_percent: Option<u8>,
    needs_human: usize,
    findings: usize,
    problems: Vec<WireProblem>,
    stalled: Option<WireStall>,
    escalated_by: Vec<String>,
}

struct OwnedRow {
    key: ListKey,
    id: String,
    wire: WireRow,
    stage: Option<Phrase>,
    problems: Vec<Problem>,
}

/// `list` with hosts: the local rows and every host's, newest first; the
/// run's problems returned.
pub(super) fn write_list(
    out: &mut dyn Write,
    as_json: bool,
    now: Option<String>,
    roots: Vec<String>,
    local_problems: &[Problem],
    rows: Vec<Row<'_>>,
    replies: &[Reply],
) -> io::Result<Vec<Problem>> {
    let problems = problems(local_problems, replies);
    if as_json {
        let mut all: Vec<(ListKey, Value)> = rows
            .iter()
            .map(|r| {
                let key = list_key(r.updated_at.as_deref(), r.id, r.format, None);
                (key, serde_json::to_value(r).unwrap_or_default())
            })
            .collect();
        all.extend(remote_rows(replies, "projects").map(|(host, row)| {
            let key = list_key(
                row.get("updated_at").and_then(Value::as_str),
                text(row, "id"),
                text(row, "format"),
                Some(host),
            );
            (key, tagged(host, row))
        }));
        all.sort_by(|a, b| a.0.cmp(&b.0));
        let mut view = head(now, roots, replies, &problems);
        view.insert(
            "projects".to_owned(),
            Value::from(all.into_iter().map(|(_, v)| v).collect::<Vec<_>>()),
        );
        json::write(out, &Value::Object(view))?;
        return Ok(problems);
    }
    let owned: Vec<OwnedRow> = remote_rows(replies, "projects")
        .map(|(host, row)| {
            let mut wire: WireRow = serde_json::from_value(row.clone()).unwrap_or_default();
            OwnedRow {
                key: list_key(
                    wire.updated_at.as_deref(),
                    &wire.id,
                    &wire.format,
                    Some(host),
                ),
                id: shown_id(host, &wire.id),
                stage: wire.stage.take().map(Phrase::Quoted),
                problems: std::mem::take(&mut wire.problems)
                    .into_iter()
                    .map(WireProblem::problem)
                    .collect(),
                wire,
            }
        })
        .collect();
    let mut all: Vec<(ListKey, Row<'_>)> = rows
        .into_iter()
        .map(|r| (list_key(r.updated_at.as_deref(), r.id, r.format, None), r))
        .collect();
    all.extend(owned.iter().map(|o| {
        let w = &o.wire;
        let row = Row {
            id: &o.id,
            name: &w.name,
            format: format_of(&w.format),
            path: w.path.clone(),
            updated_at: w.updated_at.clone(),
            age_seconds: w.age_seconds,
            status: &w.status,
            stage: o.stage.as_ref(),
            progress_percent: w.progress_percent,
            needs_human: w.needs_human,
            findings: w.findings,
            problems: &o.problems,
            stalled: w.stalled.as_ref().map(|s| StallRow {
                agent: s.agent.clone(),
                since: s.since.clone(),
                silent_seconds: s.silent_seconds,
                limit_seconds: s.limit_seconds,
            }),
            since_you_looked: None,
            escalated_by: w.escalated_by.clone(),
            changed_since: None,
        };
        (o.key.clone(), row)
    }));
    all.sort_by(|a, b| a.0.cmp(&b.0));
    let rows: Vec<Row<'_>> = all.into_iter().map(|(_, r)| r).collect();
    out.write_all(table::list(&rows).as_bytes())?;
    Ok(problems)
}

/// The inbox's order: items a rule ranks first (a host's never: its
/// rules are its own), then oldest first (unknown last), project, ref,
/// host (local first).
type ItemKey = (
    Reverse<bool>,
    bool,
    Option<DateTime<Utc>>,
    String,
    String,
    String,
);

fn item_key(
    first: bool,
    since: Option<DateTime<Utc>>,
    project: &str,
    reference: &str,
    host: Option<&HostName>,
) -> ItemKey {
    (
        Reverse(first),
        since.is_none(),
        since,
        project.to_owned(),
        reference.to_owned(),
        host.map(|h| h.to_string()).unwrap_or_default(),
    )
}

/// Answered items: newest answer first (unknown last).
type AnsweredKey = (bool, Reverse<Option<DateTime<Utc>>>, String, String, String);

fn answered_key(
    at: Option<DateTime<Utc>>,
    project: &str,
    reference: &str,
    host: Option<&HostName>,
) -> AnsweredKey {
    (
        at.is_none(),
        Reverse(at),
        project.to_owned(),
        reference.to_owned(),
        host.map(|h| h.to_string()).unwrap_or_default(),
    )
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireItem {
    project: String,
    project_name: String,
    format: String,
    path: String,
    kind: String,
    #[serde(rename = "ref")]
    reference: String,
    title: String,
    since: Option<String>,
    age_seconds: Option<i64>,
    waiting_since: Option<String>,
    options: Vec<String>,
    escalated_by: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireAnswered {
    project: String,
    project_name: String,
    format: String,
    path: String,
    kind: String,
    #[serde(rename = "ref")]
    reference: String,
    title: String,
    answer: String,
    answered_at: Option<String>,
    answered_by: Option<String>,
    age_seconds: Option<i64>,
}

/// `inbox` with hosts: the local items and every host's, in the inbox's
/// order; the run's problems returned.
#[allow(clippy::too_many_arguments)]
pub(super) fn write_inbox(
    out: &mut dyn Write,
    as_json: bool,
    now: Option<String>,
    roots: Vec<String>,
    local_problems: &[Problem],
    items: Vec<InboxRow<'_>>,
    answered: Vec<AnsweredRow<'_>>,
    replies: &[Reply],
) -> io::Result<Vec<Problem>> {
    let problems = problems(local_problems, replies);
    let remote_item_key = |host: &HostName, row: &Value| {
        item_key(
            false,
            time(row.get("since").and_then(Value::as_str)),
            text(row, "project"),
            text(row, "ref"),
            Some(host),
        )
    };
    let remote_answered_key = |host: &HostName, row: &Value| {
        answered_key(
            time(row.get("answered_at").and_then(Value::as_str)),
            text(row, "project"),
            text(row, "ref"),
            Some(host),
        )
    };
    if as_json {
        let mut all: Vec<(ItemKey, Value)> = items
            .iter()
            .map(|r| {
                let key = item_key(r.first, r.since_at, r.project, r.reference, None);
                (key, serde_json::to_value(r).unwrap_or_default())
            })
            .collect();
        all.extend(
            remote_rows(replies, "items").map(|(h, row)| (remote_item_key(h, row), tagged(h, row))),
        );
        all.sort_by(|a, b| a.0.cmp(&b.0));
        let mut done: Vec<(AnsweredKey, Value)> = answered
            .iter()
            .map(|r| {
                let key = answered_key(r.at, r.project, r.reference, None);
                (key, serde_json::to_value(r).unwrap_or_default())
            })
            .collect();
        done.extend(
            remote_rows(replies, "answered")
                .map(|(h, row)| (remote_answered_key(h, row), tagged(h, row))),
        );
        done.sort_by(|a, b| a.0.cmp(&b.0));
        let mut view = head(now, roots, replies, &problems);
        view.insert(
            "items".to_owned(),
            Value::from(all.into_iter().map(|(_, v)| v).collect::<Vec<_>>()),
        );
        view.insert(
            "answered".to_owned(),
            Value::from(done.into_iter().map(|(_, v)| v).collect::<Vec<_>>()),
        );
        json::write(out, &Value::Object(view))?;
        return Ok(problems);
    }
    // Owned copies of the hosts' items, which the rows borrow.
    let wire_items: Vec<(ItemKey, String, WireItem, Phrase)> = remote_rows(replies, "items")
        .map(|(h, row)| {
            let w: WireItem = serde_json::from_value(row.clone()).unwrap_or_default();
            let title = Phrase::Quoted(w.title.clone());
            (remote_item_key(h, row), shown_id(h, &w.project), w, title)
        })
        .collect();
    let wire_answered: Vec<(AnsweredKey, String, WireAnswered, Phrase)> =
        remote_rows(replies, "answered")
            .map(|(h, row)| {
                let w: WireAnswered = serde_json::from_value(row.clone()).unwrap_or_default();
                let title = Phrase::Quoted(w.title.clone());
                (
                    remote_answered_key(h, row),
                    shown_id(h, &w.project),
                    w,
                    title,
                )
            })
            .collect();
    let mut all: Vec<(ItemKey, InboxRow<'_>)> = items
        .into_iter()
        .map(|r| {
            (
                item_key(r.first, r.since_at, r.project, r.reference, None),
                r,
            )
        })
        .collect();
    all.extend(wire_items.iter().map(|(key, id, w, title)| {
        let row = InboxRow {
            project: id,
            project_name: &w.project_name,
            format: format_of(&w.format),
            path: w.path.clone(),
            kind: kind_of(&w.kind),
            reference: &w.reference,
            title,
            since: w.since.clone(),
            age_seconds: w.age_seconds,
            waiting_since: w.waiting_since.clone(),
            waiting_since_source: None,
            options: w.options.clone(),
            act: None,
            why_not: None,
            escalated_by: w.escalated_by.clone(),
            escalated_shown: w.escalated_by.clone(),
            first: false,
            since_at: time(w.since.as_deref()),
        };
        (key.clone(), row)
    }));
    all.sort_by(|a, b| a.0.cmp(&b.0));
    let mut done: Vec<(AnsweredKey, AnsweredRow<'_>)> = answered
        .into_iter()
        .map(|r| (answered_key(r.at, r.project, r.reference, None), r))
        .collect();
    done.extend(wire_answered.iter().map(|(key, id, w, title)| {
        let row = AnsweredRow {
            project: id,
            project_name: &w.project_name,
            format: format_of(&w.format),
            path: w.path.clone(),
            kind: kind_of(&w.kind),
            reference: &w.reference,
            title,
            answer: &w.answer,
            answered_at: w.answered_at.clone(),
            answered_by: w.answered_by.as_deref(),
            age_seconds: w.age_seconds,
            act: None,
            at: time(w.answered_at.as_deref()),
        };
        (key.clone(), row)
    }));
    done.sort_by(|a, b| a.0.cmp(&b.0));
    let items: Vec<InboxRow<'_>> = all.into_iter().map(|(_, r)| r).collect();
    let answered: Vec<AnsweredRow<'_>> = done.into_iter().map(|(_, r)| r).collect();
    out.write_all(table::inbox(&items, &answered).as_bytes())?;
    Ok(problems)
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireFinding {
    level: String,
    code: String,
    message: String,
    #[serde(rename = "ref")]
    reference: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireCheckRow {
    id: String,
    name: String,
    format: String,
    path: String,
    findings: Vec<WireFinding>,
    problems: Vec<WireProblem>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireSummary {
    projects: usize,
    errors: usize,
    warnings: usize,
    info: usize,
}

fn level_of(name: &str) -> Level {
    match name {
        "info" => Level::Info,
        "warning" => Level::Warning,
        _ => Level::Error,
    }
}

/// `check` with hosts: the local projects, then each host's; the summary
/// counts them all, a host that could not be read as one error. Returns
/// the run's problems and whether any error was found.
pub(super) fn write_check(
    out: &mut dyn Write,
    as_json: bool,
    local: CheckView<'_>,
    replies: &[Reply],
) -> io::Result<(Vec<Problem>, bool)> {
    let problems = problems(local.problems, replies);
    let mut summary = CheckSummary {
        projects: local.summary.projects,
        errors: local.summary.errors,
        warnings: local.summary.warnings,
        info: local.summary.info,
    };
    for r in replies {
        match &r.result {
            Err(_) => summary.errors += 1,
            Ok(v) => {
                let s: WireSummary = v
                    .get("summary")
                    .and_then(|s| serde_json::from_value(s.clone()).ok())
                    .unwrap_or_default();
                summary.projects += s.projects;
                summary.errors += s.errors;
                summary.warnings += s.warnings;
                summary.info += s.info;
            }
        }
    }
    let failed = summary.errors > 0;
    if as_json {
        let mut rows: Vec<Value> = local
            .projects
            .iter()
            .map(|r| serde_json::to_value(r).unwrap_or_default())
            .collect();
        rows.extend(remote_rows(replies, "projects").map(|(h, row)| tagged(h, row)));
        let mut view = head(local.now, local.roots, replies, &problems);
        view.insert(
            "summary".to_owned(),
            serde_json::to_value(&summary).unwrap_or_default(),
        );
        view.insert("projects".to_owned(), Value::from(rows));
        json::write(out, &Value::Object(view))?;
        return Ok((problems, failed));
    }
    let owned: Vec<(String, WireCheckRow, Vec<Finding>, Vec<Problem>)> =
        remote_rows(replies, "projects")
            .map(|(h, row)| {
                let mut w: WireCheckRow = serde_json::from_value(row.clone()).unwrap_or_default();
                let findings = std::mem::take(&mut w.findings)
                    .into_iter()
                    .map(|f| Finding {
                        level: level_of(&f.level),
                        code: f.code,
                        message: f.message,
                        reference: f.reference,
                    })
                    .collect();
                let problems = std::mem::take(&mut w.problems)
                    .into_iter()
                    .map(WireProblem::problem)
                    .collect();
                (shown_id(h, &w.id), w, findings, problems)
            })
            .collect();
    let mut rows = local.projects;
    rows.extend(owned.iter().map(|(id, w, findings, problems)| CheckRow {
        id,
        name: &w.name,
        format: format_of(&w.format),
        path: w.path.clone(),
        findings,
        problems,
    }));
    let view = CheckView {
        schema_version: SCHEMA_VERSION,
        now: local.now,
        roots: local.roots,
        problems: &problems,
        summary,
        projects: rows,
    };
    out.write_all(table::check(&view).as_bytes())?;
    Ok((problems, failed))
}

/// `show HOST:DIR`: the host's project at `dir`, as that host's
/// `loopdeck show DIR` gives it: JSON with `"host"` after
/// `schema_version`, or the plain view under a `host` line, made safe
/// again here (it is another machine's text). `Err`: why, as ssh or the
/// remote said it.
pub(super) fn show(
    host: &HostSpec,
    dir: &str,
    json_out: bool,
    now: Option<&str>,
) -> Result<(String, i32), String> {
    let mut args = vec![Arg::Word("show"), Arg::Path(dir)];
    if json_out {
        args.push(Arg::Word("--json"));
    }
    if let Some(now) = now {
        args.extend([Arg::Word("--now"), Arg::Word(now)]);
    }
    let out = Command::new("ssh")
        .args(ssh::argv(host, &args))
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run ssh: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stderr
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .map(|l| l.chars().take(MAX_REASON_CHARS).collect::<String>());
    let code = out.status.code().unwrap_or(-1);
    if !(code == 0 || code == 1) || out.stdout.is_empty() {
        return Err(last.unwrap_or_else(|| format!("ssh exited with {code}")));
    }
    if !json_out {
        let text = String::from_utf8_lossy(&out.stdout);
        let mut shown = format!("host       {}\n", sanitize_line(&host.name));
        for line in text.lines() {
            shown.push_str(&sanitize_line(line));
            shown.push('\n');
        }
        return Ok((shown, code));
    }
    let v: Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("its reply is not JSON ({e})"))?;
    let Value::Object(sent) = v else {
        return Err("its reply is not a JSON object".to_owned());
    };
    if sent.get("schema_version") != Some(&Value::from(SCHEMA_VERSION)) {
        return Err(format!(
            "its loopdeck answers another schema_version, this one reads {SCHEMA_VERSION} (install the same loopdeck there)"
        ));
    }
    let mut tagged = Map::with_capacity(sent.len() + 1);
    for (k, v) in sent {
        let first = k == "schema_version";
        tagged.insert(k, v);
        if first {
            tagged.insert("host".to_owned(), Value::String(host.name.to_string()));
        }
    }
    let mut buf = Vec::new();
    json::write(&mut buf, &Value::Object(tagged)).map_err(|e| e.to_string())?;
    Ok((String::from_utf8_lossy(&buf).into_owned(), code))
}
