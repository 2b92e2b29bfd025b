//! CycloneDX VEX documents (JSON or XML): the analyses they state and the components their
//! `affects` refer to, read with explicit bounds (vulnerabilities, affects per vulnerability,
//! indexed components).
//!
//! Pure. Must not touch HTTP types or SQL.

use serde_json::Value;

use crate::model::dtrack::Component;

use super::cyclonedx::{self, InvalidBom};
use super::cyclonedx_xml;
use super::xml_bounds::{self, Refused};

/// Most vulnerabilities one VEX may state.
pub const MAX_VULNERABILITIES: usize = 10_000;
/// Most `affects` entries of one vulnerability.
pub const MAX_AFFECTS: usize = 1_000;
/// Most components (nested ones included) a VEX may index.
pub const MAX_COMPONENTS: usize = 100_000;

/// One vulnerability statement with its analysis, in upstream's (upper-case) names.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VexStatement {
    pub source: String,
    pub vuln_id: String,
    pub affects: Vec<String>,
    pub state: Option<String>,
    pub justification: Option<String>,
    /// The first response, as upstream keeps one.
    pub response: Option<String>,
    pub details: Option<String>,
}

/// A parsed VEX.
#[derive(Debug, Default)]
pub struct Vex {
    /// `metadata.component.bom-ref`: affects naming it mean the whole project.
    pub project_ref: Option<String>,
    /// Components by bom-ref, nested ones included.
    pub components: Vec<(String, Component)>,
    pub statements: Vec<VexStatement>,
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

fn invalid(detail: String) -> InvalidBom {
    InvalidBom {
        detail,
        errors: Vec::new(),
    }
}

const STATES: &[&str] = &[
    "resolved",
    "resolved_with_pedigree",
    "exploitable",
    "in_triage",
    "false_positive",
    "not_affected",
];
const JUSTIFICATIONS: &[&str] = &[
    "code_not_present",
    "code_not_reachable",
    "requires_configuration",
    "requires_dependency",
    "requires_environment",
    "protected_by_compiler",
    "protected_at_runtime",
    "protected_at_perimeter",
    "protected_by_mitigating_control",
];
const RESPONSES: &[&str] = &[
    "can_not_fix",
    "will_not_fix",
    "update",
    "rollback",
    "workaround_available",
];

/// An enum value of the VEX, in upstream's name; unknown values are refused.
fn upper(v: Option<String>, allowed: &[&str], what: &str) -> Result<Option<String>, InvalidBom> {
    match v {
        None => Ok(None),
        Some(s) if allowed.contains(&s.as_str()) => Ok(Some(match s.as_str() {
            "resolved_with_pedigree" => "RESOLVED".into(),
            other => other.to_ascii_uppercase(),
        })),
        Some(s) => Err(invalid(format!("Unknown {what} \"{s}\" in the VEX"))),
    }
}

/// Parses a VEX: first the structural checks of a BOM, then its vulnerabilities.
/// An XML document is parsed once, within [`xml_bounds`], for both.
pub fn parse(bytes: &[u8]) -> Result<Vex, InvalidBom> {
    let body = bytes.trim_ascii_start();
    let body = body
        .strip_prefix(b"\xEF\xBB\xBF".as_slice())
        .unwrap_or(body);
    if body.first() == Some(&b'<') {
        let neither = || invalid("BOM is neither valid JSON nor XML".into());
        let text = std::str::from_utf8(body).map_err(|_| neither())?;
        let doc = match xml_bounds::parse(text) {
            Ok(doc) => doc,
            Err(Refused::Bounds(why)) => return Err(invalid(why)),
            Err(Refused::NotXml(_)) => return Err(neither()),
        };
        cyclonedx_xml::bom_of(&doc)?;
        return parse_xml(&doc);
    }
    cyclonedx::parse(bytes)?;
    let doc: Value = serde_json::from_slice(body)
        .map_err(|e| invalid(format!("The VEX is not valid JSON: {e}")))?;
    let mut vex = Vex {
        project_ref: doc
            .get("metadata")
            .and_then(|m| m.get("component"))
            .and_then(|c| text(c, "bom-ref")),
        ..Vex::default()
    };
    let mut todo: Vec<&Value> = doc
        .get("components")
        .and_then(Value::as_array)
        .map(|l| l.iter().collect())
        .unwrap_or_default();
    while let Some(c) = todo.pop() {
        if vex.components.len() >= MAX_COMPONENTS {
            return Err(invalid(format!(
                "The VEX lists more than {MAX_COMPONENTS} components"
            )));
        }
        if let Some(r) = text(c, "bom-ref") {
            vex.components.push((
                r,
                Component {
                    name: text(c, "name").unwrap_or_default(),
                    version: text(c, "version"),
                    group: text(c, "group"),
                    purl: text(c, "purl"),
                    ..Component::default()
                },
            ));
        }
        if let Some(children) = c.get("components").and_then(Value::as_array) {
            todo.extend(children.iter());
        }
    }
    let list = match doc.get("vulnerabilities") {
        None => return Ok(vex),
        Some(Value::Array(l)) => l,
        Some(_) => return Err(invalid("vulnerabilities must be an array".into())),
    };
    if list.len() > MAX_VULNERABILITIES {
        return Err(invalid(format!(
            "The VEX states more than {MAX_VULNERABILITIES} vulnerabilities"
        )));
    }
    for v in list {
        // Upstream skips statements without id, source, affects or analysis.
        let (Some(id), Some(source)) =
            (text(v, "id"), v.get("source").and_then(|s| text(s, "name")))
        else {
            continue;
        };
        let Some(analysis) = v.get("analysis").filter(|a| a.is_object()) else {
            continue;
        };
        let affects: Vec<String> = v
            .get("affects")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(|x| text(x, "ref")).collect())
            .unwrap_or_default();
        if affects.is_empty() {
            continue;
        }
        if affects.len() > MAX_AFFECTS {
            return Err(invalid(format!(
                "A vulnerability of the VEX affects more than {MAX_AFFECTS} elements"
            )));
        }
        let response = analysis
            .get("response")
            .and_then(Value::as_array)
            .and_then(|r| r.first())
            .and_then(Value::as_str)
            .map(str::to_string);
        vex.statements.push(VexStatement {
            source: source.to_ascii_uppercase(),
            vuln_id: id,
            affects,
            state: upper(text(analysis, "state"), STATES, "analysis state")?,
            justification: upper(
                text(analysis, "justification"),
                JUSTIFICATIONS,
                "justification",
            )?,
            response: upper(response, RESPONSES, "response")?,
            details: text(analysis, "detail"),
        });
    }
    Ok(vex)
}

fn child<'a, 'i>(n: roxmltree::Node<'a, 'i>, name: &str) -> Option<roxmltree::Node<'a, 'i>> {
    n.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
}

fn children<'a, 'i>(
    n: roxmltree::Node<'a, 'i>,
    name: &'static str,
) -> impl Iterator<Item = roxmltree::Node<'a, 'i>> {
    n.children()
        .filter(move |c| c.is_element() && c.tag_name().name() == name)
}

fn xml_text(n: roxmltree::Node<'_, '_>, name: &str) -> Option<String> {
    child(n, name)
        .and_then(|c| c.text())
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// The XML form of [`parse`] (already checked as a BOM).
fn parse_xml(doc: &roxmltree::Document<'_>) -> Result<Vex, InvalidBom> {
    let root = doc.root_element();
    let mut vex = Vex {
        project_ref: child(root, "metadata")
            .and_then(|m| child(m, "component"))
            .and_then(|c| c.attribute("bom-ref"))
            .map(str::to_string),
        ..Vex::default()
    };
    if let Some(list) = child(root, "components") {
        // Every component element below `components`, nested ones included, without recursion.
        for c in list
            .descendants()
            .filter(|d| d.is_element() && d.tag_name().name() == "component")
        {
            if vex.components.len() >= MAX_COMPONENTS {
                return Err(invalid(format!(
                    "The VEX lists more than {MAX_COMPONENTS} components"
                )));
            }
            if let Some(r) = c.attribute("bom-ref") {
                vex.components.push((
                    r.to_string(),
                    Component {
                        name: xml_text(c, "name").unwrap_or_default(),
                        version: xml_text(c, "version"),
                        group: xml_text(c, "group"),
                        purl: xml_text(c, "purl"),
                        ..Component::default()
                    },
                ));
            }
        }
    }
    let Some(list) = child(root, "vulnerabilities") else {
        return Ok(vex);
    };
    for (i, v) in children(list, "vulnerability").enumerate() {
        if i >= MAX_VULNERABILITIES {
            return Err(invalid(format!(
                "The VEX states more than {MAX_VULNERABILITIES} vulnerabilities"
            )));
        }
        let (Some(id), Some(source)) = (
            xml_text(v, "id"),
            child(v, "source").and_then(|s| xml_text(s, "name")),
        ) else {
            continue;
        };
        let Some(analysis) = child(v, "analysis") else {
            continue;
        };
        let affects: Vec<String> = child(v, "affects")
            .map(|a| {
                children(a, "target")
                    .filter_map(|t| xml_text(t, "ref"))
                    .collect()
            })
            .unwrap_or_default();
        if affects.is_empty() {
            continue;
        }
        if affects.len() > MAX_AFFECTS {
            return Err(invalid(format!(
                "A vulnerability of the VEX affects more than {MAX_AFFECTS} elements"
            )));
        }
        let response = child(analysis, "responses").and_then(|r| xml_text(r, "response"));
        vex.statements.push(VexStatement {
            source: source.to_ascii_uppercase(),
            vuln_id: id,
            affects,
            state: upper(xml_text(analysis, "state"), STATES, "analysis state")?,
            justification: upper(
                xml_text(analysis, "justification"),
                JUSTIFICATIONS,
                "justification",
            )?,
            response: upper(response, RESPONSES, "response")?,
            details: xml_text(analysis, "detail"),
        });
    }
    Ok(vex)
}
