//! The input thread: the terminal's keys, pastes, resizes and clicks, as
//! messages to the loop. It reads only between checkpoints of the
//! suspend gate (`suspend::Gate`), so a pager or an editor run from the
//! console gets every key.
//!
//! Idle, the thread sleeps: it blocks in `epoll_wait` on the terminal and
//! on the gate's bell, with no timeout, so a console where nothing happens
//! never wakes it (it used to poll crossterm every 200 ms only to look at
//! the gate: five wake-ups a second). Three things wake it:
//!
//! - input on the terminal: crossterm reads and parses it;
//! - the bell, rung by `Gate::pause` (the console is about to hand the
//!   terminal to `$PAGER` or `$EDITOR`): the thread goes to its checkpoint
//!   at once, and reads nothing until the resume;
//! - the bell, rung on SIGWINCH: crossterm's own SIGWINCH handler has
//!   noted the resize by then (see `read`), and it arrives as a `Resize`
//!   at the next drain.
//!
//! After every wake the thread drains crossterm (`poll` and `read` until
//! `poll` says no; the first `poll` waits up to [`FIRST_LOOK`]) before it
//! sleeps again: crossterm parses a read's
//! bytes into several events and keeps them, and the terminal's fd says
//! nothing of those.
//!
//! The terminal is watched edge-triggered, as crossterm watches it (mio's
//! epoll): the thread wakes when new bytes arrive, exactly when crossterm
//! can read. Level-triggered (`poll(2)`), bytes crossterm leaves in the
//! terminal until its next edge (it reads at most 1 KiB per edge: a long
//! burst of keys without bracketed paste) would wake the thread at once,
//! over and over, and crossterm would take nothing.
//!
//! Without epoll (not Linux), without the bell, or without a terminal fd
//! to watch, the thread looks every [`FALLBACK_POLL`] as it always did.

use std::io::IsTerminal;
use std::os::fd::{AsFd, BorrowedFd};
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

/// With no way to sleep until something happens: look this often.
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
    let sleep = Sleep::new(tty.as_ref().map(AsFd::as_fd), gate.bell());
    loop {
        gate.checkpoint();
        if drain(tx, gate, clicks).is_none() || sleep.until_woken() == Woke::Gone {
            break;
        }
        gate.hush();
    }
    if let Some(id) = resize {
        signal_hook::low_level::unregister(id);
    }
}

/// How long the first look of a drain waits for crossterm. The terminal
/// wakes two epoll sets, ours and crossterm's, one after the other: woken
/// by the first, this thread can ask crossterm before the kernel has told
/// the second, and a look that does not wait finds nothing; the key would
/// then wait for the next one (seen as a Ctrl-S that did nothing until
/// another key, 1 in a few hundred under load). The wait ends as soon as
/// crossterm has the event, so it costs nothing when a key came.
const FIRST_LOOK: Duration = Duration::from_millis(20);

/// Every event crossterm holds or can read now, to the loop, stopping at
/// a pause. `None`: the terminal cannot be read or the loop is gone.
fn drain(tx: &Sender<Msg>, gate: &Gate, clicks: bool) -> Option<()> {
    let mut look = FIRST_LOOK;
    while !gate.pausing() && event::poll(std::mem::replace(&mut look, Duration::ZERO)).ok()? {
        let ev = event::read().ok()?;
        // Read while a pager or an editor was starting: it was meant
        // for them, never for the console when it comes back.
        if gate.pausing() {
            break;
        }
        if let Some(msg) = message(ev, clicks) {
            tx.send(msg).ok()?;
        }
    }
    Some(())
}

/// What ended a sleep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Woke {
    /// Input, the bell, a signal, or the timer: drain and sleep again.
    Go,
    /// The terminal hung up: nothing more will come.
    Gone,
}

/// How the thread sleeps until it has something to do.
///
/// Keys a pager read while the thread was held at its checkpoint leave no
/// wake-up behind: epoll looks at the terminal again before it reports an
/// edge, and reports none when the bytes are gone.
enum Sleep {
    /// An epoll set: the terminal edge-triggered, the bell.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    Epoll(std::os::fd::OwnedFd),
    /// [`FALLBACK_POLL`] at a time.
    Timer,
}

/// The terminal's and the bell's marks in the epoll set.
#[cfg(any(target_os = "linux", target_os = "android"))]
const TTY: u64 = 1;
#[cfg(any(target_os = "linux", target_os = "android"))]
const BELL: u64 = 2;

impl Sleep {
    /// An epoll set on `tty` and `bell` when both are there and epoll
    /// works; a timer otherwise.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    fn new(tty: Option<BorrowedFd<'_>>, bell: Option<BorrowedFd<'_>>) -> Self {
        use rustix::event::epoll::{self, CreateFlags, EventData, EventFlags};
        let set = || {
            let (tty, bell) = (tty?, bell?);
            let set = epoll::create(CreateFlags::CLOEXEC).ok()?;
            // Input already waiting counts as an edge: the first sleep
            // ends at once.
            let edge = EventFlags::IN | EventFlags::ET;
            epoll::add(&set, tty, EventData::new_u64(TTY), edge).ok()?;
            epoll::add(&set, bell, EventData::new_u64(BELL), EventFlags::IN).ok()?;
            Some(set)
        };
        set().map_or(Sleep::Timer, Sleep::Epoll)
    }

    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    fn new(_tty: Option<BorrowedFd<'_>>, _bell: Option<BorrowedFd<'_>>) -> Self {
        Sleep::Timer
    }

    /// Sleep until new input, the bell, or a signal (a timer: its period).
    fn until_woken(&self) -> Woke {
        match self {
            #[cfg(any(target_os = "linux", target_os = "android"))]
            Sleep::Epoll(set) => {
                use rustix::event::epoll::{self, EventFlags};
                let mut events = Vec::with_capacity(2);
                match epoll::wait(set, rustix::buffer::spare_capacity(&mut events), None) {
                    Ok(_) => {}
                    // A signal (SIGWINCH among them) ran its handler here.
                    Err(rustix::io::Errno::INTR) => return Woke::Go,
                    // Cannot wait (not expected): look on a timer, never spin.
                    Err(_) => thread::sleep(FALLBACK_POLL),
                }
                let hung_up = events.iter().any(|e| {
                    let (flags, data) = (e.flags, e.data);
                    data.u64() == TTY && flags.intersects(EventFlags::HUP | EventFlags::ERR)
                });
                if hung_up { Woke::Gone } else { Woke::Go }
            }
            Sleep::Timer => {
                thread::sleep(FALLBACK_POLL);
                Woke::Go
            }
        }
    }
}

/// The terminal crossterm reads, to watch: stdin when it is a terminal,
/// else `/dev/tty`, as crossterm 0.29 chooses (`tty_fd`). Watching it
/// never takes a byte: crossterm alone reads.
enum Tty {
    Stdin(std::io::Stdin),
    Dev(std::fs::File),
}

impl Tty {
    /// `None`: no terminal to watch (the thread then looks on a timer).
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
