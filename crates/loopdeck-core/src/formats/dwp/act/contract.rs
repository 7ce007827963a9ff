//! The state contract the protected updater checks before and after every
//! write (DWP's `shared/state_contract.py`, `state_errors`): the closed
//! shape of plan-state v1 and v2/v5 (its fields, types, enums, patterns and
//! length budgets), task identity and counts, locators, gate evidence,
//! blocker and status coherence, and the checkpoint. Messages use the
//! contract's own words; a length budget names its limit.
//!
//! `strict` is what the updater demands of its own candidate: a blocked
//! task needs a blocker record and a completed plan a terminal checkpoint.

use serde_json::{Map, Value};

/// Closed-schema budgets the updater enforces on write (update-state.py
/// `LIMITS` and the plan-state v2/v5 schema's `maxLength`s).
pub(super) const GATE_COMMAND_MAX: usize = 500;
pub(super) const GATE_EVIDENCE_MAX: usize = 500;
pub(super) const OUTCOME_WORKED_MAX: usize = 500;
pub(super) const OUTCOME_NOTES_MAX: usize = 1000;
/// Each `outcome.tried`/`failed` entry.
pub(super) const OUTCOME_ITEM_MAX: usize = 300;
pub(super) const CHECKPOINT_STEP_MAX: usize = 200;
pub(super) const CHECKPOINT_NOTE_MAX: usize = 500;
pub(super) const UPDATED_BY_MAX: usize = 100;
pub(super) const BLOCK_REASON_MAX: usize = 1000;
pub(super) const BLOCK_NEEDS_MAX: usize = 500;
/// A v1 task's title (the v1 schema caps it; v2/v5 do not).
pub(super) const V1_TITLE_MAX: usize = 200;


const V1: &str = "https://deepworkplan.com/schema/plan-state/v1.json";
const V2: &str = "https://deepworkplan.com/schema/plan-state/v2.json";
const V5: &str = "https://deepworkplan.com/schema/plan-state/v5.json";

/// The prefix refine stamps on gate evidence it invalidates.
const INVALIDATED_PREFIX: &str = "invalidated by refine";

/// One rule of the closed shape.
enum Rule {
    Str {
        max: Option<usize>,
        pattern: Option<fn(&str) -> bool>,
    },
    Int {
        min: Option<i64>,
    },
    Bool,
    /// A JSON value that must be one of these strings (no type of its own).
    Enum(&'static [&'static str]),
    /// A string that must equal this one.
    Const(&'static str),
    Obj {
        fields: Vec<(&'static str, Rule)>,
        required: &'static [&'static str],
    },
    Arr {
        min: usize,
        items: Box<Rule>,
    },
    /// An object or `null`.
    OrNull(Box<Rule>),
    /// A v2/v5 locator: `{kind, value}` whose value's pattern follows its kind.
    Locator,
}

fn s(max: usize) -> Rule {
    Rule::Str {
        max: Some(max),
        pattern: None,
    }
}

fn text() -> Rule {
    Rule::Str {
        max: None,
        pattern: None,
    }
}

fn pat(pattern: fn(&str) -> bool) -> Rule {
    Rule::Str {
        max: None,
        pattern: Some(pattern),
    }
}

fn int(min: i64) -> Rule {
    Rule::Int { min: Some(min) }
}

fn obj(required: &'static [&'static str], fields: Vec<(&'static str, Rule)>) -> Rule {
    Rule::Obj { fields, required }
}

fn arr(min: usize, items: Rule) -> Rule {
    Rule::Arr {
        min,
        items: Box::new(items),
    }
}

const TASK_STATUSES: &[&str] = &["pending", "in_progress", "completed", "blocked", "skipped"];
const PLAN_STATUSES: &[&str] = &["pending", "in_progress", "completed", "blocked"];

/// The plan-state shape of `era` (1, 2 or 5; v5 is a snapshot of v2).
fn shape(era: u32) -> Rule {
    let url = match era {
        1 => V1,
        2 => V2,
        _ => V5,
    };
    let gate = obj(
        &["command", "passes", "last_run"],
        vec![
            ("command", s(GATE_COMMAND_MAX)),
            ("passes", Rule::Bool),
            ("exit_code", Rule::Int { min: None }),
            ("last_run", text()),
            ("evidence", s(GATE_EVIDENCE_MAX)),
        ],
    );
    let outcome = obj(
        &[],
        vec![
            ("tried", arr(0, s(OUTCOME_ITEM_MAX))),
            ("failed", arr(0, s(OUTCOME_ITEM_MAX))),
            ("worked", s(OUTCOME_WORKED_MAX)),
            ("notes", s(OUTCOME_NOTES_MAX)),
        ],
    );
    let mut task = vec![("id", int(1))];
    if era == 1 {
        task.push(("file", pat(v1_file)));
        task.push(("title", s(V1_TITLE_MAX)));
    } else {
        task.push(("locator", Rule::Locator));
        task.push(("title", text()));
    }
    task.extend([
        ("status", Rule::Enum(TASK_STATUSES)),
        ("gates", arr(0, gate)),
        ("started_at", text()),
        ("completed_at", text()),
        ("commit", pat(commit)),
        ("outcome", outcome),
    ]);
    let task = if era == 1 {
        obj(&["id", "file", "title", "status"], task)
    } else {
        obj(&["id", "locator", "title", "status", "gates"], task)
    };
    let mut root = vec![
        ("schema", Rule::Const(url)),
        ("plan", pat(plan_name)),
        ("updated_at", text()),
        (
            "updated_by",
            obj(
                &[],
                vec![
                    ("agent", s(UPDATED_BY_MAX)),
                    ("model", s(UPDATED_BY_MAX)),
                ],
            ),
        ),
        ("status", Rule::Enum(PLAN_STATUSES)),
        ("completed_count", int(0)),
        ("task_count", int(1)),
    ];
    if era != 1 {
        root.extend([
            ("format", Rule::Enum(&["lite", "full"])),
            (
                "materialization",
                Rule::Enum(&["materializing", "ready", "promoting"]),
            ),
            (
                "approval",
                Rule::Enum(&["pending", "approved", "pre_approved"]),
            ),
            (
                "promotion",
                Rule::OrNull(Box::new(obj(
                    &["from", "to", "phase"],
                    vec![
                        ("from", Rule::Const("lite")),
                        ("to", Rule::Const("full")),
                        (
                            "phase",
                            Rule::Enum(&["intent", "tasks_written", "switched"]),
                        ),
                    ],
                ))),
            ),
        ]);
    }
    root.extend([
        (
            "checkpoint",
            Rule::OrNull(Box::new(obj(
                &["task", "at"],
                vec![
                    ("task", int(1)),
                    ("step", s(CHECKPOINT_STEP_MAX)),
                    ("at", text()),
                    ("note", s(CHECKPOINT_NOTE_MAX)),
                ],
            ))),
        ),
        (
            "blocked",
            Rule::OrNull(Box::new(obj(
                &["task", "reason", "since"],
                vec![
                    ("task", int(1)),
                    ("reason", s(BLOCK_REASON_MAX)),
                    ("since", text()),
                    ("needs", s(BLOCK_NEEDS_MAX)),
                ],
            ))),
        ),
        ("tasks", arr(1, task)),
    ]);
    let required: &'static [&'static str] = if era == 1 {
        &[
            "schema",
            "plan",
            "updated_at",
            "status",
            "completed_count",
            "task_count",
            "tasks",
        ]
    } else {
        &[
            "schema",
            "plan",
            "updated_at",
            "status",
            "completed_count",
            "task_count",
            "format",
            "materialization",
            "tasks",
        ]
    };
    obj(required, root)
}

/// The shape of `era`, built once.
fn shape_of(era: u32) -> &'static Rule {
    static SHAPES: std::sync::OnceLock<[Rule; 3]> = std::sync::OnceLock::new();
    let [v1, v2, v5] = SHAPES.get_or_init(|| [shape(1), shape(2), shape(5)]);
    match era {
        1 => v1,
        2 => v2,
        _ => v5,
    }
}

/// A locator's fields.
fn locator_fields() -> &'static [(&'static str, Rule)] {
    static FIELDS: std::sync::OnceLock<Vec<(&'static str, Rule)>> = std::sync::OnceLock::new();
    FIELDS.get_or_init(|| {
        vec![
            ("kind", Rule::Enum(&["inline", "file"])),
            ("value", pat(any_locator)),
        ]
    })
}

/// A value as the contract's messages quote it (Python's `repr` of a
/// string is `'…'`).
fn quote(v: &Value) -> String {
    match v {
        Value::String(s) => format!("'{s}'"),
        other => other.to_string(),
    }
}

/// Where a value is (`$.tasks[2].gates[0]`), written out only for a
/// message: a state of a thousand fields is checked without a string per
/// field.
#[derive(Clone, Copy)]
enum At<'a> {
    Root,
    Key(&'a At<'a>, &'a str),
    Index(&'a At<'a>, usize),
}

impl std::fmt::Display for At<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            At::Root => f.write_str("$"),
            At::Key(parent, key) => write!(f, "{parent}.{key}"),
            At::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

fn is_int(v: &Value) -> bool {
    v.is_i64() || v.is_u64()
}

fn check(v: &Value, rule: &Rule, path: &At<'_>, out: &mut Vec<String>) {
    match rule {
        Rule::Str { max, pattern } => {
            let Some(t) = v.as_str() else {
                out.push(format!("{path}: expected ['string']"));
                return;
            };
            if let Some(p) = pattern
                && !p(t)
            {
                out.push(format!("{path}: invalid value {}", quote(v)));
            }
            if let Some(max) = max
                && t.chars().count() > *max
            {
                out.push(format!(
                    "{path}: exceeds maximum length ({max} chars, has {})",
                    t.chars().count()
                ));
            }
        }
        Rule::Int { min } => {
            if !is_int(v) {
                out.push(format!("{path}: expected ['integer']"));
                return;
            }
            if let (Some(min), Some(n)) = (min, v.as_i64())
                && n < *min
            {
                out.push(format!("{path}: below minimum"));
            }
        }
        Rule::Bool => {
            if !v.is_boolean() {
                out.push(format!("{path}: expected ['boolean']"));
            }
        }
        Rule::Enum(allowed) => {
            if !v.as_str().is_some_and(|s| allowed.contains(&s)) {
                out.push(format!("{path}: unknown value {}", quote(v)));
            }
        }
        Rule::Const(want) => {
            if v.as_str() != Some(want) {
                out.push(format!("{path}: expected '{want}'"));
            }
        }
        Rule::OrNull(inner) => {
            if v.is_null() {
                return;
            }
            if !v.is_object() {
                out.push(format!("{path}: expected ['object', 'null']"));
                return;
            }
            check(v, inner, path, out);
        }
        Rule::Obj { fields, required } => {
            let Some(o) = v.as_object() else {
                out.push(format!("{path}: expected ['object']"));
                return;
            };
            object(o, fields, required, path, out);
        }
        Rule::Arr { min, items } => {
            let Some(a) = v.as_array() else {
                out.push(format!("{path}: expected ['array']"));
                return;
            };
            if a.len() < *min {
                out.push(format!("{path}: too few entries"));
            }
            for (i, item) in a.iter().enumerate() {
                check(item, items, &At::Index(path, i), out);
            }
        }
        Rule::Locator => {
            let Some(o) = v.as_object() else {
                out.push(format!("{path}: expected ['object']"));
                return;
            };
            object(o, locator_fields(), &["kind", "value"], path, out);
            // The value's pattern follows the kind (an absent kind reads
            // as inline, as the schema's `if` does).
            if let Some(value) = o.get("value").and_then(Value::as_str) {
                let inline = o.get("kind").is_none_or(|k| k == "inline");
                let ok = if inline {
                    inline_locator(value)
                } else {
                    file_locator(value)
                };
                if !ok {
                    out.push(format!("{path}.value: invalid value '{value}'"));
                }
            }
        }
    }
}

fn object(
    o: &Map<String, Value>,
    fields: &[(&'static str, Rule)],
    required: &[&str],
    path: &At<'_>,
    out: &mut Vec<String>,
) {
    for key in required {
        if !o.contains_key(*key) {
            out.push(format!("{path}: missing {key}"));
        }
    }
    for (key, item) in o {
        match fields.iter().find(|(k, _)| k == key) {
            Some((_, rule)) => check(item, rule, &At::Key(path, key), out),
            None => out.push(format!("{path}: unexpected field {key}")),
        }
    }
}

fn lower_alnum(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
}

/// `^PLAN_[a-z0-9]+(_[a-z0-9]+){1,4}$`
fn plan_name(s: &str) -> bool {
    s.strip_prefix("PLAN_").is_some_and(|rest| {
        let parts: Vec<&str> = rest.split('_').collect();
        (2..=5).contains(&parts.len()) && parts.iter().all(|p| lower_alnum(p))
    })
}

/// `N.task_[a-z0-9_]+.md` with N's digits checked by `digits`.
fn task_file(s: &str, digits: fn(&str) -> bool) -> bool {
    let Some((n, rest)) = s.split_once(".task_") else {
        return false;
    };
    let Some(slug) = rest.strip_suffix(".md") else {
        return false;
    };
    digits(n)
        && !slug.is_empty()
        && slug
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

fn ascii_digits(n: &str) -> bool {
    !n.is_empty() && n.chars().all(|c| c.is_ascii_digit())
}

fn positive(n: &str) -> bool {
    ascii_digits(n) && !n.starts_with('0')
}

/// v1 `file`: `^\d+\.task_[a-z0-9_]+\.md$`.
fn v1_file(s: &str) -> bool {
    task_file(s, ascii_digits)
}

/// `^[1-9][0-9]*\.task_[a-z0-9_]+\.md$`
fn file_locator(s: &str) -> bool {
    task_file(s, positive)
}

/// `^#task-[1-9][0-9]*$`
fn inline_locator(s: &str) -> bool {
    s.strip_prefix("#task-").is_some_and(positive)
}

fn any_locator(s: &str) -> bool {
    inline_locator(s) || file_locator(s)
}

/// `^[0-9a-f]{7,40}$`
fn commit(s: &str) -> bool {
    (7..=40).contains(&s.len())
        && s.chars()
            .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
}

fn st(t: &Value) -> &str {
    t.get("status").and_then(Value::as_str).unwrap_or("")
}

/// The contract's first step alone: a known schema URL and the closed
/// shape of its era.
pub(super) fn shape_errors(state: &Value) -> Vec<String> {
    let Some(root) = state.as_object() else {
        return vec!["state must be an object".to_owned()];
    };
    let era = match root.get("schema").and_then(Value::as_str) {
        Some(V1) => 1,
        Some(V2) => 2,
        Some(V5) => 5,
        _ => return vec!["unsupported state schema".to_owned()],
    };
    let mut errors = Vec::new();
    check(state, shape_of(era), &At::Root, &mut errors);
    errors
}

/// Every problem of `state` under the contract, empty when it holds.
pub(super) fn state_errors(state: &Value, strict: bool) -> Vec<String> {
    let errors = shape_errors(state);
    if !errors.is_empty() {
        return errors;
    }
    errors_past_shape(state, strict)
}

/// [`state_errors`] of a state whose shape holds ([`shape_errors`] is
/// empty): the rest of the contract.
pub(super) fn errors_past_shape(state: &Value, strict: bool) -> Vec<String> {
    let mut errors = Vec::new();
    let Some(root) = state.as_object() else {
        return errors;
    };
    let era = match root.get("schema").and_then(Value::as_str) {
        Some(V1) => 1,
        _ => 2,
    };
    // The shape holds: every field below has its type.
    let tasks: &[Value] = root
        .get("tasks")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let num = |v: Option<&Value>| v.and_then(Value::as_u64).unwrap_or(0);
    let ids: Vec<u64> = tasks.iter().map(|t| num(t.get("id"))).collect();
    let expected: Vec<u64> = (1..=tasks.len() as u64).collect();
    if ids != expected || tasks.len() as u64 != num(root.get("task_count")) {
        errors.push("task identity/count mismatch".to_owned());
    }

    let completed = tasks.iter().filter(|t| st(t) == "completed").count() as u64;
    if num(root.get("completed_count")) != completed {
        errors.push("completed_count mismatch".to_owned());
    }
    if era != 1 {
        locators(root, tasks, &mut errors);
    }
    errors.extend(gate_findings(tasks));
    let blocker = root
        .get("blocked")
        .and_then(Value::as_object)
        .filter(|b| !b.is_empty());
    if let Some(b) = blocker {
        let id = num(b.get("task"));
        let ok = ids.contains(&id)
            && tasks
                .get((id as usize).wrapping_sub(1))
                .is_some_and(|t| st(t) == "blocked");
        if !ok {
            errors.push("active blocker does not identify a blocked task".to_owned());
        }
    }
    if strict && tasks.iter().any(|t| st(t) == "blocked") && blocker.is_none() {
        errors.push("blocked task requires an explicit blocker record".to_owned());
    }
    if root.get("status").and_then(Value::as_str) != Some(derive_status(state)) {
        errors.push("plan status disagrees with task/blocker state".to_owned());
    }
    let cp = root
        .get("checkpoint")
        .and_then(Value::as_object)
        .filter(|c| !c.is_empty());
    if let Some(c) = cp
        && !ids.contains(&num(c.get("task")))
    {
        errors.push("checkpoint references missing task".to_owned());
    }
    if strict
        && root.get("status").and_then(Value::as_str) == Some("completed")
        && !cp.is_some_and(|c| {
            c.get("step").and_then(Value::as_str) == Some("done")
                && Some(num(c.get("task"))) == ids.last().copied()
        })
    {
        errors.push("completed state requires terminal checkpoint".to_owned());
    }
    errors
}

fn locators(root: &Map<String, Value>, tasks: &[Value], errors: &mut Vec<String>) {
    let lite = root.get("format").and_then(Value::as_str) == Some("lite");
    let mut seen: Vec<&str> = Vec::new();
    let mut duplicate = false;
    for t in tasks {
        let loc = t.get("locator");
        let kind = loc.and_then(|l| l.get("kind")).and_then(Value::as_str);
        let value = loc
            .and_then(|l| l.get("value"))
            .and_then(Value::as_str)
            .unwrap_or("");
        if seen.contains(&value) {
            duplicate = true;
        }
        seen.push(value);
        let id = t.get("id").and_then(Value::as_u64).unwrap_or(0);
        let ok = if kind == Some("inline") {
            value == format!("#task-{id}")
        } else {
            value.starts_with(&format!("{id}.task_"))
        };
        if !ok {
            errors.push("locator disagrees with task identity".to_owned());
        }
        if kind != Some(if lite { "inline" } else { "file" }) {
            errors.push("locator disagrees with plan format".to_owned());
        }
    }
    if duplicate {
        // The contract names it before the per-task findings.
        errors.insert(0, "duplicate locator".to_owned());
    }
}

/// The plan status the contract derives: blocked with a blocker record or
/// a blocked task; completed when every task is; in progress once any task
/// left `pending` (a skipped one too); else pending.
pub(super) fn derive_status(state: &Value) -> &'static str {
    let tasks: &[Value] = state
        .get("tasks")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);

    let blocker = state
        .get("blocked")
        .and_then(Value::as_object)
        .is_some_and(|b| !b.is_empty());
    if blocker || tasks.iter().any(|t| st(t) == "blocked") {
        return "blocked";
    }
    if tasks.iter().all(|t| st(t) == "completed") {
        return "completed";
    }
    if tasks.iter().any(|t| st(t) != "pending") {
        return "in_progress";
    }
    "pending"
}

fn invalidated(g: &Value) -> bool {
    g.get("evidence")
        .and_then(Value::as_str)
        .is_some_and(|e| e.trim().to_lowercase().starts_with(INVALIDATED_PREFIX))
}

/// Evidence folded as the contract's regexes read it: lower case, every
/// whitespace run one space.
fn folded(e: &str) -> String {
    e.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

fn word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `(ran|selected|executed)\s*=\s*0(?:\b|/)|no tests? (ran|found|collected)`
fn zero_selection(e: &str) -> bool {
    let t = folded(e);
    let counted = ["ran", "selected", "executed"].iter().any(|key| {
        t.match_indices(key).any(|(i, _)| {
            let rest = t[i + key.len()..].trim_start();
            let Some(rest) = rest.strip_prefix('=') else {
                return false;
            };
            let Some(rest) = rest.trim_start().strip_prefix('0') else {
                return false;
            };
            rest.chars().next().is_none_or(|c| !word_char(c))
        })
    });
    counted
        || ["no test ", "no tests "].iter().any(|p| {
            t.match_indices(p).any(|(i, _)| {
                let rest = &t[i + p.len()..];
                ["ran", "found", "collected"]
                    .iter()
                    .any(|w| rest.starts_with(w))
            })
        })
}

/// The contract's `NON_EXECUTION`: evidence that admits the check never ran.
fn admits_never_ran(e: &str) -> bool {
    let t = folded(e);
    let after = |head: &str, words: &[&str]| {
        t.match_indices(head)
            .any(|(i, _)| words.iter().any(|w| t[i + head.len()..].starts_with(w)))
    };
    let done = ["ran", "run", "entered", "executed", "performed"];
    after("never ", &done)
        || after("not ", &done)
        || after("did not ", &["run", "enter", "execute", "perform"])
        || t.contains("structurally impossible")
        || after("cannot be ", &["run", "executed", "measured", "verified"])
        || t.match_indices("unexecuted").any(|(i, _)| {
            let before = t[..i].chars().next_back();
            let after = t[i + "unexecuted".len()..].chars().next();
            before.is_none_or(|c| !word_char(c)) && after.is_none_or(|c| !word_char(c))
        })
}

/// `log=` pointers that leave the plan folder.
fn log_pointer_errors(task: &Value, gate: &Value, out: &mut Vec<String>) {
    let e = gate.get("evidence").and_then(Value::as_str).unwrap_or("");
    let mut rest = e;
    while let Some(i) = rest.find("log=") {
        let before = rest[..i].chars().next_back();
        let tail = &rest[i + 4..];
        let end = tail
            .find(|c: char| c.is_whitespace() || c == ';')
            .unwrap_or(tail.len());
        let rel = &tail[..end];
        rest = &tail[end..];
        if before.is_some_and(word_char) || rel.is_empty() {
            continue;
        }
        if rel.starts_with('/') || rel.split('/').any(|p| p == "..") {
            out.push(format!(
                "gate '{}' of task {} cites log '{rel}' outside the plan folder",
                gate.get("command").and_then(Value::as_str).unwrap_or(""),
                task.get("id").map(Value::to_string).unwrap_or_default()
            ));
        }
    }
}

/// The contract's gate findings (identical in every era): the latest
/// record of each command is what a task's truth rests on.
fn gate_findings(tasks: &[Value]) -> Vec<String> {
    let mut errors = Vec::new();
    let mut malformed = 0;
    for task in tasks {
        let mut latest: Vec<(Option<&str>, &Value)> = Vec::new();
        for g in task
            .get("gates")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice)
        {
            if !g.get("passes").is_some_and(Value::is_boolean) {
                malformed += 1;
                continue;
            }
            let cmd = g.get("command").and_then(Value::as_str);
            match latest.iter_mut().find(|(c, _)| *c == cmd) {
                Some(slot) => slot.1 = g,
                None => latest.push((cmd, g)),
            }
        }
        for (cmd, g) in &latest {
            if g.get("passes") != Some(&Value::Bool(true)) || invalidated(g) {
                continue;
            }
            let e = g.get("evidence").and_then(Value::as_str).unwrap_or("");
            if zero_selection(e) {
                errors.push("passing gate has zero-selection evidence".to_owned());
            } else if admits_never_ran(e) {
                errors.push(format!(
                    "passing gate '{}' has evidence that admits the check never ran — record an amendment instead",
                    cmd.unwrap_or("")
                ));
            }
            log_pointer_errors(task, g, &mut errors);
        }
        if task.get("status").and_then(Value::as_str) == Some("completed") {
            let id = task.get("id").map(Value::to_string).unwrap_or_default();
            let failing = latest.iter().any(|(_, g)| {
                g.get("passes") != Some(&Value::Bool(true))
                    || g.get("exit_code").and_then(Value::as_i64).unwrap_or(0) != 0
            });
            if failing {
                errors.push(format!(
                    "completed task {id} has a failing gate without a later passing run"
                ));
            } else if latest.iter().any(|(_, g)| invalidated(g)) {
                errors.push(format!(
                    "completed task {id} relies on evidence invalidated by refine — rerun its gate and append the fresh record"
                ));
            }
            if task
                .get("completed_at")
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
                || latest.is_empty()
            {
                errors.push(format!(
                    "completed state-layer task {id} requires completed_at and gate evidence"
                ));
            }
        }
    }
    if malformed > 0 {
        errors.push(format!(
            "{malformed} gate record(s) do not carry the documented `passes` boolean (PLAN_STATE.md §4.2) — their result cannot be read"
        ));
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn v2() -> Value {
        json!({"schema": V2, "plan": "PLAN_shop_search", "updated_at": "2026-01-01T00:00:00Z",
            "status": "in_progress", "completed_count": 1, "task_count": 2, "format": "full",
            "materialization": "ready", "approval": "approved", "tasks": [
                {"id": 1, "locator": {"kind": "file", "value": "1.task_a.md"}, "title": "A",
                 "status": "completed", "completed_at": "2026-01-01T00:00:00Z",
                 "gates": [{"command": "t", "passes": true, "exit_code": 0, "last_run": "x", "evidence": "3 passed"}]},
                {"id": 2, "locator": {"kind": "file", "value": "2.task_b.md"}, "title": "B",
                 "status": "pending", "gates": []}]})
    }

    #[test]
    fn a_coherent_state_holds() {
        assert_eq!(state_errors(&v2(), true), Vec::<String>::new());
    }

    /// Each budget of update-state.py's LIMITS (= the schema's maxLength)
    /// is enforced with the limit named; one more character is refused.
    #[test]
    fn every_budget_is_named() {
        let cases: [(&str, usize); 10] = [
            ("/tasks/0/gates/0/command", 500),
            ("/tasks/0/gates/0/evidence", 500),
            ("/tasks/0/outcome/worked", 500),
            ("/tasks/0/outcome/notes", 1000),
            ("/checkpoint/step", 200),
            ("/checkpoint/note", 500),
            ("/updated_by/agent", 100),
            ("/updated_by/model", 100),
            ("/blocked/reason", 1000),
            ("/blocked/needs", 500),
        ];
        for (ptr, max) in cases {
            for (len, fails) in [(max, false), (max + 1, true)] {
                let mut s = v2();
                s["tasks"][0]["outcome"] = json!({});
                s["checkpoint"] = json!({"task": 2, "at": "x"});
                s["updated_by"] = json!({});
                if ptr.starts_with("/blocked") {
                    s["blocked"] = json!({"task": 2, "reason": "r", "since": "x"});
                    s["tasks"][1]["status"] = json!("blocked");
                    s["status"] = json!("blocked");
                }
                let (parent, key) = ptr.rsplit_once('/').unwrap();
                s.pointer_mut(parent).unwrap()[key] = json!("e".repeat(len));
                let e = state_errors(&s, false);
                let path = format!("${}", ptr.replace('/', ".")).replace(".0", "[0]");
                let want = format!("{path}: exceeds maximum length ({max} chars, has {len})");
                assert_eq!(e.contains(&want), fails, "{ptr} {len}: {e:?}");
                if !fails {
                    assert_eq!(e, Vec::<String>::new(), "{ptr}");
                }
            }
        }
    }

    #[test]
    fn the_closed_shape_and_the_coherence_rules() {
        let mut s = v2();
        s["tasks"][1]["extra"] = json!(1);
        s["tasks"][0]["commit"] = json!("XYZ");
        s["plan"] = json!("plan");
        let e = state_errors(&s, false);
        assert_eq!(
            e,
            vec![
                "$.plan: invalid value 'plan'",
                "$.tasks[0].commit: invalid value 'XYZ'",
                "$.tasks[1]: unexpected field extra",
            ]
        );
        let mut s = v2();
        s["tasks"][0]["gates"][0]["evidence"] = json!("running 0 tests; no tests ran");
        s["tasks"][0]["status"] = json!("in_progress");
        s["completed_count"] = json!(0);
        assert_eq!(
            state_errors(&s, false),
            vec!["passing gate has zero-selection evidence"]
        );
        let mut s = v2();
        s["tasks"][0]
            .as_object_mut()
            .unwrap()
            .remove("completed_at");
        s["tasks"][1]["status"] = json!("blocked");
        s["checkpoint"] = json!({"task": 7, "at": "x"});
        assert_eq!(
            state_errors(&s, true),
            vec![
                "completed state-layer task 1 requires completed_at and gate evidence",
                "blocked task requires an explicit blocker record",
                "plan status disagrees with task/blocker state",
                "checkpoint references missing task",
            ]
        );
        assert_eq!(
            state_errors(&json!({"schema": "x"}), false),
            vec!["unsupported state schema"]
        );
    }

    #[test]
    fn evidence_rules_read_as_the_contract_reads_them() {
        assert!(zero_selection("ran=0"));
        assert!(zero_selection("selected = 0/12"));
        assert!(zero_selection("ran=0.5"));
        assert!(!zero_selection("ran=01"));
        assert!(zero_selection("No tests collected"));
        assert!(admits_never_ran("the suite was never\n entered"));
        assert!(admits_never_ran("cannot run here"));
        assert!(admits_never_ran("UNEXECUTED"));
        assert!(!admits_never_ran("preexecuted"));
        assert!(!admits_never_ran("42 passed"));
    }
}
