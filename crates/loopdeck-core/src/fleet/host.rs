//! One host's connection as a small pure state machine, in the style of
//! `watch::schedule`: no threads, no clock (the time is passed in), no
//! I/O. The runner feeds it what happened to the host's `ssh` child
//! ([`Event`]) and does what it answers ([`Action`]); it calls again with
//! [`Event::Tick`] at [`Host::wake_at`], and never otherwise.
//!
//! Rules:
//! - the first spawn waits a jitter of up to `stagger` (many hosts do not
//!   knock on one bastion's sshd at once: its `MaxStartups`);
//! - a child is Connecting until its first snapshot, then Live; a
//!   snapshot (the first, or one after a reconnect) replaces the host's
//!   projects whole;
//! - Live with no line for `stale_after` (the remote heartbeats every
//!   10 s): the child is killed, the projects are kept and shown stale,
//!   and it reconnects after a backoff; so does any exit after Live (ssh's
//!   255 without a word is "connection lost"). While it reconnects the
//!   host stays Stale, until a snapshot (Live) or a failure that says why
//!   (Failed);
//! - an exit before the first snapshot is Failed with ssh's own last
//!   stderr line and a hint of what fixes it, or Refused when the remote
//!   runs another loopdeck (clap's "unexpected argument '--model'", or a
//!   snapshot of another model schema); no snapshot within
//!   `connect_within` is Failed too;
//! - Failed retries after a backoff: 1 s doubling to 60 s, times a jitter
//!   in [0.5, 1) drawn from the seed; the count of failures behind it
//!   resets once a connection has been live for 30 s (from its snapshot
//!   to its last line). Refused retries after 60 s;
//! - a line is applied only from the child that is running (never from
//!   one being killed), and a line that cannot be read kills the child
//!   and fails (a reconnect's snapshot brings the host back in step).
//!
//! Projects are only ever replaced by a snapshot: in any state but Live
//! the consumer keeps the host's last projects and shows them stale.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::line::{Line, LineError};
use crate::follow::Liveness;
use crate::model::text::sanitize_line;
use crate::model::{Format, HostName, Project};

/// Live with no line for this long: stale (the remote heartbeats every
/// 10 s unless told otherwise).
pub const STALE_AFTER: Duration = Duration::from_secs(25);

/// No snapshot this long after the spawn: failed (ssh gives up
/// connecting after 10 s; the rest is the remote's first reading).
pub const CONNECT_WITHIN: Duration = Duration::from_secs(45);

/// A connection live this long resets the backoff.
pub(crate) const HEALTHY_AFTER: Duration = Duration::from_secs(30);

/// A refused host (another loopdeck) is tried again after this long.
pub(crate) const REFUSED_RETRY: Duration = Duration::from_secs(60);

/// The first retry's delay before jitter; it doubles up to [`BACKOFF_MAX`].
pub(crate) const BACKOFF_FIRST: Duration = Duration::from_secs(1);

/// The longest delay between two tries, before jitter.
pub(crate) const BACKOFF_MAX: Duration = Duration::from_secs(60);

/// The first spawns of all hosts are spread over this long.
pub(crate) const STAGGER: Duration = Duration::from_millis(500);

/// At most this many characters of a message from the remote are kept.
const MESSAGE_CHARS: usize = 300;

/// The settings of one host's machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Config {
    /// Live with no line this long: stale. `None`: never (a feed without
    /// heartbeats; ssh's own keep-alive still notices a dead link).
    pub(crate) stale_after: Option<Duration>,
    /// No snapshot this long after a spawn: failed.
    pub(crate) connect_within: Duration,
    /// The first spawn waits a jitter of up to this long.
    pub(crate) stagger: Duration,
    /// The seed of the jitters (any value; hosts should differ).
    pub(crate) seed: u64,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            stale_after: Some(STALE_AFTER),
            connect_within: CONNECT_WITHIN,
            stagger: STAGGER,
            seed: 0,
        }
    }
}

/// What would fix a failed host (the console words it; [`Hint::text`] in
/// English).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hint {
    /// loopdeck is not on the remote `PATH`.
    InstallLoopdeck,
    /// ssh could not log in without a prompt (`BatchMode`).
    Keys,
    /// The host's name does not resolve.
    CheckName,
    /// The host is down, or sshd listens on another port.
    Unreachable,
    /// The host's key is unknown or changed.
    HostKey,
    /// The remote runs another loopdeck, or sent a line this one cannot
    /// read.
    SameVersion,
    /// The remote login shell writes to stdout.
    QuietShell,
    /// `ssh` itself could not be run here.
    InstallSsh,
    /// No first reading in time.
    Slow,
    /// Nothing known to fix: it retries by itself.
    Other,
    /// loopdeck itself failed (a panic): the host is no longer followed.
    Bug,
}

impl Hint {
    /// The hint in English, for `host`.
    pub fn text(self, host: &str) -> String {
        match self {
            Hint::InstallLoopdeck => {
                format!("install loopdeck on {host} or set `command` in its [[host]]")
            }
            Hint::Keys => format!(
                "ssh may not prompt here (BatchMode): load a key for {host} into ssh-agent, \
                 or set its IdentityFile in ~/.ssh/config"
            ),
            Hint::CheckName => format!(
                "check the name: ssh could not resolve {host}'s destination \
                 (a typo, or a Host missing from ~/.ssh/config)"
            ),
            Hint::Unreachable => format!(
                "{host} is down or unreachable, or its sshd listens on another port \
                 (`port` in its [[host]])"
            ),
            Hint::HostKey => {
                format!("connect to {host} once with ssh by hand to check and accept its host key")
            }
            Hint::SameVersion => format!("install the same version of loopdeck on {host}"),
            Hint::QuietShell => format!(
                "{host}'s login shell prints text (~/.bashrc?): keep it quiet when not interactive"
            ),
            Hint::InstallSsh => "install the OpenSSH client (`ssh`) here".to_owned(),
            Hint::Slow => format!(
                "{host} did not send its first reading in time: is it overloaded, or are its roots huge?"
            ),
            Hint::Other => "loopdeck tries again by itself".to_owned(),
            Hint::Bug => format!(
                "a bug in loopdeck stopped following {host}: please report it; restart to try again"
            ),
        }
    }
}

/// A host's connection, for the header and the hosts view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostState {
    /// Starting `ssh`, or waiting for the first snapshot.
    Connecting {
        /// The try, from 1 (reset by a connection live for 30 s).
        attempt: u32,
    },
    /// Following: the host's projects are current.
    Live {
        /// How the remote notices changes.
        watcher: Liveness,
    },
    /// The link went quiet or dropped: the projects are as of `since`;
    /// reconnecting.
    Stale {
        /// When the host last said anything.
        since: Instant,
        /// Why, in one sentence.
        reason: String,
    },
    /// Could not connect or follow.
    Failed {
        /// ssh's own last stderr line (or what went wrong, naming the host).
        message: String,
        /// What would fix it.
        hint: Hint,
        /// When it is tried again.
        retry_at: Instant,
    },
    /// The host runs another version of loopdeck.
    Refused {
        /// Which, and what to do (naming the host).
        message: String,
        /// When it is tried again.
        retry_at: Instant,
    },
}

/// What the consumer applies.
#[derive(Debug, Clone, PartialEq)]
pub enum HostUpdate {
    /// The host's connection changed.
    State(HostState),
    /// Every project of the host (replaces those it had).
    Snapshot(Vec<Project>),
    /// A project added or changed: replaces the host's project at the
    /// same `(path, format)`.
    Project(Box<Project>),
    /// A project of the host is gone.
    Removed {
        /// Its directory on the host.
        path: PathBuf,
        /// Its format.
        format: Format,
    },
    /// The host's roots' problems, now (replaces those it had).
    Problems(Vec<String>),
    /// A reading failed on the host (its next change reads again).
    ReadFailed(String),
    /// One line of a plain `watch --json` feed, as the host sent it
    /// ([`super::Feed::Raw`] only).
    Raw(Value),
}

/// What happened to the host's child.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Event {
    /// The child asked for by [`Action::Spawn`] runs.
    Spawned,
    /// It could not be started (`ssh` missing): why.
    SpawnFailed(String),
    /// A complete line of the `--model` feed.
    Line(Line),
    /// A complete line of the plain feed.
    Raw(Value),
    /// A complete line that could not be read.
    Bad(LineError),
    /// The child exited (its pipes read to the end): its code (`None`:
    /// killed by a signal) and its last stderr lines.
    Exited {
        /// The exit code.
        code: Option<i32>,
        /// The last lines it wrote on stderr (a few), oldest first.
        stderr: Vec<String>,
    },
    /// The time is [`Host::wake_at`] (or later).
    Tick,
}

/// What the runner must do, in order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Action {
    /// Start the host's `ssh`; answer [`Event::Spawned`] or
    /// [`Event::SpawnFailed`].
    Spawn,
    /// Kill the child; answer [`Event::Exited`] when it is gone.
    Kill,
    /// Hand this to the consumer.
    Publish(HostUpdate),
}

/// The child process, as far as the machine knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Child {
    None,
    /// [`Action::Spawn`] given, not yet answered.
    Starting,
    Running,
    /// [`Action::Kill`] given: its lines and exit say nothing any more.
    Killed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// No child wanted before `at` (the stagger, a backoff).
    Waiting { at: Instant },
    /// A child, no snapshot yet; `deadline` from its spawn.
    Connecting { deadline: Option<Instant> },
    /// Snapshot received at `since`; the last line at `last_line`.
    Live { since: Instant, last_line: Instant },
}

/// One host's connection: what to do next, given what happened.
#[derive(Debug)]
pub(crate) struct Host {
    name: HostName,
    config: Config,
    rng: Rng,
    /// Failed tries since the last healthy connection.
    failures: u32,
    child: Child,
    phase: Phase,
    /// Since when and why the projects are stale, while reconnecting
    /// after a live connection.
    stale: Option<(Instant, String)>,
    watcher: Liveness,
    /// The state last published.
    shown: Option<HostState>,
}

impl Host {
    /// A host not yet started: its first spawn is due within the stagger
    /// after `now`.
    pub(crate) fn new(name: HostName, config: Config, now: Instant) -> Self {
        let mut rng = Rng::new(config.seed);
        let at = now + config.stagger.mul_f64(rng.unit());
        Self {
            name,
            config,
            rng,
            failures: 0,
            child: Child::None,
            phase: Phase::Waiting { at },
            stale: None,
            watcher: Liveness::Starting,
            shown: None,
        }
    }

    /// The first actions: say it connects (and spawn, when no stagger).
    pub(crate) fn start(&mut self, now: Instant) -> Vec<Action> {
        let mut out = Vec::new();
        self.show(
            HostState::Connecting {
                attempt: self.failures + 1,
            },
            &mut out,
        );
        self.due(now, &mut out);
        out
    }

    /// What the consumer is shown now.
    #[cfg(test)]
    pub(crate) fn state(&self) -> Option<&HostState> {
        self.shown.as_ref()
    }

    /// When [`Event::Tick`] is next needed; `None`: only when something
    /// else happens.
    pub(crate) fn wake_at(&self) -> Option<Instant> {
        match self.phase {
            Phase::Waiting { at } => (self.child == Child::None).then_some(at),
            Phase::Connecting { deadline } => deadline,
            Phase::Live { last_line, .. } => self.config.stale_after.map(|s| last_line + s),
        }
    }

    /// `event` happened at `now`: what to do.
    pub(crate) fn handle(&mut self, event: Event, now: Instant) -> Vec<Action> {
        let mut out = Vec::new();
        let running = self.child == Child::Running;
        match event {
            Event::Spawned if self.child == Child::Starting => {
                self.child = Child::Running;
                if let Phase::Connecting { deadline } = &mut self.phase {
                    *deadline = Some(now + self.config.connect_within);
                }
            }
            Event::SpawnFailed(why) if self.child == Child::Starting => {
                self.child = Child::None;
                let message = format!("cannot run ssh: {}", clean(&why));
                self.fail(now, message, Hint::InstallSsh, &mut out);
            }
            Event::Line(line) if running => self.line(line, now, &mut out),
            Event::Raw(value) if running => self.raw(value, now, &mut out),
            Event::Bad(error) if running => self.bad(&error, now, &mut out),
            Event::Exited { code, stderr } => {
                let was = std::mem::replace(&mut self.child, Child::None);
                // A killed child's exit says nothing: the phase says what
                // follows (a retry at its time).
                if was == Child::Running {
                    self.exited(code, &stderr, now, &mut out);
                }
            }
            _ => {}
        }
        self.due(now, &mut out);
        out
    }

    /// Do what is due at `now`.
    fn due(&mut self, now: Instant, out: &mut Vec<Action>) {
        match self.phase {
            Phase::Waiting { at } if at <= now && self.child == Child::None => {
                out.push(Action::Spawn);
                self.child = Child::Starting;
                self.phase = Phase::Connecting { deadline: None };
                if self.stale.is_none() {
                    self.show(
                        HostState::Connecting {
                            attempt: self.failures + 1,
                        },
                        out,
                    );
                }
            }
            Phase::Connecting { deadline: Some(at) } if at <= now => {
                let message = format!(
                    "{} sent no first reading in {} s",
                    self.name,
                    self.config.connect_within.as_secs()
                );
                self.fail(now, message, Hint::Slow, out);
            }
            Phase::Live { last_line, .. }
                if self
                    .config
                    .stale_after
                    .is_some_and(|s| last_line + s <= now) =>
            {
                let silent = now.saturating_duration_since(last_line).as_secs();
                let reason = format!("no word from {} for {silent} s", self.name);
                self.lost(now, reason, out);
            }
            _ => {}
        }
    }

    fn line(&mut self, line: Line, now: Instant, out: &mut Vec<Action>) {
        let line = match line {
            Line::Snapshot {
                projects,
                problems,
                watcher,
                ..
            } => {
                self.go_live(now);
                let projects = projects.into_iter().map(|p| self.own(p)).collect();
                out.push(Action::Publish(HostUpdate::Snapshot(projects)));
                out.push(Action::Publish(HostUpdate::Problems(problems)));
                self.watcher = watcher;
                self.show_live(out);
                return;
            }
            other => other,
        };
        let Phase::Live { last_line, .. } = &mut self.phase else {
            // Before the snapshot there is nothing to apply it to.
            return;
        };
        *last_line = now;
        let update = match line {
            Line::Project(p) => HostUpdate::Project(Box::new(self.own(*p))),
            Line::Removed { path, format } => HostUpdate::Removed { path, format },
            Line::Problems(problems) => HostUpdate::Problems(problems),
            Line::ReadFailed(reason) => HostUpdate::ReadFailed(reason),
            Line::Watcher(watcher) => {
                self.watcher = watcher;
                self.show_live(out);
                return;
            }
            Line::Heartbeat | Line::Snapshot { .. } => return,
        };
        out.push(Action::Publish(update));
    }

    fn raw(&mut self, value: Value, now: Instant, out: &mut Vec<Action>) {
        match &mut self.phase {
            Phase::Live { last_line, .. } => *last_line = now,
            // The plain feed's first line is its snapshot.
            _ => self.go_live(now),
        }
        if let Some(w) = value.get("watcher")
            && let Ok(watcher) = serde_json::from_value::<Liveness>(w.clone())
        {
            self.watcher = watcher;
        }
        out.push(Action::Publish(HostUpdate::Raw(value)));
        self.show_live(out);
    }

    fn bad(&mut self, error: &LineError, now: Instant, out: &mut Vec<Action>) {
        let message = format!("{} {}", self.name, error);
        if error.is_version() {
            self.refuse(now, message, out);
            return;
        }
        let hint = match error {
            // Text before the feed: the login shell's.
            LineError::NotJson(_) if matches!(self.phase, Phase::Connecting { .. }) => {
                Hint::QuietShell
            }
            LineError::TooLong { .. } => Hint::Other,
            _ => Hint::SameVersion,
        };
        self.fail(now, message, hint, out);
    }

    fn exited(
        &mut self,
        code: Option<i32>,
        stderr: &[String],
        now: Instant,
        out: &mut Vec<Action>,
    ) {
        let stderr: Vec<String> = stderr.iter().map(|l| clean(l)).collect();
        if let Phase::Live { .. } = self.phase {
            let last = stderr.iter().rev().find(|l| !l.is_empty()).cloned();
            let reason = match (last, code) {
                (Some(s), _) => s,
                (None, Some(255) | None) => "connection lost".to_owned(),
                (None, Some(c)) => format!("loopdeck on {} exited with code {c}", self.name),
            };
            self.lost(now, reason, out);
            return;
        }
        match classify(code, &stderr, &self.name) {
            Exit::Refused(message) => self.refuse(now, message, out),
            Exit::Lost if self.stale.is_some() => {
                self.retry(now);
            }
            Exit::Lost => {
                let message = format!("ssh to {} closed before the first reading", self.name);
                self.fail(now, message, Hint::Other, out);
            }
            Exit::Failed(message, hint) => self.fail(now, message, hint, out),
        }
    }

    /// The first snapshot of this child, or another one.
    fn go_live(&mut self, now: Instant) {
        let since = match self.phase {
            Phase::Live { since, .. } => since,
            _ => now,
        };
        self.phase = Phase::Live {
            since,
            last_line: now,
        };
        self.stale = None;
    }

    /// The link went quiet or dropped after Live: stale, reconnect.
    fn lost(&mut self, now: Instant, reason: String, out: &mut Vec<Action>) {
        let since = match self.phase {
            Phase::Live { last_line, .. } => last_line,
            _ => now,
        };
        self.kill(out);
        let (since, reason) = self.stale.get_or_insert((since, reason)).clone();
        self.show(HostState::Stale { since, reason }, out);
        self.retry(now);
    }

    fn fail(&mut self, now: Instant, message: String, hint: Hint, out: &mut Vec<Action>) {
        self.kill(out);
        self.stale = None;
        let retry_at = self.retry(now);
        self.show(
            HostState::Failed {
                message,
                hint,
                retry_at,
            },
            out,
        );
    }

    fn refuse(&mut self, now: Instant, message: String, out: &mut Vec<Action>) {
        self.kill(out);
        self.healthy();
        self.stale = None;
        let retry_at = now + REFUSED_RETRY;
        self.phase = Phase::Waiting { at: retry_at };
        self.show(HostState::Refused { message, retry_at }, out);
    }

    /// Try again after the backoff: when.
    fn retry(&mut self, now: Instant) -> Instant {
        self.healthy();
        self.failures = self.failures.saturating_add(1);
        let at = now + backoff(self.failures, self.rng.unit());
        self.phase = Phase::Waiting { at };
        at
    }

    /// Leaving Live: a connection live long enough forgets the failures.
    fn healthy(&mut self) {
        if let Phase::Live { since, last_line } = self.phase
            && last_line.saturating_duration_since(since) >= HEALTHY_AFTER
        {
            self.failures = 0;
        }
    }

    fn kill(&mut self, out: &mut Vec<Action>) {
        if matches!(self.child, Child::Starting | Child::Running) {
            out.push(Action::Kill);
            self.child = Child::Killed;
        }
    }

    fn show_live(&mut self, out: &mut Vec<Action>) {
        let watcher = self.watcher.clone();
        self.show(HostState::Live { watcher }, out);
    }

    fn show(&mut self, state: HostState, out: &mut Vec<Action>) {
        if self.shown.as_ref() != Some(&state) {
            self.shown = Some(state.clone());
            out.push(Action::Publish(HostUpdate::State(state)));
        }
    }

    /// A project of this host.
    fn own(&self, mut project: Project) -> Project {
        project.host = Some(self.name.clone());
        project
    }
}

/// The delay before try `failures + 1` (`failures` ≥ 1), given a draw in
/// [0, 1): 1 s doubling to 60 s, times a jitter in [0.5, 1).
fn backoff(failures: u32, unit: f64) -> Duration {
    let doublings = failures.saturating_sub(1).min(16);
    let base = BACKOFF_FIRST
        .saturating_mul(1u32 << doublings)
        .min(BACKOFF_MAX);
    base.mul_f64(0.5 + 0.5 * unit.clamp(0.0, 1.0))
}

/// What an exit before the first snapshot means.
enum Exit {
    Refused(String),
    /// ssh's 255 without a word: the link dropped.
    Lost,
    Failed(String, Hint),
}

/// What ssh says about the host when it exits 255 (its own errors; any
/// other code is the remote command's), and what fixes it.
const SSH_ERRORS: [(&[&str], Hint); 4] = [
    (&["Permission denied"], Hint::Keys),
    (
        &["Could not resolve hostname", "Name or service not known"],
        Hint::CheckName,
    ),
    (
        &[
            "Host key verification failed",
            "HOST IDENTIFICATION HAS CHANGED",
        ],
        Hint::HostKey,
    ),
    (
        &[
            "Connection timed out",
            "Connection refused",
            "No route to host",
            "Network is unreachable",
            "Operation timed out",
        ],
        Hint::Unreachable,
    ),
];

/// What the remote shell says when loopdeck is not there.
const NOT_FOUND: [&str; 2] = ["command not found", "No such file or directory"];

/// What ssh's exit `code` and its last stderr lines (cleaned, oldest
/// first) say, for `host`. The message is the line that tells (clap's
/// usage and ssh's warnings may follow it), else the last one.
fn classify(code: Option<i32>, stderr: &[String], host: &str) -> Exit {
    let find = |needles: &[&str]| {
        stderr
            .iter()
            .rev()
            .find(|l| needles.iter().any(|n| l.contains(n)))
            .cloned()
    };
    if find(&[
        "unexpected argument '--model'",
        "unexpected argument '--heartbeat'",
    ])
    .is_some()
    {
        return Exit::Refused(format!(
            "{host} runs an older loopdeck (its `watch` has no --model): install the same version there"
        ));
    }
    let last = stderr.iter().rev().find(|l| !l.is_empty()).cloned();
    let otherwise = || {
        last.clone().unwrap_or_else(|| match code {
            Some(c) => format!("ssh to {host} exited with code {c} before the first reading"),
            None => format!("ssh to {host} was killed before the first reading"),
        })
    };
    // The remote shell exits 127 for a command it cannot find; ssh's own
    // "No such file" (a config, a key) exits 255.
    let not_found = find(&NOT_FOUND).filter(|_| code != Some(255));
    if code == Some(127) || not_found.is_some() {
        return Exit::Failed(not_found.unwrap_or_else(otherwise), Hint::InstallLoopdeck);
    }
    if code == Some(255) {
        for (needles, hint) in SSH_ERRORS {
            if let Some(line) = find(needles) {
                return Exit::Failed(line, hint);
            }
        }
        if last.is_none() {
            return Exit::Lost;
        }
    }
    Exit::Failed(otherwise(), Hint::Other)
}

/// A message from the remote, one safe line of bounded length.
fn clean(text: &str) -> String {
    sanitize_line(text.trim())
        .chars()
        .take(MESSAGE_CHARS)
        .collect()
}

/// A tiny xorshift generator: jitter without a dependency.
#[derive(Debug, Clone)]
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        // splitmix64 of the seed: nearby seeds start far apart, and the
        // state is never zero.
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        Self(if z == 0 { 0x2545_F491_4F6C_DD1D } else { z })
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A draw in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests;
