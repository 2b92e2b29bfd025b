//! The CycloneDX 1.5 documents Dependency-Track exports: a project's BOM as JSON or XML
//! (inventory, with vulnerabilities, or as a VDR) and its VEX (JSON). Every component's
//! `bom-ref` is its uuid, the project's is the project uuid, so a VEX exported here imports
//! back onto the same findings.
//!
//! The XML writer escapes every text and attribute value and drops characters XML 1.0 cannot
//! carry. Must not touch the database.

use serde_json::{Map, Value, json};

use crate::domain::dtrack::exchange::{Export, ExportFinding};
use crate::model::dtrack::Component;

/// The spec versions written: the document follows 1.5, which 1.6 readers also accept.
pub const SPEC_VERSIONS: &[&str] = &["1.5", "1.6"];

/// What an export contains.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Variant {
    Inventory,
    WithVulnerabilities,
    Vdr,
    Vex,
}

impl Variant {
    fn components(self) -> bool {
        self != Variant::Vex
    }
    fn vulnerabilities(self) -> bool {
        self != Variant::Inventory
    }
    fn analyses(self) -> bool {
        matches!(self, Variant::Vex | Variant::WithVulnerabilities)
    }
}

fn component_type(classifier: Option<&str>) -> String {
    classifier
        .filter(|c| *c != "NONE")
        .unwrap_or("LIBRARY")
        .to_ascii_lowercase()
        .replace('_', "-")
}

fn hashes(c: &Component) -> Vec<(&'static str, &str)> {
    [
        ("MD5", &c.md5),
        ("SHA-1", &c.sha1),
        ("SHA-256", &c.sha256),
        ("SHA-512", &c.sha512),
    ]
    .into_iter()
    .filter_map(|(alg, v)| v.as_deref().map(|v| (alg, v)))
    .collect()
}

fn put(m: &mut Map<String, Value>, key: &str, v: &Option<String>) {
    if let Some(v) = v {
        m.insert(key.into(), Value::from(v.as_str()));
    }
}

fn component_json(c: &Component) -> Value {
    let mut m = Map::new();
    m.insert(
        "type".into(),
        Value::from(component_type(c.classifier.as_deref())),
    );
    m.insert("bom-ref".into(), Value::from(c.uuid.as_str()));
    put(&mut m, "group", &c.group);
    m.insert("name".into(), Value::from(c.name.as_str()));
    put(&mut m, "version", &c.version);
    put(&mut m, "description", &c.description);
    let h = hashes(c);
    if !h.is_empty() {
        m.insert(
            "hashes".into(),
            Value::from(
                h.iter()
                    .map(|(alg, v)| json!({"alg": alg, "content": v}))
                    .collect::<Vec<_>>(),
            ),
        );
    }
    if let Some(l) = &c.license {
        m.insert("licenses".into(), json!([{"license": {"name": l}}]));
    }
    put(&mut m, "cpe", &c.cpe);
    put(&mut m, "purl", &c.purl);
    if let Some(t) = &c.swid_tag_id {
        m.insert("swid".into(), json!({"tagId": t, "name": c.name}));
    }
    Value::Object(m)
}

/// CycloneDX's lower-case name of an upstream enum value; `NOT_SET` is no value.
fn cdx(v: Option<&str>) -> Option<String> {
    v.filter(|v| *v != "NOT_SET").map(str::to_ascii_lowercase)
}

fn vulnerability_json(f: &ExportFinding, variant: Variant) -> Value {
    let v = &f.vulnerability;
    let mut m = Map::new();
    m.insert("bom-ref".into(), Value::from(v.uuid.as_str()));
    m.insert("id".into(), Value::from(v.vuln_id.as_str()));
    m.insert("source".into(), json!({"name": v.source}));
    m.insert(
        "ratings".into(),
        json!([{"source": {"name": v.source}, "severity": v.effective_severity().to_ascii_lowercase(), "method": "other"}]),
    );
    put(&mut m, "description", &v.description);
    put(&mut m, "recommendation", &v.recommendation);
    if let Some(a) = f.analysis.as_ref().filter(|_| variant.analyses()) {
        let mut am = Map::new();
        if let Some(s) = cdx(Some(&a.state)) {
            am.insert("state".into(), Value::from(s));
        }
        if let Some(j) = cdx(a.justification.as_deref()) {
            am.insert("justification".into(), Value::from(j));
        }
        if let Some(r) = cdx(a.response.as_deref()) {
            am.insert("response".into(), json!([r]));
        }
        put(&mut am, "detail", &a.details);
        if !am.is_empty() {
            m.insert("analysis".into(), Value::Object(am));
        }
    }
    m.insert("affects".into(), json!([{"ref": f.component_uuid}]));
    Value::Object(m)
}

fn project_json(e: &Export) -> Value {
    let p = &e.project;
    let mut m = Map::new();
    m.insert(
        "type".into(),
        Value::from(component_type(p.classifier.as_deref())),
    );
    m.insert("bom-ref".into(), Value::from(p.uuid.as_str()));
    put(&mut m, "group", &p.group);
    m.insert("name".into(), Value::from(p.name.as_str()));
    put(&mut m, "version", &p.version);
    put(&mut m, "description", &p.description);
    put(&mut m, "cpe", &p.cpe);
    put(&mut m, "purl", &p.purl);
    if let Some(s) = &p.details.supplier {
        let mut o = Map::new();
        put(&mut o, "name", &s.name);
        if !s.urls.is_empty() {
            o.insert("url".into(), Value::from(s.urls.clone()));
        }
        m.insert("supplier".into(), Value::Object(o));
    }
    Value::Object(m)
}

/// The JSON document of an export.
pub fn json_document(
    e: &Export,
    variant: Variant,
    spec: &str,
    serial: &str,
    timestamp: &str,
) -> Value {
    let mut doc = Map::new();
    doc.insert("bomFormat".into(), Value::from("CycloneDX"));
    doc.insert("specVersion".into(), Value::from(spec));
    doc.insert(
        "serialNumber".into(),
        Value::from(format!("urn:uuid:{serial}")),
    );
    doc.insert("version".into(), Value::from(1));
    doc.insert(
        "metadata".into(),
        json!({
            "timestamp": timestamp,
            "tools": {"components": [{"type": "application", "author": "OWASP", "name": "Dependency-Track", "version": super::super::respond::DT_VERSION}]},
            "component": project_json(e),
        }),
    );
    if variant.components() {
        doc.insert(
            "components".into(),
            Value::from(e.components.iter().map(component_json).collect::<Vec<_>>()),
        );
    }
    if variant.vulnerabilities() {
        doc.insert(
            "vulnerabilities".into(),
            Value::from(
                e.findings
                    .iter()
                    .map(|f| vulnerability_json(f, variant))
                    .collect::<Vec<_>>(),
            ),
        );
    }
    Value::Object(doc)
}

/// XML-escapes a text or attribute value; characters XML 1.0 forbids are dropped.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(ch),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

fn elem(out: &mut String, indent: usize, name: &str, v: Option<&str>) {
    if let Some(v) = v {
        out.push_str(&" ".repeat(indent));
        out.push_str(&format!("<{name}>{}</{name}>\n", esc(v)));
    }
}

fn component_xml(out: &mut String, c: &Component, indent: usize) {
    let pad = " ".repeat(indent);
    out.push_str(&format!(
        "{pad}<component type=\"{}\" bom-ref=\"{}\">\n",
        esc(&component_type(c.classifier.as_deref())),
        esc(&c.uuid)
    ));
    let i = indent + 2;
    elem(out, i, "group", c.group.as_deref());
    elem(out, i, "name", Some(&c.name));
    elem(out, i, "version", c.version.as_deref());
    elem(out, i, "description", c.description.as_deref());
    let h = hashes(c);
    if !h.is_empty() {
        out.push_str(&format!("{}<hashes>\n", " ".repeat(i)));
        for (alg, v) in h {
            out.push_str(&format!(
                "{}<hash alg=\"{}\">{}</hash>\n",
                " ".repeat(i + 2),
                esc(alg),
                esc(v)
            ));
        }
        out.push_str(&format!("{}</hashes>\n", " ".repeat(i)));
    }
    if let Some(l) = &c.license {
        out.push_str(&format!(
            "{0}<licenses>\n{0}  <license>\n{0}    <name>{1}</name>\n{0}  </license>\n{0}</licenses>\n",
            " ".repeat(i),
            esc(l)
        ));
    }
    elem(out, i, "cpe", c.cpe.as_deref());
    elem(out, i, "purl", c.purl.as_deref());
    out.push_str(&format!("{pad}</component>\n"));
}

/// The XML document of a BOM export (VEX exports are JSON only, as upstream's).
pub fn xml_document(
    e: &Export,
    variant: Variant,
    spec: &str,
    serial: &str,
    timestamp: &str,
) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<bom xmlns=\"http://cyclonedx.org/schema/bom/{}\" serialNumber=\"urn:uuid:{}\" version=\"1\">\n",
        esc(spec),
        esc(serial)
    ));
    out.push_str("  <metadata>\n");
    elem(&mut out, 4, "timestamp", Some(timestamp));
    out.push_str(&format!(
        "    <tools>\n      <components>\n        <component type=\"application\">\n          <author>OWASP</author>\n          <name>Dependency-Track</name>\n          <version>{}</version>\n        </component>\n      </components>\n    </tools>\n",
        esc(super::super::respond::DT_VERSION)
    ));
    let p = &e.project;
    let project = Component {
        uuid: p.uuid.clone(),
        name: p.name.clone(),
        version: p.version.clone(),
        group: p.group.clone(),
        description: p.description.clone(),
        classifier: p.classifier.clone(),
        cpe: p.cpe.clone(),
        purl: p.purl.clone(),
        ..Component::default()
    };
    component_xml(&mut out, &project, 4);
    out.push_str("  </metadata>\n");
    if variant.components() {
        out.push_str("  <components>\n");
        for c in &e.components {
            component_xml(&mut out, c, 4);
        }
        out.push_str("  </components>\n");
    }
    if variant.vulnerabilities() {
        out.push_str("  <vulnerabilities>\n");
        for f in &e.findings {
            let v = &f.vulnerability;
            out.push_str(&format!(
                "    <vulnerability bom-ref=\"{}\">\n",
                esc(&v.uuid)
            ));
            elem(&mut out, 6, "id", Some(&v.vuln_id));
            out.push_str(&format!(
                "      <source>\n        <name>{}</name>\n      </source>\n",
                esc(&v.source)
            ));
            out.push_str(&format!(
                "      <ratings>\n        <rating>\n          <source>\n            <name>{}</name>\n          </source>\n          <severity>{}</severity>\n          <method>other</method>\n        </rating>\n      </ratings>\n",
                esc(&v.source),
                esc(&v.effective_severity().to_ascii_lowercase())
            ));
            elem(&mut out, 6, "description", v.description.as_deref());
            elem(&mut out, 6, "recommendation", v.recommendation.as_deref());
            if let Some(a) = f.analysis.as_ref().filter(|_| variant.analyses()) {
                out.push_str("      <analysis>\n");
                elem(&mut out, 8, "state", cdx(Some(&a.state)).as_deref());
                elem(
                    &mut out,
                    8,
                    "justification",
                    cdx(a.justification.as_deref()).as_deref(),
                );
                if let Some(r) = cdx(a.response.as_deref()) {
                    out.push_str(&format!(
                        "        <responses>\n          <response>{}</response>\n        </responses>\n",
                        esc(&r)
                    ));
                }
                elem(&mut out, 8, "detail", a.details.as_deref());
                out.push_str("      </analysis>\n");
            }
            out.push_str(&format!(
                "      <affects>\n        <target>\n          <ref>{}</ref>\n        </target>\n      </affects>\n",
                esc(&f.component_uuid)
            ));
            out.push_str("    </vulnerability>\n");
        }
        out.push_str("  </vulnerabilities>\n");
    }
    out.push_str("</bom>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_values_are_escaped_and_stripped_of_forbidden_characters() {
        assert_eq!(
            esc("a<b>&\"c'\u{1}\u{0}d\te"),
            "a&lt;b&gt;&amp;&quot;c&apos;d\te"
        );
    }
}
