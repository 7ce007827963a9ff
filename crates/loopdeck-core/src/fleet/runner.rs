//! Running the hosts: one OS thread (`loopdeck-fleet`) with a
//! current-thread tokio runtime, one task per host. Each task spawns the
//! host's `ssh`, reads its stdout line by line (bounded; a last piece
//! without `\n` is never applied), keeps its last stderr lines for the
//! message of a failure, and drives the host's pure machine
//! ([`super::host`]): it does the machine's actions and sleeps until the
//! machine's next deadline or the child's next line or exit. Idle costs
//! nothing: no loop polls.
//!
//! What the consumer gets is a [`HostEvent`] per update, through a
//! [`Sink`] called on the fleet's thread (a std channel's `Sender`, a
//! queue). [`Fleet::stop`] (or dropping the [`Fleet`]) kills every child
//! and joins the thread.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::mpsc::Sender;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::{Child, ChildStderr, ChildStdout, Command};
use tokio::sync::watch;

use super::host::{Action, CONNECT_WITHIN, Config, Event, Hint, Host, STAGGER, STALE_AFTER};
use super::line::{self, LineError};
use super::{HostSpec, SpecError, ssh};
use crate::model::HostName;

/// Which feed the hosts send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feed {
    /// `watch --json --model --heartbeat N`: whole projects, for the
    /// console ([`HostUpdate::Snapshot`](super::HostUpdate) and the rest).
    Model,
    /// `watch --json`: each line as the host sent it
    /// ([`HostUpdate::Raw`](super::HostUpdate)), for a relay. No
    /// heartbeat: a dead link is noticed by ssh's keep-alive alone.
    Raw,
}

/// How the fleet runs.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The remote heartbeats this often when nothing changes
    /// ([`Feed::Model`]).
    pub heartbeat_secs: u64,
    /// Live with no line this long: stale ([`Feed::Model`]).
    pub stale_after: Duration,
    /// No first reading this long after a spawn: failed.
    pub connect_within: Duration,
    /// The program run as `ssh` (tests give a script).
    pub ssh_program: OsString,
    /// The seed of the jitters (backoff, first spawns).
    pub seed: u64,
    /// The first spawns are spread over this long.
    pub stagger: Duration,
    /// The longest line read from a host, in bytes.
    pub max_line: usize,
    /// Which feed.
    pub feed: Feed,
}

/// The longest line read from a host unless configured otherwise.
pub const MAX_LINE: usize = 64 << 20;

/// The remote heartbeats this often unless configured otherwise.
pub const HEARTBEAT_SECS: u64 = 10;

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            heartbeat_secs: HEARTBEAT_SECS,
            stale_after: STALE_AFTER,
            connect_within: CONNECT_WITHIN,
            ssh_program: OsString::from("ssh"),
            seed: seed_from_clock(),
            stagger: STAGGER,
            max_line: MAX_LINE,
            feed: Feed::Model,
        }
    }
}

/// A seed that differs between runs (two consoles do not retry in step).
fn seed_from_clock() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    (nanos as u64) ^ u64::from(std::process::id()).rotate_left(32)
}

/// One update of one host.
#[derive(Debug, Clone, PartialEq)]
pub struct HostEvent {
    /// The host, by its `[[host]]` name.
    pub host: HostName,
    /// What changed.
    pub update: super::HostUpdate,
}

/// Where the fleet's events go: the consumer's channel or queue, called
/// on the fleet's thread.
#[derive(Clone)]
pub struct Sink(Arc<dyn Fn(HostEvent) + Send + Sync>);

impl Sink {
    /// Send every event down `tx`, turned into the consumer's own message
    /// type (a consumer gone is not an error: the fleet is stopped by
    /// [`Fleet::stop`]).
    pub fn new<T: From<HostEvent> + Send + 'static>(tx: Sender<T>) -> Self {
        Self(Arc::new(move |e| {
            let _ = tx.send(T::from(e));
        }))
    }

    /// Hand every event to `f`.
    pub fn from_fn(f: impl Fn(HostEvent) + Send + Sync + 'static) -> Self {
        Self(Arc::new(f))
    }

    /// Hand `event` on.
    pub fn send(&self, event: HostEvent) {
        (self.0)(event);
    }
}

impl std::fmt::Debug for Sink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sink")
    }
}

/// Why the fleet did not start.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A host's description is refused.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// The runtime could not be built.
    #[error("cannot start the hosts' runtime: {0}")]
    Runtime(io::Error),
    /// The thread could not be started.
    #[error("cannot start the hosts' thread: {0}")]
    Thread(io::Error),
}

/// The running fleet: stop it (or drop it) to kill every `ssh`.
#[derive(Debug)]
pub struct Fleet {
    stop: Option<watch::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Fleet {
    /// Kill every host's `ssh` and wait for the fleet's thread (at most
    /// about 2 s). Never from inside the [`Sink`], which runs on that
    /// thread.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        // Dropping the sender wakes every task: each kills its child.
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Fleet {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// The fleet's thread.
pub const THREAD: &str = "loopdeck-fleet";

/// Start following `hosts` (checked first): every update goes to `sink`,
/// on the fleet's thread.
pub fn start(hosts: Vec<HostSpec>, options: RunOptions, sink: Sink) -> Result<Fleet, Error> {
    super::validate_all(&hosts)?;
    let (stop, stopped) = watch::channel(());
    if hosts.is_empty() {
        return Ok(Fleet {
            stop: Some(stop),
            thread: None,
        });
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(Error::Runtime)?;
    let options = Arc::new(options);
    let thread = std::thread::Builder::new()
        .name(THREAD.to_owned())
        .spawn(move || {
            runtime.block_on(async move {
                let mut tasks = tokio::task::JoinSet::new();
                for (i, spec) in hosts.into_iter().enumerate() {
                    let seed = options
                        .seed
                        .wrapping_add((i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                    tasks.spawn(drive(
                        spec,
                        options.clone(),
                        seed,
                        sink.clone(),
                        stopped.clone(),
                    ));
                }
                while tasks.join_next().await.is_some() {}
            });
        })
        .map_err(Error::Thread)?;
    Ok(Fleet {
        stop: Some(stop),
        thread: Some(thread),
    })
}

/// One host, until the fleet stops.
async fn drive(
    spec: HostSpec,
    options: Arc<RunOptions>,
    seed: u64,
    sink: Sink,
    mut stop: watch::Receiver<()>,
) {
    let name = spec.name.clone();
    let feed = options.feed;
    let argv = match feed {
        Feed::Model => ssh::watch_argv(&spec, options.heartbeat_secs),
        Feed::Raw => ssh::relay_argv(&spec),
    };
    let config = Config {
        stale_after: (feed == Feed::Model).then_some(options.stale_after),
        connect_within: options.connect_within,
        stagger: options.stagger,
        seed,
    };
    let publish = |update| {
        sink.send(HostEvent {
            host: name.clone(),
            update,
        });
    };
    let mut host = Host::new(name.clone(), config, Instant::now());
    let mut child: Option<Running> = None;
    let mut step = Step::Start;
    loop {
        // The machine's answer, a panic in it contained to this host.
        let answer = crate::guard::caught(|| match step {
            Step::Start => host.start(Instant::now()),
            Step::Event(event) => host.handle(event, Instant::now()),
        });
        let mut actions: VecDeque<Action> = match answer {
            Ok(actions) => actions.into(),
            Err(why) => {
                publish(super::HostUpdate::State(super::HostState::Failed {
                    message: format!("following {name} failed: {why}"),
                    hint: Hint::Bug,
                    retry_at: Instant::now(),
                }));
                break;
            }
        };
        let mut next = None;
        while let Some(action) = actions.pop_front() {
            match action {
                Action::Publish(update) => publish(update),
                Action::Kill => {
                    if let Some(c) = child.as_mut() {
                        let _ = c.proc.start_kill();
                    }
                }
                // The machine answers a spawn before anything else.
                Action::Spawn => {
                    next = Some(match Running::spawn(&options, &argv) {
                        Ok(running) => {
                            child = Some(running);
                            Event::Spawned
                        }
                        Err(e) => Event::SpawnFailed(e.to_string()),
                    });
                }
            }
        }
        if let Some(event) = next {
            step = Step::Event(event);
            continue;
        }
        let wake = host.wake_at();
        let event = tokio::select! {
            biased;
            _ = stop.changed() => break,
            event = next_of(&mut child, feed) => event,
            () = sleep_until(wake) => Event::Tick,
        };
        if matches!(event, Event::Exited { .. }) {
            child = None;
        }
        step = Step::Event(event);
    }
    if let Some(mut c) = child {
        let _ = c.proc.start_kill();
        let _ = tokio::time::timeout(Duration::from_secs(2), c.proc.wait()).await;
    }
}

/// What the machine is handed next.
enum Step {
    Start,
    Event(Event),
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(tokio::time::Instant::from_std(at)).await,
        None => std::future::pending().await,
    }
}

/// The child's next event; never, when there is no child.
async fn next_of(child: &mut Option<Running>, feed: Feed) -> Event {
    match child {
        Some(c) => c.next(feed).await,
        None => std::future::pending().await,
    }
}

/// How long the pipes are still read after the child exits (a
/// grandchild may hold them open).
const DRAIN: Duration = Duration::from_millis(500);

/// The stderr lines kept, each at most [`STDERR_LINE`] bytes.
const STDERR_LINES: usize = 8;
const STDERR_LINE: usize = 4096;

/// A running `ssh` and its pipes.
struct Running {
    proc: Child,
    out: Lines<ChildStdout>,
    err: Lines<ChildStderr>,
    /// The last stderr lines (ignored while live: only an exit shows
    /// them).
    stderr: VecDeque<String>,
    /// Its exit code once it exited (`None` inside: a signal), and until
    /// when its pipes are still read.
    exit: Option<(Option<i32>, tokio::time::Instant)>,
}

impl Running {
    fn spawn(options: &RunOptions, argv: &[OsString]) -> io::Result<Self> {
        let mut cmd = Command::new(&options.ssh_program);
        cmd.args(argv)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        // Out of the terminal's process group: the user's Ctrl-C or
        // Ctrl-Z in a front end's terminal is the front end's to handle.
        #[cfg(unix)]
        cmd.process_group(0);
        let mut proc = cmd.spawn()?;
        let (Some(out), Some(err)) = (proc.stdout.take(), proc.stderr.take()) else {
            return Err(io::Error::other("the child's pipes are missing"));
        };
        Ok(Self {
            proc,
            out: Lines::new(out, options.max_line),
            err: Lines::new(err, STDERR_LINE),
            stderr: VecDeque::with_capacity(STDERR_LINES),
            exit: None,
        })
    }

    /// The next complete stdout line as an event, or the exit once both
    /// pipes are read to the end. Cancel-safe: what was read stays.
    async fn next(&mut self, feed: Feed) -> Event {
        loop {
            if let Some((code, _)) = self.exit
                && !self.out.open
                && !self.err.open
            {
                return Event::Exited {
                    code,
                    stderr: self.stderr.iter().cloned().collect(),
                };
            }
            let drain_until = self.exit.map(|(_, until)| until);
            tokio::select! {
                chunk = self.out.next(), if self.out.open => match chunk {
                    Chunk::Line(bytes) => {
                        if let Some(event) = event_of(bytes, feed) {
                            return event;
                        }
                    }
                    Chunk::TooLong => {
                        return Event::Bad(LineError::TooLong { limit: self.out.limit });
                    }
                    Chunk::Eof => {}
                },
                chunk = self.err.next(), if self.err.open => {
                    if let Chunk::Line(bytes) = chunk {
                        if self.stderr.len() == STDERR_LINES {
                            self.stderr.pop_front();
                        }
                        let text = String::from_utf8_lossy(&bytes);
                        self.stderr.push_back(text.trim().to_owned());
                    }
                }
                status = self.proc.wait(), if self.exit.is_none() => {
                    let code = status.ok().and_then(|s| s.code());
                    self.exit = Some((code, tokio::time::Instant::now() + DRAIN));
                }
                () = tokio::time::sleep_until(drain_until.unwrap_or_else(tokio::time::Instant::now)),
                    if drain_until.is_some() =>
                {
                    self.out.open = false;
                    self.err.open = false;
                }
            }
        }
    }
}

/// A complete line as the machine's event; `None`: a blank line.
fn event_of(bytes: Vec<u8>, feed: Feed) -> Option<Event> {
    let Ok(text) = String::from_utf8(bytes) else {
        return Some(Event::Bad(LineError::NotJson("(not UTF-8)".to_owned())));
    };
    if text.trim().is_empty() {
        return None;
    }
    // A panic in a decoder is this line's error, not the fleet's end.
    let event = crate::guard::caught(|| match feed {
        Feed::Model => line::parse(&text).map(Event::Line),
        Feed::Raw => line::parse_raw(&text).map(Event::Raw),
    });
    Some(match event {
        Ok(Ok(event)) => event,
        Ok(Err(e)) => Event::Bad(e),
        Err(why) => Event::Bad(LineError::Malformed(why)),
    })
}

/// What a [`Lines`] read.
#[derive(Debug, PartialEq, Eq)]
enum Chunk {
    /// A complete line, without its `\n`.
    Line(Vec<u8>),
    /// A line past the limit (the rest of it is skipped).
    TooLong,
    /// The end (a last piece without `\n` is dropped: never applied).
    Eof,
}

/// Complete lines of a pipe, each at most `limit` bytes.
struct Lines<R> {
    inner: BufReader<R>,
    /// The line read so far.
    buf: Vec<u8>,
    limit: usize,
    /// Inside a line past the limit: skip to its end.
    skipping: bool,
    /// Not yet at its end.
    open: bool,
}

impl<R: AsyncRead + Unpin> Lines<R> {
    fn new(inner: R, limit: usize) -> Self {
        Self {
            inner: BufReader::with_capacity(64 << 10, inner),
            buf: Vec::new(),
            limit,
            skipping: false,
            open: true,
        }
    }

    /// The next line. Cancel-safe: the only wait is for more bytes, and
    /// what was read before it is kept in `buf`.
    async fn next(&mut self) -> Chunk {
        loop {
            let data = match self.inner.fill_buf().await {
                Ok(data) => data,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => &[][..],
            };
            if data.is_empty() {
                self.open = false;
                self.buf = Vec::new();
                return Chunk::Eof;
            }
            let end = data.iter().position(|&b| b == b'\n');
            let take = end.unwrap_or(data.len());
            let fits = self.buf.len() + take <= self.limit;
            if !self.skipping && fits {
                self.buf.extend_from_slice(&data[..take]);
            }
            self.inner.consume(end.map_or(take, |e| e + 1));
            match (end.is_some(), std::mem::take(&mut self.skipping), fits) {
                // The end of a line skipped: go on with the next.
                (true, true, _) => {}
                (true, false, true) => return Chunk::Line(std::mem::take(&mut self.buf)),
                (true, false, false) => {
                    self.buf = Vec::new();
                    return Chunk::TooLong;
                }
                (false, skipping, fits) => {
                    self.skipping = skipping || !fits;
                    if !skipping && !fits {
                        self.buf = Vec::new();
                        return Chunk::TooLong;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
