//! The interactive loop. Input, the watcher and the loader all feed one
//! channel; the loop blocks on it, drains whatever else is pending, updates
//! the model, and draws only when something changed (input, a reload, a
//! resize; ages are refreshed once a minute). Each frame is wrapped in
//! synchronized-update escapes, so a terminal (or tmux, or SSH) gets it in
//! one piece. Reading projects happens on a loader thread, never in the way
//! of a key; the `watch` engine decides when: one read at a time, and a
//! change re-reads only the projects its paths belong to.

pub mod clipboard;
pub mod config;
mod decide;
pub mod hook;
pub mod notify;
pub mod suspend;

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, Instant};

use chrono::Utc;
use crossterm::event::{
    self, Event as TermEvent, KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEventKind,
};
use crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};
use crossterm::{execute, queue};

use crate::app::{self, Effect, Event, Model};
use crate::exit::{EXIT_OK, EXIT_USAGE};
use crate::model::text::sanitize_line;
use crate::options::Global;
use crate::watch::{self, Engine, Reading, Sink, Target, Update};
use crate::{formats, ui};

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

/// How long the input thread waits for a key before it looks whether the
/// console wants the terminal left alone (a pager is about to run).
const INPUT_POLL: Duration = Duration::from_millis(200);

/// When the next project's stall starts (see `Project::next_stall_at`),
/// as an instant of this process's clock.
fn next_stall(model: &Model) -> Option<Instant> {
    let now = Utc::now();
    let at = model
        .projects
        .iter()
        .filter_map(|p| p.next_stall_at(now, &model.stall))
        .min()?;
    Some(Instant::now() + (at - now).to_std().unwrap_or_default())
}

/// How often ages are refreshed while nothing else happens.
const CLOCK: Duration = Duration::from_secs(60);

/// After a reading breaks a project that read well, or loses it, show
/// the last good reading this long before believing the new one.
const SETTLE_BAD: Duration = Duration::from_secs(2);

/// The "since you looked" memory is written at most this often (and on quit).
const SAVE_SEEN_EVERY: Duration = Duration::from_secs(3);

/// Every decision of the audit log, newest first, as the console lists it.
fn read_audit() -> Result<Vec<crate::model::AuditEntry>, String> {
    use crate::store::audit;
    let dir = audit::default_dir().ok_or_else(|| audit::NO_DIR.to_owned())?;
    audit::history(&dir, |_| true)
        .map(|found| found.iter().map(|(r, s)| audit::entry(r, s)).collect())
        .map_err(|e| e.to_string())
}

/// What the memory saver is sent: every project's look, and "now" (what
/// no console holds and no one looked at lately is forgotten by then).
type Memory = (
    std::collections::BTreeMap<String, crate::model::seen::Seen>,
    chrono::DateTime<chrono::Utc>,
);

/// Writes the "since you looked" memory off the loop's thread, the
/// latest one when several wait. A failed write is said once in the
/// console (and after it closes, if the last one failed); the next write
/// tries again: the memory is a convenience, never a reason to stop.
struct SeenSaver {
    tx: Option<Sender<Memory>>,
    handle: Option<thread::JoinHandle<Option<String>>>,
}

impl SeenSaver {
    fn start(dir: Option<PathBuf>, say: Sender<Msg>) -> Self {
        let Some(dir) = dir else {
            return SeenSaver {
                tx: None,
                handle: None,
            };
        };
        let (tx, rx) = mpsc::channel::<Memory>();
        let handle = thread::Builder::new()
            .name("loopdeck-seen".to_owned())
            .spawn(move || {
                let mut said = false;
                let mut last = None;
                while let Ok(mut memory) = rx.recv() {
                    for newer in rx.try_iter() {
                        memory = newer;
                    }
                    let (projects, now) = &memory;
                    last = crate::store::seen::save(&dir, projects, *now)
                        .err()
                        .map(|e| crate::t!("runtime.seen.not_saved", dir = dir.display(), why = e));
                    if let Some(why) = &last
                        && !std::mem::replace(&mut said, true)
                    {
                        let _ = say.send(Msg::App(Event::Notice(why.clone())));
                    }
                }
                last
            })
            .ok();
        SeenSaver {
            tx: handle.as_ref().map(|_| tx),
            handle,
        }
    }

    fn save(&self, model: &mut Model) {
        model.seen.dirty = false;
        if let Some(tx) = &self.tx {
            let _ = tx.send((model.seen.projects.clone(), model.now));
        }
    }

    /// Write what is pending and wait for it; why the last write failed.
    fn finish(mut self) -> Option<String> {
        self.tx = None;
        self.handle.take().and_then(|h| h.join().ok().flatten())
    }
}

/// Run `job` on a worker thread; its event, or `Event::Failed` when it
/// panics, reaches the loop. A thread that cannot start is a failure too.
fn worker(tx: Sender<Msg>, what: &'static str, job: impl FnOnce() -> Event + Send + 'static) {
    watch::job_worker(
        move |m| tx.send(m).is_ok(),
        what,
        move || Msg::App(job()),
        |why| Msg::App(Event::Failed(why)),
    );
}

/// Run a decision (or an undo) on a worker thread; its answer, or its
/// failure, comes back as the `Event::Decided` the form waits for (a
/// decision whose thread died must not leave the form waiting).
fn decision_worker(
    tx: Sender<Msg>,
    seq: u64,
    job: impl FnOnce() -> app::decide::Decided + Send + 'static,
) {
    let lang = crate::i18n::current();
    watch::job_worker(
        move |m| tx.send(m).is_ok(),
        crate::t!("runtime.worker.deciding"),
        move || Msg::App(Event::Decided { seq, result: job() }),
        move |why| {
            // Said in the language of the loop that asked (the same as the
            // process's, but a test's thread may speak its own).
            let _lang = crate::i18n::scoped(lang);
            Msg::App(Event::Decided {
                seq,
                result: app::decide::Decided::Failed {
                    message: crate::t!("runtime.worker.died", why = why),
                    why: app::decide::Why::Refused,
                },
            })
        },
    );
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

/// Timeline events before `anchor`, read in the background.
fn read_older(path: PathBuf, anchor: crate::model::Event, want: usize, tx: Sender<Msg>) {
    worker(tx, crate::t!("runtime.worker.timeline"), move || {
        // The anchor is an event as the file holds it: compared as read.
        let got = formats::devloop::older::before(&path, |e| *e == anchor, want);
        match got {
            Ok(o) => Event::Older {
                path,
                anchor,
                events: o.events,
                at_start: o.at_start || o.lost,
            },
            // Unreadable now: stop asking; a reload reads the tail again.
            Err(_) => Event::Older {
                path,
                anchor,
                events: Vec::new(),
                at_start: true,
            },
        }
    });
}

/// Open the console on `roots` (none: the configured roots, else `.`).
pub fn run(global: &Global, roots: &[PathBuf]) -> color_eyre::Result<i32> {
    crate::config::speak(None);
    let cfg = match crate::config::load(global.config.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("loopdeck: {}", sanitize_line(&e.to_string()));
            return Ok(EXIT_USAGE);
        }
    };
    crate::config::speak(Some(&cfg));
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let mut theme = match config::theme(&cfg, no_color) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("loopdeck: {}", sanitize_line(&e.to_string()));
            return Ok(EXIT_USAGE);
        }
    };
    // A rule's colour the console cannot draw is refused at start.
    if let Err(e) = config::rule_colours(&cfg) {
        eprintln!("loopdeck: {}", sanitize_line(&e.to_string()));
        return Ok(EXIT_USAGE);
    }
    // `[keys]`: a mistake is refused at start, at its line.
    let keymap = match crate::app::keymap::build(&cfg.keys.0) {
        Ok(k) => k,
        Err(e) => {
            let e = crate::config::ConfigError::Parse {
                path: cfg.shown(),
                line: Some(e.line),
                column: Some(e.column),
                message: e.message,
            };
            eprintln!("loopdeck: {}", sanitize_line(&e.to_string()));
            return Ok(EXIT_USAGE);
        }
    };
    // A configured root that is gone is a problem of the run (shown with
    // the projects), not a reason to refuse the others.
    let roots = match crate::config::roots(roots, &cfg) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("loopdeck: {}", sanitize_line(&e.to_string()));
            return Ok(EXIT_USAGE);
        }
    };
    if !io::stdout().is_terminal() {
        eprintln!("loopdeck: {}", crate::t!("runtime.start.needs_terminal"));
        return Ok(EXIT_USAGE);
    }

    let notifier = notify::Notifier::new(
        &cfg.notify,
        global.readonly || cfg.readonly,
        notify::Notifier::in_tmux(),
    );
    let (tx, rx) = mpsc::channel::<Msg>();
    let mut engine = Engine::start(
        roots.clone(),
        Sink::new(tx.clone()),
        &crate::config::watch_options(&cfg),
    );
    let decider = decide::Decider {
        by: crate::who::login_name(),
        now: global.now,
        readonly: global.readonly || cfg.readonly,
        devloop_api: cfg.devloop.api.clone(),
        config_file: crate::config::shown_path(&cfg),
        audit_dir: crate::store::audit::default_dir(),
    };
    let input_tx = tx.clone();
    // The input thread reads only between checkpoints of the gate, so a
    // pager or an editor run from the console gets every key.
    let gate = std::sync::Arc::new(suspend::Gate::default());
    let input_gate = gate.clone();
    // Clicks only when the config asked for the mouse (a terminal sends
    // none without it; bytes that read as one are not the user's click).
    let clicks = cfg.mouse;
    thread::spawn(move || {
        loop {
            input_gate.checkpoint();
            match event::poll(INPUT_POLL) {
                Ok(true) => {}
                Ok(false) => continue,
                Err(_) => break,
            }
            let Ok(ev) = event::read() else {
                break;
            };
            // Read while a pager or an editor was starting: it was meant
            // for them, never for the console when it comes back.
            if input_gate.pausing() {
                continue;
            }
            let msg = match ev {
                TermEvent::Key(k) => Msg::App(Event::Key(k)),
                TermEvent::Resize(w, h) => Msg::App(Event::Size(w, h)),
                TermEvent::Paste(text) => Msg::App(Event::Paste(text)),
                TermEvent::Mouse(me) => match me.kind {
                    MouseEventKind::ScrollDown => {
                        Msg::App(Event::Key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE)))
                    }
                    MouseEventKind::ScrollUp => {
                        Msg::App(Event::Key(KeyEvent::new(KeyCode::Up, KeyModifiers::NONE)))
                    }
                    MouseEventKind::Down(MouseButton::Left) if clicks => {
                        Msg::Click(me.column, me.row)
                    }
                    _ => continue,
                },
                _ => continue,
            };
            if input_tx.send(msg).is_err() {
                break;
            }
        }
        input_gate.gone();
    });
    let sigint = suspend::Sigint::install();
    let tmux = notify::Notifier::in_tmux();

    let mut model = Model::new(
        roots
            .iter()
            .map(|r| r.to_string_lossy().into_owned())
            .collect(),
        global.readonly || cfg.readonly,
        global.now.unwrap_or_else(Utc::now),
    );
    // What the user last looked at, from the last run (a small file:
    // read before the first frame).
    let state_dir = crate::store::audit::default_dir();
    let (memory, warning) = state_dir
        .as_deref()
        .map(crate::store::seen::load)
        .unwrap_or_default();
    model.keymap = keymap;
    model.server = cfg.devloop.api.clone().filter(|a| !a.trim().is_empty());
    model.stall = cfg.stall.limits();
    model.config_file =
        crate::config::shown_path(&cfg).unwrap_or_else(|| "--config FILE".to_owned());
    // The palette offers the built-in themes; a theme file is kept until
    // one is picked.
    model.themes = ui::theme::BUILTIN.iter().map(|(name, _)| *name).collect();
    model.theme_in_force = match (&cfg.theme_file, &cfg.theme) {
        (Some(_), _) => None,
        (None, name) => Some(name.clone().unwrap_or_else(|| "default".to_owned())),
    };
    model.rules = crate::config::escalation_rules(&cfg.escalate);
    // The command runs when the terminal would be told (`when_readonly`).
    let hook = cfg
        .notify
        .command
        .clone()
        .filter(|_| !model.readonly || cfg.notify.when_readonly)
        .and_then(|argv| {
            let tx = tx.clone();
            hook::Hook::start(
                argv,
                cfg.notify.timeout.unwrap_or(crate::config::COMMAND_TIMEOUT),
                move |failure| {
                    let _ = tx.send(Msg::App(Event::Hook(failure)));
                },
            )
        });
    model.hook = hook.is_some();
    model.seen =
        crate::model::seen::Memory::new(std::env::current_dir().unwrap_or_default(), memory);
    model.status = warning;
    // Read-only writes nothing at all: what was looked at is read from
    // the last run, never saved (the header says so).
    // When each waiting item was first seen: an item whose files say no
    // time keeps its age across readings and runs (saved unless read-only).
    model.first_seen = state_dir
        .as_deref()
        .map(|d| crate::store::first_seen::load(d).0)
        .unwrap_or_default();
    let first_dir = state_dir.clone().filter(|_| !model.readonly);
    let mut first_failed = false;
    let saver = SeenSaver::start(state_dir.filter(|_| !model.readonly), tx.clone());
    // ratatui::init enters the alternate screen and raw mode, and installs a
    // panic hook that restores the terminal before the report is printed.
    let mut terminal = ratatui::init();
    // Pasted text arrives whole (one event), never as keys that could act.
    let _ = execute!(io::stdout(), crossterm::event::EnableBracketedPaste);
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = execute!(io::stdout(), crossterm::event::DisableBracketedPaste);
        previous(info);
    }));
    if cfg.mouse {
        let _ = execute!(io::stdout(), crossterm::event::EnableMouseCapture);
        // ratatui's hook restores raw mode and the screen; a panic must also
        // give the mouse back to the terminal.
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let _ = execute!(io::stdout(), crossterm::event::DisableMouseCapture);
            previous(info);
        }));
    }
    // A worker's panic is caught and shown in the console: it must not
    // restore the terminal (leaving a screen that echoes keys) nor print
    // over the frame. Any other thread's panic goes to the hooks above.
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !crate::guard::on_worker() {
            previous(info);
        }
    }));
    // Panics caught while reading one directory become problems there;
    // installed last, so it runs first and keeps them off the screen.
    crate::guard::quiet_hook();
    if let Ok(size) = terminal.size() {
        app::update(&mut model, Event::Size(size.width, size.height));
    }
    let result = (|| -> color_eyre::Result<()> {
        // Holds of a broken reading, due at these times (SETTLE_BAD).
        let mut settles: Vec<(Instant, u64)> = Vec::new();
        let mut dirty = true;
        let mut last_clock = Instant::now();
        // The memory's next write, and the last.
        let mut save_at: Option<Instant> = None;
        let mut last_save: Option<Instant> = None;
        // Where the last frame drew what a click lands on.
        let mut hits = ui::Hits::default();
        loop {
            if save_at.is_some_and(|at| at <= Instant::now()) {
                saver.save(&mut model);
                save_at = None;
                last_save = Some(Instant::now());
            }
            if dirty {
                if global.now.is_none() {
                    model.now = Utc::now();
                }
                hits = draw(&mut terminal, &mut model, &theme)?;
                dirty = false;
            }
            let clock = CLOCK.saturating_sub(last_clock.elapsed());
            // An `[[escalate]]` rule that starts firing by time alone: the
            // console wakes then (never under `--now`, whose clock stands).
            let escalate_at = global
                .now
                .is_none()
                .then(|| app::escalate::next_due(&model))
                .flatten()
                .map(|at| Instant::now() + (at - Utc::now()).to_std().unwrap_or_default());
            // A stall starts with no file written: drawn when it does, not
            // up to a clock tick later (none under `--now`: time stands).
            let stall_at = global.now.is_none().then(|| next_stall(&model)).flatten();
            let wait = engine
                .wake_at()
                .into_iter()
                .chain(settles.iter().map(|(at, _)| *at))
                .chain(save_at)
                .chain(escalate_at)
                .chain(stall_at)
                .min()
                .map_or(clock, |at| {
                    at.saturating_duration_since(Instant::now()).min(clock)
                });
            let first = match rx.recv_timeout(wait) {
                Ok(msg) => msg,
                Err(RecvTimeoutError::Timeout) => {
                    let now = Instant::now();
                    let due: Vec<u64> = settles
                        .iter()
                        .filter(|(at, _)| *at <= now)
                        .map(|(_, seq)| *seq)
                        .collect();
                    let mut woke = save_at.is_some_and(|at| at <= now);
                    if let Some(&seq) = due.iter().max() {
                        woke = true;
                        settles.retain(|(_, s)| *s > seq);
                        // And read those projects again: the file may have
                        // settled well.
                        let again: Vec<Target> = model
                            .held
                            .iter()
                            .filter(|(_, h)| {
                                matches!(h, app::Held::Rereading { seq: s, .. } if *s <= seq)
                            })
                            .map(|((path, _), _)| Target::Dir(path.clone()))
                            .collect();
                        app::update(&mut model, Event::Settle(seq));
                        dirty = true;
                        engine.reread(again, now);
                    }
                    if engine.wake_at().is_some_and(|at| at <= now) {
                        woke = true;
                        engine.tick(now);
                    }
                    if escalate_at.is_some_and(|at| at <= now) {
                        // Through the queue, so its effects run as any.
                        woke = true;
                        let _ = tx.send(Msg::App(Event::Clock(Utc::now())));
                    }
                    if !woke {
                        last_clock = Instant::now();
                        dirty = global.now.is_none();
                    }
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => return Ok(()),
            };
            let mut effects = Vec::new();
            // What the effects below answer, for the model after them.
            let mut follow: Vec<Event> = Vec::new();
            for msg in std::iter::once(first).chain(rx.try_iter()) {
                let now = Instant::now();
                match msg {
                    Msg::Feed(m) => {
                        if let Some(u) = engine.handle(m, now) {
                            effects.extend(app::update(&mut model, update_event(u)));
                        }
                    }
                    Msg::App(ev) => effects.extend(app::update(&mut model, ev)),
                    Msg::Click(column, row) => {
                        if let Some(target) = hits.at(column, row) {
                            effects.extend(app::update(&mut model, Event::Click(target)));
                        }
                    }
                }
            }
            for e in &effects {
                match e {
                    Effect::Quit => return Ok(()),
                    Effect::FullRedraw => terminal.clear()?,
                    Effect::Reload => engine.reload(Instant::now()),
                    Effect::Render => {}
                    // Built in and tested: it parses; were it not, the
                    // theme in force stays.
                    Effect::Theme(name) => {
                        if let Ok(t) = ui::Theme::builtin(name, no_color) {
                            theme = t;
                        }
                    }
                    // Between frames: the last one ended its synchronized
                    // update; the next starts after this.
                    Effect::Notify { title, body } => {
                        notifier.send(&mut io::stdout(), title, body)?;
                    }
                    Effect::ReadAudit => {
                        worker(tx.clone(), crate::t!("runtime.worker.audit"), move || {
                            Event::Audit(read_audit())
                        });
                    }
                    Effect::Hook(payload) => {
                        if let Some(h) = &hook {
                            h.run(payload.clone());
                        }
                    }
                    Effect::Copy(text) => clipboard::copy(&mut io::stdout(), text, tmux)?,
                    Effect::Open { dir, file, editor } => {
                        let said = open(
                            &gate,
                            &sigint,
                            cfg.mouse,
                            dir,
                            file,
                            *editor,
                            model.readonly,
                        )?;
                        terminal.clear()?;
                        if let Ok(size) = terminal.size() {
                            follow.push(Event::Size(size.width, size.height));
                        }
                        follow.extend(said.map(Event::Notice));
                    }
                    Effect::SettleAfter(seq) => settles.push((Instant::now() + SETTLE_BAD, *seq)),
                    Effect::Decide {
                        seq,
                        path,
                        format,
                        verb,
                        expect,
                        dry_run,
                    } => {
                        let (d, seq, path, format, verb, expect, dry_run) = (
                            decider.clone(),
                            *seq,
                            path.clone(),
                            *format,
                            verb.clone(),
                            expect.clone(),
                            *dry_run,
                        );
                        decision_worker(tx.clone(), seq, move || {
                            d.decide(path, format, verb, expect, dry_run)
                        });
                    }
                    Effect::Undo { seq, id, dry_run } => {
                        let (d, seq, id, dry_run) = (decider.clone(), *seq, id.clone(), *dry_run);
                        decision_worker(tx.clone(), seq, move || d.undo(id, dry_run));
                    }
                    // Only the project written is read again; the
                    // watcher's own events for the write join this read.
                    Effect::Reread(path) => {
                        engine.written(vec![Target::Dir(path.clone())], Instant::now());
                    }
                    // Small and rare (an item arrived or left): saved at
                    // once; a failure is said once, the ages still hold.
                    Effect::SaveFirstSeen => {
                        if let Some(dir) = &first_dir
                            && let Err(e) =
                                crate::store::first_seen::save(dir, &mut model.first_seen)
                            && !first_failed
                        {
                            first_failed = true;
                            model.status = Some(e.to_string());
                        }
                    }
                    Effect::SaveSeen => {
                        let now = Instant::now();
                        save_at.get_or_insert_with(|| {
                            last_save.map_or(now, |l| (l + SAVE_SEEN_EVERY).max(now))
                        });
                    }
                    Effect::ReadOlder { path, anchor, want } => {
                        read_older(path.clone(), anchor.clone(), *want, tx.clone());
                    }
                    Effect::CompareRevision { path, index, key } => {
                        if let Some(p) = model.projects.iter().find(|p| &p.path == path).cloned() {
                            let (index, key) = (*index, key.clone());
                            worker(tx.clone(), crate::t!("runtime.worker.compare"), move || {
                                let diff =
                                    formats::compare_revision(&p, index).unwrap_or_else(|| {
                                        crate::model::DocDiff {
                                            problem: Some(
                                                crate::t!("runtime.compare.none").to_owned(),
                                            ),
                                            ..Default::default()
                                        }
                                    });
                                Event::Compared {
                                    path: p.path.clone(),
                                    key,
                                    diff: Box::new(diff),
                                    files: p.files.clone(),
                                }
                            });
                        }
                    }
                    Effect::ReadExcerpts(path) => {
                        if let Some(p) = model.projects.iter().find(|p| &p.path == path).cloned() {
                            worker(
                                tx.clone(),
                                crate::t!("runtime.worker.excerpts"),
                                move || {
                                    Event::Excerpts(p.path.clone(), formats::excerpts(&p, 2, 8))
                                },
                            );
                        }
                    }
                }
            }
            dirty |= !effects.is_empty();
            for ev in follow {
                for e in app::update(&mut model, ev) {
                    if e == Effect::Quit {
                        return Ok(());
                    }
                }
                dirty = true;
            }
        }
    })();
    if cfg.mouse {
        let _ = execute!(io::stdout(), crossterm::event::DisableMouseCapture);
    }
    let _ = execute!(io::stdout(), crossterm::event::DisableBracketedPaste);
    ratatui::restore();
    // What was seen up to the quit (the quitting key included) is kept.
    if model.seen.dirty {
        saver.save(&mut model);
    }
    if let Some(why) = saver.finish() {
        eprintln!("loopdeck: {}", sanitize_line(&why));
    }
    result?;
    Ok(EXIT_OK)
}

/// `o` / `e`: open `file` of the project in `dir` in the pager or the
/// editor, if it is a file inside the project (links followed, by the
/// store's rules). What to say in the status line, if anything; `Err`: the
/// terminal could not be set up again.
fn open(
    gate: &suspend::Gate,
    sigint: &suspend::Sigint,
    mouse: bool,
    dir: &std::path::Path,
    file: &str,
    editor: bool,
    readonly: bool,
) -> io::Result<Option<String>> {
    let path = match openable(dir, file) {
        Ok(p) => p,
        Err(why) => return Ok(Some(why)),
    };
    let program = suspend::program(editor);
    let ran = suspend::suspended(gate, sigint, mouse, &program, &path, readonly)?;
    Ok(ran.err())
}

/// The real path of `file` in the project at `dir`, if it is a regular
/// file inside it (the store's rules: no `..` out, no absolute path, no
/// link leading out); else why not, to say in the status line.
fn openable(dir: &std::path::Path, file: &str) -> Result<PathBuf, String> {
    let shown = sanitize_line(file);
    let found = match crate::store::locate_file(dir, file) {
        Ok(Some(true)) => crate::store::contained(dir, file)
            .and_then(|p| std::fs::canonicalize(p).map_err(crate::store::StoreError::from)),
        Ok(Some(false)) => return Err(crate::t!("runtime.open.not_a_file", file = shown)),
        Ok(None) => return Err(crate::t!("runtime.open.missing", file = shown)),
        Err(e) => Err(e),
    };
    found.map_err(|e| crate::t!("runtime.open.failed", file = shown, why = e))
}

/// One frame, sent as one synchronized update; where a click lands on it.
fn draw(
    terminal: &mut ratatui::DefaultTerminal,
    model: &mut Model,
    theme: &ui::Theme,
) -> io::Result<ui::Hits> {
    let mut out = io::stdout();
    queue!(out, BeginSynchronizedUpdate)?;
    let mut hits = ui::Hits::default();
    terminal.draw(|f| {
        model.page = f.area().height.saturating_sub(6).max(1) as usize;
        hits = ui::render_hits(model, theme, f);
    })?;
    queue!(out, EndSynchronizedUpdate)?;
    out.flush()?;
    Ok(hits)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn a_panicking_worker_becomes_a_failed_event() {
        let (tx, rx) = mpsc::channel::<Msg>();
        worker(tx, "reading the projects", || {
            // What store::mtime did with a year-262143 mtime: chrono's
            // "No such local time" panic, in the loader.
            let at = chrono::DateTime::<Utc>::from_timestamp(i64::MAX, 0);
            Event::Loaded(vec![crate::model::Project::new(
                crate::model::Format::Gsd,
                PathBuf::from(at.expect("No such local time").to_rfc3339()),
                String::new(),
            )])
        });
        match rx.recv_timeout(Duration::from_secs(10)) {
            Ok(Msg::App(Event::Failed(why))) => {
                assert_eq!(why, "reading the projects: No such local time");
            }
            Ok(Msg::App(other)) => panic!("not a failure: {other:?}"),
            Ok(_) => panic!("not a failure"),
            Err(e) => panic!("the worker died silently: {e}"),
        }
    }

    /// The next `Event` the loop would get (skipping the engine's).
    fn next_event(rx: &mpsc::Receiver<Msg>) -> Event {
        loop {
            match rx.recv_timeout(Duration::from_secs(20)) {
                Ok(Msg::App(ev)) => return ev,
                Ok(Msg::Feed(_) | Msg::Click(..)) => continue,
                Err(e) => panic!("no event: {e}"),
            }
        }
    }

    /// Older timeline events are found before an anchor held as the file
    /// holds it (an escape in its summary included), and come back raw.
    #[test]
    fn older_events_are_found_before_a_raw_anchor() {
        let dir = tempfile::tempdir().unwrap();
        let line = |i: u32| {
            format!(
                "{{\"ts\":\"2026-06-01T10:0{i}:00Z\",\"source\":\"coder\",\"kind\":\"k\",\"summary\":\"s{i}\\u001b[31m\"}}\n"
            )
        };
        std::fs::write(
            dir.path().join("timeline.ndjson"),
            (0..4).map(line).collect::<String>(),
        )
        .unwrap();
        let anchor = crate::formats::devloop::timeline::event(line(3).trim().as_bytes()).unwrap();
        assert_eq!(anchor.summary, "s3\u{1b}[31m");
        let (tx, rx) = mpsc::channel::<Msg>();
        read_older(dir.path().to_path_buf(), anchor, 10, tx);
        match next_event(&rx) {
            Event::Older {
                events, at_start, ..
            } => {
                let got: Vec<&str> = events.iter().map(|e| e.summary.as_str()).collect();
                assert_eq!(got, ["s0\u{1b}[31m", "s1\u{1b}[31m", "s2\u{1b}[31m"]);
                assert!(at_start);
            }
            other => panic!("not older: {other:?}"),
        }
    }

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

    /// A decision whose thread dies answers the form it was asked for
    /// (with its number), so the form never waits in "writing…" for ever.
    #[test]
    fn a_panicking_decision_answers_its_form() {
        let (tx, rx) = mpsc::channel::<Msg>();
        decision_worker(tx, 7, || {
            let v: Vec<u8> = Vec::new();
            let i = v.len() + 3;
            app::decide::Decided::Failed {
                message: format!("{}", v[i]),
                why: app::decide::Why::Refused,
            }
        });
        match next_event(&rx) {
            Event::Decided {
                seq: 7,
                result: app::decide::Decided::Failed { message, why },
            } => {
                assert!(message.starts_with("deciding: "), "{message}");
                assert_eq!(why, app::decide::Why::Refused);
            }
            other => panic!("not the form's answer: {other:?}"),
        }
    }

    /// The "since you looked" memory that cannot be saved is said once in
    /// the console, and again after it closes: never silently lost.
    #[test]
    fn a_memory_that_cannot_be_saved_is_said() {
        let tmp = tempfile::tempdir().unwrap();
        // A file where the state directory should be: no directory can be made.
        let blocked = tmp.path().join("state");
        std::fs::write(&blocked, "not a directory").unwrap();
        let (tx, rx) = mpsc::channel::<Msg>();
        let saver = SeenSaver::start(Some(blocked.join("loopdeck")), tx);
        let mut model = Model::new(vec![], false, Utc::now());
        saver.save(&mut model);
        match next_event(&rx) {
            Event::Notice(why) => assert!(why.contains("could not be saved"), "{why}"),
            other => panic!("not said: {other:?}"),
        }
        saver.save(&mut model);
        let last = saver.finish();
        assert!(last.is_some_and(|w| w.contains("could not be saved")));
        // Said once, not at every save.
        assert!(
            rx.try_iter()
                .all(|m| !matches!(m, Msg::App(Event::Notice(_))))
        );
    }

    /// `o` opens only a regular file inside the project: a path out of it,
    /// absolute, or through a link that leads out is refused and said.
    #[cfg(unix)]
    #[test]
    fn only_a_file_inside_the_project_is_opened() {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("p");
        std::fs::create_dir_all(project.join("docs")).unwrap();
        std::fs::write(project.join("docs/a.md"), "a").unwrap();
        std::fs::write(tmp.path().join("secret"), "s").unwrap();
        std::os::unix::fs::symlink(tmp.path().join("secret"), project.join("out")).unwrap();
        std::os::unix::fs::symlink("docs/a.md", project.join("in")).unwrap();

        let real = std::fs::canonicalize(project.join("docs/a.md")).unwrap();
        assert_eq!(openable(&project, "docs/a.md"), Ok(real.clone()));
        assert_eq!(openable(&project, "in"), Ok(real));
        let secret = tmp.path().join("secret");
        for bad in ["../secret", "out", secret.to_str().unwrap()] {
            let why = openable(&project, bad).unwrap_err();
            assert!(why.contains("leaves the project directory"), "{bad}: {why}");
        }
        assert!(
            openable(&project, "docs")
                .unwrap_err()
                .contains("is not a file")
        );
        assert!(
            openable(&project, "gone.md")
                .unwrap_err()
                .contains("does not exist")
        );
        // A name from a file is shown safely.
        let why = openable(&project, "x\u{1b}[2J").unwrap_err();
        assert!(!why.contains('\u{1b}'), "{why:?}");
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
            openable(&project, "文档").unwrap_err(),
            openable(&project, "gone.md").unwrap_err(),
        );
        let failed_en = suspend::run("false", &project, false).unwrap_err();
        let _zh = scoped(Lang::ZhCn);
        let dir = openable(&project, "文档").unwrap_err();
        assert_eq!(dir, crate::t!("runtime.open.not_a_file", file = "文档"));
        assert!(dir.contains("文档") && dir != dir_en, "{dir}");
        let gone = openable(&project, "gone.md").unwrap_err();
        assert!(gone.contains("gone.md") && gone != gone_en, "{gone}");
        let failed = suspend::run("false", &project, false).unwrap_err();
        assert_eq!(
            failed,
            crate::t!("runtime.program.status", program = "false", code = 1)
        );
        assert_ne!(failed, failed_en);

        let (tx, rx) = mpsc::channel::<Msg>();
        decision_worker(tx, 3, || panic!("boom"));
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

    #[test]
    fn a_worker_that_succeeds_sends_its_event() {
        let (tx, rx) = mpsc::channel::<Msg>();
        worker(tx, "x", || Event::Resize);
        assert!(matches!(
            rx.recv_timeout(Duration::from_secs(10)),
            Ok(Msg::App(Event::Resize))
        ));
    }
}
