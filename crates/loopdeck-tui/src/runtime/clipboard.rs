//! Copying to the clipboard through the terminal: OSC 52
//! (`ESC ] 52 ; c ; BASE64 BEL`), which works over SSH, since the terminal
//! on the user's desk does the copying. Written between frames, never
//! inside a synchronized update. The terminal may refuse it (many ask the
//! user to allow clipboard writes first); the console says so.
//!
//! Inside tmux (`$TMUX` set) two sequences go out: the plain OSC 52, which
//! tmux takes into its own paste buffer and passes on to the outer
//! terminal when `set-clipboard` is `on`; and the same sequence in tmux's
//! DCS passthrough (see `notify::tmux_wrap`), which reaches the outer
//! terminal when `set-clipboard` is `external` (tmux's default) but
//! `allow-passthrough` is on. With both options on, the outer terminal gets
//! the same text twice, which changes nothing.
//!
//! The base64 encoder is the twenty lines below rather than a crate: the
//! whole of what is needed is the standard alphabet with padding, and the
//! crate would be a new dependency for it.

use std::io::{self, Write};

use super::notify::tmux_wrap;

const ESC: char = '\u{1b}';
const BEL: char = '\u{7}';

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 (RFC 4648, with `=` padding).
pub fn base64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// OSC 52 setting the clipboard (`c`) to `text`.
pub fn osc52(text: &str) -> String {
    format!("{ESC}]52;c;{}{BEL}", base64(text.as_bytes()))
}

/// The bytes that copy `text`, in tmux or not (see the module's docs).
pub fn sequence(text: &str, tmux: bool) -> String {
    let osc = osc52(text);
    if tmux {
        let wrapped = tmux_wrap(&osc);
        osc + &wrapped
    } else {
        osc
    }
}

/// Copy `text` (already clean and capped by the app) through the terminal.
pub fn copy(out: &mut impl Write, text: &str, tmux: bool) -> io::Result<()> {
    out.write_all(sequence(text, tmux).as_bytes())?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_the_standard_one() {
        // RFC 4648's test vectors.
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, encoded) in cases {
            assert_eq!(base64(plain.as_bytes()), encoded, "{plain:?}");
        }
        // Every byte value, and UTF-8 text.
        assert_eq!(base64(&[0xff, 0xfe, 0x00]), "//4A");
        assert_eq!(base64("问题 OQ-3".as_bytes()), "6Zeu6aKYIE9RLTM=");
    }

    #[test]
    fn osc52_carries_the_text_base64() {
        assert_eq!(osc52("OQ-3"), "\u{1b}]52;c;T1EtMw==\u{7}");
        assert_eq!(sequence("OQ-3", false), osc52("OQ-3"));
    }

    /// In tmux: the plain sequence (for tmux's own buffer) then the same
    /// through the passthrough, its ESC doubled (for the outer terminal).
    #[test]
    fn tmux_gets_it_plain_and_through_its_passthrough() {
        assert_eq!(
            sequence("OQ-3", true),
            "\u{1b}]52;c;T1EtMw==\u{7}\u{1b}Ptmux;\u{1b}\u{1b}]52;c;T1EtMw==\u{7}\u{1b}\\"
        );
        let mut out = Vec::new();
        copy(&mut out, "x", true).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), sequence("x", true));
    }

    /// Whatever the text, the sequence holds no byte that could end it
    /// early or start another: one ESC and one BEL.
    #[test]
    fn any_text_is_one_sequence() {
        let s = osc52("a\u{1b}]52;c;evil\u{7}\u{9c}\n");
        assert_eq!(s.matches('\u{1b}').count(), 1);
        assert_eq!(s.matches('\u{7}').count(), 1);
        assert!(s.ends_with('\u{7}'));
    }
}
