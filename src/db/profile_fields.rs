//! SQL for custom profile fields and users' values for them.

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::Result;
use crate::ids::{ProfileFieldId, UserId};
use crate::model::{ProfileField, ProfileFieldType, ProfileValue};

const COLUMNS: &str = "id, name, hint, field_type, field_data, sort_order, \
     display_in_profile_summary, required, editable_by_user";

fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ProfileField> {
    let t: i64 = r.get(3)?;
    Ok(ProfileField {
        id: ProfileFieldId(r.get(0)?),
        name: r.get(1)?,
        hint: r.get(2)?,
        field_type: ProfileFieldType::from_code(t).unwrap_or(ProfileFieldType::ShortText),
        field_data: r.get(4)?,
        order: r.get(5)?,
        display_in_profile_summary: r.get(6)?,
        required: r.get(7)?,
        editable_by_user: r.get(8)?,
    })
}

/// All fields in display order.
pub fn all(c: &Connection) -> Result<Vec<ProfileField>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM custom_profile_fields ORDER BY sort_order, id"
    ))?;
    let rows = st.query_map([], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub fn get(c: &Connection, id: ProfileFieldId) -> Result<Option<ProfileField>> {
    let mut st = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM custom_profile_fields WHERE id = ?1"
    ))?;
    Ok(st.query_row([id.0], from_row).optional()?)
}

pub fn name_taken(c: &Connection, name: &str) -> Result<bool> {
    Ok(c.query_row(
        "SELECT 1 FROM custom_profile_fields WHERE name = ?1 COLLATE NOCASE",
        [name],
        |_| Ok(()),
    )
    .optional()?
    .is_some())
}

/// Inserts a field at the end of the display order (its `order` is ignored).
pub fn insert(c: &Connection, f: &ProfileField) -> Result<ProfileFieldId> {
    let next: i64 = c.query_row(
        "SELECT coalesce(max(sort_order), 0) + 1 FROM custom_profile_fields",
        [],
        |r| r.get(0),
    )?;
    c.execute(
        "INSERT INTO custom_profile_fields (name, hint, field_type, field_data, sort_order, \
         display_in_profile_summary, required, editable_by_user) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            f.name,
            f.hint,
            f.field_type as i64,
            f.field_data,
            next,
            f.display_in_profile_summary,
            f.required,
            f.editable_by_user,
        ],
    )?;
    Ok(ProfileFieldId(c.last_insert_rowid()))
}

/// Values of one user, or of everyone when `user` is `None`.
pub fn values(c: &Connection, user: Option<UserId>) -> Result<Vec<ProfileValue>> {
    let map = |r: &rusqlite::Row<'_>| {
        Ok(ProfileValue {
            user_id: UserId(r.get(0)?),
            field_id: ProfileFieldId(r.get(1)?),
            value: r.get(2)?,
            rendered_value: r.get(3)?,
        })
    };
    let sql = "SELECT user_id, field_id, value, rendered_value FROM custom_profile_values";
    Ok(match user {
        Some(u) => {
            let mut st = c.prepare_cached(&format!("{sql} WHERE user_id = ?1"))?;
            st.query_map([u.0], map)?.collect::<rusqlite::Result<_>>()?
        }
        None => {
            let mut st = c.prepare_cached(sql)?;
            st.query_map([], map)?.collect::<rusqlite::Result<_>>()?
        }
    })
}

pub fn set_value(c: &Connection, v: &ProfileValue) -> Result<()> {
    c.execute(
        "INSERT INTO custom_profile_values (user_id, field_id, value, rendered_value) \
         VALUES (?1, ?2, ?3, ?4) ON CONFLICT (user_id, field_id) DO UPDATE SET \
         value = excluded.value, rendered_value = excluded.rendered_value",
        params![v.user_id.0, v.field_id.0, v.value, v.rendered_value],
    )?;
    Ok(())
}

pub fn clear_value(c: &Connection, user: UserId, field: ProfileFieldId) -> Result<()> {
    c.execute(
        "DELETE FROM custom_profile_values WHERE user_id = ?1 AND field_id = ?2",
        params![user.0, field.0],
    )?;
    Ok(())
}
