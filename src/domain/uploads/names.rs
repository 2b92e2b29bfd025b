//! Names and URLs of uploads: the file name an upload is stored under, the content type it is
//! served with (and whether a browser may show it in place), and the percent-encoding of the
//! `path_id`s in upload URLs. Pure functions: no files, no database, no requests.

/// Longest stored file name, in characters.
const MAX_NAME_CHARS: usize = 128;

/// The file name an upload is stored and linked under: the last path component of what the
/// client sent, keeping letters, digits, `.`, `-` and `_`, with whitespace as `-`; never empty,
/// never starting with a dot.
pub fn sanitize_name(raw: &str) -> String {
    let base = raw.rsplit(['/', '\\']).next().unwrap_or("");
    let mut out = String::new();
    for c in base.trim().chars() {
        if c.is_alphanumeric() || matches!(c, '.' | '-' | '_') {
            out.push(c);
        } else if c.is_whitespace() {
            out.push('-');
        }
    }
    let out: String = out
        .trim_start_matches(['.', '-'])
        .chars()
        .take(MAX_NAME_CHARS)
        .collect();
    if out.is_empty() {
        "uploaded-file".to_string()
    } else {
        out
    }
}

/// The content type a stored name is served with, and whether it is an image.
pub fn content_type_for(name: &str) -> (&'static str, bool) {
    let ext = name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "png" => ("image/png", true),
        "jpg" | "jpeg" => ("image/jpeg", true),
        "gif" => ("image/gif", true),
        "webp" => ("image/webp", true),
        "bmp" => ("image/bmp", true),
        "svg" => ("image/svg+xml", true),
        "pdf" => ("application/pdf", false),
        "txt" | "log" => ("text/plain", false),
        "md" => ("text/markdown", false),
        "csv" => ("text/csv", false),
        "json" => ("application/json", false),
        "html" | "htm" => ("text/html", false),
        "zip" => ("application/zip", false),
        "gz" => ("application/gzip", false),
        "mp3" => ("audio/mpeg", false),
        "ogg" => ("audio/ogg", false),
        "wav" => ("audio/wav", false),
        "mp4" => ("video/mp4", false),
        "webm" => ("video/webm", false),
        _ => ("application/octet-stream", false),
    }
}

/// Whether a browser may show this type in place (`Content-Disposition: inline`): types that
/// cannot run script in the server's origin. Everything else is served as an attachment.
pub fn serves_inline(content_type: &str) -> bool {
    matches!(
        content_type,
        "image/png"
            | "image/jpeg"
            | "image/gif"
            | "image/webp"
            | "image/bmp"
            | "application/pdf"
            | "text/plain"
            | "audio/mpeg"
            | "audio/ogg"
            | "audio/wav"
            | "video/mp4"
            | "video/webm"
    )
}

/// Percent-encodes a `path_id` for a URL (every byte outside `A-Za-z0-9 . - _ /`).
pub fn encode_path(path_id: &str) -> String {
    let mut out = String::with_capacity(path_id.len());
    for b in path_id.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The URL (path) of an upload, as `POST /user_uploads` answers it and messages link it.
pub fn url_of(path_id: &str) -> String {
    format!("/user_uploads/{}", encode_path(path_id))
}

pub(super) fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let Some(v) = std::str::from_utf8(&b[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_sanitized() {
        assert_eq!(sanitize_name("../../etc/passwd"), "passwd");
        assert_eq!(sanitize_name("..\\..\\boot.ini"), "boot.ini");
        assert_eq!(sanitize_name("my photo (1).png"), "my-photo-1.png");
        assert_eq!(sanitize_name(".."), "uploaded-file");
        assert_eq!(sanitize_name(".hidden"), "hidden");
        assert_eq!(sanitize_name(""), "uploaded-file");
        assert_eq!(sanitize_name("naïve.txt"), "naïve.txt");
        assert_eq!(sanitize_name(&"a".repeat(500)).len(), MAX_NAME_CHARS);
    }
}
