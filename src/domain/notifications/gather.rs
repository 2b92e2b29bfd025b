//! Gathering a message's notification candidates inside the commit that stores it, deciding
//! for each (`notifications::decide`) and writing the jobs in that same commit, so a restart
//! never loses one. Only users who could be notified are read: the direct message's members,
//! the mentioned, a wildcard's audience, the topic's followers and those with channel
//! notifications on; a plain channel message to a large channel costs two indexed reads.
//! No SQL text, no HTTP.

use std::collections::{BTreeSet, HashMap};

use rusqlite::Connection;

use super::decide::{Decision, NotifySettings, Recipient, SubscriptionNotify, TopicPolicy, decide};
use crate::db::{WriteTx, channels as channels_db, notifications as db, topics as topics_db};
use crate::error::Result;
use crate::events::Event;
use crate::ids::{ChannelId, GroupId, MessageId, UserId};

/// The personal settings the decision reads, in [`NotifySettings`] field order.
const SETTING_NAMES: [&str; 9] = [
    "enable_offline_push_notifications",
    "enable_offline_email_notifications",
    "enable_online_push_notifications",
    "enable_stream_push_notifications",
    "enable_stream_email_notifications",
    "wildcard_mentions_notify",
    "enable_followed_topic_push_notifications",
    "enable_followed_topic_email_notifications",
    "enable_followed_topic_wildcard_mentions_notify",
];

/// What the send path knows about a stored message.
pub struct SentFacts<'a> {
    pub message: MessageId,
    pub sender: UserId,
    pub channel: Option<ChannelId>,
    pub topic: &'a str,
    /// Direct-message participants (sorted), for a direct message.
    pub dm_members: Option<&'a [UserId]>,
    pub stream_wildcard: bool,
    pub topic_wildcard: bool,
    /// Recipients mentioned personally or through a group.
    pub mentioned: Vec<UserId>,
    /// Recipients mentioned only through groups: the smallest such group.
    pub group_of: HashMap<UserId, GroupId>,
    /// Whether the message may notify outside the app at all (upstream's
    /// `disable_external_notifications` turned around).
    pub external: bool,
}

/// Reads one user's notification settings.
pub fn settings_of(c: &Connection, user: UserId) -> Result<NotifySettings> {
    let v = crate::domain::settings::flags_in(c, user, &SETTING_NAMES)?;
    Ok(NotifySettings {
        offline_push: v[0],
        offline_email: v[1],
        online_push: v[2],
        stream_push: v[3],
        stream_email: v[4],
        wildcard_mentions_notify: v[5],
        followed_topic_push: v[6],
        followed_topic_email: v[7],
        followed_topic_wildcard: v[8],
    })
}

/// The users who might be notified of the message, the sender excluded.
fn candidates(c: &Connection, f: &SentFacts<'_>) -> Result<(BTreeSet<UserId>, BTreeSet<UserId>)> {
    let mut out: BTreeSet<UserId> = f.mentioned.iter().copied().collect();
    let mut topic_wildcard_users = BTreeSet::new();
    if let Some(members) = f.dm_members {
        out.extend(members.iter().copied());
    }
    if let Some(ch) = f.channel {
        let subscribers: Option<BTreeSet<UserId>> = if f.stream_wildcard || f.topic_wildcard {
            Some(channels_db::subscriber_ids(c, ch)?.into_iter().collect())
        } else {
            None
        };
        if let Some(subs) = &subscribers {
            if f.stream_wildcard {
                out.extend(subs.iter().copied());
            }
            if f.topic_wildcard {
                let mut participants: BTreeSet<UserId> =
                    topics_db::senders_upto(c, ch, f.topic, f.message)?
                        .into_iter()
                        .collect();
                participants.extend(db::topic_reactors(c, ch, f.topic, f.message)?);
                topic_wildcard_users = participants.intersection(subs).copied().collect();
                out.extend(topic_wildcard_users.iter().copied());
            }
        }
        let on = crate::domain::settings::stored_true();
        out.extend(db::topic_followers(c, ch, f.topic)?);
        out.extend(db::channel_notify_candidates(
            c,
            ch,
            "enable_stream_push_notifications",
            "enable_stream_email_notifications",
            &on,
        )?);
    }
    out.remove(&f.sender);
    Ok((out, topic_wildcard_users))
}

/// Decides for every candidate and writes their jobs; returns how many were written.
pub fn enqueue_for_send(tx: &mut WriteTx<'_>, f: &SentFacts<'_>, now_ms: i64) -> Result<usize> {
    if !f.external {
        return Ok(0);
    }
    let (users, topic_wildcard_users) = candidates(tx, f)?;
    if users.is_empty() {
        return Ok(0);
    }
    let ids: Vec<UserId> = users.iter().copied().collect();
    let people = crate::db::users::get_many(tx, &ids)?;
    let mentioned: BTreeSet<UserId> = f.mentioned.iter().copied().collect();
    let mut written = 0;
    for user in ids {
        let Some(person) = people.get(&user) else {
            continue;
        };
        if !person.is_active {
            continue;
        }
        let mut r = recipient_for(tx, user, f.channel, f.topic, f.sender, person.is_bot)?;
        if f.channel.is_some() && r.subscription.is_none() && !mentioned.contains(&user) {
            continue;
        }
        r.direct = f.dm_members.is_some();
        r.mentioned = mentioned.contains(&user);
        r.stream_wildcard = f.stream_wildcard && r.subscription.is_some();
        r.topic_wildcard = topic_wildcard_users.contains(&user);
        let d = decide(&r);
        if d.is_empty() {
            continue;
        }
        write_job(
            tx,
            user,
            f.message,
            d,
            f.group_of.get(&user).copied(),
            now_ms,
        )?;
        written += 1;
    }
    if written > 0 {
        tx.emit(Event::NotificationsQueued);
    }
    Ok(written)
}

/// What the decision needs of `user` for a message in `channel` (and `topic`) from `sender`,
/// with every trigger off: the callers set the ones the message has.
fn recipient_for(
    tx: &Connection,
    user: UserId,
    channel: Option<ChannelId>,
    topic: &str,
    sender: UserId,
    is_bot: bool,
) -> Result<Recipient> {
    let (subscription, topic_policy) = match channel {
        Some(ch) => (
            channels_db::subscription(tx, user, ch)?
                .filter(|s| s.active)
                .map(|s| SubscriptionNotify {
                    is_muted: s.is_muted,
                    push: s.push_notifications,
                    email: s.email_notifications,
                    wildcard_mentions_notify: s.wildcard_mentions_notify,
                }),
            TopicPolicy::from_stored(topics_db::visibility_policy(tx, user, ch, topic)?),
        ),
        None => (None, TopicPolicy::Inherit),
    };
    Ok(Recipient {
        direct: false,
        mentioned: false,
        stream_wildcard: false,
        topic_wildcard: false,
        settings: settings_of(tx, user)?,
        subscription,
        topic_policy,
        muted_sender: crate::db::user_records::is_muted(tx, user, sender)?,
        acting: false,
        is_bot,
        push_device: crate::domain::push::has_push_devices(tx, user)?,
    })
}

fn write_job(
    c: &Connection,
    user: UserId,
    message: MessageId,
    d: Decision,
    group: Option<GroupId>,
    now_ms: i64,
) -> Result<()> {
    db::insert_job(
        c,
        &db::JobRow {
            id: 0,
            user_id: user,
            message_id: message,
            push_trigger: d.push.map(|t| t.as_str().to_string()),
            online_push: d.online_push,
            email_trigger: d.email.map(|t| t.as_str().to_string()),
            mentioned_group_id: group.map(|g| g.0),
            stage: 0,
            attempts: 0,
        },
        now_ms,
    )
}

/// Notifications for users a content edit newly mentions in a channel message, as upstream
/// sends them: not to the acting user (the sender), not to those the message already
/// notified through channel or followed-topic settings, and naming no group. Returns how many
/// jobs were written.
pub fn enqueue_for_edit(
    tx: &mut WriteTx<'_>,
    m: &crate::model::Message,
    acting: UserId,
    newly_mentioned: &[UserId],
    now_ms: i64,
) -> Result<usize> {
    let Some(ch) = m.channel_id else {
        return Ok(0);
    };
    let ids: Vec<UserId> = newly_mentioned
        .iter()
        .copied()
        .filter(|u| *u != acting)
        .collect();
    let people = crate::db::users::get_many(tx, &ids)?;
    let mut written = 0;
    for user in ids {
        let Some(person) = people.get(&user).filter(|p| p.is_active) else {
            continue;
        };
        let mut r = recipient_for(tx, user, Some(ch), &m.topic, m.sender_id, person.is_bot)?;
        if r.subscription.is_none() {
            continue;
        }
        // Already notified by the message itself.
        if !decide(&r).is_empty() {
            continue;
        }
        r.mentioned = true;
        let d = decide(&r);
        if d.is_empty() {
            continue;
        }
        write_job(tx, user, m.id, d, None, now_ms)?;
        written += 1;
    }
    if written > 0 {
        tx.emit(Event::NotificationsQueued);
    }
    Ok(written)
}
