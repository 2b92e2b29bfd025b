//! The chat listener's pages and files outside the API (the web client's page shell, login
//! and logout, its static files, uploads, custom emoji pictures, the emoji table, the realm
//! icon, the signup page): a small table resolved by full path before the API's, answered
//! before any parameter is parsed. Their credentials (none, or a download's) are decided in
//! `zulip::admission`; nothing here reads a body as parameters.

use hyper::Method;

use crate::http::route::{self, NoRoute};
use crate::http::{Request, Response};
use crate::model::User;
use crate::zulip::ChatState;

use super::envelope::error_response;
use super::{emoji, server, uploads};
use crate::web::signup;

/// Where `server_emoji_data_url` points (upstream's path for its emoji table).
pub const EMOJI_DATA_PATH: &str = "/static/generated/emoji/emoji_api.json";

/// Every page or file of the chat listener outside the API.
#[derive(Clone, Debug, PartialEq)]
pub enum Page {
    /// `GET /static/generated/emoji/emoji_api.json`: the emoji table.
    EmojiData,
    RealmIcon,
    /// `/join/<key>/`: the signup page of an invitation link (HTML).
    Signup(String),
    /// `/user_uploads/...`: a download (credentials are checked by the handler, since
    /// temporary URLs need none); the decoded path segments.
    ServeUpload(Vec<String>),
    /// `/user_avatars/...`: a custom emoji's picture (no credentials); the decoded segments.
    ServeEmoji(Vec<String>),
    /// `GET /`: the web client's page shell (session cookie, else a redirect to `/login`).
    WebHome,
    /// `/login`: the web client's login form and its submission.
    WebLogin,
    /// `POST /devlogin`: development login of the web client.
    WebDevLogin,
    /// `POST /logout`: ends the web client's session.
    WebLogout,
    /// `/static/<build>/<path>`: a file of the web client; the decoded segments after
    /// `/static/`.
    WebAsset(Vec<String>),
}

/// The pages' names, by [`Page::index`]: the metrics labels after the API's.
pub const PAGE_NAMES: &[&str] = &[
    "EmojiData",
    "RealmIcon",
    "Signup",
    "ServeUpload",
    "ServeEmoji",
    "WebHome",
    "WebLogin",
    "WebDevLogin",
    "WebLogout",
    "WebAsset",
];

impl Page {
    /// This page's position in [`PAGE_NAMES`].
    pub fn index(&self) -> usize {
        #[allow(clippy::enum_variant_names)]
        enum I {
            EmojiData,
            RealmIcon,
            Signup,
            ServeUpload,
            ServeEmoji,
            WebHome,
            WebLogin,
            WebDevLogin,
            WebLogout,
            WebAsset,
        }
        (match self {
            Page::EmojiData => I::EmojiData,
            Page::RealmIcon => I::RealmIcon,
            Page::Signup(_) => I::Signup,
            Page::ServeUpload(_) => I::ServeUpload,
            Page::ServeEmoji(_) => I::ServeEmoji,
            Page::WebHome => I::WebHome,
            Page::WebLogin => I::WebLogin,
            Page::WebDevLogin => I::WebDevLogin,
            Page::WebLogout => I::WebLogout,
            Page::WebAsset(_) => I::WebAsset,
        }) as usize
    }

    /// Counted against the rate limit: everything but the web client's files, which are
    /// served from memory (a page load fetches many at once).
    pub fn metered(&self) -> bool {
        !matches!(self, Page::WebAsset(_))
    }
}

/// The page at a full path; `None` for the API's paths.
pub fn route(method: &Method, path: &str) -> Option<Result<Page, NoRoute>> {
    let get = method == Method::GET || method == Method::HEAD;
    let get_or_post = [Method::GET, Method::HEAD, Method::POST].contains(method);
    if let Some(key) = signup::link_key(path) {
        return Some(if get_or_post {
            Ok(Page::Signup(key.to_string()))
        } else {
            Err(NoRoute::Method(vec!["GET", "HEAD", "POST"]))
        });
    }
    for (prefix, page) in [
        (
            "/user_uploads/",
            Page::ServeUpload as fn(Vec<String>) -> Page,
        ),
        ("/user_avatars/", Page::ServeEmoji),
    ] {
        if let Some(rest) = path.strip_prefix(prefix) {
            return Some(match route::segments(rest) {
                Some(segs) if get && segs.len() >= 2 => Ok(page(segs)),
                Some(segs) if segs.len() >= 2 => Err(NoRoute::Method(vec!["GET", "HEAD"])),
                _ => Err(NoRoute::NotFound),
            });
        }
    }
    let page = match path {
        EMOJI_DATA_PATH => Page::EmojiData,
        server::REALM_ICON_PATH => Page::RealmIcon,
        "/" => Page::WebHome,
        // Their handlers answer other methods themselves (and development login is a 404,
        // whatever the method, when development mode is off).
        "/devlogin" => return Some(Ok(Page::WebDevLogin)),
        "/logout" => return Some(Ok(Page::WebLogout)),
        "/login" => {
            return Some(if get_or_post {
                Ok(Page::WebLogin)
            } else {
                Err(NoRoute::Method(vec!["GET", "HEAD", "POST"]))
            });
        }
        _ => match path.strip_prefix(crate::web::assets::STATIC_PREFIX) {
            Some(rest) => match route::segments(rest) {
                Some(segs) if segs.len() >= 2 => Page::WebAsset(segs),
                _ => return Some(Err(NoRoute::NotFound)),
            },
            None => return None,
        },
    };
    Some(if get {
        Ok(page)
    } else {
        Err(NoRoute::Method(vec!["GET", "HEAD"]))
    })
}

/// Answers a page (the caller is a download's, if any).
pub async fn serve(state: &ChatState, page: Page, caller: Option<&User>, req: Request) -> Response {
    let answer = match page {
        Page::EmojiData => return server::emoji_data(&req),
        Page::RealmIcon => return server::realm_icon(),
        Page::ServeUpload(segs) => return uploads::serve(state, &req, caller, segs).await,
        Page::ServeEmoji(segs) => return emoji::serve(state, segs).await,
        Page::WebAsset(segs) => return state.web_assets.serve(&req.parts.headers, &segs),
        Page::Signup(key) => signup::handle(state, &key, &req).await,
        Page::WebHome => crate::web::pages::home(state, &req).await,
        Page::WebLogin => crate::web::pages::login(state, &req).await,
        Page::WebDevLogin => crate::web::pages::dev_login(state, &req).await,
        Page::WebLogout => crate::web::pages::logout(state, &req).await,
    };
    answer.unwrap_or_else(|e| error_response(&e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_has_one_path_and_its_name() {
        let mut seen = vec![0; PAGE_NAMES.len()];
        for path in [
            EMOJI_DATA_PATH,
            server::REALM_ICON_PATH,
            "/join/abc123/",
            "/user_uploads/1/ab/cdef/file.txt",
            "/user_avatars/1/emoji/images/abc.png",
            "/",
            "/login",
            "/devlogin",
            "/logout",
            "/static/0123456789abcdef/main.js",
        ] {
            let p = route(&Method::GET, path).unwrap().unwrap();
            seen[p.index()] += 1;
            let debug = format!("{p:?}");
            assert_eq!(debug.split('(').next(), Some(PAGE_NAMES[p.index()]));
        }
        assert!(seen.iter().all(|&n| n == 1), "{seen:?}");
        assert_eq!(route(&Method::GET, "/api/v1/users"), None);
    }
}
