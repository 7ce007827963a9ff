//! `[notify] command`: a program the user names, run for each item that
//! starts waiting or escalates, with the item as one line of JSON on its
//! standard input (`app::escalate::payload`). This is how a question
//! reaches a phone (ntfy, a Slack webhook through curl).
//!
//! Rules:
//! - Never through a shell: the config's words are the program and its
//!   arguments (`sh -c '…'` where the user wants one), and nothing from a
//!   project's files is ever part of the command line.
//! - One at a time, on a thread of its own, never on the console's: a
//!   queue of [`QUEUE`] items waits; past that, items are dropped and
//!   said so.
//! - Each run has a time limit; past it the command and every process it
//!   started (its process group) are killed. Its output is discarded.
//! - A failure (it cannot start, exits non-zero, is killed at the limit,
//!   the queue is full) is reported once, when it first happens or its
//!   reason changes, and the end of it when the command runs well again:
//!   the console says it in the header, never once per item.

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, SyncSender, TrySendError};
use std::thread;
use std::time::Duration;

use wait_timeout::ChildExt;

/// The most items waiting for the command.
pub const QUEUE: usize = 64;

/// The command's thread, fed through a bounded queue.
pub struct Hook {
    tx: SyncSender<String>,
    report: Reporter,
}

/// Tells the console when the command starts or stops failing.
type Reporter = std::sync::Arc<dyn Fn(Option<String>) + Send + Sync>;

impl Hook {
    /// Start the thread that runs `argv` (not empty) with `timeout`;
    /// `report` hears of failures as the module says.
    pub fn start(
        argv: Vec<String>,
        timeout: Duration,
        report: impl Fn(Option<String>) + Send + Sync + 'static,
    ) -> Option<Hook> {
        let report: Reporter = std::sync::Arc::new(report);
        let (tx, rx) = mpsc::sync_channel::<String>(QUEUE);
        let said = report.clone();
        thread::Builder::new()
            .name("loopdeck-notify".to_owned())
            .spawn(move || {
                let mut last: Option<String> = None;
                for payload in rx {
                    let now = run(&argv, timeout, &payload).err();
                    if now != last {
                        said(now.clone());
                        last = now;
                    }
                }
            })
            .ok()?;
        Some(Hook { tx, report })
    }

    /// Hand `payload` to the command (dropped, and said, when the queue
    /// is full).
    pub fn run(&self, payload: String) {
        if let Err(TrySendError::Full(_)) = self.tx.try_send(payload) {
            (self.report)(Some(crate::t!("runtime.hook.full", n = QUEUE)));
        }
    }
}

/// Run `argv` once with `payload` on stdin; why it failed.
pub fn run(argv: &[String], timeout: Duration, payload: &str) -> Result<(), String> {
    let Some((program, args)) = argv.split_first() else {
        return Err(crate::t!("runtime.config.empty_command").to_owned());
    };
    let mut cmd = Command::new(program);
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // Its own process group: a timeout kills what it started too.
        cmd.process_group(0);
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| crate::t!("runtime.hook.spawn", program = program, why = e))?;
    // Written on a thread: a command that does not read its input must
    // not hold this one past the limit (a pipe holds 64 KiB).
    let writer = child.stdin.take().map(|mut stdin| {
        let line = format!("{payload}\n");
        thread::spawn(move || {
            let _ = stdin.write_all(line.as_bytes());
        })
    });
    let status = child.wait_timeout(timeout);
    let result = match status {
        Ok(Some(s)) if s.success() => Ok(()),
        Ok(Some(s)) => Err(crate::t!(
            "runtime.hook.failed",
            program = program,
            status = s
        )),
        Ok(None) => {
            kill(&mut child);
            Err(crate::t!(
                "runtime.hook.timeout",
                program = program,
                secs = timeout.as_secs()
            ))
        }
        Err(e) => {
            kill(&mut child);
            Err(crate::t!("runtime.hook.spawn", program = program, why = e))
        }
    };
    if let Some(w) = writer {
        let _ = w.join();
    }
    result
}

/// Kill the command and its process group, and reap it.
fn kill(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        let pid = rustix::process::Pid::from_child(child);
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use std::time::Instant;

    fn sh(script: &str) -> Vec<String> {
        vec!["sh".into(), "-c".into(), script.into()]
    }

    /// The payload arrives whole on stdin, one line; the words are not a
    /// shell's (a `$` or `;` in an argument stays as written).
    #[test]
    fn the_command_reads_the_payload_and_its_words_are_its_own() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("got");
        let argv = sh(&format!(
            "cat > '{}'; printf '%s' \"$0\" >> '{}'",
            out.display(),
            out.display()
        ));
        run(
            &argv,
            Duration::from_secs(10),
            r#"{"a":"$(touch pwned); x"}"#,
        )
        .unwrap();
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            "{\"a\":\"$(touch pwned); x\"}\nsh"
        );
        assert!(!tmp.path().join("pwned").exists());
        let argv = vec![
            "touch".to_owned(),
            tmp.path().join("a; touch b").display().to_string(),
        ];
        run(&argv, Duration::from_secs(10), "{}").unwrap();
        assert!(tmp.path().join("a; touch b").exists());
        assert!(!tmp.path().join("b").exists());
    }

    /// A command that cannot start, fails or outlives its limit says so;
    /// at the limit its whole process group is killed.
    #[test]
    fn failures_say_what_happened_and_a_timeout_kills_the_group() {
        let e = run(&["/nonexistent/ntfy".into()], Duration::from_secs(5), "{}").unwrap_err();
        assert!(
            e.starts_with("the notify command /nonexistent/ntfy could not run"),
            "{e}"
        );
        let e = run(&sh("exit 3"), Duration::from_secs(5), "{}").unwrap_err();
        assert_eq!(e, "the notify command sh failed: exit status: 3");
        let tmp = tempfile::tempdir().unwrap();
        let late = tmp.path().join("late");
        // A grandchild that would write after the limit.
        let argv = sh(&format!("(sleep 2; touch '{}') & sleep 30", late.display()));
        let started = Instant::now();
        let e = run(&argv, Duration::from_secs(1), "{}").unwrap_err();
        assert_eq!(
            e,
            "the notify command sh took longer than 1 s and was stopped"
        );
        assert!(started.elapsed() < Duration::from_secs(10));
        std::thread::sleep(Duration::from_millis(2500));
        assert!(!late.exists(), "the group was killed with it");
        // One that never reads its input is not waited on past the limit.
        let e = run(
            &sh("sleep 30"),
            Duration::from_secs(1),
            &"x".repeat(1 << 20),
        )
        .unwrap_err();
        assert!(e.contains("took longer than 1 s"), "{e}");
    }

    /// Failures are reported when they start or change, and their end
    /// once; a full queue is said.
    #[test]
    fn failures_are_reported_once_and_their_end_too() {
        let tmp = tempfile::tempdir().unwrap();
        let flag = tmp.path().join("fail");
        std::fs::write(&flag, "").unwrap();
        let argv = sh(&format!("cat >/dev/null; test ! -e '{}'", flag.display()));
        let (tx, rx) = mpsc::channel();
        let hook = Hook::start(argv, Duration::from_secs(5), move |f| {
            let _ = tx.send(f);
        })
        .unwrap();
        for _ in 0..3 {
            hook.run("{}".into());
        }
        let first = rx.recv_timeout(Duration::from_secs(10)).unwrap();
        assert!(first.unwrap().contains("failed: exit status: 1"));
        std::thread::sleep(Duration::from_millis(500));
        std::fs::remove_file(&flag).unwrap();
        hook.run("{}".into());
        assert_eq!(rx.recv_timeout(Duration::from_secs(10)).unwrap(), None);
        assert!(
            rx.recv_timeout(Duration::from_millis(300)).is_err(),
            "said once"
        );
    }
}
