//! Reading a devloop timeline further back than the loader's tail, on
//! demand: walking `timeline.ndjson` from its end (so appends while the
//! console runs cost nothing) past the oldest event the console already
//! holds, then collecting the events before it, up to the file's first line.

use std::path::Path;

use super::timeline::{TIMELINE, event};
use crate::model::Event;
use crate::store::StoreError;
use crate::store::ndjson::{RevLine, ReverseLines};

const CHUNK: usize = 64 * 1024;

/// Events older than an anchor, oldest first.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Older {
    pub events: Vec<Event>,
    /// The walk reached the file's first line: nothing older exists.
    pub at_start: bool,
    /// The anchor was not found (the file was replaced): nothing was read.
    pub lost: bool,
}

/// Up to `want` events before the newest event `is_anchor` accepts, read
/// backwards from the end of `dir/timeline.ndjson`. Lines that are not
/// events are skipped, as the loader skips them.
pub(crate) fn before(
    dir: &Path,
    is_anchor: impl Fn(&Event) -> bool,
    want: usize,
) -> Result<Older, StoreError> {
    let mut lines = ReverseLines::open_in(dir, TIMELINE, u64::MAX)?.with_chunk(CHUNK);
    let mut found = false;
    let mut events = Vec::new();
    loop {
        let line = match lines.next_line()? {
            None => {
                events.reverse();
                return Ok(Older {
                    events,
                    at_start: found,
                    lost: !found,
                });
            }
            Some(RevLine::TooLong(_)) => continue,
            Some(RevLine::Line(l)) => l,
        };
        let Some(e) = event(line) else { continue };
        if !found {
            found = is_anchor(&e);
            continue;
        }
        if events.len() == want {
            events.reverse();
            return Ok(Older {
                events,
                at_start: false,
                lost: false,
            });
        }
        events.push(e);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn line(i: usize) -> String {
        format!(
            "{{\"ts\":\"2026-05-01T00:{:02}:{:02}Z\",\"source\":\"coder\",\"kind\":\"run\",\"summary\":\"event {i}\"}}\n",
            i / 60,
            i % 60
        )
    }

    #[test]
    fn reads_back_from_the_anchor_to_the_first_line() {
        let dir = tempfile::tempdir().unwrap();
        let mut text = String::new();
        for i in 0..120 {
            text.push_str(&line(i));
            if i == 7 {
                text.push_str("not json\n");
            }
        }
        std::fs::write(dir.path().join(TIMELINE), &text).unwrap();
        let anchor = |n: usize| move |e: &Event| e.summary == format!("event {n}");
        // The loader holds the last 50 (70..119): the 50 before event 70.
        let got = before(dir.path(), anchor(70), 50).unwrap();
        let summaries: Vec<String> = got.events.iter().map(|e| e.summary.clone()).collect();
        let expected: Vec<String> = (20..70).map(|i| format!("event {i}")).collect();
        assert_eq!(summaries, expected);
        assert!(!got.at_start);
        // Then from event 20 back to the first line.
        let got = before(dir.path(), anchor(20), 50).unwrap();
        assert_eq!(got.events.len(), 20);
        assert_eq!(got.events[0].summary, "event 0");
        assert!(got.at_start, "reached the first line");
        // An anchor that is not there: the file was replaced.
        let got = before(dir.path(), anchor(999), 50).unwrap();
        assert!(got.lost && got.events.is_empty());
    }
}
