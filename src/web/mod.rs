//! The browser client on the chat listener: its files ([`assets`], compiled in by `build.rs`;
//! its modules joined into one script by [`bundle`]), the server-rendered pages ([`pages`]: the
//! page shell at `/`, login, logout and development login, and the frame every HTML page
//! shares, with its security headers), the signup page of an invitation link ([`signup`],
//! `/join/<key>/`), the account pages mails link to ([`accounts`]: forgot password, a reset
//! link's new-password form, confirming a new email address, unsubscribing), and the HTTP side of login sessions ([`sessions`]: the cookie and CSRF
//! checks that let `/json` use the chat route table). [`WebState`] is what its pages read.
//!
//! `web` stands above `zulip`: the page shell embeds the chat API's `POST /register` answer
//! (`zulip::realtime::register_body`) and every page reads the chat API's state, while the
//! chat API knows nothing of pages, cookies or the browser. The chat listener
//! (`listeners::chat`) routes to both and admits `/json` requests through [`sessions`]; the
//! session rules are `domain::sessions`. Must not contain SQL or build API JSON.

pub mod accounts;
pub mod assets;
pub mod bundle;
pub mod pages;
pub mod sessions;
pub mod signup;

use std::sync::Arc;

use crate::zulip::ChatState;

/// What the web client's pages read: the chat API's state (reached through `Deref`) and the
/// client's files. Built by the chat listener.
pub struct WebState {
    pub chat: Arc<ChatState>,
    /// The browser client's files, hashed and compressed once per process.
    pub assets: &'static assets::Assets,
}

impl std::ops::Deref for WebState {
    type Target = ChatState;

    fn deref(&self) -> &ChatState {
        &self.chat
    }
}
