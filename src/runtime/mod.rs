//! The interactive loop. Input, the watcher and the loader all feed one
//! channel; the loop blocks on it, drains whatever else is pending, updates
//! the model, and draws only when something changed (input, a reload, a
//! resize; ages are refreshed once a minute). Each frame is wrapped in
//! synchronized-update escapes, so a terminal (or tmux, or SSH) gets it in
//! one piece. Reading projects happens on a loader thread, never in the way
//! of a key; `schedule` decides when: one read at a time, and a change
//! re-reads only the projects its paths belong to.

pub mod config;
mod schedule;
mod watch;

use std::collections::BTreeSet;
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, Instant};

use chrono::Utc;
use crossterm::event::{self, Event as TermEvent, KeyCode, KeyEvent, KeyModifiers, MouseEventKind};
use crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};
use crossterm::{execute, queue};

use crate::app::{self, Effect, Event, Model};
use crate::exit::{EXIT_OK, EXIT_USAGE};
use crate::model::text::sanitize_line;
use crate::options::Global;
use crate::{formats, ui};
use schedule::{Action, Schedule, Target};

/// What reaches the loop.
pub enum Msg {
    App(Event),
    /// Files changed at these paths; none: anything may have changed
    /// (an overflow, a poll): read everything.
    Changed(Vec<PathBuf>),
    /// The read `id` (of the schedule) is done, with its event. `escalate`:
    /// a partial read met problems only a full read reports (a directory
    /// that cannot be listed): read everything.
    Read {
        id: u64,
        event: Event,
        escalate: bool,
    },
}

/// How often ages are refreshed while nothing else happens.
const CLOCK: Duration = Duration::from_secs(60);
/// After a file changes, wait this long for the rest of a burst (a writer's
/// temp file, then its rename) before reading again.
const SETTLE: Duration = Duration::from_millis(30);

/// After a reading breaks a project that read well, or loses it, show
/// the last good reading this long before believing the new one.
const SETTLE_BAD: Duration = Duration::from_secs(2);

/// Worker threads are named so: their panics are reported in the console
/// (as `Event::Failed`), not by the terminal-restoring panic hook.
const WORKER: &str = "loopdeck-worker";

/// Run `f` and give its answer, or the panic's message (which no caller
/// ever sees as a dead thread). The message is drawn safe by the view.
fn guarded<T>(what: &str, f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        let why = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_owned());
        format!("{what}: {why}")
    })
}

/// Run `job` on a worker thread; its event, or `Event::Failed` when it
/// panics, reaches the loop. A thread that cannot start is a failure too.
fn worker(tx: Sender<Msg>, what: &'static str, job: impl FnOnce() -> Event + Send + 'static) {
    job_worker(
        tx,
        what,
        move || Msg::App(job()),
        |why| Msg::App(Event::Failed(why)),
    );
}

/// Run `job` on a worker thread and send its message; when it panics, or
/// the thread cannot start, send `failed(why)`.
fn job_worker(
    tx: Sender<Msg>,
    what: &'static str,
    job: impl FnOnce() -> Msg + Send + 'static,
    failed: impl Fn(String) -> Msg + Clone + Send + 'static,
) {
    let fail = tx.clone();
    let failed_here = failed.clone();
    let spawned = thread::Builder::new()
        .name(WORKER.to_owned())
        .spawn(move || {
            let msg = guarded(what, job).unwrap_or_else(failed);
            let _ = tx.send(msg);
        });
    if let Err(e) = spawned {
        let _ = fail.send(failed_here(format!("{what}: {e}")));
    }
}

/// The answer of read `id` that failed.
fn read_failed(id: u64) -> impl Fn(String) -> Msg + Clone + Send + 'static {
    move |why| Msg::Read {
        id,
        event: Event::Failed(why),
        escalate: false,
    }
}

/// Read every project in the background (read `id` of the schedule).
/// Strings stay as the files hold them (a decision made from them writes
/// them back unchanged); the view makes them safe when it draws them.
fn load(roots: Vec<PathBuf>, tx: Sender<Msg>, id: u64) {
    let problems_tx = tx.clone();
    job_worker(
        tx,
        "reading the projects",
        move || {
            let found = formats::discover(&roots);
            let problems = found.problems.iter().map(ToString::to_string).collect();
            let _ = problems_tx.send(Msg::App(Event::RootProblems(problems)));
            Msg::Read {
                id,
                event: Event::Loaded(found.projects),
                escalate: false,
            }
        },
        read_failed(id),
    );
}

/// Read only `targets` in the background (read `id` of the schedule): the
/// project(s) of a directory, or every project under one; ids relative to
/// the first root holding each.
fn read_some(roots: Vec<PathBuf>, targets: Vec<Target>, tx: Sender<Msg>, id: u64) {
    job_worker(
        tx,
        "reading the projects",
        move || {
            let mut dirs = Vec::new();
            let mut trees = Vec::new();
            let mut projects = Vec::new();
            let mut escalate = false;
            for t in targets {
                let (dir, tree) = match t {
                    Target::Dir(d) => (d, false),
                    Target::Tree(d) => (d, true),
                };
                let root = roots
                    .iter()
                    .find(|r| dir.starts_with(r))
                    .unwrap_or(&dir)
                    .clone();
                let found = formats::read_under(&root, &dir, tree);
                escalate |= !found.problems.is_empty();
                projects.extend(found.projects);
                if tree {
                    trees.push(dir);
                } else {
                    dirs.push(dir);
                }
            }
            Msg::Read {
                id,
                event: Event::Reread {
                    dirs,
                    trees,
                    projects,
                },
                escalate,
            }
        },
        read_failed(id),
    );
}

/// Start what the schedule asks for.
fn perform(actions: Vec<Action>, roots: &[PathBuf], tx: &Sender<Msg>, wake: &mut Option<Instant>) {
    for a in actions {
        match a {
            Action::ReadAll { id } => load(roots.to_vec(), tx.clone(), id),
            Action::ReadSome { id, targets } => read_some(roots.to_vec(), targets, tx.clone(), id),
            Action::WakeAt(at) => *wake = Some(at),
        }
    }
}

/// Each root as the watcher spells it (notify makes a relative root
/// absolute), with the root as given (as the projects' paths spell it).
fn spellings(roots: &[PathBuf]) -> Vec<(PathBuf, PathBuf)> {
    let cwd = std::env::current_dir().unwrap_or_default();
    roots
        .iter()
        .map(|r| {
            let abs = if r.is_absolute() {
                r.clone()
            } else {
                cwd.join(r)
            };
            (abs, r.clone())
        })
        .collect()
}

/// What changed `paths` ask the schedule to read (`None`: everything).
/// `spelled` is `spellings(roots)`.
fn targets(
    paths: &[PathBuf],
    spelled: &[(PathBuf, PathBuf)],
    roots: &[PathBuf],
    known: &BTreeSet<PathBuf>,
) -> Option<Vec<Target>> {
    let mut out = Vec::new();
    if paths.is_empty() {
        return None;
    }
    for p in paths {
        // A path under a root is spelled as the root is.
        let p = spelled
            .iter()
            .find_map(|(abs, root)| p.strip_prefix(abs).ok().map(|rel| root.join(rel)))
            .unwrap_or_else(|| p.clone());
        out.extend(schedule::targets_of(&p, roots, known, formats::own_dirs())?);
    }
    Some(out)
}

/// Timeline events before `anchor`, read in the background.
fn read_older(path: PathBuf, anchor: crate::model::Event, want: usize, tx: Sender<Msg>) {
    worker(tx, "reading the timeline", move || {
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
    let cfg = match crate::config::load(global.config.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("loopdeck: {}", sanitize_line(&e.to_string()));
            return Ok(EXIT_USAGE);
        }
    };
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let theme = match config::theme(&cfg, no_color) {
        Ok(t) => t,
        Err(e) => {
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
        eprintln!(
            "loopdeck: the console needs a terminal; for scripts use `loopdeck list` or `loopdeck inbox`"
        );
        return Ok(EXIT_USAGE);
    }

    let (tx, rx) = mpsc::channel::<Msg>();
    let mut sched = Schedule::new(SETTLE);
    let spelled = spellings(&roots);
    // When the schedule wants `tick` next.
    let mut wake: Option<Instant> = None;
    perform(sched.full_reload(Instant::now()), &roots, &tx, &mut wake);
    let _watcher = match watch::start(&roots, tx.clone()) {
        Some(w) => Some(w),
        None => {
            let _ = tx.send(Msg::App(Event::Polling));
            let poll_tx = tx.clone();
            thread::spawn(move || {
                while poll_tx.send(Msg::Changed(Vec::new())).is_ok() {
                    thread::sleep(watch::POLL_EVERY);
                }
            });
            None
        }
    };
    let input_tx = tx.clone();
    thread::spawn(move || {
        while let Ok(ev) = event::read() {
            let msg = match ev {
                TermEvent::Key(k) => Event::Key(k),
                TermEvent::Resize(w, h) => Event::Size(w, h),
                TermEvent::Mouse(me) => match me.kind {
                    MouseEventKind::ScrollDown => {
                        Event::Key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE))
                    }
                    MouseEventKind::ScrollUp => {
                        Event::Key(KeyEvent::new(KeyCode::Up, KeyModifiers::NONE))
                    }
                    _ => continue,
                },
                _ => continue,
            };
            if input_tx.send(Msg::App(msg)).is_err() {
                break;
            }
        }
    });

    let mut model = Model::new(
        roots
            .iter()
            .map(|r| r.to_string_lossy().into_owned())
            .collect(),
        global.readonly,
        global.now.unwrap_or_else(Utc::now),
    );
    // ratatui::init enters the alternate screen and raw mode, and installs a
    // panic hook that restores the terminal before the report is printed.
    let mut terminal = ratatui::init();
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
        if thread::current().name() != Some(WORKER) {
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
        // The directories of the projects shown, for mapping changed paths
        // to projects; built again after a reading.
        let mut known: Option<BTreeSet<PathBuf>> = None;
        let mut dirty = true;
        let mut last_clock = Instant::now();
        loop {
            if dirty {
                if global.now.is_none() {
                    model.now = Utc::now();
                }
                draw(&mut terminal, &mut model, &theme)?;
                dirty = false;
            }
            let clock = CLOCK.saturating_sub(last_clock.elapsed());
            let wait = wake
                .into_iter()
                .chain(settles.iter().map(|(at, _)| *at))
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
                    let mut woke = false;
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
                        known = None;
                        dirty = true;
                        perform(sched.changed(again, now), &roots, &tx, &mut wake);
                    }
                    if wake.is_some_and(|at| at <= now) {
                        woke = true;
                        wake = None;
                        perform(sched.tick(now), &roots, &tx, &mut wake);
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
            for msg in std::iter::once(first).chain(rx.try_iter()) {
                let now = Instant::now();
                match msg {
                    Msg::Changed(paths) => {
                        let known = known.get_or_insert_with(|| {
                            model.projects.iter().map(|p| p.path.clone()).collect()
                        });
                        let actions = match targets(&paths, &spelled, &roots, known) {
                            Some(t) => sched.changed(t, now),
                            None => sched.changed_all(now),
                        };
                        perform(actions, &roots, &tx, &mut wake);
                    }
                    Msg::Read {
                        id,
                        event,
                        escalate,
                    } => {
                        effects.extend(app::update(&mut model, event));
                        known = None;
                        if escalate {
                            perform(sched.full_reload(now), &roots, &tx, &mut wake);
                        }
                        perform(sched.read_done(id, now), &roots, &tx, &mut wake);
                    }
                    Msg::App(ev) => effects.extend(app::update(&mut model, ev)),
                }
            }
            for e in &effects {
                match e {
                    Effect::Quit => return Ok(()),
                    Effect::FullRedraw => terminal.clear()?,
                    Effect::Reload => {
                        perform(sched.full_reload(Instant::now()), &roots, &tx, &mut wake);
                    }
                    Effect::Render => {}
                    Effect::SettleAfter(seq) => settles.push((Instant::now() + SETTLE_BAD, *seq)),
                    Effect::ReadOlder { path, anchor, want } => {
                        read_older(path.clone(), anchor.clone(), *want, tx.clone());
                    }
                    Effect::ReadExcerpts(path) => {
                        if let Some(p) = model.projects.iter().find(|p| &p.path == path).cloned() {
                            worker(tx.clone(), "reading excerpts", move || {
                                Event::Excerpts(p.path.clone(), formats::excerpts(&p, 2, 8))
                            });
                        }
                    }
                }
            }
            dirty |= !effects.is_empty();
        }
    })();
    if cfg.mouse {
        let _ = execute!(io::stdout(), crossterm::event::DisableMouseCapture);
    }
    ratatui::restore();
    result?;
    Ok(EXIT_OK)
}

/// One frame, sent as one synchronized update.
fn draw(
    terminal: &mut ratatui::DefaultTerminal,
    model: &mut Model,
    theme: &ui::Theme,
) -> io::Result<()> {
    let mut out = io::stdout();
    queue!(out, BeginSynchronizedUpdate)?;
    terminal.draw(|f| {
        model.page = f.area().height.saturating_sub(6).max(1) as usize;
        ui::render(model, theme, f);
    })?;
    queue!(out, EndSynchronizedUpdate)?;
    out.flush()
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

    /// The next `Event` the loop would get (skipping root problems).
    fn next_event(rx: &mpsc::Receiver<Msg>) -> Event {
        loop {
            match rx.recv_timeout(Duration::from_secs(20)) {
                Ok(Msg::App(Event::RootProblems(_))) => continue,
                Ok(Msg::App(ev) | Msg::Read { event: ev, .. }) => return ev,
                Ok(Msg::Changed(_)) => continue,
                Err(e) => panic!("no event: {e}"),
            }
        }
    }

    /// The console's load keeps strings as the file holds them: a decision
    /// made from them would write them back unchanged (the view makes
    /// them safe when it draws them).
    #[test]
    fn a_console_load_keeps_the_escape_in_the_model() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("state.json"),
            r#"{"workflow_version":"0.6","current_stage":"2","project_name":"osc\u001b]2;T\u0007name","last_updated_at_utc":"2026-06-01T11:59:00Z"}"#,
        )
        .unwrap();
        let (tx, rx) = mpsc::channel::<Msg>();
        load(vec![dir.path().to_path_buf()], tx, 1);
        match next_event(&rx) {
            Event::Loaded(projects) => {
                assert_eq!(projects.len(), 1);
                assert_eq!(projects[0].name, "osc\u{1b}]2;T\u{7}name");
                assert_eq!(projects[0].files[0].file, "state.json");
            }
            other => panic!("not loaded: {other:?}"),
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

    fn reread(
        rx: &mpsc::Receiver<Msg>,
    ) -> (Vec<PathBuf>, Vec<PathBuf>, Vec<crate::model::Project>) {
        match rx.recv_timeout(Duration::from_secs(20)) {
            Ok(Msg::Read {
                event:
                    Event::Reread {
                        dirs,
                        trees,
                        projects,
                    },
                escalate: false,
                ..
            }) => (dirs, trees, projects),
            Ok(Msg::Read {
                event, escalate, ..
            }) => panic!("not a reread: {event:?} {escalate}"),
            Ok(_) => panic!("not a read"),
            Err(e) => panic!("no read: {e}"),
        }
    }

    /// With the watcher on a root of two projects, editing one asks to read
    /// that one again, never the other, and never everything.
    #[test]
    fn editing_one_project_asks_to_read_only_that_one() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let (a, b) = (root.join("a"), root.join("b"));
        state(&a, "A");
        state(&b, "B");
        let (tx, rx) = mpsc::channel::<Msg>();
        let _w = watch::start(std::slice::from_ref(&root), tx).expect("a watcher");
        let known: BTreeSet<PathBuf> = [a.clone(), b.clone()].into_iter().collect();
        state(&a, "A2");
        let mut asked: BTreeSet<Target> = BTreeSet::new();
        let until = Instant::now() + Duration::from_millis(500);
        while let Ok(msg) = rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
            if let Msg::Changed(paths) = msg {
                let roots = std::slice::from_ref(&root);
                let t = targets(&paths, &spellings(roots), roots, &known)
                    .unwrap_or_else(|| panic!("everything asked for: {paths:?}"));
                asked.extend(t);
            }
        }
        assert!(asked.contains(&Target::Dir(a.clone())), "{asked:?}");
        assert!(
            asked
                .iter()
                .all(|t| matches!(t, Target::Dir(d) | Target::Tree(d) if d.starts_with(&a))),
            "{asked:?}"
        );
    }

    /// notify reports absolute paths under a relative root: they are
    /// spelled as the root is, so they find their project.
    #[test]
    fn a_relative_root_finds_its_projects() {
        let roots = [PathBuf::from(".")];
        let known: BTreeSet<PathBuf> = [PathBuf::from("./a")].into_iter().collect();
        let cwd = std::env::current_dir().unwrap();
        let changed = [cwd.join(".").join("a").join("state.json")];
        let t = targets(&changed, &spellings(&roots), &roots, &known).expect("not everything");
        assert!(t.contains(&Target::Dir(PathBuf::from("./a"))), "{t:?}");
    }

    /// A partial read reads only its targets, with ids relative to the
    /// root; a vanished directory gives nothing; a tree finds a new project.
    #[test]
    fn a_partial_read_reads_only_its_targets() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let (a, b) = (root.join("g").join("a"), root.join("b"));
        state(&a, "A");
        state(&b, "B");
        let (tx, rx) = mpsc::channel::<Msg>();
        read_some(
            vec![root.clone()],
            vec![Target::Dir(a.clone())],
            tx.clone(),
            3,
        );
        let (dirs, trees, projects) = reread(&rx);
        assert_eq!((dirs, trees), (vec![a.clone()], vec![]));
        let got: Vec<(&str, &str)> = projects
            .iter()
            .map(|p| (p.id.as_str(), p.name.as_str()))
            .collect();
        assert_eq!(got, [("g/a", "A")]);

        std::fs::remove_dir_all(&b).unwrap();
        state(&root.join("g").join("new"), "N");
        read_some(
            vec![root.clone()],
            vec![Target::Dir(b.clone()), Target::Tree(root.join("g"))],
            tx,
            4,
        );
        let (dirs, trees, projects) = reread(&rx);
        assert_eq!((dirs, trees), (vec![b], vec![root.join("g")]));
        let mut got: Vec<&str> = projects.iter().map(|p| p.id.as_str()).collect();
        got.sort_unstable();
        assert_eq!(got, ["g/a", "g/new"]);
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
