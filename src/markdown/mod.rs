//! Markdown to HTML for user-supplied text, safe to show in a client.
//!
//! CommonMark (pulldown-cmark) with Zulip's habits that matter here: a single newline is a line
//! break, raw HTML is shown as text, and links keep only safe schemes. Pure functions: anything
//! the renderer must know about the realm (users, groups, channels) comes through [`Lookup`].
//!
//! [`render_message`] renders chat messages as upstream Zulip does (its HTML layout, mentions,
//! channel links, emoji, code blocks, quotes, spoilers, global times); the parts:
//! - `render`: walks pulldown-cmark's events and writes upstream's HTML layout;
//! - `mentions`: user, group and wildcard mentions and channel/topic links;
//! - `lists`: upstream's list nesting and hanging lists, rewritten for CommonMark;
//! - `code`: code blocks and fence info strings; `links`: link sanitising and bare links;
//! - `emoji`, `timestamp`, `html` (escaping).
//!
//! Known differences from upstream: code is coloured with syntect's grammars mapped onto
//! Pygments' classes for the common languages only (others stay plain), no TeX (`math` blocks
//! render as upstream's `tex-error`: no KaTeX-compatible renderer runs inside the executable),
//! image previews only for uploaded images (still images by their thumbnail, animations as
//! themselves; no previews of other sites' images), no linkifiers, and CommonMark's backslash
//! escapes and entities.

mod code;
mod emoji;
mod html;
mod links;
mod lists;
mod mentions;
mod render;
pub mod syntax;
mod timestamp;

use std::collections::BTreeSet;

/// A user a mention can name.
#[derive(Clone, Debug, PartialEq)]
pub struct MentionUser {
    pub id: i64,
    pub full_name: String,
}

/// A user group a mention can name.
#[derive(Clone, Debug, PartialEq)]
pub struct MentionGroup {
    pub id: i64,
    pub name: String,
}

/// A channel a `#**channel**` link can name.
#[derive(Clone, Debug, PartialEq)]
pub struct MentionChannel {
    pub id: i64,
    pub name: String,
}

/// What the renderer may ask about the realm while rendering one message.
pub trait Lookup {
    /// Active users whose full name equals `name`, ignoring case (names need not be unique).
    fn users_by_name(&self, name: &str) -> Vec<MentionUser>;
    /// The active user with this id.
    fn user_by_id(&self, id: i64) -> Option<MentionUser>;
    /// The (not deactivated) group with this name, ignoring case.
    fn group_by_name(&self, name: &str) -> Option<MentionGroup>;
    /// The channel with this name, ignoring case, if the sender may link to it.
    fn channel_by_name(&self, name: &str) -> Option<MentionChannel>;
    /// The realm's URL (`https://chat.example.com`, no trailing slash). Links into the realm's
    /// web app (`…/#narrow/…`) and to uploads (`…/user_uploads/…`) are made relative, as
    /// upstream does.
    fn realm_url(&self) -> Option<String> {
        None
    }
    /// The newest message in a topic the sender can see, for `#**channel>topic**` links
    /// (upstream adds `/with/ID` to their URL when there is one).
    fn latest_message_in_topic(&self, _channel_id: i64, _topic: &str) -> Option<i64> {
        None
    }
    /// The picture URL of the organization's active custom emoji called `name`.
    fn realm_emoji(&self, _name: &str) -> Option<String> {
        None
    }
    /// How an uploaded image at `path_id` (the part after `/user_uploads/`) is previewed.
    fn upload_preview(&self, _path_id: &str) -> UploadPreview {
        UploadPreview::Original
    }
}

/// How a message previews an uploaded image it links.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UploadPreview {
    /// The image itself (uploads from before thumbnails, and animations).
    Original,
    /// Upstream's thumbnail form: `src` is the thumbnail in the server's format, with the
    /// original's shown dimensions and content type.
    Thumbnail {
        width: u32,
        height: u32,
        content_type: String,
    },
    /// No preview (the upload is missing or is not an image that can be decoded).
    None,
}

/// The thumbnail format messages link (upstream's first still format), as
/// `server_thumbnail_formats` advertises it.
pub const THUMBNAIL_FORMAT: &str = "840x560.webp";
/// The box that format fits images into.
pub const THUMBNAIL_BOX: (u32, u32) = (840, 560);

/// The result of rendering a message.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rendered {
    pub html: String,
    /// Users named by a non-silent mention: they get the `mentioned` flag.
    pub mentioned_users: BTreeSet<i64>,
    /// Groups named by a non-silent group mention.
    pub mentioned_groups: BTreeSet<i64>,
    /// `@**all**`, `@**everyone**`, `@**channel**` or `@**stream**` (non-silent).
    pub channel_wildcard: bool,
    /// `@**topic**` (non-silent).
    pub topic_wildcard: bool,
    /// The message is a `/me` status message.
    pub is_me_message: bool,
}

/// Renders a chat message with Zulip's syntax on top of CommonMark, as upstream's renderer
/// lays out its HTML.
pub fn render_message(content: &str, lookup: &dyn Lookup) -> Rendered {
    if is_plain_words(content) {
        return Rendered {
            html: format!("<p>{content}</p>"),
            ..Rendered::default()
        };
    }
    let mut renderer = render::Renderer::new(lookup);
    let mut html = String::with_capacity(content.len() + content.len() / 4 + 16);
    renderer.message(content, &mut html);
    Rendered {
        html,
        is_me_message: content.starts_with("/me "),
        ..renderer.result
    }
}

/// Text the renderer would only wrap in a paragraph: ASCII letters and digits in words with
/// single spaces between them, on one line. Nothing in it can start Markdown or Zulip syntax
/// (no punctuation for mentions, links, emphasis, emoji names, lists or headings; no
/// indentation for code; a bare digit is no emoji), so the common short message skips the
/// parser. `render_matches_for_plain_words` checks the shortcut against the renderer.
fn is_plain_words(content: &str) -> bool {
    let b = content.as_bytes();
    !b.is_empty()
        && b[0] != b' '
        && b[b.len() - 1] != b' '
        && !content.contains("  ")
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b' ')
}

/// A renderer view of a realm with nothing in it: plain Markdown for channel descriptions and
/// profile fields, where mentions are not resolved.
struct NoRealm;

impl Lookup for NoRealm {
    fn users_by_name(&self, _: &str) -> Vec<MentionUser> {
        Vec::new()
    }
    fn user_by_id(&self, _: i64) -> Option<MentionUser> {
        None
    }
    fn group_by_name(&self, _: &str) -> Option<MentionGroup> {
        None
    }
    fn channel_by_name(&self, _: &str) -> Option<MentionChannel> {
        None
    }
}

/// Renders Markdown that is not a message (channel descriptions, profile fields).
pub fn render(text: &str) -> String {
    render_message(text, &NoRealm).html
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_matches_for_plain_words() {
        let full = |text: &str| {
            let mut renderer = render::Renderer::new(&NoRealm);
            let mut html = String::new();
            renderer.message(text, &mut html);
            Rendered {
                html,
                is_me_message: text.starts_with("/me "),
                ..renderer.result
            }
        };
        let mut cases: Vec<String> = [
            "hello",
            "benchmark message 123",
            "1",
            "0 1 2 3 4 5 6 7 8 9",
            "10",
            "2024",
            "me",
            "www",
            "http",
            "https",
            "all",
            "everyone",
            "topic",
            "A1b2",
            "x 1",
            "1 x",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // Every text of up to four characters over letters, digits and space, and longer
        // pseudo-random ones.
        let alphabet: Vec<char> = "aZ09 ".chars().collect();
        let mut texts = vec![String::new()];
        for _ in 0..4 {
            let mut next = Vec::new();
            for t in &texts {
                for c in &alphabet {
                    next.push(format!("{t}{c}"));
                }
            }
            cases.extend(next.iter().cloned());
            texts = next;
        }
        let wide: Vec<char> = "abcxyzABCXYZ0123456789 ".chars().collect();
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..3000 {
            let mut t = String::new();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            for _ in 0..(seed % 40 + 1) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                t.push(wide[(seed % wide.len() as u64) as usize]);
            }
            cases.push(t);
        }
        let mut plain = 0;
        for text in &cases {
            if is_plain_words(text) {
                plain += 1;
                assert_eq!(render_message(text, &NoRealm), full(text), "{text:?}");
            }
        }
        assert!(plain > 1000);
        assert!(!is_plain_words(" indented"));
        assert!(!is_plain_words("two  spaces"));
        assert!(!is_plain_words("line\nbreak"));
        assert!(!is_plain_words("@all"));
    }

    #[test]
    fn paragraphs_breaks_and_escaping() {
        assert_eq!(render("a\nb"), "<p>a<br>\nb</p>");
        assert_eq!(
            render("<h1>x</h1> thanks"),
            "<p>&lt;h1&gt;x&lt;/h1&gt; thanks</p>"
        );
        assert_eq!(render("**b**"), "<p><strong>b</strong></p>");
    }

    #[test]
    fn unsafe_links_lose_their_target() {
        let html = render("[x](javascript:alert(1))");
        assert!(!html.contains("<a"), "{html}");
        assert!(render("[x](https://example.com)").contains("href=\"https://example.com\""));
    }
}

#[cfg(test)]
mod tests_message;
