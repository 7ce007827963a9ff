//! A list's scroll window, kept by the view between frames.

/// Where a list's window starts, and how many rows it drew; written by
/// the view while drawing. Equal whatever it holds: it is presentation,
/// not state to compare.
#[derive(Debug, Default)]
pub struct Scroll {
    first: std::sync::atomic::AtomicUsize,
    /// Rows drawn from `first` in the last frame (0: none since a reading).
    shown: std::sync::atomic::AtomicUsize,
}

impl Scroll {
    pub const fn new() -> Self {
        Scroll {
            first: std::sync::atomic::AtomicUsize::new(0),
            shown: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// The first row to draw so that `selected` is visible in `height`
    /// rows of `len`, moving the window only when the selection leaves it.
    pub fn window(&self, selected: usize, height: usize, len: usize) -> usize {
        use std::sync::atomic::Ordering::Relaxed;
        let height = height.max(1);
        let prev = self.first.load(Relaxed).min(len.saturating_sub(height));
        let first = if selected < prev {
            selected
        } else if selected >= prev + height {
            selected + 1 - height
        } else {
            prev
        };
        self.first.store(first, Relaxed);
        self.shown
            .store(len.saturating_sub(first).min(height), Relaxed);
        first
    }

    /// The rows the last frame drew.
    pub fn shown(&self) -> std::ops::Range<usize> {
        use std::sync::atomic::Ordering::Relaxed;
        let first = self.first.load(Relaxed);
        first..first + self.shown.load(Relaxed)
    }

    /// What was drawn no longer matches the rows (a reading came in).
    pub fn forget_shown(&self) {
        self.shown.store(0, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Clone for Scroll {
    fn clone(&self) -> Self {
        use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
        Scroll {
            first: AtomicUsize::new(self.first.load(Relaxed)),
            shown: AtomicUsize::new(self.shown.load(Relaxed)),
        }
    }
}

impl PartialEq for Scroll {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Scroll {}
