//! The typed shapes of devloop's files (seed 003), as far as loopdeck reads
//! them. Unknown fields are ignored; writers work on the raw documents.
//!
//! Whole files have a fast path (one typed pass) and a tolerant path: when a
//! field has the wrong type, each field is tried on its own and only the bad
//! ones are dropped and reported, so one bad field never hides the rest.
//! NDJSON lines are strict instead: a line with a field of the wrong type is
//! skipped and counted, like a line that is not JSON.

use chrono::{DateTime, Utc};
use serde::de::{SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use compact_str::CompactString;

use crate::model::{StatusKind, Unit, UnitMore};

use crate::formats::parse_time;

use crate::formats::json::nullable;
pub(crate) use crate::formats::json::{Str, Text, each, parse_file, tolerant};

/// A time as devloop writes it: unix seconds (timeline) or RFC 3339 text.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub(crate) enum Stamp {
    Num(f64),
    Text(String),
}

impl Stamp {
    /// The instant, if the value is one. Numbers above 1e11 are taken as
    /// milliseconds (1e11 seconds is in the year 5138).
    pub(crate) fn at(&self) -> Option<DateTime<Utc>> {
        match self {
            Stamp::Num(n) => unix(*n),
            Stamp::Text(s) => parse_time(s).or_else(|| s.trim().parse::<f64>().ok().and_then(unix)),
        }
    }

    pub(crate) fn text(&self) -> String {
        match self {
            Stamp::Num(n) => n.to_string(),
            Stamp::Text(s) => s.clone(),
        }
    }
}

fn unix(n: f64) -> Option<DateTime<Utc>> {
    if !n.is_finite() || n < 0.0 {
        return None;
    }
    let secs = if n > 1e11 { n / 1000.0 } else { n };
    let whole = secs.trunc();
    DateTime::from_timestamp(whole as i64, ((secs - whole) * 1e9) as u32)
}

/// A field that is present, even as `null` (`expected: null` is a value).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// `project.json` (ProjectMeta), with the budgets that sit beside it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct ProjectMeta {
    pub id: Option<Text>,
    pub company_id: Option<Text>,
    pub name: Option<String>,
    pub title: Option<String>,
    pub status: Option<String>,
    pub created_at: Option<Stamp>,
    pub updated_at: Option<Stamp>,
    pub owner: Option<String>,
    pub token_budget: Option<f64>,
    pub token_used: Option<f64>,
    /// ProjectBudgets (seed 003, Process.Budget): how long one agent call
    /// may run, and one L2 (integrator) run, in milliseconds.
    pub agent_wallclock_ms: Option<f64>,
    pub integrator_wallclock_ms: Option<f64>,
}

/// `units.json`. Units are parsed one by one, so one bad unit drops only
/// its own bad fields.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct UnitsFile {
    pub project_id: Option<Text>,
    pub prd_rev: Option<Text>,
    pub sdd_rev: Option<Text>,
    pub units: UnitSeq,
    pub l2_rounds: Option<f64>,
    pub l2_budget: Option<f64>,
}

/// The `units` array, read one element at a time straight into the model's
/// units: each element is a small tree only while it is read (so a bad
/// field drops only itself), and the file never becomes one tree of values
/// (a 12 MB units.json cost 0.6 GB that way). `null` is no units.
#[derive(Debug, Clone, Default)]
pub(crate) struct UnitSeq {
    pub units: Vec<Unit>,
    /// `units[2]: field `retries` ignored: ...`, `units[3] has no id`.
    pub problems: Vec<String>,
}

impl<'de> Deserialize<'de> for UnitSeq {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Elements;
        impl<'de> Visitor<'de> for Elements {
            type Value = UnitSeq;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an array of units")
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<UnitSeq, E> {
                Ok(UnitSeq::default())
            }
            fn visit_none<E: serde::de::Error>(self) -> Result<UnitSeq, E> {
                Ok(UnitSeq::default())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<UnitSeq, A::Error> {
                let mut out = UnitSeq::default();
                let mut i = 0usize;
                while let Some(v) = seq.next_element::<Value>()? {
                    let entry = match UnitEntry::deserialize(&v) {
                        Ok(e) => Some(e),
                        Err(_) => tolerant(v, &format!("units[{i}]: "), &mut out.problems),
                    };
                    if let Some(e) = entry {
                        match e.id.as_ref().filter(|t| !t.0.trim().is_empty()) {
                            Some(_) => out.units.push(e.into_unit()),
                            None => out.problems.push(format!("units[{i}] has no id; ignored")),
                        }
                    }
                    i += 1;
                }
                Ok(out)
            }
        }
        d.deserialize_any(Elements)
    }
}

/// [`Text`] without its temporary `String`: an id written as a string, a
/// number or a boolean, kept inline when short (a unit's id, its
/// dependencies).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ShortText(pub CompactString);

impl<'de> Deserialize<'de> for ShortText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = ShortText;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string, a number or a boolean")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<ShortText, E> {
                Ok(ShortText(v.into()))
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<ShortText, E> {
                Ok(ShortText(compact_str::format_compact!("{v}")))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<ShortText, E> {
                Ok(ShortText(compact_str::format_compact!("{v}")))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<ShortText, E> {
                Ok(ShortText(compact_str::format_compact!("{v}")))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<ShortText, E> {
                // As `Text` spells it (serde_json's own number display).
                match serde_json::Number::from_f64(v) {
                    Some(n) => Ok(ShortText(compact_str::format_compact!("{n}"))),
                    None => Err(E::invalid_value(serde::de::Unexpected::Float(v), &self)),
                }
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct UnitEntry {
    pub id: Option<ShortText>,
    #[serde(rename = "type")]
    pub kind: Option<CompactString>,
    pub status: Option<CompactString>,
    #[serde(deserialize_with = "nullable")]
    pub depends_on: Vec<ShortText>,
    pub retries: Option<f64>,
    pub retry_budget: Option<f64>,
    pub contract_hash: Option<String>,
    pub last_run: Option<Text>,
}

impl UnitEntry {
    /// The model's unit, moving every string (graph fields left empty).
    fn into_unit(self) -> Unit {
        let status = self
            .status
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(|| CompactString::const_new("unknown"));
        let mut u = Unit::new(
            self.id.map(|t| t.0).unwrap_or_default(),
            self.kind.unwrap_or_default(),
            status,
            StatusKind::Unknown,
        );
        u.status_kind = super::kinds::unit(&u.status);
        u.depends_on = self.depends_on.into_iter().map(|d| d.0).collect();
        u.set_more(UnitMore {
            retries: count(self.retries),
            retry_budget: count(self.retry_budget),
            contract_hash: self.contract_hash,
            last_run: self.last_run.map(|t| t.0),
            ..UnitMore::default()
        });
        u
    }
}

/// `units/{unitId}/runs/{runId}/result.json` (RunResult).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct RunFile {
    pub run_id: Option<Text>,
    #[serde(rename = "loop")]
    pub loop_name: Option<Text>,
    pub unit_id: Option<Text>,
    pub ok: Option<bool>,
    pub summary: Option<Summary>,
    #[serde(deserialize_with = "nullable")]
    pub failures: Vec<Value>,
    pub next_action: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Summary {
    pub total: Option<f64>,
    pub passed: Option<f64>,
    pub failed: Option<f64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct FailureEntry {
    pub test: Option<Text>,
    #[serde(deserialize_with = "present")]
    pub expected: Option<Value>,
    #[serde(deserialize_with = "present")]
    pub got: Option<Value>,
    pub hint: Option<String>,
}

/// `integration/runs/{runId}/result.json` (IntResult).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct IntRunFile {
    pub run_id: Option<Text>,
    pub ok: Option<bool>,
    #[serde(deserialize_with = "nullable")]
    pub failures: Vec<Value>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct IntFailure {
    pub case: Option<Text>,
    pub failed_step: Option<f64>,
    #[serde(deserialize_with = "present")]
    pub got: Option<Value>,
    #[serde(deserialize_with = "nullable")]
    pub involves: Vec<Text>,
    pub stderr_excerpt: Option<String>,
}

/// `integration/runs/{runId}/triage.json`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct TriageFile {
    pub root_cause: Option<String>,
    pub category: Option<String>,
    #[serde(deserialize_with = "nullable")]
    pub affected_units: Vec<Text>,
    pub proposed_sdd_patch: Option<Value>,
    pub confidence: Option<f64>,
}

/// `integration/spec.json`, for what a failed step expected.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct SpecFile {
    #[serde(deserialize_with = "nullable")]
    pub cases: Vec<SpecCase>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct SpecCase {
    pub id: Option<Text>,
    #[serde(deserialize_with = "nullable")]
    pub steps: Vec<SpecStep>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct SpecStep {
    pub call: Option<String>,
    #[serde(deserialize_with = "present")]
    pub expect: Option<Value>,
}

/// `agent-state/{agent}.json` (AgentRuntimeState).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct AgentFile {
    pub agent: Option<String>,
    pub unit_id: Option<Text>,
    pub status: Option<String>,
    pub call_id: Option<Text>,
    pub current_step: Option<f64>,
    pub total_steps: Option<f64>,
    pub resume_token: Option<String>,
    pub started_at: Option<Stamp>,
    pub updated_at: Option<Stamp>,
    pub error: Option<AgentError>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct AgentError {
    pub code: Option<Text>,
    pub message: Option<String>,
}

/// `agent-state/{agent}-todo.json` (AgentTodolist).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct TodoFile {
    pub call_id: Option<Text>,
    pub created_at: Option<Stamp>,
    #[serde(deserialize_with = "nullable")]
    pub items: Vec<Value>,
    pub current: Option<Text>,
    pub progress_pct: Option<f64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct TodoItem {
    pub id: Option<Text>,
    pub description: Option<String>,
    pub status: Option<String>,
    pub started_at: Option<Stamp>,
    pub finished_at: Option<Stamp>,
}

/// One `timeline.ndjson` line. `ts`, `source` and `kind` are required.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct EventLine {
    pub ts: Stamp,
    pub source: String,
    pub kind: String,
    #[serde(default, rename = "ref")]
    pub reference: Option<Text>,
    #[serde(default)]
    pub summary: Option<String>,
}

/// One `bugs.ndjson` line. `id` and `status` are required. Its texts are
/// borrowed from the line (a fold reads many lines and keeps few).
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct BugLine<'a> {
    #[serde(borrow)]
    pub id: Str<'a>,
    #[serde(borrow)]
    pub status: Str<'a>,
    #[serde(default, borrow)]
    pub severity: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub title: Option<Str<'a>>,
    #[serde(default, borrow)]
    pub unit_id: Option<Str<'a>>,
    #[serde(default, borrow, deserialize_with = "nullable")]
    pub affected_units: Vec<Str<'a>>,
    #[serde(default, borrow, deserialize_with = "nullable")]
    pub status_history: Vec<HistoryEntry<'a>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct HistoryEntry<'a> {
    #[serde(borrow)]
    pub ts: Option<StampStr<'a>>,
    #[serde(borrow)]
    pub from: Option<Str<'a>>,
    #[serde(borrow)]
    pub to: Option<Str<'a>>,
    #[serde(borrow)]
    pub by: Option<Str<'a>>,
    #[serde(borrow)]
    pub note: Option<Str<'a>>,
}

/// [`Stamp`] with its text borrowed: the same values accepted.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub(crate) enum StampStr<'a> {
    Num(f64),
    Text(#[serde(borrow)] Str<'a>),
}

impl StampStr<'_> {
    /// As [`Stamp::text`].
    pub(crate) fn text(&self) -> std::borrow::Cow<'_, str> {
        match self {
            StampStr::Num(n) => std::borrow::Cow::Owned(n.to_string()),
            StampStr::Text(s) => std::borrow::Cow::Borrowed(s),
        }
    }
}

/// One `changelog.ndjson` line. `kind` is required.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ChangelogLine {
    pub kind: String,
    #[serde(default)]
    pub ts: Option<Stamp>,
    #[serde(default)]
    pub rev: Option<Text>,
    #[serde(default)]
    pub by: Option<String>,
    #[serde(default)]
    pub trigger: Option<String>,
    #[serde(default)]
    pub summary: Option<String>,
    #[serde(default)]
    pub diff: Option<Diff>,
    #[serde(default)]
    pub archive_ref: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Diff {
    #[serde(deserialize_with = "nullable")]
    pub sections_added: Vec<String>,
    #[serde(deserialize_with = "nullable")]
    pub sections_changed: Vec<String>,
    #[serde(deserialize_with = "nullable")]
    pub sections_removed: Vec<String>,
    #[serde(deserialize_with = "nullable")]
    pub units_added: Vec<String>,
    #[serde(deserialize_with = "nullable")]
    pub units_changed: Vec<String>,
    #[serde(deserialize_with = "nullable")]
    pub units_removed: Vec<String>,
}

/// A JSON value as compact text (`401`, `{"qty":48}`, `"x"`).
pub(crate) fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// A count written as a JSON number (never negative, never NaN).
pub(crate) fn count(n: Option<f64>) -> Option<u64> {
    n.filter(|n| n.is_finite() && *n >= 0.0).map(|n| n as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_fields_are_dropped_one_by_one() {
        let (u, problems): (UnitEntry, _) = parse_file(
            br#"{"id":"sku-db","type":7,"status":"passed","depends_on":null,"retries":"x"}"#,
        )
        .unwrap();
        assert_eq!(u.id, Some(ShortText("sku-db".into())));
        assert_eq!(u.kind, None);
        assert_eq!(u.status.as_deref(), Some("passed"));
        assert!(u.depends_on.is_empty());
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(parse_file::<UnitEntry>(b"[1]").is_err());
        assert!(parse_file::<UnitEntry>(b"{\"id\":").is_err());
    }

    #[test]
    fn short_ids_read_as_text_does() {
        for raw in ["\"sku-db\"", "7", "-3", "7.5", "1e3", "true", "\"\""] {
            let short: ShortText = serde_json::from_str(raw).unwrap();
            let text: Text = serde_json::from_str(raw).unwrap();
            assert_eq!(short.0.as_str(), text.as_str(), "{raw}");
            let v: Value = serde_json::from_str(raw).unwrap();
            let from_tree = ShortText::deserialize(&v).unwrap();
            assert_eq!(from_tree.0.as_str(), text.as_str(), "{raw} from a tree");
        }
        assert!(serde_json::from_str::<ShortText>("[1]").is_err());
        assert!(serde_json::from_str::<ShortText>("null").is_err());
    }

    #[test]
    fn stamps_in_seconds_milliseconds_and_text() {
        let t = |v: &str| serde_json::from_str::<Stamp>(v).unwrap().at();
        let want = parse_time("2026-06-01T12:00:00Z");
        assert_eq!(t("1780315200"), want);
        assert_eq!(t("1780315200000"), want);
        assert_eq!(t("\"2026-06-01T12:00:00Z\""), want);
        assert_eq!(t("\"1780315200\""), want);
        assert_eq!(t("-5"), None);
        assert_eq!(t("\"soon\""), None);
    }

    #[test]
    fn expected_null_is_a_value_and_missing_is_none() {
        let f: FailureEntry = serde_json::from_str(r#"{"test":"t","expected":null}"#).unwrap();
        assert_eq!(f.expected, Some(Value::Null));
        assert_eq!(f.got, None);
        assert_eq!(compact(&serde_json::json!({"qty": 48})), r#"{"qty":48}"#);
    }
}
