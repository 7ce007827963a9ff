//! The interactive loop. Input, the watcher and the loader all feed one
//! channel; the loop blocks on it, drains whatever else is pending, updates
//! the model, and draws only when something changed (input, a reload, a
//! resize; ages are refreshed once a minute). Each frame is wrapped in
//! synchronized-update escapes, so a terminal (or tmux, or SSH) gets it in
//! one piece. Reading projects happens on a loader thread, never in the way
//! of a key; the `watch` engine decides when: one read at a time, and a
//! change re-reads only the projects its paths belong to.
//!
//! The parts: [`config`] (the settings the console starts with),
//! `terminal` (taking the terminal and giving it back, the panic chain,
//! a frame), `input` (the input thread), `timers` (what wakes the loop
//! when no message does), `effects` (carrying out what `app::update`
//! asks for, slow work on `workers`) and `saver` (the "since you looked"
//! memory). [`run`] sets up, then runs `Console::turn` until the user
//! quits; each turn drains every message waiting, then draws.
//!
//! At start the last run's snapshot of these roots (the state
//! directory's `snapshot-<hex>.json`, `loopdeck_core::memory::snapshot`)
//! is drawn at once, each row marked refreshing; only once that first
//! frame is out are the last run's memories read and the engine started
//! (`Follow`), so the frame shares the cores with neither; after a full reading, and at most once a minute after that (and
//! at a clean exit when something changed), the snapshot is written again
//! on a thread of its own. Read-only writes none.

pub mod clipboard;
pub mod config;
mod decide;
mod effects;
mod fleet;
pub mod hook;
mod input;
mod memory;
pub mod notify;
mod saver;
pub mod suspend;
mod terminal;
mod timers;
mod workers;

use std::io;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Instant;

use chrono::Utc;
use ratatui::DefaultTerminal;

use crate::app::{self, Effect, Event, Model};
use crate::model::text::sanitize_line;
use crate::ui;
pub use config::Settings;
use effects::Tools;
use loopdeck_core::follow::{self as watch, Engine, Reading, Sink, Target, Update};
use saver::SeenSaver;
use timers::Timers;

/// What reaches the loop.
pub enum Msg {
    App(Event),
    /// A left click at (column, row): mapped through the last frame's
    /// [`ui::Hits`] into an `Event::Click`, or nothing.
    Click(u16, u16),
    /// From the engine that follows the projects on disk.
    Feed(watch::Msg),
}

impl From<watch::Msg> for Msg {
    fn from(m: watch::Msg) -> Self {
        Msg::Feed(m)
    }
}

/// The engine that follows the disk, started once the first frame is
/// drawn: that frame (the last run's snapshot, or "reading…") does not
/// share the cores with the first reading and the watches being set up.
pub(crate) struct Follow {
    engine: Option<Engine>,
    pending: Option<(Vec<std::path::PathBuf>, Sink, watch::Options)>,
}

impl Follow {
    fn new(roots: Vec<std::path::PathBuf>, sink: Sink, options: watch::Options) -> Self {
        Follow {
            engine: None,
            pending: Some((roots, sink, options)),
        }
    }

    /// Start following (the first full reading starts at once); once.
    fn start(&mut self) {
        if let Some((roots, sink, options)) = self.pending.take() {
            self.engine = Some(Engine::start(roots, sink, &options));
        }
    }

    fn wake_at(&self) -> Option<Instant> {
        self.engine.as_ref().and_then(Engine::wake_at)
    }

    fn tick(&mut self, now: Instant) {
        if let Some(e) = &mut self.engine {
            e.tick(now);
        }
    }

    fn reread(&mut self, targets: Vec<Target>, now: Instant) {
        if let Some(e) = &mut self.engine {
            e.reread(targets, now);
        }
    }

    pub(crate) fn written(&mut self, targets: Vec<Target>, now: Instant) {
        if let Some(e) = &mut self.engine {
            e.written(targets, now);
        }
    }

    /// Read everything now (before the start: the start does).
    pub(crate) fn reload(&mut self, now: Instant) {
        if let Some(e) = &mut self.engine {
            e.reload(now);
        }
    }

    /// Only a started engine sends what it hands back here.
    fn handle(&mut self, msg: watch::Msg, now: Instant) -> Option<Update> {
        self.engine.as_mut()?.handle(msg, now)
    }
}

/// Go on, or the user quit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    Go,
    Quit,
}

/// Run the console with `settings` until the user quits (stdout must be a
/// terminal: the caller checks). `Err`: the terminal failed.
pub fn run(settings: Settings) -> color_eyre::Result<()> {
    let mouse = settings.mouse;
    let mut console = Console::start(settings);
    let mut terminal = terminal::enter(mouse);
    if let Ok(size) = terminal.size() {
        app::update(&mut console.model, Event::Size(size.width, size.height));
    }
    let result = console.run(&mut terminal);
    terminal::leave(mouse);
    console.finish();
    result
}

/// The console while it runs: the model, the engine that follows the disk,
/// the timers, and what effects are carried out with.
struct Console {
    model: Model,
    engine: Follow,
    rx: Receiver<Msg>,
    timers: Timers,
    saver: SeenSaver,
    theme: ui::Theme,
    /// Where the last frame drew what a click lands on.
    hits: ui::Hits,
    /// Something changed since the last frame.
    dirty: bool,
    /// The next escalation and stall, as computed since the model last
    /// changed (`None`: to compute again). Each costs a look at every
    /// project; messages that change nothing (a watcher's events before
    /// the settle) come hundreds of times a second under churn.
    deadlines: Option<(Option<Instant>, Option<Instant>)>,
    tools: Tools,
    /// The other hosts' `ssh` children (`None`: no host).
    fleet: Option<loopdeck_core::fleet::Fleet>,
    /// Keeps the snapshot of the last reading in the state directory
    /// (the next start's first frame), on a thread of its own.
    snapshot: loopdeck_core::memory::snapshot::Writer,
    /// The state directory whose memories are still to be read, once
    /// the first frame is out (see `remember`).
    remember: Option<Option<std::path::PathBuf>>,
}

impl Console {
    /// Start following the roots and reading the terminal, and build the
    /// model from the settings and what the last run remembered.
    fn start(s: Settings) -> Self {
        let readonly = s.readonly;
        let notifier = notify::Notifier::new(&s.notify, readonly, notify::Notifier::in_tmux());
        let (tx, rx) = mpsc::channel::<Msg>();
        let engine = Follow::new(s.roots.clone(), Sink::new(tx.clone()), s.watch.clone());
        let fleet = fleet::start(&s.hosts, tx.clone());
        let decider = decide::Decider {
            by: loopdeck_core::who::login_name(),
            now: s.now,
            readonly,
            devloop_api: s.server.clone(),
            config_file: s.config_file.clone(),
            audit_dir: loopdeck_core::memory::state_dir(),
            hosts: s.hosts.clone(),
        };
        // The input thread reads only between checkpoints of the gate, so
        // a pager or an editor run from the console gets every key.
        let gate = Arc::new(suspend::Gate::default());
        input::spawn(tx.clone(), gate.clone(), s.mouse);
        let sigint = suspend::Sigint::install();
        let tmux = notify::Notifier::in_tmux();

        // What the user last looked at, and when each waiting item was
        // first seen, from the last run: read right after the first frame
        // (`remember`), which needs neither (it shows the last run's
        // snapshot, or nothing yet), and before any reading is taken in.
        let state_dir = loopdeck_core::memory::state_dir();
        let mut model = model(&s);
        // The last run's reading of these roots, drawn at once (each row
        // marked refreshing) while this run reads them; ignored on any
        // doubt (another version, other roots, a bad checksum...).
        if let Some(dir) = state_dir.as_deref()
            && !s.roots.is_empty()
            && let Ok(cached) = loopdeck_core::memory::snapshot::load(dir, &s.roots)
        {
            app::update(&mut model, Event::Cached(cached.into_projects()));
        }
        let hook = notify_command(&s.notify, model.readonly, &tx);
        model.hook = hook.is_some();
        // Read-only writes nothing at all: what was looked at is read from
        // the last run, never saved (the header says so).
        let first_dir = state_dir.clone().filter(|_| !model.readonly);
        let snapshot =
            loopdeck_core::memory::snapshot::Writer::new(first_dir.clone(), s.roots.clone());
        let saver = SeenSaver::start(state_dir.clone().filter(|_| !model.readonly), tx.clone());
        Console {
            model,
            engine,
            rx,
            timers: Timers::new(Instant::now(), s.now.is_none()),
            saver,
            theme: s.theme,
            hits: ui::Hits::default(),
            dirty: true,
            deadlines: None,
            tools: Tools {
                tx,
                notifier,
                hook,
                decider,
                gate,
                sigint,
                tmux,
                mouse: s.mouse,
                no_color: s.no_color,
                first_dir,
                first_failed: false,
            },
            fleet,
            snapshot,
            remember: Some(state_dir),
        }
    }

    /// Turn after turn until the user quits (or the terminal fails).
    fn run(&mut self, terminal: &mut DefaultTerminal) -> color_eyre::Result<()> {
        while self.turn(terminal)? == Flow::Go {}
        Ok(())
    }

    /// One turn of the loop: save the memory if due, draw if anything
    /// changed, then wait for a message (or a timer) and take every
    /// message waiting. `Err`: the terminal failed.
    fn turn(&mut self, terminal: &mut DefaultTerminal) -> color_eyre::Result<Flow> {
        if self.timers.take_save(Instant::now()) {
            self.saver.save(&mut self.model);
        }
        if self.dirty {
            if self.timers.runs() {
                self.model.now = Utc::now();
            }
            self.hits = terminal::draw(terminal, &mut self.model, &self.theme)?;
            self.dirty = false;
        }
        // The first frame is out: the last run's memories, then the
        // reading (each once).
        if let Some(dir) = self.remember.take() {
            remember(&mut self.model, dir.as_deref());
            self.dirty |= self.model.status.is_some();
        }
        self.engine.start();
        // After the frame: the snapshot of what the readings brought, at
        // most once a minute (taken here, written on its own thread).
        let now = Instant::now();
        if self.snapshot.due(now) {
            self.snapshot.write(&self.model.projects, now);
        }
        // No deadline at all (the clock stands, nothing else is due):
        // sleep until a message comes.
        let got = match self.wait() {
            Some(wait) => self.rx.recv_timeout(wait),
            None => self.rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
        };
        let first = match got {
            Ok(msg) => msg,
            Err(RecvTimeoutError::Timeout) => {
                self.on_timers();
                return Ok(Flow::Go);
            }
            Err(RecvTimeoutError::Disconnected) => return Ok(Flow::Quit),
        };
        Ok(self.drain(first, terminal)?)
    }

    /// How long to wait for a message: until the earliest deadline
    /// (`None`: there is none).
    fn wait(&mut self) -> Option<std::time::Duration> {
        let model = &self.model;
        let kept = self.deadlines;
        // An `[[escalate]]` rule that starts firing by time alone, and a
        // stall that starts with no file written: the console wakes then
        // (never under `--now`, whose clock stands).
        self.timers.watch(
            self.engine.wake_at(),
            || match kept {
                Some((escalate, _)) => escalate,
                None => app::escalate::next_due(model)
                    .map(|at| timers::instant_at(at, Utc::now(), Instant::now())),
            },
            || match kept {
                Some((_, stall)) => stall,
                None => next_stall(model),
            },
        );
        self.deadlines = Some(self.timers.deadlines());
        self.timers
            .next()
            .map(|(at, _)| at.saturating_duration_since(Instant::now()))
    }

    /// No message came before a deadline: do what is due. When nothing
    /// but the clock (or a stall) was, the clock ticks and ages are drawn
    /// again.
    fn on_timers(&mut self) {
        // A deadline passed: the next escalation or stall is a later one.
        self.deadlines = None;
        let now = Instant::now();
        let mut woke = self.timers.save_due(now);
        if let Some(seq) = self.timers.settled(now) {
            woke = true;
            self.settle(seq, now);
        }
        if self.engine.wake_at().is_some_and(|at| at <= now) {
            woke = true;
            self.engine.tick(now);
        }
        if self.timers.escalation_due(now) {
            // Through the queue, so its effects run as any.
            woke = true;
            let _ = self.tools.tx.send(Msg::App(Event::Clock(Utc::now())));
        }
        if !woke {
            self.timers.ticked(Instant::now());
            self.dirty = self.timers.runs();
        }
    }

    /// Holds up to `seq` of a broken reading end: believe the new
    /// reading, and read those projects again (the file may have settled
    /// well).
    fn settle(&mut self, seq: u64, now: Instant) {
        let again: Vec<Target> = self
            .model
            .held
            .iter()
            .filter(|(_, h)| matches!(h, app::Held::Rereading { seq: s, .. } if *s <= seq))
            // Another host's projects are read there, not here.
            .filter(|((host, _, _), _)| host.is_none())
            .map(|((_, path, _), _)| Target::Dir(path.clone()))
            .collect();
        app::update(&mut self.model, Event::Settle(seq));
        self.snapshot.read(false);
        self.dirty = true;
        self.deadlines = None;
        self.engine.reread(again, now);
    }

    /// `first` and every message already waiting, through `app::update`;
    /// then their effects, in order; then the events the effects answered
    /// at once (only a quit among their own effects counts).
    fn drain(&mut self, first: Msg, terminal: &mut DefaultTerminal) -> io::Result<Flow> {
        let mut effects = Vec::new();
        let mut next = Some(first);
        while let Some(msg) = next {
            effects.extend(self.take(msg));
            next = self.rx.try_recv().ok();
        }
        // What the effects below answer, for the model after them.
        let mut follow: Vec<Event> = Vec::new();
        for e in &effects {
            if self.effect(e, terminal, &mut follow)? == Flow::Quit {
                return Ok(Flow::Quit);
            }
        }
        self.dirty |= !effects.is_empty();
        for ev in follow {
            self.deadlines = None;
            if app::update(&mut self.model, ev).contains(&Effect::Quit) {
                return Ok(Flow::Quit);
            }
            self.dirty = true;
        }
        Ok(Flow::Go)
    }

    /// One message through `app::update`: what it asks for.
    fn take(&mut self, msg: Msg) -> Vec<Effect> {
        let event = match msg {
            Msg::Feed(m) => match self.engine.handle(m, Instant::now()) {
                Some(u) => {
                    let many = match &u {
                        Update::Reading(Reading::All(p)) => {
                            self.snapshot.read(true);
                            p.len()
                        }
                        Update::Reading(Reading::Part { projects, .. }) => {
                            self.snapshot.read(false);
                            projects.len()
                        }
                        _ => 0,
                    };
                    self.deadlines = None;
                    let effects = app::update(&mut self.model, update_event(u));
                    if many >= memory::MANY {
                        memory::release();
                    }
                    return effects;
                }
                None => return Vec::new(),
            },
            Msg::App(ev) => ev,
            Msg::Click(column, row) => match self.hits.at(column, row) {
                Some(target) => Event::Click(target),
                None => return Vec::new(),
            },
        };
        self.deadlines = None;
        app::update(&mut self.model, event)
    }

    /// The console closed: what was seen up to the quit (the quitting key
    /// included) is kept; a memory that could not be saved is said.
    fn finish(mut self) {
        // Every host's ssh ends with the console.
        if let Some(fleet) = self.fleet.take() {
            fleet.stop();
        }
        if self.model.seen.dirty {
            self.saver.save(&mut self.model);
        }
        if let Some(why) = self.saver.finish() {
            eprintln!("loopdeck: {}", sanitize_line(&why));
        }
        // What changed since the last snapshot, for the next start (best
        // effort: a snapshot that cannot be written is not worth a word).
        let _ = self.snapshot.finish(&self.model.projects);
    }
}

/// The model the console starts with: the settings in it.
fn model(s: &Settings) -> Model {
    let mut model = Model::new(
        s.roots
            .iter()
            .map(|r| r.to_string_lossy().into_owned())
            .collect(),
        s.readonly,
        s.now.unwrap_or_else(Utc::now),
    );
    model.keymap = s.keymap;
    model.hosts = s
        .hosts
        .iter()
        .map(|h| app::hosts::Host::new(h.name.clone(), h.destination.clone(), h.writable))
        .collect();
    model.server = s.server.clone().filter(|a| !a.trim().is_empty());
    model.stall = s.stall;
    model.config_file = s
        .config_file
        .clone()
        .unwrap_or_else(|| "--config FILE".to_owned());
    // The palette offers the built-in themes; a theme file is kept until
    // one is picked.
    model.themes = ui::theme::BUILTIN.iter().map(|(name, _)| *name).collect();
    model.theme_in_force = s.theme_in_force.clone();
    model.rules = s.rules.clone();
    model.seen = crate::model::seen::Memory::new(
        std::env::current_dir().unwrap_or_default(),
        Default::default(),
    );
    model
}

/// What the last run left in `state_dir`: what the user looked at, when
/// each waiting item was first seen (a memory that did not read is said
/// in the status). Before any reading is taken in: a reading compares
/// with them.
fn remember(model: &mut Model, state_dir: Option<&std::path::Path>) {
    let (memory, warning) = state_dir
        .map(loopdeck_core::memory::seen::load)
        .unwrap_or_default();
    model.seen =
        crate::model::seen::Memory::new(std::env::current_dir().unwrap_or_default(), memory);
    if warning.is_some() {
        model.status = warning;
    }
    // An item whose files say no time keeps its age across readings and
    // runs (saved unless read-only).
    model.first_seen = state_dir
        .map(|d| loopdeck_core::memory::first_seen::load(d).0)
        .unwrap_or_default();
}

/// The `[notify] command`, started, if there is one to run: it runs when
/// the terminal would be told (read-only, only with `when_readonly`). Its
/// failures reach the loop at `tx`.
fn notify_command(
    n: &notify::NotifySettings,
    readonly: bool,
    tx: &mpsc::Sender<Msg>,
) -> Option<hook::Hook> {
    let argv = n.command.clone().filter(|_| !readonly || n.when_readonly)?;
    let tx = tx.clone();
    hook::Hook::start(argv, n.timeout, move |failure| {
        let _ = tx.send(Msg::App(Event::Hook(failure)));
    })
}

/// When the next project's stall starts (see `Project::next_stall_at`),
/// as an instant of this process's clock.
fn next_stall(model: &Model) -> Option<Instant> {
    let now = Utc::now();
    let at = model
        .projects
        .iter()
        .filter_map(|p| p.next_stall_at(now, &model.stall))
        .min()?;
    Some(timers::instant_at(at, now, Instant::now()))
}

/// The app's event for what the engine hands over.
fn update_event(u: Update) -> Event {
    match u {
        Update::Reading(Reading::All(projects)) => Event::Loaded(projects),
        Update::Reading(Reading::Part {
            dirs,
            trees,
            projects,
        }) => Event::Reread {
            dirs,
            trees,
            projects,
        },
        Update::Reading(Reading::Failed(why)) => Event::Failed(why),
        Update::RootProblems(p) => Event::RootProblems(p),
        Update::Liveness(l) => Event::Liveness(l),
    }
}

/// The next `Event` the loop would get (skipping the engine's).
#[cfg(test)]
fn next_event(rx: &Receiver<Msg>) -> Event {
    loop {
        match rx.recv_timeout(std::time::Duration::from_secs(20)) {
            Ok(Msg::App(ev)) => return ev,
            Ok(Msg::Feed(_) | Msg::Click(..)) => continue,
            Err(e) => panic!("no event: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use loopdeck_core::read as formats;

    fn state(dir: &std::path::Path, name: &str) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(
            dir.join("state.json"),
            format!(
                r#"{{"workflow_version":"0.6","current_stage":"2","project_name":"{name}","last_updated_at_utc":"2026-06-01T11:59:00Z"}}"#
            ),
        )
        .unwrap();
    }

    /// Merging a partial read: the project read is updated, the others are
    /// left alone, a new one appears, and one missing from its directory is
    /// held, then gone, as after a full read.
    #[test]
    fn a_partial_read_updates_only_what_it_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let (a, b, c) = (root.join("a"), root.join("b"), root.join("c"));
        state(&a, "A");
        state(&b, "B");
        let all = formats::discover(std::slice::from_ref(&root)).projects;
        let mut model = Model::new(vec![root.to_string_lossy().into_owned()], true, Utc::now());
        app::update(&mut model, Event::Loaded(all));
        let names = |m: &Model| {
            let mut n: Vec<String> = m
                .projects
                .iter()
                .map(|p| format!("{}={}", p.id, p.name))
                .collect();
            n.sort();
            n
        };
        assert_eq!(names(&model), ["a=A", "b=B"]);

        // b changes on disk but is not read: it stays as it was.
        state(&a, "A2");
        state(&b, "B2");
        state(&c, "C");
        let fresh = [&a, &c]
            .iter()
            .flat_map(|d| formats::read_under(&root, d, false).projects)
            .collect();
        let effects = app::update(
            &mut model,
            Event::Reread {
                dirs: vec![a.clone(), c.clone()],
                trees: vec![],
                projects: fresh,
            },
        );
        assert!(!effects.iter().any(|e| matches!(e, Effect::SettleAfter(_))));
        assert_eq!(names(&model), ["a=A2", "b=B", "c=C"]);

        // a vanishes: held (shown as re-reading), then gone after the settle.
        let effects = app::update(
            &mut model,
            Event::Reread {
                dirs: vec![a.clone()],
                trees: vec![],
                projects: vec![],
            },
        );
        let seq = effects
            .iter()
            .find_map(|e| match e {
                Effect::SettleAfter(s) => Some(*s),
                _ => None,
            })
            .expect("a hold");
        assert_eq!(names(&model), ["a=A2", "b=B", "c=C"]);
        app::update(&mut model, Event::Settle(seq));
        let left: Vec<&str> = model
            .projects
            .iter()
            .filter(|p| model.freshness(p) == app::Freshness::Current)
            .map(|p| p.id.as_str())
            .collect();
        assert!(!left.contains(&"a"), "{left:?}");
        assert!(left.contains(&"b") && left.contains(&"c"), "{left:?}");
    }

    /// In Chinese, what the console says about a file it does not open, a
    /// program that failed, and a decision whose thread died is Chinese; the
    /// file's own name stays as it is.
    #[cfg(unix)]
    #[test]
    fn the_runtime_speaks_chinese() {
        use crate::i18n::{Lang, scoped};
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("p");
        std::fs::create_dir_all(project.join("文档")).unwrap();
        let (dir_en, gone_en) = (
            effects::openable(&project, "文档").unwrap_err(),
            effects::openable(&project, "gone.md").unwrap_err(),
        );
        let failed_en = suspend::run("false", &project, false).unwrap_err();
        let _zh = scoped(Lang::ZhCn);
        let dir = effects::openable(&project, "文档").unwrap_err();
        assert_eq!(dir, crate::t!("runtime.open.not_a_file", file = "文档"));
        assert!(dir.contains("文档") && dir != dir_en, "{dir}");
        let gone = effects::openable(&project, "gone.md").unwrap_err();
        assert!(gone.contains("gone.md") && gone != gone_en, "{gone}");
        let failed = suspend::run("false", &project, false).unwrap_err();
        assert_eq!(
            failed,
            crate::t!("runtime.program.status", program = "false", code = 1)
        );
        assert_ne!(failed, failed_en);

        let (tx, rx) = mpsc::channel::<Msg>();
        workers::decision_worker(tx, 3, || panic!("boom"));
        match next_event(&rx) {
            Event::Decided {
                result: app::decide::Decided::Failed { message, .. },
                ..
            } => {
                // Said in the language of the thread that asked.
                let deciding = crate::t!("runtime.worker.deciding");
                let whole = crate::t!("runtime.worker.died", why = format!("{deciding}: boom"));
                assert_eq!(message, whole);
                assert!(!message.contains("check the files"), "{message}");
            }
            other => panic!("not the form's answer: {other:?}"),
        }
    }
}
