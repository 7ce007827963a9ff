//! What a project holds beyond its summary: tasks (DWP), units, DAG, runs,
//! agents, bugs, timeline and progress (devloop). Format-neutral: each
//! reader fills what its format has and leaves the rest empty.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use compact_str::CompactString;
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

use super::StatusKind;

/// One verification run recorded for a task (a DWP gate record).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gate {
    /// The command the gate ran, as the plan wrote it (empty when it names
    /// none).
    pub command: String,
    /// The plan recorded `passes: true`; anything else (false, absent) is a
    /// failure.
    pub passes: bool,
    /// The command's exit status, when recorded.
    pub exit_code: Option<i64>,
    /// When it last ran, as the plan wrote it (not parsed).
    pub last_run: Option<String>,
    /// What the plan kept as proof (an output excerpt, a path), as written.
    pub evidence: Option<String>,
}

/// Episodic memory of a completed task: tried, failed, worked, notes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// Approaches tried, one per entry (a lone string in the file is one
    /// entry).
    pub tried: Vec<String>,
    /// Approaches that failed, one per entry (a lone string is one entry).
    pub failed: Vec<String>,
    /// What worked in the end, when the plan says.
    pub worked: Option<String>,
    /// Free notes for whoever picks the work up.
    pub notes: Option<String>,
}

/// A plan task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Task {
    /// The task's id as text (`"3"` for a numeric id); from the README, the
    /// `Task N` number.
    pub id: String,
    /// Its title (empty when `state.json` gives none).
    pub title: String,
    /// Its status as written, lowercased with spaces and hyphens as `_`
    /// (`in_progress`); `unknown` when absent. From README checkboxes alone:
    /// `completed` or `pending`.
    pub status: String,
    /// What the status means, set by the reader.
    pub status_kind: StatusKind,
    /// The README checkbox for this task: `Some(true)` ticked, `Some(false)`
    /// unticked, `None` when the Markdown has no checkbox for it.
    pub md_checked: Option<bool>,
    /// Task file or anchor (`locator.value`, or v1 `file`).
    pub locator: Option<String>,
    /// When it started, as `state.json` wrote it (not parsed).
    pub started_at: Option<String>,
    /// When it completed, as written (not parsed).
    pub completed_at: Option<String>,
    /// The commit that completed it, as written.
    pub commit: Option<String>,
    /// Its verification runs, in the file's order.
    pub gates: Vec<Gate>,
    /// What the agent learnt doing it, when recorded.
    pub outcome: Option<Outcome>,
}

/// The finest resume point inside the current task.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The task it is in (its id as text).
    pub task: Option<String>,
    /// The step within that task, as text.
    pub step: Option<String>,
    /// When it was written, as `state.json` has it (not parsed).
    pub at: Option<String>,
    /// What the agent left for whoever resumes.
    pub note: Option<String>,
}

/// One failed expectation of a test run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// The failed test (L1); for an integration run, the case, the failed step
    /// and the units involved (`checkout step 2 (a-be, b-fe)`).
    pub test: String,
    /// What was expected, as compact JSON (`{"qty":48}`); for an integration
    /// run the spec's expectation of the failed step. Empty when unknown.
    pub expected: String,
    /// What came instead, as compact JSON; empty when not recorded.
    pub got: String,
    /// The run's hint (L1), or the first line of the failed step's stderr
    /// (L2).
    pub hint: Option<String>,
}

/// A unit or integration test run (`result.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Run {
    /// The run's `run_id`, else its directory's name (ids embed their UTC
    /// time).
    pub run_id: String,
    /// The unit it tested (`unit_id`, else the unit whose `runs/` holds it);
    /// `None` for integration runs.
    pub unit_id: Option<String>,
    /// The loop it belongs to (`loop`, e.g. `L1`); `L2` for integration runs.
    pub loop_name: Option<String>,
    /// It passed: the file's `ok`; without one, the summary counts no
    /// failure and none is listed.
    pub ok: bool,
    /// Tests run (integration: the spec's cases; 0 when unknown).
    pub total: u64,
    /// Tests passed (0 when unknown).
    pub passed: u64,
    /// Tests failed: the summary's count, else the failures listed.
    pub failed: u64,
    /// Each failed expectation, in the file's order.
    pub failures: Vec<Failure>,
    /// What the run says to do next, as written (L1 runs only).
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
/// flat one it always was (see the `Serialize` impl), read back through the
/// same flat shape.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(from = "FlatUnit")]
pub struct Unit {
    /// Its `id` in `units.json`.
    pub id: CompactString,
    /// Its `type` (`be`, `fe`, `mw`, `db`), as written.
    pub kind: CompactString,
    /// Its `status` as written (`pending`, `coding`, `testing`, `passed`,
    /// ...).
    pub status: CompactString,
    /// What the status means, set by the reader.
    pub status_kind: StatusKind,
    /// The ids it depends on, as `units.json` lists them.
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
    /// Attempts used (`retries`); `None` when absent (the seed counts 0).
    pub retries: Option<u64>,
    /// Attempts allowed (`retry_budget`); `None` when absent (the seed allows
    /// 5).
    pub retry_budget: Option<u64>,
    /// The hash of the contract it was built against (`sha256:` and 16 hex
    /// digits), as written.
    pub contract_hash: Option<String>,
    /// Does `contract_hash` match the SDD's contract text? `None` when it
    /// cannot be checked.
    pub contract_ok: Option<bool>,
    /// Its latest run's id, as `units.json` writes it.
    pub last_run: Option<String>,
    /// The last runs of this unit, newest first (at most 3).
    pub runs: Vec<Run>,
    /// Contract text and acceptance items from the SDD, for the unit drawer.
    pub contract: Option<String>,
    /// The SDD's acceptance items for it (`<ul data-acceptance>`), in order.
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

    /// [`UnitMore::retries`]; `None` for a unit without extras.
    pub fn retries(&self) -> Option<u64> {
        self.more.as_ref().and_then(|m| m.retries)
    }
    /// [`UnitMore::retry_budget`]; `None` for a unit without extras.
    pub fn retry_budget(&self) -> Option<u64> {
        self.more.as_ref().and_then(|m| m.retry_budget)
    }
    /// [`UnitMore::contract_hash`]; `None` for a unit without extras.
    pub fn contract_hash(&self) -> Option<&str> {
        self.more.as_ref().and_then(|m| m.contract_hash.as_deref())
    }
    /// [`UnitMore::contract_ok`]; `None` for a unit without extras.
    pub fn contract_ok(&self) -> Option<bool> {
        self.more.as_ref().and_then(|m| m.contract_ok)
    }
    /// [`UnitMore::last_run`]; `None` for a unit without extras.
    pub fn last_run(&self) -> Option<&str> {
        self.more.as_ref().and_then(|m| m.last_run.as_deref())
    }
    /// [`UnitMore::runs`]; empty for a unit without extras.
    pub fn runs(&self) -> &[Run] {
        self.more.as_ref().map_or(&[], |m| &m.runs)
    }
    /// [`UnitMore::contract`]; `None` for a unit without extras.
    pub fn contract(&self) -> Option<&str> {
        self.more.as_ref().and_then(|m| m.contract.as_deref())
    }
    /// [`UnitMore::acceptance`]; empty for a unit without extras.
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
        // Only in the wire value, and only when the flat fields cannot
        // tell it: extras present but all empty.
        if super::wire::on() && self.more.as_ref().is_some_and(|m| m.is_empty()) {
            m.serialize_field("more", &true)?;
        } else {
            m.skip_field("more")?;
        }
        m.end()
    }
}

/// The flat shape a [`Unit`] is written in, read back.
#[derive(Deserialize)]
struct FlatUnit {
    id: CompactString,
    #[serde(rename = "type")]
    kind: CompactString,
    status: CompactString,
    status_kind: StatusKind,
    #[serde(default)]
    depends_on: Box<[CompactString]>,
    #[serde(default)]
    downstream: Box<[CompactString]>,
    #[serde(default)]
    layer: Option<usize>,
    #[serde(default)]
    retries: Option<u64>,
    #[serde(default)]
    retry_budget: Option<u64>,
    #[serde(default)]
    contract_hash: Option<String>,
    #[serde(default)]
    contract_ok: Option<bool>,
    #[serde(default)]
    last_run: Option<String>,
    #[serde(default)]
    runs: Vec<Run>,
    #[serde(default)]
    contract: Option<String>,
    #[serde(default)]
    acceptance: Vec<String>,
    /// The extras are present though empty (the wire value only).
    #[serde(default)]
    more: bool,
}

impl From<FlatUnit> for Unit {
    fn from(f: FlatUnit) -> Unit {
        let more = UnitMore {
            retries: f.retries,
            retry_budget: f.retry_budget,
            contract_hash: f.contract_hash,
            contract_ok: f.contract_ok,
            last_run: f.last_run,
            runs: f.runs,
            contract: f.contract,
            acceptance: f.acceptance,
        };
        Unit {
            id: f.id,
            kind: f.kind,
            status: f.status,
            status_kind: f.status_kind,
            depends_on: f.depends_on,
            downstream: f.downstream,
            layer: f.layer,
            more: (f.more || !more.is_empty()).then(|| Box::new(more)),
        }
    }
}

/// The shape of the unit graph.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dag {
    /// Each cycle's members, in order.
    pub cycles: Vec<Vec<String>>,
    /// `{unit, depends_on}` pairs naming a unit that does not exist.
    pub unknown_refs: Vec<UnknownRef>,
    /// The L2 (integration) gate: every unit passed with a matching contract.
    pub l2_gate_open: bool,
    /// How many layers the acyclic part has (0 without units).
    pub layers: usize,
}

/// A dependency on a unit that `units.json` does not list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnknownRef {
    /// The unit that names it.
    pub unit: String,
    /// The id named, which no unit has.
    pub depends_on: String,
}

/// An agent's runtime state with its todo list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Agent {
    /// Its name: the state's `agent`, else the state file's name.
    pub agent: String,
    /// Its `status` as written (`idle`, `running`, `paused`, `done`, `error`);
    /// `unknown` when absent.
    pub status: String,
    /// What the status means, set by the reader.
    pub status_kind: StatusKind,
    /// `"3/5"`: the 1-based step of the total (`current_step` is 0-based).
    pub step: Option<String>,
    /// The current step, 0-based: its own `current_step` (when it gives
    /// `total_steps`), else the position of its todo list's current item.
    pub step_index: Option<u64>,
    /// Steps in all: its `total_steps` when above 0, else its todo list's
    /// length.
    pub total_steps: Option<u64>,
    /// The current todo item.
    pub doing: Option<String>,
    /// The unit it works on (`unit_id`).
    pub unit: Option<String>,
    /// Percent done, 0-100: its todo list's `progress_pct` (rounded), else the
    /// share of items done; `None` without either.
    pub progress_pct: Option<u8>,
    /// When a paused agent paused (its resume token's age counts from here).
    pub paused_at: Option<DateTime<Utc>>,
    /// Its state holds a non-blank `resume_token`.
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
    /// Not in the JSON; in [`super::wire`]'s value.
    #[serde(default, skip_serializing_if = "super::wire::off_or_none")]
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

/// One step of a bug's status history: its `status_history`, or rebuilt
/// from its older lines (then without time, author or note).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BugTransition {
    /// The status before (`None` for the first step).
    pub from: Option<String>,
    /// The status after.
    pub to: String,
    /// When, as the line wrote it (`ts`); `None` for steps rebuilt from older
    /// lines.
    pub at: Option<String>,
    /// Who moved it; `None` when not written.
    pub by: Option<String>,
    /// Why, when the line says.
    pub note: Option<String>,
}

/// A bug, in the state of its latest line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bug {
    /// Its `id`.
    pub id: String,
    /// Its latest status, as written.
    pub status: String,
    /// What the status means, set by the reader.
    pub status_kind: StatusKind,
    /// Its `severity` as written (e.g. `high`).
    pub severity: String,
    /// Its `title` (empty when absent).
    pub title: String,
    /// The unit it is in: `unit_id`, else its one affected unit.
    pub unit: Option<String>,
    /// How its status moved, oldest first: the newest 64 steps of its
    /// `status_history`, else rebuilt from its older lines. Texts are cut to
    /// 512 bytes.
    pub history: Vec<BugTransition>,
    /// Where the bug is moved (`act DIR bug ID STATUS`), with the statuses
    /// its lifecycle allows next; `None` for a final status.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::wire::de_opt_address"
    )]
    pub act: Option<super::Address>,
}

/// Counts over every bug of `bugs.ndjson`, listed or not.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BugStats {
    /// Bugs with a status (each id once).
    pub total: usize,
    /// Those bugs by their latest status.
    pub by_status: BTreeMap<String, usize>,
    /// Those bugs by their severity.
    pub by_severity: BTreeMap<String, usize>,
}

/// A timeline event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// When it happened (`ts`); `None` only for a revision whose time is
    /// unknown.
    pub at: Option<DateTime<Utc>>,
    /// Who wrote it (`source`: `human`, `system`, an agent's role); empty
    /// when unknown.
    pub source: String,
    /// What happened, as the line names it (`unit_passed`, `prd_rev`, ...).
    pub kind: String,
    /// One line about it (empty when the line has none).
    pub summary: String,
    /// The unit it concerns: a `ref` of `unit/<id>`.
    pub unit: Option<String>,
}

/// Progress by the format's own weights.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// 0 to 100, one decimal.
    pub percent: f64,
    /// Where the project is: `prd_drafting`, `sdd_drafting`, `L1`, `L2`,
    /// `shipped`, `blocked` or `abandoned`.
    pub phase: String,
    /// Each weighted part and the points it contributes.
    pub breakdown: Vec<ProgressPart>,
}

/// One weighted part of [`Progress`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProgressPart {
    /// `prd`, `sdd`, `units`, `l2` or `ship`.
    pub part: String,
    /// Points it is worth, of 100.
    pub weight: f64,
    /// Points it earned (two decimals).
    pub points: f64,
}

/// The seed dashboard's LoopStatusBar (seed 003): the unit loop (L1), the
/// integration loop (L2) and the human feedback loop (L3).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Loops {
    /// The unit loop (L1): units by status.
    pub l1: L1Status,
    /// The integration loop (L2).
    pub l2: L2Status,
    /// The human feedback loop (L3).
    pub l3: L3Status,
    /// The project's tokens against its budget (`project.json`'s
    /// `token_used` / `token_budget`, the seed's defaults where absent):
    /// the burn shown before the breach.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Tokens>,
}

/// Tokens used of a budget (seed 003 getProgress's `tokens`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    /// Tokens spent so far (`token_used`; 0 when absent).
    pub used: u64,
    /// Tokens allowed (`token_budget`; the seed's default when absent or
    /// not above 0).
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct L1Status {
    /// Distinct units whose status is `passed`.
    pub passed: usize,
    /// Distinct units whose status is `testing`.
    pub testing: usize,
    /// Distinct units whose status is `coding`.
    pub coding: usize,
    /// Distinct units whose status is `pending`.
    pub pending: usize,
    /// Distinct units whose status is `failed`.
    pub failed: usize,
    /// Distinct units whose status is `blocked`.
    pub blocked: usize,
    /// Distinct units, whatever their status (also those not counted
    /// above).
    pub total: usize,
}

/// The integration loop (L2): its state, its rounds and its latest run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct L2Status {
    /// The seed's `idle`, `running`, `failed` or `shipped`.
    pub status: String,
    /// Integration rounds used of the budget (`units.json`).
    pub rounds: u64,
    /// Rounds allowed (`l2_budget`; the seed's 3 when absent).
    pub budget: u64,
    /// The latest integration run, when it ran, and its failed cases.
    pub last_run: Option<String>,
    /// When it ran: its id's time, else its `result.json`'s modification time.
    pub last_run_at: Option<DateTime<Utc>>,
    /// Whether the latest run passed; `None` without a run.
    pub last_ok: Option<bool>,
    /// Its failed cases (0 without a run).
    pub failures: usize,
}

/// The human feedback loop (L3): the PRD's revision, and whether (and
/// why) it waits for the human.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct L3Status {
    /// The PRD revision.
    pub rev: Option<u64>,
    /// The loop waits for the human's feedback.
    pub awaiting_feedback: bool,
    /// Why, in a few words each.
    pub awaiting: Vec<super::Phrase>,
}

/// Everything beyond the summary, grouped so `Project` stays small.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Detail {
    /// The plan's tasks (DWP), in `state.json`'s order, else the README's.
    pub tasks: Vec<Task>,
    /// Where the current task stopped (DWP), when the plan says.
    pub checkpoint: Option<Checkpoint>,
    /// The build's units (devloop), in `units.json`'s order.
    pub units: Vec<Unit>,
    /// The unit graph's shape (devloop); `None` for the other formats.
    pub dag: Option<Dag>,
    /// The agents (devloop), one per state file.
    pub agents: Vec<Agent>,
    /// The bugs listed (devloop), at most 1,000.
    pub bugs: Vec<Bug>,
    /// Counts over every bug (devloop), listed or not; `None` without a
    /// readable `bugs.ndjson`.
    pub bug_stats: Option<BugStats>,
    /// The last events, oldest first.
    pub timeline: Vec<Event>,
    /// NDJSON lines skipped as unreadable, per file.
    pub skipped_lines: BTreeMap<String, usize>,
    /// Progress by the seed's weights (devloop).
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangeSummary {
    /// Sections the line's `diff` lists as added (ids or headings, as
    /// written).
    pub sections_added: Vec<String>,
    /// Sections it lists as changed.
    pub sections_changed: Vec<String>,
    /// Sections it lists as removed.
    pub sections_removed: Vec<String>,
    /// Unit ids it lists as added.
    pub units_added: Vec<String>,
    /// Unit ids it lists as changed.
    pub units_changed: Vec<String>,
    /// Unit ids it lists as removed.
    pub units_removed: Vec<String>,
}

impl ChangeSummary {
    /// The changelog line said nothing changed (or had no `diff`).
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SectionKind {
    /// Only in the newer revision.
    Added,
    /// Only in the older revision.
    Removed,
    /// In both, with different text.
    Changed,
}

/// One section added, removed or changed, with a few lines of diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectionChange {
    /// Its heading (or unit id) as the document writes it.
    pub title: String,
    /// Added, removed or changed.
    pub kind: SectionKind,
    /// A few lines of unified diff (added and removed sections: their
    /// first lines).
    pub lines: Vec<DiffLine>,
    /// Diff lines beyond those kept.
    pub more: usize,
}

/// One line of a section's diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiffLine {
    /// Added, removed, context or a gap.
    pub kind: LineKind,
    /// The line, without its mark or newline.
    pub text: String,
}

/// What a diff line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
