//! A message's text as a push notification shows it: the rendered HTML turned into plain text
//! the way upstream's `get_mobile_push_content` does (emoji as Unicode, images as their alt
//! text, block quotes as `> ` lines, ordered lists numbered, spoilers as "header (…)", KaTeX
//! as its LaTeX source, and a quote mixed with other content collapsed to "[…]"), then
//! truncated to 200 characters and "…" ([`truncate`]).
//!
//! Pure text work over a small, forgiving HTML tree; no I/O.

/// Characters kept before a push's content is cut.
pub const MAX_CONTENT: usize = 200;

#[derive(Debug)]
enum Node {
    Text(String),
    Element {
        tag: String,
        attrs: Vec<(String, String)>,
        children: Vec<Node>,
    },
}

impl Node {
    fn attr(&self, name: &str) -> Option<&str> {
        match self {
            Node::Element { attrs, .. } => attrs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str()),
            Node::Text(_) => None,
        }
    }

    fn has_class(&self, class: &str) -> bool {
        self.attr("class")
            .is_some_and(|c| c.split_whitespace().any(|x| x == class))
    }

    fn tag(&self) -> &str {
        match self {
            Node::Element { tag, .. } => tag,
            Node::Text(_) => "",
        }
    }

    fn children(&self) -> &[Node] {
        match self {
            Node::Element { children, .. } => children,
            Node::Text(_) => &[],
        }
    }

    /// Every text below, concatenated.
    fn text_content(&self) -> String {
        match self {
            Node::Text(t) => t.clone(),
            Node::Element { children, .. } => children.iter().map(Node::text_content).collect(),
        }
    }

    fn find<'a>(&'a self, pred: &dyn Fn(&Node) -> bool) -> Option<&'a Node> {
        if pred(self) {
            return Some(self);
        }
        self.children().iter().find_map(|c| c.find(pred))
    }
}

const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr",
];

/// Decodes HTML character references.
fn decode(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let end = rest.find(';').filter(|e| *e <= 12);
        let decoded = end.and_then(|e| {
            let name = &rest[1..e];
            let c = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" | "#39" => Some('\''),
                "nbsp" => Some('\u{a0}'),
                _ => name
                    .strip_prefix("#x")
                    .or_else(|| name.strip_prefix("#X"))
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .or_else(|| name.strip_prefix('#').and_then(|d| d.parse().ok()))
                    .and_then(char::from_u32),
            };
            c.map(|c| (c, e))
        });
        match decoded {
            Some((c, e)) => {
                out.push(c);
                rest = &rest[e + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn parse_attrs(s: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b'/') {
            i += 1;
        }
        let start = i;
        while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'=' && b[i] != b'/' {
            i += 1;
        }
        if start == i {
            break;
        }
        let name = s[start..i].to_ascii_lowercase();
        let mut value = String::new();
        if i < b.len() && b[i] == b'=' {
            i += 1;
            if i < b.len() && (b[i] == b'"' || b[i] == b'\'') {
                let q = b[i];
                let vs = i + 1;
                i = vs;
                while i < b.len() && b[i] != q {
                    i += 1;
                }
                value = decode(&s[vs..i.min(b.len())]);
                i += 1;
            } else {
                let vs = i;
                while i < b.len() && !b[i].is_ascii_whitespace() {
                    i += 1;
                }
                value = decode(&s[vs..i]);
            }
        }
        out.push((name, value));
    }
    out
}

/// Parses HTML into a tree under one root `div`; unbalanced end tags close what they match.
fn parse(html: &str) -> Node {
    let mut stack: Vec<Node> = vec![Node::Element {
        tag: "div".into(),
        attrs: Vec::new(),
        children: Vec::new(),
    }];
    fn push(stack: &mut [Node], n: Node) {
        if let Some(Node::Element { children, .. }) = stack.last_mut() {
            children.push(n);
        }
    }
    let mut rest = html;
    while !rest.is_empty() {
        let Some(lt) = rest.find('<') else {
            push(&mut stack, Node::Text(decode(rest)));
            break;
        };
        if lt > 0 {
            push(&mut stack, Node::Text(decode(&rest[..lt])));
        }
        rest = &rest[lt..];
        if let Some(after) = rest.strip_prefix("<!--") {
            rest = after.find("-->").map_or("", |e| &after[e + 3..]);
            continue;
        }
        let Some(gt) = rest.find('>') else {
            push(&mut stack, Node::Text(decode(rest)));
            break;
        };
        let inner = &rest[1..gt];
        rest = &rest[gt + 1..];
        if let Some(name) = inner.strip_prefix('/') {
            let name = name.trim().to_ascii_lowercase();
            if let Some(pos) = stack.iter().rposition(|n| n.tag() == name)
                && pos > 0
            {
                while stack.len() > pos {
                    let n = stack.pop().expect("non-empty");
                    push(&mut stack, n);
                }
            }
            continue;
        }
        if inner.starts_with('!') || inner.starts_with('?') {
            continue;
        }
        let cut = inner
            .find(|c: char| c.is_ascii_whitespace() || c == '/')
            .unwrap_or(inner.len());
        let tag = inner[..cut].to_ascii_lowercase();
        let attrs = parse_attrs(&inner[cut..]);
        let node = Node::Element {
            tag: tag.clone(),
            attrs,
            children: Vec::new(),
        };
        if VOID.contains(&tag.as_str()) || inner.ends_with('/') {
            push(&mut stack, node);
        } else {
            stack.push(node);
        }
    }
    while stack.len() > 1 {
        let n = stack.pop().expect("non-empty");
        push(&mut stack, n);
    }
    stack.pop().expect("the root")
}

/// An emoji's Unicode text from its `emoji-<hex>[-<hex>...]` class.
fn emoji_text(n: &Node) -> Option<String> {
    let classes = n.attr("class")?;
    if !classes.contains("emoji") {
        return None;
    }
    let code = classes
        .split_whitespace()
        .find_map(|c| c.strip_prefix("emoji-"))?;
    code.split('-')
        .map(|h| u32::from_str_radix(h, 16).ok().and_then(char::from_u32))
        .collect()
}

fn quote(text: &str) -> String {
    text.lines()
        .filter(|l| !l.is_empty())
        .map(|l| format!("> {l}\n"))
        .collect()
}

fn ordered_list(n: &Node, depth: usize) -> String {
    let start: i64 = n.attr("start").and_then(|s| s.parse().ok()).unwrap_or(1);
    let indent = if depth > 0 {
        format!("\n{}", "  ".repeat(depth))
    } else {
        String::new()
    };
    let items: Vec<String> = n
        .children()
        .iter()
        .filter(|c| matches!(c, Node::Element { .. }))
        .zip(start..)
        .map(|(li, counter)| format!("{indent}{counter}. {}", process(li, depth + 1).trim()))
        .collect();
    items.join("\n")
}

/// `depth`: how many `ol` are around `n`.
fn process(n: &Node, depth: usize) -> String {
    match n {
        Node::Text(t) => t.clone(),
        Node::Element { tag, children, .. } => {
            if tag == "ol" {
                return ordered_list(n, depth);
            }
            if n.has_class("spoiler-block") {
                let header = n
                    .find(&|x| x.has_class("spoiler-header"))
                    .map(|h| process(h, depth).trim().to_string())
                    .unwrap_or_default();
                return if header.is_empty() {
                    "(…)\n".into()
                } else {
                    format!("{header} (…)\n")
                };
            }
            let tex = |x: &Node| {
                x.tag() == "annotation" && x.attr("encoding") == Some("application/x-tex")
            };
            if (n.has_class("katex") || n.has_class("katex-display"))
                && let Some(a) = n.find(&tex)
            {
                return a.text_content();
            }
            if let Some(e) = emoji_text(n) {
                return e;
            }
            if tag == "img" {
                return n.attr("alt").unwrap_or("").to_string();
            }
            let sub: String = children.iter().map(|c| process(c, depth)).collect();
            if tag == "blockquote" {
                quote(&sub)
            } else {
                sub
            }
        }
    }
}

/// Whether a top-level block is a quote ("> ..." or "@user [said](link):") for collapsing.
fn collapsible(n: &Node) -> bool {
    if n.tag() == "blockquote" {
        return true;
    }
    if n.tag() != "p" {
        return false;
    }
    let mut mentions = Vec::new();
    let mut links = Vec::new();
    fn walk<'a>(n: &'a Node, m: &mut Vec<&'a Node>, l: &mut Vec<&'a Node>) {
        if n.has_class("user-mention") {
            m.push(n);
        }
        if n.tag() == "a" && n.attr("href").is_some_and(|h| h.contains("#narrow/")) {
            l.push(n);
        }
        for c in n.children() {
            walk(c, m, l);
        }
    }
    walk(n, &mut mentions, &mut links);
    if mentions.len() != 1 || links.len() != 1 {
        return false;
    }
    let rest = n
        .text_content()
        .replace(&mentions[0].text_content(), "")
        .replace(&links[0].text_content(), "");
    rest.trim() == ":"
}

/// The plain text of a rendered message.
pub fn plain_text(html: &str) -> String {
    let root = parse(html);
    let Node::Element { children, .. } = root else {
        return String::new();
    };
    let blocks: Vec<&Node> = children
        .iter()
        .filter(|c| matches!(c, Node::Element { .. }))
        .collect();
    let flags: Vec<bool> = blocks.iter().map(|b| collapsible(b)).collect();
    let mixed = flags.iter().any(|f| *f) && !flags.iter().all(|f| *f);
    let mut out = String::new();
    let mut previous_collapsed = false;
    for child in &children {
        let idx = blocks.iter().position(|b| std::ptr::eq(*b, child));
        match idx {
            Some(i) if mixed && flags[i] => {
                if !previous_collapsed {
                    out.push_str("[…]");
                }
                previous_collapsed = true;
            }
            Some(_) => {
                previous_collapsed = false;
                out.push_str(&process(child, 0));
            }
            None => {
                // Whitespace between collapsed blocks goes with them.
                if !previous_collapsed || !child.text_content().trim().is_empty() {
                    out.push_str(&process(child, 0));
                }
            }
        }
    }
    out
}

/// The content cut to [`MAX_CONTENT`] characters and "…", and whether it was cut.
pub fn truncate(content: &str) -> (String, bool) {
    if content.chars().count() <= MAX_CONTENT {
        return (content.to_string(), false);
    }
    let mut s: String = content.chars().take(MAX_CONTENT).collect();
    s.push('…');
    (s, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_becomes_upstreams_text() {
        assert_eq!(
            plain_text("<p>Hello <strong>world</strong> &amp; you</p>"),
            "Hello world & you"
        );
        assert_eq!(
            plain_text(
                r#"<p>hi <span aria-label="smile" class="emoji emoji-1f604" role="img" title="smile">:smile:</span></p>"#
            ),
            "hi \u{1f604}"
        );
        assert_eq!(
            plain_text(r#"<p><img alt=":party:" src="/x.png"></p>"#),
            ":party:"
        );
        assert_eq!(
            plain_text("<blockquote>\n<p>quoted\nline</p>\n</blockquote>"),
            "> quoted\n> line\n"
        );
        assert_eq!(
            plain_text("<blockquote>\n<p>q</p>\n</blockquote>\n<p>answer</p>"),
            // The quote's tail goes with it, as with lxml's `replace`.
            "[…]answer"
        );
        assert_eq!(
            plain_text("<ol>\n<li>one</li>\n<li>two</li>\n</ol>"),
            "1. one\n2. two"
        );
        assert_eq!(
            plain_text(
                r#"<div class="spoiler-block"><div class="spoiler-header"><p>Plot</p></div><div class="spoiler-content"><p>secret</p></div></div>"#
            ),
            "Plot (…)\n"
        );
        assert_eq!(
            plain_text(
                r#"<p><span class="katex"><span class="katex-mathml"><math><semantics><mrow></mrow><annotation encoding="application/x-tex">x^2</annotation></semantics></math></span><span class="katex-html">x2</span></span></p>"#
            ),
            "x^2"
        );
    }

    #[test]
    fn content_is_cut_at_200_characters() {
        let long = "é".repeat(201);
        let (cut, truncated) = truncate(&long);
        assert!(truncated);
        assert_eq!(cut.chars().count(), 201);
        assert!(cut.ends_with('…'));
        assert_eq!(truncate("short"), ("short".to_string(), false));
    }
}
