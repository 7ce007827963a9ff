//! The `:` palette's entries: the commands that apply here (from the
//! keymap, each with the keys that run it here) and the built-in themes,
//! then the projects whose name or id matches what is typed, loosely (its
//! letters in order), to go straight to one.

use super::reading::Identity;
use super::{Command, Focus, Model, Screen, Tab, commands, panes};

/// What an entry does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Go {
    Command(Command),
    /// Open this project's detail.
    Project(Identity),
    /// Switch to this built-in theme (`Model::themes`).
    Theme(&'static str),
}

/// One line of the palette.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub label: String,
    /// The keys that run it here, as help shows them ("" for none).
    pub keys: String,
    pub go: Go,
}

/// Projects listed at most (the palette shows a dozen rows).
const MOST_PROJECTS: usize = 50;

/// The entries for `input`: commands first, then projects by how well
/// their name matches (its start, a word's start, anywhere, its letters
/// in order), newest first among equals.
pub fn entries(m: &Model, input: &str) -> Vec<Entry> {
    let mut ranked: Vec<(u8, Entry)> = commands::ranked(m, input)
        .into_iter()
        .map(|(rank, cmd, desc)| {
            (
                rank,
                Entry {
                    label: desc.to_owned(),
                    keys: commands::keys_here(m, cmd),
                    go: Go::Command(cmd),
                },
            )
        })
        .collect();
    ranked.extend(themes(m, input));
    // Stable: the keymap's order among equals, the themes after.
    ranked.sort_by_key(|(rank, _)| *rank);
    let mut out: Vec<Entry> = ranked.into_iter().map(|(_, e)| e).collect();
    let needle = input.trim().to_lowercase();
    if needle.is_empty() {
        return out;
    }
    // The projects are held newest first; the sort below is stable.
    let mut found: Vec<(u8, usize)> = (0..m.projects.len())
        .filter_map(|i| {
            let p = &m.projects[i];
            let rank = [p.label().to_lowercase(), p.id.to_lowercase()]
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
                name = p.label(),
                format = p.format.as_str()
            ),
            keys: String::new(),
            go: Go::Project(super::reading::identity(p)),
        }
    }));
    out
}

/// The built-in themes matching `input` (in the language in force or in
/// English), the one in force marked.
fn themes(m: &Model, input: &str) -> Vec<(u8, Entry)> {
    let needle = input.to_lowercase();
    let label = |name: &str| {
        if m.theme_in_force.as_deref() == Some(name) {
            crate::t!("app.palette.theme_current", name = name)
        } else {
            crate::t!("app.palette.theme", name = name)
        }
    };
    m.themes
        .iter()
        .filter_map(|&name| {
            let shown = label(name);
            let english = {
                let _en = crate::i18n::scoped(crate::i18n::Lang::En);
                label(name)
            };
            let rank = [
                commands::rank(&shown, &needle),
                commands::rank(&english, &needle),
            ]
            .into_iter()
            .flatten()
            .min()?;
            Some((
                rank,
                Entry {
                    label: shown,
                    keys: String::new(),
                    go: Go::Theme(name),
                },
            ))
        })
        .collect()
}

/// Switch to the built-in theme `name`: the runtime draws in it from the
/// next frame (`NO_COLOR` still strips its colours).
pub fn switch_theme(m: &mut Model, name: &'static str) -> Vec<super::Effect> {
    m.theme_in_force = Some(name.to_owned());
    vec![super::Effect::Theme(name.to_owned()), super::Effect::Render]
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

/// Open the project `id` names on its Overview, clearing a list filter
/// that would hide it.
pub fn go_to_project(m: &mut Model, id: &Identity) {
    let Some(pi) = m.projects.iter().position(|p| super::reading::is(p, id)) else {
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
