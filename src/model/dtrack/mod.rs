//! Plain Dependency-Track records shared by the storage, domain and wire layers, and the
//! permissions with their sets ([`permissions`]).
//!
//! Must not touch HTTP types, JSON or SQL.

pub mod permissions;

use crate::ids::{ApiKeyId, ComponentId, DtUserId, ProjectId, TeamId, VulnerabilityId};

use permissions::PermSet;

#[derive(Clone, Debug, PartialEq)]
pub struct ApiKey {
    pub id: ApiKeyId,
    pub public_id: String,
    pub legacy: bool,
    pub comment: Option<String>,
    pub created_ms: i64,
    pub last_used_ms: Option<i64>,
    /// The full key; only right after creation.
    pub key: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Team {
    pub id: TeamId,
    pub uuid: String,
    pub name: String,
    pub permissions: PermSet,
    pub api_keys: Vec<ApiKey>,
    /// Usernames of the managed users in the team.
    pub users: Vec<String>,
}

/// Who is calling, as established by authentication.
#[derive(Clone, Debug, PartialEq)]
pub struct Principal {
    pub kind: PrincipalKind,
    /// The principal's teams (id, name), in team-id order.
    pub teams: Vec<(TeamId, String)>,
    /// Effective permissions: the teams' (and, for users, their own).
    pub permissions: PermSet,
}

#[derive(Clone, Debug, PartialEq)]
pub enum PrincipalKind {
    ApiKey { id: ApiKeyId },
    User { id: DtUserId, username: String },
}

impl Principal {
    /// The commenter name of audit-trail comments: the username, or for an API key the names
    /// of its teams joined with `", "`.
    pub fn commenter(&self) -> String {
        match &self.kind {
            PrincipalKind::User { username, .. } => username.clone(),
            PrincipalKind::ApiKey { .. } => self
                .teams
                .iter()
                .map(|(_, n)| n.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        }
    }
}

/// A managed user as stored.
#[derive(Clone, Debug)]
pub struct User {
    pub id: DtUserId,
    pub username: String,
    pub password_hash: String,
    pub force_password_change: bool,
    pub suspended: bool,
}

/// The identifying triple of a project, as shown for parents.
#[derive(Clone, Debug, PartialEq)]
pub struct ProjectRef {
    pub uuid: String,
    pub name: String,
    pub version: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Project {
    pub id: ProjectId,
    pub uuid: String,
    pub name: String,
    pub version: Option<String>,
    pub group: Option<String>,
    pub description: Option<String>,
    pub publisher: Option<String>,
    pub classifier: Option<String>,
    pub cpe: Option<String>,
    pub purl: Option<String>,
    pub swid_tag_id: Option<String>,
    pub active: bool,
    pub is_latest: bool,
    pub collection_logic: String,
    pub tags: Vec<String>,
    pub parent: Option<ProjectRef>,
    /// Loaded only where upstream loads it (single-project reads, root listings, creation).
    pub children: Option<Vec<Project>>,
    pub last_bom_import_ms: Option<i64>,
    /// E.g. `CycloneDX 1.5`.
    pub last_bom_import_format: Option<String>,
    /// The latest metrics snapshot, where upstream attaches it.
    pub metrics: Option<ProjectMetrics>,
    /// (uuid, version, active) of every project with this name, on single-project reads.
    pub versions: Option<Vec<(String, Option<String>, bool)>>,
    /// The 4.13+ metadata fields, stored as sent (`None` = never set).
    pub details: ProjectDetails,
    /// Project properties (group, name, value, type, description), by group and name.
    pub properties: Vec<ProjectProperty>,
}

/// A person of a project's `authors` or an organization's `contacts`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Contact {
    pub name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
}

/// A project's `manufacturer` or `supplier`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Organization {
    pub name: Option<String>,
    pub urls: Vec<String>,
    pub contacts: Vec<Contact>,
}

/// One of a project's `externalReferences`: CycloneDX reference type, URL, comment.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExternalRef {
    pub kind: Option<String>,
    pub url: String,
    pub comment: Option<String>,
}

/// The descriptive project fields DT 4.13 added, and the collection tag.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProjectDetails {
    pub authors: Option<Vec<Contact>>,
    pub manufacturer: Option<Organization>,
    pub supplier: Option<Organization>,
    pub external_references: Option<Vec<ExternalRef>>,
    /// The tag `AGGREGATE_DIRECT_CHILDREN_WITH_TAG` aggregates.
    pub collection_tag: Option<String>,
}

/// A project property. ENCRYPTEDSTRING values are never shown (see the property rules).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProjectProperty {
    pub group: String,
    pub name: String,
    pub value: Option<String>,
    /// Upstream's type name: BOOLEAN, INTEGER, NUMBER, STRING, ENCRYPTEDSTRING, TIMESTAMP, URL, UUID.
    pub kind: String,
    pub description: Option<String>,
}

/// The fields a client may set on a project.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProjectFields {
    pub name: String,
    pub version: Option<String>,
    pub group: Option<String>,
    pub description: Option<String>,
    pub publisher: Option<String>,
    pub classifier: Option<String>,
    pub cpe: Option<String>,
    pub purl: Option<String>,
    pub swid_tag_id: Option<String>,
    pub active: bool,
    pub is_latest: bool,
    pub tags: Vec<String>,
    pub parent_uuid: Option<String>,
    /// Teams (by uuid or name) to map to a new project.
    pub access_teams: Vec<TeamRef>,
    /// `NONE` or one of the aggregating logics.
    pub collection_logic: String,
    pub details: ProjectDetails,
}

/// `PATCH /project/{uuid}`: only the fields sent (`Some`) change.
#[derive(Clone, Debug, Default)]
pub struct ProjectPatch {
    pub name: Option<String>,
    pub version: Option<String>,
    pub group: Option<String>,
    pub description: Option<String>,
    pub publisher: Option<String>,
    pub classifier: Option<String>,
    pub cpe: Option<String>,
    pub purl: Option<String>,
    pub swid_tag_id: Option<String>,
    pub active: Option<bool>,
    pub is_latest: Option<bool>,
    pub tags: Option<Vec<String>>,
    pub parent_uuid: Option<String>,
    pub collection_logic: Option<String>,
    /// The descriptive fields; each `Some` replaces the stored value.
    pub details: ProjectDetails,
}

/// What `PUT /project/clone` copies: the new version and the include flags.
#[derive(Clone, Debug, Default)]
pub struct CloneRequest {
    pub project: String,
    pub version: String,
    pub include_tags: bool,
    pub include_properties: bool,
    pub include_components: bool,
    pub include_services: bool,
    pub include_audit_history: bool,
    pub include_acl: bool,
    pub include_policy_violations: bool,
    pub make_clone_latest: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TeamRef {
    Uuid(String),
    Name(String),
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Component {
    pub id: i64,
    pub uuid: String,
    pub project: Option<ProjectRef>,
    pub name: String,
    pub version: Option<String>,
    pub group: Option<String>,
    pub purl: Option<String>,
    pub cpe: Option<String>,
    pub swid_tag_id: Option<String>,
    pub classifier: Option<String>,
    pub description: Option<String>,
    pub license: Option<String>,
    pub md5: Option<String>,
    pub sha1: Option<String>,
    pub sha256: Option<String>,
    pub sha512: Option<String>,
    pub is_internal: bool,
    /// The source package a BOM names for an OS package (Trivy's `SrcName` properties), kept
    /// for the internal analyzer; not part of upstream's component JSON.
    pub source_package: Option<SourcePackage>,
}

/// A binary package's source package: name and version (`[epoch:]version[-release]`).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct SourcePackage {
    pub name: String,
    pub version: Option<String>,
}

impl Component {
    pub fn component_id(&self) -> ComponentId {
        ComponentId(self.id)
    }
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Vulnerability {
    pub id: i64,
    pub uuid: String,
    pub vuln_id: String,
    pub source: String,
    pub severity: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    pub recommendation: Option<String>,
    pub cvss_v3_vector: Option<String>,
    pub created_ms: Option<i64>,
    pub published_ms: Option<i64>,
    pub cvss_v3_score: Option<f64>,
    /// CVSS v2 and v4 come from `dt_vulnerability_cvss` (imported records only).
    pub cvss_v2_vector: Option<String>,
    pub cvss_v2_score: Option<f64>,
    pub cvss_v4_vector: Option<String>,
    pub cvss_v4_score: Option<f64>,
    pub updated_ms: Option<i64>,
    /// Upstream's Markdown list of reference links.
    pub references: Option<String>,
    pub cwes: Vec<i64>,
    /// Other ids of the same vulnerability (CVE, GHSA, …); loaded where an endpoint shows them.
    pub aliases: Vec<String>,
}

impl Vulnerability {
    pub fn vulnerability_id(&self) -> VulnerabilityId {
        VulnerabilityId(self.id)
    }

    /// The severity upstream reports: the stored one, else `UNASSIGNED`.
    pub fn effective_severity(&self) -> &str {
        self.severity.as_deref().unwrap_or("UNASSIGNED")
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct AnalysisComment {
    pub timestamp_ms: i64,
    pub comment: String,
    pub commenter: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    pub state: String,
    pub justification: Option<String>,
    pub response: Option<String>,
    pub details: Option<String>,
    pub suppressed: bool,
    pub comments: Vec<AnalysisComment>,
}

/// One vulnerability of one component, with its analysis.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub component: Component,
    pub vulnerability: Vulnerability,
    pub attributed_on_ms: i64,
    /// `NONE` (attributed by hand) or `INTERNAL_ANALYZER` (matched against OSV data).
    pub analyzer: String,
    pub state: Option<String>,
    pub suppressed: bool,
    /// The analysis details (FPF's `analysis.detail`).
    pub details: Option<String>,
    /// EPSS (score, percentile) of the vulnerability's CVE id (its own or an alias), when
    /// imported.
    pub epss: Option<(f64, f64)>,
}

/// A metrics snapshot of a project.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ProjectMetrics {
    pub first_occurrence_ms: i64,
    pub last_occurrence_ms: i64,
    pub components: i64,
    pub vulnerable_components: i64,
    pub vulnerabilities: i64,
    pub critical: i64,
    pub high: i64,
    pub medium: i64,
    pub low: i64,
    pub unassigned: i64,
    pub suppressed: i64,
    pub findings_total: i64,
    pub findings_audited: i64,
    pub policy_violations_fail: i64,
    pub policy_violations_warn: i64,
    pub policy_violations_info: i64,
    /// Violations with an analysis state other than NOT_SET (suppressed ones apart).
    pub policy_violations_audited: i64,
    pub policy_violations_security_total: i64,
    pub policy_violations_security_audited: i64,
    pub policy_violations_license_total: i64,
    pub policy_violations_license_audited: i64,
    pub policy_violations_operational_total: i64,
    pub policy_violations_operational_audited: i64,
}

impl ProjectMetrics {
    /// The same counters, whenever they were taken (history keeps a new row only when these
    /// differ from the latest row's).
    pub fn same_counts(&self, other: &ProjectMetrics) -> bool {
        let strip = |m: &ProjectMetrics| ProjectMetrics {
            first_occurrence_ms: 0,
            last_occurrence_ms: 0,
            ..m.clone()
        };
        strip(self) == strip(other)
    }

    /// Adds another snapshot's counters into this one (timestamps untouched).
    pub fn add(&mut self, x: &ProjectMetrics) {
        self.components += x.components;
        self.vulnerable_components += x.vulnerable_components;
        self.vulnerabilities += x.vulnerabilities;
        self.critical += x.critical;
        self.high += x.high;
        self.medium += x.medium;
        self.low += x.low;
        self.unassigned += x.unassigned;
        self.suppressed += x.suppressed;
        self.findings_total += x.findings_total;
        self.findings_audited += x.findings_audited;
        self.policy_violations_fail += x.policy_violations_fail;
        self.policy_violations_warn += x.policy_violations_warn;
        self.policy_violations_info += x.policy_violations_info;
        self.policy_violations_audited += x.policy_violations_audited;
        self.policy_violations_security_total += x.policy_violations_security_total;
        self.policy_violations_security_audited += x.policy_violations_security_audited;
        self.policy_violations_license_total += x.policy_violations_license_total;
        self.policy_violations_license_audited += x.policy_violations_license_audited;
        self.policy_violations_operational_total += x.policy_violations_operational_total;
        self.policy_violations_operational_audited += x.policy_violations_operational_audited;
    }
}

/// A snapshot of the whole portfolio: the latest metrics of its active non-collection
/// projects summed, with how many projects there are and how many are vulnerable.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct PortfolioMetrics {
    pub projects: i64,
    pub vulnerable_projects: i64,
    pub m: ProjectMetrics,
}

/// How many vulnerabilities the database holds for a year (`month` `None`) or a month of it,
/// by creation date (publication date when there is none).
#[derive(Clone, Debug, PartialEq)]
pub struct VulnerabilityMetric {
    pub year: i64,
    pub month: Option<i64>,
    pub count: i64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PolicyCondition {
    pub id: i64,
    pub uuid: String,
    pub subject: String,
    pub operator: String,
    pub value: String,
}

impl PolicyCondition {
    /// The violation type upstream derives from the subject.
    pub fn violation_type(&self) -> &'static str {
        match self.subject.as_str() {
            "LICENSE" | "LICENSE_GROUP" => "LICENSE",
            "SEVERITY" | "CWE" | "VULNERABILITY_ID" | "EPSS" => "SECURITY",
            _ => "OPERATIONAL",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Policy {
    pub id: i64,
    pub uuid: String,
    pub name: String,
    /// `ANY` or `ALL`.
    pub operator: String,
    /// `INFO`, `WARN` or `FAIL`.
    pub violation_state: String,
    pub include_children: bool,
    pub only_latest_project_version: bool,
    pub conditions: Vec<PolicyCondition>,
    /// The projects the policy is scoped to (read only where a policy is shown whole).
    pub projects: Vec<Project>,
    /// The tags the policy is scoped to, by name (read only where a policy is shown whole).
    pub tags: Vec<String>,
}

impl Policy {
    /// Upstream's `isGlobal`: scoped to neither projects nor tags.
    pub fn is_global(&self) -> bool {
        self.projects.is_empty() && self.tags.is_empty()
    }
}

/// A tag name as upstream stores it (trimmed, lower-cased); `None` for a blank one.
pub fn tag_name(raw: &str) -> Option<String> {
    let t = raw.trim();
    (!t.is_empty()).then(|| t.to_lowercase())
}

#[derive(Clone, Debug, PartialEq)]
pub struct ViolationAnalysis {
    pub state: String,
    pub suppressed: bool,
    pub comments: Vec<AnalysisComment>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PolicyViolation {
    pub id: i64,
    pub uuid: String,
    pub kind: String,
    pub timestamp_ms: i64,
    pub condition: PolicyCondition,
    /// The owning policy, without its conditions or scope.
    pub policy: Policy,
    /// Whether the owning policy is global (scoped to neither projects nor tags).
    pub policy_global: bool,
    pub component: Component,
    pub analysis: Option<ViolationAnalysis>,
}

/// A license of the built-in SPDX catalogue.
#[derive(Clone, Debug, PartialEq)]
pub struct License {
    pub uuid: String,
    /// The SPDX identifier (`Apache-2.0`).
    pub license_id: String,
    pub name: String,
    pub osi_approved: bool,
    pub fsf_libre: bool,
    /// A deprecated SPDX id (`GPL-2.0`, superseded by `GPL-2.0-only`).
    pub deprecated: bool,
}

/// A named set of catalogue licenses.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct LicenseGroup {
    pub id: i64,
    pub uuid: String,
    pub name: String,
    pub risk_weight: i64,
    /// Member SPDX ids, sorted.
    pub licenses: Vec<String>,
    /// The members as catalogue records (filled by the domain).
    pub license_records: Vec<License>,
}
