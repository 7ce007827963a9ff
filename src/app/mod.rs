//! The application state machine: one owned [`Model`], the [`Event`]s that
//! change it, and a pure [`update`] that returns [`Effect`]s as data. No I/O
//! happens here, so every behaviour is tested without a terminal or disk.

use chrono::{DateTime, Utc};

use crate::model::Project;

/// What the user asked for, already decoded from keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Up,
    Down,
    Top,
    Bottom,
    PageUp,
    PageDown,
    Redraw,
    Quit,
}

#[derive(Debug)]
pub enum Event {
    Action(Action),
    /// A fresh read of every project (from the loader).
    Loaded(Vec<Project>),
    Resize,
}

/// What the runtime must do after an update.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    Render,
    /// Clear the terminal and redraw everything (Ctrl-L).
    FullRedraw,
    Quit,
}

#[derive(Debug)]
pub struct Model {
    pub roots: Vec<String>,
    pub projects: Vec<Project>,
    pub selected: usize,
    pub loading: bool,
    pub readonly: bool,
    pub now: DateTime<Utc>,
    /// Rows a page moves (set from the last rendered height).
    pub page: usize,
}

impl Model {
    pub fn new(roots: Vec<String>, readonly: bool, now: DateTime<Utc>) -> Self {
        Model {
            roots,
            projects: Vec::new(),
            selected: 0,
            loading: true,
            readonly,
            now,
            page: 10,
        }
    }

    pub fn selected_project(&self) -> Option<&Project> {
        self.projects.get(self.selected)
    }

    pub fn waiting_total(&self) -> usize {
        self.projects.iter().map(Project::needs_human).sum()
    }
}

pub fn update(m: &mut Model, event: Event) -> Vec<Effect> {
    let last = m.projects.len().saturating_sub(1);
    let before = m.selected;
    match event {
        Event::Action(Action::Quit) => return vec![Effect::Quit],
        Event::Action(Action::Redraw) => return vec![Effect::FullRedraw],
        Event::Action(Action::Up) => m.selected = m.selected.saturating_sub(1),
        Event::Action(Action::Down) => m.selected = (m.selected + 1).min(last),
        Event::Action(Action::Top) => m.selected = 0,
        Event::Action(Action::Bottom) => m.selected = last,
        Event::Action(Action::PageUp) => m.selected = m.selected.saturating_sub(m.page.max(1)),
        Event::Action(Action::PageDown) => m.selected = (m.selected + m.page.max(1)).min(last),
        Event::Resize => return vec![Effect::Render],
        Event::Loaded(projects) => {
            // Keep the selection on the same project (by path and format).
            let keep = m.selected_project().map(|p| (p.path.clone(), p.format));
            m.projects = projects;
            m.loading = false;
            m.selected = keep
                .and_then(|(path, format)| {
                    m.projects
                        .iter()
                        .position(|p| p.path == path && p.format == format)
                })
                .unwrap_or(0);
            return vec![Effect::Render];
        }
    }
    if m.selected != before {
        vec![Effect::Render]
    } else {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Format;
    use std::path::PathBuf;

    fn project(path: &str) -> Project {
        let mut p = Project::new(Format::Gsd, PathBuf::from(path), path.to_owned());
        p.id = path.to_owned();
        p
    }

    fn model(paths: &[&str]) -> Model {
        let mut m = Model::new(vec![".".into()], false, Utc::now());
        update(
            &mut m,
            Event::Loaded(paths.iter().map(|p| project(p)).collect()),
        );
        m
    }

    #[test]
    fn moving_renders_only_when_the_selection_changes() {
        let mut m = model(&["a", "b"]);
        assert_eq!(update(&mut m, Event::Action(Action::Up)), vec![]);
        assert_eq!(
            update(&mut m, Event::Action(Action::Down)),
            vec![Effect::Render]
        );
        assert_eq!(m.selected, 1);
        assert_eq!(update(&mut m, Event::Action(Action::Down)), vec![]);
        update(&mut m, Event::Action(Action::Top));
        assert_eq!(m.selected, 0);
        assert_eq!(
            update(&mut m, Event::Action(Action::Quit)),
            vec![Effect::Quit]
        );
    }

    #[test]
    fn reload_keeps_the_selected_project() {
        let mut m = model(&["a", "b", "c"]);
        update(&mut m, Event::Action(Action::Bottom));
        assert_eq!(m.selected_project().unwrap().id, "c");
        update(
            &mut m,
            Event::Loaded(vec![project("c"), project("a"), project("b")]),
        );
        assert_eq!(m.selected_project().unwrap().id, "c");
        assert_eq!(m.selected, 0);
    }
}
