//! Work the effects hand to worker threads, never in the way of a key:
//! decisions, the audit log, older timeline events, a revision's
//! comparison, a resume card's excerpts. Each answers with its `Event`; a
//! panic (`guard::guarded`) answers too, as `Event::Failed` or, for a
//! decision, the `Event::Decided` its form waits for.

use std::path::PathBuf;
use std::sync::mpsc::Sender;

use super::Msg;
use crate::app::{self, Event};
use crate::model::Project;
use loopdeck_core::{follow as watch, read as formats};

/// Run `job` on a worker thread; its event, or `Event::Failed` when it
/// panics, reaches the loop. A thread that cannot start is a failure too.
pub(super) fn worker(
    tx: Sender<Msg>,
    what: &'static str,
    job: impl FnOnce() -> Event + Send + 'static,
) {
    watch::job_worker(
        move |m| tx.send(m).is_ok(),
        what,
        move || Msg::App(job()),
        |why| Msg::App(Event::Failed(why)),
    );
}

/// Run a decision (or an undo) on a worker thread; its answer, or its
/// failure, comes back as the `Event::Decided` the form waits for (a
/// decision whose thread died must not leave the form waiting).
pub(super) fn decision_worker(
    tx: Sender<Msg>,
    seq: u64,
    job: impl FnOnce() -> app::decide::Decided + Send + 'static,
) {
    let lang = crate::i18n::current();
    watch::job_worker(
        move |m| tx.send(m).is_ok(),
        crate::t!("runtime.worker.deciding"),
        move || Msg::App(Event::Decided { seq, result: job() }),
        move |why| {
            // Said in the language of the loop that asked (the same as the
            // process's, but a test's thread may speak its own).
            let _lang = crate::i18n::scoped(lang);
            Msg::App(Event::Decided {
                seq,
                result: app::decide::Decided::Failed {
                    message: crate::t!("runtime.worker.died", why = why),
                    why: app::decide::Why::Refused,
                },
            })
        },
    );
}

/// Every decision of the audit log, newest first, as the console lists it.
fn read_audit() -> Result<Vec<crate::model::AuditEntry>, String> {
    use loopdeck_core::decide::audit;
    let dir = audit::default_dir().ok_or_else(|| audit::NO_DIR.to_owned())?;
    audit::history(&dir, |_| true)
        .map(|found| found.iter().map(|(r, s)| audit::entry(r, s)).collect())
        .map_err(|e| e.to_string())
}

/// The audit log, read in the background.
pub(super) fn audit(tx: Sender<Msg>) {
    worker(tx, crate::t!("runtime.worker.audit"), move || {
        Event::Audit(read_audit())
    });
}

/// Timeline events before `anchor`, read in the background.
pub(super) fn read_older(path: PathBuf, anchor: crate::model::Event, want: usize, tx: Sender<Msg>) {
    worker(tx, crate::t!("runtime.worker.timeline"), move || {
        // The anchor is an event as the file holds it: compared as read.
        let got = formats::older_events(&path, |e| *e == anchor, want);
        match got {
            Ok(o) => Event::Older {
                path,
                anchor,
                events: o.events,
                at_start: o.at_start || o.lost,
            },
            // Unreadable now: stop asking; a reload reads the tail again.
            Err(_) => Event::Older {
                path,
                anchor,
                events: Vec::new(),
                at_start: true,
            },
        }
    });
}

/// Revision `index` of `p` compared with the one before it, in the
/// background (`key`: the drawer that asked).
pub(super) fn compare(p: Project, index: usize, key: String, tx: Sender<Msg>) {
    worker(tx, crate::t!("runtime.worker.compare"), move || {
        let diff = formats::compare_revision(&p, index).unwrap_or_else(|| crate::model::DocDiff {
            problem: Some(crate::t!("runtime.compare.none").to_owned()),
            ..Default::default()
        });
        Event::Compared {
            path: p.path.clone(),
            key,
            diff: Box::new(diff),
            files: p.files.clone(),
        }
    });
}

/// The opening lines of `p`'s read-first files, in the background.
pub(super) fn excerpts(p: Project, tx: Sender<Msg>) {
    worker(tx, crate::t!("runtime.worker.excerpts"), move || {
        Event::Excerpts(p.path.clone(), formats::excerpts(&p, 2, 8))
    });
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::runtime::next_event;
    use chrono::Utc;
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn a_panicking_worker_becomes_a_failed_event() {
        let (tx, rx) = mpsc::channel::<Msg>();
        worker(tx, "reading the projects", || {
            // What store::mtime did with a year-262143 mtime: chrono's
            // "No such local time" panic, in the loader.
            let at = chrono::DateTime::<Utc>::from_timestamp(i64::MAX, 0);
            Event::Loaded(vec![crate::model::Project::new(
                crate::model::Format::Gsd,
                PathBuf::from(at.expect("No such local time").to_rfc3339()),
                String::new(),
            )])
        });
        match rx.recv_timeout(Duration::from_secs(10)) {
            Ok(Msg::App(Event::Failed(why))) => {
                assert_eq!(why, "reading the projects: No such local time");
            }
            Ok(Msg::App(other)) => panic!("not a failure: {other:?}"),
            Ok(_) => panic!("not a failure"),
            Err(e) => panic!("the worker died silently: {e}"),
        }
    }

    /// Older timeline events are found before an anchor held as the file
    /// holds it (an escape in its summary included), and come back raw.
    #[test]
    fn older_events_are_found_before_a_raw_anchor() {
        let dir = tempfile::tempdir().unwrap();
        let line = |i: u32| {
            format!(
                "{{\"ts\":\"2026-06-01T10:0{i}:00Z\",\"source\":\"coder\",\"kind\":\"k\",\"summary\":\"s{i}\\u001b[31m\"}}\n"
            )
        };
        std::fs::write(
            dir.path().join("timeline.ndjson"),
            (0..4).map(line).collect::<String>(),
        )
        .unwrap();
        let anchor =
            loopdeck_core::formats::devloop::timeline::event(line(3).trim().as_bytes()).unwrap();
        assert_eq!(anchor.summary, "s3\u{1b}[31m");
        let (tx, rx) = mpsc::channel::<Msg>();
        read_older(dir.path().to_path_buf(), anchor, 10, tx);
        match next_event(&rx) {
            Event::Older {
                events, at_start, ..
            } => {
                let got: Vec<&str> = events.iter().map(|e| e.summary.as_str()).collect();
                assert_eq!(got, ["s0\u{1b}[31m", "s1\u{1b}[31m", "s2\u{1b}[31m"]);
                assert!(at_start);
            }
            other => panic!("not older: {other:?}"),
        }
    }

    /// A decision whose thread dies answers the form it was asked for
    /// (with its number), so the form never waits in "writing…" for ever.
    #[test]
    fn a_panicking_decision_answers_its_form() {
        let (tx, rx) = mpsc::channel::<Msg>();
        decision_worker(tx, 7, || {
            let v: Vec<u8> = Vec::new();
            let i = v.len() + 3;
            app::decide::Decided::Failed {
                message: format!("{}", v[i]),
                why: app::decide::Why::Refused,
            }
        });
        match next_event(&rx) {
            Event::Decided {
                seq: 7,
                result: app::decide::Decided::Failed { message, why },
            } => {
                assert!(message.starts_with("deciding: "), "{message}");
                assert_eq!(why, app::decide::Why::Refused);
            }
            other => panic!("not the form's answer: {other:?}"),
        }
    }

    #[test]
    fn a_worker_that_succeeds_sends_its_event() {
        let (tx, rx) = mpsc::channel::<Msg>();
        worker(tx, "x", || Event::Resize);
        assert!(matches!(
            rx.recv_timeout(Duration::from_secs(10)),
            Ok(Msg::App(Event::Resize))
        ));
    }
}
