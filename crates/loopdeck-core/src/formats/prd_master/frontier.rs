//! Stage 1's dependency frontier (seed 000): `open_questions` is the only
//! source of truth; `next_action` is a saved snapshot of it.
//!
//! A node is eligible when none of its `depends_on` is still open. Eligible
//! decision nodes pending the user are the questions; eligible fact nodes are
//! research (an agent's, or evidence a named human role must bring). The rest
//! are blocked.

use std::collections::{HashMap, HashSet};

use super::schema::{NextAction, OpenQuestion};
use crate::model::{Finding, Frontier, Level, Question};

/// The owner values that mean "an AI agent checks this itself".
pub(crate) fn is_agent_owner(owner: Option<&str>) -> bool {
    matches!(
        owner.map(|o| o.trim().to_ascii_lowercase()).as_deref(),
        Some("agent" | "ai" | "controller")
    )
}

/// The kind of a node: `kind`, else the forbidden synonym `type` (reported
/// separately), else inferred from the status, as old states lack it.
fn kind_of(q: &OpenQuestion) -> String {
    let synonym = q.synonym_type.as_ref().and_then(|v| v.as_str());
    match q.kind.as_deref().or(synonym) {
        Some(k) => k.to_owned(),
        None => match q.status.as_deref() {
            Some("pending_research" | "researching" | "awaiting_evidence") => "fact".to_owned(),
            _ => "decision".to_owned(),
        },
    }
}

fn id_of(q: &OpenQuestion, index: usize) -> String {
    q.id.as_ref()
        .map(|i| i.text())
        .unwrap_or_else(|| format!("#{index}"))
}

fn to_question(q: &OpenQuestion, id: String, waiting_on: Vec<String>) -> Question {
    Question {
        id,
        title: q.title.clone().unwrap_or_default(),
        kind: kind_of(q),
        priority: q.priority.clone(),
        owner: q.owner.clone(),
        status: q.status.clone(),
        waiting_on,
        evidence_needed: q.evidence_needed.clone(),
        acceptance_threshold: q.acceptance_threshold.clone(),
        due_by: q.due_by.clone(),
    }
}

/// Compute the frontier and the findings about the questions themselves.
pub(crate) fn compute(
    questions: &[OpenQuestion],
    next_action: Option<&NextAction>,
    findings: &mut Vec<Finding>,
) -> Frontier {
    let ids: Vec<String> = questions
        .iter()
        .enumerate()
        .map(|(i, q)| id_of(q, i))
        .collect();
    let mut seen = HashSet::new();
    for id in &ids {
        if !seen.insert(id.as_str()) {
            findings.push(
                Finding::new(
                    Level::Error,
                    "prd.duplicate-id",
                    format!("open question id {id} appears more than once"),
                )
                .at(id.clone()),
            );
        }
    }
    let open: HashSet<&str> = ids.iter().map(String::as_str).collect();
    let mut f = Frontier::default();
    for (q, id) in questions.iter().zip(&ids) {
        if q.depends_on.iter().any(|d| &d.0 == id) {
            findings.push(
                Finding::new(
                    Level::Error,
                    "prd.self-dependency",
                    format!("{id} depends on itself and can never become eligible"),
                )
                .at(id.clone()),
            );
        }
        let waiting_on: Vec<String> = q
            .depends_on
            .iter()
            .filter(|d| open.contains(d.0.as_str()))
            .map(|d| d.0.clone())
            .collect();
        let question = to_question(q, id.clone(), waiting_on);
        let eligible = question.waiting_on.is_empty();
        match (eligible, question.kind.as_str(), q.status.as_deref()) {
            (true, "fact", _) => f.research.push(question),
            (true, "decision", Some("pending_user")) => f.questions.push(question),
            _ => f.blocked.push(question),
        }
        lint_node(q, id, findings);
    }
    cycles(questions, &ids, findings);
    if let Some(na) = next_action.filter(|na| na.kind.as_deref() == Some("stage1_frontier")) {
        let eligible_q: HashSet<&str> = f.questions.iter().map(|q| q.id.as_str()).collect();
        let eligible_r: HashSet<&str> = f.research.iter().map(|q| q.id.as_str()).collect();
        for id in &na.question_ids {
            if !eligible_q.contains(id.0.as_str()) {
                f.stale_ids.push(id.0.clone());
            }
        }
        for id in &na.research_ids {
            if !eligible_r.contains(id.0.as_str()) {
                f.stale_ids.push(id.0.clone());
            }
        }
        f.snapshot_stale = !f.stale_ids.is_empty();
        if f.snapshot_stale {
            findings.push(
                Finding::new(
                    Level::Warning,
                    "prd.snapshot-stale",
                    format!(
                        "next_action names {} which {} not on the current frontier; recompute it from open_questions",
                        f.stale_ids.join(", "),
                        if f.stale_ids.len() == 1 { "is" } else { "are" }
                    ),
                )
                .at("next_action"),
            );
        }
    }
    f
}

fn lint_node(q: &OpenQuestion, id: &str, findings: &mut Vec<Finding>) {
    let synonyms = [
        ("type", q.synonym_type.is_some(), "kind"),
        (
            "evidence_required",
            q.evidence_required.is_some(),
            "evidence_needed",
        ),
        ("deadline", q.deadline.is_some(), "due_by"),
        ("awaiting_evidence", q.awaiting_evidence.is_some(), "status"),
    ];
    for (field, present, instead) in synonyms {
        if present {
            findings.push(
                Finding::new(
                    Level::Warning,
                    "prd.fact-field-synonym",
                    format!("{id} uses `{field}`; the seed requires `{instead}`"),
                )
                .at(id.to_owned()),
            );
        }
    }
    if q.status.as_deref() == Some("awaiting_evidence") {
        // The seed: user-side nodes wait as `pending_user`; AI fact nodes
        // are `pending_research` or `researching`.
        let right = if is_agent_owner(q.owner.as_deref()) {
            "`pending_research` (or `researching` while it runs)"
        } else {
            "`pending_user`"
        };
        findings.push(
            Finding::new(
                Level::Warning,
                "prd.fact-field-synonym",
                format!("{id} has status `awaiting_evidence`; the seed requires {right}"),
            )
            .at(id.to_owned()),
        );
    }
    let kind = kind_of(q);
    let status = q.status.as_deref();
    let known = match kind.as_str() {
        "decision" => matches!(status, Some("pending_user")),
        "fact" => matches!(
            status,
            Some("pending_user" | "pending_research" | "researching" | "awaiting_evidence")
        ),
        _ => false,
    };
    if !known {
        findings.push(
            Finding::new(
                Level::Warning,
                "prd.status-unexpected",
                format!(
                    "{id} is a {kind} node with status {}; the seed uses pending_user for decisions and pending_user, pending_research or researching for facts (resolved nodes leave open_questions)",
                    status.unwrap_or("(none)")
                ),
            )
            .at(id.to_owned()),
        );
    }
    if q.owner.as_deref().is_none_or(|o| o.trim().is_empty()) {
        findings.push(
            Finding::new(
                Level::Warning,
                "prd.owner-missing",
                format!("{id} has no owner"),
            )
            .at(id.to_owned()),
        );
    }
    let blocking = matches!(q.priority.as_deref(), Some("P0" | "P1"));
    if kind == "fact" && blocking {
        let missing: Vec<&str> = [
            ("evidence_needed", q.evidence_needed.is_none()),
            ("acceptance_threshold", q.acceptance_threshold.is_none()),
            ("due_by", q.due_by.is_none()),
        ]
        .into_iter()
        .filter(|(_, m)| *m)
        .map(|(n, _)| n)
        .collect();
        if !missing.is_empty() {
            findings.push(
                Finding::new(
                    Level::Warning,
                    "prd.fact-field-missing",
                    format!("blocking fact node {id} lacks {}", missing.join(", ")),
                )
                .at(id.to_owned()),
            );
        }
    }
}

/// Dependency cycles among open nodes: every member is blocked for good.
fn cycles(questions: &[OpenQuestion], ids: &[String], findings: &mut Vec<Finding>) {
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (i, id) in ids.iter().enumerate() {
        index.entry(id.as_str()).or_insert(i);
    }
    // 0 = unvisited, 1 = on the stack, 2 = done.
    let mut state = vec![0u8; ids.len()];
    let mut reported: HashSet<Vec<String>> = HashSet::new();
    for start in 0..ids.len() {
        if state[start] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        let mut path: Vec<usize> = vec![start];
        state[start] = 1;
        while let Some((node, next)) = stack.last_mut() {
            let deps = &questions[*node].depends_on;
            if *next >= deps.len() {
                state[*node] = 2;
                stack.pop();
                path.pop();
                continue;
            }
            let dep = &deps[*next];
            *next += 1;
            let Some(&d) = index.get(dep.0.as_str()) else {
                continue;
            };
            if d == *node {
                continue; // self-dependency is reported on its own
            }
            match state[d] {
                0 => {
                    state[d] = 1;
                    stack.push((d, 0));
                    path.push(d);
                }
                1 => {
                    let from = path.iter().position(|&p| p == d).unwrap_or(0);
                    let mut members: Vec<String> =
                        path[from..].iter().map(|&i| ids[i].clone()).collect();
                    members.sort();
                    if reported.insert(members.clone()) {
                        findings.push(
                            Finding::new(
                                Level::Error,
                                "prd.dependency-cycle",
                                format!(
                                    "open questions depend on each other in a cycle: {}",
                                    members.join(" → ")
                                ),
                            )
                            .at(members.join(",")),
                        );
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn oq(json: &str) -> Vec<OpenQuestion> {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn eligibility_follows_open_dependencies() {
        let qs = oq(r#"[
            {"id":"OQ-7","kind":"decision","owner":"user","status":"pending_user","depends_on":[]},
            {"id":"OQ-8","kind":"fact","owner":"企业 IT 数据负责人","status":"pending_user","priority":"P1","depends_on":[],
             "evidence_needed":"x","acceptance_threshold":"y","due_by":"z"},
            {"id":"OQ-9","kind":"decision","owner":"user","status":"pending_user","depends_on":["OQ-8","OQ-1"]},
            {"id":"OQ-10","kind":"fact","owner":"agent","status":"researching","depends_on":["OQ-1"]}
        ]"#);
        let na: NextAction = serde_json::from_str(
            r#"{"type":"stage1_frontier","question_ids":["OQ-7","OQ-9"],"research_ids":["OQ-8"]}"#,
        )
        .unwrap();
        let mut findings = Vec::new();
        let f = compute(&qs, Some(&na), &mut findings);
        let ids = |v: &[Question]| v.iter().map(|q| q.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&f.questions), vec!["OQ-7"]);
        assert_eq!(ids(&f.research), vec!["OQ-8", "OQ-10"]);
        assert_eq!(ids(&f.blocked), vec!["OQ-9"]);
        assert_eq!(
            f.blocked[0].waiting_on,
            vec!["OQ-8"],
            "OQ-1 is resolved (not open)"
        );
        assert!(f.snapshot_stale);
        assert_eq!(f.stale_ids, vec!["OQ-9"]);
        assert_eq!(
            findings.iter().map(|f| f.code.as_str()).collect::<Vec<_>>(),
            vec!["prd.snapshot-stale"]
        );
    }

    #[test]
    fn synonyms_cycles_and_duplicates_are_findings() {
        let qs = oq(r#"[
            {"id":"A","kind":"fact","owner":"user","priority":"P0","status":"awaiting_evidence","type":"fact","evidence_required":"e","deadline":"d","depends_on":["B"]},
            {"id":"B","kind":"decision","owner":"user","status":"pending_user","depends_on":["A"]},
            {"id":"B","kind":"decision","status":"pending_user"}
        ]"#);
        let mut findings = Vec::new();
        compute(&qs, None, &mut findings);
        let codes: Vec<&str> = findings.iter().map(|f| f.code.as_str()).collect();
        assert_eq!(
            codes
                .iter()
                .filter(|c| **c == "prd.fact-field-synonym")
                .count(),
            4
        );
        assert!(codes.contains(&"prd.fact-field-missing"));
        assert!(codes.contains(&"prd.dependency-cycle"));
        assert!(codes.contains(&"prd.duplicate-id"));
        assert!(codes.contains(&"prd.owner-missing"));
    }
}
