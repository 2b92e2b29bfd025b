//! Push registration: `POST /mobile_push/register` (every field checked; refused with
//! `PUSH_SERVICE_NOT_CONFIGURED` unless `[push] enabled`, stored when it is) and the legacy
//! token endpoints, human users only; registrations go when their user is deactivated.

use outpost::domain::push::devices_of;
use outpost::ids::UserId;

use crate::support::{Org, Reply, TestUser, org, org_with};
use crate::user_records::make_bot;

const KEY: &str = "MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTI=";
const CIPHER: &str = "c2VjcmV0IHJlZ2lzdHJhdGlvbiBjaXBoZXJ0ZXh0";

fn registration<'a>(account: &'a str, kind: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("token_kind", kind),
        ("push_account_id", account),
        ("push_public_key", KEY),
        ("bouncer_public_key", "bouncer-key-1"),
        ("encrypted_push_registration", CIPHER),
    ]
}

impl Org {
    async fn register_device(&self, who: &TestUser, form: &[(&str, &str)]) -> Reply {
        self.srv
            .post("/api/v1/mobile_push/register", who, form)
            .await
    }

    async fn registrations(&self, who: &TestUser) -> usize {
        let (tokens, regs) = devices_of(&self.srv.state, UserId(who.id)).await.unwrap();
        tokens.len() + regs.len()
    }
}

#[track_caller]
fn error(r: &Reply, msg: &str) {
    r.assert_error(400, "BAD_REQUEST");
    assert_eq!(r.body["msg"], msg, "{}", r.body);
}

#[tokio::test]
async fn without_a_push_service_registration_is_refused() {
    let o = org().await;
    let r = o.register_device(&o.alice, &registration("7", "fcm")).await;
    r.assert_error(400, "PUSH_SERVICE_NOT_CONFIGURED");
    assert_eq!(
        r.body["msg"],
        "Server is not configured to use push notification service."
    );
    assert_eq!(o.registrations(&o.alice).await, 0);
}

#[tokio::test]
async fn registrations_are_checked_stored_and_replaced() {
    let o = org_with(|c| {
        c.push.enabled = true;
        c.push.max_devices_per_user = 2;
    })
    .await;
    o.register_device(&o.alice, &registration("7", "fcm"))
        .await
        .assert_success("POST /mobile_push/register");
    // The same account again replaces its registration.
    o.register_device(&o.alice, &registration("7", "apns"))
        .await
        .assert_success("POST /mobile_push/register");
    let (_, regs) = devices_of(&o.srv.state, UserId(o.alice.id)).await.unwrap();
    assert_eq!(regs.len(), 1);
    assert_eq!((regs[0].push_account_id, regs[0].token_kind), (7, "apns"));
    assert_eq!(regs[0].encrypted_push_registration, CIPHER);

    let with = |name: &'static str, value: &'static str| {
        let mut f = registration("8", "fcm");
        f.retain(|(n, _)| *n != name);
        f.push((name, value));
        f
    };
    let bad = [
        (
            with("token_kind", "gcm"),
            "Invalid token_kind (expected \"fcm\" or \"apns\")",
        ),
        (
            with("push_account_id", "\"x\""),
            "push_account_id is not an integer",
        ),
        (
            with("push_public_key", "not base64!"),
            "Invalid push_public_key",
        ),
        (with("push_public_key", "YWJj="), "Invalid push_public_key"),
        (
            with("encrypted_push_registration", "%%%"),
            "Invalid encrypted_push_registration",
        ),
        (with("bouncer_public_key", ""), "Invalid bouncer_public_key"),
    ];
    for (form, msg) in &bad {
        error(&o.register_device(&o.alice, form).await, msg);
    }
    let mut missing = registration("8", "fcm");
    missing.retain(|(n, _)| *n != "push_account_id");
    o.register_device(&o.alice, &missing)
        .await
        .assert_error(400, "REQUEST_VARIABLE_MISSING");
    assert_eq!(o.registrations(&o.alice).await, 1);

    // Bounded per user.
    o.register_device(&o.alice, &registration("8", "fcm"))
        .await
        .assert_success("POST /mobile_push/register");
    error(
        &o.register_device(&o.alice, &registration("9", "fcm")).await,
        "Too many push devices (limit: 2)",
    );
    assert_eq!(o.registrations(&o.alice).await, 2);

    // Deactivation forgets them.
    o.srv
        .delete(&format!("/api/v1/users/{}", o.alice.id), &o.admin, &[])
        .await
        .assert_success("DELETE /users/{user_id}");
    assert_eq!(o.registrations(&o.alice).await, 0);
}

#[tokio::test]
async fn legacy_tokens_are_validated_kept_and_removed() {
    let o = org().await;
    let apns = "/api/v1/users/me/apns_device_token";
    let fcm = "/api/v1/users/me/android_gcm_reg_id";
    let token = "YXBwbGUtZGV2aWNlLXRva2Vu";
    let long = "A".repeat(4097);
    for (path, form, msg) in [
        (
            apns,
            vec![("token", ""), ("appid", "org.zulip.Zulip")],
            "Empty or invalid length token",
        ),
        (
            apns,
            vec![("token", long.as_str()), ("appid", "org.zulip.Zulip")],
            "Empty or invalid length token",
        ),
        (
            apns,
            vec![("token", "not base64!"), ("appid", "org.zulip.Zulip")],
            "Invalid APNS token",
        ),
        (
            apns,
            vec![("token", token), ("appid", "org zulip/Zulip")],
            "Invalid app ID",
        ),
        (fcm, vec![("token", "")], "Empty or invalid length token"),
        (
            fcm,
            vec![("token", long.as_str())],
            "Empty or invalid length token",
        ),
    ] {
        error(&o.srv.post(path, &o.alice, &form).await, msg);
    }
    o.srv
        .post(apns, &o.alice, &[("token", token)])
        .await
        .assert_error(400, "REQUEST_VARIABLE_MISSING");
    assert_eq!(o.registrations(&o.alice).await, 0);

    o.srv
        .post(
            apns,
            &o.alice,
            &[("token", token), ("appid", "org.zulip.Zulip")],
        )
        .await
        .assert_success("POST /users/me/apns_device_token");
    // Again with another app id: the same token, updated.
    o.srv
        .post(
            apns,
            &o.alice,
            &[("token", token), ("appid", "com.example.app")],
        )
        .await
        .assert_success("POST /users/me/apns_device_token");
    o.srv
        .post(fcm, &o.alice, &[("token", "fcm-token:abc")])
        .await
        .assert_success("POST /users/me/android_gcm_reg_id");
    let (tokens, _) = devices_of(&o.srv.state, UserId(o.alice.id)).await.unwrap();
    assert_eq!(tokens.len(), 2);
    let a = tokens.iter().find(|t| t.kind == "apns").unwrap();
    assert_eq!(a.ios_app_id.as_deref(), Some("com.example.app"));

    // Removing: someone else's or unknown tokens do not exist.
    error(
        &o.srv
            .delete(fcm, &o.bob, &[("token", "fcm-token:abc")])
            .await,
        "Token does not exist",
    );
    error(
        &o.srv.delete(apns, &o.alice, &[("token", "b3RoZXI=")]).await,
        "Token does not exist",
    );
    error(
        &o.srv.delete(apns, &o.alice, &[("token", "")]).await,
        "Empty or invalid length token",
    );
    o.srv
        .delete(fcm, &o.alice, &[("token", "fcm-token:abc")])
        .await
        .assert_success("DELETE /users/me/android_gcm_reg_id");
    o.srv
        .delete(apns, &o.alice, &[("token", token)])
        .await
        .assert_success("DELETE /users/me/apns_device_token");
    assert_eq!(o.registrations(&o.alice).await, 0);

    // Human users only.
    let bot = make_bot(&o.srv, "pusher-bot@example.com").await;
    let humans = "This endpoint does not accept bot requests.";
    error(&o.srv.post(fcm, &bot, &[("token", "t")]).await, humans);
    error(
        &o.register_device(&bot, &registration("1", "fcm")).await,
        humans,
    );
    assert_eq!(o.registrations(&bot).await, 0);
}
