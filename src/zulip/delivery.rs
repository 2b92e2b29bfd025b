//! Delivery: turns committed domain events into Zulip wire events and appends them to the
//! event queues of the users who may see them, filtered by each queue's options.
//!
//! Runs as one task consuming the hub's pipeline, so queues receive events in commit order.
//! Each wire event is serialized once per distinct shape (for messages: per rendering variant)
//! and the same text is shared by every queue it goes to.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use rusqlite::Connection;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::app::AppState;
use crate::db::{channels as channels_db, messages as messages_db, users as users_db};
use crate::domain::channels as channels_domain;
use crate::domain::emails;
use crate::domain::messages::fetch::{self, Bundle, Viewed};
use crate::domain::settings::{self, Legacy, SettingValue};
use crate::error::Result;
use crate::events::queues::{EventJson, Queue, Queues};
use crate::events::{ContentEdit, Event, MessageMove, PersonChange, TypingTarget};
use crate::ids::{ChannelId, MessageId, UserId};
use crate::model::{User, flags as bits, wildcard};

use super::wire::{self, MessageOptions, Viewer};

/// Consumes the hub's pipeline until the server stops.
pub async fn run(state: Arc<AppState>, mut rx: mpsc::UnboundedReceiver<(u64, Arc<Event>)>) {
    let mut stopping = state.stopping.subscribe();
    loop {
        let next = tokio::select! {
            next = rx.recv() => next,
            _ = stopping.wait_for(|s| *s) => None,
        };
        let Some((seq, event)) = next else { return };
        if let Err(e) = deliver(&state, seq, &event).await {
            tracing::error!(error = %e, ?event, "could not deliver an event");
        }
    }
}

/// Serializes an event object without its closing brace (the queue appends the id).
pub fn event_json(v: &Value) -> EventJson {
    let s = v.to_string();
    Arc::from(&s[..s.len() - 1])
}

/// Pushes one shared event to every queue of `users` that wants its type.
fn push_to_users(
    state: &AppState,
    seq: u64,
    users: Option<&[UserId]>,
    event_type: &str,
    body: &Value,
) {
    let queues = state.queues.of_users(seq, users);
    let wanted: Vec<_> = queues
        .iter()
        .filter(|q| q.options.wants(event_type))
        .collect();
    if wanted.is_empty() {
        return;
    }
    let json = event_json(body);
    for q in wanted {
        state.queues.push(q, Arc::clone(&json));
    }
}

async fn deliver(state: &AppState, seq: u64, event: &Event) -> Result<()> {
    // No queue, nobody to tell; queues registered later only get later events.
    if state.queues.is_empty() {
        return Ok(());
    }
    match event {
        Event::MessageSent { message_id, local } => {
            deliver_message(state, seq, *message_id, local.clone()).await
        }
        Event::MessageUpdated {
            message_id,
            message_ids,
            edited_by,
            edited_at,
            content_edit,
            moved,
        } => {
            let update = Update {
                message_id: *message_id,
                message_ids,
                edited_by: *edited_by,
                edited_at: *edited_at,
                content_edit: content_edit.as_ref(),
                moved: moved.as_ref(),
            };
            deliver_update(state, seq, update).await
        }
        Event::MessagesDeleted {
            message_ids,
            channel_id,
            topic,
            dm_members,
        } => deliver_delete(state, seq, message_ids, *channel_id, topic, dm_members).await,
        Event::SubmessageAdded {
            message_id,
            submessage_id,
            sender_id,
            msg_type,
            content,
        } => {
            let mid = *message_id;
            let recipients = state.db.read(move |c| message_audience(c, mid)).await?;
            let body = json!({
                "type": "submessage",
                "msg_type": msg_type,
                "message_id": message_id.0,
                "submessage_id": submessage_id,
                "sender_id": sender_id.0,
                "content": content,
            });
            push_to_users(state, seq, Some(&recipients), "submessage", &body);
            Ok(())
        }
        Event::ReactionChanged {
            message_id,
            user_id,
            add,
            emoji_name,
            emoji_code,
            reaction_type,
        } => {
            let (mid, uid) = (*message_id, *user_id);
            let (recipients, user) = state
                .db
                .read(move |c| Ok((message_audience(c, mid)?, users_db::get_any(c, uid)?)))
                .await?;
            let Some(user) = user else { return Ok(()) };
            let body = json!({
                "type": "reaction",
                "op": if *add { "add" } else { "remove" },
                "user_id": user.id.0,
                "user": {
                    "user_id": user.id.0,
                    "email": wire::api_email(&user, state.config.realm_host()),
                    "full_name": user.full_name,
                },
                "message_id": message_id.0,
                "emoji_name": emoji_name,
                "emoji_code": emoji_code,
                "reaction_type": reaction_type,
            });
            push_to_users(state, seq, Some(&recipients), "reaction", &body);
            Ok(())
        }
        Event::FlagsChanged {
            user_id,
            flag,
            add,
            message_ids,
            all,
        } => {
            let op = if *add { "add" } else { "remove" };
            let mut body = json!({
                "type": "update_message_flags",
                "op": op,
                "operation": op,
                "flag": flag,
                "messages": message_ids.iter().map(|m| m.0).collect::<Vec<_>>(),
                "all": all,
            });
            if !*add && *flag == "read" {
                let ids = message_ids.clone();
                let details = state.db.read(move |c| message_details(c, &ids)).await?;
                body["message_details"] = details;
            }
            push_to_users(state, seq, Some(&[*user_id]), "update_message_flags", &body);
            Ok(())
        }
        Event::UserTopicChanged {
            user_id,
            channel_id,
            topic,
            visibility_policy,
        } => {
            let body = json!({
                "type": "user_topic",
                "stream_id": channel_id.0,
                "topic_name": topic,
                "last_updated": crate::time::now_secs(),
                "visibility_policy": visibility_policy,
            });
            push_to_users(state, seq, Some(&[*user_id]), "user_topic", &body);
            Ok(())
        }
        Event::Subscribed {
            user_id,
            channel_id,
        }
        | Event::Unsubscribed {
            user_id,
            channel_id,
        } => {
            let added = matches!(event, Event::Subscribed { .. });
            deliver_subscription(state, seq, *user_id, *channel_id, added).await
        }
        Event::SubscriptionPropertyChanged {
            user_id,
            channel_id,
            property,
        } => {
            let (uid, ch) = (*user_id, *channel_id);
            let sub = state
                .db
                .read(move |c| channels_db::subscription(c, uid, ch))
                .await?;
            let Some(sub) = sub else { return Ok(()) };
            let value = match property.as_str() {
                "color" => json!(sub.color),
                "is_muted" => json!(sub.is_muted),
                "in_home_view" => json!(!sub.is_muted),
                "pin_to_top" => json!(sub.pin_to_top),
                "desktop_notifications" => json!(sub.desktop_notifications),
                "audible_notifications" => json!(sub.audible_notifications),
                "push_notifications" => json!(sub.push_notifications),
                "email_notifications" => json!(sub.email_notifications),
                "wildcard_mentions_notify" => json!(sub.wildcard_mentions_notify),
                _ => return Ok(()),
            };
            let body = json!({
                "type": "subscription",
                "op": "update",
                "stream_id": ch.0,
                "property": property,
                "value": value,
            });
            push_to_users(state, seq, Some(&[uid]), "subscription", &body);
            Ok(())
        }
        Event::ChannelCreated { channel_id } => {
            let ch = *channel_id;
            let (listed, audience) = state
                .db
                .read(move |c| {
                    let Some(channel) = channels_db::get(c, ch)? else {
                        return Ok((None, Vec::new()));
                    };
                    let audience = channel_audience(c, &channel)?;
                    let stats = channels_db::stats(c, &channel, crate::time::now_secs())?;
                    Ok((Some((channel, stats)), audience))
                })
                .await?;
            let Some((channel, stats)) = listed else {
                return Ok(());
            };
            let object = serde_json::Value::Object(wire::channel(&channel, &stats));
            let body = json!({"type": "stream", "op": "create", "streams": [object]});
            push_to_users(state, seq, Some(&audience), "stream", &body);
            Ok(())
        }
        Event::ChannelArchived { channel_id } => deliver_archive(state, seq, *channel_id).await,
        Event::ChannelUpdated {
            channel_id,
            property,
        } => {
            let ch = *channel_id;
            let found = state
                .db
                .read(move |c| {
                    let Some(channel) = channels_db::get(c, ch)? else {
                        return Ok(None);
                    };
                    let audience = channel_audience(c, &channel)?;
                    Ok(Some((channel, audience)))
                })
                .await?;
            let Some((channel, audience)) = found else {
                return Ok(());
            };
            let (prop, value) = match *property {
                "name" => ("name", json!(channel.name)),
                "description" => ("description", json!(channel.description)),
                "invite_only" => ("invite_only", json!(channel.invite_only)),
                "history_public_to_subscribers" => (
                    "history_public_to_subscribers",
                    json!(channel.history_public_to_subscribers),
                ),
                "is_default" => return Ok(()),
                "message_retention_days" => (
                    "message_retention_days",
                    json!(channel.message_retention_days),
                ),
                "topics_policy" => ("topics_policy", json!(channel.topics_policy.name())),
                setting => match crate::model::ChannelSetting::ALL
                    .iter()
                    .find(|s| s.name() == setting)
                {
                    Some(s) => (s.name(), wire::group_setting(channel.setting(*s))),
                    None => return Ok(()),
                },
            };
            let mut body = json!({
                "type": "stream",
                "op": "update",
                "stream_id": ch.0,
                "name": channel.name,
                "property": prop,
                "value": value,
            });
            if prop == "description" {
                body["rendered_description"] = json!(channel.rendered_description);
            }
            if prop == "invite_only" {
                body["history_public_to_subscribers"] =
                    json!(channel.history_public_to_subscribers);
                body["is_web_public"] = json!(channel.is_web_public);
            }
            push_to_users(state, seq, Some(&audience), "stream", &body);
            Ok(())
        }
        Event::UserCreated { user_id }
        | Event::UserReactivated { user_id }
        | Event::UserDeactivated { user_id } => {
            let uid = *user_id;
            let user = state.db.read(move |c| users_db::get_any(c, uid)).await?;
            let Some(user) = user else { return Ok(()) };
            if let Event::UserCreated { .. } = event {
                return deliver_new_user(state, seq, &user).await;
            }
            let body = json!({
                "type": "realm_user",
                "op": "update",
                "person": {"user_id": uid.0, "is_active": user.is_active},
            });
            push_to_users(state, seq, None, "realm_user", &body);
            Ok(())
        }
        Event::UserUpdated { user_id, change } => {
            let uid = *user_id;
            let user = state.db.read(move |c| users_db::get_any(c, uid)).await?;
            let Some(user) = user else { return Ok(()) };
            let person = match change {
                PersonChange::FullName(n) => json!({"user_id": uid.0, "full_name": n}),
                PersonChange::Role(r) => json!({"user_id": uid.0, "role": r}),
                PersonChange::Email(_) => return deliver_email_change(state, seq, &user).await,
                PersonChange::Timezone(tz) => json!({
                    "user_id": uid.0,
                    "email": wire::api_email(&user, state.config.realm_host()),
                    "timezone": tz,
                }),
                PersonChange::ProfileField {
                    field_id,
                    value,
                    rendered_value,
                } => json!({
                    "user_id": uid.0,
                    "custom_profile_field": {
                        "id": field_id.0,
                        "value": value,
                        "rendered_value": rendered_value,
                    },
                }),
                // A new API key concerns nobody else.
                PersonChange::ApiKey => return Ok(()),
            };
            let body = json!({"type": "realm_user", "op": "update", "person": person});
            push_to_users(state, seq, None, "realm_user", &body);
            Ok(())
        }
        Event::UserStatusChanged { user_id } => {
            let uid = *user_id;
            let found = state
                .db
                .read(move |c| {
                    let Some(user) = users_db::get_any(c, uid)? else {
                        return Ok(None);
                    };
                    Ok(Some((user.presence_enabled, users_db::status(c, uid)?)))
                })
                .await?;
            let Some((presence_enabled, status)) = found else {
                return Ok(());
            };
            let mut body = json!({
                "type": "user_status",
                "user_id": uid.0,
                "away": !presence_enabled,
                "status_text": status.status_text,
                "emoji_name": status.emoji_name,
                "emoji_code": status.emoji_code,
            });
            // A cleared emoji has no reaction type.
            if !status.reaction_type.is_empty() {
                body["reaction_type"] = json!(status.reaction_type);
            }
            push_to_users(state, seq, None, "user_status", &body);
            Ok(())
        }
        Event::SettingChanged {
            user_id,
            name,
            value,
        } => deliver_setting(state, seq, *user_id, name, value).await,
        Event::ProfileFieldsChanged => {
            let fields = crate::domain::profile_fields::list(state).await?;
            let body = json!({
                "type": "custom_profile_fields",
                "fields": fields.iter().map(wire::profile_field).collect::<Vec<_>>(),
            });
            push_to_users(state, seq, None, "custom_profile_fields", &body);
            Ok(())
        }
        Event::AlertWordsChanged { user_id, words } => {
            let body = json!({"type": "alert_words", "alert_words": words});
            push_to_users(state, seq, Some(&[*user_id]), "alert_words", &body);
            Ok(())
        }
        Event::PresenceChanged {
            user_id,
            active,
            timestamp,
        } => deliver_presence(state, seq, *user_id, *active, *timestamp).await,
        Event::Typing {
            sender,
            start,
            target,
        } => deliver_typing(state, seq, *sender, *start, target).await,
    }
}

/// Users who may see a channel's existence: for public channels every member plus subscribed
/// guests, else its subscribers.
fn channel_audience(c: &Connection, ch: &crate::model::Channel) -> Result<Vec<UserId>> {
    let subscribers = channels_db::subscriber_ids(c, ch.id)?;
    if ch.invite_only {
        return Ok(subscribers);
    }
    Ok(users_db::all(c)?
        .into_iter()
        .filter(|u| u.is_active)
        .filter(|u| u.role != crate::model::Role::Guest || subscribers.contains(&u.id))
        .map(|u| u.id)
        .collect())
}

/// Users who received a message: its channel's subscribers and its sender, or its
/// conversation's members.
fn message_audience(c: &Connection, id: MessageId) -> Result<Vec<UserId>> {
    let Some(m) = messages_db::get(c, id)? else {
        return Ok(Vec::new());
    };
    let mut users = match (m.channel_id, m.conversation_id) {
        (Some(ch), _) => channels_db::subscriber_ids(c, ch)?,
        (None, Some(conv)) => messages_db::conversation_members(c, conv)?,
        _ => Vec::new(),
    };
    if !users.contains(&m.sender_id) {
        users.push(m.sender_id);
    }
    Ok(users)
}

fn message_details(c: &Connection, ids: &[MessageId]) -> Result<Value> {
    let mut out = serde_json::Map::new();
    for m in messages_db::get_many(c, ids)? {
        let d = match (m.channel_id, m.conversation_id) {
            (Some(ch), _) => json!({"type": "stream", "stream_id": ch.0, "topic": m.topic}),
            (None, Some(conv)) => {
                let members = messages_db::conversation_members(c, conv)?;
                json!({"type": "private", "user_ids": members.iter().map(|u| u.0).collect::<Vec<_>>()})
            }
            _ => continue,
        };
        out.insert(m.id.0.to_string(), d);
    }
    Ok(Value::Object(out))
}

/// Everything needed to render one new message for each of its recipients.
struct MessageDelivery {
    bundle: Bundle,
    /// Recipient → stored flag bits.
    recipients: Vec<(User, i64)>,
    /// Users who only see it through `all_public_streams` or a narrow (public channels).
    channel_public: bool,
    topic_participants: Vec<UserId>,
}

/// Loads a new message for delivery to those of its recipients who have event queues.
fn load_message(c: &Connection, id: MessageId, queues: &Queues) -> Result<Option<MessageDelivery>> {
    let Some(m) = messages_db::get(c, id)? else {
        return Ok(None);
    };
    let stored = messages_db::stored_flags(c, id)?;
    let audience = message_audience(c, id)?;
    let mut recipients = Vec::with_capacity(audience.len());
    for u in audience.into_iter().filter(|u| queues.has_user(*u)) {
        if let Some(user) = users_db::get_any(c, u)?.filter(|u| u.is_active) {
            let f = stored.get(&u.0).copied().unwrap_or(0);
            recipients.push((user, f));
        }
    }
    let channel_public = match m.channel_id {
        Some(ch) => channels_db::get(c, ch)?.is_some_and(|ch| !ch.invite_only),
        None => false,
    };
    let topic_participants = match m.channel_id {
        Some(ch) if m.wildcard & wildcard::TOPIC != 0 => {
            messages_db::topic_senders_upto(c, ch, &m.topic, m.id)?
        }
        _ => Vec::new(),
    };
    let sender = users_db::get_any(c, m.sender_id)?;
    let mut bundle = Bundle::default();
    if let Some(s) = sender {
        bundle.users.insert(s.id, s);
    }
    if let Some(ch) = m.channel_id
        && let Some(channel) = channels_db::get(c, ch)?
    {
        bundle.channel_names.insert(ch, channel.name);
    }
    if let Some(conv) = m.conversation_id {
        let members = messages_db::conversation_members(c, conv)?;
        for u in &members {
            if let Some(user) = users_db::get_any(c, *u)? {
                bundle.users.insert(user.id, user);
            }
        }
        bundle.conversations.insert(conv, members);
    }
    let submessages = crate::db::submessages::of_messages(c, &[m.id])?;
    bundle.messages.push(Viewed {
        message: m,
        flags: Vec::new(),
        reactions: Vec::new(),
        submessages,
        edits: Vec::new(),
        match_content: None,
        match_subject: None,
    });
    Ok(Some(MessageDelivery {
        bundle,
        recipients,
        channel_public,
        topic_participants,
    }))
}

/// The rendering choices that shape a message object: `apply_markdown`, whether the sender's
/// avatar is left to the client (gravatar), `empty_topic_name`, and the viewer for direct
/// messages (0 for channel messages, which look the same to everyone).
type Variant = (bool, bool, bool, i64);

async fn deliver_message(
    state: &AppState,
    seq: u64,
    id: MessageId,
    local: Option<(String, String)>,
) -> Result<()> {
    let queues = Arc::clone(&state.queues);
    let Some(d) = state.db.read(move |c| load_message(c, id, &queues)).await? else {
        return Ok(());
    };
    let m = d.bundle.messages[0].message.clone();
    let host = state.config.realm_host();
    // Serialized message objects, shared by every queue with the same rendering choices.
    let mut variants: HashMap<Variant, Arc<str>> = HashMap::new();
    let mut render = |viewer: &User, q: &Queue| -> (Variant, Arc<str>) {
        let v = Viewer {
            user: viewer,
            host,
            client_gravatar: q.options.client_gravatar,
        };
        let sender_hidden_avatar = d
            .bundle
            .users
            .get(&m.sender_id)
            .is_some_and(|s| v.leaves_avatar_to_client(s));
        // Direct messages carry a per-viewer recipient id.
        let per_viewer = if m.conversation_id.is_some() {
            viewer.id.0
        } else {
            0
        };
        let key = (
            q.options.apply_markdown,
            sender_hidden_avatar,
            q.options.empty_topic_name,
            per_viewer,
        );
        let text = variants.entry(key).or_insert_with(|| {
            let opts = MessageOptions {
                apply_markdown: q.options.apply_markdown,
                client_gravatar: q.options.client_gravatar,
                allow_empty_topic_name: q.options.empty_topic_name,
                with_flags: false,
            };
            Arc::from(wire::message(&v, &d.bundle.messages[0], &d.bundle, &opts).to_string())
        });
        (key, Arc::clone(text))
    };
    let channel_name = m
        .channel_id
        .and_then(|c| d.bundle.channel_names.get(&c))
        .map(String::as_str);
    let mut delivered: HashSet<UserId> = HashSet::new();
    for (user, stored) in &d.recipients {
        let participant = d.topic_participants.contains(&user.id);
        let flags = fetch::flag_names(
            *stored,
            true,
            stored & bits::READ != 0,
            m.wildcard,
            participant,
        );
        let flags_json = serde_json::to_string(&flags).expect("strings serialize");
        // One shared event text per rendering variant for all of this user's queues; only the
        // queue that sent the message (local echo) gets its own.
        let mut shared: HashMap<Variant, EventJson> = HashMap::new();
        for q in state.queues.of_users(seq, Some(&[user.id])) {
            if !q.options.wants("message") || !q.options.narrow.matches(&m, channel_name, &flags) {
                continue;
            }
            let (key, message) = render(user, &q);
            let local_echo = local
                .as_ref()
                .filter(|(queue_id, _)| *queue_id == q.id && user.id == m.sender_id);
            let text: EventJson = match local_echo {
                Some((_, local_id)) => Arc::from(format!(
                    "{{\"type\":\"message\",\"flags\":{flags_json},\"message\":{message},\"local_message_id\":{}",
                    serde_json::to_string(local_id).expect("strings serialize")
                )),
                None => Arc::clone(shared.entry(key).or_insert_with(|| {
                    Arc::from(format!(
                        "{{\"type\":\"message\",\"flags\":{flags_json},\"message\":{message}"
                    ))
                })),
            };
            state.queues.push(&q, text);
        }
        delivered.insert(user.id);
    }
    // Queues that follow all public channels (or have a narrow) also see public messages.
    if d.channel_public {
        let flags = vec!["read", "historical"];
        let followers: Vec<Arc<Queue>> = state
            .queues
            .of_users(seq, None)
            .into_iter()
            .filter(|q| {
                !delivered.contains(&q.user_id)
                    && (q.options.all_public_streams || !q.options.narrow.is_empty())
                    && q.options.wants("message")
            })
            .collect();
        if followers.is_empty() {
            return Ok(());
        }
        // Their owners, in one read.
        let owners: HashSet<UserId> = followers.iter().map(|q| q.user_id).collect();
        let viewers = state.db.read(move |c| users_by_id(c, owners)).await?;
        for q in followers {
            let Some(viewer) = viewers
                .get(&q.user_id)
                .filter(|u| u.role != crate::model::Role::Guest)
            else {
                continue;
            };
            if !q.options.narrow.matches(&m, channel_name, &flags) {
                continue;
            }
            let (_, message) = render(viewer, &q);
            let text = format!(
                "{{\"type\":\"message\",\"flags\":[\"read\",\"historical\"],\"message\":{message}"
            );
            state.queues.push(&q, Arc::from(text));
        }
    }
    Ok(())
}

/// What `deliver_update` renders: one committed edit.
struct Update<'a> {
    message_id: MessageId,
    message_ids: &'a [MessageId],
    edited_by: UserId,
    edited_at: i64,
    content_edit: Option<&'a ContentEdit>,
    moved: Option<&'a MessageMove>,
}

async fn deliver_update(state: &AppState, seq: u64, u: Update<'_>) -> Result<()> {
    let id = u.message_id;
    let orig_channel = u.moved.map(|mv| mv.orig_channel);
    let left_channel = u
        .moved
        .and_then(|mv| mv.new_channel.map(|_| mv.orig_channel));
    let loaded = state
        .db
        .read(move |c| {
            let Some(m) = messages_db::get(c, id)? else {
                return Ok(None);
            };
            // Upstream names the channel the messages were in before the edit.
            let channel_name = match orig_channel.or(m.channel_id) {
                Some(ch) => channels_db::get(c, ch)?.map(|c| c.name),
                None => None,
            };
            let mut audience = message_audience(c, id)?;
            // Subscribers of the channel the messages left hear of the move too.
            if let Some(prev) = left_channel {
                for u in channels_db::subscriber_ids(c, prev)? {
                    if !audience.contains(&u) {
                        audience.push(u);
                    }
                }
            }
            Ok(Some((m, channel_name, audience)))
        })
        .await?;
    let Some((m, channel_name, audience)) = loaded else {
        return Ok(());
    };
    let mut body = json!({
        "type": "update_message",
        "user_id": u.edited_by.0,
        "edit_timestamp": u.edited_at,
        "message_id": id.0,
        "message_ids": u.message_ids.iter().map(|i| i.0).collect::<Vec<_>>(),
        "flags": [],
        "rendering_only": false,
    });
    if let Some(ce) = u.content_edit {
        body["orig_content"] = json!(ce.orig_content);
        body["orig_rendered_content"] = json!(ce.orig_rendered_content);
        body["content"] = json!(m.content);
        body["rendered_content"] = json!(m.rendered_content);
        body["is_me_message"] = json!(m.is_me_message);
    }
    // Every move names its origin and the editor's propagate_mode, also when only the channel
    // changed; `subject` and `topic_links` only when the topic changed.
    if let Some(mv) = u.moved {
        body["propagate_mode"] = json!(mv.propagate.name());
        body["orig_subject"] = json!(mv.orig_topic);
        if let Some(topic) = &mv.new_topic {
            body["subject"] = json!(topic);
            body["topic_links"] = json!([]);
        }
        body["stream_id"] = json!(mv.orig_channel.0);
        if let Some(target) = mv.new_channel {
            body["new_stream_id"] = json!(target.0);
        }
    } else if let Some(ch) = m.channel_id {
        body["stream_id"] = json!(ch.0);
    }
    if let Some(name) = channel_name {
        body["stream_name"] = json!(name);
    }
    push_to_users(state, seq, Some(&audience), "update_message", &body);
    Ok(())
}

async fn deliver_delete(
    state: &AppState,
    seq: u64,
    ids: &[MessageId],
    channel: Option<ChannelId>,
    topic: &str,
    dm_members: &[UserId],
) -> Result<()> {
    let audience = match channel {
        Some(ch) => {
            state
                .db
                .read(move |c| channels_db::subscriber_ids(c, ch))
                .await?
        }
        None => dm_members.to_vec(),
    };
    let (message_type, extra) = match channel {
        Some(ch) => ("stream", json!({"stream_id": ch.0, "topic": topic})),
        None => ("private", json!({})),
    };
    let bulk = {
        let mut b = json!({
            "type": "delete_message",
            "message_type": message_type,
            "message_ids": ids.iter().map(|i| i.0).collect::<Vec<_>>(),
        });
        for (k, v) in extra.as_object().into_iter().flatten() {
            b[k] = v.clone();
        }
        event_json(&b)
    };
    let singles: Vec<EventJson> = ids
        .iter()
        .map(|id| {
            let mut b =
                json!({"type": "delete_message", "message_type": message_type, "message_id": id.0});
            for (k, v) in extra.as_object().into_iter().flatten() {
                b[k] = v.clone();
            }
            event_json(&b)
        })
        .collect();
    for q in state.queues.of_users(seq, Some(&audience)) {
        if !q.options.wants("delete_message") {
            continue;
        }
        if q.options.bulk_message_deletion {
            state.queues.push(&q, Arc::clone(&bulk));
        } else {
            for s in &singles {
                state.queues.push(&q, Arc::clone(s));
            }
        }
    }
    Ok(())
}

async fn deliver_subscription(
    state: &AppState,
    seq: u64,
    user: UserId,
    ch: ChannelId,
    added: bool,
) -> Result<()> {
    let loaded = state
        .db
        .read(move |c| {
            let Some(u) = users_db::get_any(c, user)? else {
                return Ok(None);
            };
            let Some(channel) = channels_db::get(c, ch)? else {
                return Ok(None);
            };
            let audience = channel_audience(c, &channel)?;
            let sub = channels_db::subscription(c, user, ch)?;
            let access = channels_domain::access(c, &u, channel)?;
            let stats = channels_db::stats(c, &access.channel, crate::time::now_secs())?;
            let subscribers = channels_db::subscriber_ids(c, ch)?;
            Ok(Some((access, sub, stats, audience, subscribers)))
        })
        .await?;
    let Some((access, sub, stats, audience, subscribers)) = loaded else {
        return Ok(());
    };
    let own = if added {
        let Some(sub) = sub else { return Ok(()) };
        let listed = channels_domain::Listed {
            access,
            subscription: Some(sub.clone()),
            subscribers: Some(subscribers),
            stats,
        };
        json!({"type": "subscription", "op": "add", "subscriptions": [wire::subscription(&listed, &sub)]})
    } else {
        json!({
            "type": "subscription",
            "op": "remove",
            "subscriptions": [{"name": access.channel.name, "stream_id": ch.0}],
        })
    };
    push_to_users(state, seq, Some(&[user]), "subscription", &own);
    let peers: Vec<UserId> = audience.into_iter().filter(|u| *u != user).collect();
    let peer = json!({
        "type": "subscription",
        "op": if added { "peer_add" } else { "peer_remove" },
        "stream_ids": [ch.0],
        "user_ids": [user.0],
    });
    push_to_users(state, seq, Some(&peers), "subscription", &peer);
    Ok(())
}

async fn deliver_presence(
    state: &AppState,
    seq: u64,
    user: UserId,
    active: bool,
    timestamp: i64,
) -> Result<()> {
    let u = state.db.read(move |c| users_db::get_any(c, user)).await?;
    let Some(u) = u else { return Ok(()) };
    let status = if active { "active" } else { "idle" };
    let presence = json!({"website": {"client": "website", "status": status, "timestamp": timestamp, "pushable": false}});
    let full = event_json(&json!({
        "type": "presence",
        "user_id": user.0,
        "email": wire::api_email(&u, state.config.realm_host()),
        "server_timestamp": crate::time::now_millis() as f64 / 1000.0,
        "presence": presence,
    }));
    let slim = event_json(&json!({
        "type": "presence",
        "user_id": user.0,
        "server_timestamp": crate::time::now_millis() as f64 / 1000.0,
        "presence": presence,
    }));
    for q in state.queues.of_users(seq, None) {
        if q.user_id == user || !q.options.wants("presence") {
            continue;
        }
        let body = if q.options.slim_presence {
            &slim
        } else {
            &full
        };
        state.queues.push(&q, Arc::clone(body));
    }
    Ok(())
}

async fn deliver_typing(
    state: &AppState,
    seq: u64,
    sender: UserId,
    start: bool,
    target: &TypingTarget,
) -> Result<()> {
    let target = target.clone();
    let loaded = state
        .db
        .read(move |c| {
            let Some(s) = users_db::get_any(c, sender)? else {
                return Ok(None);
            };
            let audience: Vec<User> = match &target {
                TypingTarget::Direct(ids) => ids
                    .iter()
                    .filter_map(|u| users_db::get_any(c, *u).ok().flatten())
                    .collect(),
                TypingTarget::Channel { channel_id, .. } => {
                    channels_db::subscriber_ids(c, *channel_id)?
                        .into_iter()
                        .filter_map(|u| users_db::get_any(c, u).ok().flatten())
                        .collect()
                }
            };
            Ok(Some((s, audience, target)))
        })
        .await?;
    let Some((s, audience, target)) = loaded else {
        return Ok(());
    };
    let host = state.config.realm_host();
    let op = if start { "start" } else { "stop" };
    let sender_obj = json!({"user_id": s.id.0, "email": wire::api_email(&s, host)});
    let (body, stream) = match &target {
        TypingTarget::Direct(_) => (
            json!({
                "type": "typing",
                "op": op,
                "message_type": "direct",
                "sender": sender_obj,
                "recipients": audience.iter().map(|u| json!({"user_id": u.id.0, "email": wire::api_email(u, host)})).collect::<Vec<_>>(),
            }),
            false,
        ),
        TypingTarget::Channel { channel_id, topic } => (
            json!({
                "type": "typing",
                "op": op,
                "message_type": "stream",
                "sender": sender_obj,
                "stream_id": channel_id.0,
                "topic": topic,
            }),
            true,
        ),
    };
    let json = event_json(&body);
    let ids: Vec<UserId> = audience.iter().map(|u| u.id).collect();
    for q in state.queues.of_users(seq, Some(&ids)) {
        if !q.options.wants("typing") || (stream && !q.options.stream_typing_notifications) {
            continue;
        }
        if stream && q.user_id == sender {
            continue;
        }
        state.queues.push(&q, Arc::clone(&json));
    }
    Ok(())
}

/// The queues that want `realm_user` events, with their owners' rows (who sees which email
/// depends on the owner); `None` when there are none.
async fn realm_user_queues(
    state: &AppState,
    seq: u64,
) -> Result<Option<(Vec<Arc<Queue>>, HashMap<UserId, User>)>> {
    let queues: Vec<Arc<Queue>> = state
        .queues
        .of_users(seq, None)
        .into_iter()
        .filter(|q| q.options.wants("realm_user"))
        .collect();
    if queues.is_empty() {
        return Ok(None);
    }
    let owners: HashSet<UserId> = queues.iter().map(|q| q.user_id).collect();
    let viewers = state.db.read(move |c| users_by_id(c, owners)).await?;
    Ok(Some((queues, viewers)))
}

/// A new user: each queue's owner gets the person as they may see it, with the real email
/// only where they may see it (two shapes at most, each serialized once).
async fn deliver_new_user(state: &AppState, seq: u64, user: &User) -> Result<()> {
    let Some((queues, viewers)) = realm_user_queues(state, seq).await? else {
        return Ok(());
    };
    let host = state.config.realm_host();
    let mut shapes: HashMap<bool, EventJson> = HashMap::new();
    for q in queues {
        let Some(owner) = viewers.get(&q.user_id) else {
            continue;
        };
        let v = Viewer {
            user: owner,
            host,
            client_gravatar: false,
        };
        let text = shapes.entry(v.sees_real_email(user)).or_insert_with(|| {
            event_json(&json!({
                "type": "realm_user",
                "op": "add",
                "person": Value::Object(wire::user(&v, user, None)),
            }))
        });
        state.queues.push(&q, Arc::clone(text));
    }
    Ok(())
}

/// A user's real email changed: `delivery_email` goes to the queues whose owners may see it,
/// then `new_email` to everyone when the API email is the real one and so changed too (a
/// placeholder API email stays the same).
async fn deliver_email_change(state: &AppState, seq: u64, user: &User) -> Result<()> {
    let Some((queues, viewers)) = realm_user_queues(state, seq).await? else {
        return Ok(());
    };
    let delivery = event_json(&json!({
        "type": "realm_user",
        "op": "update",
        "person": {"user_id": user.id.0, "delivery_email": user.email},
    }));
    let api_email_changed = emails::is_public(user);
    let new_email = event_json(&json!({
        "type": "realm_user",
        "op": "update",
        "person": {
            "user_id": user.id.0,
            "new_email": wire::api_email(user, state.config.realm_host()),
        },
    }));
    for q in queues {
        let Some(owner) = viewers.get(&q.user_id) else {
            continue;
        };
        if emails::sees_real_email(owner, user) {
            state.queues.push(&q, Arc::clone(&delivery));
        }
        if api_email_changed {
            state.queues.push(&q, Arc::clone(&new_email));
        }
    }
    Ok(())
}

/// The users with these ids, by id (ids without a user are left out).
fn users_by_id(c: &Connection, ids: HashSet<UserId>) -> Result<HashMap<UserId, User>> {
    let mut found = HashMap::new();
    for id in ids {
        if let Some(u) = users_db::get_any(c, id)? {
            found.insert(id, u);
        }
    }
    Ok(found)
}

/// A personal setting changed: `user_settings` to the user's own queues, plus the deprecated
/// display/notification event to those registered without `user_settings_object`.
async fn deliver_setting(
    state: &AppState,
    seq: u64,
    uid: UserId,
    name: &'static str,
    value: &SettingValue,
) -> Result<()> {
    let Some(user) = state.db.read(move |c| users_db::get_any(c, uid)).await? else {
        return Ok(());
    };
    let queues = state.queues.of_users(seq, Some(&[uid]));
    if queues.is_empty() {
        return Ok(());
    }
    let value = wire::setting_value(value);
    let language = match (name, &value) {
        ("default_language", Value::String(code)) => Some(settings::language_name(code)),
        _ => None,
    };
    let mut current =
        json!({"type": "user_settings", "op": "update", "property": name, "value": value});
    let email = wire::api_email(&user, state.config.realm_host());
    let mut legacy = match settings::legacy_class(name) {
        Legacy::Display => Some(json!({
            "type": "update_display_settings",
            "user": email,
            "setting_name": name,
            "setting": value,
        })),
        Legacy::Notification => Some(json!({
            "type": "update_global_notifications",
            "user": email,
            "notification_name": name,
            "setting": value,
        })),
        Legacy::None => None,
    };
    if let Some(lang) = language {
        current["language_name"] = json!(lang);
        if let Some(l) = legacy.as_mut() {
            l["language_name"] = json!(lang);
        }
    }
    let current = event_json(&current);
    let legacy = legacy.map(|l| {
        let t = l["type"].as_str().unwrap_or_default().to_string();
        (t, event_json(&l))
    });
    for q in queues {
        if q.options.wants("user_settings") {
            state.queues.push(&q, Arc::clone(&current));
        }
        if let Some((t, json)) = &legacy
            && !q.options.user_settings_object
            && q.options.wants(t)
        {
            state.queues.push(&q, Arc::clone(json));
        }
    }
    Ok(())
}

/// A channel was archived. Clients that know archived channels keep it, marked; the others
/// see it deleted.
async fn deliver_archive(state: &AppState, seq: u64, ch: ChannelId) -> Result<()> {
    let found = state
        .db
        .read(move |c| {
            let Some(channel) = channels_db::get(c, ch)? else {
                return Ok(None);
            };
            let audience = channel_audience(c, &channel)?;
            Ok(Some((channel.name, audience)))
        })
        .await?;
    let Some((name, audience)) = found else {
        return Ok(());
    };
    let archived = event_json(&json!({
        "type": "stream",
        "op": "update",
        "stream_id": ch.0,
        "name": name,
        "property": "is_archived",
        "value": true,
    }));
    let deleted = event_json(&json!({
        "type": "stream",
        "op": "delete",
        "streams": [{"stream_id": ch.0}],
        "stream_ids": [ch.0],
    }));
    for q in state.queues.of_users(seq, Some(&audience)) {
        if q.options.wants("stream") {
            let body = if q.options.archived_channels {
                &archived
            } else {
                &deleted
            };
            state.queues.push(&q, Arc::clone(body));
        }
    }
    Ok(())
}
