//! Channel folders: administrators create, rename, describe and archive them; everyone lists
//! them and hears of changes.

use serde_json::{Value, json};

use crate::support::{Org, Reply, TestUser, org, wait_events};

impl Org {
    async fn create_folder(&self, who: &TestUser, name: &str, description: &str) -> Reply {
        self.srv
            .post(
                "/api/v1/channel_folders/create",
                who,
                &[("name", name), ("description", description)],
            )
            .await
    }

    async fn folders(&self, who: &TestUser, include_archived: bool) -> Vec<Value> {
        let flag = include_archived.to_string();
        let r = self
            .srv
            .get(
                "/api/v1/channel_folders",
                who,
                &[("include_archived", flag.as_str())],
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
        r.body["channel_folders"].as_array().unwrap().clone()
    }
}

fn ok(r: &Reply) -> &Value {
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["result"], "success");
    &r.body
}

#[tokio::test]
async fn administrators_create_folders_everyone_lists_them() {
    let o = org().await;
    let (q, _) = o
        .register(&o.bob, &[("event_types", "[\"channel_folder\"]")])
        .await;
    let r = o
        .create_folder(&o.admin, "Engineering", "All **builders**")
        .await;
    let id = ok(&r)["channel_folder_id"].as_i64().unwrap();
    let listed = o.folders(&o.bob, false).await;
    assert_eq!(listed.len(), 1);
    let f = &listed[0];
    assert_eq!(f["id"], id);
    assert_eq!(f["name"], "Engineering");
    assert_eq!(f["description"], "All **builders**");
    assert_eq!(
        f["rendered_description"],
        "<p>All <strong>builders</strong></p>"
    );
    assert_eq!(f["creator_id"], o.admin.id);
    assert_eq!(f["is_archived"], false);
    assert!(f["date_created"].as_i64().unwrap() > 1_700_000_000);
    let evs = wait_events(&o, &o.bob, &q, 1).await;
    assert_eq!(evs[0]["type"], "channel_folder");
    assert_eq!(evs[0]["op"], "add");
    assert_eq!(evs[0]["channel_folder"], *f);

    // Members may not; bad names and descriptions are refused, and nothing is created.
    let r = o.create_folder(&o.alice, "Mine", "").await;
    assert_eq!(
        r.assert_error(400, "UNAUTHORIZED_PRINCIPAL")["msg"],
        "Must be an organization administrator"
    );
    let long_name = "n".repeat(61);
    let long_description = "d".repeat(1025);
    for (name, description, msg) in [
        ("  ", "", "Channel folder name can't be empty.".to_string()),
        (
            "a\u{7}b",
            "",
            "Invalid character in channel folder name, at position 2.".into(),
        ),
        (
            long_name.as_str(),
            "",
            "name is too long (limit: 60 characters)".into(),
        ),
        (
            "ok",
            long_description.as_str(),
            "description is too long (limit: 1024 characters)".into(),
        ),
        (
            "ENGINEERING",
            "",
            "Channel folder 'ENGINEERING' already exists".into(),
        ),
    ] {
        let r = o.create_folder(&o.admin, name, description).await;
        assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], msg.as_str());
    }
    let r = o
        .srv
        .post(
            "/api/v1/channel_folders/create",
            &o.admin,
            &[("name", "No description")],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "REQUEST_VARIABLE_MISSING")["msg"],
        "Missing 'description' argument"
    );
    assert_eq!(o.folders(&o.admin, true).await.len(), 1);
}

#[tokio::test]
async fn folders_are_renamed_described_archived_and_restored() {
    let o = org().await;
    let id = ok(&o.create_folder(&o.admin, "Ops", "").await)["channel_folder_id"]
        .as_i64()
        .unwrap();
    let other = ok(&o.create_folder(&o.admin, "Design", "").await)["channel_folder_id"]
        .as_i64()
        .unwrap();
    let (q, _) = o
        .register(&o.alice, &[("event_types", "[\"channel_folder\"]")])
        .await;
    let path = format!("/api/v1/channel_folders/{id}");
    let r = o
        .srv
        .patch(
            &path,
            &o.admin,
            &[("name", "Operations"), ("description", "Keep it *up*")],
        )
        .await;
    ok(&r);
    let evs = wait_events(&o, &o.alice, &q, 2).await;
    assert_eq!(
        evs[0],
        json!({"type": "channel_folder", "op": "update", "channel_folder_id": id,
               "data": {"name": "Operations"}, "id": evs[0]["id"]})
    );
    assert_eq!(
        evs[1]["data"],
        json!({"description": "Keep it *up*", "rendered_description": "<p>Keep it <em>up</em></p>"})
    );
    // A clash with another folder's name changes nothing, not even the valid description.
    let r = o
        .srv
        .patch(
            &path,
            &o.admin,
            &[("name", "design"), ("description", "changed")],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Channel folder 'design' already exists"
    );
    let r = o.srv.patch(&path, &o.alice, &[("name", "Mine")]).await;
    r.assert_error(400, "UNAUTHORIZED_PRINCIPAL");
    let r = o
        .srv
        .patch("/api/v1/channel_folders/9999", &o.admin, &[("name", "x")])
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Invalid channel folder ID"
    );

    // Archived folders leave the default list, and their name may be reused.
    ok(&o
        .srv
        .patch(&path, &o.admin, &[("is_archived", "true")])
        .await);
    let names: Vec<Value> = o
        .folders(&o.alice, false)
        .await
        .iter()
        .map(|f| f["name"].clone())
        .collect();
    assert_eq!(names, [json!("Design")]);
    let all = o.folders(&o.alice, true).await;
    assert_eq!(all.len(), 2);
    assert_eq!(all[0]["id"], id);
    assert_eq!(all[0]["is_archived"], true);
    assert_eq!(all[0]["description"], "Keep it *up*");
    ok(&o.create_folder(&o.admin, "Operations", "again").await);
    // Restoring it would clash with the new one.
    let r = o
        .srv
        .patch(&path, &o.admin, &[("is_archived", "false")])
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Channel folder 'Operations' already exists"
    );
    let r = o
        .srv
        .patch(
            &format!("/api/v1/channel_folders/{other}"),
            &o.admin,
            &[("is_archived", "true")],
        )
        .await;
    ok(&r);
}

#[tokio::test]
async fn channels_sit_in_folders_and_a_folder_in_use_stays() {
    let o = org().await;
    let folder = ok(&o.create_folder(&o.admin, "Teams", "").await)["channel_folder_id"]
        .as_i64()
        .unwrap();
    let folder_s = folder.to_string();
    // Created in the folder.
    let ch = o
        .channel(
            &o.admin,
            "backend",
            &[&o.admin, &o.bob],
            &[("folder_id", folder_s.as_str())],
        )
        .await;
    let r = o
        .srv
        .get(&format!("/api/v1/streams/{ch}"), &o.bob, &[])
        .await;
    assert_eq!(
        r.assert_success("GET /streams/{stream_id}")["stream"]["folder_id"],
        folder
    );
    // No channel goes into a folder that does not exist.
    let r = o
        .srv
        .post(
            "/api/v1/channels/create",
            &o.admin,
            &[
                ("name", "nowhere"),
                ("subscribers", "[]"),
                ("folder_id", "9999"),
            ],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Invalid channel folder ID"
    );
    assert!(
        !o.stream_names(&o.admin)
            .await
            .contains(&"nowhere".to_string())
    );

    let folder_path = format!("/api/v1/channel_folders/{folder}");
    let r = o
        .srv
        .patch(&folder_path, &o.admin, &[("is_archived", "true")])
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "You need to remove all the channels from this folder to archive it."
    );
    // Taken out of the folder (everyone who sees the channel hears of it), the folder can go.
    let (q, _) = o.register(&o.bob, &[("event_types", "[\"stream\"]")]).await;
    let stream_path = format!("/api/v1/streams/{ch}");
    o.srv
        .patch(&stream_path, &o.admin, &[("folder_id", "null")])
        .await
        .assert_success("PATCH /streams/{stream_id}");
    let evs = wait_events(&o, &o.bob, &q, 1).await;
    assert_eq!(evs[0]["property"], "folder_id");
    assert_eq!(evs[0]["value"], Value::Null);
    ok(&o
        .srv
        .patch(&folder_path, &o.admin, &[("is_archived", "true")])
        .await);
    // An archived folder takes no channels.
    let r = o
        .srv
        .patch(&stream_path, &o.admin, &[("folder_id", folder_s.as_str())])
        .await;
    assert_eq!(
        r.assert_error(400, "BAD_REQUEST")["msg"],
        "Invalid channel folder ID"
    );
    let r = o.srv.get(&stream_path, &o.bob, &[]).await;
    assert_eq!(
        r.assert_success("GET /streams/{stream_id}")["stream"]["folder_id"],
        Value::Null
    );
}
