//! Fenced blocks: code blocks (through `markdown::code`), quotes, spoilers and math, and the
//! nested document a quote or spoiler holds. Must not write inline markup itself.

use pulldown_cmark::{CodeBlockKind, Event, TagEnd};

use super::{MAX_NESTING, Walker};
use crate::markdown::code::{self, Fence};
use crate::markdown::{html, mentions};

impl Walker<'_, '_, '_> {
    pub(super) fn code_block(&mut self, i: usize, kind: &CodeBlockKind<'_>) -> usize {
        let mut j = i + 1;
        let mut text = String::new();
        while let Some((event, _)) = self.ev.get(j) {
            j += 1;
            match event {
                Event::Text(t) => text.push_str(t),
                Event::End(TagEnd::CodeBlock) => break,
                _ => {}
            }
        }
        let info = match kind {
            CodeBlockKind::Fenced(info) => info.as_ref(),
            CodeBlockKind::Indented => "",
        };
        let fence = if self.r.nesting >= MAX_NESTING {
            Fence::Code("")
        } else {
            code::classify(info)
        };
        match fence {
            Fence::Code(lang) => {
                let text = mentions::restore(&text, &self.r.mentions);
                code::block(self.out, lang, &text)
            }
            Fence::Quote => {
                let inner = self.nested(&text, self.quote + 1);
                self.out.push_str("<blockquote>\n");
                if !inner.is_empty() {
                    self.out.push_str(&inner);
                    self.out.push('\n');
                }
                self.out.push_str("</blockquote>\n");
            }
            Fence::Spoiler(header) => {
                let header = self.nested(header, self.quote);
                let content = self.nested(&text, self.quote);
                self.out
                    .push_str("<div class=\"spoiler-block\"><div class=\"spoiler-header\">\n");
                if !header.is_empty() {
                    self.out.push_str(&header);
                    self.out.push('\n');
                }
                self.out
                    .push_str("</div><div class=\"spoiler-content\" aria-hidden=\"true\">\n");
                if !content.is_empty() {
                    self.out.push_str(&content);
                    self.out.push('\n');
                }
                self.out.push_str("</div></div>\n");
            }
            Fence::Math => {
                // No TeX renderer here: upstream's output for TeX it cannot render.
                self.out.push_str("<p><span class=\"tex-error\">");
                let text = mentions::restore(&text, &self.r.mentions);
                html::text(self.out, text.trim_end_matches('\n'));
                self.out.push_str("</span></p>\n");
            }
        }
        j
    }

    /// Renders `src` as a document of its own (the inside of a quote or spoiler block).
    pub(super) fn nested(&mut self, src: &str, quote_depth: usize) -> String {
        let mut inner = String::new();
        self.r.nesting += 1;
        self.r.document(src, quote_depth, &mut inner);
        self.r.nesting -= 1;
        let len = inner.trim_end_matches('\n').len();
        inner.truncate(len);
        inner
    }
}
