//! The console's decisions, made by the code `loopdeck act` and
//! `loopdeck undo` run (`formats::act`, `store::audit::undo`), on a worker
//! thread; the answer is an `Event::Decided`.

use std::path::PathBuf;

use chrono::{DateTime, Utc};

use crate::app::decide::{Decided, FileDiff};
use crate::model::{Format, Project, Request, Verb};
use crate::store::audit;
use crate::store::txn::{ActError, Outcome, WriteOptions};

/// Who decides and what the writes may do: fixed for the run.
#[derive(Debug, Clone)]
pub struct Decider {
    pub by: String,
    /// `--now`, for tests; else the clock at each decision.
    pub now: Option<DateTime<Utc>>,
    pub readonly: bool,
    pub devloop_api: Option<String>,
    pub audit_dir: Option<PathBuf>,
}

impl Decider {
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
    pub fn decide(
        &self,
        path: PathBuf,
        format: Format,
        verb: Verb,
        expect: Vec<(String, String)>,
        dry_run: bool,
    ) -> Decided {
        let req = Request {
            verb,
            by: self.by.clone(),
            now: self.now.unwrap_or_else(Utc::now),
            devloop_api: self.devloop_api.clone(),
        };
        if !path.is_dir() {
            return Decided::Failed {
                message: crate::t!("runtime.decide.gone", path = path.display()),
                conflict: false,
            };
        }
        let project = Project::new(format, path, String::new());
        answer(crate::formats::act::act(
            &project,
            &req,
            &self.options(dry_run, expect),
        ))
    }

    /// `loopdeck undo ID`.
    pub fn undo(&self, id: String, dry_run: bool) -> Decided {
        let Some(dir) = self.audit_dir.clone() else {
            return Decided::Failed {
                message: audit::NO_DIR.to_owned(),
                conflict: false,
            };
        };
        answer(audit::undo(
            &dir,
            &audit::Which::Id(id),
            &self.options(dry_run, Vec::new()),
        ))
    }
}

fn answer(result: Result<Outcome, ActError>) -> Decided {
    match result {
        Ok(o) => Decided::Done {
            files: o
                .files
                .into_iter()
                .map(|f| FileDiff {
                    file: f.file,
                    diff: f.diff,
                })
                .collect(),
            audit_id: o.audit_id,
            read: o.read,
        },
        Err(e) => Decided::Failed {
            conflict: matches!(e, ActError::Changed(_) | ActError::Locked(_)),
            message: e.to_string(),
        },
    }
}
