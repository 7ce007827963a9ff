//! The interactive loop: input and the loader feed one channel; the loop
//! blocks on it, drains whatever else is pending, updates the model, and
//! renders only when something changed. There is no fixed tick.

use std::path::PathBuf;
use std::sync::mpsc;
use std::thread;

use chrono::Utc;
use crossterm::event::{self, Event as TermEvent, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::app::{self, Action, Effect, Event, Model};
use crate::cli::{EXIT_OK, EXIT_USAGE, Global};
use crate::model::text::sanitize_line;
use crate::{formats, ui};

/// Keys → actions. Unknown keys do nothing.
pub fn action_for(key: KeyEvent) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    Some(match key.code {
        KeyCode::Char('c') if ctrl => Action::Quit,
        KeyCode::Char('l') if ctrl => Action::Redraw,
        KeyCode::Char('q') => Action::Quit,
        KeyCode::Char('j') | KeyCode::Down => Action::Down,
        KeyCode::Char('k') | KeyCode::Up => Action::Up,
        KeyCode::Char('g') | KeyCode::Home => Action::Top,
        KeyCode::Char('G') | KeyCode::End => Action::Bottom,
        KeyCode::PageUp => Action::PageUp,
        KeyCode::PageDown => Action::PageDown,
        _ => return None,
    })
}

/// Open the console on `roots` (default: the current directory).
pub fn run(global: &Global, roots: &[PathBuf]) -> color_eyre::Result<i32> {
    let roots: Vec<PathBuf> = if roots.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        roots.to_vec()
    };
    if let Some(bad) = roots.iter().find(|r| !r.is_dir()) {
        eprintln!(
            "loopdeck: {} is not a directory",
            sanitize_line(&bad.to_string_lossy())
        );
        return Ok(EXIT_USAGE);
    }
    let (tx, rx) = mpsc::channel::<Event>();
    let loader_tx = tx.clone();
    let load_roots = roots.clone();
    thread::spawn(move || {
        let _ = loader_tx.send(Event::Loaded(formats::discover(&load_roots)));
    });
    thread::spawn(move || {
        while let Ok(ev) = event::read() {
            let sent = match ev {
                TermEvent::Key(k) => match action_for(k) {
                    Some(a) => tx.send(Event::Action(a)),
                    None => Ok(()),
                },
                TermEvent::Resize(..) => tx.send(Event::Resize),
                _ => Ok(()),
            };
            if sent.is_err() {
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
    // ratatui::init installs a panic hook that restores the terminal first.
    let mut terminal = ratatui::init();
    let result = (|| -> color_eyre::Result<()> {
        terminal.draw(|f| ui::render(&model, f))?;
        while let Ok(first) = rx.recv() {
            let mut effects = app::update(&mut model, first);
            while let Ok(more) = rx.try_recv() {
                effects.extend(app::update(&mut model, more));
            }
            if effects.contains(&Effect::Quit) {
                return Ok(());
            }
            if effects.contains(&Effect::FullRedraw) {
                terminal.clear()?;
            }
            if !effects.is_empty() {
                if global.now.is_none() {
                    model.now = Utc::now();
                }
                terminal.draw(|f| {
                    model.page = f.area().height.saturating_sub(6).max(1) as usize;
                    ui::render(&model, f);
                })?;
            }
        }
        Ok(())
    })();
    ratatui::restore();
    result?;
    Ok(EXIT_OK)
}
