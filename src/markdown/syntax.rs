//! Markdown source the server itself writes (the system bots' notices): silent mentions and
//! links to channels, topics and messages, in the forms [`super::render_message`] resolves.
//! Pure; the inverse of the `mentions` module.

use super::mentions::{channel_slug, hash_encode};

/// Whether a name cannot be written inside `#**…**` (the renderer would split or misread it);
/// such names get a plain Markdown link instead, as upstream does.
fn needs_plain_link(s: &str) -> bool {
    s.contains(['`', '>', '*', '&', '[', ']']) || s.contains("$$")
}

/// `s` with the characters `needs_plain_link` looks for written as HTML entities, for a
/// link's text (upstream's escaping).
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace("$$", "&#36;&#36;")
        .replace('`', "&#96;")
        .replace('>', "&gt;")
        .replace('*', "&#42;")
        .replace('[', "&#91;")
        .replace(']', "&#93;")
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

/// The web client's fragment of a channel (`#narrow/channel/<id>-<name>`).
pub fn channel_fragment(id: i64, name: &str) -> String {
    format!("#narrow/channel/{}", channel_slug(id, name))
}

/// The web client's fragment of a channel topic (`#narrow/channel/<id>-<name>/topic/<topic>`).
pub fn topic_fragment(id: i64, name: &str, topic: &str) -> String {
    format!(
        "#narrow/channel/{}/topic/{}",
        channel_slug(id, name),
        hash_encode(topic)
    )
}

/// The web client's fragment of a direct-message conversation (`#narrow/dm/<ids>-<slug>`):
/// with one other person their id and name, with several their ids and `group`.
pub fn dm_fragment(ids: &[i64], one_name: Option<&str>) -> String {
    let list: Vec<String> = ids.iter().map(i64::to_string).collect();
    let slug = match one_name {
        Some(name) => hash_encode(&name.replace(' ', "-")),
        None => "group".to_string(),
    };
    format!("#narrow/dm/{}-{slug}", list.join(","))
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

/// A link to one message of a channel's topic.
pub fn message_link(id: i64, name: &str, topic: &str, message: i64) -> String {
    if needs_plain_link(name) || needs_plain_link(topic) {
        let shown = if topic.is_empty() {
            "general chat"
        } else {
            topic
        };
        format!(
            "[#{} > {} @ 💬](#narrow/channel/{}/topic/{}/near/{message})",
            escape(name),
            escape(shown),
            channel_slug(id, name),
            hash_encode(topic)
        )
    } else {
        format!("#**{name}>{topic}@{message}**")
    }
}

/// The web client's fragment of one message of a channel's topic (`#narrow/...`).
pub fn message_link_target(id: i64, name: &str, topic: &str, message: i64) -> String {
    format!(
        "#narrow/channel/{}/topic/{}/near/{message}",
        channel_slug(id, name),
        hash_encode(topic)
    )
}

/// The full URL of a direct message in the web client; `ids` are the conversation as upstream
/// names it (the recipient of a one-on-one message, every member of a group).
pub fn direct_message_url(realm_url: &str, ids: &[i64], message: i64) -> String {
    let mut ids = ids.to_vec();
    ids.sort_unstable();
    let list: Vec<String> = ids.iter().map(i64::to_string).collect();
    let group = if ids.len() >= 3 { "-group" } else { "" };
    format!(
        "{}/#narrow/dm/{}{group}/near/{message}",
        realm_url.trim_end_matches('/'),
        list.join(",")
    )
}

/// Several people named for display: sorted mentions, as "A", "A and B" or "A, B, and C".
pub fn mentions_for_display(mentions: &[String]) -> String {
    let mut list = mentions.to_vec();
    list.sort();
    match list.len() {
        0 => String::new(),
        1 => list.remove(0),
        2 => format!("{} and {}", list[0], list[1]),
        _ => {
            let last = list.pop().unwrap_or_default();
            format!("{}, and {last}", list.join(", "))
        }
    }
}

/// A backtick fence longer than any fence in `content` (at least three), so `content` can be
/// quoted inside it.
pub fn unused_fence(content: &str) -> String {
    let mut len = 3;
    for line in content.lines() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        if indent > 3 {
            continue;
        }
        let run = line[indent..].bytes().take_while(|b| *b == b'`').count();
        if run >= 3 {
            len = len.max(run + 1);
        }
    }
    "`".repeat(len)
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
        assert_eq!(channel_link(3, "a>b"), "[#a&gt;b](#narrow/channel/3-a.3Eb)");
        assert_eq!(
            topic_link(3, "design", "[x]"),
            "[#design > &#91;x&#93;](#narrow/channel/3-design/topic/.5Bx.5D)"
        );
        assert_eq!(
            topic_link(3, "a*b", ""),
            "[#a&#42;b > general chat](#narrow/channel/3-a*b/topic/)"
        );
        assert_eq!(message_link(3, "design", "", 9), "#**design>@9**");
        assert_eq!(
            message_link(3, "a&b", "t", 9),
            "[#a&amp;b > t @ 💬](#narrow/channel/3-a.26b/topic/t/near/9)"
        );
        assert_eq!(
            message_url("https://chat.example/", 3, "design", "new logo", 9),
            "https://chat.example/#narrow/channel/3-design/topic/new.20logo/near/9"
        );
        assert_eq!(
            direct_message_url("https://chat.example", &[12, 10], 99),
            "https://chat.example/#narrow/dm/10,12/near/99"
        );
        assert_eq!(
            direct_message_url("https://chat.example", &[12, 9, 10], 99),
            "https://chat.example/#narrow/dm/9,10,12-group/near/99"
        );
    }

    #[test]
    fn people_and_fences_for_display() {
        let m = |s: &str| s.to_string();
        assert_eq!(mentions_for_display(&[m("@_**B|2**")]), "@_**B|2**");
        assert_eq!(
            mentions_for_display(&[m("@_**B|2**"), m("@_**A|1**")]),
            "@_**A|1** and @_**B|2**"
        );
        assert_eq!(
            mentions_for_display(&[m("@_**C|3**"), m("@_**A|1**"), m("@_**B|2**")]),
            "@_**A|1**, @_**B|2**, and @_**C|3**"
        );
        assert_eq!(unused_fence("plain"), "```");
        assert_eq!(unused_fence("```rust\nx\n```"), "````");
        assert_eq!(unused_fence("  `````\n"), "``````");
        assert_eq!(unused_fence("    ``````\n"), "```");
    }
}
