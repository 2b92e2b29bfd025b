//! The browser client on the chat listener: its files ([`assets`], compiled in by
//! `build.rs`; its modules joined into one script by [`bundle`]), the server-rendered pages ([`pages`]: the page shell at `/`, login, logout and
//! development login, and the frame every HTML page shares, with its security headers), the
//! signup page of an invitation link ([`signup`], `/join/<key>/`), and the HTTP side of login sessions ([`sessions`]: the cookie and CSRF checks that let `/json`
//! use the chat route table). Routing happens in `zulip::pages`; the session rules are
//! `domain::sessions`. Must not contain SQL or build API JSON.

pub mod assets;
pub mod bundle;
pub mod pages;
pub mod sessions;
pub mod signup;
