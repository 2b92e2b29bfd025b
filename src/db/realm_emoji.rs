//! SQL for custom emoji (in `schema.sql`). Knows no rules and no JSON; the pictures
//! themselves are `domain::realm_emoji`'s.

use rusqlite::{Connection, OptionalExtension, Row, params};

use crate::error::Result;
use crate::ids::UserId;
use crate::model::uploads::RealmEmoji;

const COLUMNS: &str = "id, name, author_id, file_name, still_name, deactivated";

fn row(r: &Row<'_>) -> rusqlite::Result<RealmEmoji> {
    Ok(RealmEmoji {
        id: r.get(0)?,
        name: r.get(1)?,
        author_id: r.get::<_, Option<i64>>(2)?.map(UserId),
        file_name: r.get(3)?,
        still_name: r.get(4)?,
        deactivated: r.get(5)?,
    })
}

/// Every emoji, deactivated ones too, by id.
pub fn all(c: &Connection) -> Result<Vec<RealmEmoji>> {
    let mut st = c.prepare_cached(&format!("SELECT {COLUMNS} FROM realm_emoji ORDER BY id"))?;
    let rows = st.query_map([], row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The active emoji called `name`.
pub fn active_by_name(c: &Connection, name: &str) -> Result<Option<RealmEmoji>> {
    Ok(c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM realm_emoji WHERE name = ?1 AND deactivated = 0"
    ))?
    .query_row([name], row)
    .optional()?)
}

pub fn by_id(c: &Connection, id: i64) -> Result<Option<RealmEmoji>> {
    Ok(
        c.prepare_cached(&format!("SELECT {COLUMNS} FROM realm_emoji WHERE id = ?1"))?
            .query_row([id], row)
            .optional()?,
    )
}

/// The emoji whose picture or still is stored as `file`.
pub fn by_file(c: &Connection, file: &str) -> Result<Option<RealmEmoji>> {
    Ok(c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM realm_emoji WHERE file_name = ?1 OR still_name = ?1"
    ))?
    .query_row([file], row)
    .optional()?)
}

/// Stores a new active emoji (its `id` is ignored); returns its id.
pub fn insert(c: &Connection, e: &RealmEmoji, now: i64) -> Result<i64> {
    c.prepare_cached(
        "INSERT INTO realm_emoji (name, author_id, file_name, still_name, create_time) \
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![
        e.name,
        e.author_id.map(|u| u.0),
        e.file_name,
        e.still_name,
        now
    ])?;
    Ok(c.last_insert_rowid())
}

pub fn deactivate(c: &Connection, id: i64) -> Result<()> {
    c.prepare_cached("UPDATE realm_emoji SET deactivated = 1 WHERE id = ?1")?
        .execute([id])?;
    Ok(())
}

/// The names of every stored picture (for backups).
pub fn file_names_in(path: &std::path::Path) -> Result<Vec<String>> {
    let c = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let mut st = c.prepare("SELECT file_name, still_name FROM realm_emoji ORDER BY id")?;
    let rows = st.query_map([], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?))
    })?;
    let mut out = Vec::new();
    for r in rows {
        let (f, s) = r?;
        out.push(f);
        out.extend(s);
    }
    Ok(out)
}
