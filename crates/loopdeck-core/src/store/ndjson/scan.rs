//! Top-level string members of a JSON object line, found without parsing
//! the line: the one cheap lookup a scan by key runs on every line.

/// The value of the top-level string member `key` of the JSON object on
/// `line`, without parsing the rest: members before it are skipped by
/// bracket and quote counting. `None` when the line is not an object
/// holding that member as a plain string (one without escapes).
pub(crate) fn top_level_str<'a>(line: &'a [u8], key: &str) -> Option<&'a str> {
    let [v] = top_level_strs(line, [key]);
    v
}

/// [`top_level_str`] for several keys in one pass over the line.
pub(super) fn top_level_strs<'a, const N: usize>(
    line: &'a [u8],
    keys: [&str; N],
) -> [Option<&'a str>; N] {
    let mut out = [None; N];
    let b = line;
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return out;
    }
    i += 1;
    let mut left = N;
    while left > 0 {
        i = skip_ws(b, i);
        if b.get(i) != Some(&b'"') {
            break;
        }
        let Some((k_start, k_end, k_plain)) = string_at(b, i) else {
            break;
        };
        i = skip_ws(b, k_end + 1);
        if b.get(i) != Some(&b':') {
            break;
        }
        i = skip_ws(b, i + 1);
        let wanted = k_plain
            .then(|| keys.iter().position(|k| k.as_bytes() == &b[k_start..k_end]))
            .flatten()
            .filter(|&n| out[n].is_none());
        if let Some(n) = wanted {
            left -= 1;
            if b.get(i) == Some(&b'"')
                && let Some((v_start, v_end, true)) = string_at(b, i)
            {
                out[n] = std::str::from_utf8(&b[v_start..v_end]).ok();
            }
        }
        let Some(next) = skip_value(b, i) else {
            break;
        };
        i = skip_ws(b, next);
        match b.get(i) {
            Some(b',') => i += 1,
            _ => break,
        }
    }
    out
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\r' | b'\n') {
        i += 1;
    }
    i
}

/// The string starting at `b[i] == '"'`: its content range and whether it
/// has no escapes; `None` when it does not end.
fn string_at(b: &[u8], i: usize) -> Option<(usize, usize, bool)> {
    let start = i + 1;
    let mut j = start;
    let mut plain = true;
    while let Some(k) = quote_or_backslash(b, j) {
        if b[k] == b'"' {
            return Some((start, k, plain));
        }
        plain = false;
        j = k + 2;
    }
    None
}

/// The first `"` or `\` at or after `from`, eight bytes at a time (long
/// titles and details are skipped at memory speed).
fn quote_or_backslash(b: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const QUOTES: u64 = ONES * b'"' as u64;
    const BACKSLASHES: u64 = ONES * b'\\' as u64;
    // The lowest set high bit marks the first matching byte exactly (false
    // positives of the zero-byte test only occur above a true match).
    fn zero_bytes(x: u64) -> u64 {
        x.wrapping_sub(ONES) & !x & HIGH
    }
    let mut i = from;
    while i + 8 <= b.len() {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[i..i + 8]);
        let w = u64::from_le_bytes(w);
        let hit = zero_bytes(w ^ QUOTES) | zero_bytes(w ^ BACKSLASHES);
        if hit != 0 {
            return Some(i + (hit.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    b.get(i..)?
        .iter()
        .position(|&c| c == b'"' || c == b'\\')
        .map(|p| i + p)
}

/// The offset just after the JSON value starting at `b[i]`.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i)? {
        b'"' => string_at(b, i).map(|(_, end, _)| end + 1),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' => {
                        j = string_at(b, j)?.1;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            None
        }
        _ => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n')
            {
                j += 1;
            }
            (j > i).then_some(j)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_level_strings_without_a_parse() {
        let l = br#"{"unit_id":"u","x":{"id":"nested"},"list":["]",{"id":1}],"n":-1.5e3,"ok":true,"id":"bug-1","status":"open"}"#;
        assert_eq!(top_level_str(l, "id"), Some("bug-1"));
        assert_eq!(top_level_str(l, "status"), Some("open"));
        assert_eq!(top_level_str(l, "unit_id"), Some("u"));
        assert_eq!(top_level_str(l, "missing"), None);
        assert_eq!(
            top_level_strs(l, ["status", "id", "ok", "nope"]),
            [Some("open"), Some("bug-1"), None, None]
        );
        assert_eq!(top_level_str(br#"  { "id" : "a" }"#, "id"), Some("a"));
        assert_eq!(top_level_str(br#"{"id":"a\"b"}"#, "id"), None, "escaped");
        assert_eq!(top_level_str(br#"{"id":7}"#, "id"), None);
        assert_eq!(top_level_str(br#"{"s":"x\"}","id":"b"}"#, "id"), Some("b"));
        for junk in [
            &b""[..],
            b"{",
            b"{\"",
            b"{\"id\"",
            b"{\"id\":",
            b"{\"id\":\"x",
            b"[\"id\"]",
            b"{\"a\":{",
            b"{\"a\":}",
            b"\xff\xfe",
        ] {
            assert_eq!(top_level_str(junk, "id"), None, "{junk:?}");
        }
    }
}
