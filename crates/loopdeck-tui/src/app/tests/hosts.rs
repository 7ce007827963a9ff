//! Other hosts' projects in the console: merged by host, never touched by
//! this machine's readings, primed on a host's first snapshot, grouped by
//! host, read-only unless the host is writable.

use super::*;
use crate::app::hosts::{Host, HostChange, HostState};
use crate::model::HostName;

fn name(h: &str) -> HostName {
    HostName::from(h)
}

/// A model with local projects and two configured hosts, `build-1`
/// (writable) and `laptop` (read-only), neither connected yet.
fn with_hosts(local: Vec<Project>) -> Model {
    let mut m = model(local);
    m.hosts = vec![
        Host::new(name("build-1"), "ops@build1".into(), true),
        Host::new(name("laptop"), "me@laptop".into(), false),
    ];
    m
}

/// A PRD-master project with one open question it offers to answer.
fn asking(name: &str) -> Project {
    let mut p = project(name, Format::PrdMaster, 1);
    p.inbox[0].act = Some(crate::model::Address::new(
        "answer",
        Some("OQ-0".to_owned()),
        Vec::new(),
    ));
    p
}

fn live(m: &mut Model, host: &str) {
    update(
        m,
        Event::Host {
            name: name(host),
            change: HostChange::State(HostState::Live {
                watcher: Liveness::Live { watches: 3 },
            }),
        },
    );
}

fn snapshot(m: &mut Model, host: &str, projects: Vec<Project>) -> Vec<Effect> {
    update(
        m,
        Event::Host {
            name: name(host),
            change: HostChange::Snapshot(projects),
        },
    )
}

fn labels(m: &Model) -> Vec<String> {
    let mut v: Vec<String> = m.projects.iter().map(|p| p.label().into_owned()).collect();
    v.sort();
    v
}

fn notified(effects: &[Effect]) -> Vec<String> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Notify { title, body } => Some(format!("{title}: {body}")),
            _ => None,
        })
        .collect()
}

/// A host's snapshot adds its projects, labelled with the host, beside
/// the local ones at the same path; another snapshot replaces that host's
/// projects and no others; a local reading never removes them.
#[test]
fn a_snapshot_replaces_only_its_hosts_projects() {
    let mut m = with_hosts(vec![project("alpha", Format::PrdMaster, 0)]);
    snapshot(
        &mut m,
        "build-1",
        vec![
            project("alpha", Format::PrdMaster, 0),
            project("beta", Format::Gsd, 0),
        ],
    );
    snapshot(&mut m, "laptop", vec![project("gamma", Format::Dwp, 0)]);
    assert_eq!(
        labels(&m),
        [
            "alpha",
            "build-1 · alpha",
            "build-1 · beta",
            "laptop · gamma"
        ]
    );
    // build-1 again, without beta: beta is held (re-reading), then gone
    // after the settle time, as a local project that goes.
    let effects = snapshot(
        &mut m,
        "build-1",
        vec![project("alpha", Format::PrdMaster, 0)],
    );
    let seq = effects
        .iter()
        .find_map(|e| match e {
            Effect::SettleAfter(seq) => Some(*seq),
            _ => None,
        })
        .expect("beta is held before it goes");
    update(&mut m, Event::Settle(seq));
    assert_eq!(labels(&m), ["alpha", "build-1 · alpha", "laptop · gamma"]);
    // A full local reading (alpha only) leaves every remote project, as
    // current (nothing held to settle).
    let effects = update(
        &mut m,
        Event::Loaded(vec![project("alpha", Format::PrdMaster, 0)]),
    );
    assert!(
        !effects.iter().any(|e| matches!(e, Effect::SettleAfter(_))),
        "a local reading held a remote project: {effects:?}"
    );
    assert_eq!(labels(&m), ["alpha", "build-1 · alpha", "laptop · gamma"]);
    // And a local reading without alpha takes only the local alpha away
    // (kept on screen as gone while it is the selected project).
    let effects = update(&mut m, Event::Loaded(Vec::new()));
    for e in effects {
        if let Effect::SettleAfter(seq) = e {
            update(&mut m, Event::Settle(seq));
        }
    }
    let gone: Vec<String> = m
        .projects
        .iter()
        .filter(|p| m.freshness(p) == Freshness::Gone)
        .map(|p| p.label().into_owned())
        .collect();
    assert_eq!(gone, ["alpha"]);
    let remote: Vec<(String, Freshness)> = m
        .projects
        .iter()
        .filter(|p| p.host.is_some())
        .map(|p| (p.label().into_owned(), m.freshness(p)))
        .collect();
    assert_eq!(
        remote,
        [
            ("build-1 · alpha".to_owned(), Freshness::Current),
            ("laptop · gamma".to_owned(), Freshness::Current)
        ]
    );
}

/// One project's line replaces it; a removal takes it away; neither
/// touches the same path on this machine or on another host.
#[test]
fn a_project_line_and_a_removal_touch_one_project_of_one_host() {
    let mut m = with_hosts(vec![project("alpha", Format::PrdMaster, 0)]);
    snapshot(
        &mut m,
        "build-1",
        vec![project("alpha", Format::PrdMaster, 0)],
    );
    snapshot(
        &mut m,
        "laptop",
        vec![project("alpha", Format::PrdMaster, 0)],
    );
    let mut changed = project("alpha", Format::PrdMaster, 0);
    changed.status = "coding".into();
    update(
        &mut m,
        Event::Host {
            name: name("build-1"),
            change: HostChange::Project(Box::new(changed)),
        },
    );
    let status = |m: &Model, host: Option<&str>| {
        m.projects
            .iter()
            .find(|p| p.host.as_deref() == host)
            .map(|p| p.status.clone())
    };
    assert_eq!(status(&m, Some("build-1")).as_deref(), Some("coding"));
    assert_eq!(status(&m, Some("laptop")).as_deref(), Some("unknown"));
    assert_eq!(status(&m, None).as_deref(), Some("unknown"));
    let effects = update(
        &mut m,
        Event::Host {
            name: name("laptop"),
            change: HostChange::Removed {
                path: PathBuf::from("/w/alpha"),
                format: Format::PrdMaster,
            },
        },
    );
    for e in effects {
        if let Effect::SettleAfter(seq) = e {
            update(&mut m, Event::Settle(seq));
        }
    }
    assert_eq!(labels(&m), ["alpha", "build-1 · alpha"]);
}

/// What waits on a host when the console first hears of it waited
/// before: no notification. An item that arrives later is new, notified
/// with the host in the title, and counted as new in the header; after a
/// reconnect, a fresh snapshot notifies only what arrived meanwhile.
#[test]
fn a_hosts_first_snapshot_primes_and_later_items_notify() {
    let mut m = with_hosts(vec![project("alpha", Format::PrdMaster, 1)]);
    let first = snapshot(
        &mut m,
        "build-1",
        vec![project("beta", Format::PrdMaster, 1)],
    );
    assert!(notified(&first).is_empty(), "{:?}", notified(&first));
    let later = snapshot(
        &mut m,
        "build-1",
        vec![project("beta", Format::PrdMaster, 2)],
    );
    let said = notified(&later);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].starts_with("loopdeck · build-1 · beta"), "{said:?}");
    assert!(said[0].contains("question 1 of beta"), "{said:?}");
    assert_eq!(m.new_total(), 1);
    // A reconnect's snapshot with the same items: nothing new.
    let again = snapshot(
        &mut m,
        "build-1",
        vec![project("beta", Format::PrdMaster, 2)],
    );
    assert!(notified(&again).is_empty(), "{:?}", notified(&again));
}

/// A host's item keeps the time it was first seen across snapshots, and
/// it is keyed apart from the same item of this machine's project.
#[test]
fn first_seen_times_are_kept_per_host() {
    let mut m = with_hosts(vec![]);
    let mut p = project("beta", Format::PrdMaster, 1);
    p.inbox[0].since = None;
    snapshot(&mut m, "build-1", vec![p.clone()]);
    let since = m.projects[0].inbox[0].since;
    assert_eq!(since, Some(m.now));
    m.now += chrono::Duration::hours(3);
    snapshot(&mut m, "build-1", vec![p.clone()]);
    assert_eq!(m.projects[0].inbox[0].since, since, "re-aged by a snapshot");
    let keys: Vec<String> = m
        .projects
        .iter()
        .map(|p| m.first_seen.key(p, &p.inbox[0]))
        .collect();
    assert_eq!(keys, ["host:build-1:/w/beta#question:OQ-0"]);
}

/// `b` cycles through by-host grouping only when hosts are watched; the
/// groups are this machine first, then each host in the config's order.
#[test]
fn b_groups_by_host_this_machine_first() {
    let mut plain = model(vec![project("alpha", Format::PrdMaster, 0)]);
    for _ in 0..3 {
        update(&mut plain, key('b'));
        assert_ne!(plain.group, panes::Group::Host);
    }
    let mut m = with_hosts(vec![project("alpha", Format::PrdMaster, 0)]);
    snapshot(&mut m, "laptop", vec![project("gamma", Format::Dwp, 0)]);
    snapshot(&mut m, "build-1", vec![project("beta", Format::Gsd, 0)]);
    for _ in 0..3 {
        update(&mut m, key('b'));
    }
    assert_eq!(m.group, panes::Group::Host);
    let rows: Vec<String> = panes::list_rows(&m)
        .iter()
        .map(|r| match r {
            panes::ListRow::Header { key, .. } => format!("[{}]", panes::group_name(&m, *key)),
            panes::ListRow::Project(i) => m.projects[*i].label().into_owned(),
        })
        .collect();
    assert_eq!(
        rows,
        [
            "[this machine]",
            "alpha",
            "[build-1]",
            "build-1 · beta",
            "[laptop]",
            "laptop · gamma"
        ]
    );
}

/// `a` on a read-only host's project says why and what fixes it, at once;
/// on a writable host that is not live it says to wait for the link.
#[test]
fn deciding_on_a_read_only_or_unlinked_host_is_refused_with_the_fix() {
    let mut m = with_hosts(vec![]);
    snapshot(&mut m, "laptop", vec![asking("gamma")]);
    update(&mut m, key('i'));
    let effects = update(&mut m, key('a'));
    assert!(
        !effects.iter().any(|e| matches!(e, Effect::Decide { .. })),
        "{effects:?}"
    );
    let said = m.status.clone().unwrap_or_default();
    assert!(said.contains("laptop is read-only"), "{said}");
    assert!(said.contains("writable = true"), "{said}");

    let mut m = with_hosts(vec![]);
    snapshot(&mut m, "build-1", vec![asking("beta")]);
    let now = m.now;
    update(
        &mut m,
        Event::Host {
            name: name("build-1"),
            change: HostChange::State(HostState::Stale {
                last_line: Some(now),
                reason: "no line for 25s".into(),
            }),
        },
    );
    // Its rows say they may be old.
    let list = screen(&m, 140, 20);
    assert!(list.contains("(host not live)"), "{list}");
    assert!(
        list.contains("build-1 · beta · prd-master · as of its host's last line (H)"),
        "{list}"
    );
    update(&mut m, key('i'));
    update(&mut m, key('a'));
    let said = m.status.clone().unwrap_or_default();
    assert!(said.contains("build-1 is not live"), "{said}");
    assert_eq!(m.mode, Mode::Normal);

    // Live again: the form opens, and its decision is made on build-1.
    live(&mut m, "build-1");
    update(&mut m, key('a'));
    assert_eq!(m.mode, Mode::Decide, "{:?}", m.status);
    assert_eq!(
        m.form.as_ref().and_then(|f| f.host.clone()),
        Some(name("build-1"))
    );
}

/// `o` on another host's file says where it is instead of opening a
/// local file at the same path.
#[test]
fn opening_a_remote_file_says_where_it_is() {
    let mut m = with_hosts(vec![]);
    snapshot(
        &mut m,
        "build-1",
        vec![project("beta", Format::PrdMaster, 0)],
    );
    let effects = update(&mut m, key('o'));
    assert!(
        !effects.iter().any(|e| matches!(e, Effect::Open { .. })),
        "{effects:?}"
    );
    let said = m.status.clone().unwrap_or_default();
    assert!(said.contains("on build-1"), "{said}");
}

/// The header counts the hosts live and names the first one that is
/// not; `H` lists every host with its state and, for one that failed,
/// ssh's own line and what resolves it.
#[test]
fn the_header_and_the_hosts_view_say_each_hosts_state() {
    let mut m = with_hosts(vec![project("alpha", Format::PrdMaster, 0)]);
    live(&mut m, "build-1");
    let now = m.now;
    update(
        &mut m,
        Event::Host {
            name: name("laptop"),
            change: HostChange::State(HostState::Failed {
                message: "me@laptop: Permission denied (publickey).".into(),
                hint: Some(
                    "add your key to the host's authorized_keys, or load it in ssh-agent".into(),
                ),
                retry_at: Some(now + chrono::Duration::seconds(16)),
            }),
        },
    );
    snapshot(&mut m, "build-1", vec![project("beta", Format::Gsd, 0)]);
    let top = screen(&m, 140, 30);
    let header = top.lines().next().unwrap_or_default();
    assert!(
        header.contains("1/2 hosts live · laptop failed (H)"),
        "{header}"
    );
    update(&mut m, key('H'));
    assert_eq!(m.help_page, HelpPage::Hosts);
    let view = screen(&m, 140, 30);
    assert!(view.contains("Hosts · 1/2 live"), "{view}");
    assert!(view.contains("build-1"), "{view}");
    assert!(view.contains("live · 1 project"), "{view}");
    assert!(
        view.contains("failed: me@laptop: Permission denied (publickey)."),
        "{view}"
    );
    assert!(view.contains("→ add your key"), "{view}");
    assert!(view.contains("tried again in 16s"), "{view}");
    update(&mut m, code(KeyCode::Esc));
    assert_eq!(m.mode, Mode::Normal);
}
