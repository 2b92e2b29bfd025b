//! The `slack_incoming` integration's message: a Slack incoming-webhook payload (`text`,
//! Block Kit `blocks`, legacy `attachments`) as Zulip Markdown, the way upstream renders it
//! (`zerver/webhooks/slack_incoming/view.py`): pieces joined by blank lines, Slack's
//! `<url|label>` links and `*bold*` / `_italic_` converted, the topic from `topic` or the
//! payload's `channel`.
//!
//! Pure: no SQL, no HTTP. The payload's nesting is read at fixed depths (blocks, their
//! elements, attachments and their blocks): nothing recurses on it. Every pass over text is
//! linear in its length.

use crate::error::Result;

use super::payload::Field;

/// Where a Slack message goes and what it says.
#[derive(Debug, PartialEq)]
pub struct Formatted {
    pub topic: String,
    /// `None` when the payload renders to nothing (upstream then sends nothing).
    pub content: Option<String>,
}

/// Upstream's topic when neither `topic` nor the payload's `channel` names one.
pub const DEFAULT_TOPIC: &str = "(no topic)";

/// Renders a parsed payload; `topic` is the request's `topic` parameter.
pub fn format(payload: &serde_json::Value, topic: Option<&str>) -> Result<Formatted> {
    let p = Field::root(payload);
    let topic = match topic {
        Some(t) => t.to_string(),
        None if p.has("channel")? => {
            let channel = p.get("channel")?.str()?;
            channel
                .strip_prefix(['@', '#'])
                .unwrap_or(channel)
                .to_string()
        }
        None => DEFAULT_TOPIC.to_string(),
    };
    let mut pieces: Vec<String> = Vec::new();
    if let Some(blocks) = p.truthy("blocks")? {
        for block in blocks.items()? {
            pieces.push(render_block(&block)?);
        }
    }
    if let Some(attachments) = p.truthy("attachments")? {
        for attachment in attachments.items()? {
            pieces.push(render_attachment(&attachment)?);
        }
    }
    let mut body = join(pieces);
    if body.is_empty()
        && let Some(text) = p.truthy("text")?
    {
        if let Some(emoji) = p.truthy("icon_emoji")? {
            body = format!("{} ", emoji.str()?);
        }
        body.push_str(text.str()?);
        body = body.trim().to_string();
    }
    let content = (!body.is_empty()).then(|| {
        let linked = replace_links(&body);
        let bold = emphasis(linked.trim(), '*', "**");
        emphasis(&bold, '_', "*")
    });
    Ok(Formatted { topic, content })
}

/// The pieces that are not blank, each trimmed, separated by blank lines.
fn join(pieces: Vec<String>) -> String {
    let kept: Vec<&str> = pieces
        .iter()
        .map(|p| p.trim())
        .filter(|p| !p.is_empty())
        .collect();
    kept.join("\n\n")
}

/// One Block Kit block (<https://api.slack.com/reference/block-kit/blocks>).
fn render_block(block: &Field<'_>) -> Result<String> {
    let kind = block.get("type")?.one_of(&[
        "actions", "context", "divider", "header", "image", "input", "section",
    ])?;
    Ok(match kind {
        "context" => match block.truthy("elements")? {
            Some(elements) => {
                let mut pieces = Vec::new();
                for element in elements.items()? {
                    let t = element.get("type")?;
                    if t.one_of(&["image", "plain_text", "mrkdwn"])? == "image" {
                        pieces.push(render_element(&element)?);
                    } else {
                        pieces.push(element.text_object(false)?.to_string());
                    }
                }
                join(pieces)
            }
            None => String::new(),
        },
        "divider" => "----".to_string(),
        "header" => format!("## {}", block.get("text")?.text_object(true)?),
        "image" => {
            let url = block.get("image_url")?.url()?;
            let mut alt = block.get("alt_text")?.str()?;
            if block.has("title")? {
                alt = block.get("title")?.text_object(true)?;
            }
            format!("[{alt}]({url})")
        }
        "section" => {
            let mut pieces = Vec::new();
            if block.has("text")? {
                pieces.push(block.get("text")?.text_object(false)?.to_string());
            }
            if block.has("accessory")? {
                pieces.push(render_element(&block.get("accessory")?)?);
            }
            if block.has("fields")? {
                let fields = block.get("fields")?.items()?;
                let texts = fields
                    .iter()
                    .map(|f| f.text_object(false))
                    .collect::<Result<Vec<&str>>>()?;
                pieces.push(fields_table(&texts));
            }
            join(pieces)
        }
        // `actions` and `input` are interactive; Zulip has nothing to show for them.
        _ => String::new(),
    })
}

/// A section's fields: one is shown as it is; more go two by two into a table whose header
/// row is blank (cells cannot hold line breaks or pipes; those become spaces).
fn fields_table(texts: &[&str]) -> String {
    if let [only] = texts {
        return only.to_string();
    }
    let mut table = String::from("| | |\n|-|-|\n");
    let cell = |s: &str| s.replace(['\n', '|'], " ");
    for pair in texts.chunks(2) {
        let left = cell(pair[0]);
        let right = pair.get(1).map_or(String::new(), |s| cell(s));
        table.push_str(&format!("| {left} | {right} |\n"));
    }
    table
}

/// A block element: only images have something to show.
fn render_element(element: &Field<'_>) -> Result<String> {
    if element.get("type")?.str()? != "image" {
        return Ok(String::new());
    }
    let url = element.get("image_url")?.url()?;
    let alt = element.get("alt_text")?.str()?;
    Ok(format!("[{alt}]({url})"))
}

/// A legacy attachment (<https://api.slack.com/reference/messaging/attachments>); any of its
/// fields may be absent or null.
fn render_attachment(a: &Field<'_>) -> Result<String> {
    let mut pieces = Vec::new();
    if let Some(title) = a.truthy("title")? {
        let title = title.str()?;
        match a.truthy("title_link")? {
            Some(link) => pieces.push(format!("## [{title}]({})", link.url()?)),
            None => pieces.push(format!("## {title}")),
        }
    }
    for key in ["pretext", "text"] {
        if let Some(v) = a.truthy(key)? {
            pieces.push(v.str()?.to_string());
        }
    }
    if a.has("fields")? {
        let mut lines = Vec::new();
        for field in a.get("fields")?.items()? {
            let title = field.truthy("title")?;
            let value = field.truthy("value")?;
            match (title, value) {
                (Some(t), Some(v)) => lines.push(format!("*{}*: {}", t.str()?, v.str()?)),
                (Some(t), None) => lines.push(format!("*{}*", t.str()?)),
                (None, Some(v)) => lines.push(v.str()?.to_string()),
                (None, None) => {}
            }
        }
        pieces.push(lines.join("\n"));
    }
    if let Some(blocks) = a.truthy("blocks")? {
        for block in blocks.items()? {
            pieces.push(render_block(&block)?);
        }
    }
    if let Some(url) = a.truthy("image_url")? {
        pieces.push(format!("[]({})", url.url()?));
    }
    if let Some(footer) = a.truthy("footer")? {
        pieces.push(footer.str()?.to_string());
    }
    if let Some(ts) = a.truthy("ts")? {
        pieces.push(format!("<time:{}>", ts.int()?));
    }
    Ok(join(pieces))
}

/// The first index at or after a position holding one byte, for positions asked in
/// increasing order: each byte of the text is looked at once over all the questions.
struct Next {
    byte: u8,
    /// The answer for every position in `from..=at` (`at` = the text's length: none).
    from: usize,
    at: usize,
}

impl Next {
    fn new(byte: u8) -> Next {
        Next {
            byte,
            from: 1,
            at: 0,
        }
    }

    fn find(&mut self, text: &[u8], pos: usize) -> usize {
        if !(self.from <= pos && pos <= self.at) {
            self.from = pos;
            self.at = text[pos.min(text.len())..]
                .iter()
                .position(|b| *b == self.byte)
                .map_or(text.len(), |i| pos + i);
        }
        self.at
    }
}

/// Python's `\w`: letters, digits (of any script) and the underscore.
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Slack's links `<scheme://target|label>` as Markdown links `[label](scheme://target)`: the
/// target runs to the first `|` and the label to the next `>`, on one line.
fn replace_links(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut pipe, mut pipe_nl) = (Next::new(b'|'), Next::new(b'\n'));
    let (mut gt, mut gt_nl) = (Next::new(b'>'), Next::new(b'\n'));
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'<' {
            i += 1;
            continue;
        }
        let scheme_end = text[i + 1..]
            .char_indices()
            .find(|(_, c)| !is_word(*c))
            .map_or(text.len(), |(k, _)| i + 1 + k);
        let matched = if scheme_end > i + 1 && text[scheme_end..].starts_with("://") {
            let after = scheme_end + 3;
            let p = pipe.find(b, after);
            if p < b.len() && p < pipe_nl.find(b, after) {
                let g = gt.find(b, p + 1);
                (g < b.len() && g < gt_nl.find(b, p + 1)).then_some((p, g))
            } else {
                None
            }
        } else {
            None
        };
        match matched {
            Some((p, g)) => {
                out.push_str(&text[copied..i]);
                out.push('[');
                out.push_str(&text[p + 1..g]);
                out.push_str("](");
                out.push_str(&text[i + 1..p]);
                out.push(')');
                i = g + 1;
                copied = i;
            }
            None => i += 1,
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// Slack's emphasis `<marker>text<marker>` as Zulip's `<wrap>text<wrap>` (upstream's
/// substitution): the span opens at the start or after a non-word character, its text stays on
/// one line, neither starts nor ends with white space nor holds the marker, and the closing
/// marker is followed by the end or a non-word character.
fn emphasis(text: &str, marker: char, wrap: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut p = 0;
    while p < text.len() {
        let c = text[p..].chars().next().unwrap_or(' ');
        // After a non-word character (which stays), or at the very start.
        let found = (!is_word(c))
            .then(|| span(text, p + c.len_utf8(), marker).map(|s| (p + c.len_utf8(), s)))
            .flatten()
            .or_else(|| {
                (p == 0)
                    .then(|| span(text, 0, marker).map(|s| (0, s)))
                    .flatten()
            });
        match found {
            Some((open, (start, end, next))) => {
                out.push_str(&text[p..open]);
                out.push_str(wrap);
                out.push_str(&text[start..end]);
                out.push_str(wrap);
                p = next;
            }
            None => {
                out.push(c);
                p += c.len_utf8();
            }
        }
    }
    out
}

/// An emphasis span opening at `at`: (text start, text end, position after the close).
fn span(text: &str, at: usize, marker: char) -> Option<(usize, usize, usize)> {
    if !text[at..].starts_with(marker) {
        return None;
    }
    let start = at + marker.len_utf8();
    let first = text[start..].chars().next()?;
    if first.is_whitespace() || first == marker {
        return None;
    }
    let end = text[start..]
        .find([marker, '\n'])
        .map_or(text.len(), |k| start + k);
    if !text[end..].starts_with(marker) || text[start..end].ends_with(char::is_whitespace) {
        return None;
    }
    let next = end + marker.len_utf8();
    match text[next..].chars().next() {
        Some(c) if is_word(c) => None,
        _ => Some((start, end, next)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bold_italic(s: &str) -> String {
        emphasis(&emphasis(s, '*', "**"), '_', "*")
    }

    #[test]
    fn emphasis_converts_as_upstream() {
        for (input, expected) in [
            ("some *foo* word", "some **foo** word"),
            ("*foo*", "**foo**"),
            ("*foo* *bar*", "**foo** **bar**"),
            ("*foo*a*bar*", "*foo*a*bar*"),
            ("some _foo_ word", "some *foo* word"),
            ("* not bold*", "* not bold*"),
            ("*not bold *", "*not bold *"),
            ("a*b*", "a*b*"),
            ("*x*\n*y*", "**x**\n**y**"),
            ("*two\nlines*", "*two\nlines*"),
            ("snake_case_name", "snake_case_name"),
            ("(*é*)", "(**é**)"),
            ("**", "**"),
            ("", ""),
        ] {
            assert_eq!(bold_italic(input), expected, "{input:?}");
        }
    }

    #[test]
    fn links_convert_as_upstream() {
        for (input, expected) in [
            ("<https://a.example/x|A>", "[A](https://a.example/x)"),
            (
                "x <http://h|l> y <ftp://g|m>",
                "x [l](http://h) y [m](ftp://g)",
            ),
            ("<https://a|b|c>", "[b|c](https://a)"),
            ("<https://a>", "<https://a>"),
            ("<mailto:x|y>", "<mailto:x|y>"),
            ("<https://a\n|b>", "<https://a\n|b>"),
            ("<https://a|b\n>", "<https://a|b\n>"),
            ("<<https://a|b>", "<[b](https://a)"),
            ("<!channel>", "<!channel>"),
        ] {
            assert_eq!(replace_links(input), expected, "{input:?}");
        }
    }

    #[test]
    fn many_unclosed_links_and_markers_stay_linear() {
        let text = "<a://".repeat(200_000) + &"*x ".repeat(200_000);
        let start = std::time::Instant::now();
        let out = bold_italic(&replace_links(&text));
        assert_eq!(out.len(), text.len());
        assert!(start.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn two_fields_per_row_and_one_field_alone() {
        assert_eq!(fields_table(&["only\none"]), "only\none");
        assert_eq!(
            fields_table(&["a|b", "c\nd", "e"]),
            "| | |\n|-|-|\n| a b | c d |\n| e |  |\n"
        );
    }
}
