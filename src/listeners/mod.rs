//! The listeners, on top of the APIs: each composes one API's route table, pages and admission
//! into the [`http::server::Api`](crate::http::server::Api) its listener serves. [`chat`]
//! serves the chat API (`zulip`) and the web client (`web`) on one listener, [`dtrack`] the
//! Dependency-Track API, [`metrics`] `/metrics` and `/health` over the counters of
//! `crate::metrics`, the queues and the database. `app` builds them from the states it opened
//! and binds them.
//!
//! They stand above the APIs so that every dependency points one way: an API knows its own
//! table and handlers, never the listener that serves it, the pages beside it or the counters'
//! scrape. Must not hold API logic, SQL or wire JSON: a listener routes, admits and dispatches.

pub mod chat;
pub mod dtrack;
pub mod metrics;
