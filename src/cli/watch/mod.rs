//! `loopdeck watch [ROOT...] [--json]`: the projects under the roots, then
//! every change to them as it happens, until stopped (SIGTERM, SIGINT,
//! SIGHUP) or until the reader goes away (a closed pipe). Exit 0 then.
//! The roots follow `list`'s rules (a command-line root that does not
//! exist: exit 2). Nothing is printed while nothing changes.
//!
//! # The feed (`--json`): one JSON object per line
//!
//! Every line has `"schema_version": 1`, `"type"` and `"at"` (RFC 3339 in
//! UTC, milliseconds: when loopdeck saw the change; `--now` fixes only the
//! ages in rows, as for `list`). Strings are as the files hold them
//! (controls escaped by JSON). Lines, by `type`:
//!
//! - `snapshot` (first, once): `loopdeck_version` (the sender's
//!   version), `now`, `roots`, `problems` (roots and
//!   directories that could not be read, `"path: reason"`), `watcher`, and
//!   `projects`: every row exactly as `list --json` gives it.
//! - `project_added`, `project_changed`, `project_removed`: `project`, the
//!   new row as `list --json` gives it (removed: the last row). Changed:
//!   anything `show --json` shows differs, or the row's `stalled` started
//!   with no file written (see below).
//! - `timeline_event`: `project` (id), `path`, `event` as `show --json`'s
//!   `timeline` spells it; one line per event appended, oldest first.
//! - `timeline_gap`: `project`, `path`: the `timeline_event`s that follow
//!   are new, but events before them may be missing (more were appended
//!   than one reading holds, or the log was rotated); `show --json` has the
//!   tail.

//! - `timeline_reset`: `project`, `path`, `timeline`: the log was truncated
//!   or replaced, this is its tail now (replace yours; none of it is
//!   announced as new).
//! - `bug_opened`: `project`, `path`, `bug` as `show --json` spells it.
//! - `bug_transitioned`: `project`, `path`, `from`, `to`, `bug`.
//! - `inbox_added`, `inbox_changed`, `inbox_removed`: `key` (stable:
//!   `PROJECT_PATH#KIND:REF`, `#2`... for a repeated ref) and `item` as
//!   `inbox --json` gives it (removed: as it was). A project that appears
//!   brings its items; one that goes takes them.
//! - `watcher`: how changes are noticed, when that changes: `{"state":
//!   "starting"}`, `{"state": "live", "watches": N}`, `{"state": "polling",
//!   "every_secs": N, "reason": "..."}`.
//! - `problems`: the roots' problems, when they change (`[]`: none left).
//! - `read_failed`: `reason`: a reading failed; the next change reads again.
//!
//! Within one reading: projects removed first, then each project added or
//! changed followed by its events, bugs and inbox items.
//!
//! A row's `stalled` (work that says it runs, its files silent past the
//! `[stall]` limit) is the one part of a row that changes with time alone.
//! The feed arms one timer, at the next stall's start
//! ([`Project::next_stall_at`]), and sends that project's row again then;
//! a stall that goes on sends nothing more (its `silent_seconds` grows in
//! the rows that file changes send), and the next write ends it. Under
//! `--now` time stands still: no timer.
//!
//! A reader that falls behind (stops reading, reads slowly) costs bounded
//! memory: changes wait merged (see `queue`), and when it reads again it
//! gets what differs from what it last got: the changed projects' rows, a
//! `timeline_gap` before the events one reading still holds.
//!
//! Without `--json`: the `list` table, a line saying how changes are
//! noticed, then one plain line per change (strings made safe).
//!
//! # The model feed (`--json --model`, hidden)
//!
//! For loopdeck's own hosts (issue 22: the console runs `ssh HOST loopdeck
//! watch ROOT... --json --model --heartbeat 10` and rebuilds each project
//! of the host from the lines); not a stable public interface, and no
//! flag of it is in `--help`. The same envelope (`schema_version` 1,
//! `type`, `at`); the projects are whole, as `model::wire` encodes them,
//! so the receiver has what a reading here has (no row, no ages, no inbox
//! lines: it judges "now" itself). Lines, by `type`:
//!
//! - `snapshot` (first, once): `loopdeck_version`, `model_schema`
//!   (`wire::MODEL_SCHEMA`: a receiver refuses another), `roots`,
//!   `problems`, `watcher` (as above), `projects`: every project's wire
//!   value.
//! - `project`: `project`, a project added or changed (anything in it
//!   differs, `activity` and `acts` included): the receiver replaces the
//!   one of the same `path` and `format`, or adds it. A project whose
//!   stall starts while its files stay silent is sent again (the receiver
//!   recomputes stalls from its `activity` anyway).
//! - `project_removed`: `path` (as the project's wire value writes it),
//!   `format`.
//! - `watcher`, `problems`, `read_failed`: as above.
//! - `heartbeat` (only with `--heartbeat SECS`): nothing was written for
//!   SECS seconds; the receiver knows the link is alive.
//!
//! The projects are as the readers made them: items the files give no
//! waiting time keep none (the receiver fills them from its own
//! first-seen memory, as for its own projects), and no `[[escalate]]`
//! rule is applied here.

mod lines;
mod queue;
mod relay;

use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::mem;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use chrono::Utc;

use super::views::{Policy, Row, rfc3339};
use crate::config::Config;
use crate::exit::{EXIT_OK, EXIT_USAGE};
use crate::model::changes;
use crate::model::escalate;
use crate::model::text::sanitize_line;
use crate::model::{Format, Project, sort_newest_first, wire};
use crate::options::Global;
use lines::Body;
use loopdeck_core::fleet;
use loopdeck_core::follow::{Engine, Liveness, Reading, Sink, Update};
use queue::{Msg, Queue};

/// How long a signal waits for the loop to end by itself.
const STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// End the run on SIGTERM, SIGINT or SIGHUP (an SSH session that ends).
/// signal-hook is already in the build (crossterm uses it) and keeps the
/// handler async-signal-safe: a self-pipe read by its own thread.
fn on_signals(tx: Arc<Queue>) -> Result<(), String> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP])
        .map_err(|e| crate::t!("cli.error.signals", error = e))?;
    thread::Builder::new()
        .name("loopdeck-signals".to_owned())
        .spawn(move || {
            if signals.forever().next().is_some() {
                tx.push(Msg::Stop);
                // The loop ends at once, unless a write blocks on a reader
                // that stopped reading (a stalled SSH session, a full
                // pipe): then the run ends here, as asked.
                thread::sleep(STOP_GRACE);
                std::process::exit(EXIT_OK);
            }
        })
        .map(|_| ())
        .map_err(|e| crate::t!("cli.error.signals", error = e))
}

/// End the run when the reader of stdout goes away while nothing changes
/// (a pipe's reader closes; an SSH client disconnects): `poll` with no
/// events reports only errors and hang-ups. A regular file or a terminal
/// that stays open never wakes it.
fn on_hangup(tx: Arc<Queue>) -> Result<(), String> {
    thread::Builder::new()
        .name("loopdeck-stdout".to_owned())
        .spawn(move || {
            use rustix::event::{PollFd, PollFlags, poll};
            let stdout = io::stdout();
            loop {
                let mut fds = [PollFd::new(&stdout, PollFlags::empty())];
                match poll(&mut fds, None) {
                    Err(rustix::io::Errno::INTR) => continue,
                    Ok(n)
                        if n > 0
                            && fds[0].revents().intersects(PollFlags::ERR | PollFlags::HUP) =>
                    {
                        tx.push(Msg::Stop);
                    }
                    // An error, or stdout not open: nothing to wait for.
                    _ => {}
                }
                return;
            }
        })
        .map(|_| ())
        .map_err(|e| crate::t!("cli.error.stdout", error = e))
}

/// Apply `reading` to `projects`: the projects it replaced, and where the
/// ones it brought begin in `projects` (to diff without a copy); or why it
/// failed.
fn apply(projects: &mut Vec<Project>, reading: Reading) -> Result<(Vec<Project>, usize), String> {
    match reading {
        Reading::All(fresh) => Ok((mem::replace(projects, fresh), 0)),
        Reading::Part {
            dirs,
            trees,
            projects: fresh,
        } => {
            let read =
                |p: &Path| dirs.iter().any(|d| d == p) || trees.iter().any(|t| p.starts_with(t));
            let (old, kept): (Vec<Project>, Vec<Project>) =
                mem::take(projects).into_iter().partition(|p| read(&p.path));
            *projects = kept;
            let start = projects.len();
            projects.extend(fresh);
            Ok((old, start))
        }
        Reading::Failed(why) => Err(why),
    }
}

/// The model feed's settings (`--model`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Model {
    /// `--heartbeat SECS`: a `heartbeat` line after this long without one.
    pub heartbeat: Option<Duration>,
}

/// The feed's output, and when a line was last written to it.
struct Out<'a> {
    inner: &'a mut dyn Write,
    last: Instant,
}

impl Write for Out<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        if n > 0 {
            self.last = Instant::now();
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// The feed's state between messages.
struct Feed<'g> {
    global: &'g Global,
    json: bool,
    /// `--model`: whole projects, no rows (see the module's doc).
    model: Option<Model>,
    roots: Vec<String>,
    projects: Vec<Project>,
    watcher: Liveness,
    problems: Vec<String>,
    snapshot_sent: bool,
    /// When each waiting item was first seen (see `model::first_seen`):
    /// an item keeps its age across readings, so one that did not change
    /// sends no `inbox_changed`.
    first: crate::model::first_seen::FirstSeen,
    /// Where `first` is saved (none: read-only, or no state directory).
    first_dir: Option<std::path::PathBuf>,
    /// The `[[escalate]]` rules, what a server-only decision needs, and
    /// how long each format's work may be silent (`[stall]`).
    policy: Policy,
    /// The rules last sent as firing on each item, by the feed's key: a
    /// rule that starts firing by time alone sends `inbox_changed` (and
    /// the project's `project_changed`) once.
    escalated: HashMap<String, Vec<String>>,
    /// When a rule next starts firing by time alone (none under `--now`,
    /// whose clock does not move).
    due: Option<Instant>,
    /// The stall each project's last row said: the agent of its longest
    /// silence (`Some(None)`: the project's own), by project. A project
    /// whose stall starts while its files stay silent is sent again.
    stalls: HashMap<StallKey, Option<String>>,
}

/// A project's identity in the feed: directory, format, id.
type StallKey = (PathBuf, crate::model::Format, String);

fn stall_key(p: &Project) -> StallKey {
    (p.path.clone(), p.format, p.id.clone())
}

/// What the model feed's receiver knows a project by: its directory and
/// format.
fn model_key(p: &Project) -> (&Path, Format) {
    (&p.path, p.format)
}

impl Feed<'_> {
    fn snapshot(&mut self, out: &mut dyn Write) -> io::Result<()> {
        self.snapshot_sent = true;
        let now = self.global.now.unwrap_or_else(Utc::now);
        sort_newest_first(&mut self.projects);
        // What the snapshot's rows say fires is what was sent.
        self.escalate(&HashSet::new(), &mut io::sink())?;
        let limits = self.policy.stall;
        self.stalls = self
            .projects
            .iter()
            .filter_map(|p| Some((stall_key(p), p.stall(now, &limits)?.agent)))
            .collect();
        if self.model.is_some() {
            return lines::emit(
                out,
                true,
                Body::ModelSnapshot {
                    at: lines::stamp(),
                    loopdeck_version: env!("CARGO_PKG_VERSION"),
                    model_schema: wire::MODEL_SCHEMA,
                    roots: &self.roots,
                    problems: &self.problems,
                    watcher: &self.watcher,
                    projects: lines::WireProjects(&self.projects),
                },
            );
        }
        lines::emit(
            out,
            self.json,
            Body::Snapshot {
                at: lines::stamp(),
                loopdeck_version: env!("CARGO_PKG_VERSION"),
                now: rfc3339(self.global.now),
                roots: &self.roots,
                problems: &self.problems,
                watcher: &self.watcher,
                projects: self
                    .projects
                    .iter()
                    .map(|p| Row::at(p, now, &self.policy))
                    .collect(),
            },
        )
    }

    /// When the next project's stall starts, with nothing written
    /// meanwhile: the feed's one timer (none under `--now`, whose time
    /// does not pass, and none before the snapshot).
    fn next_stall(&self) -> Option<Instant> {
        if self.global.now.is_some() || !self.snapshot_sent {
            return None;
        }
        let now = Utc::now();
        let at = self
            .projects
            .iter()
            .filter_map(|p| p.next_stall_at(now, &self.policy.stall))
            .min()?;
        Some(Instant::now() + (at - now).to_std().unwrap_or_default())
    }

    /// Send again the row of every project whose stall is not the one its
    /// last row said (a stall started while its files stayed silent).
    fn restall(&mut self, out: &mut dyn Write) -> io::Result<()> {
        if !self.snapshot_sent {
            return Ok(());
        }
        let now = self.global.now.unwrap_or_else(Utc::now);
        let at = lines::stamp();
        for p in &self.projects {
            let key = stall_key(p);
            let stall = p.stall(now, &self.policy.stall).map(|s| s.agent);
            if self.stalls.get(&key) == stall.as_ref() {
                continue;
            }
            match stall {
                Some(agent) => self.stalls.insert(key, agent),
                None => self.stalls.remove(&key),
            };
            let body = match self.model {
                Some(_) => Body::Project {
                    at: at.clone(),
                    project: wire::to_value(p),
                },
                None => Body::ProjectChanged {
                    at: at.clone(),
                    project: Row::at(p, now, &self.policy),
                },
            };
            lines::emit(out, self.json, body)?;
        }
        Ok(())
    }

    fn read(&mut self, reading: Reading, out: &mut dyn Write) -> io::Result<()> {
        match apply(&mut self.projects, reading) {
            Ok((old, start)) => {
                let now = self.global.now.unwrap_or_else(Utc::now);
                // The model feed sends the projects as read: its receiver
                // fills the waiting times from its own memory.
                if self.model.is_none()
                    && self.first.fill(&mut self.projects[start..], now)
                    && let Some(dir) = &self.first_dir
                {
                    // Best effort: the feed goes on without the memory.
                    let _ = loopdeck_core::memory::first_seen::save(dir, &mut self.first);
                }
                if !self.snapshot_sent {
                    return self.snapshot(out);
                }
                if self.model.is_some() {
                    return self.send_models(&old, start, out);
                }
                let now = self.global.now.unwrap_or_else(Utc::now);
                let mut sent = HashSet::new();
                for c in changes::diff(&old, &self.projects[start..]) {
                    lines::change(out, self.json, &c, now, &self.policy)?;
                    // What the lines sent carry: the escalations of these
                    // items and rows, and the rows' stalls.
                    match c {
                        changes::Change::InboxAdded { project, key, .. }
                        | changes::Change::InboxChanged { project, key, .. } => {
                            sent.insert(lines::key(project, &key));
                        }
                        changes::Change::Added(p) | changes::Change::Changed { project: p, .. } => {
                            sent.insert(lines::display_path_key(p));
                            match p.stall(now, &self.policy.stall) {
                                Some(s) => self.stalls.insert(stall_key(p), s.agent),
                                None => self.stalls.remove(&stall_key(p)),
                            };
                        }
                        changes::Change::Removed(p) => {
                            self.stalls.remove(&stall_key(p));
                        }
                        _ => {}
                    }
                }
                self.escalate(&sent, out)?;
                // A project read again unchanged may have stalled since
                // its last row.
                self.restall(out)
            }
            Err(why) => {
                if !self.snapshot_sent {
                    self.snapshot(out)?;
                }
                lines::emit(
                    out,
                    self.json,
                    Body::ReadFailed {
                        at: lines::stamp(),
                        reason: &why,
                    },
                )
            }
        }
    }

    /// The model feed's lines for a reading: `project_removed` for each
    /// project of `old` the reading no longer has, then `project` for each
    /// it brought that is new or differs in anything; then any stall that
    /// started since the last line.
    fn send_models(
        &mut self,
        old: &[Project],
        start: usize,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let now = self.global.now.unwrap_or_else(Utc::now);
        let at = lines::stamp();
        let fresh = &self.projects[start..];
        let was: HashMap<_, &Project> = old.iter().map(|p| (model_key(p), p)).collect();
        let is: HashSet<_> = fresh.iter().map(model_key).collect();
        for gone in old {
            if is.contains(&model_key(gone)) {
                continue;
            }
            self.stalls.remove(&stall_key(gone));
            lines::emit(
                out,
                true,
                Body::ModelProjectRemoved {
                    at: at.clone(),
                    path: wire::path_to_value(&gone.path),
                    format: gone.format,
                },
            )?;
        }
        for p in fresh {
            if was.get(&model_key(p)) == Some(&p) {
                continue;
            }
            match p.stall(now, &self.policy.stall) {
                Some(s) => self.stalls.insert(stall_key(p), s.agent),
                None => self.stalls.remove(&stall_key(p)),
            };
            lines::emit(
                out,
                true,
                Body::Project {
                    at: at.clone(),
                    project: wire::to_value(p),
                },
            )?;
        }
        self.restall(out)
    }

    /// When the model feed's next `heartbeat` is due (`--heartbeat`, after
    /// the snapshot): that long after the last line written.
    fn heartbeat_at(&self, last: Instant) -> Option<Instant> {
        let every = self.model?.heartbeat?;
        self.snapshot_sent.then(|| last + every)
    }

    /// Send `inbox_changed` for every item on which the rules that fire
    /// differ from those last sent (and `project_changed` for its
    /// project), unless this reading's lines (`sent`, by key) already
    /// carried them; then set when a rule next fires by time alone.
    fn escalate(&mut self, sent: &HashSet<String>, out: &mut dyn Write) -> io::Result<()> {
        // The model feed has no rows nor items: its receiver applies its
        // own rules.
        if self.policy.rules.is_empty() || self.model.is_some() {
            return Ok(());
        }
        let now = self.global.now.unwrap_or_else(Utc::now);
        let mut fired: HashMap<String, Vec<String>> = HashMap::new();
        for p in &self.projects {
            let mut project_moved = false;
            for (k, item) in changes::inbox_by_key(p) {
                let key = lines::key(p, &k);
                let names = escalate::names(&self.policy.rules, p, item, now);
                let was = self.escalated.get(&key).map_or(&[][..], Vec::as_slice);
                if was != names.as_slice() && !sent.contains(&key) && self.snapshot_sent {
                    project_moved = true;
                    if let Some(item) = lines::inbox_row(p, item, now, &self.policy) {
                        lines::emit(
                            out,
                            self.json,
                            Body::InboxChanged {
                                at: lines::stamp(),
                                key,
                                item,
                            },
                        )?;
                    }
                }
                if !names.is_empty() {
                    fired.insert(lines::key(p, &k), names);
                }
            }
            if project_moved && !sent.contains(&lines::display_path_key(p)) {
                lines::emit(
                    out,
                    self.json,
                    Body::ProjectChanged {
                        at: lines::stamp(),
                        project: Row::at(p, now, &self.policy),
                    },
                )?;
            }
        }
        self.escalated = fired;
        self.due = match self.global.now {
            Some(_) => None,
            None => escalate::next_due(&self.policy.rules, &self.projects, now)
                .map(|at| Instant::now() + (at - Utc::now()).to_std().unwrap_or_default()),
        };
        Ok(())
    }

    fn liveness(&mut self, l: Liveness, out: &mut dyn Write) -> io::Result<()> {
        if l == self.watcher {
            return Ok(());
        }
        self.watcher = l;
        if !self.snapshot_sent {
            return Ok(());
        }
        lines::emit(
            out,
            self.json,
            Body::Watcher {
                at: lines::stamp(),
                watcher: &self.watcher,
            },
        )
    }

    fn problems(&mut self, p: Vec<String>, out: &mut dyn Write) -> io::Result<()> {
        if p == self.problems {
            return Ok(());
        }
        self.problems = p;
        if !self.snapshot_sent {
            return Ok(());
        }
        lines::emit(
            out,
            self.json,
            Body::Problems {
                at: lines::stamp(),
                problems: &self.problems,
            },
        )
    }
}

/// Run the feed on `roots` until stopped; write errors end it (a closed
/// pipe is not a failure: the caller exits 0 on `BrokenPipe`).
pub fn run(
    global: &Global,
    config: &Config,
    roots: &[PathBuf],
    json: bool,
    model: Option<Model>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    let hosts = match crate::config::hosts(global, config) {
        Ok(h) => h,
        Err(e) => {
            let _ = writeln!(err, "loopdeck: {}", sanitize_line(&e));
            return Ok(EXIT_USAGE);
        }
    };
    if model.is_some() && !hosts.is_empty() {
        let _ = writeln!(err, "loopdeck: {}", crate::t!("cli.watch.model_no_hosts"));
        return Ok(EXIT_USAGE);
    }
    let roots = match crate::config::local_roots(roots, config, &hosts) {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(err, "loopdeck: {}", sanitize_line(&e.to_string()));
            return Ok(EXIT_USAGE);
        }
    };
    // Bounded: see `queue` (a reader that stops reading stops this loop).
    let rx = Arc::new(Queue::default());
    for started in [on_signals(rx.clone()), on_hangup(rx.clone())] {
        if let Err(why) = started {
            let _ = writeln!(err, "loopdeck: {}", sanitize_line(&why));
        }
    }
    let to_queue = rx.clone();
    let mut engine = Engine::start(
        roots.clone(),
        Sink::from_fn(move |m| {
            to_queue.push(Msg::Feed(m));
            true
        }),
        &crate::config::watch_options(config),
    );
    // Other hosts: their own feeds, relayed line by line (`relay`). The
    // fleet's ssh children end with this run (its drop kills them).
    let to_queue = rx.clone();
    let _fleet = if hosts.is_empty() {
        None
    } else {
        let options = fleet::RunOptions {
            feed: fleet::Feed::Raw,
            ..fleet::RunOptions::default()
        };
        let sink = fleet::Sink::from_fn(move |e| to_queue.push(Msg::Host(Box::new(e))));
        match fleet::start(hosts, options, sink) {
            Ok(f) => Some(f),
            Err(e) => {
                let _ = writeln!(err, "loopdeck: {}", sanitize_line(&e.to_string()));
                return Ok(EXIT_USAGE);
            }
        }
    };
    let first_seen_dir = loopdeck_core::memory::state_dir();
    let out = &mut Out {
        inner: out,
        last: Instant::now(),
    };
    let mut feed = Feed {
        global,
        json,
        model,
        roots: roots
            .iter()
            .map(|r| r.to_string_lossy().into_owned())
            .collect(),
        projects: Vec::new(),
        watcher: Liveness::Starting,
        problems: Vec::new(),
        snapshot_sent: false,
        first: first_seen_dir
            .as_deref()
            .map(|d| loopdeck_core::memory::first_seen::load(d).0)
            .unwrap_or_default(),
        first_dir: first_seen_dir.filter(|_| !(global.readonly || config.readonly)),
        policy: Policy::new(config),
        escalated: HashMap::new(),
        due: None,
        stalls: HashMap::new(),
    };
    // The snapshot of the last reading (`list --cached`, the console's
    // first frame), kept as the console keeps it; not by the model feed
    // (its projects wait for their receiver's first-seen times), nor
    // read-only.
    let keep = feed.model.is_none() && !(global.readonly || config.readonly);
    let mut snapshot = loopdeck_core::memory::snapshot::Writer::new(
        loopdeck_core::memory::state_dir().filter(|_| keep),
        roots.clone(),
    );
    let ended = follow(&mut feed, &mut engine, &rx, json, out, &mut snapshot);
    // However it ends (stopped, the reader gone), what changed since the
    // last snapshot is kept.
    let _ = snapshot.finish(&feed.projects);
    ended
}

/// The feed's loop, until stopped (`Ok`) or its output fails.
fn follow(
    feed: &mut Feed<'_>,
    engine: &mut Engine,
    rx: &Queue,
    json: bool,
    out: &mut Out<'_>,
    snapshot: &mut loopdeck_core::memory::snapshot::Writer,
) -> io::Result<i32> {
    loop {
        // The engine's next timer, the next rule that fires by time alone,
        // the next stall's start, or the next heartbeat: nothing else wakes
        // the feed while nothing changes.
        let wake = [
            engine.wake_at(),
            feed.due,
            feed.next_stall(),
            feed.heartbeat_at(out.last),
        ]
        .into_iter()
        .flatten()
        .min();
        let Some(msg) = rx.pop(wake) else {
            let now = Instant::now();
            if engine.wake_at().is_some_and(|at| at <= now) {
                engine.tick(now);
            }
            if feed.due.is_some_and(|at| at <= now) && feed.snapshot_sent {
                feed.escalate(&HashSet::new(), out)?;
            }
            feed.restall(out)?;
            beat(feed, out)?;
            continue;
        };
        let now = Instant::now();
        match msg {
            Msg::Stop => return Ok(EXIT_OK),
            Msg::Host(e) => {
                if let Some(line) = relay::line(&e) {
                    relayed(out, json, &line)?;
                }
            }
            Msg::HostGap(host, n) => relayed(out, json, &relay::gap(&host, n))?,
            Msg::Feed(m) => match engine.handle(m, now) {
                Some(Update::Reading(reading)) => {
                    let (full, failed) = (
                        matches!(reading, Reading::All(_)),
                        matches!(reading, Reading::Failed(_)),
                    );
                    // Noted first: a reader gone while this reading's
                    // lines are written does not lose it.
                    if !failed {
                        snapshot.read(full);
                    }
                    feed.read(reading, out)?;
                    if snapshot.due(now) {
                        snapshot.write(&feed.projects, now);
                    }
                }
                Some(Update::RootProblems(p)) => feed.problems(p, out)?,
                Some(Update::Liveness(l)) => feed.liveness(l, out)?,
                None => {}
            },
        }
        // A busy feed may never time out: a crossing is still sent on time,
        // and so is a heartbeat when the messages bring no line.
        if feed.due.is_some_and(|at| at <= Instant::now()) && feed.snapshot_sent {
            feed.escalate(&HashSet::new(), out)?;
        }
        beat(feed, out)?;
    }
}

/// Write one relayed line (JSON, or in plain words).
fn relayed(out: &mut Out<'_>, json: bool, line: &serde_json::Value) -> io::Result<()> {
    if json {
        super::json::line(out, line)?;
    } else {
        out.write_all(relay::plain(line).as_bytes())?;
    }
    out.flush()
}

/// Send a `heartbeat` if one is due.
fn beat(feed: &Feed<'_>, out: &mut Out<'_>) -> io::Result<()> {
    if feed
        .heartbeat_at(out.last)
        .is_some_and(|at| at <= Instant::now())
    {
        lines::emit(out, true, Body::Heartbeat { at: lines::stamp() })?;
    }
    Ok(())
}

/// A line's envelope, for tests of the schema.
#[cfg(test)]
fn envelope(body: Body<'_>) -> serde_json::Value {
    let mut out = Vec::new();
    super::json::line(
        &mut out,
        &lines::Line {
            schema_version: super::views::SCHEMA_VERSION,
            body,
        },
    )
    .map_err(|e| e.to_string())
    .and_then(|()| serde_json::from_slice(&out).map_err(|e| e.to_string()))
    .unwrap_or_default()
}

#[cfg(test)]
mod tests;
