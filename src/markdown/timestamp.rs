//! Global times: `<time:2024-05-06T15:00:00-04:00>` → `<time datetime="2024-05-06T19:00:00Z">…</time>`.
//!
//! Accepts ISO 8601 date-times (a missing offset means UTC) and Unix timestamps, as upstream
//! does; anything else stays as the text typed (upstream's behaviour since feature level 451).

use super::html;

/// If `s` starts with `<time:…>` (with `<` hidden as [`html::LT`]), its length in bytes.
pub(super) fn at(s: &str) -> Option<usize> {
    let rest = s.strip_prefix(html::LT)?.strip_prefix("time:")?;
    let end = rest.find(['>', html::LT, '\n'])?;
    rest[end..]
        .starts_with('>')
        .then(|| html::LT.len_utf8() + "time:".len() + end + 1)
}

/// Renders the `<time:…>` syntax `s` (as found by [`at`]).
pub(super) fn render(out: &mut String, s: &str) {
    let body = &s[html::LT.len_utf8() + "time:".len()..s.len() - 1];
    match datetime(body) {
        Some(iso) => {
            out.push_str("<time datetime=\"");
            out.push_str(&iso);
            out.push_str("\">");
            html::text(out, body);
            out.push_str("</time>");
        }
        None => html::text(out, s),
    }
}

/// The UTC time `s` stands for, as `YYYY-MM-DDTHH:MM:SSZ`.
fn datetime(s: &str) -> Option<String> {
    let s = s.trim();
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        let secs: f64 = s.parse().ok()?;
        if !(0.0..=253_402_300_799.0).contains(&secs) {
            return None;
        }
        return Some(crate::time::rfc3339_utc(secs as i64));
    }
    crate::time::parse_iso8601(s).map(crate::time::rfc3339_utc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_iso_and_unix() {
        assert_eq!(
            datetime("2017-06-05T22:30:00Z").as_deref(),
            Some("2017-06-05T22:30:00Z")
        );
        assert_eq!(
            datetime("2017-12-31").as_deref(),
            Some("2017-12-31T00:00:00Z")
        );
        assert_eq!(
            datetime("2024-05-06T15:00:00-04:00").as_deref(),
            Some("2024-05-06T19:00:00Z")
        );
        assert_eq!(
            datetime("2017-12-31T05:30+05:30").as_deref(),
            Some("2017-12-31T00:00:00Z")
        );
        assert_eq!(
            datetime("1496701800").as_deref(),
            Some("2017-06-05T22:30:00Z")
        );
        assert_eq!(datetime("2024-02-30"), None);
        assert_eq!(datetime("**hello world**"), None);
        assert_eq!(datetime(""), None);
    }

    #[test]
    fn renders() {
        let lt = html::LT;
        let s = format!("{lt}time:2017-06-05T22:30:00Z> later");
        let n = at(&s).unwrap();
        let mut out = String::new();
        render(&mut out, &s[..n]);
        assert_eq!(
            out,
            "<time datetime=\"2017-06-05T22:30:00Z\">2017-06-05T22:30:00Z</time>"
        );
        let s = format!("{lt}time:nonsense>");
        let mut out = String::new();
        render(&mut out, &s[..at(&s).unwrap()]);
        assert_eq!(out, "&lt;time:nonsense&gt;");
        assert_eq!(at(&format!("{lt}time:x")), None);
    }
}
