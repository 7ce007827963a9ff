//! The last run's snapshot (`Event::Cached`), on the pure update: shown
//! at once, every row marked refreshing; nothing decided on it, nothing
//! it holds rung, escalated, looked at or counted as changed since you
//! looked; this run's reading replaces it, and the projects gone from disk
//! leave at once.

use super::{code, key, project, screen, selected};
use crate::app::*;
use crate::model::escalate::Rule;
use crate::model::{Address, Project};
use chrono::TimeZone;

fn fresh_model() -> Model {
    let mut m = Model::new(
        vec!["/w".into()],
        false,
        Utc.with_ymd_and_hms(2026, 6, 1, 12, 0, 0).unwrap(),
    );
    // A rule firing on every item, and a command to hear of it: what the
    // snapshot must never set off.
    m.rules = vec![Rule::any("all")];
    m.hook = true;
    m
}

/// beta's questions can be answered (as its reader would offer).
fn answerable(mut p: Project) -> Project {
    for i in &mut p.inbox {
        i.options = vec!["yes".into(), "no".into()];
        i.act = Some(Address {
            verb: "answer",
            target: Some(i.reference.clone()),
            options: i.options.clone(),
        });
    }
    p
}

fn last_run() -> Vec<Project> {
    vec![
        project("alpha", Format::Gsd, 0),
        answerable(project("beta", Format::PrdMaster, 2)),
        project("gamma", Format::Devloop, 1),
    ]
}

/// Anything that would ring, remember or save.
fn rings(effects: &[Effect]) -> Vec<&Effect> {
    effects
        .iter()
        .filter(|e| {
            matches!(
                e,
                Effect::Notify { .. }
                    | Effect::Hook(_)
                    | Effect::SaveSeen
                    | Effect::SaveFirstSeen
                    | Effect::SettleAfter(_)
            )
        })
        .collect()
}

#[test]
fn the_snapshot_is_shown_refreshing_decides_nothing_and_rings_nothing() {
    let _en = crate::i18n::scoped(crate::i18n::Lang::En);
    let mut m = fresh_model();
    let effects = update(&mut m, Event::Cached(last_run()));
    assert_eq!(effects, vec![Effect::Render]);
    assert!(m.loading, "this run's reading has not come");
    assert_eq!(m.projects.len(), 3);
    assert!(
        m.projects
            .iter()
            .all(|p| m.freshness(p) == Freshness::Refreshing)
    );
    assert_eq!(selected(&m), "alpha");
    assert_eq!(m.waiting_total(), 3, "the header counts what it holds");
    let s = screen(&m, 80, 24);
    assert!(s.contains("3 projects · ◌ refreshing…"), "{s}");
    assert!(s.contains("◌ alpha"), "{s}");
    assert!(s.contains("as the last run left it"), "{s}");

    // Time passes: no rule rings for a row of the snapshot.
    let effects = update(
        &mut m,
        Event::Clock(Utc.with_ymd_and_hms(2026, 6, 9, 12, 0, 0).unwrap()),
    );
    assert!(rings(&effects).is_empty(), "{effects:?}");

    // A decision on it is refused, and said; so is an option key.
    update(&mut m, key('j'));
    assert_eq!(selected(&m), "beta");
    let effects = update(&mut m, key('a'));
    assert_eq!(effects, vec![Effect::Render]);
    assert!(
        m.status
            .as_ref()
            .is_some_and(|s| s.contains("still reading beta"))
    );
    update(&mut m, key('i'));
    for c in ['a', '1', 'y'] {
        let effects = update(&mut m, key(c));
        assert_eq!(effects, vec![Effect::Render]);
        assert_eq!(m.mode, Mode::Normal);
        let said = m.status.clone().unwrap_or_default();
        assert!(
            said.contains("still reading") && said.contains("beta"),
            "{said}"
        );
    }
    let s = screen(&m, 80, 24);
    assert!(s.contains("still reading beta"), "{s}");
    // Opening its detail and pressing keys there is no look at it.
    update(&mut m, key('p'));
    update(&mut m, code(KeyCode::Enter));
    assert_eq!(m.focus, Focus::Detail);
    update(&mut m, key('j'));
    assert!(m.seen.projects.is_empty(), "{:?}", m.seen.projects.keys());
    assert!(!m.seen.dirty);

    // This run's reading: beta moved on, alpha is gone from disk, delta
    // is new. The snapshot's rows give way at once (nothing held).
    let mut beta = answerable(project("beta", Format::PrdMaster, 2));
    beta.status = "stage 3".into();
    let delta = project("delta", Format::Gsd, 0);
    let gamma = project("gamma", Format::Devloop, 1);
    let reading = || vec![beta.clone(), gamma.clone(), delta.clone()];
    let effects = update(&mut m, Event::Loaded(reading()));
    // It rings (escalations), saves and primes exactly as the first
    // reading of a run without a snapshot; nothing is held back.
    let mut plain = fresh_model();
    let without = update(&mut plain, Event::Loaded(reading()));
    assert_eq!(rings(&effects), rings(&without));
    assert!(!effects.iter().any(|e| matches!(e, Effect::SettleAfter(_))));
    assert!(!m.loading);
    assert!(m.cached.is_empty());
    let names: Vec<(&str, Freshness)> = m
        .projects
        .iter()
        .map(|p| (p.name.as_str(), m.freshness(p)))
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(names.iter().all(|(_, f)| *f == Freshness::Current));
    assert!(!names.iter().any(|(n, _)| *n == "alpha"), "{names:?}");
    assert_eq!(selected(&m), "beta", "the selection kept across");
    assert_eq!(m.selected_project().unwrap().status, "stage 3");
    assert!(!m.projects.iter().any(|p| m.seen.changed(p)));
    let s = screen(&m, 80, 24);
    assert!(!s.contains("refreshing"), "{s}");

    // From now on, as always: a decision opens; a new item rings.
    update(&mut m, key('i'));
    update(&mut m, key('a'));
    assert_eq!(m.mode, Mode::Decide, "{:?}", m.status);
    update(&mut m, code(KeyCode::Esc));
    let mut later = beta.clone();
    later.inbox = answerable(project("beta", Format::PrdMaster, 3)).inbox;
    let effects = update(&mut m, Event::Loaded(vec![later, gamma, delta]));
    assert!(
        effects.iter().any(|e| matches!(e, Effect::Notify { .. })),
        "{effects:?}"
    );
}

/// A snapshot that comes after this run's reading is older than it: not
/// taken. Another host's projects are never taken from it.
#[test]
fn a_snapshot_after_the_reading_is_not_taken() {
    let mut m = fresh_model();
    update(
        &mut m,
        Event::Loaded(vec![project("alpha", Format::Gsd, 0)]),
    );
    let effects = update(&mut m, Event::Cached(last_run()));
    assert!(rings(&effects).is_empty());
    assert_eq!(m.projects.len(), 1);
    assert!(m.cached.is_empty());
}

/// A part reading before the full one (a decision's, a watcher's) takes
/// the rows it covers; the others stay refreshing; the full reading
/// takes the rest.
#[test]
fn a_part_reading_replaces_only_what_it_read() {
    let mut m = fresh_model();
    update(&mut m, Event::Cached(last_run()));
    let mut gamma = project("gamma", Format::Devloop, 1);
    gamma.status = "coding".into();
    update(
        &mut m,
        Event::Reread {
            dirs: vec![PathBuf::from("/w/gamma"), PathBuf::from("/w/alpha")],
            trees: vec![],
            projects: vec![gamma],
        },
    );
    let state: Vec<(&str, &str, Freshness)> = m
        .projects
        .iter()
        .map(|p| (p.name.as_str(), p.status.as_str(), m.freshness(p)))
        .collect();
    assert!(
        state.contains(&("gamma", "coding", Freshness::Current)),
        "{state:?}"
    );
    assert!(
        state.contains(&("beta", "unknown", Freshness::Refreshing)),
        "{state:?}"
    );
    assert!(
        !state.iter().any(|(n, _, _)| *n == "alpha"),
        "gone from its directory: {state:?}"
    );
    let gamma = m
        .projects
        .iter()
        .find(|p| p.name == "gamma")
        .cloned()
        .unwrap();
    update(
        &mut m,
        Event::Loaded(vec![project("beta", Format::PrdMaster, 2), gamma]),
    );
    assert!(m.cached.is_empty());
    assert_eq!(m.projects.len(), 2);
    assert!(
        m.projects
            .iter()
            .all(|p| m.freshness(p) == Freshness::Current)
    );
}

/// Another host's first snapshot, taken in while this machine's rows are
/// still the snapshot's, learns nothing of them: this machine's first
/// reading then marks what arrived while no one looked exactly as it
/// does without a snapshot.
#[test]
fn a_host_reading_before_the_first_learns_nothing_from_the_snapshot() {
    use crate::app::hosts::{Host, HostChange};
    let mut new = Vec::new();
    for with_snapshot in [false, true] {
        let mut m = fresh_model();
        m.rules.clear();
        m.hook = false;
        // An earlier run's memory that holds none of these items.
        m.first_seen =
            crate::model::first_seen::FirstSeen::new(Default::default(), Default::default());
        m.hosts = vec![Host::new("build-1".into(), "ops@build1".into(), false)];
        if with_snapshot {
            update(&mut m, Event::Cached(last_run()));
        }
        update(
            &mut m,
            Event::Host {
                name: "build-1".into(),
                change: HostChange::Snapshot(vec![project("remote", Format::Gsd, 1)]),
            },
        );
        update(&mut m, Event::Loaded(last_run()));
        new.push(m.new_total());
    }
    assert!(new[0] >= 3, "{new:?}");
    assert_eq!(new[0], new[1]);
}
