//! Invitations: who may invite whom (role, channels, groups), email invitations and reusable
//! links, listing, revoking and resending them, and joining through one (the signup form's
//! rules: its per-form token, the account it creates and what the new user is given). An
//! address that looks like an existing account's (`domain::email_keys`) is neither invited nor
//! accepted on a reusable link's form; a reusable link's address is otherwise not verified
//! (no confirmation mail yet).
//!
//! Invitation mail goes out after the commit through [`crate::mail`] (a blocking task; a
//! failure is logged and the invitation stays). Every change emits
//! [`Event::InvitesChanged`](crate::events::Event::InvitesChanged); joining goes through the
//! user-creation rules of `domain::users` (events, signup notice, Welcome Bot). No HTTP, no
//! wire JSON.
//!
//! One idea a file: `rules` (who may invite whom, and the options' checks), `email` (email
//! invitations and their mail), `links` (signup links, reusable ones, whether one still works),
//! `manage` (listing and revoking invitation rows) and `signup` (joining through the signup
//! form: its token and the new account). This file only declares them and keeps the old paths.

mod email;
mod links;
mod manage;
mod rules;
mod signup;

pub use email::{invite, resend};
pub use links::{LinkProblem, check_link, create_link, link_url, open_link};
pub use manage::{audience, list, revoke};
pub use rules::{InviteOptions, MAX_WELCOME_TEXT_LENGTH, is_invitable, parse_invitees};
pub use signup::{FORM_LIFETIME_SECS, FormKey, Signup, SignupRefusal, join};
