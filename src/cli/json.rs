//! JSON output that is safe to print on a terminal.
//!
//! serde_json escapes C0 controls but writes DEL, C1 controls (U+009B is a
//! CSI on some terminals) and bidirectional overrides as raw UTF-8. This
//! formatter escapes those as `\uXXXX` too: the JSON means the same, and a
//! human who runs `loopdeck list --json` in a terminal sees text, not effects.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, PrettyFormatter};

struct SafeFormatter<F>(F);

fn must_escape(c: char) -> bool {
    matches!(c, '\u{7f}'..='\u{9f}' | '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

impl<F: Formatter> Formatter for SafeFormatter<F> {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if must_escape(c) {
                w.write_all(&fragment.as_bytes()[start..i])?;
                write!(w, "\\u{:04x}", c as u32)?;
                start = i + c.len_utf8();
            }
        }
        w.write_all(&fragment.as_bytes()[start..])
    }
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

/// Write `value` as pretty, terminal-safe JSON followed by a newline.
pub fn write<W: Write + ?Sized, T: Serialize>(out: &mut W, value: &T) -> io::Result<()> {
    let mut ser =
        serde_json::Serializer::with_formatter(&mut *out, SafeFormatter(PrettyFormatter::new()));
    value.serialize(&mut ser).map_err(io::Error::other)?;
    out.write_all(b"\n")
}

/// Write `value` as one line of terminal-safe JSON (NDJSON), newline included.
pub fn line<W: Write + ?Sized, T: Serialize>(out: &mut W, value: &T) -> io::Result<()> {
    let mut buf = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, SafeFormatter(CompactFormatter));
    value.serialize(&mut ser).map_err(io::Error::other)?;
    buf.push(b'\n');
    out.write_all(&buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_strings_are_escaped_and_round_trip() {
        let s = "a\u{1b}]0;x\u{7}\u{9b}31m\u{202e}b";
        let mut out = Vec::new();
        write(&mut out, &serde_json::json!({ "name": s })).unwrap();
        let text = String::from_utf8(out.clone()).unwrap();
        assert!(
            !text
                .chars()
                .any(|c| c != '\n' && (c.is_control() || must_escape(c))),
            "{text:?}"
        );
        let back: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(back["name"], s);
    }
}
