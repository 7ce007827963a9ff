//! Edits of `STATE.md` as gsd-tools makes them (`state add-decision`,
//! `add-blocker`, `resolve-blocker`, the `last_updated` refresh), applied
//! line by line: every line the edit does not touch keeps its bytes, its
//! line ending included (LF, CRLF, a last line without a newline, a BOM).
//!
//! gsd-tools finds a section with one regular expression,
//! `###?\s*(?:Decisions|Decisions Made|Accumulated.*Decisions)\s*\n` (and
//! `Blockers|Blockers/Concerns|Concerns` for blockers), whose body runs to
//! the next line starting with `##`. Those rules are kept; where gsd-tools
//! re-serialises the file (its frontmatter rebuilt from disk, trailing blank
//! lines collapsed, placeholder words cut out of the middle of lines), only
//! the lines that change are written.

use chrono::{DateTime, Utc};

use super::body::is_placeholder_item;
use super::js;
use super::section::gsd_section;
testing_pub!(
    pub use super::section::List;
);

/// One line of the file: its text and its own line ending.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Line {
    text: String,
    eol: &'static str,
}

/// Why a file cannot be edited as a GSD `STATE.md`.
pub(crate) type Refused = String;

testing_pub!(
    /// A `STATE.md` ready to edit.
    #[derive(Debug, Clone)]
    pub struct Doc {
        lines: Vec<Line>,
        /// The file's line ending (its first one), for new lines.
        eol: &'static str,
        /// The lines of the first frontmatter block: the opening `---` and the
        /// closing line.
        frontmatter: Option<(usize, usize)>,
    }
);

/// gsd-tools' section for a list, in lines: the line its heading starts
/// on, the first line of its body (after the blank lines the heading's
/// `\s*\n` takes) and the line its body ends before (the next line
/// starting with `##`, else the end of the file).
#[derive(Debug, Clone, Copy)]
struct Section {
    heading: usize,
    body: usize,
    end: usize,
}

/// The title of a heading of level 2 or more (`### Decisions` →
/// `Decisions`), as gsd-tools' `###?\s*` reads one.
fn heading_title(line: &str) -> Option<&str> {
    let hashes = line.bytes().take_while(|b| *b == b'#').count();
    (hashes >= 2).then(|| line[hashes..].trim())
}

/// The title of a line the reader takes for a heading although it is bold
/// text alone (`**Blockers/Concerns**`).
fn bold_title(line: &str) -> Option<&str> {
    let t = line.trim();
    (t.len() > 4 && t.starts_with("**") && t.ends_with("**"))
        .then(|| t.trim_matches(['*', ' ', ':']))
}

/// A line gsd-tools' placeholder substitution empties: its add-blocker
/// removes `None\.?\s*\n?` then `None yet\.?\s*\n?`, its add-decision
/// `None yet…` then `No decisions yet…` (state.cjs; case-insensitive,
/// anywhere in the section). Such a line goes when an entry is added, as
/// gsd-tools removes it; a line it only mangles (`- (none)` → `- ()`,
/// `None yet.` among blockers → `yet.`) is the file's, and stays.
fn is_gsd_placeholder(text: &str, list: List) -> bool {
    let words: &[&str] = match list {
        List::Blockers => &["none", "none yet"],
        List::Decisions => &["none yet", "no decisions yet"],
    };
    let mut left = text.to_owned();
    for word in words {
        left = strip_placeholder(&left, word);
    }
    !text.trim().is_empty() && left.trim().is_empty()
}

/// A line whose end gsd-tools' placeholder substitution takes with the
/// line break after it (`- None yet.`, `Tests: none`): it joins the next
/// line to what it leaves.
fn eats_line_break(text: &str, list: List) -> bool {
    let words: &[&str] = match list {
        List::Blockers => &["none"],
        List::Decisions => &["none yet", "no decisions yet"],
    };
    let t = text.trim_end_matches(js::space).to_ascii_lowercase();
    let t = t.strip_suffix('.').unwrap_or(&t);
    words.iter().any(|w| t.ends_with(w))
}

/// `text` with every `word\.?\s*` (ASCII case-insensitive) removed, left
/// to right, as JavaScript's `replace(/…/gi, '')`.
fn strip_placeholder(text: &str, word: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.to_ascii_lowercase().find(word) {
        out.push_str(&rest[..i]);
        let mut after = &rest[i + word.len()..];
        after = after.strip_prefix('.').unwrap_or(after);
        rest = after.trim_start_matches(js::space);
    }
    out.push_str(rest);
    out
}

/// A top-level list item (`- x` or `* x`), as gsd-tools' `startsWith('- ')`.
fn is_item(text: &str) -> bool {
    text.starts_with("- ") || text.starts_with("* ")
}

/// gsd-tools' timestamp: JavaScript's `new Date().toISOString()`.
pub(crate) fn iso(now: DateTime<Utc>) -> String {
    now.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// One line of user text for a list item: no line breaks or control
/// characters (they would end the item or reach a terminal raw).
pub(crate) fn one_line(what: &str, text: &str) -> Result<String, Refused> {
    let t = text.trim();
    if t.is_empty() {
        return Err(format!("{what} is empty"));
    }
    if t.chars().any(crate::model::text::breaks_line) {
        return Err(format!(
            "{what} must be one line of text (no line breaks or control characters)"
        ));
    }
    Ok(t.to_owned())
}

/// Untrusted text from a file on one line: control characters and runs of
/// white space become one space.
pub(crate) fn flatten(text: &str) -> String {
    text.split(|c: char| c.is_control() || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

impl Doc {
    testing_pub!(
        /// Read `bytes` as a GSD `STATE.md`, or say why it is not one.
        pub fn parse(bytes: &[u8]) -> Result<Doc, Refused> {
            let text = std::str::from_utf8(bytes).map_err(|e| {
                format!(
                    "STATE.md is not UTF-8 text (invalid byte at offset {}); loopdeck does not write a file it cannot read whole",
                    e.valid_up_to()
                )
            })?;
            if let Some(c) = text
                .chars()
                .find(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t' | '\u{c}'))
            {
                return Err(format!(
                    "STATE.md holds a control character (U+{:04X}): it is not a text file loopdeck will write",
                    c as u32
                ));
            }
            if text.trim().is_empty() {
                return Err("STATE.md is empty: nothing GSD can read, nothing to edit".to_owned());
            }
            let mut lines = Vec::new();
            let mut rest = text;
            while !rest.is_empty() {
                let (line, eol, next) = match rest.find('\n') {
                    Some(i) if i > 0 && rest.as_bytes()[i - 1] == b'\r' => {
                        (&rest[..i - 1], "\r\n", &rest[i + 1..])
                    }
                    Some(i) => (&rest[..i], "\n", &rest[i + 1..]),
                    None => (rest, "", ""),
                };
                lines.push(Line {
                    text: line.to_owned(),
                    eol,
                });
                rest = next;
            }
            let eol = lines
                .iter()
                .map(|l| l.eol)
                .find(|e| !e.is_empty())
                .unwrap_or("\n");
            let mut doc = Doc {
                lines,
                eol,
                frontmatter: None,
            };
            doc.frontmatter = doc.find_frontmatter()?;
            if doc.frontmatter.is_none() && !doc.lines.iter().any(|l| l.text.starts_with('#')) {
                return Err(
                    "STATE.md has neither a frontmatter block nor a Markdown heading: it does not read as GSD's STATE.md"
                        .to_owned(),
                );
            }
            Ok(doc)
        }
    );

    /// The first `---` block at the top (after a byte-order mark or blank
    /// lines, as the reader takes it); an opened block never closed is a
    /// file that does not parse.
    fn find_frontmatter(&self) -> Result<Option<(usize, usize)>, Refused> {
        let open = self
            .lines
            .iter()
            .position(|l| !l.text.trim_start_matches('\u{feff}').is_empty());
        let Some(open) = open else { return Ok(None) };
        if self.lines[open]
            .text
            .trim_start_matches('\u{feff}')
            .trim_end()
            != "---"
        {
            return Ok(None);
        }
        let close = self.lines[open + 1..]
            .iter()
            .position(|l| matches!(l.text.trim_end(), "---" | "..."))
            .map(|i| open + 1 + i);
        match close {
            Some(close) => Ok(Some((open, close))),
            None => Err(
                "STATE.md opens a frontmatter block (`---`) that never closes: it does not parse, so it is not written"
                    .to_owned(),
            ),
        }
    }

    /// The first line of the body (after the frontmatter).
    fn body_start(&self) -> usize {
        self.frontmatter.map_or(0, |(_, close)| close + 1)
    }

    testing_pub!(
        /// The file's bytes.
        pub fn to_bytes(&self) -> Vec<u8> {
            let mut out = String::new();
            for l in &self.lines {
                out.push_str(&l.text);
                out.push_str(l.eol);
            }
            out.into_bytes()
        }
    );

    /// Insert `text` as a new line before line `at`.
    fn insert(&mut self, at: usize, text: String) {
        if at == self.lines.len() {
            // After the last line: it gets a line ending, the new line
            // takes over its lack of one.
            let last_eol = self.lines.last().map_or(self.eol, |l| l.eol);
            if let Some(last) = self.lines.last_mut()
                && last.eol.is_empty()
            {
                last.eol = self.eol;
            }
            self.lines.push(Line {
                text,
                eol: last_eol,
            });
            return;
        }
        let eol = self.eol;
        self.lines.insert(at, Line { text, eol });
    }

    /// Set `last_updated` to `now` as gsd-tools writes it
    /// (`last_updated: "2026-06-01T12:34:56.789Z"`), in the first
    /// frontmatter block: the last such line's value is replaced (a
    /// trailing comment kept); without one, a line is added before the
    /// closing `---`. A file without frontmatter keeps none (its mtime is
    /// its last update).
    pub(crate) fn refresh_last_updated(&mut self, now: DateTime<Utc>) {
        let Some((open, close)) = self.frontmatter else {
            return;
        };
        let value = format!("\"{}\"", iso(now));
        let found = (open + 1..close)
            .rev()
            .find(|&i| self.lines[i].text.starts_with("last_updated:"));
        match found {
            Some(i) => {
                let text = &self.lines[i].text;
                let rest = &text["last_updated:".len()..];
                let comment = comment_start(rest).map_or("", |c| &rest[c..]);
                let sep = if comment.is_empty() { "" } else { " " };
                self.lines[i].text = format!("last_updated: {value}{sep}{comment}");
            }
            None => {
                self.insert(close, format!("last_updated: {value}"));
                self.frontmatter = Some((open, close + 1));
            }
        }
    }

    /// The byte offset each line starts at, and the file's text.
    fn offsets(&self) -> (Vec<usize>, String) {
        let mut starts = Vec::with_capacity(self.lines.len());
        let mut text = String::new();
        for l in &self.lines {
            starts.push(text.len());
            text.push_str(&l.text);
            text.push_str(l.eol);
        }
        (starts, text)
    }

    /// The section gsd-tools writes `list` into, found by its own regex
    /// over the whole file; `None` when it finds none (then gsd-tools
    /// appends its scaffold).
    fn section(&self, list: List) -> Option<Section> {
        let (starts, text) = self.offsets();
        let (at, body, end) = gsd_section(&text, list)?;
        // The line holding a byte offset (a body starts a line; its end is
        // the LF before a line starting with `##`).
        let line_of = |off: usize| starts.partition_point(|&s| s <= off).saturating_sub(1);
        let body = if body >= text.len() {
            self.lines.len()
        } else {
            line_of(body)
        };
        let end = if end >= text.len() {
            self.lines.len()
        } else {
            line_of(end) + 1
        };
        Some(Section {
            heading: line_of(at),
            body,
            end,
        })
    }

    /// The lines an entry goes among: gsd-tools' body, up to the first
    /// heading in it (an empty section's body runs on into the next
    /// heading's, and so would gsd-tools' entry; one placed before that
    /// heading is in gsd-tools' section too, and where a reader looks).
    fn entry_lines(&self, sec: Section) -> std::ops::Range<usize> {
        let end = (sec.body..sec.end)
            .find(|&i| self.lines[i].text.starts_with('#'))
            .unwrap_or(sec.end);
        sec.body..end
    }

    /// A frontmatter line gsd-tools takes for `list`'s heading: it would
    /// write into the frontmatter, loopdeck does not.
    fn in_frontmatter(&self, list: List, sec: Section) -> Result<(), Refused> {
        match self.frontmatter {
            Some((_, close)) if sec.heading <= close => Err(format!(
                "the frontmatter holds `{}`, which gsd-tools takes for the {} heading and would write under: move that line below the frontmatter's closing ---",
                flatten(&self.lines[sec.heading].text),
                match list {
                    List::Decisions => "Decisions",
                    List::Blockers => "Blockers",
                }
            )),
            _ => Ok(()),
        }
    }

    /// The heading `list` is written under, as the file spells it.
    pub(crate) fn heading(&self, list: List) -> Option<String> {
        self.section(list)
            .map(|s| self.lines[s.heading].text.trim().to_owned())
    }

    /// A heading of the file's own that loopdeck's reader takes for
    /// `list` although gsd-tools' rule does not (`## Key Decisions`,
    /// `**Blockers/Concerns**`): named when gsd-tools' is missing.
    pub(crate) fn other_heading(&self, list: List) -> Option<String> {
        let start = self.body_start();
        self.lines[start..]
            .iter()
            .map(|l| l.text.as_str())
            .find(|t| {
                heading_title(t)
                    .or_else(|| bold_title(t))
                    .is_some_and(|t| list.read_title(t))
            })
            .map(|t| flatten(t.trim()))
    }

    /// Add `entry` (a whole list line) where gsd-tools' `add-decision` /
    /// `add-blocker` puts it: in the section its own regex finds, after
    /// the section's last line of content, the placeholder lines its
    /// substitution empties removed; a file without that section gets
    /// gsd-tools' scaffold at its end, the file's own sections untouched.
    pub(crate) fn add(&mut self, list: List, entry: String) -> Result<(), Refused> {
        let Some(sec) = self.section(list) else {
            self.scaffold(list, entry);
            return Ok(());
        };
        self.in_frontmatter(list, sec)?;
        let body = self.entry_lines(sec);
        let placeholders: Vec<usize> = body
            .clone()
            .filter(|&i| is_gsd_placeholder(&self.lines[i].text, list))
            .collect();
        let content: Vec<usize> = body
            .clone()
            .filter(|&i| !self.lines[i].text.trim().is_empty() && !placeholders.contains(&i))
            .collect();
        // gsd-tools' substitution takes the line break after a line that
        // ends with its placeholder word (`- None yet.`), joining the next
        // line to it: the entry goes before such lines at the end, never
        // after one (it would be altered on gsd-tools' next write).
        let kept = content
            .iter()
            .rposition(|&i| !eats_line_break(&self.lines[i].text, list));
        let inserted = match (kept, content.first(), placeholders.first()) {
            (Some(k), _, _) => content[k] + 1,
            // Every line of content ends so: before the first.
            (None, Some(&first), _) => first,
            (None, None, Some(&p)) => p,
            // An empty section: after the heading's blank line, if any.
            (None, None, None) if body.start > sec.heading + 1 => sec.heading + 2,
            (None, None, None) => body.start,
        };
        self.insert(inserted, entry);
        // Placeholders shifted by one if they sat after the insertion.
        for &p in placeholders.iter().rev() {
            let at = if p >= inserted { p + 1 } else { p };
            self.remove(at);
        }
        Ok(())
    }

    /// gsd-tools' scaffold at the end of the file: a blank line, the
    /// heading, a blank line, the entry.
    fn scaffold(&mut self, list: List, entry: String) {
        let ends_blank = self.lines.last().is_some_and(|l| l.text.trim().is_empty());
        let mut at = self.lines.len();
        if !ends_blank {
            self.insert(at, String::new());
            at += 1;
        }
        self.insert(at, list.scaffold().to_owned());
        self.insert(at + 1, String::new());
        self.insert(at + 2, entry);
        if let Some(last) = self.lines.last_mut() {
            last.eol = self.eol;
        }
    }

    /// Remove line `i`; a last line without a line ending passes that on
    /// to the line before it.
    fn remove(&mut self, i: usize) {
        let gone = self.lines.remove(i);
        if i == self.lines.len()
            && gone.eol.is_empty()
            && let Some(prev) = self.lines.last_mut()
        {
            prev.eol = "";
        }
    }

    testing_pub!(
        /// The blockers in `list`'s section: its list items, placeholders aside.
        pub fn items(&self, list: List) -> Vec<String> {
            let Some(sec) = self.section(list) else {
                return Vec::new();
            };
            (sec.body..sec.end)
                .map(|i| self.lines[i].text.as_str())
                .filter(|t| is_item(t) && !is_placeholder_item(&t[2..]))
                .map(|t| t[2..].trim().to_owned())
                .collect()
        }
    );

    /// Remove every blocker whose line holds `needle` (case-insensitive),
    /// as gsd-tools' `resolve-blocker` matches (a placeholder line too,
    /// which gsd-tools' snapshot lists as a blocker); `None` when the file has
    /// no blockers section. A section left empty says `None`, as
    /// gsd-tools writes it. Returns the lines removed.
    pub(crate) fn resolve(&mut self, list: List, needle: &str) -> Option<Vec<String>> {
        let sec = self.section(list)?;
        if self.in_frontmatter(list, sec).is_err() {
            return None;
        }
        let needle = needle.to_lowercase();
        let hits: Vec<usize> = (sec.body..sec.end)
            .filter(|&i| {
                let t = &self.lines[i].text;
                is_item(t) && t.to_lowercase().contains(&needle)
            })
            .collect();
        let removed: Vec<String> = hits.iter().map(|&i| self.lines[i].text.clone()).collect();
        if hits.is_empty() {
            return Some(removed);
        }
        let left = (sec.body..sec.end)
            .any(|i| !hits.contains(&i) && !self.lines[i].text.trim().is_empty());
        let first = hits[0];
        for &i in hits.iter().rev() {
            if i == first && !left {
                self.lines[i].text = "None".to_owned();
            } else {
                self.remove(i);
            }
        }
        Some(removed)
    }

    testing_pub!(
        /// The phase the project is in: `active_phase`, else `current_phase`
        /// (frontmatter), else the number of the body's `Phase:` line.
        pub fn current_phase(&self, text: &str) -> Option<String> {
            let (fm, rest) = super::frontmatter::split(text);
            if let Some(p) = fm.str("active_phase").or_else(|| fm.str("current_phase")) {
                return Some(flatten(p));
            }
            let body = super::body::parse(rest);
            let phase = body.phase?;
            let token = phase.split_whitespace().next()?;
            token
                .starts_with(|c: char| c.is_ascii_digit())
                .then(|| flatten(token.trim_end_matches([',', ':', ';'])))
        }
    );
}

/// Where a trailing ` # comment` starts in a YAML value, outside quotes.
fn comment_start(v: &str) -> Option<usize> {
    let mut quote = None;
    let mut prev_space = false;
    for (i, c) in v.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if prev_space => return Some(i),
            _ => {}
        }
        prev_space = c == ' ' || c == '\t';
    }
    None
}

#[cfg(test)]
mod tests;
