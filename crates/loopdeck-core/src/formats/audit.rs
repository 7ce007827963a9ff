//! The audit log read with each format's knowledge: which project a
//! record's decision was made in (PRD-master's new-project makes its
//! directory), whether a record may be acted on (a project loopdeck reads,
//! of the format whose file and lock it names, every file inside it), and
//! undoing or redoing a decision (an append to an append-only log is
//! compensated with the event its format defines, not cut away).
//!
//! The log itself (records, blobs, rotation, finding a record, the
//! history) is the store's (`store::audit`), which knows no format.

use std::fs;
use std::path::{Path, PathBuf};

use chrono::Utc;

use super::{devloop, dwp, gsd, prd_master};
use crate::store::audit::{Effect, Op, Record, Standing, Which, find, inside, restore};
use crate::store::{replay, sibling};
use crate::store::txn::{
    ActError, Edit, LockKind, Outcome, Refusal, Snapshot, Stamp, Txn, WriteOptions,
};
use crate::store::StoreError;

impl Record {
    /// The project directory the decision was made in: `project`, or for
    /// PRD-master's new-project (recorded in the workspace) the directory
    /// it made.
    pub fn project_dir(&self) -> PathBuf {
        let project = Path::new(&self.project);
        match self.primary.split_once('/') {
            Some((name, rest))
                if self.lock == LockKind::Owner
                    && rest == prd_master::STATE_FILE
                    && self
                        .files
                        .iter()
                        .all(|f| f.file.starts_with(&format!("{name}/"))) =>
            {
                project.join(name)
            }
            _ => project.to_path_buf(),
        }
    }
}

/// `r` as the CLI and the console list it (see [`crate::model::AuditEntry`]).
pub fn entry(r: &Record, standing: &Standing) -> crate::model::AuditEntry {
    use crate::model::AuditStanding;
    crate::model::AuditEntry {
        id: r.id.clone(),
        at: chrono::DateTime::parse_from_rfc3339(&r.at)
            .ok()
            .map(|t| t.with_timezone(&Utc)),
        by: r.by.clone(),
        project: r.project_dir(),
        summary: summary(r),
        standing: match standing {
            Standing::InForce => AuditStanding::InForce,
            Standing::Undone { by } => AuditStanding::Undone(by.clone()),
            Standing::Redone { by } => AuditStanding::Redone(by.clone()),
            Standing::Reversal => AuditStanding::Reversal,
        },
    }
}

/// The decision in a few words: its verb, what it was about (a question,
/// a task, an option…) and the start of its text.
fn summary(r: &Record) -> String {
    let d = &r.decision;
    let field = |k: &str| d.get(k).and_then(serde_json::Value::as_str);
    let mut out = r.label();
    if !matches!(r.effect(), Effect::Decision) {
        return out;
    }
    if let Some(target) = ["id", "task", "agent", "option", "name"]
        .iter()
        .find_map(|k| field(k))
    {
        out.push(' ');
        out.push_str(target);
    }
    if let Some(text) = ["text", "reason", "status"].iter().find_map(|k| field(k)) {
        out.push_str(": ");
        let short: String = text.chars().take(48).collect();
        out.push_str(&short);
        if short.len() < text.len() {
            out.push('…');
        }
    }
    out
}

/// Is the decision `rec` of the project at `dir`? `dir` is as found on
/// disk (canonical), as records name their projects.
pub fn of_project(rec: &Record, dir: &Path) -> bool {
    rec.project_dir() == dir
}

/// Put back the bytes decision `which` replaced, under the lock its format
/// uses; refused (a conflict) when a file has moved on since. The undo is
/// itself a decision in the log, so it can be undone. A record is acted on
/// only when its project is one loopdeck reads, of the format whose file
/// and lock it names, and every file it names is inside that project
/// (see `vet`).
pub fn undo(dir: &Path, which: &Which, opts: &WriteOptions) -> Result<Outcome, ActError> {
    undo_checked(dir, which, opts, vet)
}

/// [`undo`], with the record it took back.
pub fn undo_found(
    dir: &Path,
    which: &Which,
    opts: &WriteOptions,
) -> Result<(Record, Outcome), ActError> {
    opts.gate()?;
    let rec = find(dir, which, Record::project_dir)?;
    vet(&rec)?;
    let outcome = undo_record(dir, &rec, opts)?;
    Ok((rec, outcome))
}

testing_pub!(
/// [`undo`] with the record checked by `check` instead of [`vet`] (the
/// store's own tests undo decisions made in directories no format
/// recognises: they pass a check that accepts any record). The read-only
/// gate comes first.
pub fn undo_checked(
    dir: &Path,
    which: &Which,
    opts: &WriteOptions,
    check: impl FnOnce(&Record) -> Result<(), ActError>,
) -> Result<Outcome, ActError> {
    opts.gate()?;
    let rec = find(dir, which, Record::project_dir)?;
    check(&rec)?;
    undo_record(dir, &rec, opts)
}
);

fn undo_record(dir: &Path, rec: &Record, opts: &WriteOptions) -> Result<Outcome, ActError> {
    let mut opts = opts.clone();
    opts.audit_dir = Some(dir.to_path_buf());
    let by = opts.by.clone().unwrap_or_else(|| "unknown".to_owned());
    let txn = Txn::new(
        Path::new(&rec.project),
        &rec.primary,
        rec.lock,
        &opts,
        &by,
        opts.now.unwrap_or_else(Utc::now),
        rec.reversal(),
    );
    let project = rec.project_dir();
    let name = project
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let what = match rec.effect() {
        Effect::Undoes(_) => "redoes",
        _ => "undoes",
    };
    let sentence = format!(
        "{what} {} ({}, by {} at {}) in {name} ({})",
        rec.label(),
        rec.id,
        rec.by,
        rec.at,
        project.display()
    );
    // PRD-master's new-project made its directory: the undo of it removes
    // the directory once empty (an empty one would block the name), and a
    // redo makes it again first.
    let made = (project != Path::new(&rec.project)).then_some(project.as_path());
    let mut created = None;
    if let Some(made) = made
        && !opts.dry_run
        && matches!(rec.effect(), Effect::Undoes(_))
        && fs::symlink_metadata(made).is_err()
    {
        created = Some(
            crate::store::create_dir_in(Path::new(&rec.project), &name).map_err(|e| ActError::Store {
                file: name.clone(),
                source: e,
            })?,
        );
    }
    let result = replay(&txn, |snap| {
        snap.say(sentence);
        undo_edits(dir, rec, snap, (&txn.by, txn.now))
    });
    match (&result, made, created) {
        (Err(_), _, Some(created)) => crate::store::remove_empty_dir(&created),
        (Ok(o), Some(made), _) if !o.dry_run => crate::store::remove_empty_dir(made),
        _ => {}
    }
    result
}

/// Can decision `rec` be undone where it says? Its project is an absolute
/// path to a project loopdeck's format detection recognises; that
/// project's format writes `rec.primary` under `rec.lock`; every file the
/// record names stays inside the project. A record planted by another
/// user (or garbled) is refused with the reason, before any file is read.
pub(crate) fn vet(rec: &Record) -> Result<(), ActError> {
    let refuse = |why: String| {
        ActError::Refused(Refusal::new(format!(
            "decision {} cannot be undone: {why}; nothing undone",
            rec.id
        )))
    };
    let project = Path::new(&rec.project);
    if !project.is_absolute() {
        return Err(refuse(format!(
            "its project `{}` is not an absolute path",
            rec.project
        )));
    }
    for f in &rec.files {
        let to_ok =
            f.to.as_deref()
                .is_none_or(|t| inside(t) && !t.contains('/'));
        if !inside(&f.file) || !to_ok {
            return Err(refuse(format!(
                "its file `{}` is not a path inside the project {}",
                f.file, rec.project
            )));
        }
    }
    if !inside(&rec.primary) {
        return Err(refuse(format!(
            "its file `{}` is not a path inside the project {}",
            rec.primary, rec.project
        )));
    }
    // PRD-master's new-project is recorded in the workspace: the project is
    // the directory it made, and every file is in it.
    let dir = rec.project_dir();
    let primary = match dir.strip_prefix(project) {
        Ok(made) if !made.as_os_str().is_empty() => rec
            .primary
            .split_once('/')
            .map_or(rec.primary.as_str(), |(_, rest)| rest),
        _ => rec.primary.as_str(),
    };
    // The redo of a new project's undo makes its directory again (the
    // undo removed it): the workspace must be there, and the record a
    // PRD-master state's.
    if dir != project
        && matches!(rec.effect(), Effect::Undoes(_))
        && fs::symlink_metadata(&dir).is_err()
    {
        fs::canonicalize(project).map_err(|e| {
            refuse(format!(
                "its workspace {} cannot be opened ({})",
                project.display(),
                StoreError::from(e)
            ))
        })?;
        if !writes(crate::model::Format::PrdMaster, primary, rec.lock) {
            return Err(refuse(format!(
                "{} is gone and the decision is not a new PRD-master project's",
                dir.display()
            )));
        }
        return Ok(());
    }
    let real = fs::canonicalize(&dir).map_err(|e| {
        refuse(format!(
            "its project {} cannot be opened ({})",
            dir.display(),
            StoreError::from(e)
        ))
    })?;
    let formats: Vec<crate::model::Format> = crate::formats::load_dir(&real)
        .projects
        .into_iter()
        .filter(|p| fs::canonicalize(&p.path).is_ok_and(|p| p == real))
        .map(|p| p.format)
        .collect();
    if formats.is_empty() {
        return Err(refuse(format!(
            "{} is not a project loopdeck reads",
            dir.display()
        )));
    }
    if !formats.iter().any(|f| writes(*f, primary, rec.lock)) {
        let names: Vec<&str> = formats.iter().map(|f| f.as_str()).collect();
        return Err(refuse(format!(
            "{} is a {} project, whose decisions do not write `{primary}` under a {:?} lock",
            dir.display(),
            names.join("/"),
            rec.lock
        )));
    }
    Ok(())
}

/// Does a decision of `format` write `primary` under `lock`?
fn writes(format: crate::model::Format, primary: &str, lock: LockKind) -> bool {
    use crate::model::Format;
    match format {
        Format::PrdMaster => lock == LockKind::Owner && primary == prd_master::STATE_FILE,
        Format::Gsd => {
            lock == LockKind::PidFile && primary == format!("{}/STATE.md", gsd::PLANNING_DIR)
        }
        Format::Dwp => lock == LockKind::MkdirDir && primary == dwp::act::STATE,
        Format::Devloop => {
            lock == LockKind::Owner
                && (primary == devloop::PROJECT_FILE
                    || primary == devloop::BUGS
                    || primary
                        .strip_prefix(devloop::agents::STATE_DIR)
                        .and_then(|r| r.strip_prefix('/'))
                        .and_then(|r| r.strip_suffix(".json"))
                        .is_some_and(|a| !a.is_empty() && !a.contains('/')))
        }
    }
}

/// What files hold while an undo is planned: the disk as read, overlaid
/// with the edits planned so far (an undo replays a decision backwards,
/// and a file may be touched twice: set aside, then rebuilt).
struct Overlay<'a> {
    snap: &'a mut Snapshot,
    planned: std::collections::HashMap<String, Option<Vec<u8>>>,
}

impl Overlay<'_> {
    fn get(&mut self, file: &str) -> Result<Option<Vec<u8>>, ActError> {
        if let Some(b) = self.planned.get(file) {
            return Ok(b.clone());
        }
        Ok(self.snap.read(file)?.map(<[u8]>::to_vec))
    }

    fn push(&mut self, edits: &mut Vec<Edit>, edit: Edit) -> Result<(), ActError> {
        match &edit {
            Edit::Replace { file, bytes } => {
                self.planned.insert(file.clone(), Some(bytes.clone()));
            }
            Edit::Remove { file } => {
                self.planned.insert(file.clone(), None);
            }
            Edit::RenameAside { file, to } => {
                let moved = self.get(file)?;
                self.planned.insert(sibling(file, to), moved);
                self.planned.insert(file.clone(), None);
            }
            Edit::AppendLine { .. } => {}
        }
        edits.push(edit);
        Ok(())
    }
}

/// The edits that take decision `rec` back, last file first.
/// `who`: who undoes, and when, for a compensating log line.
fn undo_edits(
    dir: &Path,
    rec: &Record,
    snap: &mut Snapshot,
    who: (&str, chrono::DateTime<Utc>),
) -> Result<Vec<Edit>, ActError> {
    let mut edits = Vec::new();
    let mut cur = Overlay {
        snap,
        planned: std::collections::HashMap::new(),
    };
    for f in rec.files.iter().rev() {
        match f.op {
            Op::Replace | Op::Remove => {
                let now = cur.get(&f.file)?;
                moved_on(rec, &f.file, f.after.as_ref(), now.as_deref())?;
                let edit = restore(dir, f)?;
                cur.push(&mut edits, edit)?;
            }
            // NDJSON files are append-only logs (seed 003: existing lines
            // are never modified): an undo never rewrites one. A record
            // that was the decision itself (a bug transition) cannot be
            // taken back; a log line beside it (a timeline event) stays as
            // the history of what was done and undone.
            Op::Append if f.file == rec.primary => {
                return Err(ActError::Refused(Refusal::new(format!(
                    "{} is append-only: its lines are never rewritten, so decision {} cannot be undone; make the next decision instead (`loopdeck act {} …`)",
                    f.file, rec.id, rec.project
                ))));
            }
            // The log line stays; the format tells the undo after it (a
            // devloop timeline event: `source: "human"`, what was undone,
            // the audit id), by whoever undoes it (`--by`, `--now`).
            Op::Append => {
                if let Some(edit) = crate::formats::devloop::act::undone_event(
                    &rec.decision,
                    Path::new(&rec.project),
                    &rec.id,
                    &f.file,
                    who.0,
                    who.1,
                ) {
                    cur.push(&mut edits, edit)?;
                }
            }
            Op::Rename => {
                let Some(to) = &f.to else { continue };
                let dest = sibling(&f.file, to);
                let now = cur.get(&dest)?;
                moved_on(rec, &dest, f.before.as_ref(), now.as_deref())?;
                let name = Path::new(&f.file)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                cur.push(
                    &mut edits,
                    Edit::RenameAside {
                        file: dest,
                        to: name,
                    },
                )?;
            }
        }
    }
    Ok(edits)
}

/// A conflict unless `now` is what the decision left (`after`).
fn moved_on(
    rec: &Record,
    file: &str,
    after: Option<&Stamp>,
    now: Option<&[u8]>,
) -> Result<(), ActError> {
    let now = now.map(Stamp::of);
    if now.as_ref() == after {
        return Ok(());
    }
    Err(conflict(rec, file, after, now))
}

fn conflict(rec: &Record, file: &str, after: Option<&Stamp>, now: Option<Stamp>) -> ActError {
    let show = |s: Option<&Stamp>| {
        s.map_or_else(
            || "absent".to_owned(),
            |s| {
                format!(
                    "{} bytes, sha256 {}",
                    s.len,
                    s.sha256.get(..12).unwrap_or_default()
                )
            },
        )
    };
    ActError::Changed(format!(
        "{file} has moved on since decision {}: it was {} after it, it is {} now; nothing undone",
        rec.id,
        show(after),
        show(now.as_ref())
    ))
}
