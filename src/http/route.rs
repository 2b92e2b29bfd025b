//! Path and method resolution shared by both APIs' route tables: splitting a path into
//! percent-decoded segments, and choosing among the methods a path accepts (`HEAD` served as
//! `GET`, the `Allow` list of a 405 or an `OPTIONS` answer). Knows no API semantics: which
//! paths exist, and how a 405 or `OPTIONS` is rendered, stay with each API.

use hyper::Method;
use hyper::StatusCode;
use hyper::header::{ALLOW, HeaderValue};

use super::Response;

/// Splits what follows an API's prefix (`a/b%20c`) into percent-decoded segments, skipping
/// empty ones; `None` when a segment does not decode to UTF-8.
pub fn segments(rest: &str) -> Option<Vec<String>> {
    rest.split('/')
        .filter(|s| !s.is_empty())
        .map(percent_decode)
        .collect()
}

/// Decodes `%XX` escapes in one path segment; a `%` not followed by two hex digits stays as is.
pub fn percent_decode(seg: &str) -> Option<String> {
    if !seg.contains('%') {
        return Some(seg.to_string());
    }
    let b = seg.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let h = (b[i + 1] as char).to_digit(16);
            let l = (b[i + 2] as char).to_digit(16);
            if let (Some(h), Some(l)) = (h, l) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8(out).ok()
}

/// Whether an API lists `OPTIONS` among a path's allowed methods.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ListOptions {
    Yes,
    No,
}

/// Picks the endpoint of `method` among a path's `(method, endpoint)` pairs (`HEAD` asks for
/// `GET`'s). Otherwise the sorted methods the path allows: those listed, `HEAD` where `GET`
/// is, and `OPTIONS` when the API says so.
pub fn pick<E>(
    method: &Method,
    table: Vec<(&'static str, E)>,
    options: ListOptions,
) -> Result<E, Vec<&'static str>> {
    let wanted = if *method == Method::HEAD {
        "GET"
    } else {
        method.as_str()
    };
    let mut allowed: Vec<&'static str> = Vec::with_capacity(table.len() + 2);
    for (m, endpoint) in table {
        if m == wanted {
            return Ok(endpoint);
        }
        allowed.push(m);
    }
    if allowed.contains(&"GET") {
        allowed.push("HEAD");
    }
    if options == ListOptions::Yes {
        allowed.push("OPTIONS");
    }
    allowed.sort_unstable();
    Err(allowed)
}

/// An empty answer with `status` and an `Allow` header joining `allowed` with `separator`:
/// what each API sends for `OPTIONS`.
pub fn allow_response(status: StatusCode, allowed: &[&str], separator: &str) -> Response {
    let mut res = super::empty(status);
    if let Ok(v) = HeaderValue::from_str(&allowed.join(separator)) {
        res.headers_mut().insert(ALLOW, v);
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_decode_and_skip_empty() {
        assert_eq!(
            segments("a//b%20c/%2F/%zz/%4"),
            Some(vec![
                "a".to_string(),
                "b c".into(),
                "/".into(),
                "%zz".into(),
                "%4".into()
            ])
        );
        assert_eq!(segments("%ff"), None);
    }

    #[test]
    fn pick_serves_head_as_get_and_lists_the_rest() {
        let t = || vec![("GET", 1), ("POST", 2)];
        assert_eq!(pick(&Method::HEAD, t(), ListOptions::No), Ok(1));
        assert_eq!(pick(&Method::POST, t(), ListOptions::No), Ok(2));
        assert_eq!(
            pick(&Method::PUT, t(), ListOptions::No),
            Err(vec!["GET", "HEAD", "POST"])
        );
        assert_eq!(
            pick(&Method::PUT, vec![("DELETE", 3)], ListOptions::Yes),
            Err(vec!["DELETE", "OPTIONS"])
        );
    }
}
