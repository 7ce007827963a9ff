//! Other machines' projects, over the user's own `ssh`: one long-lived
//! `loopdeck watch --json --model` per host, read line by line.
//!
//! A front end (the console, `watch --host`) describes its hosts
//! ([`HostSpec`]), calls [`start`] with [`RunOptions`] and a [`Sink`],
//! and applies each [`HostEvent`] it receives: a [`HostUpdate`] of one
//! host's projects (a [`HostUpdate::Snapshot`] replaces them whole, the
//! others change one), or its [`HostState`] for the header and the hosts
//! view (with a [`Hint`] of what fixes a failure). Projects are only
//! replaced by a snapshot: in any state but Live the front end keeps the
//! host's last ones and shows them stale. Stopping the [`Fleet`] (or
//! dropping it) kills every `ssh`.
//!
//! - [`HostSpec`]: a host as the user configured it (`[[host]]`,
//!   `--host NAME=[user@]host[:port]:ROOT`);
//! - [`ssh`]: the `ssh` argv for a host and a remote command, with every
//!   argument quoted for the remote's POSIX shell (pure, tested);
//! - [`parse`] and [`parse_raw`]: one line of a host's feed, typed
//!   ([`Line`]) or refused ([`LineError`]: another version is refused
//!   before any project is read, and a line is applied whole or not);
//! - `host` (private): each host's connection as a pure state machine
//!   (stale after [`STALE_AFTER`] of silence, jittered backoff, ssh's
//!   errors mapped to hints, another loopdeck refused);
//! - `runner` (private): one thread, a current-thread tokio runtime and a
//!   task per host doing what its machine says ([`Feed::Model`] for the
//!   console, [`Feed::Raw`] for a relay of the plain feed).

mod host;
mod line;
mod runner;
pub mod ssh;

pub use host::{CONNECT_WITHIN, Hint, HostState, HostUpdate, STALE_AFTER};
pub use line::{Line, LineError, SCHEMA_VERSION, parse, parse_raw};
pub use runner::{
    Error, Feed, Fleet, HEARTBEAT_SECS, HostEvent, MAX_LINE, RunOptions, Sink, THREAD, start,
};

use crate::model::HostName;

/// A machine whose projects loopdeck follows over ssh.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostSpec {
    /// What the console calls it (`build-1`): letters, digits, `.`, `_`,
    /// `-`; unique among the hosts.
    pub name: HostName,
    /// ssh's destination, as `~/.ssh/config` knows it: `[user@]host`.
    pub destination: String,
    /// A port other than the one ssh would use (`-p`).
    pub port: Option<u16>,
    /// The roots on that machine, as paths there (`~/` is that
    /// machine's home).
    pub roots: Vec<String>,
    /// Whether decisions may be made on its projects (default: no).
    pub writable: bool,
    /// The remote loopdeck to run (default `loopdeck`, found on the
    /// remote login shell's `PATH`), used as written: `~/bin/loopdeck`
    /// works.
    pub command: Option<String>,
    /// More `ssh` options, placed before the destination (`-F FILE`,
    /// `-J JUMP`).
    pub ssh_args: Vec<String>,
}

/// Why a host's description is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// The name is empty or has a character other than letters, digits,
    /// `.`, `_`, `-`.
    #[error("host name {0:?}: use letters, digits, '.', '_' and '-'")]
    Name(String),
    /// The destination would be read by ssh as an option, or holds a
    /// space or control character.
    #[error(
        "host {name}: ssh destination {destination:?} must not start with '-' or hold spaces or control characters"
    )]
    Destination {
        /// The host's name.
        name: String,
        /// The destination as given.
        destination: String,
    },
    /// No root to watch there.
    #[error("host {0}: no root to watch (give at least one remote path)")]
    NoRoot(String),
    /// A root is empty or holds a control character (a line break
    /// would end the remote command).
    #[error("host {name}: root {root:?} is empty or holds a control character")]
    Root {
        /// The host's name.
        name: String,
        /// The root as given.
        root: String,
    },
    /// `command` is empty or holds a control character.
    #[error("host {name}: command {command:?} is empty or holds a control character")]
    Command {
        /// The host's name.
        name: String,
        /// The command as given.
        command: String,
    },
    /// Two hosts share a name.
    #[error("two hosts are named {0}")]
    Duplicate(String),
}

impl HostSpec {
    /// A host with defaults: read-only, `loopdeck` on the remote `PATH`.
    pub fn new(name: &str, destination: &str, roots: Vec<String>) -> Self {
        HostSpec {
            name: HostName::from(name),
            destination: destination.to_owned(),
            port: None,
            roots,
            writable: false,
            command: None,
            ssh_args: Vec::new(),
        }
    }

    /// Checks what ssh and the remote shell would misread.
    pub fn validate(&self) -> Result<(), SpecError> {
        let name = self.name.to_string();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        {
            return Err(SpecError::Name(name));
        }
        let d = &self.destination;
        if d.is_empty()
            || d.starts_with('-')
            || d.chars().any(|c| c.is_whitespace() || c.is_control())
        {
            return Err(SpecError::Destination {
                name,
                destination: d.clone(),
            });
        }
        if self.roots.is_empty() {
            return Err(SpecError::NoRoot(name));
        }
        if let Some(root) = self
            .roots
            .iter()
            .find(|r| r.is_empty() || r.chars().any(char::is_control))
        {
            return Err(SpecError::Root {
                name,
                root: root.clone(),
            });
        }
        if let Some(c) = &self.command
            && (c.trim().is_empty() || c.chars().any(char::is_control))
        {
            return Err(SpecError::Command {
                name,
                command: c.clone(),
            });
        }
        Ok(())
    }

    /// The remote binary's head of the command line.
    pub fn program(&self) -> &str {
        self.command.as_deref().unwrap_or("loopdeck")
    }
}

/// Checks every host and that no two share a name.
pub fn validate_all(hosts: &[HostSpec]) -> Result<(), SpecError> {
    let mut seen = std::collections::HashSet::new();
    for h in hosts {
        h.validate()?;
        if !seen.insert(h.name.clone()) {
            return Err(SpecError::Duplicate(h.name.to_string()));
        }
    }
    Ok(())
}
