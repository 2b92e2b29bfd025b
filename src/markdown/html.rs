//! HTML escaping.
//!
//! The renderer hides `<` from the Markdown parser (so it never sees raw HTML) by replacing it
//! with [`LT`], a rarely used punctuation mark (so that emphasis next to it parses as next
//! to `<`); every escaping function here turns that character back
//! into `&lt;`.

/// Stands for `<` while the Markdown parser runs.
pub(super) const LT: char = '\u{2E4E}';

/// Escapes text content: `&`, `<` and `>` (quotes stay as they are, as upstream's output has them).
pub(super) fn text(out: &mut String, s: &str) {
    escape(out, s, false)
}

/// Escapes an attribute value or code-block content: also `"` and `'`.
pub(super) fn attr(out: &mut String, s: &str) {
    escape(out, s, true)
}

fn escape(out: &mut String, s: &str, quotes: bool) {
    let mut last = 0;
    for (i, c) in s.char_indices() {
        let rep = match c {
            '&' => "&amp;",
            '<' | LT => "&lt;",
            '>' => "&gt;",
            '"' if quotes => "&quot;",
            '\'' if quotes => "&#39;",
            _ => continue,
        };
        out.push_str(&s[last..i]);
        out.push_str(rep);
        last = i + c.len_utf8();
    }
    out.push_str(&s[last..]);
}

/// `s` with [`LT`] turned back into `<`.
pub(super) fn unhide(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains(LT) {
        s.replace(LT, "<").into()
    } else {
        s.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        let mut s = String::new();
        text(&mut s, "a<b>&\"'\u{2E4E}");
        assert_eq!(s, "a&lt;b&gt;&amp;\"'&lt;");
        let mut s = String::new();
        attr(&mut s, "\"'");
        assert_eq!(s, "&quot;&#39;");
        assert_eq!(unhide("x\u{2E4E}y"), "x<y");
    }
}
