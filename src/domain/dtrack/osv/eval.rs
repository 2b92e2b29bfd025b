//! The ecosystems the matcher supports and OSV's evaluation algorithm (osv-schema,
//! "Evaluation"): a version is affected when it is listed in `versions`, or when, within a
//! range and before its limits, the last event at or below it (events sorted by version) is an
//! `introduced`; a `fixed` at or below it, or a `last_affected` below it, ends the interval.
//! `introduced: "0"` sorts before every version; several ranges and several intervals in one
//! range are independent; `GIT` ranges are not evaluated against package versions.
//!
//! A version that cannot be parsed makes the answer [`Verdict::Unknown`], never not affected.
//! Pure.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use crate::domain::dtrack::versions::{Scheme, Version};

pub use super::ecosystem::Ecosystem;

/// One event of a range, in OSV's JSON form (`{"introduced": "1.0"}`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Event {
    Introduced(String),
    Fixed(String),
    LastAffected(String),
    Limit(String),
}

impl Event {
    pub fn version(&self) -> &str {
        match self {
            Event::Introduced(v) | Event::Fixed(v) | Event::LastAffected(v) | Event::Limit(v) => v,
        }
    }
}

/// A range the matcher evaluates (`GIT` ranges are not kept).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RangeSpec {
    /// `SEMVER` (SemVer precedence) rather than `ECOSYSTEM` (the ecosystem's comparator).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub semver: bool,
    pub events: Vec<Event>,
}

/// What one `affected[]` entry says about one package.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AffectedSpec {
    /// Debian's release (`Debian:11` → `11`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ranges: Vec<RangeSpec>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub versions: Vec<String>,
}

/// The outcome of evaluating a version.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Affected,
    NotAffected,
    /// Undecidable: why (a version that does not parse under the range's comparator).
    Unknown(String),
}

fn scheme_name(s: Scheme) -> &'static str {
    s.name()
}

/// An event's position: `introduced: "0"` is below every version.
enum Point {
    Zero,
    At(Version),
}

fn cmp_point(a: &Point, b: &Point) -> Ordering {
    match (a, b) {
        (Point::Zero, Point::Zero) => Ordering::Equal,
        (Point::Zero, _) => Ordering::Less,
        (_, Point::Zero) => Ordering::Greater,
        (Point::At(x), Point::At(y)) => x.compare(y).unwrap_or(Ordering::Equal),
    }
}

/// Whether `v` lies in one range; `Err(reason)` when a version does not parse.
fn in_range(v: &Version, scheme: Scheme, range: &RangeSpec) -> Result<bool, String> {
    let bad = |s: &str| format!("{s:?} is not a {} version", scheme_name(scheme));
    let parse = |s: &str| scheme.parse(s).ok_or_else(|| bad(s));
    // Before the limits: no limit means an implicit `*`.
    let limits: Vec<&str> = range
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Limit(l) => Some(l.as_str()),
            _ => None,
        })
        .collect();
    if !limits.is_empty() {
        let mut below = false;
        for l in limits {
            if l.contains('*') {
                below = true;
                break;
            }
            if v.compare(&parse(l)?) == Some(Ordering::Less) {
                below = true;
                break;
            }
        }
        if !below {
            return Ok(false);
        }
    }
    let mut events: Vec<(Point, &Event)> = Vec::with_capacity(range.events.len());
    for e in &range.events {
        if matches!(e, Event::Limit(_)) {
            continue;
        }
        let point = match e {
            Event::Introduced(s) if s.trim() == "0" => Point::Zero,
            _ => Point::At(parse(e.version())?),
        };
        events.push((point, e));
    }
    // A stable sort keeps the record's order among equal versions.
    events.sort_by(|a, b| cmp_point(&a.0, &b.0));
    let mut vulnerable = false;
    for (point, e) in &events {
        let order = match point {
            Point::Zero => Ordering::Greater,
            Point::At(p) => v.compare(p).unwrap_or(Ordering::Less),
        };
        match e {
            Event::Introduced(_) if order != Ordering::Less => vulnerable = true,
            Event::Fixed(_) if order != Ordering::Less => vulnerable = false,
            Event::LastAffected(_) if order == Ordering::Greater => vulnerable = false,
            _ => {}
        }
    }
    Ok(vulnerable)
}

/// Evaluates one affected entry for a version of its package.
pub fn evaluate(ecosystem: Ecosystem, spec: &AffectedSpec, version: &str) -> Verdict {
    let eco_scheme = ecosystem.scheme();
    let parsed_eco = eco_scheme.parse(version);
    for listed in &spec.versions {
        if listed == version {
            return Verdict::Affected;
        }
        if let (Some(v), Some(l)) = (&parsed_eco, eco_scheme.parse(listed))
            && v.compare(&l) == Some(Ordering::Equal)
        {
            return Verdict::Affected;
        }
    }
    let mut unknown = None;
    for range in &spec.ranges {
        let scheme = if range.semver {
            ecosystem.semver_scheme()
        } else {
            eco_scheme
        };
        let Some(v) = scheme.parse(version) else {
            unknown.get_or_insert_with(|| {
                format!("{version:?} is not a {} version", scheme_name(scheme))
            });
            continue;
        };
        match in_range(&v, scheme, range) {
            Ok(true) => return Verdict::Affected,
            Ok(false) => {}
            Err(reason) => {
                unknown.get_or_insert(reason);
            }
        }
    }
    match unknown {
        Some(reason) => Verdict::Unknown(reason),
        None => Verdict::NotAffected,
    }
}

/// Checks that a range can be evaluated: it needs an `introduced` event. Events need not
/// be sorted (the schema only recommends it), so their order is never a reason to drop a
/// range; versions that do not parse make evaluations unknown rather than the range invalid.
pub fn check_range(_ecosystem: Ecosystem, range: &RangeSpec) -> Result<(), String> {
    if !range
        .events
        .iter()
        .any(|e| matches!(e, Event::Introduced(_)))
    {
        return Err("a range without an introduced event".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(semver: bool, events: &[(&str, &str)]) -> RangeSpec {
        RangeSpec {
            semver,
            events: events
                .iter()
                .map(|(k, v)| {
                    let v = v.to_string();
                    match *k {
                        "i" => Event::Introduced(v),
                        "f" => Event::Fixed(v),
                        "l" => Event::LastAffected(v),
                        _ => Event::Limit(v),
                    }
                })
                .collect(),
        }
    }

    fn spec(ranges: Vec<RangeSpec>) -> AffectedSpec {
        AffectedSpec {
            ranges,
            ..AffectedSpec::default()
        }
    }

    fn check(eco: Ecosystem, s: &AffectedSpec, cases: &[(&str, bool)]) {
        for (v, want) in cases {
            let got = evaluate(eco, s, v);
            let want = if *want {
                Verdict::Affected
            } else {
                Verdict::NotAffected
            };
            assert_eq!(got, want, "{v}");
        }
    }

    #[test]
    fn introduced_zero_covers_everything_before_the_fix() {
        // Upstream missed `introduced: "0"` (DT#5716).
        let s = spec(vec![range(true, &[("i", "0"), ("f", "1.0.2")])]);
        check(
            Ecosystem::Npm,
            &s,
            &[
                ("0.0.1", true),
                ("1.0.1", true),
                ("1.0.2", false),
                ("2.0.0", false),
            ],
        );
        let all = spec(vec![range(true, &[("i", "0")])]);
        check(Ecosystem::Cargo, &all, &[("0.0.0", true), ("99.0.0", true)]);
    }

    #[test]
    fn two_disjoint_intervals_in_one_range() {
        // Upstream reported versions between the intervals (DT#6988, Django).
        let s = spec(vec![range(
            false,
            &[("i", "4.2"), ("f", "4.2.16"), ("i", "5.0"), ("f", "5.0.9")],
        )]);
        check(
            Ecosystem::PyPI,
            &s,
            &[
                ("4.1.9", false),
                ("4.2", true),
                ("4.2.15", true),
                ("4.2.16", false),
                ("4.2.20", false),
                ("5.0", true),
                ("5.0.8", true),
                ("5.0.9", false),
                ("5.1", false),
            ],
        );
        // The same intervals listed out of order are sorted first.
        let unordered = spec(vec![range(
            false,
            &[("i", "5.0"), ("f", "5.0.9"), ("i", "4.2"), ("f", "4.2.16")],
        )]);
        check(
            Ecosystem::PyPI,
            &unordered,
            &[("4.2.20", false), ("5.0.1", true)],
        );
    }

    #[test]
    fn last_affected_includes_its_version() {
        let s = spec(vec![range(false, &[("i", "0"), ("l", "2.1.214")])]);
        check(
            Ecosystem::Maven,
            &s,
            &[("2.1.210", true), ("2.1.214", true), ("2.1.215", false)],
        );
    }

    #[test]
    fn limits_bound_the_range() {
        let s = spec(vec![range(true, &[("i", "1.0.0"), ("m", "2.0.0")])]);
        check(
            Ecosystem::Npm,
            &s,
            &[
                ("0.9.0", false),
                ("1.5.0", true),
                ("2.0.0", false),
                ("3.0.0", false),
            ],
        );
        let star = spec(vec![range(true, &[("i", "1.0.0"), ("m", "*")])]);
        check(Ecosystem::Npm, &star, &[("9.0.0", true)]);
    }

    #[test]
    fn several_ranges_and_listed_versions() {
        let s = AffectedSpec {
            ranges: vec![
                range(true, &[("i", "1.0.0"), ("f", "1.0.2")]),
                range(true, &[("i", "3.0.0"), ("f", "3.2.5")]),
            ],
            versions: vec!["2.5.0".into()],
            release: None,
        };
        check(
            Ecosystem::Cargo,
            &s,
            &[
                ("1.0.1", true),
                ("2.0.0", false),
                ("2.5.0", true),
                ("3.2.4", true),
                ("3.2.5", false),
            ],
        );
    }

    #[test]
    fn debian_epochs_and_tildes() {
        let s = spec(vec![range(false, &[("i", "0"), ("f", "1:2.30-1")])]);
        check(
            Ecosystem::Debian,
            &s,
            &[
                ("2.40-1", true),
                ("1:2.30-1~bpo11+1", true),
                ("1:2.30-1", false),
                ("2:1.0", false),
            ],
        );
        let tilde = spec(vec![range(
            false,
            &[("i", "0"), ("f", "7.74.0-1.3+deb11u2")],
        )]);
        check(
            Ecosystem::Debian,
            &tilde,
            &[
                ("7.74.0-1.3+deb11u1", true),
                ("7.74.0-1.3+deb11u10", false),
                ("7.74.0~rc1-1", true),
            ],
        );
    }

    #[test]
    fn unparseable_versions_are_unknown_not_clean() {
        let s = spec(vec![range(true, &[("i", "0"), ("f", "1.0.2")])]);
        assert!(matches!(
            evaluate(Ecosystem::Npm, &s, "latest"),
            Verdict::Unknown(_)
        ));
        let bad_event = spec(vec![range(true, &[("i", "0"), ("f", "1.0")])]);
        assert!(matches!(
            evaluate(Ecosystem::Npm, &bad_event, "0.5.0"),
            Verdict::Unknown(_)
        ));
        // A listed version still decides.
        let listed = AffectedSpec {
            versions: vec!["latest".into()],
            ..s
        };
        assert_eq!(
            evaluate(Ecosystem::Npm, &listed, "latest"),
            Verdict::Affected
        );
    }

    #[test]
    fn unsorted_ranges_are_kept_and_sorted() {
        assert!(check_range(Ecosystem::Npm, &range(true, &[("f", "1.0.0")])).is_err());
        // Published out of order: both intervals hold once sorted.
        let r = range(
            true,
            &[
                ("i", "1.0.0"),
                ("i", "2.0.0"),
                ("f", "1.5.0"),
                ("f", "2.5.0"),
            ],
        );
        assert!(check_range(Ecosystem::Npm, &r).is_ok());
        check(
            Ecosystem::Npm,
            &spec(vec![r]),
            &[
                ("0.9.0", false),
                ("1.2.0", true),
                ("1.7.0", false),
                ("2.1.0", true),
                ("2.5.0", false),
            ],
        );
        let fixed_first = range(true, &[("f", "1.0.0"), ("i", "0")]);
        assert!(check_range(Ecosystem::Npm, &fixed_first).is_ok());
        check(
            Ecosystem::Npm,
            &spec(vec![fixed_first]),
            &[("0.5.0", true), ("1.0.0", false)],
        );
        assert!(
            check_range(
                Ecosystem::Npm,
                &range(true, &[("i", "1.0.0"), ("f", "1.0.1")])
            )
            .is_ok()
        );
        assert!(check_range(Ecosystem::Npm, &range(true, &[("i", "0"), ("l", "0.1.0")])).is_ok());
    }
}
