//! The config file is a regular file of bounded size. A FIFO (named pipe)
//! or a device such as `/dev/urandom` given as `--config`, or found at the
//! default path, is refused at once as a usage error (exit 2) naming the
//! file and what it is: it never hangs a command (a FIFO with no writer)
//! nor reads until memory runs out (a device that never ends).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn mkfifo(p: &Path) {
    let c = CString::new(p.as_os_str().as_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
}

/// A fail-safe, not a measure: a command that hangs is killed after this
/// long and the test fails saying so.
const HUNG: Duration = Duration::from_secs(60);

/// `loopdeck ARGS` with its address space capped at 2 GiB (a read that
/// never ends fails there instead of taking the machine's memory), killed
/// if it has not ended after [`HUNG`].
fn run(args: &[&std::ffi::OsStr], config_home: &Path) -> Output {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("loopdeck"));
    cmd.args(args)
        .env("NO_COLOR", "1")
        .env("LC_ALL", "C.UTF-8")
        .env("XDG_CONFIG_HOME", config_home)
        .env("HOME", config_home)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe; nothing else runs in the child.
    unsafe {
        cmd.pre_exec(|| {
            let cap = libc::rlimit {
                rlim_cur: 2 << 30,
                rlim_max: 2 << 30,
            };
            libc::setrlimit(libc::RLIMIT_AS, &cap);
            Ok(())
        });
    }
    let mut child: Child = cmd.spawn().unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > HUNG {
            child.kill().unwrap();
            let _ = child.wait();
            panic!("loopdeck {args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

fn refused(out: &Output, file: &Path, what: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(
        err.contains(&file.display().to_string()),
        "names the file: {err}"
    );
    assert!(err.contains(what), "says what it is ({what}): {err}");
    assert!(err.contains("regular file"), "says what it must be: {err}");
    assert!(out.stdout.is_empty(), "nothing listed");
}

#[test]
fn a_fifo_as_config_is_refused_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("config.toml");
    mkfifo(&fifo);
    let root = tmp.path().join("root");
    std::fs::create_dir(&root).unwrap();
    let out = run(
        &[
            "--config".as_ref(),
            fifo.as_os_str(),
            "list".as_ref(),
            root.as_os_str(),
        ],
        &tmp.path().join("nowhere"),
    );
    refused(&out, &fifo, "FIFO");
}

#[test]
fn a_fifo_at_the_default_path_is_refused_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("config");
    std::fs::create_dir_all(home.join("loopdeck")).unwrap();
    let fifo = home.join("loopdeck/config.toml");
    mkfifo(&fifo);
    let root = tmp.path().join("root");
    std::fs::create_dir(&root).unwrap();
    let out = run(&["list".as_ref(), root.as_os_str()], &home);
    refused(&out, &fifo, "FIFO");
}

#[test]
fn a_device_that_never_ends_is_refused_without_reading_it() {
    let urandom = Path::new("/dev/urandom");
    if !urandom.exists() {
        eprintln!("skipped: no /dev/urandom");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    std::fs::create_dir(&root).unwrap();
    let out = run(
        &[
            "--config".as_ref(),
            urandom.as_os_str(),
            "list".as_ref(),
            root.as_os_str(),
        ],
        &tmp.path().join("nowhere"),
    );
    refused(&out, urandom, "character device");
    // The default path too.
    let home = tmp.path().join("config");
    std::fs::create_dir_all(home.join("loopdeck")).unwrap();
    std::os::unix::fs::symlink(urandom, home.join("loopdeck/config.toml")).unwrap();
    let out = run(&["list".as_ref(), root.as_os_str()], &home);
    refused(&out, &home.join("loopdeck/config.toml"), "character device");
}

#[test]
fn a_config_over_the_bound_is_refused_with_its_size() {
    let tmp = tempfile::tempdir().unwrap();
    let big = tmp.path().join("big.toml");
    // Valid TOML, all comments: only its size is wrong.
    std::fs::write(&big, "# padding\n".repeat(120 * 1024)).unwrap();
    let root = tmp.path().join("root");
    std::fs::create_dir(&root).unwrap();
    let out = run(
        &[
            "--config".as_ref(),
            big.as_os_str(),
            "list".as_ref(),
            root.as_os_str(),
        ],
        &tmp.path().join("nowhere"),
    );
    refused(&out, &big, &format!("{} bytes", 120 * 1024 * 10));
    // A config of ordinary size still reads.
    std::fs::write(&big, "# padding\n".repeat(1000)).unwrap();
    let out = run(
        &[
            "--config".as_ref(),
            big.as_os_str(),
            "list".as_ref(),
            root.as_os_str(),
        ],
        &tmp.path().join("nowhere"),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
