//! A small tolerant scanner for devloop's PRD and SDD HTML (seeds 003, 004).
//!
//! It is not an HTML parser: it finds tags and their attributes in one
//! forward pass, and the PRD and SDD readers walk that list. HTML that is
//! not well formed is read the way a browser would read most of it: a
//! missing `</section>` ends at the next `<section>`, a missing `</pre>` at
//! the end of its section, an unterminated tag or comment at the end of the
//! document. Every step moves forward, so the cost is linear in the input;
//! nothing here can panic on any input.

/// One start or end tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tag {
    /// Lowercase ASCII name.
    pub name: String,
    pub end: bool,
    /// Attributes: lowercase name, entity-decoded value (`None` when the
    /// attribute has no value, as in `<aside data-conflict>`).
    pub attrs: Attributes,
    /// Byte offset of the `<`.
    pub start: usize,
    /// Byte offset just after the `>`.
    pub after: usize,
}

impl Tag {
    pub fn has(&self, attr: &str) -> bool {
        self.attrs.iter().any(|(n, _)| n == attr)
    }

    pub fn attr(&self, attr: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| n == attr)
            .and_then(|(_, v)| v.as_deref())
    }

    fn is(&self, name: &str, end: bool) -> bool {
        self.end == end && self.name == name
    }
}

/// Attribute names and values, in order.
type Attributes = Vec<(String, Option<String>)>;

/// Elements whose content is text up to their own end tag.
const RAW_TEXT: &[&str] = &["script", "style", "textarea", "title", "xmp"];

/// Every tag of `html`, in order. Comments, doctypes and processing
/// instructions are skipped, as is the content of raw-text elements.
pub fn tags(html: &str) -> Vec<Tag> {
    let b = html.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(off) = find_byte(b, i, b'<') {
        i = off;
        let rest = &b[i..];
        if rest.starts_with(b"<!--") {
            match find(b, i + 4, b"-->") {
                Some(j) => i = j + 3,
                None => break,
            }
            continue;
        }
        if rest.starts_with(b"<!") || rest.starts_with(b"<?") {
            match find_byte(b, i + 2, b'>') {
                Some(j) => i = j + 1,
                None => break,
            }
            continue;
        }
        let end = rest.get(1) == Some(&b'/');
        let name_at = i + if end { 2 } else { 1 };
        if !b.get(name_at).is_some_and(u8::is_ascii_alphabetic) {
            // A `<` that starts no tag is text.
            i += 1;
            continue;
        }
        let mut j = name_at;
        while j < b.len() && !is_space(b[j]) && b[j] != b'>' && b[j] != b'/' {
            j += 1;
        }
        let name = html[name_at..j].to_ascii_lowercase();
        let Some((attrs, after)) = attributes(html, j) else {
            // An unterminated tag runs to the end of the document.
            break;
        };
        let start = i;
        i = after;
        if !end && RAW_TEXT.contains(&name.as_str()) {
            // Skip the element's text: it holds no tags.
            let close = format!("</{name}");
            match find_ci(b, i, close.as_bytes()) {
                Some(k) => i = k,
                None => break,
            }
        }
        out.push(Tag {
            name,
            end,
            attrs: if end { Vec::new() } else { attrs },
            start,
            after,
        });
    }
    out
}

/// Parse attributes from `from` up to the closing `>`. Returns them and the
/// offset after the `>`, or `None` when the tag never closes.
fn attributes(html: &str, from: usize) -> Option<(Attributes, usize)> {
    let b = html.as_bytes();
    let mut attrs = Vec::new();
    let mut i = from;
    loop {
        while i < b.len() && (is_space(b[i]) || b[i] == b'/') {
            i += 1;
        }
        match b.get(i) {
            None => return None,
            Some(b'>') => return Some((attrs, i + 1)),
            _ => {}
        }
        let name_start = i;
        while i < b.len() && !is_space(b[i]) && !matches!(b[i], b'>' | b'=' | b'/') {
            i += 1;
        }
        if i == name_start {
            // A lone `=` or similar: skip it.
            i += 1;
            continue;
        }
        let name = html[name_start..i].to_ascii_lowercase();
        let mut k = i;
        while k < b.len() && is_space(b[k]) {
            k += 1;
        }
        if b.get(k) != Some(&b'=') {
            attrs.push((name, None));
            continue;
        }
        k += 1;
        while k < b.len() && is_space(b[k]) {
            k += 1;
        }
        let value = match b.get(k) {
            None => return None,
            Some(&q @ (b'"' | b'\'')) => {
                let close = find_byte(b, k + 1, q)?;
                let v = &html[k + 1..close];
                i = close + 1;
                v
            }
            Some(_) => {
                let s = k;
                while k < b.len() && !is_space(b[k]) && b[k] != b'>' {
                    k += 1;
                }
                i = k;
                &html[s..k]
            }
        };
        attrs.push((name, Some(decode_entities(value))));
    }
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')
}

fn find_byte(b: &[u8], from: usize, c: u8) -> Option<usize> {
    b.get(from..)?
        .iter()
        .position(|&x| x == c)
        .map(|p| p + from)
}

fn find(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    let hay = b.get(from..)?;
    hay.windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

fn find_ci(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    let hay = b.get(from..)?;
    hay.windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
        .map(|p| p + from)
}

/// Decode the entities devloop's agents write: the five XML ones, `&nbsp;`
/// and numeric references. Anything else stays as written.
pub fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let tail = &rest[amp..];
        let semi = tail
            .char_indices()
            .take(12)
            .find(|&(_, c)| c == ';')
            .map(|(i, _)| i);
        let decoded = semi.and_then(|semi| {
            let name = &tail[1..semi];
            let c = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some('\u{a0}'),
                _ => {
                    let num = name.strip_prefix('#')?;
                    let code = match num.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                        None => num.parse::<u32>().ok()?,
                    };
                    char::from_u32(code).filter(|&c| c != '\0')
                }
            }?;
            Some((c, semi + 1))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &tail[len..];
            }
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The text of `html[from..to]`: tags removed, entities decoded.
fn text_of(html: &str, from: usize, to: usize) -> String {
    let Some(slice) = html.get(from..to) else {
        return String::new();
    };
    let mut plain = String::with_capacity(slice.len());
    let mut rest = slice;
    while let Some(lt) = rest.find('<') {
        plain.push_str(&rest[..lt]);
        let after = &rest[lt + 1..];
        if after.starts_with(|c: char| c.is_ascii_alphabetic() || c == '/' || c == '!') {
            match after.find('>') {
                Some(gt) => rest = &after[gt + 1..],
                None => {
                    rest = "";
                }
            }
        } else {
            plain.push('<');
            rest = after;
        }
    }
    plain.push_str(rest);
    decode_entities(&plain)
}

/// Whitespace runs folded to one space, trimmed (for one-line texts).
pub fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What loopdeck reads from one PRD page.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Prd {
    /// `<article data-doc="prd">` was found.
    pub article: bool,
    /// The article's `data-rev`.
    pub rev: Option<u64>,
    /// Each section's `data-rev`, in order (absent or unreadable: skipped).
    pub section_revs: Vec<u64>,
    /// The text of each `<aside data-conflict>`.
    pub conflicts: Vec<String>,
}

pub fn prd(html: &str) -> Prd {
    let tags = tags(html);
    let mut out = Prd::default();
    let mut k = 0;
    while k < tags.len() {
        let t = &tags[k];
        k += 1;
        if t.end {
            continue;
        }
        match t.name.as_str() {
            "article" if t.attr("data-doc") == Some("prd") => {
                out.article = true;
                if out.rev.is_none() {
                    out.rev = t.attr("data-rev").and_then(rev_number);
                }
            }
            "section" => {
                if let Some(r) = t.attr("data-rev").and_then(rev_number) {
                    out.section_revs.push(r);
                }
            }
            "aside" if t.has("data-conflict") => {
                // Up to `</aside>`, else the next section or the article's end.
                let stop = tags[k..].iter().position(|x| {
                    x.is("aside", true) || x.is("section", false) || x.is("article", true)
                });
                let to = stop.map_or(html.len(), |s| tags[k + s].start);
                // Never rescan: go on from where this aside stopped.
                k = stop.map_or(tags.len(), |s| k + s);
                let text = squash(&text_of(html, t.after, to));
                out.conflicts.push(if text.is_empty() {
                    "(the conflict aside is empty)".to_owned()
                } else {
                    text
                });
            }
            _ => {}
        }
    }
    out
}

/// `3`, `"3"`, `rev3`, `v3`, `prd@rev3` → 3.
pub fn rev_number(s: &str) -> Option<u64> {
    crate::formats::trailing_digits(s.trim()).parse().ok()
}

/// One `<section data-unit-id>` of the SDD.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SddUnit {
    pub id: String,
    pub kind: Option<String>,
    /// `data-depends`: space-separated ids (`None` when absent).
    pub depends: Option<Vec<String>>,
    pub contract: Option<Contract>,
    /// `<ul data-acceptance>` was found.
    pub has_acceptance: bool,
    pub acceptance: Vec<String>,
}

/// The text of a `<pre data-contract>`.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Contract {
    /// As a browser (or cheerio's `.text()`) reads it: the newline right
    /// after `<pre>` dropped, tags removed, entities decoded.
    pub text: String,
    /// The bytes between `<pre …>` and `</pre>`, exactly as written.
    pub raw: String,
    /// `</pre>` was missing.
    pub unclosed: bool,
}

impl Contract {
    /// The readings a writer may have hashed, best first: the text, the
    /// text trimmed, the raw bytes, the raw bytes trimmed.
    pub fn readings(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::with_capacity(4);
        for r in [
            self.text.as_str(),
            self.text.trim(),
            self.raw.as_str(),
            self.raw.trim(),
        ] {
            if !out.contains(&r) {
                out.push(r);
            }
        }
        out
    }
}

/// What loopdeck reads from `sdd.html`.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Sdd {
    pub article: bool,
    /// `data-derived-from`, e.g. `prd@rev3`.
    pub derived_from: Option<String>,
    pub rev: Option<u64>,
    pub units: Vec<SddUnit>,
}

pub fn sdd(html: &str) -> Sdd {
    let tags = tags(html);
    let mut out = Sdd::default();
    let mut current: Option<usize> = None;
    let mut k = 0;
    while k < tags.len() {
        let t = &tags[k];
        k += 1;
        match (t.name.as_str(), t.end) {
            ("article", false) if t.attr("data-doc") == Some("sdd") && !out.article => {
                out.article = true;
                out.derived_from = t.attr("data-derived-from").map(str::to_owned);
                out.rev = t.attr("data-rev").and_then(rev_number);
            }
            ("section", false) => {
                current = t.attr("data-unit-id").map(|id| {
                    out.units.push(SddUnit {
                        id: id.trim().to_owned(),
                        kind: t.attr("data-type").map(str::to_owned),
                        depends: t
                            .attr("data-depends")
                            .map(|d| d.split_whitespace().map(str::to_owned).collect()),
                        ..SddUnit::default()
                    });
                    out.units.len() - 1
                });
            }
            ("section", true) | ("article", true) => current = None,
            ("pre", false) if t.has("data-contract") => {
                let Some(u) = current else { continue };
                // Up to `</pre>`, else to the end of the section.
                let close = tags[k..].iter().position(|x| {
                    x.is("pre", true) || x.name == "section" || x.is("article", true)
                });
                let (to, unclosed) = match close.map(|c| &tags[k + c]) {
                    Some(x) if x.is("pre", true) => (x.start, false),
                    Some(x) => (x.start, true),
                    None => (html.len(), true),
                };
                let raw = html.get(t.after..to).unwrap_or_default();
                // HTML drops one newline right after `<pre>`.
                let from = t.after
                    + if raw.starts_with("\r\n") {
                        2
                    } else {
                        usize::from(raw.starts_with('\n'))
                    };
                let contract = Contract {
                    text: text_of(html, from, to),
                    raw: raw.to_owned(),
                    unclosed,
                };
                if out.units[u].contract.is_none() {
                    out.units[u].contract = Some(contract);
                }
                // Go on after `</pre>`, or at the tag that ended the text;
                // never rescan (an unclosed pre runs to the end).
                k = match close {
                    Some(c) if tags[k + c].is("pre", true) => k + c + 1,
                    Some(c) => k + c,
                    None => tags.len(),
                };
            }
            ("ul" | "ol", false) if t.has("data-acceptance") => {
                let Some(u) = current else { continue };
                out.units[u].has_acceptance = true;
                let mut items = Vec::new();
                let mut open: Option<usize> = None;
                while k < tags.len() {
                    let x = &tags[k];
                    let stop = x.is("ul", true)
                        || x.is("ol", true)
                        || x.name == "section"
                        || x.is("article", true);
                    if x.name == "li" || stop {
                        if let Some(from) = open.take() {
                            let item = squash(&text_of(html, from, x.start));
                            if !item.is_empty() {
                                items.push(item);
                            }
                        }
                        if x.is("li", false) {
                            open = Some(x.after);
                        }
                    }
                    if stop {
                        break;
                    }
                    k += 1;
                }
                if let Some(from) = open {
                    let item = squash(&text_of(html, from, html.len()));
                    if !item.is_empty() {
                        items.push(item);
                    }
                }
                out.units[u].acceptance.extend(items);
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SDD: &str = r#"<!-- Architect 生成 -->
<article data-doc="sdd" data-derived-from="prd@rev3">
  <section data-unit-id="auth-be" data-type="be" data-depends="">
    <h3>Unit · auth-be</h3>
    <pre data-contract="openapi">POST /api/auth/login
response: 200 { token } | 401 { error:"invalid_credentials" }</pre>
    <ul data-acceptance>
      <li>有效凭据 → 200 + JWT</li>
      <li>user 不存在 → <b>401</b> invalid_credentials</li>
    </ul>
  </section>
  <section data-unit-id="auth-fe" data-type='fe' data-depends="auth-be  x-mw">
    <pre data-contract>
  VIEW /login &amp; /logout &lt;Form&gt;
</pre>
    <ul data-acceptance><li>one<li>two</ul>
  </section>
</article>"#;

    #[test]
    fn reads_unit_sections_contracts_and_acceptance() {
        let s = sdd(SDD);
        assert!(s.article);
        assert_eq!(s.derived_from.as_deref(), Some("prd@rev3"));
        assert_eq!(s.units.len(), 2);
        let a = &s.units[0];
        assert_eq!(a.id, "auth-be");
        assert_eq!(a.kind.as_deref(), Some("be"));
        assert_eq!(a.depends, Some(vec![]));
        let c = a.contract.as_ref().unwrap();
        assert_eq!(
            c.text,
            "POST /api/auth/login\nresponse: 200 { token } | 401 { error:\"invalid_credentials\" }"
        );
        assert_eq!(c.text, c.raw);
        assert_eq!(
            a.acceptance,
            vec![
                "有效凭据 → 200 + JWT",
                "user 不存在 → 401 invalid_credentials"
            ]
        );
        let b = &s.units[1];
        assert_eq!(
            b.depends,
            Some(vec!["auth-be".to_owned(), "x-mw".to_owned()])
        );
        let c = b.contract.as_ref().unwrap();
        assert_eq!(c.text, "  VIEW /login & /logout <Form>\n");
        assert_eq!(c.readings()[1], "VIEW /login & /logout <Form>");
        assert_eq!(b.acceptance, vec!["one", "two"]);
    }

    #[test]
    fn broken_html_is_read_as_far_as_it_goes() {
        // No </pre>, no </section>, an unquoted attribute, a stray `<`.
        let html = "<article data-doc=sdd><section data-unit-id=a-be><pre data-contract>x < y\n<section data-unit-id=\"b-be\"><pre data-contract>z</pre><ul data-acceptance><li>ok";
        let s = sdd(html);
        assert_eq!(s.units.len(), 2);
        let a = s.units[0].contract.as_ref().unwrap();
        assert_eq!(a.text, "x < y\n");
        assert!(a.unclosed);
        assert_eq!(s.units[1].contract.as_ref().unwrap().text, "z");
        assert_eq!(s.units[1].acceptance, vec!["ok"]);
        // An unterminated tag or comment ends the document.
        assert_eq!(tags("<p>a<section data-unit-id=\"x").len(), 1);
        assert_eq!(tags("<p>a<!-- <section>").len(), 1);
        for junk in [
            "<",
            "</",
            "<a",
            "<a b=",
            "<a b='",
            "&#xFFFFFFFF;",
            "&#0;<pre>",
            "<<<>>>",
        ] {
            let _ = sdd(junk);
            let _ = prd(junk);
        }
    }

    #[test]
    fn prd_revisions_and_conflict() {
        let html = r#"<article data-doc="prd" data-rev="2">
  <aside data-conflict>新反馈与 rev 2 冲突：
     请确认</aside>
  <section data-rev="1"><h3>a</h3></section>
  <section data-rev="2"><h3>b</h3></section>
</article>"#;
        let p = prd(html);
        assert!(p.article);
        assert_eq!(p.rev, Some(2));
        assert_eq!(p.section_revs, vec![1, 2]);
        assert_eq!(p.conflicts, vec!["新反馈与 rev 2 冲突： 请确认"]);
        let p = prd("<article data-doc=\"prd\"><aside data-conflict>unclosed<section data-rev=x>");
        assert_eq!(p.conflicts, vec!["unclosed"]);
        assert!(p.section_revs.is_empty());
    }

    #[test]
    fn entities_and_revisions() {
        assert_eq!(
            decode_entities("a &amp; b &lt;c&gt; &#39;&#x4e2d; &bogus; &"),
            "a & b <c> '中 &bogus; &"
        );
        assert_eq!(rev_number("prd@rev3"), Some(3));
        assert_eq!(rev_number("12"), Some(12));
        assert_eq!(rev_number("rev"), None);
    }

    #[test]
    fn scanning_is_linear_on_hostile_input() {
        // Many unterminated comments/tags would be quadratic if each one
        // rescanned the rest of the document.
        let html = "<a x='".repeat(200_000);
        assert!(tags(&html).is_empty());
        let html = "<section data-unit-id=a-be><pre data-contract>".repeat(20_000);
        assert_eq!(sdd(&html).units.len(), 20_000);
        let html = format!("<ul data-acceptance>{}", "<li>x".repeat(50_000));
        let _ = sdd(&format!("<section data-unit-id=a-be>{html}"));
        let html = format!(
            "<section data-unit-id=a-be>{}",
            "<pre data-contract>x".repeat(50_000)
        );
        assert!(sdd(&html).units[0].contract.is_some());
        let html = format!(
            "<article data-doc=prd>{}",
            "<aside data-conflict>x".repeat(50_000)
        );
        assert_eq!(prd(&html).conflicts.len(), 1);
    }
}
