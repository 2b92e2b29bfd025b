//! The chat listener's pages and files outside the API (the web client's page shell, login
//! and logout, its static files, uploads, custom emoji pictures, the emoji table, the realm
//! icon, the signup page): a small table resolved by full path before the API's, answered
//! before any parameter is parsed. One row per page, as in the API's `routes!` table: its name
//! (the metrics label), what its path carries, whether it counts against the rate limit, and
//! the call that answers it; [`route`] maps paths to rows. Their credentials (none, or a
//! download's) are decided in `listeners::chat::admission`; nothing here reads a body as
//! parameters. Must not hold page logic: a row names one handler of `zulip` or `web`.

use hyper::Method;

use crate::http::route::{self, NoRoute};
use crate::http::{Request, Response};
use crate::model::User;
use crate::web::{self, WebState};
use crate::zulip::envelope::error_response;
use crate::zulip::{EMOJI_DATA_PATH, emoji, server, uploads};

/// Declares the page table: the [`Page`] enum (one variant per row, with the values its path
/// carries), [`PAGE_NAMES`] and `Page::index` (the metrics labels, in row order),
/// `Page::metered`, and the dispatch function calling each row's handler.
macro_rules! pages {
    (@metered metered) => { true };
    (@metered unmetered) => { false };
    (
        dispatch: $(#[$fdoc:meta])* $fvis:vis async fn $fname:ident
            ( $page:ident $(, $arg:ident : $argty:ty )* $(,)? ) -> $ret:ty;
        $(
            $(#[$vdoc:meta])*
            $V:ident $( ( $field:ident : $ty:ty ) )?, $meter:ident => $call:expr;
        )*
    ) => {
        /// Every page or file of the chat listener outside the API.
        #[derive(Clone, Debug, PartialEq)]
        pub enum Page {
            $( $(#[$vdoc])* $V $( ( $ty ) )?, )*
        }

        /// The pages' names, by [`Page::index`]: the metrics labels after the API's.
        pub const PAGE_NAMES: &[&str] = &[ $( stringify!($V) ),* ];

        impl Page {
            /// This page's position in [`PAGE_NAMES`] (its row's).
            pub fn index(&self) -> usize {
                #[allow(clippy::enum_variant_names)]
                enum Row { $( $V ),* }
                (match self { $( Page::$V { .. } => Row::$V ),* }) as usize
            }

            /// Whether the page counts against the rate limit.
            pub fn metered(&self) -> bool {
                match self { $( Page::$V { .. } => pages!(@metered $meter) ),* }
            }
        }

        $(#[$fdoc])*
        $fvis async fn $fname($page: Page $(, $arg: $argty )*) -> $ret {
            match $page {
                $( Page::$V $( ( $field ) )? => $call, )*
            }
        }
    };
}

pages! {
    dispatch:
    /// Answers a page (the caller is a download's, if any).
    pub async fn serve(page, web: &WebState, caller: Option<&User>, req: Request) -> Response;

    /// `GET /static/generated/emoji/emoji_api.json`: the emoji table.
    EmojiData, metered => server::emoji_data(&req);
    /// `GET /static/images/logo/realm-icon.png`: the organization's icon.
    RealmIcon, metered => server::realm_icon();
    /// `/join/<key>/`: the signup page of an invitation link (HTML).
    Signup(key: String), metered => page_or_error(web::signup::handle(web, &key, &req).await);
    /// `/accounts/password/reset/`: the "Forgot password" form and its submission.
    PasswordReset, metered => page_or_error(web::accounts::password_reset(web, &req).await);
    /// `/accounts/password/reset/<key>/`: a reset link's new-password form.
    PasswordResetConfirm(key: String), metered =>
        page_or_error(web::accounts::password_reset_confirm(web, &key, &req).await);
    /// `/accounts/confirm_new_email/<key>`: confirming a new email address.
    ConfirmNewEmail(key: String), metered =>
        page_or_error(web::accounts::confirm_new_email(web, &key, &req).await);
    /// `/accounts/unsubscribe/<type>/<key>`: unsubscribing from an email type (one-click).
    Unsubscribe(parts: (String, String)), metered =>
        page_or_error(web::accounts::unsubscribe_page(web, &parts, &req).await);
    /// `/user_uploads/...`: a download (credentials are checked by the handler, since
    /// temporary URLs need none); the decoded path segments.
    ServeUpload(segs: Vec<String>), metered => uploads::serve(web, &req, caller, segs).await;
    /// `/user_avatars/...`: a custom emoji's picture (no credentials); the decoded segments.
    ServeEmoji(segs: Vec<String>), metered => emoji::serve(web, segs).await;
    /// `GET /`: the web client's page shell (session cookie, else a redirect to `/login`).
    WebHome, metered => page_or_error(web::pages::home(web, &req).await);
    /// `/login`: the web client's login form and its submission.
    WebLogin, metered => page_or_error(web::pages::login(web, &req).await);
    /// `POST /devlogin`: development login of the web client.
    WebDevLogin, metered => page_or_error(web::pages::dev_login(web, &req).await);
    /// `POST /logout`: ends the web client's session.
    WebLogout, metered => page_or_error(web::pages::logout(web, &req).await);
    /// `/static/<build>/<path>`: a file of the web client; the decoded segments after
    /// `/static/`. Not counted against the rate limit: served from memory, and a page load
    /// fetches many at once.
    WebAsset(segs: Vec<String>), unmetered => web.assets.serve(&req.parts.headers, &segs);
}

/// A page's answer, or its error in the chat API's envelope.
fn page_or_error(answer: crate::error::Result<Response>) -> Response {
    answer.unwrap_or_else(|e| error_response(&e))
}

/// The page at a full path; `None` for the API's paths.
pub fn route(method: &Method, path: &str) -> Option<Result<Page, NoRoute>> {
    let get = method == Method::GET || method == Method::HEAD;
    let get_or_post = [Method::GET, Method::HEAD, Method::POST].contains(method);
    if let Some(key) = web::signup::link_key(path) {
        return Some(if get_or_post {
            Ok(Page::Signup(key.to_string()))
        } else {
            Err(NoRoute::Method(vec!["GET", "HEAD", "POST"]))
        });
    }
    let get_or_post_only = |page: Page| {
        Some(if get_or_post {
            Ok(page)
        } else {
            Err(NoRoute::Method(vec!["GET", "HEAD", "POST"]))
        })
    };
    if path == web::accounts::RESET_PATH {
        return get_or_post_only(Page::PasswordReset);
    }
    if let Some(key) = web::accounts::reset_key(path) {
        return get_or_post_only(Page::PasswordResetConfirm(key.to_string()));
    }
    if let Some(key) = web::accounts::confirm_key(path) {
        return get_or_post_only(Page::ConfirmNewEmail(key.to_string()));
    }
    if let Some(parts) = web::accounts::unsubscribe_parts(path) {
        return get_or_post_only(Page::Unsubscribe(parts));
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
        _ => match path.strip_prefix(web::assets::STATIC_PREFIX) {
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
            "/accounts/password/reset/",
            "/accounts/password/reset/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef/",
            "/accounts/confirm_new_email/abc123",
            "/accounts/unsubscribe/digest/abc123",
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

    #[test]
    fn only_the_web_clients_files_go_unmetered() {
        let asset = route(&Method::GET, "/static/0123456789abcdef/main.js");
        assert!(!asset.unwrap().unwrap().metered());
        for path in ["/", "/login", "/user_uploads/1/ab/cdef/file.txt"] {
            assert!(
                route(&Method::GET, path).unwrap().unwrap().metered(),
                "{path}"
            );
        }
    }
}
