#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::*;
use crate::model::every_string::each_string;
use crate::model::{Activity, InboxItem, InboxKind, Verb};

fn repo() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).to_path_buf()
}

fn projects_under(dir: &str) -> Vec<Project> {
    let found = crate::formats::discover(&[repo().join(dir)]);
    assert!(found.problems.is_empty(), "{:?}", found.problems);
    found.projects
}

/// Through the wire as the feed sends it: a value, one line of text, a
/// value again, a project.
fn through_the_wire(p: &Project) -> Project {
    let line = serde_json::to_string(&to_value(p)).unwrap();
    assert!(!line.contains('\n'), "one line");
    project_from_value(serde_json::from_str(&line).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}\n{line}", p.path.display()))
}

fn assert_round_trips(projects: &[Project]) {
    for p in projects {
        let back = through_the_wire(p);
        assert_eq!(&back, p, "{}", p.path.display());
    }
}

/// What a set of projects holds that only the wire carries, counted: a
/// round trip of sets without them would prove little.
#[derive(Debug, Default)]
struct Reach {
    activity: usize,
    agent_activity: usize,
    acts: usize,
    said: usize,
    units_with_extras: usize,
}

fn reach(projects: &[Project]) -> Reach {
    let mut r = Reach::default();
    for p in projects {
        r.activity += usize::from(p.activity.is_some());
        r.agent_activity += p
            .detail
            .agents
            .iter()
            .filter(|a| a.activity.is_some())
            .count();
        r.acts += p.acts.len();
        r.said += p
            .inbox
            .iter()
            .map(|i| &i.title)
            .chain(&p.blockers)
            .chain(&p.stage)
            .filter(|s| s.key().is_some())
            .count();
        r.units_with_extras += p.detail.units.iter().filter(|u| u.more.is_some()).count();
    }
    r
}

#[test]
fn every_example_project_comes_back_equal() {
    let projects = projects_under("examples/workspace");
    assert!(projects.len() > 15, "{}", projects.len());
    let r = reach(&projects);
    assert!(
        r.activity > 0 && r.agent_activity > 0 && r.acts > 0 && r.said > 0,
        "{r:?}"
    );
    assert!(r.units_with_extras > 0, "{r:?}");
    assert_round_trips(&projects);
}

#[test]
fn every_fixture_project_comes_back_equal() {
    let mut projects = projects_under("tests/fixtures");
    // The real-world GSD states are kept bare; a project holds its own
    // in `.planning/`.
    let tmp = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(repo().join("tests/fixtures/gsd-real-world")).unwrap() {
        let state = e.unwrap().path().join("STATE.md");
        if state.is_file() {
            let dir = tmp
                .path()
                .join(state.parent().unwrap().file_name().unwrap())
                .join(".planning");
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::copy(&state, dir.join("STATE.md")).unwrap();
        }
    }
    projects.extend(crate::formats::discover(&[tmp.path().to_path_buf()]).projects);
    let formats: std::collections::BTreeSet<_> = projects.iter().map(|p| p.format).collect();
    assert!(formats.len() >= 3, "{formats:?}");
    assert!(projects.len() > 20, "{}", projects.len());
    assert_round_trips(&projects);
}

#[test]
fn the_public_json_is_not_the_wire_value() {
    // The views' JSON keeps its shape: no activity, no acts, phrases as
    // English text; the wire value carries them.
    let projects = projects_under("examples/workspace");
    let p = projects
        .iter()
        .find(|p| p.activity.is_some() && !p.acts.is_empty())
        .expect("a project with activity and acts");
    let public = serde_json::to_value(p).unwrap();
    let wire = to_value(p);
    for key in ["activity", "acts"] {
        assert!(public.get(key).is_none(), "{key} in the public JSON");
        assert!(wire.get(key).is_some(), "{key} missing on the wire");
    }
    let title = &public["inbox"][0]["title"];
    assert!(title.is_string() || p.inbox.is_empty(), "{title}");
    // And the flag does not leak: the views' JSON after a wire value is
    // the same as before it.
    assert_eq!(serde_json::to_value(p).unwrap(), public);
}

const HOSTILE: &[&str] = &[
    "",
    "\u{0}\u{1}\u{7}\u{8}\u{b}\u{c}\u{7f}",
    "\u{1b}[31mred\u{1b}[0m\u{1b}]0;title\u{7}",
    "\"quoted\" \\back\\slash\\ \\u0041 \\n",
    "line\nbreak\r\ncarriage\ttab",
    "\u{fffd}\u{fffd} lossy \u{fffd}",
    "\u{202e}reversed\u{202c} \u{200b}zero\u{feff}width",
    "emoji 👩‍👩‍👧 and 漢字 and combining e\u{301}",
    "{placeholder} {{braces}} }",
    "</script><!-- -->&amp;",
];

#[test]
fn hostile_strings_come_back_byte_for_byte() {
    let projects = projects_under("examples/workspace");
    // Very long text in every string of the richest project (a devloop
    // one), the rest in every string of every project.
    let long = "x\u{1b}\"\u{fffd}".repeat(16_384);
    let devloop: Vec<&Project> = projects
        .iter()
        .filter(|p| p.format == crate::model::Format::Devloop)
        .take(1)
        .collect();
    let cases = HOSTILE
        .iter()
        .map(|h| (*h, projects.iter().collect::<Vec<_>>()))
        .chain([(long.as_str(), devloop)]);
    for (i, (hostile, projects)) in cases.enumerate() {
        for p in projects {
            let mut marked = p.clone();
            let mut n = 0;
            each_string(&mut marked, &mut |s| {
                n += 1;
                // Replace some, append to others: both shapes of text.
                if n % 2 == 0 {
                    *s = hostile.to_owned();
                } else {
                    s.push_str(hostile);
                }
            });
            let back = through_the_wire(&marked);
            assert_eq!(back, marked, "hostile #{i} in {}", p.path.display());
        }
    }
}

#[cfg(unix)]
#[test]
fn a_path_that_is_not_utf8_comes_back() {
    use std::os::unix::ffi::OsStringExt;
    let dir = PathBuf::from(std::ffi::OsString::from_vec(
        b"/srv/proj-\xff\xfe/x".to_vec(),
    ));
    let p = Project::new(crate::model::Format::Gsd, dir.clone(), "x".into());
    // The views cannot write it (as before); the wire can.
    assert!(serde_json::to_value(&p).is_err());
    assert_eq!(through_the_wire(&p), p);
    assert_eq!(path_from_value(path_to_value(&dir)).unwrap(), dir);
    let plain = Path::new("/srv/plain dir/ü");
    assert_eq!(path_to_value(plain), json!("/srv/plain dir/ü"));
    assert_eq!(path_from_value(path_to_value(plain)).unwrap(), plain);
}

/// A project holding every shape the wire has, built by hand.
fn rich() -> Project {
    let mut p = Project::new(
        crate::model::Format::Devloop,
        PathBuf::from("acme/p-rich"),
        "rich".into(),
    );
    p.host = Some("build-box".into());
    p.id = "acme/p-rich".into();
    p.stage = Some(crate::phrase!(
        "phrase.devloop.blocked_reason",
        blockers = vec![
            crate::phrase!("phrase.gsd.paused", at = "step 3"),
            Phrase::quoted("a file's own words"),
        ]
    ));
    p.blockers = vec![crate::phrase!(
        "phrase.dwp.stale_lock",
        age = Arg::Age(3 * 3600)
    )];
    p.inbox = vec![InboxItem {
        kind: InboxKind::Resume,
        reference: "integrator".into(),
        title: crate::phrase!(
            "phrase.devloop.paused",
            agent = "integrator",
            step = Some(crate::phrase!("phrase.devloop.paused_step", step = "3/5")),
            doing = None,
        ),
        since: Some("2026-05-31T10:00:00Z".parse().unwrap()),
        options: vec!["resume".into(), "restart".into()],
        subject: Some("integrator".into()),
        act: Some(Address::new(
            "resume-agent",
            Some("integrator".into()),
            vec!["resume".into(), "restart".into()],
        )),
        why_not: None,
    }];
    p.activity = Some(Activity {
        last: Some("2026-05-31T11:59:00.123456789Z".parse().unwrap()),
        limit: Some(chrono::TimeDelta::milliseconds(90_500)),
    });
    p.acts = vec![
        Address::new("abandon", None, Vec::new()),
        Address::new("requirement", None, Vec::new()),
    ];
    let mut agent = crate::model::Agent {
        agent: "integrator".into(),
        status: "running".into(),
        status_kind: crate::model::StatusKind::Running,
        step: Some("3/5".into()),
        step_index: Some(2),
        total_steps: Some(5),
        doing: Some("wire".into()),
        unit: None,
        progress_pct: Some(40),
        paused_at: None,
        has_resume_token: false,
        resume_expires_at: None,
        started_at: None,
        error: None,
        activity: None,
    };
    agent.activity = Some(Activity {
        last: None,
        limit: Some(chrono::TimeDelta::seconds(-5)),
    });
    p.detail.agents.push(agent);
    let mut unit =
        crate::model::Unit::new("a-be", "be", "coding", crate::model::StatusKind::Running);
    // Extras present, all empty: the flat shape alone cannot tell.
    unit.more = Some(Box::default());
    p.detail.units.push(unit);
    p.detail.units.push(crate::model::Unit::new(
        "b-fe",
        "fe",
        "pending",
        crate::model::StatusKind::Planning,
    ));
    p.detail.progress = Some(crate::model::Progress {
        percent: 33.3,
        phase: "L1".into(),
        breakdown: vec![crate::model::ProgressPart {
            part: "units".into(),
            weight: 40.0,
            points: 13.33,
        }],
    });
    p
}

#[test]
fn a_hand_built_project_of_every_shape_comes_back_without_its_host() {
    let p = rich();
    let back = through_the_wire(&p);
    assert_eq!(back.host, None, "the receiver sets it");
    assert_eq!(back, Project { host: None, ..p });
}

/// The wire's shape, pinned: when this snapshot changes, bump
/// `MODEL_SCHEMA` (a receiver of the old shape must refuse the new).
#[test]
fn the_wire_shape_is_pinned() {
    let v = to_value(&rich());
    assert_eq!(MODEL_SCHEMA, 1, "bumped: update the snapshot's name too");
    insta::assert_snapshot!(
        "wire_value_schema_1",
        serde_json::to_string_pretty(&v).unwrap()
    );
}

#[test]
fn a_phrase_is_said_again_in_the_receivers_language() {
    let back = through_the_wire(&rich());
    let stage = back.stage.unwrap();
    assert_eq!(stage.key(), Some("phrase.devloop.blocked_reason"));
    let _zh = i18n::scoped(Lang::ZhCn);
    assert_eq!(stage.shown(), "受阻：已暂停：step 3；a file's own words");
}

#[test]
fn an_unknown_key_reads_as_its_english_and_an_unknown_verb_is_dropped() {
    let mut v = to_value(&rich());
    // A newer sender: a key, an argument and verbs this build lacks.
    v["stage"] = json!({"en": "from the future", "key": "phrase.not.yet", "args": [["x", "1"]]});
    v["blockers"] = json!([
        {"en": "stale lock", "key": "phrase.dwp.stale_lock", "args": [["no_such_name", "1"]]},
        {"en": "plain", "key": "phrase.gsd.paused", "args": [["at", {"phrase": {"en": "inner", "key": "phrase.nope"}}]]},
        {"joined": ["a", {"en": "b", "key": "phrase.nope"}]}
    ]);
    v["inbox"][0]["act"]["verb"] = json!("teleport");
    v["acts"] = json!([{"verb": "abandon"}, {"verb": "teleport", "target": "x"}]);
    let p = project_from_value(v).unwrap();
    assert_eq!(p.stage, Some(Phrase::quoted("from the future")));
    assert_eq!(p.blockers[0], Phrase::quoted("stale lock"));
    assert_eq!(
        p.blockers[1],
        Phrase::said(
            "phrase.gsd.paused",
            vec![("at", Arg::Phrase(Phrase::quoted("inner")))]
        )
    );
    assert_eq!(
        p.blockers[2],
        Phrase::joined(vec![Phrase::quoted("a"), Phrase::quoted("b")])
    );
    assert_eq!(p.inbox.len(), 1, "the item stays");
    assert_eq!(p.inbox[0].act, None, "its act goes");
    assert_eq!(p.acts, vec![Address::new("abandon", None, Vec::new())]);
    // An address alone with an unknown verb is an error, not a guess.
    assert!(serde_json::from_value::<Address>(json!({"verb": "teleport"})).is_err());
}

#[test]
fn what_is_not_a_project_is_an_error() {
    let good = to_value(&rich());
    let mut broken = Vec::new();
    for (field, value) in [
        ("format", json!("nope")),
        ("path", json!(12)),
        ("inbox", json!([{"kind": "question"}])),
        ("stage", json!({"key": "phrase.gsd.paused"})),
        ("activity", json!({"last": "yesterday"})),
        ("activity", json!({"limit": [i64::MAX, 0]})),
        ("detail", json!({"units": [{"id": 1}]})),
        ("progress_percent", json!(300)),
    ] {
        let mut v = good.clone();
        v[field] = value;
        broken.push(v);
    }
    let mut no_id = good.clone();
    no_id.as_object_mut().unwrap().remove("id");
    broken.push(no_id);
    for v in [
        Value::Null,
        json!(42),
        json!("project"),
        json!([]),
        json!({}),
        json!({"projects": [good.clone()]}),
    ]
    .into_iter()
    .chain(broken)
    {
        assert!(project_from_value(v.clone()).is_err(), "{v}");
    }
    assert!(project_from_value(good).is_ok());
}

#[test]
fn the_verb_list_names_every_verb() {
    // A verb added to `Verb` fails to compile here until it is listed.
    fn name_of(v: &Verb) -> &'static str {
        match v {
            Verb::Answer { .. }
            | Verb::Evidence { .. }
            | Verb::Choose { .. }
            | Verb::NewProject { .. }
            | Verb::AddDecision { .. }
            | Verb::AddBlocker { .. }
            | Verb::ResolveBlocker { .. }
            | Verb::Approve
            | Verb::Block { .. }
            | Verb::Unblock { .. }
            | Verb::Reopen { .. }
            | Verb::Reconcile
            | Verb::Unlock { .. }
            | Verb::Bug { .. }
            | Verb::ResumeAgent { .. }
            | Verb::SignOff
            | Verb::Abandon
            | Verb::Requirement { .. } => v.name(),
        }
    }
    let s = String::new;
    let every = [
        Verb::Answer {
            id: None,
            text: s(),
            key_decision: false,
            rationale: None,
        },
        Verb::Evidence { id: s(), text: s() },
        Verb::Choose { option: s() },
        Verb::NewProject {
            name: s(),
            work_type: s(),
            mode: None,
        },
        Verb::AddDecision {
            text: s(),
            phase: None,
            rationale: None,
        },
        Verb::AddBlocker { text: s() },
        Verb::ResolveBlocker {
            text: s(),
            all: false,
        },
        Verb::Approve,
        Verb::Block {
            task: s(),
            reason: s(),
            needs: None,
        },
        Verb::Unblock { task: s() },
        Verb::Reopen {
            task: s(),
            reason: s(),
        },
        Verb::Reconcile,
        Verb::Unlock { confirm: false },
        Verb::Bug {
            id: s(),
            status: s(),
            note: None,
            duplicate_of: None,
            fix_ref: None,
        },
        Verb::ResumeAgent {
            agent: s(),
            choice: s(),
        },
        Verb::SignOff,
        Verb::Abandon,
        Verb::Requirement { text: s() },
    ];
    let mut names: Vec<&str> = every.iter().map(name_of).collect();
    let mut listed = VERBS.to_vec();
    names.sort_unstable();
    listed.sort_unstable();
    assert_eq!(names, listed);
}
