//! Markdown source the server itself writes (the system bots' notices): silent mentions and
//! links to channels, topics and messages, in the forms [`super::render_message`] resolves.
//! Pure; the inverse of the `mentions` module.

use super::mentions::{channel_slug, hash_encode};

/// Whether a name cannot be written inside `#**…**` (the renderer would split or misread it);
/// such names get a plain Markdown link instead, as upstream does.
fn needs_plain_link(s: &str) -> bool {
    s.contains(['`', '>', '*', '&', '[', ']']) || s.contains("$$")
}

/// `s` with every ASCII punctuation character backslash-escaped, for a link's text.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_ascii_punctuation() {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `@_**Name|id**`: names a user without notifying them.
pub fn silent_mention(full_name: &str, id: i64) -> String {
    format!("@_**{full_name}|{id}**")
}

/// A link to a channel.
pub fn channel_link(id: i64, name: &str) -> String {
    if needs_plain_link(name) {
        format!(
            "[#{}](#narrow/channel/{})",
            escape(name),
            channel_slug(id, name)
        )
    } else {
        format!("#**{name}**")
    }
}

/// A link to a topic of a channel.
pub fn topic_link(id: i64, name: &str, topic: &str) -> String {
    if needs_plain_link(name) || needs_plain_link(topic) {
        let shown = if topic.is_empty() {
            "general chat"
        } else {
            topic
        };
        format!(
            "[#{} > {}](#narrow/channel/{}/topic/{})",
            escape(name),
            escape(shown),
            channel_slug(id, name),
            hash_encode(topic)
        )
    } else {
        format!("#**{name}>{topic}**")
    }
}

/// The full URL of a channel message in the web client.
pub fn message_url(realm_url: &str, id: i64, name: &str, topic: &str, message: i64) -> String {
    format!(
        "{}/#narrow/channel/{}/topic/{}/near/{message}",
        realm_url.trim_end_matches('/'),
        channel_slug(id, name),
        hash_encode(topic)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_use_the_short_forms() {
        assert_eq!(silent_mention("Iago", 5), "@_**Iago|5**");
        assert_eq!(channel_link(3, "design"), "#**design**");
        assert_eq!(topic_link(3, "design", "logo"), "#**design>logo**");
    }

    #[test]
    fn names_the_short_forms_cannot_hold_get_links() {
        assert_eq!(channel_link(3, "a>b"), "[#a\\>b](#narrow/channel/3-a.3Eb)");
        assert_eq!(
            topic_link(3, "design", "[x]"),
            "[#design > \\[x\\]](#narrow/channel/3-design/topic/.5Bx.5D)"
        );
        assert_eq!(
            topic_link(3, "a*b", ""),
            "[#a\\*b > general chat](#narrow/channel/3-a*b/topic/)"
        );
        assert_eq!(
            message_url("https://chat.example/", 3, "design", "new logo", 9),
            "https://chat.example/#narrow/channel/3-design/topic/new.20logo/near/9"
        );
    }
}
