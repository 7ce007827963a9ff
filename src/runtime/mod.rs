//! The interactive loop. Input, the watcher and the loader all feed one
//! channel; the loop blocks on it, drains whatever else is pending, updates
//! the model, and draws only when something changed (input, a reload, a
//! resize; ages are refreshed once a minute). Each frame is wrapped in
//! synchronized-update escapes, so a terminal (or tmux, or SSH) gets it in
//! one piece. Reading projects happens on a loader thread, never in the way
//! of a key.

pub mod config;
mod watch;

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
use crate::model::sanitize_project;
use crate::model::text::sanitize_line;
use crate::options::Global;
use crate::{formats, ui};

/// What reaches the loop.
pub enum Msg {
    App(Event),
    /// Files under a root changed: read again.
    Changed,
}

/// How often ages are refreshed while nothing else happens.
const CLOCK: Duration = Duration::from_secs(60);
/// After a file changes, wait this long for the rest of a burst (a writer's
/// temp file, then its rename) before reading again.
const SETTLE: Duration = Duration::from_millis(30);

fn load(roots: Vec<PathBuf>, tx: Sender<Msg>) {
    thread::spawn(move || {
        let mut projects = formats::discover(&roots).projects;
        projects.iter_mut().for_each(sanitize_project);
        let _ = tx.send(Msg::App(Event::Loaded(projects)));
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
    load(roots.clone(), tx.clone());
    let _watcher = match watch::start(&roots, tx.clone()) {
        Some(w) => Some(w),
        None => {
            let _ = tx.send(Msg::App(Event::Polling));
            let poll_tx = tx.clone();
            thread::spawn(move || {
                while poll_tx.send(Msg::Changed).is_ok() {
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
                TermEvent::Resize(..) => Event::Resize,
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
    model.theme = theme;
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
    let result = (|| -> color_eyre::Result<()> {
        let mut loading = true;
        let mut pending = false;
        // When a change was seen and no read is running: read at this time.
        let mut reload_at: Option<Instant> = None;
        let mut dirty = true;
        let mut last_clock = Instant::now();
        loop {
            if dirty {
                if global.now.is_none() {
                    model.now = Utc::now();
                }
                draw(&mut terminal, &mut model)?;
                dirty = false;
            }
            let wait = match reload_at {
                Some(at) => at.saturating_duration_since(Instant::now()),
                None => CLOCK.saturating_sub(last_clock.elapsed()),
            };
            let first = match rx.recv_timeout(wait) {
                Ok(msg) => msg,
                Err(RecvTimeoutError::Timeout) => {
                    if reload_at.take().is_some() {
                        loading = true;
                        load(roots.clone(), tx.clone());
                    } else {
                        last_clock = Instant::now();
                        dirty = global.now.is_none();
                    }
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => return Ok(()),
            };
            let mut effects = Vec::new();
            for msg in std::iter::once(first).chain(rx.try_iter()) {
                match msg {
                    Msg::Changed if loading => pending = true,
                    Msg::Changed => {
                        reload_at.get_or_insert_with(|| Instant::now() + SETTLE);
                    }
                    Msg::App(ev) => {
                        if matches!(ev, Event::Loaded(_)) {
                            loading = false;
                        }
                        effects.extend(app::update(&mut model, ev));
                    }
                }
            }
            if !loading && pending {
                pending = false;
                loading = true;
                load(roots.clone(), tx.clone());
            }
            for e in &effects {
                match e {
                    Effect::Quit => return Ok(()),
                    Effect::FullRedraw => terminal.clear()?,
                    Effect::Reload if !loading => {
                        loading = true;
                        load(roots.clone(), tx.clone());
                    }
                    Effect::Reload => pending = true,
                    Effect::Render => {}
                    Effect::ReadExcerpts(path) => {
                        if let Some(p) = model.projects.iter().find(|p| &p.path == path).cloned() {
                            let tx = tx.clone();
                            thread::spawn(move || {
                                let mut ex = formats::excerpts(&p, 2, 8);
                                for e in &mut ex {
                                    e.file = sanitize_line(&e.file).into_owned();
                                    for l in &mut e.lines {
                                        *l = sanitize_line(l).into_owned();
                                    }
                                }
                                let _ = tx.send(Msg::App(Event::Excerpts(p.path.clone(), ex)));
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
fn draw(terminal: &mut ratatui::DefaultTerminal, model: &mut Model) -> io::Result<()> {
    let mut out = io::stdout();
    queue!(out, BeginSynchronizedUpdate)?;
    terminal.draw(|f| {
        model.page = f.area().height.saturating_sub(6).max(1) as usize;
        ui::render(model, f);
    })?;
    queue!(out, EndSynchronizedUpdate)?;
    out.flush()
}
