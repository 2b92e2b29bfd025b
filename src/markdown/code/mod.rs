//! Code blocks in upstream's `codehilite` wrapper, and what a fence's info string asks for.
//!
//! Upstream highlights with Pygments; we keep its HTML structure and the language's display
//! name in `data-code-language`, and colour the common languages with syntect, writing
//! Pygments' short token classes (`k`, `nf`, `s1`, ...) that clients' stylesheets key on.
//!
//! This file reads a fence's info string and writes the block's wrapper; [`languages`] names
//! the languages (display names, which ones are coloured), [`classes`] maps syntect's scopes to
//! Pygments' token classes, and [`highlight`] colours a block within its limits. Pure: no
//! realm lookups, no I/O.

mod classes;
mod highlight;
mod languages;
#[cfg(test)]
mod tests;

use highlight::highlight;
use languages::LANGUAGES;

use super::html;

/// What a fenced block is.
#[derive(Debug, PartialEq)]
pub(super) enum Fence<'a> {
    /// Code, with the language as written (may be empty).
    Code(&'a str),
    /// ```` ```quote ```` / ```` ```quoted ````.
    Quote,
    /// ```` ```spoiler header ````.
    Spoiler(&'a str),
    /// ```` ```math ````.
    Math,
}

/// Reads a fence's info string as upstream does: `lang`, `.lang`, `{.lang}`, then the rest
/// (the spoiler header).
pub(super) fn classify(info: &str) -> Fence<'_> {
    let info = info.trim();
    let body = info.strip_prefix('{').unwrap_or(info);
    let body = body.strip_prefix('.').unwrap_or(body);
    let lang_len = body
        .find(|c: char| !(c.is_ascii_alphanumeric() || "_+-./#".contains(c)))
        .unwrap_or(body.len());
    let lang = &body[..lang_len];
    let rest = body[lang_len..]
        .strip_prefix('}')
        .unwrap_or(&body[lang_len..]);
    // Upstream matches these names exactly (`Quote` is a code block's language).
    match lang {
        "quote" | "quoted" => Fence::Quote,
        "spoiler" => Fence::Spoiler(rest.trim()),
        "math" => Fence::Math,
        _ => Fence::Code(lang),
    }
}

/// Appends a code block: `<div class="codehilite" data-code-language="…"><pre><span></span><code>…</code></pre></div>`,
/// with Pygments' token spans inside when the language is one [`highlight`] knows.
pub(super) fn block(out: &mut String, lang: &str, code: &str) {
    let name = display_name(lang);
    out.push_str("<div class=\"codehilite\"");
    if !lang.is_empty() {
        out.push_str(" data-code-language=\"");
        html::attr(out, name.unwrap_or(lang));
        out.push('"');
    }
    out.push_str("><pre><span></span><code>");
    // Like Pygments: trailing whitespace of each line and leading/trailing blank lines go.
    let lines: Vec<&str> = code.lines().map(str::trim_end).collect();
    let first = lines
        .iter()
        .position(|l| !l.is_empty())
        .unwrap_or(lines.len());
    let last = lines
        .iter()
        .rposition(|l| !l.is_empty())
        .map_or(first, |i| i + 1);
    let lines = &lines[first..last];
    let coloured = name.is_some_and(|name| highlight(out, name, lines));
    if !coloured {
        for line in lines {
            html::attr(out, line);
            out.push('\n');
        }
    }
    if lines.is_empty() {
        out.push('\n');
    }
    out.push_str("</code></pre></div>\n");
}

/// Pygments' display name for a language alias, as upstream puts in `data-code-language`.
fn display_name(lang: &str) -> Option<&'static str> {
    let lower = lang.to_ascii_lowercase();
    LANGUAGES
        .iter()
        .find(|(_, aliases)| aliases.split(' ').any(|a| a == lower))
        .map(|(name, _)| *name)
}
