//! End-to-end encrypted push, against the stand-in of `support::bouncer`: an app's encrypted
//! registrations (`POST /mobile_push/register`) are forwarded to the service; a direct message
//! to the idle user reaches each of their devices sealed to that device's own key, and opens
//! there to upstream's payload; reading it sends an encrypted remove notification. Registrations
//! the service refuses (a key it does not hold, one too old) record its error and get no
//! pushes; devices it says are gone are deleted. What cannot be tested here: the real service
//! and the app's decryption (the test opens the sealed boxes as the app's libsodium would).

use base64::Engine as _;
use crypto_box::SecretKey;
use serde_json::{Value, json};

use outpost::domain::push::credentials::{self, Credentials};
use outpost::domain::push::{self, PushOutcome};
use outpost::ids::{MessageId, UserId};
use outpost::model::Trigger;

use crate::support::bouncer::{Bouncer, Received};
use crate::support::{Org, TestUser, org_with};

const APNS_TOKEN: &str = "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00";

fn b64() -> base64::engine::GeneralPurpose {
    base64::engine::general_purpose::STANDARD
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// The usual organization on a server registered with `bouncer`.
async fn pushed_org(bouncer: &Bouncer) -> (Org, Credentials) {
    let url = bouncer.url();
    let o = org_with(|c| {
        c.push.enabled = true;
        c.push.bouncer_url = url;
    })
    .await;
    let creds = Credentials::generate();
    credentials::store(&o.srv.state.config.data_dir, &creds).unwrap();
    bouncer.know(&creds.zulip_org_id, &creds.zulip_org_key);
    (o, creds)
}

/// A device as the app makes one: its key pair and its sealed registration.
struct Device {
    secret: SecretKey,
    account: i64,
}

impl Device {
    fn new(account: i64) -> Device {
        Device {
            secret: SecretKey::generate(&mut crypto_box::aead::OsRng),
            account,
        }
    }

    fn public(&self) -> String {
        b64().encode(self.secret.public_key().as_bytes())
    }

    /// Opens a sealed payload as the app would.
    fn open(&self, encrypted_data: &str) -> Value {
        let sealed = b64().decode(encrypted_data).expect("base64");
        let plain = self.secret.unseal(&sealed).expect("sealed to this device");
        serde_json::from_slice(&plain).expect("JSON")
    }
}

async fn register(
    o: &Org,
    who: &TestUser,
    d: &Device,
    kind: &str,
    bouncer_key: &str,
    sealed: &str,
) {
    let account = d.account.to_string();
    let public = d.public();
    o.srv
        .post(
            "/api/v1/mobile_push/register",
            who,
            &[
                ("token_kind", kind),
                ("push_account_id", &account),
                ("push_public_key", &public),
                ("bouncer_public_key", bouncer_key),
                ("encrypted_push_registration", sealed),
            ],
        )
        .await
        .assert_success("POST /mobile_push/register");
}

/// What the server recorded of a registration: (device id, error code), once the
/// forwarding call was made.
async fn forwarded(o: &Org, who: &TestUser, account: i64) -> (Option<i64>, Option<String>) {
    let user = UserId(who.id);
    for _ in 0..400 {
        let state = o
            .srv
            .state
            .core
            .db
            .read(move |c| outpost::db::push_e2ee::state(c, user, account))
            .await
            .unwrap();
        if let Some(s) = state
            && (s.0.is_some() || s.1.is_some())
        {
            return s;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("registration {account} was never forwarded");
}

/// The items of the encrypted notify requests received so far, with the request they were in.
fn items(b: &Bouncer) -> Vec<(Received, Value)> {
    b.got_at("push/e2ee/notify")
        .into_iter()
        .flat_map(|r| {
            let list = r.json["push_requests"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            list.into_iter().map(move |i| (r.clone(), i))
        })
        .collect()
}

fn item_for(items: &[(Received, Value)], device_id: i64) -> Value {
    items
        .iter()
        .find(|(_, i)| i["device_id"] == device_id)
        .map(|(_, i)| i.clone())
        .unwrap_or_else(|| panic!("no item for device {device_id}: {items:?}"))
}

#[tokio::test]
async fn registrations_are_forwarded_and_each_device_gets_its_own_sealed_payload() {
    let bouncer = Bouncer::start().await;
    let (o, creds) = pushed_org(&bouncer).await;
    let (android, iphone) = (Device::new(2408), Device::new(2409));
    let key = bouncer.public_key();
    let fcm_reg = bouncer.seal_registration(
        &json!({"token_kind": "fcm", "token": "fcm-e2ee-token", "timestamp": now()}),
    );
    let apns_reg = bouncer.seal_registration(&json!({
        "token_kind": "apns", "token": APNS_TOKEN, "timestamp": now(),
        "ios_app_id": "org.zulip.Zulip",
    }));
    register(&o, &o.bob, &android, "fcm", &key, &fcm_reg).await;
    register(&o, &o.bob, &iphone, "apns", &key, &apns_reg).await;

    // Both were forwarded as upstream forwards them, authenticated as this server.
    let calls = bouncer.wait_for("push/e2ee/register", 2).await;
    for (call, (d, sealed)) in calls
        .iter()
        .zip([(&android, &fcm_reg), (&iphone, &apns_reg)])
    {
        assert_eq!(call.server.as_deref(), Some(creds.zulip_org_id.as_str()));
        assert_eq!(call.field("realm_uuid"), Some(creds.realm_uuid.as_str()));
        assert_eq!(call.field("push_account_id"), Some(&*d.account.to_string()));
        assert_eq!(call.field("bouncer_public_key"), Some(key.as_str()));
        assert_eq!(
            call.field("encrypted_push_registration"),
            Some(sealed.as_str())
        );
    }
    let fcm_id = forwarded(&o, &o.bob, 2408).await.0.expect("a device id");
    let apns_id = forwarded(&o, &o.bob, 2409).await.0.expect("a device id");
    let known = bouncer.e2ee_devices();
    assert_eq!(known[&fcm_id].token, "fcm-e2ee-token");
    assert_eq!(known[&apns_id].token, APNS_TOKEN);

    // Bob is idle: a direct message reaches both devices through the notification decision.
    let dm = o.send_dm(&o.alice, &[&o.bob], "are you *there*?").await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while items(&bouncer).len() < 2 {
        assert!(std::time::Instant::now() < deadline, "{:?}", bouncer.got());
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(bouncer.got_at("push/notify").is_empty(), "no legacy tokens");
    let got = items(&bouncer);
    assert_eq!(got[0].0.json["realm_uuid"], creds.realm_uuid);
    let fcm = item_for(&got, fcm_id);
    assert_eq!(fcm["fcm_priority"], "high");
    assert_eq!(fcm["payload"]["push_account_id"], 2408);
    let apns = item_for(&got, apns_id);
    assert_eq!(
        apns["http_headers"],
        json!({"apns_priority": 10, "apns_push_type": "alert"})
    );
    assert_eq!(apns["payload"]["push_account_id"], 2409);
    assert_eq!(apns["payload"]["aps"]["mutable-content"], 1);
    assert_eq!(apns["payload"]["aps"]["alert"]["title"], "New notification");

    // Each opens with its own device's key only, to upstream's payload.
    let fcm_data = fcm["payload"]["encrypted_data"].as_str().unwrap();
    let apns_data = apns["payload"]["encrypted_data"].as_str().unwrap();
    let plain = android.open(fcm_data);
    assert_eq!(iphone.open(apns_data), plain);
    assert!(
        iphone
            .secret
            .unseal(&b64().decode(fcm_data).unwrap())
            .is_err()
    );
    let external = &o.srv.state.config.chat.external_url;
    let mut members = vec![o.alice.id, o.bob.id];
    members.sort_unstable();
    assert_eq!(plain["type"], "message");
    assert_eq!(plain["message_id"], dm);
    assert_eq!(plain["user_id"], o.bob.id);
    assert_eq!(plain["sender_id"], o.alice.id);
    assert_eq!(plain["sender_full_name"], "Alice Ant");
    assert_eq!(plain["realm_url"], external.as_str());
    assert_eq!(plain["recipient_type"], "direct");
    assert_eq!(plain["recipient_user_ids"], json!(members));
    assert_eq!(plain["content"], "are you there?");
    assert!(plain["time"].as_i64().unwrap() > 0);
    assert!(plain.get("channel_id").is_none() && plain.get("pm_users").is_none());

    // Reading it retracts it, encrypted too.
    let before = items(&bouncer).len();
    o.srv
        .post(
            "/api/v1/messages/flags",
            &o.bob,
            &[
                ("messages", &format!("[{dm}]")),
                ("op", "add"),
                ("flag", "read"),
            ],
        )
        .await
        .assert_success("POST /messages/flags");
    while items(&bouncer).len() < before + 2 {
        assert!(std::time::Instant::now() < deadline, "{:?}", bouncer.got());
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let got = items(&bouncer)[before..].to_vec();
    let fcm = item_for(&got, fcm_id);
    assert_eq!(fcm["fcm_priority"], "normal");
    let removal = android.open(fcm["payload"]["encrypted_data"].as_str().unwrap());
    assert_eq!(removal["type"], "remove");
    assert_eq!(removal["message_ids"], json!([dm]));
    assert_eq!(removal["user_id"], o.bob.id);
    let apns = item_for(&got, apns_id);
    assert_eq!(apns["http_headers"]["apns_push_type"], "background");
    assert_eq!(apns["payload"]["aps"], json!({"content-available": 1}));
    assert_eq!(
        iphone.open(apns["payload"]["encrypted_data"].as_str().unwrap()),
        removal
    );
    assert_eq!(bouncer.problems(), Vec::<String>::new());
}

#[tokio::test]
async fn refused_registrations_record_the_error_and_gone_devices_are_deleted() {
    let bouncer = Bouncer::start().await;
    let (o, _) = pushed_org(&bouncer).await;
    let key = bouncer.public_key();
    let fresh = json!({"token_kind": "fcm", "token": "fcm-one", "timestamp": now()});

    // Sealed for another bouncer key, and one a day and more old.
    let wrong = Device::new(1);
    let other_key = b64().encode([7u8; 32]);
    register(
        &o,
        &o.bob,
        &wrong,
        "fcm",
        &other_key,
        &bouncer.seal_registration(&fresh),
    )
    .await;
    let old = Device::new(2);
    let stale = json!({"token_kind": "fcm", "token": "fcm-two", "timestamp": now() - 90_000});
    register(
        &o,
        &o.bob,
        &old,
        "fcm",
        &key,
        &bouncer.seal_registration(&stale),
    )
    .await;
    assert_eq!(
        forwarded(&o, &o.bob, 1).await,
        (None, Some("INVALID_BOUNCER_PUBLIC_KEY".into()))
    );
    assert_eq!(
        forwarded(&o, &o.bob, 2).await,
        (None, Some("REQUEST_EXPIRED".into()))
    );
    let dm = o.send_dm(&o.alice, &[&o.bob], "hello").await;
    let core = &o.srv.state.core;
    let user = UserId(o.bob.id);
    let sent = push::send_message_push(core, user, MessageId(dm), Trigger::DirectMessage, None)
        .await
        .unwrap();
    assert_eq!(sent, PushOutcome::NothingToSend);
    assert!(bouncer.got_at("push/e2ee/notify").is_empty());

    // Registering the first again, for the right key, replaces the refusal.
    register(
        &o,
        &o.bob,
        &wrong,
        "fcm",
        &key,
        &bouncer.seal_registration(&fresh),
    )
    .await;
    bouncer.wait_for("push/e2ee/register", 3).await;
    let id = forwarded(&o, &o.bob, 1).await.0.expect("a device id");
    let sent = push::send_message_push(core, user, MessageId(dm), Trigger::DirectMessage, None)
        .await
        .unwrap();
    assert_eq!(sent, PushOutcome::Sent);

    // The service lost the device (its token expired): its answer deletes it here.
    bouncer.forget_e2ee_device(id);
    let sent = push::send_message_push(core, user, MessageId(dm), Trigger::DirectMessage, None)
        .await
        .unwrap();
    assert_eq!(sent, PushOutcome::Sent);
    let (_, regs) = push::devices_of(&o.srv.state, user).await.unwrap();
    assert_eq!(
        regs.iter().map(|r| r.push_account_id).collect::<Vec<_>>(),
        vec![2],
        "the gone device is deleted; the refused one stays for the app to register again"
    );
    let sent = push::send_message_push(core, user, MessageId(dm), Trigger::DirectMessage, None)
        .await
        .unwrap();
    assert_eq!(sent, PushOutcome::NothingToSend);
    assert_eq!(bouncer.problems(), Vec::<String>::new());

    // A key that is not a 32-byte NaCl key is refused at once, and stores nothing.
    let r = o
        .srv
        .post(
            "/api/v1/mobile_push/register",
            &o.bob,
            &[
                ("token_kind", "fcm"),
                ("push_account_id", "9"),
                ("push_public_key", &b64().encode([1u8; 16])),
                ("bouncer_public_key", &key),
                (
                    "encrypted_push_registration",
                    &bouncer.seal_registration(&fresh),
                ),
            ],
        )
        .await;
    r.assert_error(400, "BAD_REQUEST");
    assert_eq!(r.body["msg"], "Invalid push_public_key");
    let (_, regs) = push::devices_of(&o.srv.state, user).await.unwrap();
    assert_eq!(regs.len(), 1);
}
