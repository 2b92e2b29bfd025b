//! The initial state `POST /register` returns, per requested type (`fetch_event_types`).
//!
//! [`BUILDERS`] maps each event type to the small builder that adds its keys; builders fetch
//! (most inside one shared database read) and render through `zulip::wire`. Organization
//! settings come from `domain::realm_settings`, limits from the constants the endpoints
//! enforce. Must not touch: event queues (`realtime` creates the queue), presence rules
//! (`zulip::presence` owns the shared listing).

mod channels;
mod messages;
mod realm;
mod records;
mod users;

use std::collections::HashSet;
use std::sync::Arc;

use rusqlite::Connection;
use serde_json::{Map, Value};

use super::realtime::{DEFAULT_PRESENCE_HISTORY_DAYS, SubscriberDetail};
use super::server::{FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION};
use super::wire::Viewer;
use crate::error::Result;
use crate::events::queues::QueueOptions;
use crate::ids::UserId;
use crate::model::User;
use crate::zulip::ChatState;

/// The keys being built.
type State = Map<String, Value>;

/// What every builder may need: the caller, what they asked for, and how.
pub struct Ctx {
    /// The requested event types; `None` asks for all.
    types: Option<Vec<String>>,
    user: User,
    host: String,
    client_gravatar: bool,
    empty_topic_name: bool,
    settings_as_object: bool,
    archived_channels: bool,
    include_deactivated_groups: bool,
    slim_presence: bool,
    presence_days: i64,
    configured_name: String,
    /// Whether the server is configured for push (`domain::push::configured`).
    push_configured: bool,
    subscribers: SubscriberDetail,
    /// Users active within the default presence window (for partial subscriber lists).
    recently_active: HashSet<UserId>,
}

impl Ctx {
    fn wants(&self, t: &str) -> bool {
        self.types
            .as_ref()
            .is_none_or(|list| list.iter().any(|x| x == t))
    }

    /// Whether the client named its types (rather than asking for everything).
    fn named_types(&self) -> bool {
        self.types.is_some()
    }

    fn viewer(&self) -> Viewer<'_> {
        Viewer {
            user: &self.user,
            host: &self.host,
            client_gravatar: self.client_gravatar,
        }
    }
}

/// How a builder gets its data.
enum Builder {
    /// From the database; all of these share one read.
    Db(fn(&Connection, &Ctx, &mut State) -> Result<()>),
    /// From the configuration and in-memory tables.
    Server(fn(&ChatState, &Ctx, &mut State)),
    /// The channels the caller may list (`domain::channels::list`).
    Streams,
    /// Everyone's presence (`zulip::presence::realm_presences`).
    Presences,
}

use Builder::{Db, Presences, Server, Streams};

/// Event type → builder, in the order the keys are built (a later builder's key wins). Some
/// builders check a second type themselves (`unread_msgs` also needs `message`; legacy
/// `muted_topics` yields to an explicitly requested `user_topic`).
const BUILDERS: &[(&str, Builder)] = &[
    ("message", Db(messages::max_message_id)),
    ("realm_user", Db(users::realm_users)),
    ("realm_bot", Db(users::realm_bots)),
    ("realm", Db(realm::organization_settings)),
    ("subscription", Db(channels::subscriptions)),
    ("channel_folders", Db(channels::channel_folders)),
    ("update_message_flags", Db(messages::unread_msgs)),
    ("starred_messages", Db(messages::starred)),
    ("user_topic", Db(messages::user_topics)),
    ("muted_topics", Db(messages::muted_topics)),
    ("alert_words", Db(messages::alert_words)),
    ("scheduled_messages", Db(messages::scheduled_messages)),
    ("reminders", Db(messages::reminders)),
    ("user_status", Db(users::user_status)),
    ("user_settings", Db(users::user_settings)),
    ("realm_user_groups", Db(users::user_groups)),
    (
        "recent_private_conversations",
        Db(messages::recent_conversations),
    ),
    ("custom_profile_fields", Db(users::profile_fields)),
    ("realm_emoji", Db(realm::realm_emoji)),
    ("realm", Db(realm::push_flags)),
    ("muted_users", Db(records::muted_users)),
    ("drafts", Db(records::drafts)),
    ("saved_snippets", Db(records::saved_snippets)),
    ("stream", Streams),
    (
        "realm_user_settings_defaults",
        Server(users::user_settings_defaults),
    ),
    ("realm", Server(realm::permission_settings)),
    ("presence", Presences),
    ("realm", Server(realm::facts_and_limits)),
];

/// Builds the state for the requested types.
pub async fn initial_state(
    state: &ChatState,
    user: &User,
    types: Option<&[String]>,
    opts: &QueueOptions,
    include_subscribers: SubscriberDetail,
    presence_days: i64,
) -> Result<Map<String, Value>> {
    let now = crate::time::now_secs();
    // Partial subscriber lists keep users active within the default presence window.
    let recently_active: HashSet<UserId> = match include_subscribers {
        SubscriberDetail::Partial => state
            .presence
            .all()
            .into_iter()
            .filter(|(_, e)| e.active_timestamp >= now - DEFAULT_PRESENCE_HISTORY_DAYS * 86_400)
            .map(|(u, _)| u)
            .collect(),
        _ => HashSet::new(),
    };
    let ctx = Arc::new(Ctx {
        types: types.map(<[String]>::to_vec),
        user: user.clone(),
        host: state.config.realm_host().to_string(),
        client_gravatar: opts.client_gravatar,
        empty_topic_name: opts.empty_topic_name,
        settings_as_object: opts.user_settings_object,
        archived_channels: opts.archived_channels,
        include_deactivated_groups: opts.include_deactivated_groups,
        slim_presence: opts.slim_presence,
        presence_days,
        configured_name: state.config.chat.realm_name.clone(),
        push_configured: crate::domain::push::configured(state),
        subscribers: include_subscribers,
        recently_active,
    });
    let mut out = Map::new();
    out.insert("zulip_version".into(), Value::from(ZULIP_VERSION));
    out.insert("zulip_feature_level".into(), Value::from(FEATURE_LEVEL));
    out.insert("zulip_merge_base".into(), Value::from(ZULIP_MERGE_BASE));
    let shared = Arc::clone(&ctx);
    let from_db = state
        .db
        .read(move |c| {
            let mut m = Map::new();
            for (event_type, builder) in BUILDERS {
                if let Db(build) = builder
                    && shared.wants(event_type)
                {
                    build(c, &shared, &mut m)?;
                }
            }
            Ok(m)
        })
        .await?;
    out.extend(from_db);
    for (event_type, builder) in BUILDERS {
        if !ctx.wants(event_type) {
            continue;
        }
        match builder {
            Db(_) => {}
            Server(build) => build(state, &ctx, &mut out),
            Streams => channels::streams(state, &ctx, &mut out).await?,
            Presences => presences(state, &ctx, &mut out).await?,
        }
    }
    for (event_type, key, value) in super::wire::unused_features() {
        if ctx.wants(event_type) {
            out.insert(key.into(), value);
        }
    }
    Ok(out)
}

/// `presences` (the listing `GET /realm/presence` shares), `presence_last_update_id` and
/// `server_timestamp`.
async fn presences(state: &ChatState, ctx: &Ctx, out: &mut State) -> Result<()> {
    let query = super::presence::PresenceQuery {
        slim: ctx.slim_presence,
        since_update_id: None,
        history_days: ctx.presence_days,
    };
    out.insert(
        "presences".into(),
        super::presence::realm_presences(state, &query).await?,
    );
    out.insert(
        "presence_last_update_id".into(),
        Value::from(state.presence.last_update_id()),
    );
    out.insert(
        "server_timestamp".into(),
        Value::from(crate::time::now_millis() as f64 / 1000.0),
    );
    Ok(())
}
