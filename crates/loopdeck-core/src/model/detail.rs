//! What a project holds beyond its summary: tasks (DWP), units, DAG, runs,
//! agents, bugs, timeline and progress (devloop). Format-neutral: each
//! reader fills what its format has and leaves the rest empty.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use compact_str::CompactString;
use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};

use super::StatusKind;

/// One verification run recorded for a task (a DWP gate record).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Gate {
    pub command: String,
    pub passes: bool,
    pub exit_code: Option<i64>,
    pub last_run: Option<String>,
    pub evidence: Option<String>,
}

/// Episodic memory of a completed task: tried, failed, worked, notes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Outcome {
    pub tried: Vec<String>,
    pub failed: Vec<String>,
    pub worked: Option<String>,
    pub notes: Option<String>,
}

/// A plan task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Task {
    pub id: String,
    pub title: String,
    pub status: String,
    /// What the status means, set by the reader.
    pub status_kind: StatusKind,
    /// The README checkbox for this task: `Some(true)` ticked, `Some(false)`
    /// unticked, `None` when the Markdown has no checkbox for it.
    pub md_checked: Option<bool>,
    /// Task file or anchor (`locator.value`, or v1 `file`).
    pub locator: Option<String>,
    pub started_at: Option<String>,
    pub completed_at: Option<String>,
    pub commit: Option<String>,
    pub gates: Vec<Gate>,
    pub outcome: Option<Outcome>,
}

/// The finest resume point inside the current task.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Checkpoint {
    pub task: Option<String>,
    pub step: Option<String>,
    pub at: Option<String>,
    pub note: Option<String>,
}

/// One failed expectation of a test run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Failure {
    pub test: String,
    pub expected: String,
    pub got: String,
    pub hint: Option<String>,
}

/// A unit or integration test run (`result.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Run {
    pub run_id: String,
    pub unit_id: Option<String>,
    pub loop_name: Option<String>,
    pub ok: bool,
    pub total: u64,
    pub passed: u64,
    pub failed: u64,
    pub failures: Vec<Failure>,
    pub next_action: Option<String>,
}

/// A unit of the build DAG.
///
/// Kept small, because a `units.json` may hold 200,000 of them (issue 7 §1:
/// peak memory about 4x the bytes read): ids, types and statuses are
/// [`CompactString`]s (inline up to 24 bytes, no allocation for the seed's
/// short ids and words), the id lists are exact boxed slices, and the
/// rarely-filled tail (retries, contract, runs, ...) sits behind one
/// optional box, [`UnitMore`], read through accessors. The JSON shape is the
/// flat one it always was (see the `Serialize` impl).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    pub id: CompactString,
    pub kind: CompactString,
    pub status: CompactString,
    /// What the status means, set by the reader.
    pub status_kind: StatusKind,
    pub depends_on: Box<[CompactString]>,
    /// The units that depend on this one (computed once, when read).
    pub downstream: Box<[CompactString]>,
    /// 0 for units with no dependency, then one more than the deepest
    /// dependency; `None` for units on or behind a cycle.
    pub layer: Option<usize>,
    /// Everything else, absent for most units.
    pub more: Option<Box<UnitMore>>,
}

/// The fields of a [`Unit`] that most units leave empty.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UnitMore {
    pub retries: Option<u64>,
    pub retry_budget: Option<u64>,
    pub contract_hash: Option<String>,
    /// Does `contract_hash` match the SDD's contract text? `None` when it
    /// cannot be checked.
    pub contract_ok: Option<bool>,
    pub last_run: Option<String>,
    /// The last runs of this unit, newest first (at most 3).
    pub runs: Vec<Run>,
    /// Contract text and acceptance items from the SDD, for the unit drawer.
    pub contract: Option<String>,
    pub acceptance: Vec<String>,
}

impl UnitMore {
    fn is_empty(&self) -> bool {
        *self == UnitMore::default()
    }
}

impl Unit {
    /// A unit with no dependencies, layer or extra fields.
    pub fn new(
        id: impl Into<CompactString>,
        kind: impl Into<CompactString>,
        status: impl Into<CompactString>,
        status_kind: StatusKind,
    ) -> Unit {
        Unit {
            id: id.into(),
            kind: kind.into(),
            status: status.into(),
            status_kind,
            depends_on: Box::default(),
            downstream: Box::default(),
            layer: None,
            more: None,
        }
    }

    /// The extra fields for writing, allocated on first use.
    pub fn more_mut(&mut self) -> &mut UnitMore {
        self.more.get_or_insert_with(Box::default)
    }

    /// Set the extra fields, dropping the box when they are all empty.
    pub fn set_more(&mut self, more: UnitMore) {
        self.more = (!more.is_empty()).then(|| Box::new(more));
    }

    pub fn retries(&self) -> Option<u64> {
        self.more.as_ref().and_then(|m| m.retries)
    }
    pub fn retry_budget(&self) -> Option<u64> {
        self.more.as_ref().and_then(|m| m.retry_budget)
    }
    pub fn contract_hash(&self) -> Option<&str> {
        self.more.as_ref().and_then(|m| m.contract_hash.as_deref())
    }
    pub fn contract_ok(&self) -> Option<bool> {
        self.more.as_ref().and_then(|m| m.contract_ok)
    }
    pub fn last_run(&self) -> Option<&str> {
        self.more.as_ref().and_then(|m| m.last_run.as_deref())
    }
    pub fn runs(&self) -> &[Run] {
        self.more.as_ref().map_or(&[], |m| &m.runs)
    }
    pub fn contract(&self) -> Option<&str> {
        self.more.as_ref().and_then(|m| m.contract.as_deref())
    }
    pub fn acceptance(&self) -> &[String] {
        self.more.as_ref().map_or(&[], |m| &m.acceptance)
    }
}

/// The flat shape every version wrote: the extra fields as `null`/`[]`
/// when absent, in the order they were declared before they moved.
impl Serialize for Unit {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_struct("Unit", 15)?;
        m.serialize_field("id", self.id.as_str())?;
        m.serialize_field("type", self.kind.as_str())?;
        m.serialize_field("status", self.status.as_str())?;
        m.serialize_field("status_kind", &self.status_kind)?;
        m.serialize_field("depends_on", &*self.depends_on)?;
        m.serialize_field("downstream", &*self.downstream)?;
        m.serialize_field("layer", &self.layer)?;
        m.serialize_field("retries", &self.retries())?;
        m.serialize_field("retry_budget", &self.retry_budget())?;
        m.serialize_field("contract_hash", &self.contract_hash())?;
        m.serialize_field("contract_ok", &self.contract_ok())?;
        m.serialize_field("last_run", &self.last_run())?;
        m.serialize_field("runs", self.runs())?;
        m.serialize_field("contract", &self.contract())?;
        m.serialize_field("acceptance", self.acceptance())?;
        m.end()
    }
}

/// The shape of the unit graph.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Dag {
    /// Each cycle's members, in order.
    pub cycles: Vec<Vec<String>>,
    /// `{unit, depends_on}` pairs naming a unit that does not exist.
    pub unknown_refs: Vec<UnknownRef>,
    /// The L2 (integration) gate: every unit passed with a matching contract.
    pub l2_gate_open: bool,
    pub layers: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnknownRef {
    pub unit: String,
    pub depends_on: String,
}

/// An agent's runtime state with its todo list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Agent {
    pub agent: String,
    pub status: String,
    /// What the status means, set by the reader.
    pub status_kind: StatusKind,
    /// `"3/5"`: the 1-based step of the total (`current_step` is 0-based).
    pub step: Option<String>,
    pub step_index: Option<u64>,
    pub total_steps: Option<u64>,
    /// The current todo item.
    pub doing: Option<String>,
    pub unit: Option<String>,
    pub progress_pct: Option<u8>,
    /// When a paused agent paused (its resume token's age counts from here).
    pub paused_at: Option<DateTime<Utc>>,
    pub has_resume_token: bool,
    /// When a paused agent's resume token stops being usable (24 h after
    /// the pause, seed 003 Process.StatePersistence); `None` without a
    /// token or a pause time. Judged against "now" by
    /// [`Agent::resume_expired`], never by the reader.
    pub resume_expires_at: Option<DateTime<Utc>>,
    /// When the current call started.
    pub started_at: Option<DateTime<Utc>>,
    /// The error of an agent whose call failed (`code: message`).
    pub error: Option<String>,
    /// Set when its state says it runs: its last sign of life and the
    /// silence its format allows (see [`super::Project::agent_stall`]).
    #[serde(skip)]
    pub activity: Option<super::Activity>,
}

impl Agent {
    /// Can the paused agent only restart at `now`? True without a usable
    /// token, or once it is 24 h old (seed 003: an expired token is a fresh
    /// restart). Total: no time arithmetic, only a comparison.
    pub fn resume_expired(&self, now: DateTime<Utc>) -> bool {
        match self.resume_expires_at {
            Some(at) => now >= at,
            None => true,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BugTransition {
    pub from: Option<String>,
    pub to: String,
    pub at: Option<String>,
    pub by: Option<String>,
    pub note: Option<String>,
}

/// A bug, in the state of its latest line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Bug {
    pub id: String,
    pub status: String,
    /// What the status means, set by the reader.
    pub status_kind: StatusKind,
    pub severity: String,
    pub title: String,
    pub unit: Option<String>,
    pub history: Vec<BugTransition>,
    /// Where the bug is moved (`act DIR bug ID STATUS`), with the statuses
    /// its lifecycle allows next; `None` for a final status.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub act: Option<super::Address>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct BugStats {
    pub total: usize,
    pub by_status: BTreeMap<String, usize>,
    pub by_severity: BTreeMap<String, usize>,
}

/// A timeline event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Event {
    pub at: Option<DateTime<Utc>>,
    pub source: String,
    pub kind: String,
    pub summary: String,
    pub unit: Option<String>,
}

/// Progress by the format's own weights.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Progress {
    pub percent: f64,
    pub phase: String,
    /// Each weighted part and the points it contributes.
    pub breakdown: Vec<ProgressPart>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProgressPart {
    pub part: String,
    pub weight: f64,
    pub points: f64,
}

/// The seed dashboard's LoopStatusBar (seed 003): the unit loop (L1), the
/// integration loop (L2) and the human feedback loop (L3).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Loops {
    pub l1: L1Status,
    pub l2: L2Status,
    pub l3: L3Status,
    /// The project's tokens against its budget (`project.json`'s
    /// `token_used` / `token_budget`, the seed's defaults where absent):
    /// the burn shown before the breach.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Tokens>,
}

/// Tokens used of a budget (seed 003 getProgress's `tokens`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tokens {
    pub used: u64,
    pub budget: u64,
    /// `used` as a whole percentage of `budget`, rounded down (100 only
    /// once the budget is reached; above it past the breach).
    pub percent: u64,
}

impl Tokens {
    /// Against their budget: `43% · 2,184,310 of 5,000,000 tokens`.
    pub fn shown(&self) -> String {
        use crate::i18n::thousands;
        crate::t!(
            "common.tokens.long",
            pct = self.percent,
            used = thousands(self.used),
            budget = thousands(self.budget)
        )
    }

    /// `used` of `budget` (a budget of 0 counts as 1: any use is over it).
    pub fn new(used: u64, budget: u64) -> Tokens {
        let percent = u128::from(used) * 100 / u128::from(budget.max(1));
        Tokens {
            used,
            budget,
            percent: u64::try_from(percent).unwrap_or(u64::MAX),
        }
    }
}

/// Distinct units by status.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct L1Status {
    pub passed: usize,
    pub testing: usize,
    pub coding: usize,
    pub pending: usize,
    pub failed: usize,
    pub blocked: usize,
    pub total: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct L2Status {
    /// The seed's `idle`, `running`, `failed` or `shipped`.
    pub status: String,
    /// Integration rounds used of the budget (`units.json`).
    pub rounds: u64,
    pub budget: u64,
    /// The latest integration run, when it ran, and its failed cases.
    pub last_run: Option<String>,
    pub last_run_at: Option<DateTime<Utc>>,
    pub last_ok: Option<bool>,
    pub failures: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct L3Status {
    /// The PRD revision.
    pub rev: Option<u64>,
    /// The loop waits for the human's feedback.
    pub awaiting_feedback: bool,
    /// Why, in a few words each.
    pub awaiting: Vec<super::Phrase>,
}

/// Everything beyond the summary, grouped so `Project` stays small.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Detail {
    pub tasks: Vec<Task>,
    pub checkpoint: Option<Checkpoint>,
    pub units: Vec<Unit>,
    pub dag: Option<Dag>,
    pub agents: Vec<Agent>,
    pub bugs: Vec<Bug>,
    pub bug_stats: Option<BugStats>,
    /// The last events, oldest first.
    pub timeline: Vec<Event>,
    /// NDJSON lines skipped as unreadable, per file.
    pub skipped_lines: BTreeMap<String, usize>,
    pub progress: Option<Progress>,
    /// Integration (L2) runs, newest first (at most 3); each failure's
    /// `test` names the case, the step and the units involved.
    pub integration_runs: Vec<Run>,
    /// The L1/L2/L3 loops (devloop).
    pub loops: Option<Loops>,
    /// Document revisions (devloop's changelog: PRD, SDD, units, spec),
    /// oldest first: `kind` is e.g. `prd_rev`, `source` who wrote it.
    pub revisions: Vec<Revision>,
}

/// One document revision (a `changelog.ndjson` line, or an archive name in
/// `history/` when there is no changelog). Serialized as the event it was
/// before (`at`, `source`, `kind`, `summary`, `unit`) plus its parts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Revision {
    /// `source` is who wrote it (`by`), `summary` the one-line account
    /// (`rev N · trigger · summary · previous revision archived as …`).
    #[serde(flatten)]
    pub event: Event,
    /// The revision number, as written (`3`, `rev3`).
    pub rev: String,
    /// What caused it (`human_feedback`, `prd@rev3`, `triage_patch`).
    pub trigger: Option<String>,
    /// The changelog's own summary, alone.
    pub note: Option<String>,
    /// What the changelog says changed.
    pub changed: ChangeSummary,
    /// Where the revision before it was archived (`archive_ref`).
    pub archive: Option<String>,
    /// The PRD or SDD compared, section by section, with the revision
    /// before it (from `history/`); `None` for other kinds and until it is
    /// compared (a reading compares nothing: the console asks when the
    /// revision's drawer opens, `show` and `check` for the newest four).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sections: Option<DocDiff>,
}

impl Revision {
    /// A revision of a document split into sections (the PRD or the SDD):
    /// one that [`Revision::sections`] can compare.
    pub fn has_sections(&self) -> bool {
        matches!(self.event.kind.as_str(), "prd_rev" | "sdd_rev")
    }
}

/// A changelog line's `diff`: sections and units added, changed, removed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ChangeSummary {
    pub sections_added: Vec<String>,
    pub sections_changed: Vec<String>,
    pub sections_removed: Vec<String>,
    pub units_added: Vec<String>,
    pub units_changed: Vec<String>,
    pub units_removed: Vec<String>,
}

impl ChangeSummary {
    pub fn is_empty(&self) -> bool {
        *self == ChangeSummary::default()
    }

    /// `+2 sections ~5 units`: the counts, in one line (display only, in
    /// the language spoken).
    pub fn counts(&self) -> String {
        let mut parts = Vec::new();
        for (sign, list) in [
            ('+', &self.sections_added),
            ('~', &self.sections_changed),
            ('-', &self.sections_removed),
        ] {
            if !list.is_empty() {
                parts.push(crate::t!(
                    "model.changes.sections",
                    sign = sign,
                    n = list.len()
                ));
            }
        }
        for (sign, list) in [
            ('+', &self.units_added),
            ('~', &self.units_changed),
            ('-', &self.units_removed),
        ] {
            if !list.is_empty() {
                parts.push(crate::t!(
                    "model.changes.units",
                    sign = sign,
                    n = list.len()
                ));
            }
        }
        parts.join(" ")
    }
}

/// Two revisions of a document compared section by section.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DocDiff {
    /// The file holding the revision before (`None`: there is none, every
    /// section is new).
    pub old: Option<String>,
    /// The file holding this revision (`history/…` or the current file).
    pub new: Option<String>,
    /// Sections added, removed or changed, in the newer document's order.
    pub sections: Vec<SectionChange>,
    /// Sections the same in both.
    pub unchanged: usize,
    /// Why the comparison is missing or partial (a history file missing,
    /// too large), said in place of the sections.
    pub problem: Option<String>,
}

/// How a section changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SectionKind {
    Added,
    Removed,
    Changed,
}

/// One section added, removed or changed, with a few lines of diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SectionChange {
    /// Its heading (or unit id) as the document writes it.
    pub title: String,
    pub kind: SectionKind,
    /// A few lines of unified diff (added and removed sections: their
    /// first lines).
    pub lines: Vec<DiffLine>,
    /// Diff lines beyond those kept.
    pub more: usize,
}

/// One line of a section's diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiffLine {
    pub kind: LineKind,
    pub text: String,
}

/// What a diff line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    /// In the newer revision only (`+`).
    Added,
    /// In the older revision only (`-`).
    Removed,
    /// In both, around a change.
    Context,
    /// Lines left out between two changes (`…`).
    Gap,
}

impl LineKind {
    /// The unified diff's mark.
    pub fn sign(self) -> char {
        match self {
            LineKind::Added => '+',
            LineKind::Removed => '-',
            LineKind::Context => ' ',
            LineKind::Gap => '…',
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flat layout `Unit` had before its rare fields moved into a box:
    /// the JSON contract of `show --json`.
    #[derive(Serialize)]
    struct FlatUnit {
        id: String,
        #[serde(rename = "type")]
        kind: String,
        status: String,
        status_kind: StatusKind,
        depends_on: Vec<String>,
        downstream: Vec<String>,
        layer: Option<usize>,
        retries: Option<u64>,
        retry_budget: Option<u64>,
        contract_hash: Option<String>,
        contract_ok: Option<bool>,
        last_run: Option<String>,
        runs: Vec<Run>,
        contract: Option<String>,
        acceptance: Vec<String>,
    }

    fn flat(u: &Unit) -> FlatUnit {
        FlatUnit {
            id: u.id.to_string(),
            kind: u.kind.to_string(),
            status: u.status.to_string(),
            status_kind: u.status_kind,
            depends_on: u.depends_on.iter().map(|d| d.to_string()).collect(),
            downstream: u.downstream.iter().map(|d| d.to_string()).collect(),
            layer: u.layer,
            retries: u.retries(),
            retry_budget: u.retry_budget(),
            contract_hash: u.contract_hash().map(str::to_owned),
            contract_ok: u.contract_ok(),
            last_run: u.last_run().map(str::to_owned),
            runs: u.runs().to_vec(),
            contract: u.contract().map(str::to_owned),
            acceptance: u.acceptance().to_vec(),
        }
    }

    #[test]
    fn a_unit_serializes_in_the_flat_shape_with_or_without_its_extras() {
        let mut plain = Unit::new(
            "a-very-long-unit-id-beyond-inline-be",
            "be",
            "passed",
            StatusKind::Done,
        );
        plain.depends_on = Box::new(["b-be".into()]);
        plain.layer = Some(1);
        let mut full = plain.clone();
        *full.more_mut() = UnitMore {
            retries: Some(2),
            retry_budget: Some(5),
            contract_hash: Some("sha256:0123456789abcdef".into()),
            contract_ok: Some(false),
            last_run: Some("r-1".into()),
            runs: vec![Run {
                run_id: "r-1".into(),
                unit_id: Some("a-be".into()),
                loop_name: None,
                ok: false,
                total: 3,
                passed: 2,
                failed: 1,
                failures: vec![],
                next_action: None,
            }],
            contract: Some("fn a()".into()),
            acceptance: vec!["ok".into()],
        };
        for u in [&plain, &full] {
            let ours = serde_json::to_string(u).unwrap();
            let reference = serde_json::to_string(&flat(u)).unwrap();
            assert_eq!(ours, reference);
        }
        assert!(plain.more.is_none());
    }

    #[test]
    fn empty_extras_take_no_box() {
        let mut u = Unit::new("a-be", "be", "pending", StatusKind::Planning);
        u.set_more(UnitMore::default());
        assert!(u.more.is_none());
        u.set_more(UnitMore {
            retries: Some(0),
            ..UnitMore::default()
        });
        assert_eq!(u.retries(), Some(0));
    }

    /// 200,000 units must fit in about 4x the bytes of their `units.json`
    /// (issue 7 §1): the inline part stays well under the 296 bytes it was.
    #[test]
    fn a_unit_stays_small() {
        assert!(
            std::mem::size_of::<Unit>() <= 136,
            "{}",
            std::mem::size_of::<Unit>()
        );
    }
}
