//! Channel folder endpoints.

use serde_json::Value;

use crate::domain::channel_folders::{self, FolderUpdate};
use crate::error::{Error, Result};
use crate::ids::ChannelFolderId;
use crate::model::User;
use crate::zulip::ChatState;

use super::envelope::Success;
use super::params::Params;
use super::wire;

/// # `POST /api/v1/channel_folders/create`
pub async fn create(state: &ChatState, caller: &User, p: &mut Params) -> Result<Success> {
    let name = p.str("name").ok_or_else(|| Error::missing("name"))?;
    let description = p
        .str("description")
        .ok_or_else(|| Error::missing("description"))?;
    let id = channel_folders::create(state, caller, name, description).await?;
    Ok(Success::new().field("channel_folder_id", id.0))
}

/// # `GET /api/v1/channel_folders`
pub async fn list(state: &ChatState, p: &mut Params) -> Result<Success> {
    let include_archived = p.bool("include_archived")?.unwrap_or(false);
    let folders = channel_folders::list(state, include_archived).await?;
    let list: Vec<Value> = folders.iter().map(wire::channel_folder).collect();
    Ok(Success::new().field("channel_folders", list))
}

/// # `PATCH /api/v1/channel_folders/{channel_folder_id}`
pub async fn update(state: &ChatState, caller: &User, id: i64, p: &mut Params) -> Result<Success> {
    let up = FolderUpdate {
        name: p.str("name"),
        description: p.str("description"),
        is_archived: p.bool("is_archived")?,
    };
    channel_folders::update(state, caller, ChannelFolderId(id), up).await?;
    Ok(Success::new())
}
