//! Previews: a message's Markdown rendered exactly as a send would render it, without sending
//! (`POST /messages/render`). Reads only: must not write, notify or publish anything.

use crate::domain::core::Core;
use crate::error::Result;
use crate::model::User;

use super::lookup::DbLookup;
use super::send::normalize_content;

/// The HTML `content` would get if `sender` sent it now (mentions, channel links, emoji and
/// upload previews resolved against the database as a send resolves them).
pub async fn render(state: &Core, sender: &User, content: &str) -> Result<String> {
    let content = normalize_content(content)?;
    let realm_url = state.config.chat.external_url.clone();
    let sender = sender.clone();
    state
        .db
        .read(move |c| {
            Ok(crate::markdown::render_message(
                &content,
                &DbLookup {
                    conn: c,
                    sender: &sender,
                    realm_url: &realm_url,
                },
            )
            .html)
        })
        .await
}
