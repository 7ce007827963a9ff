//! Containing a panic to the work that raised it.
//!
//! Reading one directory or one project must never end a command or the
//! console's loader: [`caught`] runs a piece of work and turns a panic into
//! an error message (the caller records it as a problem on that directory).
//! While a thread is inside [`caught`], the panic hook installed by
//! [`quiet_hook`] stays silent (no crash report on stderr, and no terminal
//! restored under a console that keeps running); it keeps the message and
//! its location for the problem instead.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};

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
        LAST.with(|l| l.borrow_mut().take()).unwrap_or_else(|| {
            payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned())
        })
    })
}

/// Wrap the current panic hook so that a panic inside [`caught`] is not
/// reported by it. Install it after every other hook (color-eyre's, and
/// the terminal-restoring hook the console installs): a hook installed later
/// would run first.
pub fn quiet_hook() {
    let previous = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if GUARDED.with(Cell::get) > 0 {
            let message = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            let at = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            LAST.with(|l| *l.borrow_mut() = Some(format!("{message}{at}")));
        } else {
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
}
