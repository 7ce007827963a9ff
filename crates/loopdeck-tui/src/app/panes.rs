//! The rows of every list the console shows, filtered, as indices into the
//! model. Shared by `update` (to bound selections) and `ui` (to draw), so
//! the two never disagree about what row N is.

use crate::model::{Format, InboxItem, Project, StatusKind};

use super::{Model, Tab};

/// Which detail tabs a project of `format` has, in order (1-9 pick them):
/// the Overview, a tab for each part its format has, the Findings.
pub fn tabs_for(format: Format) -> Vec<Tab> {
    std::iter::once(Tab::Overview)
        .chain(format.shape().parts.iter().map(|&p| Tab::of(p)))
        .chain([Tab::Findings])
        .collect()
}

fn matches(filter: &str, haystack: &[&str]) -> bool {
    if filter.is_empty() {
        return true;
    }
    let needle = filter.to_lowercase();
    haystack.iter().any(|h| h.to_lowercase().contains(&needle))
}

/// The order of the project list (`S` cycles it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Sort {
    /// Newest update first (the order the projects are held in).
    #[default]
    Updated,
    /// By name, ignoring case.
    Name,
    /// Most items waiting for a human first.
    Waiting,
    /// What needs a human first: waiting, stalled, then failed, blocked,
    /// rebuilt, running, planning, unknown, done.
    Status,
}

impl Sort {
    /// Every order, as `S` cycles through them.
    pub const ALL: [Sort; 4] = [Sort::Updated, Sort::Name, Sort::Waiting, Sort::Status];

    /// The order after this one.
    pub fn next(self) -> Sort {
        let at = Sort::ALL.iter().position(|s| *s == self).unwrap_or(0);
        Sort::ALL[(at + 1) % Sort::ALL.len()]
    }

    /// How the list title says it.
    pub fn label(self) -> &'static str {
        match self {
            Sort::Updated => crate::t!("app.sort.updated"),
            Sort::Name => crate::t!("app.sort.name"),
            Sort::Waiting => crate::t!("app.sort.waiting"),
            Sort::Status => crate::t!("app.sort.status"),
        }
    }
}

/// A project whose status says it waits for a human while nothing waits
/// for one: GSD's `paused` once its WAITING.json is answered (or before
/// any), a devloop project paused with no agent to resume. It is paused,
/// not waiting: drawn `⏸`, never the waiting `◆`.
pub fn paused_asking_nothing(p: &Project) -> bool {
    p.status_kind == StatusKind::Waiting && p.needs_human() == 0
}

/// Where a project goes when the list is sorted by status: by its status
/// kind, a paused project that asks nothing after what needs fixing or
/// confirming and before work going on.
fn urgency(p: &Project) -> u8 {
    if paused_asking_nothing(p) {
        return 4;
    }
    match p.status_kind {
        StatusKind::Waiting => 0,
        StatusKind::Failed => 1,
        StatusKind::Blocked => 2,
        StatusKind::Rebuilt => 3,
        StatusKind::Running => 5,
        StatusKind::Planning => 6,
        StatusKind::Unknown => 7,
        StatusKind::Done => 8,
    }
}

/// How the project list is grouped (`b` cycles it): not at all, by
/// format, by the root each project was found under, or by host (when
/// other hosts are watched).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Group {
    #[default]
    None,
    Format,
    Root,
    Host,
}

impl Group {
    /// Every grouping, as `b` cycles through them.
    pub const ALL: [Group; 4] = [Group::None, Group::Format, Group::Root, Group::Host];

    /// The grouping after this one; by host only when `hosts` (other
    /// hosts are watched).
    pub fn next(self, hosts: bool) -> Group {
        let cycle: &[Group] = if hosts { &Group::ALL } else { &Group::ALL[..3] };
        let at = cycle.iter().position(|g| *g == self).unwrap_or(0);
        cycle[(at + 1) % cycle.len()]
    }

    /// How the list title says it (`None`: ungrouped, the title says
    /// nothing).
    pub fn label(self) -> Option<&'static str> {
        match self {
            Group::None => None,
            Group::Format => Some(crate::t!("app.group.format")),
            Group::Root => Some(crate::t!("app.group.root")),
            Group::Host => Some(crate::t!("app.group.host")),
        }
    }
}

/// One group of the list: a format, or a root (its index in `Model::roots`,
/// command-line order; `None`: under none of them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupKey {
    Format(Format),
    Root(Option<usize>),
    /// A host (its index in `Model::hosts`); `None`: this machine.
    Host(Option<usize>),
}

/// The formats in the order their groups come (a fixed order).
const FORMAT_ORDER: [Format; 4] = Format::ALL;

/// The root `p` was found under: the first of `m.roots` (command-line
/// order) its path is in, as the loader keeps the first root's reading of
/// a project under overlapping roots.
/// A project's identity (directory and format) as a number, for a click to
/// name the project drawn under it.
pub fn project_key(p: &Project) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (&p.host, &p.path, p.format).hash(&mut h);
    h.finish()
}

pub fn root_of(m: &Model, p: &Project) -> Option<usize> {
    // Another host's project is under that host's roots, not these.
    if p.host.is_some() {
        return None;
    }
    // Nested roots (`loopdeck . sub`): the deepest one that holds it; the
    // first given among equals.
    m.roots
        .iter()
        .enumerate()
        .filter(|(_, r)| p.path.starts_with(std::path::Path::new(r)))
        .max_by_key(|&(i, r)| (std::path::Path::new(r).components().count(), usize::MAX - i))
        .map(|(i, _)| i)
}

/// The group `p` is in under the list's grouping (`None` when ungrouped).
pub fn group_of(m: &Model, p: &Project) -> Option<GroupKey> {
    match m.group {
        Group::None => None,
        Group::Format => Some(GroupKey::Format(p.format)),
        Group::Root => Some(GroupKey::Root(root_of(m, p))),
        Group::Host => Some(GroupKey::Host(host_of(m, p))),
    }
}

/// The index in `m.hosts` of `p`'s host (`None`: this machine).
pub fn host_of(m: &Model, p: &Project) -> Option<usize> {
    let host = p.host.as_ref()?;
    m.hosts.iter().position(|h| h.name == *host)
}

/// Where a group comes in the list: formats in a fixed order, roots in
/// command-line order (a project under none of them last).
fn group_rank(m: &Model, key: GroupKey) -> usize {
    match key {
        GroupKey::Format(f) => FORMAT_ORDER.iter().position(|g| *g == f).unwrap_or(0),
        GroupKey::Root(r) => r.unwrap_or(m.roots.len()),
        // This machine first, then the hosts in the order configured.
        GroupKey::Host(h) => h.map_or(0, |h| h + 1),
    }
}

/// A group's name as its header row says it, raw (the root as given on
/// the command line: the view makes it safe).
pub fn group_name(m: &Model, key: GroupKey) -> String {
    match key {
        GroupKey::Format(f) => f.shape().label.to_owned(),
        GroupKey::Root(r) => r
            .and_then(|r| m.roots.get(r))
            .cloned()
            .unwrap_or_else(|| crate::t!("app.group.no_root").to_owned()),
        GroupKey::Host(h) => h.and_then(|h| m.hosts.get(h)).map_or_else(
            || crate::t!("app.group.this_machine").to_owned(),
            |h| h.name.to_string(),
        ),
    }
}

/// A row of the project list as drawn: a group's header (not selectable),
/// or a project (its index in `Model::projects`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListRow {
    /// A group, with how many of its projects are shown and how many
    /// items wait in them.
    Header {
        key: GroupKey,
        projects: usize,
        waiting: usize,
    },
    Project(usize),
}

/// The rows of the project list as drawn: [`projects`], with a header
/// before each group when the list is grouped. A group the filter empties
/// has no header.
pub fn list_rows(m: &Model) -> Vec<ListRow> {
    let rows = projects(m);
    let mut out = Vec::with_capacity(rows.len() + 4);
    let mut at = 0;
    while at < rows.len() {
        let key = group_of(m, &m.projects[rows[at]]);
        let len = rows[at..]
            .iter()
            .take_while(|&&i| group_of(m, &m.projects[i]) == key)
            .count();
        if let Some(key) = key {
            out.push(ListRow::Header {
                key,
                projects: len,
                waiting: rows[at..at + len]
                    .iter()
                    .map(|&i| m.projects[i].needs_human())
                    .sum(),
            });
        }
        out.extend(rows[at..at + len].iter().map(|&i| ListRow::Project(i)));
        at += len;
    }
    out
}

/// Indices of the projects that pass the list filter, in list order: by
/// group when grouped (`m.group`), then `m.sort` (ties keep the newest
/// update first). Header rows are not here: the selection (`list.selected`)
/// is a row of this, so it never lands on one.
pub fn projects(m: &Model) -> Vec<usize> {
    let mut rows: Vec<usize> = m
        .projects
        .iter()
        .enumerate()
        .filter(|(_, p)| {
            // Unfiltered, no row's text is made (asked for every project
            // at each frame and each reading).
            if m.list.filter.is_empty() {
                return true;
            }
            // A stalled project's mark is a column too (`/stalled`).
            let stalled = p
                .stall(m.now, &m.stall)
                .map(|s| s.shown())
                .unwrap_or_default();
            matches(
                &m.list.filter,
                &[&p.label(), &p.id, &p.status, p.format.as_str(), &stalled],
            )
        })
        .map(|(i, _)| i)
        .collect();
    let p = &m.projects;
    // Stable sorts: the projects are held newest first.
    match m.sort {
        Sort::Updated => {}
        Sort::Name => rows.sort_by_cached_key(|&i| p[i].name.to_lowercase()),
        Sort::Waiting => rows.sort_by_key(|&i| std::cmp::Reverse(p[i].needs_human())),
        // What needs a human first: items waiting, then stalled work,
        // then by status.
        Sort::Status => rows.sort_by_cached_key(|&i| {
            (
                p[i].needs_human() == 0,
                p[i].stall(m.now, &m.stall).is_none(),
                urgency(&p[i]),
            )
        }),
    }
    // Groups in their order, each keeping the sort within it.
    if m.group != Group::None {
        rows.sort_by_cached_key(|&i| group_of(m, &p[i]).map(|k| group_rank(m, k)));
    }
    rows
}

/// Every inbox item across projects, oldest first (unknown times last),
/// those an `[[escalate]]` rule ranks first before the rest, as (project
/// index, item index), filtered.
pub fn inbox(m: &Model) -> Vec<(usize, usize)> {
    let mut rows: Vec<(usize, usize, &InboxItem)> = m
        .projects
        .iter()
        .enumerate()
        .flat_map(|(pi, p)| {
            p.inbox
                .iter()
                .enumerate()
                .map(move |(ii, item)| (pi, ii, item))
        })
        // Unfiltered, no row's text is made (a title is worded in the
        // language spoken each time); a filter finds it in English too.
        .filter(|(pi, _, item)| {
            m.inbox.filter.is_empty()
                || matches(
                    &m.inbox.filter,
                    &[
                        &item.title.shown(),
                        &item.title.en(),
                        &item.reference,
                        &m.projects[*pi].label(),
                        item.kind.label(),
                        &m.projects[*pi].options_at(item, m.now).join(" / "),
                    ],
                )
        })
        .collect();
    if m.rules.is_empty() {
        rows.sort_by(|a, b| crate::model::oldest_first(a.2.since, b.2.since));
        return rows.into_iter().map(|(pi, ii, _)| (pi, ii)).collect();
    }
    // What an `[[escalate]]` rule ranks first comes first, oldest first.
    let mut ranked: Vec<(bool, usize, usize, &InboxItem)> = rows
        .into_iter()
        .map(|(pi, ii, item)| {
            let first = crate::model::escalate::ranks_first(&m.rules, &m.projects[pi], item, m.now);
            (first, pi, ii, item)
        })
        .collect();
    ranked.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then_with(|| crate::model::oldest_first(a.3.since, b.3.since))
    });
    ranked.into_iter().map(|(_, pi, ii, _)| (pi, ii)).collect()
}

/// A row of the Frontier tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrontierRow {
    Question(usize),
    Research(usize),
    Blocked(usize),
}

pub fn frontier(p: &Project, filter: &str) -> Vec<FrontierRow> {
    let f = &p.frontier;
    let hay = |q: &crate::model::Question| {
        matches(
            filter,
            &[
                &q.id,
                &q.title,
                q.owner.as_deref().unwrap_or(""),
                q.priority.as_deref().unwrap_or(""),
                &q.waiting_on.join(", "),
            ],
        )
    };
    let mut rows = Vec::new();
    rows.extend(
        f.questions
            .iter()
            .enumerate()
            .filter(|(_, q)| hay(q))
            .map(|(i, _)| FrontierRow::Question(i)),
    );
    rows.extend(
        f.research
            .iter()
            .enumerate()
            .filter(|(_, q)| hay(q))
            .map(|(i, _)| FrontierRow::Research(i)),
    );
    rows.extend(
        f.blocked
            .iter()
            .enumerate()
            .filter(|(_, q)| hay(q))
            .map(|(i, _)| FrontierRow::Blocked(i)),
    );
    rows
}

/// A row of the Phases & Decisions tab (GSD).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PhaseRow {
    Decision(usize),
    Blocker(usize),
}

pub fn phases(p: &Project, filter: &str) -> Vec<PhaseRow> {
    let mut rows: Vec<PhaseRow> = p
        .decisions
        .iter()
        .enumerate()
        .filter(|(_, d)| {
            matches(
                filter,
                &[
                    &d.summary,
                    d.stage.as_deref().unwrap_or(""),
                    d.rationale.as_deref().unwrap_or(""),
                ],
            )
        })
        .map(|(i, _)| PhaseRow::Decision(i))
        .collect();
    rows.extend(
        p.blockers
            .iter()
            .enumerate()
            .filter(|(_, b)| matches(filter, &[&b.shown()]))
            .map(|(i, _)| PhaseRow::Blocker(i)),
    );
    rows
}

pub fn tasks(p: &Project, filter: &str) -> Vec<usize> {
    let t = &p.detail.tasks;
    (0..t.len())
        .filter(|&i| matches(filter, &[&t[i].id, &t[i].title, &t[i].status]))
        .collect()
}

/// Units in DAG order: by layer (upstream first; units on a cycle last),
/// then by id.
pub fn units(p: &Project, filter: &str) -> Vec<usize> {
    let u = &p.detail.units;
    let mut rows: Vec<usize> = (0..u.len())
        .filter(|&i| {
            let layer = u[i]
                .layer
                .map_or_else(|| "∞".to_owned(), |l| format!("L{l}"));
            matches(
                filter,
                &[
                    &u[i].id,
                    &u[i].kind,
                    &u[i].status,
                    &layer,
                    &u[i].depends_on.join(", "),
                    &u[i].downstream.join(", "),
                ],
            )
        })
        .collect();
    rows.sort_by(|&a, &b| {
        let key = |i: usize| (u[i].layer.unwrap_or(usize::MAX), u[i].id.clone());
        key(a).cmp(&key(b))
    });
    rows
}

pub fn bugs(m: &Model, p: &Project) -> Vec<usize> {
    let b = &p.detail.bugs;
    let f = &m.bug_filter;
    (0..b.len())
        .filter(|&i| f.status.as_deref().is_none_or(|s| b[i].status == s))
        .filter(|&i| f.severity.as_deref().is_none_or(|s| b[i].severity == s))
        .filter(|&i| {
            matches(
                m.pane(Tab::Bugs).filter.as_str(),
                &[&b[i].id, &b[i].title, &b[i].status, &b[i].severity],
            )
        })
        .collect()
}

/// Timeline events, oldest first (newest at the bottom).
pub fn timeline(p: &Project, filter: &str) -> Vec<usize> {
    let t = &p.detail.timeline;
    (0..t.len())
        .filter(|&i| matches(filter, &[&t[i].source, &t[i].kind, &t[i].summary]))
        .collect()
}

/// Document revisions, newest first (the changelog is oldest first).
pub fn revisions(p: &Project, filter: &str) -> Vec<usize> {
    let r = &p.detail.revisions;
    (0..r.len())
        .rev()
        .filter(|&i| {
            let e = &r[i].event;
            matches(
                filter,
                &[
                    &e.kind,
                    &r[i].rev,
                    &e.source,
                    &e.summary,
                    &r[i].changed.sections_added.join(" "),
                    &r[i].changed.sections_changed.join(" "),
                    &r[i].changed.sections_removed.join(" "),
                    &r[i].changed.units_added.join(" "),
                    &r[i].changed.units_changed.join(" "),
                    &r[i].changed.units_removed.join(" "),
                ],
            )
        })
        .collect()
}

/// The identity of a revision: its kind, number and time.
pub fn revision_key(r: &crate::model::Revision) -> String {
    format!("{}|{}|{:?}", r.event.kind, r.rev, r.event.at)
}

pub fn agents(p: &Project, filter: &str) -> Vec<usize> {
    let a = &p.detail.agents;
    (0..a.len())
        .filter(|&i| {
            matches(
                filter,
                &[
                    &a[i].agent,
                    &a[i].status,
                    a[i].step.as_deref().unwrap_or(""),
                    a[i].doing.as_deref().unwrap_or(""),
                ],
            )
        })
        .collect()
}

/// Findings, errors first, then problems as rows after them.
pub fn findings(p: &Project, filter: &str) -> Vec<usize> {
    let f = &p.findings;
    let mut rows: Vec<usize> = (0..f.len())
        .filter(|&i| {
            matches(
                filter,
                &[
                    &f[i].code,
                    &f[i].message,
                    match f[i].level {
                        crate::model::Level::Error => "error",
                        crate::model::Level::Warning => "warn",
                        crate::model::Level::Info => "info",
                    },
                    f[i].reference.as_deref().unwrap_or(""),
                ],
            )
        })
        .collect();
    rows.sort_by_key(|&i| std::cmp::Reverse(f[i].level));
    rows
}

/// How many rows the current detail tab of `p` has.
pub fn detail_len(m: &Model, p: &Project) -> usize {
    let filter = m.pane(m.tab).filter.as_str();
    match m.tab {
        Tab::Overview => overview_len(p),
        Tab::Frontier => frontier(p, filter).len(),
        Tab::Phases => phases(p, filter).len(),
        Tab::Tasks => tasks(p, filter).len(),
        Tab::Units => units(p, filter).len(),
        Tab::Bugs => bugs(m, p).len(),
        Tab::Timeline => timeline(p, filter).len(),
        Tab::Revisions => revisions(p, filter).len(),
        Tab::Agents => agents(p, filter).len(),
        Tab::Findings => findings(p, filter).len() + p.problems.len(),
    }
}

/// A stable identity for every row of `tab` (after filtering), in row
/// order, so a reload can find the selected item again by what it is, not
/// where it was.
pub fn keys(m: &Model, p: &Project, tab: Tab) -> Vec<String> {
    let filter = m.pane(tab).filter.as_str();
    match tab {
        Tab::Overview => Vec::new(),
        Tab::Frontier => frontier(p, filter)
            .into_iter()
            .map(|r| match r {
                FrontierRow::Question(i) => p.frontier.questions[i].id.clone(),
                FrontierRow::Research(i) => p.frontier.research[i].id.clone(),
                FrontierRow::Blocked(i) => p.frontier.blocked[i].id.clone(),
            })
            .collect(),
        Tab::Phases => phases(p, filter)
            .into_iter()
            .map(|r| match r {
                PhaseRow::Decision(i) => format!("d|{}", p.decisions[i].summary),
                PhaseRow::Blocker(i) => format!("b|{}", p.blockers[i].en()),
            })
            .collect(),
        Tab::Tasks => tasks(p, filter)
            .into_iter()
            .map(|i| p.detail.tasks[i].id.clone())
            .collect(),
        Tab::Units => units(p, filter)
            .into_iter()
            .map(|i| p.detail.units[i].id.to_string())
            .collect(),
        Tab::Bugs => bugs(m, p)
            .into_iter()
            .map(|i| p.detail.bugs[i].id.clone())
            .collect(),
        Tab::Timeline => timeline(p, filter)
            .into_iter()
            .map(|i| {
                let e = &p.detail.timeline[i];
                format!("{:?}|{}|{}|{}", e.at, e.source, e.kind, e.summary)
            })
            .collect(),
        Tab::Revisions => revisions(p, filter)
            .into_iter()
            .map(|i| revision_key(&p.detail.revisions[i]))
            .collect(),
        Tab::Agents => agents(p, filter)
            .into_iter()
            .map(|i| p.detail.agents[i].agent.clone())
            .collect(),
        Tab::Findings => findings(p, filter)
            .into_iter()
            .map(|i| {
                let f = &p.findings[i];
                format!(
                    "{}|{}|{}",
                    f.code,
                    f.reference.as_deref().unwrap_or(""),
                    f.message
                )
            })
            .chain(
                p.problems
                    .iter()
                    .map(|pr| format!("problem|{}|{}", pr.file, pr.reason)),
            )
            .collect(),
    }
}

/// The identity of an inbox row: its project and the item's reference.
pub fn inbox_key(m: &Model, row: (usize, usize)) -> (std::path::PathBuf, String) {
    let p = &m.projects[row.0];
    (
        p.path.clone(),
        format!("{:?}|{}", p.inbox[row.1].kind, p.inbox[row.1].reference),
    )
}

/// About how many lines the Overview needs (its scroll range); the view
/// wraps to the real width and clamps.
pub fn overview_len(p: &Project) -> usize {
    let text = |s: &str| 1 + s.chars().count() / 50;
    let r = &p.resume;
    let fields: usize = [&r.stopped_at, &r.reason, &r.waiting_for]
        .iter()
        .filter_map(|v| v.as_ref())
        .map(|v| text(&v.shown()))
        .chain(p.stage.as_ref().map(|s| text(&s.shown())))
        .sum();
    let inbox: usize = p
        .inbox
        .iter()
        .map(|i| text(&i.title.shown()) + i.options.len())
        .sum();
    8 + fields
        + inbox
        + r.read_first.len()
        + usize::from(!r.completed.is_empty())
        + text(&p.statusline)
        + 12
}
