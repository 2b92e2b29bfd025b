//! Findings as Dependency-Track's clients read them, rendered straight to bytes from typed
//! structs (no `serde_json::Value` tree): upstream's `Finding` JSON, the SARIF 2.1.0 log GitHub
//! code scanning reads (`Accept: application/sarif+json`), and the Finding Packaging Format 1.4
//! that DefectDojo imports (`/finding/project/{uuid}/export`).
//!
//! Must not touch the database or decide errors (that is `respond`).

use serde::Serialize;

use crate::domain::dtrack::cwe;
use crate::model::dtrack::{Finding, Project, Vulnerability};

/// Upstream's `Severity` ordinal (CRITICAL 0 … UNASSIGNED 5).
fn severity_rank(s: &str) -> i64 {
    match s {
        "CRITICAL" => 0,
        "HIGH" => 1,
        "MEDIUM" => 2,
        "LOW" => 3,
        "INFO" => 4,
        _ => 5,
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FComponent<'a> {
    uuid: &'a str,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    group: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    purl: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cpe: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    project: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    project_name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    project_version: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Cwe {
    cwe_id: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'static str>,
}

/// One `VulnerabilityAlias` as findings show it (GSD and internal ids are left out, as upstream).
#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct Alias<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    cve_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ghsa_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sonatype_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    osv_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    snyk_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    vuln_db_id: Option<&'a str>,
}

impl<'a> Alias<'a> {
    /// Puts `id` in the field its prefix names; `false` for ids findings leave out.
    fn set(&mut self, id: &'a str) -> bool {
        let slot = match id.split('-').next() {
            Some("CVE") => &mut self.cve_id,
            Some("GHSA") => &mut self.ghsa_id,
            Some("SONATYPE") => &mut self.sonatype_id,
            Some("SNYK") => &mut self.snyk_id,
            Some("VULNDB") => &mut self.vuln_db_id,
            Some("GSD") | Some("INT") => return false,
            _ => &mut self.osv_id,
        };
        *slot = Some(id);
        true
    }
}

/// One alias object per other id: the vulnerability's own id beside it.
fn aliases(v: &Vulnerability) -> Vec<Alias<'_>> {
    v.aliases
        .iter()
        .filter_map(|a| {
            let mut o = Alias::default();
            o.set(&v.vuln_id);
            o.set(a).then_some(o)
        })
        .collect()
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FVulnerability<'a> {
    uuid: &'a str,
    source: &'a str,
    vuln_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    recommendation: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    references: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cvss_v2_base_score: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cvss_v2_vector: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cvss_v3_base_score: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cvss_v3_vector: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cvss_v4_score: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cvss_v4_vector: Option<&'a str>,
    severity: &'a str,
    severity_rank: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    epss_score: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    epss_percentile: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cwe_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cwe_name: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cwes: Option<Vec<Cwe>>,
    aliases: Vec<Alias<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    published: Option<i64>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FAnalysis<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    state: Option<&'a str>,
    is_suppressed: bool,
    /// FPF only (1.4's `analysis.detail`).
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Attribution<'a> {
    analyzer_identity: &'a str,
    attributed_on: i64,
}

#[derive(Serialize)]
struct FFinding<'a> {
    component: FComponent<'a>,
    vulnerability: FVulnerability<'a>,
    analysis: FAnalysis<'a>,
    attribution: Attribution<'a>,
    matrix: String,
}

/// `with_project` adds the project's name and version to the component, as upstream's
/// portfolio query does (its project-scoped queries and the FPF give only the project's uuid).
fn finding_of(f: &Finding, with_detail: bool, with_project: bool) -> FFinding<'_> {
    let c = &f.component;
    let v = &f.vulnerability;
    let p = c.project.as_ref();
    let named = p.filter(|_| with_project);
    let severity = v.effective_severity();
    let cwes: Vec<Cwe> = v
        .cwes
        .iter()
        .map(|&id| Cwe {
            cwe_id: id,
            name: cwe::name(id),
        })
        .collect();
    FFinding {
        component: FComponent {
            uuid: &c.uuid,
            name: &c.name,
            group: c.group.as_deref(),
            version: c.version.as_deref(),
            purl: c.purl.as_deref(),
            cpe: c.cpe.as_deref(),
            project: p.map(|p| p.uuid.as_str()),
            project_name: named.map(|p| p.name.as_str()),
            project_version: named.and_then(|p| p.version.as_deref()),
        },
        vulnerability: FVulnerability {
            uuid: &v.uuid,
            source: &v.source,
            vuln_id: &v.vuln_id,
            title: v.title.as_deref(),
            description: v.description.as_deref(),
            recommendation: v.recommendation.as_deref(),
            references: v.references.as_deref(),
            cvss_v2_base_score: v.cvss_v2_score,
            cvss_v2_vector: v.cvss_v2_vector.as_deref(),
            cvss_v3_base_score: v.cvss_v3_score,
            cvss_v3_vector: v.cvss_v3_vector.as_deref(),
            cvss_v4_score: v.cvss_v4_score,
            cvss_v4_vector: v.cvss_v4_vector.as_deref(),
            severity,
            severity_rank: severity_rank(severity),
            epss_score: f.epss.map(|e| e.0),
            epss_percentile: f.epss.map(|e| e.1),
            cwe_id: v.cwes.first().copied(),
            cwe_name: v.cwes.first().and_then(|&id| cwe::name(id)),
            cwes: (!cwes.is_empty()).then_some(cwes),
            aliases: aliases(v),
            published: v.published_ms,
        },
        analysis: FAnalysis {
            state: f.state.as_deref(),
            is_suppressed: f.suppressed,
            detail: if with_detail {
                f.details.as_deref()
            } else {
                None
            },
        },
        attribution: Attribution {
            analyzer_identity: &f.analyzer,
            attributed_on: f.attributed_on_ms,
        },
        matrix: format!(
            "{}:{}:{}",
            p.map(|p| p.uuid.as_str()).unwrap_or(""),
            c.uuid,
            v.uuid
        ),
    }
}

fn to_bytes<T: Serialize>(v: &T) -> Vec<u8> {
    // Serializing these structs cannot fail: every key is a string and every float finite
    // or absent.
    serde_json::to_vec(v).unwrap_or_default()
}

/// `GET /finding/project/{uuid}`: a JSON array of findings, each component naming its project
/// by uuid only.
pub fn findings_json(fs: &[Finding]) -> Vec<u8> {
    list_json(fs, false)
}

/// `GET /finding`: as [`findings_json`], each component with `projectName` and
/// `projectVersion`.
pub fn portfolio_findings_json(fs: &[Finding]) -> Vec<u8> {
    list_json(fs, true)
}

fn list_json(fs: &[Finding], with_project: bool) -> Vec<u8> {
    let list: Vec<FFinding<'_>> = fs
        .iter()
        .map(|f| finding_of(f, false, with_project))
        .collect();
    to_bytes(&list)
}

// ---- SARIF 2.1.0 ------------------------------------------------------------------------

/// The `$schema` upstream's SARIF names.
pub const SARIF_SCHEMA: &str =
    "https://schemastore.azurewebsites.net/schemas/json/sarif-2.1.0.json";

#[derive(Serialize)]
struct Text<'a> {
    text: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule<'a> {
    id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    short_description: Text<'a>,
    full_description: Text<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver<'a> {
    name: &'static str,
    full_name: String,
    version: &'static str,
    information_uri: &'static str,
    rules: Vec<Rule<'a>>,
}

#[derive(Serialize)]
struct Tool<'a> {
    driver: Driver<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LogicalLocation<'a> {
    fully_qualified_name: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location<'a> {
    logical_locations: [LogicalLocation<'a>; 1],
}

/// The result's properties: all strings, as upstream's template writes them (absent values
/// as empty strings).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResultProperties<'a> {
    name: &'a str,
    group: &'a str,
    version: &'a str,
    source: &'a str,
    cwe_id: String,
    cvss_v3_base_score: String,
    epss_score: String,
    epss_percentile: String,
    severity_rank: String,
    recommendation: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'a str,
    message: Text<'a>,
    locations: [Location<'a>; 1],
    level: &'static str,
    /// The finding's matrix, so code scanning follows one alert across uploads.
    partial_fingerprints: Fingerprint,
    properties: ResultProperties<'a>,
}

#[derive(Serialize)]
struct Fingerprint {
    #[serde(rename = "dependencyTrackFinding/v1")]
    finding: String,
}

#[derive(Serialize)]
struct Run<'a> {
    tool: Tool<'a>,
    results: Vec<SarifResult<'a>>,
}

#[derive(Serialize)]
struct SarifLog<'a> {
    version: &'static str,
    #[serde(rename = "$schema")]
    schema: &'static str,
    runs: [Run<'a>; 1],
}

/// A CWE name as upstream's SARIF rule names it: each word capitalised, spaces removed.
pub fn pascal_case(name: &str) -> String {
    name.split(' ')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut cs = w.chars();
            match cs.next() {
                Some(first) => first.to_uppercase().chain(cs).collect::<String>(),
                None => String::new(),
            }
        })
        .collect()
}

/// Upstream's SARIF level for a severity.
pub fn sarif_level(severity: &str) -> &'static str {
    match severity {
        "LOW" | "INFO" => "note",
        "MEDIUM" => "warning",
        "HIGH" | "CRITICAL" => "error",
        _ => "none",
    }
}

fn opt_num(v: Option<f64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// The SARIF 2.1.0 log of a project's findings: one rule per vulnerability id (the first
/// finding's), one result per finding.
pub fn sarif(fs: &[Finding], version: &'static str) -> Vec<u8> {
    let mut rules: Vec<Rule<'_>> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut results = Vec::with_capacity(fs.len());
    for f in fs {
        let v = &f.vulnerability;
        let c = &f.component;
        let description = v.description.as_deref().unwrap_or("").trim();
        if seen.insert(v.vuln_id.as_str()) {
            rules.push(Rule {
                id: &v.vuln_id,
                name: v
                    .cwes
                    .first()
                    .and_then(|&id| cwe::name(id))
                    .map(pascal_case),
                short_description: Text { text: &v.vuln_id },
                full_description: Text { text: description },
            });
        }
        let severity = v.effective_severity();
        results.push(SarifResult {
            rule_id: &v.vuln_id,
            message: Text { text: description },
            locations: [Location {
                logical_locations: [LogicalLocation {
                    fully_qualified_name: c.purl.as_deref().unwrap_or(""),
                }],
            }],
            level: sarif_level(severity),
            partial_fingerprints: Fingerprint {
                finding: format!(
                    "{}:{}:{}",
                    c.project.as_ref().map(|p| p.uuid.as_str()).unwrap_or(""),
                    c.uuid,
                    v.uuid
                ),
            },
            properties: ResultProperties {
                name: &c.name,
                group: c.group.as_deref().unwrap_or(""),
                version: c.version.as_deref().unwrap_or(""),
                source: &v.source,
                cwe_id: v.cwes.first().map(i64::to_string).unwrap_or_default(),
                cvss_v3_base_score: opt_num(v.cvss_v3_score),
                epss_score: opt_num(f.epss.map(|e| e.0)),
                epss_percentile: opt_num(f.epss.map(|e| e.1)),
                severity_rank: severity_rank(severity).to_string(),
                recommendation: v.recommendation.as_deref().unwrap_or("").trim(),
            },
        });
    }
    to_bytes(&SarifLog {
        version: "2.1.0",
        schema: SARIF_SCHEMA,
        runs: [Run {
            tool: Tool {
                driver: Driver {
                    name: "OWASP Dependency-Track",
                    full_name: format!("OWASP Dependency-Track - {version}"),
                    version,
                    information_uri: "https://dependencytrack.org/",
                    rules,
                },
            },
            results,
        }],
    })
}

// ---- Finding Packaging Format 1.4 -------------------------------------------------------

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FpfMeta<'a> {
    application: &'static str,
    version: &'static str,
    timestamp: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FpfProject<'a> {
    uuid: &'a str,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    purl: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cpe: Option<&'a str>,
}

#[derive(Serialize)]
struct Fpf<'a> {
    version: &'static str,
    meta: FpfMeta<'a>,
    project: FpfProject<'a>,
    findings: Vec<FFinding<'a>>,
}

/// The FPF document of a project's (unsuppressed) findings; `timestamp` is ISO 8601.
pub fn fpf(project: &Project, fs: &[Finding], version: &'static str, timestamp: &str) -> Vec<u8> {
    to_bytes(&Fpf {
        version: "1.4",
        meta: FpfMeta {
            application: "Dependency-Track",
            version,
            timestamp,
        },
        project: FpfProject {
            uuid: &project.uuid,
            name: &project.name,
            version: project.version.as_deref(),
            description: project.description.as_deref(),
            purl: project.purl.as_deref(),
            cpe: project.cpe.as_deref(),
        },
        findings: fs.iter().map(|f| finding_of(f, true, false)).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_names_and_levels_follow_upstream() {
        assert_eq!(
            pascal_case(
                "Improper Neutralization of Input During Web Page Generation ('Cross-site Scripting')"
            ),
            "ImproperNeutralizationOfInputDuringWebPageGeneration('Cross-siteScripting')"
        );
        assert_eq!(sarif_level("INFO"), "note");
        assert_eq!(sarif_level("MEDIUM"), "warning");
        assert_eq!(sarif_level("CRITICAL"), "error");
        assert_eq!(sarif_level("UNASSIGNED"), "none");
    }

    #[test]
    fn aliases_name_both_ids_and_leave_gsd_out() {
        let v = Vulnerability {
            vuln_id: "GHSA-aaaa-bbbb-cccc".into(),
            aliases: vec![
                "CVE-2024-1".into(),
                "GSD-2024-1".into(),
                "PYSEC-2024-1".into(),
            ],
            ..Vulnerability::default()
        };
        let out = String::from_utf8(to_bytes(&aliases(&v))).unwrap();
        assert_eq!(
            out,
            r#"[{"cveId":"CVE-2024-1","ghsaId":"GHSA-aaaa-bbbb-cccc"},{"ghsaId":"GHSA-aaaa-bbbb-cccc","osvId":"PYSEC-2024-1"}]"#
        );
    }
}
