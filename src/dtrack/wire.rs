//! Dependency-Track's JSON shapes: the only place that knows them.
//!
//! Jackson conventions of upstream: camelCase keys, dates as epoch milliseconds, `null` fields
//! omitted. Request bodies are typed structs that refuse unknown fields.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::domain::dtrack::keys;
use crate::domain::dtrack::model::{
    Analysis, ApiKey, Component, Finding, Project, ProjectMetrics, ProjectRef, Team, Vulnerability,
};
use crate::domain::dtrack::permissions::{PermSet, Permission};

/// Inserts `key` only when the value is present (`@JsonInclude(NON_NULL)`).
fn opt(m: &mut Map<String, Value>, key: &str, v: &Option<String>) {
    if let Some(v) = v {
        m.insert(key.into(), Value::from(v.as_str()));
    }
}

pub fn about(system_uuid: &str) -> Value {
    json!({
        "application": "Dependency-Track",
        "version": super::respond::DT_VERSION,
        "timestamp": "2026-05-07T16:40:00Z",
        "uuid": "5a8b6a3e-2b2f-4d4c-9a55-0b6f2c1d7e10",
        "systemUuid": system_uuid,
        "framework": {
            "name": "Alpine",
            "version": "3.7.0",
            "timestamp": "2026-03-09T10:09:50Z",
            "uuid": "7c4e1f0a-8d3b-4b2a-9e6f-3a1d5c7b9e20",
        },
    })
}

pub fn permission(p: Permission) -> Value {
    json!({"name": p.name(), "description": p.description()})
}

pub fn permissions(s: PermSet) -> Value {
    Value::from(s.iter().map(permission).collect::<Vec<_>>())
}

pub fn api_key(k: &ApiKey) -> Value {
    let mut m = Map::new();
    m.insert("created".into(), Value::from(k.created_ms));
    m.insert("publicId".into(), Value::from(k.public_id.as_str()));
    m.insert("legacy".into(), Value::from(k.legacy));
    m.insert("maskedKey".into(), Value::from(keys::masked(&k.public_id)));
    opt(&mut m, "key", &k.key);
    opt(&mut m, "comment", &k.comment);
    if let Some(t) = k.last_used_ms {
        m.insert("lastUsed".into(), Value::from(t));
    }
    Value::Object(m)
}

pub fn team(t: &Team) -> Value {
    json!({
        "uuid": t.uuid,
        "name": t.name,
        "permissions": permissions(t.permissions),
        "apiKeys": t.api_keys.iter().map(api_key).collect::<Vec<_>>(),
        "managedUsers": t.users.iter().map(|u| json!({"username": u})).collect::<Vec<_>>(),
        "ldapUsers": [],
        "oidcUsers": [],
        "mappedLdapGroups": [],
        "mappedOidcGroups": [],
    })
}

/// `GET /team/self`.
pub fn team_self(t: &Team) -> Value {
    json!({"uuid": t.uuid, "name": t.name, "permissions": permissions(t.permissions)})
}

pub(crate) fn project_ref(p: &ProjectRef) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), Value::from(p.name.as_str()));
    opt(&mut m, "version", &p.version);
    m.insert("uuid".into(), Value::from(p.uuid.as_str()));
    Value::Object(m)
}

fn project_scalars(p: &Project) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("uuid".into(), Value::from(p.uuid.as_str()));
    m.insert("name".into(), Value::from(p.name.as_str()));
    opt(&mut m, "version", &p.version);
    opt(&mut m, "group", &p.group);
    opt(&mut m, "description", &p.description);
    opt(&mut m, "publisher", &p.publisher);
    opt(&mut m, "classifier", &p.classifier);
    opt(&mut m, "cpe", &p.cpe);
    opt(&mut m, "purl", &p.purl);
    opt(&mut m, "swidTagId", &p.swid_tag_id);
    m.insert("active".into(), Value::from(p.active));
    m.insert("isLatest".into(), Value::from(p.is_latest));
    m.insert(
        "collectionLogic".into(),
        Value::from(p.collection_logic.as_str()),
    );
    if let Some(t) = p.last_bom_import_ms {
        m.insert("lastBomImport".into(), Value::from(t));
    }
    opt(&mut m, "lastBomImportFormat", &p.last_bom_import_format);
    m
}

/// A project as upstream serializes it after loading (see notes §4.5).
pub fn project(p: &Project) -> Value {
    let mut m = project_scalars(p);
    m.insert("properties".into(), json!([]));
    m.insert(
        "tags".into(),
        Value::from(
            p.tags
                .iter()
                .map(|t| json!({"name": t}))
                .collect::<Vec<_>>(),
        ),
    );
    if let Some(parent) = &p.parent {
        m.insert("parent".into(), project_ref(parent));
    }
    if let Some(children) = &p.children {
        m.insert(
            "children".into(),
            Value::from(
                children
                    .iter()
                    .map(|c| Value::Object(project_scalars(c)))
                    .collect::<Vec<_>>(),
            ),
        );
    }
    Value::Object(m)
}

pub fn component(c: &Component) -> Value {
    let mut m = Map::new();
    m.insert("uuid".into(), Value::from(c.uuid.as_str()));
    m.insert("name".into(), Value::from(c.name.as_str()));
    opt(&mut m, "version", &c.version);
    opt(&mut m, "group", &c.group);
    opt(&mut m, "purl", &c.purl);
    opt(&mut m, "cpe", &c.cpe);
    opt(&mut m, "swidTagId", &c.swid_tag_id);
    opt(&mut m, "classifier", &c.classifier);
    opt(&mut m, "description", &c.description);
    opt(&mut m, "license", &c.license);
    opt(&mut m, "md5", &c.md5);
    opt(&mut m, "sha1", &c.sha1);
    opt(&mut m, "sha256", &c.sha256);
    opt(&mut m, "sha512", &c.sha512);
    m.insert("isInternal".into(), Value::from(c.is_internal));
    if let Some(p) = &c.project {
        m.insert("project".into(), project_ref(p));
    }
    Value::Object(m)
}

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

pub fn vulnerability(v: &Vulnerability) -> Value {
    let mut m = Map::new();
    m.insert("uuid".into(), Value::from(v.uuid.as_str()));
    m.insert("vulnId".into(), Value::from(v.vuln_id.as_str()));
    m.insert("source".into(), Value::from(v.source.as_str()));
    m.insert("severity".into(), Value::from(v.effective_severity()));
    opt(&mut m, "title", &v.title);
    opt(&mut m, "description", &v.description);
    opt(&mut m, "recommendation", &v.recommendation);
    opt(&mut m, "cvssV3Vector", &v.cvss_v3_vector);
    if let Some(t) = v.created_ms {
        m.insert("created".into(), Value::from(t));
    }
    if let Some(t) = v.published_ms {
        m.insert("published".into(), Value::from(t));
    }
    Value::Object(m)
}

pub fn analysis(a: &Analysis) -> Value {
    let mut m = Map::new();
    m.insert("analysisState".into(), Value::from(a.state.as_str()));
    opt(&mut m, "analysisJustification", &a.justification);
    opt(&mut m, "analysisResponse", &a.response);
    opt(&mut m, "analysisDetails", &a.details);
    m.insert(
        "analysisComments".into(),
        Value::from(
            a.comments
                .iter()
                .map(|c| {
                    let mut o = Map::new();
                    o.insert("timestamp".into(), Value::from(c.timestamp_ms));
                    o.insert("comment".into(), Value::from(c.comment.as_str()));
                    opt(&mut o, "commenter", &c.commenter);
                    Value::Object(o)
                })
                .collect::<Vec<_>>(),
        ),
    );
    m.insert("isSuppressed".into(), Value::from(a.suppressed));
    Value::Object(m)
}

/// A finding as upstream's `Finding` map.
pub fn finding(f: &Finding) -> Value {
    let c = &f.component;
    let v = &f.vulnerability;
    let p = c.project.as_ref();
    let mut comp = Map::new();
    comp.insert("uuid".into(), Value::from(c.uuid.as_str()));
    comp.insert("name".into(), Value::from(c.name.as_str()));
    opt(&mut comp, "version", &c.version);
    opt(&mut comp, "group", &c.group);
    opt(&mut comp, "purl", &c.purl);
    opt(&mut comp, "cpe", &c.cpe);
    if let Some(p) = p {
        comp.insert("project".into(), Value::from(p.uuid.as_str()));
        comp.insert("projectName".into(), Value::from(p.name.as_str()));
        opt(&mut comp, "projectVersion", &p.version);
    }
    let mut vuln = Map::new();
    vuln.insert("uuid".into(), Value::from(v.uuid.as_str()));
    vuln.insert("vulnId".into(), Value::from(v.vuln_id.as_str()));
    vuln.insert("source".into(), Value::from(v.source.as_str()));
    vuln.insert("severity".into(), Value::from(v.effective_severity()));
    vuln.insert(
        "severityRank".into(),
        Value::from(severity_rank(v.effective_severity())),
    );
    opt(&mut vuln, "title", &v.title);
    opt(&mut vuln, "description", &v.description);
    opt(&mut vuln, "recommendation", &v.recommendation);
    if let Some(t) = v.published_ms {
        vuln.insert("published".into(), Value::from(t));
    }
    let mut analysis = Map::new();
    opt(&mut analysis, "state", &f.state);
    analysis.insert("isSuppressed".into(), Value::from(f.suppressed));
    let project_uuid = p.map(|p| p.uuid.as_str()).unwrap_or("");
    json!({
        "component": comp,
        "vulnerability": vuln,
        "analysis": analysis,
        "attribution": {
            "analyzerIdentity": "NONE",
            "attributedOn": f.attributed_on_ms,
        },
        "matrix": format!("{project_uuid}:{}:{}", c.uuid, v.uuid),
    })
}

pub fn metrics(m: &ProjectMetrics) -> Value {
    let total = m.policy_violations_fail + m.policy_violations_warn + m.policy_violations_info;
    json!({
        "critical": m.critical,
        "high": m.high,
        "medium": m.medium,
        "low": m.low,
        "unassigned": m.unassigned,
        "vulnerabilities": m.vulnerabilities,
        "vulnerableComponents": m.vulnerable_components,
        "components": m.components,
        "suppressed": m.suppressed,
        "findingsTotal": m.findings_total,
        "findingsAudited": m.findings_audited,
        "findingsUnaudited": m.findings_total - m.findings_audited,
        "inheritedRiskScore": (10 * m.critical + 5 * m.high + 3 * m.medium + m.low + 5 * m.unassigned) as f64,
        "policyViolationsFail": m.policy_violations_fail,
        "policyViolationsWarn": m.policy_violations_warn,
        "policyViolationsInfo": m.policy_violations_info,
        "policyViolationsTotal": total,
        "policyViolationsAudited": 0,
        "policyViolationsUnaudited": total,
        "firstOccurrence": m.first_occurrence_ms,
        "lastOccurrence": m.last_occurrence_ms,
    })
}

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
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
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

pub mod policy {
    //! Policy, condition, violation and violation-analysis shapes.

    use serde::Deserialize;
    use serde_json::{Map, Value, json};

    use crate::domain::dtrack::model::{
        Policy, PolicyCondition, PolicyViolation, ViolationAnalysis,
    };

    pub fn condition(c: &PolicyCondition) -> Value {
        json!({
            "uuid": c.uuid,
            "subject": c.subject,
            "operator": c.operator,
            "value": c.value,
            "violationType": c.violation_type(),
        })
    }

    fn policy_fields(p: &Policy) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("uuid".into(), Value::from(p.uuid.as_str()));
        m.insert("name".into(), Value::from(p.name.as_str()));
        m.insert("operator".into(), Value::from(p.operator.as_str()));
        m.insert(
            "violationState".into(),
            Value::from(p.violation_state.as_str()),
        );
        m.insert("includeChildren".into(), Value::from(p.include_children));
        m.insert(
            "onlyLatestProjectVersion".into(),
            Value::from(p.only_latest_project_version),
        );
        m.insert("global".into(), Value::from(true));
        m
    }

    pub fn policy(p: &Policy) -> Value {
        let mut m = policy_fields(p);
        m.insert(
            "policyConditions".into(),
            Value::from(p.conditions.iter().map(condition).collect::<Vec<_>>()),
        );
        m.insert("projects".into(), json!([]));
        m.insert("tags".into(), json!([]));
        Value::Object(m)
    }

    pub fn analysis(a: &ViolationAnalysis) -> Value {
        json!({
            "analysisState": a.state,
            "analysisComments": a.comments.iter().map(|c| {
                let mut o = Map::new();
                o.insert("timestamp".into(), Value::from(c.timestamp_ms));
                o.insert("comment".into(), Value::from(c.comment.as_str()));
                if let Some(who) = &c.commenter {
                    o.insert("commenter".into(), Value::from(who.as_str()));
                }
                Value::Object(o)
            }).collect::<Vec<_>>(),
            "isSuppressed": a.suppressed,
        })
    }

    pub fn violation(v: &PolicyViolation) -> Value {
        let mut cond = condition(&v.condition);
        cond["policy"] = Value::Object(policy_fields(&v.policy));
        let mut m = Map::new();
        m.insert("uuid".into(), Value::from(v.uuid.as_str()));
        m.insert("type".into(), Value::from(v.kind.as_str()));
        m.insert("timestamp".into(), Value::from(v.timestamp_ms));
        m.insert("policyCondition".into(), cond);
        m.insert("component".into(), super::component(&v.component));
        if let Some(p) = &v.component.project {
            m.insert("project".into(), super::project_ref(p));
        }
        if let Some(a) = &v.analysis {
            m.insert("analysis".into(), analysis(a));
        }
        Value::Object(m)
    }

    #[derive(Clone, Copy, Debug, Deserialize)]
    pub enum Operator {
        #[serde(rename = "ANY")]
        Any,
        #[serde(rename = "ALL")]
        All,
    }

    #[derive(Clone, Copy, Debug, Deserialize)]
    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
    pub enum ViolationState {
        Info,
        Warn,
        Fail,
    }

    /// `PUT|POST /policy` (upstream ignores unknown fields here).
    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct PolicyIn {
        pub uuid: Option<String>,
        pub name: Option<String>,
        pub operator: Option<Operator>,
        pub violation_state: Option<ViolationState>,
        pub include_children: Option<bool>,
        pub only_latest_project_version: Option<bool>,
    }

    /// The condition subjects this server evaluates.
    #[derive(Clone, Copy, Debug, Deserialize)]
    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
    pub enum Subject {
        Coordinates,
        Cpe,
        License,
        PackageUrl,
        Severity,
        SwidTagid,
        Version,
        IsInternal,
        ComponentHash,
        VulnerabilityId,
    }

    #[derive(Clone, Copy, Debug, Deserialize)]
    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
    pub enum ConditionOperator {
        Is,
        IsNot,
        Matches,
        NoMatch,
        NumericGreaterThan,
        NumericLessThan,
        NumericEqual,
        NumericNotEqual,
        NumericGreaterThanOrEqual,
        NumericLesserThanOrEqual,
        ContainsAll,
        ContainsAny,
    }

    /// `PUT /policy/{uuid}/condition`, `POST /policy/condition` (unknown fields ignored).
    #[derive(Debug, Deserialize)]
    pub struct ConditionIn {
        pub uuid: Option<String>,
        pub subject: Option<Subject>,
        pub operator: Option<ConditionOperator>,
        pub value: Option<String>,
    }

    #[derive(Clone, Copy, Debug, Deserialize)]
    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
    pub enum ViolationAnalysisState {
        Approved,
        Rejected,
        NotSet,
    }

    /// `PUT /violation/analysis`.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    pub struct ViolationAnalysisIn {
        #[serde(deserialize_with = "super::present")]
        pub component: Option<String>,
        #[serde(deserialize_with = "super::present")]
        pub policy_violation: Option<String>,
        pub analysis_state: Option<ViolationAnalysisState>,
        pub comment: Option<String>,
        pub is_suppressed: Option<bool>,
    }
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
