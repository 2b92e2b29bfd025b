//! The one integration-test binary: every test starts its own servers in-process on
//! 127.0.0.1:0 and talks to them over HTTP like a client would.
//!
//! Shared fixtures live in `support/` (the server harness, the usual organization, event
//! queues, the Dependency-Track listener). A test file is named after the `src/` area it tests
//! (`dtrack_*` for `src/dtrack/`); `bad_input`, `conventions`, `mobile_app` and `security_*`
//! cut across areas.

mod sarif_schema;
mod scheduled;
mod schema;
mod schema_upgrades;
mod support;

mod auth;
mod backup_restore;
mod bad_input;
mod bot_accounts;
mod bot_updates;
mod bots;
mod channel_folders;
mod channels;
mod cli;
mod code_blocks;
mod config;
mod conventions;
mod digest;
mod dtrack_acl;
mod dtrack_auth_matrix;
mod dtrack_badges;
mod dtrack_bom;
mod dtrack_cli;
mod dtrack_evaluation;
mod dtrack_exchange;
mod dtrack_finding_formats;
mod dtrack_findings;
mod dtrack_identity;
mod dtrack_licenses;
mod dtrack_matching;
mod dtrack_metrics;
mod dtrack_nvd;
mod dtrack_osv;
mod dtrack_osv_proxy;
mod dtrack_policies;
mod dtrack_portfolio;
mod dtrack_projects_more;
mod dtrack_search;
mod dtrack_tags;
mod emoji_names;
mod incoming_webhooks;
mod invites;
mod layering;
mod layering_graph;
mod mail;
mod message_edits;
mod message_search;
mod messages;
mod metrics;
mod mobile_app;
mod narrow_queues;
mod narrow_with;
mod notices;
mod notifications;
mod old_names;
mod outgoing_webhooks;
mod push_bouncer;
mod push_e2ee;
mod push_registration;
mod rate_limits;
mod read_state;
mod realm_emoji;
mod realm_settings;
mod realtime;
mod register_state;
mod restart;
mod route_docs;
mod security_auth;
mod security_bots;
mod security_chat;
mod security_documents;
mod security_dtrack;
mod security_emails;
mod security_http;
mod server;
mod settings;
mod tls;
mod uploads;
mod user_groups;
mod user_records;
mod users;
mod web_session;
mod widgets;
mod wire_shapes;
