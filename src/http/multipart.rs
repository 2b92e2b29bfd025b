//! A small `multipart/form-data` reader for bodies that are already in memory.
//!
//! Returns each part's field name, optional file name and bytes. Knows no API semantics.

/// One form field.
#[derive(Debug, PartialEq)]
pub struct Part {
    pub name: String,
    pub filename: Option<String>,
    pub data: Vec<u8>,
}

/// The boundary of a `multipart/form-data` content type, if it is one.
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
        .filter(|b| !b.is_empty())
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if needle.is_empty() || hay.len() < needle.len() {
        return None;
    }
    (from..=hay.len() - needle.len()).find(|&i| &hay[i..i + needle.len()] == needle)
}

fn disposition_param(line: &str, key: &str) -> Option<String> {
    line.split(';').skip(1).find_map(|p| {
        let (k, v) = p.trim().split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case(key)
            .then(|| v.trim().trim_matches('"').to_string())
    })
}

/// Splits a body into parts; `None` if it is not well-formed.
pub fn parse(body: &[u8], boundary: &str) -> Option<Vec<Part>> {
    let delim = format!("--{boundary}").into_bytes();
    let mut pos = find(body, &delim, 0)? + delim.len();
    let mut parts = Vec::new();
    loop {
        if body.get(pos..pos + 2) == Some(b"--") {
            return Some(parts);
        }
        if body.get(pos..pos + 2) != Some(b"\r\n") {
            return None;
        }
        pos += 2;
        let head_end = find(body, b"\r\n\r\n", pos)?;
        let head = std::str::from_utf8(&body[pos..head_end]).ok()?;
        let mut name = None;
        let mut filename = None;
        for line in head.split("\r\n") {
            let (k, v) = line.split_once(':')?;
            if k.trim().eq_ignore_ascii_case("content-disposition") {
                name = disposition_param(v, "name");
                filename = disposition_param(v, "filename");
            }
        }
        let data_start = head_end + 4;
        let mut next_delim = b"\r\n".to_vec();
        next_delim.extend_from_slice(&delim);
        let data_end = find(body, &next_delim, data_start)?;
        parts.push(Part {
            name: name?,
            filename,
            data: body[data_start..data_end].to_vec(),
        });
        pos = data_end + next_delim.len();
    }
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
}
