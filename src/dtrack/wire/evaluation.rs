//! Our own additions for the evaluation state (not upstream's names): the `evaluation` object
//! of component items (`{"state": "NOT_EVALUATED", "reason": "NO_DATA_FOR_ECOSYSTEM"}`; the
//! reason only when not evaluated), the items of `GET /v1/outpost/project/{uuid}/notEvaluated`,
//! and the `notEvaluated` count beside upstream's project metrics. Clients that do not know
//! these fields ignore them.
//!
//! Must not touch the database.

use serde_json::{Value, json};

use crate::db::dtrack_evaluation::EvaluationInput;
use crate::domain::dtrack::evaluation::{Evaluation, Reason};
use crate::model::dtrack::{Component, Project, ProjectMetrics};

pub fn evaluation(e: Evaluation) -> Value {
    match e.reason() {
        Some(r) => json!({"state": e.state(), "reason": r.name()}),
        None => json!({"state": e.state()}),
    }
}

/// A component item of the project's component listing, with its evaluation.
pub fn component(c: &Component, e: Evaluation) -> Value {
    let mut v = super::component(c);
    if let Some(m) = v.as_object_mut() {
        m.insert("evaluation".into(), evaluation(e));
    }
    v
}

/// An item of the not-evaluated listing.
pub fn not_evaluated(i: &EvaluationInput, r: Reason) -> Value {
    let mut v = json!({
        "uuid": i.uuid,
        "name": i.name,
        "evaluation": evaluation(Evaluation::NotEvaluated(r)),
    });
    if let Some(m) = v.as_object_mut() {
        for (key, val) in [
            ("version", &i.subject.version),
            ("group", &i.group),
            ("purl", &i.subject.purl),
            ("cpe", &i.cpe),
        ] {
            if let Some(s) = val {
                m.insert(key.into(), Value::from(s.as_str()));
            }
        }
    }
    v
}

/// A project's current metrics with the components not evaluated now.
pub fn metrics(m: &ProjectMetrics, not_evaluated: i64) -> Value {
    let mut v = super::metrics(m);
    if let Some(o) = v.as_object_mut() {
        o.insert("notEvaluated".into(), Value::from(not_evaluated));
    }
    v
}

/// A project as upstream renders it, its `metrics` object (when present) with `notEvaluated`.
pub fn project(p: &Project, not_evaluated: Option<i64>) -> Value {
    let mut v = super::project(p);
    if let Some(n) = not_evaluated
        && let Some(m) = v.get_mut("metrics").and_then(Value::as_object_mut)
    {
        m.insert("notEvaluated".into(), Value::from(n));
    }
    v
}
