//! Wall-clock time and every date format the APIs print or read, in one place.
//!
//! UNIX seconds in, text out (and back): `2024-05-01T13:07+00:00` ([`iso_minutes`]),
//! `2024-05-01T13:07:09+00:00` ([`iso_seconds`]), `2024-05-01T13:07:09Z` ([`rfc3339_utc`]);
//! RFC 3339 as OSV records carry it ([`parse_rfc3339_millis`]) and the looser ISO 8601 of
//! Zulip's `<time:…>` syntax ([`parse_iso8601`]). The calendar itself is the `time` crate's
//! (proleptic Gregorian, UTC); no other module computes civil dates.
//!
//! Must not touch: time zones other than UTC, global state, or any API's wording.

use std::time::{SystemTime, UNIX_EPOCH};

use time::{Date, Month, OffsetDateTime, PrimitiveDateTime};

/// Seconds since the UNIX epoch, now.
pub fn now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Milliseconds since the UNIX epoch, now.
pub fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// The UTC instant `secs` after the epoch, clamped into the calendar's range (±999,999 years).
fn utc(secs: i64) -> OffsetDateTime {
    let min = PrimitiveDateTime::MIN.assume_utc().unix_timestamp();
    let max = PrimitiveDateTime::MAX.assume_utc().unix_timestamp();
    OffsetDateTime::from_unix_timestamp(secs.clamp(min, max)).expect("clamped into range")
}

/// `YYYY-MM-DDTHH:MM` of `t` (negative years as `-001`).
fn date_hour_minute(t: OffsetDateTime) -> String {
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute()
    )
}

/// `2024-05-01T13:07+00:00`: UTC with minute precision, as Zulip prints `date_joined`.
pub fn iso_minutes(secs: i64) -> String {
    format!("{}+00:00", date_hour_minute(utc(secs)))
}

/// `2024-05-01T13:07:09+00:00`: UTC with second precision.
pub fn iso_seconds(secs: i64) -> String {
    let t = utc(secs);
    format!("{}:{:02}+00:00", date_hour_minute(t), t.second())
}

/// `2024-05-01T13:07:09Z`: UTC with second precision and the `Z` suffix (Dependency-Track's
/// export stamps, the `datetime` of a rendered `<time:…>`).
pub fn rfc3339_utc(secs: i64) -> String {
    let t = utc(secs);
    format!("{}:{:02}Z", date_hour_minute(t), t.second())
}

/// Seconds since the epoch of a UTC civil time. With `lenient_day`, a day past its month's
/// end counts on into the next month (OSV's parser always did); otherwise it is refused.
fn civil_secs(
    year: i64,
    month: i64,
    day: i64,
    (h, mi, s): (i64, i64, i64),
    lenient_day: bool,
) -> Option<i64> {
    let year = i32::try_from(year).ok()?;
    let month = Month::try_from(u8::try_from(month).ok()?).ok()?;
    if !lenient_day && (day < 1 || day > i64::from(time::util::days_in_month(month, year))) {
        return None;
    }
    let first = Date::from_calendar_date(year, month, 1).ok()?;
    let midnight = first.midnight().assume_utc().unix_timestamp();
    Some(midnight + (day - 1) * 86_400 + h * 3600 + mi * 60 + s)
}

/// RFC 3339 (`2021-01-02T03:04:05.678Z`; `t` or a space for `T`, an offset `±HH:MM`, `Z` or
/// none for UTC, any fraction) → epoch milliseconds. Days 1 to 31 are taken in every month;
/// anything else malformed is `None`.
pub fn parse_rfc3339_millis(s: &str) -> Option<i64> {
    let s = s.trim();
    let b = s.as_bytes();
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let t = s.get(r)?;
        t.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| t.parse().ok())?
    };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, se) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || se > 60 {
        return None;
    }
    let mut rest = &s[19..];
    let mut millis = 0;
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let ms: String = frac[..digits]
            .chars()
            .chain("000".chars())
            .take(3)
            .collect();
        millis = ms.parse().ok()?;
        rest = &frac[digits..];
    }
    let offset_min = match rest {
        "Z" | "z" | "" => 0,
        o if o.len() == 6
            && (o.starts_with('+') || o.starts_with('-'))
            && o.get(3..4) == Some(":") =>
        {
            let sign = if o.starts_with('-') { -1 } else { 1 };
            let part = |t: Option<&str>| -> Option<i64> {
                let t = t?;
                t.bytes()
                    .all(|c| c.is_ascii_digit())
                    .then(|| t.parse().ok())?
            };
            sign * (part(o.get(1..3))? * 60 + part(o.get(4..6))?)
        }
        _ => return None,
    };
    let secs = civil_secs(y, mo, d, (h, mi, se), true)? - offset_min * 60;
    Some(secs * 1000 + millis)
}

/// An ISO 8601 date (`2017-12-31`) or date-time (`2024-05-06T15:00`, `…:00Z`,
/// `…:00-04:00`, `…+0530`, `…+05`; `t` or a space for `T`; fractions dropped; no zone means
/// UTC) → epoch seconds. A day its month does not have is `None`.
pub fn parse_iso8601(s: &str) -> Option<i64> {
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
    Some(civil_secs(y, mo, day, (h, mi, sec), false)? - offset)
}

/// The (year, month 1–12) of a UTC day counted from the epoch (day 0 = 1970-01-01).
pub fn year_month_of_day(day: i64) -> (i64, i64) {
    let t = utc(day.saturating_mul(86_400));
    (i64::from(t.year()), i64::from(u8::from(t.month())))
}

/// `YYYYMMDD` (exactly eight digits, a day the month has) → epoch milliseconds of that day's
/// start in UTC, as Dependency-Track's metrics history reads its `since` dates.
pub fn parse_short_date_millis(s: &str) -> Option<i64> {
    if s.len() != 8 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let year: i32 = s[..4].parse().ok()?;
    let month = Month::try_from(s[4..6].parse::<u8>().ok()?).ok()?;
    let day: u8 = s[6..].parse().ok()?;
    let date = Date::from_calendar_date(year, month, day).ok()?;
    Some(date.midnight().assume_utc().unix_timestamp() * 1000)
}

#[cfg(test)]
mod tests {
    #[test]
    fn short_dates_are_eight_digits_of_a_real_day() {
        assert_eq!(super::parse_short_date_millis("19700102"), Some(86_400_000));
        assert_eq!(
            super::parse_short_date_millis("20240229"),
            Some(1_709_164_800_000)
        );
        for bad in [
            "20230229",
            "20241301",
            "2024011",
            "2024-01-01",
            "+2024011",
            "20240100",
            "",
        ] {
            assert_eq!(super::parse_short_date_millis(bad), None, "{bad}");
        }
    }

    #[test]
    fn days_name_their_year_and_month() {
        assert_eq!(super::year_month_of_day(0), (1970, 1));
        assert_eq!(super::year_month_of_day(19_782), (2024, 2));
        assert_eq!(super::year_month_of_day(-1), (1969, 12));
    }

    use super::*;

    #[test]
    fn iso_minutes_formats_known_instants() {
        assert_eq!(iso_minutes(0), "1970-01-01T00:00+00:00");
        assert_eq!(iso_minutes(951_782_400), "2000-02-29T00:00+00:00");
        assert_eq!(iso_minutes(1_700_000_000), "2023-11-14T22:13+00:00");
        assert_eq!(iso_seconds(1_700_000_009), "2023-11-14T22:13:29+00:00");
    }

    #[test]
    fn every_format_pins_leap_days_and_edges() {
        // 2024-02-29T23:59:59, a leap day.
        let leap = 1_709_251_199;
        assert_eq!(iso_minutes(leap), "2024-02-29T23:59+00:00");
        assert_eq!(iso_seconds(leap), "2024-02-29T23:59:59+00:00");
        assert_eq!(rfc3339_utc(leap), "2024-02-29T23:59:59Z");
        // Before the epoch and far ahead of it.
        assert_eq!(iso_minutes(-1), "1969-12-31T23:59+00:00");
        assert_eq!(iso_seconds(-86_400 * 365), "1969-01-01T00:00:00+00:00");
        assert_eq!(rfc3339_utc(-62_167_219_200), "0000-01-01T00:00:00Z");
        assert_eq!(rfc3339_utc(-62_167_219_201), "-001-12-31T23:59:59Z");
        assert_eq!(rfc3339_utc(253_402_300_799), "9999-12-31T23:59:59Z");
        assert_eq!(rfc3339_utc(253_402_300_800), "10000-01-01T00:00:00Z");
        assert_eq!(iso_seconds(4_102_444_800), "2100-01-01T00:00:00+00:00");
    }

    #[test]
    fn rfc3339_parses_to_millis() {
        assert_eq!(
            parse_rfc3339_millis("2024-02-29T00:00:00Z"),
            Some(1_709_164_800_000)
        );
        assert_eq!(parse_rfc3339_millis("1969-12-31T23:59:59.9Z"), Some(-100));
        assert_eq!(
            parse_rfc3339_millis("2100-03-01 00:00:00+01:00"),
            Some(4_107_538_800_000)
        );
        // Days past a month's end count on, as they always did.
        assert_eq!(
            parse_rfc3339_millis("2023-02-29T00:00:00Z"),
            parse_rfc3339_millis("2023-03-01T00:00:00Z")
        );
        assert_eq!(parse_rfc3339_millis("2023-02-32T00:00:00Z"), None);
        assert_eq!(parse_rfc3339_millis("2023-02-01T00:00:00+0100"), None);
    }

    #[test]
    fn iso8601_parses_to_seconds() {
        assert_eq!(parse_iso8601("2024-02-29"), Some(1_709_164_800));
        assert_eq!(parse_iso8601("2023-02-29"), None);
        assert_eq!(parse_iso8601("1969-12-31T23:59:59Z"), Some(-1));
        assert_eq!(parse_iso8601("2017-12-31T05:30+0530"), Some(1_514_678_400));
        assert_eq!(
            parse_iso8601("9999-12-31T23:59:59-01:00"),
            Some(253_402_304_399)
        );
        assert_eq!(parse_iso8601("2017-12-31T24:00"), None);
    }

    #[test]
    fn osv_times_parse_as_rfc3339() {
        assert_eq!(parse_rfc3339_millis("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            parse_rfc3339_millis("2021-01-01T00:00:00.5Z"),
            Some(1_609_459_200_500)
        );
        assert_eq!(
            parse_rfc3339_millis("2021-01-01T01:00:00+01:00"),
            Some(1_609_459_200_000)
        );
        assert_eq!(
            parse_rfc3339_millis("2021-01-01T01:00:00.25+01:00"),
            Some(1_609_459_200_250)
        );
        assert_eq!(parse_rfc3339_millis("2021-13-01T00:00:00Z"), None);
        assert_eq!(parse_rfc3339_millis("yesterday"), None);
        assert_eq!(parse_rfc3339_millis("2021-01-01T00:00:00+0\u{e9}00"), None);
        assert_eq!(parse_rfc3339_millis("2021-01-01T00:00:00.\u{e9}"), None);
    }
}
