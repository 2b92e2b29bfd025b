//! Wall-clock helpers: UNIX seconds and the ISO 8601 forms the APIs print.
//!
//! Pure functions over integers; no time zone database and no global state.

use std::time::{SystemTime, UNIX_EPOCH};

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

/// (year, month, day) of a day count since 1970-01-01 (proleptic Gregorian calendar).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// `2024-05-01T13:07+00:00`: UTC with minute precision, as Zulip prints `date_joined`.
pub fn iso_minutes(secs: i64) -> String {
    let (y, mo, d) = civil_from_days(secs.div_euclid(86_400));
    let rem = secs.rem_euclid(86_400);
    format!(
        "{y:04}-{mo:02}-{d:02}T{:02}:{:02}+00:00",
        rem / 3600,
        (rem % 3600) / 60
    )
}

/// `2024-05-01T13:07:09+00:00`: UTC with second precision.
pub fn iso_seconds(secs: i64) -> String {
    let (y, mo, d) = civil_from_days(secs.div_euclid(86_400));
    let rem = secs.rem_euclid(86_400);
    format!(
        "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}+00:00",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_minutes_formats_known_instants() {
        assert_eq!(iso_minutes(0), "1970-01-01T00:00+00:00");
        assert_eq!(iso_minutes(951_782_400), "2000-02-29T00:00+00:00");
        assert_eq!(iso_minutes(1_700_000_000), "2023-11-14T22:13+00:00");
        assert_eq!(iso_seconds(1_700_000_009), "2023-11-14T22:13:29+00:00");
    }
}
