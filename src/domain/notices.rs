//! What the system bots post when something changes: Notification Bot's notices about new
//! channels, subscriptions by others, moved and resolved topics and new users, and Welcome
//! Bot's welcome message. The texts and their Markdown follow upstream Zulip's.
//!
//! Every function runs inside the write transaction of the change it reports, so a notice is
//! committed with that change and its event follows the change's events. Notices are ordinary
//! messages (`send::post_notice`): events, unreads and search treat them like any other.
//! Owns no storage and no wire shapes.

use rusqlite::Connection;

use crate::db::{WriteTx, messages as messages_db, users as users_db};
use crate::db::{conversations as conversations_db, topics as topics_db};
use crate::domain::messages::send::{Notice, NoticeDestination, post_notice};
use crate::domain::realm_settings;
use crate::error::{Error, Result};
use crate::events::{Event, MessagesDeleted};
use crate::ids::{MessageId, UserId};
use crate::markdown::syntax::{
    channel_link, direct_message_url, mentions_for_display, message_link, message_url,
    silent_mention, topic_link, unused_fence,
};
use crate::model::{Channel, Message, TopicsPolicy, User};

/// Notification Bot's address (upstream's default `NOTIFICATION_BOT`).
pub const NOTIFICATION_BOT: &str = "notification-bot@zulip.com";
/// Welcome Bot's address (upstream's default `WELCOME_BOT`).
pub const WELCOME_BOT: &str = "welcome-bot@zulip.com";
/// The topic of a new channel's creation notice.
pub const CHANNEL_EVENTS_TOPIC: &str = "channel events";
/// The topic of new-channel announcements.
pub const NEW_CHANNELS_TOPIC: &str = "new channels";
/// The topic of new-user announcements.
pub const SIGNUPS_TOPIC: &str = "signups";
/// A resolve notice this young is taken back, rather than answered, when the topic is
/// unresolved again (upstream's `RESOLVE_TOPIC_UNDO_GRACE_PERIOD_SECONDS`).
pub const RESOLVE_UNDO_GRACE_SECS: i64 = 60;

const RESOLVED_TEXT: &str = "has marked this topic as resolved.";
const UNRESOLVED_TEXT: &str = "has marked this topic as unresolved.";

fn bot(c: &Connection, email: &str) -> Result<User> {
    users_db::system_bot(c, email)?
        .ok_or_else(|| Error::internal(format!("the system bot {email} is missing")))
}

fn mention(u: &User) -> String {
    silent_mention(&u.full_name, u.id.0)
}

fn in_channel(channel: &Channel, topic: &str) -> NoticeDestination {
    NoticeDestination::Channel {
        channel: channel.clone(),
        topic: topic.to_string(),
    }
}

/// How upstream names a channel's access policy in its creation notice.
fn policy_label(ch: &Channel) -> &'static str {
    if ch.is_web_public {
        "Web-public"
    } else if !ch.invite_only {
        "Public"
    } else if ch.history_public_to_subscribers {
        "Private, shared history"
    } else {
        "Private, protected history"
    }
}

/// The creation notice in a new channel's "channel events" topic.
pub fn creation_text(actor: &User, ch: &Channel) -> String {
    let description = if ch.description.is_empty() {
        "*No description.*".to_string()
    } else {
        ch.description.replace('\n', " ")
    };
    format!(
        "**{}** channel created by {}. **Description:**\n```` quote\n{description}\n````",
        policy_label(ch),
        mention(actor)
    )
}

/// Channels `actor` just created (already subscribed as asked): the creation notice in each,
/// and with `announce` one announcement in the realm's new-channel announcements channel.
pub fn channels_created(
    tx: &mut WriteTx<'_>,
    actor: &User,
    created: &[Channel],
    announce: bool,
    realm_url: &str,
) -> Result<()> {
    if created.is_empty() {
        return Ok(());
    }
    let notifier = bot(tx, NOTIFICATION_BOT)?;
    if announce
        && let Some(target) =
            realm_settings::channel_setting(tx, realm_settings::NEW_STREAM_ANNOUNCEMENTS)?
    {
        let links: Vec<String> = created
            .iter()
            .map(|ch| channel_link(ch.id.0, &ch.name))
            .collect();
        let content = if links.len() == 1 {
            format!("{} created a new channel {}.", mention(actor), links[0])
        } else {
            format!(
                "{} created the following channels: {}.",
                mention(actor),
                links.join(", ")
            )
        };
        post(
            tx,
            &notifier,
            in_channel(&target, NEW_CHANNELS_TOPIC),
            content,
            Some(actor.id),
            realm_url,
        )?;
    }
    for ch in created {
        let content = creation_text(actor, ch);
        post(
            tx,
            &notifier,
            in_channel(ch, CHANNEL_EVENTS_TOPIC),
            content,
            Some(actor.id),
            realm_url,
        )?;
    }
    Ok(())
}

/// `actor` subscribed `user` to existing channels (names sorted by the caller).
pub fn subscribed_by_other(
    tx: &mut WriteTx<'_>,
    actor: &User,
    user: UserId,
    channel_names: &[String],
    realm_url: &str,
) -> Result<()> {
    let content = match channel_names {
        [] => return Ok(()),
        [one] => format!("{} subscribed you to #**{one}**.", mention(actor)),
        many => {
            let mut text = format!(
                "{} subscribed you to the following channels:\n\n",
                mention(actor)
            );
            for name in many {
                text.push_str(&format!("* #**{name}**\n"));
            }
            text
        }
    };
    let notifier = bot(tx, NOTIFICATION_BOT)?;
    post(
        tx,
        &notifier,
        NoticeDestination::Direct(vec![user]),
        content,
        None,
        realm_url,
    )?;
    Ok(())
}

/// `actor` added users to (`added`) or removed them from a user group: Notification Bot tells
/// each of them but the actor and bots.
pub fn group_membership_changed(
    tx: &mut WriteTx<'_>,
    actor: &User,
    group_name: &str,
    users: &[User],
    added: bool,
    realm_url: &str,
) -> Result<()> {
    let what = if added {
        "added you to"
    } else {
        "removed you from"
    };
    let content = format!("{} {what} the group @_*{group_name}*.", mention(actor));
    let recipients: Vec<UserId> = users
        .iter()
        .filter(|u| u.id != actor.id && !u.is_bot)
        .map(|u| u.id)
        .collect();
    if recipients.is_empty() {
        return Ok(());
    }
    let notifier = bot(tx, NOTIFICATION_BOT)?;
    for user in recipients {
        post(
            tx,
            &notifier,
            NoticeDestination::Direct(vec![user]),
            content.clone(),
            None,
            realm_url,
        )?;
    }
    Ok(())
}

/// A move of messages, as the move notices need it.
pub struct Move<'a> {
    pub actor: &'a User,
    pub from: &'a Channel,
    pub from_topic: &'a str,
    pub to: &'a Channel,
    pub to_topic: &'a str,
    /// The moved messages, oldest first (never empty).
    pub moved: &'a [MessageId],
    /// No message is left where they were.
    pub moved_all: bool,
    /// The destination held messages before the move.
    pub destination_had_messages: bool,
    /// The only change is resolving or unresolving the topic.
    pub resolve_toggle: bool,
    pub notify_old_thread: bool,
    pub notify_new_thread: bool,
}

/// The breadcrumbs `send_notification_to_new_thread` / `..._old_thread` ask for: first in the
/// new place, then in the old one. A bare resolve or unresolve leaves none in the new place.
pub fn messages_moved(tx: &mut WriteTx<'_>, mv: &Move<'_>, realm_url: &str) -> Result<()> {
    let count = mv.moved.len();
    let who = mention(mv.actor);
    let old_location = topic_link(mv.from.id.0, &mv.from.name, mv.from_topic);
    let new_location = topic_link(mv.to.id.0, &mv.to.name, mv.to_topic);
    let notifier = bot(tx, NOTIFICATION_BOT)?;
    let channel_changed = mv.from.id != mv.to.id;
    if mv.notify_new_thread && (channel_changed || !mv.resolve_toggle) {
        let content = if !mv.destination_had_messages && mv.moved_all {
            format!("This topic was moved here from {old_location} by {who}.")
        } else if count == 1 {
            let link = message_url(
                realm_url,
                mv.to.id.0,
                &mv.to.name,
                mv.to_topic,
                mv.moved[0].0,
            );
            format!("[A message]({link}) was moved here from {old_location} by {who}.")
        } else {
            format!("{count} messages were moved here from {old_location} by {who}.")
        };
        post(
            tx,
            &notifier,
            in_channel(mv.to, mv.to_topic),
            content,
            Some(mv.actor.id),
            realm_url,
        )?;
    }
    if mv.notify_old_thread {
        let content = if mv.moved_all {
            format!("This topic was moved to {new_location} by {who}.")
        } else if count == 1 {
            format!("A message was moved from this topic to {new_location} by {who}.")
        } else {
            format!("{count} messages were moved from this topic to {new_location} by {who}.")
        };
        post(
            tx,
            &notifier,
            in_channel(mv.from, mv.from_topic),
            content,
            Some(mv.actor.id),
            realm_url,
        )?;
    }
    Ok(())
}

/// `actor` resolved (or unresolved) a topic, now named `topic`. Unresolving within the grace
/// period after the resolve notice takes that notice back instead of posting another.
pub fn topic_resolved(
    tx: &mut WriteTx<'_>,
    actor: &User,
    channel: &Channel,
    topic: &str,
    resolved: bool,
    now: i64,
    realm_url: &str,
) -> Result<()> {
    let notifier = bot(tx, NOTIFICATION_BOT)?;
    if let Some(&last) = topics_db::newest_ids(tx, channel.id, topic, 1)?.first()
        && let Some(m) = messages_db::get(tx, last)?
        && m.sender_id == notifier.id
        && now - m.sent_at < RESOLVE_UNDO_GRACE_SECS
        && (m.content.ends_with(RESOLVED_TEXT) || m.content.ends_with(UNRESOLVED_TEXT))
    {
        messages_db::delete(tx, m.id)?;
        tx.emit(Event::MessagesDeleted(MessagesDeleted {
            message_ids: vec![m.id],
            channel_id: m.channel_id,
            topic: m.topic,
            dm_members: Vec::new(),
        }));
        return Ok(());
    }
    let text = if resolved {
        RESOLVED_TEXT
    } else {
        UNRESOLVED_TEXT
    };
    let content = format!("{} {text}", mention(actor));
    post(
        tx,
        &notifier,
        in_channel(channel, topic),
        content,
        Some(actor.id),
        realm_url,
    )?;
    Ok(())
}

/// The longest part of a reported message quoted in its report (upstream keeps room for the
/// reporter's description and the rest of the text within the message length limit).
pub const REPORT_SNIPPET_LENGTH: usize = crate::domain::messages::send::MAX_MESSAGE_LENGTH
    - crate::domain::messages::report::MAX_DESCRIPTION_LENGTH
    - 500;

/// `reporter` reported message `m` for `reason` (its display name): Notification Bot posts the
/// report, quoting the message behind a spoiler, in the moderation requests channel `target`,
/// in the topic "{sender's name} moderation".
pub fn message_reported(
    tx: &mut WriteTx<'_>,
    reporter: &User,
    m: &Message,
    reason: &str,
    description: &str,
    target: &Channel,
    realm_url: &str,
) -> Result<()> {
    let members = match m.conversation_id {
        Some(conv) => conversations_db::members(tx, conv)?,
        None => Vec::new(),
    };
    let mut wanted = members.clone();
    wanted.push(m.sender_id);
    let users = users_db::get_many(tx, &wanted)?;
    let sender = users
        .get(&m.sender_id)
        .ok_or_else(|| Error::internal("a message's sender is missing"))?;
    let named = |id: &UserId| users.get(id).map(mention).unwrap_or_default();
    let who = format!(
        "{} reported a message sent by {}",
        mention(reporter),
        mention(sender)
    );
    let at = format!("<time:{}>", crate::time::iso_seconds(m.sent_at));
    let others: Vec<UserId> = members
        .iter()
        .copied()
        .filter(|u| *u != m.sender_id)
        .collect();
    let (header, original) = match m.channel_id {
        Some(ch) => {
            let channel = crate::db::channels::get(tx, ch)?
                .ok_or_else(|| Error::internal("a message's channel is missing"))?;
            let link = message_link(ch.0, &channel.name, &m.topic, m.id.0);
            (
                format!("{who} at {at}."),
                format!("Original message at {link}"),
            )
        }
        None => {
            let one_on_one = members.len() <= 2;
            // Upstream names a one-on-one conversation by its recipient (the sender, writing
            // to themselves), a group by all its members.
            let url_ids: Vec<i64> = if one_on_one {
                match others.first() {
                    Some(u) => vec![u.0],
                    None => vec![m.sender_id.0],
                }
            } else {
                members.iter().map(|u| u.0).collect()
            };
            let url = direct_message_url(realm_url, &url_ids, m.id.0);
            let header = if one_on_one && reporter.id != m.sender_id {
                format!("{who} at {at}.")
            } else if one_on_one {
                let recipient = others
                    .first()
                    .map(named)
                    .unwrap_or_else(|| mention(reporter));
                format!("{who} to {recipient} at {at}.")
            } else {
                let list: Vec<String> = others.iter().map(named).collect();
                format!("{who} to {} at {at}.", mentions_for_display(&list))
            };
            (header, format!("[Original message]({url})"))
        }
    };
    let quoted = if m.content.chars().count() > REPORT_SNIPPET_LENGTH {
        let suffix = "\n[message truncated]";
        let mut cut: String = m
            .content
            .chars()
            .take(REPORT_SNIPPET_LENGTH - suffix.chars().count())
            .collect();
        cut.push_str(suffix);
        cut
    } else {
        m.content.clone()
    };
    let fence = unused_fence(&quoted);
    let content = format!(
        "{header}\n```quote\n**{reason}**. {description}\n```\n\n{fence} spoiler {original}\n{quoted}\n{fence}"
    );
    let topic = if target.topics_policy == TopicsPolicy::EmptyTopicOnly {
        String::new()
    } else {
        format!("{} moderation", sender.full_name)
    };
    let notifier = bot(tx, NOTIFICATION_BOT)?;
    post(
        tx,
        &notifier,
        in_channel(target, &topic),
        content,
        None,
        realm_url,
    )?;
    Ok(())
}

/// Welcome Bot's message to a new person (administrators also get the guide to moving an
/// organization), and the signup announcement when the realm has a channel for them and the
/// new user is not its first.
pub fn user_joined(tx: &mut WriteTx<'_>, user: &User, first: bool, realm_url: &str) -> Result<()> {
    if let Some(target) = realm_settings::channel_setting(tx, realm_settings::SIGNUP_ANNOUNCEMENTS)?
        && !first
    {
        let notifier = bot(tx, NOTIFICATION_BOT)?;
        let content = format!("{} joined this organization.", mention(user));
        post(
            tx,
            &notifier,
            in_channel(&target, SIGNUPS_TOPIC),
            content,
            None,
            realm_url,
        )?;
    }
    let welcome = bot(tx, WELCOME_BOT)?;
    post(
        tx,
        &welcome,
        NoticeDestination::Direct(vec![user.id]),
        welcome_text(user),
        None,
        realm_url,
    )?;
    Ok(())
}

/// Notification Bot tells `referrer` that `user` signed up with their invitation.
pub fn invitation_accepted(
    tx: &mut WriteTx<'_>,
    referrer: UserId,
    user: &User,
    realm_url: &str,
) -> Result<()> {
    let notifier = bot(tx, NOTIFICATION_BOT)?;
    let content = format!("{} accepted your invitation to join Zulip!", mention(user));
    post(
        tx,
        &notifier,
        NoticeDestination::Direct(vec![referrer]),
        content,
        None,
        realm_url,
    )?;
    Ok(())
}

/// Welcome Bot's second message to a new user: the custom text their invitation carried.
pub fn custom_welcome(
    tx: &mut WriteTx<'_>,
    user: &User,
    text: &str,
    realm_url: &str,
) -> Result<()> {
    let welcome = bot(tx, WELCOME_BOT)?;
    post(
        tx,
        &welcome,
        NoticeDestination::Direct(vec![user.id]),
        text.to_string(),
        None,
        realm_url,
    )?;
    Ok(())
}

/// Welcome Bot's first message to `user`. Upstream links its help centre relative to the
/// server; Outpost serves none, so the links go to zulip.com's.
pub fn welcome_text(user: &User) -> String {
    let mut text = String::from(
        "Hello, and welcome to Zulip!👋\n\nTo learn more, check out our \
         [getting started guide](https://zulip.com/help/getting-started-with-zulip)!",
    );
    if user.role.is_admin() {
        text.push_str(
            " We also have a guide for \
             [moving your organization to Zulip](https://zulip.com/help/moving-to-zulip).",
        );
    }
    text
}

fn post(
    tx: &mut WriteTx<'_>,
    sender: &User,
    destination: NoticeDestination,
    content: String,
    read_by: Option<UserId>,
    realm_url: &str,
) -> Result<MessageId> {
    post_notice(
        tx,
        Notice {
            sender,
            destination,
            content,
            read_by,
        },
        realm_url,
    )
}
