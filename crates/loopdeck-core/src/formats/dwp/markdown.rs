//! What loopdeck reads from a plan's Markdown: the README's task checkboxes
//! (the human source of truth), its `Approval:`, `Plan Status: N/M` and
//! `**Standard:**` lines, task-file links and Lite anchors, and a task log's
//! `Status:` line. Fenced code blocks (``` or ~~~) are examples, never
//! plan state: their lines are blanked before anything is read.

/// One README checkbox that names a task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Checkbox {
    pub task: u64,
    pub checked: bool,
    /// The text after `Task N`, without its link.
    pub title: String,
    /// The task file the line links to (`N.task_*.md`), if any.
    pub file: Option<String>,
    /// 1-based line number in the README.
    pub line: usize,
}

testing_pub!(
    /// What the README says, outside fenced code.
    #[derive(Debug, Clone, Default, PartialEq, Eq)]
    pub struct Readme {
        pub(crate) checkboxes: Vec<Checkbox>,
        /// The `Approval:` line's value, normalised (`pre-approved` → `pre_approved`).
        pub(crate) approval: Option<String>,
        /// `Plan Status: N/M`.
        pub(crate) plan_status: Option<(u64, u64)>,
        /// `Plan Status: materializing`.
        pub(crate) materializing: bool,
        /// `**Standard:** DWP spec X.Y.Z`.
        pub(crate) standard: Option<String>,
        /// The README with fenced blocks blanked.
        clean: String,
        /// Link targets and `{#anchor}`s, indexed once on first use: the
        /// checks ask about every task, and a scan per task is quadratic on a
        /// large plan.
        index: std::cell::OnceCell<Index>,
    }
);

#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Index {
    /// Every `](target)` target, with a leading `./` removed.
    links: std::collections::HashSet<String>,
    /// How often each `{#anchor}` occurs.
    anchors: std::collections::HashMap<String, usize>,
    /// For the first heading carrying each anchor: the byte range of its
    /// body (to the next `## ` heading).
    bodies: std::collections::HashMap<String, (usize, usize)>,
    /// Does any link point at a task file (`N.task_*.md`)?
    has_task_links: bool,
    /// `inline_log_pending`'s answers.
    pending: std::cell::RefCell<std::collections::HashMap<String, bool>>,
}

impl Readme {
    testing_pub!(
        /// Read a plan's README (fenced blocks blanked first).
        pub fn parse(text: &str) -> Readme {
            let clean = unfenced(text);
            let mut r = Readme::default();
            // The indentation of the checkbox whose item continues on the next
            // lines (`  See: [N.task_x.md](./N.task_x.md)`).
            let mut open_item: Option<usize> = None;
            for (i, line) in clean.lines().enumerate() {
                let indent = line.len() - line.trim_start().len();
                if let Some(b) = checkbox(line, i + 1) {
                    r.checkboxes.push(b);
                    open_item = Some(indent);
                } else if open_item.is_some_and(|at| indent > at && !line.trim().is_empty()) {
                    if let Some(b) = r.checkboxes.last_mut().filter(|b| b.file.is_none()) {
                        b.file = link_target(line);
                    }
                } else {
                    open_item = None;
                }
                if r.approval.is_none() {
                    r.approval = labelled(line, "Approval").map(normalise_word);
                }
                if r.standard.is_none() {
                    r.standard = labelled(line, "Standard").and_then(standard_version);
                }
                if let Some(pos) = line.find("Plan Status:") {
                    let rest = line
                        .get(pos + "Plan Status:".len()..)
                        .unwrap_or_default()
                        .trim_start_matches(['*', ' ', '\t']);
                    if rest.starts_with("materializing") {
                        r.materializing = true;
                    }
                    if r.plan_status.is_none() {
                        r.plan_status = fraction(rest);
                    }
                }
            }
            r.clean = clean;
            r
        }
    );

    fn index(&self) -> &Index {
        self.index.get_or_init(|| {
            let mut ix = Index::default();
            for (i, _) in self.clean.match_indices("](") {
                let rest = self.clean.get(i + 2..).unwrap_or_default();
                if let Some(target) = closed_by(rest, ')', '[') {
                    ix.links
                        .insert(target.strip_prefix("./").unwrap_or(target).to_owned());
                }
            }
            for (i, _) in self.clean.match_indices("{#") {
                let rest = self.clean.get(i + 1..).unwrap_or_default();
                if let Some(anchor) = closed_by(rest, '}', '{') {
                    *ix.anchors.entry(anchor.to_owned()).or_default() += 1;
                }
            }
            // Headings with an anchor, and where their bodies end.
            let mut open: Option<(String, usize)> = None;
            let mut offset = 0;
            for line in self.clean.split_inclusive('\n') {
                let start = offset;
                offset += line.len();
                let t = line.trim_start();
                if !t.starts_with('#') {
                    continue;
                }
                if t.starts_with("## ")
                    && let Some((anchor, from)) = open.take()
                {
                    ix.bodies.entry(anchor).or_insert((from, start));
                }
                let anchor = t
                    .find("{#")
                    .and_then(|i| closed_by(&t[i + 1..], '}', '{'))
                    .map(str::to_owned);
                if let Some(a) = anchor {
                    if let Some((prev, from)) = open.take() {
                        ix.bodies.entry(prev).or_insert((from, start));
                    }
                    open = Some((a, offset));
                }
            }
            if let Some((anchor, from)) = open {
                ix.bodies.entry(anchor).or_insert((from, self.clean.len()));
            }
            ix.has_task_links = ix
                .links
                .iter()
                .any(|t| task_file_at(&format!("{t})")).is_some());
            ix
        })
    }

    testing_pub!(
        /// Does the README link to `file` (`](file)` or `](./file)`)?
        pub fn links_to(&self, file: &str) -> bool {
            self.index()
                .links
                .contains(file.strip_prefix("./").unwrap_or(file))
        }
    );

    testing_pub!(
        /// Does the README link to any task file (`](./N.task_…)` or `](N.task_…)`)?
        pub fn has_task_links(&self) -> bool {
            self.index().has_task_links
        }
    );

    testing_pub!(
        /// Does the Lite task at `anchor` say, in its own log, that it is still
        /// pending? (Answered once per anchor.)
        pub fn inline_log_pending(&self, anchor: &str) -> bool {
            if let Some(v) = self.index().pending.borrow().get(anchor) {
                return *v;
            }
            let v = self
                .inline_task(anchor)
                .is_some_and(|b| log_says_pending(&b));
            self.index()
                .pending
                .borrow_mut()
                .insert(anchor.to_owned(), v);
            v
        }
    );

    testing_pub!(
        /// How often `{ANCHOR}` (a Lite task's `{#task-N}`) occurs.
        pub fn anchor_count(&self, anchor: &str) -> usize {
            self.index().anchors.get(anchor).copied().unwrap_or(0)
        }
    );

    testing_pub!(
        /// The body of the Lite task whose heading carries `{ANCHOR}`: from the
        /// heading to the next `## ` heading.
        pub fn inline_task(&self, anchor: &str) -> Option<String> {
            let &(from, to) = self.index().bodies.get(anchor)?;
            let body = self.clean.get(from..to).unwrap_or_default();
            Some(body.lines().collect::<Vec<_>>().join("\n"))
        }
    );
}

testing_pub!(
    /// `text` with every line inside a fenced block (and the fences) blanked,
    /// keeping line positions. A fence closes on the same character repeated at
    /// least as often as it opened.
    pub fn unfenced(text: &str) -> String {
        let mut fence: Option<(char, usize)> = None;
        let mut out = String::with_capacity(text.len());
        for line in text.lines() {
            let t = line.trim_start();
            let marker = ['`', '~'].into_iter().find_map(|c| {
                let n = t.chars().take_while(|x| *x == c).count();
                (n >= 3).then_some((c, n))
            });
            match (marker, fence) {
                (Some(m), None) => fence = Some(m),
                (Some((c, n)), Some((fc, fn_))) if c == fc && n >= fn_ => fence = None,
                (None, None) => out.push_str(line),
                _ => {}
            }
            out.push('\n');
        }
        out
    }
);

/// A checkbox line naming a task: `- [x] Task 3: …` (also `*`/`+` bullets
/// and `[X]`), or one whose only task reference is a `N.task_*.md` link.
fn checkbox(line: &str, number: usize) -> Option<Checkbox> {
    let t = line.trim_start();
    let t = t.strip_prefix(['-', '*', '+'])?;
    if !t.starts_with([' ', '\t']) {
        return None;
    }
    let t = t.trim_start();
    let checked = match t.get(..3)? {
        "[x]" | "[X]" => true,
        "[ ]" => false,
        _ => return None,
    };
    let rest = t.get(3..)?;
    let file = link_target(rest);
    let (task, title) = match task_number(rest) {
        Some((n, after)) => (n, title_of(after)),
        None => {
            let f = file.as_deref()?;
            let n: u64 = f.split('.').next()?.parse().ok()?;
            (n, title_of(rest))
        }
    };
    Some(Checkbox {
        task,
        checked,
        title,
        file,
        line: number,
    })
}

/// The first `Task N` (any case, whole words) in `s`: N and the text after it.
fn task_number(s: &str) -> Option<(u64, &str)> {
    let lower = s.to_ascii_lowercase();
    for (i, _) in lower.match_indices("task") {
        let before_ok = lower
            .get(..i)
            .and_then(|b| b.chars().next_back())
            .is_none_or(|c| !c.is_alphanumeric() && c != '_');
        if !before_ok {
            continue;
        }
        let after = s.get(i + 4..)?;
        let spaced = after.trim_start_matches([' ', '\t']);
        if spaced.len() == after.len() {
            continue;
        }
        let digits: String = spaced.chars().take_while(char::is_ascii_digit).collect();
        if digits.is_empty() {
            continue;
        }
        let rest = spaced.get(digits.len()..)?;
        if rest
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            continue;
        }
        if let Ok(n) = digits.parse() {
            return Some((n, rest));
        }
    }
    None
}

/// The task file a Markdown link in `s` points at (`](./3.task_x.md)`).
fn link_target(s: &str) -> Option<String> {
    s.match_indices("](")
        .find_map(|(i, _)| task_file_at(s.get(i + 2..)?))
}

/// `N.task_*.md` at the start of `s` (after an optional `./`), up to `)`.
fn task_file_at(s: &str) -> Option<String> {
    let s = s.strip_prefix("./").unwrap_or(s);
    let target = closed_by(s, ')', '[')?;
    let (num, rest) = target.split_once('.')?;
    let ok = !num.is_empty()
        && num.chars().all(|c| c.is_ascii_digit())
        && rest.starts_with("task_")
        && rest.ends_with(".md");
    ok.then(|| target.to_owned())
}

/// `s` up to `close`, when it closes on the same line before `reopen` and
/// within a bounded window: a link target or an anchor never spans lines,
/// so a line of thousands of unclosed `](` stays linear.
fn closed_by(s: &str, close: char, reopen: char) -> Option<&str> {
    const WINDOW: usize = 1024;
    let mut cut = s.len().min(WINDOW);
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    let window = &s[..cut];
    // Brackets end a target as well: `](](](` is over at its first `]`.
    let end = window.find([close, reopen, '\n', ']'])?;
    window[end..].starts_with(close).then(|| &window[..end])
}

/// A checkbox's title: the text after `Task N`, up to its link.
fn title_of(after: &str) -> String {
    let cut = after
        .find('[')
        .map_or(after, |i| after.get(..i).unwrap_or(after));
    cut.trim_matches(|c: char| c.is_whitespace() || matches!(c, ':' | '-' | '—' | '–' | '*'))
        .to_owned()
}

/// The value of a `Label: value` line, in any of the ways plans write it:
/// `Approval: pending`, `**Approval:** approved`, `- **Approval**: pending`.
pub(crate) fn labelled<'a>(line: &'a str, label: &str) -> Option<&'a str> {
    let t = line
        .trim_start()
        .trim_start_matches(['-', '*', '+', ' ', '\t', '>']);
    let rest = t.strip_prefix(label)?;
    let rest = rest.trim_start_matches('*').strip_prefix(':')?;
    let value = rest.trim_start_matches('*').trim();
    (!value.is_empty()).then_some(value)
}

/// `pending`, `Approved.`, `pre-approved (by the user)` → `pending`,
/// `approved`, `pre_approved`.
fn normalise_word(value: &str) -> String {
    let word: String = value
        .trim_matches(['`', '*', '"', '\''])
        .chars()
        .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '-'))
        .collect();
    word.to_lowercase().replace('-', "_")
}

/// `DWP spec 5.0.0` → `5.0.0`.
fn standard_version(value: &str) -> Option<String> {
    let v = value.trim_start_matches(['`', '*']);
    let lower = v.to_ascii_lowercase();
    let rest = lower.strip_prefix("dwp spec")?.trim_start();
    let version: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let version = version.trim_end_matches('.');
    (!version.is_empty()).then(|| version.to_owned())
}

/// `2/4 completed` → (2, 4).
fn fraction(s: &str) -> Option<(u64, u64)> {
    let (a, b) = s.split_once('/')?;
    let a = a.trim();
    let b = b.trim_start();
    let n: u64 = a.parse().ok()?;
    let digits: String = b.chars().take_while(char::is_ascii_digit).collect();
    Some((n, digits.parse().ok()?))
}

testing_pub!(
    /// Does a task's log (its `Completion & Log` or `Completion log` section)
    /// still say `Status: pending`? Only that explicit line counts; prose is
    /// never judged.
    pub fn log_says_pending(body: &str) -> bool {
        let clean = unfenced(body);
        let mut in_log = false;
        for line in clean.lines() {
            let t = line.trim();
            let lower = t.to_lowercase();
            let heading = t.starts_with('#');
            let label = lower.starts_with("**");
            if heading || label {
                let name = lower.trim_start_matches(['#', '*', ' ']);
                let name = name.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
                let name = name.trim_start();
                let is_log = name.starts_with("completion & log") || name.starts_with("completion log");
                if is_log {
                    in_log = true;
                    // A bold label may carry its value on the same line.
                    if label && status_pending(name.split_once(':').map_or("", |x| x.1)) {
                        return true;
                    }
                    continue;
                }
                if heading || KNOWN_LABELS.iter().any(|l| name.starts_with(l)) {
                    in_log = false;
                }
            }
            if in_log && status_pending(&lower) {
                return true;
            }
        }
        false
    }
);

/// Bold field labels of a task record (a log section ends at the next one).
const KNOWN_LABELS: &[&str] = &[
    "context",
    "goal",
    "touched surface",
    "acceptance criteria",
    "validation",
    "instructions",
    "read before starting",
    "skills disposition",
];

fn status_pending(lower: &str) -> bool {
    let t = lower
        .trim()
        .trim_start_matches(['-', '*', ' '])
        .trim_start_matches('*');
    let Some(rest) = t.strip_prefix("status") else {
        return false;
    };
    let rest = rest.trim_start_matches('*').trim_start();
    let Some(rest) = rest.strip_prefix(':') else {
        return false;
    };
    let rest = rest.trim_start_matches(['*', ' ', '`']);
    rest.starts_with("pending")
        && !rest
            .get("pending".len()..)
            .and_then(|r| r.chars().next())
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {

    #[test]
    fn targets_and_anchors_close_on_their_own_line() {
        assert_eq!(closed_by("1.task_a.md) x", ')', '['), Some("1.task_a.md"));
        assert_eq!(
            closed_by("no close\n)", ')', '['),
            None,
            "never across a line"
        );
        assert_eq!(closed_by("](](](", ')', '['), None);
        let long = "x".repeat(5000) + ")";
        assert_eq!(closed_by(&long, ')', '['), None, "bounded window");
        assert_eq!(closed_by("#task-2} 完成", '}', '{'), Some("#task-2"));
        // A line of unclosed links is read in one pass, and still parsed.
        let r = Readme::parse(&format!(
            "- [ ] Task 1 [t](1.task_a.md)\n{}",
            "](".repeat(100_000)
        ));
        assert!(r.links_to("./1.task_a.md"));
        assert!(!r.links_to("2.task_b.md"));
    }

    use super::*;

    fn boxes(r: &Readme) -> Vec<(u64, bool)> {
        r.checkboxes.iter().map(|b| (b.task, b.checked)).collect()
    }

    #[test]
    fn checkboxes_outside_fences_only() {
        let text = "# Plan\n\nApproval: pending\n\n```markdown\n- [x] Task 4: Final Review\n- [ ] Task 1: x\n```\n\n~~~~\n- [x] Task 9\n~~~\n- [x] Task 8 still fenced\n~~~~\n\n## 4. Task List & Links\n\n- [x] Task 1: Define the index schema\n  See: [1.task_define.md](./1.task_define.md)\n- [X] Task 2: Build — [2.task_build.md](2.task_build.md)\n* [ ] task 3 query API\n- [ ] [4.task_final_review.md](./4.task_final_review.md)\n- [ ] Tasks 5 are not a task\n- [ ] Subtask 6 is not one either\n";
        let r = Readme::parse(text);
        assert_eq!(
            boxes(&r),
            vec![(1, true), (2, true), (3, false), (4, false)]
        );
        assert_eq!(r.checkboxes[0].title, "Define the index schema");
        assert_eq!(
            r.checkboxes[0].file.as_deref(),
            Some("1.task_define.md"),
            "a link on the item's next line"
        );
        assert_eq!(r.checkboxes[1].title, "Build");
        assert_eq!(
            r.checkboxes[1].file.as_deref(),
            Some("2.task_build.md"),
            "a link on the checkbox line"
        );
        assert_eq!(r.checkboxes[2].title, "query API");
        assert_eq!(
            r.checkboxes[3].file.as_deref(),
            Some("4.task_final_review.md")
        );
        assert_eq!(r.approval.as_deref(), Some("pending"));
        assert!(r.links_to("1.task_define.md"));
        assert!(r.links_to("2.task_build.md"));
        assert!(!r.links_to("3.task_query.md"));
        assert!(r.has_task_links());
    }

    #[test]
    fn indented_checkboxes_count_as_published() {
        // The real interrupted-plan fixture indents its README by 4 spaces.
        let text = "    ## 4. Task List\n\n    - [x] Task 1: Add greeter\n      See: [1.task_add_greeter.md](./1.task_add_greeter.md)\n- [ ] Task 2: Add math helper\n      See: [2.task_add_math_helper.md](./2.task_add_math_helper.md)\n";
        let r = Readme::parse(text);
        assert_eq!(boxes(&r), vec![(1, true), (2, false)]);
        let files: Vec<Option<&str>> = r.checkboxes.iter().map(|b| b.file.as_deref()).collect();
        assert_eq!(
            files,
            vec![
                Some("1.task_add_greeter.md"),
                Some("2.task_add_math_helper.md")
            ]
        );
    }

    #[test]
    fn labelled_lines() {
        let r = Readme::parse(
            "**Standard:** DWP spec 5.0.0\n**Approval:** Pre-Approved (by user)\nPlan Status: 1/3 completed\n",
        );
        assert_eq!(r.standard.as_deref(), Some("5.0.0"));
        assert_eq!(r.approval.as_deref(), Some("pre_approved"));
        assert_eq!(r.plan_status, Some((1, 3)));
        assert!(!r.materializing);
        let r = Readme::parse("- **Plan Status:** materializing\n- Approval: approved\n");
        assert!(r.materializing);
        assert_eq!(r.plan_status, None);
        assert_eq!(r.approval.as_deref(), Some("approved"));
        let r = Readme::parse("```\nApproval: approved\nPlan Status: 2/2\n```\n");
        assert_eq!((r.approval, r.plan_status), (None, None));
    }

    #[test]
    fn lite_anchors_and_inline_bodies() {
        let text = "## Task 1: A {#task-1}\n\n### Completion & Log\n\nStatus: pending\n\n## Task 2: Final Review {#task-2}\n\nbody\n\n## Task List\n";
        let r = Readme::parse(text);
        assert_eq!(r.anchor_count("#task-1"), 1);
        assert_eq!(r.anchor_count("#task-3"), 0);
        assert!(log_says_pending(&r.inline_task("#task-1").unwrap()));
        assert!(!log_says_pending(&r.inline_task("#task-2").unwrap()));
        assert_eq!(r.inline_task("#task-3"), None);
    }

    #[test]
    fn only_the_log_section_status_line_counts() {
        assert!(log_says_pending(
            "# Task 1\n\n## Goal\n\nx\n\n## 7. Completion & Log\n\n- Status: pending\n"
        ));
        assert!(log_says_pending("**Completion log:** Status: pending\n"));
        assert!(!log_says_pending(
            "# Task 1\n\nStatus: pending\n\n## Completion & Log\n\nStatus: completed\n"
        ));
        assert!(!log_says_pending(
            "## Completion & Log\n\nStatus: done\n\n## Validation\n\nStatus: pending\n"
        ));
        assert!(!log_says_pending(
            "## Completion & Log\n\n```\nStatus: pending\n```\n"
        ));
        assert!(!log_says_pending(
            "## Completion & Log\n\nStatus: pending_review\n"
        ));
    }
}
