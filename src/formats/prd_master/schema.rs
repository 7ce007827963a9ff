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

/// A string or a number (`"4.5"` and `4.5` both occur in the wild).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Scalar {
    Str(String),
    Num(serde_json::Number),
}

impl Scalar {
    pub fn text(&self) -> String {
        match self {
            Scalar::Str(s) => s.clone(),
            Scalar::Num(n) => n.to_string(),
        }
    }
}

/// A node id as written: a string, or a number (`7` and `"7"` are the same id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Id(pub String);

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Scalar::deserialize(d).map(|s| Id(s.text()))
    }
}

/// `null` reads as the empty value: agents write `"depends_on": null` for "none".
fn nullable<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Option::<T>::deserialize(d).map(Option::unwrap_or_default)
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct State {
    pub state_schema_version: Option<Scalar>,
    pub workflow_version: Option<Scalar>,
    pub project_name: Option<String>,
    pub last_updated_at_utc: Option<String>,
    pub work_type: Option<String>,
    pub workflow_mode: Option<String>,
    pub current_stage: Option<Scalar>,
    pub current_substep: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub completed_stages: Vec<Scalar>,
    pub next_action: Option<NextAction>,
    #[serde(deserialize_with = "nullable")]
    pub open_questions: Vec<OpenQuestion>,
    #[serde(deserialize_with = "nullable")]
    pub key_decisions_made: Vec<KeyDecision>,
    pub deliverables: Option<Map<String, Value>>,
    #[serde(deserialize_with = "nullable")]
    pub user_inputs_log: Vec<UserInput>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct NextAction {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub description: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub askuserquestion_options: Vec<String>,
    #[serde(deserialize_with = "nullable")]
    pub question_ids: Vec<Id>,
    #[serde(deserialize_with = "nullable")]
    pub research_ids: Vec<Id>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct OpenQuestion {
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
pub struct KeyDecision {
    pub id: Option<String>,
    pub decision: Option<String>,
    pub stage: Option<Scalar>,
    pub rationale: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct UserInput {
    pub stage: Option<Scalar>,
    pub timestamp: Option<String>,
    pub summary: Option<String>,
}

/// Why a `state.json` could not be used at all.
#[derive(Debug)]
pub enum ParseFailure {
    /// Not JSON (truncated, binary, invalid UTF-8...).
    Syntax(serde_json::Error),
    /// JSON, but not an object.
    NotAnObject,
}

/// Parse `state.json` bytes. Returns the state and the problems met on the
/// way (fields of the wrong type, which were dropped).
pub fn parse(bytes: &[u8]) -> Result<(State, Vec<String>), ParseFailure> {
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

/// The slow path: parse each known field on its own.
fn tolerant(bytes: &[u8]) -> Result<(State, Vec<String>), ParseFailure> {
    let value: Value = serde_json::from_slice(bytes).map_err(ParseFailure::Syntax)?;
    let Value::Object(mut map) = value else {
        return Err(ParseFailure::NotAnObject);
    };
    let mut problems = Vec::new();
    let mut s = State {
        state_schema_version: field(&mut map, "state_schema_version", &mut problems),
        workflow_version: field(&mut map, "workflow_version", &mut problems),
        project_name: field(&mut map, "project_name", &mut problems),
        last_updated_at_utc: field(&mut map, "last_updated_at_utc", &mut problems),
        work_type: field(&mut map, "work_type", &mut problems),
        workflow_mode: field(&mut map, "workflow_mode", &mut problems),
        current_stage: field(&mut map, "current_stage", &mut problems),
        current_substep: field(&mut map, "current_substep", &mut problems),
        completed_stages: each(&mut map, "completed_stages", &mut problems),
        next_action: field(&mut map, "next_action", &mut problems),
        open_questions: Vec::new(),
        key_decisions_made: each(&mut map, "key_decisions_made", &mut problems),
        deliverables: field(&mut map, "deliverables", &mut problems),
        user_inputs_log: each(&mut map, "user_inputs_log", &mut problems),
    };
    s.open_questions = questions(&mut map, &mut problems);
    Ok((s, problems))
}

fn field<T: serde::de::DeserializeOwned>(
    map: &mut Map<String, Value>,
    key: &str,
    problems: &mut Vec<String>,
) -> Option<T> {
    let v = map.remove(key)?;
    if v.is_null() {
        return None;
    }
    match serde_json::from_value(v) {
        Ok(t) => Some(t),
        Err(e) => {
            problems.push(format!("field `{key}` ignored: {e}"));
            None
        }
    }
}

/// An array field whose elements are parsed one by one, so one bad element
/// drops only itself.
fn each<T: serde::de::DeserializeOwned>(
    map: &mut Map<String, Value>,
    key: &str,
    problems: &mut Vec<String>,
) -> Vec<T> {
    match map.remove(key) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .into_iter()
            .enumerate()
            .filter_map(|(i, v)| match serde_json::from_value(v) {
                Ok(t) => Some(t),
                Err(e) => {
                    problems.push(format!("`{key}[{i}]` ignored: {e}"));
                    None
                }
            })
            .collect(),
        Some(other) => {
            problems.push(format!(
                "field `{key}` ignored: expected an array, found {}",
                kind_of(&other)
            ));
            Vec::new()
        }
    }
}

/// `open_questions`, where a node that fails as a whole is read field by
/// field: it keeps its id (so nodes depending on it stay blocked) and loses
/// only the fields it cannot give.
fn questions(map: &mut Map<String, Value>, problems: &mut Vec<String>) -> Vec<OpenQuestion> {
    let items = match map.remove("open_questions") {
        None | Some(Value::Null) => return Vec::new(),
        Some(Value::Array(items)) => items,
        Some(other) => {
            problems.push(format!(
                "field `open_questions` ignored: expected an array, found {}",
                kind_of(&other)
            ));
            return Vec::new();
        }
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, v) in items.into_iter().enumerate() {
        match serde_json::from_value::<OpenQuestion>(v.clone()) {
            Ok(q) => out.push(q),
            Err(e) => {
                let Value::Object(mut node) = v else {
                    problems.push(format!("`open_questions[{i}]` ignored: {e}"));
                    continue;
                };
                let mut node_problems = Vec::new();
                let q = OpenQuestion {
                    id: field(&mut node, "id", &mut node_problems),
                    title: field(&mut node, "title", &mut node_problems),
                    kind: field(&mut node, "kind", &mut node_problems),
                    category: field(&mut node, "category", &mut node_problems),
                    priority: field(&mut node, "priority", &mut node_problems),
                    depends_on: each(&mut node, "depends_on", &mut node_problems),
                    owner: field(&mut node, "owner", &mut node_problems),
                    status: field(&mut node, "status", &mut node_problems),
                    evidence_needed: field(&mut node, "evidence_needed", &mut node_problems),
                    acceptance_threshold: field(
                        &mut node,
                        "acceptance_threshold",
                        &mut node_problems,
                    ),
                    due_by: field(&mut node, "due_by", &mut node_problems),
                    synonym_type: node.remove("type"),
                    evidence_required: node.remove("evidence_required").map(|_| IgnoredAny),
                    deadline: node.remove("deadline").map(|_| IgnoredAny),
                    awaiting_evidence: node.remove("awaiting_evidence").map(|_| IgnoredAny),
                };
                for p in node_problems {
                    problems.push(format!("`open_questions[{i}]`: {p}"));
                }
                out.push(q);
            }
        }
    }
    out
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
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
