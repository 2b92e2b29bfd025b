//! Missed-message emails, the sending half, as upstream's `handle_missedmessage_emails` makes
//! them: [`deliver_due`] takes every batch due at `now` (recorded by
//! `domain::notifications::email::enqueue`), checks each again (bots, deactivated users,
//! `enable_offline_email_notifications` off, messages read or deleted since: nothing), buckets
//! the messages by conversation (one-to-one direct messages by sender, the rest by recipient and
//! lower-cased topic), and queues one mail per bucket in the outbox, in the commit that removes
//! the rows. [`worker`] runs the pass at the earliest due time.
//!
//! Who is notified at all is the decision's (`domain::notifications`); the SQL is
//! `db::missed_emails`. No HTTP, no SQL text.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use super::{MailContext, escape, unsubscribe};
use crate::db::{
    WriteTx, channels as channels_db, conversations as conversations_db, groups as groups_db,
    messages as messages_db, missed_emails as db, users as users_db,
};
use crate::domain::core::Core;
use crate::domain::{outbox, realm_settings, settings, user_groups};
use crate::error::Result;
use crate::ids::{GroupId, MessageId, UserId};
use crate::mail::Mail;
use crate::markdown::syntax::{dm_fragment, topic_fragment};
use crate::model::{GroupSetting, Message, SettingValue, Trigger, User};

/// The setting that turns missed-message emails off.
const ENABLED: &str = "enable_offline_email_notifications";
const USER_CONTENT: &str = "message_content_in_email_notifications";
const REALM_NAME_POLICY: &str = "realm_name_in_email_notifications_policy";

/// The prefix of resolved topics.
const RESOLVED_PREFIX: &str = "✔ ";

/// When the next batch is due (seconds), if any.
pub async fn next_due(core: &Core) -> Result<Option<i64>> {
    core.db.read(db::next_due).await
}

/// One conversation's messages of a batch.
struct Bucket {
    messages: Vec<(Message, Trigger)>,
    /// Earlier messages shown before a channel mention (not counted as missed).
    context: Vec<Message>,
}

/// How many earlier messages, from how long before, a channel mention is shown with
/// (upstream's `get_context_for_message`).
const CONTEXT_MESSAGES: usize = 10;
const CONTEXT_SECS: i64 = 15 * 60;

fn flag(v: SettingValue) -> bool {
    v == SettingValue::Bool(true)
}

/// Sends every batch due at `now_secs`: the mails go to the outbox in the commit that removes
/// the batch's rows. Returns how many mails were queued.
pub async fn deliver_due(core: &Core, now_secs: i64) -> Result<usize> {
    let ctx = MailContext::new(core);
    core.db
        .write(move |tx| {
            let due = db::due(tx, now_secs)?;
            if due.is_empty() {
                return Ok(0);
            }
            let ids: Vec<i64> = due.iter().map(|p| p.id).collect();
            let mut by_user: BTreeMap<UserId, Vec<Missed>> = BTreeMap::new();
            for p in &due {
                let trigger = Trigger::parse(&p.trigger).unwrap_or(Trigger::Mentioned);
                let list = by_user.entry(p.user_id).or_default();
                if !list.iter().any(|(m, _, _)| *m == p.message_id) {
                    list.push((p.message_id, trigger, p.mentioned_group_id.map(GroupId)));
                }
            }
            let mut queued = 0;
            for (user, missed) in by_user {
                let mails = user_mails(tx, &ctx, user, &missed, now_secs)?;
                for mail in mails {
                    outbox::queue(tx, &mail)?;
                    queued += 1;
                }
            }
            db::delete(tx, &ids)?;
            Ok(queued)
        })
        .await
}

/// What every mail of a user's batch shows: the content (or not), the realm name in the
/// subject, the group mention named.
#[derive(Clone, Copy)]
struct Shown<'a> {
    show_content: bool,
    realm_suffix: bool,
    group: Option<&'a str>,
}

/// A missed message: its id, trigger and the group whose mention triggered it.
type Missed = (MessageId, Trigger, Option<GroupId>);

/// The group mention a batch names, as upstream's `get_mentioned_user_group`: none if any
/// message mentioned the user personally, else the smallest group mentioned (by members, then
/// id).
fn batch_group(tx: &WriteTx<'_>, missed: &[Missed]) -> Result<Option<String>> {
    if missed
        .iter()
        .any(|(_, t, g)| *t == Trigger::Mentioned && g.is_none())
    {
        return Ok(None);
    }
    let mut best: Option<(usize, i64, String)> = None;
    for (_, _, group) in missed {
        let Some(g) = group else { continue };
        let Some(info) = groups_db::get(tx, *g)? else {
            continue;
        };
        let size = user_groups::users_holding(tx, &GroupSetting::Group(*g))?.len();
        if best.as_ref().is_none_or(|b| (size, g.0) < (b.0, b.1)) {
            best = Some((size, g.0, info.name));
        }
    }
    Ok(best.map(|b| b.2))
}

/// The mails of one user's batch (none when the checks say so).
fn user_mails(
    tx: &mut WriteTx<'_>,
    ctx: &MailContext,
    user: UserId,
    missed: &[Missed],
    now: i64,
) -> Result<Vec<Mail>> {
    let Some(me) = users_db::get(tx, user)? else {
        return Ok(Vec::new());
    };
    if me.is_bot || !me.is_active || !flag(settings::value_in(tx, &me, ENABLED)?) {
        return Ok(Vec::new());
    }
    let ids: Vec<MessageId> = missed.iter().map(|(m, _, _)| *m).collect();
    let group = batch_group(tx, missed)?;
    let unread = db::unread_among(tx, user, &ids)?;
    let messages = messages_db::get_many(tx, &unread)?;
    let show_content = realm_settings::flag(tx, realm_settings::MESSAGE_CONTENT_IN_EMAILS)?
        && flag(settings::value_in(tx, &me, USER_CONTENT)?);
    let realm_suffix = matches!(
        settings::value_in(tx, &me, REALM_NAME_POLICY)?,
        SettingValue::Int(2)
    );
    // Buckets: one-to-one direct messages by sender, the rest by recipient and topic.
    let mut buckets: BTreeMap<(i64, i64, String), Bucket> = BTreeMap::new();
    for m in messages {
        if m.sender_id == user {
            continue;
        }
        let trigger = missed
            .iter()
            .find(|(id, _, _)| *id == m.id)
            .map_or(Trigger::Mentioned, |(_, t, _)| *t);
        let key = match (m.channel_id, m.conversation_id) {
            (Some(ch), _) => (0, ch.0, m.topic.to_lowercase()),
            (None, Some(conv)) => {
                if conversations_db::members(tx, conv)?.len() <= 2 {
                    (1, conv.0, m.sender_id.0.to_string())
                } else {
                    (2, conv.0, String::new())
                }
            }
            (None, None) => continue,
        };
        buckets
            .entry(key)
            .or_insert_with(|| Bucket {
                messages: Vec::new(),
                context: Vec::new(),
            })
            .messages
            .push((m, trigger));
    }
    let mut ordered: Vec<Bucket> = buckets.into_values().collect();
    for b in &mut ordered {
        let (first, trigger) = &b.messages[0];
        if let (Some(ch), true) = (first.channel_id, trigger.is_mention()) {
            let ids = db::context_before(
                tx,
                user,
                ch.0,
                &first.topic,
                first.id,
                first.sent_at - CONTEXT_SECS,
                CONTEXT_MESSAGES,
            )?;
            b.context = messages_db::get_many(tx, &ids)?;
        }
    }
    ordered.sort_by_key(|b| b.messages.iter().map(|(m, _)| m.id.0).max());
    let mut out = Vec::new();
    for bucket in ordered {
        let unsubscribe = unsubscribe::make(tx, ctx, user, "missed_messages", now)?;
        out.push(bucket_mail(
            tx,
            ctx,
            &me,
            &bucket,
            &Shown {
                show_content,
                realm_suffix,
                group: group.as_deref(),
            },
            &unsubscribe,
        )?);
    }
    Ok(out)
}

/// "A and B", "A, B, and C", "A, B, and 3 others".
fn names_list(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [a] => a.clone(),
        [a, b] => format!("{a} and {b}"),
        [a, b, c] => format!("{a}, {b}, and {c}"),
        [a, b, rest @ ..] => format!("{a}, {b}, and {} others", rest.len()),
    }
}

fn name_of(tx: &WriteTx<'_>, id: UserId) -> Result<String> {
    Ok(users_db::get_any(tx, id)?.map_or_else(|| "Someone".into(), |u| u.full_name))
}

/// The reason line of a bucket, by its strongest trigger (naming the group when a group
/// mention, not a personal one, brought the batch).
fn reason(trigger: Trigger, group: Option<&str>) -> String {
    if let (Trigger::Mentioned, Some(name)) = (trigger, group) {
        return format!("@{name} was mentioned.");
    }
    match trigger {
        Trigger::DirectMessage => "You have new direct messages.",
        Trigger::Mentioned => "You were mentioned.",
        t if t.is_wildcard() => "Everyone in the conversation was mentioned.",
        Trigger::FollowedTopicEmailNotify | Trigger::FollowedTopicPushNotify => {
            "There are new messages in a topic you follow."
        }
        _ => "There are new messages in a channel you get emails for.",
    }
    .to_string()
}

/// Relative links of rendered content made absolute.
pub(super) fn absolute(html: &str, base: &str) -> String {
    html.replace("href=\"/", &format!("href=\"{base}/"))
        .replace("src=\"/", &format!("src=\"{base}/"))
        .replace("href=\"#", &format!("href=\"{base}/#"))
}

fn bucket_mail(
    tx: &WriteTx<'_>,
    ctx: &MailContext,
    me: &User,
    bucket: &Bucket,
    how: &Shown<'_>,
    unsubscribe: &str,
) -> Result<Mail> {
    let Shown {
        show_content,
        realm_suffix,
        group,
    } = *how;
    let (first, _) = &bucket.messages[0];
    let strongest = Trigger::ALL
        .into_iter()
        .find(|t| bucket.messages.iter().any(|(_, b)| b == t))
        .unwrap_or(Trigger::Mentioned);
    let (conversation, fragment, name_senders) = match (first.channel_id, first.conversation_id) {
        (Some(ch), _) => {
            let channel = channels_db::get(tx, ch)?.map_or_else(String::new, |c| c.name);
            let (resolved, bare) = match first.topic.strip_prefix(RESOLVED_PREFIX) {
                Some(rest) => ("[resolved] ", rest.to_string()),
                None => ("", first.topic.clone()),
            };
            let shown = if bare.is_empty() {
                "general chat"
            } else {
                &bare
            };
            (
                format!("{resolved}#{channel} > {shown}"),
                topic_fragment(ch.0, &channel, &first.topic),
                true,
            )
        }
        (_, Some(conv)) => {
            let members = conversations_db::members(tx, conv)?;
            let others: Vec<UserId> = members.iter().copied().filter(|u| *u != me.id).collect();
            if others.len() <= 1 {
                let sender = name_of(tx, first.sender_id)?;
                (
                    format!("DMs with {sender}"),
                    dm_fragment(&[first.sender_id.0], Some(&sender)),
                    false,
                )
            } else {
                let mut names = Vec::new();
                for u in &others {
                    names.push(name_of(tx, *u)?);
                }
                let ids: Vec<i64> = members.iter().map(|u| u.0).collect();
                (
                    format!("Group DMs with {}", names_list(&names)),
                    dm_fragment(&ids, None),
                    true,
                )
            }
        }
        _ => (String::new(), String::new(), false),
    };
    let mut subject = if show_content {
        conversation.clone()
    } else {
        "New messages".to_string()
    };
    if realm_suffix {
        subject.push_str(&format!(" [{}]", ctx.realm_name));
    }
    let link = format!("{}/{fragment}", ctx.external_url);
    let settings_link = format!("{}/#settings/notifications", ctx.external_url);
    let count = bucket.messages.len();
    let why = reason(strongest, group);
    let mut text = format!("{why}\n\n");
    let mut html = format!("<p>{}</p>", escape(&why));
    if show_content {
        text.push_str(&format!("{conversation}\n\n"));
        html.push_str(&format!(
            "<h3><a href=\"{}\">{}</a></h3>",
            escape(&link),
            escape(&conversation)
        ));
        let shown = bucket
            .context
            .iter()
            .chain(bucket.messages.iter().map(|(m, _)| m));
        for m in shown {
            let sender = name_of(tx, m.sender_id)?;
            if name_senders {
                text.push_str(&format!("{sender}:\n"));
                html.push_str(&format!("<p><b>{}</b>:</p>", escape(&sender)));
            }
            for line in m.content.lines() {
                text.push_str(&format!("> {line}\n"));
            }
            text.push('\n');
            html.push_str(&format!(
                "<div class=\"message_content\">{}</div>",
                absolute(&m.rendered_content, &ctx.external_url)
            ));
        }
        text.push_str(&format!("Reply in {}: {link}\n", ctx.realm_name));
        html.push_str(&format!(
            "<p><a href=\"{}\">Reply in {}</a></p>",
            escape(&link),
            escape(&ctx.realm_name)
        ));
    } else {
        let noun = if count == 1 { "message" } else { "messages" };
        text.push_str(&format!(
            "You have {count} new {noun}. Open {} to read them: {link}\n",
            ctx.realm_name
        ));
        html.push_str(&format!(
            "<p>You have {count} new {noun}. <a href=\"{}\">Open {}</a> to read them.</p>",
            escape(&link),
            escape(&ctx.realm_name)
        ));
    }
    text.push_str(&format!(
        "\nManage your email notifications: {settings_link}\nUnsubscribe: {unsubscribe}\n"
    ));
    html.push_str(&format!(
        "<p><a href=\"{}\">Manage your email notifications</a> · \
         <a href=\"{}\">Unsubscribe</a></p>",
        escape(&settings_link),
        escape(unsubscribe)
    ));
    let mut headers = ctx.common_headers();
    headers.push(("List-Unsubscribe".into(), format!("<{unsubscribe}>")));
    headers.push((
        "List-Unsubscribe-Post".into(),
        "List-Unsubscribe=One-Click".into(),
    ));
    Ok(Mail {
        to: me.email.clone(),
        from: ctx.notifications_from.clone(),
        subject,
        text,
        html: Some(html),
        headers,
        link: String::new(),
    })
}

/// Most time between passes when nothing is due (a queued row wakes the worker at once).
const IDLE: Duration = Duration::from_secs(600);

/// Runs [`deliver_due`] at every batch's time until the server stops. Reads the clock and
/// passes it on; a failed pass is retried after a short wait.
pub async fn worker(core: Arc<Core>, mut stop: tokio::sync::watch::Receiver<bool>) {
    loop {
        if *stop.borrow() {
            return;
        }
        let now = crate::time::now_secs();
        let wait = match deliver_due(&core, now).await {
            Ok(_) => match next_due(&core).await {
                Ok(Some(at)) => {
                    Duration::from_secs((at - crate::time::now_secs()).clamp(0, 600) as u64)
                        + Duration::from_millis(5)
                }
                Ok(None) => IDLE,
                Err(_) => Duration::from_secs(5),
            },
            Err(e) => {
                tracing::error!(error = %e.msg, "missed-message email pass failed; retrying");
                Duration::from_secs(5)
            }
        };
        tokio::select! {
            _ = core.missed_email_wake.notified() => {}
            _ = stop.changed() => {}
            _ = tokio::time::sleep(wait) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_listed_as_upstream_lists_them() {
        let n = |v: &[&str]| names_list(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(n(&["A", "B"]), "A and B");
        assert_eq!(n(&["A", "B", "C"]), "A, B, and C");
        assert_eq!(n(&["A", "B", "C", "D", "E"]), "A, B, and 3 others");
    }

    #[test]
    fn relative_links_become_absolute() {
        assert_eq!(
            absolute(
                "<a href=\"/user_uploads/1/x\">x</a><a href=\"#narrow/x\">",
                "http://h"
            ),
            "<a href=\"http://h/user_uploads/1/x\">x</a><a href=\"http://h/#narrow/x\">"
        );
    }
}
