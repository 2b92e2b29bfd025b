//! The one integration-test binary: every test starts its own servers in-process on
//! 127.0.0.1:0 and talks to them over HTTP like a client would.

mod schema;
mod support;

mod auth;
mod channels;
mod cli;
mod config;
mod conventions;
mod message_edits;
mod messages;
mod realtime;
mod server_info;
mod users;
