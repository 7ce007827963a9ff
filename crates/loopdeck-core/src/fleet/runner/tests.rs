//! The runner with real processes and no sshd: `ssh_program` is a shell
//! script that ignores its ssh arguments (it records them) and plays a
//! remote loopdeck. Each spawn appends a line to `spawns`, each child
//! writes its pid to `pids`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, channel};

use super::*;
use crate::fleet::{HostState, HostUpdate};
use crate::follow::Liveness;
use crate::model::wire::MODEL_SCHEMA;

const WAIT: Duration = Duration::from_secs(10);

/// A scratch directory with a fake `ssh`.
struct Fake {
    dir: tempfile::TempDir,
}

impl Fake {
    /// `body` runs as `sh`, after recording the spawn, its pid and its
    /// arguments. `$N` is the spawn's number, from 1.
    fn new(body: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display();
        let script = format!(
            "#!/bin/sh\necho x >> '{d}/spawns'\nN=$(wc -l < '{d}/spawns')\necho $$ >> '{d}/pids'\nprintf '%s\\n' \"$*\" > '{d}/args'\n{body}\n"
        );
        let path = dir.path().join("ssh");
        fs::write(&path, script).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        Self { dir }
    }

    fn path(&self) -> PathBuf {
        self.dir.path().join("ssh")
    }

    fn read(&self, name: &str) -> String {
        fs::read_to_string(self.dir.path().join(name)).unwrap_or_default()
    }

    fn spawns(&self) -> usize {
        self.read("spawns").lines().count()
    }

    fn pids(&self) -> Vec<i32> {
        self.read("pids")
            .lines()
            .map(|l| l.parse().unwrap())
            .collect()
    }

    fn options(&self) -> RunOptions {
        RunOptions {
            heartbeat_secs: 10,
            stale_after: STALE_AFTER,
            connect_within: Duration::from_secs(10),
            ssh_program: self.path().into(),
            seed: 1,
            stagger: Duration::ZERO,
            max_line: 1 << 20,
            feed: Feed::Model,
        }
    }
}

fn snapshot_line(model_schema: u32) -> String {
    format!(
        r#"{{"schema_version":1,"type":"snapshot","at":"t","loopdeck_version":"0.1.0","model_schema":{model_schema},"roots":["/w"],"problems":["/w/x: denied"],"watcher":{{"state":"live","watches":1}},"projects":[]}}"#
    )
}

const HEARTBEAT: &str = r#"{"schema_version":1,"type":"heartbeat","at":"t"}"#;

fn host(name: &str) -> HostSpec {
    HostSpec::new(name, "example.invalid", vec!["/r".into()])
}

fn run(hosts: Vec<HostSpec>, options: RunOptions) -> (Fleet, Receiver<HostEvent>) {
    let (tx, rx) = channel();
    let fleet = start(hosts, options, Sink::new(tx)).unwrap();
    (fleet, rx)
}

/// Every update until one matches `until` (included); panics with what
/// came when none does in time.
fn until(rx: &Receiver<HostEvent>, until: impl Fn(&HostUpdate) -> bool) -> Vec<HostUpdate> {
    let deadline = Instant::now() + WAIT;
    let mut got = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(e) => {
                let done = until(&e.update);
                got.push(e.update);
                if done {
                    return got;
                }
            }
            Err(_) => panic!("no match in {WAIT:?}; got {got:#?}"),
        }
    }
}

/// Every update for `d`.
fn quiet_for(rx: &Receiver<HostEvent>, d: Duration) -> Vec<HostUpdate> {
    let deadline = Instant::now() + d;
    let mut got = Vec::new();
    while let Ok(e) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        got.push(e.update);
    }
    got
}

fn is_live(u: &HostUpdate) -> bool {
    matches!(u, HostUpdate::State(HostState::Live { .. }))
}

fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only asks whether the process exists.
    unsafe { libc::kill(pid, 0) == 0 }
}

fn gone_soon(pid: i32) -> bool {
    let deadline = Instant::now() + WAIT;
    while Instant::now() < deadline {
        if !alive(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// A snapshot, a removal, a heartbeat, then half a line and ssh's 255
/// without a word: live, then stale ("connection lost"), never the half
/// line; the reconnect's snapshot replaces the projects again.
#[test]
fn a_feed_goes_live_drops_a_half_line_at_exit_and_reconnects() {
    let snap = snapshot_line(MODEL_SCHEMA);
    let fake = Fake::new(&format!(
        r#"if [ "$N" = 1 ]; then
  echo '{snap}'
  echo '{{"schema_version":1,"type":"project_removed","at":"t","path":"/w/a","format":"gsd"}}'
  echo '{HEARTBEAT}'
  printf '%s' '{{"schema_version":1,"type":"problems","at":"t","problems":["half"]'
  exit 255
fi
echo '{snap}'
exec sleep 30"#
    ));
    let (fleet, rx) = run(vec![host("b1")], fake.options());
    let first = until(&rx, is_live);
    assert_eq!(
        first,
        [
            HostUpdate::State(HostState::Connecting { attempt: 1 }),
            HostUpdate::Snapshot(vec![]),
            HostUpdate::Problems(vec!["/w/x: denied".into()]),
            HostUpdate::State(HostState::Live {
                watcher: Liveness::Live { watches: 1 }
            }),
        ]
    );
    let lost = until(&rx, |u| {
        matches!(u, HostUpdate::State(HostState::Stale { .. }))
    });
    assert_eq!(
        lost[0],
        HostUpdate::Removed {
            path: "/w/a".into(),
            format: crate::model::Format::Gsd
        }
    );
    let HostUpdate::State(HostState::Stale { reason, .. }) = &lost[1] else {
        panic!("{lost:?}")
    };
    assert_eq!(reason, "connection lost");
    assert_eq!(lost.len(), 2, "the half line is never applied: {lost:?}");
    // Reconnected (within the first backoff, under a second): stale
    // until the new snapshot, which replaces the projects.
    let again = until(&rx, is_live);
    assert_eq!(again[0], HostUpdate::Snapshot(vec![]));
    assert_eq!(fake.spawns(), 2);
    // The ssh arguments: the model feed with its heartbeat.
    let args = fake.read("args");
    assert!(
        args.trim_end()
            .ends_with("-- example.invalid loopdeck watch /r --json --model --heartbeat 10"),
        "{args}"
    );
    fleet.stop();
}

#[test]
fn loopdeck_missing_there_fails_with_its_hint_and_is_tried_again() {
    let fake = Fake::new("echo 'bash: line 1: loopdeck: command not found' >&2\nexit 127");
    let (fleet, rx) = run(vec![host("b1")], fake.options());
    let failed = |u: &HostUpdate| matches!(u, HostUpdate::State(HostState::Failed { .. }));
    let got = until(&rx, failed);
    let Some(HostUpdate::State(HostState::Failed {
        message,
        hint,
        retry_at,
    })) = got.last()
    else {
        panic!("{got:?}")
    };
    assert_eq!(message, "bash: line 1: loopdeck: command not found");
    assert_eq!(*hint, Hint::InstallLoopdeck);
    assert!(*retry_at <= Instant::now() + Duration::from_secs(1));
    // The first backoff is under a second: the second try comes.
    let got = until(&rx, failed);
    assert_eq!(
        got[0],
        HostUpdate::State(HostState::Connecting { attempt: 2 })
    );
    assert!(fake.spawns() >= 2);
    fleet.stop();
}

#[test]
fn another_model_schema_is_refused_and_its_child_killed() {
    let fake = Fake::new(&format!(
        "echo '{}'\nexec sleep 30",
        snapshot_line(MODEL_SCHEMA + 1)
    ));
    let (fleet, rx) = run(vec![host("b1")], fake.options());
    let got = until(&rx, |u| {
        matches!(u, HostUpdate::State(HostState::Refused { .. }))
    });
    let Some(HostUpdate::State(HostState::Refused { message, retry_at })) = got.last() else {
        panic!("{got:?}")
    };
    assert!(
        message.starts_with("b1 runs loopdeck 0.1.0 (model schema"),
        "{message}"
    );
    assert!(*retry_at > Instant::now() + Duration::from_secs(55));
    assert!(!got.iter().any(|u| matches!(u, HostUpdate::Snapshot(_))));
    let pid = fake.pids()[0];
    assert!(gone_soon(pid), "the refused child {pid} still runs");
    // And it is not tried again soon.
    assert_eq!(quiet_for(&rx, Duration::from_millis(1500)), []);
    assert_eq!(fake.spawns(), 1);
    fleet.stop();
}

#[test]
fn an_older_loopdeck_s_usage_error_is_refused() {
    let fake = Fake::new(
        "echo \"error: unexpected argument '--model' found\" >&2\necho '' >&2\necho 'Usage: loopdeck watch [ROOT]...' >&2\nexit 2",
    );
    let (fleet, rx) = run(vec![host("b1")], fake.options());
    let got = until(&rx, |u| {
        matches!(
            u,
            HostUpdate::State(HostState::Refused { .. } | HostState::Failed { .. })
        )
    });
    assert!(
        matches!(got.last(), Some(HostUpdate::State(HostState::Refused { message, .. })) if message.contains("older loopdeck")),
        "{got:?}"
    );
    fleet.stop();
}

/// Silence past the limit: stale, the silent child killed, a new one
/// spawned, live again.
#[test]
fn silence_is_stale_after_the_limit_and_the_host_reconnects() {
    let fake = Fake::new(&format!(
        "echo '{}'\nexec sleep 30",
        snapshot_line(MODEL_SCHEMA)
    ));
    let options = RunOptions {
        stale_after: Duration::from_secs(1),
        ..fake.options()
    };
    let (fleet, rx) = run(vec![host("b1")], options);
    until(&rx, is_live);
    let live_at = Instant::now();
    let got = until(&rx, |u| {
        matches!(u, HostUpdate::State(HostState::Stale { .. }))
    });
    let waited = live_at.elapsed();
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(3),
        "{waited:?}"
    );
    assert!(
        matches!(got.last(), Some(HostUpdate::State(HostState::Stale { reason, .. })) if reason == "no word from b1 for 1 s"),
        "{got:?}"
    );
    assert!(gone_soon(fake.pids()[0]));
    let again = until(&rx, is_live);
    assert_eq!(again[0], HostUpdate::Snapshot(vec![]));
    assert_eq!(fake.spawns(), 2);
    fleet.stop();
}

#[test]
fn heartbeats_keep_a_host_live() {
    let fake = Fake::new(&format!(
        "echo '{}'\nfor i in 1 2 3 4 5 6 7 8; do sleep 0.3; echo '{HEARTBEAT}'; done\nexec sleep 30",
        snapshot_line(MODEL_SCHEMA)
    ));
    let options = RunOptions {
        stale_after: Duration::from_secs(1),
        ..fake.options()
    };
    let (fleet, rx) = run(vec![host("b1")], options);
    until(&rx, is_live);
    assert_eq!(quiet_for(&rx, Duration::from_millis(2200)), []);
    assert_eq!(fake.spawns(), 1);
    fleet.stop();
}

#[test]
fn a_line_over_the_limit_fails_the_host() {
    let fake = Fake::new("head -c 5000 /dev/zero | tr '\\0' x\nexec sleep 30");
    let options = RunOptions {
        max_line: 1000,
        ..fake.options()
    };
    let (fleet, rx) = run(vec![host("b1")], options);
    let got = until(&rx, |u| {
        matches!(u, HostUpdate::State(HostState::Failed { .. }))
    });
    assert!(
        matches!(got.last(), Some(HostUpdate::State(HostState::Failed { message, .. })) if message == "b1 sent a line longer than 1000 bytes"),
        "{got:?}"
    );
    assert!(gone_soon(fake.pids()[0]));
    fleet.stop();
}

#[test]
fn ssh_missing_here_says_so() {
    let options = RunOptions {
        ssh_program: "/nonexistent/ssh".into(),
        ..Fake::new("").options()
    };
    let (fleet, rx) = run(vec![host("b1")], options);
    let got = until(&rx, |u| {
        matches!(u, HostUpdate::State(HostState::Failed { .. }))
    });
    assert!(
        matches!(got.last(), Some(HostUpdate::State(HostState::Failed { hint: Hint::InstallSsh, message, .. })) if message.starts_with("cannot run ssh: ")),
        "{got:?}"
    );
    fleet.stop();
}

/// The relay's feed: each line as sent, the plain `watch --json` asked for.
#[test]
fn the_raw_feed_relays_each_line_as_sent() {
    let fake = Fake::new(
        r#"echo '{"schema_version":1,"type":"snapshot","watcher":{"state":"starting"},"projects":[]}'
echo '{"schema_version":1,"type":"timeline_event","project":"a"}'
exec sleep 30"#,
    );
    let options = RunOptions {
        feed: Feed::Raw,
        ..fake.options()
    };
    let (fleet, rx) = run(vec![host("b1")], options);
    let got = until(
        &rx,
        |u| matches!(u, HostUpdate::Raw(v) if v["type"] == "timeline_event"),
    );
    let raw: Vec<&serde_json::Value> = got
        .iter()
        .filter_map(|u| match u {
            HostUpdate::Raw(v) => Some(v),
            _ => None,
        })
        .collect();
    assert_eq!(raw.len(), 2);
    assert_eq!(raw[0]["type"], "snapshot");
    assert!(got.contains(&HostUpdate::State(HostState::Live {
        watcher: Liveness::Starting
    })));
    let args = fake.read("args");
    assert!(
        args.trim_end().ends_with("loopdeck watch /r --json"),
        "{args}"
    );
    fleet.stop();
}

/// Stopping kills every host's child and joins the thread.
#[test]
fn stop_kills_every_child() {
    let fake = Fake::new(&format!(
        "echo '{}'\nexec sleep 30",
        snapshot_line(MODEL_SCHEMA)
    ));
    let (fleet, rx) = run(vec![host("b1"), host("b2")], fake.options());
    let mut live = std::collections::BTreeSet::new();
    let deadline = Instant::now() + WAIT;
    while live.len() < 2 {
        let e = rx
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .unwrap();
        if is_live(&e.update) {
            live.insert(e.host.to_string());
        }
    }
    let pids = fake.pids();
    assert_eq!(pids.len(), 2);
    assert!(pids.iter().all(|&p| alive(p)));
    let t = Instant::now();
    fleet.stop();
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    for p in pids {
        assert!(!alive(p), "child {p} outlived the fleet");
    }
}

#[test]
fn a_host_refused_by_validation_starts_nothing() {
    let bad = HostSpec::new("b 1", "h", vec!["/r".into()]);
    let (tx, _rx) = channel::<HostEvent>();
    assert!(matches!(
        start(vec![bad], RunOptions::default(), Sink::new(tx)),
        Err(Error::Spec(_))
    ));
}
