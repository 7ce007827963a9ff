//! Markdown as any format writes it, read for the words in it: where its
//! frontmatter ends. GSD's `STATE.md` keeps GSD's own reader
//! (`gsd::frontmatter`, tolerant of what GSD writes); this one is for the
//! other files, where a `---` at the top may as well be a Markdown rule
//! opening the first section.

/// How many lines a frontmatter block may run before its closing `---`;
/// a longer block is a rule and the prose under it (the longest
/// frontmatter in the real-world fixtures runs 36 lines).
const MAX_LINES: usize = 100;

/// `text` after its frontmatter: a `---` block at the top (after a
/// byte-order mark and blank lines), or several stacked, whose lines read
/// as YAML; all of `text` without one. A block holding a Markdown heading
/// or a line of prose is no frontmatter but the file's opening section
/// between two rules.
pub(crate) fn body(text: &str) -> &str {
    let mut rest = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut found = false;
    while let Some(after) = frontmatter(rest) {
        rest = after;
        found = true;
    }
    if found { rest } else { text }
}

/// The text after the frontmatter block that opens `text` (blank lines
/// before it skipped), if one does: a `---` line, up to [`MAX_LINES`]
/// lines that read as YAML with at least one key, and a `---` (or `...`)
/// line closing it.
fn frontmatter(text: &str) -> Option<&str> {
    let start = text.trim_start_matches(['\r', '\n']);
    let mut lines = start.split_inclusive('\n');
    let first = lines.next()?;
    if first.trim_end() != "---" {
        return None;
    }
    let mut end = first.len();
    let mut yaml = Yaml::default();
    for line in lines.take(MAX_LINES + 1) {
        end += line.len();
        let bare = line.trim_end();
        if bare == "---" || bare == "..." {
            return yaml.keys.then(|| &start[end..]);
        }
        if !yaml.admits(bare) {
            return None;
        }
    }
    None
}

/// What a block has shown so far, line by line.
#[derive(Default)]
struct Yaml {
    /// A `key:` line has been seen.
    keys: bool,
    /// A `- item` line at the margin may follow: the last key has no value
    /// on its line (`tags:`), and only its items (or blank, indented lines)
    /// came since.
    items: bool,
}

impl Yaml {
    /// Does `line` (its end trimmed) read as a line of a YAML block here:
    /// `key: value` or `key:`, an indented continuation of a key (a
    /// comment there included), a `- item` under a key, a `#comment`? A
    /// Markdown heading (so a `# comment` at the margin too: the two read
    /// alike), or any other line (prose), does not.
    fn admits(&mut self, line: &str) -> bool {
        let t = line.trim_start();
        if t.is_empty() {
            return true;
        }
        if line.starts_with([' ', '\t']) {
            return self.keys;
        }
        if let Some(item) = line.strip_prefix('-') {
            return self.items && (item.is_empty() || item.starts_with([' ', '\t']));
        }
        if line.starts_with('#') {
            return !is_heading(line);
        }
        if line.starts_with([']', '}']) {
            // The close of a flow list or map that spans lines.
            return self.keys;
        }
        match value_of(line) {
            Some(value) => {
                self.keys = true;
                self.items = value.trim().is_empty();
                true
            }
            None => false,
        }
    }
}

/// A Markdown ATX heading: one to six `#`, then a space, a tab or the end
/// of the line (`#tag` is a YAML comment, not a heading).
fn is_heading(line: &str) -> bool {
    let hashes = line.bytes().take_while(|b| *b == b'#').count();
    (1..=6).contains(&hashes) && (line.len() == hashes || line[hashes..].starts_with([' ', '\t']))
}

/// The value part of a `key: value` line (after the `:`), if `line` is
/// one: a key of letters, digits, `_`, `-` and `.` (or a quoted one), then
/// `:` ending the line or followed by a space. Prose with a colon in it
/// (`Note that: …`, `see https://…`, `主管：终审`) is not.
fn value_of(line: &str) -> Option<&str> {
    let rest = match line.chars().next()? {
        q @ ('"' | '\'') => {
            let inner = &line[1..];
            let close = inner.find(q)?;
            inner[close + 1..].strip_prefix(':')?
        }
        _ => {
            let (key, rest) = line.split_once(':')?;
            let plain = !key.is_empty()
                && key
                    .chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'));
            if !plain {
                return None;
            }
            rest
        }
    };
    (rest.is_empty() || rest.starts_with([' ', '\t'])).then_some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PRD-master `scene-anchor.md` opening with a rule: its first
    /// section is prose between two rules, not frontmatter; a block that
    /// reads as YAML still is.
    #[test]
    fn only_a_block_that_reads_as_yaml_is_frontmatter() {
        let md = "---\n\n# 场景锚点：差旅报销\n\n- 财务主管：终审\n\n---\n\n## 痛点\n\n- 纸单子丢失\n";
        assert_eq!(body(md), md);
        for md in [
            // Prose, even with a colon in it.
            "---\nNote that: we ship on Friday\nsee https://x\n---\nrest\n",
            "---\n财务主管：终审\n---\nrest\n",
            // A list with no key over it, or under a key with a value.
            "---\n- 纸单子丢失\n---\nrest\n",
            "---\nowner: mei\n- 纸单子丢失\n---\nrest\n",
            // A heading after keys.
            "---\nowner: mei\n## 痛点\n---\nrest\n",
            // Nothing but blank lines, or never closed.
            "---\n\n---\nrest\n",
            "---\ntitle: x\n\nrest\n",
        ] {
            assert_eq!(body(md), md, "{md}");
        }
        // Too long to be a frontmatter.
        let long = format!("---\n{}---\nrest\n", "k: v\n".repeat(MAX_LINES + 1));
        assert_eq!(body(&long), long);
        let fits = format!("---\n{}---\nrest\n", "k: v\n".repeat(MAX_LINES));
        assert_eq!(body(&fits), "rest\n");

        let md = "---\ntitle: x\nstatus: draft\n---\n\n# 场景锚点\n";
        assert_eq!(body(md), "\n# 场景锚点\n");
        // CRLF, a byte-order mark, lists and maps under a key, comments in
        // them, block scalars, flow lists across lines, `...` closing.
        let md = "\u{feff}---\r\ntags:\r\n- a\r\n  # a comment\r\n- b\r\nmust_haves:\r\n  truths:\r\n    - \"x\"\r\nnote: |\r\n  two\r\n  lines\r\nnext: [\r\n  1,\r\n]\r\n\"odd key\": 1\r\n...\r\nBody\r\n";
        assert_eq!(body(md), "Body\r\n");
        // Stacked blocks, as GSD's tolerant reader finds them.
        assert_eq!(body("---\na: 1\n---\n\n---\nb: 2\n---\n# T\n"), "# T\n");
    }
}
