//! The console's decisions, made by the code `loopdeck act` and
//! `loopdeck undo` run (`decide::act`, `decide::audit::undo`), on a worker
//! thread; the answer is an `Event::Decided`.

use std::path::PathBuf;

use chrono::{DateTime, Utc};

use crate::app::decide::{Decided, FileDiff, Why};
use crate::model::{Format, HostName, Project, Request, Verb};
use loopdeck_core::decide::{ActError, Outcome, WriteOptions};
use loopdeck_core::decide::{audit, remote};
use loopdeck_core::fleet::HostSpec;

/// Who decides and what the writes may do: fixed for the run.
#[derive(Debug, Clone)]
pub(super) struct Decider {
    pub by: String,
    /// `--now`, for tests; else the clock at each decision.
    pub now: Option<DateTime<Utc>>,
    pub readonly: bool,
    pub devloop_api: Option<String>,
    /// The config file, for messages that say what to add to it.
    pub config_file: Option<String>,
    pub audit_dir: Option<PathBuf>,
    /// The hosts another machine's decisions are made on, over ssh.
    pub hosts: Vec<HostSpec>,
}

impl Decider {
    /// Who decides, under the one-line rule of every typed text (a login
    /// name is untrusted too); `Err`: the refusal.
    fn by(&self) -> Result<String, Decided> {
        Request::decider(&self.by).map_err(|message| Decided::Failed {
            message,
            why: Why::Refused,
        })
    }

    fn options(&self, dry_run: bool, expect: Vec<(String, String)>) -> WriteOptions {
        WriteOptions {
            expect_files: expect,
            dry_run,
            readonly: self.readonly,
            audit_dir: self.audit_dir.clone(),
            by: Some(self.by.clone()),
            now: self.now,
            ..WriteOptions::default()
        }
    }

    /// `verb` on the project at `path`, against the files as read.
    pub(super) fn decide(
        &self,
        path: PathBuf,
        format: Format,
        verb: Verb,
        expect: Vec<(String, String)>,
        dry_run: bool,
    ) -> Decided {
        let by = match self.by() {
            Ok(by) => by,
            Err(refused) => return refused,
        };
        let req = Request {
            verb,
            by,
            now: self.now.unwrap_or_else(Utc::now),
            devloop_api: self.devloop_api.clone(),
            config_file: self.config_file.clone(),
        };
        if !path.is_dir() {
            return Decided::Failed {
                message: crate::t!("runtime.decide.gone", path = path.display()),
                why: Why::Refused,
            };
        }
        let project = Project::new(format, path, String::new());
        answer(loopdeck_core::decide::act(
            &project,
            &req,
            &self.options(dry_run, expect),
        ))
    }

    /// `verb` on another host's project, made there by its loopdeck
    /// (`loopdeck call` over ssh: the decision on stdin, never on a
    /// command line a shell reads), against the files as the console
    /// showed them.
    pub(super) fn decide_on(
        &self,
        host: &HostName,
        path: PathBuf,
        format: Format,
        verb: Verb,
        expect: Vec<(String, String)>,
        dry_run: bool,
    ) -> Decided {
        let op = remote::Op::Act {
            path: path.to_string_lossy().into_owned(),
            format,
            verb,
            expect,
        };
        self.call(host, op, dry_run)
    }

    /// `loopdeck undo ID` on another host.
    pub(super) fn undo_on(&self, host: &HostName, id: String, dry_run: bool) -> Decided {
        self.call(host, remote::Op::Undo { id }, dry_run)
    }

    fn call(&self, host: &HostName, op: remote::Op, dry_run: bool) -> Decided {
        let by = match self.by() {
            Ok(by) => by,
            Err(refused) => return refused,
        };
        let Some(spec) = self.hosts.iter().find(|h| h.name == *host) else {
            return Decided::Failed {
                message: crate::t!("app.decide.host_unknown", host = host),
                why: Why::Refused,
            };
        };
        if self.readonly {
            return Decided::Failed {
                message: crate::t!("app.decide.readonly").to_owned(),
                why: Why::Refused,
            };
        }
        if !spec.writable {
            return Decided::Failed {
                message: crate::t!("app.decide.host_readonly", host = host),
                why: Why::Refused,
            };
        }
        let call = remote::Call::new(op, dry_run, by, self.now);
        from_answer(remote::call_over_ssh(spec, "ssh", &call))
    }

    /// `loopdeck undo ID`.
    pub(super) fn undo(&self, id: String, dry_run: bool) -> Decided {
        if let Err(refused) = self.by() {
            return refused;
        }
        let Some(dir) = self.audit_dir.clone() else {
            return Decided::Failed {
                message: audit::NO_DIR.to_owned(),
                why: Why::Refused,
            };
        };
        answer(audit::undo(
            &dir,
            &audit::Which::Id(id),
            &self.options(dry_run, Vec::new()),
        ))
    }
}

/// What another host answered, as the console's form takes it.
fn from_answer(a: remote::Answer) -> Decided {
    match a {
        remote::Answer::Done {
            files,
            said,
            audit_id,
            read,
            ..
        } => Decided::Done {
            files: files
                .into_iter()
                .map(|f| FileDiff {
                    file: f.file,
                    diff: f.diff,
                })
                .collect(),
            said,
            audit_id,
            read,
        },
        remote::Answer::Failed { why, message } => Decided::Failed {
            why: match why {
                remote::Why::Changed => Why::Changed,
                remote::Why::Locked => Why::Locked,
                remote::Why::Partial => Why::Partial,
                remote::Why::Refused => Why::Refused,
            },
            message,
        },
    }
}

/// A decision made here, as the form takes it: the same mapping a host
/// makes of its own (`remote::answer_of`).
fn answer(result: Result<Outcome, ActError>) -> Decided {
    from_answer(remote::answer_of(result))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use std::fs;

    /// The PRD-master fixture with an open OQ-7, in a temp dir.
    fn prd_project(tmp: &std::path::Path) -> PathBuf {
        let dir = tmp.join("p");
        fs::create_dir(&dir).unwrap();
        let from = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("tests/fixtures/prd-act/stage1/before");
        for e in fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            fs::copy(e.path(), dir.join(e.file_name())).unwrap();
        }
        dir
    }

    /// A lock that stops the console's decision comes back as a lock
    /// (titled so in the dialog), never as "changed on disk", with the
    /// lock module's words naming what holds it.
    #[cfg(unix)]
    #[test]
    fn a_lock_that_stops_a_decision_is_a_lock_not_a_change() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = prd_project(tmp.path());
        // A stale lock whose breakers' turn is a directory: refused at
        // once (no wait), as a lock.
        fs::write(
            dir.join("state.json.loopdeck-lock"),
            format!(
                r#"{{"pid": {}, "host": "{}"}}"#,
                u32::MAX - 1,
                loopdeck_core::decide::host_name()
            ),
        )
        .unwrap();
        let turn = dir.join("state.json.loopdeck-lock.break");
        fs::create_dir(&turn).unwrap();
        let before = fs::read(dir.join("state.json")).unwrap();
        let decider = Decider {
            by: "alice".to_owned(),
            now: None,
            readonly: false,
            devloop_api: None,
            config_file: None,
            audit_dir: Some(tmp.path().join("state")),
            hosts: Vec::new(),
        };
        let verb = Verb::Answer {
            id: Some("OQ-7".to_owned()),
            text: "yes".to_owned(),
            key_decision: false,
            rationale: None,
        };
        match decider.decide(dir.clone(), Format::PrdMaster, verb, Vec::new(), false) {
            Decided::Failed { message, why } => {
                assert_eq!(why, Why::Locked, "{message}");
                let turn = turn.file_name().unwrap().to_string_lossy().into_owned();
                assert!(message.contains(&turn), "{message}");
            }
            other => panic!("not refused: {other:?}"),
        }
        assert_eq!(fs::read(dir.join("state.json")).unwrap(), before);
    }

    /// The console's decider (the login name) follows the rule `--by`
    /// does: a name with a line break is refused before anything is read
    /// or written, in the same words.
    #[test]
    fn a_login_name_that_breaks_a_line_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let decider = Decider {
            by: "alice\n## forged".to_owned(),
            now: None,
            readonly: false,
            devloop_api: None,
            config_file: None,
            audit_dir: Some(tmp.path().join("state")),
            hosts: Vec::new(),
        };
        let verb = Verb::Approve;
        for got in [
            decider.decide(
                tmp.path().to_path_buf(),
                Format::Dwp,
                verb,
                Vec::new(),
                false,
            ),
            decider.undo("A1".to_owned(), false),
        ] {
            match got {
                Decided::Failed { message, why } => {
                    assert_eq!(why, Why::Refused);
                    assert_eq!(
                        message,
                        "--by (who decides) must be one line of text (no line breaks or control characters)"
                    );
                }
                other => panic!("not refused: {other:?}"),
            }
        }
        assert!(!tmp.path().join("state").exists());
    }
}
