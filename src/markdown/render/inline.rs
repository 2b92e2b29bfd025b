//! Inline rendering inside a block: emphasis, strong and strikethrough with upstream's limits,
//! links and images (local links, uploaded images), mentions, inline code and text with bare
//! links and emoji. Must not open or close blocks (that is the parent walker).

use std::ops::Range;

use pulldown_cmark::{Event, Tag};

use super::{Walker, is_uploaded_image};
use crate::markdown::mentions::Piece;
use crate::markdown::{emoji, html, links, mentions, timestamp};

impl Walker<'_, '_, '_> {
    /// Emphasis, strong and strikethrough, with upstream's limits: no `_` forms, no single
    /// `~`, nothing across a line break; `***x***` is `<strong><em>`.
    pub(super) fn span(&mut self, i: usize, tag: &Tag<'_>, range: Range<usize>) {
        let raw = &self.src[range.clone()];
        let (open, close, delim): (&str, &str, &'static str) = match tag {
            Tag::Emphasis => (
                "<em>",
                "</em>",
                if raw.starts_with('_') { "_" } else { "*" },
            ),
            Tag::Strong => (
                "<strong>",
                "</strong>",
                if raw.starts_with('_') { "__" } else { "**" },
            ),
            _ => (
                "<del>",
                "</del>",
                if raw.starts_with("~~") { "~~" } else { "~" },
            ),
        };
        if delim.starts_with('_') || delim == "~" || raw.contains('\n') {
            self.out.push_str(delim);
            self.closers.push(delim.into());
            return;
        }
        let strong_inside = matches!(tag, Tag::Emphasis)
            && matches!(self.ev.get(i + 1), Some((Event::Start(Tag::Strong), r))
                if r.start == range.start + 1 && r.end + 1 == range.end);
        if strong_inside {
            self.out.push_str("<strong>");
            self.closers.push("</strong>".into());
            self.swap_strong = true;
        } else if self.swap_strong && matches!(tag, Tag::Strong) {
            self.swap_strong = false;
            self.out.push_str("<em>");
            self.closers.push("</em>".into());
        } else {
            self.out.push_str(open);
            self.closers.push(close.into());
        }
    }

    pub(super) fn link(&mut self, i: usize, dest: &str, title: &str, image: bool) -> usize {
        let range = self.ev[i].1.clone();
        let dest = mentions::restore(dest, &self.r.mentions);
        let Some(href) = links::sanitize_url(&html::unhide(&dest)).map(|h| self.local(h)) else {
            // Upstream leaves a link it will not make as the text that was typed.
            let raw = &self.src[range];
            self.inline_text(raw);
            return self.skip_element(i);
        };
        if image {
            self.out.push('!');
        }
        self.out.push_str("<a href=\"");
        html::attr(self.out, &href);
        self.out.push('"');
        if !title.is_empty() {
            self.out.push_str(" title=\"");
            html::attr(self.out, &mentions::restore(title, &self.r.mentions));
            self.out.push('"');
        }
        self.out.push('>');
        // Upstream shows the link text as typed (no Markdown inside), or the target if there
        // is none.
        let end = self.skip_element(i);
        let inner = &self.ev[i + 1..end.saturating_sub(1).max(i + 1)];
        let label = match (inner.first(), inner.last()) {
            (Some((_, first)), Some((_, last))) => self.src.get(first.start..last.end),
            _ => None,
        };
        let label = label.filter(|l| !l.trim().is_empty());
        if !image && is_uploaded_image(&href) {
            let title = match label {
                Some(l) => l.to_string(),
                None => href.rsplit('/').next().unwrap_or_default().to_string(),
            };
            let path = href.trim_start_matches('/');
            let path = path.strip_prefix("user_uploads/").unwrap_or(path);
            let preview = self.r.lookup.upload_preview(path);
            if preview != crate::markdown::UploadPreview::None {
                self.previews.push((href.clone(), title, preview));
            }
        }
        match label {
            Some(label) => self.code_text(label),
            None => html::text(self.out, &href),
        }
        self.out.push_str("</a>");
        end
    }

    pub(super) fn text(&mut self, i: usize, t: &str) -> usize {
        self.inline_text(t);
        i + 1
    }

    /// `href` relative if it points into the realm's web app or uploads.
    pub(super) fn local(&self, href: String) -> String {
        let rest = self
            .r
            .realm_url
            .as_deref()
            .and_then(|realm| href.strip_prefix(realm))
            .and_then(|r| r.strip_prefix('/'))
            .filter(|r| r.starts_with('#') || r.starts_with("user_uploads/"));
        match rest {
            Some(rest) => rest.to_string(),
            None => href,
        }
    }

    pub(super) fn mention(&mut self, index: usize) {
        if let Some(m) = self.r.mentions.get(index) {
            mentions::render(m, self.quote > 0, self.out, &mut self.r.result);
        }
    }

    /// Code as typed, escaped.
    pub(super) fn code_text(&mut self, code: &str) {
        html::text(self.out, &mentions::restore(code, &self.r.mentions));
    }

    /// Plain text with mentions, bare links and emoji.
    pub(super) fn inline_text(&mut self, t: &str) {
        for piece in mentions::pieces(t) {
            match piece {
                Piece::Text(t) => self.links_and_emoji(t),
                Piece::Token(m) => self.mention(m),
            }
        }
    }

    /// Text with global times, bare links and emoji.
    pub(super) fn links_and_emoji(&mut self, t: &str) {
        let mut pos = 0;
        let mut from = 0;
        while let Some(i) = t[from..].find(html::LT) {
            let at = from + i;
            match timestamp::at(&t[at..]) {
                Some(n) => {
                    self.bare_links(&t[pos..at]);
                    timestamp::render(self.out, &t[at..at + n]);
                    pos = at + n;
                    from = pos;
                }
                None => from = at + html::LT.len_utf8(),
            }
        }
        self.bare_links(&t[pos..]);
    }

    pub(super) fn bare_links(&mut self, t: &str) {
        let mut pos = 0;
        while let Some(found) = links::find(t, pos) {
            emoji::push(self.out, &t[pos..found.start], self.r.lookup);
            self.out.push_str("<a href=\"");
            let href = self.local(found.href);
            html::attr(self.out, &href);
            self.out.push_str("\">");
            html::text(self.out, &t[found.start..found.end]);
            self.out.push_str("</a>");
            pos = found.end;
        }
        emoji::push(self.out, &t[pos..], self.r.lookup);
    }
}
