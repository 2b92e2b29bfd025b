//! The message renderer: pulldown-cmark parses the CommonMark structure and this module writes
//! HTML the way upstream's Python-Markdown pipeline lays it out, adding Zulip's syntax on the way.
//!
//! Raw HTML never reaches the parser: `<` is swapped for [`html::LT`] before parsing and
//! escaped on output, so every tag the user typed shows as text. Reference-style link
//! definitions are disabled (upstream does not support them) by escaping their `[`.
//!
//! This file walks the events and writes the block structure (paragraphs, headings, lists,
//! quotes, tables); [`inline`] writes what goes inside a block (emphasis, links, images,
//! mentions, text with Zulip's inline syntax) and [`fenced`] the fenced blocks (code, quotes,
//! spoilers, math) and the nested documents they hold. Pure: realm facts come through
//! [`Lookup`].

mod fenced;
mod inline;

use std::borrow::Cow;
use std::ops::Range;

use pulldown_cmark::{Alignment, CowStr, Event, Options, Parser, Tag, TagEnd};

use super::mentions::Mention;
use super::{Lookup, Rendered, html, lists, mentions};

/// How deeply ```` ```quote ```` / ```` ```spoiler ```` blocks are rendered recursively.
const MAX_NESTING: usize = 16;

type Events<'a> = Vec<(Event<'a>, Range<usize>)>;

/// Renders one message; `result` collects what the message mentions.
pub(super) struct Renderer<'l> {
    lookup: &'l dyn Lookup,
    pub(super) result: Rendered,
    /// The mentions the source's tokens stand for.
    mentions: Vec<Mention>,
    realm_url: Option<String>,
    nesting: usize,
}

impl<'l> Renderer<'l> {
    pub(super) fn new(lookup: &'l dyn Lookup) -> Self {
        Renderer {
            lookup,
            result: Rendered::default(),
            mentions: Vec::new(),
            realm_url: lookup
                .realm_url()
                .map(|u| u.trim_end_matches('/').to_string()),
            nesting: 0,
        }
    }

    /// Renders a whole message.
    pub(super) fn message(&mut self, content: &str, out: &mut String) {
        // The characters standing for `<` and for mentions must not come from the user.
        let content: String = content
            .chars()
            .map(|c| match c {
                html::LT | mentions::TOKEN_START | mentions::TOKEN_END => '\u{FFFD}',
                '<' => html::LT,
                c => c,
            })
            .collect();
        let (src, found) = mentions::tokenize(&content, self.lookup);
        self.mentions = found;
        self.document(&src, 0, out);
        let len = out.trim_end_matches('\n').len();
        out.truncate(len);
    }

    /// Appends the HTML of `src` (with `<` hidden and mentions tokenized) to `out`;
    /// `quote_depth` > 0 inside block quotes (where mentions are silent).
    pub(super) fn document(&mut self, src: &str, quote_depth: usize, out: &mut String) {
        let normalized = lists::normalize(src);
        let (src, mut starts) = (normalized.src.as_ref(), normalized.starts);
        let options = Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TABLES;
        let parser = Parser::new_ext(src, options);
        let mut defs: Vec<usize> = parser
            .reference_definitions()
            .iter()
            .filter_map(|(_, def)| src[def.span.clone()].find('[').map(|i| def.span.start + i))
            .collect();
        if defs.is_empty() {
            let events = collect(parser);
            self.walk(src, &events, &starts, quote_depth, out);
        } else {
            // Escape the `[` of each definition so that it stays text, and parse again.
            defs.sort_unstable();
            let mut escaped = String::with_capacity(src.len() + defs.len());
            let mut last = 0;
            for &at in &defs {
                escaped.push_str(&src[last..at]);
                escaped.push('\\');
                last = at;
            }
            escaped.push_str(&src[last..]);
            for (at, _) in &mut starts {
                *at += defs.iter().filter(|d| **d <= *at).count();
            }
            let events = collect(Parser::new_ext(&escaped, options));
            self.walk(&escaped, &events, &starts, quote_depth, out);
        }
    }

    fn walk(
        &mut self,
        src: &str,
        events: &Events<'_>,
        starts: &[(usize, u64)],
        quote_depth: usize,
        out: &mut String,
    ) {
        let mut w = Walker {
            r: self,
            src,
            starts,
            ev: events,
            out,
            quote: quote_depth,
            closers: Vec::new(),
            swap_strong: false,
            in_head: false,
            aligns: Vec::new(),
            cell: 0,
            previews: Vec::new(),
        };
        let mut i = 0;
        while i < events.len() {
            i = w.event(i);
        }
    }
}

/// The parser's events with their source ranges, adjacent text joined.
fn collect<'a>(parser: Parser<'a>) -> Events<'a> {
    let raw: Events<'a> = parser.into_offset_iter().collect();
    let mut events: Events<'a> = Vec::with_capacity(raw.len());
    let mut run: Option<(String, Range<usize>)> = None;
    for (event, range) in raw {
        if let Event::Text(t) = &event {
            if let Some((buf, r)) = &mut run {
                buf.push_str(t);
                r.end = range.end;
                continue;
            }
            if let Some((Event::Text(prev), prev_range)) = events.last() {
                let mut buf = String::with_capacity(prev.len() + t.len());
                buf.push_str(prev);
                buf.push_str(t);
                run = Some((buf, prev_range.start..range.end));
                events.pop();
                continue;
            }
        } else if let Some((buf, r)) = run.take() {
            events.push((Event::Text(CowStr::from(buf)), r));
        }
        events.push((event, range));
    }
    if let Some((buf, r)) = run {
        events.push((Event::Text(CowStr::from(buf)), r));
    }
    events
}

fn starts_block(event: Option<&(Event<'_>, Range<usize>)>) -> bool {
    matches!(
        event,
        Some((
            Event::Start(
                Tag::Paragraph
                    | Tag::Heading { .. }
                    | Tag::BlockQuote(_)
                    | Tag::CodeBlock(_)
                    | Tag::HtmlBlock
                    | Tag::List(_)
                    | Tag::Table(_)
            ) | Event::Rule,
            _
        ))
    )
}

struct Walker<'w, 'l, 'a> {
    r: &'w mut Renderer<'l>,
    src: &'w str,
    /// Real start numbers of lists renumbered for the parser (see [`lists::Normalized`]).
    starts: &'w [(usize, u64)],
    ev: &'w Events<'a>,
    out: &'w mut String,
    quote: usize,
    /// What closes each open inline element (`</em>`, or the literal `_` upstream leaves).
    closers: Vec<Cow<'static, str>>,
    /// The next strong element is the inside of `***x***` (written as `<em>`).
    swap_strong: bool,
    in_head: bool,
    aligns: Vec<Alignment>,
    cell: usize,
    /// Uploaded images linked in the current paragraph: (href, title, form) of the previews
    /// that follow it.
    previews: Vec<(String, String, crate::markdown::UploadPreview)>,
}

/// Whether a link target is an uploaded image upstream shows a preview of (by its extension).
fn is_uploaded_image(href: &str) -> bool {
    let path = href.strip_prefix('/').unwrap_or(href);
    if !path.starts_with("user_uploads/") {
        return false;
    }
    let ext = path
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    matches!(
        ext.as_str(),
        "bmp" | "gif" | "jpe" | "jpeg" | "jpg" | "png" | "webp"
    )
}

impl Walker<'_, '_, '_> {
    /// Handles the event at `i`; returns the index of the next one to handle.
    fn event(&mut self, i: usize) -> usize {
        let (event, range) = &self.ev[i];
        match event {
            Event::Start(tag) => return self.start(i, tag, range.clone()),
            Event::End(tag) => return self.end(i, *tag),
            Event::Text(t) => return self.text(i, t),
            Event::Code(c) => {
                // Upstream keeps a code span's inner spaces; take them from the source.
                let raw = &self.src[range.clone()];
                let ticks = raw.len() - raw.trim_start_matches('`').len();
                let inner = raw
                    .get(ticks..raw.len().saturating_sub(ticks))
                    .filter(|s| !s.contains('\n') && !s.is_empty())
                    .unwrap_or(c);
                self.out.push_str("<code>");
                self.code_text(inner);
                self.out.push_str("</code>");
            }
            Event::Html(t) | Event::InlineHtml(t) => html::text(self.out, t),
            Event::SoftBreak => self.out.push_str("<br>\n"),
            Event::HardBreak => {
                // Upstream has no hard-break syntax: the spaces or backslash stay.
                let raw = self.src[range.clone()].trim_end_matches(['\n', '\r']);
                html::text(self.out, raw);
                self.out.push_str("<br>\n");
            }
            Event::Rule => self.out.push_str("<hr>\n"),
            Event::InlineMath(t) | Event::DisplayMath(t) => html::text(self.out, t),
            Event::FootnoteReference(t) => html::text(self.out, t),
            Event::TaskListMarker(_) => {}
        }
        i + 1
    }

    /// The index after the element that starts at `i`.
    fn skip_element(&self, i: usize) -> usize {
        let mut depth = 0usize;
        for (j, (event, _)) in self.ev.iter().enumerate().skip(i) {
            match event {
                Event::Start(_) => depth += 1,
                Event::End(_) => {
                    depth -= 1;
                    if depth == 0 {
                        return j + 1;
                    }
                }
                _ => {}
            }
        }
        self.ev.len()
    }

    fn start(&mut self, i: usize, tag: &Tag<'_>, range: Range<usize>) -> usize {
        match tag {
            Tag::Paragraph => self.out.push_str("<p>"),
            Tag::Heading { level, .. } => {
                let raw = self.src[range.clone()].trim_start();
                if raw.starts_with('#') {
                    self.out.push_str(&format!("<{level}>"));
                    self.closers.push(format!("</{level}>\n").into());
                } else {
                    // Upstream has no underlined headings: `---` is a rule after the
                    // paragraph, and `===` stays text.
                    self.out.push_str("<p>");
                    let underline = raw.trim_end().lines().last().unwrap_or("").trim();
                    self.closers.push(if underline.starts_with('-') {
                        "</p>\n<hr>\n".into()
                    } else {
                        let mut close = String::from("<br>\n");
                        html::text(&mut close, underline);
                        close.push_str("</p>\n");
                        close.into()
                    });
                }
            }
            Tag::BlockQuote(_) => {
                if matches!(
                    self.ev.get(i + 1),
                    Some((Event::End(TagEnd::BlockQuote(_)), _))
                ) {
                    // An empty quote is a `>` upstream.
                    self.out.push_str("<p>&gt;</p>\n");
                    return i + 2;
                }
                self.out.push_str("<blockquote>\n");
                self.quote += 1;
            }
            Tag::CodeBlock(kind) => return self.code_block(i, kind),
            Tag::HtmlBlock => self.out.push_str("<p>"),
            Tag::List(None) => self.out.push_str("<ul>\n"),
            Tag::List(Some(n)) => {
                let mut n = *n;
                if n == 1 && !self.starts.is_empty() {
                    let digits = self.src[range.start..]
                        .find(|c: char| c.is_ascii_digit())
                        .map(|i| range.start + i);
                    if let Some(&(_, real)) = self.starts.iter().find(|(at, _)| Some(*at) == digits)
                    {
                        n = real;
                    }
                }
                if n == 1 {
                    self.out.push_str("<ol>\n");
                } else {
                    self.out.push_str(&format!("<ol start=\"{n}\">\n"));
                }
            }
            Tag::Item => {
                self.out.push_str("<li>");
                if starts_block(self.ev.get(i + 1)) {
                    self.out.push('\n');
                }
            }
            Tag::Table(aligns) => {
                self.aligns.clone_from(aligns);
                self.out.push_str("<table>\n");
            }
            Tag::TableHead => {
                self.in_head = true;
                self.cell = 0;
                self.out.push_str("<thead>\n<tr>\n");
            }
            Tag::TableRow => {
                self.cell = 0;
                self.out.push_str("<tr>\n");
            }
            Tag::TableCell => {
                self.out.push_str(if self.in_head { "<th" } else { "<td" });
                match self.aligns.get(self.cell) {
                    Some(Alignment::Left) => self.out.push_str(" style=\"text-align: left;\""),
                    Some(Alignment::Center) => self.out.push_str(" style=\"text-align: center;\""),
                    Some(Alignment::Right) => self.out.push_str(" style=\"text-align: right;\""),
                    _ => {}
                }
                self.out.push('>');
            }
            Tag::Emphasis | Tag::Strong | Tag::Strikethrough => self.span(i, tag, range),
            Tag::Link {
                dest_url, title, ..
            }
            | Tag::Image {
                dest_url, title, ..
            } => return self.link(i, dest_url, title, matches!(tag, Tag::Image { .. })),
            // Not enabled in the parser options.
            Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
            | Tag::Superscript
            | Tag::Subscript
            | Tag::MetadataBlock(_) => {}
        }
        i + 1
    }

    fn end(&mut self, i: usize, tag: TagEnd) -> usize {
        match tag {
            TagEnd::Paragraph | TagEnd::HtmlBlock => {
                self.out.push_str("</p>\n");
                // Upstream's inline preview of each uploaded image the paragraph links (no
                // thumbnails here: the image itself).
                for (href, title, preview) in std::mem::take(&mut self.previews) {
                    self.out
                        .push_str("<div class=\"message_inline_image\"><a href=\"");
                    html::attr(self.out, &href);
                    self.out.push_str("\" title=\"");
                    html::attr(self.out, &title);
                    self.out.push_str("\"><img ");
                    match preview {
                        crate::markdown::UploadPreview::Thumbnail {
                            width,
                            height,
                            content_type,
                        } => {
                            self.out.push_str("data-original-content-type=\"");
                            html::attr(self.out, &content_type);
                            self.out.push_str(&format!(
                                "\" data-original-dimensions=\"{width}x{height}\" \
                                 src=\"/user_uploads/thumbnail/"
                            ));
                            let path = href.trim_start_matches('/');
                            let path = path.strip_prefix("user_uploads/").unwrap_or(path);
                            html::attr(self.out, path);
                            self.out.push('/');
                            self.out.push_str(crate::markdown::THUMBNAIL_FORMAT);
                        }
                        _ => {
                            self.out.push_str("src=\"");
                            html::attr(self.out, &href);
                        }
                    }
                    self.out.push_str("\"></a></div>");
                }
            }
            TagEnd::Heading(_) | TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => {
                let close = self.closers.pop().unwrap_or_default();
                self.out.push_str(&close);
            }
            TagEnd::BlockQuote(_) => {
                self.quote = self.quote.saturating_sub(1);
                self.out.push_str("</blockquote>\n");
            }
            TagEnd::List(ordered) => {
                // Upstream makes one list of items with different bullets.
                if !ordered
                    && matches!(self.ev.get(i + 1), Some((Event::Start(Tag::List(None)), _)))
                {
                    return i + 2;
                }
                self.out
                    .push_str(if ordered { "</ol>\n" } else { "</ul>\n" });
            }
            TagEnd::Item => self.out.push_str("</li>\n"),
            TagEnd::Table => self.out.push_str("</tbody>\n</table>\n"),
            TagEnd::TableHead => {
                self.in_head = false;
                self.out.push_str("</tr>\n</thead>\n<tbody>\n");
            }
            TagEnd::TableRow => self.out.push_str("</tr>\n"),
            TagEnd::TableCell => {
                self.out
                    .push_str(if self.in_head { "</th>\n" } else { "</td>\n" });
                self.cell += 1;
            }
            // Links are written whole by `link`.
            TagEnd::Link | TagEnd::Image => {}
            TagEnd::CodeBlock
            | TagEnd::FootnoteDefinition
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition
            | TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::MetadataBlock(_) => {}
        }
        i + 1
    }
}
