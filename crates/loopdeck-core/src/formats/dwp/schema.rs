//! The typed shape of a plan's `manifest.json` and `state.json` (seed 002,
//! schemas v1, v2 and v5), as far as loopdeck reads them. Unknown fields are
//! ignored, never refused: a schema version may add fields.
//!
//! v1 tasks name their file in `file`; v2 and v5 (a snapshot of the v2
//! shape) use a typed `locator {kind, value}`. Both are read whatever the
//! declared schema says.
//!
//! Parsing has a fast path (one typed pass) and, only when some field has
//! the wrong type, a tolerant path that reads each field on its own and
//! reports the ones it had to drop, so one bad field never loses the plan.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

pub(crate) use crate::formats::json::Scalar;
use crate::formats::json::{self, kind_of, nullable, reason as json_reason};

/// One line or a list of lines (outcome `tried`/`failed`): a lone string is
/// a list of one, not an error.
fn lines<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match Option::<OneOrMany>::deserialize(d)? {
        None => Vec::new(),
        Some(OneOrMany::One(s)) => vec![s],
        Some(OneOrMany::Many(v)) => v,
    })
}

/// `manifest.json`: the plan's static identity, written once.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Manifest {
    pub schema: Option<String>,
    pub spec_version: Option<Scalar>,
    pub name: Option<String>,
    pub title: Option<String>,
    pub archetype: Option<String>,
    pub rigor: Option<String>,
    pub plan_format: Option<String>,
    pub created_at: Option<String>,
    pub task_count: Option<u64>,
}

/// `state.json`: the live execution state.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct State {
    pub schema: Option<String>,
    pub plan: Option<String>,
    pub updated_at: Option<String>,
    pub status: Option<String>,
    pub completed_count: Option<u64>,
    pub task_count: Option<u64>,
    pub format: Option<String>,
    pub materialization: Option<String>,
    pub approval: Option<String>,
    /// Non-null only while a Lite → Full promotion is under way.
    pub promotion: Option<Value>,
    #[serde(deserialize_with = "nullable")]
    pub tasks: Vec<TaskEntry>,
    pub checkpoint: Option<CheckpointEntry>,
    pub blocked: Option<Blocker>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub(crate) struct TaskEntry {
    pub id: Option<Scalar>,
    pub title: Option<String>,
    pub status: Option<String>,
    /// v1: the task's file name.
    pub file: Option<String>,
    /// v2/v5: `{kind: file | inline, value}`.
    pub locator: Option<Locator>,
    pub started_at: Option<String>,
    pub completed_at: Option<String>,
    pub commit: Option<Scalar>,
    #[serde(deserialize_with = "nullable")]
    pub gates: Vec<GateEntry>,
    pub outcome: Option<OutcomeEntry>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub(crate) struct Locator {
    pub kind: Option<String>,
    pub value: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub(crate) struct GateEntry {
    pub command: Option<String>,
    pub passes: Option<bool>,
    pub exit_code: Option<i64>,
    pub last_run: Option<String>,
    pub evidence: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub(crate) struct OutcomeEntry {
    #[serde(deserialize_with = "lines")]
    pub tried: Vec<String>,
    #[serde(deserialize_with = "lines")]
    pub failed: Vec<String>,
    pub worked: Option<String>,
    pub notes: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub(crate) struct CheckpointEntry {
    pub task: Option<Scalar>,
    pub step: Option<Scalar>,
    pub at: Option<String>,
    pub note: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub(crate) struct Blocker {
    pub task: Option<Scalar>,
    pub reason: Option<String>,
    pub since: Option<String>,
    pub needs: Option<String>,
}

/// Parse a JSON object file into `T`. Returns the value and the fields it
/// had to drop (wrong types), or why the file cannot be used at all.
pub(crate) fn parse<T: Tolerant>(bytes: &[u8]) -> Result<(T, Vec<String>), String> {
    json::must_be_object(json::strip_bom(bytes))?;
    parse_within_limits(bytes)
}

/// [`parse`] of bytes already found within the parser's limits
/// ([`json::within_limits`], past a byte-order mark): not scanned again.
pub(crate) fn parse_within_limits<T: Tolerant>(
    bytes: &[u8],
) -> Result<(T, Vec<String>), String> {
    let bytes = json::strip_bom(bytes);
    // As `must_be_object` looks: past a second mark too.
    json::must_be_object_within_limits(json::strip_bom(bytes))?;
    match serde_json::from_slice::<T>(bytes) {
        Ok(v) => Ok((v, Vec::new())),
        Err(e) if e.is_data() => {
            let value: Value = serde_json::from_slice(bytes).map_err(|e| json_reason(&e))?;
            let mut problems = Vec::new();
            match lenient::<T>(value, "", &mut problems) {
                Some(v) => Ok((v, problems)),
                None => Err(problems.join("; ")),
            }
        }
        Err(e) => Err(json_reason(&e)),
    }
}

/// [`parse`] of a document already parsed as `value` (a JSON object within
/// the parser's limits): the same reading, from the value rather than from
/// the bytes again.
pub(crate) fn parse_value<T: Tolerant>(value: &Value) -> Result<(T, Vec<String>), String> {
    match T::deserialize(value) {
        Ok(v) => Ok((v, Vec::new())),
        Err(_) => {
            let mut problems = Vec::new();
            match lenient::<T>(value.clone(), "", &mut problems) {
                Some(v) => Ok((v, problems)),
                None => Err(problems.join("; ")),
            }
        }
    }
}

/// A struct that can be read field by field when a typed pass fails.
pub(crate) trait Tolerant: DeserializeOwned {
    fn by_field(f: &mut Fields<'_>) -> Self;
}

/// The fields of one JSON object being read on the tolerant path.
pub(crate) struct Fields<'a> {
    map: Map<String, Value>,
    path: &'a str,
    problems: &'a mut Vec<String>,
}

impl Fields<'_> {
    fn at(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    /// One field; dropped (and reported) when its type is wrong.
    pub(crate) fn get<T: DeserializeOwned>(&mut self, key: &str) -> Option<T> {
        let v = self.map.remove(key)?;
        if v.is_null() {
            return None;
        }
        match serde_json::from_value(v) {
            Ok(t) => Some(t),
            Err(e) => {
                let at = self.at(key);
                self.problems.push(format!("`{at}` ignored: {e}"));
                None
            }
        }
    }

    /// A struct-valued field, itself read field by field if need be.
    pub(crate) fn nested<T: Tolerant>(&mut self, key: &str) -> Option<T> {
        let v = self.map.remove(key)?;
        if v.is_null() {
            return None;
        }
        let at = self.at(key);
        lenient(v, &at, self.problems)
    }

    /// An array whose elements are read one by one, so one bad element
    /// loses at most its own bad fields.
    pub(crate) fn list<T: Tolerant>(&mut self, key: &str) -> Vec<T> {
        let at = self.at(key);
        match self.map.remove(key) {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .into_iter()
                .enumerate()
                .filter_map(|(i, v)| lenient(v, &format!("{at}[{i}]"), self.problems))
                .collect(),
            Some(other) => {
                self.problems.push(format!(
                    "`{at}` ignored: expected an array, found {}",
                    kind_of(&other)
                ));
                Vec::new()
            }
        }
    }

    /// Outcome lines: a string or an array of strings; other elements dropped.
    pub(crate) fn lines(&mut self, key: &str) -> Vec<String> {
        let at = self.at(key);
        match self.map.remove(key) {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::String(s)) => vec![s],
            Some(Value::Array(items)) => items
                .into_iter()
                .enumerate()
                .filter_map(|(i, v)| match v {
                    Value::String(s) => Some(s),
                    other => {
                        self.problems.push(format!(
                            "`{at}[{i}]` ignored: expected a string, found {}",
                            kind_of(&other)
                        ));
                        None
                    }
                })
                .collect(),
            Some(other) => {
                self.problems.push(format!(
                    "`{at}` ignored: expected an array, found {}",
                    kind_of(&other)
                ));
                Vec::new()
            }
        }
    }
}

/// Read `value` as `T`: typed if it can be, else field by field. `None` only
/// when it is not an object at all (reported).
fn lenient<T: Tolerant>(value: Value, path: &str, problems: &mut Vec<String>) -> Option<T> {
    let map = match value {
        Value::Object(map) => map,
        other => {
            let at = if path.is_empty() { "file" } else { path };
            problems.push(format!(
                "`{at}` ignored: expected an object, found {}",
                kind_of(&other)
            ));
            return None;
        }
    };
    // Typed first: most nested values are fine even when a sibling is not.
    let whole = Value::Object(map);
    if let Ok(t) = T::deserialize(&whole) {
        return Some(t);
    }
    let Value::Object(map) = whole else {
        return None;
    };
    let mut f = Fields {
        map,
        path,
        problems,
    };
    Some(T::by_field(&mut f))
}

impl Tolerant for Manifest {
    fn by_field(f: &mut Fields<'_>) -> Self {
        Manifest {
            schema: f.get("schema"),
            spec_version: f.get("spec_version"),
            name: f.get("name"),
            title: f.get("title"),
            archetype: f.get("archetype"),
            rigor: f.get("rigor"),
            plan_format: f.get("plan_format"),
            created_at: f.get("created_at"),
            task_count: f.get("task_count"),
        }
    }
}

impl Tolerant for State {
    fn by_field(f: &mut Fields<'_>) -> Self {
        State {
            schema: f.get("schema"),
            plan: f.get("plan"),
            updated_at: f.get("updated_at"),
            status: f.get("status"),
            completed_count: f.get("completed_count"),
            task_count: f.get("task_count"),
            format: f.get("format"),
            materialization: f.get("materialization"),
            approval: f.get("approval"),
            promotion: f.get("promotion"),
            tasks: f.list("tasks"),
            checkpoint: f.nested("checkpoint"),
            blocked: f.nested("blocked"),
        }
    }
}

impl Tolerant for TaskEntry {
    fn by_field(f: &mut Fields<'_>) -> Self {
        TaskEntry {
            id: f.get("id"),
            title: f.get("title"),
            status: f.get("status"),
            file: f.get("file"),
            locator: f.nested("locator"),
            started_at: f.get("started_at"),
            completed_at: f.get("completed_at"),
            commit: f.get("commit"),
            gates: f.list("gates"),
            outcome: f.nested("outcome"),
        }
    }
}

impl Tolerant for Locator {
    fn by_field(f: &mut Fields<'_>) -> Self {
        Locator {
            kind: f.get("kind"),
            value: f.get("value"),
        }
    }
}

impl Tolerant for GateEntry {
    fn by_field(f: &mut Fields<'_>) -> Self {
        GateEntry {
            command: f.get("command"),
            passes: f.get("passes"),
            exit_code: f.get("exit_code"),
            last_run: f.get("last_run"),
            evidence: f.get("evidence"),
        }
    }
}

impl Tolerant for OutcomeEntry {
    fn by_field(f: &mut Fields<'_>) -> Self {
        OutcomeEntry {
            tried: f.lines("tried"),
            failed: f.lines("failed"),
            worked: f.get("worked"),
            notes: f.get("notes"),
        }
    }
}

impl Tolerant for CheckpointEntry {
    fn by_field(f: &mut Fields<'_>) -> Self {
        CheckpointEntry {
            task: f.get("task"),
            step: f.get("step"),
            at: f.get("at"),
            note: f.get("note"),
        }
    }
}

impl Tolerant for Blocker {
    fn by_field(f: &mut Fields<'_>) -> Self {
        Blocker {
            task: f.get("task"),
            reason: f.get("reason"),
            since: f.get("since"),
            needs: f.get("needs"),
        }
    }
}

/// The version number of a DWP schema URL
/// (`https://deepworkplan.com/schema/plan-state/v2.json` → 2), for the
/// given kind (`state` or `manifest`). `None` when the URL is not one.
pub(crate) fn schema_version(url: &str, kind: &str) -> Option<u32> {
    let marker = format!("/plan-{kind}/v");
    let start = url.find(&marker)? + marker.len();
    let rest = url.get(start..)?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let tail = rest.get(digits.len()..)?;
    if tail != ".json" {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_v2_and_v5_task_shapes_read_alike() {
        let v1 = br#"{"schema":"https://deepworkplan.com/schema/plan-state/v1.json","tasks":[{"id":1,"file":"1.task_a.md","title":"A","status":"completed","gates":[{"command":"t","passes":true,"exit_code":0,"evidence":"1 passed"}]}]}"#;
        let (s, problems): (State, _) = parse(v1).unwrap();
        assert!(problems.is_empty());
        assert_eq!(s.tasks[0].file.as_deref(), Some("1.task_a.md"));
        assert_eq!(s.tasks[0].gates[0].passes, Some(true));
        for v in ["v2", "v5"] {
            let text = format!(
                r#"{{"schema":"https://deepworkplan.com/schema/plan-state/{v}.json","format":"full","tasks":[{{"id":2,"locator":{{"kind":"file","value":"2.task_b.md"}},"title":"B","status":"pending","gates":[],"extra":{{"x":1}}}}],"future_field":true}}"#
            );
            let (s, problems): (State, _) = parse(text.as_bytes()).unwrap();
            assert!(problems.is_empty(), "{problems:?}");
            let loc = s.tasks[0].locator.as_ref().unwrap();
            assert_eq!(
                (loc.kind.as_deref(), loc.value.as_deref()),
                (Some("file"), Some("2.task_b.md"))
            );
            assert_eq!(
                schema_version(s.schema.as_deref().unwrap(), "state"),
                Some(if v == "v2" { 2 } else { 5 })
            );
        }
    }

    #[test]
    fn a_wrong_type_drops_only_its_field() {
        let text = br#"{"plan":"PLAN_x","completed_count":"two","status":"in_progress",
            "tasks":[{"id":1,"title":7,"status":"completed","gates":[{"command":"t","passes":"yes","exit_code":0,"evidence":"ok"}],
                      "outcome":{"tried":"one thing","failed":[1,"x"],"worked":"w"}},
                     "not a task",
                     {"id":"2","title":"B","status":"pending"}],
            "blocked":{"task":2,"reason":"r","since":5,"needs":"n"}}"#;
        let (s, problems): (State, _) = parse(text).unwrap();
        assert_eq!(s.plan.as_deref(), Some("PLAN_x"));
        assert_eq!(s.completed_count, None);
        assert_eq!(s.tasks.len(), 2, "the non-object task is dropped");
        let t = &s.tasks[0];
        assert_eq!(t.title, None);
        assert_eq!(t.status.as_deref(), Some("completed"));
        assert_eq!(t.gates.len(), 1);
        assert_eq!(t.gates[0].passes, None);
        assert_eq!(t.gates[0].evidence.as_deref(), Some("ok"));
        let o = t.outcome.as_ref().unwrap();
        assert_eq!(o.tried, vec!["one thing".to_owned()]);
        assert_eq!(o.failed, vec!["x".to_owned()]);
        assert_eq!(s.tasks[1].id, Some(Scalar::Str("2".to_owned())));
        let b = s.blocked.unwrap();
        assert_eq!((b.reason.as_deref(), b.since), (Some("r"), None));
        for needle in [
            "`completed_count`",
            "`tasks[0].title`",
            "`tasks[0].gates[0].passes`",
            "`tasks[0].outcome.failed[0]`",
            "`tasks[1]`",
            "`blocked.since`",
        ] {
            assert!(
                problems.iter().any(|p| p.contains(needle)),
                "{needle} in {problems:?}"
            );
        }
    }

    #[test]
    fn truncated_and_non_object_files_are_refused_with_a_reason() {
        let err = parse::<State>(br#"{"plan": "PLAN_x", "tasks": [{"id": 1"#).unwrap_err();
        assert!(err.starts_with("truncated JSON"), "{err}");
        let err = parse::<State>(b"[1, 2]").unwrap_err();
        assert_eq!(err, "expected a JSON object");
        let err = parse::<Manifest>(b"\xff\xfe").unwrap_err();
        assert!(err.contains("JSON"), "{err}");
    }

    #[test]
    fn schema_urls() {
        let m = "https://deepworkplan.com/schema/plan-manifest/v5.json";
        assert_eq!(schema_version(m, "manifest"), Some(5));
        assert_eq!(schema_version(m, "state"), None);
        assert_eq!(
            schema_version(
                "https://deepworkplan.com/schema/plan-state/v12.json",
                "state"
            ),
            Some(12)
        );
        assert_eq!(
            schema_version("https://example.com/other.json", "state"),
            None
        );
    }
}
