//! Text written into `conversation.md` (issue 19 §4). The archive is read
//! by people and by PRD-master itself as Markdown; loopdeck's own blocks
//! are a `## ` heading and bold labels (`**问（OQ-7）**：`, `**答（…）**：`,
//! `**选**`). Nothing a human types, and nothing read from the state, may
//! read as one of them or hide the blocks after it:
//!
//! - the human's answer or evidence goes in a blockquote, each of its lines
//!   `> ` (an empty one `>`, so the quote never ends early), with what
//!   Markdown reads as structure escaped the Markdown way (rendering the
//!   same): a leading `#` run or `>`, every `**`, and `<` (an HTML comment
//!   or tag would hide or restyle what follows);
//! - a one-line text (a rationale; a question's title, an option, a
//!   description read from the state) is kept on one line, escaped alike;
//! - control characters are never written: a human's text that holds one
//!   (ESC, a lone CR, a line or paragraph separator, a bidirectional
//!   control) is refused, naming it, as the console's text rule refuses it
//!   (`model::verb::breaks_text`); a CRLF line break is a line break. Text
//!   read from the state is flattened instead (control characters become
//!   spaces), since a file cannot be asked to rephrase.

use super::doc::refuse;
use crate::model::text::{breaks_line, reorders};
use crate::store::txn::ActError;

/// `U+001B (a control character)`.
fn name(c: char) -> String {
    let what = match c {
        '\u{2028}' => " LINE SEPARATOR",
        '\u{2029}' => " PARAGRAPH SEPARATOR",
        '\r' => " (a carriage return without a line feed)",
        '\u{1b}' => " (ESC, a control character)",
        c if c.is_control() => " (a control character)",
        _ => " (a bidirectional control)",
    };
    format!("U+{:04X}{what}", c as u32)
}

/// A human's text over several lines (`what`: "the answer"): CRLF line
/// breaks made LF; `Err` names the first character it may not hold.
pub(super) fn text(what: &str, raw: &str) -> Result<String, ActError> {
    let t = raw.replace("\r\n", "\n");
    match t
        .chars()
        .find(|&c| (c.is_control() && !matches!(c, '\n' | '\t')) || reorders(c))
    {
        Some(c) => Err(refuse(format!(
            "{what} holds {}, which conversation.md would hold raw: {what} may span lines, \
             but holds no other control characters or separators; remove it",
            name(c)
        ))),
        None => Ok(t),
    }
}

/// A human's text on one line (`what`: "the rationale"); `Err` names the
/// character that breaks it.
pub(super) fn line(what: &str, raw: &str) -> Result<String, ActError> {
    match raw.chars().find(|&c| breaks_line(c)) {
        Some(c) => Err(refuse(format!(
            "{what} holds {}: {what} must be one line of text (no line breaks or control characters)",
            name(c)
        ))),
        None => Ok(inline(raw)),
    }
}

/// `text` as a blockquote: one `> ` line per line of it, escaped.
pub(super) fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for (i, l) in text.trim_end().split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if l.trim().is_empty() {
            out.push('>');
        } else {
            out.push_str("> ");
            out.push_str(&escape_line(l));
        }
    }
    out
}

/// Text read from the state, for one line of a block: control and
/// line-breaking characters become spaces; escaped.
pub(super) fn from_file(text: &str) -> String {
    let flat: String = text
        .split(|c: char| c.is_whitespace() || breaks_line(c))
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    inline(&flat)
}

/// One line that follows a label: what Markdown reads as inline structure
/// escaped: `**`, and a `<` that opens HTML (a tag, a comment, a
/// declaration: `<` then a letter, `/`, `!` or `?`).
fn inline(s: &str) -> String {
    let s = s.replace("**", "\\*\\*");
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '<'
            && chars
                .peek()
                .is_some_and(|n| n.is_ascii_alphabetic() || matches!(n, '/' | '!' | '?'))
        {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// One line of a quote: a leading `#` run or `>` escaped, then as
/// [`inline`].
fn escape_line(l: &str) -> String {
    let body = inline(l);
    let indent = body.len() - body.trim_start().len();
    let (lead, rest) = body.split_at(indent);
    if rest.starts_with('#') || rest.starts_with('>') {
        format!("{lead}\\{rest}")
    } else {
        body
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_is_quoted_and_structure_escaped() {
        assert_eq!(quoted("是"), "> 是");
        assert_eq!(
            quoted("a\n\n## h\n  > q\n**答**：<!-- x"),
            "> a\n>\n> \\## h\n>   \\> q\n> \\*\\*答\\*\\*：\\<!-- x"
        );
        assert_eq!(quoted("a\n\n"), "> a", "trailing blank lines dropped");
        assert_eq!(from_file("标题\n## 伪造\u{1b}"), "标题 ## 伪造");
        assert_eq!(
            quoted("97% 延迟 < 2 小时 <br> </p> <?x"),
            "> 97% 延迟 < 2 小时 \\<br> \\</p> \\<?x"
        );
    }

    #[test]
    fn control_characters_are_named() {
        assert_eq!(text("the answer", "a\r\nb\tc").unwrap(), "a\nb\tc");
        for (raw, code) in [
            ("\u{1b}[2J", "U+001B"),
            ("a\rb", "U+000D"),
            ("\u{2029}", "U+2029"),
            ("\u{202e}", "U+202E"),
            ("\u{85}", "U+0085"),
        ] {
            let e = text("the answer", raw).unwrap_err().to_string();
            assert!(e.contains(code), "{e}");
        }
        assert!(
            line("the rationale", "a\nb")
                .unwrap_err()
                .to_string()
                .contains("one line")
        );
        assert_eq!(
            line("the rationale", "**x** <b>").unwrap(),
            "\\*\\*x\\*\\* \\<b>"
        );
    }
}
