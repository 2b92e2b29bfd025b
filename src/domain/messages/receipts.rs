//! Read receipts (`GET /messages/{id}/read_receipts`): who has read a message the viewer can
//! read. Users who turned `send_read_receipts` off and the sender never appear. Must not build
//! SQL (that is `db::read_receipts`).

use crate::db::read_receipts as db;
use crate::domain::core::Core;
use crate::error::Result;
use crate::ids::MessageId;
use crate::model::User;

/// The ids of the users who have read message `id`, which `viewer` must be able to read.
pub async fn readers(state: &Core, viewer: &User, id: MessageId) -> Result<Vec<i64>> {
    let viewer = viewer.clone();
    state
        .db
        .read(move |c| {
            super::readable(c, &viewer, id)?;
            db::readers(c, id)
        })
        .await
}
