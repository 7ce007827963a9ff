//! Taking the terminal and giving it back, on every exit, panics included;
//! and drawing one frame on it.
//!
//! The console takes the terminal in this order: raw mode and the
//! alternate screen (as `ratatui::init` does), bracketed paste, then mouse
//! capture when the config asks for it. It gives it back in reverse
//! ([`leave`]), on a normal exit and from its panic hook alike. The panic
//! hook is installed once, before the terminal is taken, as one chain;
//! see [`install_panic_chain`] for its order.

use std::io::{self, Write};
use std::panic;

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use crossterm::terminal::{
    BeginSynchronizedUpdate, EndSynchronizedUpdate, EnterAlternateScreen, enable_raw_mode,
};
use crossterm::{execute, queue};
use ratatui::DefaultTerminal;
use ratatui::backend::CrosstermBackend;

use crate::app::Model;
use crate::ui;
use loopdeck_core::guard;

/// Take the terminal for the console (`mouse`: capture the mouse too),
/// after installing the panic chain that gives it back.
///
/// A terminal that cannot be set up is a panic, reported through that
/// chain (which restores what was set), as `ratatui::init` did.
pub(super) fn enter(mouse: bool) -> DefaultTerminal {
    install_panic_chain(mouse);
    let terminal = match raw_alternate() {
        Ok(t) => t,
        Err(e) => panic!("failed to initialize terminal: {e:?}"),
    };
    // Pasted text arrives whole (one event), never as keys that could act.
    let _ = execute!(io::stdout(), EnableBracketedPaste);
    if mouse {
        let _ = execute!(io::stdout(), EnableMouseCapture);
    }
    terminal
}

/// Raw mode, the alternate screen, and a terminal drawing on stdout.
fn raw_alternate() -> io::Result<DefaultTerminal> {
    enable_raw_mode()?;
    execute!(io::stdout(), EnterAlternateScreen)?;
    ratatui::Terminal::new(CrosstermBackend::new(io::stdout()))
}

/// Give the terminal back as it was taken, in reverse: the mouse (when
/// captured), bracketed paste, then raw mode and the alternate screen.
pub(super) fn leave(mouse: bool) {
    if mouse {
        let _ = execute!(io::stdout(), DisableMouseCapture);
    }
    let _ = execute!(io::stdout(), DisableBracketedPaste);
    ratatui::restore();
}

/// The console's panic hook, one chain over the process's own (the quiet
/// hook `main` installs over color-eyre's report). In order, first match
/// wins:
///
/// 1. A panic inside `guard::caught` (one directory's reading) is kept
///    for the problem it becomes there; nothing is reported, the console
///    keeps running.
/// 2. A worker thread's panic (`guard::WORKER`) is caught and shown in
///    the console: it must not restore the terminal (leaving a screen that
///    echoes keys) nor print over the frame.
/// 3. Any other panic ends the console: the terminal is given back
///    ([`leave`]) and only then the previous hooks report the panic, on
///    the screen the user had.
fn install_panic_chain(mouse: bool) {
    let previous = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if guard::quiet(info) || guard::on_worker() {
            return;
        }
        leave(mouse);
        previous(info);
    }));
}

/// One frame, sent as one synchronized update; where a click lands on it.
pub(super) fn draw(
    terminal: &mut DefaultTerminal,
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
