//! A human action's `timeline.ndjson` event, in the seed's shape
//! (ProcessTimeline): `{ts, source, kind, ref?, summary, payload?}` with
//! `ts` in unix seconds, `source: "human"`, a summary of at most 280
//! characters (cut on a character boundary, with an ellipsis, as the
//! seed's TimelineLogger does) and the whole line at most 1 KB.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use crate::store::txn::Edit;

use super::super::timeline::TIMELINE;

/// The seed's bound on one timeline line.
pub(super) const MAX_LINE: usize = 1024;
/// The seed's bound on a summary, in characters.
pub(super) const MAX_SUMMARY: usize = 280;
/// A `ref` is an id; longer ones are cut.
const MAX_REF: usize = 200;

/// One human event.
pub(super) struct Event<'a> {
    pub kind: &'a str,
    pub reference: Option<&'a str>,
    pub summary: String,
    pub payload: Option<Value>,
}

impl Event<'_> {
    /// The line (no newline), within the seed's bounds: the summary is cut
    /// to 280 characters; a line still over 1 KB drops its payload, then
    /// cuts the summary further.
    pub(super) fn line(&self, now: DateTime<Utc>) -> Vec<u8> {
        let mut summary = cut(&self.summary, MAX_SUMMARY);
        let reference = self.reference.map(|r| cut(r, MAX_REF));
        let mut payload = self.payload.clone();
        loop {
            let mut m = Map::new();
            m.insert("ts".into(), Value::from(now.timestamp()));
            m.insert("source".into(), Value::from("human"));
            m.insert("kind".into(), Value::from(self.kind));
            if let Some(r) = &reference {
                m.insert("ref".into(), Value::from(r.as_str()));
            }
            m.insert("summary".into(), Value::from(summary.as_str()));
            if let Some(p) = &payload {
                m.insert("payload".into(), p.clone());
            }
            let line = serde_json::to_vec(&Value::Object(m)).unwrap_or_default();
            if line.len() <= MAX_LINE || summary.is_empty() {
                return line;
            }
            if payload.take().is_none() {
                let n = summary.chars().count();
                summary = cut(&summary, n.saturating_sub(n / 4 + 1));
            }
        }
    }

    /// The append of this event to the project's timeline.
    pub(super) fn edit(&self, now: DateTime<Utc>) -> Edit {
        Edit::AppendLine {
            file: TIMELINE.to_owned(),
            line: self.line(now),
        }
    }
}

/// `text` cut to at most `max` characters, the last one an ellipsis when
/// anything was cut.
pub(super) fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    if max == 0 {
        return String::new();
    }
    let mut out: String = text.chars().take(max - 1).collect();
    out.push('…');
    out
}

/// A text on one line (for a summary): line breaks and tabs become spaces.
pub(super) fn one_line(text: &str) -> String {
    text.split(['\n', '\r', '\t'])
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        "2026-06-01T12:00:00Z".parse().unwrap()
    }

    fn parsed(e: &Event<'_>) -> Value {
        let line = e.line(now());
        assert!(line.len() <= MAX_LINE, "{} bytes", line.len());
        assert!(!line.contains(&b'\n'));
        serde_json::from_slice(&line).unwrap()
    }

    #[test]
    fn the_seed_shape_in_the_seed_order() {
        let e = Event {
            kind: "bug_transitioned",
            reference: Some("bug-1"),
            summary: "bug-1 open → fixing".into(),
            payload: Some(serde_json::json!({"from": "open"})),
        };
        assert_eq!(
            String::from_utf8(e.line(now())).unwrap(),
            r#"{"ts":1780315200,"source":"human","kind":"bug_transitioned","ref":"bug-1","summary":"bug-1 open → fixing","payload":{"from":"open"}}"#
        );
    }

    #[test]
    fn a_long_summary_is_cut_at_280_characters_on_a_char_boundary() {
        let long = "界".repeat(400);
        let e = Event {
            kind: "k",
            reference: None,
            summary: long,
            payload: None,
        };
        let v = parsed(&e);
        let s = v["summary"].as_str().unwrap();
        assert_eq!(s.chars().count(), MAX_SUMMARY);
        assert!(s.ends_with('…'));
        assert!(s.starts_with("界界"));
    }

    #[test]
    fn a_line_over_1_kb_drops_its_payload_then_shortens_its_summary() {
        // 280 control characters escape to 6 bytes each: 1,680 bytes.
        let e = Event {
            kind: "k",
            reference: Some("r"),
            summary: "\u{1}".repeat(300),
            payload: Some(serde_json::json!({"note": "x".repeat(900)})),
        };
        let v = parsed(&e);
        assert!(v.get("payload").is_none());
        assert!(v["summary"].as_str().unwrap().ends_with('…'));
        // A payload that fits is kept.
        let small = Event {
            kind: "k",
            reference: Some("r"),
            summary: "s".into(),
            payload: Some(serde_json::json!({"note": "x".repeat(800)})),
        };
        assert!(parsed(&small).get("payload").is_some());
    }

    #[test]
    fn one_line_joins_lines() {
        assert_eq!(one_line("a\nb\r\n\tc"), "a b c");
        assert_eq!(cut("abc", 3), "abc");
        assert_eq!(cut("abcd", 3), "ab…");
    }
}
