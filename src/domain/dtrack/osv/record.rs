//! One OSV record (JSON) read into what Outpost stores: the Dependency-Track vulnerability
//! (source as upstream labels it, severity by upstream's mapping), its aliases, and the
//! affected packages of supported ecosystems with their ranges.
//!
//! Records that violate the schema are refused with a reason; parts that cannot be used
//! (unknown ecosystems, `GIT` ranges, ranges without an `introduced` event) are dropped and reported as
//! problems while the rest is kept. Pure.

use serde::Deserialize;
use serde_json::Value;

use super::eval::{AffectedSpec, Ecosystem, Event, RangeSpec, check_range};
use super::severity::{self, Rating};
use crate::model::dtrack::Vulnerability;

/// Bounds on what one record may hold.
const MAX_ID_LEN: usize = 255;
const MAX_LIST: usize = 10_000;

#[derive(Deserialize)]
struct Raw {
    id: String,
    modified: Option<String>,
    published: Option<String>,
    withdrawn: Option<String>,
    #[serde(default)]
    aliases: Option<Vec<String>>,
    summary: Option<String>,
    details: Option<String>,
    #[serde(default)]
    severity: Option<Vec<RawSeverity>>,
    #[serde(default)]
    affected: Option<Vec<RawAffected>>,
    #[serde(default)]
    references: Option<Vec<RawReference>>,
    database_specific: Option<Value>,
}

#[derive(Deserialize)]
struct RawSeverity {
    #[serde(rename = "type")]
    kind: String,
    score: String,
}

#[derive(Deserialize)]
struct RawPackage {
    ecosystem: String,
    name: String,
}

#[derive(Deserialize)]
struct RawAffected {
    package: Option<RawPackage>,
    #[serde(default)]
    ranges: Option<Vec<RawRange>>,
    #[serde(default)]
    versions: Option<Vec<String>>,
    database_specific: Option<Value>,
    ecosystem_specific: Option<Value>,
    #[serde(default)]
    severity: Option<Vec<RawSeverity>>,
}

#[derive(Deserialize)]
struct RawRange {
    #[serde(rename = "type")]
    kind: String,
    events: Vec<Value>,
}

#[derive(Deserialize)]
struct RawReference {
    url: String,
}

/// A record ready to store.
#[derive(Clone, Debug)]
pub struct Advisory {
    pub osv_id: String,
    pub modified: String,
    pub withdrawn: bool,
    /// `uuid`, `id` unset; `aliases` filled.
    pub vulnerability: Vulnerability,
    /// (ecosystem, package key, what it says).
    pub affected: Vec<(Ecosystem, String, AffectedSpec)>,
    /// What was dropped and why.
    pub problems: Vec<String>,
    /// CVSS v2, v3 and v4 vectors and scores, and the rating upstream gives the record.
    pub rating: Rating,
}

/// Upstream's source for an OSV id: GHSA ids are GitHub's, CVE ids the NVD's, others OSV's.
pub fn source_of(id: &str) -> &'static str {
    match id.split('-').next() {
        Some("GHSA") => "GITHUB",
        Some("CVE") => "NVD",
        _ => "OSV",
    }
}

fn printable_id(s: &str) -> bool {
    !s.is_empty() && s.len() <= MAX_ID_LEN && !s.chars().any(|c| c.is_control() || c == ' ')
}

fn event_of(v: &Value) -> Result<Event, String> {
    let Some(o) = v.as_object() else {
        return Err("an event that is not an object".into());
    };
    if o.len() != 1 {
        return Err("an event with other than one field".into());
    }
    let (k, v) = o.iter().next().ok_or("an empty event")?;
    let v = v
        .as_str()
        .ok_or_else(|| format!("an event {k:?} that is not a string"))?
        .to_string();
    if v.trim().is_empty() || v.len() > 256 {
        return Err(format!("an event {k:?} with an empty or overlong version"));
    }
    Ok(match k.as_str() {
        "introduced" => Event::Introduced(v),
        "fixed" => Event::Fixed(v),
        "last_affected" => Event::LastAffected(v),
        "limit" => Event::Limit(v),
        other => return Err(format!("an unknown event {other:?}")),
    })
}

/// Reads one record. `Err` refuses the whole record (its reason); otherwise the problems of
/// parts that were dropped are in [`Advisory::problems`].
pub fn parse(bytes: &[u8]) -> Result<Advisory, String> {
    let raw: Raw = serde_json::from_slice(bytes).map_err(|e| format!("not an OSV record: {e}"))?;
    if !printable_id(&raw.id) {
        return Err("the id is empty, too long or not printable".into());
    }
    let Some(modified) = raw
        .modified
        .filter(|m| crate::time::parse_rfc3339_millis(m).is_some())
    else {
        return Err(format!(
            "{}: `modified` is missing or not an RFC 3339 time",
            raw.id
        ));
    };
    let mut problems = Vec::new();
    let mut aliases: Vec<String> = raw.aliases.unwrap_or_default();
    if aliases.len() > MAX_LIST {
        return Err(format!("{}: too many aliases", raw.id));
    }
    aliases.retain(|a| printable_id(a) && *a != raw.id);
    aliases.sort();
    aliases.dedup();
    let affected_raw = raw.affected.unwrap_or_default();
    if affected_raw.len() > MAX_LIST {
        return Err(format!("{}: too many affected entries", raw.id));
    }

    // Severity as upstream ranks it: CVSS v4, v3, v2, then the textual ratings.
    let text_of = |d: &Option<Value>, key: &str| {
        d.as_ref()
            .and_then(|d| d.get(key))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let mut vectors: Vec<(String, String)> = Vec::new();
    for s in raw.severity.iter().flatten() {
        vectors.push((s.kind.clone(), s.score.clone()));
    }
    let mut affected_ratings = Vec::new();
    for a in &affected_raw {
        for s in a.severity.iter().flatten() {
            vectors.push((s.kind.clone(), s.score.clone()));
        }
        affected_ratings.push((
            text_of(&a.database_specific, "cvss"),
            text_of(&a.ecosystem_specific, "severity")
                .or_else(|| text_of(&a.database_specific, "severity")),
        ));
    }
    let rating = severity::rate(
        &raw.id,
        &vectors,
        text_of(&raw.database_specific, "severity").as_deref(),
        &affected_ratings,
    );
    problems.extend(rating.problems.iter().cloned());
    let severity = rating.severity;
    let (vector, score) = match &rating.v3 {
        Some((v, s)) => (Some(v.clone()), Some(*s)),
        None => (None, None),
    };

    let mut affected = Vec::new();
    for a in affected_raw {
        let Some(pkg) = a.package else {
            problems.push(format!("{}: an affected entry without a package", raw.id));
            continue;
        };
        let Some((eco, release)) = Ecosystem::from_osv(&pkg.ecosystem) else {
            problems.push(format!(
                "{}: ecosystem {:?} is not supported",
                raw.id, pkg.ecosystem
            ));
            continue;
        };
        if pkg.name.trim().is_empty() || pkg.name.len() > 1024 {
            problems.push(format!("{}: a package without a usable name", raw.id));
            continue;
        }
        let mut spec = AffectedSpec {
            release,
            ..AffectedSpec::default()
        };
        let versions = a.versions.unwrap_or_default();
        if versions.len() > MAX_LIST {
            problems.push(format!("{}: too many listed versions", raw.id));
            continue;
        }
        spec.versions = versions;
        for r in a.ranges.unwrap_or_default() {
            let semver = match r.kind.as_str() {
                "SEMVER" => true,
                "ECOSYSTEM" => false,
                "GIT" => continue,
                other => {
                    problems.push(format!("{}: a range of unknown type {other:?}", raw.id));
                    continue;
                }
            };
            if r.events.len() > MAX_LIST {
                problems.push(format!("{}: a range with too many events", raw.id));
                continue;
            }
            let events: Result<Vec<Event>, String> = r.events.iter().map(event_of).collect();
            let range = match events {
                Ok(events) => RangeSpec { semver, events },
                Err(e) => {
                    problems.push(format!("{}: a range with {e}", raw.id));
                    continue;
                }
            };
            if let Err(e) = check_range(eco, &range) {
                problems.push(format!("{}: {} ({e}) was skipped", raw.id, pkg.name));
                continue;
            }
            spec.ranges.push(range);
        }
        if spec.ranges.is_empty() && spec.versions.is_empty() {
            continue;
        }
        affected.push((eco, eco.package_key(&pkg.name), spec));
    }

    let cwes = raw
        .database_specific
        .as_ref()
        .and_then(|d| d.get("cwe_ids"))
        .and_then(Value::as_array)
        .map(|ids| {
            ids.iter()
                .filter_map(Value::as_str)
                .filter_map(|s| s.trim().strip_prefix("CWE-")?.parse::<i64>().ok())
                .take(100)
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    let references: String = raw
        .references
        .unwrap_or_default()
        .iter()
        .filter(|r| !r.url.trim().is_empty() && !r.url.chars().any(char::is_control))
        .take(1000)
        .map(|r| format!("* [{0}]({0})\n", r.url.trim()))
        .collect();
    let published_ms = raw
        .published
        .as_deref()
        .and_then(crate::time::parse_rfc3339_millis);
    let vulnerability = Vulnerability {
        vuln_id: raw.id.clone(),
        source: source_of(&raw.id).to_string(),
        severity: Some(severity.to_string()),
        title: raw.summary.filter(|s| !s.trim().is_empty()),
        description: raw.details.filter(|s| !s.trim().is_empty()),
        cvss_v3_vector: vector,
        cvss_v3_score: score,
        created_ms: published_ms,
        published_ms,
        updated_ms: crate::time::parse_rfc3339_millis(&modified),
        references: (!references.is_empty()).then_some(references),
        cwes,
        aliases,
        ..Vulnerability::default()
    };
    Ok(Advisory {
        osv_id: raw.id,
        withdrawn: raw.withdrawn.is_some(),
        modified,
        vulnerability,
        affected,
        problems,
        rating,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ghsa_record_maps_as_upstream() {
        let rec = br#"{"id":"GHSA-aaaa-bbbb-cccc","modified":"2024-01-01T00:00:00Z",
            "published":"2023-12-01T00:00:00Z","aliases":["CVE-2023-1"],
            "summary":"s","details":"d",
            "severity":[{"type":"CVSS_V3","score":"CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"}],
            "affected":[{"package":{"ecosystem":"npm","name":"x"},
                "ranges":[{"type":"SEMVER","events":[{"introduced":"0"},{"fixed":"1.0.0"}]},
                          {"type":"GIT","repo":"r","events":[{"introduced":"abc"}]}]},
                {"package":{"ecosystem":"Android","name":"y"},"versions":["1"]}],
            "references":[{"type":"WEB","url":"https://example.org/a"}],
            "database_specific":{"severity":"MODERATE","cwe_ids":["CWE-79"]}}"#;
        let a = parse(rec).unwrap();
        assert_eq!(a.vulnerability.source, "GITHUB");
        // CVSS ranks before the database's own rating, as upstream.
        assert_eq!(a.vulnerability.severity.as_deref(), Some("CRITICAL"));
        assert_eq!(a.vulnerability.cvss_v3_score, Some(9.8));
        assert_eq!(a.vulnerability.cwes, vec![79]);
        assert_eq!(a.vulnerability.aliases, vec!["CVE-2023-1"]);
        assert_eq!(a.affected.len(), 1);
        assert_eq!(a.affected[0].2.ranges.len(), 1);
        assert_eq!(a.problems.len(), 1, "{:?}", a.problems);
    }

    #[test]
    fn schema_violations_are_refused() {
        assert!(parse(b"{}").is_err());
        assert!(parse(br#"{"id":"X-1"}"#).is_err());
        assert!(
            parse(br#"{"id":"X-1","modified":"2024-01-01T00:00:00Z","aliases":"CVE"}"#).is_err()
        );
        let bad_event = br#"{"id":"X-1","modified":"2024-01-01T00:00:00Z","affected":[
            {"package":{"ecosystem":"npm","name":"x"},
             "ranges":[{"type":"SEMVER","events":[{"introduced":"0","fixed":"1.0.0"}]}]}]}"#;
        let a = parse(bad_event).unwrap();
        assert!(a.affected.is_empty());
        assert_eq!(a.problems.len(), 1);
    }
}
