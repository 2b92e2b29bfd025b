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
        return Some(format_utc(secs as i64));
    }
    let num = |t: &str| -> Option<i64> {
        (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
            .then(|| t.parse().ok())
            .flatten()
    };
    if s.len() < 10 || !s.is_char_boundary(10) || !s.is_ascii() {
        return None;
    }
    let (date, rest) = s.split_at(10);
    let mut d = date.split('-');
    let (y, mo, day) = (num(d.next()?)?, num(d.next()?)?, num(d.next()?)?);
    if date.len() != 10 || d.next().is_some() || !(1..=12).contains(&mo) {
        return None;
    }
    if day < 1 || day > days_in_month(y, mo) {
        return None;
    }
    let (mut h, mut mi, mut sec, mut offset) = (0, 0, 0, 0);
    if !rest.is_empty() {
        let rest = rest.strip_prefix(['T', 't', ' '])?;
        // Split off the zone: `Z`, or `+`/`-` after the time.
        let (time, zone) = match rest.find(['Z', 'z', '+', '-']) {
            Some(i) => rest.split_at(i),
            None => (rest, ""),
        };
        let time = time.split('.').next()?; // fractions of a second are dropped
        let mut t = time.split(':');
        h = num(t.next()?)?;
        mi = num(t.next()?)?;
        sec = match t.next() {
            Some(x) => num(x)?,
            None => 0,
        };
        if t.next().is_some() || h > 23 || mi > 59 || sec > 59 {
            return None;
        }
        if !zone.is_empty() && !zone.eq_ignore_ascii_case("z") {
            let sign = if zone.starts_with('-') { -1 } else { 1 };
            let z = zone[1..].replace(':', "");
            if z.len() != 4 && z.len() != 2 {
                return None;
            }
            let zh = num(&z[..2])?;
            let zm = if z.len() == 4 { num(&z[2..])? } else { 0 };
            if zh > 23 || zm > 59 {
                return None;
            }
            offset = sign * (zh * 3600 + zm * 60);
        }
    }
    let secs = days_from_civil(y, mo, day) * 86_400 + h * 3600 + mi * 60 + sec - offset;
    Some(format_utc(secs))
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn format_utc(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
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
