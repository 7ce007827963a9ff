//! The state a PRD-master decision edits: `state.json` read through the
//! transaction's snapshot, parsed twice — an order-preserving document that
//! is edited and written back in its own style, and the typed (migrated)
//! view the rules are checked against.

use serde_json::{Map, Value, json};

use super::super::frontier::{self, is_agent_owner};
use super::super::legacy::{self, Migration, Version};
use super::super::rebuild::SCENE_ANCHOR;
use super::super::schema::{self, NextAction, ParseFailure, Scalar, State};
use super::super::{CONVERSATION, STATE_FILE};
use super::lang::{self, Lang};
use crate::formats::json::reason as json_reason;
use crate::formats::jsonedit::{JsonDoc, Shape};
use crate::model::{Frontier, Request};
use crate::store::txn::{ActError, Edit, Refusal, Snapshot};

/// `state.json`, ready to be edited.
pub(crate) struct Loaded {
    pub doc: JsonDoc,
    /// The typed view, migrated as the reader shows it.
    pub state: State,
    pub migration: Option<Migration>,
    /// The language the project is written in (see [`lang`]).
    pub lang: Lang,
}

pub(crate) fn refuse(msg: impl Into<String>) -> ActError {
    ActError::Refused(Refusal::new(msg))
}

/// The seed's timestamp form (`2026-05-23T14:32:00Z`).
pub(crate) fn stamp(req: &Request) -> String {
    req.now.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// The id of a node as text (`"OQ-7"` and `7` alike).
pub(crate) fn id_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn corrupt(reason: &str) -> ActError {
    refuse(format!(
        "state.json is corrupt ({reason}); loopdeck never writes over a corrupt state. \
         Restore it from a backup, or let PRD-master rebuild it (the corrupt file is kept as \
         state.json.corrupt-<UTC stamp>)"
    ))
}

/// Read and parse `state.json`; a legacy state is migrated in the document
/// too, so whatever the decision writes is written as v0.6.
pub(crate) fn load(snap: &mut Snapshot, req: &Request) -> Result<Loaded, ActError> {
    // Shared with the snapshot: a copy of a large state would stay alive
    // through the whole decision.
    let Some(shared) = snap.read_shared(STATE_FILE)? else {
        return Err(refuse(
            "no state.json here: a PRD-master decision needs the project's state \
             (a project shown as rebuilt is confirmed by PRD-master itself)",
        ));
    };
    let (mut state, _) = match schema::parse(&shared) {
        Ok(parsed) => parsed,
        // Valid JSON past the parser's limits is not corrupt: say it as
        // the reader says it ("state.json cannot be used (…)").
        Err(ParseFailure::Syntax(e)) if crate::formats::json::limit(&e).is_some() => {
            return Err(refuse(format!(
                "state.json cannot be used ({}); loopdeck writes nothing to a state it \
                 cannot read whole: have PRD-master write it within these limits",
                json_reason(&e)
            )));
        }
        Err(ParseFailure::Syntax(e)) => return Err(corrupt(&json_reason(&e))),
        Err(ParseFailure::NotAnObject) => return Err(corrupt("not a JSON object")),
    };
    let doc = JsonDoc::parse_shared(shared).map_err(|e| corrupt(&e))?;
    if state.workflow_version.is_none()
        && state.state_schema_version.is_none()
        && state.current_stage.is_none()
    {
        return Err(refuse(
            "state.json is not a PRD-master state (no workflow_version, state_schema_version or current_stage)",
        ));
    }
    for (key, want) in [
        ("open_questions", "an array"),
        ("user_inputs_log", "an array"),
        ("key_decisions_made", "an array"),
        ("next_action", "an object"),
    ] {
        let ok = match doc.shape(key) {
            None | Some(Shape::Null) => true,
            Some(Shape::Array) => want == "an array",
            Some(Shape::Object) => want == "an object",
            Some(Shape::Other) => false,
        };
        if !ok {
            return Err(refuse(format!(
                "state.json: `{key}` is not {want}; loopdeck will not rewrite a field it cannot read"
            )));
        }
    }
    let pre_05 = match legacy::version(&state) {
        Version::Missing => true,
        Version::Known(ma, mi) => (ma, mi) < (0, 5),
        Version::Unreadable(_) => false,
    };
    let anchor = state
        .deliverables
        .as_ref()
        .and_then(|d| d.get("scene_anchor"))
        .and_then(Value::as_str)
        .unwrap_or(SCENE_ANCHOR)
        .to_owned();
    // A scene anchor that cannot be read is one without text.
    let anchor_bytes = snap.read(&anchor).ok().flatten();
    let lang = lang::detect(&state, anchor_bytes);
    let has_value = anchor_bytes
        .is_some_and(|b| String::from_utf8_lossy(b).contains(super::super::rebuild::VALUE_SECTION));
    let was = Was {
        schema: state.state_schema_version.as_ref().map(Scalar::text),
        completed: state.completed_stages.iter().map(Scalar::text).collect(),
        next_action: state.next_action.as_ref().and_then(|n| n.kind.clone()),
    };
    let mut migration = legacy::migrate(&mut state, || !pre_05 || has_value);
    let mut loaded = Loaded {
        doc,
        state,
        migration: None,
        lang,
    };
    if let Some(m) = migration.as_mut() {
        legacy::replace_next_action(&mut loaded.state, m);
        let replaced = m
            .notes
            .iter()
            .any(|n| n.starts_with("next_action recomputed"));
        if replaced
            && let Some(na) = loaded.state.next_action.as_mut()
            && na.kind.as_deref() == Some("value_argument")
        {
            let back_to = m.stage_to.clone().unwrap_or_else(|| "?".to_owned());
            na.description = Some((lang.words().value_argument)(&back_to));
        }
        write_migration(&mut loaded, m, pre_05, replaced, req);
        snap.say(migration_sentence(&loaded.state, m, &was, pre_05, replaced));
    }
    loaded.migration = migration;
    Ok(loaded)
}

/// What a legacy state held before its migration, for the sentence that
/// says what the migration changes.
struct Was {
    schema: Option<String>,
    completed: Vec<String>,
    next_action: Option<String>,
}

/// One sentence naming what the first write of a legacy state changes
/// beyond the decision itself (the dry run, the console's confirm and the
/// result show it): the versions, the stage, the completed stages, the
/// next action, the questions given a status, the note.
fn migration_sentence(
    state: &State,
    m: &Migration,
    was: &Was,
    pre_05: bool,
    next_action_replaced: bool,
) -> String {
    let mut parts = vec![format!(
        "workflow_version {} → 0.6, state_schema_version {} → 3",
        m.from_version.as_deref().unwrap_or("none"),
        was.schema.as_deref().unwrap_or("none")
    )];
    if let (Some(from), Some(to)) = (&m.stage_from, &m.stage_to)
        && from != to
    {
        parts.push(format!("stage {from} → {to} (the v0.6 numbering)"));
    }
    let completed: Vec<String> = state.completed_stages.iter().map(Scalar::text).collect();
    if pre_05 && completed != was.completed {
        parts.push(format!(
            "completed_stages [{}] → [{}]",
            was.completed.join(", "),
            completed.join(", ")
        ));
    }
    if next_action_replaced && let Some(na) = &state.next_action {
        let mut s = format!(
            "next_action {} → {}",
            was.next_action.as_deref().unwrap_or("none"),
            na.kind.as_deref().unwrap_or("?")
        );
        // Stage 1's frontier is recomputed by the answer itself; any other
        // next action is written as described.
        if let Some(d) = na
            .description
            .as_ref()
            .filter(|_| na.kind.as_deref() != Some("stage1_frontier"))
        {
            s.push_str(&format!(" ({d})"));
        }
        parts.push(s);
    }
    if m.completed_without_value_stage {
        parts.push("marked legacy_completed_without_value_stage".to_owned());
    }
    if let Some(n) = m
        .notes
        .iter()
        .find(|n| n.ends_with("had no status; filled from owner"))
    {
        parts.push(n.replace("; filled from owner", ": each gets one from its owner"));
    }
    format!(
        "migrates the legacy state to v0.6 with this decision: {}; a migration_note records it",
        parts.join("; ")
    )
}

/// Write the migration into the document (seed 000, Step 0): v0.6, schema
/// 3, the mapped stages, every open question's status, and a note.
fn write_migration(
    loaded: &mut Loaded,
    m: &Migration,
    pre_05: bool,
    next_action_replaced: bool,
    req: &Request,
) {
    let state = &loaded.state;
    let map = &mut loaded.doc;
    // The version keys lead a v0.6 state (seed 000's field order); a key
    // already there keeps its place.
    for (i, (key, value)) in [
        ("state_schema_version", json!(3)),
        ("workflow_version", json!("0.6")),
    ]
    .into_iter()
    .enumerate()
    {
        map.insert_at(i, key, value);
    }
    if let Some(to) = &m.stage_to {
        map.insert("current_stage", json!(to));
    }
    if pre_05 && map.contains_key("completed_stages") {
        let done: Vec<String> = state.completed_stages.iter().map(Scalar::text).collect();
        map.insert("completed_stages", json!(done));
    }
    if m.completed_without_value_stage {
        map.insert("legacy_completed_without_value_stage", Value::Bool(true));
    }
    if let Some(Value::Array(nodes)) = map.get_mut("open_questions") {
        for node in nodes.iter_mut().filter_map(Value::as_object_mut) {
            if node.get("status").is_none_or(Value::is_null) {
                let owner = node.get("owner").and_then(Value::as_str);
                let status = if is_agent_owner(owner) {
                    "pending_research"
                } else {
                    "pending_user"
                };
                node.insert("status".to_owned(), json!(status));
            }
        }
    }
    if next_action_replaced && let Some(na) = &state.next_action {
        map.insert("next_action", next_action_value(na));
    }
    map.insert(
        "migration_note",
        json!({
            "from_workflow_version": m.from_version,
            "to_workflow_version": "0.6",
            "state_schema_version": 3,
            "migrated_at_utc": stamp(req),
            "by": req.by,
            "notes": m.notes,
        }),
    );
}

/// A typed next action as the seed writes it.
pub(crate) fn next_action_value(na: &NextAction) -> Value {
    let mut m = Map::new();
    m.insert("type".to_owned(), json!(na.kind));
    if let Some(d) = &na.description {
        m.insert("description".to_owned(), json!(d));
    }
    if na.kind.as_deref() == Some("stage1_frontier") {
        let ids = |v: &[schema::Id]| v.iter().map(|i| i.0.clone()).collect::<Vec<_>>();
        m.insert("question_ids".to_owned(), json!(ids(&na.question_ids)));
        m.insert("research_ids".to_owned(), json!(ids(&na.research_ids)));
    }
    if !na.askuserquestion_options.is_empty() {
        m.insert(
            "askuserquestion_options".to_owned(),
            json!(na.askuserquestion_options),
        );
    }
    Value::Object(m)
}

/// The frontier of the typed state's open questions.
pub(crate) fn frontier_of(state: &State) -> Frontier {
    frontier::compute(&state.open_questions, None, &mut Vec::new())
}

/// Stage 1's `next_action` recomputed from `open_questions` (after
/// `resolved` left it): the eligible questions and the fact checks.
pub(crate) fn stage1_frontier(state: &State, resolved: &str, lang: Lang) -> Value {
    // Only the questions: a clone of the whole state (its logs) would
    // double a large state's memory.
    let rest: Vec<_> = state
        .open_questions
        .iter()
        .filter(|q| q.id.as_ref().map(Scalar::text).as_deref() != Some(resolved))
        .cloned()
        .collect();
    let f = frontier::compute(&rest, None, &mut Vec::new());
    let ids = |qs: &[crate::model::Question]| qs.iter().map(|q| q.id.clone()).collect::<Vec<_>>();
    let (questions, research) = (ids(&f.questions), ids(&f.research));
    let [both, asking, checking, empty] = lang.words().frontier;
    let description = match (questions.is_empty(), research.is_empty()) {
        (false, false) => both,
        (false, true) => asking,
        (true, false) => checking,
        (true, true) => empty,
    };
    json!({
        "type": "stage1_frontier",
        "description": description,
        "question_ids": questions,
        "research_ids": research,
    })
}

/// Is `next_action` recomputed as stage 1's frontier after an answer? In
/// stage 1, or when it already is the frontier (or missing); a later
/// stage's pending user decision is left for its own `choose`.
pub(crate) fn recomputes_frontier(state: &State) -> bool {
    let stage1 = state
        .current_stage
        .as_ref()
        .and_then(|s| legacy::stage_major(&s.text()))
        == Some(1);
    let kind = state.next_action.as_ref().and_then(|n| n.kind.as_deref());
    stage1 || matches!(kind, None | Some("stage1_frontier"))
}

/// Refresh `last_updated_at_utc`.
pub(crate) fn touch(doc: &mut JsonDoc, req: &Request) {
    doc.insert("last_updated_at_utc", json!(stamp(req)));
}

/// The current stage as the document holds it.
pub(crate) fn stage_value(doc: &JsonDoc) -> Value {
    doc.get("current_stage")
        .map_or(Value::Null, std::borrow::Cow::into_owned)
}

/// The number of the next key decision (`D-n`): one past the highest
/// `D-` number the state holds.
pub(crate) fn next_decision_id(state: &State) -> u64 {
    state
        .key_decisions_made
        .iter()
        .filter_map(|d| d.id.as_deref())
        .filter_map(|i| i.strip_prefix("D-").and_then(|n| n.parse::<u64>().ok()))
        .max()
        .unwrap_or(0)
        + 1
}

/// `summary` cut to `max` characters (the whole text stays in `answer`).
pub(crate) fn short(text: &str, max: usize) -> String {
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= max {
        one_line
    } else {
        let mut s: String = one_line.chars().take(max).collect();
        s.push('…');
        s
    }
}

/// The conversation archive's path: `deliverables.conversation`, else the
/// seed's `conversation.md`.
pub(crate) fn conversation_path(state: &State) -> String {
    state
        .deliverables
        .as_ref()
        .and_then(|d| d.get("conversation"))
        .and_then(Value::as_str)
        .filter(|p| !p.trim().is_empty())
        .unwrap_or(CONVERSATION)
        .to_owned()
}

/// Append one exchange to `conversation.md` (created when missing): every
/// byte already there stays; the new block follows a blank line, in the
/// file's own line endings.
pub(crate) fn conversation_edit(
    snap: &mut Snapshot,
    state: &State,
    lang: Lang,
    block: &str,
) -> Result<Edit, ActError> {
    let file = conversation_path(state);
    let existing = match snap.read(&file) {
        Ok(b) => b.map(<[u8]>::to_vec),
        Err(ActError::Store { source, .. }) => {
            return Err(refuse(format!(
                "{file} (deliverables.conversation) cannot be appended to: {source}"
            )));
        }
        Err(e) => return Err(e),
    };
    let mut bytes = existing.unwrap_or_default();
    let crlf = bytes.windows(2).any(|w| w == b"\r\n");
    let nl: &[u8] = if crlf { b"\r\n" } else { b"\n" };
    if bytes.is_empty() {
        bytes.extend_from_slice(lang.words().title.as_bytes());
        bytes.extend_from_slice(nl);
    } else if !bytes.ends_with(b"\n") {
        bytes.extend_from_slice(nl);
    }
    bytes.extend_from_slice(nl);
    for (i, line) in block.trim_end_matches('\n').split('\n').enumerate() {
        if i > 0 {
            bytes.extend_from_slice(nl);
        }
        bytes.extend_from_slice(line.as_bytes());
    }
    bytes.extend_from_slice(nl);
    Ok(Edit::Replace { file, bytes })
}

/// The state's edit: the document back in its own style.
pub(crate) fn state_edit(doc: JsonDoc) -> Result<Edit, ActError> {
    let bytes = doc
        .into_bytes()
        .map_err(|e| refuse(format!("state.json cannot be written: {e}")))?;
    Ok(Edit::Replace {
        file: STATE_FILE.to_owned(),
        bytes,
    })
}

/// A decision's two edits: `block` appended to the conversation, and the
/// edited document. The typed view is dropped before the document is
/// written back and the document right after, so a large state is held in
/// as few copies as the write needs.
pub(crate) fn finish(
    snap: &mut Snapshot,
    loaded: Loaded,
    block: &str,
) -> Result<Vec<Edit>, ActError> {
    let Loaded {
        doc, state, lang, ..
    } = loaded;
    let conversation = conversation_edit(snap, &state, lang, block)?;
    drop(state);
    let edit = state_edit(doc)?;
    Ok(vec![edit, conversation])
}

/// The stage as text, for messages and the conversation.
pub(crate) fn stage_text(state: &State) -> String {
    state
        .current_stage
        .as_ref()
        .map(Scalar::text)
        .unwrap_or_else(|| "?".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn req() -> Request {
        Request {
            verb: crate::model::Verb::Approve,
            by: "alice".to_owned(),
            now: chrono::Utc.with_ymd_and_hms(2026, 6, 1, 9, 30, 0).unwrap(),
            devloop_api: None,
            config_file: None,
        }
    }

    fn state(json: &str) -> State {
        schema::parse(json.as_bytes()).unwrap().0
    }

    #[test]
    fn the_frontier_is_recomputed_in_stage_one_only() {
        assert!(recomputes_frontier(&state(
            r#"{"current_stage":"1.3","next_action":{"type":"user_decision"}}"#
        )));
        assert!(recomputes_frontier(&state(r#"{"current_stage":"4.5"}"#)));
        assert!(recomputes_frontier(&state(
            r#"{"current_stage":"4.5","next_action":{"type":"stage1_frontier"}}"#
        )));
        assert!(!recomputes_frontier(&state(
            r#"{"current_stage":"4.5","next_action":{"type":"user_decision"}}"#
        )));
    }

    #[test]
    fn the_resolved_node_leaves_the_frontier_and_unblocks_its_dependants() {
        let s = state(
            r#"{"current_stage":"1","open_questions":[
            {"id":"A","kind":"fact","owner":"IT","status":"pending_user","depends_on":[]},
            {"id":"B","kind":"decision","owner":"user","status":"pending_user","depends_on":["A"]},
            {"id":7,"kind":"decision","owner":"user","status":"pending_user","depends_on":[]}]}"#,
        );
        let na = stage1_frontier(&s, "A", Lang::Zh);
        assert_eq!(na["question_ids"], json!(["B", "7"]));
        assert_eq!(na["research_ids"], json!([]));
        let na = stage1_frontier(&s, "7", Lang::Zh);
        assert_eq!(na["question_ids"], json!([]));
        assert_eq!(na["research_ids"], json!(["A"]));
        assert_eq!(na["description"], "等待事实查证返回");
    }

    #[test]
    fn conversation_appends_keep_every_byte_and_the_line_endings() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("conversation.md"), "# 对话\r\n\r\n旧内容").unwrap();
        let mut snap = Snapshot::new(tmp.path());
        let s = state(r#"{"current_stage":"1"}"#);
        let Edit::Replace { file, bytes } =
            conversation_edit(&mut snap, &s, Lang::Zh, "## a\n\nb\n").unwrap()
        else {
            panic!("a replace");
        };
        assert_eq!(file, "conversation.md");
        assert_eq!(
            bytes,
            "# 对话\r\n\r\n旧内容\r\n\r\n## a\r\n\r\nb\r\n".as_bytes()
        );
        let s = state(r#"{"current_stage":"1","deliverables":{"conversation":"log/talk.md"}}"#);
        let Edit::Replace { file, bytes } =
            conversation_edit(&mut snap, &s, Lang::Zh, "x").unwrap()
        else {
            panic!("a replace");
        };
        assert_eq!(file, "log/talk.md");
        assert_eq!(bytes, "# 对话记录\n\nx\n".as_bytes());
        let s = state(r#"{"current_stage":"1","deliverables":{"conversation":"../out.md"}}"#);
        assert!(
            conversation_edit(&mut snap, &s, Lang::Zh, "x").is_err(),
            "outside the project"
        );
    }

    #[test]
    fn summaries_are_one_short_line() {
        assert_eq!(short("a\n b", 10), "a b");
        assert_eq!(short("一二三四五", 3), "一二三…");
        assert_eq!(stamp(&req()), "2026-06-01T09:30:00Z");
    }
}
