//! Request bodies of the Dependency-Track API: typed structs that refuse unknown fields where
//! upstream's Jackson models do, and upstream's enum names.
//!
//! Must not touch the database.

use serde::Deserialize;
use serde_json::Value;

/// `{"uuid"}` or `{"name"}` entries of a project's `accessTeams`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TeamRefIn {
    pub uuid: Option<String>,
    pub name: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TagIn {
    pub name: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParentIn {
    pub uuid: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub version: Option<String>,
}

/// The Project body of `PUT|POST /project`.
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
    pub collection_logic: Option<String>,
    pub properties: Option<Vec<Value>>,
    pub children: Option<Vec<Value>>,
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
