//! Text loopdeck writes into `STATE.md`, made so that GSD's own parsers
//! (gsd-tools' `state.cjs`, the statusline hook; JavaScript regexes) read
//! it as text and nothing else (issue 19 §1):
//! - a character JavaScript takes for a line break (U+2028, U+2029, CR…)
//!   or that reorders the line (bidi controls) is refused, named;
//! - what GSD reads as structure in the middle of a line is escaped the
//!   Markdown way, rendering the same: a bold label's `:**` (`**Status:**`,
//!   read before the plain `Status:`), a run of `#` (its heading patterns
//!   are unanchored), `[RESOLVED]` (prune), `Total plans completed:`;
//! - what has no such escape is refused, naming it: the placeholder words
//!   gsd-tools deletes from a section as a substring on its next write
//!   (`None` among blockers, `None yet` / `No decisions yet` among
//!   decisions), `~~` in a blocker (prune takes it as resolved), and any of
//!   the above inside a code span (where escapes show literally).
//!
//! Text read from a file (a WAITING.json question) is escaped the same way;
//! what a human could rephrase but a file cannot is made inert with an
//! entity instead of refused (`N&#111;ne yet`).

use super::splice::Refused;

/// Where the text goes: each section has its own placeholder words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    /// A decision line (summary, rationale, answer).
    Decision,
    /// A blocker line.
    Blocker,
}

/// A human's text for a `STATE.md` entry, trimmed and escaped; `Err`: why
/// it cannot be written as typed.
pub(crate) fn entry(what: &str, text: &str, field: Field) -> Result<String, Refused> {
    let t = text.trim();
    if t.is_empty() {
        return Err(format!("{what} is empty"));
    }
    if let Some(c) = t.chars().find(|&c| breaks(c)) {
        // The one-line rule's own words (every typed field says them),
        // after the character and what GSD makes of it.
        return Err(format!(
            "{what} holds {}, which GSD's JavaScript parsers (gsd-tools, the statusline) read as {}: {what} must be one line of text (no line breaks or control characters)",
            name(c),
            if matches!(c, '\u{2028}' | '\u{2029}' | '\n' | '\r') {
                "a line break"
            } else {
                "something other than text"
            }
        ));
    }
    let lower = t.to_lowercase();
    if let Some(word) = placeholder(&lower, field) {
        return Err(format!(
            "{what} holds \"{word}\", which gsd-tools deletes from the {} section on its next write (a placeholder to it): rephrase it (\"nothing\", \"not yet\")",
            section(field)
        ));
    }
    if field == Field::Blocker && t.contains("~~") {
        return Err(format!(
            "{what} holds \"~~\": gsd-tools' prune takes a struck-through blocker as resolved"
        ));
    }
    for (code, part) in spans(t) {
        if code && let Some(p) = structure(&part.to_lowercase()) {
            return Err(format!(
                "{what} holds \"{p}\" inside a code span (`…`), where Markdown shows escapes as typed and GSD reads it as structure: write it outside the backticks"
            ));
        }
    }
    Ok(escape(t))
}

/// Text read from a file, for an entry: on one line (control and
/// line-breaking characters become spaces, as `flatten` does) and
/// escaped; placeholder words made inert with an entity.
pub(crate) fn from_file(text: &str, field: Field) -> String {
    let flat: String = text
        .split(|c: char| c.is_whitespace() || breaks(c))
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let mut out = String::with_capacity(flat.len());
    for (code, part) in spans(&flat) {
        if code {
            // Backticks dropped: GSD would read the pattern inside.
            out.push_str(&escape(&part.replace('`', "")));
        } else {
            out.push_str(&escape(part));
        }
    }
    inert_placeholders(&out, field)
}

/// `--phase` as GSD's prune reads it (`[Phase 3]`, `[Phase 01-02]`,
/// `[Phase 3.1]`): a number first, then up to 19 of digits, letters, `.`
/// and `-`. `Phase 3` is phase 3.
pub(crate) fn phase(text: &str) -> Result<String, Refused> {
    let t = text.trim();
    let t = match t.get(..6) {
        Some(head) if head.eq_ignore_ascii_case("phase ") => t[6..].trim(),
        _ => t,
    };
    let ok = t.len() <= 20
        && t.starts_with(|c: char| c.is_ascii_digit())
        && t.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-'));
    if ok {
        Ok(t.to_owned())
    } else {
        Err(format!(
            "the phase must be a phase number as GSD writes it (3, 03, 3.1, 01-02; at most 20 characters), not {t:?}"
        ))
    }
}

/// A character JavaScript takes for a line break, a control character, or
/// one that reorders the line.
fn breaks(c: char) -> bool {
    crate::model::text::breaks_line(c)
}

fn name(c: char) -> String {
    let what = match c {
        '\u{2028}' => " LINE SEPARATOR",
        '\u{2029}' => " PARAGRAPH SEPARATOR",
        '\n' => " (a line feed)",
        '\r' => " (a carriage return)",
        c if c.is_control() => " (a control character)",
        _ => " (a bidirectional control)",
    };
    format!("U+{:04X}{what}", c as u32)
}

fn section(field: Field) -> &'static str {
    match field {
        Field::Decision => "Decisions",
        Field::Blocker => "Blockers",
    }
}

/// The placeholder gsd-tools deletes (as a substring, any case) from the
/// section `field` goes to, if `lower` holds one.
fn placeholder(lower: &str, field: Field) -> Option<&'static str> {
    match field {
        // state.cjs: `None\.?\s*\n?` among blockers.
        Field::Blocker => lower.contains("none").then_some("none"),
        // state.cjs: `None yet\.?` / `No decisions yet\.?` among decisions.
        Field::Decision => ["no decisions yet", "none yet"]
            .into_iter()
            .find(|w| lower.contains(w)),
    }
}

/// `text` with every placeholder word's `o` written as `&#111;` (renders
/// the same; gsd-tools no longer finds the word).
fn inert_placeholders(text: &str, field: Field) -> String {
    let mut out = text.to_owned();
    loop {
        let lower = out.to_lowercase();
        let Some(word) = placeholder(&lower, field) else {
            return out;
        };
        // Lowercasing keeps these ASCII words at the same byte offsets
        // only when what precedes them lowercases to the same length; find
        // the word in the original by a case-insensitive ASCII scan.
        let Some(at) = find_ascii_ci(&out, word) else {
            return out;
        };
        let o = at + word.find('o').unwrap_or(0);
        out.replace_range(o..o + 1, "&#111;");
    }
}

fn find_ascii_ci(hay: &str, needle: &str) -> Option<usize> {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    (0..h.len().checked_sub(n.len())? + 1).find(|&i| {
        h[i..i + n.len()]
            .iter()
            .zip(n)
            .all(|(a, b)| a.eq_ignore_ascii_case(b))
    })
}

/// The first pattern GSD reads as structure in `lower`, if any.
fn structure(lower: &str) -> Option<&'static str> {
    if lower.contains(":**") {
        Some(":**")
    } else if lower.contains("##") {
        Some("##")
    } else if lower.contains("[resolved]") {
        Some("[RESOLVED]")
    } else if lower.contains("total plans completed:") {
        Some("Total plans completed:")
    } else {
        None
    }
}

/// `text` cut into code spans (`true`, backticks included) and the rest.
/// A backtick run opens a span closed by the next run of the same length;
/// an unclosed one is text.
fn spans(text: &str) -> Vec<(bool, &str)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut plain) = (0, 0);
    while i < b.len() {
        if b[i] != b'`' {
            i += 1;
            continue;
        }
        let run = b[i..].iter().take_while(|&&c| c == b'`').count();
        let mut j = i + run;
        let mut close = None;
        while j < b.len() {
            if b[j] == b'`' {
                let r = b[j..].iter().take_while(|&&c| c == b'`').count();
                if r == run {
                    close = Some(j + r);
                    break;
                }
                j += r;
            } else {
                j += 1;
            }
        }
        match close {
            Some(end) => {
                if plain < i {
                    out.push((false, &text[plain..i]));
                }
                out.push((true, &text[i..end]));
                i = end;
                plain = end;
            }
            None => i += run,
        }
    }
    if plain < b.len() {
        out.push((false, &text[plain..]));
    }
    out
}

/// The escapes, outside code spans: `:**` → `\:**`, `##` → `#\#` (every
/// `#` after a `#`), `[RESOLVED]` → `\[RESOLVED\]`, `Total plans
/// completed:` → `…completed\:`.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for (code, part) in spans(text) {
        if code {
            out.push_str(part);
            continue;
        }
        let mut prev = None;
        let chars: Vec<char> = part.chars().collect();
        for (k, &c) in chars.iter().enumerate() {
            let rest: String = chars[k..].iter().take(24).collect();
            let lower = rest.to_lowercase();
            let escaped = (c == ':' && rest.starts_with(":**"))
                || (c == '#' && prev == Some('#'))
                || (c == '[' && lower.starts_with("[resolved]"))
                || (c == ']' && prev_word_is_resolved(&out));
            if escaped {
                out.push('\\');
            }
            out.push(c);
            if c == ':' && ends_ci(&out, "total plans completed:") {
                out.pop();
                out.push_str("\\:");
            }
            prev = Some(c);
        }
    }
    out
}

/// Does `out` end with `\[RESOLVED` (the `]` to escape follows)?
fn prev_word_is_resolved(out: &str) -> bool {
    ends_ci(out, "\\[resolved")
}

fn ends_ci(hay: &str, suffix: &str) -> bool {
    hay.len() >= suffix.len()
        && hay.is_char_boundary(hay.len() - suffix.len())
        && hay[hay.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_breaking_and_reordering_characters_are_refused_by_name() {
        for (text, name) in [
            (
                "Use gRPC\u{2028}Phase: 9 of 9 (pwned)",
                "U+2028 LINE SEPARATOR",
            ),
            (
                "x\u{2029}## Session Continuity",
                "U+2029 PARAGRAPH SEPARATOR",
            ),
            ("a\rb", "U+000D"),
            ("abc\u{202E}def", "U+202E"),
        ] {
            let err = entry("the decision", text, Field::Decision).unwrap_err();
            assert!(err.contains(name), "{err}");
            assert!(err.starts_with("the decision holds"), "{err}");
        }
    }

    #[test]
    fn structure_is_escaped_and_renders_the_same() {
        let cases = [
            ("**Status:** Complete", "**Status\\:** Complete"),
            ("**Current Phase:** 99", "**Current Phase\\:** 99"),
            ("see ## Blockers", "see #\\# Blockers"),
            ("### Heading", "#\\#\\# Heading"),
            ("C# and #123 stay", "C# and #123 stay"),
            ("done [RESOLVED] ok", "done \\[RESOLVED\\] ok"),
            ("[resolved]", "\\[resolved\\]"),
            ("Total plans completed: 12", "Total plans completed\\: 12"),
            ("code `a:**b` kept", "code `a:**b` kept"),
            ("Use gRPC over REST", "Use gRPC over REST"),
        ];
        for (text, want) in cases {
            if text.contains('`') {
                assert!(entry("x", text, Field::Decision).is_err(), "{text}");
                assert_eq!(escape(text), want);
                continue;
            }
            assert_eq!(entry("x", text, Field::Decision).unwrap(), want, "{text}");
        }
    }

    #[test]
    fn placeholder_words_are_refused_where_gsd_deletes_them() {
        let err = entry("the blocker", "Nonexistent bucket", Field::Blocker).unwrap_err();
        assert!(
            err.contains("\"none\"") && err.contains("Blockers"),
            "{err}"
        );
        assert!(entry("the decision", "Nonexistent bucket", Field::Decision).is_ok());
        let err = entry("the decision", "Tests: none yet", Field::Decision).unwrap_err();
        assert!(err.contains("none yet"), "{err}");
        assert!(entry("the blocker", "~~old~~ new", Field::Blocker).is_err());
        assert!(entry("the decision", "~~old~~ new", Field::Decision).is_ok());
        let err = entry("the blocker", "see `## Blockers`", Field::Blocker).unwrap_err();
        assert!(err.contains("code span"), "{err}");
    }

    #[test]
    fn file_text_is_flattened_escaped_and_made_inert() {
        assert_eq!(
            from_file("Ship?\u{2028}**Status:** done `##x`", Field::Decision),
            "Ship? **Status\\:** done #\\#x"
        );
        assert_eq!(
            from_file("Tests: None yet.", Field::Decision),
            "Tests: N&#111;ne yet."
        );
        assert_eq!(
            from_file("No decisions yet", Field::Decision),
            "N&#111; decisions yet"
        );
    }

    #[test]
    fn a_phase_is_a_phase_number() {
        assert_eq!(phase("3").unwrap(), "3");
        assert_eq!(phase("Phase 3.1").unwrap(), "3.1");
        assert_eq!(phase("01-02").unwrap(), "01-02");
        for bad in [
            "1 (planned)",
            "deploybox",
            "3]**Status:**",
            "",
            "012345678901234567890",
        ] {
            assert!(phase(bad).is_err(), "{bad}");
        }
    }
}
