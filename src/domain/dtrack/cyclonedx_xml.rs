//! CycloneDX XML documents (spec 1.0–1.6): version detection from the namespace, the
//! structural checks that matter for import, and the components they list.
//!
//! Pure; the version texts are upstream's, the schema messages follow the XML validator's
//! wording for the two checks made here (component type and name). Must not touch HTTP types
//! or SQL.

use roxmltree::{Document, Node};

use super::xml_bounds::{self, Refused};

use super::cyclonedx::{Bom, InvalidBom, component_types};
use crate::model::dtrack::Component;

const NS_PREFIX: &str = "http://cyclonedx.org/schema/bom/";

fn invalid(detail: impl Into<String>) -> InvalidBom {
    InvalidBom {
        detail: detail.into(),
        errors: Vec::new(),
    }
}

fn child<'a, 'i>(n: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    n.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
}

fn text(n: Node<'_, '_>, name: &str) -> Option<String> {
    child(n, name)
        .and_then(|c| c.text())
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
}

fn elements<'a, 'i>(n: Node<'a, 'i>, name: &'a str) -> impl Iterator<Item = Node<'a, 'i>> + 'a {
    n.children()
        .filter(move |c| c.is_element() && c.tag_name().name() == name)
}

/// Every `component` under a `components` element, nested ones included, in document order.
/// Iterative: nesting depth is the uploader's choice, so it must not cost stack.
fn all_components<'a, 'i>(list: Node<'a, 'i>) -> Vec<Node<'a, 'i>> {
    let mut out = Vec::new();
    let mut todo: Vec<Node<'a, 'i>> = elements(list, "component").collect();
    todo.reverse();
    while let Some(c) = todo.pop() {
        out.push(c);
        if let Some(nested) = child(c, "components") {
            let at = todo.len();
            todo.extend(elements(nested, "component"));
            todo[at..].reverse();
        }
    }
    out
}

fn check(list: Node<'_, '_>, spec: &str, errors: &mut Vec<String>) {
    let allowed = component_types(spec);
    for c in all_components(list) {
        match c.attribute("type") {
            None => errors.push(
                "cvc-complex-type.4: Attribute 'type' must appear on element 'component'.".into(),
            ),
            Some(t) if allowed.contains(&t) => {}
            Some(t) => errors.push(format!(
                "cvc-enumeration-valid: Value '{t}' is not facet-valid with respect to enumeration '[{}]'. It must be a value from the enumeration.",
                allowed.join(", ")
            )),
        }
        if child(c, "name").is_none() {
            errors.push(format!(
                "cvc-complex-type.2.4.b: The content of element 'component' is not complete. One of '{{\"{NS_PREFIX}{spec}\":name}}' is expected."
            ));
        }
    }
}

fn component(c: Node<'_, '_>, out: &mut Vec<Component>) {
    let hash = |alg: &str| {
        child(c, "hashes").and_then(|hs| {
            elements(hs, "hash")
                .find(|h| h.attribute("alg") == Some(alg))
                .and_then(|h| h.text())
                .map(|t| t.trim().to_lowercase())
        })
    };
    let license = child(c, "licenses").and_then(|ls| {
        elements(ls, "license")
            .find_map(|l| text(l, "id").or_else(|| text(l, "name")))
            .or_else(|| text(ls, "expression"))
    });
    out.push(Component {
        name: text(c, "name").unwrap_or_default(),
        version: text(c, "version"),
        group: text(c, "group"),
        purl: text(c, "purl"),
        cpe: text(c, "cpe"),
        swid_tag_id: child(c, "swid")
            .and_then(|s| s.attribute("tagId"))
            .map(str::to_string),
        classifier: c
            .attribute("type")
            .map(|t| t.to_ascii_uppercase().replace('-', "_")),
        description: text(c, "description"),
        license,
        md5: hash("MD5"),
        sha1: hash("SHA-1"),
        sha256: hash("SHA-256"),
        sha512: hash("SHA-512"),
        source_package: child(c, "properties").and_then(|ps| {
            super::osv::purl::trivy_source(
                elements(ps, "property")
                    .take(1000)
                    .filter_map(|p| Some((p.attribute("name")?, p.text()?))),
            )
        }),
        ..Component::default()
    });
}

/// Parses and checks an XML document within [`xml_bounds`]; `None` if the text is not XML at
/// all.
pub fn parse(text: &str) -> Option<Result<Bom, InvalidBom>> {
    match xml_bounds::parse(text) {
        Ok(doc) => Some(bom_of(&doc)),
        Err(Refused::Bounds(why)) => Some(Err(invalid(why))),
        Err(Refused::NotXml(_)) => None,
    }
}

/// Checks a parsed XML document as a BOM and lists its components.
pub fn bom_of(doc: &Document<'_>) -> Result<Bom, InvalidBom> {
    let root = doc.root_element();
    if !root.tag_name().name().eq_ignore_ascii_case("bom") {
        return Err(invalid("Unable to determine schema version from XML"));
    }
    let ns = root.tag_name().namespace().unwrap_or("");
    let spec = match ns.strip_prefix(NS_PREFIX) {
        Some(v @ ("1.0" | "1.1" | "1.2" | "1.3" | "1.4" | "1.5" | "1.6")) => v.to_string(),
        _ => {
            let all: Vec<&str> = root.namespaces().map(|n| n.uri()).collect();
            return Err(invalid(format!(
                "Unable to determine schema version from XML namespaces [{}]",
                all.join(", ")
            )));
        }
    };
    let mut errors = Vec::new();
    if let Some(list) = child(root, "components") {
        check(list, &spec, &mut errors);
    }
    if !errors.is_empty() {
        return Err(InvalidBom {
            detail: "Schema validation failed".into(),
            errors,
        });
    }
    let mut components = Vec::new();
    if let Some(list) = child(root, "components") {
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
    fn trivy_source_properties_are_kept() {
        let doc = r#"<?xml version="1.0" encoding="UTF-8"?>
<bom xmlns="http://cyclonedx.org/schema/bom/1.5" version="1">
  <components>
    <component type="library">
      <name>libssl3</name><version>3.0.11-1~deb12u2</version>
      <purl>pkg:deb/debian/libssl3@3.0.11-1~deb12u2?distro=debian-12.4</purl>
      <properties>
        <property name="aquasecurity:trivy:SrcName">openssl</property>
        <property name="aquasecurity:trivy:SrcVersion">3.0.11</property>
        <property name="aquasecurity:trivy:SrcRelease">1~deb12u2</property>
      </properties>
    </component>
    <component type="library"><name>plain</name></component>
  </components>
</bom>"#;
        let bom = parse(doc).unwrap().unwrap();
        let src = bom.components[0].source_package.clone().unwrap();
        assert_eq!(
            (src.name.as_str(), src.version.as_deref()),
            ("openssl", Some("3.0.11-1~deb12u2"))
        );
        assert_eq!(bom.components[1].source_package, None);
    }

    #[test]
    fn components_of_an_xml_bom() {
        let doc = r#"<?xml version="1.0" encoding="UTF-8"?>
<bom xmlns="http://cyclonedx.org/schema/bom/1.4" version="1">
  <components>
    <component type="library">
      <group>org.acme</group><name>lib</name><version>1.0</version>
      <hashes><hash alg="SHA-1">ABC</hash></hashes>
      <licenses><license><id>Apache-2.0</id></license></licenses>
      <purl>pkg:maven/org.acme/lib@1.0</purl>
      <components><component type="file"><name>inner</name></component></components>
    </component>
  </components>
</bom>"#;
        let bom = parse(doc).unwrap().unwrap();
        assert_eq!(bom.spec_version, "1.4");
        assert_eq!(bom.components.len(), 2);
        assert_eq!(bom.components[0].sha1.as_deref(), Some("abc"));
        assert_eq!(bom.components[0].license.as_deref(), Some("Apache-2.0"));
        assert_eq!(bom.components[1].classifier.as_deref(), Some("FILE"));
    }

    #[test]
    fn nesting_keeps_document_order_at_any_depth() {
        let doc = r#"<bom xmlns="http://cyclonedx.org/schema/bom/1.5"><components>
            <component type="library"><name>a</name><components>
              <component type="library"><name>a1</name></component>
              <component type="library"><name>a2</name></component>
            </components></component>
            <component type="library"><name>b</name></component>
          </components></bom>"#;
        let names: Vec<String> = parse(doc)
            .unwrap()
            .unwrap()
            .components
            .into_iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(names, ["a", "a1", "a2", "b"]);
        let depth = 100_000;
        let mut deep =
            String::from(r#"<bom xmlns="http://cyclonedx.org/schema/bom/1.5"><components>"#);
        deep.push_str(&r#"<component type="library"><name>x</name><components>"#.repeat(depth));
        deep.push_str(&"</components></component>".repeat(depth));
        deep.push_str("</components></bom>");
        assert_eq!(parse(&deep).unwrap().unwrap().components.len(), depth);
    }

    #[test]
    fn refusals() {
        assert!(parse("not xml").is_none());
        let e = parse(r#"<bom xmlns="urn:other"/>"#).unwrap().unwrap_err();
        assert_eq!(
            e.detail,
            "Unable to determine schema version from XML namespaces [urn:other]"
        );
        let e = parse(
            r#"<bom xmlns="http://cyclonedx.org/schema/bom/1.5"><components><component type="foo"><name>x</name></component></components></bom>"#,
        )
        .unwrap()
        .unwrap_err();
        assert_eq!(e.detail, "Schema validation failed");
        assert!(e.errors[0].starts_with("cvc-enumeration-valid: Value 'foo'"));
    }
}
