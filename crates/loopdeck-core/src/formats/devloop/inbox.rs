//! What waits for a human (the inbox) and the resume card.

use super::*;
use crate::model::{Address, AnsweredItem, Phrase};
use crate::phrase;

/// What resumes a loop stopped by a budget or a blocked unit, and what can
/// be decided meanwhile (issue 20 §4: no item without a way on).
fn resume_on_server() -> Phrase {
    phrase!("phrase.devloop.resume_on_server")
}

/// What the loop hands to a human besides the project's own state.
pub(super) struct Waiting<'a> {
    /// `(rounds, budget)` when L2 spent its rounds without a pass.
    pub(super) l2_spent: Option<(u64, u64)>,
    /// Units out of retries: `(id, title)`.
    pub(super) stuck: &'a [(String, Phrase)],
    /// The latest triage, when too unsure to apply.
    pub(super) unsure: Option<&'a runs::Unsure>,
}

pub(super) struct Budget {
    pub(super) used: f64,
    pub(super) limit: f64,
}

impl Budget {
    fn over(&self) -> bool {
        self.used > self.limit
    }
}

/// `5231774` → `5,231,774`.
pub(super) fn thousands(n: f64) -> String {
    let digits = format!("{:.0}", n.max(0.0));
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

pub(super) fn last_event<'a>(p: &'a Project, kind: &str) -> Option<&'a crate::model::Event> {
    p.detail.timeline.iter().rev().find(|e| e.kind == kind)
}

pub(super) fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// What waits for a human, most pressing first.
pub(super) fn inbox(
    p: &mut Project,
    prd: &PrdInfo,
    budget: &Budget,
    waiting: &Waiting<'_>,
    agents: &[(String, Agent)],
) {
    let l2_spent = waiting.l2_spent;
    let mut items = Vec::new();
    // Seed 003: a conflict aside pauses the whole project for a human; what
    // would carry it on (a sign-off, an agent resumed) waits until a
    // requirement settles it (`act` refuses them meanwhile).
    let held = prd.conflicts.first().map(|(page, _)| page.clone());
    for (page, text) in &prd.conflicts {
        items.push(InboxItem {
            kind: InboxKind::Conflict,
            // Settled by a new requirement that says which side wins (the
            // PM agent takes it through the server).
            act: Some(Address {
                verb: "requirement",
                target: None,
                options: Vec::new(),
            }),
            reference: page.clone(),
            title: phrase!("phrase.devloop.conflict", text = text),
            since: last_event(p, "prd_conflict")
                .and_then(|e| e.at)
                .or_else(|| store::mtime(&p.path.join(page))),
            options: Vec::new(),
            subject: None,
            why_not: None,
        });
    }
    let blocked_event = last_event(p, "project_blocked").cloned();
    // The event says when; project.json's update time is the project's
    // last write, not when the item began to wait (without the event, the
    // item waits from when a reading first showed it).
    let blocked_since = blocked_event.as_ref().and_then(|e| e.at);
    if budget.over() {
        let (used, limit) = (thousands(budget.used), thousands(budget.limit));
        let percent = format!("{:.1}", budget.used / budget.limit * 100.0);
        let title = if p.status == "blocked" {
            phrase!(
                "phrase.devloop.over_budget_suspended",
                used = used,
                limit = limit,
                percent = percent
            )
        } else {
            phrase!(
                "phrase.devloop.over_budget",
                used = used,
                limit = limit,
                percent = percent
            )
        };
        p.findings
            .push(Finding::new(Level::Warning, "devloop.over-budget", title.en()).at(PROJECT_FILE));
        items.push(InboxItem {
            kind: InboxKind::Budget,
            act: None,
            reference: PROJECT_FILE.to_owned(),
            title,
            since: blocked_since,
            options: Vec::new(),
            subject: None,
            why_not: Some(phrase!(
                "phrase.devloop.why_budget",
                file = PROJECT_FILE,
                resume = resume_on_server()
            )),
        });
    } else if p.status == "blocked" {
        let reason = blocked_event
            .as_ref()
            .map(|e| e.summary.clone())
            .filter(nonempty)
            .map(Phrase::Quoted)
            .or_else(|| (!p.blockers.is_empty()).then(|| Phrase::joined(p.blockers.clone())))
            .unwrap_or_else(|| phrase!("phrase.devloop.no_reason"));
        items.push(InboxItem {
            kind: InboxKind::Blocked,
            act: None,
            reference: PROJECT_FILE.to_owned(),
            title: phrase!("phrase.devloop.project_blocked", reason = reason),
            since: blocked_since,
            options: Vec::new(),
            subject: None,
            why_not: Some(phrase!(
                "phrase.devloop.why_blocked",
                resume = resume_on_server()
            )),
        });
    }
    if p.status == "blocked"
        && let Some(e) = blocked_event.as_ref().filter(|e| nonempty(&e.summary))
    {
        p.blockers.insert(0, Phrase::quoted(e.summary.clone()));
    }
    if let Some((rounds, limit)) = l2_spent {
        let title = phrase!("phrase.devloop.l2_spent", rounds = rounds, limit = limit);
        p.findings
            .push(Finding::new(Level::Warning, "devloop.l2-exhausted", title.en()).at(UNITS_FILE));
        items.push(InboxItem {
            kind: InboxKind::Blocked,
            act: None,
            reference: UNITS_FILE.to_owned(),
            title,
            // No file says when the rounds ran out (the project's last
            // write is not it): from when a reading first showed it.
            since: None,
            options: Vec::new(),
            subject: None,
            why_not: Some(phrase!(
                "phrase.devloop.why_l2_spent",
                resume = resume_on_server()
            )),
        });
    }
    for (rel, a) in agents.iter().filter(|(_, a)| a.status == "paused") {
        let at = paused(a);
        // Each view judges the token at its own "now" (Project::options_at
        // drops `resume` once it has expired). The reader only knows it
        // expired when the files show the project moved on past it.
        let expiry = a.resume_expires_at;
        let moved_on = expiry.filter(|&e| p.updated_at.is_some_and(|u| u >= e));
        let (title, options) = match (expiry, moved_on) {
            (Some(_), Some(e)) => {
                p.findings.push(
                    Finding::new(
                        Level::Warning,
                        "devloop.resume-token-expired",
                        format!(
                            "{}'s resume token expired at {} (24 h after it paused); it can only restart",
                            a.agent,
                            rfc3339(e)
                        ),
                    )
                    .at(rel.as_str()),
                );
                (
                    phrase!("phrase.devloop.token_expired", paused = at, at = rfc3339(e)),
                    vec!["restart".to_owned()],
                )
            }
            (Some(e), None) => (
                phrase!("phrase.devloop.token_until", paused = at, at = rfc3339(e)),
                vec!["resume".to_owned(), "restart".to_owned()],
            ),
            (None, _) => (
                phrase!("phrase.devloop.no_token", paused = at),
                vec!["restart".to_owned()],
            ),
        };
        let stem = rel
            .strip_prefix("agent-state/")
            .and_then(|r| r.strip_suffix(".json"))
            .unwrap_or(a.agent.as_str());
        // A decision already recorded for this pause (`act resume-agent`)
        // waits for the devloop server, not for the human: it is shown
        // apart, answered, until the server acts. It can be changed, not
        // made again (the act refuses the same choice twice).
        let answered = decided(&p.path, rel, a.paused_at);
        let options = match &answered {
            Some(d) => options.into_iter().filter(|o| *o != d.choice).collect(),
            None => options,
        };
        let (title, options) = match &held {
            Some(page) => (
                phrase!("phrase.devloop.held", title = title, page = page),
                Vec::new(),
            ),
            None => (title, options),
        };
        let act = (!options.is_empty())
            .then(|| Address::new("resume-agent", Some(stem.to_owned()), options.clone()));
        // The agent's row (the Agents tab names it `Agent.agent`) offers
        // the same decision when that name is the state file's, the one
        // the act takes.
        if let Some(a) = act.as_ref().filter(|_| stem == a.agent) {
            p.acts.push(a.clone());
        }
        if let Some(d) = answered {
            p.answered.push(AnsweredItem {
                kind: InboxKind::Resume,
                reference: rel.clone(),
                title,
                answer: d.choice,
                at: d.at,
                by: d.by,
                subject: Some(a.agent.clone()),
                act,
            });
            continue;
        }
        let why_not = act.is_none().then(|| match &held {
            Some(page) => phrase!("phrase.devloop.why_held", page = page),
            None => phrase!("phrase.devloop.why_nothing_left"),
        });
        items.push(InboxItem {
            kind: InboxKind::Resume,
            act,
            reference: rel.clone(),
            title,
            since: a.paused_at,
            options,
            subject: Some(a.agent.clone()),
            why_not,
        });
    }
    for (id, title) in waiting.stuck {
        let since = p
            .detail
            .timeline
            .iter()
            .rev()
            .find(|e| e.unit.as_deref() == Some(id.as_str()))
            .and_then(|e| e.at)
            .or(p.updated_at);
        items.push(InboxItem {
            kind: InboxKind::RetriesSpent,
            act: None,
            reference: id.clone(),
            title: title.clone(),
            since,
            options: Vec::new(),
            subject: Some(id.clone()),
            why_not: Some(phrase!(
                "phrase.devloop.why_retries",
                resume = resume_on_server()
            )),
        });
    }
    if let Some(t) = waiting.unsure {
        let confidence = format!("{:.2}", t.confidence);
        let title = if t.units.is_empty() {
            phrase!(
                "phrase.devloop.triage",
                run = &t.run_id,
                category = &t.category,
                confidence = confidence
            )
        } else {
            phrase!(
                "phrase.devloop.triage_affects",
                run = &t.run_id,
                category = &t.category,
                confidence = confidence,
                units = t.units.join(", ")
            )
        };
        items.push(InboxItem {
            kind: InboxKind::Triage,
            act: None,
            reference: t.file.clone(),
            title,
            since: store::mtime(&p.path.join(&t.file)),
            options: Vec::new(),
            subject: t.units.first().cloned(),
            why_not: Some(phrase!("phrase.devloop.why_triage")),
        });
    }
    if p.status == "shipped"
        && let Some(page) = &held
    {
        items.push(InboxItem {
            kind: InboxKind::SignOff,
            // Only abandoning is open while the conflict holds the project.
            act: Some(Address::new("abandon", None, Vec::new())),
            reference: PROJECT_FILE.to_owned(),
            title: phrase!("phrase.devloop.sign_off_held", page = page),
            since: last_event(p, "project_shipped").and_then(|e| e.at),
            options: Vec::new(),
            subject: None,
            why_not: None,
        });
    } else if p.status == "shipped" {
        items.push(InboxItem {
            kind: InboxKind::SignOff,
            // Each option is itself the verb: `act DIR sign-off` or
            // `act DIR abandon`.
            act: Some(Address {
                verb: "sign-off",
                target: None,
                options: vec!["sign-off".to_owned(), "abandon".to_owned()],
            }),
            reference: PROJECT_FILE.to_owned(),
            title: phrase!("phrase.devloop.sign_off"),
            since: last_event(p, "project_shipped").and_then(|e| e.at),
            options: vec!["sign-off".to_owned(), "abandon".to_owned()],
            subject: None,
            why_not: None,
        });
    }
    // A finished project (signed off or abandoned) waits for no one: the
    // server refuses a requirement there (seed 003: 409) and its agents
    // are gone, so nothing offered could be made.
    if super::act::FINISHED.contains(&p.status.as_str()) {
        items.clear();
        p.answered.clear();
    }
    p.inbox = items;
}

/// `integrator paused at step 3/5 (running the e2e cases)`.
fn paused(a: &Agent) -> Phrase {
    phrase!(
        "phrase.devloop.paused",
        agent = &a.agent,
        step = a
            .step
            .as_ref()
            .map(|s| phrase!("phrase.devloop.paused_step", step = s)),
        doing = a
            .doing
            .as_ref()
            .map(|d| phrase!("phrase.devloop.paused_doing", doing = d)),
    )
}

/// `yibo chose restart at …`: the `resume_decision` the agent's state
/// holds, when made for its current pause (at or after it paused).
fn decided(dir: &Path, rel: &str, paused_at: Option<DateTime<Utc>>) -> Option<Decided> {
    let bytes = store::read_in(dir, rel, store::STATE_FILE_LIMIT).ok()?;
    let v: Value =
        serde_json::from_slice(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes)).ok()?;
    let d = v.get("resume_decision")?;
    let choice = d.get("choice")?.as_str()?;
    let at = d
        .get("at")
        .and_then(Value::as_str)
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&Utc));
    if let (Some(at), Some(p)) = (at, paused_at)
        && at < p
    {
        return None;
    }
    Some(Decided {
        choice: choice.to_owned(),
        at,
        by: d.get("by").and_then(Value::as_str).map(str::to_owned),
    })
}

/// A resume decision recorded for a pause (`act resume-agent`).
struct Decided {
    choice: String,
    at: Option<DateTime<Utc>>,
    by: Option<String>,
}

/// The LoopStatusBar's facts: L1 units by status, L2 rounds and the latest
/// run, L3 revision and whether the loop waits for the human.
pub(super) fn loops(
    p: &Project,
    prd: &PrdInfo,
    changes: &timeline::Changes,
    waiting: &Waiting<'_>,
    (rounds, budget): (u64, u64),
) -> Loops {
    let mut l1 = L1Status::default();
    let mut seen = HashSet::new();
    for u in p.detail.units.iter().filter(|u| seen.insert(u.id.as_str())) {
        l1.total += 1;
        match u.status.as_str() {
            "passed" => l1.passed += 1,
            "testing" => l1.testing += 1,
            "coding" => l1.coding += 1,
            "pending" => l1.pending += 1,
            "failed" => l1.failed += 1,
            "blocked" => l1.blocked += 1,
            _ => {}
        }
    }
    let last = p.detail.integration_runs.first();
    let integrating = p
        .detail
        .agents
        .iter()
        .any(|a| a.agent == "integrator" && a.status == "running");
    let status = if progress::is_shipped(&p.status) {
        "shipped"
    } else if integrating {
        "running"
    } else if last.is_some_and(|r| !r.ok) {
        "failed"
    } else {
        "idle"
    };
    let l2 = L2Status {
        status: status.to_owned(),
        rounds,
        budget,
        last_run: last.map(|r| r.run_id.clone()),
        last_run_at: last.and_then(|r| {
            runs::run_time(&r.run_id).or_else(|| {
                store::mtime(
                    &p.path
                        .join(format!("integration/runs/{}/result.json", r.run_id)),
                )
            })
        }),
        last_ok: last.map(|r| r.ok),
        failures: last.map_or(0, |r| r.failures.len()),
    };
    let mut awaiting = Vec::new();
    if !prd.conflicts.is_empty() {
        awaiting.push(phrase!("phrase.devloop.awaiting_conflict"));
    }
    if let Some(t) = waiting.unsure {
        awaiting.push(phrase!("phrase.devloop.awaiting_triage", run = &t.run_id));
    }
    if waiting.l2_spent.is_some() {
        awaiting.push(phrase!("phrase.devloop.awaiting_l2"));
    }
    if p.status == "shipped" {
        awaiting.push(phrase!("phrase.devloop.awaiting_sign_off"));
    }
    Loops {
        l1,
        l2,
        l3: L3Status {
            rev: prd.rev.or_else(|| changes.latest.get("prd_rev").copied()),
            awaiting_feedback: !awaiting.is_empty(),
            awaiting,
        },
        tokens: None,
    }
}

/// The resume card: where the loop stopped, why, what it waits for, what to
/// read first.
pub(super) fn resume(
    p: &mut Project,
    dir: &Path,
    prd: &PrdInfo,
    phase: &str,
    passed: usize,
    total: usize,
) {
    let mut stopped = vec![phrase!(
        "phrase.devloop.units_passed",
        phase = phase,
        passed = passed,
        total = total
    )];
    for a in p.detail.agents.iter().filter(|a| a.status == "running") {
        stopped.push(phrase!(
            "phrase.devloop.running",
            agent = &a.agent,
            step = a
                .step
                .as_ref()
                .map(|s| phrase!("phrase.devloop.running_step", step = s)),
            unit = a
                .unit
                .as_ref()
                .map(|u| phrase!("phrase.devloop.running_unit", unit = u)),
            doing = a
                .doing
                .as_ref()
                .map(|d| phrase!("phrase.devloop.running_doing", doing = d)),
        ));
    }
    p.resume.stopped_at = Some(Phrase::joined(stopped));
    let paused: Vec<Phrase> = p
        .detail
        .agents
        .iter()
        .filter(|a| a.status == "paused")
        .map(|a| match a.paused_at {
            Some(t) => phrase!(
                "phrase.devloop.paused_at",
                agent = &a.agent,
                at = rfc3339(t)
            ),
            None => phrase!(
                "phrase.devloop.paused",
                agent = &a.agent,
                step = "",
                doing = ""
            ),
        })
        .collect();
    p.resume.reason = if p.status == "blocked" && !p.blockers.is_empty() {
        Some(phrase!(
            "phrase.devloop.blocked_reason",
            blockers = p.blockers.clone()
        ))
    } else if let Some((_, c)) = prd.conflicts.first() {
        Some(phrase!("phrase.devloop.conflict", text = c))
    } else if !paused.is_empty() {
        Some(Phrase::joined(paused))
    } else {
        p.detail.timeline.last().map(|e| {
            phrase!(
                "phrase.devloop.last_event",
                source = &e.source,
                kind = &e.kind,
                summary = &e.summary
            )
        })
    };
    p.resume.waiting_for = p.inbox.first().map(|i| i.title.clone());

    let mut candidates: Vec<String> = Vec::new();
    if !prd.conflicts.is_empty() {
        candidates.extend(prd.conflicts.iter().map(|(page, _)| page.clone()));
    }
    if let Some((u, r)) = p
        .detail
        .units
        .iter()
        .find_map(|u| u.runs().first().filter(|r| !r.ok).map(|r| (u, r)))
    {
        candidates.push(format!("units/{}/runs/{}/result.json", u.id, r.run_id));
    }
    if let Some(r) = p.detail.integration_runs.first().filter(|r| !r.ok) {
        candidates.push(format!("integration/runs/{}/triage.json", r.run_id));
    }
    candidates.push(SDD_FILE.to_owned());
    candidates.extend(prd.file.clone());
    let mut seen = HashSet::new();
    p.resume.read_first = candidates
        .into_iter()
        .filter(|c| runs_path_ok(c) && seen.insert(c.clone()))
        .filter(|c| store::contained_file(dir, c).is_some())
        .take(4)
        .collect();
}

/// Paths built from ids read in files: no climbing.
pub(super) fn runs_path_ok(rel: &str) -> bool {
    rel.split('/').all(runs::safe_component)
}
