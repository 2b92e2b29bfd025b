//! Delivery of channel folder events, to everyone.

use crate::db::channel_folders as folders_db;
use crate::error::Result;
use crate::events::FolderChange;
use crate::ids::ChannelFolderId;
use crate::zulip::ChatState;
use crate::zulip::wire::{self, events};

use super::push_to_users;

/// A new folder, or a change to one (`change`), as the folder is now.
pub(super) async fn folder(
    state: &ChatState,
    seq: u64,
    id: ChannelFolderId,
    change: Option<FolderChange>,
) -> Result<()> {
    let Some(f) = state.db.read(move |c| folders_db::get(c, id)).await? else {
        return Ok(());
    };
    let body = match change {
        None => events::channel_folder_added(wire::channel_folder(&f)),
        Some(change) => events::channel_folder_updated(&f, change),
    };
    push_to_users(state, seq, None, "channel_folder", &body);
    Ok(())
}
