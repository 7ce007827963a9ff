//! When the loop wakes with no message: a small pure struct, in the style
//! of `watch/schedule.rs`. No threads, no clock (the time is passed in):
//! the loop tells it what was asked for and asks it what is due.
//!
//! Six deadlines, merged: the engine's next tick, the holds of a broken
//! reading (a settle each), the "since you looked" memory's next save, the
//! next `[[escalate]]` rule to start firing by time alone, the next stall
//! to start, and the clock that refreshes ages once a minute. Idle, only
//! the clock is left: no other wake-up at all. Under `--now` the clock
//! stands: no escalation or stall is waited for (nothing can start by
//! time), and the clock has no deadline either (a tick would redraw
//! nothing), so an idle console under `--now` never wakes.

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

/// How often ages are refreshed while nothing else happens.
pub(super) const CLOCK: Duration = Duration::from_secs(60);

/// After a reading breaks a project that read well, or loses it, show
/// the last good reading this long before believing the new one.
pub(super) const SETTLE_BAD: Duration = Duration::from_secs(2);

/// The "since you looked" memory is written at most this often (and on quit).
pub(super) const SAVE_SEEN_EVERY: Duration = Duration::from_secs(3);

/// What a deadline is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Due {
    /// The engine's next tick (a read to start).
    Engine,
    /// A hold of a broken reading ends.
    Settle,
    /// The "since you looked" memory is saved.
    SaveSeen,
    /// An `[[escalate]]` rule starts firing.
    Escalate,
    /// A project's stall starts (drawn as a clock tick).
    Stall,
    /// Ages are refreshed.
    Clock,
}

#[derive(Debug)]
pub(super) struct Timers {
    /// The clock runs (no `--now`).
    runs: bool,
    /// When the clock last ticked.
    last_clock: Instant,
    /// Holds of a broken reading, due at these times (`SETTLE_BAD`), with
    /// the number of the hold.
    settles: Vec<(Instant, u64)>,
    /// The memory's next write, and the last.
    save_at: Option<Instant>,
    last_save: Option<Instant>,
    /// This turn's deadlines from the engine and the model (see `watch`).
    engine: Option<Instant>,
    escalate: Option<Instant>,
    stall: Option<Instant>,
}

impl Timers {
    /// The clock starts at `now`; `runs`: no `--now` stands it still.
    pub(super) fn new(now: Instant, runs: bool) -> Self {
        Timers {
            runs,
            last_clock: now,
            settles: Vec::new(),
            save_at: None,
            last_save: None,
            engine: None,
            escalate: None,
            stall: None,
        }
    }

    /// Does the clock run (no `--now`)?
    pub(super) fn runs(&self) -> bool {
        self.runs
    }

    /// This turn's deadlines: the engine's, and the model's next
    /// escalation and stall (asked for only while the clock runs).
    pub(super) fn watch(
        &mut self,
        engine: Option<Instant>,
        escalate: impl FnOnce() -> Option<Instant>,
        stall: impl FnOnce() -> Option<Instant>,
    ) {
        self.engine = engine;
        (self.escalate, self.stall) = if self.runs {
            (escalate(), stall())
        } else {
            (None, None)
        };
    }

    /// The escalation and the stall [`Self::watch`] was last told of.
    pub(super) fn deadlines(&self) -> (Option<Instant>, Option<Instant>) {
        (self.escalate, self.stall)
    }

    /// The earliest deadline and what it is for (the clock at the latest
    /// while it runs; of equal ones, the first in `Due`'s order). `None`:
    /// nothing is due, ever, until a message comes (the clock stands).
    pub(super) fn next(&self) -> Option<(Instant, Due)> {
        let clock = self.runs.then(|| self.last_clock + CLOCK);
        [
            (self.engine, Due::Engine),
            (self.settles.iter().map(|(at, _)| *at).min(), Due::Settle),
            (self.save_at, Due::SaveSeen),
            (self.escalate, Due::Escalate),
            (self.stall, Due::Stall),
            (clock, Due::Clock),
        ]
        .into_iter()
        .filter_map(|(at, due)| Some((at?, due)))
        .min_by_key(|(at, _)| *at)
    }

    /// Hold `seq` of a broken reading ends `SETTLE_BAD` after `now`.
    pub(super) fn settle_after(&mut self, seq: u64, now: Instant) {
        self.settles.push((now + SETTLE_BAD, seq));
    }

    /// The latest hold due at `now`, taken with every earlier one.
    pub(super) fn settled(&mut self, now: Instant) -> Option<u64> {
        let seq = self
            .settles
            .iter()
            .filter(|(at, _)| *at <= now)
            .map(|(_, seq)| *seq)
            .max()?;
        self.settles.retain(|(_, s)| *s > seq);
        Some(seq)
    }

    /// The memory changed at `now`: save it at once, or `SAVE_SEEN_EVERY`
    /// after the last save (a save already waiting stays as it is).
    pub(super) fn save_seen(&mut self, now: Instant) {
        let last = self.last_save;
        self.save_at
            .get_or_insert_with(|| last.map_or(now, |l| (l + SAVE_SEEN_EVERY).max(now)));
    }

    /// Is the memory's save due at `now`?
    pub(super) fn save_due(&self, now: Instant) -> bool {
        self.save_at.is_some_and(|at| at <= now)
    }

    /// The memory's save, when due at `now`: then it counts as done.
    pub(super) fn take_save(&mut self, now: Instant) -> bool {
        if !self.save_due(now) {
            return false;
        }
        self.save_at = None;
        self.last_save = Some(now);
        true
    }

    /// Does an `[[escalate]]` rule start firing by `now`?
    pub(super) fn escalation_due(&self, now: Instant) -> bool {
        self.escalate.is_some_and(|at| at <= now)
    }

    /// The clock ticked at `now` (or nothing else was due when the loop
    /// woke: a stall starting is drawn as a tick).
    pub(super) fn ticked(&mut self, now: Instant) {
        self.last_clock = now;
    }
}

/// `at` on this process's clock, given that it is `now` on both clocks
/// (a time already past is `now`).
pub(super) fn instant_at(at: DateTime<Utc>, now_utc: DateTime<Utc>, now: Instant) -> Instant {
    now + (at - now_utc).to_std().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn secs(n: u64) -> Duration {
        Duration::from_secs(n)
    }

    /// Idle: nothing but the clock, a minute after it last ticked.
    #[test]
    fn idle_there_is_only_the_clock() {
        let t0 = Instant::now();
        let mut t = Timers::new(t0, true);
        t.watch(None, || None, || None);
        assert_eq!(t.next(), Some((t0 + CLOCK, Due::Clock)));
        t.ticked(t0 + secs(60));
        assert_eq!(t.next(), Some((t0 + secs(120), Due::Clock)));
        assert_eq!(t.settled(t0 + secs(600)), None);
        assert!(!t.save_due(t0 + secs(600)));
        assert!(!t.escalation_due(t0 + secs(600)));
    }

    /// The earliest deadline comes first, whatever it is for; the clock
    /// only when nothing is sooner.
    #[test]
    fn the_earliest_deadline_comes_first() {
        let t0 = Instant::now();
        let mut t = Timers::new(t0, true);
        t.watch(
            Some(t0 + secs(30)),
            || Some(t0 + secs(20)),
            || Some(t0 + secs(10)),
        );
        assert_eq!(t.next(), Some((t0 + secs(10), Due::Stall)));
        t.settle_after(1, t0 + secs(3));
        assert_eq!(t.next(), Some((t0 + secs(5), Due::Settle)));
        t.save_seen(t0 + secs(1));
        assert_eq!(t.next(), Some((t0 + secs(1), Due::SaveSeen)));
        t.watch(Some(t0), || None, || None);
        assert_eq!(t.next(), Some((t0, Due::Engine)));
        // Every deadline later than the clock: the clock.
        let mut t = Timers::new(t0, true);
        t.watch(
            Some(t0 + secs(90)),
            || Some(t0 + secs(91)),
            || Some(t0 + secs(92)),
        );
        assert_eq!(t.next(), Some((t0 + CLOCK, Due::Clock)));
    }

    /// Under `--now` no escalation or stall is waited for (the model is
    /// not even asked), nor the clock: idle, nothing is due at all. The
    /// engine, the holds and the memory still are.
    #[test]
    fn under_now_no_escalation_or_stall_is_waited_for() {
        let t0 = Instant::now();
        let mut t = Timers::new(t0, false);
        assert!(!t.runs());
        t.watch(
            None,
            || panic!("escalation asked for under --now"),
            || panic!("stall asked for under --now"),
        );
        assert_eq!(t.next(), None);
        assert!(!t.escalation_due(t0 + secs(600)));
        t.watch(Some(t0 + secs(7)), || None, || None);
        assert_eq!(t.next(), Some((t0 + secs(7), Due::Engine)));
    }

    /// The holds due are taken together, up to the latest due; a later one
    /// stays.
    #[test]
    fn holds_settle_in_order() {
        let t0 = Instant::now();
        let mut t = Timers::new(t0, true);
        t.settle_after(1, t0);
        t.settle_after(2, t0 + secs(1));
        t.settle_after(3, t0 + secs(10));
        assert_eq!(t.settled(t0 + secs(1)), None);
        assert_eq!(t.settled(t0 + SETTLE_BAD + secs(1)), Some(2));
        assert_eq!(t.next(), Some((t0 + secs(10) + SETTLE_BAD, Due::Settle)));
        assert_eq!(t.settled(t0 + secs(20)), Some(3));
        assert_eq!(t.next().map(|(_, due)| due), Some(Due::Clock));
    }

    /// The memory is saved at once the first time, then at most every
    /// `SAVE_SEEN_EVERY`; a save already waiting is not moved.
    #[test]
    fn the_memory_is_saved_at_most_every_few_seconds() {
        let t0 = Instant::now();
        let mut t = Timers::new(t0, true);
        t.save_seen(t0);
        assert!(t.take_save(t0));
        assert!(!t.take_save(t0));
        t.save_seen(t0 + secs(1));
        assert_eq!(t.next(), Some((t0 + SAVE_SEEN_EVERY, Due::SaveSeen)));
        t.save_seen(t0 + secs(2));
        assert_eq!(t.next(), Some((t0 + SAVE_SEEN_EVERY, Due::SaveSeen)));
        assert!(!t.take_save(t0 + secs(2)));
        assert!(t.take_save(t0 + SAVE_SEEN_EVERY));
        // Long after the last save: at once again.
        t.save_seen(t0 + secs(100));
        assert!(t.save_due(t0 + secs(100)));
    }

    /// An escalation is due at its time, not before.
    #[test]
    fn an_escalation_is_due_at_its_time() {
        let t0 = Instant::now();
        let mut t = Timers::new(t0, true);
        t.watch(None, || Some(t0 + secs(5)), || None);
        assert!(!t.escalation_due(t0 + secs(4)));
        assert!(t.escalation_due(t0 + secs(5)));
    }

    /// A time on the wall clock lands on the process's clock; a past one
    /// is now.
    #[test]
    fn wall_times_land_on_the_process_clock() {
        let (utc, t0) = (Utc::now(), Instant::now());
        let later = utc + chrono::TimeDelta::seconds(90);
        assert_eq!(instant_at(later, utc, t0), t0 + secs(90));
        let earlier = utc - chrono::TimeDelta::seconds(90);
        assert_eq!(instant_at(earlier, utc, t0), t0);
    }
}
