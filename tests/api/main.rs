//! The one integration-test binary: every test starts its own servers in-process on
//! 127.0.0.1:0 and talks to them over HTTP like a client would.

mod dtrack_support;
mod schema;
mod support;

mod auth;
mod bad_input;
mod channels;
mod cli;
mod code_blocks;
mod config;
mod conventions;
mod dtrack_acl;
mod dtrack_analysis;
mod dtrack_auth_matrix;
mod dtrack_badges;
mod dtrack_bom;
mod dtrack_cli;
mod dtrack_identity;
mod dtrack_policies;
mod dtrack_portfolio;
mod emoji_names;
mod layering;
mod message_edits;
mod messages;
mod mobile_app;
mod narrow_queues;
mod narrow_with;
mod notices;
mod rate_limits;
mod read_state;
mod realm_settings;
mod realtime;
mod security_chat;
mod security_dtrack;
mod security_emails;
mod security_http;
mod server_info;
mod settings;
mod users;
mod widgets;
