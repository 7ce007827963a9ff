//! The lines of the `loopdeck watch` feed: one JSON object per line
//! (schema in [`super`]'s doc), or one plain line per change for a human.

use std::io::{self, Write};

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;

use super::super::views::{InboxRow, Row, SCHEMA_VERSION, display_path, inbox_rows};
use super::super::{json, table};
use crate::model::changes::Change;
use crate::model::text::sanitize_line;
use crate::model::{Bug, Event, InboxItem, Project};
use crate::watch::Liveness;

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
}

/// When loopdeck saw it: the real time, even under `--now`.
pub fn stamp() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// `item` of `p` as `inbox --json` spells it.
fn inbox_row<'a>(p: &'a Project, item: &'a InboxItem, now: DateTime<Utc>) -> Option<InboxRow<'a>> {
    inbox_rows(std::slice::from_ref(p), now)
        .into_iter()
        .find(|r| std::ptr::eq(r.reference, item.reference.as_str()))
}

/// The feed's key of an item: its project's path, `#`, the item's key.
fn key(p: &Project, item_key: &str) -> String {
    format!("{}#{item_key}", display_path(&p.path))
}

/// The body of the line for `change`.
pub fn body<'a>(change: &Change<'a>, now: DateTime<Utc>, at: &str) -> Option<Body<'a>> {
    let at = at.to_owned();
    Some(match change {
        Change::Added(p) => Body::ProjectAdded {
            at,
            project: Row::new(p, now),
        },
        Change::Changed { project, .. } => Body::ProjectChanged {
            at,
            project: Row::new(project, now),
        },
        Change::Removed(p) => Body::ProjectRemoved {
            at,
            project: Row::new(p, now),
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
            item: inbox_row(project, item, now)?,
        },
        Change::InboxChanged {
            project,
            item,
            key: k,
        } => Body::InboxChanged {
            at,
            key: key(project, k),
            item: inbox_row(project, item, now)?,
        },
        Change::InboxRemoved {
            project,
            item,
            key: k,
        } => Body::InboxRemoved {
            at,
            key: key(project, k),
            item: inbox_row(project, item, now)?,
        },
    })
}

/// Write `change`: one line, or one per event for appended events.
pub fn change(
    out: &mut dyn Write,
    json_out: bool,
    change: &Change<'_>,
    now: DateTime<Utc>,
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
    match body(change, now, &at) {
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
        Liveness::Starting => "starting".to_owned(),
        Liveness::Live { watches: 0 } => "live".to_owned(),
        Liveness::Live { watches } => format!("live ({watches} watches)"),
        Liveness::Polling { every_secs, reason } => {
            format!("polling every {every_secs}s: {}", s(reason))
        }
    }
}

fn row_text(r: &Row<'_>) -> String {
    let mut t = format!("{}  {} {}", s(r.id), r.format, s(r.status));
    if let Some(stage) = r.stage {
        t.push_str(&format!("  stage {}", s(stage)));
    }
    if let Some(p) = r.progress_percent {
        t.push_str(&format!("  {p}%"));
    }
    if r.needs_human > 0 {
        t.push_str(&format!("  {} for a human", r.needs_human));
    }
    t
}

fn item_text(r: &InboxRow<'_>) -> String {
    format!("{}  {}: {}", s(r.project), r.kind.label(), s(r.title))
}

/// The plain line (or, for the snapshot, the `list` table and a line).
fn plain(body: &Body<'_>) -> String {
    let time = |at: &str| at.get(11..19).unwrap_or(at).to_owned();
    match body {
        Body::Snapshot {
            watcher,
            projects,
            problems,
            ..
        } => {
            let mut t = table::list(projects);
            for p in *problems {
                t.push_str(&format!("problem: {}\n", s(p)));
            }
            t.push_str(&format!("watching: {}\n", liveness(watcher)));
            t
        }
        Body::ProjectAdded { at, project } => {
            format!("{} added    {}\n", time(at), row_text(project))
        }
        Body::ProjectChanged { at, project } => {
            format!("{} changed  {}\n", time(at), row_text(project))
        }
        Body::ProjectRemoved { at, project } => {
            format!("{} removed  {}\n", time(at), s(project.id))
        }
        Body::TimelineEvent {
            at, project, event, ..
        } => format!(
            "{} event    {}  {} {}: {}\n",
            time(at),
            s(project),
            s(&event.source),
            s(&event.kind),
            s(&event.summary)
        ),
        Body::TimelineGap { at, project, .. } => format!(
            "{} timeline {}  events before these may be missing\n",
            time(at),
            s(project)
        ),
        Body::TimelineReset {
            at,
            project,
            timeline,
            ..
        } => format!(
            "{} timeline {}  truncated or replaced: {} events now\n",
            time(at),
            s(project),
            timeline.len()
        ),
        Body::BugOpened {
            at, project, bug, ..
        } => format!(
            "{} bug      {}  {} opened ({}): {}\n",
            time(at),
            s(project),
            s(&bug.id),
            s(&bug.status),
            s(&bug.title)
        ),
        Body::BugTransitioned {
            at,
            project,
            from,
            to,
            bug,
            ..
        } => format!(
            "{} bug      {}  {} {} -> {}: {}\n",
            time(at),
            s(project),
            s(&bug.id),
            s(from),
            s(to),
            s(&bug.title)
        ),
        Body::InboxAdded { at, item, .. } => {
            format!("{} waiting  {}\n", time(at), item_text(item))
        }
        Body::InboxChanged { at, item, .. } => {
            format!("{} waiting~ {}\n", time(at), item_text(item))
        }
        Body::InboxRemoved { at, item, .. } => {
            format!("{} left     {}\n", time(at), item_text(item))
        }
        Body::Watcher { at, watcher } => format!("{} watcher  {}\n", time(at), liveness(watcher)),
        Body::Problems { at, problems } => {
            if problems.is_empty() {
                format!("{} problems none\n", time(at))
            } else {
                problems
                    .iter()
                    .map(|p| format!("{} problem  {}\n", time(at), s(p)))
                    .collect()
            }
        }
        Body::ReadFailed { at, reason } => format!("{} failed   {}\n", time(at), s(reason)),
    }
}
