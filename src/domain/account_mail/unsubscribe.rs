//! One-click unsubscribe (RFC 8058): the links missed-message (and digest) mails carry in their
//! `List-Unsubscribe` header, kept as long as upstream keeps them (practically forever), and
//! what following one does: the setting of that email type turned off.

use crate::db::account_links as links_db;
use crate::db::{WriteTx, settings as settings_db};
use crate::domain::core::Core;
use crate::error::Result;
use crate::events::{Event, SettingChanged};
use crate::ids::UserId;
use crate::model::SettingValue;

use super::{LinkProblem, MailContext, find_link, make_link};

/// The path prefix of unsubscribe links (`/accounts/unsubscribe/<type>/<key>`).
pub const LINK_PREFIX: &str = "/accounts/unsubscribe/";

/// How long an unsubscribe link works (upstream: 1,000,000 days).
const LIFETIME_SECS: i64 = 1_000_000 * 86_400;

/// Links kept per user and type (each mail makes one; older ones stop working).
const KEEP: i64 = 50;

/// The email types one can unsubscribe from, with the setting each turns off.
pub const TYPES: &[(&str, &str)] = &[
    ("missed_messages", "enable_offline_email_notifications"),
    ("digest", "enable_digest_emails"),
    ("login", "enable_login_emails"),
    ("marketing", "enable_marketing_emails"),
];

/// The setting an email type turns off, if the type is known.
pub fn setting_of(email_type: &str) -> Option<&'static str> {
    TYPES
        .iter()
        .find(|(t, _)| *t == email_type)
        .map(|(_, s)| *s)
}

fn kind(email_type: &str) -> String {
    format!("unsubscribe:{email_type}")
}

/// Inside a write: a new unsubscribe link of `email_type` for `user`.
pub fn make(
    tx: &mut WriteTx<'_>,
    ctx: &MailContext,
    user: UserId,
    email_type: &str,
    now: i64,
) -> Result<String> {
    let kind = kind(email_type);
    let key = make_link(tx, &kind, user, (None, None), now, LIFETIME_SECS)?;
    links_db::keep_newest(tx, user, &kind, KEEP)?;
    Ok(format!(
        "{}{LINK_PREFIX}{email_type}/{key}",
        ctx.external_url
    ))
}

/// The user an unsubscribe link is for.
pub async fn open(
    core: &Core,
    email_type: &str,
    key: &str,
    now: i64,
) -> Result<std::result::Result<UserId, LinkProblem>> {
    if setting_of(email_type).is_none() {
        return Ok(Err(LinkProblem::Unknown));
    }
    let (kind, key) = (kind(email_type), key.to_string());
    core.db
        .read(move |c| Ok(find_link(c, &kind, &key, now)?.map(|l| l.user_id)))
        .await
}

/// Turns the setting of `email_type` off for the link's user (the link keeps working, as
/// upstream's does, so a second click changes nothing more).
pub async fn apply(
    core: &Core,
    email_type: &str,
    key: &str,
    now: i64,
) -> Result<std::result::Result<UserId, LinkProblem>> {
    let Some(setting) = setting_of(email_type) else {
        return Ok(Err(LinkProblem::Unknown));
    };
    let (kind, key) = (kind(email_type), key.to_string());
    core.db
        .write(move |tx| {
            let link = match find_link(tx, &kind, &key, now)? {
                Ok(l) => l,
                Err(p) => return Ok(Err(p)),
            };
            let before = settings_db::get(tx, link.user_id, setting)?;
            if before.as_deref() != Some("false") {
                settings_db::set(tx, link.user_id, setting, "false")?;
                tx.emit(Event::SettingChanged(SettingChanged {
                    user_id: link.user_id,
                    name: setting,
                    value: SettingValue::Bool(false),
                }));
            }
            Ok(Ok(link.user_id))
        })
        .await
}
