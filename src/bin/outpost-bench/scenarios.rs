//! The request scenarios' preparation: the users, channel, history and Dependency-Track data
//! each scenario needs, created directly through the in-process server's state, and the
//! [`Spec`]s its connections then send. Must not touch: the load loop or the report (see
//! `load.rs`); every scenario with its own driver lives in its own file.

use std::time::Instant;

use hyper::Method;

use outpost::domain::channels::{self, ChannelOptions};
use outpost::domain::users::{self, NewUser};
use outpost::ids::UserId;
use outpost::model::{Message, Role};
use outpost::zulip::ChatState;

use super::load::Spec;
use super::{Args, basic, fail};

pub async fn make_user(state: &ChatState, i: usize) -> (UserId, String, String) {
    let email = format!("bench{i}@example.com");
    let (id, key) = users::create(
        state,
        NewUser {
            email: email.clone(),
            full_name: format!("Bench User {i}"),
            role: Role::Member,
            password: None,
            can_create_users: false,
            can_change_user_emails: false,
        },
    )
    .await
    .unwrap_or_else(|e| fail(&format!("creating a user: {e}")));
    (id, email, key)
}

/// Creates `n` users and a channel `bench` they are all subscribed to.
pub async fn channel_with(state: &ChatState, n: usize) -> Vec<(UserId, String, String)> {
    let mut people = Vec::with_capacity(n);
    for i in 0..n.max(1) {
        people.push(make_user(state, i).await);
    }
    let creator = outpost::db::users::get as fn(&rusqlite::Connection, UserId) -> _;
    let first = people[0].0;
    let owner = state
        .db
        .read(move |c| creator(c, first))
        .await
        .ok()
        .flatten()
        .unwrap_or_else(|| fail("bench user vanished"));
    channels::create(
        state,
        &owner,
        "bench",
        people.iter().map(|p| p.0.0).collect(),
        ChannelOptions::default(),
    )
    .await
    .unwrap_or_else(|e| fail(&format!("creating the channel: {e}")));
    people
}

/// Stores `n` messages in channel `bench` directly, in large transactions.
pub async fn seed_history(state: &ChatState, sender: UserId, n: usize) {
    let channel = state
        .db
        .read(|c| outpost::db::channels::by_name(c, "bench"))
        .await
        .ok()
        .flatten()
        .unwrap_or_else(|| fail("no bench channel"))
        .id;
    let started = Instant::now();
    let mut done = 0;
    while done < n {
        let batch = (n - done).min(50_000);
        let from = done;
        state
            .db
            .write(move |tx| {
                for i in from..from + batch {
                    let text =
                        format!("history message {i} about topic {} and more words", i % 100);
                    outpost::db::messages::insert(
                        tx,
                        &Message {
                            id: outpost::ids::MessageId(0),
                            sender_id: sender,
                            channel_id: Some(channel),
                            conversation_id: None,
                            topic: format!("topic {}", i % 100),
                            rendered_content: format!("<p>{text}</p>"),
                            content: text,
                            client: "bench".into(),
                            sent_at: outpost::time::now_secs(),
                            is_me_message: false,
                            wildcard: 0,
                            last_edit_at: None,
                            last_moved_at: None,
                        },
                    )?;
                }
                Ok(())
            })
            .await
            .unwrap_or_else(|e| fail(&format!("seeding: {e}")));
        done += batch;
    }
    eprintln!(
        "seeded {n} messages in {:.1}s",
        started.elapsed().as_secs_f64()
    );
}

pub async fn prepare(args: &Args, state: &ChatState) -> Vec<Spec> {
    match args.scenario.as_str() {
        "server-settings" => vec![
            Spec {
                method: Method::GET,
                path: "/api/v1/server_settings".into(),
                body: None,
                credential: None,
            };
            args.connections
        ],
        "users-me" => {
            let (_, email, key) = make_user(state, 0).await;
            vec![
                Spec {
                    method: Method::GET,
                    path: "/api/v1/users/me".into(),
                    body: None,
                    credential: Some(("authorization", basic(&email, &key))),
                };
                args.connections
            ]
        }
        "send" => {
            let people = channel_with(state, args.subscribers.max(args.connections)).await;
            (0..args.connections)
                .map(|i| {
                    let (_, email, key) = &people[i % people.len()];
                    Spec {
                        method: Method::POST,
                        path: "/api/v1/messages".into(),
                        body: Some(format!(
                            "type=stream&to=bench&topic=load+{i}&content=benchmark+message+{{n}}"
                        )),
                        credential: Some(("authorization", basic(email, key))),
                    }
                })
                .collect()
        }
        "presence" => {
            let (_, email, key) = make_user(state, 0).await;
            vec![
                Spec {
                    method: Method::POST,
                    path: "/api/v1/users/me/presence".into(),
                    body: Some("status=active".into()),
                    credential: Some(("authorization", basic(&email, &key))),
                };
                args.connections
            ]
        }
        "history" => {
            let people = channel_with(state, 2).await;
            seed_history(state, people[0].0, args.messages).await;
            let (_, email, key) = &people[1];
            let narrow = "%5B%5B%22channel%22%2C%22bench%22%5D%5D";
            vec![
                Spec {
                    method: Method::GET,
                    path: format!(
                        "/api/v1/messages?anchor=newest&num_before=100&num_after=0&narrow={narrow}"
                    ),
                    body: None,
                    credential: Some(("authorization", basic(email, key))),
                };
                args.connections
            ]
        }
        "dt-badge" | "dt-analysis" => dtrack_specs(args, state).await,
        other => fail(&format!(
            "unknown scenario {other:?}; use server-settings, users-me, send, history, presence, parked, delivery, dt-badge, dt-analysis, dt-osv-import or dt-findings"
        )),
    }
}

/// Dependency-Track data for `dt-badge` and `dt-analysis`: one project with a vulnerable
/// component and an analysis, refreshed metrics, and a key of an all-permission team.
pub async fn dtrack_specs(args: &Args, state: &ChatState) -> Vec<Spec> {
    use outpost::domain::dtrack::{findings, identity, metrics, permissions::PermSet, portfolio};
    use outpost::model::dtrack::{Component, ProjectFields, Vulnerability};
    let team = identity::create_team(state, "Bench", PermSet::all(), true)
        .await
        .unwrap_or_else(|e| fail(&format!("team: {e}")));
    let key = team.api_keys[0]
        .key
        .clone()
        .unwrap_or_else(|| fail("no key"));
    let who = identity::authenticate_key(state, &key)
        .await
        .unwrap_or_else(|e| fail(&format!("key: {e}")));
    let project = portfolio::create_project(
        state,
        &who,
        ProjectFields {
            name: "bench".into(),
            version: Some("1.0".into()),
            active: true,
            ..ProjectFields::default()
        },
    )
    .await
    .unwrap_or_else(|e| fail(&format!("project: {e}")));
    let component = portfolio::create_component(
        state,
        &who,
        &project.uuid,
        Component {
            name: "lib".into(),
            ..Component::default()
        },
    )
    .await
    .unwrap_or_else(|e| fail(&format!("component: {e}")));
    let vuln = findings::create_vulnerability(
        state,
        Vulnerability {
            vuln_id: "INT-BENCH-1".into(),
            severity: Some("HIGH".into()),
            ..Vulnerability::default()
        },
    )
    .await
    .unwrap_or_else(|e| fail(&format!("vulnerability: {e}")));
    findings::set_assignment(state, &who, &vuln.uuid, &component.uuid, true)
        .await
        .unwrap_or_else(|e| fail(&format!("assignment: {e}")));
    findings::update_analysis(
        state,
        &who,
        findings::AnalysisChange {
            project: Some(project.uuid.clone()),
            component: component.uuid.clone(),
            vulnerability: vuln.uuid.clone(),
            state: Some("NOT_AFFECTED".into()),
            comment: Some("benchmark".into()),
            ..findings::AnalysisChange::default()
        },
    )
    .await
    .unwrap_or_else(|e| fail(&format!("analysis: {e}")));
    metrics::refresh(state, &who, &project.uuid)
        .await
        .unwrap_or_else(|e| fail(&format!("metrics: {e}")));
    let path = if args.scenario == "dt-badge" {
        format!("/api/v1/badge/violations/project/{}", project.uuid)
    } else {
        format!(
            "/api/v1/analysis?project={}&component={}&vulnerability={}",
            project.uuid, component.uuid, vuln.uuid
        )
    };
    vec![
        Spec {
            method: Method::GET,
            path,
            body: None,
            credential: Some(("x-api-key", key)),
        };
        args.connections
    ]
}
