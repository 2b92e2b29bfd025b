//! Dependency-Track's JSON shapes: the only place that knows them (responses here, request
//! bodies in [`input`], policies and violations in [`policy`], metrics in [`metrics`], findings
//! and their SARIF and FPF documents in [`findings`]).
//!
//! Jackson conventions of upstream: camelCase keys, dates as epoch milliseconds, `null` fields
//! omitted. Request bodies are typed structs that refuse unknown fields.
//!
//! Must not touch the database or decide errors (that is `respond`).

use serde_json::{Map, Value, json};

pub mod cyclonedx;
pub mod evaluation;
pub mod findings;
pub mod input;
pub mod licenses;
pub mod metrics;
pub mod policy;
pub mod tags;

pub use input::*;
pub use metrics::metrics;

use crate::domain::dtrack::keys;
use crate::model::dtrack::permissions::{PermSet, Permission};
use crate::model::dtrack::{
    Analysis, ApiKey, Component, Contact, ExternalRef, Finding, Organization, Project,
    ProjectProperty, ProjectRef, Team, Vulnerability,
};

/// What upstream shows instead of an ENCRYPTEDSTRING property's value.
pub const ENCRYPTED_PLACEHOLDER: &str = "HiddenDecryptedPropertyPlaceholder";

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
    let d = &p.details;
    if let Some(authors) = &d.authors {
        m.insert(
            "authors".into(),
            Value::from(authors.iter().map(contact).collect::<Vec<_>>()),
        );
        // Deprecated `author`: the names joined, omitted when empty.
        let names: Vec<&str> = authors.iter().filter_map(|a| a.name.as_deref()).collect();
        if !names.is_empty() {
            m.insert("author".into(), Value::from(names.join(", ")));
        }
    }
    if let Some(o) = &d.manufacturer {
        m.insert("manufacturer".into(), organization(o));
    }
    if let Some(o) = &d.supplier {
        m.insert("supplier".into(), organization(o));
    }
    if let Some(refs) = &d.external_references {
        m.insert(
            "externalReferences".into(),
            Value::from(refs.iter().map(external_reference).collect::<Vec<_>>()),
        );
    }
    if let Some(t) = &d.collection_tag {
        m.insert("collectionTag".into(), json!({ "name": t }));
    }
    m
}

fn contact(c: &Contact) -> Value {
    let mut m = Map::new();
    opt(&mut m, "name", &c.name);
    opt(&mut m, "email", &c.email);
    opt(&mut m, "phone", &c.phone);
    Value::Object(m)
}

fn organization(o: &Organization) -> Value {
    let mut m = Map::new();
    opt(&mut m, "name", &o.name);
    m.insert("urls".into(), Value::from(o.urls.clone()));
    m.insert(
        "contacts".into(),
        Value::from(o.contacts.iter().map(contact).collect::<Vec<_>>()),
    );
    Value::Object(m)
}

fn external_reference(r: &ExternalRef) -> Value {
    let mut m = Map::new();
    opt(&mut m, "type", &r.kind);
    m.insert("url".into(), Value::from(r.url.as_str()));
    opt(&mut m, "comment", &r.comment);
    Value::Object(m)
}

/// A project property; an ENCRYPTEDSTRING value shows as upstream's placeholder.
pub fn property(p: &ProjectProperty) -> Value {
    let mut m = Map::new();
    m.insert("groupName".into(), Value::from(p.group.as_str()));
    m.insert("propertyName".into(), Value::from(p.name.as_str()));
    if p.kind == "ENCRYPTEDSTRING" {
        if p.value.is_some() {
            m.insert("propertyValue".into(), Value::from(ENCRYPTED_PLACEHOLDER));
        }
    } else {
        opt(&mut m, "propertyValue", &p.value);
    }
    m.insert("propertyType".into(), Value::from(p.kind.as_str()));
    opt(&mut m, "description", &p.description);
    Value::Object(m)
}

/// A project as upstream serializes it after loading (see notes §4.5).
pub fn project(p: &Project) -> Value {
    let mut m = project_scalars(p);
    m.insert(
        "properties".into(),
        Value::from(p.properties.iter().map(property).collect::<Vec<_>>()),
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
    if let Some(parent) = &p.parent {
        m.insert("parent".into(), project_ref(parent));
    }
    if let Some(snapshot) = &p.metrics {
        m.insert("metrics".into(), metrics(snapshot));
    }
    if let Some(versions) = &p.versions {
        let list: Vec<Value> = versions
            .iter()
            .map(|(uuid, version, active)| {
                let mut o = Map::new();
                o.insert("uuid".into(), Value::from(uuid.as_str()));
                opt(&mut o, "version", version);
                o.insert("active".into(), Value::from(*active));
                Value::Object(o)
            })
            .collect();
        m.insert("versions".into(), Value::from(list));
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

pub fn vulnerability(v: &Vulnerability) -> Value {
    let mut m = Map::new();
    m.insert("uuid".into(), Value::from(v.uuid.as_str()));
    m.insert("vulnId".into(), Value::from(v.vuln_id.as_str()));
    m.insert("source".into(), Value::from(v.source.as_str()));
    m.insert("severity".into(), Value::from(v.effective_severity()));
    opt(&mut m, "title", &v.title);
    opt(&mut m, "description", &v.description);
    opt(&mut m, "recommendation", &v.recommendation);
    opt(&mut m, "cvssV2Vector", &v.cvss_v2_vector);
    if let Some(s) = v.cvss_v2_score {
        m.insert("cvssV2BaseScore".into(), Value::from(s));
    }
    opt(&mut m, "cvssV3Vector", &v.cvss_v3_vector);
    if let Some(s) = v.cvss_v3_score {
        m.insert("cvssV3BaseScore".into(), Value::from(s));
    }
    opt(&mut m, "cvssV4Vector", &v.cvss_v4_vector);
    if let Some(s) = v.cvss_v4_score {
        m.insert("cvssV4Score".into(), Value::from(s));
    }
    opt(&mut m, "references", &v.references);
    if let Some(t) = v.created_ms {
        m.insert("created".into(), Value::from(t));
    }
    if let Some(t) = v.published_ms {
        m.insert("published".into(), Value::from(t));
    }
    if let Some(t) = v.updated_ms {
        m.insert("updated".into(), Value::from(t));
    }
    m.insert(
        "cwes".into(),
        Value::from(
            v.cwes
                .iter()
                .map(|&c| match crate::domain::dtrack::cwe::name(c) {
                    Some(name) => json!({ "cweId": c, "name": name }),
                    None => json!({ "cweId": c }),
                })
                .collect::<Vec<_>>(),
        ),
    );
    m.insert("aliases".into(), aliases(v));
    Value::Object(m)
}

/// A vulnerability as one component of a project has it (`/vulnerability/project/{uuid}`):
/// upstream's `Vulnerability` with `components` holding that component.
pub fn component_vulnerability(f: &Finding) -> Value {
    let mut v = vulnerability(&f.vulnerability);
    v["components"] = Value::from(vec![component(&f.component)]);
    v
}

/// The `VulnerabilityAlias` field an id belongs in, by its prefix.
fn alias_field(id: &str) -> &'static str {
    match id.split('-').next() {
        Some("CVE") => "cveId",
        Some("GHSA") => "ghsaId",
        Some("GSD") => "gsdId",
        Some("SNYK") => "snykId",
        Some("SONATYPE") => "sonatypeId",
        _ => "osvId",
    }
}

/// Upstream's aliases: one object per pair of ids that name the same vulnerability.
fn aliases(v: &Vulnerability) -> Value {
    let own = alias_field(&v.vuln_id);
    Value::from(
        v.aliases
            .iter()
            .map(|a| {
                let mut o = Map::new();
                o.insert(own.into(), Value::from(v.vuln_id.as_str()));
                o.insert(alias_field(a).into(), Value::from(a.as_str()));
                Value::Object(o)
            })
            .collect::<Vec<_>>(),
    )
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

/// Upstream's problem details for a BOM that fails validation.
pub fn bom_invalid(detail: &str, errors: Vec<String>) -> Value {
    let mut body = json!({
        "status": 400,
        "title": "The uploaded BOM is invalid",
        "detail": detail,
    });
    if !errors.is_empty() {
        body["errors"] = Value::from(errors);
    }
    body
}

/// The token a BOM upload answers with.
pub fn bom_token(token: &str) -> Value {
    json!({ "token": token })
}

/// Whether an upload's token is still being processed.
pub fn token_processing(processing: bool) -> Value {
    json!({ "processing": processing })
}
