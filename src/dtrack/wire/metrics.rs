//! Upstream's metrics shapes: `ProjectMetrics`, `DependencyMetrics` (a component's: no
//! component counts), `PortfolioMetrics` (with project counts) and `VulnerabilityMetrics`.
//!
//! Dates as epoch milliseconds; `inheritedRiskScore` as upstream weighs it (10·critical +
//! 5·high + 3·medium + low + 5·unassigned). Must not touch the database or decide errors.

use serde_json::{Map, Value};

use crate::model::dtrack::{PortfolioMetrics, ProjectMetrics, VulnerabilityMetric};

fn counters(m: &ProjectMetrics, components: bool) -> Map<String, Value> {
    let total = m.policy_violations_fail + m.policy_violations_warn + m.policy_violations_info;
    let risk = 10 * m.critical + 5 * m.high + 3 * m.medium + m.low + 5 * m.unassigned;
    let mut o = Map::new();
    let mut put = |k: &str, v: Value| {
        o.insert(k.to_string(), v);
    };
    put("critical", m.critical.into());
    put("high", m.high.into());
    put("medium", m.medium.into());
    put("low", m.low.into());
    put("unassigned", m.unassigned.into());
    put("vulnerabilities", m.vulnerabilities.into());
    if components {
        put("vulnerableComponents", m.vulnerable_components.into());
        put("components", m.components.into());
    }
    put("suppressed", m.suppressed.into());
    put("findingsTotal", m.findings_total.into());
    put("findingsAudited", m.findings_audited.into());
    put(
        "findingsUnaudited",
        (m.findings_total - m.findings_audited).into(),
    );
    put("inheritedRiskScore", (risk as f64).into());
    put("policyViolationsFail", m.policy_violations_fail.into());
    put("policyViolationsWarn", m.policy_violations_warn.into());
    put("policyViolationsInfo", m.policy_violations_info.into());
    put("policyViolationsTotal", total.into());
    put(
        "policyViolationsAudited",
        m.policy_violations_audited.into(),
    );
    put(
        "policyViolationsUnaudited",
        (total - m.policy_violations_audited).into(),
    );
    for (name, t, a) in [
        (
            "Security",
            m.policy_violations_security_total,
            m.policy_violations_security_audited,
        ),
        (
            "License",
            m.policy_violations_license_total,
            m.policy_violations_license_audited,
        ),
        (
            "Operational",
            m.policy_violations_operational_total,
            m.policy_violations_operational_audited,
        ),
    ] {
        put(&format!("policyViolations{name}Total"), t.into());
        put(&format!("policyViolations{name}Audited"), a.into());
        put(&format!("policyViolations{name}Unaudited"), (t - a).into());
    }
    put("firstOccurrence", m.first_occurrence_ms.into());
    put("lastOccurrence", m.last_occurrence_ms.into());
    o
}

/// A project's `ProjectMetrics`.
pub fn metrics(m: &ProjectMetrics) -> Value {
    Value::Object(counters(m, true))
}

/// A project's history, oldest first.
pub fn metrics_list(rows: &[ProjectMetrics]) -> Value {
    rows.iter().map(metrics).collect()
}

/// A component's `DependencyMetrics`.
pub fn dependency_metrics(m: &ProjectMetrics) -> Value {
    Value::Object(counters(m, false))
}

/// A component's history, oldest first.
pub fn dependency_metrics_list(rows: &[ProjectMetrics]) -> Value {
    rows.iter().map(dependency_metrics).collect()
}

/// The portfolio's `PortfolioMetrics`.
pub fn portfolio_metrics(p: &PortfolioMetrics) -> Value {
    let mut o = counters(&p.m, true);
    o.insert("projects".into(), p.projects.into());
    o.insert("vulnerableProjects".into(), p.vulnerable_projects.into());
    Value::Object(o)
}

/// The portfolio's history, oldest first.
pub fn portfolio_metrics_list(rows: &[PortfolioMetrics]) -> Value {
    rows.iter().map(portfolio_metrics).collect()
}

/// `VulnerabilityMetrics[]`: `month` absent on a year's row; `measuredAt` when counted.
pub fn vulnerability_metrics(rows: &[VulnerabilityMetric], measured_at_ms: i64) -> Value {
    rows.iter()
        .map(|r| {
            let mut o = Map::new();
            o.insert("year".into(), r.year.into());
            if let Some(m) = r.month {
                o.insert("month".into(), m.into());
            }
            o.insert("count".into(), r.count.into());
            o.insert("measuredAt".into(), measured_at_ms.into());
            Value::Object(o)
        })
        .collect()
}
