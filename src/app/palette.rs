//! The `:` palette's entries: the commands that apply here (from the
//! keymap), then the projects whose name or id matches what is typed,
//! loosely (its letters in order), to go straight to one.

use std::path::PathBuf;

use super::{Command, Focus, Model, Screen, Tab, commands, panes};
use crate::model::Format;

/// What an entry does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Go {
    Command(Command),
    /// Open this project's detail.
    Project(PathBuf, Format),
}

/// One line of the palette.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub label: String,
    pub go: Go,
}

/// Projects listed at most (the palette shows a dozen rows).
const MOST_PROJECTS: usize = 50;

/// The entries for `input`: commands first, then projects by how well
/// their name matches (its start, a word's start, anywhere, its letters
/// in order), newest first among equals.
pub fn entries(m: &Model, input: &str) -> Vec<Entry> {
    let mut out: Vec<Entry> = commands::matching(m, input)
        .into_iter()
        .map(|(cmd, desc)| Entry {
            label: desc.to_owned(),
            go: Go::Command(cmd),
        })
        .collect();
    let needle = input.trim().to_lowercase();
    if needle.is_empty() {
        return out;
    }
    // The projects are held newest first; the sort below is stable.
    let mut found: Vec<(u8, usize)> = (0..m.projects.len())
        .filter_map(|i| {
            let p = &m.projects[i];
            let rank = [p.name.to_lowercase(), p.id.to_lowercase()]
                .iter()
                .filter_map(|h| rank(h, &needle))
                .min()?;
            Some((rank, i))
        })
        .collect();
    found.sort_by_key(|&(rank, _)| rank);
    out.extend(found.into_iter().take(MOST_PROJECTS).map(|(_, i)| {
        let p = &m.projects[i];
        Entry {
            label: crate::t!(
                "app.palette.go_to",
                name = p.name,
                format = p.format.as_str()
            ),
            go: Go::Project(p.path.clone(), p.format),
        }
    }));
    out
}

/// How well `needle` matches `hay` (lower is better), if at all.
fn rank(hay: &str, needle: &str) -> Option<u8> {
    if hay.starts_with(needle) {
        Some(0)
    } else if hay
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| w.starts_with(needle))
    {
        Some(1)
    } else if hay.contains(needle) {
        Some(2)
    } else {
        let mut letters = hay.chars();
        needle
            .chars()
            .filter(|c| !c.is_whitespace())
            .all(|n| letters.any(|h| h == n))
            .then_some(3)
    }
}

/// Open the project at `path` on its Overview, clearing a list filter
/// that would hide it.
pub fn go_to_project(m: &mut Model, path: &PathBuf, format: Format) {
    let Some(pi) = m
        .projects
        .iter()
        .position(|p| &p.path == path && p.format == format)
    else {
        return;
    };
    m.screen = Screen::Projects;
    if !panes::projects(m).contains(&pi) {
        m.list.filter.clear();
    }
    if let Some(row) = panes::projects(m).iter().position(|&i| i == pi) {
        m.select_row(row);
    }
    m.focus = Focus::Detail;
    m.enter_tab(Tab::Overview);
}
