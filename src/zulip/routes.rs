//! THE chat route table: one row per endpoint under `/api/v1` (and `/json`), with its method,
//! path, policy (what admission decides from the head) and handler call. `http::route::routes!`
//! turns the rows into [`Endpoint`], the metrics names, the matcher, the sample paths and
//! [`call`]. Pages and files outside the API are `listeners::chat::pages`. Must not hold handler logic:
//! a row names one handler.

use crate::domain::push::TokenKind::{Apns, Fcm};
use crate::error::Result;
use crate::http::Request;
use crate::http::Response;
use crate::http::route::{self, FromSegment, FromSegments, ListOptions, NoRoute, RouteTable};
use crate::model::User;
use crate::zulip::ChatState;
use hyper::Method;

use super::envelope::Success;
use super::params::Params;
use super::users::UserRef;
use super::webhooks::Integration;
use super::{
    bot_storage, bots, channel_folders, channels, emoji, invites, messages, presence, realm,
    realtime, records, scheduled, server, topics, uploads, user_groups, users, webhooks,
};

/// How admission identifies the caller of an endpoint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Auth {
    /// No credentials (a login form, the server's settings).
    Open,
    /// A user: Basic auth under `/api/v1`, the session cookie under `/json`.
    User,
    /// As `User`, and incoming-webhook bots may use it too (sending messages).
    UserOrWebhookBot,
    /// An incoming webhook: the bot's `api_key` (query or Basic); no `/json` form.
    WebhookKey,
}

/// How large a body admission lets an endpoint read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Body {
    /// `[limits] max_body_bytes` (a login form's smaller limit when unauthenticated).
    Default,
    /// An uploaded file: the largest file plus multipart framing; holds an upload slot.
    File,
    /// A custom emoji's picture, likewise.
    Emoji,
}

/// Whether a success gives the browser that asked a new web session (a new password or API
/// key ends the user's sessions).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Renew {
    Never,
    Always,
    /// When the request carries this parameter.
    WithParam(&'static str),
}

/// What admission and dispatch need to know about an endpoint, from its row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Policy {
    pub auth: Auth,
    pub body: Body,
    /// Counted against the rate limit (long-polls are not: a waiting client must be able to
    /// come back at once).
    pub metered: bool,
    pub renew: Renew,
}

impl Policy {
    const fn auth(auth: Auth) -> Policy {
        Policy {
            auth,
            body: Body::Default,
            metered: true,
            renew: Renew::Never,
        }
    }

    const fn body(self, body: Body) -> Policy {
        Policy { body, ..self }
    }

    const fn unmetered(self) -> Policy {
        Policy {
            metered: false,
            ..self
        }
    }

    const fn renew(self, renew: Renew) -> Policy {
        Policy { renew, ..self }
    }
}

const OPEN: Policy = Policy::auth(Auth::Open);
const USER: Policy = Policy::auth(Auth::User);
const WEBHOOK_KEY: Policy = Policy::auth(Auth::WebhookKey);

/// What a handler answered: a success for the envelope, or a response it rendered itself
/// (the long-poll's pre-serialized events).
pub enum Reply {
    Json(Success),
    Raw(Response),
}

impl From<Success> for Reply {
    fn from(s: Success) -> Reply {
        Reply::Json(s)
    }
}

impl From<Response> for Reply {
    fn from(r: Response) -> Reply {
        Reply::Raw(r)
    }
}

/// A numeric path segment; ids that do not fit are ids of nothing.
impl FromSegment for i64 {
    fn from_segment(seg: &str) -> Option<i64> {
        if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
            Some(seg.parse().unwrap_or(-1))
        } else {
            None
        }
    }
}

impl FromSegment for UserRef {
    fn from_segment(seg: &str) -> Option<UserRef> {
        Some(match i64::from_segment(seg) {
            Some(id) => UserRef::Id(id),
            None => UserRef::Email(seg.to_string()),
        })
    }
}

/// The path of an upload after `user_uploads/` (at least two segments), joined with `/`.
#[derive(Clone, Debug, PartialEq)]
pub struct UploadPath(pub String);

impl FromSegments for UploadPath {
    fn from_segments(segs: &[String]) -> Option<UploadPath> {
        (segs.len() >= 2).then(|| UploadPath(segs.join("/")))
    }
}

/// A custom emoji's name after `realm/emoji/` (not empty), joined with `/`.
#[derive(Clone, Debug, PartialEq)]
pub struct EmojiName(pub String);

impl FromSegments for EmojiName {
    fn from_segments(segs: &[String]) -> Option<EmojiName> {
        (!segs.is_empty()).then(|| EmojiName(segs.join("/")))
    }
}

route::routes! {
    /// Every chat endpoint under `/api/v1`, with its path parameters parsed.
    pub enum Endpoint;
    policy: Policy;
    dispatch:
        /// Runs the endpoint's handler; `me` is the authenticated caller (every endpoint but
        /// the open ones has one).
        pub(super) async fn call<'a>(
            state: &ChatState,
            me: &(dyn Fn() -> Result<&'a User> + Sync),
            p: &mut Params,
            req: Request,
        ) -> Result<Reply>;

    ServerSettings = GET ["server_settings"], OPEN =>
        server::get_server_settings(state, req.header("user-agent")).await;
    FetchApiKey = POST ["fetch_api_key"], OPEN => server::fetch_api_key(state, p).await;
    DevFetchApiKey = POST ["dev_fetch_api_key"], OPEN => server::dev_fetch_api_key(state, p).await;
    GetOwnUser = GET ["users", "me"], USER => users::get_own_user(state, me()?).await;
    RegenerateApiKey = POST ["users", "me", "api_key", "regenerate"], USER.renew(Renew::Always) =>
        server::regenerate_api_key(state, me()?).await;
    UpdateOwnStatus = POST ["users", "me", "status"], USER =>
        users::update_own_status(state, me()?, p).await;
    // `display` and `notifications` are deprecated aliases kept for old clients.
    UpdateSettings = PATCH ["settings"] | ["settings", "display"] | ["settings", "notifications"],
        USER.renew(Renew::WithParam("new_password")) => users::update_settings(state, me()?, p).await;
    GetUsers = GET ["users"], USER => users::get_users(state, me()?, p).await;
    CreateUser = POST ["users"], USER => users::create_user(state, me()?, p).await;
    GetUser(id: UserRef) = GET ["users", id], USER => users::get_user(state, me()?, &id, p).await;
    UpdateUser(id: UserRef) = PATCH ["users", id], USER =>
        users::update_user(state, me()?, &id, p).await;
    DeactivateUser(id: i64) = DELETE ["users", id], USER =>
        users::deactivate_user(state, me()?, id).await;
    ReactivateUser(id: i64) = POST ["users", id, "reactivate"], USER =>
        users::reactivate_user(state, me()?, id).await;
    GetUserStatus(id: i64) = GET ["users", id, "status"], USER =>
        users::get_user_status(state, id).await;
    GetProfileFields = GET ["realm", "profile_fields"], USER => users::get_profile_fields(state).await;
    CreateProfileField = POST ["realm", "profile_fields"], USER =>
        users::create_profile_field(state, me()?, p).await;
    CreateChannel = POST ["channels", "create"], USER => channels::create_channel(state, me()?, p).await;
    Subscribe = POST ["users", "me", "subscriptions"], USER => channels::subscribe(state, me()?, p).await;
    GetSubscriptions = GET ["users", "me", "subscriptions"], USER =>
        channels::get_subscriptions(state, me()?, p).await;
    Unsubscribe = DELETE ["users", "me", "subscriptions"], USER =>
        channels::unsubscribe(state, me()?, p).await;
    UpdateSubscriptionProperties = POST ["users", "me", "subscriptions", "properties"], USER =>
        channels::update_subscription_properties(state, me()?, p).await;
    GetStreams = GET ["streams"], USER => channels::get_streams(state, me()?, p).await;
    GetStream(id: i64) = GET ["streams", id], USER => channels::get_stream(state, me()?, id).await;
    UpdateStream(id: i64) = PATCH ["streams", id], USER =>
        channels::update_stream(state, me()?, id, p).await;
    ArchiveStream(id: i64) = DELETE ["streams", id], USER =>
        channels::archive_stream(state, me()?, id).await;
    GetStreamId = GET ["get_stream_id"], USER => channels::get_stream_id(state, me()?, p).await;
    GetStreamMembers(id: i64) = GET ["streams", id, "members"], USER =>
        channels::get_members(state, me()?, id).await;
    SendMessage = POST ["messages"], Policy::auth(Auth::UserOrWebhookBot) =>
        messages::send_message(state, me()?, &req, p).await;
    GetMessages = GET ["messages"], USER => messages::get_messages(state, me()?, p).await;
    GetMessage(id: i64) = GET ["messages", id], USER => messages::get_message(state, me()?, id, p).await;
    UpdateMessageFlags = POST ["messages", "flags"], USER => messages::update_flags(state, me()?, p).await;
    UpdateMessageFlagsInNarrow = POST ["messages", "flags", "narrow"], USER =>
        messages::update_flags_in_narrow(state, me()?, p).await;
    AddSubmessage = POST ["submessage"], USER => messages::add_submessage(state, me()?, p).await;
    GetReadReceipts(id: i64) = GET ["messages", id, "read_receipts"], USER =>
        messages::get_read_receipts(state, me()?, id).await;
    ReportMessage(id: i64) = POST ["messages", id, "report"], USER =>
        messages::report_message(state, me()?, id, p).await;
    CreateChannelFolder = POST ["channel_folders", "create"], USER =>
        channel_folders::create(state, me()?, p).await;
    GetChannelFolders = GET ["channel_folders"], USER => channel_folders::list(state, p).await;
    UpdateChannelFolder(id: i64) = PATCH ["channel_folders", id], USER =>
        channel_folders::update(state, me()?, id, p).await;
    GetUserGroups = GET ["user_groups"], USER => user_groups::list(state, me()?, p).await;
    CreateUserGroup = POST ["user_groups", "create"], USER => user_groups::create(state, me()?, p).await;
    UpdateUserGroup(id: i64) = PATCH ["user_groups", id], USER =>
        user_groups::update(state, me()?, id, p).await;
    UpdateUserGroupMembers(id: i64) = POST ["user_groups", id, "members"], USER =>
        user_groups::update_members(state, me()?, id, p).await;
    GetUserGroupMembers(id: i64) = GET ["user_groups", id, "members"], USER =>
        user_groups::members(state, me()?, id, p).await;
    IsUserGroupMember(id: i64, user: i64) = GET ["user_groups", id, "members", user], USER,
        sample = "user_groups/{id}/members/{id}" =>
        user_groups::is_member(state, me()?, id, user, p).await;
    UpdateUserGroupSubgroups(id: i64) = POST ["user_groups", id, "subgroups"], USER =>
        user_groups::update_subgroups(state, me()?, id, p).await;
    GetUserGroupSubgroups(id: i64) = GET ["user_groups", id, "subgroups"], USER =>
        user_groups::subgroups(state, me()?, id, p).await;
    DeactivateUserGroup(id: i64) = POST ["user_groups", id, "deactivate"], USER =>
        user_groups::deactivate(state, me()?, id).await;
    MarkAllAsRead = POST ["mark_all_as_read"], USER => messages::mark_all_as_read(state, me()?).await;
    MarkStreamAsRead = POST ["mark_stream_as_read"], USER =>
        messages::mark_stream_as_read(state, me()?, p).await;
    MarkTopicAsRead = POST ["mark_topic_as_read"], USER =>
        messages::mark_topic_as_read(state, me()?, p).await;
    UpdateMessage(id: i64) = PATCH ["messages", id], USER =>
        messages::update_message(state, me()?, id, p).await;
    DeleteMessage(id: i64) = DELETE ["messages", id], USER =>
        messages::delete_message(state, me()?, id).await;
    GetMessageHistory(id: i64) = GET ["messages", id, "history"], USER =>
        messages::get_history(state, me()?, id).await;
    AddReaction(id: i64) = POST ["messages", id, "reactions"], USER =>
        messages::add_reaction(state, me()?, id, p).await;
    RemoveReaction(id: i64) = DELETE ["messages", id, "reactions"], USER =>
        messages::remove_reaction(state, me()?, id, p).await;
    GetTopics(id: i64) = GET ["users", "me", id, "topics"], USER =>
        topics::get_topics(state, me()?, id, p).await;
    DeleteTopic(id: i64) = POST ["streams", id, "delete_topic"], USER =>
        topics::delete_topic(state, me()?, id, p).await;
    UpdateMutedTopic = PATCH ["users", "me", "subscriptions", "muted_topics"], USER =>
        topics::update_muted_topic(state, me()?, p).await;
    UpdateUserTopic = POST ["user_topics"], USER => topics::update_user_topic(state, me()?, p).await;
    Register = POST ["register"], USER => realtime::register(state, me()?, p).await;
    // The long-poll renders its own body (events are pre-serialized). The request is not
    // needed while it waits; free it, since many polls wait at once.
    GetEvents = GET ["events"], USER.unmetered() => {
        drop(req);
        realtime::get_events(state, me()?, p).await
    };
    DeleteQueue = DELETE ["events"], USER.unmetered() => realtime::delete_queue(state, me()?, p);
    UpdatePresence = POST ["users", "me", "presence"], USER =>
        presence::update_presence(state, me()?, p).await;
    GetRealmPresence = GET ["realm", "presence"], USER => presence::get_realm_presence(state).await;
    UpdateRealm = PATCH ["realm"], USER => realm::update_realm(state, me()?, p).await;
    GetUserPresence(id: UserRef) = GET ["users", id, "presence"], USER =>
        presence::get_user_presence(state, me()?, &id).await;
    SetTyping = POST ["typing"], USER => presence::set_typing(state, me()?, p).await;
    GetAlertWords = GET ["users", "me", "alert_words"], USER =>
        presence::get_alert_words(state, me()?).await;
    AddAlertWords = POST ["users", "me", "alert_words"], USER =>
        presence::change_alert_words(state, me()?, p, true).await;
    RemoveAlertWords = DELETE ["users", "me", "alert_words"], USER =>
        presence::change_alert_words(state, me()?, p, false).await;
    GetDrafts = GET ["drafts"], USER => records::get_drafts(state, me()?).await;
    CreateDrafts = POST ["drafts"], USER => records::create_drafts(state, me()?, p).await;
    EditDraft(id: i64) = PATCH ["drafts", id], USER => records::edit_draft(state, me()?, id, p).await;
    DeleteDraft(id: i64) = DELETE ["drafts", id], USER => records::delete_draft(state, me()?, id).await;
    GetSavedSnippets = GET ["saved_snippets"], USER => records::get_snippets(state, me()?).await;
    CreateSavedSnippet = POST ["saved_snippets"], USER =>
        records::create_snippet(state, me()?, p).await;
    EditSavedSnippet(id: i64) = PATCH ["saved_snippets", id], USER =>
        records::edit_snippet(state, me()?, id, p).await;
    DeleteSavedSnippet(id: i64) = DELETE ["saved_snippets", id], USER =>
        records::delete_snippet(state, me()?, id).await;
    MuteUser(id: i64) = POST ["users", "me", "muted_users", id], USER =>
        records::mute_user(state, me()?, id).await;
    UnmuteUser(id: i64) = DELETE ["users", "me", "muted_users", id], USER =>
        records::unmute_user(state, me()?, id).await;
    AddApnsToken = POST ["users", "me", "apns_device_token"], USER =>
        records::add_push_token(state, me()?, Apns, p).await;
    RemoveApnsToken = DELETE ["users", "me", "apns_device_token"], USER =>
        records::remove_push_token(state, me()?, Apns, p).await;
    AddFcmToken = POST ["users", "me", "android_gcm_reg_id"], USER =>
        records::add_push_token(state, me()?, Fcm, p).await;
    RemoveFcmToken = DELETE ["users", "me", "android_gcm_reg_id"], USER =>
        records::remove_push_token(state, me()?, Fcm, p).await;
    RegisterPushDevice = POST ["mobile_push", "register"], USER =>
        records::register_push_device(state, me()?, p).await;
    TestPushNotification = POST ["mobile_push", "test_notification"], USER =>
        records::test_push_notification(state, me()?, p).await;
    GetBotStorage = GET ["bot_storage"], USER => bot_storage::get(state, me()?, p).await;
    UpdateBotStorage = PUT ["bot_storage"], USER => bot_storage::put(state, me()?, p).await;
    RemoveBotStorage = DELETE ["bot_storage"], USER => bot_storage::remove(state, me()?, p).await;
    CreateBot = POST ["bots"], USER => bots::create(state, me()?, p).await;
    GetBots = GET ["bots"], USER => bots::list(state, me()?).await;
    DeactivateBot(id: i64) = DELETE ["bots", id], USER => bots::deactivate(state, me()?, id).await;
    RegenerateBotApiKey(id: i64) = POST ["bots", id, "api_key", "regenerate"], USER =>
        bots::regenerate_api_key(state, me()?, id).await;
    GetInvites = GET ["invites"], USER => invites::list(state, me()?).await;
    SendInvites = POST ["invites"], USER => invites::send(state, me()?, p).await;
    CreateInviteLink = POST ["invites", "multiuse"], USER => invites::create_link(state, me()?, p).await;
    RevokeInvite(id: i64) = DELETE ["invites", id], USER =>
        invites::revoke(state, me()?, id, false).await;
    RevokeInviteLink(id: i64) = DELETE ["invites", "multiuse", id], USER =>
        invites::revoke(state, me()?, id, true).await;
    ResendInvite(id: i64) = POST ["invites", id, "resend"], USER =>
        invites::resend(state, me()?, id).await;
    GetScheduledMessages = GET ["scheduled_messages"], USER => scheduled::list(state, me()?).await;
    CreateScheduledMessage = POST ["scheduled_messages"], USER =>
        scheduled::create(state, me()?, &req, p).await;
    UpdateScheduledMessage(id: i64) = PATCH ["scheduled_messages", id], USER =>
        scheduled::update(state, me()?, id, p).await;
    DeleteScheduledMessage(id: i64) = DELETE ["scheduled_messages", id], USER =>
        scheduled::delete(state, me()?, id).await;
    GetReminders = GET ["reminders"], USER => scheduled::list_reminders(state, me()?).await;
    CreateReminder = POST ["reminders"], USER => scheduled::create_reminder(state, me()?, p).await;
    DeleteReminder(id: i64) = DELETE ["reminders", id], USER =>
        scheduled::delete_reminder(state, me()?, id).await;
    UploadFile = POST ["user_uploads"], USER.body(Body::File) =>
        uploads::upload_file(state, me()?, &req).await;
    GetFileTemporaryUrl(path: UploadPath) = GET ["user_uploads", {path}], USER,
        sample = "user_uploads/1/ab/cdef/file.txt" =>
        uploads::temporary_url(state, me()?, path.0).await;
    GetAttachments = GET ["attachments"], USER => uploads::list_attachments(state, me()?).await;
    RemoveAttachment(id: i64) = DELETE ["attachments", id], USER =>
        uploads::remove_attachment(state, me()?, id).await;
    UpdateBot(id: i64) = PATCH ["bots", id], USER => bots::update(state, me()?, id, p).await;
    IncomingWebhookSlack = POST ["external", "slack_incoming"], WEBHOOK_KEY =>
        webhooks::handle(state, me()?, Integration::SlackIncoming, &req, p).await;
    IncomingWebhookJson = POST ["external", "json"], WEBHOOK_KEY =>
        webhooks::handle(state, me()?, Integration::Json, &req, p).await;
    GetRealmEmoji = GET ["realm", "emoji"], USER => emoji::list(state).await;
    UploadEmoji(name: EmojiName) = POST ["realm", "emoji", {name}], USER.body(Body::Emoji),
        sample = "realm/emoji/green_tick" => emoji::upload(state, me()?, &name.0, &req).await;
    DeactivateEmoji(name: EmojiName) = DELETE ["realm", "emoji", {name}], USER,
        sample = "realm/emoji/green_tick" => emoji::deactivate(state, me()?, name.0).await;
    RenderMessage = POST ["messages", "render"], USER => messages::render_message(state, me()?, p).await;
    UpdateOwnProfileData = PATCH ["users", "me", "profile_data"], USER =>
        users::update_own_profile_data(state, me()?, p).await;
    RemoveOwnProfileData = DELETE ["users", "me", "profile_data"], USER =>
        users::remove_own_profile_data(state, me()?, p).await;
}

/// (method, segments after `/api/v1/`) → endpoint.
pub fn route(method: &Method, segs: &[String]) -> std::result::Result<Endpoint, NoRoute> {
    route::resolve(method, segs, ListOptions::No)
}

/// One request per endpoint, as (method, path after `/api/v1/`), with `{id}` marking the
/// numeric path parameters: for tests that walk every route.
pub const SAMPLE_ROUTES: &[(&str, &str)] = Endpoint::SAMPLES;
