//! Containing a panic to the work that raised it.
//!
//! Reading one directory or one project must never end a command or the
//! console's loader: [`caught`] runs a piece of work and turns a panic into
//! an error message (the caller records it as a problem on that directory).
//! While a thread is inside [`caught`], the panic hook installed by
//! [`quiet_hook`] stays silent (no crash report on stderr, and no terminal
//! restored under a console that keeps running); it keeps the message and
//! its location for the problem instead.
//!
//! Work on a thread of its own ([`guarded`], on a [`WORKER`] thread) is
//! contained the same way, without the hook's silence: its panic becomes
//! `"what: message"` for the front end to show, and the console's panic
//! hook leaves threads of that name alone (see `runtime::terminal`).

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe, PanicHookInfo};
use std::thread;

thread_local! {
    static GUARDED: Cell<u32> = const { Cell::new(0) };
    static LAST: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Run `work`; a panic becomes `Err(message)` ("… at file:line" when the
/// hook of [`quiet_hook`] is installed).
pub fn caught<T>(work: impl FnOnce() -> T) -> Result<T, String> {
    GUARDED.with(|g| g.set(g.get() + 1));
    let result = panic::catch_unwind(AssertUnwindSafe(work));
    GUARDED.with(|g| g.set(g.get().saturating_sub(1)));
    result.map_err(|payload| {
        LAST.with(|l| l.borrow_mut().take())
            .unwrap_or_else(|| message(payload.as_ref()))
    })
}

/// Worker threads are named so: the console reports their panics itself
/// (a front end's panic hook leaves them alone).
pub const WORKER: &str = "loopdeck-worker";

/// Is this thread a [`WORKER`], or the fleet's thread (other hosts'
/// ssh; each host's work there is contained with [`caught`])? A panic
/// there is the thread's, never the terminal's.
pub fn on_worker() -> bool {
    matches!(thread::current().name(), Some(n) if n == WORKER || n == crate::fleet::THREAD)
}

/// Run `f` and give its answer, or the panic's message as `"what: why"`
/// (which no caller ever sees as a dead thread). The message is made safe
/// where it is shown. Unlike [`caught`], the panic hook is not silenced
/// (a [`WORKER`] thread's name does that in the console).
pub fn guarded<T>(what: &str, f: impl FnOnce() -> T) -> Result<T, String> {
    panic::catch_unwind(AssertUnwindSafe(f))
        .map_err(|payload| format!("{what}: {}", message(payload.as_ref())))
}

/// The text a panic was raised with.
fn message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned())
}

/// The quiet part of a panic hook: inside [`caught`], keep the panic's
/// message and location for it and say `true` (the hook reports
/// nothing); elsewhere `false` (the hook goes on).
pub fn quiet(info: &PanicHookInfo<'_>) -> bool {
    if GUARDED.with(Cell::get) == 0 {
        return false;
    }
    let at = info
        .location()
        .map(|l| format!(" at {}:{}", l.file(), l.line()))
        .unwrap_or_default();
    LAST.with(|l| *l.borrow_mut() = Some(format!("{}{at}", message(info.payload()))));
    true
}

/// Wrap the current panic hook so that a panic inside [`caught`] is not
/// reported by it. Install it after every other hook (color-eyre's, and
/// the terminal-restoring hook the console installs): a hook installed later
/// would run first.
pub fn quiet_hook() {
    let previous = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if !quiet(info) {
            previous(info);
        }
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_its_message() {
        assert_eq!(caught(|| 7), Ok(7));
        let e = caught(|| -> u8 { panic!("boom {}", 1) }).unwrap_err();
        assert!(e.starts_with("boom 1"), "{e}");
        // Nested work is released properly: the counter is back to zero.
        assert_eq!(GUARDED.with(Cell::get), 0);
    }

    /// A worker's panic is said with what it was doing, without a
    /// location, and leaves the quiet hook's state alone.
    #[test]
    fn a_guarded_panic_says_what_it_was_doing() {
        assert_eq!(guarded("reading", || 7), Ok(7));
        let e = guarded("reading", || -> u8 { panic!("No such local time") }).unwrap_err();
        assert_eq!(e, "reading: No such local time");
        assert_eq!(GUARDED.with(Cell::get), 0);
        assert!(LAST.with(|l| l.borrow().is_none()));
    }
}
