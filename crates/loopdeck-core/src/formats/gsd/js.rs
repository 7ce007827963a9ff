//! JavaScript's regular-expression character classes, as gsd-tools'
//! parsers and its statusline hook read `STATE.md` with them: `\s` (and
//! what `String.prototype.trim` removes), and the line terminators `.`
//! does not match without the `s` flag.

/// JavaScript's `\s` (and the set `String.prototype.trim` removes).
pub(crate) fn space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// The characters JavaScript's `.` does not match (without the `s` flag).
pub(crate) fn line_end(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}
