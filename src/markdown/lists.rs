//! Upstream's list habits, rewritten into CommonMark before parsing.
//!
//! Upstream nests a list item under the previous one when it is indented by two more spaces,
//! whatever the parent's marker; CommonMark wants the parent's content column (3 for `1. `).
//! Upstream also lets any list hang off a paragraph, where CommonMark only lets an ordered
//! list starting at 1 interrupt one. This pass re-indents nested items and inserts the blank
//! line upstream's preprocessor inserts, outside fenced code.

use std::borrow::Cow;

/// A list item line: (indent, marker, content column).
fn item(line: &str) -> Option<(usize, usize, usize)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let rest = &line[indent..];
    let marker = if rest.starts_with(['*', '-', '+']) {
        1
    } else {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || digits > 9 || !rest[digits..].starts_with(['.', ')']) {
            return None;
        }
        digits + 1
    };
    let after = &rest[marker..];
    let spaces = after.len() - after.trim_start_matches(' ').len();
    if spaces == 0 || after.trim().is_empty() {
        return None;
    }
    Some((indent, marker, indent + marker + spaces.min(4)))
}

fn is_fence(line: &str) -> Option<&str> {
    let t = line.trim_start();
    if line.len() - t.len() > 3 {
        return None;
    }
    let ch = t.chars().next()?;
    if ch != '`' && ch != '~' {
        return None;
    }
    let n = t.len() - t.trim_start_matches(ch).len();
    (n >= 3).then(|| &t[..n])
}

struct Level {
    /// Indentation as typed.
    typed: usize,
    /// Indentation written for CommonMark.
    written: usize,
    /// Content column as written.
    content: usize,
}

/// The source rewritten for CommonMark, and the real start numbers of ordered lists that had
/// to be renumbered from 1 (CommonMark lets only those interrupt a paragraph): byte offset of
/// the marker's digits in the rewritten source, and the number typed.
pub(super) struct Normalized<'a> {
    pub src: Cow<'a, str>,
    pub starts: Vec<(usize, u64)>,
}

/// `src` with upstream's list indentation and hanging lists made CommonMark.
pub(super) fn normalize(src: &str) -> Normalized<'_> {
    let mut starts = Vec::new();
    let mut out = String::new();
    let mut changed = false;
    let mut levels: Vec<Level> = Vec::new();
    let mut fence: Option<String> = None;
    let mut prev_blank = true;
    let mut prev_item = false;
    for line in src.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        if let Some(open) = &fence {
            if let Some(f) = is_fence(body) {
                let rest = &body.trim_start()[f.len()..];
                if f.starts_with(open.as_str()) && rest.trim().is_empty() {
                    fence = None;
                }
            }
            out.push_str(line);
            continue;
        }
        if let Some(f) = is_fence(body) {
            if f.starts_with('~') && body.trim_start()[f.len()..].contains('~') {
                // Not a fence upstream (a tilde in the info string): plain text.
                let indent = body.len() - body.trim_start().len();
                out.push_str(&line[..indent]);
                out.push('\\');
                out.push_str(&line[indent..]);
                changed = true;
                prev_blank = false;
                prev_item = false;
                continue;
            }
            fence = Some(f.to_string());
            levels.clear();
            prev_blank = false;
            prev_item = false;
            out.push_str(line);
            continue;
        }
        if body.trim().is_empty() {
            prev_blank = true;
            out.push_str(line);
            continue;
        }
        let Some((typed, marker, content)) = item(body) else {
            if typed_indent(body) == 0 && prev_blank {
                levels.clear();
            }
            prev_blank = false;
            prev_item = false;
            out.push_str(line);
            continue;
        };
        if levels.is_empty() && typed > 3 {
            // Indented code, not a list.
            prev_blank = false;
            prev_item = false;
            out.push_str(line);
            continue;
        }
        let ordered = marker > 1;
        if ordered && body[typed + marker - 1..].starts_with(')') {
            // Upstream has no `1)` lists: keep the line as text.
            out.push_str(&line[..typed + marker - 1]);
            out.push('\\');
            out.push_str(&line[typed + marker - 1..]);
            changed = true;
            prev_blank = false;
            prev_item = false;
            continue;
        }
        // An item hanging off a paragraph line gets the blank line upstream inserts, when
        // CommonMark would not start a list there by itself.
        let number = &body[typed..typed + marker - 1];
        let starts_at_one = number.trim_start_matches('0') == "1";
        let hangs = !prev_blank && !prev_item && levels.is_empty();
        if hangs && ordered && !starts_at_one {
            out.push('\n');
            changed = true;
        }
        while levels.last().is_some_and(|l| l.typed > typed) {
            levels.pop();
        }
        let nested = levels.last().is_some_and(|l| typed >= l.typed + 2);
        let written = match levels.last() {
            None => typed,
            Some(l) if typed >= l.typed + 2 => typed.max(l.content),
            Some(l) if typed > l.typed => l.written,
            Some(l) => {
                let w = l.written;
                levels.pop();
                w
            }
        };
        levels.push(Level {
            typed,
            written,
            content: written + (content - typed),
        });
        // A nested ordered list right under an item's text interrupts that paragraph: it
        // must start at 1 for CommonMark, and keeps its number on the side.
        let renumber = nested && ordered && !starts_at_one && !prev_blank;
        if written != typed || renumber {
            changed = true;
            out.extend(std::iter::repeat_n(' ', written));
            if renumber {
                starts.push((out.len(), number.parse().unwrap_or(1)));
                out.push('1');
                out.push_str(&line[typed + marker - 1..]);
            } else {
                out.push_str(&line[typed..]);
            }
        } else {
            out.push_str(line);
        }
        prev_blank = false;
        prev_item = true;
    }
    Normalized {
        src: if changed { out.into() } else { src.into() },
        starts,
    }
}

fn typed_indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_ordered_items_get_commonmark_indent() {
        let n = normalize("1. A\n2. B\n  3. C");
        assert_eq!(n.src, "1. A\n2. B\n   1. C");
        assert_eq!(n.starts, vec![(13, 3)]);
        assert_eq!(
            normalize("1. l1\n  2. l2\n    3. l3\n    3. l3a\n  2. l2a\n2. l1a\n").src,
            "1. l1\n   1. l2\n      1. l3\n      3. l3a\n   2. l2a\n2. l1a\n"
        );
        // Bullets already nest at two spaces.
        let s = "* a\n  * b\n    * c";
        assert!(matches!(normalize(s).src, Cow::Borrowed(_)));
        // Indented code stays code; fenced code is left alone.
        let s = "para:\n\n    1. x\n    2. y\n";
        assert_eq!(normalize(s).src, s);
        let s = "```\n1. a\n  2. b\n```\n";
        assert_eq!(normalize(s).src, s);
    }

    #[test]
    fn hanging_ordered_lists() {
        assert_eq!(normalize("Steps:\n3. a\n4. b").src, "Steps:\n\n3. a\n4. b");
        assert_eq!(normalize("Steps:\n1. a").src, "Steps:\n1. a");
        assert_eq!(normalize("1) a\n2) b").src, "1\\) a\n2\\) b");
    }
}
