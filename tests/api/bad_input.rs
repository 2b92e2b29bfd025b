//! No 5xx on bad input, in either API: the crashes found and fixed, then the project's own
//! bad-input sweep, which walks every route of both route tables (`SAMPLE_ROUTES`) with
//! malformed ids, NUL bytes, huge and negative numbers, wrong JSON types, invalid UTF-8,
//! duplicate and missing parameters and wrong media types, and asserts no 5xx, an error in
//! that API's own form, and an unchanged database.

use std::collections::BTreeMap;

use bytes::Bytes;
use futures_util::stream::{self, StreamExt};
use hyper::Method;
use serde_json::{Value, json};

use outpost::db::digest::{self, TableDigest};
use outpost::domain::dtrack::licenses;
use outpost::model::Role;

use crate::support::dtrack::{Dt, Key, all, text};
use crate::support::{Reply, TestServer, TestUser, basic, body, raw};

// ---------------------------------------------------------------------------------------------
// The fixed crashes.

#[tokio::test]
async fn a_nul_byte_in_a_search_narrow_is_a_bad_narrow() {
    let srv = TestServer::start().await;
    let me = srv.user("iago@x.test", "Iago", Role::Owner).await;
    for narrow in [
        json!([["search", "a\u{0}b"]]),
        json!([{"operator": "search", "operand": "\u{0}", "negated": true}]),
    ] {
        let r = srv
            .get(
                "/api/v1/messages",
                &me,
                &[
                    ("anchor", "newest"),
                    ("num_before", "10"),
                    ("num_after", "0"),
                    ("narrow", &narrow.to_string()),
                ],
            )
            .await;
        assert_eq!(
            r.assert_error(400, "BAD_NARROW")["msg"],
            "Invalid narrow operator: search must not contain null bytes"
        );
    }
}

#[tokio::test]
async fn unsubscribing_from_unknown_channels_names_them_and_changes_nothing() {
    let srv = TestServer::start().await;
    let me = srv.user("iago@x.test", "Iago", Role::Owner).await;
    let r = srv
        .post(
            "/api/v1/users/me/subscriptions",
            &me,
            &[("subscriptions", r#"[{"name": "kept"}]"#)],
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let r = srv
        .delete(
            "/api/v1/users/me/subscriptions",
            &me,
            &[("subscriptions", r#"["nowhere", "kept", " elsewhere "]"#)],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Channel(s) (nowhere, elsewhere) do not exist"
    );
    let subs = srv.get("/api/v1/users/me/subscriptions", &me, &[]).await;
    assert_eq!(subs.body["subscriptions"][0]["name"], "kept");
}

#[tokio::test]
async fn acl_mapping_with_a_null_uuid_or_an_array_body_is_a_400() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let p = dt.project(&admin, json!({"name": "acme"})).await;
    let pu = p["uuid"].as_str().unwrap();
    for body in [
        json!({"team": null, "project": pu}),
        json!({"team": admin.team_uuid, "project": null}),
    ] {
        let r = dt
            .json(Method::PUT, "/api/v1/acl/mapping", &admin, &body)
            .await;
        assert_eq!(
            (r.status, text(&r)),
            (
                400,
                "The team and the project of a mapping must not be null."
            )
        );
    }
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/acl/mapping",
            &admin,
            &json!([admin.team_uuid, pu]),
        )
        .await;
    assert_eq!(r.status, 400, "{:?}", r.raw);
    assert_eq!(
        r.headers["content-type"].to_str().unwrap(),
        "application/problem+json",
        "{:?}",
        r.raw
    );
    assert_eq!(
        r.body["title"],
        "The provided JSON payload could not be mapped"
    );
    // No mapping was made.
    let r = dt
        .get(&format!("/api/v1/acl/team/{}", admin.team_uuid), &admin)
        .await;
    assert_eq!(r.body, json!([]));
}

#[tokio::test]
async fn analysis_without_its_required_parameters_is_a_400() {
    let dt = Dt::start().await;
    let admin = dt.key("Admins", &all()).await;
    let p = dt.project(&admin, json!({"name": "acme"})).await;
    let pu = p["uuid"].as_str().unwrap();
    let c = dt.component(&admin, pu, "lib").await;
    let v = dt.vulnerability(&admin, "INT-1", "HIGH").await;
    for (query, msg) in [
        (
            format!("vulnerability={v}"),
            "The component parameter is required.",
        ),
        (
            format!("project={pu}&component={c}"),
            "The vulnerability parameter is required.",
        ),
        (
            String::new(),
            "The component and vulnerability parameters are required.",
        ),
    ] {
        let r = dt.get(&format!("/api/v1/analysis?{query}"), &admin).await;
        assert_eq!((r.status, text(&r)), (400, msg));
    }
    // (`PUT /analysis` without a project uses the component's own: see dtrack_finding_formats.)
    let r = dt
        .get(
            &format!("/api/v1/analysis?project={pu}&component={c}&vulnerability={v}"),
            &admin,
        )
        .await;
    assert_eq!((r.status, text(&r)), (404, "No analysis exists."));
}

// ---------------------------------------------------------------------------------------------
// The sweep: shared pieces.

/// The database's content, minus bookkeeping that every authenticated request may touch (and
/// the activity a presence report records).
async fn fingerprint(srv: &TestServer) -> Vec<TableDigest> {
    srv.state
        .db
        .read(|c| {
            // A successful presence report records the user's activity (for the digest).
            digest::digest(
                c,
                &[
                    ("dt_api_keys", "last_used_ms"),
                    ("user_activity", "user_id"),
                    ("user_activity", "last_active_at"),
                    ("user_activity", "last_digest_at"),
                ],
            )
        })
        .await
        .expect("digest")
}

fn changed_tables(before: &[TableDigest], after: &[TableDigest]) -> Vec<String> {
    let b: BTreeMap<&str, &TableDigest> = before.iter().map(|d| (d.table.as_str(), d)).collect();
    let a: BTreeMap<&str, &TableDigest> = after.iter().map(|d| (d.table.as_str(), d)).collect();
    let mut out: Vec<String> = a
        .iter()
        .filter(|(t, d)| b.get(*t) != Some(*d))
        .map(|(t, _)| t.to_string())
        .collect();
    out.extend(
        b.keys()
            .filter(|t| !a.contains_key(*t))
            .map(|t| t.to_string()),
    );
    out
}

/// A parameter value: text to form-encode, or bytes already encoded (`%FF`: invalid UTF-8).
#[derive(Clone, Debug)]
enum V {
    Text(String),
    Raw(&'static str),
}

fn t(s: &str) -> V {
    V::Text(s.to_string())
}

fn encode(pairs: &[(String, V)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| {
            // A name starting with `%` is already encoded (the invalid UTF-8 name).
            let k: String = if k.starts_with('%') {
                k.clone()
            } else {
                form_urlencoded::byte_serialize(k.as_bytes()).collect()
            };
            let v = match v {
                V::Text(s) => form_urlencoded::byte_serialize(s.as_bytes()).collect(),
                V::Raw(r) => r.to_string(),
            };
            format!("{k}={v}")
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// Malformed values standing in for a path id.
const BAD_IDS: &[&str] = &["0", "-1", "99999999999999999999", "abc", "%00", "%FF"];

/// The JSON value with one string leaf (the `n`th, depth first) given a NUL byte; `None` when
/// there are fewer leaves.
fn with_nul_leaf(v: &Value, n: usize) -> Option<Value> {
    fn walk(v: &mut Value, n: &mut usize) -> bool {
        match v {
            Value::String(s) => {
                if *n == 0 {
                    s.push('\u{0}');
                    return true;
                }
                *n -= 1;
                false
            }
            Value::Array(items) => items.iter_mut().any(|i| walk(i, n)),
            Value::Object(map) => map.values_mut().any(|i| walk(i, n)),
            _ => false,
        }
    }
    let mut out = v.clone();
    let mut left = n;
    walk(&mut out, &mut left).then_some(out)
}

/// One sweep request and what it is, for failure messages.
struct Case {
    what: String,
    method: Method,
    path: String,
    headers: Vec<(&'static str, String)>,
    body: Bytes,
}

async fn send_all(srv: &TestServer, cases: Vec<Case>) -> Vec<(String, Reply)> {
    stream::iter(cases)
        .map(|c| async move {
            let mut b = raw(c.method.clone(), &c.path);
            for (k, v) in &c.headers {
                b = b.header(*k, v.as_str());
            }
            let what = format!("{} {} [{}]", c.method, c.path, c.what);
            (what, srv.send(b.body(body(c.body)).unwrap()).await)
        })
        .buffer_unordered(8)
        .collect()
        .await
}

// ---------------------------------------------------------------------------------------------
// The chat sweep.

#[derive(Clone, Copy, Debug, PartialEq)]
enum Ty {
    /// An integer where a negative value is malformed (ids, enumerations, counts).
    Int,
    /// An integer where any value fits (`last_event_id`).
    AnyInt,
    Str,
    Bool,
    /// A JSON list.
    List,
    /// A JSON object.
    Obj,
}

/// A route's parameters: (name, type, a well-formed value, required). Placeholders:
/// `{stream}`, `{msg}`, `{user}`, `{owner}`, `{queue}`, `{email}`.
type Spec = &'static [(&'static str, Ty, &'static str, bool)];

fn chat_params(method: &str, path: &str) -> Spec {
    use Ty::*;
    match (method, path) {
        ("GET", "server_settings")
        | ("GET", "users/me")
        | ("POST", "users/me/api_key/regenerate")
        | ("DELETE", "users/{id}")
        | ("POST", "users/{id}/reactivate")
        | ("GET", "users/{id}/status")
        | ("GET", "realm/profile_fields")
        | ("GET", "streams/{id}")
        | ("DELETE", "streams/{id}")
        | ("GET", "streams/{id}/members")
        | ("POST", "mark_all_as_read")
        | ("DELETE", "messages/{id}")
        | ("GET", "messages/{id}/history")
        | ("GET", "realm/presence")
        | ("GET", "users/{id}/presence")
        | ("GET", "users/me/alert_words")
        | ("POST", "user_groups/{id}/deactivate") => &[],
        ("POST", "fetch_api_key") => &[
            ("username", Str, "{email}", true),
            ("password", Str, "not the password", true),
        ],
        ("POST", "dev_fetch_api_key") => &[("username", Str, "{email}", true)],
        ("POST", "users/me/status") => &[
            ("status_text", Str, "busy", false),
            ("away", Bool, "true", false),
            ("emoji_name", Str, "smile", false),
            ("emoji_code", Str, "1f604", false),
            ("reaction_type", Str, "unicode_emoji", false),
        ],
        ("PATCH", "settings") => &[
            ("full_name", Str, "Owner Renamed", false),
            ("enter_sends", Bool, "true", false),
            ("emojiset", Str, "text", false),
            ("color_scheme", Int, "2", false),
            ("default_language", Str, "de", false),
            ("email", Str, "owner-new@example.com", false),
            (
                "email_notifications_batching_period_seconds",
                Int,
                "5",
                false,
            ),
        ],
        ("PATCH", "realm") => &[
            ("name", Str, "Swept Org", false),
            ("description", Str, "swept", false),
            ("default_language", Str, "de", false),
            ("waiting_period_threshold", Int, "3", false),
            ("allow_message_editing", Bool, "false", false),
            ("email_changes_disabled", Bool, "true", false),
            ("message_content_edit_limit_seconds", Int, "60", false),
            (
                "new_stream_announcements_stream_id",
                AnyInt,
                "{stream}",
                false,
            ),
            (
                "can_create_public_channel_group",
                Obj,
                r#"{"new": 3, "old": 6}"#,
                false,
            ),
            (
                "direct_message_permission_group",
                Obj,
                r#"{"new": {"direct_members": [{user}], "direct_subgroups": [3]}}"#,
                false,
            ),
        ],
        ("GET", "users") | ("GET", "users/{id}") => &[
            ("client_gravatar", Bool, "false", false),
            ("include_custom_profile_fields", Bool, "true", false),
        ],
        ("POST", "users") => &[
            ("email", Str, "newcomer@x.test", true),
            ("password", Str, "a long password", true),
            ("full_name", Str, "Newcomer", true),
        ],
        ("PATCH", "users/{id}") => &[
            ("full_name", Str, "Bob Renamed", false),
            ("role", Int, "200", false),
            ("profile_data", List, "[]", false),
        ],
        ("POST", "realm/profile_fields") => &[
            ("field_type", Int, "1", true),
            ("name", Str, "Phone", false),
            ("hint", Str, "a hint", false),
            ("display_in_profile_summary", Bool, "false", false),
            ("required", Bool, "false", false),
            ("editable_by_user", Bool, "true", false),
        ],
        ("POST", "channels/create") => &[
            ("name", Str, "created", true),
            ("subscribers", List, "[{owner}]", true),
            ("description", Str, "about", false),
            ("invite_only", Bool, "false", false),
            ("announce", Bool, "false", false),
            ("history_public_to_subscribers", Bool, "true", false),
        ],
        ("POST", "users/me/subscriptions") => &[
            (
                "subscriptions",
                List,
                r#"[{"name": "added", "description": "d"}]"#,
                true,
            ),
            ("principals", List, "[{user}]", false),
            ("invite_only", Bool, "false", false),
            ("announce", Bool, "false", false),
            ("authorization_errors_fatal", Bool, "true", false),
        ],
        ("GET", "users/me/subscriptions") => &[("include_subscribers", Bool, "true", false)],
        ("DELETE", "users/me/subscriptions") => &[
            ("subscriptions", List, r#"["sweep"]"#, true),
            ("principals", List, "[{user}]", false),
        ],
        ("POST", "users/me/subscriptions/properties") => &[(
            "subscription_data",
            List,
            r##"[{"stream_id": {stream}, "property": "color", "value": "#123456"}]"##,
            true,
        )],
        ("GET", "streams") => &[
            ("include_public", Bool, "true", false),
            ("include_subscribed", Bool, "true", false),
            ("include_all", Bool, "false", false),
            ("exclude_archived", Bool, "true", false),
            ("include_default", Bool, "false", false),
        ],
        ("PATCH", "streams/{id}") => &[
            ("description", Str, "new description", false),
            ("new_name", Str, "renamed", false),
            ("is_private", Bool, "true", false),
            ("history_public_to_subscribers", Bool, "true", false),
        ],
        ("GET", "get_stream_id") => &[("stream", Str, "sweep", true)],
        ("POST", "messages") => &[
            ("type", Str, "stream", true),
            ("to", Str, "sweep", false),
            ("topic", Str, "swept", false),
            ("content", Str, "hello again", true),
            ("read_by_sender", Bool, "true", false),
        ],
        ("GET", "messages") => &[
            ("anchor", Str, "newest", false),
            ("num_before", Int, "10", false),
            ("num_after", Int, "0", false),
            (
                "narrow",
                List,
                r#"[["channel", "sweep"], ["topic", "t"], ["search", "hello"]]"#,
                false,
            ),
            ("include_anchor", Bool, "true", false),
            ("apply_markdown", Bool, "false", false),
        ],
        ("GET", "messages/{id}") => &[
            ("apply_markdown", Bool, "false", false),
            ("allow_empty_topic_name", Bool, "true", false),
        ],
        ("POST", "messages/flags") => &[
            ("messages", List, "[{msg}]", true),
            ("op", Str, "add", true),
            ("flag", Str, "starred", true),
        ],
        ("POST", "mark_stream_as_read") => &[("stream_id", Int, "{stream}", true)],
        ("POST", "mark_topic_as_read") => &[
            ("stream_id", Int, "{stream}", true),
            ("topic_name", Str, "t", true),
        ],
        ("PATCH", "messages/{id}") => &[
            ("content", Str, "edited", false),
            ("topic", Str, "moved", false),
            ("send_notification_to_old_thread", Bool, "false", false),
        ],
        ("POST", "messages/{id}/reactions") => &[
            ("emoji_name", Str, "tada", true),
            ("emoji_code", Str, "1f389", false),
            ("reaction_type", Str, "unicode_emoji", false),
        ],
        // With an `emoji_code` the name is not consulted, so it is swept alone.
        ("DELETE", "messages/{id}/reactions") => &[("emoji_name", Str, "smile", true)],
        ("GET", "users/me/{id}/topics") => &[("allow_empty_topic_name", Bool, "true", false)],
        ("POST", "streams/{id}/delete_topic") => &[("topic_name", Str, "t", true)],
        ("PATCH", "users/me/subscriptions/muted_topics") => &[
            ("stream_id", Int, "{stream}", false),
            ("topic", Str, "t", true),
            ("op", Str, "add", true),
        ],
        ("POST", "user_topics") => &[
            ("stream_id", Int, "{stream}", true),
            ("topic", Str, "t", true),
            ("visibility_policy", Int, "1", true),
        ],
        ("POST", "register") => &[
            ("event_types", List, r#"["message"]"#, false),
            ("narrow", List, r#"[["channel", "sweep"]]"#, false),
            (
                "client_capabilities",
                Obj,
                r#"{"notification_settings_null": true}"#,
                false,
            ),
            ("apply_markdown", Bool, "true", false),
            ("all_public_streams", Bool, "false", false),
            ("queue_lifespan_secs", AnyInt, "600", false),
            ("presence_history_limit_days", AnyInt, "1", false),
        ],
        ("GET", "events") => &[
            ("queue_id", Str, "{queue}", true),
            ("last_event_id", AnyInt, "-1", false),
            ("dont_block", Bool, "true", false),
        ],
        ("DELETE", "events") => &[("queue_id", Str, "{queue}", true)],
        ("POST", "users/me/presence") => &[
            ("status", Str, "active", true),
            ("ping_only", Bool, "false", false),
            ("new_user_input", Bool, "true", false),
            ("last_update_id", AnyInt, "-1", false),
            ("slim_presence", Bool, "true", false),
        ],
        ("POST", "typing") => &[
            ("type", Str, "stream", false),
            ("op", Str, "start", true),
            ("stream_id", Int, "{stream}", false),
            ("topic", Str, "t", false),
        ],
        ("POST", "users/me/alert_words") | ("DELETE", "users/me/alert_words") => {
            &[("alert_words", List, r#"["sweepword"]"#, true)]
        }
        ("POST", "messages/flags/narrow") => &[
            ("anchor", Str, "newest", true),
            ("include_anchor", Bool, "true", false),
            ("num_before", Int, "0", true),
            ("num_after", Int, "0", true),
            ("narrow", List, "[]", false),
            // Removing a star nobody set changes nothing, whatever the window.
            ("op", Str, "remove", true),
            ("flag", Str, "starred", true),
        ],
        ("GET", "messages/{id}/read_receipts") => &[],
        ("POST", "channel_folders/create") => &[
            ("name", Str, "another folder", true),
            ("description", Str, "", true),
        ],
        ("GET", "channel_folders") => &[("include_archived", Bool, "false", false)],
        ("PATCH", "channel_folders/{id}") => &[
            ("name", Str, "renamed folder", false),
            ("description", Str, "d", false),
            ("is_archived", Bool, "false", false),
        ],
        ("GET", "user_groups") => &[("include_deactivated_groups", Bool, "false", false)],
        ("POST", "user_groups/create") => &[
            ("name", Str, "another group", true),
            ("description", Str, "", true),
            ("members", List, "[{owner}]", true),
            ("subgroups", List, "[]", false),
            ("can_join_group", AnyInt, "1", false),
            ("can_mention_group", AnyInt, "7", false),
        ],
        ("PATCH", "user_groups/{id}") => &[
            ("name", Str, "renamed group", false),
            ("description", Str, "d", false),
            ("can_mention_group", Obj, r#"{"new": 7}"#, false),
        ],
        ("POST", "user_groups/{id}/members") => &[
            ("add", List, "[{user}]", false),
            ("delete", List, "[]", false),
            ("add_subgroups", List, "[]", false),
            ("delete_subgroups", List, "[]", false),
        ],
        ("GET", "user_groups/{id}/members") | ("GET", "user_groups/{id}/members/{id}") => {
            &[("direct_member_only", Bool, "false", false)]
        }
        ("POST", "user_groups/{id}/subgroups") => {
            &[("add", List, "[]", false), ("delete", List, "[]", false)]
        }
        ("GET", "user_groups/{id}/subgroups") => &[("direct_subgroup_only", Bool, "false", false)],
        ("POST", "messages/{id}/report") => &[
            ("report_type", Str, "spam", true),
            ("description", Str, "sweeping", false),
        ],
        ("POST", "submessage") => &[
            ("message_id", Int, "{msg}", true),
            ("msg_type", Str, "widget", true),
            (
                "content",
                Str,
                r#"{"type":"vote","key":"x","vote":1}"#,
                true,
            ),
        ],
        ("GET", "invites") => &[],
        ("POST", "invites") => &[
            ("invitee_emails", Str, "sweep-invitee@x.test", true),
            ("stream_ids", List, "[{stream}]", true),
            ("invite_as", Int, "400", false),
            ("invite_expires_in_minutes", Int, "60", false),
            ("group_ids", List, "[]", false),
            ("include_realm_default_subscriptions", Bool, "false", false),
            ("notify_referrer_on_join", Bool, "true", false),
            ("welcome_message_custom_text", Str, "Welcome", false),
        ],
        ("POST", "invites/multiuse") => &[
            ("stream_ids", List, "[{stream}]", false),
            ("invite_as", Int, "400", false),
            ("invite_expires_in_minutes", Int, "60", false),
            ("group_ids", List, "[]", false),
            ("include_realm_default_subscriptions", Bool, "false", false),
            ("welcome_message_custom_text", Str, "Welcome", false),
        ],
        ("DELETE", "invites/{id}")
        | ("DELETE", "invites/multiuse/{id}")
        | ("POST", "invites/{id}/resend") => &[],
        ("GET", "drafts" | "saved_snippets")
        | ("DELETE", "drafts/{id}" | "saved_snippets/{id}")
        | ("POST" | "DELETE", "users/me/muted_users/{id}") => &[],
        // A channel draft, so that every string of it is checked.
        ("POST", "drafts") => &[(
            "drafts",
            List,
            r#"[{"type": "stream", "to": [{stream}], "topic": "t", "content": "swept"}]"#,
            false,
        )],
        ("PATCH", "drafts/{id}") => &[(
            "draft",
            Obj,
            r#"{"type": "stream", "to": [{stream}], "topic": "t", "content": "swept"}"#,
            true,
        )],
        ("POST", "saved_snippets") => &[
            ("title", Str, "swept", true),
            ("content", Str, "swept content", true),
        ],
        ("PATCH", "saved_snippets/{id}") => &[
            ("title", Str, "renamed", false),
            ("content", Str, "c", false),
        ],
        ("POST", "users/me/apns_device_token") => &[
            ("token", Str, "c3dlZXA=", true),
            ("appid", Str, "org.zulip.Zulip", true),
        ],
        ("DELETE", "users/me/apns_device_token") => &[("token", Str, "c3dlZXA=", true)],
        ("POST" | "DELETE", "users/me/android_gcm_reg_id") => &[("token", Str, "sweep-fcm", true)],
        ("POST", "mobile_push/register") => &[
            ("token_kind", Str, "fcm", true),
            ("push_account_id", Int, "1", true),
            ("push_public_key", Str, "c3dlZXA=", true),
            ("bouncer_public_key", Str, "bouncer", true),
            ("encrypted_push_registration", Str, "c3dlZXA=", true),
        ],
        ("POST", "mobile_push/test_notification") => &[("token", Str, "sweep-fcm", false)],
        ("GET" | "DELETE", "bot_storage") => &[("keys", List, r#"["k"]"#, false)],
        ("PUT", "bot_storage") => &[("storage", Obj, r#"{"k": "v"}"#, true)],
        ("GET", "scheduled_messages") | ("GET", "reminders") => &[],
        ("DELETE", "scheduled_messages/{id}") | ("DELETE", "reminders/{id}") => &[],
        ("POST", "scheduled_messages") => &[
            ("type", Str, "stream", true),
            ("to", Int, "{stream}", true),
            ("content", Str, "later", true),
            ("topic", Str, "t", false),
            ("scheduled_delivery_timestamp", Int, "{future}", true),
            ("read_by_sender", Bool, "true", false),
        ],
        ("PATCH", "scheduled_messages/{id}") => &[
            ("content", Str, "later still", false),
            ("topic", Str, "t2", false),
            ("scheduled_delivery_timestamp", Int, "{future}", false),
        ],
        ("POST", "reminders") => &[
            ("message_id", Int, "{msg}", true),
            ("scheduled_delivery_timestamp", Int, "{future}", true),
            ("note", Str, "remember", false),
        ],
        // The upload is the body's one file part, not a parameter (tests/api/uploads.rs).
        ("POST", "user_uploads")
        | ("GET", "user_uploads/1/ab/cdef/file.txt" | "attachments")
        | ("DELETE", "attachments/{id}") => &[],
        ("GET", "bots") | ("DELETE", "bots/{id}") | ("POST", "bots/{id}/api_key/regenerate") => &[],
        // The emoji's image is the body's one file part (tests/api/realm_emoji.rs).
        ("GET", "realm/emoji") | ("POST" | "DELETE", "realm/emoji/green_tick") => &[],
        ("POST", "bots") => &[
            ("full_name", Str, "Sweep Bot", true),
            ("short_name", Str, "sweep", true),
            ("bot_type", Int, "3", false),
            (
                "payload_url",
                Str,
                r#""https://hooks.example.com/in""#,
                false,
            ),
            ("interface_type", Int, "1", false),
            ("service_name", Str, "sweeper", false),
            ("config_data", Obj, "{}", false),
        ],
        ("PATCH", "bots/{id}") => &[
            ("full_name", Str, "Sweep Bot", false),
            ("role", Int, "400", false),
            ("bot_owner_id", Int, "1", false),
            ("config_data", Obj, "{}", false),
            (
                "service_payload_url",
                Str,
                r#""https://hooks.example.com/in""#,
                false,
            ),
            ("service_interface", Int, "1", false),
            ("default_sending_stream", Str, "sweep", false),
            ("default_events_register_stream", Str, "sweep", false),
            ("default_all_public_streams", Bool, "false", false),
        ],
        // The JSON integration reads its payload from the body: a form body is malformed.
        ("POST", "external/json") => &[
            ("stream", Str, "{stream}", false),
            ("topic", Str, "swept", false),
            ("only_events", List, "[]", false),
        ],
        ("POST", "external/slack_incoming") => &[
            ("stream", Str, "{stream}", false),
            ("topic", Str, "swept", false),
            ("payload", Str, r#"{"text": "swept"}"#, true),
            ("exclude_events", List, "[]", false),
        ],
        ("POST", "messages/render") => &[("content", Str, "**swept**", true)],
        ("PATCH", "users/me/profile_data") | ("DELETE", "users/me/profile_data") => {
            &[("data", List, "[]", true)]
        }
        _ => panic!("no parameter spec for {method} {path}: add one to the sweep"),
    }
}

/// Malformed values for a parameter of type `ty` whose well-formed value is `good`.
fn bad_values(ty: Ty, good: &str) -> Vec<V> {
    let mut out = vec![V::Raw("%FF"), V::Raw("%C3")];
    match ty {
        Ty::Int | Ty::AnyInt => {
            out.extend(
                [
                    "x",
                    "99999999999999999999",
                    "1.5",
                    "{}",
                    "",
                    "1\u{0}",
                    "9223372036854775807",
                    "-9223372036854775808",
                ]
                .into_iter()
                .map(t),
            );
            if ty == Ty::Int {
                out.extend(["-1", "-99999999999999999999"].into_iter().map(t));
            }
        }
        Ty::Str => out.push(V::Text(format!("{good}\u{0}"))),
        Ty::Bool => out.extend(["maybe", "2", "{}", "", "true\u{0}"].into_iter().map(t)),
        Ty::List | Ty::Obj => {
            out.extend(
                ["x", "[", "{", "\"x\"", "1", "null", "\u{0}"]
                    .into_iter()
                    .map(t),
            );
            if ty == Ty::List {
                out.extend(
                    ["{}", "[null]", "[99999999999999999999]", "[-1]", "[{}]"]
                        .into_iter()
                        .map(t),
                );
            } else {
                out.extend(["[]", "[{}]"].into_iter().map(t));
            }
            // The well-formed value with a NUL byte in each of its strings in turn.
            let v: Value = serde_json::from_str(good).expect("spec JSON");
            for n in 0.. {
                let Some(bad) = with_nul_leaf(&v, n) else {
                    break;
                };
                out.push(V::Text(bad.to_string()));
            }
        }
    }
    out
}

struct ChatFixture {
    owner: TestUser,
    bob: TestUser,
    stream: i64,
    msg: i64,
    folder: i64,
    group: i64,
    draft: i64,
    snippet: i64,
    queue: String,
    /// An open email invitation and a reusable link.
    invite: i64,
    invite_link: i64,
    /// A pending scheduled message and reminder.
    scheduled: i64,
    reminder: i64,
    /// A delivery time a day ahead.
    future: i64,
}

impl ChatFixture {
    fn fill(&self, s: &str) -> String {
        s.replace("{stream}", &self.stream.to_string())
            .replace("{msg}", &self.msg.to_string())
            .replace("{user}", &self.bob.id.to_string())
            .replace("{owner}", &self.owner.id.to_string())
            .replace("{queue}", &self.queue)
            .replace("{email}", &self.bob.email)
            .replace("{future}", &self.future.to_string())
    }

    /// The real id a route's `{id}` stands for.
    fn path_id(&self, path: &str) -> i64 {
        if path.starts_with("users/me/muted_users/") {
            self.bob.id
        } else if path.starts_with("drafts/") {
            self.draft
        } else if path.starts_with("saved_snippets/") {
            self.snippet
        } else if path.starts_with("users/me/") || path.starts_with("streams/") {
            self.stream
        } else if path.starts_with("users/") {
            self.bob.id
        } else if path.starts_with("messages/") {
            self.msg
        } else if path.starts_with("channel_folders/") {
            self.folder
        } else if path.starts_with("scheduled_messages/") {
            self.scheduled
        } else if path.starts_with("reminders/") {
            self.reminder
        } else if path.starts_with("invites/multiuse/") {
            self.invite_link
        } else if path.starts_with("invites/") {
            self.invite
        } else if path.starts_with("user_groups/") {
            self.group
        } else if path.starts_with("attachments/") {
            // Nobody uploaded anything: an id of no attachment.
            1
        } else if path.starts_with("bots/") {
            // Not a bot: these routes answer "No such bot" to well-formed input.
            self.bob.id
        } else {
            panic!("which id does {path} take?")
        }
    }
}

async fn chat_fixture(srv: &TestServer) -> ChatFixture {
    let owner = srv.user("owner@x.test", "Owner", Role::Owner).await;
    let bob = srv.user("bob@x.test", "Bob", Role::Member).await;
    let principals = json!([owner.id, bob.id]).to_string();
    let r = srv
        .post(
            "/api/v1/users/me/subscriptions",
            &owner,
            &[
                ("subscriptions", r#"[{"name": "sweep"}]"#),
                ("principals", &principals),
            ],
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let r = srv
        .get("/api/v1/get_stream_id", &owner, &[("stream", "sweep")])
        .await;
    let stream = r.body["stream_id"].as_i64().unwrap();
    let r = srv
        .post(
            "/api/v1/messages",
            &owner,
            &[
                ("type", "stream"),
                ("to", "sweep"),
                ("topic", "t"),
                ("content", "hello"),
            ],
        )
        .await;
    let msg = r.body["id"].as_i64().unwrap();
    let r = srv
        .post(
            &format!("/api/v1/messages/{msg}/reactions"),
            &owner,
            &[("emoji_name", "smile")],
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let r = srv
        .post(
            "/api/v1/users/me/alert_words",
            &owner,
            &[("alert_words", r#"["sweepword"]"#)],
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let r = srv
        .post(
            "/api/v1/channel_folders/create",
            &owner,
            &[("name", "sweep folder"), ("description", "")],
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let folder = r.body["channel_folder_id"].as_i64().unwrap();
    let r = srv
        .post(
            "/api/v1/user_groups/create",
            &owner,
            &[
                ("name", "sweep group"),
                ("description", ""),
                ("members", &format!("[{}]", owner.id)),
            ],
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let group = r.body["group_id"].as_i64().unwrap();
    // Records of the owner's for the path ids; bob is muted already, the tokens are known.
    let drafts = json!([{"type": "stream", "to": [stream], "topic": "t", "content": "d"}]);
    let drafts = drafts.to_string();
    let r = srv
        .post("/api/v1/drafts", &owner, &[("drafts", &drafts)])
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let draft = r.body["ids"][0].as_i64().unwrap();
    let r = srv
        .post(
            "/api/v1/saved_snippets",
            &owner,
            &[("title", "sweep"), ("content", "snippet")],
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let snippet = r.body["saved_snippet_id"].as_i64().unwrap();
    for (path, form) in [
        (format!("/api/v1/users/me/muted_users/{}", bob.id), vec![]),
        (
            "/api/v1/users/me/apns_device_token".to_string(),
            vec![("token", "c3dlZXA="), ("appid", "org.zulip.Zulip")],
        ),
        (
            "/api/v1/users/me/android_gcm_reg_id".to_string(),
            vec![("token", "sweep-fcm")],
        ),
    ] {
        let r = srv.post(&path, &owner, &form).await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let r = srv.post("/api/v1/register", &owner, &[]).await;
    let queue = r.body["queue_id"].as_str().unwrap().to_string();
    let r = srv
        .post(
            "/api/v1/invites",
            &owner,
            &[("invitee_emails", "invited@x.test"), ("stream_ids", "[]")],
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let r = srv.post("/api/v1/invites/multiuse", &owner, &[]).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let r = srv.get("/api/v1/invites", &owner, &[]).await;
    let invites = r.body["invites"].as_array().unwrap();
    let id_of = |multiuse: bool| {
        invites
            .iter()
            .find(|i| i["is_multiuse"] == multiuse)
            .and_then(|i| i["id"].as_i64())
            .unwrap()
    };
    let (invite, invite_link) = (id_of(false), id_of(true));
    let future = outpost::time::now_secs() + 86_400;
    let r = srv
        .post(
            "/api/v1/scheduled_messages",
            &owner,
            &[
                ("type", "stream"),
                ("to", &stream.to_string()),
                ("topic", "t"),
                ("content", "sweep later"),
                ("scheduled_delivery_timestamp", &future.to_string()),
            ],
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let scheduled = r.body["scheduled_message_id"].as_i64().unwrap();
    let r = srv
        .post(
            "/api/v1/reminders",
            &owner,
            &[
                ("message_id", &msg.to_string()),
                ("scheduled_delivery_timestamp", &future.to_string()),
            ],
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let reminder = r.body["reminder_id"].as_i64().unwrap();
    ChatFixture {
        group,
        scheduled,
        reminder,
        future,
        owner,
        bob,
        stream,
        msg,
        folder,
        draft,
        snippet,
        queue,
        invite,
        invite_link,
    }
}

/// Every malformed request for one chat route.
fn chat_cases(fx: &ChatFixture, method: &str, template: &str) -> Vec<Case> {
    let spec = chat_params(method, template);
    let m: Method = method.parse().unwrap();
    let auth = basic(&fx.owner.email, &fx.owner.api_key);
    let base: Vec<(String, V)> = spec
        .iter()
        .map(|(n, _, good, _)| (n.to_string(), V::Text(fx.fill(good))))
        .collect();
    let case = |what: String, path: &str, params: Vec<(String, V)>| {
        let encoded = encode(&params);
        let mut headers = vec![("authorization", auth.clone())];
        let (path, body) = if m == Method::GET {
            let sep = if encoded.is_empty() { "" } else { "?" };
            (format!("/api/v1/{path}{sep}{encoded}"), Bytes::new())
        } else {
            headers.push(("content-type", "application/x-www-form-urlencoded".into()));
            (format!("/api/v1/{path}"), Bytes::from(encoded))
        };
        Case {
            what,
            method: m.clone(),
            path,
            headers,
            body,
        }
    };
    let mut out = Vec::new();
    if template.contains("{id}") {
        for id in BAD_IDS {
            let path = template.replace("{id}", id);
            out.push(case(format!("path id {id}"), &path, base.clone()));
            if !base.is_empty() {
                out.push(case(format!("path id {id}, no params"), &path, vec![]));
            }
        }
    }
    let path = template.replace("{id}", &fx.path_id_or_none(template));
    out.push(case(
        "invalid UTF-8 name".into(),
        &path,
        [base.clone(), vec![("%FF".into(), t("1"))]].concat(),
    ));
    if let Some(first) = base.first() {
        let mut dup = base.clone();
        dup.push(first.clone());
        out.push(case(format!("duplicate {}", first.0), &path, dup));
    }
    for (i, (name, ty, good, required)) in spec.iter().enumerate() {
        if *required {
            let mut missing = base.clone();
            missing.remove(i);
            out.push(case(format!("missing {name}"), &path, missing));
        }
        for bad in bad_values(*ty, &fx.fill(good)) {
            let mut params = base.clone();
            params[i].1 = bad.clone();
            out.push(case(format!("{name}={bad:?}"), &path, params));
        }
    }
    out
}

impl ChatFixture {
    fn path_id_or_none(&self, template: &str) -> String {
        if template.contains("{id}") {
            self.path_id(template).to_string()
        } else {
            String::new()
        }
    }
}

/// A chat answer: below 500 and Zulip's envelope.
fn chat_answer_problem(r: &Reply) -> Option<String> {
    if r.status >= 500 {
        return Some(format!("status {}", r.status));
    }
    let b = &r.body;
    let ok = if r.status < 300 {
        b["result"] == "success"
    } else if r.status == 405 {
        // Upstream's 405 names the allowed methods instead of an error code.
        b["result"] == "error" && b["msg"].is_string() && b["allowed_methods"].is_array()
    } else {
        b["result"] == "error" && b["msg"].is_string() && b["code"].is_string()
    };
    (!ok).then(|| format!("status {}, not Zulip's envelope", r.status))
}

/// Sends one route's malformed cases and records every answer that is not a clean error in the
/// API's form (`problem`), and any change they made to the database.
async fn sweep_route(
    srv: &TestServer,
    method: &str,
    template: &str,
    cases: Vec<Case>,
    problem: fn(&Reply) -> Option<String>,
    failures: &mut Vec<String>,
) {
    let before = fingerprint(srv).await;
    let replies = send_all(srv, cases).await;
    let after = fingerprint(srv).await;
    for (what, r) in &replies {
        if let Some(p) = problem(r) {
            failures.push(format!("{what}: {p}: {}", String::from_utf8_lossy(&r.raw)));
        }
    }
    let changed = changed_tables(&before, &after);
    if !changed.is_empty() {
        let ok: Vec<&String> = replies
            .iter()
            .filter(|(_, r)| r.status < 300)
            .map(|(w, _)| w)
            .collect();
        failures.push(format!(
            "{method} {template}: the database changed ({changed:?}); successes: {ok:?}"
        ));
    }
}

/// The sweep sent enough requests and found nothing.
fn assert_clean(requests: usize, failures: &[String]) {
    assert!(requests > 1000, "only {requests} requests");
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[tokio::test]
async fn chat_sweep_every_route_answers_malformed_input_with_a_clean_error() {
    let srv = TestServer::start().await;
    let fx = chat_fixture(&srv).await;
    let mut failures = Vec::new();
    let mut requests = 0;
    for (method, template) in outpost::zulip::SAMPLE_ROUTES {
        let cases = chat_cases(&fx, method, template);
        requests += cases.len();
        sweep_route(
            &srv,
            method,
            template,
            cases,
            chat_answer_problem,
            &mut failures,
        )
        .await;
    }
    assert_clean(requests, &failures);
}

// ---------------------------------------------------------------------------------------------
// The Dependency-Track sweep.

/// What a Dependency-Track route reads besides its path.
enum DtInput {
    /// Nothing (or only ignored query parameters).
    Nothing,
    /// Query parameters, with a well-formed base query.
    Query(&'static str),
    /// A JSON body; a well-formed example.
    Json(&'static str),
    /// A form body; a well-formed example.
    Form(&'static [(&'static str, &'static str)]),
    /// A `multipart/form-data` BOM upload.
    Multipart,
}

fn dt_input(method: &str, path: &str) -> DtInput {
    use DtInput::*;
    match (method, path) {
        ("POST", "v1/user/login") => Form(&[("username", "nobody"), ("password", "wrong")]),
        ("POST", "v1/user/forceChangePassword") => Form(&[
            ("username", "nobody"),
            ("password", "wrong"),
            ("newPassword", "a new password"),
            ("confirmPassword", "a new password"),
        ]),
        ("PUT", "v1/team") => Json(r#"{"name": "another team"}"#),
        ("POST", "v1/team") => Json(r#"{"uuid": "{team}", "name": "renamed team"}"#),
        ("DELETE", "v1/team") => Json(r#"{"uuid": "{team}"}"#),
        ("PUT", "v1/project") => Json(
            r#"{"name": "created", "version": "2.0", "description": "d", "classifier": "LIBRARY", "active": true, "tags": [{"name": "t"}], "parent": {"uuid": "{project}"}, "accessTeams": [{"uuid": "{team}"}]}"#,
        ),
        ("POST", "v1/project") => Json(
            r#"{"uuid": "{project}", "name": "renamed", "version": "1.0", "description": "d", "active": true, "tags": [{"name": "t"}]}"#,
        ),
        ("PATCH", "v1/project/{project}") => Json(
            r#"{"description": "patched", "tags": [{"name": "t"}], "authors": [{"name": "A"}], "supplier": {"name": "S", "urls": ["https://s.example"]}, "externalReferences": [{"type": "vcs", "url": "https://git.example"}]}"#,
        ),
        ("PUT", "v1/project/clone") => Json(
            r#"{"project": "{project}", "version": "9.9", "includeTags": true, "includeComponents": true, "includeAuditHistory": true}"#,
        ),
        ("PUT", "v1/project/{project}/property") => Json(
            r#"{"groupName": "g", "propertyName": "n", "propertyValue": "1", "propertyType": "INTEGER"}"#,
        ),
        ("POST", "v1/project/{project}/property") => {
            Json(r#"{"groupName": "g", "propertyName": "n", "propertyValue": "2"}"#)
        }
        ("DELETE", "v1/project/{project}/property") => {
            Json(r#"{"groupName": "g", "propertyName": "n"}"#)
        }
        ("PUT", "v1/component/project/{project}") => Json(
            r#"{"name": "made", "version": "2.0", "group": "g", "purl": "pkg:npm/made@2.0", "description": "d", "isInternal": false}"#,
        ),
        ("POST", "v1/component") => {
            Json(r#"{"uuid": "{component}", "name": "renamed", "version": "1.1"}"#)
        }
        ("PUT", "v1/vulnerability") => Json(
            r#"{"vulnId": "INT-2", "source": "INTERNAL", "severity": "LOW", "title": "t", "description": "d", "published": 1700000000000}"#,
        ),
        ("PUT", "v1/acl/mapping") => Json(r#"{"team": "{team}", "project": "{project}"}"#),
        ("PUT", "v1/analysis") => Json(
            r#"{"project": "{project}", "component": "{component}", "vulnerability": "{vuln}", "analysisState": "EXPLOITABLE", "analysisDetails": "d", "comment": "c", "isSuppressed": false}"#,
        ),
        ("PUT", "v1/policy") => {
            Json(r#"{"name": "another policy", "operator": "ALL", "violationState": "WARN"}"#)
        }
        ("POST", "v1/policy") => Json(
            r#"{"uuid": "{policy}", "name": "renamed policy", "operator": "ALL", "violationState": "WARN", "includeChildren": true}"#,
        ),
        ("PUT", "v1/tag") | ("DELETE", "v1/tag") => Json(r#"["swept"]"#),
        ("POST" | "DELETE", "v1/tag/{tag}/project") => Json(r#"["{project}"]"#),
        ("POST" | "DELETE", "v1/tag/{tag}/policy") => Json(r#"["{policy}"]"#),
        ("PUT", "v1/licenseGroup") => Json(r#"{"name": "another group", "riskWeight": 2}"#),
        ("POST", "v1/licenseGroup") => {
            Json(r#"{"uuid": "{group}", "name": "renamed group", "riskWeight": 3}"#)
        }
        ("PUT", "v1/policy/{policy}/condition") => {
            Json(r#"{"subject": "PACKAGE_URL", "operator": "MATCHES", "value": "pkg:npm/y"}"#)
        }
        ("POST", "v1/policy/condition") => Json(
            r#"{"uuid": "{condition}", "subject": "PACKAGE_URL", "operator": "NO_MATCH", "value": "pkg:npm/z"}"#,
        ),
        ("PUT", "v1/violation/analysis") => Json(
            r#"{"component": "{component}", "policyViolation": "{token}", "analysisState": "APPROVED", "comment": "c", "isSuppressed": true}"#,
        ),
        ("PUT", "v1/bom") => Json(
            r#"{"project": "{project}", "autoCreate": false, "projectName": "sweep", "projectVersion": "1.0", "bom": "e30="}"#,
        ),
        ("POST", "v1/bom") => Multipart,
        ("PUT", "v1/vex") => Json(
            r#"{"project": "{project}", "vex": "eyJib21Gb3JtYXQiOiJDeWNsb25lRFgiLCJzcGVjVmVyc2lvbiI6IjEuNSIsInZlcnNpb24iOjF9"}"#,
        ),
        ("POST", "v1/vex") => Multipart,
        ("GET", "v1/analysis") => {
            Query("project={project}&component={component}&vulnerability={vuln}")
        }
        ("GET", "v1/project/lookup") => Query("name=sweep&version=1.0"),
        // Refreshing metrics legitimately writes, whatever its (ignored) query says.
        ("GET", "v1/metrics/project/{project}/refresh")
        | ("GET", "v1/metrics/component/{component}/refresh")
        | ("GET", "v1/metrics/portfolio/refresh") => Nothing,
        ("GET", _) => Query(""),
        (
            "DELETE" | "PUT" | "POST",
            "v1/team/key/{key}"
            | "v1/team/{team}/key"
            | "v1/permission/{perm}/team/{team}"
            | "v1/project/{project}"
            | "v1/component/{component}"
            | "v1/vulnerability/{vuln}/component/{component}"
            | "v1/acl/mapping/team/{team}/project/{project}"
            | "v1/policy/{policy}"
            | "v1/policy/condition/{condition}"
            | "v1/policy/{policy}/project/{project}"
            | "v1/policy/{policy}/tag/{tag}"
            | "v1/licenseGroup/{group}"
            | "v1/licenseGroup/{group}/license/{license}"
            | "v1/finding/project/{project}/analyze",
        ) => Nothing,
        _ => panic!("no input spec for {method} {path}: add one to the sweep"),
    }
}

/// Query parameters Dependency-Track reads somewhere.
const DT_QUERY_NAMES: &[&str] = &[
    "name",
    "version",
    "searchText",
    "filter",
    "pageNumber",
    "pageSize",
    "offset",
    "limit",
    "sortName",
    "sortOrder",
    "suppressed",
    "source",
    "showSuppressed",
    "showInactive",
    "severity",
    "analysisStatus",
    "textSearchInput",
    "excludeInactive",
    "onlyRoot",
    "project",
    "component",
    "vulnerability",
    "apiKey",
    "notAssignedToTeamWithUuid",
];

struct DtFixture {
    admin: Key,
    other: Key,
    project: String,
    component: String,
    vuln: String,
    policy: String,
    condition: String,
    group: String,
}

const SOME_UUID: &str = "0f8fad5b-d9cb-469f-a165-70867728950e";

impl DtFixture {
    fn fill(&self, s: &str) -> String {
        s.replace("{team}", &self.other.team_uuid)
            .replace("{key}", "odt_unknownkey")
            .replace("{perm}", "BOM_UPLOAD")
            .replace("{project}", &self.project)
            .replace("{component}", &self.component)
            .replace("{vuln}", &self.vuln)
            .replace("{source}", "INTERNAL")
            .replace("{policy}", &self.policy)
            .replace("{condition}", &self.condition)
            .replace("{token}", SOME_UUID)
            .replace("{name}", "sweep")
            .replace("{version}", "1.0")
            .replace("{tag}", "t")
            .replace("{classifier}", "APPLICATION")
            .replace("{days}", "30")
            .replace("{hash}", "d41d8cd98f00b204e9800998ecf8427e")
            .replace("{group}", &self.group)
            .replace("{license}", &licenses::license_uuid("MIT"))
            .replace("{date}", "20240101")
    }
}

async fn dt_fixture(dt: &Dt) -> DtFixture {
    let admin = dt.key("Sweepers", &all()).await;
    let other = dt.key("Others", &[]).await;
    let (project, component, vuln) = dt.finding(&admin, "sweep", "1.0").await;
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/policy",
            &admin,
            &json!({"name": "sweep policy", "violationState": "FAIL"}),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.raw);
    let policy = r.body["uuid"].as_str().unwrap().to_string();
    let r = dt
        .json(
            Method::PUT,
            &format!("/api/v1/policy/{policy}/condition"),
            &admin,
            &json!({"subject": "PACKAGE_URL", "operator": "MATCHES", "value": "pkg:npm/x"}),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.raw);
    let condition = r.body["uuid"].as_str().unwrap().to_string();
    let r = dt
        .json(
            Method::PUT,
            "/api/v1/licenseGroup",
            &admin,
            &json!({"name": "sweep group"}),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.raw);
    let group = r.body["uuid"].as_str().unwrap().to_string();
    DtFixture {
        admin,
        other,
        project,
        component,
        vuln,
        policy,
        condition,
        group,
    }
}

const PLACEHOLDERS: &[&str] = &[
    "{team}",
    "{key}",
    "{perm}",
    "{project}",
    "{component}",
    "{vuln}",
    "{source}",
    "{policy}",
    "{condition}",
    "{token}",
    "{name}",
    "{version}",
    "{tag}",
    "{classifier}",
    "{days}",
    "{date}",
    "{group}",
    "{license}",
];

/// Bodies that are not JSON at all, or JSON of the wrong type.
const BAD_JSON_BODIES: &[&[u8]] = &[
    b"",
    b"not json",
    b"{",
    b"{\"name\": \"\xff\"}",
    b"{\"name\": \"a\x00b\"}",
    b"{\"name\": 1e999}",
    b"[]",
    b"[\"x\", \"y\"]",
    b"[{}]",
    b"\"x\"",
    b"1",
    b"null",
    b"true",
    b"{}",
];

/// The JSON body with one field's value replaced by each value of another JSON type.
fn wrong_typed_fields(base: &Value) -> Vec<(String, Value)> {
    let Value::Object(map) = base else {
        return vec![];
    };
    let kind = |v: &Value| match v {
        Value::Null => 0,
        Value::Bool(_) => 1,
        Value::Number(_) => 2,
        Value::String(_) => 3,
        Value::Array(_) => 4,
        Value::Object(_) => 5,
    };
    let mut out = Vec::new();
    for (k, v) in map {
        for bad in [
            json!({}),
            json!([]),
            json!("x"),
            json!(true),
            json!(-1),
            json!(1e20),
        ] {
            let same = kind(&bad) == kind(v);
            if same && !(kind(v) == 2 && bad == json!(1e20)) {
                continue;
            }
            let mut b = map.clone();
            b.insert(k.clone(), bad.clone());
            out.push((format!("{k}={bad}"), Value::Object(b)));
        }
    }
    out
}

/// A multipart part: its name and data.
type Part<'a> = (&'a str, &'a [u8]);

const EMPTY_BOM: &[u8] = b"{}";
const NUL: &[u8] = b"a\x00b";

fn multipart(parts: &[Part]) -> Bytes {
    let mut out = Vec::new();
    for (name, data) in parts {
        out.extend_from_slice(b"--sweepboundary\r\n");
        let disp = if *name == "bom" {
            "Content-Disposition: form-data; name=\"bom\"; filename=\"bom.json\"\r\n\r\n"
                .to_string()
        } else {
            format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n")
        };
        out.extend_from_slice(disp.as_bytes());
        out.extend_from_slice(data);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"--sweepboundary--\r\n");
    Bytes::from(out)
}

/// Every malformed request for one Dependency-Track route.
fn dt_cases(fx: &DtFixture, method: &str, template: &str) -> Vec<Case> {
    let m: Method = method.parse().unwrap();
    let input = dt_input(method, template);
    let key = fx.admin.key.clone();
    let case = |what: String, path: String, ctype: Option<&str>, body: Bytes| {
        let mut headers = vec![("x-api-key", key.clone())];
        if let Some(c) = ctype {
            headers.push(("content-type", c.to_string()));
        }
        Case {
            what,
            method: m.clone(),
            path: format!("/api/{path}"),
            headers,
            body,
        }
    };
    // The well-formed media type and body, sent with every malformed path.
    let (good_type, good_body): (Option<&str>, Bytes) = match &input {
        DtInput::Json(b) => (Some("application/json"), Bytes::from(fx.fill(b))),
        DtInput::Form(f) => {
            let pairs: Vec<(String, V)> = f.iter().map(|(k, v)| (k.to_string(), t(v))).collect();
            (
                Some("application/x-www-form-urlencoded"),
                Bytes::from(encode(&pairs)),
            )
        }
        DtInput::Multipart => (
            Some("multipart/form-data; boundary=sweepboundary"),
            multipart(&[("project", fx.project.as_bytes()), ("bom", EMPTY_BOM)]),
        ),
        DtInput::Nothing | DtInput::Query(_) => (None, Bytes::new()),
    };
    let good_path = fx.fill(template);
    let mut out = Vec::new();
    for ph in PLACEHOLDERS.iter().filter(|p| template.contains(*p)) {
        for id in BAD_IDS.iter().copied().chain([
            "ffffffff-ffff-4fff-bfff-ffffffffffff",
            "0F8FAD5B-D9CB-469F-A165-70867728950E",
        ]) {
            let path = fx.fill(&template.replace(ph, id));
            out.push(case(
                format!("{ph} = {id}"),
                path,
                good_type,
                good_body.clone(),
            ));
        }
    }
    match input {
        DtInput::Nothing => {}
        DtInput::Query(base) => {
            let base: Vec<(String, V)> = form_urlencoded::parse(fx.fill(base).as_bytes())
                .map(|(k, v)| (k.into_owned(), V::Text(v.into_owned())))
                .collect();
            let names: Vec<String> = DT_QUERY_NAMES.iter().map(|n| n.to_string()).collect();
            for name in &names {
                let values = [
                    V::Raw("%FF"),
                    t("a\u{0}b"),
                    t("99999999999999999999"),
                    t("-1"),
                    t("x"),
                    t(""),
                ];
                for v in values {
                    let mut q: Vec<(String, V)> =
                        base.iter().filter(|(k, _)| k != name).cloned().collect();
                    q.push((name.clone(), v.clone()));
                    out.push(case(
                        format!("?{name}={v:?}"),
                        format!("{good_path}?{}", encode(&q)),
                        None,
                        Bytes::new(),
                    ));
                }
                let mut q = base.clone();
                q.push((name.clone(), t("1")));
                q.push((name.clone(), t("2")));
                out.push(case(
                    format!("duplicate ?{name}"),
                    format!("{good_path}?{}", encode(&q)),
                    None,
                    Bytes::new(),
                ));
            }
            // Pages whose offset does not fit in 64 bits.
            for (page, size) in [
                ("9223372036854775807", "9223372036854775807"),
                ("-9223372036854775808", "9223372036854775807"),
                ("9223372036854775807", "-9223372036854775808"),
            ] {
                for (pn, sn) in [("pageNumber", "pageSize"), ("page", "limit")] {
                    let mut q = base.clone();
                    q.push((pn.to_string(), t(page)));
                    q.push((sn.to_string(), t(size)));
                    out.push(case(
                        format!("?{pn}={page}&{sn}={size}"),
                        format!("{good_path}?{}", encode(&q)),
                        None,
                        Bytes::new(),
                    ));
                }
                let mut q = base.clone();
                q.push(("offset".to_string(), t(page)));
                q.push(("limit".to_string(), t(size)));
                out.push(case(
                    format!("?offset={page}&limit={size}"),
                    format!("{good_path}?{}", encode(&q)),
                    None,
                    Bytes::new(),
                ));
            }
            for i in 0..base.len() {
                let mut q = base.clone();
                q.remove(i);
                out.push(case(
                    format!("missing ?{}", base[i].0),
                    format!("{good_path}?{}", encode(&q)),
                    None,
                    Bytes::new(),
                ));
            }
        }
        DtInput::Json(b) => {
            for ct in [
                None,
                Some("text/plain"),
                Some("application/xml"),
                Some("application/x-www-form-urlencoded"),
                Some("application/jsonx"),
            ] {
                out.push(case(
                    format!("media type {ct:?}"),
                    good_path.clone(),
                    ct,
                    good_body.clone(),
                ));
            }
            // Endpoints taking a JSON array of strings (the tag resource) take `["x", "y"]`:
            // that body is well-formed for them.
            let takes_strings = |body: &[u8]| {
                serde_json::from_slice::<Vec<String>>(body).is_ok_and(|v| !v.is_empty())
            };
            for bad in BAD_JSON_BODIES
                .iter()
                .filter(|bad| !(takes_strings(b.as_bytes()) && takes_strings(bad)))
            {
                out.push(case(
                    format!("body {:?}", String::from_utf8_lossy(bad)),
                    good_path.clone(),
                    Some("application/json"),
                    Bytes::from_static(bad),
                ));
            }
            let base: Value = serde_json::from_str(&fx.fill(b)).expect("spec JSON");
            for (what, v) in wrong_typed_fields(&base) {
                out.push(case(
                    what,
                    good_path.clone(),
                    Some("application/json"),
                    Bytes::from(v.to_string()),
                ));
            }
            for n in 0.. {
                let Some(v) = with_nul_leaf(&base, n) else {
                    break;
                };
                out.push(case(
                    format!("NUL in string {n}"),
                    good_path.clone(),
                    Some("application/json"),
                    Bytes::from(v.to_string()),
                ));
            }
            // A duplicated first key.
            let s = fx.fill(b);
            let first = s.find(',').map(|i| &s[1..i]).unwrap_or("");
            if !first.is_empty() {
                out.push(case(
                    "duplicate key".into(),
                    good_path.clone(),
                    Some("application/json"),
                    Bytes::from(format!("{{{first}, {}", &s[1..])),
                ));
            }
        }
        DtInput::Form(f) => {
            let pairs: Vec<(String, V)> = f.iter().map(|(k, v)| (k.to_string(), t(v))).collect();
            let form = "application/x-www-form-urlencoded";
            out.push(case(
                "media type application/json".into(),
                good_path.clone(),
                Some("application/json"),
                good_body.clone(),
            ));
            for i in 0..pairs.len() {
                for bad in [V::Raw("%FF"), t("a\u{0}b")] {
                    let mut p = pairs.clone();
                    p[i].1 = bad.clone();
                    out.push(case(
                        format!("{}={bad:?}", p[i].0),
                        good_path.clone(),
                        Some(form),
                        Bytes::from(encode(&p)),
                    ));
                }
                let mut p = pairs.clone();
                p.remove(i);
                out.push(case(
                    format!("missing {}", pairs[i].0),
                    good_path.clone(),
                    Some(form),
                    Bytes::from(encode(&p)),
                ));
                let mut p = pairs.clone();
                p.push(pairs[i].clone());
                out.push(case(
                    format!("duplicate {}", pairs[i].0),
                    good_path.clone(),
                    Some(form),
                    Bytes::from(encode(&p)),
                ));
            }
        }
        DtInput::Multipart => {
            let project = fx.project.as_bytes();
            for (what, ct, body) in [
                ("JSON media type", "application/json", good_body.clone()),
                ("no boundary", "multipart/form-data", good_body.clone()),
                (
                    "garbage body",
                    "multipart/form-data; boundary=sweepboundary",
                    Bytes::from_static(b"--sweepboundary\r\nnonsense"),
                ),
            ] {
                out.push(case(what.into(), good_path.clone(), Some(ct), body));
            }
            let mp = "multipart/form-data; boundary=sweepboundary";
            let parts: Vec<(&str, Vec<Part>)> = vec![
                ("no bom", vec![("project", project)]),
                ("no project", vec![("bom", EMPTY_BOM)]),
                ("project NUL", vec![("project", NUL), ("bom", EMPTY_BOM)]),
                (
                    "project invalid UTF-8",
                    vec![("project", &b"\xff\xfe"[..]), ("bom", EMPTY_BOM)],
                ),
                (
                    "autoCreate without a name",
                    vec![("autoCreate", &b"true"[..]), ("bom", EMPTY_BOM)],
                ),
                (
                    "projectName NUL",
                    vec![
                        ("autoCreate", &b"true"[..]),
                        ("projectName", NUL),
                        ("bom", EMPTY_BOM),
                    ],
                ),
            ];
            for (what, p) in parts {
                out.push(case(
                    what.into(),
                    good_path.clone(),
                    Some(mp),
                    multipart(&p),
                ));
            }
        }
    }
    out
}

/// A Dependency-Track answer: below 500 and one of its own error forms (empty, plain text, a
/// validation array or problem+json), never the chat envelope.
fn dt_answer_problem(r: &Reply) -> Option<String> {
    if r.status >= 500 {
        return Some(format!("status {}", r.status));
    }
    if r.status < 400 || r.raw.is_empty() {
        return None;
    }
    let Ok(s) = std::str::from_utf8(&r.raw) else {
        return Some("a body that is not UTF-8".into());
    };
    match serde_json::from_str::<Value>(s) {
        Err(_) => None,
        Ok(Value::Array(items)) if items.iter().all(|i| i["message"].is_string()) => None,
        Ok(v) if v["title"].is_string() && v["status"] == json!(r.status) => None,
        Ok(_) => Some(format!("status {}: not an upstream error form", r.status)),
    }
}

#[tokio::test]
async fn dtrack_sweep_every_route_answers_malformed_input_with_a_clean_error() {
    // Eight requests run at once; with fewer upload slots, a BOM upload can be told to retry
    // (503), which is no answer to bad input.
    let dt = Dt::start_with(|c| c.limits.max_concurrent_uploads = 8).await;
    let fx = dt_fixture(&dt).await;
    let srv = &dt.server;
    let mut failures = Vec::new();
    let mut requests = 0;
    for (method, template) in outpost::dtrack::SAMPLE_ROUTES {
        let cases: Vec<Case> = dt_cases(&fx, method, template)
            .into_iter()
            .map(|mut c| {
                c.path = format!("http://{}{}", srv.dt_addr.unwrap(), c.path);
                c
            })
            .collect();
        requests += cases.len();
        sweep_route(
            srv,
            method,
            template,
            cases,
            dt_answer_problem,
            &mut failures,
        )
        .await;
    }
    assert_clean(requests, &failures);
}
