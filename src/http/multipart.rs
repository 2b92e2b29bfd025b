//! A `multipart/form-data` reader (RFC 7578) for bodies that are already in memory.
//!
//! Returns each part's field name, optional file name and bytes. Linear in the body (the
//! boundary may not contain CR, so no byte is compared more than twice), bounded in the number
//! of parts it collects, and it never panics on hostile input. Knows no API semantics.

/// One form field.
#[derive(Debug, PartialEq)]
pub struct Part {
    pub name: String,
    /// Present when the part is a file upload (`filename` in its `Content-Disposition`).
    pub filename: Option<String>,
    pub data: Vec<u8>,
}

/// Why a body could not be read.
#[derive(Debug, PartialEq, Eq)]
pub enum MultipartError {
    /// Not a well-formed `multipart/form-data` body for this boundary.
    Malformed,
    /// More parts than the caller accepts.
    TooManyParts,
}

/// Longest boundary RFC 2046 allows.
const MAX_BOUNDARY: usize = 70;

/// Whether `b` may appear in a boundary (RFC 2046 `bchars`).
fn is_bchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"'()+_,-./:=? ".contains(&b)
}

/// The boundary of a `multipart/form-data` content type, if it is one with a valid boundary.
pub fn boundary(content_type: &str) -> Option<String> {
    let mut params = content_type.split(';');
    let kind = params.next()?.trim();
    if !kind.eq_ignore_ascii_case("multipart/form-data") {
        return None;
    }
    params
        .find_map(|p| {
            let (k, v) = p.trim().split_once('=')?;
            k.trim()
                .eq_ignore_ascii_case("boundary")
                .then(|| v.trim().trim_matches('"').to_string())
        })
        .filter(|b| {
            !b.is_empty() && b.len() <= MAX_BOUNDARY && !b.ends_with(' ') && b.bytes().all(is_bchar)
        })
}

/// Whether a content type names `multipart/form-data` (with or without a usable boundary).
pub fn is_multipart(content_type: &str) -> bool {
    content_type
        .split(';')
        .next()
        .is_some_and(|kind| kind.trim().eq_ignore_ascii_case("multipart/form-data"))
}

/// The first position at or after `from` where `pat` starts. Linear as long as `pat` has its
/// only CR at index 0 (a failed comparison then stops at the next CR at the latest).
fn find_cr(hay: &[u8], pat: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < hay.len() {
        let cr = i + hay.get(i..)?.iter().position(|b| *b == b'\r')?;
        if hay.get(cr..)?.starts_with(pat) {
            return Some(cr);
        }
        i = cr + 1;
    }
    None
}

/// The end of a part's header block (the position of its blank line's CRLF CRLF).
fn header_end(hay: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < hay.len() {
        let cr = i + hay.get(i..)?.iter().position(|b| *b == b'\r')?;
        if hay.get(cr..)?.starts_with(b"\r\n\r\n") {
            return Some(cr);
        }
        i = cr + 1;
    }
    None
}

/// Parameters of a `Content-Disposition: form-data; name="a"; filename="b"` value: tokens
/// or quoted strings (with backslash escapes); `filename*` counts as a file name.
fn disposition(value: &str) -> Option<(Option<String>, Option<String>)> {
    let mut rest = value.trim_start();
    let kind_end = rest.find(';').unwrap_or(rest.len());
    if !rest[..kind_end].trim().eq_ignore_ascii_case("form-data") {
        return None;
    }
    rest = &rest[kind_end..];
    let (mut name, mut filename) = (None, None);
    while let Some(after) = rest.strip_prefix(';') {
        let after = after.trim_start();
        if after.is_empty() {
            break;
        }
        let eq = after.find('=')?;
        let key = after[..eq].trim().to_ascii_lowercase();
        let raw = after[eq + 1..].trim_start();
        let (val, tail) = if let Some(quoted) = raw.strip_prefix('"') {
            let mut out = String::new();
            let mut chars = quoted.char_indices();
            let mut end = None;
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => out.push(chars.next()?.1),
                    '"' => {
                        end = Some(i + 1);
                        break;
                    }
                    c => out.push(c),
                }
            }
            (out, &quoted[end?..])
        } else {
            let stop = raw.find(';').unwrap_or(raw.len());
            (raw[..stop].trim_end().to_string(), &raw[stop..])
        };
        match key.as_str() {
            "name" => name = Some(val),
            "filename" | "filename*" => filename = Some(val),
            _ => {}
        }
        rest = tail.trim_start();
    }
    if !rest.is_empty() {
        return None;
    }
    Some((name, filename))
}

/// Splits a body into at most `max_parts` parts.
pub fn parse_limited(
    body: &[u8],
    boundary: &str,
    max_parts: usize,
) -> Result<Vec<Part>, MultipartError> {
    use MultipartError::{Malformed, TooManyParts};
    if boundary.is_empty() || boundary.len() > MAX_BOUNDARY || !boundary.bytes().all(is_bchar) {
        return Err(Malformed);
    }
    // Every delimiter but a first one at the very start is preceded by CRLF.
    let mut delim = b"\r\n--".to_vec();
    delim.extend_from_slice(boundary.as_bytes());
    let mut pos = if body.starts_with(&delim[2..]) {
        delim.len() - 2
    } else {
        find_cr(body, &delim, 0).ok_or(Malformed)? + delim.len()
    };
    let mut parts = Vec::new();
    loop {
        let rest = body.get(pos..).ok_or(Malformed)?;
        if rest.starts_with(b"--") {
            return Ok(parts);
        }
        // Transport padding, then the CRLF ending the delimiter line.
        let pad = rest
            .iter()
            .take_while(|b| **b == b' ' || **b == b'\t')
            .count();
        if !rest.get(pad..).is_some_and(|r| r.starts_with(b"\r\n")) {
            return Err(Malformed);
        }
        if parts.len() >= max_parts {
            return Err(TooManyParts);
        }
        let head_start = pos + pad + 2;
        let (head, data_start) = if body
            .get(head_start..)
            .is_some_and(|r| r.starts_with(b"\r\n"))
        {
            ("", head_start + 2)
        } else {
            let end = header_end(body, head_start).ok_or(Malformed)?;
            let head = body.get(head_start..end).ok_or(Malformed)?;
            (std::str::from_utf8(head).map_err(|_| Malformed)?, end + 4)
        };
        let mut fields = None;
        for line in head.split("\r\n").filter(|l| !l.is_empty()) {
            let (k, v) = line.split_once(':').ok_or(Malformed)?;
            if k.trim().eq_ignore_ascii_case("content-disposition") {
                fields = Some(disposition(v).ok_or(Malformed)?);
            }
        }
        let (name, filename) = fields.ok_or(Malformed)?;
        let data_end = find_cr(body, &delim, data_start).ok_or(Malformed)?;
        parts.push(Part {
            name: name.ok_or(Malformed)?,
            filename,
            data: body.get(data_start..data_end).ok_or(Malformed)?.to_vec(),
        });
        pos = data_end + delim.len();
    }
}

/// Splits a body into parts; `None` if it is not well-formed.
pub fn parse(body: &[u8], boundary: &str) -> Option<Vec<Part>> {
    parse_limited(body, boundary, usize::MAX).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_fields_and_files() {
        let b = boundary("multipart/form-data; boundary=\"xyz\"").unwrap();
        let body = b"--xyz\r\nContent-Disposition: form-data; name=\"projectName\"\r\n\r\nacme\r\n--xyz\r\nContent-Disposition: form-data; name=\"bom\"; filename=\"bom.json\"\r\nContent-Type: application/json\r\n\r\n{\"a\":1}\r\n--xyz--\r\n";
        let parts = parse(body, &b).unwrap();
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].name, "projectName");
        assert_eq!(parts[0].data, b"acme");
        assert_eq!(parts[1].filename.as_deref(), Some("bom.json"));
        assert_eq!(parts[1].data, b"{\"a\":1}");
        assert!(parse(b"garbage", "xyz").is_none());
        assert!(boundary("application/json").is_none());
    }

    #[test]
    fn preamble_padding_quotes_and_empty_values() {
        let body = b"preamble\r\n--b1 \t\r\ncontent-disposition: form-data; name=\"a;\\\"b\"\r\n\r\n\r\n--b1\r\nContent-Disposition: form-data; name=plain\r\n\r\nx\r\ny\r\n--b1--";
        let parts = parse(body, "b1").unwrap();
        assert_eq!(parts[0].name, "a;\"b");
        assert_eq!(parts[0].data, b"");
        assert_eq!(parts[1].name, "plain");
        assert_eq!(parts[1].data, b"x\r\ny");
    }

    #[test]
    fn refuses_bad_boundaries_and_bodies() {
        assert!(boundary("multipart/form-data").is_none());
        assert!(boundary("multipart/form-data; boundary=a\rb").is_none());
        assert!(boundary(&format!("multipart/form-data; boundary={}", "a".repeat(71))).is_none());
        assert!(is_multipart("Multipart/Form-Data; boundary=x"));
        for bad in [
            &b"--b\r\n\r\nno disposition\r\n--b--"[..],
            b"--b\r\nContent-Disposition: form-data\r\n\r\nno name\r\n--b--",
            b"--b\r\nContent-Disposition: attachment; name=\"a\"\r\n\r\nx\r\n--b--",
            b"--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nunterminated",
            b"--b\r\nContent-Disposition: form-data; name=\"a\r\n\r\nx\r\n--b--",
            b"--bx\r\n",
            b"--b",
            b"",
        ] {
            assert_eq!(
                parse_limited(bad, "b", 10),
                Err(MultipartError::Malformed),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
        let three = b"--b\r\nContent-Disposition: form-data; name=a\r\n\r\n1\r\n--b\r\nContent-Disposition: form-data; name=b\r\n\r\n2\r\n--b\r\nContent-Disposition: form-data; name=c\r\n\r\n3\r\n--b--";
        assert_eq!(parse_limited(three, "b", 3).unwrap().len(), 3);
        assert_eq!(
            parse_limited(three, "b", 2),
            Err(MultipartError::TooManyParts)
        );
    }

    #[test]
    fn hostile_bodies_stay_linear() {
        // Many near-delimiters and CRs: a quadratic search would take minutes here.
        let boundary = "b".repeat(70);
        let mut body = format!("--{boundary}\r\nContent-Disposition: form-data; name=a\r\n\r\n");
        body.push_str(&format!("\r\n--{}", "b".repeat(69)).repeat(100_000));
        body.push_str(&"\r".repeat(1_000_000));
        let started = std::time::Instant::now();
        assert_eq!(
            parse_limited(body.as_bytes(), &boundary, 10),
            Err(MultipartError::Malformed)
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
    }
}
