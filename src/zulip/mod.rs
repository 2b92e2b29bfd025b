//! The chat API (Zulip's REST API under `/api/v1`): route table, authentication, dispatch.
//!
//! [`route`] is the one table of every endpoint; handlers live in one file per area and stay
//! thin (parse, call a domain function, render). Only this module and its children know Zulip's
//! wire format. Must not contain SQL.

pub mod auth;
pub mod bot_storage;
pub mod bots;
pub mod channel_folders;
pub mod channels;
pub mod delivery;
pub mod emoji;
pub mod envelope;
pub mod invites;
pub mod messages;
pub mod outgoing_webhooks;
pub mod params;
pub mod presence;
pub mod realm;
pub mod realtime;
pub mod records;
pub mod register_state;
pub mod scheduled;
pub mod server;
pub mod signup;
pub mod topics;
pub mod uploads;
pub mod user_groups;
pub mod users;
pub mod webhooks;
pub mod wire;

use std::net::IpAddr;
use std::sync::Arc;

use hyper::http::request::Parts;
use hyper::{Method, StatusCode};

use crate::app::AppState;
use crate::error::{Error, ErrorKind, Result};
use crate::http::rate_limit::{self, Limited, RateKey, RateState};
use crate::http::route::ListOptions;
use crate::http::server::{Admission, Api, BoxFuture, LARGE_BODY};
use crate::http::{self, Request, Response};
use crate::model::User;

use envelope::{Success, error_response};
use params::{Params, RawParams};
use users::UserRef;

/// Every chat endpoint, with its path parameters parsed.
#[derive(Clone, Debug, PartialEq)]
pub enum Endpoint {
    ServerSettings,
    FetchApiKey,
    DevFetchApiKey,
    GetOwnUser,
    RegenerateApiKey,
    UpdateOwnStatus,
    UpdateSettings,
    GetUsers,
    CreateUser,
    GetUser(UserRef),
    UpdateUser(UserRef),
    DeactivateUser(i64),
    ReactivateUser(i64),
    GetUserStatus(i64),
    GetProfileFields,
    CreateProfileField,
    CreateChannel,
    Subscribe,
    GetSubscriptions,
    Unsubscribe,
    UpdateSubscriptionProperties,
    GetStreams,
    GetStream(i64),
    UpdateStream(i64),
    ArchiveStream(i64),
    GetStreamId,
    GetStreamMembers(i64),
    SendMessage,
    GetMessages,
    GetMessage(i64),
    UpdateMessageFlags,
    UpdateMessageFlagsInNarrow,
    AddSubmessage,
    GetReadReceipts(i64),
    ReportMessage(i64),
    CreateChannelFolder,
    GetChannelFolders,
    UpdateChannelFolder(i64),
    GetUserGroups,
    CreateUserGroup,
    UpdateUserGroup(i64),
    UpdateUserGroupMembers(i64),
    GetUserGroupMembers(i64),
    IsUserGroupMember(i64, i64),
    UpdateUserGroupSubgroups(i64),
    GetUserGroupSubgroups(i64),
    DeactivateUserGroup(i64),
    MarkAllAsRead,
    MarkStreamAsRead,
    MarkTopicAsRead,
    UpdateMessage(i64),
    DeleteMessage(i64),
    GetMessageHistory(i64),
    AddReaction(i64),
    RemoveReaction(i64),
    GetTopics(i64),
    DeleteTopic(i64),
    UpdateMutedTopic,
    UpdateUserTopic,
    Register,
    GetEvents,
    DeleteQueue,
    UpdatePresence,
    GetRealmPresence,
    UpdateRealm,
    GetUserPresence(UserRef),
    SetTyping,
    GetAlertWords,
    AddAlertWords,
    RemoveAlertWords,
    GetDrafts,
    CreateDrafts,
    EditDraft(i64),
    DeleteDraft(i64),
    GetSavedSnippets,
    CreateSavedSnippet,
    EditSavedSnippet(i64),
    DeleteSavedSnippet(i64),
    MuteUser(i64),
    UnmuteUser(i64),
    AddApnsToken,
    RemoveApnsToken,
    AddFcmToken,
    RemoveFcmToken,
    RegisterPushDevice,
    GetBotStorage,
    UpdateBotStorage,
    RemoveBotStorage,
    CreateBot,
    GetBots,
    DeactivateBot(i64),
    UpdateBot(i64),
    RegenerateBotApiKey(i64),
    /// `POST /external/{integration}`: an incoming webhook (credentials from `api_key`).
    IncomingWebhook(webhooks::Integration),
    /// `GET /static/generated/emoji/emoji_api.json`: the emoji table, outside `/api/v1`.
    EmojiData,
    RealmIcon,
    GetInvites,
    SendInvites,
    CreateInviteLink,
    RevokeInvite(i64),
    RevokeInviteLink(i64),
    ResendInvite(i64),
    /// `/join/<key>/`: the signup page of an invitation link (HTML, outside `/api/v1`).
    Signup(String),
    GetScheduledMessages,
    CreateScheduledMessage,
    UpdateScheduledMessage(i64),
    DeleteScheduledMessage(i64),
    GetReminders,
    CreateReminder,
    DeleteReminder(i64),
    UploadFile,
    /// The decoded path after `user_uploads/`.
    GetFileTemporaryUrl(String),
    GetAttachments,
    RemoveAttachment(i64),
    /// `/user_uploads/...` outside `/api/v1`: a download (credentials are checked by the
    /// handler, since temporary URLs need none); the decoded path segments.
    ServeUpload(Vec<String>),
    GetRealmEmoji,
    UploadEmoji(String),
    DeactivateEmoji(String),
    /// `/user_avatars/...` outside `/api/v1`: a custom emoji's picture (no credentials); the
    /// decoded path segments.
    ServeEmoji(Vec<String>),
    RenderMessage,
    UpdateOwnProfileData,
    RemoveOwnProfileData,
    /// `GET /`: the web client's page shell (session cookie, else a redirect to `/login`).
    WebHome,
    /// `/login`: the web client's login form and its submission.
    WebLogin,
    /// `POST /devlogin`: development login of the web client.
    WebDevLogin,
    /// `POST /logout`: ends the web client's session.
    WebLogout,
    /// `/static/<build>/<path>`: a file of the web client; the decoded segments after
    /// `/static/`.
    WebAsset(Vec<String>),
}

impl Endpoint {
    fn needs_auth(&self) -> bool {
        !matches!(
            self,
            Endpoint::ServerSettings
                | Endpoint::FetchApiKey
                | Endpoint::DevFetchApiKey
                | Endpoint::EmojiData
                | Endpoint::RealmIcon
                | Endpoint::Signup(_)
                | Endpoint::ServeUpload(_)
                | Endpoint::ServeEmoji(_)
                | Endpoint::WebHome
                | Endpoint::WebLogin
                | Endpoint::WebDevLogin
                | Endpoint::WebLogout
                | Endpoint::WebAsset(_)
        )
    }

    /// The web client's own routes (pages and files), which answer HTML or files, not JSON.
    fn is_web(&self) -> bool {
        matches!(
            self,
            Endpoint::WebHome
                | Endpoint::WebLogin
                | Endpoint::WebDevLogin
                | Endpoint::WebLogout
                | Endpoint::WebAsset(_)
        )
    }
}

/// Every endpoint's name, indexed by [`Endpoint::route_index`]: the bounded `route` label of
/// the request metrics.
pub const ROUTE_NAMES: &[&str] = &[
    "ServerSettings",
    "FetchApiKey",
    "DevFetchApiKey",
    "GetOwnUser",
    "RegenerateApiKey",
    "UpdateOwnStatus",
    "UpdateSettings",
    "GetUsers",
    "CreateUser",
    "GetUser",
    "UpdateUser",
    "DeactivateUser",
    "ReactivateUser",
    "GetUserStatus",
    "GetProfileFields",
    "CreateProfileField",
    "CreateChannel",
    "Subscribe",
    "GetSubscriptions",
    "Unsubscribe",
    "UpdateSubscriptionProperties",
    "GetStreams",
    "GetStream",
    "UpdateStream",
    "ArchiveStream",
    "GetStreamId",
    "GetStreamMembers",
    "SendMessage",
    "GetMessages",
    "GetMessage",
    "UpdateMessageFlags",
    "UpdateMessageFlagsInNarrow",
    "AddSubmessage",
    "GetReadReceipts",
    "ReportMessage",
    "CreateChannelFolder",
    "GetChannelFolders",
    "UpdateChannelFolder",
    "GetUserGroups",
    "CreateUserGroup",
    "UpdateUserGroup",
    "UpdateUserGroupMembers",
    "GetUserGroupMembers",
    "IsUserGroupMember",
    "UpdateUserGroupSubgroups",
    "GetUserGroupSubgroups",
    "DeactivateUserGroup",
    "MarkAllAsRead",
    "MarkStreamAsRead",
    "MarkTopicAsRead",
    "UpdateMessage",
    "DeleteMessage",
    "GetMessageHistory",
    "AddReaction",
    "RemoveReaction",
    "GetTopics",
    "DeleteTopic",
    "UpdateMutedTopic",
    "UpdateUserTopic",
    "Register",
    "GetEvents",
    "DeleteQueue",
    "UpdatePresence",
    "GetRealmPresence",
    "UpdateRealm",
    "GetUserPresence",
    "SetTyping",
    "GetAlertWords",
    "AddAlertWords",
    "RemoveAlertWords",
    "GetDrafts",
    "CreateDrafts",
    "EditDraft",
    "DeleteDraft",
    "GetSavedSnippets",
    "CreateSavedSnippet",
    "EditSavedSnippet",
    "DeleteSavedSnippet",
    "MuteUser",
    "UnmuteUser",
    "AddApnsToken",
    "RemoveApnsToken",
    "AddFcmToken",
    "RemoveFcmToken",
    "RegisterPushDevice",
    "GetBotStorage",
    "UpdateBotStorage",
    "RemoveBotStorage",
    "CreateBot",
    "GetBots",
    "DeactivateBot",
    "RegenerateBotApiKey",
    "EmojiData",
    "RealmIcon",
    "GetInvites",
    "SendInvites",
    "CreateInviteLink",
    "RevokeInvite",
    "RevokeInviteLink",
    "ResendInvite",
    "Signup",
    "GetScheduledMessages",
    "CreateScheduledMessage",
    "UpdateScheduledMessage",
    "DeleteScheduledMessage",
    "GetReminders",
    "CreateReminder",
    "DeleteReminder",
    "UploadFile",
    "GetFileTemporaryUrl",
    "GetAttachments",
    "RemoveAttachment",
    "ServeUpload",
    "UpdateBot",
    "IncomingWebhookSlack",
    "IncomingWebhookJson",
    "GetRealmEmoji",
    "UploadEmoji",
    "DeactivateEmoji",
    "ServeEmoji",
    "RenderMessage",
    "UpdateOwnProfileData",
    "RemoveOwnProfileData",
    "WebHome",
    "WebLogin",
    "WebDevLogin",
    "WebLogout",
    "WebAsset",
];

impl Endpoint {
    /// This endpoint's position in [`ROUTE_NAMES`].
    pub fn route_index(&self) -> usize {
        use Endpoint as E;
        match self {
            E::ServerSettings => 0,
            E::FetchApiKey => 1,
            E::DevFetchApiKey => 2,
            E::GetOwnUser => 3,
            E::RegenerateApiKey => 4,
            E::UpdateOwnStatus => 5,
            E::UpdateSettings => 6,
            E::GetUsers => 7,
            E::CreateUser => 8,
            E::GetUser(..) => 9,
            E::UpdateUser(..) => 10,
            E::DeactivateUser(..) => 11,
            E::ReactivateUser(..) => 12,
            E::GetUserStatus(..) => 13,
            E::GetProfileFields => 14,
            E::CreateProfileField => 15,
            E::CreateChannel => 16,
            E::Subscribe => 17,
            E::GetSubscriptions => 18,
            E::Unsubscribe => 19,
            E::UpdateSubscriptionProperties => 20,
            E::GetStreams => 21,
            E::GetStream(..) => 22,
            E::UpdateStream(..) => 23,
            E::ArchiveStream(..) => 24,
            E::GetStreamId => 25,
            E::GetStreamMembers(..) => 26,
            E::SendMessage => 27,
            E::GetMessages => 28,
            E::GetMessage(..) => 29,
            E::UpdateMessageFlags => 30,
            E::UpdateMessageFlagsInNarrow => 31,
            E::AddSubmessage => 32,
            E::GetReadReceipts(..) => 33,
            E::ReportMessage(..) => 34,
            E::CreateChannelFolder => 35,
            E::GetChannelFolders => 36,
            E::UpdateChannelFolder(..) => 37,
            E::GetUserGroups => 38,
            E::CreateUserGroup => 39,
            E::UpdateUserGroup(..) => 40,
            E::UpdateUserGroupMembers(..) => 41,
            E::GetUserGroupMembers(..) => 42,
            E::IsUserGroupMember(..) => 43,
            E::UpdateUserGroupSubgroups(..) => 44,
            E::GetUserGroupSubgroups(..) => 45,
            E::DeactivateUserGroup(..) => 46,
            E::MarkAllAsRead => 47,
            E::MarkStreamAsRead => 48,
            E::MarkTopicAsRead => 49,
            E::UpdateMessage(..) => 50,
            E::DeleteMessage(..) => 51,
            E::GetMessageHistory(..) => 52,
            E::AddReaction(..) => 53,
            E::RemoveReaction(..) => 54,
            E::GetTopics(..) => 55,
            E::DeleteTopic(..) => 56,
            E::UpdateMutedTopic => 57,
            E::UpdateUserTopic => 58,
            E::Register => 59,
            E::GetEvents => 60,
            E::DeleteQueue => 61,
            E::UpdatePresence => 62,
            E::GetRealmPresence => 63,
            E::UpdateRealm => 64,
            E::GetUserPresence(..) => 65,
            E::SetTyping => 66,
            E::GetAlertWords => 67,
            E::AddAlertWords => 68,
            E::RemoveAlertWords => 69,
            E::GetDrafts => 70,
            E::CreateDrafts => 71,
            E::EditDraft(..) => 72,
            E::DeleteDraft(..) => 73,
            E::GetSavedSnippets => 74,
            E::CreateSavedSnippet => 75,
            E::EditSavedSnippet(..) => 76,
            E::DeleteSavedSnippet(..) => 77,
            E::MuteUser(..) => 78,
            E::UnmuteUser(..) => 79,
            E::AddApnsToken => 80,
            E::RemoveApnsToken => 81,
            E::AddFcmToken => 82,
            E::RemoveFcmToken => 83,
            E::RegisterPushDevice => 84,
            E::GetBotStorage => 85,
            E::UpdateBotStorage => 86,
            E::RemoveBotStorage => 87,
            E::CreateBot => 88,
            E::GetBots => 89,
            E::DeactivateBot(..) => 90,
            E::RegenerateBotApiKey(..) => 91,
            E::EmojiData => 92,
            E::RealmIcon => 93,
            E::GetInvites => 94,
            E::SendInvites => 95,
            E::CreateInviteLink => 96,
            E::RevokeInvite(..) => 97,
            E::RevokeInviteLink(..) => 98,
            E::ResendInvite(..) => 99,
            E::Signup(..) => 100,
            E::GetScheduledMessages => 101,
            E::CreateScheduledMessage => 102,
            E::UpdateScheduledMessage(..) => 103,
            E::DeleteScheduledMessage(..) => 104,
            E::GetReminders => 105,
            E::CreateReminder => 106,
            E::DeleteReminder(..) => 107,
            E::UploadFile => 108,
            E::GetFileTemporaryUrl(..) => 109,
            E::GetAttachments => 110,
            E::RemoveAttachment(..) => 111,
            E::ServeUpload(..) => 112,
            E::UpdateBot(..) => 113,
            E::IncomingWebhook(webhooks::Integration::SlackIncoming) => 114,
            E::IncomingWebhook(webhooks::Integration::Json) => 115,
            E::GetRealmEmoji => 116,
            E::UploadEmoji(..) => 117,
            E::DeactivateEmoji(..) => 118,
            E::ServeEmoji(..) => 119,
            E::RenderMessage => 120,
            E::UpdateOwnProfileData => 121,
            E::RemoveOwnProfileData => 122,
            E::WebHome => 123,
            E::WebLogin => 124,
            E::WebDevLogin => 125,
            E::WebLogout => 126,
            E::WebAsset(..) => 127,
        }
    }
}

/// Why a path did not resolve to an endpoint.
#[derive(Debug, PartialEq)]
pub enum NoRoute {
    NotFound,
    /// The path exists for these methods only.
    Method(Vec<&'static str>),
}

/// A numeric path segment; ids that do not fit are ids of nothing.
fn path_id(seg: &str) -> Option<i64> {
    if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
        Some(seg.parse().unwrap_or(-1))
    } else {
        None
    }
}

/// THE route table: (method, segments after `/api/v1/`) → endpoint.
pub fn route(method: &Method, segs: &[String]) -> Result<Endpoint, NoRoute> {
    use Endpoint as E;
    let s: Vec<&str> = segs.iter().map(String::as_str).collect();
    let table: Vec<(&'static str, Endpoint)> = match s.as_slice() {
        ["server_settings"] => vec![("GET", E::ServerSettings)],
        ["fetch_api_key"] => vec![("POST", E::FetchApiKey)],
        ["dev_fetch_api_key"] => vec![("POST", E::DevFetchApiKey)],
        ["users"] => vec![("GET", E::GetUsers), ("POST", E::CreateUser)],
        ["users", "me"] => vec![("GET", E::GetOwnUser)],
        ["users", "me", "api_key", "regenerate"] => vec![("POST", E::RegenerateApiKey)],
        ["users", "me", "status"] => vec![("POST", E::UpdateOwnStatus)],
        ["users", "me", "profile_data"] => vec![
            ("PATCH", E::UpdateOwnProfileData),
            ("DELETE", E::RemoveOwnProfileData),
        ],
        // `display` and `notifications` are deprecated aliases kept for old clients.
        ["settings"] | ["settings", "display" | "notifications"] => {
            vec![("PATCH", E::UpdateSettings)]
        }
        ["users", "me", "presence"] => vec![("POST", E::UpdatePresence)],
        ["users", "me", "alert_words"] => vec![
            ("GET", E::GetAlertWords),
            ("POST", E::AddAlertWords),
            ("DELETE", E::RemoveAlertWords),
        ],
        ["users", "me", "muted_users", id] => match path_id(id) {
            Some(id) => vec![("POST", E::MuteUser(id)), ("DELETE", E::UnmuteUser(id))],
            None => return Err(NoRoute::NotFound),
        },
        ["users", "me", "apns_device_token"] => {
            vec![("POST", E::AddApnsToken), ("DELETE", E::RemoveApnsToken)]
        }
        ["users", "me", "android_gcm_reg_id"] => {
            vec![("POST", E::AddFcmToken), ("DELETE", E::RemoveFcmToken)]
        }
        ["mobile_push", "register"] => vec![("POST", E::RegisterPushDevice)],
        ["bots"] => vec![("GET", E::GetBots), ("POST", E::CreateBot)],
        ["bots", id] => match path_id(id) {
            Some(id) => vec![
                ("PATCH", E::UpdateBot(id)),
                ("DELETE", E::DeactivateBot(id)),
            ],
            None => return Err(NoRoute::NotFound),
        },
        ["bots", id, "api_key", "regenerate"] => match path_id(id) {
            Some(id) => vec![("POST", E::RegenerateBotApiKey(id))],
            None => return Err(NoRoute::NotFound),
        },
        ["external", name] => match webhooks::Integration::from_name(name) {
            Some(i) => vec![("POST", E::IncomingWebhook(i))],
            None => return Err(NoRoute::NotFound),
        },
        ["bot_storage"] => vec![
            ("GET", E::GetBotStorage),
            ("PUT", E::UpdateBotStorage),
            ("DELETE", E::RemoveBotStorage),
        ],
        ["drafts"] => vec![("GET", E::GetDrafts), ("POST", E::CreateDrafts)],
        ["drafts", id] => match path_id(id) {
            Some(id) => vec![("PATCH", E::EditDraft(id)), ("DELETE", E::DeleteDraft(id))],
            None => return Err(NoRoute::NotFound),
        },
        ["saved_snippets"] => vec![
            ("GET", E::GetSavedSnippets),
            ("POST", E::CreateSavedSnippet),
        ],
        ["saved_snippets", id] => match path_id(id) {
            Some(id) => vec![
                ("PATCH", E::EditSavedSnippet(id)),
                ("DELETE", E::DeleteSavedSnippet(id)),
            ],
            None => return Err(NoRoute::NotFound),
        },
        ["users", who, "presence"] => match path_id(who) {
            Some(id) => vec![("GET", E::GetUserPresence(UserRef::Id(id)))],
            None => vec![("GET", E::GetUserPresence(UserRef::Email(who.to_string())))],
        },
        ["register"] => vec![("POST", E::Register)],
        ["events"] => vec![("GET", E::GetEvents), ("DELETE", E::DeleteQueue)],
        ["realm", "presence"] => vec![("GET", E::GetRealmPresence)],
        ["realm"] => vec![("PATCH", E::UpdateRealm)],
        ["typing"] => vec![("POST", E::SetTyping)],
        ["users", "me", id, "topics"] => match path_id(id) {
            Some(id) => vec![("GET", E::GetTopics(id))],
            None => return Err(NoRoute::NotFound),
        },
        ["users", id, "reactivate"] => match path_id(id) {
            Some(id) => vec![("POST", E::ReactivateUser(id))],
            None => return Err(NoRoute::NotFound),
        },
        ["users", id, "status"] => match path_id(id) {
            Some(id) => vec![("GET", E::GetUserStatus(id))],
            None => return Err(NoRoute::NotFound),
        },
        ["users", who] => match path_id(who) {
            Some(id) => vec![
                ("GET", E::GetUser(UserRef::Id(id))),
                ("PATCH", E::UpdateUser(UserRef::Id(id))),
                ("DELETE", E::DeactivateUser(id)),
            ],
            None => vec![
                ("GET", E::GetUser(UserRef::Email(who.to_string()))),
                ("PATCH", E::UpdateUser(UserRef::Email(who.to_string()))),
            ],
        },
        ["channels", "create"] => vec![("POST", E::CreateChannel)],
        ["channel_folders", "create"] => vec![("POST", E::CreateChannelFolder)],
        ["channel_folders"] => vec![("GET", E::GetChannelFolders)],
        ["channel_folders", id] => match path_id(id) {
            Some(id) => vec![("PATCH", E::UpdateChannelFolder(id))],
            None => return Err(NoRoute::NotFound),
        },
        ["user_groups"] => vec![("GET", E::GetUserGroups)],
        ["user_groups", "create"] => vec![("POST", E::CreateUserGroup)],
        ["user_groups", id] => match path_id(id) {
            Some(id) => vec![("PATCH", E::UpdateUserGroup(id))],
            None => return Err(NoRoute::NotFound),
        },
        ["user_groups", id, "members"] => match path_id(id) {
            Some(id) => vec![
                ("GET", E::GetUserGroupMembers(id)),
                ("POST", E::UpdateUserGroupMembers(id)),
            ],
            None => return Err(NoRoute::NotFound),
        },
        ["user_groups", id, "members", user] => match (path_id(id), path_id(user)) {
            (Some(id), Some(user)) => vec![("GET", E::IsUserGroupMember(id, user))],
            _ => return Err(NoRoute::NotFound),
        },
        ["user_groups", id, "subgroups"] => match path_id(id) {
            Some(id) => vec![
                ("GET", E::GetUserGroupSubgroups(id)),
                ("POST", E::UpdateUserGroupSubgroups(id)),
            ],
            None => return Err(NoRoute::NotFound),
        },
        ["user_groups", id, "deactivate"] => match path_id(id) {
            Some(id) => vec![("POST", E::DeactivateUserGroup(id))],
            None => return Err(NoRoute::NotFound),
        },
        ["users", "me", "subscriptions"] => vec![
            ("GET", E::GetSubscriptions),
            ("POST", E::Subscribe),
            ("DELETE", E::Unsubscribe),
        ],
        ["users", "me", "subscriptions", "properties"] => {
            vec![("POST", E::UpdateSubscriptionProperties)]
        }
        ["streams"] => vec![("GET", E::GetStreams)],
        ["get_stream_id"] => vec![("GET", E::GetStreamId)],
        ["streams", id] => match path_id(id) {
            Some(id) => vec![
                ("GET", E::GetStream(id)),
                ("PATCH", E::UpdateStream(id)),
                ("DELETE", E::ArchiveStream(id)),
            ],
            None => return Err(NoRoute::NotFound),
        },
        ["streams", id, "members"] => match path_id(id) {
            Some(id) => vec![("GET", E::GetStreamMembers(id))],
            None => return Err(NoRoute::NotFound),
        },
        ["messages"] => vec![("GET", E::GetMessages), ("POST", E::SendMessage)],
        ["messages", "flags"] => vec![("POST", E::UpdateMessageFlags)],
        ["messages", "render"] => vec![("POST", E::RenderMessage)],
        ["messages", "flags", "narrow"] => vec![("POST", E::UpdateMessageFlagsInNarrow)],
        ["submessage"] => vec![("POST", E::AddSubmessage)],
        ["messages", id, "read_receipts"] => match path_id(id) {
            Some(id) => vec![("GET", E::GetReadReceipts(id))],
            None => return Err(NoRoute::NotFound),
        },
        ["messages", id, "report"] => match path_id(id) {
            Some(id) => vec![("POST", E::ReportMessage(id))],
            None => return Err(NoRoute::NotFound),
        },
        ["messages", id] => match path_id(id) {
            Some(id) => vec![
                ("GET", E::GetMessage(id)),
                ("PATCH", E::UpdateMessage(id)),
                ("DELETE", E::DeleteMessage(id)),
            ],
            None => return Err(NoRoute::NotFound),
        },
        ["messages", id, "history"] => match path_id(id) {
            Some(id) => vec![("GET", E::GetMessageHistory(id))],
            None => return Err(NoRoute::NotFound),
        },
        ["messages", id, "reactions"] => match path_id(id) {
            Some(id) => vec![
                ("POST", E::AddReaction(id)),
                ("DELETE", E::RemoveReaction(id)),
            ],
            None => return Err(NoRoute::NotFound),
        },
        ["users", "me", "subscriptions", "muted_topics"] => vec![("PATCH", E::UpdateMutedTopic)],
        ["user_topics"] => vec![("POST", E::UpdateUserTopic)],
        ["streams", id, "delete_topic"] => match path_id(id) {
            Some(id) => vec![("POST", E::DeleteTopic(id))],
            None => return Err(NoRoute::NotFound),
        },
        ["mark_all_as_read"] => vec![("POST", E::MarkAllAsRead)],
        ["mark_stream_as_read"] => vec![("POST", E::MarkStreamAsRead)],
        ["mark_topic_as_read"] => vec![("POST", E::MarkTopicAsRead)],
        ["scheduled_messages"] => vec![
            ("GET", E::GetScheduledMessages),
            ("POST", E::CreateScheduledMessage),
        ],
        ["scheduled_messages", id] => match path_id(id) {
            Some(id) => vec![
                ("PATCH", E::UpdateScheduledMessage(id)),
                ("DELETE", E::DeleteScheduledMessage(id)),
            ],
            None => return Err(NoRoute::NotFound),
        },
        ["reminders"] => vec![("GET", E::GetReminders), ("POST", E::CreateReminder)],
        ["reminders", id] => match path_id(id) {
            Some(id) => vec![("DELETE", E::DeleteReminder(id))],
            None => return Err(NoRoute::NotFound),
        },
        ["invites"] => vec![("GET", E::GetInvites), ("POST", E::SendInvites)],
        ["invites", "multiuse"] => vec![("POST", E::CreateInviteLink)],
        ["invites", "multiuse", id] => match path_id(id) {
            Some(id) => vec![("DELETE", E::RevokeInviteLink(id))],
            None => return Err(NoRoute::NotFound),
        },
        ["invites", id] => match path_id(id) {
            Some(id) => vec![("DELETE", E::RevokeInvite(id))],
            None => return Err(NoRoute::NotFound),
        },
        ["invites", id, "resend"] => match path_id(id) {
            Some(id) => vec![("POST", E::ResendInvite(id))],
            None => return Err(NoRoute::NotFound),
        },
        ["user_uploads"] => vec![("POST", E::UploadFile)],
        ["user_uploads", rest @ ..] if rest.len() >= 2 => {
            vec![("GET", E::GetFileTemporaryUrl(rest.join("/")))]
        }
        ["attachments"] => vec![("GET", E::GetAttachments)],
        ["attachments", id] => match path_id(id) {
            Some(id) => vec![("DELETE", E::RemoveAttachment(id))],
            None => return Err(NoRoute::NotFound),
        },
        ["realm", "emoji"] => vec![("GET", E::GetRealmEmoji)],
        ["realm", "emoji", name @ ..] if !name.is_empty() => {
            let name = name.join("/");
            vec![
                ("POST", E::UploadEmoji(name.clone())),
                ("DELETE", E::DeactivateEmoji(name)),
            ]
        }
        ["realm", "profile_fields"] => {
            vec![
                ("GET", E::GetProfileFields),
                ("POST", E::CreateProfileField),
            ]
        }
        _ => return Err(NoRoute::NotFound),
    };
    http::route::pick(method, table, ListOptions::No).map_err(NoRoute::Method)
}

/// One request per endpoint, as (method, path after `/api/v1/`), with `{id}` marking the
/// numeric path parameter: for tests that walk every route (a unit test keeps it complete).
pub const SAMPLE_ROUTES: &[(&str, &str)] = &[
    ("GET", "server_settings"),
    ("POST", "fetch_api_key"),
    ("POST", "dev_fetch_api_key"),
    ("GET", "users/me"),
    ("POST", "users/me/api_key/regenerate"),
    ("POST", "users/me/status"),
    ("PATCH", "settings"),
    ("GET", "users"),
    ("POST", "users"),
    ("GET", "users/{id}"),
    ("PATCH", "users/{id}"),
    ("DELETE", "users/{id}"),
    ("POST", "users/{id}/reactivate"),
    ("GET", "users/{id}/status"),
    ("GET", "realm/profile_fields"),
    ("POST", "realm/profile_fields"),
    ("POST", "channels/create"),
    ("POST", "users/me/subscriptions"),
    ("GET", "users/me/subscriptions"),
    ("DELETE", "users/me/subscriptions"),
    ("POST", "users/me/subscriptions/properties"),
    ("GET", "streams"),
    ("GET", "streams/{id}"),
    ("PATCH", "streams/{id}"),
    ("DELETE", "streams/{id}"),
    ("GET", "get_stream_id"),
    ("GET", "streams/{id}/members"),
    ("POST", "messages"),
    ("GET", "messages"),
    ("GET", "messages/{id}"),
    ("POST", "messages/flags"),
    ("POST", "mark_all_as_read"),
    ("POST", "mark_stream_as_read"),
    ("POST", "mark_topic_as_read"),
    ("PATCH", "messages/{id}"),
    ("DELETE", "messages/{id}"),
    ("GET", "messages/{id}/history"),
    ("POST", "messages/{id}/reactions"),
    ("DELETE", "messages/{id}/reactions"),
    ("GET", "users/me/{id}/topics"),
    ("POST", "streams/{id}/delete_topic"),
    ("PATCH", "users/me/subscriptions/muted_topics"),
    ("POST", "user_topics"),
    ("POST", "register"),
    ("GET", "events"),
    ("DELETE", "events"),
    ("POST", "users/me/presence"),
    ("GET", "realm/presence"),
    ("PATCH", "realm"),
    ("GET", "users/{id}/presence"),
    ("POST", "typing"),
    ("GET", "users/me/alert_words"),
    ("POST", "users/me/alert_words"),
    ("DELETE", "users/me/alert_words"),
    ("POST", "messages/flags/narrow"),
    ("GET", "messages/{id}/read_receipts"),
    ("POST", "messages/{id}/report"),
    ("POST", "channel_folders/create"),
    ("GET", "channel_folders"),
    ("PATCH", "channel_folders/{id}"),
    ("POST", "submessage"),
    ("GET", "invites"),
    ("POST", "invites"),
    ("POST", "invites/multiuse"),
    ("DELETE", "invites/{id}"),
    ("DELETE", "invites/multiuse/{id}"),
    ("POST", "invites/{id}/resend"),
    ("GET", "user_groups"),
    ("POST", "user_groups/create"),
    ("PATCH", "user_groups/{id}"),
    ("POST", "user_groups/{id}/members"),
    ("GET", "user_groups/{id}/members"),
    ("GET", "user_groups/{id}/members/{id}"),
    ("POST", "user_groups/{id}/subgroups"),
    ("GET", "user_groups/{id}/subgroups"),
    ("POST", "user_groups/{id}/deactivate"),
    ("GET", "drafts"),
    ("POST", "drafts"),
    ("PATCH", "drafts/{id}"),
    ("DELETE", "drafts/{id}"),
    ("GET", "saved_snippets"),
    ("POST", "saved_snippets"),
    ("PATCH", "saved_snippets/{id}"),
    ("DELETE", "saved_snippets/{id}"),
    ("POST", "users/me/muted_users/{id}"),
    ("DELETE", "users/me/muted_users/{id}"),
    ("POST", "users/me/apns_device_token"),
    ("DELETE", "users/me/apns_device_token"),
    ("POST", "users/me/android_gcm_reg_id"),
    ("DELETE", "users/me/android_gcm_reg_id"),
    ("POST", "mobile_push/register"),
    ("GET", "bot_storage"),
    ("PUT", "bot_storage"),
    ("DELETE", "bot_storage"),
    ("GET", "scheduled_messages"),
    ("POST", "scheduled_messages"),
    ("PATCH", "scheduled_messages/{id}"),
    ("DELETE", "scheduled_messages/{id}"),
    ("GET", "reminders"),
    ("POST", "reminders"),
    ("DELETE", "reminders/{id}"),
    ("POST", "user_uploads"),
    ("GET", "user_uploads/1/ab/cdef/file.txt"),
    ("GET", "attachments"),
    ("DELETE", "attachments/{id}"),
    ("POST", "bots"),
    ("GET", "bots"),
    ("DELETE", "bots/{id}"),
    ("PATCH", "bots/{id}"),
    ("POST", "bots/{id}/api_key/regenerate"),
    ("POST", "external/slack_incoming"),
    ("POST", "external/json"),
    ("GET", "realm/emoji"),
    ("POST", "realm/emoji/green_tick"),
    ("DELETE", "realm/emoji/green_tick"),
    ("POST", "messages/render"),
    ("PATCH", "users/me/profile_data"),
    ("DELETE", "users/me/profile_data"),
];

/// Where `server_emoji_data_url` points (upstream's path for its emoji table).
pub const EMOJI_DATA_PATH: &str = "/static/generated/emoji/emoji_api.json";

/// The few endpoints outside `/api/v1` (static files clients fetch), by full path.
fn static_route(method: &Method, path: &str) -> Option<Result<Endpoint, NoRoute>> {
    if let Some(key) = signup::link_key(path) {
        let ok = [Method::GET, Method::HEAD, Method::POST].contains(method);
        return Some(if ok {
            Ok(Endpoint::Signup(key.to_string()))
        } else {
            Err(NoRoute::Method(vec!["GET", "HEAD", "POST"]))
        });
    }
    if let Some(rest) = path.strip_prefix("/user_uploads/") {
        let ok = method == Method::GET || method == Method::HEAD;
        return Some(match http::route::segments(rest) {
            Some(segs) if ok && segs.len() >= 2 => Ok(Endpoint::ServeUpload(segs)),
            Some(segs) if segs.len() >= 2 => Err(NoRoute::Method(vec!["GET", "HEAD"])),
            _ => Err(NoRoute::NotFound),
        });
    }
    if let Some(rest) = path.strip_prefix("/user_avatars/") {
        let ok = method == Method::GET || method == Method::HEAD;
        return Some(match http::route::segments(rest) {
            Some(segs) if ok && segs.len() >= 2 => Ok(Endpoint::ServeEmoji(segs)),
            Some(segs) if segs.len() >= 2 => Err(NoRoute::Method(vec!["GET", "HEAD"])),
            _ => Err(NoRoute::NotFound),
        });
    }
    let endpoint = match path {
        EMOJI_DATA_PATH => Endpoint::EmojiData,
        server::REALM_ICON_PATH => Endpoint::RealmIcon,
        "/" => Endpoint::WebHome,
        // Their handlers answer other methods themselves (and development login is a 404,
        // whatever the method, when development mode is off).
        "/devlogin" => return Some(Ok(Endpoint::WebDevLogin)),
        "/logout" => return Some(Ok(Endpoint::WebLogout)),
        "/login" => {
            let ok = [Method::GET, Method::HEAD, Method::POST].contains(method);
            return Some(if ok {
                Ok(Endpoint::WebLogin)
            } else {
                Err(NoRoute::Method(vec!["GET", "HEAD", "POST"]))
            });
        }
        _ => match path.strip_prefix(crate::web::assets::STATIC_PREFIX) {
            Some(rest) => match http::route::segments(rest) {
                Some(segs) if segs.len() >= 2 => Endpoint::WebAsset(segs),
                _ => return Some(Err(NoRoute::NotFound)),
            },
            None => return None,
        },
    };
    Some(if method == Method::GET || method == Method::HEAD {
        Ok(endpoint)
    } else {
        Err(NoRoute::Method(vec!["GET", "HEAD"]))
    })
}

/// Splits `/api/v1/a/b%40c` into decoded segments after the prefix; `None` outside the API.
fn api_segments(path: &str) -> Option<Vec<String>> {
    let rest = path
        .strip_prefix("/api/v1/")
        .or_else(|| (path == "/api/v1").then_some(""))?;
    http::route::segments(rest)
}

/// The same for the web client's `/json/a/b` (the same table, with session credentials).
fn json_segments(path: &str) -> Option<Vec<String>> {
    let rest = path
        .strip_prefix("/json/")
        .or_else(|| (path == "/json").then_some(""))?;
    http::route::segments(rest)
}

/// The answer to a `/json` request that is not logged in: upstream names the session scheme.
fn session_error(e: &Error) -> Response {
    let mut res = error_response(e);
    if res.status() == StatusCode::UNAUTHORIZED {
        res.headers_mut().insert(
            hyper::header::WWW_AUTHENTICATE,
            hyper::header::HeaderValue::from_static("Session realm=\"zulip\""),
        );
    }
    res
}

/// The chat API as served on its listener.
pub struct ChatApi {
    state: Arc<AppState>,
}

/// What admission decided for a chat request: its endpoint, its authenticated caller and
/// where it stands against its rate limit (sent back as headers).
pub struct ChatTicket {
    endpoint: Endpoint,
    caller: Option<Arc<User>>,
    rate: Option<RateState>,
    /// The CSRF token of the web session a `/json` request came with.
    session_csrf: Option<String>,
}

/// The chat API's 429, with the rate-limit headers.
fn rate_limited(l: Limited) -> Response {
    let mut res = error_response(&Error::new(
        ErrorKind::RateLimited {
            retry_after: l.retry_after,
        },
        "API usage exceeded rate limit",
    ));
    rate_limit::add_headers(&mut res, &l.state);
    res
}

/// Largest body of an unauthenticated request (`fetch_api_key` and friends): a login form.
const UNAUTHENTICATED_BODY: usize = 16 * 1024;

impl ChatApi {
    pub fn new(state: Arc<AppState>) -> ChatApi {
        ChatApi { state }
    }

    /// Counts the request against its rate limit (see `Rates::admit`). Long-polls are not
    /// counted: a waiting client must be able to come back at once.
    fn rate_check(
        &self,
        endpoint: &Endpoint,
        caller: Option<&User>,
        peer: IpAddr,
    ) -> Result<Option<RateState>, Limited> {
        // The web client's files are served from memory; a page load fetches many at once.
        if matches!(
            endpoint,
            Endpoint::GetEvents | Endpoint::DeleteQueue | Endpoint::WebAsset(_)
        ) {
            return Ok(None);
        }
        let caller = caller.map(|u| (RateKey::User(u.id.0), u.is_bot));
        self.state.rates.admit(caller, peer)
    }

    /// Route, credentials and rate limit, from the head alone.
    async fn admit_head(
        &self,
        head: &Parts,
        peer: IpAddr,
    ) -> Result<Admission<ChatTicket>, Response> {
        let path = head.uri.path();
        // `/json/...` is the web client's door to the same table: session cookie only.
        let mut via_session = false;
        let routed = match static_route(&head.method, path) {
            Some(r) => r,
            None => {
                let segs = match api_segments(path) {
                    Some(segs) => segs,
                    None => match json_segments(path) {
                        Some(segs) => {
                            via_session = true;
                            segs
                        }
                        None => {
                            return Err(error_response(&Error::not_found(format!(
                                "Not found: {path}"
                            ))));
                        }
                    },
                };
                match route(&head.method, &segs) {
                    // Incoming webhooks take their bot's key; they have no web form.
                    Ok(Endpoint::IncomingWebhook(_)) if via_session => Err(NoRoute::NotFound),
                    r => r,
                }
            }
        };
        let endpoint = match routed {
            Ok(e) => e,
            Err(NoRoute::NotFound) => {
                return Err(error_response(&Error::not_found(format!(
                    "Endpoint not found: {} {path}",
                    head.method
                ))));
            }
            Err(NoRoute::Method(allowed)) => {
                if head.method == Method::OPTIONS {
                    return Err(http::route::allow_response(
                        StatusCode::NO_CONTENT,
                        &allowed,
                        ", ",
                    ));
                }
                return Err(error_response(&Error::new(
                    ErrorKind::MethodNotAllowed(allowed),
                    "Method Not Allowed",
                )));
            }
        };
        let limits = &self.state.config.limits;
        // A download with credentials is checked (and rate limited) as its user; a temporary
        // URL's needs none.
        let credentials = endpoint.needs_auth()
            || (matches!(endpoint, Endpoint::ServeUpload(_))
                && head.headers.contains_key("authorization"));
        let mut session_csrf = None;
        let (caller, mut body_limit) = if via_session && endpoint.needs_auth() {
            // Authenticated by the session cookie alone (never Basic), and anything but a
            // read must carry the session's CSRF token; both before the body is read.
            let session = match crate::web::sessions::from_cookie(&self.state, &head.headers).await
            {
                Ok(Some(s)) => s,
                Ok(None) => return Err(session_error(&crate::web::sessions::not_logged_in())),
                Err(e) => return Err(error_response(&e)),
            };
            if head.method != Method::GET && head.method != Method::HEAD {
                crate::web::sessions::check_csrf(&head.headers, &session)
                    .map_err(|e| error_response(&e))?;
            }
            session_csrf = Some(session.csrf_token);
            (Some(session.user), limits.max_body_bytes)
        } else if matches!(endpoint, Endpoint::ServeUpload(_))
            && !head.headers.contains_key("authorization")
        {
            // A download in the browser (`<img>`, links) carries the session cookie; a
            // temporary URL needs nothing, so a missing or stale session is no error here.
            match crate::web::sessions::from_cookie(&self.state, &head.headers).await {
                Ok(s) => (s.map(|s| s.user), limits.max_body_bytes),
                Err(e) => return Err(error_response(&e)),
            }
        } else if let Endpoint::IncomingWebhook(_) = endpoint {
            let query = head.uri.query().unwrap_or("");
            match auth::authenticate_webhook(&self.state, query, &head.headers).await {
                Ok(u) => (Some(u), limits.max_body_bytes),
                Err(e) => return Err(error_response(&e)),
            }
        } else if credentials {
            let webhook_bots = endpoint == Endpoint::SendMessage;
            match auth::authenticate(&self.state, &head.headers, webhook_bots).await {
                Ok(u) => (Some(u), limits.max_body_bytes),
                Err(e) => return Err(error_response(&e)),
            }
        } else {
            (None, limits.max_body_bytes.min(UNAUTHENTICATED_BODY))
        };
        // An upload's body may be as large as the largest file plus its framing; it is read
        // (within that limit, while streaming) only after the credentials were checked, and
        // holds one of the few upload slots meanwhile.
        let upload = matches!(endpoint, Endpoint::UploadFile | Endpoint::UploadEmoji(_));
        if endpoint == Endpoint::UploadFile {
            body_limit = limits.max_file_upload_size_mib * 1024 * 1024 + uploads::MULTIPART_SLACK;
        } else if upload {
            body_limit = limits.max_emoji_file_size_mib * 1024 * 1024 + uploads::MULTIPART_SLACK;
        }
        let rate = self
            .rate_check(&endpoint, caller.as_deref(), peer)
            .map_err(rate_limited)?;
        Ok(Admission {
            ticket: ChatTicket {
                endpoint,
                caller,
                rate,
                session_csrf,
            },
            body_limit,
            upload,
        })
    }

    async fn dispatch(&self, ticket: ChatTicket, req: Request) -> Response {
        let rate = ticket.rate;
        let mut res = self.answer(ticket, req).await;
        if let Some(s) = &rate {
            rate_limit::add_headers(&mut res, s);
        }
        res
    }

    async fn answer(&self, ticket: ChatTicket, req: Request) -> Response {
        let ChatTicket {
            endpoint,
            caller,
            session_csrf,
            ..
        } = ticket;
        match endpoint {
            Endpoint::EmojiData => return server::emoji_data(&req),
            Endpoint::ServeUpload(segs) => {
                return uploads::serve(&self.state, &req, caller.as_deref(), segs).await;
            }
            Endpoint::RealmIcon => return server::realm_icon(),
            Endpoint::ServeEmoji(segs) => return emoji::serve(&self.state, segs).await,
            Endpoint::WebAsset(segs) => {
                return self.state.web_assets.serve(&req.parts.headers, &segs);
            }
            e if e.is_web() => {
                let state = &*self.state;
                let answer = match e {
                    Endpoint::WebHome => crate::web::pages::home(state, &req).await,
                    Endpoint::WebLogin => crate::web::pages::login(state, &req).await,
                    Endpoint::WebDevLogin => crate::web::pages::dev_login(state, &req).await,
                    _ => crate::web::pages::logout(state, &req).await,
                };
                return answer.unwrap_or_else(|e| error_response(&e));
            }
            Endpoint::Signup(key) => {
                return match signup::handle(&self.state, &key, &req).await {
                    Ok(res) => res,
                    Err(e) => error_response(&e),
                };
            }
            _ => {}
        }
        let max_params = self.state.config.limits.max_params;
        let parsed = if req.body.len() > LARGE_BODY {
            // Large form bodies are decoded on the CPU threads, not on an async worker.
            let raw = RawParams::of(&req);
            self.state
                .db
                .cpu(move || raw.parse(max_params))
                .await
                .and_then(|r| r)
        } else {
            Params::from_request(&req, max_params)
        };
        let mut params = match parsed {
            Ok(p) => p,
            Err(e) => return error_response(&e),
        };
        let caller = caller.as_deref();
        if endpoint == Endpoint::GetEvents {
            // The long-poll renders its own body (events are pre-serialized). The request is
            // not needed while it waits; free it, since many polls wait at once.
            drop(req);
            let Some(me) = caller else {
                return error_response(&Error::internal("no caller on an authenticated route"));
            };
            return match realtime::get_events(&self.state, me, &mut params).await {
                Ok(res) => res,
                Err(e) => error_response(&e),
            };
        }
        // A new password or API key ends the user's web sessions; the browser that asked
        // gets a new one (with its page's CSRF token) and stays logged in.
        let renew = match &endpoint {
            Endpoint::UpdateSettings => params.has("new_password"),
            Endpoint::RegenerateApiKey => true,
            _ => false,
        };
        let renew = session_csrf.filter(|_| renew).zip(caller.map(|u| u.id));
        match self.call(endpoint, caller, &mut params, &req).await {
            Ok(success) => {
                let mut res = success.finish(params.unused());
                if let Some((csrf, user)) = renew {
                    match crate::domain::sessions::create(&self.state, user, Some(csrf)).await {
                        Ok(s) => {
                            let cookie = crate::web::sessions::session_cookie(&self.state, &s);
                            res.headers_mut().append(hyper::header::SET_COOKIE, cookie);
                        }
                        Err(e) => return error_response(&e),
                    }
                }
                res
            }
            Err(e) => error_response(&e),
        }
    }

    async fn call(
        &self,
        endpoint: Endpoint,
        caller: Option<&User>,
        p: &mut Params,
        req: &Request,
    ) -> Result<Success> {
        let state = &*self.state;
        // Authenticated endpoints always have a caller (checked in `dispatch`).
        let me = || caller.ok_or_else(|| Error::internal("no caller on an authenticated route"));
        use crate::domain::push::TokenKind::{Apns, Fcm};
        match endpoint {
            Endpoint::ServerSettings => {
                server::get_server_settings(state, req.header("user-agent")).await
            }
            Endpoint::FetchApiKey => server::fetch_api_key(state, p).await,
            Endpoint::DevFetchApiKey => server::dev_fetch_api_key(state, p).await,
            Endpoint::RegenerateApiKey => server::regenerate_api_key(state, me()?).await,
            Endpoint::GetOwnUser => users::get_own_user(state, me()?).await,
            Endpoint::UpdateOwnStatus => users::update_own_status(state, me()?, p).await,
            Endpoint::UpdateSettings => users::update_settings(state, me()?, p).await,
            Endpoint::GetUsers => users::get_users(state, me()?, p).await,
            Endpoint::CreateUser => users::create_user(state, me()?, p).await,
            Endpoint::GetUser(r) => users::get_user(state, me()?, &r, p).await,
            Endpoint::UpdateUser(r) => users::update_user(state, me()?, &r, p).await,
            Endpoint::DeactivateUser(id) => users::deactivate_user(state, me()?, id).await,
            Endpoint::ReactivateUser(id) => users::reactivate_user(state, me()?, id).await,
            Endpoint::GetUserStatus(id) => users::get_user_status(state, id).await,
            Endpoint::GetProfileFields => users::get_profile_fields(state).await,
            Endpoint::CreateProfileField => users::create_profile_field(state, me()?, p).await,
            Endpoint::CreateChannel => channels::create_channel(state, me()?, p).await,
            Endpoint::CreateChannelFolder => channel_folders::create(state, me()?, p).await,
            Endpoint::GetChannelFolders => channel_folders::list(state, p).await,
            Endpoint::UpdateChannelFolder(id) => channel_folders::update(state, me()?, id, p).await,
            Endpoint::GetUserGroups => user_groups::list(state, me()?, p).await,
            Endpoint::CreateUserGroup => user_groups::create(state, me()?, p).await,
            Endpoint::UpdateUserGroup(id) => user_groups::update(state, me()?, id, p).await,
            Endpoint::UpdateUserGroupMembers(id) => {
                user_groups::update_members(state, me()?, id, p).await
            }
            Endpoint::GetUserGroupMembers(id) => user_groups::members(state, me()?, id, p).await,
            Endpoint::IsUserGroupMember(id, user) => {
                user_groups::is_member(state, me()?, id, user, p).await
            }
            Endpoint::UpdateUserGroupSubgroups(id) => {
                user_groups::update_subgroups(state, me()?, id, p).await
            }
            Endpoint::GetUserGroupSubgroups(id) => {
                user_groups::subgroups(state, me()?, id, p).await
            }
            Endpoint::DeactivateUserGroup(id) => user_groups::deactivate(state, me()?, id).await,
            Endpoint::Subscribe => channels::subscribe(state, me()?, p).await,
            Endpoint::GetSubscriptions => channels::get_subscriptions(state, me()?, p).await,
            Endpoint::Unsubscribe => channels::unsubscribe(state, me()?, p).await,
            Endpoint::UpdateSubscriptionProperties => {
                channels::update_subscription_properties(state, me()?, p).await
            }
            Endpoint::GetStreams => channels::get_streams(state, me()?, p).await,
            Endpoint::GetStream(id) => channels::get_stream(state, me()?, id).await,
            Endpoint::UpdateStream(id) => channels::update_stream(state, me()?, id, p).await,
            Endpoint::ArchiveStream(id) => channels::archive_stream(state, me()?, id).await,
            Endpoint::GetStreamId => channels::get_stream_id(state, me()?, p).await,
            Endpoint::GetStreamMembers(id) => channels::get_members(state, me()?, id).await,
            Endpoint::SendMessage => messages::send_message(state, me()?, req, p).await,
            Endpoint::GetMessages => messages::get_messages(state, me()?, p).await,
            Endpoint::GetMessage(id) => messages::get_message(state, me()?, id, p).await,
            Endpoint::UpdateMessageFlags => messages::update_flags(state, me()?, p).await,
            Endpoint::UpdateMessageFlagsInNarrow => {
                messages::update_flags_in_narrow(state, me()?, p).await
            }
            Endpoint::GetReadReceipts(id) => messages::get_read_receipts(state, me()?, id).await,
            Endpoint::ReportMessage(id) => messages::report_message(state, me()?, id, p).await,
            Endpoint::AddSubmessage => messages::add_submessage(state, me()?, p).await,
            Endpoint::MarkAllAsRead => messages::mark_all_as_read(state, me()?).await,
            Endpoint::RenderMessage => messages::render_message(state, me()?, p).await,
            Endpoint::UpdateOwnProfileData => users::update_own_profile_data(state, me()?, p).await,
            Endpoint::RemoveOwnProfileData => users::remove_own_profile_data(state, me()?, p).await,
            Endpoint::MarkStreamAsRead => messages::mark_stream_as_read(state, me()?, p).await,
            Endpoint::MarkTopicAsRead => messages::mark_topic_as_read(state, me()?, p).await,
            Endpoint::UpdateMessage(id) => messages::update_message(state, me()?, id, p).await,
            Endpoint::DeleteMessage(id) => messages::delete_message(state, me()?, id).await,
            Endpoint::GetMessageHistory(id) => messages::get_history(state, me()?, id).await,
            Endpoint::AddReaction(id) => messages::add_reaction(state, me()?, id, p).await,
            Endpoint::RemoveReaction(id) => messages::remove_reaction(state, me()?, id, p).await,
            Endpoint::GetTopics(id) => topics::get_topics(state, me()?, id, p).await,
            Endpoint::DeleteTopic(id) => topics::delete_topic(state, me()?, id, p).await,
            Endpoint::UpdateMutedTopic => topics::update_muted_topic(state, me()?, p).await,
            Endpoint::UpdateUserTopic => topics::update_user_topic(state, me()?, p).await,
            Endpoint::Register => realtime::register(state, me()?, p).await,
            Endpoint::GetEvents
            | Endpoint::EmojiData
            | Endpoint::RealmIcon
            | Endpoint::ServeUpload(_)
            | Endpoint::ServeEmoji(_)
            | Endpoint::Signup(_)
            | Endpoint::WebHome
            | Endpoint::WebLogin
            | Endpoint::WebDevLogin
            | Endpoint::WebLogout
            | Endpoint::WebAsset(_) => {
                unreachable!("answered in dispatch")
            }
            Endpoint::GetInvites => invites::list(state, me()?).await,
            Endpoint::SendInvites => invites::send(state, me()?, p).await,
            Endpoint::CreateInviteLink => invites::create_link(state, me()?, p).await,
            Endpoint::GetScheduledMessages => scheduled::list(state, me()?).await,
            Endpoint::CreateScheduledMessage => scheduled::create(state, me()?, req, p).await,
            Endpoint::UpdateScheduledMessage(id) => scheduled::update(state, me()?, id, p).await,
            Endpoint::DeleteScheduledMessage(id) => scheduled::delete(state, me()?, id).await,
            Endpoint::GetReminders => scheduled::list_reminders(state, me()?).await,
            Endpoint::CreateReminder => scheduled::create_reminder(state, me()?, p).await,
            Endpoint::DeleteReminder(id) => scheduled::delete_reminder(state, me()?, id).await,
            Endpoint::RevokeInvite(id) => invites::revoke(state, me()?, id, false).await,
            Endpoint::RevokeInviteLink(id) => invites::revoke(state, me()?, id, true).await,
            Endpoint::ResendInvite(id) => invites::resend(state, me()?, id).await,
            Endpoint::DeleteQueue => realtime::delete_queue(state, me()?, p),
            Endpoint::UpdatePresence => presence::update_presence(state, me()?, p).await,
            Endpoint::GetRealmPresence => presence::get_realm_presence(state).await,
            Endpoint::UpdateRealm => realm::update_realm(state, me()?, p).await,
            Endpoint::GetUserPresence(r) => presence::get_user_presence(state, me()?, &r).await,
            Endpoint::SetTyping => presence::set_typing(state, me()?, p).await,
            Endpoint::GetAlertWords => presence::get_alert_words(state, me()?).await,
            Endpoint::AddAlertWords => presence::change_alert_words(state, me()?, p, true).await,
            Endpoint::RemoveAlertWords => {
                presence::change_alert_words(state, me()?, p, false).await
            }
            Endpoint::GetDrafts => records::get_drafts(state, me()?).await,
            Endpoint::CreateDrafts => records::create_drafts(state, me()?, p).await,
            Endpoint::EditDraft(id) => records::edit_draft(state, me()?, id, p).await,
            Endpoint::DeleteDraft(id) => records::delete_draft(state, me()?, id).await,
            Endpoint::GetSavedSnippets => records::get_snippets(state, me()?).await,
            Endpoint::CreateSavedSnippet => records::create_snippet(state, me()?, p).await,
            Endpoint::EditSavedSnippet(id) => records::edit_snippet(state, me()?, id, p).await,
            Endpoint::DeleteSavedSnippet(id) => records::delete_snippet(state, me()?, id).await,
            Endpoint::MuteUser(id) => records::mute_user(state, me()?, id).await,
            Endpoint::UnmuteUser(id) => records::unmute_user(state, me()?, id).await,
            Endpoint::AddApnsToken => records::add_push_token(state, me()?, Apns, p).await,
            Endpoint::RemoveApnsToken => records::remove_push_token(state, me()?, Apns, p).await,
            Endpoint::AddFcmToken => records::add_push_token(state, me()?, Fcm, p).await,
            Endpoint::RemoveFcmToken => records::remove_push_token(state, me()?, Fcm, p).await,
            Endpoint::RegisterPushDevice => records::register_push_device(state, me()?, p).await,
            Endpoint::GetBotStorage => bot_storage::get(state, me()?, p).await,
            Endpoint::UpdateBotStorage => bot_storage::put(state, me()?, p).await,
            Endpoint::RemoveBotStorage => bot_storage::remove(state, me()?, p).await,
            Endpoint::UploadFile => uploads::upload_file(state, me()?, req).await,
            Endpoint::GetFileTemporaryUrl(path) => uploads::temporary_url(state, me()?, path).await,
            Endpoint::GetAttachments => uploads::list_attachments(state, me()?).await,
            Endpoint::RemoveAttachment(id) => uploads::remove_attachment(state, me()?, id).await,
            Endpoint::CreateBot => bots::create(state, me()?, p).await,
            Endpoint::GetBots => bots::list(state, me()?).await,
            Endpoint::DeactivateBot(id) => bots::deactivate(state, me()?, id).await,
            Endpoint::UpdateBot(id) => bots::update(state, me()?, id, p).await,
            Endpoint::RegenerateBotApiKey(id) => bots::regenerate_api_key(state, me()?, id).await,
            Endpoint::IncomingWebhook(i) => webhooks::handle(state, me()?, i, req, p).await,
            Endpoint::GetRealmEmoji => emoji::list(state).await,
            Endpoint::UploadEmoji(name) => emoji::upload(state, me()?, &name, req).await,
            Endpoint::DeactivateEmoji(name) => emoji::deactivate(state, me()?, name).await,
        }
    }
}

/// A chat listener's request path as logged (see `Api::loggable_path`).
pub fn loggable_path(path: &str) -> std::borrow::Cow<'_, str> {
    match uploads::loggable_path(path) {
        Some(hidden) => hidden,
        None => signup::loggable_path(path),
    }
}

impl Api for ChatApi {
    type Ticket = ChatTicket;

    /// A signup link's key lets anyone create an account, and a temporary upload URL's token
    /// lets anyone download the file: neither reaches the log.
    fn loggable_path<'a>(&self, path: &'a str) -> std::borrow::Cow<'a, str> {
        loggable_path(path)
    }

    async fn admit(
        &self,
        head: &Parts,
        peer: std::net::SocketAddr,
    ) -> Result<Admission<ChatTicket>, Response> {
        self.admit_head(head, peer.ip()).await
    }

    fn handle(self: Arc<Self>, ticket: ChatTicket, req: Request) -> BoxFuture<Response> {
        Box::pin(async move { self.dispatch(ticket, req).await })
    }

    fn payload_too_large(&self, limit: usize) -> Response {
        error_response(&Error::new(
            ErrorKind::PayloadTooLarge,
            format!("Request body too large (limit: {limit} bytes)"),
        ))
    }

    fn body_failed(&self, timed_out: bool) -> Response {
        if timed_out {
            error_response(&Error::new(
                ErrorKind::Timeout,
                "The request body did not arrive in time",
            ))
        } else {
            error_response(&Error::bad_request("The request body could not be read"))
        }
    }

    fn overloaded(&self) -> Response {
        error_response(&Error::new(
            ErrorKind::Unavailable,
            "The server is busy (too many connections or uploads at once); try again shortly",
        ))
    }

    fn internal_error(&self) -> Response {
        envelope::internal_error_response()
    }

    fn metrics(&self) -> Option<&crate::metrics::RequestMetrics> {
        Some(&self.state.chat_requests)
    }

    fn route_index(&self, ticket: &ChatTicket) -> Option<usize> {
        Some(ticket.endpoint.route_index())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logged_paths_hide_temporary_upload_tokens_and_signup_keys() {
        let token = "/user_uploads/temporary/12-1700000000-0a1b2c/report.pdf";
        assert_eq!(loggable_path(token), "/user_uploads/temporary/***");
        // However the router would still reach the temporary URL.
        for spelled in [
            "/user_uploads/%74emporary/12-1700000000-0a1b2c/report.pdf",
            "/user_uploads//temporary/12-1700000000-0a1b2c/x",
            "/user_uploads/temporary/12-1700000000-0a1b2c",
        ] {
            assert_eq!(loggable_path(spelled), "/user_uploads/temporary/***");
        }
        assert_eq!(loggable_path("/join/abc123/"), "/join/***");
        // Ordinary downloads and API paths stay as they are.
        for plain in [
            "/user_uploads/1/ab/cdef/file.txt",
            "/user_uploads/temporary",
            "/api/v1/user_uploads/1/ab/file.txt",
            "/api/v1/messages",
        ] {
            assert_eq!(loggable_path(plain), plain);
        }
    }

    fn segs(p: &str) -> Vec<String> {
        api_segments(p).unwrap()
    }

    /// Every endpoint has a place in `ROUTE_NAMES` (`route_index` matches exhaustively, so a new
    /// variant does not compile until it has one), and the test below fails until it has a
    /// sample route.
    const ENDPOINTS: usize = ROUTE_NAMES.len();

    #[test]
    fn every_endpoint_has_exactly_one_sample_route() {
        let mut seen = [0usize; ENDPOINTS];
        for (method, path) in SAMPLE_ROUTES {
            let m: Method = method.parse().unwrap();
            let e = route(&m, &segs(&format!("/api/v1/{}", path.replace("{id}", "7"))))
                .unwrap_or_else(|e| panic!("{method} {path}: {e:?}"));
            let i = e.route_index();
            assert!(i < ENDPOINTS, "{e:?}: raise ENDPOINTS");
            seen[i] += 1;
            // The metrics label is the variant's name (an incoming webhook's with its
            // integration after it).
            let debug = format!("{e:?}");
            let variant = debug.split('(').next().unwrap();
            let label = ROUTE_NAMES[e.route_index()];
            assert!(
                label == variant || (variant == "IncomingWebhook" && label.starts_with(variant)),
                "{label} names {debug}"
            );
        }
        // The endpoints outside `/api/v1` (no parameters, no credentials) are routed by path.
        for path in [
            EMOJI_DATA_PATH,
            server::REALM_ICON_PATH,
            "/join/abc123/",
            "/user_uploads/1/ab/cdef/file.txt",
            "/user_avatars/1/emoji/images/abc.png",
            "/",
            "/login",
            "/devlogin",
            "/logout",
            "/static/0123456789abcdef/main.js",
        ] {
            let e = static_route(&Method::GET, path).unwrap().unwrap();
            seen[e.route_index()] += 1;
        }
        let missing: Vec<usize> = (0..ENDPOINTS).filter(|&i| seen[i] != 1).collect();
        assert!(
            missing.is_empty(),
            "endpoints without one sample: {missing:?}"
        );
        assert_eq!(SAMPLE_ROUTES.len() + 10, ENDPOINTS);
    }

    #[test]
    fn routes_resolve_with_typed_ids() {
        assert_eq!(
            route(&Method::GET, &segs("/api/v1/users/me")),
            Ok(Endpoint::GetOwnUser)
        );
        assert_eq!(
            route(&Method::HEAD, &segs("/api/v1/users/12")),
            Ok(Endpoint::GetUser(UserRef::Id(12)))
        );
        assert_eq!(
            route(&Method::PATCH, &segs("/api/v1/users/a%40b.c")),
            Ok(Endpoint::UpdateUser(UserRef::Email("a@b.c".into())))
        );
        assert_eq!(
            route(&Method::GET, &segs("/api/v1//users/5/status")),
            Ok(Endpoint::GetUserStatus(5))
        );
        assert_eq!(
            route(&Method::GET, &segs("/api/v1/users/x/status")),
            Err(NoRoute::NotFound)
        );
        assert_eq!(
            route(&Method::PUT, &segs("/api/v1/users")),
            Err(NoRoute::Method(vec!["GET", "HEAD", "POST"]))
        );
        assert!(api_segments("/other").is_none());
    }
}
