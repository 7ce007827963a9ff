//! The lines of the `loopdeck watch` feed: one JSON object per line
//! (schema in [`super`]'s doc), or one plain line per change for a human.

use std::io::{self, Write};

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;
use serde::ser::{SerializeSeq, Serializer};

use super::super::views::{InboxRow, Policy, Row, SCHEMA_VERSION, display_path, inbox_rows};
use super::super::{json, table};
use crate::model::changes::Change;
use crate::model::text::{pad, sanitize_line, width};
use crate::model::{Bug, Event, Format, InboxItem, Project, wire};
use crate::t;
use loopdeck_core::follow::Liveness;

/// One line of the feed.
#[derive(Serialize)]
pub struct Line<'a> {
    pub schema_version: u32,
    #[serde(flatten)]
    pub body: Body<'a>,
}

/// A line's `type` and fields (`at` first: when loopdeck saw it).
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Body<'a> {
    Snapshot {
        at: String,
        loopdeck_version: &'static str,
        /// `--now`, as `list --json` gives it (rows' ages are counted from it).
        now: Option<String>,
        roots: &'a [String],
        problems: &'a [String],
        watcher: &'a Liveness,
        projects: Vec<Row<'a>>,
    },
    ProjectAdded {
        at: String,
        project: Row<'a>,
    },
    ProjectChanged {
        at: String,
        project: Row<'a>,
    },
    /// The project's last row.
    ProjectRemoved {
        at: String,
        project: Row<'a>,
    },
    TimelineEvent {
        at: String,
        project: &'a str,
        path: String,
        event: &'a Event,
    },
    /// Events may be missing before the next `timeline_event`s.
    TimelineGap {
        at: String,
        project: &'a str,
        path: String,
    },
    TimelineReset {
        at: String,
        project: &'a str,
        path: String,
        timeline: &'a [Event],
    },
    BugOpened {
        at: String,
        project: &'a str,
        path: String,
        bug: &'a Bug,
    },
    BugTransitioned {
        at: String,
        project: &'a str,
        path: String,
        from: &'a str,
        to: &'a str,
        bug: &'a Bug,
    },
    InboxAdded {
        at: String,
        key: String,
        item: InboxRow<'a>,
    },
    InboxChanged {
        at: String,
        key: String,
        item: InboxRow<'a>,
    },
    /// The item as it was.
    InboxRemoved {
        at: String,
        key: String,
        item: InboxRow<'a>,
    },
    Watcher {
        at: String,
        watcher: &'a Liveness,
    },
    Problems {
        at: String,
        problems: &'a [String],
    },
    ReadFailed {
        at: String,
        reason: &'a str,
    },
    /// The model feed's first line (`--model`): every project whole.
    #[serde(rename = "snapshot")]
    ModelSnapshot {
        at: String,
        loopdeck_version: &'static str,
        model_schema: u32,
        roots: &'a [String],
        problems: &'a [String],
        watcher: &'a Liveness,
        projects: WireProjects<'a>,
    },
    /// A project added or changed, whole (`--model`).
    Project {
        at: String,
        project: serde_json::Value,
    },
    /// A project gone (`--model`), by its directory and format.
    #[serde(rename = "project_removed")]
    ModelProjectRemoved {
        at: String,
        path: serde_json::Value,
        format: Format,
    },
    /// Nothing was written for the `--heartbeat` interval (`--model`).
    Heartbeat {
        at: String,
    },
}

/// Projects as [`wire::to_value`] writes them, one value at a time.
pub struct WireProjects<'a>(pub &'a [Project]);

impl Serialize for WireProjects<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for p in self.0 {
            seq.serialize_element(&wire::to_value(p))?;
        }
        seq.end()
    }
}

/// When loopdeck saw it: the real time, even under `--now`.
pub fn stamp() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// `item` of `p` as `inbox --json` spells it.
pub fn inbox_row<'a>(
    p: &'a Project,
    item: &'a InboxItem,
    now: DateTime<Utc>,
    policy: &'a Policy,
) -> Option<InboxRow<'a>> {
    inbox_rows(std::slice::from_ref(p), now, None, policy)
        .into_iter()
        .find(|r| std::ptr::eq(r.reference, item.reference.as_str()))
}

/// The feed's key of an item: its project's path, `#`, the item's key.
pub fn key(p: &Project, item_key: &str) -> String {
    format!("{}#{item_key}", display_path(&p.path))
}

/// The key under which a reading's lines mark `p`'s own row as sent.
pub fn display_path_key(p: &Project) -> String {
    display_path(&p.path)
}

/// The body of the line for `change`.
pub fn body<'a>(
    change: &Change<'a>,
    now: DateTime<Utc>,
    at: &str,
    policy: &'a Policy,
) -> Option<Body<'a>> {
    let at = at.to_owned();
    Some(match change {
        Change::Added(p) => Body::ProjectAdded {
            at,
            project: Row::at(p, now, policy),
        },
        Change::Changed { project, .. } => Body::ProjectChanged {
            at,
            project: Row::at(project, now, policy),
        },
        Change::Removed(p) => Body::ProjectRemoved {
            at,
            project: Row::at(p, now, policy),
        },
        Change::Events { .. } => return None,
        Change::TimelineReset { project } => Body::TimelineReset {
            at,
            project: &project.id,
            path: display_path(&project.path),
            timeline: &project.detail.timeline,
        },
        Change::BugOpened { project, bug } => Body::BugOpened {
            at,
            project: &project.id,
            path: display_path(&project.path),
            bug,
        },
        Change::BugTransitioned { project, bug, from } => Body::BugTransitioned {
            at,
            project: &project.id,
            path: display_path(&project.path),
            from,
            to: &bug.status,
            bug,
        },
        Change::InboxAdded {
            project,
            item,
            key: k,
        } => Body::InboxAdded {
            at,
            key: key(project, k),
            item: inbox_row(project, item, now, policy)?,
        },
        Change::InboxChanged {
            project,
            item,
            key: k,
        } => Body::InboxChanged {
            at,
            key: key(project, k),
            item: inbox_row(project, item, now, policy)?,
        },
        Change::InboxRemoved {
            project,
            item,
            key: k,
        } => Body::InboxRemoved {
            at,
            key: key(project, k),
            item: inbox_row(project, item, now, policy)?,
        },
    })
}

/// Write `change`: one line, or one per event for appended events.
pub fn change(
    out: &mut dyn Write,
    json_out: bool,
    change: &Change<'_>,
    now: DateTime<Utc>,
    policy: &Policy,
) -> io::Result<()> {
    let at = stamp();
    if let Change::Events {
        project,
        events,
        gap,
    } = change
    {
        if *gap {
            emit(
                out,
                json_out,
                Body::TimelineGap {
                    at: at.clone(),
                    project: &project.id,
                    path: display_path(&project.path),
                },
            )?;
        }
        for event in *events {
            emit(
                out,
                json_out,
                Body::TimelineEvent {
                    at: at.clone(),
                    project: &project.id,
                    path: display_path(&project.path),
                    event,
                },
            )?;
        }
        return Ok(());
    }
    match body(change, now, &at, policy) {
        Some(b) => emit(out, json_out, b),
        None => Ok(()),
    }
}

/// Write one line, JSON or plain, and flush it: a reader sees it now.
pub fn emit(out: &mut dyn Write, json_out: bool, body: Body<'_>) -> io::Result<()> {
    if json_out {
        json::line(
            out,
            &Line {
                schema_version: SCHEMA_VERSION,
                body,
            },
        )?;
    } else {
        out.write_all(plain(&body).as_bytes())?;
    }
    out.flush()
}

fn s(text: &str) -> String {
    sanitize_line(text).into_owned()
}

/// How the watcher notices changes, in words.
pub fn liveness(l: &Liveness) -> String {
    match l {
        Liveness::Starting => t!("cli.watch.starting").to_owned(),
        Liveness::Live { watches: 0 } => t!("cli.watch.live").to_owned(),
        Liveness::Live { watches } => t!("cli.watch.live_watches", n = watches),
        Liveness::Polling { every_secs, reason } => {
            t!("cli.watch.polling", n = every_secs, reason = s(reason))
        }
    }
}

fn row_text(r: &Row<'_>) -> String {
    let mut text = format!("{}  {} {}", s(r.id), r.format, s(r.status));
    if let Some(stage) = r.stage {
        text.push_str("  ");
        text.push_str(&t!("cli.watch.stage", stage = s(&stage.shown())));
    }
    if let Some(p) = r.progress_percent {
        text.push_str(&format!("  {p}%"));
    }
    if r.needs_human > 0 {
        text.push_str("  ");
        text.push_str(&t!("cli.watch.for_human", n = r.needs_human));
    }
    if let Some(stall) = &r.stalled {
        text.push_str("  ");
        text.push_str(&stall.shown());
    }
    text
}

fn item_text(r: &InboxRow<'_>) -> String {
    // In the language spoken (`kind.shown()` is `kind.label()` in English).
    format!(
        "{}  {}: {}",
        s(r.project),
        r.kind.shown(),
        s(&r.title.shown())
    )
}

/// The word that starts a plain line, padded so that what follows starts
/// at the same column whatever the word and the language.
fn word(w: &str) -> String {
    let words = [
        t!("cli.watch.added"),
        t!("cli.watch.changed"),
        t!("cli.watch.removed"),
        t!("cli.watch.event"),
        t!("cli.watch.timeline"),
        t!("cli.watch.bug"),
        t!("cli.watch.waiting"),
        t!("cli.watch.waiting_changed"),
        t!("cli.watch.left"),
        t!("cli.watch.watcher"),
        t!("cli.watch.problems"),
        t!("cli.watch.problem_line"),
        t!("cli.watch.failed"),
    ];
    let column = words.iter().map(|w| width(w)).fold(8, usize::max);
    pad(w, column)
}

/// The plain line (or, for the snapshot, the `list` table and a line).
pub(super) fn plain(body: &Body<'_>) -> String {
    let time = |at: &str| at.get(11..19).unwrap_or(at).to_owned();
    let line = |at: &str, w: &str, rest: &str| format!("{} {} {rest}\n", time(at), word(w));
    match body {
        Body::Snapshot {
            watcher,
            projects,
            problems,
            ..
        } => {
            let mut text = table::list(projects);
            for p in *problems {
                text.push_str(&t!("cli.watch.problem", problem = s(p)));
                text.push('\n');
            }
            text.push_str(&t!("cli.watch.watching", watcher = liveness(watcher)));
            text.push('\n');
            text
        }
        Body::ProjectAdded { at, project } => line(at, t!("cli.watch.added"), &row_text(project)),
        Body::ProjectChanged { at, project } => {
            line(at, t!("cli.watch.changed"), &row_text(project))
        }
        Body::ProjectRemoved { at, project } => line(at, t!("cli.watch.removed"), &s(project.id)),
        Body::TimelineEvent {
            at, project, event, ..
        } => line(
            at,
            t!("cli.watch.event"),
            &format!(
                "{}  {} {}: {}",
                s(project),
                s(&event.source),
                s(&event.kind),
                s(&event.summary)
            ),
        ),
        Body::TimelineGap { at, project, .. } => line(
            at,
            t!("cli.watch.timeline"),
            &format!("{}  {}", s(project), t!("cli.watch.gap")),
        ),
        Body::TimelineReset {
            at,
            project,
            timeline,
            ..
        } => line(
            at,
            t!("cli.watch.timeline"),
            &format!(
                "{}  {}",
                s(project),
                t!("cli.watch.reset", n = timeline.len())
            ),
        ),
        Body::BugOpened {
            at, project, bug, ..
        } => line(
            at,
            t!("cli.watch.bug"),
            &format!(
                "{}  {}",
                s(project),
                t!(
                    "cli.watch.bug_opened",
                    id = s(&bug.id),
                    status = s(&bug.status),
                    title = s(&bug.title)
                )
            ),
        ),
        Body::BugTransitioned {
            at,
            project,
            from,
            to,
            bug,
            ..
        } => line(
            at,
            t!("cli.watch.bug"),
            &format!(
                "{}  {} {} -> {}: {}",
                s(project),
                s(&bug.id),
                s(from),
                s(to),
                s(&bug.title)
            ),
        ),
        Body::InboxAdded { at, item, .. } => line(at, t!("cli.watch.waiting"), &item_text(item)),
        Body::InboxChanged { at, item, .. } => {
            line(at, t!("cli.watch.waiting_changed"), &item_text(item))
        }
        Body::InboxRemoved { at, item, .. } => line(at, t!("cli.watch.left"), &item_text(item)),
        Body::Watcher { at, watcher } => line(at, t!("cli.watch.watcher"), &liveness(watcher)),
        Body::Problems { at, problems } => {
            if problems.is_empty() {
                line(at, t!("cli.watch.problems"), t!("cli.watch.none"))
            } else {
                problems
                    .iter()
                    .map(|p| line(at, t!("cli.watch.problem_line"), &s(p)))
                    .collect()
            }
        }
        Body::ReadFailed { at, reason } => line(at, t!("cli.watch.failed"), &s(reason)),
        // The model feed is JSON only (`--model` requires `--json`).
        Body::ModelSnapshot { .. }
        | Body::Project { .. }
        | Body::ModelProjectRemoved { .. }
        | Body::Heartbeat { .. } => String::new(),
    }
}
