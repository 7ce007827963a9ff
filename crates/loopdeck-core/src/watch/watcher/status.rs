//! Live or polling, and why: when the watcher falls back to polling and
//! when it goes live again (pure: the thread feeds it what happened).
//!
//! - The watch limit: every reconciliation scan tries to add the missing
//!   watches; live again once every directory is watched.
//! - An overflow, or an error from the event source: live again after the
//!   next scan that finds nothing the events missed.
//! - Changes the events missed (found by the scan): live again after a
//!   scan that finds changes and every one of them was reported by an
//!   event (proof the events flow again); a quiet scan proves nothing.
//! - Polling configured, or no watcher at all: polling for the whole run.

use super::super::Liveness;

/// Why changes are polled for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Cause {
    /// `[watch] mode = "poll"`.
    Configured,
    /// The platform gave no watcher (the reason).
    NoWatcher(String),
    /// Adding a watch hit the limit (the limit, as the user can change it).
    Limit(String),
    /// The kernel's event queue overflowed.
    Overflow,
    /// The event source failed (its error).
    Failed(String),
    /// The scan found changes no event reported (how many).
    Missed(usize),
}

impl Cause {
    /// The reason as the header says it.
    pub(super) fn reason(&self) -> String {
        match self {
            Cause::Configured => "polling is configured ([watch] mode = \"poll\")".to_owned(),
            Cause::NoWatcher(why) => format!("no file system events: {why}"),
            Cause::Limit(limit) => format!("inotify watch limit reached ({limit})"),
            Cause::Overflow => "events were lost (queue overflow)".to_owned(),
            Cause::Failed(why) => format!("file system events failed: {why}"),
            Cause::Missed(n) => format!(
                "file system events missed {n} change{} (found by the periodic scan)",
                if *n == 1 { "" } else { "s" }
            ),
        }
    }

    /// Never goes live again in this run.
    fn for_good(&self) -> bool {
        matches!(self, Cause::Configured | Cause::NoWatcher(_))
    }
}

/// The watcher's state as the front end was last told it.
#[derive(Debug, Default)]
pub(super) struct Status {
    polling: Option<Cause>,
    told: Option<Liveness>,
}

/// What one reconciliation scan found.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Scan {
    /// Changes no event reported.
    pub missed: usize,
    /// Changes an event reported.
    pub confirmed: usize,
    /// Every directory the walk enters is watched.
    pub complete: bool,
}

impl Status {
    pub(super) fn polling(&self) -> bool {
        self.polling.is_some()
    }

    /// Fall back to polling because of `cause` (the first cause that is
    /// for good stays; a limit is not forgotten for a lesser cause).
    pub(super) fn fall_back(&mut self, cause: Cause) {
        match &self.polling {
            Some(c) if c.for_good() => {}
            Some(Cause::Limit(_)) if !matches!(cause, Cause::Limit(_)) => {}
            _ => self.polling = Some(cause),
        }
    }

    /// A scan ended: maybe live again, maybe polling now.
    pub(super) fn scanned(&mut self, scan: Scan) {
        if scan.missed > 0 {
            self.fall_back(Cause::Missed(scan.missed));
            return;
        }
        let live_again = match &self.polling {
            None => false,
            Some(c) if c.for_good() => false,
            Some(Cause::Limit(_)) | Some(Cause::Overflow) | Some(Cause::Failed(_)) => scan.complete,
            Some(Cause::Missed(_)) => scan.complete && scan.confirmed > 0,
            Some(Cause::Configured) | Some(Cause::NoWatcher(_)) => false,
        };
        if live_again {
            self.polling = None;
        }
    }

    /// What to tell the front end now, if it changed (`watches`: how many
    /// directories are watched; `recount`: a new count alone is news).
    pub(super) fn tell(
        &mut self,
        watches: usize,
        every_secs: u64,
        recount: bool,
    ) -> Option<Liveness> {
        if !recount && self.polling.is_none() && matches!(self.told, Some(Liveness::Live { .. })) {
            return None;
        }
        let now = match &self.polling {
            None => Liveness::Live { watches },
            Some(c) => Liveness::Polling {
                every_secs,
                reason: c.reason(),
            },
        };
        (self.told.as_ref() != Some(&now)).then(|| {
            self.told = Some(now.clone());
            now
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn reason(s: &mut Status) -> Option<String> {
        match s.tell(7, 10, false) {
            Some(Liveness::Polling { reason, .. }) => Some(reason),
            Some(Liveness::Live { .. }) => Some("live".to_owned()),
            _ => None,
        }
    }

    const QUIET: Scan = Scan {
        missed: 0,
        confirmed: 0,
        complete: true,
    };

    #[test]
    fn live_is_told_once_with_its_count() {
        let mut s = Status::default();
        assert_eq!(s.tell(3, 10, false), Some(Liveness::Live { watches: 3 }));
        assert_eq!(s.tell(3, 10, true), None);
        // A new directory between two scans is no news; the scan tells it.
        assert_eq!(s.tell(4, 10, false), None);
        assert_eq!(s.tell(4, 10, true), Some(Liveness::Live { watches: 4 }));
    }

    #[test]
    fn the_limit_polls_until_every_directory_is_watched() {
        let mut s = Status::default();
        s.fall_back(Cause::Limit("fs.inotify.max_user_watches = 8192".into()));
        assert_eq!(
            reason(&mut s).unwrap(),
            "inotify watch limit reached (fs.inotify.max_user_watches = 8192)"
        );
        // An overflow meanwhile does not hide the limit.
        s.fall_back(Cause::Overflow);
        s.scanned(Scan {
            complete: false,
            ..QUIET
        });
        assert!(s.polling());
        assert_eq!(reason(&mut s), None);
        s.scanned(QUIET);
        assert_eq!(reason(&mut s).unwrap(), "live");
    }

    #[test]
    fn an_overflow_polls_until_a_scan_finds_nothing_missed() {
        let mut s = Status::default();
        s.fall_back(Cause::Overflow);
        assert_eq!(reason(&mut s).unwrap(), "events were lost (queue overflow)");
        s.scanned(Scan { missed: 2, ..QUIET });
        assert_eq!(
            reason(&mut s).unwrap(),
            "file system events missed 2 changes (found by the periodic scan)"
        );
        // Missed events: a quiet scan proves nothing; a confirmed one does.
        s.scanned(QUIET);
        assert!(s.polling());
        s.scanned(Scan {
            confirmed: 1,
            ..QUIET
        });
        assert!(!s.polling());
    }

    #[test]
    fn configured_polling_is_for_the_whole_run() {
        let mut s = Status::default();
        s.fall_back(Cause::Configured);
        s.fall_back(Cause::Overflow);
        s.scanned(Scan {
            confirmed: 5,
            ..QUIET
        });
        assert_eq!(
            reason(&mut s).unwrap(),
            "polling is configured ([watch] mode = \"poll\")"
        );
    }
}
