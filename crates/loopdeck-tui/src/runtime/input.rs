//! The input thread: the terminal's keys, pastes, resizes and clicks, as
//! messages to the loop. It reads only between checkpoints of the
//! suspend gate (`suspend::Gate`), so a pager or an editor run from the
//! console gets every key.

use std::sync::Arc;
use std::sync::mpsc::Sender;
use std::thread;
use std::time::Duration;

use crossterm::event::{
    self, Event as TermEvent, KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEventKind,
};

use super::Msg;
use super::suspend::Gate;
use crate::app::Event;

/// How long the input thread waits for a key before it looks whether the
/// console wants the terminal left alone (a pager is about to run).
const INPUT_POLL: Duration = Duration::from_millis(200);

/// Start reading the terminal for the loop at `tx`, between the checkpoints
/// of `gate`. `clicks`: the config asked for the mouse (a terminal sends
/// none without it; bytes that read as one are not the user's click). The
/// thread ends when the terminal cannot be read or the loop is gone.
pub(super) fn spawn(tx: Sender<Msg>, gate: Arc<Gate>, clicks: bool) {
    thread::spawn(move || {
        loop {
            gate.checkpoint();
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
            if gate.pausing() {
                continue;
            }
            let Some(msg) = message(ev, clicks) else {
                continue;
            };
            if tx.send(msg).is_err() {
                break;
            }
        }
        gate.gone();
    });
}

/// What the loop is told of a terminal event, if anything: the wheel
/// scrolls as the arrow keys do; a left click only with `clicks`.
fn message(ev: TermEvent, clicks: bool) -> Option<Msg> {
    Some(match ev {
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
            MouseEventKind::Down(MouseButton::Left) if clicks => Msg::Click(me.column, me.row),
            _ => return None,
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{MouseEvent, MouseEventKind};

    fn mouse(kind: MouseEventKind) -> TermEvent {
        TermEvent::Mouse(MouseEvent {
            kind,
            column: 3,
            row: 4,
            modifiers: KeyModifiers::NONE,
        })
    }

    /// The wheel is the arrow keys; a left click is a click only when the
    /// mouse was asked for; what the console has no use for is dropped.
    #[test]
    fn terminal_events_become_messages() {
        let key = |ev, clicks| match message(ev, clicks) {
            Some(Msg::App(Event::Key(k))) => Some(k.code),
            _ => None,
        };
        assert_eq!(
            key(mouse(MouseEventKind::ScrollDown), false),
            Some(KeyCode::Down)
        );
        assert_eq!(
            key(mouse(MouseEventKind::ScrollUp), false),
            Some(KeyCode::Up)
        );
        let left = || mouse(MouseEventKind::Down(MouseButton::Left));
        assert!(matches!(message(left(), true), Some(Msg::Click(3, 4))));
        assert!(message(left(), false).is_none());
        assert!(message(mouse(MouseEventKind::Down(MouseButton::Right)), true).is_none());
        assert!(message(TermEvent::FocusGained, true).is_none());
        assert!(matches!(
            message(TermEvent::Resize(80, 24), false),
            Some(Msg::App(Event::Size(80, 24)))
        ));
        assert!(matches!(
            message(TermEvent::Paste("x".into()), false),
            Some(Msg::App(Event::Paste(p))) if p == "x"
        ));
    }
}
