//! Making untrusted strings safe to show on a terminal.
//!
//! Every string that comes from a project file may hold escape sequences
//! (ESC/CSI/OSC), C1 controls, or bidirectional overrides that reorder what
//! the user sees. These functions make such characters visible instead of
//! letting the terminal obey them:
//! - C0 controls become caret notation (`ESC` → `^[`, `BEL` → `^G`), DEL → `^?`;
//! - C1 controls (U+0080..U+009F) become `<U+009B>`;
//! - bidirectional controls (U+202A..U+202E, U+2066..U+2069, U+200E, U+200F,
//!   U+061C) become `<U+202E>`;
//! - tabs expand to spaces (tab stops every 4 columns);
//! - in single-line text, line breaks become `↵`.

use std::borrow::Cow;

const TAB_STOP: usize = 4;

/// A character that reorders or breaks text where it lands (a
/// bidirectional control, a line or paragraph separator): the clipboard
/// and desktop notifications replace it, as they do control characters.
/// The one-line rule for a character a human types into a field that is
/// written on one line: a control character (line breaks included) or one
/// that breaks or reorders the line (U+2028/2029, bidi controls).
pub fn breaks_line(c: char) -> bool {
    c.is_control() || reorders(c)
}

/// Does `c` reorder or split the line it is in: a bidi control, or the
/// Unicode line or paragraph separator (U+2028, U+2029)?
pub fn reorders(c: char) -> bool {
    is_bidi_control(c) || matches!(c, '\u{2028}' | '\u{2029}')
}

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

fn needs_escape(c: char) -> bool {
    c.is_control() || is_bidi_control(c) || c == '\u{2028}' || c == '\u{2029}'
}

/// Sanitize text meant for one line of a table or list.
pub fn sanitize_line(s: &str) -> Cow<'_, str> {
    sanitize(s, false)
}

/// Sanitize multi-line text; `\n` survives (a `\r` before it is dropped) so
/// the view can split lines itself.
pub fn sanitize_text(s: &str) -> Cow<'_, str> {
    sanitize(s, true)
}

fn sanitize(s: &str, keep_newlines: bool) -> Cow<'_, str> {
    if !s.chars().any(needs_escape) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut column = 0usize;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\t' => {
                let pad = TAB_STOP - column % TAB_STOP;
                out.extend(std::iter::repeat_n(' ', pad));
                column += pad;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' | '\u{2028}' | '\u{2029}' => {
                if keep_newlines {
                    out.push('\n');
                    column = 0;
                } else {
                    out.push('↵');
                    column += 1;
                }
            }
            '\u{7f}' => {
                out.push_str("^?");
                column += 2;
            }
            c if (c as u32) < 0x20 => {
                out.push('^');
                out.push(char::from(b'@' + c as u8));
                column += 2;
            }
            c if needs_escape(c) => {
                let shown = format!("<U+{:04X}>", c as u32);
                column += shown.len();
                out.push_str(&shown);
            }
            c => {
                out.push(c);
                column += 1;
            }
        }
    }
    Cow::Owned(out)
}

/// Display width of `s` in terminal columns (CJK counts double).
pub fn width(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
}

/// Cut `s` to at most `max` columns, marking the cut with `…`.
pub fn truncate(s: &str, max: usize) -> Cow<'_, str> {
    if width(s) <= max {
        return Cow::Borrowed(s);
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w + 1 > max {
            break;
        }
        out.push(c);
        used += w;
    }
    if max > 0 {
        out.push('…');
    }
    Cow::Owned(out)
}

/// Pad `s` with spaces to exactly `columns` display columns (after truncating).
pub fn pad(s: &str, columns: usize) -> String {
    let cut = truncate(s, columns);
    let w = width(&cut);
    let mut out = cut.into_owned();
    out.extend(std::iter::repeat_n(' ', columns.saturating_sub(w)));
    out
}

/// Break `s` (one line, already sanitized) into lines of at most `max`
/// display columns: at the last place on the line where a break is
/// allowed (after a space, before or after a wide CJK character, which
/// needs no space to break), else between any two characters. A character
/// wider than `max` gets a line of its own.
pub fn wrap(s: &str, max: usize) -> Vec<String> {
    let max = max.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut used = 0;
    // Where the next line may start on this line: byte offsets in `line`
    // and the width before each.
    let mut breaks: Vec<(usize, usize)> = Vec::new();
    for c in s.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        let wide = w > 1;
        // Closing punctuation never starts a line (`，` `。` `）`…).
        let breaks_before = wide && !closes(c);
        if used + w > max && !line.is_empty() {
            if c == ' ' || breaks_before {
                // The line is full just before a space or a wide
                // character: break here (a space is not carried over).
                lines.push(std::mem::take(&mut line).trim_end().to_owned());
                used = 0;
                breaks.clear();
                if c == ' ' {
                    continue;
                }
            } else {
                // The latest break allowed; one at the very end of the
                // line (after a space or a wide character) ends it as is,
                // except before closing punctuation, which takes the
                // character before it along.
                let pick = if closes(c) {
                    // Only where what moves down still fits with it, and
                    // something stays behind.
                    breaks
                        .iter()
                        .rev()
                        .find(|&&(at, before)| {
                            at < line.len()
                                && used - before + w <= max
                                && !line[..at].trim_end().is_empty()
                        })
                        .copied()
                } else {
                    breaks.last().copied().filter(|(at, _)| *at < line.len())
                };
                match pick {
                    Some((at, before)) => {
                        let rest = line.split_off(at);
                        lines.push(line.trim_end().to_owned());
                        line = rest;
                        used -= before;
                    }
                    None => {
                        lines.push(std::mem::take(&mut line));
                        used = 0;
                    }
                }
                breaks.clear();
            }
        }
        if breaks_before && !line.is_empty() {
            breaks.push((line.len(), used));
        }
        line.push(c);
        used += w;
        if c == ' ' || wide {
            breaks.push((line.len(), used));
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// Punctuation that ends a phrase and so never starts a wrapped line
/// when the line can give it the word before it.
fn closes(c: char) -> bool {
    "，。、：；！？）」』】》〉…)]},.:;!?".contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_text_is_borrowed() {
        assert!(matches!(sanitize_line("中文 plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn escapes_become_visible() {
        let hostile = "a\u{1b}]0;pwned\u{7}b\u{9b}31mc\u{7f}";
        assert_eq!(sanitize_line(hostile), "a^[]0;pwned^Gb<U+009B>31mc^?");
    }

    #[test]
    fn bidi_controls_are_shown_not_obeyed() {
        assert_eq!(sanitize_line("x\u{202E}y\u{2066}"), "x<U+202E>y<U+2066>");
    }

    #[test]
    fn tabs_expand_and_lines_fold() {
        assert_eq!(sanitize_line("ab\tc\r\nd"), "ab  c↵d");
        assert_eq!(sanitize_text("a\r\nb\n"), "a\nb\n");
    }

    #[test]
    fn no_control_survives() {
        let all: String = (0u32..0x2100).filter_map(char::from_u32).collect();
        for c in sanitize_line(&all).chars() {
            assert!(!c.is_control() && !is_bidi_control(c), "{:?} survived", c);
        }
    }

    #[test]
    fn wrap_respects_display_width() {
        let text = ".planning/WAITING.json [Phase 3] 超过 3 级的审批是否允许加签？";
        for max in 1..50 {
            let lines = wrap(text, max);
            for l in &lines {
                assert!(width(l) <= max.max(2), "{max}: {l:?}");
            }
            let joined: String = lines.concat().chars().filter(|c| *c != ' ').collect();
            let original: String = text.chars().filter(|c| *c != ' ').collect();
            assert_eq!(joined, original, "{max}: nothing lost");
        }
        assert_eq!(wrap("ab cd ef", 5), vec!["ab cd", "ef"]);
        assert_eq!(wrap("审批规则", 5), vec!["审批", "规则"]);
        // Chinese breaks where the line is full, not at a space far back.
        assert_eq!(
            wrap("超过 3 级的审批是否允许加签", 12),
            vec!["超过 3 级的", "审批是否允许", "加签"]
        );
        // Latin words after CJK still break at their space.
        assert_eq!(
            wrap("等待 evidence plan", 12),
            vec!["等待", "evidence", "plan"]
        );
        assert_eq!(wrap("等待 ev", 12), vec!["等待 ev"]);
        // Closing punctuation stays with the word before it.
        assert_eq!(wrap("允许加签，最多", 8), vec!["允许加", "签，最多"]);
        assert_eq!(wrap("A / B：不允许", 5), vec!["A /", "B：不", "允许"]);
        // An ASCII bracket closing CJK text stays with it.
        assert_eq!(wrap("运行用例): its", 8), vec!["运行用", "例): its"]);
        // Never an empty line, never a line too wide, whatever it costs.
        assert_eq!(wrap(" ab，", 3), vec![" ab", "，"]);
        let long = format!(" {}，下一句", "a".repeat(39));
        for line in wrap(&long, 40) {
            assert!(!line.is_empty() && width(&line) <= 40, "{line:?}");
        }
    }

    /// Mixed Latin, CJK, spaces and punctuation (a fixed pseudo-random
    /// sequence): no line is wider than asked, none is empty between
    /// others, and no character but a breaking space is lost.
    #[test]
    fn wrap_never_overflows_nor_loses_text() {
        let alphabet: Vec<char> = "aaaaaaab 中文， ).：例x".chars().collect();
        let mut seed = 0x2545_f491_u64;
        for _ in 0..20_000 {
            let mut text = String::new();
            for _ in 0..(seed % 60) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                text.push(alphabet[(seed % alphabet.len() as u64) as usize]);
            }
            let max = 4 + (seed % 10) as usize;
            let lines = wrap(&text, max);
            for (i, line) in lines.iter().enumerate() {
                assert!(width(line) <= max, "{text:?} at {max}: {lines:?}");
                let inner = i > 0 && i + 1 < lines.len();
                assert!(!(inner && line.is_empty()), "{text:?} at {max}: {lines:?}");
            }
            let kept: String = lines.concat().chars().filter(|c| *c != ' ').collect();
            let all: String = text.chars().filter(|c| *c != ' ').collect();
            assert_eq!(kept, all, "{text:?} at {max}");
        }
        assert_eq!(wrap("", 5), vec![""]);
    }

    #[test]
    fn cjk_pads_by_display_width() {
        assert_eq!(width("数据层"), 6);
        assert_eq!(pad("数据层", 8), "数据层  ");
        assert_eq!(pad("数据层数据层", 7), "数据层…");
    }
}
