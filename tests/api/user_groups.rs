//! User groups as a client uses them: members create, list, edit, join, leave, nest and
//! deactivate groups; everyone hears of it; permissions given to a group reach the members of
//! its nested subgroups; mentions, user deactivation and role changes keep groups in step.

use serde_json::{Value, json};

use crate::support::{Org, Reply, TestUser, org, wait_events};

/// The system groups' fixed ids.
const NOBODY: i64 = 1;
const ADMINISTRATORS: i64 = 3;
const FULL_MEMBERS: i64 = 5;
const MEMBERS: i64 = 6;
const EVERYONE: i64 = 7;

impl Org {
    async fn create_group(&self, who: &TestUser, name: &str, members: &[&TestUser]) -> Reply {
        self.create_group_with(who, name, members, &[]).await
    }

    async fn create_group_with(
        &self,
        who: &TestUser,
        name: &str,
        members: &[&TestUser],
        extra: &[(&str, &str)],
    ) -> Reply {
        let ids = json!(members.iter().map(|u| u.id).collect::<Vec<_>>()).to_string();
        let mut form = vec![
            ("name", name),
            ("description", "A group"),
            ("members", ids.as_str()),
        ];
        form.extend_from_slice(extra);
        self.srv
            .post("/api/v1/user_groups/create", who, &form)
            .await
    }

    async fn new_group(&self, who: &TestUser, name: &str, members: &[&TestUser]) -> i64 {
        let r = self.create_group(who, name, members).await;
        r.assert_success("POST /user_groups/create")["group_id"]
            .as_i64()
            .unwrap()
    }

    async fn groups(&self, who: &TestUser, include_deactivated: bool) -> Vec<Value> {
        let flag = include_deactivated.to_string();
        let r = self
            .srv
            .get(
                "/api/v1/user_groups",
                who,
                &[("include_deactivated_groups", flag.as_str())],
            )
            .await;
        r.assert_success("GET /user_groups")["user_groups"]
            .as_array()
            .unwrap()
            .clone()
    }

    async fn group(&self, id: i64) -> Value {
        self.groups(&self.admin, true)
            .await
            .into_iter()
            .find(|g| g["id"] == id)
            .unwrap_or_else(|| panic!("no group {id}"))
    }

    async fn members_post(&self, who: &TestUser, id: i64, form: &[(&str, &str)]) -> Reply {
        self.srv
            .post(&format!("/api/v1/user_groups/{id}/members"), who, form)
            .await
    }

    async fn subgroups_post(&self, who: &TestUser, id: i64, form: &[(&str, &str)]) -> Reply {
        self.srv
            .post(&format!("/api/v1/user_groups/{id}/subgroups"), who, form)
            .await
    }

    async fn group_patch(&self, who: &TestUser, id: i64, form: &[(&str, &str)]) -> Reply {
        self.srv
            .patch(&format!("/api/v1/user_groups/{id}"), who, form)
            .await
    }

    async fn group_members(&self, who: &TestUser, id: i64, direct: bool) -> Vec<i64> {
        let flag = direct.to_string();
        let r = self
            .srv
            .get(
                &format!("/api/v1/user_groups/{id}/members"),
                who,
                &[("direct_member_only", flag.as_str())],
            )
            .await;
        ids(&r.assert_success("GET /user_groups/{user_group_id}/members")["members"])
    }
}

fn ids(v: &Value) -> Vec<i64> {
    let mut out: Vec<i64> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect();
    out.sort_unstable();
    out
}

fn ok(r: &Reply) {
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["result"], "success", "{}", r.body);
}

fn bad(r: &Reply, msg: &str) {
    assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], msg);
}

#[tokio::test]
async fn members_create_groups_that_carry_every_field_and_everyone_hears_of_them() {
    let o = org().await;
    let (q, _) = o
        .register(&o.bob, &[("event_types", r#"["user_group"]"#)])
        .await;
    let r = o
        .create_group_with(
            &o.alice,
            "backend",
            &[&o.alice, &o.bob],
            &[("can_join_group", &MEMBERS.to_string())],
        )
        .await;
    let id = r.assert_success("POST /user_groups/create")["group_id"]
        .as_i64()
        .unwrap();
    let g = o.group(id).await;
    assert_eq!(g["name"], "backend");
    assert_eq!(g["description"], "A group");
    assert_eq!(ids(&g["members"]), vec![o.alice.id, o.bob.id]);
    assert_eq!(g["direct_subgroup_ids"], json!([]));
    assert_eq!(g["creator_id"], o.alice.id);
    assert!(g["date_created"].as_i64().unwrap() > 1_700_000_000);
    assert_eq!(g["is_system_group"], false);
    assert_eq!(g["deactivated"], false);
    let creator = json!({"direct_members": [o.alice.id], "direct_subgroups": []});
    assert_eq!(g["can_manage_group"], creator);
    assert_eq!(g["can_add_members_group"], creator);
    assert_eq!(g["can_join_group"], MEMBERS);
    assert_eq!(g["can_leave_group"], EVERYONE);
    assert_eq!(g["can_mention_group"], EVERYONE);
    assert_eq!(g["can_remove_members_group"], NOBODY);

    let evs = wait_events(&o, &o.bob, &q, 1).await;
    assert_eq!(evs[0]["type"], "user_group");
    assert_eq!(evs[0]["op"], "add");
    assert_eq!(evs[0]["group"], g);

    // The system groups are listed too, with members that follow roles.
    let all = o.groups(&o.bob, false).await;
    let by_name = |n: &str| all.iter().find(|g| g["name"] == n).unwrap().clone();
    assert_eq!(
        ids(&by_name("role:administrators")["members"]),
        vec![o.admin.id]
    );
    assert_eq!(
        ids(&by_name("role:fullmembers")["members"]),
        vec![o.alice.id, o.bob.id]
    );
    assert_eq!(by_name("role:members")["direct_subgroup_ids"], json!([5]));

    // Register lists the named group the same way.
    let (_, b) = o
        .register(
            &o.alice,
            &[("fetch_event_types", r#"["realm_user_groups"]"#)],
        )
        .await;
    let listed = b["realm_user_groups"].as_array().unwrap();
    assert_eq!(listed.len(), 9);
    assert_eq!(listed.iter().find(|x| x["id"] == id).unwrap(), &g);
}

#[tokio::test]
async fn guests_bots_and_members_without_permission_are_refused() {
    let o = org().await;
    let r = o.srv.get("/api/v1/user_groups", &o.guest, &[]).await;
    bad(&r, "Not allowed for guest users");
    let r = o.create_group(&o.guest, "g", &[&o.guest]).await;
    bad(&r, "Not allowed for guest users");
    let bot = o
        .srv
        .user(
            "bot@example.com",
            "Helper Bot",
            outpost::model::Role::Member,
        )
        .await;
    let bot_id = bot.id;
    o.srv
        .state
        .db
        .write(move |tx| {
            tx.execute(
                "UPDATE users SET is_bot = 1, bot_type = 1 WHERE id = ?1",
                [bot_id],
            )?;
            Ok(())
        })
        .await
        .unwrap();
    let r = o.srv.get("/api/v1/user_groups", &bot, &[]).await;
    bad(&r, "This endpoint does not accept bot requests.");

    // Only the creator (can_manage_group) and holders of the organization's
    // can_manage_all_groups (owners by default) manage a group.
    let id = o.new_group(&o.alice, "alices", &[&o.alice]).await;
    let r = o.group_patch(&o.bob, id, &[("name", "bobs")]).await;
    bad(&r, "Insufficient permission");
    let r = o
        .srv
        .post(&format!("/api/v1/user_groups/{id}/deactivate"), &o.bob, &[])
        .await;
    bad(&r, "Insufficient permission");
    bad(
        &o.group_patch(&o.admin, id, &[("name", "renamed")]).await,
        "Insufficient permission",
    );
    ok(&o.group_patch(&o.owner, id, &[("name", "renamed")]).await);
    assert_eq!(o.group(id).await["name"], "renamed");

    // can_create_groups decides who creates groups.
    let r = o
        .srv
        .patch(
            "/api/v1/realm",
            &o.owner,
            &[(
                "can_create_groups",
                &json!({"new": ADMINISTRATORS}).to_string(),
            )],
        )
        .await;
    ok(&r);
    let r = o.create_group(&o.bob, "bobs", &[&o.bob]).await;
    bad(&r, "Insufficient permission");
    assert!(
        o.groups(&o.admin, true)
            .await
            .iter()
            .all(|g| g["name"] != "bobs")
    );
}

#[tokio::test]
async fn editing_checks_every_change_and_reports_each() {
    let o = org().await;
    let id = o.new_group(&o.alice, "docs", &[&o.alice]).await;
    let (q, _) = o
        .register(&o.bob, &[("event_types", r#"["user_group"]"#)])
        .await;
    let setting = json!({
        "new": {"direct_members": [o.bob.id], "direct_subgroups": [ADMINISTRATORS]},
        "old": EVERYONE,
    });
    let r = o
        .group_patch(
            &o.alice,
            id,
            &[
                ("name", "documentation"),
                ("description", "Writers"),
                ("can_mention_group", &setting.to_string()),
            ],
        )
        .await;
    r.assert_success("PATCH /user_groups/{user_group_id}");
    let g = o.group(id).await;
    assert_eq!(g["name"], "documentation");
    assert_eq!(g["description"], "Writers");
    assert_eq!(
        g["can_mention_group"],
        json!({"direct_members": [o.bob.id], "direct_subgroups": [ADMINISTRATORS]})
    );
    let evs = wait_events(&o, &o.bob, &q, 3).await;
    assert_eq!(evs[0]["op"], "update");
    assert_eq!(evs[0]["group_id"], id);
    assert_eq!(evs[0]["data"], json!({"name": "documentation"}));
    assert_eq!(evs[1]["data"], json!({"description": "Writers"}));
    assert_eq!(
        evs[2]["data"],
        json!({"can_mention_group": g["can_mention_group"]})
    );

    // A stale `old` value, bad values and bad names change nothing.
    let before = o.group(id).await;
    let stale = json!({"new": NOBODY, "old": EVERYONE}).to_string();
    let r = o
        .group_patch(
            &o.alice,
            id,
            &[("name", "other"), ("can_mention_group", &stale)],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "EXPECTATION_MISMATCH")["msg"],
        "'old' value does not match the expected value."
    );
    let long = "n".repeat(101);
    o.new_group(&o.alice, "taken", &[]).await;
    let cases: Vec<(Vec<(&str, String)>, String)> = vec![
        (vec![], "No new data supplied".into()),
        (
            vec![("name", long.clone())],
            "User group name cannot exceed 100 characters.".into(),
        ),
        (
            vec![("name", " ".into())],
            "User group name can't be empty!".into(),
        ),
        (
            vec![("name", "role:mine".into())],
            "User group name cannot start with 'role:'.".into(),
        ),
        (
            vec![("name", "TAKEN".into())],
            "User group 'TAKEN' already exists.".into(),
        ),
        (
            vec![("description", "d".repeat(1025))],
            "User group description cannot exceed 1024 characters.".into(),
        ),
        (
            vec![("can_manage_group", json!({"new": EVERYONE}).to_string())],
            "'can_manage_group' setting cannot be set to 'role:everyone' group.".into(),
        ),
        (
            vec![("can_mention_group", json!({"new": 8}).to_string())],
            "'can_mention_group' setting cannot be set to 'role:internet' group.".into(),
        ),
        (
            vec![("can_mention_group", json!({"new": 2}).to_string())],
            "'can_mention_group' setting cannot be set to 'role:owners' group.".into(),
        ),
        (
            vec![("can_mention_group", json!({"new": 999}).to_string())],
            "Invalid user group ID: 999".into(),
        ),
        (
            vec![(
                "can_mention_group",
                json!({"new": {"direct_members": [9999], "direct_subgroups": []}}).to_string(),
            )],
            "Invalid user ID: 9999".into(),
        ),
    ];
    for (form, msg) in cases {
        let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
        bad(&o.group_patch(&o.alice, id, &form).await, &msg);
    }
    assert_eq!(o.group(id).await, before);

    // System groups and unknown groups cannot be edited.
    let r = o
        .group_patch(&o.owner, ADMINISTRATORS, &[("name", "admins")])
        .await;
    bad(&r, "Insufficient permission");
    let r = o.group_patch(&o.owner, 9999, &[("name", "x")]).await;
    bad(&r, "Invalid user group");
}

#[tokio::test]
async fn creation_refuses_bad_input_and_creates_nothing() {
    let o = org().await;
    let base = o.groups(&o.admin, true).await;
    let old = o.new_group(&o.alice, "old", &[&o.alice]).await;
    let r = o
        .srv
        .post(
            &format!("/api/v1/user_groups/{old}/deactivate"),
            &o.alice,
            &[],
        )
        .await;
    r.assert_success("POST /user_groups/{user_group_id}/deactivate");
    let before = o.groups(&o.admin, true).await;
    assert_eq!(before.len(), base.len() + 1);
    let cases: Vec<(Vec<(&str, String)>, String)> = vec![
        (
            vec![("name", "x".repeat(101))],
            "User group name cannot exceed 100 characters.".into(),
        ),
        (
            vec![("name", "".into())],
            "User group name can't be empty!".into(),
        ),
        (
            vec![("name", "channel:x".into())],
            "User group name cannot start with 'channel:'.".into(),
        ),
        (
            vec![("name", "OLD".into())],
            "User group 'OLD' already exists.".into(),
        ),
        (
            vec![("members", "[9999]".into())],
            "Invalid user ID: 9999".into(),
        ),
        (
            vec![("subgroups", "[9999]".into())],
            "Invalid user group ID: 9999".into(),
        ),
        (
            vec![("subgroups", format!("[{old}]"))],
            "User group is deactivated.".into(),
        ),
        (
            vec![("can_mention_group", old.to_string())],
            "User group is deactivated.".into(),
        ),
        (
            vec![("can_join_group", EVERYONE.to_string())],
            "'can_join_group' setting cannot be set to 'role:everyone' group.".into(),
        ),
    ];
    for (over, msg) in cases {
        let mut form: Vec<(&str, String)> = vec![
            ("name", "fresh".into()),
            ("description", "".into()),
            ("members", "[]".into()),
        ];
        for (k, v) in over {
            match form.iter_mut().find(|(n, _)| *n == k) {
                Some(slot) => slot.1 = v,
                None => form.push((k, v)),
            }
        }
        let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let r = o
            .srv
            .post("/api/v1/user_groups/create", &o.alice, &form)
            .await;
        bad(&r, &msg);
    }
    let r = o
        .srv
        .post(
            "/api/v1/user_groups/create",
            &o.alice,
            &[("name", "fresh"), ("description", "")],
        )
        .await;
    assert_eq!(
        r.assert_error(400, "REQUEST_VARIABLE_MISSING")["msg"],
        "Missing 'members' argument"
    );
    assert_eq!(o.groups(&o.admin, true).await, before);
}

/// What Notification Bot told `who` in direct messages, oldest first (as typed).
async fn notices_to(o: &Org, who: &TestUser) -> Vec<String> {
    let r = o
        .fetch(
            who,
            &[
                ("anchor", "newest"),
                ("num_before", "50"),
                ("num_after", "0"),
                ("narrow", r#"[["is", "dm"]]"#),
                ("apply_markdown", "false"),
            ],
        )
        .await;
    r.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["sender_email"] == "notification-bot@zulip.com")
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn members_join_and_leave_under_the_groups_own_permissions() {
    let o = org().await;
    let id = o.new_group(&o.alice, "open", &[&o.alice]).await;
    let (q, _) = o
        .register(&o.admin, &[("event_types", r#"["user_group"]"#)])
        .await;
    let me = |u: &TestUser| format!("[{}]", u.id);

    // Joining is can_join_group (nobody by default); adding others can_add_members_group.
    let r = o.members_post(&o.bob, id, &[("add", &me(&o.bob))]).await;
    bad(&r, "Insufficient permission");
    let join = json!({"new": MEMBERS}).to_string();
    ok(&o
        .group_patch(&o.alice, id, &[("can_join_group", &join)])
        .await);
    let r = o.members_post(&o.bob, id, &[("add", &me(&o.bob))]).await;
    r.assert_success("POST /user_groups/{user_group_id}/members");
    let r = o.members_post(&o.bob, id, &[("add", &me(&o.guest))]).await;
    bad(&r, "Insufficient permission");
    let r = o.members_post(&o.alice, id, &[("add", &me(&o.bob))]).await;
    bad(
        &r,
        &format!("User {} is already a member of this group", o.bob.id),
    );
    let r = o.members_post(&o.alice, id, &[("add", "[9999]")]).await;
    bad(&r, "Invalid user ID: 9999");
    let r = o.members_post(&o.alice, id, &[("delete", "[9999]")]).await;
    bad(&r, "Invalid user ID: 9999");
    // One bad part refuses the whole request.
    let r = o
        .members_post(
            &o.alice,
            id,
            &[("add", &me(&o.guest)), ("add_subgroups", "[9999]")],
        )
        .await;
    bad(&r, "Invalid user group ID: 9999");
    let r = o
        .members_post(&o.alice, id, &[("delete", &me(&o.guest))])
        .await;
    bad(
        &r,
        &format!("There is no member '{}' in this user group", o.guest.id),
    );
    let r = o.members_post(&o.alice, id, &[]).await;
    bad(
        &r,
        "Nothing to do. Specify at least one of \"add\", \"delete\", \"add_subgroups\" or \"delete_subgroups\".",
    );
    assert_eq!(
        o.group_members(&o.bob, id, true).await,
        vec![o.alice.id, o.bob.id]
    );

    // Leaving is can_leave_group (everyone by default); removing others is not.
    let r = o
        .members_post(&o.bob, id, &[("delete", &me(&o.alice))])
        .await;
    bad(&r, "Insufficient permission");
    let nobody = json!({"new": NOBODY}).to_string();
    ok(&o
        .group_patch(&o.alice, id, &[("can_leave_group", &nobody)])
        .await);
    let r = o.members_post(&o.bob, id, &[("delete", &me(&o.bob))]).await;
    bad(&r, "Insufficient permission");
    let everyone = json!({"new": EVERYONE}).to_string();
    ok(&o
        .group_patch(&o.alice, id, &[("can_leave_group", &everyone)])
        .await);
    ok(&o.members_post(&o.bob, id, &[("delete", &me(&o.bob))]).await);
    assert_eq!(o.group_members(&o.bob, id, true).await, vec![o.alice.id]);

    let evs = wait_events(&o, &o.admin, &q, 5).await;
    let ops: Vec<(&str, Value)> = evs
        .iter()
        .map(|e| (e["op"].as_str().unwrap(), e["user_ids"].clone()))
        .collect();
    assert_eq!(
        ops,
        vec![
            ("update", Value::Null),
            ("add_members", json!([o.bob.id])),
            ("update", Value::Null),
            ("update", Value::Null),
            ("remove_members", json!([o.bob.id])),
        ]
    );

    // Those added or removed by someone else hear it from Notification Bot.
    let both = format!("[{}, {}]", o.bob.id, o.guest.id);
    ok(&o.members_post(&o.alice, id, &[("add", &both)]).await);
    ok(&o
        .members_post(&o.alice, id, &[("delete", &me(&o.guest))])
        .await);
    let added = format!(
        "@_**Alice Ant|{}** added you to the group @_*open*.",
        o.alice.id
    );
    let removed = format!(
        "@_**Alice Ant|{}** removed you from the group @_*open*.",
        o.alice.id
    );
    assert_eq!(notices_to(&o, &o.bob).await, vec![added.clone()]);
    assert_eq!(notices_to(&o, &o.guest).await, vec![added, removed]);
    assert!(notices_to(&o, &o.alice).await.is_empty());

    // Membership of one user.
    let r = o
        .srv
        .get(
            &format!("/api/v1/user_groups/{id}/members/{}", o.alice.id),
            &o.bob,
            &[],
        )
        .await;
    assert_eq!(
        r.assert_success("GET /user_groups/{user_group_id}/members/{user_id}")["is_user_group_member"],
        true
    );
    let r = o
        .srv
        .get(
            &format!("/api/v1/user_groups/{id}/members/{}", o.guest.id),
            &o.bob,
            &[],
        )
        .await;
    assert_eq!(r.body["is_user_group_member"], false);
}

#[tokio::test]
async fn subgroups_nest_without_cycles_and_members_come_through_them() {
    let o = org().await;
    let (q, _) = o
        .register(&o.bob, &[("event_types", r#"["user_group"]"#)])
        .await;
    let outer = o.new_group(&o.alice, "outer", &[&o.alice]).await;
    let inner = o.new_group(&o.alice, "inner", &[&o.bob]).await;
    let leaf = o.new_group(&o.alice, "leaf", &[&o.guest]).await;
    let r = o
        .subgroups_post(&o.alice, outer, &[("add", &format!("[{inner}]"))])
        .await;
    r.assert_success("POST /user_groups/{user_group_id}/subgroups");
    ok(&o
        .members_post(&o.alice, inner, &[("add_subgroups", &format!("[{leaf}]"))])
        .await);

    // A group cannot contain itself, directly or through its subgroups.
    let before = o.groups(&o.admin, true).await;
    for (group, sub) in [(leaf, outer), (inner, outer), (outer, outer)] {
        let r = o
            .subgroups_post(&o.alice, group, &[("add", &format!("[{sub}]"))])
            .await;
        bad(
            &r,
            &format!("User group {group} is already a subgroup of one of the passed subgroups."),
        );
    }
    let r = o
        .subgroups_post(&o.alice, outer, &[("add", &format!("[{inner}]"))])
        .await;
    bad(
        &r,
        &format!("User group {inner} is already a subgroup of this group."),
    );
    let r = o
        .subgroups_post(&o.alice, outer, &[("delete", &format!("[{leaf}]"))])
        .await;
    bad(
        &r,
        &format!("User group {leaf} is not a subgroup of this group."),
    );
    let r = o
        .subgroups_post(&o.alice, outer, &[("add", "[9999]")])
        .await;
    bad(&r, "Invalid user group ID: 9999");
    let r = o.subgroups_post(&o.alice, outer, &[]).await;
    bad(
        &r,
        "Nothing to do. Specify at least one of \"add\" or \"delete\".",
    );
    let r = o
        .subgroups_post(&o.owner, MEMBERS, &[("add", &format!("[{leaf}]"))])
        .await;
    bad(&r, "Insufficient permission");
    assert_eq!(o.groups(&o.admin, true).await, before);

    // Members and subgroups, direct and through nesting.
    assert_eq!(
        o.group_members(&o.bob, outer, false).await,
        vec![o.alice.id, o.bob.id, o.guest.id]
    );
    assert_eq!(o.group_members(&o.bob, outer, true).await, vec![o.alice.id]);
    let sub = |direct: &'static str| {
        let o = &o;
        async move {
            let r = o
                .srv
                .get(
                    &format!("/api/v1/user_groups/{outer}/subgroups"),
                    &o.bob,
                    &[("direct_subgroup_only", direct)],
                )
                .await;
            ids(&r.assert_success("GET /user_groups/{user_group_id}/subgroups")["subgroups"])
        }
    };
    assert_eq!(sub("false").await, vec![inner, leaf]);
    assert_eq!(sub("true").await, vec![inner]);
    let r = o
        .srv
        .get(
            &format!("/api/v1/user_groups/{outer}/members/{}", o.guest.id),
            &o.bob,
            &[],
        )
        .await;
    assert_eq!(r.body["is_user_group_member"], true);
    // System groups nest by role.
    assert_eq!(
        o.group_members(&o.bob, MEMBERS, false).await,
        vec![o.owner.id, o.admin.id, o.alice.id, o.bob.id]
    );
    assert!(o.group_members(&o.bob, MEMBERS, true).await.is_empty());
    assert_eq!(
        o.group_members(&o.bob, FULL_MEMBERS, true).await,
        vec![o.alice.id, o.bob.id]
    );

    ok(&o
        .subgroups_post(&o.alice, outer, &[("delete", &format!("[{inner}]"))])
        .await);
    assert_eq!(
        o.group_members(&o.bob, outer, false).await,
        vec![o.alice.id]
    );
    let evs = wait_events(&o, &o.bob, &q, 6).await;
    let ops: Vec<(&str, Value)> = evs
        .iter()
        .map(|e| (e["op"].as_str().unwrap(), e["direct_subgroup_ids"].clone()))
        .collect();
    assert_eq!(
        ops[3..],
        [
            ("add_subgroups", json!([inner])),
            ("add_subgroups", json!([leaf])),
            ("remove_subgroups", json!([inner])),
        ]
    );

    // can_add_members_group lets one add subgroups; only managers remove them (holding
    // can_remove_members_group is not enough).
    let v = json!({"new": MEMBERS}).to_string();
    ok(&o
        .group_patch(
            &o.alice,
            outer,
            &[
                ("can_add_members_group", &v),
                ("can_remove_members_group", &v),
            ],
        )
        .await);
    ok(&o
        .subgroups_post(&o.bob, outer, &[("add", &format!("[{inner}]"))])
        .await);
    let r = o
        .subgroups_post(&o.bob, outer, &[("delete", &format!("[{inner}]"))])
        .await;
    bad(&r, "Insufficient permission");
    let r = o
        .members_post(
            &o.bob,
            outer,
            &[("delete_subgroups", &format!("[{inner}]"))],
        )
        .await;
    bad(&r, "Insufficient permission");
    assert_eq!(o.group(outer).await["direct_subgroup_ids"], json!([inner]));
}

#[tokio::test]
async fn groups_in_use_stay_active_and_deactivation_is_told_per_capability() {
    let o = org().await;
    let id = o.new_group(&o.alice, "ops", &[&o.alice]).await;
    let other = o.new_group(&o.alice, "other", &[&o.bob]).await;
    let ch = o.channel(&o.alice, "ops room", &[&o.alice], &[]).await;
    let setting = json!({"new": id}).to_string();
    ok(&o
        .srv
        .patch(
            "/api/v1/realm",
            &o.owner,
            &[("can_create_groups", &setting)],
        )
        .await);
    ok(&o
        .srv
        .patch(
            &format!("/api/v1/streams/{ch}"),
            &o.alice,
            &[("can_send_message_group", &setting)],
        )
        .await);
    let anonymous =
        json!({"new": {"direct_members": [o.bob.id], "direct_subgroups": [id]}}).to_string();
    ok(&o
        .group_patch(&o.alice, other, &[("can_mention_group", &anonymous)])
        .await);
    let deactivate = |who: &TestUser, g: i64| {
        let o = &o;
        let who = who.clone();
        async move {
            o.srv
                .post(&format!("/api/v1/user_groups/{g}/deactivate"), &who, &[])
                .await
        }
    };
    let r = deactivate(&o.alice, id).await;
    let b = r.assert_error(400, "CANNOT_DEACTIVATE_GROUP_IN_USE");
    assert_eq!(b["msg"], "Cannot deactivate user group in use.");
    assert_eq!(
        b["objections"],
        json!([
            {"type": "realm", "settings": ["can_create_groups"]},
            {"type": "channel", "channel_id": ch, "settings": ["can_send_message_group"]},
            {"type": "user_group", "group_id": other, "settings": ["can_mention_group"]},
        ])
    );
    assert_eq!(o.group(id).await["deactivated"], false);

    // Freed from every setting, it deactivates; clients hear per their capability.
    for (path, form) in [
        ("/api/v1/realm".to_string(), ("can_create_groups", MEMBERS)),
        (
            format!("/api/v1/streams/{ch}"),
            ("can_send_message_group", EVERYONE),
        ),
    ] {
        let v = json!({"new": form.1}).to_string();
        ok(&o.srv.patch(&path, &o.owner, &[(form.0, &v)]).await);
    }
    let v = json!({"new": EVERYONE}).to_string();
    ok(&o
        .group_patch(&o.alice, other, &[("can_mention_group", &v)])
        .await);
    let (with, _) = o
        .register(
            &o.bob,
            &[
                ("event_types", r#"["user_group"]"#),
                (
                    "client_capabilities",
                    r#"{"include_deactivated_groups": true}"#,
                ),
            ],
        )
        .await;
    let (without, _) = o
        .register(&o.bob, &[("event_types", r#"["user_group"]"#)])
        .await;
    deactivate(&o.alice, id)
        .await
        .assert_success("POST /user_groups/{user_group_id}/deactivate");
    let r = deactivate(&o.alice, id).await;
    bad(&r, "User group is already deactivated.");
    let e = &wait_events(&o, &o.bob, &with, 1).await[0];
    assert_eq!(
        (e["op"].clone(), e["group_id"].clone(), e["data"].clone()),
        (json!("update"), json!(id), json!({"deactivated": true}))
    );
    let e = &wait_events(&o, &o.bob, &without, 1).await[0];
    assert_eq!(
        (e["op"].clone(), e["group_id"].clone()),
        (json!("remove"), json!(id))
    );

    // Listings and register show it only when asked.
    assert!(o.groups(&o.bob, false).await.iter().all(|g| g["id"] != id));
    assert_eq!(o.group(id).await["deactivated"], true);
    let listed = |b: &Value| {
        b["realm_user_groups"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["id"] == id)
    };
    let (_, b) = o
        .register(&o.bob, &[("fetch_event_types", r#"["realm_user_groups"]"#)])
        .await;
    assert!(!listed(&b));
    let (_, b) = o
        .register(
            &o.bob,
            &[
                ("fetch_event_types", r#"["realm_user_groups"]"#),
                (
                    "client_capabilities",
                    r#"{"include_deactivated_groups": true}"#,
                ),
            ],
        )
        .await;
    assert!(listed(&b));

    // A deactivated group can be used for nothing.
    let r = o
        .srv
        .patch(
            &format!("/api/v1/streams/{ch}"),
            &o.alice,
            &[("can_send_message_group", &setting)],
        )
        .await;
    bad(&r, "User group is deactivated.");
    let r = o
        .subgroups_post(&o.alice, other, &[("add", &format!("[{id}]"))])
        .await;
    bad(&r, "User group is deactivated.");
    // Its members and subgroups may still change.
    ok(&o
        .members_post(&o.alice, id, &[("add", &format!("[{}]", o.bob.id))])
        .await);
    ok(&o
        .subgroups_post(&o.alice, id, &[("add", &format!("[{other}]"))])
        .await);
    let r = deactivate(&o.alice, ADMINISTRATORS).await;
    bad(&r, "Insufficient permission");
    let r = deactivate(&o.alice, 9999).await;
    bad(&r, "Invalid user group");
}

#[tokio::test]
async fn permissions_given_to_a_group_reach_its_nested_members_at_once() {
    let o = org().await;
    let writers = o.new_group(&o.alice, "writers", &[&o.alice]).await;
    let guests = o.new_group(&o.alice, "guest writers", &[]).await;
    ok(&o
        .subgroups_post(&o.alice, writers, &[("add", &format!("[{guests}]"))])
        .await);
    o.channel(&o.alice, "news", &[&o.alice, &o.bob, &o.guest], &[])
        .await;
    let ch = o
        .srv
        .get("/api/v1/get_stream_id", &o.alice, &[("stream", "news")])
        .await
        .body["stream_id"]
        .as_i64()
        .unwrap();
    let v = json!({"new": writers}).to_string();
    ok(&o
        .srv
        .patch(
            &format!("/api/v1/streams/{ch}"),
            &o.alice,
            &[("can_send_message_group", &v)],
        )
        .await);
    let send = |who: &TestUser| {
        let o = &o;
        let who = who.clone();
        async move {
            o.srv
                .post(
                    "/api/v1/messages",
                    &who,
                    &[
                        ("type", "stream"),
                        ("to", "news"),
                        ("topic", "t"),
                        ("content", "hi"),
                    ],
                )
                .await
        }
    };
    ok(&send(&o.alice).await);
    let refused = |r: Reply| {
        assert_eq!(r.status, 400, "{}", r.body);
        assert_eq!(r.body["result"], "error");
    };
    refused(send(&o.guest).await);
    // Joining the nested group gives the permission at once, leaving takes it away.
    let me = format!("[{}]", o.guest.id);
    ok(&o.members_post(&o.alice, guests, &[("add", &me)]).await);
    ok(&send(&o.guest).await);
    ok(&o.members_post(&o.alice, guests, &[("delete", &me)]).await);
    refused(send(&o.guest).await);

    // The organization's settings too: can_create_groups held through a subgroup.
    let v = json!({"new": writers}).to_string();
    ok(&o
        .srv
        .patch("/api/v1/realm", &o.owner, &[("can_create_groups", &v)])
        .await);
    bad(
        &o.create_group(&o.bob, "bobs", &[]).await,
        "Insufficient permission",
    );
    let me = format!("[{}]", o.bob.id);
    ok(&o.members_post(&o.alice, guests, &[("add", &me)]).await);
    o.new_group(&o.bob, "bobs", &[]).await;

    // And each group's own: managing through a group named in can_manage_group.
    let managed = o.new_group(&o.alice, "managed", &[]).await;
    let v = json!({"new": {"direct_members": [], "direct_subgroups": [writers]}}).to_string();
    ok(&o
        .group_patch(&o.alice, managed, &[("can_manage_group", &v)])
        .await);
    ok(&o
        .group_patch(&o.bob, managed, &[("description", "by bob")])
        .await);
    bad(
        &o.group_patch(&o.guest, managed, &[("description", "x")])
            .await,
        "Not allowed for guest users",
    );
}

#[tokio::test]
async fn deactivating_a_user_removes_them_from_groups_and_roles_move_system_groups() {
    let o = org().await;
    let id = o.new_group(&o.alice, "team", &[&o.alice, &o.bob]).await;
    let (q, _) = o
        .register(&o.admin, &[("event_types", r#"["user_group"]"#)])
        .await;
    ok(&o
        .srv
        .delete(&format!("/api/v1/users/{}", o.bob.id), &o.admin, &[])
        .await);
    let evs = wait_events(&o, &o.admin, &q, 2).await;
    let got: Vec<(Value, Value, Value)> = evs
        .iter()
        .map(|e| {
            (
                e["op"].clone(),
                e["group_id"].clone(),
                e["user_ids"].clone(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (json!("remove_members"), json!(id), json!([o.bob.id])),
            (
                json!("remove_members"),
                json!(FULL_MEMBERS),
                json!([o.bob.id])
            ),
        ]
    );
    assert_eq!(o.group_members(&o.alice, id, true).await, vec![o.alice.id]);
    // A deactivated user's new role moves no system group; reactivated, they join their role's
    // group but not the named group.
    ok(&o
        .srv
        .patch(
            &format!("/api/v1/users/{}", o.bob.id),
            &o.owner,
            &[("role", "300")],
        )
        .await);
    ok(&o
        .srv
        .post(
            &format!("/api/v1/users/{}/reactivate", o.bob.id),
            &o.admin,
            &[],
        )
        .await);
    assert_eq!(o.group_members(&o.alice, id, true).await, vec![o.alice.id]);
    let r = o
        .srv
        .patch(
            &format!("/api/v1/users/{}", o.alice.id),
            &o.owner,
            &[("role", "300")],
        )
        .await;
    ok(&r);
    let evs = wait_events(&o, &o.admin, &q, 5).await;
    let got: Vec<(Value, Value, Value)> = evs[2..]
        .iter()
        .map(|e| {
            (
                e["op"].clone(),
                e["group_id"].clone(),
                e["user_ids"].clone(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (json!("add_members"), json!(4), json!([o.bob.id])),
            (
                json!("remove_members"),
                json!(FULL_MEMBERS),
                json!([o.alice.id])
            ),
            (json!("add_members"), json!(4), json!([o.alice.id])),
        ]
    );
    let all = o.groups(&o.bob, false).await;
    let moderators = all.iter().find(|g| g["name"] == "role:moderators").unwrap();
    assert_eq!(ids(&moderators["members"]), vec![o.alice.id, o.bob.id]);
}

/// The flags `who` has on message `id`.
async fn flags(o: &Org, who: &TestUser, id: i64) -> Vec<String> {
    let anchor = id.to_string();
    let r = o
        .fetch(
            who,
            &[
                ("anchor", anchor.as_str()),
                ("num_before", "0"),
                ("num_after", "0"),
            ],
        )
        .await;
    let m = &r.body["messages"][0];
    assert_eq!(m["id"], id, "{}", r.body);
    m["flags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn group_mentions_reach_nested_members_under_can_mention_group() {
    let o = org().await;
    o.channel(
        &o.alice,
        "general",
        &[&o.alice, &o.bob, &o.guest, &o.admin],
        &[],
    )
    .await;
    let helpers = o.new_group(&o.alice, "helpers", &[&o.bob]).await;
    let nested = o.new_group(&o.alice, "nested", &[&o.guest]).await;
    ok(&o
        .subgroups_post(&o.alice, helpers, &[("add", &format!("[{nested}]"))])
        .await);

    let id = o
        .send_channel(&o.alice, "general", "t", "@*helpers* please look")
        .await;
    let m = &o
        .fetch(
            &o.bob,
            &[
                ("anchor", &id.to_string()),
                ("num_before", "0"),
                ("num_after", "0"),
            ],
        )
        .await
        .body["messages"][0];
    assert_eq!(
        m["content"],
        format!(
            "<p><span class=\"user-group-mention\" data-user-group-id=\"{helpers}\">@helpers</span> please look</p>"
        )
    );
    assert!(
        flags(&o, &o.bob, id)
            .await
            .contains(&"mentioned".to_string())
    );
    assert!(
        flags(&o, &o.guest, id)
            .await
            .contains(&"mentioned".to_string())
    );
    assert!(
        !flags(&o, &o.admin, id)
            .await
            .contains(&"mentioned".to_string())
    );
    let silent = o
        .send_channel(&o.alice, "general", "t", "@_*helpers* fyi")
        .await;
    assert!(
        !flags(&o, &o.bob, silent)
            .await
            .contains(&"mentioned".to_string())
    );

    // Only holders of can_mention_group may mention it loudly; silent mentions stay open.
    let admins_only =
        json!({"new": {"direct_members": [o.admin.id], "direct_subgroups": []}}).to_string();
    ok(&o
        .group_patch(&o.alice, helpers, &[("can_mention_group", &admins_only)])
        .await);
    let r = o
        .srv
        .post(
            "/api/v1/messages",
            &o.alice,
            &[
                ("type", "stream"),
                ("to", "general"),
                ("topic", "t"),
                ("content", "@*helpers* again"),
            ],
        )
        .await;
    bad(&r, "You are not allowed to mention user group 'helpers'.");
    let quiet = o
        .send_channel(&o.alice, "general", "t", "@_*helpers* quietly")
        .await;
    // Editing a mention in is checked the same way.
    let edit = |content: &'static str| {
        let o = &o;
        async move {
            o.srv
                .patch(
                    &format!("/api/v1/messages/{quiet}"),
                    &o.alice,
                    &[("content", content)],
                )
                .await
        }
    };
    bad(
        &edit("@*helpers* loudly now").await,
        "You are not allowed to mention user group 'helpers'.",
    );
    ok(&edit("@_*helpers* still quietly").await);
    let id = o
        .send_channel(&o.admin, "general", "t", "@*helpers* from admin")
        .await;
    assert!(
        flags(&o, &o.guest, id)
            .await
            .contains(&"mentioned".to_string())
    );
}
