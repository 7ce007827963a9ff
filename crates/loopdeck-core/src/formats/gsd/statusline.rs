//! A byte-for-byte port of the state segment of GSD's statusline hook
//! (`hooks/gsd-statusline.js`: `parseStateMd` then `formatGsdState`, the
//! version with phase-lifecycle fields, CRLF support and the numeric
//! "milestone complete" check).
//!
//! That last check compares the phase counters as strings, as the hooks of
//! gsd-build/get-shit-done and open-gsd/gsd-core do
//! (`s.completedPhases && s.totalPhases && s.completedPhases === s.totalPhases`):
//! `"0" === "0"` holds, so 0 of 0 phases prints "milestone complete". A
//! stored gsd-core revision (17007a8d) compares numbers instead; the string
//! rule is the one the team's parity contract names (issue 7).
//!
//! The hook parses with JavaScript regular expressions, and their quirks are
//! the contract: only the first `---` block counts, quotes are stripped one
//! character at each end, nothing is typed, a comment inside `progress:`
//! hides the bar, and the body's `Phase:`/`Status:` lines are searched in the
//! whole file. This module reproduces those rules by hand; loopdeck's own
//! views use the tolerant reader in `frontmatter.rs` instead.

use super::js;

testing_pub!(
    /// What `parseStateMd` extracts. `None` stands for both `undefined` and
    /// `null`; an empty string is kept (it is falsy in every check below).
    #[derive(Debug, Default, Clone, PartialEq, Eq)]
    pub struct HookState {
        pub(crate) status: Option<String>,
        pub(crate) milestone: Option<String>,
        pub(crate) milestone_name: Option<String>,
        pub(crate) active_phase: Option<String>,
        pub(crate) next_action: Option<String>,
        pub(crate) next_phases: Option<Vec<String>>,
        pub(crate) completed_phases: Option<String>,
        pub(crate) total_phases: Option<String>,
        pub(crate) percent: Option<String>,
        pub(crate) phase_num: Option<String>,
        pub(crate) phase_total: Option<String>,
        pub(crate) phase_name: Option<String>,
    }
);

fn js_trim(s: &str) -> &str {
    s.trim_matches(js::space)
}

/// `.replace(/^["']|["']$/g, '')`: one quote off each end, independently.
fn strip_quotes(s: &str) -> &str {
    let s = s.strip_prefix(['"', '\'']).unwrap_or(s);
    s.strip_suffix(['"', '\'']).unwrap_or(s)
}

fn clean(v: &str) -> String {
    strip_quotes(js_trim(v)).to_owned()
}

/// Byte offsets where `^` matches in a JavaScript multiline regex.
fn line_starts(s: &str) -> impl Iterator<Item = usize> + '_ {
    std::iter::once(0).chain(
        s.char_indices()
            .filter(|(_, c)| js::line_end(*c))
            .map(|(i, c)| i + c.len_utf8()),
    )
}

fn skip_spaces(s: &str) -> &str {
    s.trim_start_matches(js::space)
}

/// The hook's `/^---\n([\s\S]*?)\n---/` (gsd-statusline.js, 1.42.3): a
/// CRLF file's `---\r\n` is no frontmatter to it, so it reads the body.
fn frontmatter(content: &str) -> Option<&str> {
    let body = content.strip_prefix("---\n")?;
    body.find("\n---").map(|i| &body[..i])
}

/// Does GSD's hook find a frontmatter block in `content`?
pub(crate) fn sees_frontmatter(content: &str) -> bool {
    frontmatter(content).is_some()
}

/// `/^(\w+):\s*(.+)/` on one line: the key and the raw captured value.
fn key_value(line: &str) -> Option<(&str, &str)> {
    let key_len = line
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    if key_len == 0 {
        return None;
    }
    let rest = line[key_len..].strip_prefix(':')?;
    if rest.is_empty() {
        return None;
    }
    let value = skip_spaces(rest);
    if value.is_empty() {
        // `\s*` gives back one character so that `(.+)` matches; it is
        // whitespace, so the trimmed value is empty.
        return rest
            .chars()
            .any(|c| !js::line_end(c))
            .then_some((&line[..key_len], ""));
    }
    let end = value.find(js::line_end).unwrap_or(value.len());
    Some((&line[..key_len], &value[..end]))
}

fn items(raw: impl Iterator<Item = String>) -> Option<Vec<String>> {
    let v: Vec<String> = raw.filter(|s| !s.is_empty()).collect();
    (!v.is_empty()).then_some(v)
}

/// `/^next_phases:\s*\[([^\]]*)\]/m`; `Some(None)` when it matched but held
/// no item (JavaScript `null`).
fn next_phases_flow(fm: &str) -> Option<Option<Vec<String>>> {
    for start in line_starts(fm) {
        let Some(rest) = fm[start..].strip_prefix("next_phases:") else {
            continue;
        };
        let Some(inner) = skip_spaces(rest).strip_prefix('[') else {
            continue;
        };
        let Some(end) = inner.find(']') else { continue };
        return Some(items(inner[..end].split(',').map(clean)));
    }
    None
}

/// After `key:` at a line start, `\s*\r?\n`: the text after the last newline
/// of the whitespace run, where the block must begin.
fn after_key_newline<'a>(fm: &'a str, key: &str) -> Vec<&'a str> {
    let mut found = Vec::new();
    for start in line_starts(fm) {
        let Some(rest) = fm[start..].strip_prefix(key) else {
            continue;
        };
        let ws_len = rest.len() - skip_spaces(rest).len();
        if let Some(nl) = rest[..ws_len].rfind('\n') {
            found.push(&rest[nl + 1..]);
        }
    }
    found
}

/// `/^next_phases:\s*\r?\n((?:[ \t]*-[ \t]*[^\r\n]+\r?\n?)*)/m`
fn next_phases_block(fm: &str) -> Option<Option<Vec<String>>> {
    let block = after_key_newline(fm, "next_phases:").into_iter().next()?;
    let mut out = Vec::new();
    let mut rest = block;
    loop {
        let line = rest.trim_start_matches([' ', '\t']);
        let Some(after_dash) = line.strip_prefix('-') else {
            break;
        };
        let value_end = after_dash.find(['\r', '\n']).unwrap_or(after_dash.len());
        let value = &after_dash[..value_end];
        if value.is_empty() {
            break;
        }
        // The second regex, /^[ \t]*-[ \t]*(.+)$/, refuses a line holding a
        // character `.` does not match.
        let next = &after_dash[value_end..];
        let next = next
            .strip_prefix("\r\n")
            .or_else(|| next.strip_prefix('\n'));
        if next.is_none() && !after_dash[value_end..].is_empty() {
            // A lone `\r`: the item's line is not one `.+$` can match.
            break;
        }
        if !value.contains(js::line_end) {
            out.push(clean(value));
        }
        let Some(next) = next else { break };
        rest = next;
    }
    Some(items(out.into_iter()))
}

/// `/^progress:\s*\r?\n((?:[ \t]+\w+:.+\r?\n?)+)/m`: the captured block.
fn progress_block(fm: &str) -> Option<&str> {
    for block in after_key_newline(fm, "progress:") {
        let mut len = 0;
        let mut rest = block;
        loop {
            let indent = rest.len() - rest.trim_start_matches([' ', '\t']).len();
            if indent == 0 {
                break;
            }
            let after = &rest[indent..];
            let word = after
                .bytes()
                .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                .count();
            if word == 0 || !after[word..].starts_with(':') {
                break;
            }
            let value = &after[word + 1..];
            let vend = value.find(js::line_end).unwrap_or(value.len());
            if vend == 0 {
                break;
            }
            let mut consumed = indent + word + 1 + vend;
            let tail = &rest[consumed..];
            if tail.starts_with("\r\n") {
                consumed += 2;
            } else if tail.starts_with('\r') || tail.starts_with('\n') {
                consumed += 1;
            }
            len += consumed;
            let ended = consumed == indent + word + 1 + vend;
            rest = &rest[consumed..];
            if ended {
                break;
            }
        }
        if len > 0 {
            return Some(&block[..len]);
        }
    }
    None
}

/// `/^[ \t]+KEY:\s*(\d+)/m` inside the progress block.
fn progress_number(block: &str, key: &str) -> Option<String> {
    for start in line_starts(block) {
        let line = &block[start..];
        let body = line.trim_start_matches([' ', '\t']);
        if body.len() == line.len() {
            continue;
        }
        let Some(rest) = body.strip_prefix(key).and_then(|r| r.strip_prefix(':')) else {
            continue;
        };
        let digits: String = skip_spaces(rest)
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        if !digits.is_empty() {
            return Some(digits);
        }
    }
    None
}

/// `/^Phase:\s*(\d+)\s+of\s+(\d+)(?:\s+\(([^)]+)\))?/m` over the whole file.
fn phase_line(content: &str) -> Option<(String, String, Option<String>)> {
    fn digits(s: &str) -> (&str, &str) {
        let n = s.bytes().take_while(u8::is_ascii_digit).count();
        s.split_at(n)
    }
    for start in line_starts(content) {
        let Some(rest) = content[start..].strip_prefix("Phase:") else {
            continue;
        };
        let (num, rest) = digits(skip_spaces(rest));
        if num.is_empty() {
            continue;
        }
        let after_ws = skip_spaces(rest);
        if after_ws.len() == rest.len() {
            continue;
        }
        let Some(rest) = after_ws.strip_prefix("of") else {
            continue;
        };
        let after_ws = skip_spaces(rest);
        if after_ws.len() == rest.len() {
            continue;
        }
        let (total, rest) = digits(after_ws);
        if total.is_empty() {
            continue;
        }
        let paren = skip_spaces(rest);
        let name = if paren.len() < rest.len() {
            paren.strip_prefix('(').and_then(|p| {
                let end = p.find(')')?;
                (end > 0).then(|| p[..end].to_owned())
            })
        } else {
            None
        };
        return Some((num.to_owned(), total.to_owned(), name));
    }
    None
}

/// The body fallback for a falsy status: `/^Status:\s*(.+)/m`, then three
/// substring rules.
fn status_fallback(content: &str) -> Option<String> {
    for start in line_starts(content) {
        let Some(rest) = content[start..].strip_prefix("Status:") else {
            continue;
        };
        let value = skip_spaces(rest);
        let raw = if value.is_empty() {
            if rest.chars().any(|c| !js::line_end(c)) {
                String::new()
            } else {
                continue;
            }
        } else {
            let end = value.find(js::line_end).unwrap_or(value.len());
            js_trim(&value[..end]).to_lowercase()
        };
        return if raw.contains("ready to plan") || raw.contains("planning") {
            Some("planning".to_owned())
        } else if raw.contains("execut") {
            Some("executing".to_owned())
        } else if raw.contains("complet") || raw.contains("archived") {
            Some("complete".to_owned())
        } else {
            None
        };
    }
    None
}

testing_pub!(
    /// `parseStateMd(content)`.
    pub fn parse_state_md(content: &str) -> HookState {
        let mut s = HookState::default();
        if let Some(fm) = frontmatter(content) {
            for line in fm.split('\n') {
                let line = line.strip_suffix('\r').unwrap_or(line);
                let Some((key, raw)) = key_value(line) else {
                    continue;
                };
                let v = clean(raw);
                let null = v == "null";
                let slot = match key {
                    "status" => &mut s.status,
                    "milestone" => &mut s.milestone,
                    "milestone_name" => &mut s.milestone_name,
                    "active_phase" => &mut s.active_phase,
                    "next_action" => &mut s.next_action,
                    _ => continue,
                };
                // `active_phase` and `next_action` also map "" to null; the
                // others keep "", which every later check treats as absent.
                *slot = (!null).then_some(v);
            }
            if let Some(phases) = next_phases_flow(fm).or_else(|| next_phases_block(fm)) {
                s.next_phases = phases;
            }
            if let Some(block) = progress_block(fm) {
                s.completed_phases = progress_number(block, "completed_phases");
                s.total_phases = progress_number(block, "total_phases");
                s.percent = progress_number(block, "percent");
            }
        }
        if let Some((num, total, name)) = phase_line(content) {
            s.phase_num = Some(num);
            s.phase_total = Some(total);
            s.phase_name = name;
        }
        if s.status.as_deref().is_none_or(str::is_empty)
            && let Some(st) = status_fallback(content)
        {
            s.status = Some(st);
        }
        s
    }
);

fn truthy(v: &Option<String>) -> Option<&str> {
    v.as_deref().filter(|s| !s.is_empty())
}

/// JavaScript `Number(digits)`; digit strings only, as the parser yields.
fn number(v: &Option<String>) -> Option<f64> {
    let s = v.as_deref()?;
    if s.is_empty() {
        return Some(0.0);
    }
    s.parse::<f64>().ok()
}

fn progress_bar(percent: &Option<String>) -> Option<String> {
    let pct = number(percent)?.clamp(0.0, 100.0) as u32;
    let filled = (pct / 10) as usize;
    Some(format!(
        "[{}{}] {pct}%",
        "\u{2588}".repeat(filled),
        "\u{2591}".repeat(10 - filled)
    ))
}

/// `formatGsdState(state)`: the state segment, `""` when nothing is known.
pub(crate) fn format_gsd_state(s: &HookState) -> String {
    let mut parts: Vec<String> = Vec::new();
    if truthy(&s.milestone).is_some() || truthy(&s.milestone_name).is_some() {
        let name = truthy(&s.milestone_name).filter(|n| *n != "milestone");
        let bar = progress_bar(&s.percent);
        let pieces: Vec<&str> = [truthy(&s.milestone), name, bar.as_deref()]
            .into_iter()
            .flatten()
            .collect();
        if !pieces.is_empty() {
            parts.push(pieces.join(" "));
        }
    }
    let phases = s
        .next_phases
        .as_ref()
        .filter(|p| !p.is_empty())
        .map(|p| p.join("/"));
    // The hook compares the counters as the strings its regex captured:
    // `s.completedPhases && s.totalPhases && s.completedPhases === s.totalPhases`.
    // `"0"` is truthy in JavaScript, so 0 of 0 phases reads "milestone
    // complete", and `"03"` is not `"3"`. That is the contract here; the
    // console's own views say "no phases yet".
    let complete = number(&s.percent) == Some(100.0)
        || matches!(
            (truthy(&s.completed_phases), truthy(&s.total_phases)),
            (Some(c), Some(t)) if c == t
        );
    if let Some(active) = truthy(&s.active_phase) {
        parts.push(match truthy(&s.status) {
            Some(stage) => format!("Phase {active} {stage}"),
            None => format!("Phase {active}"),
        });
    } else if let (Some(action), Some(phases)) = (truthy(&s.next_action), phases) {
        parts.push(format!("next {action} {phases}"));
    } else if complete {
        parts.push("milestone complete".to_owned());
    } else {
        if let Some(status) = truthy(&s.status) {
            parts.push(status.to_owned());
        }
        if let (Some(n), Some(m)) = (truthy(&s.phase_num), truthy(&s.phase_total)) {
            parts.push(match truthy(&s.phase_name) {
                Some(name) => format!("{name} ({n}/{m})"),
                None => format!("ph {n}/{m}"),
            });
        }
    }
    parts.join(" \u{b7} ")
}

testing_pub!(
    /// The statusline state segment for a `STATE.md`'s text.
    pub fn statusline(content: &str) -> String {
        format_gsd_state(&parse_state_md(content))
    }
);

#[cfg(test)]
mod tests;
