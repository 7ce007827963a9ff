//! Where gsd-tools finds a list in `STATE.md`: its section regular
//! expression (`state.cjs`, `cmdStateAddDecision` / `cmdStateAddBlocker`),
//! ported byte for byte, and the lists it edits. The reader (`body`) and
//! the editor (`splice`) both go by it, so what loopdeck shows as a
//! project's decisions and blockers is the section gsd-tools would edit.

use super::js;

testing_pub!(
    /// Which list a verb edits.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum List {
        /// The Decisions list.
        Decisions,
        /// The Blockers/Concerns list.
        Blockers,
    }
);

impl List {
    /// The titles gsd-tools' section regex takes (state.cjs,
    /// `cmdStateAddDecision` / `cmdStateAddBlocker`), in its order; the
    /// last Decisions one is `Accumulated.*Decisions`.
    pub(crate) fn titles(self) -> &'static [&'static str] {
        match self {
            List::Decisions => &["decisions", "decisions made"],
            List::Blockers => &["blockers", "blockers/concerns", "concerns"],
        }
    }

    /// The headings loopdeck's reader takes for this list (named in a
    /// refusal when gsd-tools' own is missing).
    pub(crate) fn read_title(self, title: &str) -> bool {
        let t = title.to_lowercase();
        match self {
            List::Decisions => t.contains("decision"),
            List::Blockers => t.contains("blocker"),
        }
    }

    /// The heading gsd-tools creates when the file has none.
    pub(crate) fn scaffold(self) -> &'static str {
        match self {
            List::Decisions => "## Decisions",
            List::Blockers => "### Blockers",
        }
    }

    /// How a refusal names gsd-tools' headings for this list.
    pub(crate) fn gsd_headings(self) -> &'static str {
        match self {
            List::Decisions => "### Decisions, ### Decisions Made or ## Accumulated … Decisions",
            List::Blockers => "### Blockers, ### Blockers/Concerns or ### Concerns",
        }
    }
}

/// Does `text[at..]` start with `lit` (ASCII, case-insensitive, as a
/// JavaScript `/i` regex without `u` compares ASCII letters)?
fn starts_ci(text: &str, at: usize, lit: &str) -> bool {
    text.as_bytes()
        .get(at..at + lit.len())
        .is_some_and(|b| b.eq_ignore_ascii_case(lit.as_bytes()))
}

/// `\s*\n` from `at`: the end of the heading (after the last LF of the
/// white space run there), if the run holds an LF.
fn line_end_after(text: &str, at: usize) -> Option<usize> {
    let mut last = None;
    for (i, c) in text[at..].char_indices() {
        if !js::space(c) {
            break;
        }
        if c == '\n' {
            last = Some(at + i + 1);
        }
    }
    last
}

/// Where gsd-tools' section regex for `list` matches `text` (the whole
/// file, as gsd-tools reads it):
/// `###?\s*(?:TITLES)\s*\n([\s\S]*?)(?=\n###?|\n##[^#]|$)`, flag `i`,
/// unanchored, the first match. Byte offsets of the match, of its body
/// (after the heading's last LF) and of the body's end (the LF before the
/// next `##`, else the end of the file).
pub(crate) fn gsd_section(text: &str, list: List) -> Option<(usize, usize, usize)> {
    let bytes = text.as_bytes();
    for at in 0..bytes.len().saturating_sub(1) {
        if bytes[at] != b'#' || bytes[at + 1] != b'#' {
            continue;
        }
        // `###?` is greedy, and a title never starts with `#` or white
        // space: only one count of hashes can be followed by a title.
        let hashes = if bytes.get(at + 2) == Some(&b'#') {
            3
        } else {
            2
        };
        let title = at
            + hashes
            + text[at + hashes..]
                .char_indices()
                .find(|&(_, c)| !js::space(c))
                .map_or(text.len() - at - hashes, |(i, _)| i);
        let literal = list
            .titles()
            .iter()
            .filter(|t| starts_ci(text, title, t))
            .find_map(|t| line_end_after(text, title + t.len()));
        let body = literal.or_else(|| {
            // `Accumulated.*Decisions`: `.*` greedy on one line, so the
            // last `Decisions` there that ends the heading.
            (list == List::Decisions && starts_ci(text, title, "accumulated")).then_some(())?;
            let from = title + "accumulated".len();
            let line_end = text[from..]
                .char_indices()
                .find(|&(_, c)| js::line_end(c))
                .map_or(text.len(), |(i, _)| from + i);
            (from..line_end)
                .rev()
                .filter(|&k| text.is_char_boundary(k) && starts_ci(text, k, "decisions"))
                .filter(|&k| k + "decisions".len() <= line_end)
                .find_map(|k| line_end_after(text, k + "decisions".len()))
        });
        if let Some(body) = body {
            let end = text[body..].find("\n##").map_or(text.len(), |i| body + i);
            return Some((at, body, end));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gsd_section_is_gsd_tools_regex() {
        // Byte offsets, checked against what the JavaScript regex gives
        // (`content.match(re)`: index, index + heading length, + body length).
        let t = "# S\n### Decisions\n\n- a\n\n### Blockers\n- b\n## End\n";
        assert_eq!(gsd_section(t, List::Decisions), Some((4, 19, 23)));
        assert_eq!(gsd_section(t, List::Blockers), Some((24, 37, 40)));
        // An empty section's body runs into the next heading's.
        let t = "### Decisions\n### Next\n- x\n";
        assert_eq!(gsd_section(t, List::Decisions), Some((0, 14, t.len())));
        // `Accumulated.*Decisions` is greedy on one line; U+2028 ends it.
        let t = "## Accumulated Decisions and Decisions\n- x";
        assert_eq!(gsd_section(t, List::Decisions), Some((0, 39, t.len())));
        assert_eq!(
            gsd_section("## Accumulated\u{2028}Decisions\n", List::Decisions),
            None
        );
        // No LF after the title: no heading.
        assert_eq!(gsd_section("## Decisions", List::Decisions), None);
        assert_eq!(
            gsd_section("## Concerns\n", List::Blockers),
            Some((0, 12, 12))
        );
        assert_eq!(gsd_section("## Concerns raised\n", List::Blockers), None);
    }
}
