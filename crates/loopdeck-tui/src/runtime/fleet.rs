//! The console's other hosts: core's fleet (one thread, one `ssh` per
//! host) started on them, each of its events turned into an
//! `Event::Host` on the loop's channel. Times become wall-clock times as
//! the event is sent (the model ages them against its own clock).

use std::sync::mpsc::Sender;
use std::time::Instant;

use chrono::{DateTime, Utc};

use super::Msg;
use crate::app::Event;
use crate::app::hosts::{HostChange, HostState};
use loopdeck_core::fleet::{self, Fleet, Hint, HostEvent, HostSpec, HostUpdate, RunOptions, Sink};

/// Start following `hosts`; `None` when there are none. A fleet that
/// cannot start (no runtime, a bad host) is said at once.
pub(super) fn start(hosts: &[HostSpec], tx: Sender<Msg>) -> Option<Fleet> {
    if hosts.is_empty() {
        return None;
    }
    let sink_tx = tx.clone();
    let sink = Sink::from_fn(move |e: HostEvent| {
        if let Some(event) = event_of(e) {
            let _ = sink_tx.send(Msg::App(event));
        }
    });
    match fleet::start(hosts.to_vec(), RunOptions::default(), sink) {
        Ok(fleet) => Some(fleet),
        Err(e) => {
            let _ = tx.send(Msg::App(Event::Notice(crate::t!(
                "runtime.hosts.not_started",
                why = e
            ))));
            None
        }
    }
}

/// The wall-clock time of `at` (an instant of this process), as of now.
fn wall(at: Instant) -> DateTime<Utc> {
    let now = Instant::now();
    let utc = Utc::now();
    match now.checked_duration_since(at) {
        Some(ago) => utc - chrono::Duration::from_std(ago).unwrap_or_default(),
        None => utc + chrono::Duration::from_std(at - now).unwrap_or_default(),
    }
}

/// What fixes a failed host, in the language spoken.
fn hint_text(hint: Hint, host: &str) -> String {
    match hint {
        Hint::InstallLoopdeck => crate::t!("runtime.hosts.hint.install", host = host),
        Hint::Keys => crate::t!("runtime.hosts.hint.keys", host = host),
        Hint::CheckName => crate::t!("runtime.hosts.hint.name", host = host),
        Hint::Unreachable => crate::t!("runtime.hosts.hint.unreachable", host = host),
        Hint::HostKey => crate::t!("runtime.hosts.hint.host_key", host = host),
        Hint::SameVersion => crate::t!("runtime.hosts.hint.same_version", host = host),
        Hint::QuietShell => crate::t!("runtime.hosts.hint.quiet_shell", host = host),
        Hint::InstallSsh => crate::t!("runtime.hosts.hint.install_ssh").to_owned(),
        Hint::Slow => crate::t!("runtime.hosts.hint.slow", host = host),
        Hint::Other => crate::t!("runtime.hosts.hint.other").to_owned(),
        Hint::Bug => crate::t!("runtime.hosts.hint.bug", host = host),
    }
}

/// The console's event for what the fleet said (`None`: nothing the
/// console shows, a relay's raw line).
fn event_of(e: HostEvent) -> Option<Event> {
    let host = e.host;
    let change = match e.update {
        HostUpdate::State(s) => HostChange::State(match s {
            fleet::HostState::Connecting { attempt } => HostState::Connecting {
                attempt: attempt.saturating_sub(1),
            },
            fleet::HostState::Live { watcher } => HostState::Live { watcher },
            fleet::HostState::Stale { since, reason } => HostState::Stale {
                last_line: Some(wall(since)),
                reason,
            },
            fleet::HostState::Failed {
                message,
                hint,
                retry_at,
            } => HostState::Failed {
                message,
                hint: Some(hint_text(hint, &host)),
                retry_at: Some(wall(retry_at)),
            },
            fleet::HostState::Refused { message, .. } => HostState::Refused { message },
        }),
        HostUpdate::Snapshot(projects) => HostChange::Snapshot(projects),
        HostUpdate::Project(p) => HostChange::Project(p),
        HostUpdate::Removed { path, format } => HostChange::Removed { path, format },
        HostUpdate::Problems(problems) => HostChange::Problems(problems),
        HostUpdate::ReadFailed(why) => {
            return Some(Event::Notice(crate::t!(
                "runtime.hosts.read_failed",
                host = host,
                why = why
            )));
        }
        HostUpdate::Raw(_) => return None,
    };
    Some(Event::Host { name: host, change })
}
