//! Custom emoji: `GET /realm/emoji`, `POST /realm/emoji/{emoji_name}` (the image in a
//! `multipart/form-data` body), `DELETE /realm/emoji/{emoji_name}`, and the pictures under
//! `/user_avatars/<realm>/emoji/images/` (outside `/api/v1`, without credentials, as upstream
//! serves them). The rules are `domain::realm_emoji`'s.

use hyper::StatusCode;
use hyper::header;

use super::envelope::{Success, error_response};
use super::wire;
use crate::domain::realm_emoji;
use crate::error::{Error, Result};
use crate::http::multipart;
use crate::http::{Request, Response};
use crate::model::User;
use crate::zulip::ChatState;

/// Most parts an emoji body may have.
const MAX_PARTS: usize = 16;

/// # `GET /api/v1/realm/emoji`
pub async fn list(state: &ChatState) -> Result<Success> {
    let all = realm_emoji::list(state).await?;
    Ok(Success::new().field("emoji", wire::emoji::realm_emoji_map(&all)))
}

/// The files of a `multipart/form-data` body (none for any other body), or why it could not
/// be read.
async fn files_of(state: &ChatState, req: &Request) -> realm_emoji::Files {
    let content_type = req.header("content-type").unwrap_or("");
    if !multipart::is_multipart(content_type) {
        return Ok(Vec::new());
    }
    let malformed = || Error::bad_request("Malformed multipart/form-data body");
    let boundary = multipart::boundary(content_type).ok_or_else(malformed)?;
    let body = req.body.clone();
    let parts = state
        .db
        .cpu(move || multipart::parse_limited(&body, &boundary, MAX_PARTS))
        .await?
        .map_err(|_| malformed())?;
    Ok(parts
        .into_iter()
        .filter(|p| p.filename.is_some())
        .map(|p| bytes::Bytes::from(p.data))
        .collect())
}

/// # `POST /api/v1/realm/emoji/{emoji_name}`
pub async fn upload(
    state: &ChatState,
    caller: &User,
    name: &str,
    req: &Request,
) -> Result<Success> {
    let files = files_of(state, req).await;
    realm_emoji::add(state, caller, name, files).await?;
    Ok(Success::new())
}

/// # `DELETE /api/v1/realm/emoji/{emoji_name}`
pub async fn deactivate(state: &ChatState, caller: &User, name: String) -> Result<Success> {
    realm_emoji::deactivate(state, caller, name).await?;
    Ok(Success::new())
}

/// `GET`/`HEAD /user_avatars/<realm>/emoji/images/[still/]<file>`: a stored picture.
pub async fn serve(state: &ChatState, segs: Vec<String>) -> Response {
    let found = match realm_emoji::find_picture(state, segs).await {
        Ok(f) => f,
        Err(e) => return error_response(&e),
    };
    let (path, content_type) = found;
    let read = tokio::task::spawn_blocking(move || std::fs::read(path)).await;
    let data = match read {
        Ok(Ok(d)) => d,
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return error_response(&Error::not_found("File not found."));
        }
        Ok(Err(e)) => return error_response(&Error::internal(format!("reading an emoji: {e}"))),
        Err(e) => return error_response(&Error::internal(format!("emoji reader: {e}"))),
    };
    hyper::Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, content_type)
        // A picture never changes under its (random) name.
        .header(header::CACHE_CONTROL, "public, max-age=31536000, immutable")
        .header("x-content-type-options", "nosniff")
        .header("content-security-policy", "default-src 'none'; sandbox")
        .body(http_body_util::Full::new(bytes::Bytes::from(data)))
        .unwrap_or_else(|_| super::envelope::internal_error_response())
}
