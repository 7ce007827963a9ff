//! The watcher thread's loop: set the watches up, then wait for events,
//! the next poll (while polling) and the next reconciliation scan.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use super::super::{Liveness, Msg, Options, Sink};
use super::status::Cause;
use super::watching::{Backend, Watching};
use super::{In, MAX_WATCHES_ENV, Mode, events, set};

/// After a scan, events still in flight are waited for this long (from
/// the last one) before the scan is judged.
const GRACE: Duration = Duration::from_millis(150);
/// ... and at most this long in all.
const GRACE_MAX: Duration = Duration::from_secs(2);

/// The testing knob's value, if set.
fn env_max_watches() -> Option<usize> {
    std::env::var(MAX_WATCHES_ENV).ok()?.trim().parse().ok()
}

/// Follow `roots` until the handle is dropped or the front end is gone.
pub(super) fn run(
    roots: Vec<PathBuf>,
    sink: Sink,
    opts: Options,
    tx: Sender<In>,
    rx: &Receiver<In>,
    stop: &Arc<AtomicBool>,
) {
    if opts.mode == Mode::Poll {
        poll_only(&sink, &opts, rx, &Cause::Configured.reason());
        return;
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    let abs: Vec<PathBuf> = roots.iter().map(|r| set::absolute(r, &cwd)).collect();
    let to_front = sink.clone();
    let cb_roots = abs.clone();
    let watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
        if let Some(msg) = events::message(&res, &cb_roots) {
            let _ = to_front.send(msg);
        }
        // Reads (loopdeck's own among them) are most events, and a root's
        // parent sees its other entries' churn: neither is passed on.
        if events::for_the_watcher(&res, &cb_roots) {
            let _ = tx.send(In::Event(res));
        }
    });
    let backend = match watcher {
        Ok(w) => w,
        Err(e) => {
            poll_only(&sink, &opts, rx, &Cause::NoWatcher(e.to_string()).reason());
            return;
        }
    };
    let max = opts.max_watches.or_else(env_max_watches);
    let mut w = Watching::new(
        backend,
        abs,
        sink.clone(),
        max,
        opts.poll_every.as_secs(),
        stop.clone(),
    );
    w.setup();
    if stop.load(Ordering::Relaxed) {
        return;
    }
    // What was written while the watches were being added raised no
    // event: read everything once more.
    if !sink.send(Msg::Changed(Vec::new())) || !w.tell(true) {
        return;
    }
    follow(&mut w, &sink, &opts, rx, stop);
}

fn follow<B: Backend>(
    w: &mut Watching<B>,
    sink: &Sink,
    opts: &Options,
    rx: &Receiver<In>,
    stop: &AtomicBool,
) {
    let reconcile = opts.reconcile_every.max(Duration::from_secs(1));
    let poll = opts.poll_every.max(Duration::from_millis(100));
    let mut next_scan = Instant::now() + reconcile;
    let mut next_poll: Option<Instant> = None;
    loop {
        let now = Instant::now();
        if w.status.polling() {
            next_poll.get_or_insert(now + poll);
        } else {
            next_poll = None;
        }
        let due = next_poll.map_or(next_scan, |p| p.min(next_scan));
        match rx.recv_timeout(due.saturating_duration_since(now)) {
            Ok(In::Stop) | Err(RecvTimeoutError::Disconnected) => return,
            Ok(In::Event(res)) => w.on_event(res),
            Err(RecvTimeoutError::Timeout) => {}
        }
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let now = Instant::now();
        if next_poll.is_some_and(|p| p <= now) {
            next_poll = Some(now + poll);
            if !sink.send(Msg::Poll) {
                return;
            }
        }
        let mut recount = false;
        if next_scan <= now {
            let started = Instant::now();
            let pending = w.scan();
            let took = started.elapsed();
            if !drain(w, rx) {
                return;
            }
            w.finish(pending, true);
            next_scan = Instant::now() + scan_period(reconcile, took);
            recount = true;
        }
        if !w.tell(recount) {
            return;
        }
    }
}

/// An idle console's scans cost at most 1/`SCAN_SHARE` of a core.
const SCAN_SHARE: u32 = 400;

/// When the next scan is due: `every`, or later when the last scan took
/// so long (a huge tree) that scanning every `every` would cost more than
/// 1/`SCAN_SHARE` of a core while nothing happens.
fn scan_period(every: Duration, took: Duration) -> Duration {
    every.max(took.saturating_mul(SCAN_SHARE))
}

/// Take the events in flight (false: stop).
fn drain<B: Backend>(w: &mut Watching<B>, rx: &Receiver<In>) -> bool {
    let until = Instant::now() + GRACE_MAX;
    loop {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return true;
        }
        match rx.recv_timeout(GRACE.min(left)) {
            Ok(In::Event(res)) => w.on_event(res),
            Ok(In::Stop) | Err(RecvTimeoutError::Disconnected) => return false,
            Err(RecvTimeoutError::Timeout) => return true,
        }
    }
}

/// No events for this run: read everything every `poll_every`, saying why.
pub(super) fn poll_only(sink: &Sink, opts: &Options, rx: &Receiver<In>, reason: &str) {
    let _ = sink.send(Msg::Liveness(Liveness::Polling {
        every_secs: opts.poll_every.as_secs(),
        reason: reason.to_owned(),
    }));
    let every = opts.poll_every.max(Duration::from_millis(100));
    loop {
        match rx.recv_timeout(every) {
            Err(RecvTimeoutError::Timeout) => {
                if !sink.send(Msg::Poll) {
                    return;
                }
            }
            // Only the handle sends here now: it is being dropped.
            Ok(In::Stop) | Err(RecvTimeoutError::Disconnected) => return,
            Ok(In::Event(_)) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slow_scan_spaces_the_next_ones_out() {
        let every = Duration::from_secs(45);
        assert_eq!(scan_period(every, Duration::from_millis(40)), every);
        assert_eq!(
            scan_period(every, Duration::from_millis(300)),
            Duration::from_secs(120)
        );
    }
}
