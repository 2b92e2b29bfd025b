//! The server's registration with Zulip's push notification service (`outpost push register`,
//! upstream's `manage.py register_server`): the stored credentials, or new ones stored first
//! so that a retry registers the same server; `POST remotes/server/register` (unauthenticated,
//! form fields `zulip_org_id`, `zulip_org_key`, `hostname`, `contact_email`, and `new_org_key`
//! when rotating the key, which is stored only once the service took it).
//!
//! Files and one network call; no database. Messages never contain the org key.

use serde::Deserialize;

use crate::config::Config;

use super::bouncer::{Body, CallError, Service};
use super::credentials::{self, Credentials};

/// Where the terms the operator agrees to are published.
pub const TERMS_URL: &str = "https://zulip.com/policies/terms";

/// What registering did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Registration {
    /// The service created a new registration (false: it knew this server already).
    pub created: bool,
    /// The org key was replaced by a new one.
    pub rotated: bool,
    pub zulip_org_id: String,
    /// The hostname registered.
    pub hostname: String,
    pub credentials_file: std::path::PathBuf,
}

#[derive(Deserialize)]
struct Answer {
    #[serde(default)]
    created: bool,
}

/// The hostname the service knows this server by: `external_url`'s host and port.
pub fn hostname(config: &Config) -> String {
    let url = &config.chat.external_url;
    let rest = url.split_once("://").map_or(url.as_str(), |(_, r)| r);
    rest.split('/').next().unwrap_or(rest).to_string()
}

/// Registers the server (or renews its registration; with `rotate_key`, replaces its key).
/// Errors are sentences for the operator.
pub async fn register(
    config: &Config,
    contact_email: &str,
    rotate_key: bool,
) -> Result<Registration, String> {
    let email = contact_email.trim();
    if email.is_empty() || !email.contains('@') || email.chars().any(char::is_whitespace) {
        return Err(format!("{contact_email:?} is not an email address"));
    }
    let data_dir = &config.data_dir;
    let file = credentials::path(data_dir);
    let creds = match credentials::load(data_dir).map_err(|e| describe(&e))? {
        Some(c) => c,
        None => {
            let c = Credentials::generate();
            credentials::store(data_dir, &c).map_err(|e| describe(&e))?;
            c
        }
    };
    let host = hostname(config);
    let mut form = vec![
        ("zulip_org_id".to_string(), creds.zulip_org_id.clone()),
        ("zulip_org_key".to_string(), creds.zulip_org_key.clone()),
        ("hostname".to_string(), host.clone()),
        ("contact_email".to_string(), email.to_string()),
    ];
    let new_key = rotate_key.then(credentials::new_org_key);
    if let Some(k) = &new_key {
        form.push(("new_org_key".into(), k.clone()));
    }
    let service = Service {
        base_url: config.push.bouncer_url.clone(),
        credentials: None,
        proxies: config.proxy.clone(),
        timeout: super::bouncer::TIMEOUT,
    };
    let answer = service
        .post("server/register", Body::Form(form))
        .await
        .map_err(|e| match e {
            CallError::RetryLater(why) => format!("{why}; try again later"),
            CallError::Refused { code, msg } => {
                format!("the push notification service refused the registration: {msg} ({code})")
            }
            CallError::Failed(why) => why,
        })?;
    let created = serde_json::from_slice::<Answer>(&answer)
        .map(|a| a.created)
        .unwrap_or(false);
    if let Some(k) = new_key {
        let rotated = Credentials {
            zulip_org_key: k,
            ..creds.clone()
        };
        credentials::store(data_dir, &rotated).map_err(|e| {
            format!(
                "the service took the new key but it could not be stored ({}); the old key no \
                 longer works",
                describe(&e)
            )
        })?;
    }
    Ok(Registration {
        created,
        rotated: rotate_key,
        zulip_org_id: creds.zulip_org_id,
        hostname: host,
        credentials_file: file,
    })
}

fn describe(e: &crate::error::Error) -> String {
    match &e.detail {
        Some(d) => format!("{}: {d}", e.msg),
        None => e.msg.to_string(),
    }
}
