//! The input thread: the terminal's keys, pastes, resizes and clicks, as
//! messages to the loop. It reads only between checkpoints of the
//! suspend gate (`suspend::Gate`), so a pager or an editor run from the
//! console gets every key.
//!
//! Idle, the thread sleeps: it blocks in `poll(2)` on the terminal and on
//! the gate's bell, with no timeout, so a console where nothing happens
//! never wakes it (it used to poll crossterm every 200 ms only to look at
//! the gate: five wake-ups a second). Three things wake it:
//!
//! - input on the terminal: crossterm reads and parses it;
//! - the bell, rung by `Gate::pause` (the console is about to hand the
//!   terminal to `$PAGER` or `$EDITOR`: the thread goes to its checkpoint
//!   at once, and reads nothing until the resume);
//! - the bell, rung on SIGWINCH: crossterm's own SIGWINCH handler has
//!   queued the resize by then (see `read`), and it arrives as a
//!   `Resize` at the next drain.
//!
//! After every wake the thread drains crossterm (`poll(ZERO)` and `read`
//! until `poll` says no) before it sleeps again: crossterm parses a read's
//! bytes into several events and keeps them, and the terminal's fd is no
//! longer readable then, so a sleep with one of them kept would lose it.

use std::io::IsTerminal;
use std::os::fd::{AsFd, BorrowedFd};
use std::sync::Arc;
use std::sync::mpsc::Sender;
use std::thread;
use std::time::Duration;

use crossterm::event::{
    self, Event as TermEvent, KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEventKind,
};
use rustix::event::{PollFd, PollFlags, Timespec};

use super::Msg;
use super::suspend::Gate;
use crate::app::Event;

/// Without a way to sleep until something happens (no bell, no terminal
/// fd to poll), or while the terminal holds input crossterm does not take
/// (see `read`): look this often, as the thread always used to.
const FALLBACK_POLL: Duration = Duration::from_millis(200);

/// Start reading the terminal for the loop at `tx`, between the checkpoints
/// of `gate`. `clicks`: the config asked for the mouse (a terminal sends
/// none without it; bytes that read as one are not the user's click). The
/// thread ends when the terminal cannot be read or the loop is gone.
pub(super) fn spawn(tx: Sender<Msg>, gate: Arc<Gate>, clicks: bool) {
    thread::spawn(move || {
        read(&tx, &gate, clicks);
        gate.gone();
    });
}

/// The input thread's life: drain, sleep until woken, again.
fn read(tx: &Sender<Msg>, gate: &Gate, clicks: bool) {
    gate.checkpoint();
    // crossterm makes its event source, and with it its own SIGWINCH
    // handler, at its first poll. Ours is registered after it: signal-hook
    // runs a signal's handlers in the order they were registered, so when
    // ours rings the bell crossterm has already noted the resize, and the
    // drain after the wake finds it.
    if event::poll(Duration::ZERO).is_err() {
        return;
    }
    let resize = gate.ring_on(signal_hook::consts::SIGWINCH);
    let tty = Tty::open();
    let mut woke = Woke::Other;
    loop {
        gate.checkpoint();
        let Some(took) = drain(tx, gate, clicks) else {
            break;
        };
        // The terminal woke the thread and crossterm took nothing: bytes it
        // leaves in the terminal (its reads are edge-triggered; a burst of
        // over 1 KiB of keys can leave some for its next edge). Polling the
        // terminal again would return at once, over and over: until
        // crossterm takes something, look on a timer instead.
        let stuck = woke == Woke::Tty && !took;
        woke = wait(tty.as_ref().map(AsFd::as_fd), gate.bell(), stuck);
        if woke == Woke::Gone {
            break;
        }
        gate.hush();
    }
    if let Some(id) = resize {
        signal_hook::low_level::unregister(id);
    }
}

/// Every event crossterm holds or can read now, to the loop, stopping at
/// a pause. `Some(took)`: crossterm gave something; `None`: the terminal
/// cannot be read or the loop is gone.
fn drain(tx: &Sender<Msg>, gate: &Gate, clicks: bool) -> Option<bool> {
    let mut took = false;
    while !gate.pausing() {
        if !event::poll(Duration::ZERO).ok()? {
            break;
        }
        let ev = event::read().ok()?;
        took = true;
        // Read while a pager or an editor was starting: it was meant
        // for them, never for the console when it comes back.
        if gate.pausing() {
            break;
        }
        if let Some(msg) = message(ev, clicks) {
            tx.send(msg).ok()?;
        }
    }
    Some(took)
}

/// What ended a [`wait`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Woke {
    /// The terminal has input.
    Tty,
    /// The bell, a signal, or the fallback timer.
    Other,
    /// The terminal hung up (or its fd is bad): nothing more to read.
    Gone,
}

/// Sleep until the terminal has input or the bell rings; with no fd for
/// either, or `stuck`, for [`FALLBACK_POLL`] at most (`stuck`: the
/// terminal is not watched for input, only for a hang-up).
fn wait(tty: Option<BorrowedFd<'_>>, bell: Option<BorrowedFd<'_>>, stuck: bool) -> Woke {
    let timed = stuck || tty.is_none() || bell.is_none();
    let mut fds = Vec::with_capacity(2);
    if let Some(fd) = tty {
        // Hang-ups and errors are reported even when not asked for.
        let flags = if stuck {
            PollFlags::empty()
        } else {
            PollFlags::IN
        };
        fds.push(PollFd::from_borrowed_fd(fd, flags));
    }
    if let Some(fd) = bell {
        fds.push(PollFd::from_borrowed_fd(fd, PollFlags::IN));
    }
    let timeout = timed
        .then(|| Timespec::try_from(FALLBACK_POLL).ok())
        .flatten();
    match rustix::event::poll(&mut fds, timeout.as_ref()) {
        Ok(_) => {}
        // A signal (SIGWINCH among them) ran its handler on this thread.
        Err(rustix::io::Errno::INTR) => return Woke::Other,
        // Cannot poll (not expected): look on a timer, never spin.
        Err(_) => {
            thread::sleep(FALLBACK_POLL);
            return Woke::Other;
        }
    }
    let Some(term) = tty.and(fds.first()) else {
        return Woke::Other;
    };
    let got = term.revents();
    if got.intersects(PollFlags::HUP | PollFlags::ERR | PollFlags::NVAL) {
        Woke::Gone
    } else if got.contains(PollFlags::IN) {
        Woke::Tty
    } else {
        Woke::Other
    }
}

/// The terminal crossterm reads, to poll: stdin when it is a terminal,
/// else `/dev/tty`, as crossterm 0.29 chooses (`tty_fd`). Polling it
/// never takes a byte: crossterm alone reads.
enum Tty {
    Stdin(std::io::Stdin),
    Dev(std::fs::File),
}

impl Tty {
    /// `None`: no terminal to poll (the thread then looks on a timer).
    fn open() -> Option<Self> {
        let stdin = std::io::stdin();
        if stdin.is_terminal() {
            return Some(Tty::Stdin(stdin));
        }
        std::fs::File::open("/dev/tty").ok().map(Tty::Dev)
    }
}

impl AsFd for Tty {
    fn as_fd(&self) -> BorrowedFd<'_> {
        match self {
            Tty::Stdin(s) => s.as_fd(),
            Tty::Dev(f) => f.as_fd(),
        }
    }
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
