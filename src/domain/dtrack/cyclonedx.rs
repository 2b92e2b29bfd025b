//! CycloneDX documents: JSON (spec 1.2–1.6) here, XML (1.0–1.6) in `cyclonedx_xml`; version
//! detection, the structural checks of upstream's schema validation that matter for import,
//! and the components they list.
//!
//! Pure; error texts follow upstream's validator where it has them. Must not touch HTTP types
//! or SQL.

use serde_json::Value;

use crate::model::dtrack::Component;

/// Why a document was refused: upstream's problem `detail` and, for schema failures, errors.
#[derive(Clone, Debug, PartialEq)]
pub struct InvalidBom {
    pub detail: String,
    pub errors: Vec<String>,
}

/// A parsed document.
#[derive(Debug)]
pub struct Bom {
    pub spec_version: String,
    pub components: Vec<Component>,
}

fn invalid(detail: impl Into<String>) -> InvalidBom {
    InvalidBom {
        detail: detail.into(),
        errors: Vec::new(),
    }
}

/// The component types a spec version allows.
pub fn component_types(spec: &str) -> Vec<&'static str> {
    let mut t = vec![
        "application",
        "framework",
        "library",
        "container",
        "operating-system",
        "device",
        "firmware",
        "file",
    ];
    if matches!(spec, "1.5" | "1.6") {
        t.extend([
            "platform",
            "device-driver",
            "machine-learning-model",
            "data",
        ]);
    }
    if spec == "1.6" {
        t.push("cryptographic-asset");
    }
    t
}

fn enumeration(values: &[&str]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| format!("\"{v}\"")).collect();
    format!("[{}]", quoted.join(", "))
}

/// Checks a `components` array and everything nested in it, reporting in document order.
/// Iterative: nesting depth is the uploader's choice, so it must not cost stack.
fn check_components(v: &Value, path: &str, spec: &str, errors: &mut Vec<String>) {
    enum Todo<'a> {
        List(&'a Value, String),
        One(&'a Value, String),
    }
    let allowed = component_types(spec);
    let mut todo = vec![Todo::List(v, path.to_string())];
    while let Some(next) = todo.pop() {
        let (c, here) = match next {
            Todo::List(v, path) => {
                let Some(list) = v.as_array() else {
                    errors.push(format!("{path}: {} found, array expected", kind(v)));
                    continue;
                };
                todo.extend(
                    list.iter()
                        .enumerate()
                        .rev()
                        .map(|(i, c)| Todo::One(c, format!("{path}[{i}]"))),
                );
                continue;
            }
            Todo::One(c, here) => (c, here),
        };
        let Some(obj) = c.as_object() else {
            errors.push(format!("{here}: {} found, object expected", kind(c)));
            continue;
        };
        match obj.get("type") {
            None => errors.push(format!("{here}.type: is missing but it is required")),
            Some(Value::String(t)) if allowed.contains(&t.as_str()) => {}
            Some(Value::String(_)) => errors.push(format!(
                "{here}.type: does not have a value in the enumeration {}",
                enumeration(&allowed)
            )),
            Some(other) => errors.push(format!(
                "{here}.type: {} found, string expected",
                kind(other)
            )),
        }
        match obj.get("name") {
            None => errors.push(format!("{here}.name: is missing but it is required")),
            Some(Value::String(_)) => {}
            Some(other) => errors.push(format!(
                "{here}.name: {} found, string expected",
                kind(other)
            )),
        }
        for key in ["version", "group", "purl", "cpe", "description"] {
            if let Some(v) = obj.get(key)
                && !v.is_string()
            {
                errors.push(format!("{here}.{key}: {} found, string expected", kind(v)));
            }
        }
        if let Some(nested) = obj.get("components") {
            todo.push(Todo::List(nested, format!("{here}.components")));
        }
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

fn component(v: &Value, out: &mut Vec<Component>) {
    let hash = |alg: &str| -> Option<String> {
        v.get("hashes")?.as_array()?.iter().find_map(|h| {
            (h.get("alg")?.as_str()? == alg)
                .then(|| h.get("content")?.as_str().map(str::to_lowercase))?
        })
    };
    let license = v.get("licenses").and_then(Value::as_array).and_then(|ls| {
        ls.iter().find_map(|l| {
            l.get("license")
                .and_then(|x| text(x, "id").or_else(|| text(x, "name")))
                .or_else(|| text(l, "expression"))
        })
    });
    out.push(Component {
        name: text(v, "name").unwrap_or_default(),
        version: text(v, "version"),
        group: text(v, "group"),
        purl: text(v, "purl"),
        cpe: text(v, "cpe"),
        swid_tag_id: v.get("swid").and_then(|s| text(s, "tagId")),
        classifier: text(v, "type").map(|t| t.to_ascii_uppercase().replace('-', "_")),
        description: text(v, "description"),
        license,
        md5: hash("MD5"),
        sha1: hash("SHA-1"),
        sha256: hash("SHA-256"),
        sha512: hash("SHA-512"),
        source_package: v
            .get("properties")
            .and_then(Value::as_array)
            .and_then(|ps| {
                super::osv::purl::trivy_source(
                    ps.iter().take(1000).filter_map(|p| {
                        Some((p.get("name")?.as_str()?, p.get("value")?.as_str()?))
                    }),
                )
            }),
        ..Component::default()
    });
}

/// Every component of a `components` array, nested ones included, in document order.
/// Iterative, as `check_components`.
fn all_components(list: &[Value]) -> Vec<&Value> {
    let mut out = Vec::new();
    let mut todo: Vec<&Value> = list.iter().rev().collect();
    while let Some(c) = todo.pop() {
        out.push(c);
        if let Some(children) = c.get("components").and_then(Value::as_array) {
            todo.extend(children.iter().rev());
        }
    }
    out
}

/// Parses and checks a document.
pub fn parse(bytes: &[u8]) -> Result<Bom, InvalidBom> {
    let trimmed = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace() && *b != 0xEF && *b != 0xBB && *b != 0xBF)
        .map(|i| &bytes[i..])
        .unwrap_or(&[]);
    let doc: Value = match serde_json::from_slice(trimmed) {
        Ok(v) => v,
        Err(_) if trimmed.first() == Some(&b'<') => {
            let xml = std::str::from_utf8(trimmed)
                .ok()
                .and_then(super::cyclonedx_xml::parse);
            return xml.unwrap_or_else(|| Err(invalid("BOM is neither valid JSON nor XML")));
        }
        Err(_) => return Err(invalid("BOM is neither valid JSON nor XML")),
    };
    let spec = match doc.get("specVersion").and_then(Value::as_str) {
        None => return Err(invalid("Unable to determine schema version from JSON")),
        Some(v @ ("1.0" | "1.1")) => {
            return Err(invalid(format!(
                "JSON is not supported for specVersion {v}"
            )));
        }
        Some(v @ ("1.2" | "1.3" | "1.4" | "1.5" | "1.6")) => v.to_string(),
        Some(v) => return Err(invalid(format!("Unrecognized specVersion {v}"))),
    };
    let mut errors = Vec::new();
    match doc.get("bomFormat") {
        None => errors.push("$.bomFormat: is missing but it is required".to_string()),
        Some(Value::String(f)) if f == "CycloneDX" => {}
        Some(_) => errors.push(
            "$.bomFormat: does not have a value in the enumeration [\"CycloneDX\"]".to_string(),
        ),
    }
    if let Some(c) = doc.get("components") {
        check_components(c, "$.components", &spec, &mut errors);
    }
    if let Some(c) = doc.pointer("/metadata/component") {
        check_components(
            &Value::Array(vec![c.clone()]),
            "$.metadata.component",
            &spec,
            &mut errors,
        );
    }
    if !errors.is_empty() {
        for e in &mut errors {
            *e = e.replace("$.metadata.component[0]", "$.metadata.component");
        }
        return Err(InvalidBom {
            detail: "Schema validation failed".into(),
            errors,
        });
    }
    let mut components = Vec::new();
    if let Some(list) = doc.get("components").and_then(Value::as_array) {
        for c in all_components(list) {
            component(c, &mut components);
        }
    }
    Ok(Bom {
        spec_version: spec,
        components,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upstreams_invalid_type_example() {
        let doc = br#"{"bomFormat":"CycloneDX","specVersion":"1.2","version":1,
            "components":[{"type":"foo","name":"acme-library","version":"1.0.0"}]}"#;
        let e = parse(doc).unwrap_err();
        assert_eq!(e.detail, "Schema validation failed");
        assert_eq!(
            e.errors,
            vec![
                r#"$.components[0].type: does not have a value in the enumeration ["application", "framework", "library", "container", "operating-system", "device", "firmware", "file"]"#
            ]
        );
    }

    #[test]
    fn versions_and_garbage() {
        assert_eq!(
            parse(b"nope").unwrap_err().detail,
            "BOM is neither valid JSON nor XML"
        );
        assert_eq!(
            parse(br#"{"bomFormat":"CycloneDX"}"#).unwrap_err().detail,
            "Unable to determine schema version from JSON"
        );
        assert_eq!(
            parse(br#"{"specVersion":"1.1"}"#).unwrap_err().detail,
            "JSON is not supported for specVersion 1.1"
        );
        assert_eq!(
            parse(br#"{"specVersion":"2.0"}"#).unwrap_err().detail,
            "Unrecognized specVersion 2.0"
        );
    }

    #[test]
    fn components_are_flattened_with_hashes_and_licenses() {
        let doc = br#"{"bomFormat":"CycloneDX","specVersion":"1.5","components":[
            {"type":"library","group":"g","name":"a","version":"1","purl":"pkg:maven/g/a@1",
             "hashes":[{"alg":"SHA-256","content":"ABCD"}],"licenses":[{"license":{"id":"MIT"}}],
             "components":[{"type":"library","name":"b"}]}]}"#;
        let bom = parse(doc).unwrap();
        assert_eq!(bom.spec_version, "1.5");
        assert_eq!(bom.components.len(), 2);
        let a = &bom.components[0];
        assert_eq!(a.sha256.as_deref(), Some("abcd"));
        assert_eq!(a.license.as_deref(), Some("MIT"));
        assert_eq!(a.classifier.as_deref(), Some("LIBRARY"));
        assert_eq!(bom.components[1].name, "b");
    }

    #[test]
    fn nested_errors_and_components_keep_document_order() {
        let doc = br#"{"bomFormat":"CycloneDX","specVersion":"1.5","components":[
            {"type":"library","name":"a","components":[{"name":"a1"},{"type":"library"}]},
            {"type":"library"}]}"#;
        assert_eq!(
            parse(doc).unwrap_err().errors,
            [
                "$.components[0].components[0].type: is missing but it is required",
                "$.components[0].components[1].name: is missing but it is required",
                "$.components[1].name: is missing but it is required",
            ]
        );
        let doc = br#"{"bomFormat":"CycloneDX","specVersion":"1.5","components":[
            {"type":"library","name":"a","components":[{"type":"library","name":"a1"},
             {"type":"library","name":"a2"}]},{"type":"library","name":"b"}]}"#;
        let names: Vec<String> = parse(doc)
            .unwrap()
            .components
            .into_iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(names, ["a", "a1", "a2", "b"]);
    }
}
