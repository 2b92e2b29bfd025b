//! Who is notified of what: the decision made for every recipient when a message is sent or
//! edited (upstream's rules), the durable jobs it writes in the message's own commit, and the
//! passes that carry them out. Push delivery is `domain::push`; missed-message email is
//! `notifications::email`. No HTTP, no wire shapes, no SQL text.

pub mod email;
pub mod trigger;

pub use trigger::Trigger;
