//! Uploads: `POST /user_uploads` (one file in a `multipart/form-data` body), the download route
//! `/user_uploads/...` outside `/api/v1` (credentials or a temporary URL; `Content-Type`,
//! `Content-Disposition`, caching headers and single byte ranges), the API's temporary URL
//! (`GET /api/v1/user_uploads/{realm_id_str}/{filename}`), and `GET`/`DELETE /attachments`.
//! Temporary URLs' tokens never reach the request log ([`loggable_path`]). The rules are
//! `domain::uploads`'.

use hyper::StatusCode;
use hyper::header::{self, HeaderValue};
use serde_json::Value;

use super::envelope::{Success, error_response};
use super::wire;
use crate::domain::uploads::{self, Download};
use crate::error::{Error, Result};
use crate::http::multipart;
use crate::http::{Request, Response};
use crate::model::User;
use crate::zulip::ChatState;

/// Most parts an upload body may have (the file plus a few form fields).
const MAX_UPLOAD_PARTS: usize = 16;

/// Extra bytes an upload body may have over the file size limit: the multipart framing and a
/// few small fields.
pub const MULTIPART_SLACK: usize = 64 * 1024;

/// A `filename*` value in RFC 5987 form (`UTF-8''name%20x`) decoded; other names unchanged.
fn decode_filename(raw: &str) -> String {
    let lower = raw.to_ascii_lowercase();
    if let Some(rest) = lower
        .starts_with("utf-8''")
        .then(|| &raw["utf-8''".len()..])
    {
        return crate::http::route::percent_decode(rest).unwrap_or_else(|| rest.to_string());
    }
    raw.to_string()
}

/// # `POST /api/v1/user_uploads`
pub async fn upload_file(state: &ChatState, caller: &User, req: &Request) -> Result<Success> {
    let no_file = || Error::bad_request("You must specify a file to upload");
    let content_type = req.header("content-type").unwrap_or("");
    if !multipart::is_multipart(content_type) {
        return Err(no_file());
    }
    let boundary = multipart::boundary(content_type)
        .ok_or_else(|| Error::bad_request("Malformed multipart/form-data body"))?;
    let body = req.body.clone();
    let parts = state
        .db
        .cpu(move || multipart::parse_limited(&body, &boundary, MAX_UPLOAD_PARTS))
        .await?
        .map_err(|_| Error::bad_request("Malformed multipart/form-data body"))?;
    let mut files = parts.into_iter().filter(|p| p.filename.is_some());
    let file = files.next().ok_or_else(no_file)?;
    if files.next().is_some() {
        return Err(Error::bad_request("You may only upload one file at a time"));
    }
    let name = decode_filename(file.filename.as_deref().unwrap_or(""));
    let up = uploads::upload(state, caller, &name, file.data.into()).await?;
    Ok(Success::new()
        .field("uri", up.url.clone())
        .field("url", up.url)
        .field("filename", up.filename))
}

/// # `GET /api/v1/user_uploads/{realm_id_str}/{filename}`: a temporary URL of a file.
pub async fn temporary_url(state: &ChatState, caller: &User, path_id: String) -> Result<Success> {
    let url = uploads::temporary_url(state, caller, path_id, crate::time::now_secs()).await?;
    Ok(Success::new().field("url", url))
}

/// # `GET /api/v1/attachments`
pub async fn list_attachments(state: &ChatState, caller: &User) -> Result<Success> {
    let (list, used) = uploads::list(state, caller).await?;
    let list: Vec<Value> = list.iter().map(wire::uploads::attachment).collect();
    Ok(Success::new()
        .field("attachments", list)
        .field("upload_space_used", used))
}

/// # `DELETE /api/v1/attachments/{attachment_id}`
pub async fn remove_attachment(state: &ChatState, caller: &User, id: i64) -> Result<Success> {
    uploads::delete(state, caller, id).await?;
    Ok(Success::new())
}

/// A requested byte range, resolved against the file size.
#[derive(Debug, PartialEq, Eq)]
pub enum Range {
    /// No (usable) `Range` header: the whole file.
    Whole,
    /// Bytes `start..=end`.
    Part(u64, u64),
    /// A syntactically valid range that lies outside the file.
    Unsatisfiable,
}

/// Reads a `Range` header for a file of `size` bytes. Only one `bytes=` range is honoured;
/// anything else (several ranges, other units, bad syntax) gets the whole file, as RFC 9110
/// allows.
pub fn parse_range(header: Option<&str>, size: u64) -> Range {
    let Some(spec) = header.and_then(|h| h.trim().strip_prefix("bytes=")) else {
        return Range::Whole;
    };
    if spec.contains(',') {
        return Range::Whole;
    }
    let Some((a, b)) = spec.trim().split_once('-') else {
        return Range::Whole;
    };
    let num = |s: &str| -> Option<u64> {
        (!s.is_empty() && s.bytes().all(|c| c.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    match (a.trim(), b.trim()) {
        ("", suffix) => match num(suffix) {
            Some(0) => Range::Unsatisfiable,
            Some(_) if size == 0 => Range::Unsatisfiable,
            Some(n) => Range::Part(size.saturating_sub(n), size - 1),
            None => Range::Whole,
        },
        (start, end) => {
            let Some(start) = num(start) else {
                return Range::Whole;
            };
            let end = if end.is_empty() {
                None
            } else {
                match num(end) {
                    Some(e) if e >= start => Some(e),
                    _ => return Range::Whole,
                }
            };
            if start >= size {
                return Range::Unsatisfiable;
            }
            Range::Part(start, end.unwrap_or(size - 1).min(size - 1))
        }
    }
}

/// `Content-Disposition` of a download: inline for types a browser shows safely, else an
/// attachment; the name as a plain `filename` when it is ASCII, and as `filename*` always.
fn disposition(content_type: &str, name: &str) -> String {
    let kind = if uploads::serves_inline(content_type) {
        "inline"
    } else {
        "attachment"
    };
    let encoded = uploads::encode_path(name);
    if name.is_ascii() {
        format!("{kind}; filename=\"{name}\"; filename*=UTF-8''{encoded}")
    } else {
        format!("{kind}; filename*=UTF-8''{encoded}")
    }
}

fn header_value(s: &str) -> HeaderValue {
    HeaderValue::from_str(s)
        .unwrap_or_else(|_| HeaderValue::from_static("application/octet-stream"))
}

/// Reads the requested part of a file from disk (on a blocking thread).
async fn read_part(d: &Download, range: &Range) -> Result<bytes::Bytes> {
    use std::io::{Read as _, Seek as _, SeekFrom};
    let path = d.path.clone();
    let (start, len) = match range {
        Range::Part(s, e) => (*s, e - s + 1),
        _ => (0, d.attachment.size.max(0) as u64),
    };
    tokio::task::spawn_blocking(move || -> std::io::Result<Vec<u8>> {
        let mut f = std::fs::File::open(&path)?;
        f.seek(SeekFrom::Start(start))?;
        let mut buf = Vec::with_capacity(len as usize);
        f.take(len).read_to_end(&mut buf)?;
        Ok(buf)
    })
    .await
    .map_err(|e| Error::internal(format!("upload reader: {e}")))?
    .map(bytes::Bytes::from)
    .map_err(|e| Error::internal(format!("reading an upload: {e}")))
}

/// The answer to a download of `d`: the file or the requested range, with its headers.
async fn file_response(d: Download, req: &Request) -> Response {
    let size = d.attachment.size.max(0) as u64;
    let range = parse_range(req.header("range"), size);
    let mut builder = hyper::Response::builder()
        .header(header::ACCEPT_RANGES, "bytes")
        // Uploads never change under their URL; only the requester's browser may keep one.
        .header(header::CACHE_CONTROL, "private, max-age=86400, immutable")
        .header("x-content-type-options", "nosniff")
        .header("content-security-policy", "default-src 'none'; sandbox")
        .header(
            header::CONTENT_TYPE,
            header_value(&d.attachment.content_type),
        )
        .header(
            header::CONTENT_DISPOSITION,
            header_value(&disposition(&d.attachment.content_type, &d.attachment.name)),
        );
    let status = match range {
        Range::Unsatisfiable => {
            return hyper::Response::builder()
                .status(StatusCode::RANGE_NOT_SATISFIABLE)
                .header(header::CONTENT_RANGE, format!("bytes */{size}"))
                .header(header::ACCEPT_RANGES, "bytes")
                .body(http_body_util::Full::new(bytes::Bytes::new()))
                .unwrap_or_else(|_| super::envelope::internal_error_response());
        }
        Range::Part(s, e) => {
            builder = builder.header(header::CONTENT_RANGE, format!("bytes {s}-{e}/{size}"));
            StatusCode::PARTIAL_CONTENT
        }
        Range::Whole => StatusCode::OK,
    };
    let body = match read_part(&d, &range).await {
        Ok(b) => b,
        Err(e) => return error_response(&e),
    };
    builder
        .status(status)
        .body(http_body_util::Full::new(body))
        .unwrap_or_else(|_| super::envelope::internal_error_response())
}

/// Where temporary download URLs live (`/user_uploads/temporary/<token>/<name>`).
pub const TEMPORARY_PREFIX: &str = "/user_uploads/temporary/";

/// A path as logged: a temporary URL's token (a bearer credential for the file until it
/// expires) and the name after it are hidden, as signup links' keys are. The first segment is
/// compared decoded, as the router does, so `%74emporary` is hidden too.
pub fn loggable_path(path: &str) -> Option<std::borrow::Cow<'static, str>> {
    let rest = path.strip_prefix("/user_uploads/")?;
    let mut segs = rest.split('/').filter(|s| !s.is_empty());
    let first = crate::http::route::percent_decode(segs.next()?)?;
    (first == "temporary" && segs.next().is_some())
        .then_some(std::borrow::Cow::Owned(format!("{TEMPORARY_PREFIX}***")))
}

/// `GET`/`HEAD /user_uploads/<realm>/<..>/<name>` (with the caller's credentials, checked at
/// admission) and `/user_uploads/temporary/<token>/<name>` (without).
pub async fn serve(
    state: &ChatState,
    req: &Request,
    caller: Option<&User>,
    segs: Vec<String>,
) -> Response {
    if segs.first().is_some_and(|s| s == "thumbnail") {
        return thumbnail(state, caller, segs).await;
    }
    let found = match (segs.as_slice(), caller) {
        ([first, token, ..], _) if first == "temporary" => {
            uploads::find_temporary(state, token, crate::time::now_secs()).await
        }
        (_, Some(me)) => uploads::find_for(state, me, segs.join("/")).await,
        (_, None) => Err(Error::unauthorized(
            "Not logged in: API authentication or user session required",
        )),
    };
    match found {
        Ok(d) => file_response(d, req).await,
        Err(e) => error_response(&e),
    }
}

/// `GET`/`HEAD /user_uploads/thumbnail/<path_id>/<format>`: an image's thumbnail, for those
/// who may download the image.
async fn thumbnail(state: &ChatState, caller: Option<&User>, segs: Vec<String>) -> Response {
    let Some(me) = caller else {
        return error_response(&Error::unauthorized(
            "Not logged in: API authentication or user session required",
        ));
    };
    let (Some(format), true) = (segs.last(), segs.len() >= 3) else {
        return error_response(&Error::not_found("File not found."));
    };
    let path_id = segs[1..segs.len() - 1].join("/");
    match uploads::thumbnail_for(state, me, path_id, format).await {
        Ok(data) => hyper::Response::builder()
            .status(StatusCode::OK)
            .header(header::CONTENT_TYPE, "image/webp")
            .header(header::CACHE_CONTROL, "private, max-age=86400, immutable")
            .header("x-content-type-options", "nosniff")
            .header("content-security-policy", "default-src 'none'; sandbox")
            .header(header::CONTENT_DISPOSITION, "inline")
            .body(http_body_util::Full::new(data))
            .unwrap_or_else(|_| super::envelope::internal_error_response()),
        Err(e) => error_response(&e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert_eq!(parse_range(None, 10), Range::Whole);
        assert_eq!(parse_range(Some("bytes=0-3"), 10), Range::Part(0, 3));
        assert_eq!(parse_range(Some("bytes=4-"), 10), Range::Part(4, 9));
        assert_eq!(parse_range(Some("bytes=-3"), 10), Range::Part(7, 9));
        assert_eq!(parse_range(Some("bytes=-30"), 10), Range::Part(0, 9));
        assert_eq!(parse_range(Some("bytes=5-100"), 10), Range::Part(5, 9));
        assert_eq!(parse_range(Some("bytes=10-"), 10), Range::Unsatisfiable);
        assert_eq!(parse_range(Some("bytes=-0"), 10), Range::Unsatisfiable);
        assert_eq!(parse_range(Some("bytes=3-1"), 10), Range::Whole);
        assert_eq!(parse_range(Some("bytes=0-1,4-5"), 10), Range::Whole);
        assert_eq!(parse_range(Some("items=0-1"), 10), Range::Whole);
        assert_eq!(parse_range(Some("bytes=x-1"), 10), Range::Whole);
    }

    #[test]
    fn dispositions() {
        assert_eq!(
            disposition("image/png", "a.png"),
            "inline; filename=\"a.png\"; filename*=UTF-8''a.png"
        );
        assert_eq!(
            disposition("text/html", "naïve.html"),
            "attachment; filename*=UTF-8''na%C3%AFve.html"
        );
        assert_eq!(decode_filename("UTF-8''na%C3%AFve.txt"), "naïve.txt");
    }
}
