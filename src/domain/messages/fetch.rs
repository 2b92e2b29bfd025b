//! Reading messages (`GET /messages`, `GET /messages/{id}`): anchors, ranges, narrows, and
//! everything needed to render each message for its viewer (flags, reactions, edit history,
//! senders and recipients).

use std::collections::HashMap;

use rusqlite::Connection;

use crate::db::message_narrows::{self as narrows_db, Side, ViewedRow};
use crate::db::{channels as channels_db, users as users_db};
use crate::db::{
    conversations as conversations_db, message_edits as edits_db, reactions as reactions_db,
    topics as topics_db,
};
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::ids::{ChannelId, ConversationId, MessageId, UserId};
use crate::model::{Message, MessageEdit, Reaction, Submessage, User, flags as bits, wildcard};

use super::narrow::{self, Narrow};

/// Zulip's stand-in for "after the newest message".
pub const LARGER_THAN_MAX_MESSAGE_ID: i64 = 10_000_000_000_000_000;
pub const MAX_MESSAGES_PER_FETCH: i64 = 5000;

#[derive(Clone, Debug, PartialEq)]
pub enum Anchor {
    Newest,
    Oldest,
    FirstUnread,
    Id(i64),
}

impl Anchor {
    pub fn parse(raw: &str) -> Result<Anchor> {
        Ok(match raw.trim_matches('"') {
            "newest" => Anchor::Newest,
            "oldest" => Anchor::Oldest,
            "first_unread" => Anchor::FirstUnread,
            n => {
                let id: i64 =
                    n.parse::<i128>()
                        .map_err(|_| Error::bad_request("Invalid anchor"))?
                        .clamp(0, LARGER_THAN_MAX_MESSAGE_ID as i128) as i64;
                Anchor::Id(id)
            }
        })
    }
}

/// A message as one viewer sees it.
#[derive(Clone, Debug)]
pub struct Viewed {
    pub message: Message,
    pub flags: Vec<&'static str>,
    pub reactions: Vec<Reaction>,
    pub edits: Vec<MessageEdit>,
    /// Widget data attached to the message, oldest first.
    pub submessages: Vec<Submessage>,
    /// Search highlighting, for search narrows.
    pub match_content: Option<String>,
    pub match_subject: Option<String>,
}

/// Messages plus the users, channels and conversations they refer to.
#[derive(Clone, Debug, Default)]
pub struct Bundle {
    pub messages: Vec<Viewed>,
    pub users: HashMap<UserId, User>,
    pub channel_names: HashMap<ChannelId, String>,
    pub conversations: HashMap<ConversationId, Vec<UserId>>,
}

/// A `GET /messages` result.
#[derive(Clone, Debug)]
pub struct Page {
    pub bundle: Bundle,
    pub anchor: Option<i64>,
    pub found_anchor: bool,
    pub found_oldest: bool,
    pub found_newest: bool,
}

pub struct Range {
    pub anchor: Anchor,
    pub num_before: i64,
    pub num_after: i64,
    pub include_anchor: bool,
}

/// The flags list Zulip shows for a message.
pub fn flag_names(
    stored: i64,
    received: bool,
    read: bool,
    wildcard_bits: i64,
    topic_participant: bool,
) -> Vec<&'static str> {
    let mut out = Vec::new();
    if read || !received {
        out.push("read");
    }
    if stored & bits::STARRED != 0 {
        out.push("starred");
    }
    if stored & bits::COLLAPSED != 0 {
        out.push("collapsed");
    }
    if stored & bits::MENTIONED != 0 {
        out.push("mentioned");
    }
    let channel_wild = received && wildcard_bits & wildcard::CHANNEL != 0;
    let topic_wild = received && wildcard_bits & wildcard::TOPIC != 0 && topic_participant;
    if channel_wild {
        out.push("stream_wildcard_mentioned");
    }
    if topic_wild {
        out.push("topic_wildcard_mentioned");
    }
    if stored & bits::GROUP_MENTIONED != 0 {
        out.push("group_mentioned");
    }
    if stored & bits::HAS_ALERT_WORD != 0 {
        out.push("has_alert_word");
    }
    if !received {
        out.push("historical");
    }
    if channel_wild || topic_wild {
        out.push("wildcard_mentioned");
    }
    out
}

/// Loads everything needed to render `rows` for `viewer`.
fn bundle(
    c: &Connection,
    viewer: &User,
    rows: Vec<ViewedRow>,
    search: &[String],
) -> Result<Bundle> {
    let ids: Vec<MessageId> = rows.iter().map(|r| r.message.id).collect();
    let mut reactions: HashMap<i64, Vec<Reaction>> = HashMap::new();
    for r in reactions_db::for_messages(c, &ids)? {
        reactions.entry(r.message_id.0).or_default().push(r);
    }
    let mut submessages: HashMap<i64, Vec<Submessage>> = HashMap::new();
    for s in crate::db::submessages::of_messages(c, &ids)? {
        submessages.entry(s.message_id.0).or_default().push(s);
    }
    let mut b = Bundle::default();
    let mut want_users: Vec<UserId> = Vec::new();
    for row in rows {
        let m = row.message;
        want_users.push(m.sender_id);
        if let Some(ch) = m.channel_id
            && !b.channel_names.contains_key(&ch)
            && let Some(channel) = channels_db::get(c, ch)?
        {
            b.channel_names.insert(ch, channel.name);
        }
        if let Some(conv) = m.conversation_id
            && !b.conversations.contains_key(&conv)
        {
            let members = conversations_db::members(c, conv)?;
            want_users.extend(members.iter().copied());
            b.conversations.insert(conv, members);
        }
        let participant = match m.channel_id {
            Some(ch) if m.wildcard & wildcard::TOPIC != 0 => {
                topics_db::has_participant(c, ch, &m.topic, viewer.id, m.id)?
            }
            _ => false,
        };
        let edits = if m.last_edit_at.is_some() || m.last_moved_at.is_some() {
            edits_db::for_message(c, m.id)?
        } else {
            Vec::new()
        };
        let (match_content, match_subject) = if search.is_empty() {
            (None, None)
        } else {
            (
                Some(highlight_html(&m.rendered_content, search)),
                Some(highlight_text(&m.topic, search)),
            )
        };
        b.messages.push(Viewed {
            flags: flag_names(row.stored, row.received, row.read, m.wildcard, participant),
            reactions: reactions.remove(&m.id.0).unwrap_or_default(),
            submessages: submessages.remove(&m.id.0).unwrap_or_default(),
            edits,
            match_content,
            match_subject,
            message: m,
        });
    }
    for u in want_users {
        if let std::collections::hash_map::Entry::Vacant(e) = b.users.entry(u)
            && let Some(user) = users_db::get_any(c, u)?
        {
            e.insert(user);
        }
    }
    Ok(b)
}

/// `GET /messages` with an anchor and range.
pub async fn fetch(state: &Core, viewer: &User, range: Range, narrow: Narrow) -> Result<Page> {
    if range.num_before < 0 || range.num_after < 0 {
        return Err(Error::bad_request(
            "num_before and num_after must not be negative",
        ));
    }
    if range.num_before.saturating_add(range.num_after) > MAX_MESSAGES_PER_FETCH {
        return Err(Error::bad_request(format!(
            "Too many messages requested (maximum {MAX_MESSAGES_PER_FETCH})."
        )));
    }
    if !range.include_anchor && range.num_before > 0 && range.num_after > 0 {
        return Err(Error::bad_request(
            "The anchor can only be excluded at an end of the range",
        ));
    }
    let viewer = viewer.clone();
    let host = state.config.realm_host().to_string();
    state
        .db
        .read(move |c| fetch_sync(c, &viewer, &host, &range, &narrow))
        .await
}

fn fetch_sync(
    c: &Connection,
    viewer: &User,
    host: &str,
    range: &Range,
    narrow: &Narrow,
) -> Result<Page> {
    let access = narrow::message_access(c, viewer)?;
    let narrowed = narrow::terms_sql(c, viewer, host, narrow)?;
    let anchor = match range.anchor {
        Anchor::Newest => LARGER_THAN_MAX_MESSAGE_ID,
        Anchor::Oldest => 0,
        Anchor::Id(id) => id,
        Anchor::FirstUnread => {
            narrows_db::first_unread(c, &access, &narrowed)?.unwrap_or(LARGER_THAN_MAX_MESSAGE_ID)
        }
    };
    let side =
        |side: Side, limit: i64| narrows_db::around(c, &access, &narrowed, side, anchor, limit);
    let mut before = if range.num_before > 0 {
        side(Side::Before, range.num_before)?
    } else {
        Vec::new()
    };
    let at = if range.include_anchor {
        side(Side::At, 0)?
    } else {
        Vec::new()
    };
    let after = if range.num_after > 0 {
        side(Side::After, range.num_after)?
    } else {
        Vec::new()
    };
    let found_anchor = !at.is_empty();
    let found_oldest = range.anchor == Anchor::Oldest || (before.len() as i64) < range.num_before;
    let found_newest = range.anchor == Anchor::Newest
        || anchor == LARGER_THAN_MAX_MESSAGE_ID
        || (after.len() as i64) < range.num_after;
    before.reverse();
    let mut rows = before;
    rows.extend(at);
    rows.extend(after);
    let search = narrow
        .search_terms()
        .iter()
        .flat_map(|q| narrow::search_tokens(q))
        .collect::<Vec<_>>();
    Ok(Page {
        bundle: bundle(c, viewer, rows, &search)?,
        anchor: Some(anchor),
        found_anchor,
        found_oldest,
        found_newest,
    })
}

/// `GET /messages` with `message_ids`: those the viewer may read, in id order.
pub async fn fetch_ids(state: &Core, viewer: &User, ids: Vec<i64>, narrow: Narrow) -> Result<Page> {
    let viewer = viewer.clone();
    let host = state.config.realm_host().to_string();
    state
        .db
        .read(move |c| {
            let access = narrow::message_access(c, &viewer)?;
            let narrowed = narrow::terms_sql(c, &viewer, &host, &narrow)?;
            let rows = narrows_db::among_ids(c, &access, &narrowed, &ids)?;
            Ok(Page {
                bundle: bundle(c, &viewer, rows, &[])?,
                anchor: None,
                found_anchor: false,
                found_oldest: false,
                found_newest: false,
            })
        })
        .await
}

/// `GET /messages/{id}`: one message the viewer may read.
/// One message as `viewer` sees it, without an access check: the payload of a message that
/// triggered an outgoing-webhook bot, which need not be subscribed. Empty if it is gone.
pub fn one_unchecked(c: &rusqlite::Connection, viewer: &User, id: MessageId) -> Result<Bundle> {
    let rows = narrows_db::one(c, viewer.id, id)?;
    bundle(c, viewer, rows, &[])
}

pub async fn fetch_one(state: &Core, viewer: &User, id: MessageId) -> Result<Bundle> {
    let viewer = viewer.clone();
    state
        .db
        .read(move |c| {
            super::readable(c, &viewer, id)?;
            let rows = narrows_db::one(c, viewer.id, id)?;
            bundle(c, &viewer, rows, &[])
        })
        .await
}

/// Wraps case-insensitive occurrences of the search words in the text of rendered HTML: never
/// inside a tag, and never through part of a character reference such as `&amp;` (a word is
/// matched against the decoded text, and a reference is wrapped whole or not at all).
pub fn highlight_html(html: &str, words: &[String]) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        highlight_run(&mut out, &rest[..lt], words);
        let gt = rest[lt..]
            .find('>')
            .map(|i| lt + i + 1)
            .unwrap_or(rest.len());
        out.push_str(&rest[lt..gt]);
        rest = &rest[gt..];
    }
    highlight_run(&mut out, rest, words);
    out
}

/// A plain-text field (the topic) as HTML: escaped first, then highlighted, so whatever the
/// text holds reaches the client as text.
pub fn highlight_text(text: &str, words: &[String]) -> String {
    highlight_html(&escape_html(text), words)
}

/// Escapes `&`, `<`, `>`, `"` and `'` for HTML text or attributes.
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#x27;"),
            _ => out.push(ch),
        }
    }
    out
}

/// The character reference at the start of `s` (`&name;`, `&#NN;`, `&#xHH;`): its length and
/// the text it stands for (empty for names this server never writes).
fn char_ref(s: &str) -> Option<(usize, String)> {
    let body_end = s[1..].char_indices().take(33).find(|(_, c)| *c == ';')?.0 + 1;
    let body = &s[1..body_end];
    if body.is_empty() || !body.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'#') {
        return None;
    }
    let decoded = if let Some(num) = body.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse().ok()?,
        };
        char::from_u32(code).map(String::from).unwrap_or_default()
    } else {
        match body {
            "amp" => "&",
            "lt" => "<",
            "gt" => ">",
            "quot" => "\"",
            "apos" => "'",
            "nbsp" => "\u{a0}",
            _ => "",
        }
        .to_string()
    };
    Some((body_end + 1, decoded))
}

/// Highlights one run of HTML text (no tags) into `out`.
fn highlight_run(out: &mut String, run: &str, words: &[String]) {
    if run.is_empty() {
        return;
    }
    // The run as units (a character or a whole character reference), and its decoded,
    // lower-cased text with the unit each byte came from.
    let mut units: Vec<&str> = Vec::new();
    let mut lower = String::with_capacity(run.len());
    let mut owner: Vec<usize> = Vec::with_capacity(run.len());
    let mut i = 0;
    while i < run.len() {
        let (len, decoded) = match run[i..].starts_with('&').then(|| char_ref(&run[i..])) {
            Some(Some((len, decoded))) => (len, decoded),
            _ => {
                let ch = run[i..].chars().next().expect("inside the run");
                (ch.len_utf8(), ch.to_string())
            }
        };
        for lc in decoded.chars().flat_map(char::to_lowercase) {
            let before = lower.len();
            lower.push(lc);
            owner.extend(std::iter::repeat_n(units.len(), lower.len() - before));
        }
        units.push(&run[i..i + len]);
        i += len;
    }
    let mut marked = vec![false; units.len()];
    for w in words {
        let w = w.to_lowercase();
        if w.is_empty() {
            continue;
        }
        let mut from = 0;
        while let Some(at) = lower[from..].find(&w) {
            let start = from + at;
            for &u in &owner[start..start + w.len()] {
                marked[u] = true;
            }
            from = start + w.len();
        }
    }
    let mut inside = false;
    for (unit, mark) in units.iter().zip(marked) {
        if mark != inside {
            out.push_str(if mark {
                "<span class=\"highlight\">"
            } else {
                "</span>"
            });
            inside = mark;
        }
        out.push_str(unit);
    }
    if inside {
        out.push_str("</span>");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_parse() {
        assert_eq!(Anchor::parse("newest").unwrap(), Anchor::Newest);
        assert_eq!(Anchor::parse("12").unwrap(), Anchor::Id(12));
        assert_eq!(Anchor::parse("-5").unwrap(), Anchor::Id(0));
        assert_eq!(
            Anchor::parse("99999999999999999999").unwrap(),
            Anchor::Id(LARGER_THAN_MAX_MESSAGE_ID)
        );
        assert_eq!(Anchor::parse("soon").unwrap_err().msg, "Invalid anchor");
    }

    #[test]
    fn flags_follow_zulip() {
        assert_eq!(flag_names(0, true, false, 0, false), Vec::<&str>::new());
        assert_eq!(
            flag_names(0, false, false, 0, false),
            vec!["read", "historical"]
        );
        assert_eq!(
            flag_names(
                bits::STARRED | bits::MENTIONED,
                true,
                true,
                wildcard::CHANNEL,
                false
            ),
            vec![
                "read",
                "starred",
                "mentioned",
                "stream_wildcard_mentioned",
                "wildcard_mentioned"
            ]
        );
    }

    #[test]
    fn highlighting_never_splits_a_character_reference_or_passes_markup() {
        let w = |s: &str| vec![s.to_string()];
        // Searching for a reference's name finds nothing inside it.
        assert_eq!(
            highlight_html("<p>a &amp; b &lt;c&gt;</p>", &w("amp")),
            "<p>a &amp; b &lt;c&gt;</p>"
        );
        assert_eq!(
            highlight_html("<p>1 &lt; 2</p>", &w("lt")),
            "<p>1 &lt; 2</p>"
        );
        // Searching for what a reference stands for wraps it whole.
        assert_eq!(
            highlight_html("<p>R&amp;D</p>", &w("r&d")),
            "<p><span class=\"highlight\">R&amp;D</span></p>"
        );
        assert_eq!(
            highlight_html("<p>it&#39;s</p>", &w("it's")),
            "<p><span class=\"highlight\">it&#39;s</span></p>"
        );
        // Topics are plain text: escaped before highlighting.
        assert_eq!(
            highlight_text("deploy <img src=x onerror=alert(1)>", &w("deploy")),
            "<span class=\"highlight\">deploy</span> &lt;img src=x onerror=alert(1)&gt;"
        );
        assert_eq!(
            highlight_text("<b>img</b>", &w("img")),
            "&lt;b&gt;<span class=\"highlight\">img</span>&lt;/b&gt;"
        );
        // Case changes that alter byte lengths do not disturb the marks.
        assert_eq!(
            highlight_text("İstanbul x", &w("x")),
            "İstanbul <span class=\"highlight\">x</span>"
        );
        assert_eq!(
            highlight_text("a & b", &w("&")),
            "a <span class=\"highlight\">&amp;</span> b"
        );
    }

    #[test]
    fn highlighting_skips_tags() {
        assert_eq!(
            highlight_html("<p class=\"hello\">Hello world</p>", &["hello".into()]),
            "<p class=\"hello\"><span class=\"highlight\">Hello</span> world</p>"
        );
    }
}
