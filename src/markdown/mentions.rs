//! Mentions (`@**Name**`, `@**Name|id**`, wildcards, `@*group*`, silent forms) and channel,
//! topic and message links (`#**channel**`, `#**channel>topic**`, `#**channel>topic@id**`),
//! rendered as upstream does.

use std::collections::HashMap;

use super::html;
use super::{Lookup, Rendered};

/// `@**…**` names that mention everyone in the channel.
const CHANNEL_WILDCARDS: &[&str] = &["all", "everyone", "stream", "channel"];
/// `@**…**` names that mention everyone in the topic.
const TOPIC_WILDCARDS: &[&str] = &["topic"];

/// Whether a mention may start after `prev` (upstream: start of text, whitespace, or one of
/// `'"({[/<`).
pub(super) fn may_follow(prev: Option<char>) -> bool {
    match prev {
        None => true,
        Some(c) => {
            c.is_whitespace() || matches!(c, '\'' | '"' | '(' | '{' | '[' | '/' | '<' | html::LT)
        }
    }
}

/// What a mention names.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Target {
    User {
        id: i64,
        name: String,
    },
    ChannelWildcard(String),
    TopicWildcard(String),
    Group {
        id: i64,
        name: String,
    },
    /// A channel, topic or message link, already rendered.
    Link(String),
}

/// A mention found in the source, replaced there by a token (see [`tokenize`]).
#[derive(Debug)]
pub(super) struct Mention {
    /// The syntax as typed (what code shows).
    pub raw: String,
    /// `@_` syntax.
    pub silent: bool,
    pub target: Target,
}

/// Starts a token standing for a mention: `TOKEN_START`, the mention's index, `TOKEN_END`.
pub(super) const TOKEN_START: char = '\u{E000}';
pub(super) const TOKEN_END: char = '\u{E001}';

/// Finds the mentions and channel links in `src` that name something, as upstream's patterns
/// do before any other inline syntax, and replaces each by a token the Markdown parser treats
/// as plain text. Unknown names stay as typed (and render as ordinary Markdown).
pub(super) fn tokenize(src: &str, lookup: &dyn Lookup) -> (String, Vec<Mention>) {
    let mut found = Vec::new();
    let mut cache: HashMap<(u8, bool, String), Option<Target>> = HashMap::new();
    let mut out = String::new();
    let mut last = 0;
    let mut i = 0;
    let bytes = src.as_bytes();
    while i < bytes.len() {
        let b = bytes[i];
        if (b != b'@' && b != b'#') || !may_follow(src[..i].chars().next_back()) {
            i += 1;
            continue;
        }
        let mut j = i + 1;
        let silent = b == b'@' && bytes.get(j) == Some(&b'_');
        if silent {
            j += 1;
        }
        let strong = src[j..].starts_with("**");
        if !strong && (b == b'#' || !src[j..].starts_with('*')) {
            i += 1;
            continue;
        }
        let delim = if strong { 2 } else { 1 };
        let name_start = j + delim;
        // Names are short (upstream caps them at 100 characters); bounding the search keeps
        // rendering linear.
        let mut limit = (name_start + 400).min(src.len());
        while !src.is_char_boundary(limit) {
            limit -= 1;
        }
        let Some(name_len) = src[name_start..limit].find(['*', '\n']) else {
            i += 1;
            continue;
        };
        let name_end = name_start + name_len;
        let closed = if strong {
            src[name_end..].starts_with("**")
        } else {
            src[name_end..].starts_with('*')
        };
        if name_len == 0 || !closed {
            i += 1;
            continue;
        }
        let name = html::unhide(&src[name_start..name_end]);
        // Each name is looked up once per message.
        let key = (b, strong, name.to_string());
        let target = match cache.get(&key) {
            Some(target) => target.clone(),
            None => {
                let target = match (b, strong) {
                    (b'#', _) => {
                        let mut link = String::new();
                        channel_link(&name, lookup, &mut link).map(|()| Target::Link(link))
                    }
                    (_, true) => user_target(&name, lookup),
                    (_, false) => lookup.group_by_name(&name).map(|g| Target::Group {
                        id: g.id,
                        name: g.name,
                    }),
                };
                cache.insert(key, target.clone());
                target
            }
        };
        let end = name_end + delim;
        let Some(target) = target else {
            i += 1;
            continue;
        };
        out.push_str(&src[last..i]);
        out.push(TOKEN_START);
        out.push_str(&found.len().to_string());
        out.push(TOKEN_END);
        found.push(Mention {
            raw: src[i..end].to_string(),
            silent,
            target,
        });
        last = end;
        i = end;
    }
    if found.is_empty() {
        return (src.to_string(), found);
    }
    out.push_str(&src[last..]);
    (out, found)
}

/// What `@**name**` names, if anything.
fn user_target(name: &str, lookup: &dyn Lookup) -> Option<Target> {
    if CHANNEL_WILDCARDS.contains(&name) {
        return Some(Target::ChannelWildcard(name.to_string()));
    }
    if TOPIC_WILDCARDS.contains(&name) {
        return Some(Target::TopicWildcard(name.to_string()));
    }
    let user = match split_id(name) {
        Some((full_name, id)) => {
            let user = lookup.user_by_id(id)?;
            // `@**other name|id**` is not a mention of user `id`.
            if full_name.is_some_and(|n| n != user.full_name) {
                return None;
            }
            user
        }
        // Names need not be unique; upstream picks one of the users.
        None => lookup
            .users_by_name(name)
            .into_iter()
            .min_by_key(|u| u.id)?,
    };
    Some(Target::User {
        id: user.id,
        name: user.full_name,
    })
}

/// A piece of text: plain, or a mention token.
pub(super) enum Piece<'a> {
    Text(&'a str),
    Token(usize),
}

/// Splits `s` into plain text and mention tokens.
pub(super) fn pieces(s: &str) -> impl Iterator<Item = Piece<'_>> {
    let mut rest = s;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        match rest.find(TOKEN_START) {
            Some(0) => {
                let end = rest.find(TOKEN_END).unwrap_or(rest.len());
                let index = rest[TOKEN_START.len_utf8()..end]
                    .parse()
                    .unwrap_or(usize::MAX);
                rest = rest.get(end + TOKEN_END.len_utf8()..).unwrap_or("");
                Some(Piece::Token(index))
            }
            Some(n) => {
                let (text, tail) = rest.split_at(n);
                rest = tail;
                Some(Piece::Text(text))
            }
            None => {
                let text = rest;
                rest = "";
                Some(Piece::Text(text))
            }
        }
    })
}

/// `s` with its tokens turned back into the syntax as typed.
pub(super) fn restore<'a>(s: &'a str, mentions: &[Mention]) -> std::borrow::Cow<'a, str> {
    if !s.contains(TOKEN_START) {
        return s.into();
    }
    let mut out = String::with_capacity(s.len());
    for piece in pieces(s) {
        match piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Token(i) => out.push_str(mentions.get(i).map_or("", |m| m.raw.as_str())),
        }
    }
    out.into()
}

/// Appends the HTML of a mention; inside a quote user and group mentions are silent. Records
/// what a non-silent mention mentions in `result`.
pub(super) fn render(m: &Mention, in_quote: bool, out: &mut String, result: &mut Rendered) {
    let silent = m.silent || in_quote;
    let (class, data) = match &m.target {
        Target::Link(html) => {
            out.push_str(html);
            return;
        }
        Target::User { id, .. } => {
            if !silent {
                result.mentioned_users.insert(*id);
            }
            ("user-mention", format!(" data-user-id=\"{id}\""))
        }
        Target::ChannelWildcard(_) => {
            result.channel_wildcard |= !silent;
            (
                "user-mention channel-wildcard-mention",
                " data-user-id=\"*\"".to_string(),
            )
        }
        Target::TopicWildcard(_) => {
            result.topic_wildcard |= !silent;
            ("topic-mention", String::new())
        }
        Target::Group { id, .. } => {
            if !silent {
                result.mentioned_groups.insert(*id);
            }
            (
                "user-group-mention",
                format!(" data-user-group-id=\"{id}\""),
            )
        }
    };
    let name = match &m.target {
        Target::User { name, .. }
        | Target::ChannelWildcard(name)
        | Target::TopicWildcard(name)
        | Target::Group { name, .. } => name,
        Target::Link(_) => "",
    };
    out.push_str("<span class=\"");
    out.push_str(class);
    if silent {
        out.push_str(" silent");
    }
    out.push('"');
    out.push_str(&data);
    out.push('>');
    if !silent {
        out.push('@');
    }
    html::text(out, name);
    out.push_str("</span>");
}

/// `name|id` → (`Some(name)`, id); `|id` → (`None`, id).
fn split_id(name: &str) -> Option<(Option<&str>, i64)> {
    let (full, id) = name.rsplit_once('|')?;
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let id = id.parse().ok()?;
    Some(((!full.is_empty()).then_some(full), id))
}

/// Renders `#**channel**`, `#**channel>topic**` or `#**channel>topic@message_id**`; `None` if
/// the channel is unknown.
fn channel_link(target: &str, lookup: &dyn Lookup, out: &mut String) -> Option<()> {
    let Some((channel_name, topic)) = target.split_once('>') else {
        let channel = lookup.channel_by_name(target)?;
        let slug = channel_slug(channel.id, &channel.name);
        out.push_str(&format!(
            "<a class=\"stream\" data-stream-id=\"{}\" href=\"/#narrow/channel/{slug}\">#",
            channel.id
        ));
        html::text(out, &channel.name);
        out.push_str("</a>");
        return Some(());
    };
    if channel_name.is_empty() {
        return None;
    }
    let channel = lookup.channel_by_name(channel_name)?;
    let slug = channel_slug(channel.id, &channel.name);
    // `topic@123` links to a message when the part after the last `@` is a number.
    let message = topic
        .rsplit_once('@')
        .filter(|(_, id)| !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()));
    let (topic, url) = match message {
        Some((topic, id)) => (topic, format!("{}/near/{id}", hash_encode(topic))),
        None => match lookup.latest_message_in_topic(channel.id, topic) {
            Some(id) if topic.is_empty() => (topic, format!("with/{id}")),
            Some(id) => (topic, format!("{}/with/{id}", hash_encode(topic))),
            None => (topic, hash_encode(topic)),
        },
    };
    if message.is_some() {
        out.push_str("<a class=\"message-link\" href=\"");
    } else {
        out.push_str(&format!(
            "<a class=\"stream-topic\" data-stream-id=\"{}\" href=\"",
            channel.id
        ));
    }
    out.push_str(&format!("/#narrow/channel/{slug}/topic/{url}\">#"));
    html::text(out, &channel.name);
    out.push_str(" &gt; ");
    if topic.is_empty() {
        // Upstream shows the realm's name for the empty topic, "general chat" by default.
        out.push_str("<em>general chat</em>");
    } else {
        html::text(out, topic);
    }
    if message.is_some() {
        out.push_str(" @ 💬");
    }
    out.push_str("</a>");
    Some(())
}

/// `ID-name` with spaces as `-`, as in upstream's narrow URLs.
pub(super) fn channel_slug(id: i64, name: &str) -> String {
    format!("{id}-{}", hash_encode(&name.replace(' ', "-")))
}

/// Upstream's URL-fragment encoding: percent-encoding (everything but ASCII letters, digits and
/// `_.-~*`), then `%` → `.`, and `.`, `(`, `)` encoded the same way.
pub(super) fn hash_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'-' | b'~' | b'*' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!(".{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_encoding_like_upstream() {
        assert_eq!(hash_encode("Zulip updates"), "Zulip.20updates");
        assert_eq!(hash_encode("a.b (c)"), "a.2Eb.20.28c.29");
        assert_eq!(hash_encode("café"), "caf.C3.A9");
        assert_eq!(channel_slug(9, "core team"), "9-core-team");
    }

    #[test]
    fn ids() {
        assert_eq!(split_id("King Hamlet|10"), Some((Some("King Hamlet"), 10)));
        assert_eq!(split_id("|10"), Some((None, 10)));
        assert_eq!(split_id("a|b"), None);
        assert_eq!(split_id("plain"), None);
    }
}
