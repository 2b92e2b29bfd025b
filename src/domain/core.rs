//! The domain handle: [`Core`] is what the rules read and write through (config, database,
//! the caches derived from stored rows, the login limiter, Dependency-Track's per-process
//! state, the mailer, the per-process keys, the image decoder's permit and the wakes of the
//! workers that act on stored rows), and [`OnCommit`] decides what each commit's events
//! invalidate and wake before they reach the event hub.
//!
//! Every entry point opens one: the server's state holds it (and derefs to it) and the command
//! line opens it alone. Must not hold what only an API, a listener or the server's startup
//! needs (event queues, presence, rate limits, request metrics, browser files, rendered
//! answers), nor name the server or either API module.

use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::{Notify, Semaphore};

use crate::config::Config;
use crate::db::Db;
use crate::domain::credentials::{LoginLimiter, UserCache};
use crate::domain::max_received::{GenerationCache, MaxReceivedCache};
use crate::error::{Error, Result};
use crate::events::{Event, EventHub};

/// Each user's custom profile values, refreshed when users or profile fields change.
pub type ProfileCache = GenerationCache<Arc<Vec<crate::model::ProfileValue>>>;

/// Everything a domain function may need; one per process (or per test server).
pub struct Core {
    pub config: Config,
    pub db: Db,
    /// Authenticated users by login key, refreshed when users change.
    pub users: Arc<UserCache>,
    /// Where every commit's events go, in commit order (after [`OnCommit`]).
    pub hub: Arc<EventHub>,
    /// Each user's newest received message id, refreshed when messages change.
    pub max_received: Arc<MaxReceivedCache>,
    /// Each user's custom profile values, refreshed when users or profile fields change.
    pub profile_data: Arc<ProfileCache>,
    /// Failed password logins per username.
    pub logins: LoginLimiter,
    /// Password-reset requests per address and per client.
    pub reset_limits: crate::domain::account_mail::SendLimiter,
    /// Dependency-Track signing key, system UUID and caches.
    pub dtrack: crate::domain::dtrack::state::DtState,
    /// Outgoing mail (`[email]`).
    pub mailer: crate::mail::Mailer,
    /// Wakes the notification pass when a commit queued notification jobs or push removals
    /// ([`OnCommit`] does).
    pub notify_wake: Arc<Notify>,
    /// The per-process secret of signup forms' tokens.
    pub signup_forms: crate::domain::invites::FormKey,
    /// The per-process secret of temporary upload URLs.
    pub upload_urls: crate::domain::uploads::UrlKey,
    /// Wakes the scheduler task when a scheduled message or reminder is stored or edited.
    pub scheduler_wake: Notify,
    /// Wakes the outgoing-webhook worker when a committed message queued deliveries
    /// ([`OnCommit`] does).
    pub webhook_wake: Arc<Notify>,
    /// Wakes the push outbox worker (`domain::push::outbox`) when a device change queued a call
    /// to the push notification service.
    pub push_wake: Notify,
    /// What pushing did since the start (`/metrics`).
    pub push_stats: crate::domain::push::Stats,
    /// Wakes the mail outbox's worker when a committed write queued a mail.
    pub mail_wake: Arc<Notify>,
    /// Wakes the missed-message email worker when a committed write queued rows for it.
    pub missed_email_wake: Arc<Notify>,
    /// One image (a thumbnail or a custom emoji) is decoded at a time, so decoding stays within
    /// one decoder's memory limit however many are asked for at once.
    pub thumbnailer: Semaphore,
}

impl Core {
    /// Creates the data directory if needed and opens the database (migrating it) and
    /// Dependency-Track's per-process state; starts no task and binds no listener.
    pub fn open(config: Config) -> Result<Core> {
        crate::private_files::private_dir(&config.data_dir).map_err(|e| {
            Error::internal(format!(
                "cannot create data directory {}: {e}",
                config.data_dir.display()
            ))
        })?;
        let hook = OnCommit {
            users: Arc::default(),
            profile_data: Arc::default(),
            max_received: Arc::default(),
            webhook_wake: Arc::new(Notify::new()),
            notify_wake: Arc::new(Notify::new()),
            mail_wake: Arc::new(Notify::new()),
            missed_email_wake: Arc::new(Notify::new()),
            hub: Arc::default(),
        };
        let OnCommit {
            users,
            profile_data,
            max_received,
            webhook_wake,
            notify_wake,
            mail_wake,
            missed_email_wake,
            hub,
        } = hook.clone();
        let db = Db::open(
            &database_path(&config),
            &config.database,
            Box::new(move |events| hook.run(events)),
        )?;
        let dtrack = crate::domain::dtrack::state::DtState::open(&config.data_dir)?;
        Ok(Core {
            mailer: crate::mail::Mailer::new(&config.email),
            signup_forms: crate::domain::invites::FormKey::random(),
            upload_urls: crate::domain::uploads::UrlKey::random(),
            scheduler_wake: Notify::new(),
            webhook_wake,
            notify_wake,
            push_wake: Notify::new(),
            push_stats: Default::default(),
            mail_wake,
            missed_email_wake,
            thumbnailer: Semaphore::new(1),
            dtrack,
            config,
            db,
            users,
            hub,
            max_received,
            profile_data,
            logins: LoginLimiter::default(),
            reset_limits: Default::default(),
        })
    }
}

/// Where the SQLite file lives inside the data directory.
pub fn database_path(config: &Config) -> PathBuf {
    config.data_dir.join("outpost.sqlite3")
}

/// What a commit's events reach, run by the database's writer thread after each commit and
/// before any of its jobs is answered: first the caches those events make stale, then the
/// workers they give work, then the hub (so whoever sees an event sees fresh caches).
#[derive(Clone)]
pub struct OnCommit {
    users: Arc<UserCache>,
    profile_data: Arc<ProfileCache>,
    max_received: Arc<MaxReceivedCache>,
    webhook_wake: Arc<Notify>,
    notify_wake: Arc<Notify>,
    mail_wake: Arc<Notify>,
    missed_email_wake: Arc<Notify>,
    hub: Arc<EventHub>,
}

impl OnCommit {
    /// Invalidates, wakes and publishes for one commit's events, in that order.
    pub fn run(&self, events: Vec<Event>) {
        self.invalidate_for(&events);
        if events
            .iter()
            .any(|e| matches!(e, Event::OutgoingWebhooksQueued))
        {
            self.webhook_wake.notify_one();
        }
        if events
            .iter()
            .any(|e| matches!(e, Event::NotificationsQueued))
        {
            self.notify_wake.notify_one();
        }
        if events.iter().any(|e| matches!(e, Event::MailQueued)) {
            self.mail_wake.notify_one();
        }
        if events
            .iter()
            .any(|e| matches!(e, Event::MissedEmailsQueued))
        {
            self.missed_email_wake.notify_one();
        }
        self.hub.publish(events);
    }

    /// Which event invalidates which cache:
    /// - any change to users (`Event::touches_users`): the user cache, and the profile values
    ///   (a user's values go with the user);
    /// - `ProfileFieldsChanged`: the profile values;
    /// - any change to messages (`Event::touches_messages`): each user's newest received id.
    pub fn invalidate_for(&self, events: &[Event]) {
        if events.iter().any(|e| e.touches_users()) {
            self.users.invalidate();
            self.profile_data.invalidate();
        }
        if events
            .iter()
            .any(|e| matches!(e, Event::ProfileFieldsChanged))
        {
            self.profile_data.invalidate();
        }
        if events.iter().any(|e| e.touches_messages()) {
            self.max_received.invalidate();
        }
    }
}

/// The database of a `Core`, for readers that must not name the domain (`listeners::metrics`).
impl AsRef<Db> for Core {
    fn as_ref(&self) -> &Db {
        &self.db
    }
}
