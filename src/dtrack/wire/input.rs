//! Request bodies of the Dependency-Track API: typed structs that refuse unknown fields where
//! upstream's Jackson models do, and upstream's enum names.
//!
//! Must not touch the database.

use serde::Deserialize;
use serde_json::Value;

/// `{"uuid"}` or `{"name"}` entries of a project's `accessTeams`. Upstream reads a whole Team
/// here, so the Team's other fields (as generated clients send them) are accepted and ignored.
#[derive(Debug, Deserialize)]
pub struct TeamRefIn {
    pub uuid: Option<String>,
    pub name: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TagIn {
    pub name: String,
}

/// A project's `parent`: upstream reads a whole Project and uses its `uuid`, so the other
/// Project fields a client sends along are accepted and ignored.
#[derive(Debug, Deserialize)]
pub struct ParentIn {
    pub uuid: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub version: Option<String>,
}

/// An `OrganizationalContact`: an author, or a contact of an organization.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContactIn {
    pub name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
}

/// An `OrganizationalEntity`: a manufacturer or supplier.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrganizationIn {
    pub name: Option<String>,
    pub urls: Option<Vec<String>>,
    pub contacts: Option<Vec<ContactIn>>,
}

/// An `ExternalReference`; `type` is one of [`EXTERNAL_REFERENCE_TYPES`].
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExternalRefIn {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub url: Option<String>,
    pub comment: Option<String>,
}

/// The CycloneDX external reference types upstream's enum knows.
pub const EXTERNAL_REFERENCE_TYPES: &[&str] = &[
    "vcs",
    "issue-tracker",
    "website",
    "advisories",
    "bom",
    "mailing-list",
    "social",
    "chat",
    "documentation",
    "support",
    "source-distribution",
    "distribution",
    "distribution-intake",
    "license",
    "build-meta",
    "build-system",
    "release-notes",
    "security-contact",
    "model_card",
    "attestation",
    "threat-model",
    "adversary-model",
    "risk-assessment",
    "vulnerability-assertion",
    "exploitability-statement",
    "pentest-report",
    "static-analysis-report",
    "dynamic-analysis-report",
    "runtime-analysis-report",
    "component-analysis-report",
    "maturity-report",
    "certification-report",
    "codified-infrastructure",
    "quality-metrics",
    "log",
    "configuration",
    "evidence",
    "formulation",
    "rfc-9116",
    "electronic-signature",
    "digital-signature",
    "other",
];

/// Upstream's `ProjectCollectionLogic`.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CollectionLogic {
    None,
    AggregateDirectChildren,
    AggregateDirectChildrenWithTag,
    AggregateLatestVersionChildren,
}

/// The Project body of `PUT|POST /project` and `PATCH /project/{uuid}`. Every field of
/// upstream's Project is accepted; the read-only ones (`metrics`, `versions`, `metadata`,
/// `lastBomImport`, ...) are ignored, as upstream ignores them on writes.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ProjectIn {
    pub uuid: Option<String>,
    pub name: Option<String>,
    pub version: Option<String>,
    pub group: Option<String>,
    pub description: Option<String>,
    pub publisher: Option<String>,
    pub classifier: Option<Classifier>,
    pub cpe: Option<String>,
    pub purl: Option<String>,
    pub swid_tag_id: Option<String>,
    pub active: Option<bool>,
    pub is_latest: Option<bool>,
    pub tags: Option<Vec<TagIn>>,
    pub parent: Option<ParentIn>,
    pub access_teams: Option<Vec<TeamRefIn>>,
    pub collection_logic: Option<CollectionLogic>,
    pub collection_tag: Option<TagIn>,
    pub authors: Option<Vec<ContactIn>>,
    /// Deprecated: one author by name (`authors` wins when both are sent).
    pub author: Option<String>,
    pub manufacturer: Option<OrganizationIn>,
    pub supplier: Option<OrganizationIn>,
    pub external_references: Option<Vec<ExternalRefIn>>,
    pub properties: Option<Vec<Value>>,
    pub children: Option<Vec<Value>>,
    // Read-only or computed upstream: accepted so that a project read back can be sent again.
    pub direct_dependencies: Option<Value>,
    pub last_bom_import: Option<Value>,
    pub last_bom_import_format: Option<Value>,
    pub last_inherited_risk_score: Option<Value>,
    pub last_vulnerability_analysis: Option<Value>,
    pub metadata: Option<Value>,
    pub metrics: Option<Value>,
    pub versions: Option<Value>,
    pub bom_ref: Option<Value>,
}

/// `PUT /project/clone` (`CloneProjectRequest`): `project` and `version` required.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CloneIn {
    pub project: Option<String>,
    pub version: Option<String>,
    #[serde(default)]
    pub include_tags: bool,
    #[serde(default)]
    pub include_properties: bool,
    #[serde(default)]
    pub include_dependencies: bool,
    #[serde(default)]
    pub include_components: bool,
    #[serde(default)]
    pub include_services: bool,
    #[serde(default)]
    pub include_audit_history: bool,
    #[serde(default, rename = "includeACL")]
    pub include_acl: bool,
    #[serde(default)]
    pub include_policy_violations: bool,
    #[serde(default)]
    pub make_clone_latest: bool,
}

/// Upstream's `IConfigProperty.PropertyType`.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PropertyType {
    Boolean,
    Integer,
    Number,
    String,
    #[serde(rename = "ENCRYPTEDSTRING")]
    EncryptedString,
    Timestamp,
    Url,
    Uuid,
}

impl PropertyType {
    pub fn name(self) -> &'static str {
        match self {
            PropertyType::Boolean => "BOOLEAN",
            PropertyType::Integer => "INTEGER",
            PropertyType::Number => "NUMBER",
            PropertyType::String => "STRING",
            PropertyType::EncryptedString => "ENCRYPTEDSTRING",
            PropertyType::Timestamp => "TIMESTAMP",
            PropertyType::Url => "URL",
            PropertyType::Uuid => "UUID",
        }
    }
}

/// A `ProjectProperty` body of `PUT|POST|DELETE /project/{uuid}/property`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PropertyIn {
    pub group_name: Option<String>,
    pub property_name: Option<String>,
    pub property_value: Option<String>,
    pub property_type: Option<PropertyType>,
    pub description: Option<String>,
}

/// `PUT /vex` (`VexSubmitRequest`); `vex` is required (a JSON `null` passes that check).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct VexSubmitIn {
    pub project: Option<String>,
    pub project_name: Option<String>,
    pub project_version: Option<String>,
    #[serde(deserialize_with = "present")]
    pub vex: Option<String>,
}

/// Upstream's `Classifier` enum; other names do not map.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Classifier {
    None,
    Application,
    Framework,
    Library,
    Container,
    OperatingSystem,
    Device,
    Firmware,
    File,
    Platform,
    DeviceDriver,
    MachineLearningModel,
    Data,
}

impl Classifier {
    pub fn name(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    }
}

impl serde::Serialize for Classifier {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let name = match self {
            Classifier::None => "NONE",
            Classifier::Application => "APPLICATION",
            Classifier::Framework => "FRAMEWORK",
            Classifier::Library => "LIBRARY",
            Classifier::Container => "CONTAINER",
            Classifier::OperatingSystem => "OPERATING_SYSTEM",
            Classifier::Device => "DEVICE",
            Classifier::Firmware => "FIRMWARE",
            Classifier::File => "FILE",
            Classifier::Platform => "PLATFORM",
            Classifier::DeviceDriver => "DEVICE_DRIVER",
            Classifier::MachineLearningModel => "MACHINE_LEARNING_MODEL",
            Classifier::Data => "DATA",
        };
        s.serialize_str(name)
    }
}

/// The Component body of `PUT /component/project/{uuid}` and `POST /component`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ComponentIn {
    pub uuid: Option<String>,
    pub name: Option<String>,
    pub version: Option<String>,
    pub group: Option<String>,
    pub purl: Option<String>,
    pub cpe: Option<String>,
    pub swid_tag_id: Option<String>,
    pub classifier: Option<Classifier>,
    pub description: Option<String>,
    pub license: Option<String>,
    pub md5: Option<String>,
    pub sha1: Option<String>,
    pub sha256: Option<String>,
    pub sha512: Option<String>,
    pub is_internal: Option<bool>,
    pub project: Option<Value>,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Severity {
    Critical,
    High,
    Medium,
    Low,
    Info,
    Unassigned,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Critical => "CRITICAL",
            Severity::High => "HIGH",
            Severity::Medium => "MEDIUM",
            Severity::Low => "LOW",
            Severity::Info => "INFO",
            Severity::Unassigned => "UNASSIGNED",
        }
    }
}

/// The Vulnerability body of `PUT /vulnerability`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct VulnerabilityIn {
    pub vuln_id: Option<String>,
    pub source: Option<String>,
    pub severity: Option<Severity>,
    pub title: Option<String>,
    pub description: Option<String>,
    pub recommendation: Option<String>,
    pub cvss_v3_vector: Option<String>,
    pub published: Option<i64>,
}

/// `{"name"}` (and `uuid` for updates) of `PUT|POST|DELETE /team`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TeamIn {
    pub uuid: Option<String>,
    pub name: Option<String>,
    pub permissions: Option<Vec<Value>>,
    pub api_keys: Option<Vec<Value>>,
}

/// `PUT /acl/mapping`: both fields required (a JSON `null` passes that check, as upstream).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AclMappingIn {
    #[serde(deserialize_with = "present")]
    pub team: Option<String>,
    #[serde(deserialize_with = "present")]
    pub project: Option<String>,
}

/// A required key whose value may be `null`.
pub(crate) fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Option::<String>::deserialize(d)
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AnalysisState {
    Exploitable,
    InTriage,
    FalsePositive,
    NotAffected,
    Resolved,
    NotSet,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Justification {
    CodeNotPresent,
    CodeNotReachable,
    RequiresConfiguration,
    RequiresDependency,
    RequiresEnvironment,
    ProtectedByCompiler,
    ProtectedAtRuntime,
    ProtectedAtPerimeter,
    ProtectedByMitigatingControl,
    NotSet,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Response {
    CanNotFix,
    WillNotFix,
    Update,
    Rollback,
    WorkaroundAvailable,
    NotSet,
}

/// The enum's upstream name (its serde name).
pub fn enum_name<T: std::fmt::Debug>(v: T) -> String {
    // Debug of a unit variant is its CamelCase name; upstream uses SCREAMING_SNAKE_CASE.
    let camel = format!("{v:?}");
    let mut out = String::with_capacity(camel.len() + 4);
    for (i, ch) in camel.chars().enumerate() {
        if ch.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(ch.to_ascii_uppercase());
    }
    out
}

/// `PUT /analysis`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AnalysisIn {
    pub project: Option<String>,
    #[serde(deserialize_with = "present")]
    pub component: Option<String>,
    #[serde(deserialize_with = "present")]
    pub vulnerability: Option<String>,
    pub analysis_state: Option<AnalysisState>,
    pub analysis_justification: Option<Justification>,
    pub analysis_response: Option<Response>,
    pub analysis_details: Option<String>,
    pub comment: Option<String>,
    pub is_suppressed: Option<bool>,
    pub suppressed: Option<bool>,
}

/// `PUT /bom` (`BomSubmitRequest`); `bom` is required (a JSON `null` passes that check).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct BomSubmitIn {
    pub project: Option<String>,
    pub project_name: Option<String>,
    pub project_version: Option<String>,
    pub project_tags: Option<Vec<TagIn>>,
    #[serde(default)]
    pub auto_create: bool,
    #[serde(rename = "parentUUID")]
    pub parent_uuid: Option<String>,
    pub parent_name: Option<String>,
    pub parent_version: Option<String>,
    #[serde(default, alias = "isLatestProjectVersion")]
    pub is_latest: bool,
    #[serde(deserialize_with = "present")]
    pub bom: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enum_names_are_upstreams() {
        assert_eq!(enum_name(AnalysisState::NotAffected), "NOT_AFFECTED");
        assert_eq!(
            enum_name(Justification::ProtectedByMitigatingControl),
            "PROTECTED_BY_MITIGATING_CONTROL"
        );
        assert_eq!(enum_name(Response::CanNotFix), "CAN_NOT_FIX");
        assert_eq!(
            Classifier::MachineLearningModel.name(),
            "MACHINE_LEARNING_MODEL"
        );
    }

    #[test]
    fn required_keys_must_be_present_but_may_be_null() {
        assert!(serde_json::from_str::<AclMappingIn>(r#"{"team":null,"project":null}"#).is_ok());
        assert!(serde_json::from_str::<AclMappingIn>(r#"{"team":"x"}"#).is_err());
        assert!(
            serde_json::from_str::<AclMappingIn>(r#"{"team":"x","project":"y","z":1}"#).is_err()
        );
    }
}
