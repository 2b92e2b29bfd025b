//! The browser client's files (`src/web/client/`, compiled in by `build.rs`), served at
//! `/static/<build>/<path>`: `<build>` is the first 16 hex digits of SHA-256 over every file's
//! path and contents, so a URL names one version of a file and is cached for a year
//! (`immutable`). Text files are gzipped once, when the first chat listener of the process is
//! built, and sent compressed to clients that accept it. Owns nothing else: no sessions, no pages.

use std::collections::HashMap;
use std::io::Write as _;

use bytes::Bytes;
use hyper::StatusCode;
use hyper::header::{CACHE_CONTROL, CONTENT_ENCODING, HeaderMap, HeaderValue, VARY};
use sha2::{Digest as _, Sha256};

use super::bundle;
use crate::http::{self, Response};

mod table {
    include!(concat!(env!("OUT_DIR"), "/web_client.rs"));
}

/// The URL prefix of the client's files.
pub const STATIC_PREFIX: &str = "/static/";

/// The page shell (with its `{{static}}` and `{{csrf_token}}` placeholders).
pub const SHELL: &str = "index.html";

/// The client's entry module.
const ENTRY: &str = "main.js";

/// The served name of the entry module joined with everything it imports (`web::bundle`).
pub const BUNDLE: &str = "app.js";

/// One client file as served.
struct Asset {
    content_type: &'static str,
    body: Bytes,
    /// The gzip form, when the type compresses and the result is smaller.
    gzip: Option<Bytes>,
}

/// Every client file, by relative path, with the build they belong to.
pub struct Assets {
    build: String,
    /// The script the page shell loads: [`BUNDLE`], or `main.js` should bundling fail.
    entry: &'static str,
    files: HashMap<&'static str, Asset>,
}

/// The content type of a file, by its extension.
fn content_type(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    match ext.to_ascii_lowercase().as_str() {
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "html" => "text/html; charset=utf-8",
        "json" | "map" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "woff" => "font/woff",
        "txt" => "text/plain; charset=utf-8",
        "wasm" => "application/wasm",
        _ => "application/octet-stream",
    }
}

fn compressible(content_type: &str) -> bool {
    content_type.starts_with("text/")
        || content_type.starts_with("application/json")
        || content_type.starts_with("image/svg")
}

fn gzip(data: &[u8]) -> Option<Bytes> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(data).ok()?;
    let out = enc.finish().ok()?;
    (out.len() < data.len()).then(|| Bytes::from(out))
}

/// The build of a set of files: SHA-256 over each path and contents (each length-prefixed, so
/// no two sets hash alike by moving bytes between names and contents), first 16 hex digits.
pub fn build_of<'a>(files: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> String {
    let mut h = Sha256::new();
    for (path, data) in files {
        h.update((path.len() as u64).to_be_bytes());
        h.update(path.as_bytes());
        h.update((data.len() as u64).to_be_bytes());
        h.update(data);
    }
    h.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Whether `Accept-Encoding` accepts gzip (a `gzip`/`x-gzip` or `*` coding whose `q` is not 0).
fn accepts_gzip(headers: &HeaderMap) -> bool {
    headers
        .get_all(hyper::header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|coding| {
            let mut parts = coding.split(';');
            let name = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            if !matches!(name.as_str(), "gzip" | "x-gzip" | "*") {
                return false;
            }
            !parts.any(|p| {
                let p = p.trim();
                p.strip_prefix("q=")
                    .or_else(|| p.strip_prefix("Q="))
                    .and_then(|q| q.trim().parse::<f64>().ok())
                    .is_some_and(|q| q <= 0.0)
            })
        })
}

impl Assets {
    /// The compiled-in client, hashed and compressed once per process (when the first chat
    /// listener is built; the files are part of the executable, so every server of the process shares
    /// them, as `zulip::server` shares the emoji table).
    pub fn load() -> &'static Assets {
        static ASSETS: std::sync::OnceLock<Assets> = std::sync::OnceLock::new();
        ASSETS.get_or_init(|| Assets::from_files(table::FILES))
    }

    fn from_files(list: &'static [(&'static str, &'static [u8])]) -> Assets {
        let build = build_of(list.iter().map(|(p, d)| (*p, *d)));
        let asset = |path: &str, body: Bytes| {
            let content_type = content_type(path);
            let gzip = if compressible(content_type) {
                gzip(&body)
            } else {
                None
            };
            Asset {
                content_type,
                body,
                gzip,
            }
        };
        let mut files: HashMap<&'static str, Asset> = list
            .iter()
            .map(|(path, data)| (*path, asset(path, Bytes::from_static(data))))
            .collect();
        let sources: HashMap<&str, &str> = list
            .iter()
            .filter(|(p, _)| p.ends_with(".js"))
            .filter_map(|(p, d)| Some((*p, std::str::from_utf8(d).ok()?)))
            .collect();
        let entry = match bundle::bundle(&sources, ENTRY) {
            Ok(_) if files.contains_key(BUNDLE) => {
                tracing::error!("the client has its own {BUNDLE}; serving its modules unbundled");
                ENTRY
            }
            Ok(script) => {
                files.insert(BUNDLE, asset(BUNDLE, Bytes::from(script)));
                BUNDLE
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot bundle the client; serving its modules unbundled");
                ENTRY
            }
        };
        Assets {
            build,
            entry,
            files,
        }
    }

    /// This executable's client build (the second path segment of its URLs).
    pub fn build(&self) -> &str {
        &self.build
    }

    /// The URL prefix of this build's files, without a trailing slash.
    pub fn prefix(&self) -> String {
        format!("{STATIC_PREFIX}{}", self.build)
    }

    /// The script the page shell loads (its `{{entry}}`): the bundle of every module.
    pub fn entry(&self) -> &str {
        self.entry
    }

    /// A file's contents as text (the page shell), if there is such a file.
    pub fn text(&self, path: &str) -> Option<&str> {
        std::str::from_utf8(&self.files.get(path)?.body).ok()
    }

    /// `GET`/`HEAD /static/<build>/<path>` (`segs` are the decoded segments after
    /// `/static/`): the file, or 404 for another build or an unknown file.
    pub fn serve(&self, headers: &HeaderMap, segs: &[String]) -> Response {
        let found = match segs {
            [build, rest @ ..] if *build == self.build && !rest.is_empty() => {
                self.files.get(rest.join("/").as_str())
            }
            _ => None,
        };
        let Some(asset) = found else {
            let mut res = http::with_body(
                StatusCode::NOT_FOUND,
                "text/plain; charset=utf-8",
                "Not found\n",
            );
            res.headers_mut()
                .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
            return res;
        };
        let compressed = asset.gzip.as_ref().filter(|_| accepts_gzip(headers));
        let body = compressed.cloned().unwrap_or_else(|| asset.body.clone());
        let mut res = http::with_body(StatusCode::OK, asset.content_type, body);
        let h = res.headers_mut();
        h.insert(
            CACHE_CONTROL,
            HeaderValue::from_static("public, max-age=31536000, immutable"),
        );
        h.insert(
            "x-content-type-options",
            HeaderValue::from_static("nosniff"),
        );
        if asset.gzip.is_some() {
            h.insert(VARY, HeaderValue::from_static("Accept-Encoding"));
        }
        if compressed.is_some() {
            h.insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        }
        res
    }
}

impl std::fmt::Debug for Assets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Assets({}, {} files)", self.build, self.files.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_build_depends_on_names_and_contents() {
        let a = build_of([("a.js", &b"x"[..])]);
        assert_eq!(a.len(), 16);
        assert!(a.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(a, build_of([("b.js", &b"x"[..])]));
        assert_ne!(a, build_of([("a.js", &b"y"[..])]));
        assert_ne!(build_of([("ab", &b"c"[..])]), build_of([("a", &b"bc"[..])]));
    }

    #[test]
    fn gzip_is_chosen_only_when_accepted() {
        let h = |v: &str| {
            let mut m = HeaderMap::new();
            m.insert(
                hyper::header::ACCEPT_ENCODING,
                HeaderValue::from_str(v).unwrap(),
            );
            m
        };
        assert!(accepts_gzip(&h("gzip, deflate, br")));
        assert!(accepts_gzip(&h("br;q=1.0, GZIP;q=0.5")));
        assert!(accepts_gzip(&h("*")));
        assert!(!accepts_gzip(&h("gzip;q=0")));
        assert!(!accepts_gzip(&h("br, deflate")));
        assert!(!accepts_gzip(&HeaderMap::new()));
    }

    #[test]
    fn the_compiled_in_client_has_its_shell() {
        let a = Assets::load();
        assert!(a.text(SHELL).is_some_and(|t| t.contains("{{static}}")));
        // The shipped modules bundle (the fallback to unbundled modules is for a broken build).
        assert_eq!(a.entry(), BUNDLE);
        let script = a.text(BUNDLE).expect("the bundle is served");
        assert!(script.contains("const __outpost_main = "), "{script}");
        assert!(script.contains("const __outpost_api = "), "{script}");
        assert_eq!(content_type("main.js"), "text/javascript; charset=utf-8");
        assert_eq!(content_type("x/y.CSS"), "text/css; charset=utf-8");
    }
}
