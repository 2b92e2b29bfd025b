//! Bounds on the XML documents uploaders send (CycloneDX BOMs and VEX), checked by one linear
//! pass over the text before the XML parser sees it, and the one bounded way to parse them.
//!
//! The parser (`roxmltree`) compares each attribute with every earlier one of its element and
//! copies the namespaces in scope for every element that declares one, so an element with
//! 100,000 attributes, or thousands of namespace declarations, costs time that grows with the
//! square of the input. CycloneDX needs a handful of attributes per element and a few namespace
//! declarations per document; the bounds below are far above that and keep every parse linear.
//! Pure; must not touch HTTP types or SQL.

use roxmltree::{Document, ParsingOptions};

/// Most attributes on one element (CycloneDX's widest element has about six).
pub const MAX_ATTRIBUTES_PER_ELEMENT: usize = 64;
/// Most namespace declarations (`xmlns`, `xmlns:p`) in one document.
pub const MAX_NAMESPACE_DECLARATIONS: usize = 64;
/// Most attributes in one document.
pub const MAX_ATTRIBUTES: usize = 2_000_000;
/// Most nodes (elements, texts, comments) in one document.
pub const MAX_NODES: u32 = 2_000_000;

/// Checks the attribute and namespace bounds in one pass over `text`; the message says which
/// bound was passed. Malformed markup is left for the parser to report: this pass only counts,
/// always moves forward, and never looks back more than the current attribute name.
pub fn check(text: &str) -> Result<(), String> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut total = 0usize;
    let mut namespaces = 0usize;
    while let Some(off) = memchr(b'<', &b[i..]) {
        i += off + 1;
        let rest = &b[i..];
        let skip_to = |end: &[u8]| find(rest, end).map(|p| p + end.len());
        let skipped = if rest.starts_with(b"!--") {
            skip_to(b"-->")
        } else if rest.starts_with(b"![CDATA[") {
            skip_to(b"]]>")
        } else if rest.starts_with(b"?") {
            skip_to(b"?>")
        } else if rest.starts_with(b"!") || rest.starts_with(b"/") {
            skip_to(b">")
        } else {
            None
        };
        if let Some(n) = skipped {
            i += n;
            continue;
        }
        if rest.starts_with(b"!")
            || rest.starts_with(b"/")
            || rest.starts_with(b"?")
            || rest.is_empty()
        {
            // An unterminated comment, section or end tag: the parser reports it.
            return Ok(());
        }
        // A start tag: its name, then `name = "value"` pairs up to `>` or `/>`.
        let (attrs, ns, used) = start_tag(rest);
        i += used;
        if attrs > MAX_ATTRIBUTES_PER_ELEMENT {
            return Err(format!(
                "An element has more than {MAX_ATTRIBUTES_PER_ELEMENT} attributes"
            ));
        }
        total += attrs;
        if total > MAX_ATTRIBUTES {
            return Err(format!(
                "The document has more than {MAX_ATTRIBUTES} attributes"
            ));
        }
        namespaces += ns;
        if namespaces > MAX_NAMESPACE_DECLARATIONS {
            return Err(format!(
                "The document declares more than {MAX_NAMESPACE_DECLARATIONS} namespaces"
            ));
        }
    }
    Ok(())
}

/// Counts the attributes and namespace declarations of the start tag at the head of `t` (just
/// after its `<`); returns them with the number of bytes read.
fn start_tag(t: &[u8]) -> (usize, usize, usize) {
    let stop = |c: u8| c.is_ascii_whitespace() || matches!(c, b'>' | b'/' | b'=' | b'"' | b'\'');
    let mut i = 0;
    while i < t.len() && !stop(t[i]) {
        i += 1;
    }
    let (mut attrs, mut ns) = (0, 0);
    while i < t.len() {
        match t[i] {
            b'>' => return (attrs, ns, i + 1),
            c if c.is_ascii_whitespace() || c == b'/' => i += 1,
            b'"' | b'\'' => {
                // A stray quote: skip its string so a `>` inside it is not taken as the end.
                let q = t[i];
                i += 1;
                i += memchr(q, &t[i..]).map_or(t.len() - i, |p| p + 1);
            }
            b'=' => {
                i += 1;
                while i < t.len() && t[i].is_ascii_whitespace() {
                    i += 1;
                }
                if i < t.len() && matches!(t[i], b'"' | b'\'') {
                    let q = t[i];
                    i += 1;
                    i += memchr(q, &t[i..]).map_or(t.len() - i, |p| p + 1);
                }
            }
            _ => {
                let start = i;
                while i < t.len() && !stop(t[i]) {
                    i += 1;
                }
                let name = &t[start..i];
                attrs += 1;
                if name == b"xmlns" || name.starts_with(b"xmlns:") {
                    ns += 1;
                }
            }
        }
    }
    (attrs, ns, i)
}

fn memchr(needle: u8, hay: &[u8]) -> Option<usize> {
    hay.iter().position(|&c| c == needle)
}

/// The first position of `needle` in `hay`; linear for the short fixed needles used here.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let first = needle[0];
    let mut from = 0;
    while let Some(p) = memchr(first, &hay[from..]) {
        let at = from + p;
        if hay[at..].starts_with(needle) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// Why a document was not parsed: over a bound, or not XML.
pub enum Refused {
    Bounds(String),
    NotXml(roxmltree::Error),
}

/// Checks the bounds, then parses with the node limit and without DTDs.
pub fn parse(text: &str) -> Result<Document<'_>, Refused> {
    parse_limited(text, MAX_NODES)
}

fn parse_limited(text: &str, nodes_limit: u32) -> Result<Document<'_>, Refused> {
    check(text).map_err(Refused::Bounds)?;
    let opts = ParsingOptions {
        allow_dtd: false,
        nodes_limit,
        ..ParsingOptions::default()
    };
    Document::parse_with_options(text, opts).map_err(|e| match e {
        roxmltree::Error::NodesLimitReached => {
            Refused::Bounds(format!("The document has more than {nodes_limit} nodes"))
        }
        e => Refused::NotXml(e),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn element_with(n: usize) -> String {
        let attrs: String = (0..n).map(|i| format!(" a{i}=\"v\"")).collect();
        format!("<bom{attrs}/>")
    }

    #[test]
    fn attributes_per_element_are_bounded() {
        assert!(check(&element_with(MAX_ATTRIBUTES_PER_ELEMENT)).is_ok());
        let e = check(&element_with(MAX_ATTRIBUTES_PER_ELEMENT + 1)).unwrap_err();
        assert!(e.contains("more than 64 attributes"), "{e}");
        // 100,000 attributes are refused in one pass instead of parsed.
        assert!(check(&element_with(100_000)).is_err());
    }

    #[test]
    fn namespace_declarations_are_bounded_per_document() {
        let one = |i: usize| format!("<e xmlns:p{i}=\"urn:{i}\">");
        let ok: String = (0..MAX_NAMESPACE_DECLARATIONS).map(one).collect();
        assert!(check(&ok).is_ok());
        let over: String = (0..=MAX_NAMESPACE_DECLARATIONS).map(one).collect();
        assert!(check(&over).unwrap_err().contains("namespaces"));
    }

    #[test]
    fn quoted_brackets_comments_and_sections_are_not_tags() {
        let many: String = (0..100).map(|i| format!(" a{i}=\"v\"")).collect();
        // Attributes inside a comment, a CDATA section, a value or an instruction are text.
        for doc in [
            format!("<a><!-- <x{many}/> --></a>"),
            format!("<a><![CDATA[<x{many}/>]]></a>"),
            format!("<a v='<x{many}>'/>"),
            format!("<?pi <x{many}/> ?><a/>"),
        ] {
            assert!(check(&doc).is_ok(), "{doc}");
        }
        // A value with `>` in it does not end the tag early.
        let doc = format!("<a b=\">\"{many}/>");
        assert!(check(&doc).is_err());
    }

    #[test]
    fn truncated_markup_is_left_to_the_parser() {
        for doc in [
            "<",
            "<a",
            "<a b=\"",
            "<!--",
            "<![CDATA[",
            "</a",
            "<a b",
            "<a ='x'",
        ] {
            assert!(check(doc).is_ok(), "{doc}");
            assert!(matches!(parse(doc), Err(Refused::NotXml(_))), "{doc}");
        }
    }

    #[test]
    fn node_limit_and_dtds_are_refused() {
        let doc = format!("<a>{}</a>", "<b/>".repeat(100));
        assert!(parse_limited(&doc, 200).is_ok());
        assert!(
            matches!(parse_limited(&doc, 50), Err(Refused::Bounds(m)) if m.contains("50 nodes"))
        );
        let dtd = "<!DOCTYPE a [<!ENTITY x \"y\">]><a>&x;</a>";
        assert!(matches!(parse(dtd), Err(Refused::NotXml(_))));
    }
}
