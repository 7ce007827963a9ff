//! Each format's [`Shape`] and where its inbox items live ([`Place`]):
//! what the console needs to know of a format, said as data, so nothing
//! above `formats/` names a format's files (issue 21).

use crate::model::{Format, InboxItem, InboxKind, Part, Place, Project, Shape};

use super::{devloop, dwp, gsd, prd_master};

const PRD_MASTER: Shape = Shape {
    label: "PRD-master",
    badge: "PRD",
    primary: prd_master::STATE_FILE,
    parts: &[Part::Frontier],
    part_files: &[(Part::Frontier, prd_master::STATE_FILE)],
    older_events: false,
};

const GSD: Shape = Shape {
    label: "GSD",
    badge: "GSD",
    primary: gsd::STATE_FILE,
    parts: &[Part::Phases],
    part_files: &[(Part::Phases, gsd::STATE_FILE)],
    older_events: false,
};

const DWP: Shape = Shape {
    label: "DWP",
    badge: "DWP",
    primary: dwp::act::README,
    parts: &[Part::Tasks],
    part_files: &[(Part::Tasks, dwp::act::README)],
    older_events: false,
};

const DEVLOOP: Shape = Shape {
    label: "devloop",
    badge: "DEV",
    primary: devloop::PROJECT_FILE,
    parts: &[
        Part::Units,
        Part::Bugs,
        Part::Timeline,
        Part::Revisions,
        Part::Agents,
    ],
    part_files: &[
        (Part::Units, devloop::UNITS_FILE),
        (Part::Bugs, devloop::BUGS),
        (Part::Timeline, devloop::timeline::TIMELINE),
        (Part::Revisions, devloop::timeline::CHANGELOG),
    ],
    older_events: true,
};

impl Format {
    /// How this format's projects are shown.
    pub fn shape(self) -> &'static Shape {
        match self {
            Format::PrdMaster => &PRD_MASTER,
            Format::Gsd => &GSD,
            Format::Dwp => &DWP,
            Format::Devloop => &DEVLOOP,
        }
    }
}

impl Project {
    /// Where `item` lives: its own file when its reference names one the
    /// reading read (WAITING.json, an agent's state, the README), else
    /// the file its kind is kept in; and the part that shows it.
    pub fn place_of(&self, item: &InboxItem) -> Place {
        let read = |name: &str| self.files.iter().any(|f| f.file == name);
        let shape = self.format.shape();
        let file = if read(&item.reference) {
            item.reference.clone()
        } else {
            match (self.format, item.kind) {
                (Format::Devloop, InboxKind::Triage) => devloop::BUGS,
                (Format::Devloop, InboxKind::RetriesSpent) => devloop::UNITS_FILE,
                _ => shape.primary,
            }
            .to_owned()
        };
        let part = match (self.format, item.kind) {
            (Format::PrdMaster, InboxKind::Question | InboxKind::Evidence) => Some(Part::Frontier),
            (Format::Gsd, _) => Some(Part::Phases),
            (Format::Dwp, InboxKind::Blocked | InboxKind::Desync) => Some(Part::Tasks),
            (Format::Devloop, InboxKind::Resume) => Some(Part::Agents),
            (Format::Devloop, InboxKind::RetriesSpent | InboxKind::Triage) => Some(Part::Units),
            _ => None,
        };
        Place {
            file: Some(file),
            part,
        }
    }

    /// The state file of the agent `agent`, when the reading read it.
    pub fn agent_file(&self, agent: &str) -> Option<String> {
        if self.format != Format::Devloop {
            return None;
        }
        let file = format!("{}/{agent}.json", devloop::agents::STATE_DIR);
        self.files.iter().any(|f| f.file == file).then_some(file)
    }
}
