//! GSD Core: `.planning/STATE.md` (seed 001) and `WAITING.json`, which
//! gsd-tools' `signal-waiting` writes in `.gsd/` when that folder exists,
//! else in `.planning/` (its `signal-resume` removes both).
//!
//! The project is the directory holding `.planning`. Its last update is the
//! frontmatter's `last_updated`, else the date the file records (its
//! `Last session:` / `Last activity:` lines) refined by its mtime, else the
//! mtime (see `dated`). The statusline is
//! GSD's own, byte for byte (see `statusline.rs`); everything else comes from
//! the tolerant frontmatter reader and the body sections.

pub(crate) mod act;
testing_pub!(
    pub mod body;
);
testing_pub!(
    pub mod frontmatter;
);
testing_pub!(
    pub mod splice;
);
testing_pub!(
    pub mod statusline;
);
mod js;
mod section;
pub(crate) mod text;

use std::path::Path;

use serde::Deserialize;

use super::{dated, file_name, parse_time};
use crate::model::{
    Address, Finding, Format, InboxItem, InboxKind, Level, Phrase, Project, StatusKind,
};
use crate::phrase;
use crate::store::{self, StoreError, WalkEntry};

pub(crate) const PLANNING_DIR: &str = ".planning";
pub(crate) const STATE_FILE: &str = ".planning/STATE.md";
const WAITING_FILE: &str = ".planning/WAITING.json";
/// GSD's other state folder: where gsd-tools' `signal-waiting` writes
/// WAITING.json whenever it exists (state.cjs, `cmdSignalWaiting`).
pub(crate) const GSD_DIR: &str = ".gsd";
const GSD_WAITING_FILE: &str = ".gsd/WAITING.json";
/// GSD's own guidance: STATE.md is a summary, aimed at 100 lines or fewer.
const LINE_TARGET: usize = 100;

/// `.planning/WAITING.json`: an agent waiting for a human.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Waiting {
    status: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    question: Option<String>,
    options: Vec<serde_json::Value>,
    since: Option<String>,
    phase: Option<serde_json::Value>,
}

/// A GSD project lives where a directory holds `.planning/STATE.md`. A
/// `.planning` that is a link (the walk lists links among files) is one
/// too: it is read only if it stays inside the project, and reported if not.
pub(crate) fn discover(entry: &WalkEntry<'_>) -> Option<Project> {
    let planning = entry.dirs.iter().any(|d| d == PLANNING_DIR)
        || (entry.files.iter().any(|f| f == PLANNING_DIR)
            && is_link(&entry.path.join(PLANNING_DIR)));
    if !planning {
        return None;
    }
    load(entry.path)
}

fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// Why `STATE.md` cannot be reached although the project names it: a link
/// (`.planning` or `STATE.md` itself) whose target does not exist. `None`
/// when nothing is there at all (not a GSD project, or deleted meanwhile).
fn dangling(dir: &Path) -> Option<String> {
    let planning = dir.join(PLANNING_DIR);
    let state = dir.join(STATE_FILE);
    let broken = |p: &Path| is_link(p) && std::fs::metadata(p).is_err();
    let target = |p: &Path| {
        std::fs::read_link(p)
            .map(|t| format!(" ({})", t.display()))
            .unwrap_or_default()
    };
    if broken(&planning) {
        Some(format!(
            "`.planning` is a symbolic link whose target does not exist{}",
            target(&planning)
        ))
    } else if broken(&state) {
        Some(format!(
            "a symbolic link whose target does not exist{}",
            target(&state)
        ))
    } else {
        None
    }
}

testing_pub!(
    /// Read the GSD project at `dir`; `None` when it has no `STATE.md`. What
    /// cannot be read becomes a problem on the project.
    pub fn load(dir: &Path) -> Option<Project> {
        let mut p = Project::new(Format::Gsd, dir.to_path_buf(), file_name(dir));
        let state_path = dir.join(STATE_FILE);
        // `.planning` checked once; then both files are opened relative to it.
        let real = store::is_real_dir(dir, PLANNING_DIR);
        let read = |name: &str, full: &str| {
            if real {
                store::read_in_real_subdir(dir, PLANNING_DIR, name, store::STATE_FILE_LIMIT)
            } else {
                store::read_in(dir, full, store::STATE_FILE_LIMIT)
            }
        };
        // Inside a cached reading, a STATE.md that did not change is not read
        // again (a `.planning` that is a link is always read).
        let text = if real && store::cache::active() {
            store::cache::memo_in(dir, STATE_FILE, store::STATE_FILE_LIMIT, |b| {
                super::text_of(b)
            })
        } else {
            read("STATE.md", STATE_FILE).map(super::text_of)
        };
        let text = match text {
            Err(StoreError::Vanished) => {
                let reason = dangling(dir)?;
                return Some(unreadable(p, reason));
            }
            Err(StoreError::OutsideProject) if is_link(&dir.join(PLANNING_DIR)) => {
                let reason =
                    "`.planning` is a symbolic link that leaves the project; it is not followed";
                return Some(unreadable(p, reason.to_owned()));
            }
            Ok((text, lossy)) => {
                if lossy {
                    p.problem(STATE_FILE, "not valid UTF-8; invalid bytes shown as �");
                }
                (text, lossy)
            }
            Err(e) => {
                p.updated_at = store::mtime(&state_path);
                return Some(unreadable(p, e.to_string()));
            }
        };
        let (text, lossy) = text;
        p.statusline = statusline::statusline(&text);
        let (fm, rest) = frontmatter::split(&text);
        let body = body::parse(rest);
        lint(&mut p, &text, &fm, &body);

        // Without a `last_updated`, the date the file records for itself
        // (which a copy or a clone keeps), refined by its mtime.
        let recorded = || {
            dated::dated(
                dated::latest(
                    [
                        fm.str("last_activity"),
                        body.last_session.as_deref(),
                        body.last_activity.as_deref(),
                        body.last_updated.as_deref(),
                    ]
                    .into_iter()
                    .flatten()
                    .filter_map(dated::recorded),
                ),
                store::mtime(&state_path),
            )
        };
        p.updated_at = match fm.str("last_updated") {
            Some(raw) => parse_time(raw).or_else(|| {
                p.findings.push(
                    Finding::new(
                        Level::Warning,
                        "gsd.bad-timestamp",
                        format!("last_updated `{raw}` is not a date; using the body's Last activity or the file's mtime"),
                    )
                    .at("last_updated"),
                );
                recorded()
            }),
            None => recorded(),
        };
        let paused = fm.str("paused_at").is_some();
        let raw_status = fm.str("status").or(body.status.as_deref());
        p.status = body::normalize_status(raw_status, paused);
        p.status_kind = body::status_kind(&p.status);
        let stage = fm
            .str("active_phase")
            .map(|a| phrase!("phrase.gsd.phase", phase = a))
            .or_else(|| {
                body.phase
                    .as_ref()
                    .map(|ph| phrase!("phrase.gsd.phase", phase = ph))
            })
            .or_else(|| {
                fm.str("current_phase")
                    .map(|c| match fm.str("current_phase_name") {
                        Some(n) => phrase!("phrase.gsd.phase_named", phase = c, name = n),
                        None => phrase!("phrase.gsd.phase", phase = c),
                    })
            })
            .or_else(|| {
                // A milestone with 0 phases: the statusline says "milestone
                // complete" (the hook compares the counters as strings); the
                // views say what is true.
                let zero = |k| {
                    fm.nested("progress", k)
                        .is_some_and(|v| v.trim().parse::<u64>() == Ok(0))
                };
                (zero("total_phases") && zero("completed_phases"))
                    .then(|| phrase!("phrase.gsd.no_phases"))
            });
        p.stage = stage.clone();
        p.progress_percent = fm
            .nested("progress", "percent")
            .and_then(|v| {
                let digits: String = v.chars().take_while(char::is_ascii_digit).collect();
                digits.parse::<u64>().ok().map(|n| n.min(100) as u8)
            })
            .or(body.progress_percent);
        p.decisions = body.decisions.clone();
        p.blockers = body.blockers.iter().cloned().map(Phrase::Quoted).collect();
        p.pending_todos = body.pending_todos;

        let stopped = fm.str("stopped_at").or(body.stopped_at.as_deref());
        p.resume.stopped_at = stage.or_else(|| stopped.map(Phrase::quoted));
        p.resume.reason = fm
            .str("paused_at")
            .map(|v| phrase!("phrase.gsd.paused", at = v))
            .or_else(|| stopped.map(|s| phrase!("phrase.gsd.stopped_at", at = s)));
        // GSD's own command, the same in every language.
        p.resume.waiting_for = match (fm.str("next_action"), fm.list("next_phases")) {
            (Some(action), phases) if !phases.is_empty() => Some(Phrase::quoted(format!(
                "/gsd-{action} {}",
                phases.join(" ")
            ))),
            (Some(action), _) => Some(Phrase::quoted(format!("/gsd-{action}"))),
            // No recommendation recorded: nothing to say (the status is shown
            // on its own line).
            _ => None,
        };
        if let Some(resume) = body
            .resume_file
            .as_deref()
            .filter(|r| !r.eq_ignore_ascii_case("none"))
        {
            let resume = resume.trim_matches('`');
            if store::contained_file(dir, resume).is_some() {
                p.resume.read_first.push(resume.to_owned());
            }
        }
        p.resume.read_first.push(STATE_FILE.to_owned());
        p.resume.last_session = body.last_session.clone();
        // `.gsd/WAITING.json` is the current signal when there is one: gsd-tools
        // writes there whenever `.gsd/` exists; a `.planning/` one beside it is
        // older (answering removes both, as gsd-tools' signal-resume does).
        let planning_waiting = read("WAITING.json", WAITING_FILE);
        match store::read_in(dir, GSD_WAITING_FILE, store::STATE_FILE_LIMIT) {
            Err(StoreError::Vanished) => waiting(&mut p, WAITING_FILE, planning_waiting),
            found => {
                if planning_waiting.is_ok() {
                    p.findings.push(
                        Finding::new(
                            Level::Warning,
                            "gsd.stale-waiting",
                            format!("{WAITING_FILE} is left from before {GSD_DIR}/ existed: gsd-tools writes its question to {GSD_WAITING_FILE} now, and that is the one shown; answering removes both, as gsd-tools' signal-resume does"),
                        )
                        .at(WAITING_FILE),
                    );
                }
                waiting(&mut p, GSD_WAITING_FILE, found);
            }
        }
        p.activity = activity(&p, raw_status, fm.str("next_action"));
        // What the act code would edit: a STATE.md that is not UTF-8 (or does
        // not parse as GSD's) takes no decision, the answer included.
        match (!lossy)
            .then(|| act::offers(&text, &body.blockers))
            .flatten()
        {
            Some(acts) => p.acts = acts,
            None => p.inbox.iter_mut().for_each(|i| i.act = None),
        }
        Some(p)
    }
);

/// What `STATE.md` says you meant then (a resume card's excerpt): the body
/// sections that carry the intent, never the frontmatter (the machine's
/// copy of what the card already shows). Seed 001's Project Reference
/// holds the project's core value (from PROJECT.md) and its current focus;
/// Session Continuity, kept "for instant session resumption", where the
/// last session stopped and the file to resume from. Current Position
/// (phase, plan, status, progress) and the decisions and blockers are on
/// the card already. The sections are the file's own (under its `#`
/// title), known by their heading's words, not a part of one: "Project
/// Reference", and a heading with the word "session" (the template's
/// Session Continuity, a hand-written `## Session`, `## Last Session` or
/// `## Session Notes`; not a title `# Session State`, nor "Possessions").
/// The frontmatter is GSD's own reader's. A file without either section:
/// its body from the top. `None` for another file (read as any other).
pub(crate) fn meant(rel: &str, text: &str) -> Option<Vec<String>> {
    if rel != STATE_FILE {
        return None;
    }
    let body = frontmatter::split(text).1;
    let chosen = super::excerpt::sections(body, |name| {
        let words: Vec<&str> = name
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        if words == ["project", "reference"] {
            Some(0)
        } else if words.contains(&"session") {
            Some(1)
        } else {
            None
        }
    });
    let lines = super::excerpt::prose(chosen.into_iter());
    Some(if lines.is_empty() {
        super::excerpt::prose(body.lines())
    } else {
        lines
    })
}

/// How long an executing GSD project may leave `STATE.md` unwritten
/// before it is stalled. GSD writes STATE.md "after every important
/// action" and its metrics "after every plan completes" (seed 001), so one
/// plan is the longest silence of a phase at work; the 64 real STATE.md
/// files in `tests/fixtures/gsd-real-world` record plans of 1 to 48
/// minutes, one of 1 h 14 m. Two hours is past all of them.
pub(crate) const STALL_AFTER: chrono::TimeDelta = chrono::TimeDelta::hours(2);

/// The claim of work going on: the status says `executing` (not the idle
/// `Ready to execute` the seed's normalisation also calls executing), no
/// `next_action` is recommended (the seed sets one only while the
/// orchestrator is idle) and nothing waits for a human (a `WAITING.json`).
/// Its last sign of life is STATE.md's last update.
fn activity(
    p: &Project,
    raw_status: Option<&str>,
    next_action: Option<&str>,
) -> Option<crate::model::Activity> {
    let idle = raw_status.is_some_and(|s| s.to_lowercase().contains("ready to"));
    (p.status == "executing" && !idle && next_action.is_none() && p.inbox.is_empty()).then_some(
        crate::model::Activity {
            last: p.updated_at,
            limit: Some(STALL_AFTER),
        },
    )
}

/// The project, listed with why its `STATE.md` cannot be read.
fn unreadable(mut p: Project, reason: String) -> Project {
    p.problem(STATE_FILE, reason);
    p.status = "unreadable".to_owned();
    p.status_kind = StatusKind::Failed;
    p
}

/// The question in `name` (`.gsd/WAITING.json` or `.planning/WAITING.json`),
/// as read.
fn waiting(p: &mut Project, name: &str, file: Result<Vec<u8>, StoreError>) {
    let bytes = match file {
        Ok(b) => b,
        Err(StoreError::Vanished) => return,
        Err(e) => return p.problem(name, e.to_string()),
    };
    let w: Waiting = match super::json::object(&bytes) {
        Ok(w) => w,
        Err(reason) => return p.problem(name, reason),
    };
    let status = w
        .status
        .as_deref()
        .unwrap_or("waiting")
        .to_ascii_lowercase();
    if matches!(status.as_str(), "answered" | "resolved" | "done" | "closed") {
        return;
    }
    let phase = w.phase.as_ref().map(|v| match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    });
    let question = || {
        w.question
            .clone()
            .map_or_else(|| phrase!("phrase.gsd.no_question"), Phrase::Quoted)
    };
    let title = match &phase {
        Some(ph) => phrase!(
            "phrase.gsd.waiting_phase",
            phase = ph,
            question = question()
        ),
        None => question(),
    };
    let since = w.since.as_deref().and_then(parse_time);
    // As the act reads them: one line each (an empty one cannot be the
    // answer).
    let options: Vec<String> = w
        .options
        .iter()
        .map(|o| splice::flatten(&act::option_label(o)))
        .collect();
    // Shown as offered: the item's n-th option is the one digit n picks.
    let options: Vec<String> = options.into_iter().filter(|o| !o.is_empty()).collect();
    let offered = options.clone();
    p.inbox.push(InboxItem {
        kind: InboxKind::Waiting,
        // `loopdeck act DIR answer SHA256 TEXT` (TEXT: an option's label
        // or number, or free text): the question has no id, so the answer
        // is bound to the bytes of WAITING.json it was read from.
        act: Some(Address {
            verb: "answer",
            target: Some(store::sha256_hex(&bytes)),
            options: offered,
        }),
        reference: name.to_owned(),
        title,
        since,
        options,
        subject: None,
        why_not: None,
    });
    let kind = w
        .kind
        .clone()
        .map_or_else(|| phrase!("phrase.gsd.decision"), Phrase::Quoted);
    p.resume.waiting_for = Some(phrase!(
        "phrase.gsd.waiting",
        kind = kind,
        question = question()
    ));
}

fn lint(p: &mut Project, text: &str, fm: &frontmatter::Frontmatter, body: &body::Body) {
    let mut add = |level, code: &str, msg: String| {
        p.findings
            .push(Finding::new(level, code, msg).at(STATE_FILE))
    };
    if !fm.is_empty() && !statusline::sees_frontmatter(text) {
        add(Level::Warning, "gsd.frontmatter-unseen", "GSD's statusline does not see this frontmatter (CRLF line endings, a BOM or blank line before it, or spaces after the opening ---); loopdeck reads it, GSD's hook shows nothing from it".to_owned());
    }
    if fm.blocks > 1 {
        add(
            Level::Warning,
            "gsd.stacked-frontmatter",
            format!(
                "{} frontmatter blocks are stacked at the top; only the first is read",
                fm.blocks
            ),
        );
    }
    if fm.comment_in_map {
        add(Level::Warning, "gsd.comment-in-block", "a comment inside a nested frontmatter block hides it from GSD's statusline (the progress bar disappears)".to_owned());
    }
    if !fm.is_empty() && fm.str("status").is_none() {
        add(
            Level::Warning,
            "gsd.status-missing",
            "the frontmatter has no status".to_owned(),
        );
    }
    // A list under a heading of the file's own that gsd-tools' rule does
    // not read: gsd-tools (and loopdeck, as it does) writes the next entry
    // under its own scaffold at the end, so the file gets a second list.
    if let Ok(doc) = splice::Doc::parse(text.as_bytes()) {
        for (list, scaffold) in [
            (section::List::Decisions, "## Decisions"),
            (section::List::Blockers, "### Blockers"),
        ] {
            if section::gsd_section(text, list).is_none()
                && let Some(own) = doc.other_heading(list)
            {
                add(
                    Level::Info,
                    "gsd.own-section",
                    format!(
                        "`{own}` is not a heading gsd-tools reads ({}): it never sees these entries, and writes new ones (as loopdeck does) under `{scaffold}` at the end of the file; rename the heading to keep one list",
                        list.gsd_headings()
                    ),
                );
            }
        }
    }
    if body.lines > LINE_TARGET * 3 {
        add(
            Level::Info,
            "gsd.state-long",
            format!(
                "STATE.md body has {} lines; GSD aims for about {LINE_TARGET}",
                body.lines
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn project(files: &[(&str, &str)]) -> (tempfile::TempDir, Project) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("demo");
        for (name, content) in files {
            let path = dir.join(name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, content).unwrap();
        }
        let p = load(&dir).unwrap();
        (tmp, p)
    }

    #[test]
    fn reads_frontmatter_body_and_waiting() {
        let (_t, p) = project(&[
            (
                STATE_FILE,
                "---\nmilestone: v2.0\nstatus: executing\npaused_at: \"2026-05-31\"\nlast_updated: \"2026-06-01T10:00:00.000Z\"\nprogress:\n  percent: 40\n---\n## Current Position\nPhase: 2 of 5 (数据层)\n### Decisions\n- [Phase 1]: A — because\n",
            ),
            (
                WAITING_FILE,
                r#"{"status":"waiting","type":"decision","question":"选哪个?","options":["A","B"],"since":"2026-06-01T09:00:00Z","phase":3}"#,
            ),
        ]);
        assert_eq!(p.status, "paused");
        assert_eq!(
            p.stage.as_ref().map(|s| s.en()).as_deref(),
            Some("Phase 2 of 5 (数据层)")
        );
        assert_eq!(p.progress_percent, Some(40));
        assert_eq!(
            p.updated_at.unwrap().to_rfc3339(),
            "2026-06-01T10:00:00+00:00"
        );
        assert_eq!(p.inbox.len(), 1);
        assert_eq!(p.inbox[0].title, "[Phase 3] 选哪个?");
        assert_eq!(p.inbox[0].options, vec!["A", "B"]);
        assert_eq!(p.decisions.len(), 1);
        assert_eq!(
            p.statusline,
            "v2.0 [████░░░░░░] 40% · executing · 数据层 (2/5)"
        );
        assert!(p.problems.is_empty());
    }

    fn acts(p: &Project) -> Vec<(&str, Option<&str>)> {
        p.acts
            .iter()
            .map(|a| (a.verb, a.target.as_deref()))
            .collect()
    }

    #[test]
    fn offers_the_decisions_the_act_code_takes() {
        // Each blocker the act finds under GSD's own heading is resolved
        // by its text; one under another heading (the reader lists it,
        // `resolve-blocker` never reaches it) is not offered.
        let (_t, p) = project(&[(
            STATE_FILE,
            "# State\n### Blockers\n- API key missing\n- CI red\n## Old blockers\n- legacy\n",
        )]);
        assert_eq!(p.blockers, vec!["API key missing", "CI red", "legacy"]);
        assert_eq!(
            acts(&p),
            vec![
                ("add-decision", None),
                ("add-blocker", None),
                ("resolve-blocker", Some("API key missing")),
                ("resolve-blocker", Some("CI red")),
            ]
        );
        // A blocker whose text another contains would take both lines
        // with it: only the longer, which names itself alone, is offered.
        let (_t, p) = project(&[(
            STATE_FILE,
            "# State\n### Blockers\n- CI red\n- CI red on main since Tuesday\n",
        )]);
        assert_eq!(
            acts(&p),
            vec![
                ("add-decision", None),
                ("add-blocker", None),
                ("resolve-blocker", Some("CI red on main since Tuesday")),
            ]
        );
        // No blockers: only the project's decisions.
        let (_t, p) = project(&[(STATE_FILE, "# State\n### Blockers\nNone\n")]);
        assert_eq!(
            acts(&p),
            vec![("add-decision", None), ("add-blocker", None)]
        );
    }

    #[test]
    fn a_state_the_act_will_not_edit_offers_nothing() {
        // A control character: the act refuses to write the file, so
        // neither its decisions nor the WAITING.json answer are offered.
        let waiting = r#"{"question":"Which?","options":["A","B"]}"#;
        let (_t, p) = project(&[
            (STATE_FILE, "# State\n### Blockers\n- a\u{1}b\n"),
            (WAITING_FILE, waiting),
        ]);
        assert!(p.acts.is_empty(), "{:?}", p.acts);
        assert_eq!(p.inbox.len(), 1);
        assert!(p.inbox[0].act.is_none());
        // Valid, the answer is offered with the options as the act reads
        // them (one line each).
        let (_t, p) = project(&[
            (STATE_FILE, "# State\n"),
            (
                WAITING_FILE,
                r#"{"question":"Which?","options":["A\n  one","B",""]}"#,
            ),
        ]);
        let act = p.inbox[0].act.as_ref().unwrap();
        assert_eq!(act.options, vec!["A one", "B"]);
        // The item shows the options its digits pick.
        assert_eq!(p.inbox[0].options, act.options);
        assert_eq!(p.acts.len(), 2);
        // Not UTF-8: not written, not offered.
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("demo");
        fs::create_dir_all(dir.join(PLANNING_DIR)).unwrap();
        fs::write(dir.join(STATE_FILE), b"# State\n### Blockers\n- \xff\n").unwrap();
        fs::write(dir.join(WAITING_FILE), waiting).unwrap();
        let p = load(&dir).unwrap();
        assert!(p.acts.is_empty() && p.inbox[0].act.is_none());
    }

    #[test]
    fn discovery_reads_the_seeds_kind_and_the_guess_never_decides() {
        for (status, kind) in [
            ("Discovery phase", StatusKind::Unknown),
            ("discovering", StatusKind::Unknown),
            ("executing", StatusKind::Running),
            ("verifying", StatusKind::Running),
            ("complete", StatusKind::Done),
        ] {
            let tmp = tempfile::tempdir().unwrap();
            fs::create_dir_all(tmp.path().join(PLANNING_DIR)).unwrap();
            fs::write(
                tmp.path().join(STATE_FILE),
                format!("---\nstatus: {status}\n---\n"),
            )
            .unwrap();
            let found = crate::formats::load_dir(tmp.path()).projects;
            assert_eq!(found.len(), 1);
            assert_eq!(found[0].status_kind, kind, "{status}");
        }
    }

    #[test]
    fn a_list_under_a_heading_gsd_tools_does_not_read_is_a_finding() {
        let own = |p: &Project| {
            p.findings
                .iter()
                .filter(|f| f.code == "gsd.own-section")
                .map(|f| f.message.clone())
                .collect::<Vec<_>>()
        };
        let (_t, p) = project(&[(
            STATE_FILE,
            "# S\n## Key Decisions\n- k\n**Blockers/Concerns**\n- b\n",
        )]);
        let found = own(&p);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].contains("`## Key Decisions`") && found[0].contains("`## Decisions`"));
        assert!(
            found[1].contains("`**Blockers/Concerns**`") && found[1].contains("`### Blockers`")
        );
        // gsd-tools' own headings (or none at all): nothing to say.
        let (_t, p) = project(&[(
            STATE_FILE,
            "# S\n## Key Decisions\n- k\n### Decisions\n- d\n### Concerns\n- c\n",
        )]);
        assert!(own(&p).is_empty(), "{:?}", own(&p));
        let (_t, p) = project(&[(STATE_FILE, "# S\nStatus: x\n")]);
        assert!(own(&p).is_empty());
    }

    /// `STATE.md` of the real-world fixture `name`, in a project whose
    /// file's mtime is `mtime` (as a clone leaves it: the moment it ran).
    fn real_world(name: &str, mtime: &str) -> (tempfile::TempDir, Project) {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/gsd-real-world");
        let text = fs::read_to_string(fixtures.join(name).join("STATE.md")).unwrap();
        let (tmp, _) = project(&[(STATE_FILE, &text)]);
        let dir = tmp.path().join("demo");
        let at = chrono::DateTime::parse_from_rfc3339(mtime).unwrap().to_utc();
        fs::File::options()
            .append(true)
            .open(dir.join(STATE_FILE))
            .unwrap()
            .set_modified(at.into())
            .unwrap();
        let p = load(&dir).unwrap();
        (tmp, p)
    }

    #[test]
    fn a_state_without_last_updated_is_dated_by_what_it_records_not_by_a_clone() {
        let when = |p: &Project| p.updated_at.map(|t| t.to_rfc3339());
        let clone = "2030-01-15T10:00:00Z";
        // Real files without frontmatter: `Last activity:` (a date),
        // `Last session:` (a date, or a date and time), a hand-written
        // `**Last Updated:**`.
        for (name, expected) in [
            ("Mondreykr__bom-tool", "2026-02-09T00:00:00+00:00"),
            ("Mohamed-Affan__Juice_Shop", "2026-03-24T09:45:00+00:00"),
            ("Mincorey__deliv-em", "2026-04-13T00:00:00+00:00"),
            ("MlocKz__liftlabb-website", "2026-02-27T00:00:00+00:00"),
        ] {
            let (_t, p) = real_world(name, clone);
            assert_eq!(when(&p).as_deref(), Some(expected), "{name}");
        }
        // Written that day: the mtime, finer than the date.
        let (_t, p) = real_world("Mondreykr__bom-tool", "2026-02-09T15:04:00Z");
        assert_eq!(when(&p).as_deref(), Some("2026-02-09T15:04:00+00:00"));
        // Nothing recorded: the mtime, as before.
        let (_t, p) = real_world("Mithunkr00808__Layana-Boutique", clone);
        assert_eq!(when(&p).as_deref(), Some("2030-01-15T10:00:00+00:00"));
        // The frontmatter's `last_updated` still decides when there is one.
        let (_t, p) = real_world("Mimo01__pmkar", clone);
        assert_eq!(when(&p).as_deref(), Some("2026-03-27T23:22:05.928+00:00"));
    }

    /// What a resume card quotes of a real `STATE.md` under "what you meant
    /// then": never a line of its frontmatter; Project Reference (its core
    /// value) and Session Continuity when the file has them.
    #[test]
    fn what_you_meant_then_is_the_body_never_the_frontmatter() {
        let fixtures =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/gsd-real-world");
        let mut with_frontmatter = 0;
        let mut with_reference = 0;
        for e in fs::read_dir(&fixtures).unwrap() {
            let dir = e.unwrap().path();
            let Ok(text) = fs::read_to_string(dir.join("STATE.md")) else {
                continue;
            };
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            let lines = meant(STATE_FILE, &text).unwrap();
            let quoted = &lines[..lines.len().min(8)];
            assert!(!quoted.is_empty(), "{name}");
            // Every line of every frontmatter block at the top.
            let (fm, body) = frontmatter::split(&text);
            let head = &text[..text.len() - body.len()];
            if !fm.is_empty() {
                with_frontmatter += 1;
            }
            for l in quoted {
                assert!(
                    !head.lines().any(|h| h.trim() == l && !h.trim().is_empty()),
                    "{name}: `{l}` is frontmatter"
                );
                assert!(!l.starts_with("gsd_state_version"), "{name}: {l}");
            }
            // The template's Project Reference: its core value is quoted.
            if body.contains("## Project Reference")
                && let Some(core) = body.lines().find(|l| l.starts_with("**Core value:**"))
            {
                with_reference += 1;
                assert_eq!(quoted[0], "## Project Reference", "{name}");
                assert!(
                    quoted.iter().take(4).any(|l| l == core.trim()),
                    "{name}: {quoted:?}"
                );
            }
        }
        assert!(with_frontmatter > 30 && with_reference > 30, "{with_frontmatter} {with_reference}");
        // The template's own sections, in the order that says what was
        // meant first; Current Position (on the card already) left out.
        let t = "---\nstatus: executing\n---\n# Project State\n## Project Reference\n\n**Core value:** v\n## Current Position\nPhase: 3 of 7\n## Session Continuity\nStopped at: Completed 03-01-PLAN.md\nResume file: None\n";
        assert_eq!(
            meant(STATE_FILE, t).unwrap(),
            vec![
                "## Project Reference",
                "**Core value:** v",
                "## Session Continuity",
                "Stopped at: Completed 03-01-PLAN.md",
                "Resume file: None"
            ]
        );
        // Without those sections: the body from the top, still no
        // frontmatter. Another file is read as any other.
        assert_eq!(
            meant(STATE_FILE, "---\nstatus: x\n---\n# S\n## Current Status\n- a\n").unwrap(),
            vec!["# S", "## Current Status", "- a"]
        );
        assert_eq!(meant(".planning/phases/03/.continue-here.md", t), None);
    }

    /// The sections quoted are known by their heading's words, among the
    /// file's own: a real `STATE.md` titled `# Session State` is not one
    /// Session section swallowing the file (Position included, on the card
    /// already), and a heading that merely holds the letters is not one.
    #[test]
    fn what_you_meant_then_is_known_by_the_headings_words() {
        let fixtures =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/gsd-real-world");
        let text =
            fs::read_to_string(fixtures.join("MonarchCastleTech__econmap/STATE.md")).unwrap();
        let lines = meant(STATE_FILE, &text).unwrap();
        assert_eq!(
            lines[..4],
            [
                "## Project Reference",
                "See: .planning/PROJECT.md",
                "## Session Log",
                "- 2026-07-27: STATE.md regenerated by /gsd-health --repair"
            ]
        );
        assert!(!lines.iter().any(|l| l.contains("Position")), "{lines:?}");
        let t = "# State\n## Possessions\n- a car\n## Reference Projects\n- b\n## Last Session\nStopped at: x\n";
        assert_eq!(
            meant(STATE_FILE, t).unwrap(),
            vec!["## Last Session", "Stopped at: x"]
        );
    }

    #[test]
    fn broken_waiting_json_is_a_problem_not_a_crash() {
        let (_t, p) = project(&[
            (STATE_FILE, "Status: setup\n"),
            (WAITING_FILE, "{\"question\": "),
        ]);
        assert_eq!(p.problems.len(), 1);
        assert_eq!(p.problems[0].file, WAITING_FILE);
        assert!(p.inbox.is_empty());
    }

    #[test]
    fn invalid_utf8_is_read_lossily_and_reported() {
        let tmp = tempfile::tempdir().unwrap();
        fs::create_dir_all(tmp.path().join(".planning")).unwrap();
        fs::write(
            tmp.path().join(STATE_FILE),
            b"---\nstatus: exec\xffuting\n---\n",
        )
        .unwrap();
        let p = load(tmp.path()).unwrap();
        assert_eq!(p.problems.len(), 1);
        assert!(p.problems[0].reason.contains("UTF-8"));
        assert_eq!(p.status, "exec\u{fffd}uting");
    }
}
