//! Handing the terminal to `$PAGER` or `$EDITOR` and taking it back.
//!
//! The console leaves the way it came in, in reverse: mouse capture,
//! bracketed paste, the alternate screen, raw mode; the cursor is shown.
//! The program runs with the terminal, and the console waits. Then it
//! enters again and redraws the whole screen (the caller clears ratatui's
//! buffers).
//!
//! While the program runs nobody else may read the terminal: the input
//! thread reads between [`Gate`] checkpoints and waits at one while the
//! console is away, so every key goes to the pager. The thread sleeps
//! until the terminal has new input or the gate's bell rings (a pause
//! asked for, a resize): an idle console never wakes it. Ctrl-C in the pager
//! sends SIGINT to the console too (one process group): it is ignored
//! while the program runs ([`Sigint`]), and means what it always did
//! otherwise.

use std::io::{self, Read, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crossterm::cursor::Show;
use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};

/// Where the input thread stops reading while the console is suspended.
pub struct Gate {
    state: Mutex<GateState>,
    changed: Condvar,
    /// Wakes the input thread out of its sleep (`None`: the socket pair
    /// could not be made; the thread then polls on a timer, as it used to).
    bell: Option<Bell>,
}

impl Default for Gate {
    fn default() -> Self {
        Gate {
            state: Mutex::default(),
            changed: Condvar::new(),
            bell: Bell::new(),
        }
    }
}

/// A self-pipe: a byte written to `ring` makes `hear` readable. A Unix
/// socket pair rather than a pipe: std makes it close-on-exec (the pager
/// and the editor inherit neither end), and signal-hook writes to a
/// socket with `send(MSG_DONTWAIT)`, so a full buffer never blocks its
/// signal handler (a full buffer already means a wake-up is pending). Both
/// ends live as long as the gate, so a ring never meets a closed end.
struct Bell {
    ring: UnixStream,
    hear: UnixStream,
}

impl Bell {
    fn new() -> Option<Self> {
        let (ring, hear) = UnixStream::pair().ok()?;
        ring.set_nonblocking(true).ok()?;
        hear.set_nonblocking(true).ok()?;
        Some(Bell { ring, hear })
    }
}

#[derive(Default)]
struct GateState {
    /// The console wants the terminal's input left alone.
    pause: bool,
    /// The input thread waits at its checkpoint.
    held: bool,
    /// The input thread has ended (it will never read again).
    gone: bool,
}

impl Gate {
    fn lock(&self) -> MutexGuard<'_, GateState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The input thread, between two reads: wait here while paused.
    pub fn checkpoint(&self) {
        let mut s = self.lock();
        if !s.pause {
            return;
        }
        s.held = true;
        self.changed.notify_all();
        while s.pause {
            s = self.changed.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        s.held = false;
    }

    /// Is a pause asked for? An event read just as a pager starts is
    /// dropped rather than acted on by the console after it.
    pub fn pausing(&self) -> bool {
        self.lock().pause
    }

    /// The input thread ends.
    pub fn gone(&self) {
        self.lock().gone = true;
        self.changed.notify_all();
    }

    /// Stop the input thread reading: returns once it waits at its
    /// checkpoint (or has ended). The bell wakes it out of its sleep, so
    /// it gets there at once, not at its next key.
    pub fn pause(&self) {
        let mut s = self.lock();
        s.pause = true;
        // Rung after the flag is set: the thread that wakes sees it.
        self.ring();
        while !s.held && !s.gone {
            s = self.changed.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Let the input thread read again.
    pub fn resume(&self) {
        self.lock().pause = false;
        self.changed.notify_all();
    }

    /// Wake the input thread (a byte on the bell; a full buffer already
    /// holds a wake-up, so a failed write loses nothing).
    fn ring(&self) {
        if let Some(bell) = &self.bell {
            let _ = (&bell.ring).write(&[1]);
        }
    }

    /// What the input thread watches besides the terminal: readable once
    /// the bell rang (`None`: no bell; it looks on a timer).
    pub(super) fn bell(&self) -> Option<BorrowedFd<'_>> {
        self.bell.as_ref().map(|b| b.hear.as_fd())
    }

    /// Take every ring waiting, so the next sleep is not cut short.
    pub(super) fn hush(&self) {
        let Some(bell) = &self.bell else {
            return;
        };
        let mut buf = [0u8; 64];
        // Non-blocking: ends at "would block" (or an error: nothing to take).
        while matches!((&bell.hear).read(&mut buf), Ok(n) if n > 0) {}
    }

    /// Ring the bell on `signal` too (from signal-hook's handler; a dup of
    /// the writing end is its to close). `None`: not registered.
    pub(super) fn ring_on(&self, signal: std::ffi::c_int) -> Option<signal_hook::SigId> {
        let ring = self.bell.as_ref()?.ring.try_clone().ok()?;
        signal_hook::low_level::pipe::register(signal, ring).ok()
    }
}

/// SIGINT while a program has the terminal: ignored by the console (the
/// program gets its own); at any other time, the default action.
pub struct Sigint {
    armed: Arc<AtomicBool>,
}

impl Sigint {
    /// Install the handler (once per run). Without it (it could not be
    /// installed), SIGINT keeps its default action.
    pub fn install() -> Self {
        let armed = Arc::new(AtomicBool::new(true));
        for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGQUIT] {
            let _ = signal_hook::flag::register_conditional_default(signal, Arc::clone(&armed));
        }
        Sigint { armed }
    }

    fn hold(&self, held: bool) {
        self.armed.store(!held, Ordering::SeqCst);
    }
}

/// The program to run: `$PAGER` (else `less`) or `$EDITOR` (else `vi`).
/// An empty variable counts as unset.
pub fn program(editor: bool) -> String {
    let (var, default) = if editor {
        ("EDITOR", "vi")
    } else {
        ("PAGER", "less")
    };
    std::env::var(var)
        .ok()
        .filter(|v| !v.trim().is_empty())
        .unwrap_or_else(|| default.to_owned())
}

/// Run `program` on `file` with the terminal, through `sh` as git runs its
/// pager, so `PAGER="less -R"` works; the file is the script's argument,
/// never part of its text. `Err`: what to say in the status line. Read-only
/// (`--readonly`), `LESSSECURE=1` keeps `less` from starting an editor or a
/// shell on the file.
pub fn run(program: &str, file: &Path, readonly: bool) -> Result<(), String> {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(format!("{program} \"$@\""))
        .arg(program)
        .arg(file);
    if readonly {
        command.env("LESSSECURE", "1");
    }
    let status = command
        .status()
        .map_err(|e| crate::t!("runtime.program.no_shell", program = program, why = e))?;
    match status.code() {
        Some(0) => Ok(()),
        Some(127) => Err(crate::t!("runtime.program.not_found", program = program)),
        Some(126) => Err(crate::t!("runtime.program.cannot_run", program = program)),
        Some(n) => Err(crate::t!(
            "runtime.program.status",
            program = program,
            code = n
        )),
        None => Err(crate::t!("runtime.program.signal", program = program)),
    }
}

/// Give the terminal back to the shell's state: what `run` (the console)
/// set up, undone.
fn leave(out: &mut impl Write, mouse: bool) -> io::Result<()> {
    if mouse {
        execute!(out, DisableMouseCapture)?;
    }
    execute!(out, DisableBracketedPaste, LeaveAlternateScreen, Show)?;
    disable_raw_mode()
}

/// Set the terminal up for the console again.
fn enter(out: &mut impl Write, mouse: bool) -> io::Result<()> {
    enable_raw_mode()?;
    execute!(out, EnterAlternateScreen, EnableBracketedPaste)?;
    if mouse {
        execute!(out, EnableMouseCapture)?;
    }
    Ok(())
}

/// Suspend the console, run `program` on `file`, and come back. The
/// outer `Err` is a terminal that cannot be set up again (the console
/// stops); the inner one, what to say about the program.
pub fn suspended(
    gate: &Gate,
    sigint: &Sigint,
    mouse: bool,
    program: &str,
    file: &Path,
    readonly: bool,
) -> io::Result<Result<(), String>> {
    gate.pause();
    sigint.hold(true);
    let mut out = io::stdout();
    let ran = match leave(&mut out, mouse) {
        Ok(()) => run(program, file, readonly),
        Err(e) => Err(crate::t!(
            "runtime.program.no_terminal",
            program = program,
            why = e
        )),
    };
    let back = enter(&mut out, mouse);
    sigint.hold(false);
    gate.resume();
    back.map(|()| ran)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use std::thread;

    /// A pause waits for the reader to stop; a resume lets it read again.
    #[test]
    fn the_gate_holds_the_reader_until_resumed() {
        let gate = Arc::new(Gate::default());
        let reads = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let reader = {
            let (gate, reads, stop) = (gate.clone(), reads.clone(), stop.clone());
            thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    gate.checkpoint();
                    reads.fetch_add(1, Ordering::SeqCst);
                    thread::yield_now();
                }
                gate.gone();
            })
        };
        gate.pause();
        // Held: no read happens until the resume.
        let at = reads.load(Ordering::SeqCst);
        for _ in 0..1000 {
            thread::yield_now();
        }
        assert_eq!(reads.load(Ordering::SeqCst), at);
        gate.resume();
        while reads.load(Ordering::SeqCst) == at {
            thread::yield_now();
        }
        stop.store(true, Ordering::SeqCst);
        reader.join().unwrap();
        // A reader that has ended never blocks a pause.
        gate.pause();
        gate.resume();
    }

    /// A pause asked for while the reader is between its wait and its read
    /// is seen by the reader (it drops what it read instead of sending it).
    #[test]
    fn a_pause_asked_for_is_seen_before_the_reader_parks() {
        let gate = Arc::new(Gate::default());
        assert!(!gate.pausing());
        let asker = {
            let gate = gate.clone();
            thread::spawn(move || gate.pause())
        };
        while !gate.pausing() {
            thread::yield_now();
        }
        // The reader parks at its next checkpoint; the pause then returns.
        let reader = {
            let gate = gate.clone();
            thread::spawn(move || gate.checkpoint())
        };
        asker.join().unwrap();
        gate.resume();
        reader.join().unwrap();
        assert!(!gate.pausing());
    }

    /// A reader asleep in `poll` on the bell (as the input thread sleeps)
    /// is woken by a pause, not by its timeout; once hushed, the bell is
    /// quiet again.
    #[test]
    fn a_pause_rings_the_reader_awake() {
        use rustix::event::{PollFd, PollFlags, Timespec, poll};
        let gate = Arc::new(Gate::default());
        let quiet = |gate: &Gate| {
            let mut fds = [PollFd::from_borrowed_fd(
                gate.bell().unwrap(),
                PollFlags::IN,
            )];
            poll(&mut fds, Some(&Timespec::default())).unwrap() == 0
        };
        assert!(quiet(&gate));
        let reader = {
            let gate = gate.clone();
            thread::spawn(move || {
                let mut fds = [PollFd::from_borrowed_fd(
                    gate.bell().unwrap(),
                    PollFlags::IN,
                )];
                // Long: only the bell ends it sooner (without, this fails in 20 s).
                let long = Timespec::try_from(std::time::Duration::from_secs(20)).unwrap();
                poll(&mut fds, Some(&long)).unwrap();
                let rang = fds[0].revents().contains(PollFlags::IN);
                gate.hush();
                gate.checkpoint();
                rang
            })
        };
        // Returns once the reader is held: it woke, or this would wait
        // out its poll.
        gate.pause();
        assert!(gate.lock().held);
        gate.resume();
        assert!(reader.join().unwrap(), "woken by the bell");
        assert!(quiet(&gate));
    }

    /// Read-only, the pager runs with LESSSECURE=1 (less then starts no
    /// editor and no shell); otherwise the environment is the user's.
    #[test]
    fn read_only_runs_the_pager_secure() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "x").unwrap();
        let out = dir.path().join("env");
        let program = format!("printf '%s' \"$LESSSECURE\" > '{}'; true", out.display());
        run(&format!("{program} #"), &file, true).unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "1");
    }

    /// The file is an argument of the program, never shell text; the
    /// exit status says what went wrong.
    #[test]
    fn the_program_runs_on_the_file_through_sh() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a b; touch pwned $(x).md");
        std::fs::write(&file, "hello").unwrap();
        let copy = dir.path().join("copy");
        let program = format!("cp -- \"$1\" '{}'; true", copy.display());
        // `sh -c 'PROGRAM "$@"'`: here PROGRAM reads $1 itself.
        run(&format!("{program} #"), &file, false).unwrap();
        assert_eq!(std::fs::read_to_string(&copy).unwrap(), "hello");
        assert!(!dir.path().join("pwned").exists());

        let missing = run("loopdeck-no-such-pager-xyz", &file, false).unwrap_err();
        assert!(missing.contains("not found"), "{missing}");
        let failed = run("false", &file, false).unwrap_err();
        assert!(failed.contains("exited with status 1"), "{failed}");
        assert_eq!(run("cat >/dev/null", &file, false), Ok(()));
    }
}
