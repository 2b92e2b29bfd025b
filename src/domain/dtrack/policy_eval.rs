//! Policy evaluation: which conditions of which policies a component violates.
//!
//! Pure functions over records, following upstream's evaluators: `MATCHES`/`NO_MATCH` use
//! upstream's wildcard-or-regex matcher (anchored with `.*` unless the value anchors itself),
//! versions compare segment by segment, `ANY` policies keep every violated condition and `ALL`
//! policies only when every condition is violated. `LICENSE` and `LICENSE_GROUP` compare
//! license identities as upstream does: the component's license text resolves to a license of
//! the SPDX catalogue (`domain::dtrack::licenses`), a `LICENSE` value names a license by UUID
//! (or `unresolved`: no license resolves) and a `LICENSE_GROUP` value a group by UUID; an
//! unresolved license is in no group. A `LICENSE` value that is no catalogue UUID is compared
//! with the license text and id (conditions written before the catalogue). A condition is
//! violated at most once per component.

use super::licenses::LicenseFacts;
use crate::model::dtrack::{Component, Policy, PolicyCondition};

/// Upstream's `Matcher.matches(value, condition)`.
pub fn wildcard_matches(value: Option<&str>, condition: Option<&str>) -> bool {
    let (Some(value), Some(cond)) = (value, condition) else {
        return value.is_none() && condition.is_none();
    };
    let mut pattern = cond.replace('*', ".*").replace("..*", ".*");
    if !pattern.starts_with('^') && !pattern.starts_with(".*") {
        pattern = format!(".*{pattern}");
    }
    if !pattern.ends_with('$') && !pattern.ends_with(".*") {
        pattern.push_str(".*");
    }
    match regex::Regex::new(&format!("^(?:{pattern})$")) {
        Ok(re) => re.is_match(value),
        Err(_) => false,
    }
}

/// Compares versions segment by segment (numbers numerically, other text lexically).
pub fn compare_versions(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let seg = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect()
    };
    let (x, y) = (seg(a), seg(b));
    for i in 0..x.len().max(y.len()) {
        let (p, q) = (x.get(i), y.get(i));
        let ord = match (p, q) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (Some(p), Some(q)) => match (p.parse::<u64>(), q.parse::<u64>()) {
                (Ok(m), Ok(n)) => m.cmp(&n),
                _ => p.cmp(q),
            },
        };
        if ord != Ordering::Equal {
            return ord;
        }
    }
    Ordering::Equal
}

fn numeric(op: &str, ord: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match op {
        "NUMERIC_EQUAL" => ord == Equal,
        "NUMERIC_NOT_EQUAL" => ord != Equal,
        "NUMERIC_LESS_THAN" => ord == Less,
        "NUMERIC_LESSER_THAN_OR_EQUAL" => ord != Greater,
        "NUMERIC_GREATER_THAN" => ord == Greater,
        "NUMERIC_GREATER_THAN_OR_EQUAL" => ord != Less,
        _ => false,
    }
}

fn regex_subject(op: &str, value: Option<&str>, cond: &str) -> bool {
    match op {
        "MATCHES" => wildcard_matches(value, Some(cond)),
        "NO_MATCH" => !wildcard_matches(value, Some(cond)),
        _ => false,
    }
}

fn part_matches(cond: Option<&str>, part: Option<&str>) -> bool {
    match part.map(str::trim).filter(|p| !p.is_empty()) {
        None => part.is_some() || cond.is_none(),
        Some(p) => wildcard_matches(Some(p), cond),
    }
}

fn version_part_matches(cond: Option<&str>, version: Option<&str>) -> bool {
    let (Some(cond), Some(version)) = (cond, version) else {
        return cond.is_none() && version.is_none();
    };
    for (prefix, op) in [
        ("==", "NUMERIC_EQUAL"),
        ("!=", "NUMERIC_NOT_EQUAL"),
        ("<=", "NUMERIC_LESSER_THAN_OR_EQUAL"),
        (">=", "NUMERIC_GREATER_THAN_OR_EQUAL"),
        ("<", "NUMERIC_LESS_THAN"),
        (">", "NUMERIC_GREATER_THAN"),
    ] {
        if let Some(rest) = cond.trim().strip_prefix(prefix) {
            return numeric(op, compare_versions(version, rest.trim()));
        }
    }
    part_matches(Some(cond), Some(version))
}

fn json_field<'a>(v: &'a serde_json::Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(|x| x.as_str())
}

/// Whether one condition is violated by a component with these unsuppressed vulnerabilities
/// (`(vulnId, severity)`).
pub fn violated(cond: &PolicyCondition, c: &Component, vulns: &[(String, String)]) -> bool {
    violated_with(cond, c, vulns, &LicenseFacts::default())
}

/// [`violated`] with the license catalogue and groups at hand.
pub fn violated_with(
    cond: &PolicyCondition,
    c: &Component,
    vulns: &[(String, String)],
    lic: &LicenseFacts,
) -> bool {
    let op = cond.operator.as_str();
    let value = cond.value.as_str();
    match cond.subject.as_str() {
        "PACKAGE_URL" => regex_subject(op, c.purl.as_deref(), value),
        "CPE" => regex_subject(op, c.cpe.as_deref(), value),
        "SWID_TAGID" => regex_subject(op, c.swid_tag_id.as_deref(), value),
        "COORDINATES" => {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(value) else {
                return false;
            };
            let hit = part_matches(json_field(&v, "group"), c.group.as_deref())
                && part_matches(json_field(&v, "name"), Some(c.name.as_str()))
                && version_part_matches(json_field(&v, "version"), c.version.as_deref());
            match op {
                "MATCHES" => hit,
                "NO_MATCH" => !hit,
                _ => false,
            }
        }
        "VERSION" => match c.version.as_deref() {
            Some(v) => numeric(op, compare_versions(v, value)),
            None => false,
        },
        "LICENSE" => {
            let resolved = c.license.as_deref().and_then(|t| lic.resolve(t));
            let matches = if value == "unresolved" {
                resolved.is_none() && (!lic.ids_by_uuid.is_empty() || c.license.is_none())
            } else if let Some(id) = lic.ids_by_uuid.get(value) {
                resolved == Some(id.as_str())
            } else {
                c.license.as_deref() == Some(value) || resolved == Some(value)
            };
            match op {
                "IS" => matches,
                "IS_NOT" => !matches,
                _ => false,
            }
        }
        "LICENSE_GROUP" => {
            let Some(members) = lic.groups.get(value) else {
                return false;
            };
            let resolved = c.license.as_deref().and_then(|t| lic.resolve(t));
            let inside = resolved.is_some_and(|id| members.iter().any(|m| m == id));
            match op {
                "IS" => inside,
                "IS_NOT" => !inside,
                _ => false,
            }
        }
        "SEVERITY" => vulns.iter().any(|(_, sev)| match op {
            "IS" => sev == value,
            "IS_NOT" => sev != value,
            _ => false,
        }),
        "VULNERABILITY_ID" => vulns.iter().any(|(id, _)| match op {
            "IS" => id == value,
            "IS_NOT" => id != value,
            _ => false,
        }),
        "IS_INTERNAL" => {
            let want = value.eq_ignore_ascii_case("true");
            match op {
                "IS" => c.is_internal == want,
                "IS_NOT" => c.is_internal != want,
                _ => false,
            }
        }
        "COMPONENT_HASH" => {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(value) else {
                return false;
            };
            let (Some(alg), Some(want)) = (json_field(&v, "algorithm"), json_field(&v, "value"))
            else {
                return false;
            };
            let have = match alg.to_ascii_uppercase().replace('-', "").as_str() {
                "MD5" => c.md5.as_deref(),
                "SHA1" => c.sha1.as_deref(),
                "SHA256" => c.sha256.as_deref(),
                "SHA512" => c.sha512.as_deref(),
                _ => None,
            };
            let same = have.is_some_and(|h| h.eq_ignore_ascii_case(want));
            match op {
                "IS" => same,
                "IS_NOT" => !same,
                _ => false,
            }
        }
        _ => false,
    }
}

/// The conditions of `policy` a component violates, after the policy's `ANY`/`ALL` rule.
pub fn evaluate<'p>(
    policy: &'p Policy,
    c: &Component,
    vulns: &[(String, String)],
) -> Vec<&'p PolicyCondition> {
    evaluate_with(policy, c, vulns, &LicenseFacts::default())
}

/// [`evaluate`] with the license catalogue and groups at hand.
pub fn evaluate_with<'p>(
    policy: &'p Policy,
    c: &Component,
    vulns: &[(String, String)],
    lic: &LicenseFacts,
) -> Vec<&'p PolicyCondition> {
    let hits: Vec<&PolicyCondition> = policy
        .conditions
        .iter()
        .filter(|cond| violated_with(cond, c, vulns, lic))
        .collect();
    if policy.operator == "ALL" && hits.len() != policy.conditions.len() {
        return Vec::new();
    }
    hits
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cond(subject: &str, operator: &str, value: &str) -> PolicyCondition {
        PolicyCondition {
            id: 1,
            uuid: String::new(),
            subject: subject.into(),
            operator: operator.into(),
            value: value.into(),
        }
    }

    fn comp() -> Component {
        Component {
            name: "log4j-core".into(),
            group: Some("org.apache.logging.log4j".into()),
            version: Some("2.14.1".into()),
            purl: Some("pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1".into()),
            license: Some("Apache-2.0".into()),
            sha256: Some("AB".repeat(32)),
            ..Component::default()
        }
    }

    #[test]
    fn matcher_is_upstreams() {
        assert!(wildcard_matches(
            Some("pkg:maven/a/b@1"),
            Some("pkg:maven/*")
        ));
        assert!(wildcard_matches(Some("pkg:maven/a/b@1"), Some("a/b")));
        assert!(!wildcard_matches(Some("pkg:npm/x@1"), Some("^pkg:maven")));
        assert!(wildcard_matches(None, None));
        assert!(!wildcard_matches(None, Some("x")));
    }

    #[test]
    fn subjects_and_operators() {
        let c = comp();
        let vulns = vec![("CVE-2021-44228".to_string(), "CRITICAL".to_string())];
        let yes = [
            cond(
                "PACKAGE_URL",
                "MATCHES",
                "pkg:maven/org.apache.logging.log4j/*",
            ),
            cond("PACKAGE_URL", "NO_MATCH", "pkg:npm/*"),
            cond(
                "COORDINATES",
                "MATCHES",
                r#"{"group":"org.apache.*","name":"log4j-core","version":"<2.15.0"}"#,
            ),
            cond("VERSION", "NUMERIC_LESS_THAN", "2.15"),
            cond("VERSION", "NUMERIC_GREATER_THAN_OR_EQUAL", "2.14.1"),
            cond("LICENSE", "IS", "Apache-2.0"),
            cond("SEVERITY", "IS", "CRITICAL"),
            cond("VULNERABILITY_ID", "IS", "CVE-2021-44228"),
            cond("IS_INTERNAL", "IS", "false"),
            cond(
                "COMPONENT_HASH",
                "IS",
                &format!(r#"{{"algorithm":"SHA-256","value":"{}"}}"#, "ab".repeat(32)),
            ),
            cond("CPE", "NO_MATCH", "cpe:2.3:a:apache:*"),
        ];
        for y in &yes {
            assert!(violated(y, &c, &vulns), "{y:?}");
        }
        let no = [
            cond("COORDINATES", "MATCHES", r#"{"name":"log4j-api"}"#),
            cond("VERSION", "NUMERIC_GREATER_THAN", "2.14.1"),
            cond("LICENSE", "IS", "unresolved"),
            cond("SEVERITY", "IS", "LOW"),
            cond("SWID_TAGID", "MATCHES", "x"),
            cond("PACKAGE_URL", "IS", "whatever"),
        ];
        for n in &no {
            assert!(!violated(n, &c, &vulns), "{n:?}");
        }
        assert!(!violated(&cond("SEVERITY", "IS", "CRITICAL"), &c, &[]));
    }

    #[test]
    fn all_needs_every_condition() {
        let c = comp();
        let mut p = Policy {
            id: 1,
            uuid: String::new(),
            name: "p".into(),
            operator: "ALL".into(),
            violation_state: "FAIL".into(),
            include_children: false,
            only_latest_project_version: false,
            conditions: vec![
                cond("LICENSE", "IS", "Apache-2.0"),
                cond("VERSION", "NUMERIC_GREATER_THAN", "9"),
            ],
            projects: Vec::new(),
            tags: Vec::new(),
        };
        assert!(evaluate(&p, &c, &[]).is_empty());
        p.operator = "ANY".into();
        assert_eq!(evaluate(&p, &c, &[]).len(), 1);
        assert_eq!(compare_versions("1.10", "1.9"), std::cmp::Ordering::Greater);
    }
}
