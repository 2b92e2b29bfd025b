//! The records a user keeps on the server for their clients: muted users, message drafts and
//! saved snippets. Each change is the owner's alone and emits an event to the owner's queues.
//! Muting also marks the muted user's messages read for the muter (and `send` marks new ones
//! read on arrival, see `muters_reading`). Upstream's messages and limits; the counts per user
//! are `[limits]` settings. No SQL, no wire shapes.

use rusqlite::Connection;

use crate::db::user_records as db;
use crate::db::users as users_db;
use crate::domain::core::Core;
use crate::error::{Error, Result};
use crate::events::{
    DraftChange, DraftsChanged, Event, FlagsChanged, MutedUsersChanged, SavedSnippetsChanged,
    SnippetChange,
};
use crate::ids::{ChannelId, UserId};
use crate::model::User;
use crate::model::records::{Draft, DraftKind, MutedUser, SavedSnippet};

use super::messages::send::{MAX_MESSAGE_LENGTH, MAX_TOPIC_LENGTH, normalize_content};

// ---- muted users ----

/// Messages marked read per write when a user is muted, so that muting someone prolific never
/// holds the writer for long.
const READ_PER_WRITE: usize = 500;

/// `POST /users/me/muted_users/{id}`: mutes a human user (active or not), then marks what they
/// sent the muter read, in bounded writes (each with its `update_message_flags` event). New
/// messages from them arrive read from the mute's commit on (see `send`).
pub async fn mute(state: &Core, user: &User, target: i64) -> Result<()> {
    if target == user.id.0 {
        return Err(Error::bad_request("Cannot mute self"));
    }
    let me = user.id;
    let target = UserId(target);
    state
        .db
        .write(move |tx| {
            match users_db::get(tx, target)? {
                Some(u) if !u.is_bot => {}
                _ => return Err(Error::bad_request("No such user")),
            }
            if db::is_muted(tx, me, target)? {
                return Err(Error::bad_request("User already muted"));
            }
            db::mute(tx, me, target, crate::time::now_secs())?;
            let muted = db::muted_by(tx, me)?;
            tx.emit(Event::MutedUsersChanged(MutedUsersChanged {
                user_id: me,
                muted,
            }));
            Ok(())
        })
        .await?;
    loop {
        let marked = state
            .db
            .write(move |tx| {
                let ids = db::unread_from(tx, me, target, READ_PER_WRITE)?;
                let n = ids.len();
                for id in &ids {
                    crate::db::message_flags::change(
                        tx,
                        me,
                        *id,
                        crate::model::flags::READ,
                        crate::model::flags::UNREAD_OVERRIDE,
                    )?;
                }
                if !ids.is_empty() {
                    crate::domain::notifications::jobs::retract_read(
                        tx,
                        me,
                        crate::time::now_millis(),
                    )?;
                    tx.emit(Event::FlagsChanged(FlagsChanged {
                        user_id: me,
                        flag: "read",
                        add: true,
                        message_ids: ids,
                        all: false,
                    }));
                }
                Ok(n)
            })
            .await?;
        if marked < READ_PER_WRITE {
            return Ok(());
        }
    }
}

/// `DELETE /users/me/muted_users/{id}`.
pub async fn unmute(state: &Core, user: &User, target: i64) -> Result<()> {
    let me = user.id;
    let target = UserId(target);
    state
        .db
        .write(move |tx| {
            if users_db::get(tx, target)?.is_none() {
                return Err(Error::bad_request("No such user"));
            }
            if !db::is_muted(tx, me, target)? {
                return Err(Error::bad_request("User is not muted"));
            }
            db::unmute(tx, me, target)?;
            let muted = db::muted_by(tx, me)?;
            tx.emit(Event::MutedUsersChanged(MutedUsersChanged {
                user_id: me,
                muted,
            }));
            Ok(())
        })
        .await
}

/// The users `user` muted (register's `muted_users`).
pub fn muted_by(c: &Connection, user: UserId) -> Result<Vec<MutedUser>> {
    db::muted_by(c, user)
}

/// Those who muted `sender`: a new message from the sender arrives read for the ones who
/// receive it.
pub fn muters_reading(c: &Connection, sender: UserId) -> Result<Vec<UserId>> {
    db::muters_of(c, sender)
}

// ---- drafts ----

/// Upstream's cap on the drafts register returns.
pub const MAX_DRAFTS_IN_REGISTER: usize = 1000;

/// A draft as a client sent it, before validation.
#[derive(Clone, Debug, PartialEq)]
pub struct DraftInput {
    pub kind: String,
    pub to: Vec<i64>,
    pub topic: String,
    pub content: String,
    pub timestamp: Option<f64>,
}

fn draft_not_found() -> Error {
    Error::not_found("Draft does not exist")
}

/// Drafts are kept only for users who synchronize them.
async fn check_sync(state: &Core, user: &User) -> Result<()> {
    if !super::settings::flag(state, user.id, "enable_drafts_synchronization").await? {
        return Err(Error::bad_request(
            "User has disabled synchronizing drafts.",
        ));
    }
    Ok(())
}

fn truncate_topic(t: &str) -> String {
    if t.chars().count() > MAX_TOPIC_LENGTH {
        let mut out: String = t.chars().take(MAX_TOPIC_LENGTH - 3).collect();
        out.push_str("...");
        out
    } else {
        t.to_string()
    }
}

/// Validates a draft as upstream does: content as for messages, a channel draft names exactly
/// one channel the user can see, a direct draft only existing users.
fn validated(
    c: &Connection,
    user: &User,
    host: &str,
    input: &DraftInput,
    now: i64,
) -> Result<Draft> {
    let kind = DraftKind::from_name(&input.kind)
        .ok_or_else(|| Error::bad_request("type must be one of: \"\", \"stream\", \"private\""))?;
    let content = normalize_content(&input.content)?;
    let timestamp = match input.timestamp {
        None => now,
        Some(t) if t < 0.0 => {
            return Err(Error::bad_request("Timestamp must not be negative."));
        }
        Some(t) if !t.is_finite() || t > i64::MAX as f64 => {
            return Err(Error::bad_request("Invalid timestamp"));
        }
        Some(t) => t as i64,
    };
    let (kind, to, topic) = match kind {
        DraftKind::Channel => {
            let topic = truncate_topic(&input.topic);
            if topic.contains('\0') {
                return Err(Error::bad_request("Topic must not contain null bytes"));
            }
            if input.to.len() != 1 {
                return Err(Error::bad_request(
                    "Must specify exactly 1 channel ID for channel messages",
                ));
            }
            super::channels::visible_by_id(c, user, ChannelId(input.to[0]))?;
            (DraftKind::Channel, input.to.clone(), topic)
        }
        DraftKind::Direct if !input.to.is_empty() => {
            let mut to = input.to.clone();
            to.sort_unstable();
            to.dedup();
            // Recipients as for sending: existing, and still active.
            for id in &to {
                let u = users_db::get_any(c, UserId(*id))?
                    .ok_or_else(|| Error::bad_request(format!("Invalid user ID {id}")))?;
                if !u.is_active {
                    return Err(Error::bad_request(format!(
                        "'{}' is no longer using Zulip.",
                        super::emails::api_email(&u, host)
                    )));
                }
            }
            // The other participants; the user alone for a draft to themselves.
            if to.len() > 1 {
                to.retain(|id| *id != user.id.0);
            }
            (DraftKind::Direct, to, String::new())
        }
        // A direct draft without recipients is unaddressed.
        _ => (DraftKind::Unaddressed, Vec::new(), String::new()),
    };
    Ok(Draft {
        id: 0,
        kind,
        to,
        topic,
        content,
        timestamp,
    })
}

/// `GET /drafts`: every draft of the user, most recently edited first.
pub async fn list_drafts(state: &Core, user: &User) -> Result<Vec<Draft>> {
    check_sync(state, user).await?;
    let (id, max) = (user.id, state.config.limits.max_drafts_per_user);
    state.db.read(move |c| db::drafts_of(c, id, max)).await
}

/// Register's `drafts`: the newest ones, as upstream caps them.
pub fn drafts_for_register(c: &Connection, user: UserId) -> Result<Vec<Draft>> {
    db::drafts_of(c, user, MAX_DRAFTS_IN_REGISTER)
}

/// `POST /drafts`: all or none; returns the new ids in the order given.
pub async fn create_drafts(state: &Core, user: &User, inputs: Vec<DraftInput>) -> Result<Vec<i64>> {
    check_sync(state, user).await?;
    let max = state.config.limits.max_drafts_per_user;
    if inputs.len() > max {
        return Err(too_many_drafts(max));
    }
    let user = user.clone();
    let host = state.config.realm_host().to_string();
    state
        .db
        .write(move |tx| {
            if db::draft_count(tx, user.id)? + inputs.len() > max {
                return Err(too_many_drafts(max));
            }
            let now = crate::time::now_secs();
            let mut drafts = Vec::with_capacity(inputs.len());
            for input in &inputs {
                drafts.push(validated(tx, &user, &host, input, now)?);
            }
            for d in &mut drafts {
                d.id = db::insert_draft(tx, user.id, d)?;
            }
            let ids = drafts.iter().map(|d| d.id).collect();
            tx.emit(Event::DraftsChanged(DraftsChanged {
                user_id: user.id,
                change: DraftChange::Added(drafts),
            }));
            Ok(ids)
        })
        .await
}

fn too_many_drafts(max: usize) -> Error {
    Error::bad_request(format!("Too many drafts (limit: {max})"))
}

/// `PATCH /drafts/{id}`: replaces the draft.
pub async fn edit_draft(state: &Core, user: &User, id: i64, input: DraftInput) -> Result<()> {
    check_sync(state, user).await?;
    let user = user.clone();
    let host = state.config.realm_host().to_string();
    state
        .db
        .write(move |tx| {
            db::draft(tx, user.id, id)?.ok_or_else(draft_not_found)?;
            let mut d = validated(tx, &user, &host, &input, crate::time::now_secs())?;
            d.id = id;
            db::update_draft(tx, user.id, &d)?;
            tx.emit(Event::DraftsChanged(DraftsChanged {
                user_id: user.id,
                change: DraftChange::Updated(d),
            }));
            Ok(())
        })
        .await
}

/// `DELETE /drafts/{id}`.
pub async fn delete_draft(state: &Core, user: &User, id: i64) -> Result<()> {
    check_sync(state, user).await?;
    let me = user.id;
    state
        .db
        .write(move |tx| {
            if !db::delete_draft(tx, me, id)? {
                return Err(draft_not_found());
            }
            tx.emit(Event::DraftsChanged(DraftsChanged {
                user_id: me,
                change: DraftChange::Removed(id),
            }));
            Ok(())
        })
        .await
}

/// Turning draft synchronization off forgets the drafts kept on the server (as upstream,
/// without events: clients keep their local copies).
pub fn forget_drafts(c: &Connection, user: UserId) -> Result<()> {
    db::delete_all_drafts(c, user)
}

// ---- saved snippets ----

/// Upstream's `SavedSnippet.MAX_TITLE_LENGTH`.
pub const MAX_SNIPPET_TITLE_LENGTH: usize = 60;

fn snippet_not_found() -> Error {
    Error::not_found("Saved snippet does not exist.")
}

fn check_length(param: &str, value: &str, max: usize) -> Result<()> {
    if value.chars().count() > max {
        return Err(Error::bad_request(format!(
            "{param} is too long (limit: {max} characters)"
        )));
    }
    if value.contains('\0') {
        return Err(Error::bad_request(format!(
            "{param} must not contain null bytes"
        )));
    }
    Ok(())
}

/// A title as stored: within the limit, trimmed, not empty.
fn snippet_title(title: &str) -> Result<String> {
    check_length("title", title, MAX_SNIPPET_TITLE_LENGTH)?;
    let title = title.trim();
    if title.is_empty() {
        return Err(Error::bad_request("Title cannot be empty."));
    }
    Ok(title.to_string())
}

fn snippet_content(content: &str) -> Result<()> {
    check_length("content", content, MAX_MESSAGE_LENGTH)?;
    if content.is_empty() {
        return Err(Error::bad_request("Content cannot be empty."));
    }
    Ok(())
}

/// `GET /saved_snippets` and register's `saved_snippets`.
pub fn snippets_of(c: &Connection, user: UserId) -> Result<Vec<SavedSnippet>> {
    db::snippets_of(c, user)
}

pub async fn list_snippets(state: &Core, user: &User) -> Result<Vec<SavedSnippet>> {
    let me = user.id;
    state.db.read(move |c| db::snippets_of(c, me)).await
}

/// `POST /saved_snippets`: returns the new id.
pub async fn create_snippet(
    state: &Core,
    user: &User,
    title: String,
    content: String,
) -> Result<i64> {
    let title = snippet_title(&title)?;
    snippet_content(&content)?;
    let max = state.config.limits.max_saved_snippets_per_user;
    let me = user.id;
    state
        .db
        .write(move |tx| {
            if db::snippet_count(tx, me)? >= max {
                return Err(Error::bad_request(format!(
                    "Too many saved snippets (limit: {max})"
                )));
            }
            let mut s = SavedSnippet {
                id: 0,
                title,
                content,
                date_created: crate::time::now_secs(),
            };
            s.id = db::insert_snippet(tx, me, &s)?;
            let id = s.id;
            tx.emit(Event::SavedSnippetsChanged(SavedSnippetsChanged {
                user_id: me,
                change: SnippetChange::Added(s),
            }));
            Ok(id)
        })
        .await
}

/// `PATCH /saved_snippets/{id}`: changes the title and/or the content.
pub async fn edit_snippet(
    state: &Core,
    user: &User,
    id: i64,
    title: Option<String>,
    content: Option<String>,
) -> Result<()> {
    let title = title.as_deref().map(snippet_title).transpose()?;
    if let Some(c) = &content {
        snippet_content(c)?;
    }
    let me = user.id;
    state
        .db
        .write(move |tx| {
            let mut s = db::snippet(tx, me, id)?.ok_or_else(snippet_not_found)?;
            if let Some(t) = title {
                s.title = t;
            }
            if let Some(c) = content {
                s.content = c;
            }
            db::update_snippet(tx, me, &s)?;
            tx.emit(Event::SavedSnippetsChanged(SavedSnippetsChanged {
                user_id: me,
                change: SnippetChange::Updated(s),
            }));
            Ok(())
        })
        .await
}

/// `DELETE /saved_snippets/{id}`.
pub async fn delete_snippet(state: &Core, user: &User, id: i64) -> Result<()> {
    let me = user.id;
    state
        .db
        .write(move |tx| {
            if !db::delete_snippet(tx, me, id)? {
                return Err(snippet_not_found());
            }
            tx.emit(Event::SavedSnippetsChanged(SavedSnippetsChanged {
                user_id: me,
                change: SnippetChange::Removed(id),
            }));
            Ok(())
        })
        .await
}
