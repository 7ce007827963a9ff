//! Carrying out what `app::update` asks for: one arm per kind of
//! [`Effect`], each a line or a small function. Slow work goes to a worker
//! thread (`workers`) and answers with an event; what touches the
//! terminal runs here, between frames (the last one ended its
//! synchronized update; the next starts after this).

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::Sender;
use std::time::Instant;

use ratatui::DefaultTerminal;

use super::{Console, Flow, Msg, clipboard, decide, hook, notify, suspend, workers};
use crate::app::{Effect, Event};
use crate::model::text::sanitize_line;
use crate::ui;
use loopdeck_core::follow::Target;

/// What carrying out effects needs beside the model, the engine and the
/// timers: the means to notify, decide, run a program, copy.
pub(super) struct Tools {
    pub(super) tx: Sender<Msg>,
    pub(super) notifier: notify::Notifier,
    /// The `[notify] command`, when there is one to run.
    pub(super) hook: Option<hook::Hook>,
    pub(super) decider: decide::Decider,
    /// Where the input thread stops while a program has the terminal.
    pub(super) gate: Arc<suspend::Gate>,
    pub(super) sigint: suspend::Sigint,
    /// Inside tmux: the clipboard's sequence is wrapped for it.
    pub(super) tmux: bool,
    /// The mouse is captured (given back to a program, taken again).
    pub(super) mouse: bool,
    /// `NO_COLOR`: a theme picked is stripped of its colours too.
    pub(super) no_color: bool,
    /// Where "first seen" is saved (none when read-only), and whether a
    /// save failed already (said once).
    pub(super) first_dir: Option<PathBuf>,
    pub(super) first_failed: bool,
}

impl Console {
    /// Carry out `e`. Events it answers at once (after a program ran) go
    /// to `follow`; `Err`: the terminal cannot be written or set up again.
    pub(super) fn effect(
        &mut self,
        e: &Effect,
        terminal: &mut DefaultTerminal,
        follow: &mut Vec<Event>,
    ) -> io::Result<Flow> {
        match e {
            Effect::Quit => return Ok(Flow::Quit),
            Effect::Render => {}
            Effect::FullRedraw => terminal.clear()?,
            Effect::Reload => self.engine.reload(Instant::now()),
            Effect::Theme(name) => self.theme(name),
            Effect::Notify { title, body } => {
                self.tools.notifier.send(&mut io::stdout(), title, body)?;
            }
            Effect::ReadAudit => workers::audit(self.tx()),
            Effect::Hook(payload) => {
                if let Some(h) = &self.tools.hook {
                    h.run(payload.clone());
                }
            }
            Effect::Copy(text) => clipboard::copy(&mut io::stdout(), text, self.tools.tmux)?,
            Effect::Open { dir, file, editor } => {
                follow.extend(self.open(terminal, dir, file, *editor)?);
            }
            Effect::SettleAfter(seq) => self.timers.settle_after(*seq, Instant::now()),
            Effect::Decide {
                seq,
                host,
                path,
                format,
                verb,
                expect,
                dry_run,
            } => {
                let (d, host, path, format, verb, expect, dry_run) = (
                    self.tools.decider.clone(),
                    host.clone(),
                    path.clone(),
                    *format,
                    verb.clone(),
                    expect.clone(),
                    *dry_run,
                );
                workers::decision_worker(self.tx(), *seq, move || match &host {
                    Some(host) => d.decide_on(host, path, format, verb, expect, dry_run),
                    None => d.decide(path, format, verb, expect, dry_run),
                });
            }
            Effect::Undo {
                seq,
                host,
                id,
                dry_run,
            } => {
                let (d, host, id, dry_run) = (
                    self.tools.decider.clone(),
                    host.clone(),
                    id.clone(),
                    *dry_run,
                );
                workers::decision_worker(self.tx(), *seq, move || match &host {
                    Some(host) => d.undo_on(host, id, dry_run),
                    None => d.undo(id, dry_run),
                });
            }
            // Only the project written is read again; the watcher's own
            // events for the write join this read.
            Effect::Reread(path) => {
                let now = Instant::now();
                self.engine.written(vec![Target::Dir(path.clone())], now);
            }
            Effect::SaveFirstSeen => self.save_first_seen(),
            Effect::SaveSeen => self.timers.save_seen(Instant::now()),
            Effect::ReadOlder { path, anchor, want } => {
                workers::read_older(path.clone(), anchor.clone(), *want, self.tx());
            }
            Effect::CompareRevision { path, index, key } => {
                if let Some(p) = self.project(path) {
                    workers::compare(p, *index, key.clone(), self.tx());
                }
            }
            Effect::ReadExcerpts(path) => {
                if let Some(p) = self.project(path) {
                    workers::excerpts(p, self.tx());
                }
            }
        }
        Ok(Flow::Go)
    }

    /// Where a worker answers.
    fn tx(&self) -> Sender<Msg> {
        self.tools.tx.clone()
    }

    /// The project at `path` as last read, to hand to a worker.
    fn project(&self, path: &Path) -> Option<crate::model::Project> {
        self.model.projects.iter().find(|p| p.path == path).cloned()
    }

    /// Built in and tested: it parses; were it not, the theme in force
    /// stays.
    fn theme(&mut self, name: &str) {
        if let Ok(t) = ui::Theme::builtin(name, self.tools.no_color) {
            self.theme = t;
        }
    }

    /// Small and rare (an item arrived or left): saved at once; a failure
    /// is said once, the ages still hold.
    fn save_first_seen(&mut self) {
        if let Some(dir) = &self.tools.first_dir
            && let Err(e) = loopdeck_core::memory::first_seen::save(dir, &mut self.model.first_seen)
            && !self.tools.first_failed
        {
            self.tools.first_failed = true;
            self.model.status = Some(e.to_string());
        }
    }

    /// `o` / `e`: `file` of the project in `dir` in the pager or the
    /// editor; the console comes back cleared, at the terminal's size, and
    /// says what went wrong, if anything.
    fn open(
        &mut self,
        terminal: &mut DefaultTerminal,
        dir: &Path,
        file: &str,
        editor: bool,
    ) -> io::Result<Vec<Event>> {
        let t = &self.tools;
        let said = open(
            &t.gate,
            &t.sigint,
            t.mouse,
            dir,
            file,
            editor,
            self.model.readonly,
        )?;
        terminal.clear()?;
        let mut follow = Vec::new();
        if let Ok(size) = terminal.size() {
            follow.push(Event::Size(size.width, size.height));
        }
        follow.extend(said.map(Event::Notice));
        Ok(follow)
    }
}

/// `o` / `e`: open `file` of the project in `dir` in the pager or the
/// editor, if it is a file inside the project (links followed, by the
/// store's rules). What to say in the status line, if anything; `Err`: the
/// terminal could not be set up again.
fn open(
    gate: &suspend::Gate,
    sigint: &suspend::Sigint,
    mouse: bool,
    dir: &Path,
    file: &str,
    editor: bool,
    readonly: bool,
) -> io::Result<Option<String>> {
    let path = match openable(dir, file) {
        Ok(p) => p,
        Err(why) => return Ok(Some(why)),
    };
    let program = suspend::program(editor);
    let ran = suspend::suspended(gate, sigint, mouse, &program, &path, readonly)?;
    Ok(ran.err())
}

/// The real path of `file` in the project at `dir`, if it is a regular
/// file inside it (the store's rules: no `..` out, no absolute path, no
/// link leading out); else why not, to say in the status line.
pub(super) fn openable(dir: &Path, file: &str) -> Result<PathBuf, String> {
    let shown = sanitize_line(file);
    let found = match loopdeck_core::read::locate_file(dir, file) {
        Ok(Some(true)) => loopdeck_core::read::contained(dir, file)
            .and_then(|p| std::fs::canonicalize(p).map_err(loopdeck_core::read::StoreError::from)),
        Ok(Some(false)) => return Err(crate::t!("runtime.open.not_a_file", file = shown)),
        Ok(None) => return Err(crate::t!("runtime.open.missing", file = shown)),
        Err(e) => Err(e),
    };
    found.map_err(|e| crate::t!("runtime.open.failed", file = shown, why = e))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    /// `o` opens only a regular file inside the project: a path out of it,
    /// absolute, or through a link that leads out is refused and said.
    #[cfg(unix)]
    #[test]
    fn only_a_file_inside_the_project_is_opened() {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("p");
        std::fs::create_dir_all(project.join("docs")).unwrap();
        std::fs::write(project.join("docs/a.md"), "a").unwrap();
        std::fs::write(tmp.path().join("secret"), "s").unwrap();
        std::os::unix::fs::symlink(tmp.path().join("secret"), project.join("out")).unwrap();
        std::os::unix::fs::symlink("docs/a.md", project.join("in")).unwrap();

        let real = std::fs::canonicalize(project.join("docs/a.md")).unwrap();
        assert_eq!(openable(&project, "docs/a.md"), Ok(real.clone()));
        assert_eq!(openable(&project, "in"), Ok(real));
        let secret = tmp.path().join("secret");
        for bad in ["../secret", "out", secret.to_str().unwrap()] {
            let why = openable(&project, bad).unwrap_err();
            assert!(why.contains("leaves the project directory"), "{bad}: {why}");
        }
        assert!(
            openable(&project, "docs")
                .unwrap_err()
                .contains("is not a file")
        );
        assert!(
            openable(&project, "gone.md")
                .unwrap_err()
                .contains("does not exist")
        );
        // A name from a file is shown safely.
        let why = openable(&project, "x\u{1b}[2J").unwrap_err();
        assert!(!why.contains('\u{1b}'), "{why:?}");
    }
}
