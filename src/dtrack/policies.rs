//! Policy, condition, violation and violation-analysis endpoints.
//!
//! Thin handlers over `domain::dtrack::policies`.
//!
//! Must not contain SQL or domain rules.

use hyper::StatusCode;
use serde_json::Value;

use crate::domain::Core;
use crate::domain::dtrack::policies::{self as domain, PolicyFields};
use crate::http;
use crate::model::dtrack::Principal;

use super::params::{Query, check_name, is_uuid, json_body, printable, trimmed, valid_uuids};
use super::respond::{Fail, Out, Violation, json, json_list};
use super::wire::{self, policy as pw};

fn fields(p: pw::PolicyIn) -> Result<PolicyFields, Fail> {
    let name = check_name(p.name.as_deref(), "name")?.trim().to_string();
    Ok(PolicyFields {
        name,
        operator: wire::enum_name(p.operator.unwrap_or(pw::Operator::Any)),
        violation_state: wire::enum_name(p.violation_state.unwrap_or(pw::ViolationState::Info)),
        include_children: p.include_children.unwrap_or(false),
        only_latest_project_version: p.only_latest_project_version.unwrap_or(false),
    })
}

/// # `GET /api/v1/policy`
///
/// Every policy with its conditions; `X-Total-Count`.
pub async fn get_policies(state: &Core) -> Out {
    let ps = domain::policies(state).await?;
    let body: Vec<Value> = ps.iter().map(pw::policy).collect();
    Ok(json_list(&body, ps.len() as i64))
}

/// # `GET /api/v1/policy/{uuid}`
pub async fn get_policy(state: &Core, uuid: &str) -> Out {
    valid_uuids(&[(uuid, "getPolicy.arg0")])?;
    let p = domain::policy(state, uuid).await?;
    Ok(json(StatusCode::OK, &pw::policy(&p)))
}

/// # `PUT /api/v1/policy`
///
/// `{"name","operator"=ANY,"violationState"=INFO,...}`; 201; 409
/// `A policy with the specified name already exists.`
pub async fn create_policy(state: &Core, body: &[u8]) -> Out {
    let p: pw::PolicyIn = json_body(body)?;
    let created = domain::create_policy(state, fields(p)?).await?;
    Ok(json(StatusCode::CREATED, &pw::policy(&created)))
}

/// # `POST /api/v1/policy`
///
/// Updates the policy named by `uuid`; 404 `The policy could not be found.`
pub async fn update_policy(state: &Core, body: &[u8]) -> Out {
    let p: pw::PolicyIn = json_body(body)?;
    let uuid = p.uuid.clone().unwrap_or_default();
    let updated = domain::update_policy(state, &uuid, fields(p)?).await?;
    Ok(json(StatusCode::OK, &pw::policy(&updated)))
}

/// # `DELETE /api/v1/policy/{uuid}`
///
/// 204; 404 `The UUID of the policy could not be found.`
pub async fn delete_policy(state: &Core, uuid: &str) -> Out {
    valid_uuids(&[(uuid, "deletePolicy.arg0")])?;
    domain::delete_policy(state, uuid).await?;
    Ok(http::empty(StatusCode::NO_CONTENT))
}

fn condition_parts(c: &pw::ConditionIn) -> Result<(String, String, String), Fail> {
    let mut bad = Vec::new();
    let blank = |path: &str, bad: &mut Vec<Violation>| {
        bad.push(Violation {
            message: "must not be blank".into(),
            template: "{jakarta.validation.constraints.NotBlank.message}".into(),
            path: path.into(),
            invalid: Value::Null,
        })
    };
    if c.subject.is_none() {
        blank("subject", &mut bad);
    }
    if c.operator.is_none() {
        blank("operator", &mut bad);
    }
    let value = c.value.clone().unwrap_or_default();
    if value.trim().is_empty() {
        bad.push(Violation {
            message: "must not be blank".into(),
            template: "{jakarta.validation.constraints.NotBlank.message}".into(),
            path: "value".into(),
            invalid: c.value.clone().map(Value::from).unwrap_or(Value::Null),
        });
    } else if value.chars().count() > 255 || !printable(&value) {
        bad.push(Violation {
            message: "The value may only contain printable characters".into(),
            template: "The value may only contain printable characters".into(),
            path: "value".into(),
            invalid: Value::from(value.as_str()),
        });
    }
    match (c.subject, c.operator) {
        (Some(s), Some(o)) if bad.is_empty() => Ok((wire::enum_name(s), wire::enum_name(o), value)),
        _ => Err(Fail::Validation(bad)),
    }
}

/// # `PUT /api/v1/policy/{uuid}/condition`
///
/// 201 PolicyCondition; 404 `The UUID of the policy could not be found.`
pub async fn add_condition(state: &Core, policy: &str, body: &[u8]) -> Out {
    valid_uuids(&[(policy, "createPolicyCondition.arg0")])?;
    let c: pw::ConditionIn = json_body(body)?;
    let (subject, operator, value) = condition_parts(&c)?;
    let created = domain::add_condition(state, policy, &subject, &operator, &value).await?;
    Ok(json(StatusCode::CREATED, &pw::condition(&created)))
}

/// # `POST /api/v1/policy/condition`
///
/// Updates the condition named by `uuid`; 404
/// `The UUID of the policy condition could not be found.`
pub async fn update_condition(state: &Core, body: &[u8]) -> Out {
    let c: pw::ConditionIn = json_body(body)?;
    let (subject, operator, value) = condition_parts(&c)?;
    let uuid = c.uuid.unwrap_or_default();
    let updated = domain::update_condition(state, &uuid, &subject, &operator, &value).await?;
    Ok(json(StatusCode::OK, &pw::condition(&updated)))
}

/// # `DELETE /api/v1/policy/condition/{uuid}`
///
/// 204.
pub async fn delete_condition(state: &Core, uuid: &str) -> Out {
    valid_uuids(&[(uuid, "deletePolicyCondition.arg0")])?;
    domain::delete_condition(state, uuid).await?;
    Ok(http::empty(StatusCode::NO_CONTENT))
}

/// # `GET /api/v1/violation/project/{uuid}`
///
/// `suppressed` includes suppressed violations; paginated; `X-Total-Count`.
pub async fn project_violations(state: &Core, who: &Principal, uuid: &str, q: &Query) -> Out {
    valid_uuids(&[(uuid, "getViolationsByProject.arg0")])?;
    let page = q.page();
    let (vs, total) = domain::violations(
        state,
        who,
        uuid,
        q.flag("suppressed"),
        page.offset,
        page.limit,
    )
    .await?;
    let body: Vec<Value> = vs.iter().map(pw::violation).collect();
    Ok(json_list(&body, total))
}

/// # `GET /api/v1/violation`
///
/// The portfolio's violations (`suppressed`, `showInactive`), paged; `X-Total-Count`.
pub async fn portfolio_violations(state: &Core, who: &Principal, q: &Query) -> Out {
    let page = q.page();
    let (vs, total) = domain::portfolio_violations(
        state,
        who,
        q.flag("suppressed"),
        q.flag("showInactive"),
        page.offset,
        page.limit,
    )
    .await?;
    let body: Vec<Value> = vs.iter().map(pw::violation).collect();
    Ok(json_list(&body, total))
}

/// # `GET /api/v1/violation/component/{uuid}`
///
/// One component's violations (`suppressed`), paged; 404 `The component could not be found.`
pub async fn component_violations(state: &Core, who: &Principal, uuid: &str, q: &Query) -> Out {
    valid_uuids(&[(uuid, "getViolationsByComponent.arg0")])?;
    let page = q.page();
    let (vs, total) = domain::component_violations(
        state,
        who,
        uuid,
        q.flag("suppressed"),
        page.offset,
        page.limit,
    )
    .await?;
    let body: Vec<Value> = vs.iter().map(pw::violation).collect();
    Ok(json_list(&body, total))
}

/// # `PUT /api/v1/violation/analysis`
///
/// `{"component","policyViolation","analysisState","comment","isSuppressed"}`; 200
/// ViolationAnalysis; 404 for an unknown component or violation.
pub async fn analyze(state: &Core, who: &Principal, body: &[u8]) -> Out {
    let r: pw::ViolationAnalysisIn = json_body(body)?;
    let comment = trimmed(r.comment);
    let mut bad = Vec::new();
    for (field, v, msg) in [
        (
            "component",
            &r.component,
            "The component must be a valid 36 character UUID",
        ),
        (
            "policyViolation",
            &r.policy_violation,
            "The policy violation must be a valid 36 character UUID",
        ),
    ] {
        match v {
            None => bad.push(Violation {
                message: "must not be null".into(),
                template: "{jakarta.validation.constraints.NotNull.message}".into(),
                path: field.into(),
                invalid: Value::Null,
            }),
            Some(v) if !is_uuid(v) => bad.push(Violation {
                message: msg.into(),
                template: msg.into(),
                path: field.into(),
                invalid: Value::from(v.as_str()),
            }),
            Some(_) => {}
        }
    }
    if let Some(c) = &comment
        && !printable(c)
    {
        bad.push(Violation {
            message: "The comment may only contain printable characters".into(),
            template: "The comment may only contain printable characters".into(),
            path: "comment".into(),
            invalid: Value::from(c.as_str()),
        });
    }
    if !bad.is_empty() {
        return Err(Fail::Validation(bad));
    }
    let a = domain::analyze_violation(
        state,
        who,
        r.component.as_deref().unwrap_or_default(),
        r.policy_violation.as_deref().unwrap_or_default(),
        r.analysis_state.map(wire::enum_name),
        comment,
        r.is_suppressed,
    )
    .await?;
    Ok(json(StatusCode::OK, &pw::analysis(&a)))
}
