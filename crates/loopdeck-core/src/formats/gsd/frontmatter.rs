//! A tolerant reader of the YAML frontmatter GSD writes at the top of
//! `STATE.md`, for loopdeck's own views: CRLF or LF, a byte-order mark,
//! quoted or bare values, `# comments`, flow (`[a, "b"]`) and block
//! (`- a`) lists, one level of nested maps (`progress:`), `null`/`~`.
//!
//! It reads the subset GSD writes; it is not a general YAML parser (GSD's own
//! hook is a set of regular expressions, so nothing richer ever appears).

/// One frontmatter value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Value {
    Null,
    Str(String),
    List(Vec<String>),
    Map(Vec<(String, String)>),
}

testing_pub!(
    #[derive(Debug, Default, Clone, PartialEq, Eq)]
    /// The frontmatter of `STATE.md`: its keys and values, in order.
    pub struct Frontmatter {
        entries: Vec<(String, Value)>,
        /// How many `---` blocks are stacked at the top of the file.
        pub(crate) blocks: usize,
        /// A comment line sits inside a nested map, which hides it from GSD's
        /// statusline parser.
        pub(crate) comment_in_map: bool,
    }
);

impl Frontmatter {
    /// The last value written for `key` (later lines win, as in GSD).
    pub(crate) fn get(&self, key: &str) -> Option<&Value> {
        self.entries
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    testing_pub!(
        /// A scalar value; `None` for null, empty, or a non-scalar.
        pub fn str(&self, key: &str) -> Option<&str> {
            match self.get(key)? {
                Value::Str(s) if !s.is_empty() => Some(s),
                _ => None,
            }
        }
    );

    testing_pub!(
        /// A value inside a nested map, e.g. `progress.percent`.
        pub fn nested(&self, map: &str, key: &str) -> Option<&str> {
            match self.get(map)? {
                Value::Map(m) => m
                    .iter()
                    .rev()
                    .find(|(k, _)| k == key)
                    .map(|(_, v)| v.as_str()),
                _ => None,
            }
        }
    );

    testing_pub!(
        /// The list at `key`; a lone non-empty string is a list of one, and
        /// anything else (absent, null, a map) an empty list.
        pub fn list(&self, key: &str) -> Vec<String> {
            match self.get(key) {
                Some(Value::List(v)) => v.clone(),
                Some(Value::Str(s)) if !s.is_empty() => vec![s.clone()],
                _ => Vec::new(),
            }
        }
    );

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Drop a trailing ` # comment` outside quotes.
fn strip_comment(v: &str) -> &str {
    let mut quote = None;
    let mut prev_space = true;
    for (i, c) in v.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if prev_space => return v[..i].trim_end(),
            _ => {}
        }
        prev_space = c.is_whitespace();
    }
    v
}

fn unquote(v: &str) -> String {
    let v = v.trim();
    for q in ['"', '\''] {
        if v.len() >= 2 && v.starts_with(q) && v.ends_with(q) {
            return v[1..v.len() - 1].to_owned();
        }
    }
    v.to_owned()
}

fn scalar(raw: &str) -> Value {
    let v = strip_comment(raw).trim();
    match v {
        "" | "null" | "~" | "Null" | "NULL" => Value::Null,
        _ if v.starts_with('[') && v.ends_with(']') => Value::List(
            v[1..v.len() - 1]
                .split(',')
                .map(unquote)
                .filter(|s| !s.is_empty())
                .collect(),
        ),
        _ => Value::Str(unquote(v)),
    }
}

fn key_of(line: &str) -> Option<(&str, &str)> {
    let (k, rest) = line.split_once(':')?;
    let ok = !k.is_empty()
        && k.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    (ok && (rest.is_empty() || rest.starts_with([' ', '\t']))).then_some((k, rest))
}

testing_pub!(
    /// Split `content` into its frontmatter and the body after it.
    pub fn split(content: &str) -> (Frontmatter, &str) {
        let mut fm = Frontmatter::default();
        let trimmed = content.trim_start_matches('\u{feff}');
        let leading = trimmed.len() - trimmed.trim_start_matches(['\r', '\n']).len();
        let start = &trimmed[leading..];
        let mut lines = start.split_inclusive('\n');
        match lines.next() {
            Some(first) if first.trim_end() == "---" => {}
            _ => {
                return (fm, content);
            }
        }
        let mut consumed = content.len() - start.len();
        consumed += start.split_inclusive('\n').next().map_or(0, str::len);
        let mut block: Vec<&str> = Vec::new();
        let mut closed = false;
        for line in lines {
            consumed += line.len();
            let bare = line.trim_end_matches(['\r', '\n']);
            if bare.trim_end() == "---" || bare.trim_end() == "..." {
                closed = true;
                break;
            }
            block.push(bare);
        }
        if !closed {
            return (Frontmatter::default(), content);
        }
        fm.blocks = 1;
        parse_block(&block, &mut fm);
        let mut body = &content[consumed..];
        // Stacked blocks (seen in the wild): count them, keep the first.
        loop {
            let rest = body.trim_start_matches(['\r', '\n']);
            let Some(after) = rest.strip_prefix("---") else {
                break;
            };
            let after = after.trim_start_matches([' ', '\t']);
            let Some(after) = after
                .strip_prefix("\r\n")
                .or_else(|| after.strip_prefix('\n'))
            else {
                break;
            };
            // A block of `key: value` lines; a Markdown rule (`---`) followed by
            // prose is body, not frontmatter.
            let first = after.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            if key_of(first.trim_end_matches('\r')).is_none() {
                break;
            }
            let close = after.find("\n---").map(|i| i + 4);
            let Some(close) = close else { break };
            let tail = &after[close..];
            let eol = tail.find('\n').map_or(tail.len(), |i| i + 1);
            fm.blocks += 1;
            body = &tail[eol..];
        }
        (fm, body)
    }
);

fn parse_block(lines: &[&str], fm: &mut Frontmatter) {
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        if line.trim_start().starts_with('#')
            || line.trim().is_empty()
            || line.starts_with([' ', '\t'])
        {
            continue;
        }
        let Some((key, mut rest)) = key_of(line) else {
            continue;
        };
        // A flow list may span lines: `key: [` ... `]`.
        let joined;
        if rest.trim_start().starts_with('[') && !strip_comment(rest).trim_end().ends_with(']') {
            let mut acc = strip_comment(rest).trim().to_owned();
            while i < lines.len() && !acc.ends_with(']') {
                acc.push(' ');
                acc.push_str(strip_comment(lines[i]).trim());
                i += 1;
            }
            joined = acc;
            rest = &joined;
        }
        let value = scalar(rest);
        if value != Value::Null || !strip_comment(rest).trim().is_empty() {
            fm.entries.push((key.to_owned(), value));
            continue;
        }
        // An empty value: a nested map or a block list may follow.
        let mut list = Vec::new();
        let mut map = Vec::new();
        while i < lines.len() {
            let l = lines[i];
            let t = l.trim_start();
            if t.is_empty() {
                i += 1;
                continue;
            }
            if !l.starts_with([' ', '\t']) && !t.starts_with('-') {
                break;
            }
            i += 1;
            if t.starts_with('#') {
                fm.comment_in_map = true;
                continue;
            }
            if let Some(item) = t.strip_prefix('-') {
                if let Value::Str(s) = scalar(item) {
                    list.push(s);
                }
            } else if let Some((k, v)) = key_of(t)
                && let Value::Str(s) = scalar(v)
            {
                map.push((k.to_owned(), s));
            }
        }
        let v = if !map.is_empty() {
            Value::Map(map)
        } else if !list.is_empty() {
            Value::List(list)
        } else {
            Value::Null
        };
        fm.entries.push((key.to_owned(), v));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_gsd_writes() {
        let text = "---\r\ngsd_state_version: '1.0'\r\nmilestone: v2.0 # current\r\nstatus: \"executing\"\r\nactive_phase: null\r\nnext_phases: [\"4.5\", 4.6]\r\nblock:\r\n  - a\r\n  - 'b'\r\nprogress:\r\n  total_phases: 17\r\n  percent: 59\r\n---\r\n# Body\r\n";
        let (fm, body) = split(text);
        assert_eq!(fm.str("gsd_state_version"), Some("1.0"));
        assert_eq!(fm.str("milestone"), Some("v2.0"));
        assert_eq!(fm.str("status"), Some("executing"));
        assert_eq!(fm.get("active_phase"), Some(&Value::Null));
        assert_eq!(fm.list("next_phases"), vec!["4.5", "4.6"]);
        assert_eq!(fm.list("block"), vec!["a", "b"]);
        assert_eq!(fm.nested("progress", "percent"), Some("59"));
        assert_eq!(body, "# Body\r\n");
    }

    #[test]
    fn flow_lists_may_span_lines() {
        let (fm, _) = split("---\nnext_phases: [\n  \"4.5\",\n  4.6\n]\nstatus: x\n---\n");
        assert_eq!(fm.list("next_phases"), vec!["4.5", "4.6"]);
        assert_eq!(fm.str("status"), Some("x"));
    }

    #[test]
    fn stacked_blocks_keep_the_first() {
        let text = "---\nstatus: a\n---\n\n---\nstatus: b\n---\n\n# State\n";
        let (fm, body) = split(text);
        assert_eq!(fm.str("status"), Some("a"));
        assert_eq!(fm.blocks, 2);
        assert_eq!(body.trim(), "# State");
    }

    #[test]
    fn a_markdown_rule_after_the_frontmatter_is_body() {
        let text = "---\nstatus: executing\n---\n\n---\n## Current Position\nPhase: 2 of 5 (Data)\n\n---\nmore\n";
        let (fm, body) = split(text);
        assert_eq!(fm.blocks, 1);
        assert!(body.contains("Phase: 2 of 5"));
    }

    #[test]
    fn no_frontmatter_is_all_body() {
        let (fm, body) = split("# Project State\nStatus: setup\n");
        assert!(fm.is_empty());
        assert_eq!(body, "# Project State\nStatus: setup\n");
        let (fm, _) = split("\u{feff}---\nstatus: x\n---\n");
        assert_eq!(fm.str("status"), Some("x"));
    }
}
