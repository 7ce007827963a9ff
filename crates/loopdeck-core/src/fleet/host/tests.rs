#![allow(clippy::unwrap_used, clippy::expect_used)]
use super::*;

const NAME: &str = "build-1";

fn config() -> Config {
    Config {
        stale_after: Some(STALE_AFTER),
        connect_within: CONNECT_WITHIN,
        stagger: Duration::ZERO,
        seed: 7,
    }
}

fn secs(base: Instant, n: u64) -> Instant {
    base + Duration::from_secs(n)
}

fn ms(base: Instant, n: u64) -> Instant {
    base + Duration::from_millis(n)
}

fn snapshot(projects: Vec<Project>) -> Event {
    Event::Line(Line::Snapshot {
        version: "0.1.0".into(),
        projects,
        problems: vec!["/w/x: denied".into()],
        watcher: Liveness::Live { watches: 2 },
        roots: vec!["/w".into()],
    })
}

fn exited(code: i32, stderr: &str) -> Event {
    Event::Exited {
        code: Some(code),
        stderr: stderr.lines().map(str::to_owned).collect(),
    }
}

fn project(path: &str) -> Project {
    Project::new(Format::Gsd, PathBuf::from(path), path.to_owned())
}

/// The states an answer publishes.
fn states(actions: &[Action]) -> Vec<HostState> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Publish(HostUpdate::State(s)) => Some(s.clone()),
            _ => None,
        })
        .collect()
}

/// The one state an answer publishes.
fn state(actions: &[Action]) -> HostState {
    let s = states(actions);
    assert_eq!(s.len(), 1, "{actions:?}");
    s.into_iter().next().unwrap()
}

/// A host whose child runs at `t0` (spawned, no snapshot yet).
fn connecting(t0: Instant) -> Host {
    let mut h = Host::new(HostName::from(NAME), config(), t0);
    let first = h.start(t0);
    assert_eq!(
        first,
        [
            Action::Publish(HostUpdate::State(HostState::Connecting { attempt: 1 })),
            Action::Spawn,
        ]
    );
    assert_eq!(h.handle(Event::Spawned, t0), []);
    h
}

/// A host live since `t0`.
fn live(t0: Instant) -> Host {
    let mut h = connecting(t0);
    let a = h.handle(snapshot(vec![]), t0);
    assert_eq!(
        state(&a),
        HostState::Live {
            watcher: Liveness::Live { watches: 2 }
        }
    );
    h
}

/// How long after `now` the host will try again.
fn retry_in(h: &Host, now: Instant) -> Duration {
    h.wake_at().unwrap().duration_since(now)
}

#[test]
fn backoff_doubles_from_a_second_to_a_minute_and_is_jittered() {
    let bases = [1, 2, 4, 8, 16, 32, 60, 60, 60];
    for (n, base) in (1..).zip(bases) {
        let base = Duration::from_secs(base);
        assert_eq!(backoff(n, 0.0), base / 2, "try {n}");
        let top = backoff(n, 0.999_999);
        assert!(top < base && top > base.mul_f64(0.99), "try {n}: {top:?}");
    }
    assert_eq!(backoff(u32::MAX, 0.5), Duration::from_secs(45));
    // Through the machine: ssh missing, tried again and again.
    let t0 = Instant::now();
    let mut h = Host::new(HostName::from(NAME), config(), t0);
    h.start(t0);
    let mut now = t0;
    let mut delays = Vec::new();
    for _ in 0..12 {
        let a = h.handle(Event::SpawnFailed("No such file or directory".into()), now);
        let HostState::Failed { hint, retry_at, .. } = state(&a) else {
            panic!("{a:?}")
        };
        assert_eq!(hint, Hint::InstallSsh);
        assert_eq!(Some(retry_at), h.wake_at());
        delays.push(retry_at - now);
        now = retry_at;
        assert_eq!(h.handle(Event::Tick, now)[0], Action::Spawn);
    }
    for (i, d) in delays.iter().enumerate() {
        let base = Duration::from_secs(bases.get(i).copied().unwrap_or(60));
        assert!(*d >= base / 2 && *d < base, "try {}: {d:?}", i + 1);
    }
    // Jittered: the minute-long waits are not all the same.
    let tail: std::collections::BTreeSet<_> = delays[6..].iter().collect();
    assert!(tail.len() > 3, "{delays:?}");
}

#[test]
fn the_first_spawn_waits_a_seeded_stagger_under_half_a_second() {
    let t0 = Instant::now();
    let mut waits = std::collections::BTreeSet::new();
    for seed in 0..20 {
        let mut h = Host::new(
            HostName::from(NAME),
            Config {
                stagger: STAGGER,
                seed,
                ..config()
            },
            t0,
        );
        let first = h.start(t0);
        let at = h.wake_at().unwrap();
        assert!(at >= t0 && at < ms(t0, 500), "seed {seed}");
        if at > t0 {
            assert!(!first.contains(&Action::Spawn));
            assert_eq!(h.handle(Event::Tick, at - Duration::from_nanos(1)), []);
        }
        assert_eq!(h.handle(Event::Tick, at), [Action::Spawn]);
        waits.insert(at - t0);
    }
    assert!(waits.len() > 15, "{waits:?}");
}

#[test]
fn twenty_five_seconds_of_silence_is_stale_then_it_reconnects() {
    let t0 = Instant::now();
    let mut h = live(t0);
    assert_eq!(h.wake_at(), Some(secs(t0, 25)));
    assert_eq!(h.handle(Event::Tick, ms(t0, 24_999)), []);
    let a = h.handle(Event::Tick, secs(t0, 25));
    assert_eq!(a[0], Action::Kill);
    assert_eq!(
        state(&a),
        HostState::Stale {
            since: t0,
            reason: "no word from build-1 for 25 s".into()
        }
    );
    // Nothing is spawned before the killed child is gone.
    assert_eq!(h.wake_at(), None);
    assert_eq!(h.handle(Event::Tick, secs(t0, 100)), []);
    // Its exit, even with a message, says nothing more; the retry is due.
    let a = h.handle(exited(255, "Killed by signal 9."), secs(t0, 100));
    assert_eq!(a, [Action::Spawn], "still stale: no Connecting shown");
    assert_eq!(h.handle(Event::Spawned, secs(t0, 100)), []);
    let a = h.handle(snapshot(vec![project("/w/a")]), secs(t0, 101));
    assert!(matches!(&a[0], Action::Publish(HostUpdate::Snapshot(p)) if p.len() == 1));
    assert!(matches!(state(&a), HostState::Live { .. }));
}

#[test]
fn heartbeats_keep_it_live_for_hours() {
    let t0 = Instant::now();
    let mut h = live(t0);
    for n in 1..=1_000 {
        let now = secs(t0, n * 10);
        assert_eq!(h.handle(Event::Tick, now), []);
        assert_eq!(h.handle(Event::Line(Line::Heartbeat), now), []);
        assert_eq!(h.wake_at(), Some(now + STALE_AFTER));
    }
}

#[test]
fn without_a_stale_limit_a_live_host_needs_no_tick() {
    let t0 = Instant::now();
    let mut h = Host::new(
        HostName::from(NAME),
        Config {
            stale_after: None,
            ..config()
        },
        t0,
    );
    h.start(t0);
    h.handle(Event::Spawned, t0);
    assert_eq!(h.wake_at(), Some(t0 + CONNECT_WITHIN));
    let first = serde_json::json!({"type": "snapshot", "watcher": {"state": "live", "watches": 4}});
    let a = h.handle(Event::Raw(first.clone()), secs(t0, 1));
    assert_eq!(
        a,
        [
            Action::Publish(HostUpdate::Raw(first)),
            Action::Publish(HostUpdate::State(HostState::Live {
                watcher: Liveness::Live { watches: 4 }
            })),
        ]
    );
    assert_eq!(h.wake_at(), None);
    let w = serde_json::json!({"type": "watcher", "watcher": {"state": "starting"}});
    let a = h.handle(Event::Raw(w), secs(t0, 3600));
    assert_eq!(
        states(&a),
        [HostState::Live {
            watcher: Liveness::Starting
        }]
    );
    // The link dropping still says so (ssh's keep-alive gives up: 255).
    let a = h.handle(
        exited(255, "Timeout, server build1 not responding."),
        secs(t0, 3700),
    );
    assert_eq!(
        state(&a),
        HostState::Stale {
            since: secs(t0, 3600),
            reason: "Timeout, server build1 not responding.".into()
        }
    );
}

#[test]
fn another_model_schema_is_refused_and_tried_again_after_a_minute() {
    let t0 = Instant::now();
    let mut h = connecting(t0);
    let bad = LineError::WrongSchema {
        schema_version: 1,
        model_schema: Some(2),
        version: Some("0.9.0".into()),
    };
    let a = h.handle(Event::Bad(bad), secs(t0, 1));
    assert_eq!(a[0], Action::Kill);
    let HostState::Refused { message, retry_at } = state(&a) else {
        panic!("{a:?}")
    };
    assert!(
        message.starts_with("build-1 runs loopdeck 0.9.0 (model schema 2); this console reads"),
        "{message}"
    );
    assert_eq!(retry_at, secs(t0, 61));
    assert_eq!(h.handle(exited(143, ""), secs(t0, 1)), []);
    assert_eq!(h.wake_at(), Some(secs(t0, 61)));
    assert_eq!(h.handle(Event::Tick, secs(t0, 60)), []);
    let a = h.handle(Event::Tick, secs(t0, 61));
    assert_eq!(a[0], Action::Spawn);
    assert_eq!(state(&a), HostState::Connecting { attempt: 1 });
}

#[test]
fn an_older_loopdeck_without_model_is_refused() {
    let t0 = Instant::now();
    let mut h = connecting(t0);
    let a = h.handle(
        // clap's usage follows its error.
        exited(
            2,
            "error: unexpected argument '--model' found\n\nUsage: loopdeck watch [OPTIONS] [ROOT]...\n\nFor more information, try '--help'.",
        ),
        secs(t0, 1),
    );
    let HostState::Refused { message, retry_at } = state(&a) else {
        panic!("{a:?}")
    };
    assert!(
        message.starts_with("build-1 runs an older loopdeck"),
        "{message}"
    );
    assert_eq!(retry_at, secs(t0, 61));
    assert!(!a.contains(&Action::Kill), "it exited by itself");
}

#[test]
fn each_ssh_error_gets_its_hint_and_keeps_ssh_s_own_words() {
    let cases = [
        (
            127,
            "bash: loopdeck: command not found",
            Hint::InstallLoopdeck,
        ),
        (127, "", Hint::InstallLoopdeck),
        (
            127,
            "zsh:1: no such file or directory: ~/bin/loopdeck",
            Hint::InstallLoopdeck,
        ),
        (
            126,
            "bash: /home/u/bin/loopdeck: No such file or directory",
            Hint::InstallLoopdeck,
        ),
        (
            255,
            "ops@build1: Permission denied (publickey).",
            Hint::Keys,
        ),
        (
            255,
            "ssh: Could not resolve hostname build1: Name or service not known",
            Hint::CheckName,
        ),
        (
            255,
            "ssh: connect to host build1 port 22: Connection timed out",
            Hint::Unreachable,
        ),
        (
            255,
            "ssh: connect to host build1 port 2222: Connection refused",
            Hint::Unreachable,
        ),
        (255, "Host key verification failed.", Hint::HostKey),
        // ssh's own missing file is not the remote's loopdeck.
        (
            255,
            "Can't open user configuration file /tmp/cfg: No such file or directory",
            Hint::Other,
        ),
        (2, "error: root /srv/gone does not exist", Hint::Other),
        // The remote's own "Permission denied" is not ssh's.
        (2, "error: /srv/x: Permission denied", Hint::Other),
    ];
    for (code, stderr, hint) in cases {
        let t0 = Instant::now();
        let mut h = connecting(t0);
        let a = h.handle(exited(code, stderr), t0);
        let HostState::Failed {
            message,
            hint: got,
            retry_at,
        } = state(&a)
        else {
            panic!("{stderr}: {a:?}")
        };
        assert_eq!(got, hint, "{stderr}");
        if stderr.is_empty() {
            assert_eq!(
                message,
                "ssh to build-1 exited with code 127 before the first reading"
            );
        } else {
            assert_eq!(message, stderr);
        }
        assert_eq!(Some(retry_at), h.wake_at());
    }
    assert!(
        Hint::InstallLoopdeck
            .text(NAME)
            .contains("install loopdeck on build-1")
    );
}

/// The line that tells is the message, whatever follows it.
#[test]
fn the_telling_line_is_the_message() {
    let t0 = Instant::now();
    let mut h = connecting(t0);
    let a = h.handle(
        exited(
            255,
            "Warning: Permanently added 'b1' (ED25519) to the list of known hosts.\nops@b1: Permission denied (publickey).\n",
        ),
        t0,
    );
    assert!(matches!(
        state(&a),
        HostState::Failed { message, hint: Hint::Keys, .. } if message == "ops@b1: Permission denied (publickey)."
    ));
}

#[test]
fn a_remote_message_is_one_safe_line() {
    let t0 = Instant::now();
    let mut h = connecting(t0);
    let hostile = format!("\x1b[31mPermission denied\x1b[0m {}", "x".repeat(1000));
    let a = h.handle(exited(255, &hostile), t0);
    let HostState::Failed { message, hint, .. } = state(&a) else {
        panic!("{a:?}")
    };
    assert_eq!(hint, Hint::Keys);
    assert!(!message.contains('\x1b'), "{message:?}");
    assert_eq!(message.chars().count(), MESSAGE_CHARS);
}

#[test]
fn a_snapshot_replaces_the_host_s_projects_and_marks_them_its_own() {
    let t0 = Instant::now();
    let mut h = connecting(t0);
    let a = h.handle(snapshot(vec![project("/w/a"), project("/w/b")]), t0);
    let Action::Publish(HostUpdate::Snapshot(got)) = &a[0] else {
        panic!("{a:?}")
    };
    assert_eq!(got.len(), 2);
    assert!(got.iter().all(|p| p.host.as_deref() == Some(NAME)));
    assert_eq!(
        a[1],
        Action::Publish(HostUpdate::Problems(vec!["/w/x: denied".into()]))
    );
    // A changed project and a removal pass on, the project its host's.
    let a = h.handle(
        Event::Line(Line::Project(Box::new(project("/w/c")))),
        secs(t0, 1),
    );
    assert!(
        matches!(&a[..], [Action::Publish(HostUpdate::Project(p))] if p.host.as_deref() == Some(NAME))
    );
    let removed = Line::Removed {
        path: "/w/a".into(),
        format: Format::Gsd,
    };
    assert_eq!(
        h.handle(Event::Line(removed), secs(t0, 2)),
        [Action::Publish(HostUpdate::Removed {
            path: "/w/a".into(),
            format: Format::Gsd
        })]
    );
    // The link drops; the reconnect's snapshot is the whole list again.
    h.handle(exited(255, ""), secs(t0, 3));
    let at = h.wake_at().unwrap();
    assert_eq!(h.handle(Event::Tick, at), [Action::Spawn]);
    h.handle(Event::Spawned, at);
    let a = h.handle(snapshot(vec![project("/w/b")]), at);
    assert!(matches!(&a[0], Action::Publish(HostUpdate::Snapshot(p)) if p.len() == 1));
}

#[test]
fn lines_before_the_snapshot_and_from_a_killed_child_are_not_applied() {
    let t0 = Instant::now();
    let mut h = connecting(t0);
    let change = || Event::Line(Line::Project(Box::new(project("/w/a"))));
    assert_eq!(h.handle(change(), t0), []);
    h.handle(snapshot(vec![]), t0);
    let a = h.handle(Event::Tick, secs(t0, 25));
    assert_eq!(a[0], Action::Kill);
    assert_eq!(h.handle(change(), secs(t0, 25)), []);
    assert_eq!(h.handle(snapshot(vec![]), secs(t0, 25)), []);
    assert_eq!(
        h.handle(Event::Bad(LineError::NotJson("x".into())), secs(t0, 25)),
        []
    );
}

#[test]
fn failures_are_forgotten_once_a_connection_was_live_thirty_seconds() {
    for (live_for, expect_reset) in [(30, true), (29, false)] {
        let t0 = Instant::now();
        let mut h = connecting(t0);
        let mut now = t0;
        // Three failed tries.
        for _ in 0..3 {
            h.handle(
                exited(255, "ssh: connect to host b port 22: Connection refused"),
                now,
            );
            now = h.wake_at().unwrap();
            h.handle(Event::Tick, now);
            h.handle(Event::Spawned, now);
        }
        h.handle(snapshot(vec![]), now);
        let mut last = now;
        for s in (10..=live_for).step_by(10).chain([live_for]) {
            last = secs(now, s);
            h.handle(Event::Line(Line::Heartbeat), last);
        }
        let a = h.handle(exited(255, ""), secs(last, 1));
        assert!(matches!(state(&a), HostState::Stale { .. }));
        let wait = retry_in(&h, secs(last, 1));
        if expect_reset {
            assert!(wait < Duration::from_secs(1), "{live_for} s: {wait:?}");
        } else {
            assert!(wait >= Duration::from_secs(4), "{live_for} s: {wait:?}");
        }
    }
}

#[test]
fn an_exit_before_the_snapshot_fails_and_after_it_is_stale() {
    let t0 = Instant::now();
    let mut h = connecting(t0);
    let a = h.handle(exited(255, ""), t0);
    assert_eq!(
        state(&a),
        HostState::Failed {
            message: "ssh to build-1 closed before the first reading".into(),
            hint: Hint::Other,
            retry_at: h.wake_at().unwrap(),
        }
    );
    let mut h = live(t0);
    let a = h.handle(exited(255, ""), secs(t0, 5));
    assert_eq!(
        state(&a),
        HostState::Stale {
            since: t0,
            reason: "connection lost".into()
        }
    );
    assert!(!a.contains(&Action::Kill));
    let mut h = live(t0);
    let a = h.handle(exited(101, ""), secs(t0, 5));
    assert_eq!(
        state(&a),
        HostState::Stale {
            since: t0,
            reason: "loopdeck on build-1 exited with code 101".into()
        }
    );
}

/// While it reconnects after Live, the host stays stale (since its last
/// word) until a try says why it fails.
#[test]
fn a_stale_host_stays_stale_while_reconnecting_until_a_try_says_why() {
    let t0 = Instant::now();
    let mut h = live(t0);
    h.handle(exited(255, ""), secs(t0, 5));
    let mut now = secs(t0, 5);
    let mut waits = Vec::new();
    for _ in 0..3 {
        waits.push(retry_in(&h, now));
        now = h.wake_at().unwrap();
        assert_eq!(h.handle(Event::Tick, now), [Action::Spawn]);
        h.handle(Event::Spawned, now);
        // ssh's 255 without a word again: still stale, nothing new shown.
        assert_eq!(h.handle(exited(255, ""), now), []);
        assert_eq!(
            h.state(),
            Some(&HostState::Stale {
                since: t0,
                reason: "connection lost".into()
            })
        );
    }
    // The backoff grows meanwhile.
    assert!(waits[2] > waits[0], "{waits:?}");
    now = h.wake_at().unwrap();
    h.handle(Event::Tick, now);
    h.handle(Event::Spawned, now);
    let a = h.handle(
        exited(255, "ssh: connect to host build1 port 22: No route to host"),
        now,
    );
    assert!(matches!(
        state(&a),
        HostState::Failed {
            hint: Hint::Unreachable,
            ..
        }
    ));
    now = h.wake_at().unwrap();
    let a = h.handle(Event::Tick, now);
    assert_eq!(state(&a), HostState::Connecting { attempt: 6 });
}

#[test]
fn no_snapshot_in_time_fails() {
    let t0 = Instant::now();
    let mut h = connecting(t0);
    assert_eq!(h.wake_at(), Some(t0 + CONNECT_WITHIN));
    let a = h.handle(Event::Line(Line::Heartbeat), secs(t0, 44));
    assert_eq!(a, []);
    let a = h.handle(Event::Tick, secs(t0, 45));
    assert_eq!(a[0], Action::Kill);
    assert!(matches!(
        state(&a),
        HostState::Failed {
            hint: Hint::Slow,
            ..
        }
    ));
}

#[test]
fn a_line_that_cannot_be_read_kills_and_fails() {
    let t0 = Instant::now();
    // Text before the feed: the remote shell's.
    let mut h = connecting(t0);
    let a = h.handle(Event::Bad(LineError::NotJson("Welcome!".into())), t0);
    assert_eq!(a[0], Action::Kill);
    let HostState::Failed { message, hint, .. } = state(&a) else {
        panic!("{a:?}")
    };
    assert_eq!(hint, Hint::QuietShell);
    assert!(
        message.starts_with("build-1 sent a line that is not"),
        "{message}"
    );
    // A project that does not decode, while live.
    let mut h = live(t0);
    let a = h.handle(Event::Bad(LineError::BadProject("no id".into())), t0);
    assert_eq!(a[0], Action::Kill);
    assert!(matches!(
        state(&a),
        HostState::Failed {
            hint: Hint::SameVersion,
            ..
        }
    ));
}
