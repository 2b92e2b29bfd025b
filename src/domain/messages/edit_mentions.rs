//! Mentions changed by a content edit: the recipients' `mentioned` flags follow the new
//! content (added for those it now mentions, cleared for those it no longer does), and those
//! newly mentioned in a channel are notified as upstream does for an edit
//! (`domain::notifications::gather::enqueue_for_edit`; as upstream, an edit names no group in
//! the notification), in the edit's own commit. No SQL text.

use std::collections::{BTreeSet, HashMap};

use crate::db::{WriteTx, conversations as conversations_db, message_flags as flags_db};
use crate::error::Result;
use crate::ids::{GroupId, UserId};
use crate::model::{Message, User, flags as bits};

use super::recipients::receives;

/// Brings the mention flags of `m` (already updated to the new content) in line with
/// the mentions of the new content, and queues the notifications of the newly mentioned.
pub(super) fn apply(
    tx: &mut WriteTx<'_>,
    editor: &User,
    m: &Message,
    users: &BTreeSet<i64>,
    groups: &BTreeSet<i64>,
) -> Result<()> {
    let members = match m.conversation_id {
        Some(conv) => Some(conversations_db::members(tx, conv)?),
        None => None,
    };
    let mut now_mentioned: HashMap<UserId, i64> = HashMap::new();
    for uid in users {
        let u = UserId(*uid);
        if receives(tx, u, m.channel_id, members.as_deref())? {
            now_mentioned.insert(u, bits::MENTIONED);
        }
    }
    for gid in groups {
        let setting = crate::model::GroupSetting::Group(GroupId(*gid));
        for u in crate::domain::user_groups::users_holding(tx, &setting)? {
            if receives(tx, u, m.channel_id, members.as_deref())? {
                *now_mentioned.entry(u).or_insert(0) |= bits::MENTIONED | bits::GROUP_MENTIONED;
            }
        }
    }
    let stored = flags_db::stored_for_message(tx, m.id)?;
    let before: BTreeSet<UserId> = stored
        .iter()
        .filter(|(_, f)| *f & bits::MENTIONED != 0)
        .map(|(u, _)| UserId(*u))
        .collect();
    for u in &before {
        if !now_mentioned.contains_key(u) {
            flags_db::change(tx, *u, m.id, 0, bits::MENTIONED | bits::GROUP_MENTIONED)?;
        }
    }
    let mut newly = Vec::new();
    for (u, b) in &now_mentioned {
        let had = stored.get(&u.0).copied().unwrap_or(0);
        if had & bits::MENTIONED == 0 {
            newly.push(*u);
        }
        let clear = if b & bits::GROUP_MENTIONED == 0 {
            bits::GROUP_MENTIONED
        } else {
            0
        };
        flags_db::change(tx, *u, m.id, *b, clear)?;
    }
    newly.sort_unstable();
    if m.channel_id.is_some() && !newly.is_empty() {
        crate::domain::notifications::gather::enqueue_for_edit(
            tx,
            m,
            editor.id,
            &newly,
            crate::time::now_millis(),
        )?;
    }
    Ok(())
}
