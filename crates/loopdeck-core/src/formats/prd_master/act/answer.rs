//! `answer OQ-ID TEXT` and `evidence OQ-ID TEXT`: resolve one node of
//! stage 1's dependency frontier (seed 000, 阶段 1 前沿). A resolved node
//! leaves `open_questions`; the answer goes to `user_inputs_log` (and, at
//! the key-decision gate, `key_decisions_made`); stage 1's `next_action`
//! is recomputed from what is still open; the exchange is appended to
//! `conversation.md`.

use serde_json::{Value, json};

use super::doc::{self, Loaded, id_text, refuse};
use super::quote;
use crate::formats::prd_master::frontier::is_agent_owner;
use crate::model::{Question, Request};
use crate::store::txn::{ActError, Edit, Snapshot};

/// Which of the two verbs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Resolve {
    Answer,
    Evidence,
}

/// What the node is, as the frontier sees it.
fn locate<'a>(
    loaded: &Loaded,
    id: &str,
    f: &'a crate::model::Frontier,
) -> Result<(&'a Question, bool), ActError> {
    let count = loaded
        .state
        .open_questions
        .iter()
        .filter(|q| q.id.as_ref().map(|i| i.text()).as_deref() == Some(id))
        .count();
    if count > 1 {
        return Err(refuse(format!(
            "{id} appears {count} times in open_questions; fix the file before answering it"
        )));
    }
    let eligible = f.questions.iter().chain(&f.research).find(|q| q.id == id);
    if let Some(q) = eligible {
        return Ok((q, true));
    }
    if let Some(q) = f.blocked.iter().find(|q| q.id == id) {
        return Ok((q, false));
    }
    // Parsed for this message only (a refusal), then dropped.
    let log = loaded.doc.get("user_inputs_log");
    let earlier = log
        .as_deref()
        .and_then(Value::as_array)
        .and_then(|log| {
            log.iter()
                .rev()
                .find(|e| e.get("question_id").and_then(id_text).as_deref() == Some(id))
        })
        .map(|e| {
            let at = e.get("timestamp").and_then(Value::as_str).unwrap_or("?");
            format!("{id} is already resolved (user_inputs_log, {at}); it is not asked again")
        });
    let open: Vec<String> = f
        .questions
        .iter()
        .chain(&f.research)
        .chain(&f.blocked)
        .map(|q| q.id.clone())
        .collect();
    Err(refuse(earlier.unwrap_or_else(|| {
        format!(
            "{id} is not an open question of this project (open: {})",
            if open.is_empty() {
                "none".to_owned()
            } else {
                open.join(", ")
            }
        )
    })))
}

/// Check the rules for `verb` on node `q`.
fn check(verb: Resolve, q: &Question, eligible: bool) -> Result<(), ActError> {
    let id = &q.id;
    let owner = q.owner.as_deref().unwrap_or("(no owner)");
    let status = q.status.as_deref().unwrap_or("(no status)");
    match (verb, q.kind.as_str()) {
        (Resolve::Answer, "decision") if status != "pending_user" => {
            return Err(refuse(format!(
                "{id} is a decision node with status {status}, not pending the user (pending_user); nothing to answer"
            )));
        }
        (Resolve::Answer, "decision") | (Resolve::Evidence, "fact") => {}
        (Resolve::Answer, "fact") if is_agent_owner(q.owner.as_deref()) => {
            return Err(refuse(format!(
                "{id} is a fact node the agent checks itself (owner {owner}, status {status}); it is not a question for the user"
            )));
        }
        (Resolve::Answer, "fact") => {
            return Err(refuse(format!(
                "{id} is a fact node owned by {owner}: bring its evidence with `evidence {id} TEXT`"
            )));
        }
        (Resolve::Evidence, "decision") => {
            return Err(refuse(format!(
                "{id} is a decision node, not a fact to evidence: answer it with `answer {id} TEXT`"
            )));
        }
        (_, other) => {
            return Err(refuse(format!(
                "{id} is a node of kind `{other}`; only decision nodes are answered and fact nodes evidenced"
            )));
        }
    }
    if verb == Resolve::Evidence && is_agent_owner(q.owner.as_deref()) {
        return Err(refuse(format!(
            "{id} is a fact node the agent checks itself (owner {owner}); evidence is taken only for a node a human role owns"
        )));
    }
    if !eligible {
        let waiting = if q.waiting_on.is_empty() {
            String::new()
        } else {
            format!(
                ": it depends on {}, still open in open_questions",
                q.waiting_on.join(", ")
            )
        };
        return Err(refuse(format!(
            "{id} is not on the frontier yet{waiting}; resolve {} first",
            if q.waiting_on.len() == 1 {
                "it"
            } else {
                "them"
            }
        )));
    }
    Ok(())
}

/// The edits of `answer`/`evidence`.
#[allow(clippy::too_many_arguments)]
pub(super) fn decide(
    snap: &mut Snapshot,
    req: &Request,
    verb: Resolve,
    id: &str,
    text: &str,
    key_decision: bool,
    rationale: Option<&str>,
) -> Result<Vec<Edit>, ActError> {
    if text.trim().is_empty() {
        return Err(refuse("the answer text is empty"));
    }
    let what = match verb {
        Resolve::Answer => "the answer",
        Resolve::Evidence => "the evidence",
    };
    let text = &quote::text(what, text)?;
    let shown_rationale = rationale
        .map(|r| quote::line("the rationale", r))
        .transpose()?;
    let mut loaded = doc::load(snap, req)?;
    let f = doc::frontier_of(&loaded.state);
    let (q, eligible) = locate(&loaded, id, &f)?;
    check(verb, q, eligible)?;
    let q = q.clone();
    let recompute = doc::recomputes_frontier(&loaded.state);
    let next_action = recompute.then(|| doc::stage1_frontier(&loaded.state, id, loaded.lang));
    let ts = doc::stamp(req);
    let stage_text = doc::stage_text(&loaded.state);
    // The logs are appended to, never parsed: a long session's state is
    // held as its bytes and the questions it edits.
    let next_decision = doc::next_decision_id(&loaded.state);
    let map = &mut loaded.doc;
    if let Some(Value::Array(nodes)) = map.get_mut("open_questions") {
        nodes.retain(|n| n.get("id").and_then(id_text).as_deref() != Some(id));
    }
    let stage = doc::stage_value(map);
    let title = if q.title.is_empty() {
        String::new()
    } else {
        format!(" {}", q.title)
    };
    let summary = match verb {
        Resolve::Answer => format!("{id}{title}: {}", doc::short(text, 160)),
        Resolve::Evidence => format!("evidence for {id}{title}: {}", doc::short(text, 160)),
    };
    let mut entry = json!({
        "stage": stage,
        "timestamp": ts,
        "summary": summary,
        "question_id": id,
        "answer": text,
        "by": req.by,
    });
    if verb == Resolve::Evidence
        && let Some(obj) = entry.as_object_mut()
    {
        obj.insert("kind".to_owned(), json!("evidence"));
    }
    map.push("user_inputs_log", entry);
    if key_decision {
        let mut d = json!({
            "id": format!("D-{next_decision}"),
            "decision": text,
            "stage": stage,
            "question_id": id,
        });
        if let (Some(r), Some(obj)) = (rationale, d.as_object_mut()) {
            obj.insert("rationale".to_owned(), json!(r));
        }
        map.push("key_decisions_made", d);
    }
    if let Some(na) = next_action {
        map.insert("next_action", na);
    }
    doc::touch(map, req);
    let w = loaded.lang.words();
    let (q_label, a_label) = match verb {
        Resolve::Answer => (w.question, w.answer),
        Resolve::Evidence => (w.to_verify, w.evidence),
    };
    let colon = w.colon;
    let shown_id = quote::from_file(id);
    let stage_text = quote::from_file(&stage_text);
    let mut block = format!(
        "## {ts} · {} {stage_text} · {shown_id}\n\n**{}**{colon}{}\n",
        w.stage,
        (w.about)(q_label, &shown_id),
        if q.title.is_empty() {
            shown_id.clone()
        } else {
            quote::from_file(&q.title)
        }
    );
    if verb == Resolve::Evidence {
        if let Some(e) = &q.evidence_needed {
            block.push_str(&format!(
                "\n{}{colon}{}\n",
                w.evidence_needed,
                quote::from_file(e)
            ));
        }
        if let Some(t) = &q.acceptance_threshold {
            block.push_str(&format!(
                "\n{}{colon}{}\n",
                w.threshold,
                quote::from_file(t)
            ));
        }
    }
    block.push_str(&format!(
        "\n**{a_label}{}**{}\n\n{}\n",
        (w.via)(&req.by),
        colon.trim_end(),
        quote::quoted(text)
    ));
    if key_decision {
        block.push_str(&format!(
            "\n{}\n",
            (w.key_decision)(shown_rationale.as_deref())
        ));
    }
    doc::finish(snap, loaded, &block)
}
