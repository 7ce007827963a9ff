//! What a format's projects look like to a view: the parts of their
//! detail, the file each is read from, the project's own state file, its
//! name and badge (issue 21: formats describe themselves, the console
//! renders data). `formats` gives each format's ([`super::Format::shape`])
//! and where each inbox item lives ([`super::Project::place_of`]); nothing
//! above names a format's files.

/// A part of a project's detail, where its format has one (the console
/// shows a tab for each, between the Overview and the Findings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Part {
    /// The questions and research a PRD waits on.
    Frontier,
    /// A roadmap's phases and its decisions.
    Phases,
    /// A plan's tasks, their gates and checkpoint.
    Tasks,
    /// The unit DAG.
    Units,
    /// The bugs and their counts.
    Bugs,
    /// The event log, newest last.
    Timeline,
    /// The document revisions (a changelog).
    Revisions,
    /// The agents and what each is doing.
    Agents,
}

/// How a format's projects are shown.
#[derive(Debug, PartialEq, Eq)]
pub struct Shape {
    /// The format's name for people (`PRD-master`).
    pub label: &'static str,
    /// Three letters for a narrow column (`PRD`).
    pub badge: &'static str,
    /// The project's own state file, relative to its directory: what is
    /// opened when nothing more precise is selected.
    pub primary: &'static str,
    /// The parts of its detail, in order.
    pub parts: &'static [Part],
    /// The file a part is read from, where it is one file.
    pub part_files: &'static [(Part, &'static str)],
    /// Events older than the ones read can be read back from its log.
    pub older_events: bool,
}

impl Shape {
    /// The file `part` is read from, if it is one.
    pub fn file_of(&self, part: Part) -> Option<&'static str> {
        self.part_files
            .iter()
            .find(|(p, _)| *p == part)
            .map(|(_, f)| *f)
    }
}

/// Where an inbox item lives: the file it is in (relative to its
/// project), and the part of the detail that shows it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Place {
    /// The file it is in, relative to its project; `None` when unknown.
    pub file: Option<String>,
    /// The part of the detail that shows it; `None` when none does.
    pub part: Option<Part>,
}
