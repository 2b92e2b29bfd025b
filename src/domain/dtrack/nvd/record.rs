//! One NVD CVE item (`{cve: {...}}`, the CVE API 2.0 schema) read into what Outpost stores,
//! as Dependency-Track converts it: the vulnerability (source `NVD`), its CVSS v2 and v4, and
//! the vulnerable CPEs of its configurations. Items that violate the schema are refused with a
//! reason; unusable parts (CPEs that do not parse, vectors that do not read) are dropped and
//! reported. Pure.

use std::collections::HashSet;

use serde::Deserialize;
use serde_json::Value;

use crate::db::dtrack_nvd::CpeRow;
use crate::domain::dtrack::cpe::{Cpe, Part};
use crate::domain::dtrack::osv::severity;
use crate::model::dtrack::Vulnerability;

/// Bounds on what one record may hold.
const MAX_LIST: usize = 10_000;
const MAX_CPES: usize = 50_000;
const MAX_ID_LEN: usize = 64;

#[derive(Deserialize)]
struct RawItem {
    cve: RawCve,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawCve {
    id: String,
    published: Option<String>,
    last_modified: Option<String>,
    #[serde(default)]
    descriptions: Vec<LangValue>,
    #[serde(default)]
    references: Vec<RawReference>,
    #[serde(default)]
    weaknesses: Vec<RawWeakness>,
    metrics: Option<RawMetrics>,
    #[serde(default)]
    configurations: Vec<RawConfig>,
}

#[derive(Deserialize)]
struct LangValue {
    lang: String,
    value: String,
}

#[derive(Deserialize)]
struct RawReference {
    url: String,
}

#[derive(Deserialize)]
struct RawWeakness {
    #[serde(default)]
    description: Vec<LangValue>,
}

#[derive(Deserialize, Default)]
struct RawMetrics {
    #[serde(rename = "cvssMetricV40", default)]
    v40: Vec<RawMetric>,
    #[serde(rename = "cvssMetricV31", default)]
    v31: Vec<RawMetric>,
    #[serde(rename = "cvssMetricV30", default)]
    v30: Vec<RawMetric>,
    #[serde(rename = "cvssMetricV2", default)]
    v2: Vec<RawMetric>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawMetric {
    #[serde(rename = "type")]
    kind: Option<String>,
    cvss_data: RawCvssData,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawCvssData {
    vector_string: Option<String>,
    base_score: Option<f64>,
}

#[derive(Deserialize)]
struct RawConfig {
    #[serde(default)]
    negate: Option<bool>,
    #[serde(default)]
    nodes: Vec<RawNode>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawNode {
    operator: Option<String>,
    #[serde(default)]
    negate: Option<bool>,
    #[serde(default)]
    cpe_match: Vec<RawCpeMatch>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawCpeMatch {
    vulnerable: Option<bool>,
    criteria: String,
    version_start_including: Option<String>,
    version_start_excluding: Option<String>,
    version_end_including: Option<String>,
    version_end_excluding: Option<String>,
}

/// A CVE record ready to store.
#[derive(Clone, Debug)]
pub struct NvdRecord {
    pub cve_id: String,
    pub last_modified_ms: i64,
    /// `uuid`, `id` unset.
    pub vulnerability: Vulnerability,
    pub cvss_v2: Option<(String, f64)>,
    pub cvss_v4: Option<(String, f64)>,
    /// The vulnerable CPEs, de-duplicated.
    pub cpes: Vec<CpeRow>,
    /// What was dropped and why.
    pub problems: Vec<String>,
}

fn cve_id_ok(id: &str) -> bool {
    let Some(rest) = id.strip_prefix("CVE-") else {
        return false;
    };
    let mut it = rest.splitn(2, '-');
    let (year, num) = (it.next().unwrap_or(""), it.next().unwrap_or(""));
    id.len() <= MAX_ID_LEN
        && year.len() == 4
        && year.bytes().all(|b| b.is_ascii_digit())
        && num.len() >= 4
        && num.bytes().all(|b| b.is_ascii_digit())
}

/// Primary entries first (stable otherwise), as upstream sorts each metric list.
fn primary_first(list: &[RawMetric]) -> Vec<&RawMetric> {
    let mut out: Vec<&RawMetric> = list.iter().collect();
    out.sort_by_key(|m| match m.kind.as_deref() {
        Some(k) if k.eq_ignore_ascii_case("Primary") => 0,
        Some(k) if k.eq_ignore_ascii_case("Secondary") => 1,
        _ => 2,
    });
    out
}

fn first_parsed(
    lists: &[&[RawMetric]],
    score: impl Fn(&str) -> Option<f64>,
) -> Option<(String, f64)> {
    lists.iter().find_map(|list| {
        primary_first(list).into_iter().find_map(|m| {
            let v = m.cvss_data.vector_string.as_deref()?.trim();
            score(v).map(|s| (v.to_string(), s))
        })
    })
}

fn v3_score(v: &str) -> Option<f64> {
    v.parse::<cvss::v3::Vector>()
        .ok()
        .map(|v| v.score().value())
}

fn v2_score(v: &str) -> Option<f64> {
    let v = v
        .strip_prefix('(')
        .and_then(|v| v.strip_suffix(')'))
        .unwrap_or(v);
    v.parse::<cvss::v2::Vector>()
        .ok()
        .map(|v| v.score().value())
}

/// Reads one `{cve: {...}}` item. `Err` refuses the record (its reason); otherwise the
/// problems of parts that were dropped are in [`NvdRecord::problems`].
pub fn convert(item: Value) -> std::result::Result<NvdRecord, String> {
    let hint = item
        .get("cve")
        .and_then(|c| c.get("id"))
        .and_then(Value::as_str)
        .filter(|s| s.len() <= MAX_ID_LEN)
        .unwrap_or("a CVE item")
        .to_string();
    let raw: RawItem =
        serde_json::from_value(item).map_err(|e| format!("{hint}: not an NVD CVE item: {e}"))?;
    let cve = raw.cve;
    if !cve_id_ok(&cve.id) {
        return Err(format!("{hint}: the id is not a CVE id"));
    }
    let id = cve.id;
    let Some(last_modified_ms) = cve
        .last_modified
        .as_deref()
        .and_then(crate::time::parse_rfc3339_millis)
    else {
        return Err(format!("{id}: `lastModified` is missing or not a time"));
    };
    if [
        cve.descriptions.len(),
        cve.references.len(),
        cve.weaknesses.len(),
        cve.configurations.len(),
    ]
    .iter()
    .any(|n| *n > MAX_LIST)
    {
        return Err(format!("{id}: too many entries in a list"));
    }
    let mut problems = Vec::new();
    let description: Vec<&str> = cve
        .descriptions
        .iter()
        .filter(|d| d.lang.eq_ignore_ascii_case("en") && !d.value.trim().is_empty())
        .map(|d| d.value.as_str())
        .collect();
    let description = (!description.is_empty()).then(|| description.join("\n\n"));
    let mut urls: Vec<&str> = cve
        .references
        .iter()
        .map(|r| r.url.trim())
        .filter(|u| !u.is_empty() && !u.chars().any(char::is_control))
        .collect();
    urls.sort_unstable();
    urls.dedup();
    let references: String = urls
        .iter()
        .take(1000)
        .map(|u| format!("* [{u}]({u})\n"))
        .collect();
    let mut cwes: Vec<i64> = cve
        .weaknesses
        .iter()
        .flat_map(|w| w.description.iter())
        .filter(|d| d.lang.eq_ignore_ascii_case("en"))
        .filter_map(|d| d.value.trim().strip_prefix("CWE-")?.parse::<i64>().ok())
        .collect();
    cwes.sort_unstable();
    cwes.dedup();
    cwes.truncate(100);

    let metrics = cve.metrics.unwrap_or_default();
    let v4_lists: [&[RawMetric]; 1] = [&metrics.v40];
    let cvss_v4 = v4_lists.iter().find_map(|list| {
        primary_first(list).into_iter().find_map(|m| {
            let v = m.cvss_data.vector_string.as_deref()?.trim();
            v.parse::<cvss::v4::Vector>().ok()?;
            // Upstream keeps the record's own base score for v4.
            let s = m.cvss_data.base_score.unwrap_or_else(|| {
                v.parse::<cvss::v4::Vector>()
                    .map_or(0.0, |x| x.score().value())
            });
            Some((v.to_string(), s))
        })
    });
    // v3.0 is read only when no v3.1 vector is usable.
    let cvss_v3 = first_parsed(&[&metrics.v31, &metrics.v30], v3_score);
    let cvss_v2 = first_parsed(&[&metrics.v2], v2_score);
    let unread = [
        (&metrics.v40, cvss_v4.is_none(), "v4.0"),
        (&metrics.v31, cvss_v3.is_none(), "v3.1"),
        (&metrics.v2, cvss_v2.is_none(), "v2"),
    ];
    for (list, missing, name) in unread {
        if missing && !list.is_empty() {
            problems.push(format!("{id}: no CVSS {name} vector could be read"));
        }
    }
    let severity = if let Some((_, s)) = &cvss_v4 {
        severity::of_score(*s)
    } else if let Some((_, s)) = &cvss_v3 {
        severity::of_score(*s)
    } else if let Some((_, s)) = &cvss_v2 {
        severity::of_v2_score(*s)
    } else {
        "UNASSIGNED"
    };

    let cpes = configurations(&id, &cve.configurations, &mut problems)?;
    let published_ms = cve
        .published
        .as_deref()
        .and_then(crate::time::parse_rfc3339_millis);
    let vulnerability = Vulnerability {
        vuln_id: id.clone(),
        source: "NVD".into(),
        severity: Some(severity.to_string()),
        description,
        cvss_v3_vector: cvss_v3.as_ref().map(|v| v.0.clone()),
        cvss_v3_score: cvss_v3.as_ref().map(|v| v.1),
        created_ms: published_ms,
        published_ms,
        updated_ms: Some(last_modified_ms),
        references: (!references.is_empty()).then_some(references),
        cwes,
        ..Vulnerability::default()
    };
    Ok(NvdRecord {
        cve_id: id,
        last_modified_ms,
        vulnerability,
        cvss_v2,
        cvss_v4,
        cpes,
        problems,
    })
}

fn bound(s: &Option<String>) -> Option<String> {
    s.as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty() && s.len() <= 256)
        .map(str::to_string)
}

/// The vulnerable CPEs of a record's configurations, as upstream selects them.
fn configurations(
    id: &str,
    configs: &[RawConfig],
    problems: &mut Vec<String>,
) -> std::result::Result<Vec<CpeRow>, String> {
    let mut out: Vec<CpeRow> = Vec::new();
    let mut seen: HashSet<CpeRow> = HashSet::new();
    let mut count = 0usize;
    for config in configs {
        if config.negate == Some(true) {
            continue;
        }
        for node in &config.nodes {
            if node.negate == Some(true) {
                continue;
            }
            count += node.cpe_match.len();
            if count > MAX_CPES {
                return Err(format!("{id}: more than {MAX_CPES} CPE matches"));
            }
            let parsed: Vec<(Cpe, &RawCpeMatch)> = node
                .cpe_match
                .iter()
                .filter_map(|m| match Cpe::parse(&m.criteria) {
                    Ok(c) => Some((c, m)),
                    Err(e) => {
                        problems.push(format!("{id}: a CPE that does not parse ({e}) was skipped"));
                        None
                    }
                })
                .collect();
            let and = node
                .operator
                .as_deref()
                .is_some_and(|o| o.eq_ignore_ascii_case("AND"));
            let has = |p: Part| parsed.iter().any(|(c, _)| c.part == p);
            let only_apps = and && has(Part::Application) && has(Part::OperatingSystem);
            for (cpe, m) in parsed {
                if only_apps && cpe.part != Part::Application {
                    continue;
                }
                if m.vulnerable == Some(false) {
                    continue;
                }
                let row = CpeRow {
                    part: cpe.part.as_str().to_string(),
                    attrs: cpe.attrs,
                    bounds: [
                        bound(&m.version_start_including),
                        bound(&m.version_start_excluding),
                        bound(&m.version_end_including),
                        bound(&m.version_end_excluding),
                    ],
                };
                if seen.insert(row.clone()) {
                    out.push(row);
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn item(cve: Value) -> Value {
        json!({ "cve": cve })
    }

    fn base(id: &str) -> Value {
        json!({"id": id, "published": "2024-01-02T03:04:05.000",
               "lastModified": "2024-02-01T00:00:00.000",
               "descriptions": [{"lang": "en", "value": "First."},
                                {"lang": "es", "value": "Primero."},
                                {"lang": "en", "value": "Second."}],
               "references": [{"url": "https://b.example/x"}, {"url": "https://a.example/y"},
                              {"url": "https://b.example/x"}]})
    }

    #[test]
    fn conversion_follows_upstream() {
        let mut c = base("CVE-2024-0001");
        c["weaknesses"] = json!([{"source": "nvd", "type": "Primary",
            "description": [{"lang": "en", "value": "CWE-79"}, {"lang": "en", "value": "NVD-CWE-Other"},
                            {"lang": "en", "value": "CWE-79"}, {"lang": "en", "value": "CWE-20"}]}]);
        c["metrics"] = json!({
            "cvssMetricV40": [{"source": "s", "type": "Secondary", "cvssData": {"version": "4.0",
                "vectorString": "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N",
                "baseScore": 9.3}}],
            "cvssMetricV31": [
                {"source": "s", "type": "Secondary", "cvssData": {"version": "3.1",
                  "vectorString": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N", "baseScore": 5.3}},
                {"source": "p", "type": "Primary", "cvssData": {"version": "3.1",
                  "vectorString": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", "baseScore": 9.8}}],
            "cvssMetricV30": [{"source": "p", "type": "Primary", "cvssData": {"version": "3.0",
                  "vectorString": "CVSS:3.0/AV:L/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N", "baseScore": 4.0}}],
            "cvssMetricV2": [{"source": "p", "type": "Primary", "cvssData": {"version": "2.0",
                  "vectorString": "AV:N/AC:L/Au:N/C:P/I:P/A:P", "baseScore": 7.5}}]});
        let r = convert(item(c)).unwrap();
        let v = &r.vulnerability;
        assert_eq!(
            (v.source.as_str(), v.vuln_id.as_str()),
            ("NVD", "CVE-2024-0001")
        );
        assert_eq!(v.description.as_deref(), Some("First.\n\nSecond."));
        assert_eq!(
            v.references.as_deref(),
            Some(
                "* [https://a.example/y](https://a.example/y)\n* [https://b.example/x](https://b.example/x)\n"
            )
        );
        assert_eq!(v.cwes, vec![20, 79]);
        // Primary before Secondary; v3.1 over v3.0.
        assert_eq!(v.cvss_v3_score, Some(9.8));
        assert_eq!(r.cvss_v4.as_ref().map(|x| x.1), Some(9.3));
        assert_eq!(r.cvss_v2.as_ref().map(|x| x.1), Some(7.5));
        assert_eq!(v.severity.as_deref(), Some("CRITICAL"));
        assert!(r.problems.is_empty(), "{:?}", r.problems);
        assert_eq!(
            r.last_modified_ms,
            crate::time::parse_rfc3339_millis("2024-02-01T00:00:00Z").unwrap()
        );

        // Only v3.0 and v2: v3.0 is used; only v2: its rating (no CRITICAL).
        let mut c = base("CVE-2024-0002");
        c["metrics"] = json!({"cvssMetricV30": [{"type": "Primary", "cvssData": {
            "vectorString": "CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N"}}]});
        let r = convert(item(c)).unwrap();
        assert_eq!(r.vulnerability.cvss_v3_score, Some(7.5));
        assert_eq!(r.vulnerability.severity.as_deref(), Some("HIGH"));
        let mut c = base("CVE-2024-0003");
        c["metrics"] = json!({"cvssMetricV2": [
            {"type": "Primary", "cvssData": {"vectorString": "not a vector"}},
            {"type": "Primary", "cvssData": {"vectorString": "AV:N/AC:L/Au:N/C:C/I:C/A:C"}}]});
        let r = convert(item(c)).unwrap();
        assert_eq!(r.vulnerability.severity.as_deref(), Some("HIGH"));
        assert_eq!(r.cvss_v2.as_ref().map(|x| x.1), Some(10.0));
        let r = convert(item(base("CVE-2024-0004"))).unwrap();
        assert_eq!(r.vulnerability.severity.as_deref(), Some("UNASSIGNED"));
    }

    #[test]
    fn configurations_follow_upstream() {
        let mut c = base("CVE-2024-0005");
        c["configurations"] = json!([
            {"nodes": [{"operator": "OR", "negate": false, "cpeMatch": [
                {"vulnerable": true, "criteria": "cpe:2.3:a:OpenSSL:openssl:*:*:*:*:*:*:*:*",
                 "matchCriteriaId": "x", "versionStartIncluding": "3.0.0", "versionEndExcluding": "3.0.7"},
                {"vulnerable": true, "criteria": "cpe:2.3:a:openssl:openssl:*:*:*:*:*:*:*:*",
                 "matchCriteriaId": "y", "versionStartIncluding": "3.0.0", "versionEndExcluding": "3.0.7"},
                {"vulnerable": false, "criteria": "cpe:2.3:a:openssl:openssl:1.0.2:*:*:*:*:*:*:*",
                 "matchCriteriaId": "z"},
                {"vulnerable": true, "criteria": "cpe:2.3:a:broken", "matchCriteriaId": "w"}]}]},
            {"operator": "AND", "nodes": [{"operator": "AND", "cpeMatch": [
                {"vulnerable": true, "criteria": "cpe:2.3:a:adobe:flash_player:*:*:*:*:*:*:*:*",
                 "matchCriteriaId": "a", "versionEndIncluding": "16.0.0.296"},
                {"vulnerable": true, "criteria": "cpe:2.3:o:microsoft:windows:-:*:*:*:*:*:*:*",
                 "matchCriteriaId": "b"}]}]},
            {"negate": true, "nodes": [{"operator": "OR", "cpeMatch": [
                {"vulnerable": true, "criteria": "cpe:2.3:a:negated:config:*:*:*:*:*:*:*:*",
                 "matchCriteriaId": "c"}]}]},
            {"nodes": [{"operator": "OR", "negate": true, "cpeMatch": [
                {"vulnerable": true, "criteria": "cpe:2.3:a:negated:node:*:*:*:*:*:*:*:*",
                 "matchCriteriaId": "d"}]}]}
        ]);
        let r = convert(item(c)).unwrap();
        let keys: Vec<(&str, &str, &str, Option<&str>)> = r
            .cpes
            .iter()
            .map(|c| {
                (
                    c.part.as_str(),
                    c.attrs[0].as_str(),
                    c.attrs[1].as_str(),
                    c.bounds[3].as_deref().or(c.bounds[2].as_deref()),
                )
            })
            .collect();
        assert_eq!(
            keys,
            [
                ("a", "openssl", "openssl", Some("3.0.7")),
                ("a", "adobe", "flash_player", Some("16.0.0.296")),
            ]
        );
        assert_eq!(r.problems.len(), 1, "{:?}", r.problems);
    }

    #[test]
    fn bad_items_are_refused() {
        assert!(convert(json!({"nope": 1})).is_err());
        assert!(
            convert(item(
                json!({"id": "GHSA-x", "lastModified": "2024-01-01T00:00:00"})
            ))
            .is_err()
        );
        assert!(convert(item(json!({"id": "CVE-2024-0001"}))).is_err());
        assert!(
            convert(item(
                json!({"id": "CVE-2024-0001", "lastModified": "yesterday"})
            ))
            .is_err()
        );
        assert!(cve_id_ok("CVE-2024-12345"));
        assert!(!cve_id_ok("CVE-24-1234"));
    }
}
