//! The narrow record: a message filter as a client sends it to `GET /messages`,
//! `POST /messages/flags/narrow` and `POST /register`, parsed once into terms.
//!
//! Plain data only. Parsing and the rules (which operators exist, how operands resolve to ids,
//! what an event queue can evaluate, matching a message) live in `domain::messages::narrow`;
//! the SQL a narrow becomes lives in `db::message_narrows`.

/// A parsed narrow: its terms, all of which a message must satisfy.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Narrow {
    pub terms: Vec<NarrowTerm>,
}

impl Narrow {
    /// Whether the narrow has no terms (matches every message the viewer may read).
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }
}

/// One term: `operator:operand`, or its opposite when `negated`.
#[derive(Clone, Debug, PartialEq)]
pub struct NarrowTerm {
    pub operator: String,
    pub operand: Operand,
    pub negated: bool,
}

/// A term's operand as the client sent it.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    Str(String),
    Int(i64),
    /// A number that is not a 64-bit integer, as written.
    OtherNumber(String),
    List(Vec<Operand>),
    /// Anything else (`null`, booleans, objects), kept as its JSON text for error messages.
    Other(String),
}

impl Operand {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Operand::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// The prefix that marks a topic resolved (`✔ `), the one definition for resolving topics,
/// `is:resolved` narrows and event-queue filters.
pub const RESOLVED_TOPIC_PREFIX: &str = "✔ ";

/// What one viewer may read, as the narrows and topic listings need it: the channels readable
/// in full (public history the viewer can see), the viewer's direct-message conversations, and
/// (implicitly) every channel message they received. Resolved by
/// `domain::messages::narrow::message_access`; turned into SQL by `db::message_narrows`.
#[derive(Clone, Debug, PartialEq)]
pub struct MessageAccess {
    pub viewer: crate::ids::UserId,
    pub full_channels: Vec<crate::ids::ChannelId>,
    pub conversations: Vec<crate::ids::ConversationId>,
}
