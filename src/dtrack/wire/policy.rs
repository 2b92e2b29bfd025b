//! Policy, condition, violation and violation-analysis shapes (responses and request bodies).
//!
//! Must not touch the database.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::model::dtrack::{Policy, PolicyCondition, PolicyViolation, ViolationAnalysis};

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
    m
}

pub fn policy(p: &Policy) -> Value {
    let mut m = policy_fields(p);
    m.insert(
        "policyConditions".into(),
        Value::from(p.conditions.iter().map(condition).collect::<Vec<_>>()),
    );
    m.insert(
        "projects".into(),
        Value::from(p.projects.iter().map(super::project).collect::<Vec<_>>()),
    );
    m.insert(
        "tags".into(),
        Value::from(
            p.tags
                .iter()
                .map(|t| json!({"name": t}))
                .collect::<Vec<_>>(),
        ),
    );
    m.insert("global".into(), Value::from(p.is_global()));
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
    let mut policy = policy_fields(&v.policy);
    policy.insert("global".into(), Value::from(v.policy_global));
    cond["policy"] = Value::Object(policy);
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
    LicenseGroup,
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
    #[serde(deserialize_with = "super::input::present")]
    pub component: Option<String>,
    #[serde(deserialize_with = "super::input::present")]
    pub policy_violation: Option<String>,
    pub analysis_state: Option<ViolationAnalysisState>,
    pub comment: Option<String>,
    pub is_suppressed: Option<bool>,
}
