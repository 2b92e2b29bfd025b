//! Upstream's `License` and `LicenseGroup` shapes, and the license group request body.
//!
//! Catalogue licenses carry no texts here (`licenseText`, `standardLicenseTemplate` and
//! `standardLicenseHeader` are null, so omitted); `isCustomLicense` is always false. Must not
//! touch the database or decide errors.

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::model::dtrack::{License, LicenseGroup};

/// A `License`, full or (for `/license/concise`) the same fields, which is all upstream's
/// concise fetch group adds beyond the texts.
pub fn license(l: &License) -> Value {
    let mut o = Map::new();
    o.insert("uuid".into(), l.uuid.as_str().into());
    o.insert("name".into(), l.name.as_str().into());
    o.insert("licenseId".into(), l.license_id.as_str().into());
    o.insert("isOsiApproved".into(), l.osi_approved.into());
    o.insert("isFsfLibre".into(), l.fsf_libre.into());
    o.insert("isDeprecatedLicenseId".into(), l.deprecated.into());
    o.insert("isCustomLicense".into(), false.into());
    Value::Object(o)
}

pub fn licenses(ls: &[License]) -> Vec<Value> {
    ls.iter().map(license).collect()
}

/// A `LicenseGroup` with its licenses.
pub fn group(g: &LicenseGroup) -> Value {
    let mut o = Map::new();
    o.insert("uuid".into(), g.uuid.as_str().into());
    o.insert("name".into(), g.name.as_str().into());
    o.insert("riskWeight".into(), g.risk_weight.into());
    o.insert("licenses".into(), licenses(&g.license_records).into());
    Value::Object(o)
}

pub fn groups(gs: &[LicenseGroup]) -> Vec<Value> {
    gs.iter().map(group).collect()
}

/// `PUT|POST /licenseGroup` (upstream ignores unknown fields here; `licenses` are changed
/// through their own endpoints).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LicenseGroupIn {
    pub uuid: Option<String>,
    pub name: Option<String>,
    pub risk_weight: Option<i64>,
}
