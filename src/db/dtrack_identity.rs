//! SQL of Dependency-Track identity: teams, their permissions and API keys, managed users.
//!
//! Synchronous functions over a connection; no HTTP types, no rules beyond what SQL enforces.

use rusqlite::{Connection, OptionalExtension as _, params};

use crate::error::Result;
use crate::ids::{ApiKeyId, DtUserId, TeamId};
use crate::model::dtrack::permissions::{PermSet, Permission};
use crate::model::dtrack::{ApiKey, Team, User};

pub fn count_users(c: &Connection) -> Result<i64> {
    Ok(c.query_row("SELECT count(*) FROM dt_users", [], |r| r.get(0))?)
}

pub fn count_teams(c: &Connection) -> Result<i64> {
    Ok(c.query_row("SELECT count(*) FROM dt_teams", [], |r| r.get(0))?)
}

pub fn insert_team(c: &Connection, uuid: &str, name: &str) -> Result<TeamId> {
    c.execute(
        "INSERT INTO dt_teams (uuid, name) VALUES (?1, ?2)",
        params![uuid, name],
    )?;
    Ok(TeamId(c.last_insert_rowid()))
}

pub fn rename_team(c: &Connection, id: TeamId, name: &str) -> Result<()> {
    c.execute(
        "UPDATE dt_teams SET name = ?2 WHERE id = ?1",
        params![id.0, name],
    )?;
    Ok(())
}

pub fn delete_team(c: &Connection, id: TeamId) -> Result<()> {
    c.execute("DELETE FROM dt_teams WHERE id = ?1", [id.0])?;
    Ok(())
}

/// Grants a permission; false if the team already had it.
pub fn grant_team(c: &Connection, id: TeamId, p: Permission) -> Result<bool> {
    Ok(c.execute(
        "INSERT OR IGNORE INTO dt_team_permissions (team_id, permission) VALUES (?1, ?2)",
        params![id.0, p.name()],
    )? == 1)
}

/// Revokes a permission; false if the team did not have it.
pub fn revoke_team(c: &Connection, id: TeamId, p: Permission) -> Result<bool> {
    Ok(c.execute(
        "DELETE FROM dt_team_permissions WHERE team_id = ?1 AND permission = ?2",
        params![id.0, p.name()],
    )? == 1)
}

fn perms(c: &Connection, sql: &str, id: i64) -> Result<PermSet> {
    let mut st = c.prepare_cached(sql)?;
    let names = st.query_map([id], |r| r.get::<_, String>(0))?;
    let mut set = PermSet::default();
    for n in names {
        if let Some(p) = Permission::from_name(&n?) {
            set.insert(p);
        }
    }
    Ok(set)
}

pub fn team_permissions(c: &Connection, id: TeamId) -> Result<PermSet> {
    perms(
        c,
        "SELECT permission FROM dt_team_permissions WHERE team_id = ?1",
        id.0,
    )
}

pub fn team_id_by_uuid(c: &Connection, uuid: &str) -> Result<Option<TeamId>> {
    Ok(
        c.query_row("SELECT id FROM dt_teams WHERE uuid = ?1", [uuid], |r| {
            r.get(0).map(TeamId)
        })
        .optional()?,
    )
}

pub fn team_id_by_name(c: &Connection, name: &str) -> Result<Option<TeamId>> {
    Ok(c.query_row(
        "SELECT id FROM dt_teams WHERE name = ?1 ORDER BY id LIMIT 1",
        [name],
        |r| r.get(0).map(TeamId),
    )
    .optional()?)
}

fn api_keys(c: &Connection, team: TeamId) -> Result<Vec<ApiKey>> {
    let mut st = c.prepare_cached(
        "SELECT id, public_id, legacy, comment, created_ms, last_used_ms FROM dt_api_keys
         WHERE team_id = ?1 ORDER BY id",
    )?;
    let rows = st.query_map([team.0], |r| {
        Ok(ApiKey {
            id: ApiKeyId(r.get(0)?),
            public_id: r.get(1)?,
            legacy: r.get(2)?,
            comment: r.get(3)?,
            created_ms: r.get(4)?,
            last_used_ms: r.get(5)?,
            key: None,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn team_users(c: &Connection, team: TeamId) -> Result<Vec<String>> {
    let mut st = c.prepare_cached(
        "SELECT u.username FROM dt_user_teams t JOIN dt_users u ON u.id = t.user_id
         WHERE t.team_id = ?1 ORDER BY u.username",
    )?;
    let rows = st.query_map([team.0], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub fn team(c: &Connection, id: TeamId) -> Result<Option<Team>> {
    let row: Option<(String, String)> = c
        .query_row(
            "SELECT uuid, name FROM dt_teams WHERE id = ?1",
            [id.0],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let Some((uuid, name)) = row else {
        return Ok(None);
    };
    Ok(Some(Team {
        id,
        uuid,
        name,
        permissions: team_permissions(c, id)?,
        api_keys: api_keys(c, id)?,
        users: team_users(c, id)?,
    }))
}

/// Every team, ordered by name as upstream's listing.
pub fn teams(c: &Connection) -> Result<Vec<Team>> {
    let ids: Vec<TeamId> = {
        let mut st = c.prepare("SELECT id FROM dt_teams ORDER BY name, id")?;
        let rows = st.query_map([], |r| r.get(0).map(TeamId))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some(t) = team(c, id)? {
            out.push(t);
        }
    }
    Ok(out)
}

pub fn insert_api_key(
    c: &Connection,
    team: TeamId,
    public_id: &str,
    secret_hash: &str,
    created_ms: i64,
) -> Result<ApiKeyId> {
    c.execute(
        "INSERT INTO dt_api_keys (team_id, public_id, secret_hash, legacy, created_ms)
         VALUES (?1, ?2, ?3, 0, ?4)",
        params![team.0, public_id, secret_hash, created_ms],
    )?;
    Ok(ApiKeyId(c.last_insert_rowid()))
}

/// Deletes a key by public id; false if there was none.
pub fn delete_api_key(c: &Connection, public_id: &str) -> Result<bool> {
    Ok(c.execute("DELETE FROM dt_api_keys WHERE public_id = ?1", [public_id])? == 1)
}

/// Records a key's latest use (never moving it back).
pub fn set_key_last_used(c: &Connection, id: ApiKeyId, at_ms: i64) -> Result<()> {
    c.execute(
        "UPDATE dt_api_keys SET last_used_ms = max(coalesce(last_used_ms, 0), ?2) WHERE id = ?1",
        params![id.0, at_ms],
    )?;
    Ok(())
}

/// A stored key by public id: (key id, team id, secret hash).
pub fn api_key_by_public_id(
    c: &Connection,
    public_id: &str,
) -> Result<Option<(ApiKeyId, TeamId, String)>> {
    Ok(
        c.prepare_cached("SELECT id, team_id, secret_hash FROM dt_api_keys WHERE public_id = ?1")?
            .query_row([public_id], |r| {
                Ok((ApiKeyId(r.get(0)?), TeamId(r.get(1)?), r.get(2)?))
            })
            .optional()?,
    )
}

/// (id, name) of a team.
pub fn team_name(c: &Connection, id: TeamId) -> Result<Option<String>> {
    Ok(c.prepare_cached("SELECT name FROM dt_teams WHERE id = ?1")?
        .query_row([id.0], |r| r.get(0))
        .optional()?)
}

pub fn insert_user(
    c: &Connection,
    username: &str,
    password_hash: &str,
    fullname: &str,
    email: &str,
    force_password_change: bool,
) -> Result<DtUserId> {
    c.execute(
        "INSERT INTO dt_users (username, password_hash, fullname, email, force_password_change,
                               non_expiry_password)
         VALUES (?1, ?2, ?3, ?4, ?5, 1)",
        params![
            username,
            password_hash,
            fullname,
            email,
            force_password_change
        ],
    )?;
    Ok(DtUserId(c.last_insert_rowid()))
}

pub fn grant_user(c: &Connection, id: DtUserId, p: Permission) -> Result<()> {
    c.execute(
        "INSERT OR IGNORE INTO dt_user_permissions (user_id, permission) VALUES (?1, ?2)",
        params![id.0, p.name()],
    )?;
    Ok(())
}

pub fn add_user_to_team(c: &Connection, user: DtUserId, team: TeamId) -> Result<()> {
    c.execute(
        "INSERT OR IGNORE INTO dt_user_teams (user_id, team_id) VALUES (?1, ?2)",
        params![user.0, team.0],
    )?;
    Ok(())
}

pub fn user_by_name(c: &Connection, username: &str) -> Result<Option<User>> {
    Ok(c.prepare_cached(
        "SELECT id, username, password_hash, force_password_change, suspended
             FROM dt_users WHERE username = ?1",
    )?
    .query_row([username], |r| {
        Ok(User {
            id: DtUserId(r.get(0)?),
            username: r.get(1)?,
            password_hash: r.get(2)?,
            force_password_change: r.get(3)?,
            suspended: r.get(4)?,
        })
    })
    .optional()?)
}

pub fn set_password(c: &Connection, id: DtUserId, hash: &str) -> Result<()> {
    c.execute(
        "UPDATE dt_users SET password_hash = ?2, force_password_change = 0 WHERE id = ?1",
        params![id.0, hash],
    )?;
    Ok(())
}

/// A user's teams (id, name) in id order.
pub fn user_teams(c: &Connection, id: DtUserId) -> Result<Vec<(TeamId, String)>> {
    let mut st = c.prepare_cached(
        "SELECT t.id, t.name FROM dt_user_teams ut JOIN dt_teams t ON t.id = ut.team_id
         WHERE ut.user_id = ?1 ORDER BY t.id",
    )?;
    let rows = st.query_map([id.0], |r| Ok((TeamId(r.get(0)?), r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub fn user_permissions(c: &Connection, id: DtUserId) -> Result<PermSet> {
    perms(
        c,
        "SELECT permission FROM dt_user_permissions WHERE user_id = ?1
         UNION SELECT tp.permission FROM dt_user_teams ut
               JOIN dt_team_permissions tp ON tp.team_id = ut.team_id WHERE ut.user_id = ?1",
        id.0,
    )
}

/// A value from the installation-wide `meta` table.
pub fn meta(c: &Connection, key: &str) -> Result<Option<String>> {
    Ok(
        c.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()?,
    )
}

pub fn set_meta_if_absent(c: &Connection, key: &str, value: &str) -> Result<()> {
    c.execute(
        "INSERT OR IGNORE INTO meta (key, value) VALUES (?1, ?2)",
        params![key, value],
    )?;
    Ok(())
}
