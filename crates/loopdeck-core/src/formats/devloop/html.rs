//! devloop's PRD and SDD HTML (seeds 003, 004), read through an HTML5
//! tokenizer.
//!
//! Tokenizing is `html5gum`'s: the WHATWG algorithm, so every named
//! character reference decodes as a browser decodes it (`&mdash;` is `—`,
//! `&amp` without its `;` is `&` in text), comments and doctypes are
//! skipped, and the text of `script`, `style`, `textarea`, `title` and the
//! other raw-text elements holds no tags. What a tree builder would add is
//! this module's, kept as loose as before: a missing `</section>` ends at
//! the next `<section>`, a missing `</pre>` at the end of its section, an
//! unterminated tag or comment at the end of the document. The tokenizer
//! makes one forward pass and the readers below never rescan, so the cost
//! is linear in the input; nothing here can panic on any input.

use std::borrow::Cow;
use std::convert::Infallible;

use html5gum::emitters::callback::{Callback, CallbackEmitter, CallbackEvent};
use html5gum::{Emitter, ForwardingEmitter, Span, Tokenizer};

testing_pub!(
    /// One start or end tag (its values borrowed from the document when they
    /// read as written).
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Tag<'a> {
        /// Lowercase ASCII name.
        pub(crate) name: Name,
        pub(crate) end: bool,
        /// Attributes: lowercase name, entity-decoded value (`None` when the
        /// attribute has no value, as in `<aside data-conflict>`).
        pub(crate) attrs: Attributes<'a>,
        /// Byte offset of the `<`.
        pub(crate) start: usize,
        /// Byte offset just after the `>`.
        pub(crate) after: usize,
    }
);

impl Tag<'_> {
    testing_pub!(
        /// Does the tag carry `attr` (with a value or without)?
        pub fn has(&self, attr: &str) -> bool {
            self.attrs.iter().any(|(n, _)| n == attr)
        }
    );

    testing_pub!(
        /// The first value of `attr` (a repeated attribute is ignored, as a
        /// browser ignores it).
        pub fn attr(&self, attr: &str) -> Option<&str> {
            self.attrs
                .iter()
                .find(|(n, _)| n == attr)
                .and_then(|(_, v)| v.as_deref())
        }
    );

    fn is(&self, name: &str, end: bool) -> bool {
        self.end == end && self.name == name
    }
}

/// Attribute names and values, in order.
type Attributes<'a> = Vec<(Name, Option<Cow<'a, str>>)>;

/// A tag's or an attribute's name: the common ones are not allocated.
pub(crate) type Name = Cow<'static, str>;

/// `known` for the names devloop's pages use most.
macro_rules! known_names {
    ($($name:literal)*) => {
        fn known(s: &str) -> Option<&'static str> {
            match s {
                $($name => Some($name),)*
                _ => None,
            }
        }
    };
}

#[rustfmt::skip]
known_names!(
    "a" "article" "aside" "b" "blockquote" "body" "br" "charset" "class" "code" "content"
    "data-acceptance" "data-changelog" "data-conflict" "data-contract" "data-depends"
    "data-derived-from" "data-doc" "data-rev" "data-type" "data-unit-id" "dd" "div" "dl" "dt"
    "em" "footer" "h1" "h2" "h3" "h4" "head" "header" "hr" "href" "html" "i" "id" "img" "lang"
    "li" "link" "main" "meta" "name" "nav" "ol" "p" "pre" "rel" "script" "section" "span"
    "strong" "style" "table" "td" "template" "textarea" "th" "title" "tr" "ul"
);

/// A tag's or an attribute's name: a common one is not allocated.
fn name(b: &[u8]) -> Name {
    let s = String::from_utf8_lossy(b);
    match known(&s) {
        Some(k) => Cow::Borrowed(k),
        None => Cow::Owned(s.into_owned()),
    }
}

/// A tag, or the text between two tags (character references decoded,
/// comments left out; borrowed from the document when it reads as written).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Token<'a> {
    Tag(Tag<'a>),
    Text(Cow<'a, str>),
}

impl<'a> Token<'a> {
    fn tag(&self) -> Option<&Tag<'a>> {
        match self {
            Token::Tag(t) => Some(t),
            Token::Text(_) => None,
        }
    }
}

/// Builds [`Token`]s from html5gum's events.
struct Collect<'h, 'o> {
    html: &'h str,
    /// The start tag being read, until its `>`.
    open: Option<Tag<'h>>,
    out: &'o mut Vec<Token<'h>>,
}

impl Callback<Infallible, usize> for Collect<'_, '_> {
    fn handle_event(&mut self, event: CallbackEvent<'_>, span: Span<usize>) -> Option<Infallible> {
        if let Some(token) = self.token(event, span) {
            self.out.push(token);
        }
        None
    }
}

impl<'h> Collect<'h, '_> {
    /// `value` as the document's own bytes at `span` when it reads as
    /// written (no reference decoded, no line break made `\n`).
    fn borrowed(&self, span: Span<usize>, value: &[u8]) -> Cow<'h, str> {
        match self.html.get(span.start..span.end) {
            Some(raw) if raw.as_bytes() == value => Cow::Borrowed(raw),
            _ => Cow::Owned(String::from_utf8_lossy(value).into_owned()),
        }
    }

    fn token(&mut self, event: CallbackEvent<'_>, span: Span<usize>) -> Option<Token<'h>> {
        match event {
            CallbackEvent::OpenStartTag { name } => {
                self.open = Some(Tag {
                    name: self::name(name),
                    end: false,
                    attrs: Vec::new(),
                    start: span.start,
                    after: span.end,
                });
                None
            }
            // An end tag's attributes arrive with no start tag open: dropped.
            CallbackEvent::AttributeName { name } => {
                let tag = self.open.as_mut()?;
                // `<aside data-conflict>` has no value; `x=""` an empty one.
                let valued = self
                    .html
                    .get(span.end..)
                    .is_some_and(|rest| rest.trim_start_matches(is_space).starts_with('='));
                tag.attrs
                    .push((self::name(name), valued.then(Cow::default)));
                None
            }
            CallbackEvent::AttributeValue { value } => {
                let read = self.borrowed(span, value);
                if let Some((_, Some(v))) = self.open.as_mut()?.attrs.last_mut() {
                    *v = read;
                }
                None
            }
            CallbackEvent::CloseStartTag { .. } => {
                let mut tag = self.open.take()?;
                tag.after = span.end;
                Some(Token::Tag(tag))
            }
            CallbackEvent::EndTag { name } => Some(Token::Tag(Tag {
                name: self::name(name),
                end: true,
                attrs: Vec::new(),
                start: span.start,
                after: span.end,
            })),
            CallbackEvent::String { value } => Some(Token::Text(self.borrowed(span, value))),
            CallbackEvent::Comment { .. }
            | CallbackEvent::Doctype { .. }
            | CallbackEvent::Error(_) => None,
        }
    }
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0c')
}

/// html5gum's callback emitter, told that its parse errors are not wanted:
/// the readers drop them, and without them the tokenizer skips checking
/// every character for the ones the spec calls errors (a sixth of a
/// devloop `list`'s time otherwise).
struct Quiet<'h, 'o>(CallbackEmitter<Collect<'h, 'o>, Infallible, usize>);

impl<'h, 'o> ForwardingEmitter for Quiet<'h, 'o> {
    type Token = Infallible;

    fn inner(&mut self) -> &mut impl Emitter<Token = Self::Token> {
        &mut self.0
    }

    fn should_emit_errors(&mut self) -> bool {
        false
    }

    fn emit_error(&mut self, _: html5gum::Error) {}
}

/// Every tag and text of `html`, in order. A tag left unterminated at the
/// end of the document is dropped, as a browser drops it.
pub(crate) fn tokens(html: &str) -> Vec<Token<'_>> {
    // Fewer tokens than devloop's pages hold (one per 20 bytes or so): a
    // page of plain text reserves little.
    let mut out = Vec::with_capacity(html.len() / 64);
    let mut emitter = CallbackEmitter::new(Collect {
        html,
        open: None,
        out: &mut out,
    });
    // The raw-text elements' content is text (no tree builder tells it).
    emitter.naively_switch_states(true);
    // Reading a `&str` cannot fail.
    let _ = Tokenizer::new_with_emitter(html, Quiet(emitter)).finish();
    out
}

testing_pub!(
    #[cfg(any(test, feature = "testing"))]
    /// Every tag of `html`, in order.
    pub fn tags(html: &str) -> Vec<Tag<'_>> {
        tokens(html)
            .into_iter()
            .filter_map(|t| match t {
                Token::Tag(t) => Some(t),
                Token::Text(_) => None,
            })
            .collect()
    }
);

testing_pub!(
    #[cfg(any(test, feature = "testing"))]
    /// `s` with its character references decoded as HTML5 decodes them in
    /// text (and its line breaks made `\n`), nothing else read into it: a `<`
    /// stays a `<`.
    pub fn decode_entities(s: &str) -> String {
        if !s.contains(['&', '\r', '\0']) {
            return s.to_owned();
        }
        // RCDATA (a `<textarea>`'s content) with no start tag to end: only
        // character references mean anything.
        let mut t = Tokenizer::new(s);
        t.set_state(html5gum::State::RcData);
        let mut out = String::with_capacity(s.len());
        for token in t.flatten() {
            if let html5gum::Token::String(v) = token {
                out.push_str(&String::from_utf8_lossy(&v));
            }
        }
        out
    }
);

/// The text of `tokens`: tags removed.
fn text_of(tokens: &[Token<'_>]) -> String {
    let mut out = String::new();
    for t in tokens {
        if let Token::Text(s) = t {
            out.push_str(s);
        }
    }
    out
}

testing_pub!(
    /// Whitespace runs folded to one space, trimmed (for one-line texts).
    pub fn squash(s: &str) -> String {
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    }
);

testing_pub!(
    /// What loopdeck reads from one PRD page.
    #[derive(Debug, Default, PartialEq, Eq)]
    pub struct Prd {
        /// `<article data-doc="prd">` was found.
        pub(crate) article: bool,
        /// The article's `data-rev`.
        pub(crate) rev: Option<u64>,
        /// Each section's `data-rev`, in order (absent or unreadable: skipped).
        pub(crate) section_revs: Vec<u64>,
        /// The text of each `<aside data-conflict>`.
        pub(crate) conflicts: Vec<String>,
    }
);

testing_pub!(
    /// Read one PRD page (`prd.html`, or a page of `prd/`).
    pub fn prd(html: &str) -> Prd {
        let tokens = tokens(html);
        let mut out = Prd::default();
        let mut k = 0;
        while k < tokens.len() {
            let Some(t) = tokens[k].tag() else {
                k += 1;
                continue;
            };
            k += 1;
            if t.end {
                continue;
            }
            match t.name.as_ref() {
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
                    let stop = tokens[k..].iter().position(|x| {
                        x.tag().is_some_and(|x| {
                            x.is("aside", true) || x.is("section", false) || x.is("article", true)
                        })
                    });
                    let to = stop.map_or(tokens.len(), |s| k + s);
                    let text = squash(&text_of(&tokens[k..to]));
                    // Never rescan: go on from where this aside stopped.
                    k = to;
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
);

testing_pub!(
    /// `3`, `"3"`, `rev3`, `v3`, `prd@rev3` → 3.
    pub fn rev_number(s: &str) -> Option<u64> {
        crate::formats::trailing_digits(s.trim()).parse().ok()
    }
);

testing_pub!(
    /// One `<section data-unit-id>` of the SDD.
    #[derive(Debug, Default, PartialEq, Eq)]
    pub struct SddUnit {
        pub(crate) id: String,
        pub(crate) kind: Option<String>,
        /// `data-depends`: space-separated ids (`None` when absent).
        pub(crate) depends: Option<Vec<String>>,
        /// Its `<pre data-contract>`, when it has one.
        pub contract: Option<Contract>,
        /// `<ul data-acceptance>` was found.
        pub(crate) has_acceptance: bool,
        pub(crate) acceptance: Vec<String>,
    }
);

testing_pub!(
    /// The text of a `<pre data-contract>`.
    #[derive(Debug, Default, PartialEq, Eq)]
    pub struct Contract {
        /// As a browser (or cheerio's `.text()`) reads it: the newline right
        /// after `<pre>` dropped, tags removed, entities decoded.
        pub(crate) text: String,
        /// The bytes between `<pre …>` and `</pre>`, exactly as written.
        pub(crate) raw: String,
        /// `</pre>` was missing.
        pub(crate) unclosed: bool,
    }
);

impl Contract {
    testing_pub!(
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
    );
}

testing_pub!(
    /// What loopdeck reads from `sdd.html`.
    #[derive(Debug, Default, PartialEq, Eq)]
    pub struct Sdd {
        pub(crate) article: bool,
        /// `data-derived-from`, e.g. `prd@rev3`.
        pub(crate) derived_from: Option<String>,
        pub(crate) rev: Option<u64>,
        /// Its unit sections, in the document's order.
        pub units: Vec<SddUnit>,
    }
);

testing_pub!(
    /// Read `sdd.html`.
    pub fn sdd(html: &str) -> Sdd {
        let tokens = tokens(html);
        let tag = |k: usize| tokens.get(k).and_then(Token::tag);
        let mut out = Sdd::default();
        let mut current: Option<usize> = None;
        let mut k = 0;
        while k < tokens.len() {
            let Some(t) = tag(k) else {
                k += 1;
                continue;
            };
            k += 1;
            match (t.name.as_ref(), t.end) {
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
                    let close = tokens[k..].iter().position(|x| {
                        x.tag().is_some_and(|x| {
                            x.is("pre", true) || x.name == "section" || x.is("article", true)
                        })
                    });
                    let stop = close.map_or(tokens.len(), |c| k + c);
                    let (to, unclosed) = match tag(stop) {
                        Some(x) if x.is("pre", true) => (x.start, false),
                        Some(x) => (x.start, true),
                        None => (html.len(), true),
                    };
                    let raw = html.get(t.after..to).unwrap_or_default();
                    let mut text = text_of(&tokens[k..stop]);
                    // HTML drops one newline right after `<pre>` (the tokenizer
                    // made a `\r\n` one `\n`).
                    if (raw.starts_with('\n') || raw.starts_with("\r\n")) && text.starts_with('\n') {
                        text.remove(0);
                    }
                    let contract = Contract {
                        text,
                        raw: raw.to_owned(),
                        unclosed,
                    };
                    if out.units[u].contract.is_none() {
                        out.units[u].contract = Some(contract);
                    }
                    // Go on after `</pre>`, or at the tag that ended the text;
                    // never rescan (an unclosed pre runs to the end).
                    k = match tag(stop) {
                        Some(x) if x.is("pre", true) => stop + 1,
                        _ => stop,
                    };
                }
                ("ul" | "ol", false) if t.has("data-acceptance") => {
                    let Some(u) = current else { continue };
                    out.units[u].has_acceptance = true;
                    let mut items = Vec::new();
                    let mut open: Option<usize> = None;
                    while k < tokens.len() {
                        let Some(x) = tag(k) else {
                            k += 1;
                            continue;
                        };
                        let stop = x.is("ul", true)
                            || x.is("ol", true)
                            || x.name == "section"
                            || x.is("article", true);
                        if x.name == "li" || stop {
                            if let Some(from) = open.take() {
                                let item = squash(&text_of(&tokens[from..k]));
                                if !item.is_empty() {
                                    items.push(item);
                                }
                            }
                            if x.is("li", false) {
                                open = Some(k + 1);
                            }
                        }
                        if stop {
                            break;
                        }
                        k += 1;
                    }
                    if let Some(from) = open {
                        let item = squash(&text_of(&tokens[from.min(k)..k]));
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
);

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

    /// Every named character reference decodes (`&mdash;` used to stay
    /// raw), numeric ones too, in a conflict aside, a contract and an
    /// acceptance item.
    #[test]
    fn every_named_entity_decodes() {
        let p = prd(
            "<article data-doc=prd><aside data-conflict>rev 2 &mdash; rev 3 &#8212; &#x2014; &hellip; &eacute;</aside></article>",
        );
        assert_eq!(p.conflicts, vec!["rev 2 — rev 3 — — … é"]);
        let s = sdd(
            "<article data-doc=sdd><section data-unit-id=a-be><pre data-contract>a &rarr; b &#x2192; c</pre><ul data-acceptance><li>&ldquo;ok&rdquo; &#169;</ul>",
        );
        let u = &s.units[0];
        assert_eq!(u.contract.as_ref().unwrap().text, "a → b → c");
        assert_eq!(u.acceptance, vec!["“ok” ©"]);
        assert_eq!(decode_entities("&mdash; &amp; <b> &#x4e2d;"), "— & <b> 中");
    }

    #[test]
    fn common_names_are_not_allocated() {
        assert_eq!(name(b"section"), "section");
        assert!(matches!(name(b"data-unit-id"), Cow::Borrowed(_)));
        assert_eq!(name(b"x-\xff"), "x-\u{fffd}");
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
