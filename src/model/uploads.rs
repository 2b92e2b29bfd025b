//! Uploaded files and the messages linking them. Plain data; the rules are in
//! `domain::uploads`, the SQL in `db::uploads`.

use crate::ids::{MessageId, UserId};

/// One stored upload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attachment {
    pub id: i64,
    pub owner_id: UserId,
    /// The URL path after `/user_uploads/`: `<realm id>/<2 chars>/<random>/<file name>`.
    pub path_id: String,
    /// The file's name under the uploads directory (only characters the server generated).
    pub storage_key: String,
    /// The sanitized file name (the last segment of `path_id`).
    pub name: String,
    pub size: i64,
    pub content_type: String,
    pub is_image: bool,
    /// UNIX seconds.
    pub create_time: i64,
    /// Whether a message has ever linked it.
    pub claimed: bool,
}

/// A message linking an attachment, with when it was sent (UNIX seconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkingMessage {
    pub id: MessageId,
    pub date_sent: i64,
}

/// An attachment with the messages linking it, as listings and events show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttachmentView {
    pub attachment: Attachment,
    pub messages: Vec<LinkingMessage>,
}

/// What an uploaded image is, read from its headers at upload time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageInfo {
    /// Decodable within the limits: previewed with thumbnails. Otherwise neither.
    pub usable: bool,
    /// As shown (after the orientation the file declares).
    pub width: u32,
    pub height: u32,
    pub animated: bool,
    /// The content type of the format the bytes are in.
    pub content_type: String,
}

/// One custom emoji of the organization.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RealmEmoji {
    pub id: i64,
    pub name: String,
    pub author_id: Option<UserId>,
    /// The stored picture's name under the emoji directory.
    pub file_name: String,
    /// For an animation: its still first frame's name.
    pub still_name: Option<String>,
    pub deactivated: bool,
}
