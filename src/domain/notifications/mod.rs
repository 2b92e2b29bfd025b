//! Who is notified of what: the decision made for every recipient when a message is sent
//! (upstream's rules, `decide`), the candidates and durable jobs written in the message's own
//! commit (`gather`), whether a user is idle (`activity`), and the pass that carries the jobs
//! out and retracts pushes of messages read (`jobs`, through `deliver`). Push delivery is
//! `domain::push`; missed-message email is `notifications::email`. No HTTP, no wire shapes,
//! no SQL text.

pub mod activity;
pub mod decide;
pub mod deliver;
pub mod email;
pub mod gather;
pub mod jobs;

pub use crate::model::Trigger;
