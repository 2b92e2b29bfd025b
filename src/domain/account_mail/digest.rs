//! The weekly digest email, as upstream's `zerver/lib/digest.py` makes it: on the organization's
//! digest day (`digest_emails_enabled` on and today's weekday, in UTC, `digest_weekday`), every
//! active human with `enable_digest_emails` on who was not active in the last 5 days and got no
//! digest in the last 12 hours gets one mail: the "hot conversations" of their unmuted
//! subscriptions since then (the 2 topics with most human senders, then up to 4 by human
//! messages; 2 sample messages each and how many more) and the channels created since then that
//! they can see (public ones; web-public ones for guests). Nothing to tell: no mail.
//!
//! [`run_pass`] does one pass at a given `now` (tests call it directly); [`worker`] runs it at
//! start and then once an hour. Upstream's cron runs the pass once a day at a time we do not
//! know; we run it hourly, and the 12 hour guard (widened to the start of the UTC day, so a user
//! gets at most one a day) keeps a user from getting two. Users are taken a chunk at a time; the
//! topics' traffic is read once a pass, capped per channel; each mail goes to the outbox in the
//! commit that records it sent.
//!
//! Deviations: upstream leaves out subscriptions whose state changed since the cutoff; Outpost
//! keeps no subscription change times, so only subscriptions begun during the window (their
//! period starts after the channel's first message in it) are left out, mute changes are not
//! seen. Muted topics are left out too.
//!
//! The activity it reads is written by `domain::presence::record_activity`; the SQL is
//! `db::digest_emails`. No HTTP, no SQL text, no wire JSON.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::missed::absolute;
use super::{MailContext, escape, unsubscribe};
use crate::db::{digest_emails as db, messages as messages_db, users as users_db};
use crate::domain::core::Core;
use crate::domain::{outbox, realm_settings, settings};
use crate::error::Result;
use crate::ids::{ChannelId, UserId};
use crate::mail::Mail;
use crate::markdown::syntax::{channel_fragment, topic_fragment};
use crate::model::{Role, SettingValue, User};

/// The personal setting that turns digests off (and the unsubscribe link's type).
pub const ENABLED: &str = "enable_digest_emails";
const EMAIL_TYPE: &str = "digest";
/// Users active more recently than this get no digest; it also is the window the digest covers.
pub const INACTIVE_SECS: i64 = 5 * 86_400;
/// No second digest within this time of the last.
pub const GUARD_SECS: i64 = 12 * 3600;
/// Users handled per read and per commit.
const CHUNK: usize = 100;
/// Hot conversations shown, of them chosen by distinct senders, and sample messages each.
const HOT_TOPICS: usize = 4;
const HOT_BY_SENDERS: usize = 2;
const SAMPLES: usize = 2;
/// Per channel, the topics kept from the traffic read (enough for a user who muted a few).
const KEEP_BY_SENDERS: usize = 4;
const KEEP_BY_MESSAGES: usize = 8;

/// Whether digests are really sent by this server (outgoing mail is configured):
/// `settings_send_digest_emails`.
pub fn sent_here(core: &Core) -> bool {
    core.mailer.enabled()
}

/// The weekday of a UNIX time in UTC, 0 = Monday … 6 = Sunday (1970-01-01 was a Thursday).
pub fn weekday(now: i64) -> i64 {
    (now.div_euclid(86_400) + 3).rem_euclid(7)
}

/// One sample message of a hot conversation.
#[derive(Clone, Debug)]
struct Sample {
    sender: String,
    content: String,
    rendered: String,
}

/// A hot conversation as a user's digest shows it.
#[derive(Clone, Debug)]
struct Hot {
    channel: ChannelId,
    channel_name: String,
    topic: String,
    samples: Vec<Sample>,
    more: i64,
}

/// What one user's digest says.
struct Content {
    user: User,
    hot: Vec<Hot>,
    new_channels: Vec<(ChannelId, String)>,
}

/// What a pass reads once for every user.
struct Pass {
    cutoff: i64,
    topics: HashMap<ChannelId, Vec<db::TopicTraffic>>,
    names: HashMap<ChannelId, String>,
    /// (id, name, invite-only, web-public) of the channels created since the cutoff.
    new_channels: Vec<(ChannelId, String, bool, bool)>,
    /// Sample messages by (channel, ASCII-lower-cased topic), read once a pass.
    samples: Mutex<HashMap<(ChannelId, String), Vec<Sample>>>,
}

impl Pass {
    fn load(c: &rusqlite::Connection, cutoff: i64) -> Result<Pass> {
        let mut topics: HashMap<ChannelId, Vec<db::TopicTraffic>> = HashMap::new();
        for t in db::busiest_topics(c, cutoff, KEEP_BY_SENDERS, KEEP_BY_MESSAGES)? {
            topics.entry(t.channel_id).or_default().push(t);
        }
        let names = crate::db::channels::all(c)?
            .into_iter()
            .map(|ch| (ch.id, ch.name))
            .collect();
        Ok(Pass {
            cutoff,
            topics,
            names,
            new_channels: db::channels_created_since(c, cutoff)?,
            samples: Mutex::default(),
        })
    }

    fn samples(&self, c: &rusqlite::Connection, ch: ChannelId, topic: &str) -> Result<Vec<Sample>> {
        let key = (ch, topic.to_ascii_lowercase());
        if let Some(s) = self.samples.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return Ok(s);
        }
        let ids = db::first_messages(c, ch, topic, self.cutoff, SAMPLES)?;
        let mut out = Vec::new();
        for m in messages_db::get_many(c, &ids)? {
            let sender = users_db::get_any(c, m.sender_id)?
                .map_or_else(|| "Someone".to_string(), |u| u.full_name);
            out.push(Sample {
                sender,
                content: m.content,
                rendered: m.rendered_content,
            });
        }
        if let Ok(mut map) = self.samples.lock() {
            map.insert(key, out.clone());
        }
        Ok(out)
    }

    /// The user's digest, if they should get one (still eligible, something to tell).
    fn content(&self, c: &rusqlite::Connection, id: UserId) -> Result<Option<Content>> {
        let Some(user) = users_db::get(c, id)? else {
            return Ok(None);
        };
        if user.is_bot
            || !user.is_active
            || settings::value_in(c, &user, ENABLED)? != SettingValue::Bool(true)
        {
            return Ok(None);
        }
        let muted: HashSet<(ChannelId, String)> = db::muted_topics(c, id)?
            .into_iter()
            .map(|(ch, t)| (ch, t.to_ascii_lowercase()))
            .collect();
        let mut candidates: Vec<&db::TopicTraffic> = Vec::new();
        for (ch, subscribed_from) in db::unmuted_subscriptions(c, id)? {
            let Some(list) = self.topics.get(&ch) else {
                continue;
            };
            // Subscribed during the window: upstream leaves such subscriptions out.
            if list
                .first()
                .is_some_and(|t| subscribed_from > t.channel_first_id)
            {
                continue;
            }
            candidates.extend(
                list.iter()
                    .filter(|t| !muted.contains(&(ch, t.topic.to_ascii_lowercase()))),
            );
        }
        let mut hot = Vec::new();
        for t in pick_hot(candidates) {
            let samples = self.samples(c, t.channel_id, &t.topic)?;
            hot.push(Hot {
                channel: t.channel_id,
                channel_name: self.names.get(&t.channel_id).cloned().unwrap_or_default(),
                topic: t.topic.clone(),
                more: (t.messages - samples.len() as i64).max(0),
                samples,
            });
        }
        let guest = user.role == Role::Guest;
        let new_channels: Vec<(ChannelId, String)> = self
            .new_channels
            .iter()
            .filter(
                |(_, _, invite_only, web_public)| {
                    if guest { *web_public } else { !*invite_only }
                },
            )
            .map(|(id, name, _, _)| (*id, name.clone()))
            .collect();
        if hot.is_empty() && new_channels.is_empty() {
            return Ok(None);
        }
        Ok(Some(Content {
            user,
            hot,
            new_channels,
        }))
    }
}

/// Upstream's choice: the [`HOT_BY_SENDERS`] topics with most distinct senders, then the
/// busiest by messages up to [`HOT_TOPICS`] (ties: the newer topic first).
fn pick_hot(mut candidates: Vec<&db::TopicTraffic>) -> Vec<&db::TopicTraffic> {
    candidates.sort_by_key(|t| (-t.senders, -t.messages, -t.newest_id));
    let mut chosen: Vec<&db::TopicTraffic> =
        candidates.iter().take(HOT_BY_SENDERS).copied().collect();
    let mut rest: Vec<&db::TopicTraffic> =
        candidates.iter().skip(HOT_BY_SENDERS).copied().collect();
    rest.sort_by_key(|t| (-t.messages, -t.senders, -t.newest_id));
    chosen.extend(
        rest.into_iter()
            .take(HOT_TOPICS - chosen.len().min(HOT_TOPICS)),
    );
    chosen
}

/// One digest pass at `now` (seconds): queues the digests due and returns how many.
pub async fn run_pass(core: &Core, now: i64) -> Result<usize> {
    if !sent_here(core) {
        return Ok(0);
    }
    let (enabled, day) = core
        .db
        .read(|c| {
            Ok((
                realm_settings::flag(c, realm_settings::DIGEST_EMAILS_ENABLED)?,
                realm_settings::int_setting(c, realm_settings::DIGEST_WEEKDAY)?,
            ))
        })
        .await?;
    if !enabled || weekday(now) != day {
        return Ok(0);
    }
    let cutoff = now - INACTIVE_SECS;
    let sent_before = (now - GUARD_SECS).min(now - now.rem_euclid(86_400));
    let pass = Arc::new(core.db.read(move |c| Pass::load(c, cutoff)).await?);
    let ctx = MailContext::new(core);
    let mut after = UserId(0);
    let mut queued = 0;
    loop {
        let p = Arc::clone(&pass);
        let (last, contents) = core
            .db
            .read(move |c| {
                let ids = db::candidates(c, ENABLED, cutoff, sent_before, after, CHUNK)?;
                let mut out = Vec::new();
                for id in &ids {
                    if let Some(content) = p.content(c, *id)? {
                        out.push(content);
                    }
                }
                Ok((ids.last().copied(), out))
            })
            .await?;
        let Some(last) = last else {
            break;
        };
        after = last;
        if contents.is_empty() {
            continue;
        }
        let ctx = ctx.clone();
        queued += core
            .db
            .write(move |tx| {
                let mut n = 0;
                for content in contents {
                    // Another pass may have sent it meanwhile.
                    if db::last_sent(tx, content.user.id)? >= sent_before {
                        continue;
                    }
                    let link = unsubscribe::make(tx, &ctx, content.user.id, EMAIL_TYPE, now)?;
                    outbox::queue(tx, &mail(&ctx, &content, &link))?;
                    db::mark_sent(tx, content.user.id, now)?;
                    n += 1;
                }
                Ok(n)
            })
            .await?;
    }
    Ok(queued)
}

fn plural(n: i64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn topic_title(h: &Hot) -> String {
    let shown = if h.topic.is_empty() {
        "general chat"
    } else {
        &h.topic
    };
    format!("#{} > {shown}", h.channel_name)
}

/// The digest mail: both parts, the digest sender, the unsubscribe headers.
fn mail(ctx: &MailContext, content: &Content, unsubscribe: &str) -> Mail {
    let base = &ctx.external_url;
    let realm = &ctx.realm_name;
    let settings_link = format!("{base}/#settings/notifications");
    let mut text = format!(
        "Hello {},\n\nHere is what happened in {realm} while you were away.\n",
        content.user.full_name
    );
    let mut html = format!(
        "<p>Hello {},</p><p>Here is what happened in {} while you were away.</p>",
        escape(&content.user.full_name),
        escape(realm)
    );
    if !content.hot.is_empty() {
        text.push_str("\nHot conversations\n");
        html.push_str("<h2>Hot conversations</h2>");
        for h in &content.hot {
            let link = format!(
                "{base}/{}",
                topic_fragment(h.channel.0, &h.channel_name, &h.topic)
            );
            let title = topic_title(h);
            text.push_str(&format!("\n{title}\n"));
            html.push_str(&format!(
                "<h3><a href=\"{}\">{}</a></h3>",
                escape(&link),
                escape(&title)
            ));
            for s in &h.samples {
                text.push_str(&format!("{}:\n", s.sender));
                for line in s.content.lines() {
                    text.push_str(&format!("> {line}\n"));
                }
                html.push_str(&format!(
                    "<p><b>{}</b>:</p><div class=\"message_content\">{}</div>",
                    escape(&s.sender),
                    absolute(&s.rendered, base)
                ));
            }
            if h.more > 0 {
                let more = plural(h.more, "more message", "more messages");
                text.push_str(&format!("{more}\n"));
                html.push_str(&format!("<p>{more}</p>"));
            }
            text.push_str(&format!("Open the conversation: {link}\n"));
        }
    }
    if !content.new_channels.is_empty() {
        text.push_str("\nNew channels\n\n");
        html.push_str("<h2>New channels</h2><ul>");
        for (id, name) in &content.new_channels {
            let link = format!("{base}/{}", channel_fragment(id.0, name));
            text.push_str(&format!("#{name}: {link}\n"));
            html.push_str(&format!(
                "<li><a href=\"{}\">#{}</a></li>",
                escape(&link),
                escape(name)
            ));
        }
        html.push_str("</ul>");
    }
    text.push_str(&format!(
        "\nManage your email settings: {settings_link}\nUnsubscribe from digest emails: {unsubscribe}\n"
    ));
    html.push_str(&format!(
        "<p><a href=\"{}\">Manage your email settings</a> · \
         <a href=\"{}\">Unsubscribe from digest emails</a></p>",
        escape(&settings_link),
        escape(unsubscribe)
    ));
    let mut headers = ctx.common_headers();
    headers.push(("List-Unsubscribe".into(), format!("<{unsubscribe}>")));
    headers.push((
        "List-Unsubscribe-Post".into(),
        "List-Unsubscribe=One-Click".into(),
    ));
    Mail {
        to: content.user.email.clone(),
        from: ctx.digest_from.clone(),
        subject: format!("Zulip digest for {realm}"),
        text,
        html: Some(html),
        headers,
        link: String::new(),
    }
}

/// Time between passes.
const PERIOD: Duration = Duration::from_secs(3600);

/// Runs [`run_pass`] at start and then once an hour until the server stops. Reads the clock
/// and passes it on; a failed pass is logged and tried again at the next hour.
pub async fn worker(core: Arc<Core>, mut stop: tokio::sync::watch::Receiver<bool>) {
    loop {
        if *stop.borrow() {
            return;
        }
        match run_pass(&core, crate::time::now_secs()).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(queued = n, "digest emails queued"),
            Err(e) => tracing::error!(error = %e.msg, "digest email pass failed"),
        }
        tokio::select! {
            _ = stop.changed() => {}
            _ = tokio::time::sleep(PERIOD) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weekdays_count_from_monday() {
        assert_eq!(weekday(0), 3, "1970-01-01 was a Thursday");
        // 2024-01-01 00:00 UTC was a Monday; 2024-01-07 23:59 a Sunday.
        assert_eq!(weekday(1_704_067_200), 0);
        assert_eq!(weekday(1_704_067_200 + 7 * 86_400 - 1), 6);
    }

    fn traffic(senders: i64, messages: i64, newest_id: i64) -> db::TopicTraffic {
        db::TopicTraffic {
            channel_id: ChannelId(1),
            topic: format!("t{newest_id}"),
            senders,
            messages,
            newest_id,
            channel_first_id: 1,
        }
    }

    #[test]
    fn hot_topics_are_two_by_senders_then_by_messages() {
        let all = [
            traffic(5, 5, 1),
            traffic(1, 50, 2),
            traffic(4, 4, 3),
            traffic(3, 30, 4),
            traffic(2, 2, 5),
            traffic(1, 40, 6),
        ];
        let picked: Vec<i64> = pick_hot(all.iter().collect())
            .iter()
            .map(|t| t.newest_id)
            .collect();
        assert_eq!(picked, [1, 3, 2, 6]);
        assert_eq!(pick_hot(vec![&all[0]]).len(), 1);
    }
}
