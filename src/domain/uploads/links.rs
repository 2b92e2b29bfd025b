//! The messages linking an upload: finding the links in a message's content, recording them
//! as upstream claims uploads (inside the message's write), what kinds of file a message
//! links, and dropping claimed uploads no message links any more. It must not render or store
//! messages.

use rusqlite::Connection;

use crate::db::WriteTx;
use crate::db::uploads as db;
use crate::domain::core::Core;
use crate::error::Result;
use crate::events::AttachmentChange;
use crate::ids::MessageId;
use crate::model::User;
use crate::model::uploads::{Attachment, AttachmentView};

use super::REALM_ID;
use super::access::may_access;
use super::attachments::emit_change;
use super::names::percent_decode;
use super::storage::remove_files;

/// The `path_id`s a message's content links (`/user_uploads/<realm>/<2>/<random>/<name>`,
/// relative or under any host), percent-decoded.
pub fn linked_paths(content: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut rest = content;
    while let Some(i) = rest.find("/user_uploads/") {
        rest = &rest[i + "/user_uploads/".len()..];
        let end = rest
            .find(|c: char| c.is_whitespace() || matches!(c, ')' | ']' | '>' | '"' | '\'' | '<'))
            .unwrap_or(rest.len());
        let raw = &rest[..end];
        let decoded = percent_decode(raw);
        let segs: Vec<&str> = decoded.split('/').collect();
        if segs.len() == 4
            && segs[0] == REALM_ID.to_string()
            && segs.iter().all(|s| !s.is_empty())
            && !out.contains(&decoded)
        {
            out.push(decoded);
        }
    }
    out
}

/// Records the uploads a new or edited message links, as upstream claims them: those the
/// sender uploaded or can already read through another message. Called inside the message's
/// write; tells each owner their attachment changed.
pub fn link_message(
    tx: &mut WriteTx<'_>,
    sender: &User,
    message: MessageId,
    content: &str,
) -> Result<()> {
    db::unlink_message(tx, message)?;
    for path in linked_paths(content) {
        let Some(a) = db::by_path(tx, &path)? else {
            continue;
        };
        if !may_access(tx, sender, &a)? {
            continue;
        }
        db::link(tx, a.id, message)?;
        let messages = db::linking_messages(tx, a.id)?;
        let owner = a.owner_id;
        let view = AttachmentView {
            attachment: Attachment { claimed: true, ..a },
            messages,
        };
        emit_change(tx, owner, AttachmentChange::Updated(view))?;
    }
    Ok(())
}

/// Deletes the records of claimed attachments no message links any more (their last linking
/// message was deleted or edited away), inside the caller's write; returns their storage keys
/// for [`remove_stored`] after the commit.
pub fn drop_orphans(tx: &mut WriteTx<'_>) -> Result<Vec<String>> {
    let mut keys = Vec::new();
    for a in db::orphaned(tx)? {
        db::delete(tx, a.id)?;
        emit_change(tx, a.owner_id, AttachmentChange::Removed(a.id))?;
        keys.push(a.storage_key);
    }
    Ok(keys)
}

/// Removes the files of records deleted by [`drop_orphans`] (after their commit).
pub async fn remove_stored(state: &Core, keys: Vec<String>) {
    remove_files(state, keys).await;
}

/// Whether `message` links an attachment, and whether one of them is an image (`has:`
/// operators read the records, not the HTML).
pub fn kinds_linked(c: &Connection, message: MessageId) -> Result<(bool, bool)> {
    let linked = db::of_message(c, message)?;
    Ok((!linked.is_empty(), linked.iter().any(|a| a.is_image)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::uploads::names::encode_path;

    #[test]
    fn links_are_found_and_decoded() {
        let content = "see [a.txt](/user_uploads/1/ab/XYZ/a.txt) and \
                       https://x.test/user_uploads/1/cd/QRS/na%C3%AFve.txt and /user_uploads/2/a/b/c \
                       and /user_uploads/1/ab/XYZ/a.txt";
        assert_eq!(
            linked_paths(content),
            vec![
                "1/ab/XYZ/a.txt".to_string(),
                "1/cd/QRS/naïve.txt".to_string()
            ]
        );
        assert_eq!(encode_path("1/cd/QRS/naïve.txt"), "1/cd/QRS/na%C3%AFve.txt");
    }
}
