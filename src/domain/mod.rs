//! Domain rules, shared by every entry point (HTTP handlers, the command line, the scheduler
//! and bots). Functions take `&Core` (the domain handle, [`Core`]), the acting user and typed
//! input; they never see HTTP requests or produce wire JSON.

pub mod account_mail;
pub mod bot_storage;
pub mod bots;
pub mod channel_folders;
pub mod channels;
pub mod core;
pub mod credentials;
pub mod dtrack;
pub mod email_keys;
pub mod emails;
pub mod images;
pub mod invites;
pub mod max_received;
pub mod messages;
pub mod notices;
pub mod notifications;
pub mod outbox;
pub mod outgoing_webhooks;
pub mod presence;
pub mod profile_fields;
pub mod push;
pub mod realm_emoji;
pub mod realm_settings;
pub mod records;
pub mod scheduled;
pub mod sessions;
pub mod settings;
pub mod uploads;
pub mod user_groups;
pub mod user_status;
pub mod users;

pub use self::core::Core;

/// The Zulip version Outpost implements: the chat API reports it (`zulip_version`) and calls
/// to Zulip's push notification service name it (`User-Agent: ZulipServer/<version>`).
pub const ZULIP_VERSION: &str = "11.0-outpost";
