//! The compensating event of an undo (issue 19 §4; ARCHITECTURE.md's
//! write rule 6): `timeline.ndjson` is append-only (seed 003), so an undo of a
//! decision that appended an event there never rewrites it; it appends a
//! human event after it saying what was undone, by whom, with loopdeck's
//! audit id. The undo machinery (`store::audit::undo_edits`) calls
//! [`undone_event`] for each log line the undone decision appended; the
//! shape of the event is known here only.

use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::super::timeline::TIMELINE;
use super::event::{Event, one_line};
use crate::store::txn::Edit;

/// The event kind of an undo.
pub(super) const KIND: &str = "decision_undone";

/// What the decision was, in words (`decision` is the audit record's JSON
/// of the verb).
fn what(decision: &Value) -> String {
    let field = |k: &str| decision.get(k).and_then(Value::as_str).map(one_line);
    match field("verb").as_deref() {
        Some("sign-off") => "the sign-off".to_owned(),
        Some("abandon") => "the abandon".to_owned(),
        Some("resume-agent") => format!(
            "the {} decision for {}",
            field("choice").unwrap_or_else(|| "resume".to_owned()),
            field("agent").unwrap_or_else(|| "an agent".to_owned())
        ),
        // Taking back an undo is a redo; taking back a redo, an undo again.
        Some("undo") => format!(
            "the undo of decision {}",
            field("undoes")
                .or_else(|| field("of"))
                .unwrap_or_else(|| "?".to_owned())
        ),
        Some("redo") => format!(
            "the redo of decision {}",
            field("redoes").unwrap_or_else(|| "?".to_owned())
        ),
        Some(v) => format!("the {v} decision"),
        None => "a decision".to_owned(),
    }
}

/// The event that records the undo of decision `audit_id` (whose verb is
/// `decision`) on the project at `project`, for the log line it appended
/// to `file`; `None` when `file` is not the project's timeline (nothing
/// else of devloop's is a log loopdeck appends to beside a decision).
pub(crate) fn undone_event(
    decision: &Value,
    project: &Path,
    audit_id: &str,
    file: &str,
    by: &str,
    now: DateTime<Utc>,
) -> Option<Edit> {
    if file != TIMELINE {
        return None;
    }
    let pid = crate::formats::file_name(project);
    let mut payload = Map::new();
    payload.insert("undone".into(), Value::from(audit_id));
    payload.insert("decision".into(), decision.clone());
    payload.insert("by".into(), Value::from(by));
    let event = Event {
        kind: KIND,
        reference: Some(audit_id),
        summary: format!(
            "{by} undid {} of {pid} (loopdeck decision {audit_id}): the files it replaced are back as they were; its event above stays",
            what(decision)
        ),
        payload: Some(Value::Object(payload)),
    };
    Some(event.edit(now))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_event_names_the_decision_the_id_and_who() {
        let now: DateTime<Utc> = "2026-06-01T12:00:00Z".parse().unwrap();
        let d = json!({"verb": "resume-agent", "agent": "integrator", "choice": "restart"});
        let Some(Edit::AppendLine { file, line }) = undone_event(
            &d,
            Path::new("/x/p-restock"),
            "ID-1",
            TIMELINE,
            "carol",
            now,
        ) else {
            panic!("an append");
        };
        assert_eq!(file, TIMELINE);
        let v: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(v["source"], "human");
        assert_eq!(v["kind"], KIND);
        assert_eq!(v["ref"], "ID-1");
        assert_eq!(v["ts"], now.timestamp());
        assert_eq!(
            v["summary"],
            "carol undid the restart decision for integrator of p-restock (loopdeck decision ID-1): the files it replaced are back as they were; its event above stays"
        );
        assert_eq!(
            v["payload"],
            json!({"undone": "ID-1", "decision": d, "by": "carol"})
        );
        assert!(undone_event(&d, Path::new("/x"), "ID", "bugs.ndjson", "c", now).is_none());
    }
}
