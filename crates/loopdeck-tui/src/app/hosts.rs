//! Other machines' projects in the console: each host's state (for the
//! header and the hosts view, `H`) and what its feed brings, merged as a
//! local reading is merged (held while broken, gone when it goes), so
//! first-seen times, since-you-looked, notifications and escalations work
//! for a remote item as for a local one.
//!
//! A host's snapshot is the reading of everything on that host: it
//! replaces the host's projects and no others. This machine's readings
//! never touch another host's projects (`Model::absorb`).

use std::path::PathBuf;

use chrono::{DateTime, Utc};

use super::{Effect, Model, after_read};
use crate::model::{Format, HostName, Project};
pub use loopdeck_core::follow::Liveness;

/// A host as the console shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Host {
    /// Its name (`build-1`), as configured.
    pub name: HostName,
    /// ssh's destination (`ops@build1`), for the hosts view.
    pub destination: String,
    /// Whether decisions may be made on its projects.
    pub writable: bool,
    /// Where its feed is.
    pub state: HostState,
    /// Snapshots taken in this run: the first primes the host's items
    /// (known, not new: no notification for what waited before).
    pub snapshots: u32,
    /// What its roots' readings could not read there ("path: reason").
    pub problems: Vec<String>,
}

impl Host {
    /// A host configured, not connected yet.
    pub fn new(name: HostName, destination: String, writable: bool) -> Self {
        Host {
            name,
            destination,
            writable,
            state: HostState::Connecting { attempt: 0 },
            snapshots: 0,
            problems: Vec::new(),
        }
    }
}

/// Where a host's feed is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostState {
    /// ssh is starting, or starting again (`attempt` 0: the first time).
    Connecting { attempt: u32 },
    /// Its lines arrive; `watcher` is how the remote notices changes.
    Live { watcher: Liveness },
    /// No line since `last_line` (or the link dropped): its projects are
    /// kept, shown as of then, while ssh connects again.
    Stale {
        last_line: Option<DateTime<Utc>>,
        reason: String,
    },
    /// ssh failed: `message` is ssh's own last line, `hint` what fixes
    /// it; tried again at `retry_at`.
    Failed {
        message: String,
        hint: Option<String>,
        retry_at: Option<DateTime<Utc>>,
    },
    /// The remote loopdeck speaks another version of the feed: refused,
    /// never misread.
    Refused { message: String },
}

impl HostState {
    /// Its projects are current (the feed is live).
    pub fn is_live(&self) -> bool {
        matches!(self, HostState::Live { .. })
    }
}

/// What a host's feed brought.
#[derive(Debug, Clone)]
pub enum HostChange {
    /// Every project on the host: replaces what was shown of it.
    Snapshot(Vec<Project>),
    /// One project, added or changed.
    Project(Box<Project>),
    /// A project gone from the host.
    Removed { path: PathBuf, format: Format },
    /// The host's state changed.
    State(HostState),
    /// What its roots could not read there, now (replaces the last).
    Problems(Vec<String>),
}

impl HostChange {
    /// Does it bring projects (a reading, as the phases see it)?
    pub fn is_reading(&self) -> bool {
        !matches!(self, HostChange::State(_) | HostChange::Problems(_))
    }
}

/// The index of host `name` in `m.hosts`.
fn index(m: &Model, name: &HostName) -> Option<usize> {
    m.hosts.iter().position(|h| h.name == *name)
}

/// Apply what host `name`'s feed brought.
pub(super) fn apply(m: &mut Model, name: HostName, change: HostChange) -> Vec<Effect> {
    let Some(at) = index(m, &name) else {
        // Not a configured host: nothing of it is shown.
        return Vec::new();
    };
    match change {
        HostChange::State(state) => {
            if m.hosts[at].state == state {
                return Vec::new();
            }
            m.hosts[at].state = state;
            vec![Effect::Render]
        }
        HostChange::Problems(problems) => {
            if m.hosts[at].problems == problems {
                return Vec::new();
            }
            m.hosts[at].problems = problems;
            vec![Effect::Render]
        }
        HostChange::Snapshot(mut projects) => {
            m.hosts[at].snapshots = m.hosts[at].snapshots.saturating_add(1);
            for p in &mut projects {
                p.host = Some(name.clone());
            }
            let of_host = name.clone();
            after_read(m, move |m| {
                m.absorb_scoped(|p| p.host.as_ref() == Some(&of_host), projects)
            })
        }
        HostChange::Project(mut p) => {
            p.host = Some(name.clone());
            let (path, format) = (p.path.clone(), p.format);
            after_read(m, move |m| {
                m.absorb_scoped(
                    |q| q.host.as_ref() == Some(&name) && q.path == path && q.format == format,
                    vec![*p],
                )
            })
        }
        HostChange::Removed { path, format } => after_read(m, move |m| {
            m.absorb_scoped(
                |q| q.host.as_ref() == Some(&name) && q.path == path && q.format == format,
                Vec::new(),
            )
        }),
    }
}

/// The host of `p`, when it is another machine's project.
pub fn host_of<'m>(m: &'m Model, p: &Project) -> Option<&'m Host> {
    let name = p.host.as_ref()?;
    m.hosts.iter().find(|h| h.name == *name)
}

/// Is `p` shown as of its host's last line, not live (its host is
/// stale, failed or refused)?
pub fn is_stale(m: &Model, p: &Project) -> bool {
    host_of(m, p).is_some_and(|h| !h.state.is_live())
}
