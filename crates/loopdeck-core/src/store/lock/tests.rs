//! The locks, each kind: exclusive, waited for, judged stale by its own rules.
use super::*;

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("state.json"), "{}").unwrap();
    dir
}

fn dead_pid() -> u32 {
    super::super::sweep::tests::dead_pid()
}

fn set_age(path: &Path, age: Duration) {
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(SystemTime::now() - age)
        .unwrap();
}

#[test]
fn owner_lock_is_exclusive_and_released_on_drop() {
    let p = project();
    let lock = p.path().join("state.json.loopdeck-lock");
    {
        let _g = acquire(p.path(), "state.json", LockKind::Owner, Duration::ZERO).unwrap();
        let rec: serde_json::Value = serde_json::from_slice(&fs::read(&lock).unwrap()).unwrap();
        assert_eq!(rec["pid"], std::process::id());
        assert_eq!(rec["host"], host_name());
        assert!(rec["started"].is_u64());
        let t = Instant::now();
        let err = acquire(
            p.path(),
            "state.json",
            LockKind::Owner,
            Duration::from_millis(200),
        )
        .unwrap_err();
        assert!(t.elapsed() >= Duration::from_millis(200));
        assert_eq!(err.exit_code(), 3);
        let msg = err.to_string();
        assert!(
            msg.contains(&format!("pid {}", std::process::id())),
            "{msg}"
        );
        assert!(msg.contains(&host_name()), "{msg}");
    }
    assert!(!lock.exists());
    assert_eq!(super::super::list_names(p.path()), vec!["state.json"]);
}

#[test]
fn owner_lock_of_a_dead_or_reborn_process_or_other_boot_is_broken() {
    let p = project();
    let lock = p.path().join("state.json.loopdeck-lock");
    let me = std::process::id();
    let cases = [
        serde_json::json!({"pid": dead_pid(), "host": host_name(), "boot_id": boot_id(), "started": 1}),
        serde_json::json!({"pid": me, "host": host_name(), "boot_id": boot_id(), "started": start_ticks(me).unwrap() + 1}),
        serde_json::json!({"pid": me, "host": host_name(), "boot_id": "another-boot", "started": start_ticks(me)}),
    ];
    for rec in cases {
        fs::write(&lock, rec.to_string()).unwrap();
        let g = acquire(p.path(), "state.json", LockKind::Owner, Duration::ZERO)
            .unwrap_or_else(|e| panic!("{rec}: {e}"));
        drop(g);
        assert_eq!(super::super::list_names(p.path()), vec!["state.json"]);
    }
    // Another host's lock is never judged from here.
    fs::write(
        &lock,
        serde_json::json!({"pid": dead_pid(), "host": "elsewhere", "boot_id": "x"}).to_string(),
    )
    .unwrap();
    let err = acquire(p.path(), "state.json", LockKind::Owner, Duration::ZERO).unwrap_err();
    assert!(err.to_string().contains("on host elsewhere"), "{err}");
    // Garbage is a lock being written for a second, then stale.
    fs::write(&lock, "").unwrap();
    assert!(acquire(p.path(), "state.json", LockKind::Owner, Duration::ZERO).is_err());
    set_age(&lock, Duration::from_secs(5));
    assert!(acquire(p.path(), "state.json", LockKind::Owner, Duration::ZERO).is_ok());
}

#[test]
fn owner_lock_waits_for_a_live_holder_that_lets_go() {
    let p = project();
    let g = acquire(p.path(), "state.json", LockKind::Owner, Duration::ZERO).unwrap();
    let release = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        drop(g);
    });
    let t = Instant::now();
    acquire(
        p.path(),
        "state.json",
        LockKind::Owner,
        Duration::from_secs(5),
    )
    .unwrap();
    assert!(t.elapsed() >= Duration::from_millis(90));
    release.join().unwrap();
}

#[test]
fn pid_file_follows_gsd_tools() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join(".planning")).unwrap();
    let primary = ".planning/STATE.md";
    let lock = dir.path().join(".planning/STATE.md.lock");
    {
        let _g = acquire(dir.path(), primary, LockKind::PidFile, Duration::ZERO).unwrap();
        assert_eq!(
            fs::read_to_string(&lock).unwrap(),
            std::process::id().to_string()
        );
        let err = acquire(dir.path(), primary, LockKind::PidFile, Duration::ZERO).unwrap_err();
        assert!(matches!(err, ActError::Locked(_)));
        assert!(err.to_string().contains(".planning/STATE.md.lock"), "{err}");
    }
    assert!(!lock.exists());
    // A dead pid is stale at once, whatever its age.
    fs::write(&lock, dead_pid().to_string()).unwrap();
    drop(acquire(dir.path(), primary, LockKind::PidFile, Duration::ZERO).unwrap());
    // A live pid is waited for, until the deadman ceiling.
    fs::write(&lock, std::process::id().to_string()).unwrap();
    set_age(&lock, Duration::from_secs(30));
    assert!(acquire(dir.path(), primary, LockKind::PidFile, Duration::ZERO).is_err());
    set_age(&lock, Duration::from_secs(61));
    drop(acquire(dir.path(), primary, LockKind::PidFile, Duration::ZERO).unwrap());
    // An empty body: being created for a second, then an orphan.
    fs::write(&lock, "").unwrap();
    assert!(acquire(dir.path(), primary, LockKind::PidFile, Duration::ZERO).is_err());
    set_age(&lock, Duration::from_secs(2));
    drop(acquire(dir.path(), primary, LockKind::PidFile, Duration::ZERO).unwrap());
    assert_eq!(
        super::super::list_names(&dir.path().join(".planning")),
        Vec::<String>::new()
    );
}

#[test]
fn dir_lock_stops_at_once_and_only_unlock_removes_it() {
    let p = project();
    assert_eq!(dir_lock_age(p.path(), "state.json"), None);
    let g = acquire(
        p.path(),
        "state.json",
        LockKind::MkdirDir,
        Duration::from_secs(5),
    )
    .unwrap();
    assert!(p.path().join("state.json.lock").is_dir());
    let t = Instant::now();
    let err = acquire(
        p.path(),
        "state.json",
        LockKind::MkdirDir,
        Duration::from_secs(5),
    )
    .unwrap_err();
    assert!(t.elapsed() < Duration::from_secs(1), "no wait");
    assert_eq!(err.to_string(), DIR_LOCKED);
    assert_eq!(err.exit_code(), 3);
    drop(g);
    assert!(!p.path().join("state.json.lock").exists());

    fs::create_dir(p.path().join("state.json.lock")).unwrap();
    assert!(dir_lock_age(p.path(), "state.json").is_some());
    remove_dir_lock(p.path(), "state.json").unwrap();
    assert_eq!(dir_lock_age(p.path(), "state.json"), None);
    assert!(remove_dir_lock(p.path(), "state.json").is_err());
}

#[test]
fn only_one_of_two_breakers_wins() {
    let p = project();
    let lock = p.path().join("state.json.loopdeck-lock");
    fs::write(
        &lock,
        serde_json::json!({"pid": dead_pid(), "host": host_name()}).to_string(),
    )
    .unwrap();
    let dir = p.path().to_path_buf();
    let take = move || {
        acquire(&dir, "state.json", LockKind::Owner, Duration::ZERO).map(|g| {
            std::thread::sleep(Duration::from_millis(50));
            drop(g);
        })
    };
    let a = std::thread::spawn(take.clone());
    let b = std::thread::spawn(take);
    let won = [a.join().unwrap(), b.join().unwrap()]
        .iter()
        .filter(|r| r.is_ok())
        .count();
    assert_eq!(won, 1);
}

#[test]
fn a_breaker_breaks_only_the_lock_it_judged() {
    let p = project();
    let lock = p.path().join("state.json.loopdeck-lock");
    fs::write(&lock, "live holder").unwrap();
    let (_, _, now) = inspect(&lock).lock().unwrap();
    // Same inode, another body: a new holder on a reused inode.
    let judged = Seen {
        id: now.id,
        body: b"dead holder".to_vec(),
    };
    assert_eq!(break_lock(&lock, &judged), Break::Done);
    assert_eq!(fs::read(&lock).unwrap(), b"live holder");
    assert_eq!(break_lock(&lock, &now), Break::Done);
    assert!(!lock.exists());
    // A breaker killed during its turn does not stop the next one.
    fs::write(&lock, "stale").unwrap();
    let turn = p.path().join("state.json.loopdeck-lock.break");
    fs::write(&turn, dead_pid().to_string()).unwrap();
    let (_, _, seen) = inspect(&lock).lock().unwrap();
    assert_eq!(
        break_lock(&lock, &seen),
        Break::Busy,
        "the dead breaker's turn is cleared first"
    );
    assert!(!turn.exists());
    assert_eq!(break_lock(&lock, &seen), Break::Done);
    assert_eq!(super::super::list_names(p.path()), vec!["state.json"]);
}

/// Whatever sits at a lock path and is no lock file (a directory, a link,
/// a FIFO) is held: waited for up to the deadline, then `Locked`, never a
/// spin that takes it for gone.
#[cfg(unix)]
#[test]
fn a_lock_path_that_is_no_lock_file_is_held_until_the_deadline() {
    use std::os::unix::fs::symlink;
    type Make = fn(&Path);
    let makers: [(&str, Make); 4] = [
        ("directory", |p| fs::create_dir(p).unwrap()),
        ("link", |p| symlink("elsewhere", p).unwrap()),
        ("link to a directory", |p| {
            fs::create_dir(p.with_extension("real")).unwrap();
            symlink(p.with_extension("real"), p).unwrap();
        }),
        ("fifo", |p| {
            use rustix::fs::{CWD, FileType, Mode, mknodat};
            mknodat(CWD, p, FileType::Fifo, Mode::from_raw_mode(0o644), 0).unwrap();
        }),
    ];
    for (what, make) in makers {
        for kind in [LockKind::PidFile, LockKind::Owner] {
            let p = project();
            make(&p.path().join(lock_name("state.json", kind)));
            let t = Instant::now();
            let err = acquire(p.path(), "state.json", kind, Duration::from_millis(100))
                .map(drop)
                .expect_err(what);
            assert!(t.elapsed() >= Duration::from_millis(100), "{what}");
            assert_eq!(err.exit_code(), 3, "{what}: {err}");
            let msg = err.to_string();
            assert!(
                msg.contains("is not a lock file loopdeck or GSD writes")
                    && msg.contains("inspect it"),
                "{what}: {msg}"
            );
        }
    }
}

/// A container restarted under a new host name shares the boot id and the
/// pid namespace: its dead writer's lock is judged by pid. Without the
/// namespace (an older lock) another host name is still never judged.
#[test]
fn owner_lock_of_a_restarted_container_is_judged_by_pid() {
    let p = project();
    let lock = p.path().join("state.json.loopdeck-lock");
    let ns = pid_namespace().unwrap();
    let me = std::process::id();
    fs::write(
        &lock,
        serde_json::json!({"pid": dead_pid(), "host": "old-container-name", "boot_id": boot_id(), "pid_ns": ns}).to_string(),
    )
    .unwrap();
    drop(acquire(p.path(), "state.json", LockKind::Owner, Duration::ZERO).unwrap());
    // A live writer there is waited for.
    fs::write(
        &lock,
        serde_json::json!({"pid": me, "host": "old-container-name", "boot_id": boot_id(), "started": start_ticks(me), "pid_ns": ns}).to_string(),
    )
    .unwrap();
    let err = acquire(p.path(), "state.json", LockKind::Owner, Duration::ZERO).unwrap_err();
    assert!(err.to_string().contains("old-container-name"), "{err}");
    // Old lock (no pid_ns), or another pid namespace: never judged by pid.
    for rec in [
        serde_json::json!({"pid": dead_pid(), "host": "old-container-name", "boot_id": boot_id()}),
        serde_json::json!({"pid": dead_pid(), "host": "old-container-name", "boot_id": boot_id(), "pid_ns": "pid:[1]"}),
        serde_json::json!({"pid": dead_pid(), "host": host_name(), "boot_id": boot_id(), "pid_ns": "pid:[1]"}),
    ] {
        fs::write(&lock, rec.to_string()).unwrap();
        assert!(
            acquire(p.path(), "state.json", LockKind::Owner, Duration::ZERO).is_err(),
            "{rec}"
        );
    }
    // The lock loopdeck writes records its namespace.
    fs::remove_file(&lock).unwrap();
    let _g = acquire(p.path(), "state.json", LockKind::Owner, Duration::ZERO).unwrap();
    let rec: serde_json::Value = serde_json::from_slice(&fs::read(&lock).unwrap()).unwrap();
    assert_eq!(rec["pid_ns"], ns);
}

fn set_mtime(path: &Path, when: SystemTime) {
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(when)
        .unwrap();
}

/// A lock whose body cannot be parsed is "being created" only while its
/// mtime is a moment old: with a future mtime (or a very old one) it is
/// stale and broken, for both kinds; while fresh, the refusal names the
/// file, its body and its mtime.
#[test]
fn a_garbage_lock_dated_in_the_future_is_not_being_created() {
    let hour = Duration::from_secs(3600);
    for kind in [LockKind::PidFile, LockKind::Owner] {
        let p = project();
        let name = lock_name("state.json", kind);
        let lock = p.path().join(&name);
        for (when, what) in [
            (SystemTime::now() + hour, "an hour ahead"),
            (
                SystemTime::now() + 400 * 86_400 * Duration::from_secs(1),
                "a year ahead",
            ),
            (SystemTime::UNIX_EPOCH + Duration::from_secs(1), "1970"),
        ] {
            fs::write(&lock, "\u{0}garbage").unwrap();
            set_mtime(&lock, when);
            let g = acquire(p.path(), "state.json", kind, Duration::ZERO)
                .unwrap_or_else(|e| panic!("{kind:?}, {what}: {e}"));
            drop(g);
            assert_eq!(super::super::list_names(p.path()), vec!["state.json"]);
        }
        // Fresh garbage is a writer creating it: said with the file, what
        // its body is and when it was modified.
        fs::write(&lock, "").unwrap();
        let err = acquire(p.path(), "state.json", kind, Duration::ZERO).unwrap_err();
        assert_eq!(err.exit_code(), 3);
        let msg = err.to_string();
        assert!(
            msg.starts_with(&format!(
                "{name} is held by a writer creating it (an empty body, modified "
            )) && msg.contains(" s ago"),
            "{kind:?}: {msg}"
        );
        // A mtime a moment ahead (another machine's clock) is still fresh.
        set_mtime(&lock, SystemTime::now() + Duration::from_millis(500));
        let msg = acquire(p.path(), "state.json", kind, Duration::ZERO)
            .unwrap_err()
            .to_string();
        assert!(msg.contains("in the future"), "{kind:?}: {msg}");
    }
}

/// A breakers' turn file that is a directory can never be taken: the
/// write stops at once (not after the wait), exit 3, naming the path and
/// why the lock is stale.
#[cfg(unix)]
#[test]
fn a_break_turn_that_is_a_directory_stops_at_once_naming_it() {
    for kind in [LockKind::PidFile, LockKind::Owner] {
        let p = project();
        let name = lock_name("state.json", kind);
        let lock = p.path().join(&name);
        match kind {
            LockKind::Owner => fs::write(
                &lock,
                serde_json::json!({"pid": dead_pid(), "host": host_name()}).to_string(),
            )
            .unwrap(),
            _ => fs::write(&lock, dead_pid().to_string()).unwrap(),
        }
        let turn = p.path().join(format!("{name}.break"));
        fs::create_dir(&turn).unwrap();
        // A wait this long would be used up by a loop; the refusal comes
        // back without it.
        let err = acquire(p.path(), "state.json", kind, Duration::from_secs(60))
            .map(drop)
            .unwrap_err();
        assert_eq!(err.exit_code(), 3);
        let msg = err.to_string();
        assert!(
            msg.contains(&format!("{name}.break is not a lock file"))
                && msg.contains("(a directory)")
                && msg.contains(" is not running) but cannot be broken")
                && !msg.contains("waited"),
            "{kind:?}: {msg}"
        );
        assert!(lock.exists() && turn.is_dir(), "nothing removed");
    }
}

/// A lock's age as the messages say it: seconds below two minutes, hours
/// below two days, days after, each boundary on its side. Kills the
/// mutants of `Age`'s `Display` (`<` → `<=`/`==`/`>`, `2.0 * 86_400.0`,
/// `s / 3600.0`, `s / 86_400.0`).
#[test]
fn a_lock_age_is_said_in_seconds_hours_or_days() {
    let s = Duration::from_secs;
    let say = |age: Age| age.to_string();
    assert_eq!(say(Age::Past(s(3))), "modified 3.0 s ago");
    assert_eq!(
        say(Age::Past(Duration::from_millis(119_900))),
        "modified 119.9 s ago"
    );
    assert_eq!(say(Age::Past(s(120))), "modified 0.0 h ago");
    assert_eq!(say(Age::Past(s(5400))), "modified 1.5 h ago");
    assert_eq!(say(Age::Past(s(172_799))), "modified 48.0 h ago");
    assert_eq!(say(Age::Past(s(172_800))), "modified 2 days ago");
    assert_eq!(say(Age::Past(s(10 * 86_400))), "modified 10 days ago");
    assert_eq!(say(Age::Future(s(7200))), "modified 2.0 h in the future");
}

/// A lock a writer may be creating is one at most a second old, or at
/// most the clock skew in the future; a future mtime counts as now. Kills
/// `just_made`'s `<=` → `<`/`>` and `ago` → `Duration::ZERO`/its arms.
#[test]
fn a_lock_is_just_made_within_a_second_or_the_clock_skew() {
    let tick = Duration::from_nanos(1);
    assert!(Age::Past(FRESH_CREATE_FLOOR).just_made());
    assert!(Age::Past(Duration::ZERO).just_made());
    assert!(!Age::Past(FRESH_CREATE_FLOOR + tick).just_made());
    assert!(Age::Future(CLOCK_SKEW).just_made());
    assert!(!Age::Future(CLOCK_SKEW + tick).just_made());
    assert_eq!(
        Age::Past(Duration::from_secs(7)).ago(),
        Duration::from_secs(7)
    );
    assert_eq!(Age::Future(Duration::from_secs(7)).ago(), Duration::ZERO);
}

/// A breaker's turn is cleared when its pid is dead or it is more than
/// five seconds old (or more than the clock skew in the future), and kept
/// while a live breaker may be at it. Kills the mutants of
/// `clear_dead_turn` (`>` → `<`, `||` → `&&`, `delete !`, the body → `()`).
#[test]
fn a_dead_or_old_breakers_turn_is_cleared_a_live_ones_kept() {
    let p = project();
    let turn = p.path().join("state.json.loopdeck-lock.break");
    let me = std::process::id().to_string();
    let cases = [
        (me.as_str(), Some(Duration::from_secs(1)), true),
        (me.as_str(), Some(Duration::from_secs(60)), false),
        ("garbage", Some(Duration::from_secs(1)), true),
        ("garbage", Some(Duration::from_secs(60)), false),
    ];
    for (body, age, kept) in cases {
        fs::write(&turn, body).unwrap();
        if let Some(age) = age {
            set_age(&turn, age);
        }
        clear_dead_turn(&turn);
        assert_eq!(turn.exists(), kept, "{body} {age:?}");
    }
    let dead = dead_pid().to_string();
    fs::write(&turn, &dead).unwrap();
    clear_dead_turn(&turn);
    assert!(!turn.exists(), "a dead pid's turn is cleared at once");
    for (ahead, kept) in [
        (Duration::from_secs(1), true),
        (Duration::from_secs(30), false),
    ] {
        fs::write(&turn, &me).unwrap();
        set_mtime(&turn, SystemTime::now() + ahead);
        clear_dead_turn(&turn);
        assert_eq!(turn.exists(), kept, "{ahead:?} in the future");
    }
}

/// Releasing a lock removes only the file this guard created: one that
/// took its place (a breaker's, another writer's) stays. Kills `meta_id`
/// → a constant (every file would look like ours) and `file_id`'s
/// mutants, for both file kinds.
#[test]
fn release_removes_only_the_lock_it_made() {
    for kind in [LockKind::Owner, LockKind::PidFile] {
        let p = project();
        let g = acquire(p.path(), "state.json", kind, Duration::ZERO).unwrap();
        let path = g.path().to_path_buf();
        let theirs = p.path().join("theirs");
        fs::write(&theirs, "1").unwrap();
        fs::rename(&theirs, &path).unwrap();
        drop(g);
        assert_eq!(fs::read(&path).unwrap(), b"1", "{kind:?}: theirs stays");
        fs::remove_file(&path).unwrap();
        let g = acquire(p.path(), "state.json", kind, Duration::ZERO).unwrap();
        drop(g);
        assert!(!path.exists(), "{kind:?}: ours is removed");
    }
}
