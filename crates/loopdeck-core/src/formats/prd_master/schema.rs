//! The typed shape of a PRD-master `state.json` (seed 000, v0.6), as far as
//! loopdeck reads it. Unknown fields are ignored here; writers work on the
//! raw document so they keep everything.
//!
//! Parsing has a fast path (one typed pass over the bytes) and, only when a
//! field has the wrong type, a tolerant path that parses each field on its
//! own and reports the ones it had to drop, so one bad field never hides the
//! rest of the project.

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Map, Value};

use crate::formats::json::{self, kind_of, nullable};
pub(crate) use crate::formats::json::{Scalar, Text as Id};

testing_pub!(
    #[derive(Debug, Clone, Default, Deserialize)]
    #[serde(default)]
    /// A PRD-master `state.json`, as far as loopdeck reads it.
    pub struct State {
        pub(crate) state_schema_version: Option<Scalar>,
        pub(crate) workflow_version: Option<Scalar>,
        pub(crate) project_name: Option<String>,
        pub(crate) last_updated_at_utc: Option<String>,
        pub(crate) work_type: Option<String>,
        pub(crate) workflow_mode: Option<String>,
        pub(crate) current_stage: Option<Scalar>,
        pub(crate) current_substep: Option<String>,
        #[serde(deserialize_with = "nullable")]
        pub(crate) completed_stages: Vec<Scalar>,
        pub(crate) next_action: Option<NextAction>,
        #[serde(deserialize_with = "nullable")]
        pub(crate) open_questions: Vec<OpenQuestion>,
        #[serde(deserialize_with = "nullable")]
        pub(crate) key_decisions_made: Vec<KeyDecision>,
        pub(crate) deliverables: Option<Map<String, Value>>,
        #[serde(deserialize_with = "nullable")]
        pub(crate) user_inputs_log: Vec<UserInput>,
    }
);

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct NextAction {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub description: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub askuserquestion_options: Vec<String>,
    #[serde(deserialize_with = "nullable")]
    pub question_ids: Vec<Id>,
    #[serde(deserialize_with = "nullable")]
    pub research_ids: Vec<Id>,
    /// The human's choice, once made (`choose` writes `{option, text, at,
    /// by}`): anything but null means answered, as `choose` refuses it.
    pub answer: Option<Value>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct OpenQuestion {
    pub id: Option<Scalar>,
    pub title: Option<String>,
    pub kind: Option<String>,
    pub category: Option<String>,
    pub priority: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub depends_on: Vec<Id>,
    pub owner: Option<String>,
    pub status: Option<String>,
    pub evidence_needed: Option<String>,
    pub acceptance_threshold: Option<String>,
    pub due_by: Option<String>,
    // Synonyms the seed forbids; read only to report them.
    /// Kept as a value: a node that says `type` instead of `kind` still
    /// tells its kind.
    #[serde(rename = "type")]
    pub synonym_type: Option<Value>,
    pub evidence_required: Option<IgnoredAny>,
    pub deadline: Option<IgnoredAny>,
    pub awaiting_evidence: Option<IgnoredAny>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct KeyDecision {
    pub id: Option<String>,
    pub decision: Option<String>,
    pub stage: Option<Scalar>,
    pub rationale: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct UserInput {
    pub stage: Option<Scalar>,
    pub timestamp: Option<String>,
    pub summary: Option<String>,
}

testing_pub!(
    /// Why a `state.json` could not be used at all.
    #[derive(Debug)]
    pub enum ParseFailure {
        /// Not JSON (truncated, binary, invalid UTF-8...).
        Syntax(serde_json::Error),
        /// JSON, but not an object.
        NotAnObject,
    }
);

testing_pub!(
    /// Parse `state.json` bytes. Returns the state and the problems met on the
    /// way (fields of the wrong type, which were dropped).
    pub fn parse(bytes: &[u8]) -> Result<(State, Vec<String>), ParseFailure> {
        let bytes = json::strip_bom(bytes);
        // The limits a decision's edit meets, met here first (see `json`).
        json::within_limits(bytes).map_err(ParseFailure::Syntax)?;
        // serde would also accept a struct written as an array; a state is an object.
        let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
        if first.is_some_and(|b| *b != b'{') {
            return match serde_json::from_slice::<serde::de::IgnoredAny>(bytes) {
                Ok(_) => Err(ParseFailure::NotAnObject),
                Err(e) => Err(ParseFailure::Syntax(e)),
            };
        }
        match serde_json::from_slice::<State>(bytes) {
            Ok(state) => Ok((state, Vec::new())),
            Err(e) if e.is_data() => tolerant(bytes),
            Err(e) => Err(ParseFailure::Syntax(e)),
        }
    }
);

/// The slow path: the fields of the wrong type are dropped (and reported);
/// the lists of objects are read element by element, so one bad node loses
/// only its own bad fields and keeps its id (nodes waiting on it stay
/// blocked).
fn tolerant(bytes: &[u8]) -> Result<(State, Vec<String>), ParseFailure> {
    let value: Value = serde_json::from_slice(bytes).map_err(ParseFailure::Syntax)?;
    let Value::Object(mut map) = value else {
        return Err(ParseFailure::NotAnObject);
    };
    let mut problems = Vec::new();
    let questions = take_list(&mut map, "open_questions", &mut problems);
    let decisions = take_list(&mut map, "key_decisions_made", &mut problems);
    let inputs = take_list(&mut map, "user_inputs_log", &mut problems);
    let mut s: State = json::tolerant(Value::Object(map), "", &mut problems).unwrap_or_default();
    s.open_questions = json::each(questions, "open_questions", &mut problems);
    s.key_decisions_made = json::each(decisions, "key_decisions_made", &mut problems);
    s.user_inputs_log = json::each(inputs, "user_inputs_log", &mut problems);
    Ok((s, problems))
}

/// Remove the array `key` from `map` (null or absent: empty).
fn take_list(map: &mut Map<String, Value>, key: &str, problems: &mut Vec<String>) -> Vec<Value> {
    match map.remove(key) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items,
        Some(other) => {
            problems.push(format!(
                "field `{key}` ignored: expected an array, found {}",
                kind_of(&other)
            ));
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrong_types_drop_only_their_field() {
        let bytes = br#"{"current_stage": "1", "project_name": 7,
            "open_questions": [{"id": "OQ-1", "depends_on": "OQ-2"}, {"id": "OQ-3"}]}"#;
        let (s, problems) = parse(bytes).unwrap();
        assert_eq!(s.current_stage, Some(Scalar::Str("1".into())));
        assert_eq!(s.project_name, None);
        assert_eq!(s.open_questions.len(), 2, "the bad node keeps its id");
        assert_eq!(s.open_questions[0].id, Some(Scalar::Str("OQ-1".into())));
        assert!(s.open_questions[0].depends_on.is_empty());
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("project_name"));
        assert!(problems[1].contains("open_questions[0]"));
    }

    #[test]
    fn nulls_and_numeric_ids_are_read_and_bad_nodes_keep_their_id() {
        let bytes = br#"{"current_stage": "1",
            "next_action": {"type": "stage1_frontier", "question_ids": [7], "research_ids": null},
            "open_questions": [
                {"id": 7, "depends_on": null, "status": "pending_user"},
                {"id": "OQ-2", "title": 5, "depends_on": ["7"]}
            ]}"#;
        let (s, problems) = parse(bytes).unwrap();
        let na = s.next_action.unwrap();
        assert_eq!(na.question_ids, vec![Id("7".into())]);
        assert!(na.research_ids.is_empty());
        assert_eq!(s.open_questions.len(), 2);
        assert_eq!(s.open_questions[1].id, Some(Scalar::Str("OQ-2".into())));
        assert_eq!(s.open_questions[1].depends_on, vec![Id("7".into())]);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("title"));
    }

    #[test]
    fn truncated_json_is_a_syntax_failure() {
        assert!(matches!(
            parse(br#"{"current_stage": "1", "open_"#),
            Err(ParseFailure::Syntax(_))
        ));
        assert!(matches!(parse(b"[1,2]"), Err(ParseFailure::NotAnObject)));
    }
}
