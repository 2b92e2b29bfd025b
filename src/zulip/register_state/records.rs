//! Register builders for the records a user keeps on the server: `muted_users`, `drafts` and
//! `saved_snippets`.

use rusqlite::Connection;
use serde_json::Value;

use super::{Ctx, State};
use crate::domain::records;
use crate::error::Result;
use crate::zulip::wire;

/// `muted_users`: whom the caller muted, and when.
pub(super) fn muted_users(c: &Connection, ctx: &Ctx, m: &mut State) -> Result<()> {
    let list = records::muted_by(c, ctx.user.id)?;
    m.insert("muted_users".into(), wire::muted_users(&list));
    Ok(())
}

/// `drafts`: the newest drafts (none when the caller does not synchronize drafts: turning it
/// off deletes them).
pub(super) fn drafts(c: &Connection, ctx: &Ctx, m: &mut State) -> Result<()> {
    let list = records::drafts_for_register(c, ctx.user.id)?;
    m.insert(
        "drafts".into(),
        Value::Array(list.iter().map(wire::draft).collect()),
    );
    Ok(())
}

/// `saved_snippets`.
pub(super) fn saved_snippets(c: &Connection, ctx: &Ctx, m: &mut State) -> Result<()> {
    let list = records::snippets_of(c, ctx.user.id)?;
    m.insert(
        "saved_snippets".into(),
        Value::Array(list.iter().map(wire::saved_snippet).collect()),
    );
    Ok(())
}
