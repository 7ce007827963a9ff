//! What a resume card quotes of a read-first file under "what you meant
//! then" (scenario C): the words people and agents wrote, never the
//! machine's part of the file. A Markdown file's frontmatter is left out
//! (`formats::markdown`: a `---` block that reads as YAML; a rule over the
//! opening section is prose), an HTML page is read as its text, a line per
//! block (tags, comments, scripts, styles and `<pre>` contracts left out),
//! and JSON (a run's result, a triage) quotes nothing: it is data, not
//! what anyone meant. A format may pick the sections of its own files that
//! carry the intent (GSD's `STATE.md`, a DWP README).

use super::devloop::html::{Token, tokens};
use super::markdown;

/// Lines of `text`, the file `rel`, that say what was meant, for any
/// format: see the module's documentation.
pub(crate) fn generic(rel: &str, text: &str) -> Vec<String> {
    let ext = rel
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "json" | "ndjson" | "jsonl" => Vec::new(),
        "html" | "htm" => html_text(text),
        _ => prose(markdown::body(text).lines()),
    }
}

/// The meaningful lines of `lines`: trimmed; blank lines, `---` rules and
/// code fences left out.
pub(crate) fn prose<'a>(lines: impl Iterator<Item = &'a str>) -> Vec<String> {
    lines
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("---") && !l.starts_with("```"))
        .map(str::to_owned)
        .collect()
}

/// The level of a Markdown `#` heading (`## Goal` → 2) and its title
/// (`Goal`), if `line` is one.
fn heading(line: &str) -> Option<(usize, &str)> {
    let t = line.trim_start();
    let level = t.bytes().take_while(|b| *b == b'#').count();
    let title = &t[level..];
    (level > 0 && (title.is_empty() || title.starts_with([' ', '\t'])))
        .then(|| (level, title.trim().trim_end_matches('#').trim()))
}

/// The headings of `body` (level and title, with the line's index), those
/// inside code fences left out.
fn headings(body: &str) -> impl Iterator<Item = (usize, usize, &str)> {
    let mut fenced = false;
    body.lines().enumerate().filter_map(move |(n, line)| {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        heading(line)
            .filter(|_| !fenced)
            .map(|(level, title)| (n, level, title))
    })
}

/// The level of the document's own sections: the shallowest level of its
/// headings, its title left out (a first heading that is the only one at
/// level 1: `# Plan: …`, `# Project State`). `None` without any.
fn own_level(body: &str) -> Option<usize> {
    let levels: Vec<usize> = headings(body).map(|(_, level, _)| level).collect();
    let titled = levels.first() == Some(&1) && levels.iter().filter(|l| **l == 1).count() == 1;
    levels.iter().skip(usize::from(titled)).min().copied()
}

/// A heading's title as a name to match: lower-cased, its numbering
/// (`1.`, `2)`, `3.1`) left out (`## 1. Goal` → `goal`).
fn name(title: &str) -> String {
    let t = title.trim();
    let rest = t.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
    let number = &t[..t.len() - rest.len()];
    let unnumbered = if !number.starts_with(|c: char| c.is_ascii_digit()) {
        t
    } else if let Some(after) = rest.strip_prefix(')') {
        after
    } else if number.ends_with('.') || rest.starts_with(char::is_whitespace) {
        rest
    } else {
        t
    };
    unnumbered.trim().to_lowercase()
}

/// The lines of the document's own sections of `body` (the level under
/// its title, see [`own_level`]: a plan's, not its tasks') whose heading
/// `wanted` takes (the heading's name: lower-cased, unnumbered), heading
/// and sub-sections included, in the order of `wanted`'s answers (their
/// index), then of the file. A section runs to the next heading of its
/// level or above; headings inside code fences are text.
pub(crate) fn sections(body: &str, wanted: impl Fn(&str) -> Option<usize>) -> Vec<&str> {
    let Some(own) = own_level(body) else {
        return Vec::new();
    };
    let mut at = headings(body).peekable();
    let mut found: Vec<(usize, usize, &str)> = Vec::new();
    let mut open: Option<usize> = None; // rank
    for (n, line) in body.lines().enumerate() {
        if let Some((_, level, title)) = at.next_if(|(h, _, _)| *h == n) {
            if level <= own {
                open = None;
            }
            if level == own {
                open = wanted(&name(title));
            }
        }
        if let Some(rank) = open {
            found.push((rank, n, line));
        }
    }
    found.sort_by_key(|(rank, n, _)| (*rank, *n));
    found.into_iter().map(|(_, _, l)| l).collect()
}

/// The text of an HTML page, a line per block (a paragraph, a heading, a
/// list item, a table row, a `<br>`…): the text of inline elements (`<b>`,
/// `<code>`, `<a>`…) runs on in its sentence, a row's cells are set apart
/// by ` · `, and white space collapses as a browser collapses it. Tags and
/// comments are left out, and the text of `<script>`, `<style>` and
/// `<pre>` (a devloop contract: code, hashed, not prose).
fn html_text(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = String::new();
    // Inside a `<pre>`, `<script>` or `<style>`.
    let mut hidden = 0usize;
    // A cell ended after text on this line: the next text is another's.
    let mut cell = false;
    for t in tokens(html) {
        match t {
            Token::Tag(tag) if matches!(tag.name.as_ref(), "pre" | "script" | "style") => {
                end_line(&mut line, &mut out);
                cell = false;
                hidden = if tag.end {
                    hidden.saturating_sub(1)
                } else {
                    hidden + 1
                };
            }
            Token::Tag(tag) if matches!(tag.name.as_ref(), "td" | "th") => {
                cell |= !line.trim().is_empty();
            }
            Token::Tag(tag) if is_block(&tag.name) => {
                end_line(&mut line, &mut out);
                cell = false;
            }
            Token::Text(s) if hidden == 0 => {
                if cell && !s.trim().is_empty() {
                    line.push_str(" · ");
                    cell = false;
                }
                line.push_str(&s);
            }
            _ => {}
        }
    }
    end_line(&mut line, &mut out);
    out
}

/// Does the element `name` start a line of text and end one (a block, or
/// `<br>`)? Any other tag is inline: its text runs on.
fn is_block(name: &str) -> bool {
    matches!(
        name,
        "address"
            | "article"
            | "aside"
            | "blockquote"
            | "body"
            | "br"
            | "caption"
            | "dd"
            | "details"
            | "dialog"
            | "div"
            | "dl"
            | "dt"
            | "fieldset"
            | "figcaption"
            | "figure"
            | "footer"
            | "form"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "head"
            | "header"
            | "hgroup"
            | "hr"
            | "html"
            | "li"
            | "main"
            | "nav"
            | "ol"
            | "p"
            | "section"
            | "summary"
            | "table"
            | "tbody"
            | "tfoot"
            | "thead"
            | "title"
            | "tr"
            | "ul"
    )
}

/// Add the text gathered in `line`, its white space collapsed, to `out`
/// as a line (when there is any), and start a new one.
fn end_line(line: &mut String, out: &mut Vec<String>) {
    let text = line.split_whitespace().collect::<Vec<_>>().join(" ");
    if !text.is_empty() {
        out.push(text);
    }
    line.clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_is_never_quoted() {
        let md = "---\ntitle: x\nstatus: draft\n---\n\n# 场景锚点\n\n- 谁在用\n";
        assert_eq!(generic("scene-anchor.md", md), vec!["# 场景锚点", "- 谁在用"]);
        // A rule in the prose is not frontmatter; a file without any is
        // quoted from its top.
        assert_eq!(
            generic("a.md", "# A\n\n---\n\ntext\n"),
            vec!["# A", "text"]
        );
    }

    /// A PRD-master `scene-anchor.md` that opens with a rule: the section
    /// between the rules is what was meant, not a frontmatter to leave out.
    #[test]
    fn a_rule_over_the_opening_section_is_prose() {
        let md = "---\n\n# 场景锚点：差旅报销\n\n- 财务主管：终审\n\n---\n\n## 痛点\n\n- 纸单子丢失\n";
        assert_eq!(
            generic("scene-anchor.md", md),
            vec!["# 场景锚点：差旅报销", "- 财务主管：终审", "## 痛点", "- 纸单子丢失"]
        );
    }

    /// devloop's PRD paragraph with inline markup (p-shipped's `prd.html`)
    /// is one sentence, not a line per tag; a line ends at a block.
    #[test]
    fn inline_tags_run_on_in_their_sentence() {
        let page = "<article data-doc=\"prd\" data-rev=\"2\">\n  <h1>供应商对账助手</h1>\n  <section data-rev=\"1\">\n    <h3>导入对账单</h3>\n    <p>支持供应商发来的 <b>Excel</b> 与 <code>CSV</code> 对账单，<a href=\"x\">详见附录</a>。</p>\n  </section>\n</article>\n";
        assert_eq!(
            generic("prd.html", page),
            vec!["供应商对账助手", "导入对账单", "支持供应商发来的 Excel 与 CSV 对账单，详见附录。"]
        );
        // A line break, list items and table rows end lines; a row's cells
        // are set apart; a sentence across source lines is one; scripts
        // and styles are not text.
        let page = "<style>p { color: red }</style><p>第一行<br>第二\n  行 &amp; <em>更多</em></p><ul><li>甲</li><li>乙</li></ul><table><tr><th>字段</th><th>说明</th></tr><tr><td>id</td> <td></td><td>主键</td></tr></table><script>let x = \"<p>\";</script><div>完</div>";
        assert_eq!(
            generic("sdd.html", page),
            vec!["第一行", "第二 行 & 更多", "甲", "乙", "字段 · 说明", "id · 主键", "完"]
        );
    }

    #[test]
    fn html_is_its_text_and_json_quotes_nothing() {
        let page = "<!-- PM Agent 维护 -->\n<article data-doc=\"prd\">\n  <aside data-conflict>新反馈与 rev 2 冲突</aside>\n  <h1>供应商对账助手</h1>\n  <section><h3>导入</h3>\n    <p>支持 Excel &amp; CSV。</p>\n    <pre data-contract=\"sql\">TABLE t (id TEXT)</pre>\n  </section>\n</article>\n";
        assert_eq!(
            generic("prd.html", page),
            vec!["新反馈与 rev 2 冲突", "供应商对账助手", "导入", "支持 Excel & CSV。"]
        );
        assert!(generic("units/u/runs/r/result.json", "{\n\"ok\": false\n}\n").is_empty());
    }

    #[test]
    fn sections_are_taken_in_the_order_asked() {
        let body = "# T\n## Current Position\nPhase: 1\n## Session Continuity\nStopped at: x\n### Sub\ny\n## Project Reference\n**Core value:** v\n```\n## not a heading\n```\n## Other\nz\n";
        let want = |t: &str| match t {
            "project reference" => Some(0),
            "session continuity" => Some(1),
            _ => None,
        };
        assert_eq!(
            sections(body, want),
            vec![
                "## Project Reference",
                "**Core value:** v",
                "```",
                "## not a heading",
                "```",
                "## Session Continuity",
                "Stopped at: x",
                "### Sub",
                "y"
            ]
        );
    }
}
