//! What real clients need: the official mobile app (zulip-flutter) registering and parsing
//! events, `multipart/form-data` request bodies, the full `POST /register` key set, the
//! `realm_user` email events and the realm icon.
//!
//! The app's requirements are written down from its models (`lib/api/model/initial_snapshot.dart`,
//! `model.dart`, `events.dart` and their generated parsers): a key the app reads without a
//! fallback must be present with the type it casts to, or the app cannot load at all.

use serde_json::{Value, json};

use crate::support::{Org, TestUser, org, poll_now, register_queue, wait_events};

/// A JSON type as the app's parser casts it.
#[derive(Clone, Copy)]
enum T {
    Int,
    Str,
    Bool,
    /// Absent, null or the inner type.
    Opt(&'static T),
    /// Null or the inner type (the key must be present).
    Null(&'static T),
    List(&'static T),
    /// An object whose keys are decimal ids.
    IdMap(&'static T),
    /// An object with any keys.
    Map(&'static T),
    /// An integer from this set.
    IntIn(&'static [i64]),
    /// An integer group id or `{"direct_members": [...], "direct_subgroups": [...]}`.
    Group,
    Obj(&'static [(&'static str, T)]),
}

const INTS: T = T::List(&T::Int);
const STRS: T = T::List(&T::Str);

const USER: T = T::Obj(&[
    ("user_id", T::Int),
    ("delivery_email", T::Null(&T::Str)),
    ("email", T::Str),
    ("full_name", T::Str),
    ("date_joined", T::Str),
    ("is_active", T::Opt(&T::Bool)),
    ("is_bot", T::Bool),
    ("bot_type", T::Opt(&T::Int)),
    ("bot_owner_id", T::Opt(&T::Int)),
    ("role", T::IntIn(&[100, 200, 300, 400, 600])),
    ("timezone", T::Str),
    ("avatar_url", T::Opt(&T::Str)),
    ("avatar_version", T::Int),
    (
        "profile_data",
        T::Opt(&T::IdMap(&T::Obj(&[
            ("value", T::Str),
            ("rendered_value", T::Opt(&T::Str)),
        ]))),
    ),
    ("is_system_bot", T::Opt(&T::Bool)),
]);

const STREAM: T = T::Obj(&[
    ("stream_id", T::Int),
    ("name", T::Str),
    ("is_archived", T::Opt(&T::Bool)),
    ("description", T::Str),
    ("rendered_description", T::Str),
    ("date_created", T::Int),
    ("first_message_id", T::Opt(&T::Int)),
    ("invite_only", T::Bool),
    ("is_web_public", T::Bool),
    ("history_public_to_subscribers", T::Bool),
    ("message_retention_days", T::Opt(&T::Int)),
    ("folder_id", T::Opt(&T::Int)),
    ("can_add_subscribers_group", T::Opt(&T::Group)),
    ("can_delete_any_message_group", T::Opt(&T::Group)),
    ("can_send_message_group", T::Opt(&T::Group)),
    ("stream_weekly_traffic", T::Opt(&T::Int)),
]);

const SUBSCRIPTION: T = T::Obj(&[
    ("stream_id", T::Int),
    ("name", T::Str),
    ("description", T::Str),
    ("rendered_description", T::Str),
    ("date_created", T::Int),
    ("invite_only", T::Bool),
    ("is_web_public", T::Bool),
    ("history_public_to_subscribers", T::Bool),
    ("can_delete_own_message_group", T::Opt(&T::Group)),
    ("can_subscribe_group", T::Opt(&T::Group)),
    ("is_recently_active", T::Opt(&T::Bool)),
    ("desktop_notifications", T::Opt(&T::Bool)),
    ("email_notifications", T::Opt(&T::Bool)),
    ("wildcard_mentions_notify", T::Opt(&T::Bool)),
    ("push_notifications", T::Opt(&T::Bool)),
    ("audible_notifications", T::Opt(&T::Bool)),
    ("pin_to_top", T::Bool),
    ("is_muted", T::Bool),
    ("color", T::Str),
]);

const UNREADS: T = T::Obj(&[
    ("count", T::Int),
    (
        "pms",
        T::List(&T::Obj(&[
            ("other_user_id", T::Int),
            ("unread_message_ids", INTS),
        ])),
    ),
    (
        "streams",
        T::List(&T::Obj(&[
            ("topic", T::Str),
            ("stream_id", T::Int),
            ("unread_message_ids", INTS),
        ])),
    ),
    (
        "huddles",
        T::List(&T::Obj(&[
            ("user_ids_string", T::Str),
            ("unread_message_ids", INTS),
        ])),
    ),
    ("mentions", INTS),
    ("old_unreads_missing", T::Bool),
]);

/// Every key the app's `InitialSnapshot` parser reads, with the type it casts to.
const SNAPSHOT: &[(&str, T)] = &[
    ("queue_id", T::Null(&T::Str)),
    ("last_event_id", T::Int),
    ("zulip_feature_level", T::Int),
    ("zulip_version", T::Str),
    ("zulip_merge_base", T::Str),
    ("alert_words", STRS),
    (
        "custom_profile_fields",
        T::List(&T::Obj(&[
            ("id", T::Int),
            ("type", T::Int),
            ("order", T::Int),
            ("name", T::Str),
            ("hint", T::Str),
            ("field_data", T::Str),
            ("display_in_profile_summary", T::Opt(&T::Bool)),
        ])),
    ),
    ("max_stream_name_length", T::Int),
    ("max_topic_length", T::Int),
    ("server_presence_ping_interval_seconds", T::Int),
    ("server_presence_offline_threshold_seconds", T::Int),
    (
        "server_typing_started_expiry_period_milliseconds",
        T::Opt(&T::Int),
    ),
    (
        "server_typing_stopped_wait_period_milliseconds",
        T::Opt(&T::Int),
    ),
    (
        "server_typing_started_wait_period_milliseconds",
        T::Opt(&T::Int),
    ),
    ("muted_users", T::List(&T::Obj(&[("id", T::Int)]))),
    // Optional for the app, but parsed when present (`SavedSnippet.fromJson`).
    (
        "saved_snippets",
        T::Opt(&T::List(&T::Obj(&[
            ("id", T::Int),
            ("title", T::Str),
            ("content", T::Str),
            ("date_created", T::Int),
        ]))),
    ),
    (
        "presences",
        T::IdMap(&T::Obj(&[
            ("active_timestamp", T::Int),
            ("idle_timestamp", T::Int),
        ])),
    ),
    (
        "realm_emoji",
        T::Map(&T::Obj(&[
            ("id", T::Str),
            ("name", T::Str),
            ("source_url", T::Str),
            ("still_url", T::Opt(&T::Str)),
            ("deactivated", T::Bool),
            ("author_id", T::Opt(&T::Int)),
        ])),
    ),
    (
        "realm_user_groups",
        T::List(&T::Obj(&[
            ("id", T::Int),
            ("members", INTS),
            ("direct_subgroup_ids", INTS),
            ("name", T::Str),
            ("description", T::Str),
            ("is_system_group", T::Bool),
            ("deactivated", T::Opt(&T::Bool)),
        ])),
    ),
    (
        "recent_private_conversations",
        T::List(&T::Obj(&[("max_message_id", T::Int), ("user_ids", INTS)])),
    ),
    ("subscriptions", T::List(&SUBSCRIPTION)),
    ("unread_msgs", UNREADS),
    ("starred_messages", INTS),
    ("streams", T::List(&STREAM)),
    ("user_status", T::IdMap(&T::Obj(&[]))),
    (
        "user_settings",
        T::Obj(&[
            ("twenty_four_hour_time", T::Null(&T::Bool)),
            ("starred_message_counts", T::Bool),
            ("display_emoji_reaction_users", T::Bool),
            ("emojiset", T::Str),
            ("presence_enabled", T::Bool),
        ]),
    ),
    (
        "user_topics",
        T::List(&T::Obj(&[
            ("stream_id", T::Int),
            ("topic_name", T::Str),
            ("last_updated", T::Int),
            ("visibility_policy", T::Int),
        ])),
    ),
    ("realm_can_delete_any_message_group", T::Opt(&T::Group)),
    ("realm_can_delete_own_message_group", T::Opt(&T::Group)),
    (
        "realm_wildcard_mention_policy",
        T::IntIn(&[1, 2, 3, 5, 6, 7]),
    ),
    ("realm_mandatory_topics", T::Opt(&T::Bool)),
    ("realm_name", T::Str),
    ("realm_waiting_period_threshold", T::Int),
    (
        "realm_message_content_delete_limit_seconds",
        T::Opt(&T::Int),
    ),
    ("realm_allow_message_editing", T::Bool),
    ("realm_message_content_edit_limit_seconds", T::Opt(&T::Int)),
    ("realm_enable_read_receipts", T::Bool),
    ("realm_icon_url", T::Str),
    ("realm_presence_disabled", T::Bool),
    (
        "realm_default_external_accounts",
        T::Map(&T::Obj(&[
            ("name", T::Str),
            ("text", T::Str),
            ("hint", T::Str),
            ("url_pattern", T::Str),
        ])),
    ),
    ("max_file_upload_size_mib", T::Int),
    (
        "server_thumbnail_formats",
        T::Opt(&T::List(&T::Obj(&[
            ("name", T::Str),
            ("max_width", T::Int),
            ("max_height", T::Int),
            ("animated", T::Bool),
            ("format", T::Str),
        ]))),
    ),
    ("server_emoji_data_url", T::Str),
    ("event_queue_longpoll_timeout_seconds", T::Int),
    ("realm_moderation_request_channel_id", T::Opt(&T::Int)),
    ("realm_empty_topic_display_name", T::Opt(&T::Str)),
    ("realm_users", T::List(&USER)),
    ("realm_non_active_users", T::List(&USER)),
    ("cross_realm_bots", T::List(&USER)),
];

fn check(t: T, v: Option<&Value>, at: &str, errors: &mut Vec<String>) {
    let mut bad = |what: &str| errors.push(format!("{at}: expected {what}, got {v:?}"));
    match (t, v) {
        (T::Opt(_), None | Some(Value::Null)) | (T::Null(_), Some(Value::Null)) => {}
        (T::Opt(inner) | T::Null(inner), v) => check(*inner, v, at, errors),
        (_, None) => bad("a value (key missing)"),
        (T::Int, Some(v)) => {
            if !v.is_i64() {
                bad("an integer")
            }
        }
        (T::Str, Some(v)) => {
            if !v.is_string() {
                bad("a string")
            }
        }
        (T::Bool, Some(v)) => {
            if !v.is_boolean() {
                bad("a boolean")
            }
        }
        (T::IntIn(allowed), Some(v)) => {
            if !v.as_i64().is_some_and(|n| allowed.contains(&n)) {
                bad(&format!("one of {allowed:?}"))
            }
        }
        (T::Group, Some(v)) => {
            let nameless = v.as_object().is_some_and(|o| {
                o.get("direct_members").is_some_and(all_ints)
                    && o.get("direct_subgroups").is_some_and(all_ints)
            });
            if !(v.is_i64() || nameless) {
                bad("a group setting value")
            }
        }
        (T::List(inner), Some(Value::Array(items))) => {
            for (i, item) in items.iter().enumerate() {
                check(*inner, Some(item), &format!("{at}[{i}]"), errors);
            }
        }
        (T::IdMap(inner) | T::Map(inner), Some(Value::Object(o))) => {
            for (k, item) in o {
                if matches!(t, T::IdMap(_)) && k.parse::<i64>().is_err() {
                    errors.push(format!("{at}: key {k:?} is not an id"));
                }
                check(*inner, Some(item), &format!("{at}.{k}"), errors);
            }
        }
        (T::Obj(fields), Some(Value::Object(o))) => {
            for (k, ft) in fields {
                check(*ft, o.get(*k), &format!("{at}.{k}"), errors);
            }
        }
        (T::List(_), Some(_)) => bad("a list"),
        (T::IdMap(_) | T::Map(_) | T::Obj(_), Some(_)) => bad("an object"),
    }
}

fn all_ints(v: &Value) -> bool {
    v.as_array()
        .is_some_and(|items| items.iter().all(Value::is_i64))
}

/// Asserts that the app's parser would accept `body` as its initial snapshot.
#[track_caller]
pub(crate) fn assert_app_parses_snapshot(body: &Value) {
    let mut errors = Vec::new();
    for (key, t) in SNAPSHOT {
        check(*t, body.get(*key), key, &mut errors);
    }
    assert!(
        errors.is_empty(),
        "the mobile app cannot parse this register response:\n{}",
        errors.join("\n")
    );
}

/// `POST /register` exactly as the app sends it (`lib/api/route/events.dart`): every value
/// JSON-encoded, no event type filters.
pub(crate) const APP_REGISTER: &[(&str, &str)] = &[
    ("idle_queue_timeout", "\"mobile\""),
    ("apply_markdown", "true"),
    ("client_gravatar", "false"),
    ("slim_presence", "true"),
    (
        "client_capabilities",
        r#"{"notification_settings_null":true,"bulk_message_deletion":true,"user_avatar_url_field_optional":true,"stream_typing_notifications":true,"user_settings_object":true,"include_deactivated_groups":true,"empty_topic_name":true,"individual_emoji_changes":true}"#,
    ),
];

async fn app_register(o: &Org, who: &TestUser) -> Value {
    let r = o.srv.post("/api/v1/register", who, APP_REGISTER).await;
    r.assert_success("POST /register").clone()
}

#[tokio::test]
async fn the_mobile_app_can_parse_its_register_response() {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    o.send_channel(&o.bob, "general", "greetings", "hello @**Alice Ant**")
        .await;
    o.send_dm(&o.bob, &[&o.alice], "psst").await;
    let r = o
        .srv
        .post(
            "/api/v1/realm/profile_fields",
            &o.admin,
            &[
                ("name", "GitHub"),
                ("field_type", "7"),
                ("field_data", r#"{"subtype":"github"}"#),
            ],
        )
        .await;
    let field = r.assert_success("POST /realm/profile_fields")["id"].clone();
    let data = json!([{"id": field, "value": "alice-ant"}]).to_string();
    o.srv
        .patch(
            &format!("/api/v1/users/{}", o.alice.id),
            &o.admin,
            &[("profile_data", data.as_str())],
        )
        .await
        .assert_success("PATCH /users/{user_id}");
    let b = app_register(&o, &o.alice).await;
    assert_app_parses_snapshot(&b);
    // The app's own data must be there: the self user among the users, nobody muted, and the
    // external account types profile fields offer.
    let users = b["realm_users"].as_array().unwrap();
    assert!(users.iter().any(|u| u["user_id"] == o.alice.id));
    assert_eq!(b["muted_users"], json!([]));
    assert_eq!(b["realm_wildcard_mention_policy"], 5);
    assert_eq!(
        b["realm_default_external_accounts"]["github"],
        json!({"name": "GitHub", "text": "GitHub username", "hint": "", "url_pattern": "https://github.com/%(username)s"})
    );
    // Two sent in the test, and Welcome Bot's message.
    assert_eq!(b["unread_msgs"]["count"], 3);
    let me = users.iter().find(|u| u["user_id"] == o.alice.id).unwrap();
    assert_eq!(me["profile_data"][field.to_string()]["value"], "alice-ant");
    // A guest sees the same keys.
    assert_app_parses_snapshot(&app_register(&o, &o.guest).await);
}

#[tokio::test]
async fn the_mobile_app_parses_muted_users_and_saved_snippets() {
    let o = org().await;
    let path = format!("/api/v1/users/me/muted_users/{}", o.bob.id);
    o.srv
        .post(&path, &o.alice, &[])
        .await
        .assert_success("POST /users/me/muted_users/{muted_user_id}");
    o.srv
        .post(
            "/api/v1/saved_snippets",
            &o.alice,
            &[("title", "Hello"), ("content", "Welcome!")],
        )
        .await
        .assert_success("POST /saved_snippets");
    let b = app_register(&o, &o.alice).await;
    assert_app_parses_snapshot(&b);
    assert_eq!(b["muted_users"][0]["id"], o.bob.id);
    assert_eq!(b["saved_snippets"][0]["title"], "Hello");
    // The app's `MutedUsersEvent` and its saved-snippet events parse the same records.
    let (q, _) = o
        .register(&o.alice, &[("event_types", r#"["muted_users"]"#)])
        .await;
    o.srv
        .delete(&path, &o.alice, &[])
        .await
        .assert_success("DELETE /users/me/muted_users/{muted_user_id}");
    let evs = crate::support::wait_events(&o, &o.alice, &q, 1).await;
    let mut errors = Vec::new();
    check(
        T::List(&T::Obj(&[("id", T::Int)])),
        evs[0].get("muted_users"),
        "muted_users",
        &mut errors,
    );
    assert!(
        errors.is_empty() && evs[0]["muted_users"] == json!([]),
        "{errors:?}"
    );
}

/// The fields the app's `UpdateMessageMoveData.tryParseFromJson` insists on for a move.
#[track_caller]
fn assert_app_parses_move(e: &Value) -> (i64, i64, String, String, String) {
    assert_eq!(e["type"], "update_message", "{e}");
    let orig_channel = e["stream_id"].as_i64().expect("stream_id on a move");
    let new_channel = e.get("new_stream_id").map_or(orig_channel, |v| {
        v.as_i64().expect("new_stream_id is an integer")
    });
    let orig_topic = e["orig_subject"]
        .as_str()
        .unwrap_or_else(|| panic!("orig_subject on every move: {e}"))
        .to_string();
    let new_topic = e.get("subject").map_or(orig_topic.clone(), |v| {
        v.as_str().expect("subject is a string").to_string()
    });
    let mode = e["propagate_mode"]
        .as_str()
        .unwrap_or_else(|| panic!("propagate_mode on every move: {e}"))
        .to_string();
    assert!(
        ["change_one", "change_later", "change_all"].contains(&mode.as_str()),
        "{e}"
    );
    for key in ["message_id", "edit_timestamp"] {
        assert!(e[key].is_i64(), "{key} in {e}");
    }
    assert!(
        e["rendering_only"].is_boolean() && e["flags"].is_array() && e["message_ids"].is_array()
    );
    (orig_channel, new_channel, orig_topic, new_topic, mode)
}

#[tokio::test]
async fn moves_carry_orig_subject_and_the_requested_propagate_mode() {
    let o = org().await;
    let src = o
        .channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let dst = o
        .channel(&o.alice, "archive", &[&o.alice, &o.bob], &[])
        .await;
    let id = o.send_channel(&o.bob, "general", "plans", "move me").await;
    let b = app_register(&o, &o.alice).await;
    let q = b["queue_id"].as_str().unwrap().to_string();

    // To another channel, same topic, all messages of the topic (here only one).
    let dst_s = dst.to_string();
    o.srv
        .patch(
            &format!("/api/v1/messages/{id}"),
            &o.bob,
            &[
                ("stream_id", dst_s.as_str()),
                ("propagate_mode", "change_all"),
            ],
        )
        .await
        .assert_success("PATCH /messages/{message_id}");
    let evs = wait_events(&o, &o.alice, &q, 1).await;
    let e = &evs[0];
    assert_eq!(
        assert_app_parses_move(e),
        (
            src,
            dst,
            "plans".into(),
            "plans".into(),
            "change_all".into()
        )
    );
    assert!(e.get("subject").is_none(), "no topic change: {e}");
    assert_eq!(e["stream_name"], "general");
    assert_eq!(e["message_id"], id);

    // A content edit together with a topic change keeps both parts.
    let r = o
        .srv
        .patch(
            &format!("/api/v1/messages/{id}"),
            &o.bob,
            &[
                ("topic", "later plans"),
                ("content", "moved and edited"),
                ("propagate_mode", "change_later"),
            ],
        )
        .await;
    r.assert_success("PATCH /messages/{message_id}");
    // Each move also brings Notification Bot's "moved here" message, in the same commit.
    let evs = wait_events(&o, &o.alice, &q, 4).await;
    let kinds: Vec<&str> = evs.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["update_message", "message", "update_message", "message"]
    );
    assert_eq!(
        evs[3]["message"]["sender_email"],
        "notification-bot@zulip.com"
    );
    let e = &evs[2];
    assert_eq!(
        assert_app_parses_move(e),
        (
            dst,
            dst,
            "plans".into(),
            "later plans".into(),
            "change_later".into()
        )
    );
    assert_eq!(e["orig_content"], "move me");
    assert_eq!(e["content"], "moved and edited");
    assert_eq!(e["topic_links"], json!([]));
}

// ---------------------------------------------------------------------------------------------
// multipart/form-data bodies

/// A `multipart/form-data` body with these text fields and (name, file name, bytes) files.
fn multipart(fields: &[(&str, &[u8])], files: &[(&str, &str, &[u8])]) -> (String, Vec<u8>) {
    let boundary = "------------------------outpostb0undary";
    let mut body = Vec::new();
    for (name, value) in fields {
        body.extend_from_slice(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n")
                .as_bytes(),
        );
        body.extend_from_slice(value);
        body.extend_from_slice(b"\r\n");
    }
    for (name, filename, data) in files {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{filename}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(data);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

async fn send_multipart(
    o: &Org,
    method: hyper::Method,
    path: &str,
    who: &TestUser,
    fields: &[(&str, &[u8])],
    files: &[(&str, &str, &[u8])],
) -> crate::support::Reply {
    let (content_type, body) = multipart(fields, files);
    let req = crate::support::raw(method, path)
        .header("content-type", content_type)
        .header(
            "authorization",
            crate::support::basic(&who.email, &who.api_key),
        )
        .body(crate::support::body(body))
        .unwrap();
    o.srv.send(req).await
}

fn text<'a>(form: &'a [(&'a str, &'a str)]) -> Vec<(&'a str, &'a [u8])> {
    form.iter().map(|(k, v)| (*k, v.as_bytes())).collect()
}

/// Drops what differs between two otherwise identical calls (fresh ids, queue ids, times).
fn comparable(mut v: Value) -> Value {
    if let Some(o) = v.as_object_mut() {
        for volatile in ["id", "queue_id", "server_timestamp", "last_event_id"] {
            o.remove(volatile);
        }
    }
    v
}

/// A request: method, path and form.
type Call<'a> = (hyper::Method, String, Vec<(&'a str, &'a str)>);

/// Two identical organizations with a channel and a message in it.
async fn twin() -> (Org, i64) {
    let o = org().await;
    o.channel(&o.alice, "general", &[&o.alice, &o.bob], &[])
        .await;
    let id = o.send_channel(&o.alice, "general", "t", "first").await;
    (o, id)
}

#[tokio::test]
async fn multipart_bodies_reach_every_method_like_form_bodies() {
    // The same calls, urlencoded on one server and as multipart on its twin: every answer
    // must be the same, and so must the state they leave.
    let (plain_org, id) = twin().await;
    let (multi_org, multi_id) = twin().await;
    assert_eq!(id, multi_id);
    let message = format!("/api/v1/messages/{id}");
    let reactions = format!("{message}/reactions");
    let ids = format!("[{id}]");
    let subs = json!([{"name": "multi"}]).to_string();
    let calls: Vec<Call> = vec![
        (
            hyper::Method::POST,
            "/api/v1/messages".into(),
            vec![
                ("type", "stream"),
                ("to", "general"),
                ("topic", "t"),
                ("content", "hi"),
            ],
        ),
        (
            hyper::Method::POST,
            reactions.clone(),
            vec![("emoji_name", "octopus")],
        ),
        (
            hyper::Method::POST,
            reactions.clone(),
            vec![("emoji_name", "heart")],
        ),
        (
            hyper::Method::DELETE,
            reactions.clone(),
            vec![("emoji_name", "octopus")],
        ),
        (
            hyper::Method::PATCH,
            message.clone(),
            vec![("content", "edited")],
        ),
        (
            hyper::Method::POST,
            "/api/v1/users/me/subscriptions".into(),
            vec![("subscriptions", subs.as_str())],
        ),
        (
            hyper::Method::POST,
            "/api/v1/messages/flags".into(),
            vec![
                ("messages", ids.as_str()),
                ("op", "add"),
                ("flag", "starred"),
            ],
        ),
        (
            hyper::Method::PATCH,
            "/api/v1/settings".into(),
            vec![("twenty_four_hour_time", "true")],
        ),
        (
            hyper::Method::POST,
            "/api/v1/register".into(),
            vec![("fetch_event_types", "[\"message\"]"), ("bogus", "1")],
        ),
        (
            hyper::Method::DELETE,
            "/api/v1/users/me/subscriptions".into(),
            vec![("subscriptions", "[\"multi\"]")],
        ),
    ];
    for (method, path, form) in &calls {
        let plain = plain_org
            .srv
            .call(method.clone(), path, Some(&plain_org.alice), form)
            .await;
        let multi = send_multipart(
            &multi_org,
            method.clone(),
            path,
            &multi_org.alice,
            &text(form),
            &[],
        )
        .await;
        assert_eq!(plain.status, 200, "{method} {path}: {}", plain.body);
        assert_eq!(
            (multi.status, comparable(multi.body.clone())),
            (plain.status, comparable(plain.body.clone())),
            "{method} {path}"
        );
    }
    // The multipart calls took effect: both servers hold the same messages now.
    async fn history(o: &Org) -> crate::support::Reply {
        let query = [
            ("anchor", "newest"),
            ("num_before", "10"),
            ("num_after", "0"),
        ];
        o.srv.get("/api/v1/messages", &o.alice, &query).await
    }
    let (a, b) = (history(&plain_org).await, history(&multi_org).await);
    let summary = |r: &crate::support::Reply| -> Vec<Value> {
        r.body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                json!([
                    m["content"],
                    m["flags"],
                    m["reactions"].as_array().map(Vec::len)
                ])
            })
            .collect()
    };
    let contents: Vec<Value> = summary(&b).iter().map(|m| m[0].clone()).collect();
    assert_eq!(summary(&b), summary(&a));
    assert!(contents.contains(&json!("<p>edited</p>")) && contents.contains(&json!("<p>hi</p>")));
    // Unknown fields are reported like form fields; files are not parameters.
    let r = send_multipart(
        &multi_org,
        hyper::Method::PATCH,
        "/api/v1/settings",
        &multi_org.alice,
        &text(&[("enter_sends", "true"), ("bogus", "x")]),
        &[("avatar", "a.png", b"\x89PNG\xff\xfe")],
    )
    .await;
    assert_eq!(
        r.assert_success("PATCH /settings")["ignored_parameters_unsupported"],
        json!(["bogus"])
    );
}

#[tokio::test]
async fn multipart_bodies_follow_the_parameter_rules() {
    let o = org().await;
    let path = "/api/v1/settings";
    // The same name twice, or once in the query and once in the body.
    let r = send_multipart(
        &o,
        hyper::Method::PATCH,
        path,
        &o.alice,
        &text(&[("enter_sends", "true"), ("enter_sends", "false")]),
        &[],
    )
    .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Parameter 'enter_sends' was given more than once"
    );
    let r = send_multipart(
        &o,
        hyper::Method::PATCH,
        "/api/v1/settings?enter_sends=true",
        &o.alice,
        &text(&[("enter_sends", "false")]),
        &[],
    )
    .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Parameter 'enter_sends' was given more than once"
    );
    // Invalid UTF-8 in a field.
    let r = send_multipart(
        &o,
        hyper::Method::PATCH,
        path,
        &o.alice,
        &[("full_name", b"Al\xffce")],
        &[],
    )
    .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Request parameters are not valid UTF-8"
    );
    // More fields than max_params (files count as parts too).
    let max = o.srv.state.config.limits.max_params;
    let names: Vec<String> = (0..=max).map(|i| format!("p{i}")).collect();
    let many: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b"1"[..])).collect();
    let r = send_multipart(&o, hyper::Method::PATCH, path, &o.alice, &many, &[]).await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        format!("Too many parameters (at most {max} are accepted)")
    );
    let files: Vec<(&str, &str, &[u8])> = names
        .iter()
        .map(|n| (n.as_str(), "f.txt", &b"1"[..]))
        .collect();
    let r = send_multipart(&o, hyper::Method::PATCH, path, &o.alice, &[], &files).await;
    r.assert_error(400, "BAD_REQUEST");
    // A broken body or a missing boundary is refused, and nothing changes.
    for (content_type, body) in [
        (
            "multipart/form-data; boundary=xyz",
            &b"--xyz\r\nContent-Disposition: form-data; name=\"enter_sends\"\r\n\r\ntrue"[..],
        ),
        ("multipart/form-data", b"enter_sends=true"),
    ] {
        let req = crate::support::raw(hyper::Method::PATCH, path)
            .header("content-type", content_type)
            .header(
                "authorization",
                crate::support::basic(&o.alice.email, &o.alice.api_key),
            )
            .body(crate::support::body(body))
            .unwrap();
        let r = o.srv.send(req).await;
        assert_eq!(
            r.assert_error(400, "BAD_REQUEST")["msg"],
            "Malformed multipart/form-data body"
        );
    }
    let r = o
        .srv
        .post(
            "/api/v1/register",
            &o.alice,
            &[("fetch_event_types", "[\"user_settings\"]")],
        )
        .await;
    assert_eq!(r.body["user_settings"]["enter_sends"], false);
    let r = o.srv.get("/api/v1/users/me", &o.alice, &[]).await;
    assert_eq!(r.body["full_name"], "Alice Ant");
}

// ---------------------------------------------------------------------------------------------
// The whole register key set

/// The keys the vendored `POST /register` schema (Zulip's OpenAPI document, Apache-2.0,
/// structure only) lists for the response.
fn spec_register_keys() -> Vec<String> {
    let doc: Value = serde_json::from_str(include_str!("../schemas/zulip-responses.json"))
        .expect("vendored schema is valid JSON");
    let parts = doc["responses"]["POST /register"]["allOf"]
        .as_array()
        .expect("register is an allOf");
    let mut keys: Vec<String> = parts
        .iter()
        .filter_map(|p| p["properties"].as_object())
        .flat_map(|props| props.keys().cloned())
        .collect();
    keys.sort();
    keys.dedup();
    keys
}

#[tokio::test]
async fn register_without_filters_has_every_key_of_the_spec() {
    let o = org().await;
    // Without `user_settings_object`, the legacy top-level settings are sent too.
    let b = o
        .srv
        .post("/api/v1/register", &o.alice, &[])
        .await
        .assert_success("POST /register")
        .clone();
    let got = b.as_object().unwrap();
    // Upstream leaves out only the envelope's optional warning, and the deletion date that
    // exists for demo organizations alone.
    let not_sent = [
        "ignored_parameters_unsupported",
        "demo_organization_scheduled_deletion_date",
    ];
    let missing: Vec<String> = spec_register_keys()
        .into_iter()
        .filter(|k| !not_sent.contains(&k.as_str()) && !got.contains_key(k))
        .collect();
    assert!(missing.is_empty(), "register lacks {missing:?}");

    // Group-valued realm settings name the system groups this server has.
    let groups: Vec<i64> = b["realm_user_groups"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["is_system_group"] == true)
        .map(|g| g["id"].as_i64().unwrap())
        .collect();
    let group_keys: Vec<&String> = got
        .keys()
        .filter(|k| k.starts_with("realm_") && k.ends_with("_group"))
        .collect();
    assert!(group_keys.len() >= 20, "{group_keys:?}");
    for k in &group_keys {
        let id = b[k.as_str()].as_i64().unwrap_or(-1);
        assert!(groups.contains(&id), "{k} = {}", b[k.as_str()]);
    }
    assert_eq!(b["realm_can_manage_all_groups"], 2); // role:owners
    assert_eq!(b["realm_direct_message_permission_group"], 7); // role:everyone
    // Each of them is described in server_supported_permission_settings.
    let realm_settings = &b["server_supported_permission_settings"]["realm"];
    for k in &group_keys {
        let name = k.strip_prefix("realm_").unwrap();
        assert!(realm_settings[name].is_object(), "{name} has no metadata");
    }
    assert_eq!(
        b["server_supported_permission_settings"]["stream"]["can_send_message_group"]["default_group_name"],
        "role:everyone"
    );
    assert_eq!(b["realm_upload_quota_mib"], Value::Null);
    assert_eq!(b["realm_bot_domain"], "outpost.test");
    assert_eq!(
        b["realm_user_settings_defaults"]["twenty_four_hour_time"],
        false
    );

    // A filter keeps only its own keys.
    let r = o
        .srv
        .post(
            "/api/v1/register",
            &o.alice,
            &[("fetch_event_types", r#"["muted_users","drafts"]"#)],
        )
        .await;
    let b = r.assert_success("POST /register");
    assert_eq!(
        (b["muted_users"].clone(), b["drafts"].clone()),
        (json!([]), json!([]))
    );
    assert!(b.get("realm_can_create_groups").is_none() && b.get("realm_users").is_none());
}

#[tokio::test]
async fn own_user_always_has_profile_data() {
    let o = org().await;
    let r = o.srv.get("/api/v1/users/me", &o.alice, &[]).await;
    assert_eq!(r.assert_success("GET /users/me")["profile_data"], json!({}));
    let r = o
        .srv
        .post(
            "/api/v1/realm/profile_fields",
            &o.admin,
            &[("name", "Team"), ("field_type", "1")],
        )
        .await;
    let field = r.body["id"].as_i64().unwrap();
    let data = json!([{"id": field, "value": "Ants"}]).to_string();
    o.srv
        .patch(
            &format!("/api/v1/users/{}", o.alice.id),
            &o.admin,
            &[("profile_data", data.as_str())],
        )
        .await
        .assert_success("PATCH /users/{user_id}");
    let r = o.srv.get("/api/v1/users/me", &o.alice, &[]).await;
    assert_eq!(
        r.assert_success("GET /users/me")["profile_data"][field.to_string()]["value"],
        "Ants"
    );
}

// ---------------------------------------------------------------------------------------------
// realm_user email events

async fn email_org(
    visibility: outpost::config::EmailVisibility,
) -> (crate::support::TestServer, [TestUser; 4]) {
    use outpost::model::Role;
    let srv =
        crate::support::TestServer::start_with(|c| c.chat.email_address_visibility = visibility)
            .await;
    let owner = srv
        .user_with("owner@example.com", "Olive Owner", Role::Owner, |u| {
            u.can_change_user_emails = true;
        })
        .await;
    let admin = srv
        .user("admin@example.com", "Ada Admin", Role::Administrator)
        .await;
    let member = srv.user("bob@example.com", "Bob Bee", Role::Member).await;
    let target = srv
        .user("mel@example.com", "Mel Member", Role::Member)
        .await;
    (srv, [owner, admin, member, target])
}

/// Registers a queue for each user, changes `target`'s email as the owner, and returns the
/// `realm_user` persons each queue received, in order.
async fn email_change_persons(
    srv: &crate::support::TestServer,
    users: &[TestUser; 4],
) -> Vec<Vec<Value>> {
    let mut queues = Vec::new();
    for u in users {
        let r = srv
            .post(
                "/api/v1/register",
                u,
                &[("event_types", r#"["realm_user"]"#)],
            )
            .await;
        queues.push(
            r.assert_success("POST /register")["queue_id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    let [owner, .., target] = users;
    srv.patch(
        &format!("/api/v1/users/{}", target.id),
        owner,
        &[("new_email", "mel.new@example.com")],
    )
    .await
    .assert_success("PATCH /users/{user_id}");
    // Then a change every queue hears of: events arrive in order, so once a queue has this
    // one it has everything the email change gave it.
    srv.patch(
        "/api/v1/settings",
        owner,
        &[("full_name", "Olive Sentinel")],
    )
    .await
    .assert_success("PATCH /settings");
    // The target now logs in with the new address.
    let moved = TestUser {
        email: "mel.new@example.com".into(),
        ..target.clone()
    };
    let mut out = Vec::new();
    for (i, q) in queues.iter().enumerate() {
        let u = if i == 3 { &moved } else { &users[i] };
        let mut persons: Vec<Value> = Vec::new();
        let mut last = -1;
        while !persons.iter().any(|p| p["full_name"] == "Olive Sentinel") {
            let last_s = last.to_string();
            let r = srv
                .get(
                    "/api/v1/events",
                    u,
                    &[("queue_id", q.as_str()), ("last_event_id", last_s.as_str())],
                )
                .await;
            for e in r.assert_success("GET /events")["events"]
                .as_array()
                .unwrap()
            {
                last = e["id"].as_i64().unwrap();
                if e["type"] == "realm_user" {
                    persons.push(e["person"].clone());
                }
            }
        }
        persons.pop();
        out.push(persons);
    }
    out
}

#[tokio::test]
async fn hidden_email_changes_reach_only_those_who_may_see_them() {
    let (srv, users) = email_org(outpost::config::EmailVisibility::Admins).await;
    let target = users[3].id;
    let persons = email_change_persons(&srv, &users).await;
    let delivery = json!({"user_id": target, "delivery_email": "mel.new@example.com"});
    // Owner and admin may see it; the API email stays the placeholder, so no new_email.
    assert_eq!(persons[0], vec![delivery.clone()]);
    assert_eq!(persons[1], vec![delivery.clone()]);
    // Another member hears nothing; the user themself gets their own address.
    assert_eq!(persons[2], Vec::<Value>::new());
    assert_eq!(persons[3], vec![delivery]);
}

#[tokio::test]
async fn public_email_changes_carry_delivery_and_new_email() {
    let (srv, users) = email_org(outpost::config::EmailVisibility::Everyone).await;
    let target = users[3].id;
    let persons = email_change_persons(&srv, &users).await;
    let expected = vec![
        json!({"user_id": target, "delivery_email": "mel.new@example.com"}),
        json!({"user_id": target, "new_email": "mel.new@example.com"}),
    ];
    for p in persons {
        assert_eq!(p, expected);
    }
}

// ---------------------------------------------------------------------------------------------
// The realm icon

#[tokio::test]
async fn the_realm_icon_is_served_to_anyone() {
    let o = org().await;
    let b = app_register(&o, &o.alice).await;
    let url = b["realm_icon_url"].as_str().unwrap().to_string();
    let settings = o
        .srv
        .call(hyper::Method::GET, "/api/v1/server_settings", None, &[])
        .await;
    assert_eq!(settings.body["realm_icon"], url.as_str());
    let path = url
        .strip_prefix("http://outpost.test")
        .expect("an URL on this server");
    let r = o.srv.call(hyper::Method::GET, path, None, &[]).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.headers["content-type"], "image/png");
    assert!(
        r.headers["cache-control"]
            .to_str()
            .unwrap()
            .starts_with("public"),
        "{:?}",
        r.headers
    );
    assert!(r.raw.starts_with(b"\x89PNG\r\n\x1a\n") && r.raw.len() > 100);
    let r = o.srv.call(hyper::Method::HEAD, path, None, &[]).await;
    assert_eq!((r.status, r.raw.len()), (200, 0));
    // Other methods are refused like any other route's, naming the ones that work.
    let r = o.srv.call(hyper::Method::POST, path, None, &[]).await;
    assert_eq!(r.status, 405);
    assert_eq!(r.headers["allow"], "GET, HEAD");
}

#[tokio::test]
async fn the_mobile_app_queue_lives_twelve_hours_idle() {
    let o = org().await;
    let b = app_register(&o, &o.alice).await;
    let q = b["queue_id"].as_str().unwrap().to_string();
    let plain = o
        .srv
        .post(
            "/api/v1/register",
            &o.bob,
            &[("event_types", r#"["message"]"#)],
        )
        .await;
    let plain = plain.assert_success("POST /register");
    // An hour in a pocket: the app's queue is still there, the ten-minute one is gone.
    let later = std::time::Instant::now() + std::time::Duration::from_secs(3600);
    o.srv.state.queues.sweep(later);
    poll_now(&o.srv, &o.alice, &q, -1)
        .await
        .assert_success("GET /events");
    let gone = poll_now(&o.srv, &o.bob, plain["queue_id"].as_str().unwrap(), -1).await;
    gone.assert_error(400, "BAD_EVENT_QUEUE_ID");
    // Twelve hours and a bit: the app's queue is collected too.
    o.srv
        .state
        .queues
        .sweep(std::time::Instant::now() + std::time::Duration::from_secs(12 * 3600 + 60));
    poll_now(&o.srv, &o.alice, &q, -1)
        .await
        .assert_error(400, "BAD_EVENT_QUEUE_ID");
    // A number of seconds works too; anything else is refused and registers nothing.
    let r = o
        .srv
        .post(
            "/api/v1/register",
            &o.bob,
            &[("idle_queue_timeout", "7200")],
        )
        .await;
    r.assert_success("POST /register");
    let before = o
        .srv
        .state
        .queues
        .count_of_user(outpost::ids::UserId(o.bob.id));
    for bad in ["\"desktop\"", "-5", "0", "1.5"] {
        let r = o
            .srv
            .post("/api/v1/register", &o.bob, &[("idle_queue_timeout", bad)])
            .await;
        r.assert_error(400, "BAD_REQUEST");
    }
    let after = o
        .srv
        .state
        .queues
        .count_of_user(outpost::ids::UserId(o.bob.id));
    assert_eq!(before, after);
}

#[tokio::test]
async fn a_cleared_status_emoji_says_so_to_the_app() {
    let o = org().await;
    let q = register_queue(&o.srv, &o.bob, &[("event_types", r#"["user_status"]"#)]).await;
    o.srv
        .post(
            "/api/v1/users/me/status",
            &o.alice,
            &[("emoji_name", "car"), ("status_text", "driving")],
        )
        .await
        .assert_success("POST /users/me/status");
    o.srv
        .post("/api/v1/users/me/status", &o.alice, &[("emoji_name", "")])
        .await
        .assert_success("POST /users/me/status");
    let evs = wait_events(&o, &o.bob, &q, 2).await;
    assert_eq!(evs[0]["reaction_type"], "unicode_emoji");
    assert_eq!(evs[1]["emoji_name"], "");
    assert_eq!(evs[1]["emoji_code"], "");
    // Present and empty: the app reads a missing key as "unchanged".
    assert_eq!(evs[1]["reaction_type"], json!(""));
}
