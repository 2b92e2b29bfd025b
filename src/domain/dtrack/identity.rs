//! Dependency-Track identity rules: first-start personas, logins and JWTs, API-key and token
//! authentication, teams, their permissions and keys.
//!
//! Mirrors upstream (Alpine) semantics; error texts are upstream's. Must not touch HTTP types
//! or SQL (that is `db::dtrack_identity`).

use std::sync::Arc;

use crate::db::dtrack_identity as db;
use crate::domain::core::Core;
use crate::error::{Error, ErrorKind, Result};
use crate::ids::TeamId;

use super::jwt;
use super::keys;
use super::state::write;
use crate::model::dtrack::permissions::{PermSet, Permission};
use crate::model::dtrack::{ApiKey, Principal, PrincipalKind, Team};

pub const TEAM_NOT_FOUND: &str = "The team could not be found.";

fn new_uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// The teams created on an empty installation, with their permissions.
fn default_teams() -> Vec<(&'static str, PermSet)> {
    use Permission as P;
    vec![
        ("Administrators", PermSet::all()),
        (
            "Portfolio Managers",
            [P::ViewPortfolio, P::PortfolioManagement]
                .into_iter()
                .collect(),
        ),
        (
            "Automation",
            [P::ViewPortfolio, P::BomUpload].into_iter().collect(),
        ),
        ("Badge Viewers", [P::ViewBadges].into_iter().collect()),
    ]
}

/// Creates upstream's personas when there are no users or no teams (user `admin`/`admin` with a
/// forced password change, the four default teams, no API keys) and the system UUID on first
/// start; loads the system UUID. Idempotent.
pub async fn bootstrap(state: &Core) -> Result<()> {
    let needed = state
        .db
        .read(|c| Ok(db::count_users(c)? == 0 || db::count_teams(c)? == 0))
        .await?;
    let hash = if needed {
        Some(
            state
                .db
                .cpu(|| crate::password::hash("admin"))
                .await?
                .map_err(Error::internal)?,
        )
    } else {
        None
    };
    let system_uuid = new_uuid();
    let uuid = write(state, move |tx| {
        db::set_meta_if_absent(tx, "dtrack_system_uuid", &system_uuid)?;
        if let Some(hash) = hash
            && (db::count_users(tx)? == 0 || db::count_teams(tx)? == 0)
        {
            let admin = match db::user_by_name(tx, "admin")? {
                Some(u) => u.id,
                None => {
                    db::insert_user(tx, "admin", &hash, "Administrator", "admin@localhost", true)?
                }
            };
            for p in Permission::ALL {
                db::grant_user(tx, admin, p)?;
            }
            for (name, perms) in default_teams() {
                let team = db::insert_team(tx, &new_uuid(), name)?;
                for p in perms.iter() {
                    db::grant_team(tx, team, p)?;
                }
                if name == "Administrators" {
                    db::add_user_to_team(tx, admin, team)?;
                }
            }
        }
        db::meta(tx, "dtrack_system_uuid")?
            .ok_or_else(|| Error::internal("system uuid missing after insert"))
    })
    .await?;
    state.dtrack.set_system_uuid(uuid);
    Ok(())
}

/// The hash an unknown username is checked against (computed once per process).
async fn dummy_hash(state: &Core) -> Result<String> {
    if let Some(h) = state.dtrack.dummy_hash.get() {
        return Ok(h.clone());
    }
    let h = state
        .db
        .cpu(|| crate::password::hash("outpost-no-such-user"))
        .await?
        .map_err(Error::internal)?;
    Ok(state.dtrack.dummy_hash.get_or_init(|| h).clone())
}

/// Why a password check failed, as upstream's cause names.
fn login_error(cause: &'static str) -> Error {
    match cause {
        "SUSPENDED" => Error::forbidden(cause),
        _ => Error::unauthorized(cause),
    }
}

/// Checks username and password as upstream: password first, then suspension, then a pending
/// forced change (unless `allow_forced`). Unknown users still cost a hash. Beyond upstream, a
/// username with too many recent wrong passwords is refused (429) before any check, even with
/// the right password, as the chat login does.
async fn check_password(
    state: &Core,
    username: &str,
    password: &str,
    allow_forced: bool,
) -> Result<crate::model::dtrack::User> {
    // Counted under the name exactly as it is looked up (usernames match exactly), so failures
    // under another spelling (`ADMIN`, a KELVIN SIGN for `k`) never count against an account.
    let limiter_key = username.to_string();
    if let Some(wait) = state.dtrack.logins.blocked_for(&limiter_key) {
        return Err(Error::new(
            ErrorKind::RateLimited { retry_after: wait },
            "Too many failed login attempts. Try again later.",
        ));
    }
    let name = username.to_string();
    let user = state.db.read(move |c| db::user_by_name(c, &name)).await?;
    let stored = match &user {
        Some(u) => u.password_hash.clone(),
        None => dummy_hash(state).await?,
    };
    let pw = password.to_string();
    let ok = state
        .db
        .cpu(move || crate::password::verify(&pw, &stored))
        .await?;
    let Some(user) = user.filter(|_| ok) else {
        state.dtrack.logins.record_failure(&limiter_key);
        return Err(login_error("INVALID_CREDENTIALS"));
    };
    state.dtrack.logins.clear(&limiter_key);
    if user.suspended {
        return Err(login_error("SUSPENDED"));
    }
    if user.force_password_change && !allow_forced {
        return Err(login_error("FORCE_PASSWORD_CHANGE"));
    }
    Ok(user)
}

/// `POST /user/login`: a JWT for valid credentials, bound to the current password (see
/// [`jwt::password_stamp`]) so that a password change revokes it.
pub async fn login(state: &Core, username: &str, password: &str) -> Result<String> {
    let user = check_password(state, username, password, false).await?;
    let id = user.id;
    let perms = state.db.read(move |c| db::user_permissions(c, id)).await?;
    let names: Vec<&str> = perms.iter().map(Permission::name).collect();
    let key = state.dtrack.secret_key();
    Ok(jwt::issue(
        key,
        &user.username,
        &names,
        &jwt::password_stamp(key, &user.password_hash),
        crate::time::now_secs(),
    ))
}

/// `POST /user/forceChangePassword`: sets a new password after checking the old one.
pub async fn change_password(
    state: &Core,
    username: &str,
    password: &str,
    new_password: &str,
    confirm: &str,
) -> Result<()> {
    let user = check_password(state, username, password, true).await?;
    if new_password != confirm {
        return Err(Error::new(
            ErrorKind::NotAcceptable,
            "The passwords do not match. Password not changed.",
        ));
    }
    if new_password == password {
        return Err(Error::new(
            ErrorKind::NotAcceptable,
            "Existing password is the same as new password. Password not changed.",
        ));
    }
    let pw = new_password.to_string();
    let hash = state
        .db
        .cpu(move || crate::password::hash(&pw))
        .await?
        .map_err(Error::internal)?;
    let id = user.id;
    write(state, move |tx| db::set_password(tx, id, &hash)).await
}

fn unauthorized() -> Error {
    Error::unauthorized("")
}

/// Authenticates an API key. Verified keys are cached per generation, so the hot path costs a
/// map lookup, not a hash.
pub async fn authenticate_key(state: &Core, key: &str) -> Result<Arc<Principal>> {
    let dt = &state.dtrack;
    let read_at = dt.generation();
    if let Some(p) = dt.keys.get(key, read_at) {
        return Ok(p);
    }
    verify_key(state, key, read_at).await
}

/// Notes that an API key was used now; [`flush_key_usage`] records it as `lastUsed`. Upstream
/// tracks keys on requests that pass its authentication filter (not on badges).
pub fn note_key_use(state: &Core, who: &Principal) {
    if let PrincipalKind::ApiKey { id } = who.kind
        && let Ok(mut m) = state.dtrack.key_usage.lock()
    {
        m.insert(id.0, crate::time::now_millis());
    }
}

/// Writes the noted key uses (upstream flushes every 30 seconds).
pub async fn flush_key_usage(state: &Core) -> Result<()> {
    let used: Vec<(i64, i64)> = match state.dtrack.key_usage.lock() {
        Ok(mut m) => m.drain().collect(),
        Err(_) => return Ok(()),
    };
    if used.is_empty() {
        return Ok(());
    }
    // `lastUsed` is in no cache, so this write need not invalidate them (plain `db.write`).
    state
        .db
        .write(move |tx| {
            for (id, at) in &used {
                db::set_key_last_used(tx, crate::ids::ApiKeyId(*id), *at)?;
            }
            Ok(())
        })
        .await
}

/// Flushes key uses every 30 seconds until `stop`, and once more then.
pub async fn key_usage_worker(state: Arc<Core>, mut stop: tokio::sync::watch::Receiver<bool>) {
    loop {
        let stopping = tokio::select! {
            _ = tokio::time::sleep(std::time::Duration::from_secs(30)) => false,
            _ = stop.changed() => true,
        };
        if let Err(e) = flush_key_usage(&state).await {
            tracing::warn!(error = %e, "could not record API key use");
        }
        if stopping || *stop.borrow() {
            return;
        }
    }
}

async fn verify_key(state: &Core, key: &str, read_at: u64) -> Result<Arc<Principal>> {
    let dt = &state.dtrack;
    let Some(decoded) = keys::decode(key) else {
        return Err(unauthorized());
    };
    let public_id = decoded.public_id.to_string();
    let secret_hash = keys::hash_secret(decoded.secret);
    let principal = state
        .db
        .read(move |c| {
            let Some((id, team, stored)) = db::api_key_by_public_id(c, &public_id)? else {
                return Ok(None);
            };
            if !crate::password::constant_time_eq(stored.as_bytes(), secret_hash.as_bytes()) {
                return Ok(None);
            }
            let Some(name) = db::team_name(c, team)? else {
                return Ok(None);
            };
            Ok(Some(Principal {
                kind: PrincipalKind::ApiKey { id },
                teams: vec![(team, name)],
                permissions: db::team_permissions(c, team)?,
            }))
        })
        .await?
        .ok_or_else(unauthorized)?;
    let principal = Arc::new(principal);
    dt.keys
        .put(key, Arc::clone(&principal), read_at, dt.generation());
    Ok(principal)
}

/// Authenticates a bearer token; the user must still exist, not be suspended, and have the
/// password the token was issued under (any password change revokes earlier tokens).
/// Permissions come from the database, not the token.
pub async fn authenticate_jwt(state: &Core, token: &str) -> Result<Arc<Principal>> {
    let key = state.dtrack.secret_key();
    let claims = jwt::verify(key, token, crate::time::now_secs()).ok_or_else(unauthorized)?;
    let stamp = claims.pwd.clone().ok_or_else(unauthorized)?;
    let key = key.to_vec();
    let principal = state
        .db
        .read(move |c| {
            let Some(user) = db::user_by_name(c, &claims.sub)? else {
                return Ok(None);
            };
            let current = jwt::password_stamp(&key, &user.password_hash);
            if user.suspended
                || !crate::password::constant_time_eq(current.as_bytes(), stamp.as_bytes())
            {
                return Ok(None);
            }
            Ok(Some(Principal {
                teams: db::user_teams(c, user.id)?,
                permissions: db::user_permissions(c, user.id)?,
                kind: PrincipalKind::User {
                    id: user.id,
                    username: user.username,
                },
            }))
        })
        .await?
        .ok_or_else(unauthorized)?;
    Ok(Arc::new(principal))
}

pub async fn teams(state: &Core) -> Result<Vec<Team>> {
    state.db.read(db::teams).await
}

/// A team by uuid; 404 `The team could not be found.`
pub async fn team(state: &Core, uuid: &str) -> Result<Team> {
    let uuid = uuid.to_string();
    state
        .db
        .read(move |c| match db::team_id_by_uuid(c, &uuid)? {
            Some(id) => db::team(c, id),
            None => Ok(None),
        })
        .await?
        .ok_or_else(|| Error::not_found(TEAM_NOT_FOUND))
}

/// Creates a team with permissions and, if asked, one API key (returned with its full key).
pub async fn create_team(
    state: &Core,
    name: &str,
    permissions: PermSet,
    with_key: bool,
) -> Result<Team> {
    let name = name.to_string();
    write(state, move |tx| {
        let id = db::insert_team(tx, &new_uuid(), &name)?;
        for p in permissions.iter() {
            db::grant_team(tx, id, p)?;
        }
        let key = if with_key {
            Some(insert_key(tx, id)?)
        } else {
            None
        };
        let mut team = db::team(tx, id)?.ok_or_else(|| Error::internal("team vanished"))?;
        if let Some(k) = key {
            for stored in &mut team.api_keys {
                if stored.id == k.id {
                    stored.key = k.key.clone();
                }
            }
        }
        Ok(team)
    })
    .await
}

fn insert_key(tx: &rusqlite::Connection, team: TeamId) -> Result<ApiKey> {
    let k = keys::generate();
    let created_ms = crate::time::now_millis();
    let id = db::insert_api_key(tx, team, &k.public_id, &k.secret_hash, created_ms)?;
    Ok(ApiKey {
        id,
        public_id: k.public_id,
        legacy: false,
        comment: None,
        created_ms,
        last_used_ms: None,
        key: Some(k.key),
    })
}

pub async fn rename_team(state: &Core, uuid: &str, name: &str) -> Result<Team> {
    let (uuid, name) = (uuid.to_string(), name.to_string());
    write(state, move |tx| {
        let id = db::team_id_by_uuid(tx, &uuid)?.ok_or_else(|| Error::not_found(TEAM_NOT_FOUND))?;
        db::rename_team(tx, id, &name)?;
        db::team(tx, id)?.ok_or_else(|| Error::internal("team vanished"))
    })
    .await
}

/// Deletes a team with its keys and mappings.
pub async fn delete_team(state: &Core, uuid: &str) -> Result<()> {
    let uuid = uuid.to_string();
    write(state, move |tx| {
        let id = db::team_id_by_uuid(tx, &uuid)?.ok_or_else(|| Error::not_found(TEAM_NOT_FOUND))?;
        db::delete_team(tx, id)
    })
    .await
}

/// `PUT /team/{uuid}/key`: a new key for the team, returned once in full.
pub async fn create_key(state: &Core, team_uuid: &str) -> Result<ApiKey> {
    let uuid = team_uuid.to_string();
    write(state, move |tx| {
        let id = db::team_id_by_uuid(tx, &uuid)?.ok_or_else(|| Error::not_found(TEAM_NOT_FOUND))?;
        insert_key(tx, id)
    })
    .await
}

/// `DELETE /team/key/{publicIdOrKey}`: by public id, or by a full key.
pub async fn delete_key(state: &Core, public_id_or_key: &str) -> Result<()> {
    let given = public_id_or_key.to_string();
    write(state, move |tx| {
        if db::delete_api_key(tx, &given)? {
            return Ok(());
        }
        if let Some(d) = keys::decode(&given)
            && db::delete_api_key(tx, d.public_id)?
        {
            return Ok(());
        }
        Err(Error::not_found("The API key could not be found."))
    })
    .await
}

/// Grants (or revokes) a permission to a team; `NotModified` if nothing changes.
pub async fn set_team_permission(
    state: &Core,
    permission: &str,
    team_uuid: &str,
    grant: bool,
) -> Result<Team> {
    let (permission, uuid) = (permission.to_string(), team_uuid.to_string());
    write(state, move |tx| {
        let id = db::team_id_by_uuid(tx, &uuid)?.ok_or_else(|| Error::not_found(TEAM_NOT_FOUND))?;
        let p = Permission::from_name(&permission)
            .ok_or_else(|| Error::not_found("The permission could not be found."))?;
        let changed = if grant {
            db::grant_team(tx, id, p)?
        } else {
            db::revoke_team(tx, id, p)?
        };
        if !changed {
            return Err(Error::new(ErrorKind::NotModified, ""));
        }
        db::team(tx, id)?.ok_or_else(|| Error::internal("team vanished"))
    })
    .await
}

/// The team of an API-key principal (`GET /team/self`).
pub async fn own_team(state: &Core, who: &Principal) -> Result<Team> {
    if !matches!(who.kind, PrincipalKind::ApiKey { .. }) {
        return Err(Error::bad_request("Invalid API key supplied."));
    }
    let Some((id, _)) = who.teams.first().cloned() else {
        return Err(Error::not_found("No Team for the given API key found."));
    };
    state
        .db
        .read(move |c| db::team(c, id))
        .await?
        .ok_or_else(|| Error::not_found("No Team for the given API key found."))
}
