//! PRD-master: one project per directory holding a v0.6 `state.json`
//! (seed 000), or, without a readable one, a directory holding the
//! deliverables the state can be rebuilt from.

pub(crate) mod act;
pub(crate) mod frontier;
pub(crate) mod legacy;
pub(crate) mod rebuild;
testing_pub!(
    pub mod schema;
);

use std::collections::HashMap;
use std::path::Path;

use super::json::reason as json_reason;
use super::{dated, file_name, parse_time};
use crate::model::{
    Address, AnsweredItem, Decision, Finding, Format, InboxItem, InboxKind, Level, Phrase, Project,
    StatusKind,
};
use crate::phrase;
use crate::store::{self, StoreError, WalkEntry};
use rebuild::SCENE_ANCHOR;
use schema::{ParseFailure, Scalar, State};

pub(crate) const STATE_FILE: &str = "state.json";
const CONVERSATION: &str = "conversation.md";
const PROPOSAL_V1: &str = "proposal-v1.md";
/// Keys that make a `state.json` a PRD-master state.
const MARKERS: [&str; 3] = ["workflow_version", "state_schema_version", "current_stage"];
/// Why a `state.json` directory cannot be read.
const NOT_A_FILE: &str = "is a directory, not a file";
/// How much of an oversized `state.json` is inspected for the markers.
const SNIFF_BYTES: usize = 64 * 1024;

fn is_prd_state(s: &State) -> bool {
    s.workflow_version.is_some() || s.state_schema_version.is_some() || s.current_stage.is_some()
}

fn mentions_markers(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(SNIFF_BYTES)];
    let text = String::from_utf8_lossy(head);
    MARKERS.iter().any(|m| text.contains(&format!("\"{m}\"")))
}

/// Does an oversized `state.json` start like a PRD-master state?
fn sniff(dir: &Path) -> bool {
    store::read_prefix_in(dir, STATE_FILE, SNIFF_BYTES).is_ok_and(|head| mentions_markers(&head))
}

/// Why a project is rebuilt from its deliverables.
enum Why {
    Missing,
    /// `state.json` exists but cannot be used; the reason is shown.
    Corrupt(String),
    /// `state.json` is JSON, but some other tool's.
    NotPrd,
}

/// Recognise a PRD-master project in the directory `entry` describes.
pub(crate) fn discover(entry: &WalkEntry<'_>) -> Option<Project> {
    let has = |name: &str| entry.files.iter().any(|f| f == name);
    let deliverables = has(SCENE_ANCHOR) || has(CONVERSATION);
    if entry.dirs.iter().any(|d| d == STATE_FILE) {
        // The walk lists a directory among `dirs`: no state can be read
        // from it, and that is said, not passed over as "missing".
        return deliverables.then(|| rebuilt(entry.path, Why::Corrupt(NOT_A_FILE.to_owned())));
    }
    if !has(STATE_FILE) {
        return deliverables.then(|| rebuilt(entry.path, Why::Missing));
    }
    let dir = entry.path;
    // Inside a cached reading, a state.json that did not change is not
    // parsed again.
    let parsed =
        match store::cache::memo_in(dir, STATE_FILE, store::STATE_FILE_LIMIT, |b| parse(&b)) {
            Ok(parsed) => parsed,
            Err(StoreError::NotRegular) if store::is_dir(&dir.join(STATE_FILE)) => {
                return deliverables.then(|| rebuilt(dir, Why::Corrupt(NOT_A_FILE.to_owned())));
            }
            Err(e) => {
                // Without deliverables, only bytes that look like a PRD-master
                // state make the directory a project: a FIFO, a link out of the
                // project or an unreadable `state.json` may be anyone's.
                let ours = deliverables || (matches!(e, StoreError::TooLarge { .. }) && sniff(dir));
                return ours.then(|| rebuilt(dir, Why::Corrupt(e.to_string())));
            }
        };
    match parsed {
        Parsed::Prd(state, problems) => Some(from_state(dir, state, problems)),
        Parsed::NotPrd => deliverables.then(|| rebuilt(dir, Why::NotPrd)),
        Parsed::Syntax { reason, markers } => {
            (deliverables || markers).then(|| rebuilt(dir, Why::Corrupt(reason)))
        }
    }
}

/// What the bytes of a `state.json` say (they alone: kept by the read
/// cache).
#[derive(Clone)]
#[allow(clippy::large_enum_variant)] // one per state.json, never a list
enum Parsed {
    Prd(schema::State, Vec<String>),
    NotPrd,
    Syntax { reason: String, markers: bool },
}

fn parse(bytes: &[u8]) -> Parsed {
    match schema::parse(bytes) {
        Ok((state, problems)) if is_prd_state(&state) => Parsed::Prd(state, problems),
        Ok(_) | Err(ParseFailure::NotAnObject) => Parsed::NotPrd,
        Err(ParseFailure::Syntax(e)) => Parsed::Syntax {
            reason: json_reason(&e),
            markers: mentions_markers(bytes),
        },
    }
}

testing_pub!(
    #[cfg(feature = "testing")]
    /// Read the PRD-master project at `dir` directly (for `show`).
    pub fn load(dir: &Path) -> Option<Project> {
        let names = store::list_names(dir);
        let entry = WalkEntry {
            path: dir,
            files: &names,
            dirs: &[],
        };
        discover(&entry)
    }
);

/// A project whose state comes from its deliverables. A `state.json` that
/// exists is left exactly as it is.
fn rebuilt(dir: &Path, why: Why) -> Project {
    let mut p = Project::new(Format::PrdMaster, dir.to_path_buf(), file_name(dir));
    let r = rebuild::rebuild(dir);
    p.status = "rebuilt".to_owned();
    p.status_kind = status_kind(&p.status);
    p.stage = Some(Phrase::quoted(r.stage.clone()));
    match &why {
        Why::Corrupt(reason) => {
            p.problem(STATE_FILE, reason.clone());
            p.findings.push(
                Finding::new(Level::Error, "prd.state-corrupt", format!("state.json cannot be used ({reason}); it is left untouched and the stage is rebuilt from deliverables"))
                    .at(STATE_FILE),
            );
        }
        Why::NotPrd => p.findings.push(
            Finding::new(Level::Warning, "prd.not-prd-state", "state.json is JSON but not a PRD-master state (no workflow_version, state_schema_version or current_stage); ignored")
                .at(STATE_FILE),
        ),
        Why::Missing => {}
    }
    let basis = r
        .evidence
        .clone()
        .unwrap_or_else(|| "no deliverable found".to_owned());
    p.findings.push(
        Finding::new(
            Level::Warning,
            "prd.rebuilt",
            format!("stage {} rebuilt from deliverables ({basis})", r.stage),
        )
        .at(r.evidence.clone().unwrap_or_else(|| STATE_FILE.to_owned())),
    );
    // The conversation's latest dated exchange (which a copy or a clone
    // keeps), refined by the files' mtimes; without one, the mtimes.
    let mtime = [
        Some(STATE_FILE),
        r.evidence.as_deref(),
        Some(SCENE_ANCHOR),
        Some(CONVERSATION),
    ]
    .into_iter()
    .flatten()
    .filter_map(|f| {
        store::contained(dir, f)
            .ok()
            .and_then(|path| store::mtime(&path))
    })
    .max();
    p.updated_at = dated::dated(rebuild::conversation_dated(dir, CONVERSATION), mtime);
    p.resume.stopped_at = Some(phrase!("phrase.prd.rebuilt_stage", stage = &r.stage));
    p.resume.reason = Some(match why {
        Why::Corrupt(_) => phrase!("phrase.prd.state_corrupt"),
        Why::NotPrd => phrase!("phrase.prd.state_not_prd"),
        Why::Missing => phrase!("phrase.prd.state_missing"),
    });
    if let Some(w) = r.work_type {
        p.resume.waiting_for = Some(phrase!("phrase.prd.confirm_rebuilt", work = w));
    }
    p.resume.read_first = read_first(dir, None, &HashMap::new());
    p.statusline = format!("{} · stage {} · rebuilt", p.name, r.stage);
    p
}

/// The path a deliverable has in `state` (its `deliverables.KEY`), else
/// the seed's default name.
fn deliverable_name(state: Option<&State>, key: &str, default: &str) -> String {
    state
        .and_then(|s| s.deliverables.as_ref())
        .and_then(|d| d.get(key))
        .and_then(|v| v.as_str())
        .unwrap_or(default)
        .to_owned()
}

/// The files worth reading first that exist. `seen` holds what the
/// deliverables check already found out about a path (exists or not), so
/// no path is looked up twice.
fn read_first(dir: &Path, state: Option<&State>, seen: &HashMap<String, bool>) -> Vec<String> {
    let named = |key: &str, default: &str| deliverable_name(state, key, default);
    [
        named("scene_anchor", SCENE_ANCHOR),
        named("proposal_v1", PROPOSAL_V1),
        named("conversation", CONVERSATION),
    ]
    .into_iter()
    .filter(|rel| match seen.get(rel) {
        Some(exists) => *exists,
        None => store::contained_file(dir, rel).is_some(),
    })
    .collect()
}

fn from_state(dir: &Path, mut state: State, type_problems: Vec<String>) -> Project {
    let mut p = Project::new(Format::PrdMaster, dir.to_path_buf(), file_name(dir));
    for problem in type_problems {
        p.problem(STATE_FILE, problem);
    }
    if let Some(name) = state.project_name.clone().filter(|n| !n.trim().is_empty()) {
        p.name = name;
    }
    let anchor = deliverable_name(Some(&state), "scene_anchor", SCENE_ANCHOR);
    let mut legacy = legacy::migrate(&mut state, || rebuild::scene_anchor_has_value(dir, &anchor));
    if let Some(m) = legacy.as_mut() {
        legacy::replace_next_action(&mut state, m);
    }
    if let legacy::Version::Unreadable(raw) = legacy::version(&state) {
        p.findings.push(
            Finding::new(
                Level::Warning,
                "prd.version-unreadable",
                format!("workflow_version `{raw}` is not a version; read as current (v0.6)"),
            )
            .at("workflow_version"),
        );
    }
    if let Some(m) = &legacy {
        let from = m.from_version.as_deref().unwrap_or("none");
        let mut msg = format!(
            "legacy state (workflow_version {from}); shown migrated to v0.6, written migrated only when you act"
        );
        for n in &m.notes {
            msg.push_str("; ");
            msg.push_str(n);
        }
        p.findings
            .push(Finding::new(Level::Info, "prd.legacy-state", msg).at("workflow_version"));
    }

    p.updated_at = match state.last_updated_at_utc.as_deref() {
        Some(raw) => parse_time(raw).or_else(|| {
            p.findings.push(
                Finding::new(
                    Level::Warning,
                    "prd.bad-timestamp",
                    format!(
                        "last_updated_at_utc `{raw}` is not a timestamp; using the file's mtime"
                    ),
                )
                .at("last_updated_at_utc"),
            );
            store::mtime(&dir.join(STATE_FILE))
        }),
        None => {
            p.findings.push(
                Finding::new(
                    Level::Warning,
                    "prd.bad-timestamp",
                    "last_updated_at_utc is missing; using the file's mtime",
                )
                .at("last_updated_at_utc"),
            );
            store::mtime(&dir.join(STATE_FILE))
        }
    };
    let stage = state.current_stage.as_ref().map(Scalar::text);
    p.stage = stage.clone().map(Phrase::Quoted);

    let na = state.next_action.as_ref();
    p.frontier = frontier::compute(&state.open_questions, na, &mut p.findings);
    lint_stage(&mut p, &state);
    let seen = check_deliverables(&mut p, dir, &state);

    // The state records no time a question was asked, and its last write
    // is not one (answering OQ-6 re-aged OQ-4): each item waits from when
    // a reading first showed it (`model::first_seen`).
    let since: Option<chrono::DateTime<chrono::Utc>> = None;
    for q in &p.frontier.questions {
        p.inbox.push(InboxItem {
            kind: InboxKind::Question,
            act: Some(Address {
                verb: "answer",
                target: Some(q.id.clone()),
                options: Vec::new(),
            }),
            reference: q.id.clone(),
            title: Phrase::quoted(q.title.clone()),
            since,
            options: Vec::new(),
            subject: Some(q.id.clone()),
            why_not: None,
        });
    }
    for q in &p.frontier.research {
        if !frontier::is_agent_owner(q.owner.as_deref()) {
            let owner = q.owner.as_deref().unwrap_or("user");
            let what = q
                .evidence_needed
                .as_deref()
                .map(|e| phrase!("phrase.prd.evidence_needed", evidence = e));
            p.inbox.push(InboxItem {
                kind: InboxKind::Evidence,
                act: Some(Address {
                    verb: "evidence",
                    target: Some(q.id.clone()),
                    options: Vec::new(),
                }),
                reference: q.id.clone(),
                title: phrase!(
                    "phrase.prd.evidence",
                    question = &q.title,
                    owner = owner,
                    evidence = what
                ),
                since,
                options: Vec::new(),
                subject: Some(q.id.clone()),
                why_not: None,
            });
        }
    }
    // A choice already made waits for PRD-master, not for the human: it
    // leaves the inbox at once (`choose` refuses it as answered) and is
    // shown apart, answered, until PRD-master replaces the next_action.
    let chosen = na
        .and_then(|na| na.answer.as_ref())
        .filter(|a| !a.is_null());
    if let (Some(na), Some(answer)) = (na, chosen) {
        let field = |k: &str| answer.get(k).and_then(serde_json::Value::as_str);
        p.answered.push(AnsweredItem {
            kind: InboxKind::Choice,
            reference: "next_action".to_owned(),
            title: na
                .description
                .clone()
                .map_or_else(|| phrase!("phrase.prd.decision"), Phrase::Quoted),
            answer: field("text")
                .or(answer.as_str())
                .unwrap_or("(unreadable)")
                .to_owned(),
            at: field("at").and_then(parse_time),
            by: field("by").map(str::to_owned),
            subject: None,
            act: None,
        });
    }
    if let Some(na) = na.filter(|na| {
        chosen.is_none()
            && (na.kind.as_deref() == Some("user_decision")
                || !na.askuserquestion_options.is_empty())
    }) {
        p.inbox.push(InboxItem {
            kind: InboxKind::Choice,
            // Only offered options can be chosen; a user decision without
            // options is waited on, not chosen here.
            act: (!na.askuserquestion_options.is_empty()).then(|| Address {
                verb: "choose",
                target: None,
                options: na.askuserquestion_options.clone(),
            }),
            reference: "next_action".to_owned(),
            title: na
                .description
                .clone()
                .map_or_else(|| phrase!("phrase.prd.decision"), Phrase::Quoted),
            since,
            options: na.askuserquestion_options.clone(),
            subject: None,
            why_not: na
                .askuserquestion_options
                .is_empty()
                .then(|| phrase!("phrase.prd.why_no_options")),
        });
    }

    p.status = if legacy
        .as_ref()
        .is_some_and(|m| m.completed_without_value_stage)
    {
        "completed"
    } else if !p.inbox.is_empty() {
        "waiting"
    } else if chosen.is_some() {
        "answered"
    } else if !p.frontier.research.is_empty() {
        "researching"
    } else {
        "active"
    }
    .to_owned();
    p.status_kind = status_kind(&p.status);
    p.decisions = state
        .key_decisions_made
        .iter()
        .map(|d| Decision {
            id: d.id.clone(),
            summary: d.decision.clone().unwrap_or_default(),
            rationale: d.rationale.clone(),
            stage: d.stage.as_ref().map(Scalar::text),
        })
        .collect();

    p.resume.stopped_at = stage.as_ref().map(|s| match &state.current_substep {
        Some(sub) => phrase!("phrase.prd.stage_substep", stage = s, substep = sub),
        None => phrase!("phrase.prd.stage", stage = s),
    });
    p.resume.reason = state
        .user_inputs_log
        .iter()
        .rev()
        .find_map(|u| u.summary.clone())
        .map(|s| phrase!("phrase.prd.last_input", input = s));
    p.resume.waiting_for = match chosen {
        Some(answer) => Some(chosen_waits(answer)),
        // The state's own words, with its options.
        None => na.and_then(|na| {
            na.description.clone().map(|d| {
                if na.askuserquestion_options.is_empty() {
                    Phrase::Quoted(d)
                } else {
                    Phrase::Quoted(format!("{d} [{}]", na.askuserquestion_options.join(" / ")))
                }
            })
        }),
    };
    p.resume.completed = state.completed_stages.iter().map(Scalar::text).collect();
    p.resume.read_first = read_first(dir, Some(&state), &seen);
    p.activity = activity(&p);
    let waiting = p.inbox.len();
    p.statusline = match &stage {
        Some(s) if waiting > 0 => format!("{} · stage {s} · {waiting} waiting", p.name),
        Some(s) => format!("{} · stage {s} · {}", p.name, p.status),
        None => format!("{} · {}", p.name, p.status),
    };
    p
}

/// The claim of work going on: a fact node on the frontier that an agent
/// is researching (`owner: agent`, `status: researching`; seed 000: the
/// research dispatched and not yet back). Its last sign of life is the
/// state's last update. The seed sets no limit: its controller writes only
/// in a conversation, and a pause records the research still running
/// (`research_ids`), so a silent `researching` is how a paused session
/// looks. It is never stalled unless the config's `[stall]` sets
/// `prd-master`.
fn activity(p: &Project) -> Option<crate::model::Activity> {
    p.frontier
        .research
        .iter()
        .any(|q| {
            frontier::is_agent_owner(q.owner.as_deref())
                && q.status.as_deref() == Some("researching")
        })
        .then_some(crate::model::Activity {
            last: p.updated_at,
            limit: None,
        })
}

/// What a project whose `next_action` is answered waits for: PRD-master
/// acting on the choice (`answer` as `choose` writes it; any other shape is
/// still an answer, said as far as it can be read).
fn chosen_waits(answer: &serde_json::Value) -> Phrase {
    let field = |k: &str| answer.get(k).and_then(serde_json::Value::as_str);
    let text = field("text").or(answer.as_str()).unwrap_or("(unreadable)");
    let who = match (field("by"), field("at")) {
        (Some(by), Some(at)) => Some(phrase!("phrase.prd.chosen_by_at", by = by, at = at)),
        (Some(one), None) | (None, Some(one)) => Some(phrase!("phrase.prd.chosen_by", who = one)),
        (None, None) => None,
    };
    phrase!("phrase.prd.chosen_waits", choice = text, who = who)
}

/// The kind of each project status this reader yields (see `from_state`
/// and `rebuilt`); nothing is guessed.
fn status_kind(status: &str) -> StatusKind {
    match status {
        "completed" => StatusKind::Done,
        "waiting" => StatusKind::Waiting,
        // "answered": the human chose; PRD-master's turn.
        "researching" | "active" | "answered" => StatusKind::Running,
        "rebuilt" => StatusKind::Rebuilt,
        _ => StatusKind::Unknown,
    }
}

fn lint_stage(p: &mut Project, state: &State) {
    let Some(stage) = state.current_stage.as_ref().map(Scalar::text) else {
        return;
    };
    let in_stage1 = stage == "1" || stage.starts_with("1.");
    let kind = state.next_action.as_ref().and_then(|n| n.kind.as_deref());
    if in_stage1 && !state.open_questions.is_empty() && kind != Some("stage1_frontier") {
        p.findings.push(
            Finding::new(Level::Warning, "prd.next-action-not-frontier", format!("stage {stage} saves next_action of type {}; the seed requires stage1_frontier (recompute it from open_questions)", kind.unwrap_or("none")))
                .at("next_action"),
        );
    }
    // The seed: while a P0/P1 question that blocks stage 2 is open, stage 1
    // must not be marked complete. Once stage 3 or later is reached, open
    // P0/P1 questions are legal (the seed's own example is at 4.5).
    let early = legacy::stage_major(&stage).is_some_and(|m| m <= 2);
    let stage1_done = state.completed_stages.iter().any(|s| s.text() == "1");
    let blocking: Vec<String> = state
        .open_questions
        .iter()
        .filter(|q| matches!(q.priority.as_deref(), Some("P0" | "P1")))
        .filter_map(|q| q.id.as_ref().map(Scalar::text))
        .collect();
    if early && stage1_done && !blocking.is_empty() {
        p.findings.push(
            Finding::new(
                Level::Warning,
                "prd.stage1-closed-with-blockers",
                format!(
                    "stage 1 is marked complete while P0/P1 questions are open: {}",
                    blocking.join(", ")
                ),
            )
            .at("completed_stages"),
        );
    }
}

/// Deliverable paths come from the file: never open one outside the project.
/// Returns, for each path checked, whether it exists as a file.
fn check_deliverables(p: &mut Project, dir: &Path, state: &State) -> HashMap<String, bool> {
    let mut seen = HashMap::new();
    let Some(map) = &state.deliverables else {
        return seen;
    };
    for (key, value) in map {
        let paths: Vec<&str> = match value {
            serde_json::Value::String(s) => vec![s.as_str()],
            serde_json::Value::Array(items) => items.iter().filter_map(|v| v.as_str()).collect(),
            _ => Vec::new(),
        };
        for rel in paths {
            let found = store::locate_file(dir, rel);
            seen.insert(rel.to_owned(), matches!(found, Ok(Some(true))));
            match found {
                Err(_) => p.findings.push(
                    Finding::new(Level::Error, "prd.deliverable-outside", format!("deliverables.{key} points outside the project ({rel}); it is never opened"))
                        .at(format!("deliverables.{key}")),
                ),
                Ok(None) => p.findings.push(
                    Finding::new(Level::Info, "prd.deliverable-missing", format!("deliverables.{key} names {rel}, which does not exist"))
                        .at(format!("deliverables.{key}")),
                ),
                Ok(Some(_)) => {}
            }
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn every_status_has_its_kind_and_the_guess_never_decides() {
        let cases = [
            // A current state waiting on a user decision.
            (
                r#"{"workflow_version":"0.6","current_stage":"4.5","next_action":{"type":"user_decision","description":"d"}}"#,
                "waiting",
                StatusKind::Waiting,
            ),
            // Stage 1 with only an agent's fact check under way.
            (
                r#"{"workflow_version":"0.6","current_stage":"1","open_questions":[{"id":"F","kind":"fact","owner":"agent","status":"researching"}]}"#,
                "researching",
                StatusKind::Running,
            ),
            (
                r#"{"workflow_version":"0.6","current_stage":"5.1"}"#,
                "active",
                StatusKind::Running,
            ),
            // A finished pre-0.5 project.
            (
                r#"{"current_stage":"6.1","deliverables":{"final_prd":"PRD.md"}}"#,
                "completed",
                StatusKind::Done,
            ),
        ];
        for (state, status, kind) in cases {
            let tmp = tempfile::tempdir().unwrap();
            fs::write(tmp.path().join(STATE_FILE), state).unwrap();
            let found = crate::formats::load_dir(tmp.path()).projects;
            assert_eq!(found.len(), 1, "{state}");
            assert_eq!(found[0].status, status, "{state}");
            assert_eq!(found[0].status_kind, kind, "{state}");
        }
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join(CONVERSATION), "对话").unwrap();
        let found = crate::formats::load_dir(tmp.path()).projects;
        assert_eq!(found[0].status_kind, StatusKind::Rebuilt);
        assert_eq!(status_kind("anything else"), StatusKind::Unknown);
    }

    #[test]
    fn a_rebuilt_project_is_dated_by_its_conversation_not_by_a_clone() {
        let tmp = tempfile::tempdir().unwrap();
        let conversation = tmp.path().join(CONVERSATION);
        let clone = chrono::DateTime::parse_from_rfc3339("2030-01-15T10:00:00Z").unwrap();
        let write = |text: &str| {
            fs::write(&conversation, text).unwrap();
            fs::write(tmp.path().join(SCENE_ANCHOR), "# 场景锚点\n").unwrap();
            for f in [CONVERSATION, SCENE_ANCHOR] {
                fs::File::options()
                    .append(true)
                    .open(tmp.path().join(f))
                    .unwrap()
                    .set_modified(clone.into())
                    .unwrap();
            }
            let found = crate::formats::load_dir(tmp.path()).projects;
            assert_eq!(found[0].status, "rebuilt");
            found[0].updated_at.map(|t| t.to_rfc3339())
        };
        // The latest exchange, in people's form and in loopdeck's own
        // (what its answers append), wherever it is in the file.
        let dated = write(
            "# 对话\n\n## 2026-05-20 06:30 UTC · 阶段 5.3\n\n**PM**：草稿\n\n## 2026-05-12 02:00 UTC · 阶段 0\n\n## 2026-05-21T08:00:00Z · 阶段 5.3 · OQ-1\n\n正文 2031-01-01 不是标题\n",
        );
        assert_eq!(dated.as_deref(), Some("2026-05-21T08:00:00+00:00"));
        // Nothing dated: the files' mtime, as before.
        let undated = write("# 对话\n\n## 阶段 0\n\n2026-05-20 06:30 UTC\n");
        assert_eq!(undated.as_deref(), Some("2030-01-15T10:00:00+00:00"));
        // A conversation grown past what a state file may weigh (16 MiB):
        // its end dates it, read alone.
        let mut big = String::from("# 对话\n\n## 2026-01-01 00:00 UTC · 阶段 0\n\n");
        let page = "**PM**：很长的讨论。".repeat(60) + "\n\n";
        while big.len() < 17 * 1024 * 1024 {
            big.push_str(&page);
        }
        big.push_str("## 2026-05-31 09:00 UTC · 阶段 1.5\n\n最后一段\n");
        assert_eq!(write(&big).as_deref(), Some("2026-05-31T09:00:00+00:00"));
    }

    #[test]
    fn a_state_deleted_between_listing_and_reading_is_reported() {
        let tmp = tempfile::tempdir().unwrap();
        let files = vec![STATE_FILE.to_owned(), CONVERSATION.to_owned()];
        fs::write(tmp.path().join(CONVERSATION), "对话").unwrap();
        let entry = WalkEntry {
            path: tmp.path(),
            files: &files,
            dirs: &[],
        };
        let p = discover(&entry).expect("deliverables make it a project");
        assert_eq!(p.problems.len(), 1);
        assert!(
            p.problems[0].reason.contains("disappeared"),
            "{:?}",
            p.problems
        );
        let only_state = vec![STATE_FILE.to_owned()];
        let entry = WalkEntry {
            path: tmp.path(),
            files: &only_state,
            dirs: &[],
        };
        fs::remove_file(tmp.path().join(CONVERSATION)).unwrap();
        assert!(
            discover(&entry).is_none(),
            "a vanished file alone is no evidence of a project"
        );
    }
}
