//! Decisions on another machine's project: the console runs that
//! machine's loopdeck over the user's `ssh` (`loopdeck call`), writes one
//! JSON [`Call`](crate::decide::remote::Call) on its stdin and reads one
//! JSON [`Answer`](crate::decide::remote::Answer) on its stdout.
//!
//! User text (an answer, a reason) never goes on the remote command line:
//! ssh joins its arguments into one string that the remote shell parses
//! again. The command line is the fixed `loopdeck call`; everything else
//! is JSON on stdin, which no shell reads.
//!
//! The remote decides with the code `loopdeck act` and `loopdeck undo`
//! run, and exits as they do (0 done, 1 refused, 2 a bad call, 3 changed
//! on disk or locked, 4 written in part). The answer carries what the
//! console's confirm dialog needs (a dry run's diffs and what it read),
//! what its conflict handling needs
//! ([`Why::Changed`](crate::decide::remote::Why::Changed)) and the audit id
//! an undo takes.
//!
//! ```json
//! {"version":1,"op":{"act":{"path":"/srv/p","format":"prd-master",
//!   "verb":{"verb":"answer","id":"OQ-7","text":"yes"},
//!   "expect":[["state.json","9f86d0…"]]}},
//!  "dry_run":true,"by":"alice","now":null}
//! {"version":1,"answer":"done","files":[{"file":"state.json","diff":"--- …"}],
//!  "said":[],"audit_id":null,"read":[["state.json","9f86d0…"]]}
//! {"version":1,"answer":"failed","why":"changed","message":"state.json changed …"}
//! ```

use std::io::{self, Read, Write};
use std::process::{Command, Stdio};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{ActError, Outcome};
use crate::fleet::HostSpec;
use crate::fleet::ssh::{self, Arg};
use crate::model::text::sanitize_line;
use crate::model::{Format, Verb};

/// The version of the protocol; each side refuses any other.
pub const VERSION: u32 = 1;

/// The largest call the remote reads, in bytes: far more than any
/// decision's text (an answer is at most 10,000 characters).
pub const MAX_CALL: usize = 1024 * 1024;

/// The largest answer the console reads, in bytes: a dry run's diffs of
/// the largest files a decision reads, several times over.
pub const MAX_ANSWER: usize = 256 * 1024 * 1024;

/// How much of ssh's stderr is kept for the message (its tail).
const STDERR_KEPT: usize = 64 * 1024;

/// One decision asked of another machine's loopdeck.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Call {
    /// [`VERSION`].
    pub version: u32,
    /// What to do.
    pub op: Op,
    /// Compute and show, write nothing.
    #[serde(default)]
    pub dry_run: bool,
    /// Who decides, under the rule `--by` follows (one line).
    pub by: String,
    /// "Now" for every timestamp written; `None`: the remote's clock.
    #[serde(default)]
    pub now: Option<DateTime<Utc>>,
}

/// What a [`Call`] asks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// `loopdeck act`: `verb` on the project at `path` (a workspace for
    /// `new-project`).
    Act {
        /// The project's directory, as a path on that machine.
        path: String,
        /// The project's format, as the feed said it.
        #[serde(with = "format_name")]
        format: Format,
        /// The decision.
        verb: Verb,
        /// (file, sha256) of the files as the console showed them (a dry
        /// run's `read` in [`Answer::Done`]): every one the decision reads
        /// must still hold those bytes, else [`Why::Changed`].
        #[serde(default)]
        expect: Vec<(String, String)>,
    },
    /// `loopdeck undo ID`: take back (or, an undo's id, redo) a decision
    /// made there.
    Undo {
        /// The audit id the decision's answer gave.
        id: String,
    },
}

/// What the remote answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
pub enum Answer {
    /// Done (or, dry, what would be done).
    Done {
        /// Each file changed, with its unified diff, in order.
        files: Vec<FileDiff>,
        /// What the format said beyond the diff (a migration), one
        /// sentence each.
        #[serde(default)]
        said: Vec<String>,
        /// The audit id of the decision (`None`: a dry run, or a
        /// decision the audit log does not keep).
        #[serde(default)]
        audit_id: Option<String>,
        /// A dry run: (file, sha256) of every file the decision read, as
        /// it read them. Sent back as [`Op::Act`]'s `expect`, the write
        /// makes exactly the change previewed, or nothing.
        #[serde(default)]
        read: Vec<(String, String)>,
        /// Interrupted decisions settled there before this one, one
        /// sentence each.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        recovered: Vec<String>,
    },
    /// Nothing written (or, [`Why::Partial`], not all of it), and why.
    Failed {
        /// What happened, as the console titles it.
        why: Why,
        /// The sentence to show.
        message: String,
    },
}

/// One file of a decision: its name and the unified diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDiff {
    /// Its path, relative to the project.
    pub file: String,
    /// The unified diff of the change.
    pub diff: String,
}

/// Why a decision wrote nothing (or not all of it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Why {
    /// The rules refused, the write failed, or the host could not be
    /// reached: nothing to read again.
    Refused,
    /// A file changed on disk since it was shown.
    Changed,
    /// Another writer holds the file's lock.
    Locked,
    /// Something was written and is not settled (`loopdeck recover`
    /// there settles it): never retried.
    Partial,
}

/// Why a call or an answer is not one this loopdeck reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// Larger than the limit.
    #[error("the {what} is larger than {limit} bytes")]
    TooLarge {
        /// `call` or `answer`.
        what: &'static str,
        /// The limit, in bytes.
        limit: usize,
    },
    /// Not JSON, or not the shape of a call or an answer.
    #[error("the {what} is not valid: {reason}")]
    Invalid {
        /// `call` or `answer`.
        what: &'static str,
        /// What serde said.
        reason: String,
    },
    /// Another version of the protocol.
    #[error(
        "the {what} is version {got} of the protocol, this loopdeck speaks version {VERSION}: install the same loopdeck version on both machines"
    )]
    Version {
        /// `call` or `answer`.
        what: &'static str,
        /// The version it said (0: none).
        got: u64,
    },
}

impl Call {
    /// A call of this version.
    pub fn new(op: Op, dry_run: bool, by: impl Into<String>, now: Option<DateTime<Utc>>) -> Self {
        Call {
            version: VERSION,
            op,
            dry_run,
            by: by.into(),
            now,
        }
    }

    /// The call as one line of JSON.
    pub fn to_json(&self) -> String {
        // A call holds only strings, numbers and booleans: it always
        // serializes.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The call `bytes` hold, checked: at most [`MAX_CALL`] bytes, JSON,
    /// [`VERSION`].
    pub fn from_json(bytes: &[u8]) -> Result<Call, WireError> {
        let value = versioned("call", bytes, MAX_CALL)?;
        serde_json::from_value(value).map_err(|e| WireError::Invalid {
            what: "call",
            reason: e.to_string(),
        })
    }
}

impl Answer {
    /// The answer as one line of JSON, with the protocol's version.
    pub fn to_json(&self) -> String {
        #[derive(Serialize)]
        struct Versioned<'a> {
            version: u32,
            #[serde(flatten)]
            answer: &'a Answer,
        }
        serde_json::to_string(&Versioned {
            version: VERSION,
            answer: self,
        })
        .unwrap_or_default()
    }

    /// The answer `bytes` hold, checked: at most [`MAX_ANSWER`] bytes,
    /// JSON, [`VERSION`].
    pub fn from_json(bytes: &[u8]) -> Result<Answer, WireError> {
        let value = versioned("answer", bytes, MAX_ANSWER)?;
        serde_json::from_value(value).map_err(|e| WireError::Invalid {
            what: "answer",
            reason: e.to_string(),
        })
    }

    /// Failed, refused, with `message`.
    pub fn refused(message: impl Into<String>) -> Answer {
        Answer::Failed {
            why: Why::Refused,
            message: message.into(),
        }
    }
}

/// The JSON object in `bytes`, its `version` checked.
fn versioned(
    what: &'static str,
    bytes: &[u8],
    limit: usize,
) -> Result<serde_json::Value, WireError> {
    if bytes.len() > limit {
        return Err(WireError::TooLarge { what, limit });
    }
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| WireError::Invalid {
            what,
            reason: e.to_string(),
        })?;
    if !value.is_object() {
        return Err(WireError::Invalid {
            what,
            reason: "not a JSON object".to_owned(),
        });
    }
    let got = value
        .get("version")
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(0);
    if got != u64::from(VERSION) {
        return Err(WireError::Version { what, got });
    }
    Ok(value)
}

/// What a decision or an undo came back with, as an answer: the mapping
/// the console makes of a local decision.
pub fn answer_of(result: Result<Outcome, ActError>) -> Answer {
    match result {
        Ok(o) => Answer::Done {
            files: o
                .files
                .into_iter()
                .map(|f| FileDiff {
                    file: f.file,
                    diff: f.diff,
                })
                .collect(),
            said: o.said,
            audit_id: o.audit_id,
            read: o.read,
            recovered: o.recovered,
        },
        Err(e) => Answer::Failed {
            why: match e {
                ActError::Changed(_) => Why::Changed,
                ActError::Locked(_) => Why::Locked,
                ActError::Partial(_) => Why::Partial,
                _ => Why::Refused,
            },
            message: e.to_string(),
        },
    }
}

/// The refusal the console gives before calling a host that is not
/// writable.
pub fn refuse_readonly(host: &HostSpec) -> Answer {
    Answer::refused(format!(
        "{} is read-only: set writable = true in its [[host]] to decide there",
        host.name
    ))
}

/// `command` started; a program that is still open for writing somewhere
/// (`ETXTBSY`: being installed, or a file another thread's child has not
/// closed yet in the moment between its fork and its exec) is tried again
/// a few times before it is said.
fn spawn_unless_busy(command: &mut Command) -> std::io::Result<std::process::Child> {
    let busy = rustix::io::Errno::TXTBSY.raw_os_error();
    let mut tries = 0;
    loop {
        match command.spawn() {
            Err(e) if e.raw_os_error() == Some(busy) && tries < 5 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => return other,
        }
    }
}

/// Makes `call` on `host` by running `ssh_program` (normally `ssh`) with
/// [`ssh::argv`] for the remote `loopdeck call`, the call's JSON on its
/// stdin, and reads the answer on its stdout. Never fails: a host that
/// cannot be reached, a remote loopdeck too old to know `call`, or an
/// answer that does not read is [`Why::Refused`], the message starting
/// with the host's name.
///
/// Blocks until ssh exits (ssh gives up connecting after 10 s and drops
/// a link silent for 30 s); run it off the console's drawing thread.
pub fn call_over_ssh(host: &HostSpec, ssh_program: &str, call: &Call) -> Answer {
    let name = &host.name;
    let mut command = Command::new(ssh_program);
    command
        .args(ssh::argv(host, &[Arg::Word("call")]))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = match spawn_unless_busy(&mut command) {
        Ok(c) => c,
        Err(e) => return Answer::refused(format!("{name}: cannot run {ssh_program}: {e}")),
    };
    let request = call.to_json().into_bytes();
    // Written from its own thread, then closed (the remote reads to the
    // end): a remote that answers before reading it all cannot block us.
    let writer = child.stdin.take().map(|mut stdin| {
        std::thread::spawn(move || {
            // A remote that went away says so on stderr and by its exit.
            let _ = stdin.write_all(&request);
        })
    });
    let errors = child
        .stderr
        .take()
        .map(|stderr| std::thread::spawn(move || tail(stderr, STDERR_KEPT).unwrap_or_default()));
    let (stdout, too_large) = match child.stdout.take() {
        Some(out) => {
            let mut buf = Vec::new();
            let read = out.take(MAX_ANSWER as u64 + 1).read_to_end(&mut buf);
            let over = buf.len() > MAX_ANSWER;
            if over {
                // Stop it rather than read on without end.
                let _ = child.kill();
            }
            if read.is_err() {
                buf.clear();
            }
            (buf, over)
        }
        None => (Vec::new(), false),
    };
    let status = child.wait();
    if let Some(w) = writer {
        let _ = w.join();
    }
    let stderr = errors.and_then(|e| e.join().ok()).unwrap_or_default();
    if too_large {
        return Answer::refused(format!(
            "{name}: {}",
            WireError::TooLarge {
                what: "answer",
                limit: MAX_ANSWER
            }
        ));
    }
    let stderr = String::from_utf8_lossy(&stderr);
    match Answer::from_json(stdout.trim_ascii()) {
        Ok(answer) => answer,
        Err(e @ WireError::Version { .. }) => Answer::refused(format!("{name}: {e}")),
        Err(e) => {
            if too_old(&stderr) {
                return Answer::refused(format!(
                    "{name}: the loopdeck there does not know `loopdeck call` (an older version): install the same loopdeck version there"
                ));
            }
            let last = stderr
                .lines()
                .map(str::trim)
                .rfind(|l| !l.is_empty())
                .map(|l| sanitize_line(l).into_owned());
            let code = status.ok().and_then(|s| s.code());
            // A write sent, and no answer for a reason other than ssh
            // failing to connect: it may have been made there. Never
            // retried as if nothing happened.
            let connected = !CONNECT_FAILURES.iter().any(|m| stderr.contains(m));
            if !call.dry_run && connected {
                return Answer::Failed {
                    why: Why::Partial,
                    message: format!(
                        "{name}: no answer after the decision was sent ({}): it may have been made there; its next reading shows it, and `loopdeck audit` there lists it",
                        last.as_deref().unwrap_or("the link dropped")
                    ),
                };
            }
            Answer::refused(match (last, stdout.is_empty()) {
                (Some(line), _) => format!("{name}: {line}"),
                (None, true) => match code {
                    Some(c) => {
                        format!("{name}: {ssh_program} exited with status {c} and no answer")
                    }
                    None => format!("{name}: {ssh_program} was stopped by a signal, no answer"),
                },
                (None, false) => format!("{name}: {e}"),
            })
        }
    }
}

/// What ssh says when it never reached the remote command: a call that
/// failed so was never run there.
const CONNECT_FAILURES: [&str; 8] = [
    "Permission denied",
    "Could not resolve hostname",
    "Connection refused",
    "Connection timed out",
    "No route to host",
    "Network is unreachable",
    "Host key verification failed",
    "command not found",
];

/// The last `keep` bytes `r` gives, read to its end.
fn tail(mut r: impl Read, keep: usize) -> io::Result<Vec<u8>> {
    let mut kept = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) => return Ok(kept),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        kept.extend_from_slice(&buf[..n]);
        if kept.len() > keep {
            kept.drain(..kept.len() - keep);
        }
    }
}

/// Does the remote's stderr say it does not know `call`? clap's own
/// words, or (this loopdeck's older versions, which take a word that is
/// not a command for a directory to open) `call` refused as a directory
/// that is not there (`loopdeck: call does not exist`, in any language).
fn too_old(stderr: &str) -> bool {
    stderr.contains("unrecognized subcommand")
        || stderr.lines().any(|l| l.starts_with("loopdeck: call "))
}

/// A [`Format`] as its name (`prd-master`), both ways.
mod format_name {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::model::Format;

    pub(super) fn serialize<S: Serializer>(f: &Format, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(f.as_str())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Format, D::Error> {
        let name = String::deserialize(d)?;
        Format::ALL
            .into_iter()
            .find(|f| f.as_str() == name)
            .ok_or_else(|| {
                D::Error::custom(format!(
                    "unknown format {name:?} (prd-master, gsd, dwp or devloop)"
                ))
            })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn answer(text: &str) -> Verb {
        Verb::Answer {
            id: Some("OQ-7".to_owned()),
            text: text.to_owned(),
            key_decision: false,
            rationale: None,
        }
    }

    /// A call comes back as it went, every verb's text included, and an
    /// answer without `key_decision` reads (it is left out when false).
    #[test]
    fn a_call_round_trips_through_its_json() {
        let now = "2026-06-01T12:00:00Z".parse().unwrap();
        for verb in [
            answer("it's \"$(id)\"\n`x`; \\ -rf 中文"),
            Verb::Answer {
                id: None,
                text: "t".to_owned(),
                key_decision: true,
                rationale: Some("r".to_owned()),
            },
            Verb::ResolveBlocker {
                text: "b".to_owned(),
                all: false,
            },
            Verb::Unlock { confirm: true },
            Verb::Approve,
        ] {
            let call = Call::new(
                Op::Act {
                    path: "/srv/a b".to_owned(),
                    format: Format::PrdMaster,
                    verb,
                    expect: vec![("state.json".to_owned(), "ab".repeat(32))],
                },
                true,
                "alice",
                Some(now),
            );
            assert_eq!(Call::from_json(call.to_json().as_bytes()).unwrap(), call);
        }
        let undo = Call::new(
            Op::Undo {
                id: "A1".to_owned(),
            },
            false,
            "bob",
            None,
        );
        assert_eq!(Call::from_json(undo.to_json().as_bytes()).unwrap(), undo);
        assert!(undo.to_json().contains(r#""op":{"undo":{"id":"A1"}}"#));
    }

    #[test]
    fn an_answer_round_trips_and_carries_its_version() {
        let done = Answer::Done {
            files: vec![FileDiff {
                file: "state.json".to_owned(),
                diff: "--- a\n+++ b\n".to_owned(),
            }],
            said: vec!["migrated".to_owned()],
            audit_id: Some("A1".to_owned()),
            read: vec![("state.json".to_owned(), "00".repeat(32))],
            recovered: Vec::new(),
        };
        let json = done.to_json();
        assert!(
            json.starts_with(r#"{"version":1,"answer":"done""#),
            "{json}"
        );
        assert_eq!(Answer::from_json(json.as_bytes()).unwrap(), done);
        let failed = Answer::Failed {
            why: Why::Changed,
            message: "m".to_owned(),
        };
        assert_eq!(
            failed.to_json(),
            r#"{"version":1,"answer":"failed","why":"changed","message":"m"}"#
        );
        assert_eq!(
            Answer::from_json(failed.to_json().as_bytes()).unwrap(),
            failed
        );
    }

    #[test]
    fn another_version_or_no_json_is_refused_by_name() {
        assert_eq!(
            Answer::from_json(br#"{"version":2,"answer":"failed","why":"changed","message":"m"}"#),
            Err(WireError::Version {
                what: "answer",
                got: 2
            })
        );
        assert_eq!(
            Call::from_json(br#"{"op":{"undo":{"id":"A1"}},"by":"a"}"#),
            Err(WireError::Version {
                what: "call",
                got: 0
            })
        );
        assert!(matches!(
            Call::from_json(b"[1]"),
            Err(WireError::Invalid { .. })
        ));
        assert!(matches!(
            Call::from_json(br#"{"version":1,"op":{"act":{"path":"/p","format":"nope","verb":{"verb":"approve"}}},"by":"a"}"#),
            Err(WireError::Invalid { reason, .. }) if reason.contains("unknown format")
        ));
        let big = vec![b' '; MAX_CALL + 1];
        assert_eq!(
            Call::from_json(&big),
            Err(WireError::TooLarge {
                what: "call",
                limit: MAX_CALL
            })
        );
    }

    /// The same mapping as the console's: changed, locked and partial by
    /// name, every other failure a refusal.
    #[test]
    fn answer_of_maps_each_failure() {
        let cases = [
            (ActError::Changed("c".to_owned()), Why::Changed),
            (ActError::Locked("l".to_owned()), Why::Locked),
            (ActError::Partial("p".to_owned()), Why::Partial),
            (ActError::ReadOnly, Why::Refused),
        ];
        for (e, why) in cases {
            let message = e.to_string();
            assert_eq!(answer_of(Err(e)), Answer::Failed { why, message });
        }
    }

    #[test]
    fn a_host_that_is_not_writable_is_refused_by_name() {
        let h = HostSpec::new("build-1", "ops@build1", vec!["/r".to_owned()]);
        assert_eq!(
            refuse_readonly(&h),
            Answer::Failed {
                why: Why::Refused,
                message:
                    "build-1 is read-only: set writable = true in its [[host]] to decide there"
                        .to_owned()
            }
        );
    }

    #[test]
    fn the_tail_keeps_the_last_bytes() {
        let data: Vec<u8> = (0..50_000u32).map(|i| (i % 251) as u8).collect();
        assert_eq!(tail(&data[..], 100).unwrap(), &data[data.len() - 100..]);
        assert_eq!(tail(&b"ab"[..], 100).unwrap(), b"ab");
    }
}
