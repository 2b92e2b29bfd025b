//! Documents: multipart bodies, CycloneDX JSON and XML, and the TOML config.

use proptest::prelude::*;
use serde_json::{Value, json};

use outpost::domain::dtrack::{cyclonedx, cyclonedx_xml};
use outpost::http::multipart::{self, MultipartError, Part};

use crate::fuzz;
use crate::text::{fragments, json_value};

/// A well-formed body holding `parts` under `boundary`.
fn multipart_body(boundary: &str, parts: &[(String, Option<String>, Vec<u8>)]) -> Vec<u8> {
    let mut body = Vec::new();
    for (name, filename, data) in parts {
        body.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        let file = filename
            .as_ref()
            .map(|f| format!("; filename=\"{f}\""))
            .unwrap_or_default();
        body.extend_from_slice(
            format!("Content-Disposition: form-data; name=\"{name}\"{file}\r\n\r\n").as_bytes(),
        );
        body.extend_from_slice(data);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    body
}

const MULTIPART_BITS: &[&str] = &[
    "--xyz",
    "--xyz--",
    "\r\n",
    "\n",
    "\r\n\r\n",
    "Content-Disposition: form-data; name=\"a\"",
    "; filename=\"f\"",
    "Content-Type: text/plain",
    "name=",
    "\"",
    ";",
    "--",
    "x",
    "\r",
];

#[test]
fn multipart_bodies_split_or_refuse() {
    fuzz(
        "multipart",
        (fragments(MULTIPART_BITS, 60), 0usize..10),
        |(body, max)| {
            match multipart::parse_limited(body.as_bytes(), "xyz", max) {
                Ok(parts) => prop_assert!(parts.len() <= max),
                Err(MultipartError::Malformed | MultipartError::TooManyParts) => {}
            }
            Ok(())
        },
    );
    // Content that never contains the delimiter comes back as it went in.
    fuzz(
        "multipart round trip",
        (
            "[a-zA-Z0-9'()+_,./:=?-]{1,69}",
            proptest::collection::vec(
                (
                    "[a-z_]{1,12}",
                    proptest::option::of("[a-z.]{1,12}"),
                    proptest::collection::vec(any::<u8>(), 0..200),
                ),
                0..8,
            ),
        ),
        |(boundary, parts)| {
            let delimiter = format!("\r\n--{boundary}");
            let clean = parts.iter().all(|(_, _, d)| {
                let mut framed = b"\r\n".to_vec();
                framed.extend_from_slice(d);
                framed.extend_from_slice(b"\r\n");
                !framed
                    .windows(delimiter.len())
                    .any(|w| w == delimiter.as_bytes())
            });
            prop_assume!(clean);
            let body = multipart_body(&boundary, &parts);
            let got = multipart::parse_limited(&body, &boundary, 100)
                .map_err(|e| TestCaseError::fail(format!("{e:?} for a well-formed body")))?;
            let want: Vec<Part> = parts
                .into_iter()
                .map(|(name, filename, data)| Part {
                    name,
                    filename,
                    data,
                })
                .collect();
            prop_assert_eq!(got, want);
            Ok(())
        },
    );
}

const BOM_WORDS: &[&str] = &[
    "bomFormat",
    "CycloneDX",
    "specVersion",
    "1.0",
    "1.2",
    "1.4",
    "1.5",
    "1.6",
    "version",
    "components",
    "type",
    "library",
    "application",
    "framework",
    "name",
    "group",
    "purl",
    "pkg:npm/a@1",
    "pkg:",
    "cpe",
    "hashes",
    "alg",
    "content",
    "SHA-256",
    "licenses",
    "license",
    "id",
    "MIT",
    "expression",
    "bom-ref",
    "dependencies",
    "ref",
    "dependsOn",
    "metadata",
    "component",
    "serialNumber",
    "urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79",
];

/// A plausible CycloneDX JSON document with arbitrary pieces spliced in.
fn bom_json() -> impl Strategy<Value = Value> {
    let component = (
        proptest::sample::select(BOM_WORDS),
        json_value(BOM_WORDS),
        json_value(BOM_WORDS),
    )
        .prop_map(|(t, name, extra)| {
            json!({"type": t, "name": name, "version": "1", "purl": extra, "components": [
                {"type": "library", "name": "child", "hashes": [{"alg": "SHA-256", "content": extra}]}
            ]})
        });
    (
        proptest::sample::select(&["1.2", "1.3", "1.4", "1.5", "1.6", "2.0", ""][..]),
        proptest::collection::vec(component, 0..20),
        json_value(BOM_WORDS),
    )
        .prop_map(|(spec, components, extra)| {
            json!({"bomFormat": "CycloneDX", "specVersion": spec, "version": 1,
                   "components": components, "dependencies": extra})
        })
}

#[test]
fn cyclonedx_json_parses_or_explains() {
    fuzz(
        "cyclonedx json",
        prop_oneof![
            bom_json().prop_map(|v| v.to_string().into_bytes()),
            json_value(BOM_WORDS).prop_map(|v| v.to_string().into_bytes()),
            any::<Vec<u8>>(),
            // Deep nesting, which a recursive walk would not survive.
            (1usize..5000).prop_map(|n| format!(
                "{{\"bomFormat\":\"CycloneDX\",\"specVersion\":\"1.5\",\"components\":{}{}}}",
                "[{\"type\":\"library\",\"name\":\"a\",\"components\":".repeat(n),
                "[]}]".repeat(n)
            )
            .into_bytes()),
        ],
        |bytes| {
            match cyclonedx::parse(&bytes) {
                Ok(bom) => prop_assert!(bom.components.len() <= bytes.len()),
                Err(e) => prop_assert!(!e.detail.is_empty()),
            }
            Ok(())
        },
    );
}

const XML_BITS: &[&str] = &[
    "<?xml version=\"1.0\"?>",
    "<bom xmlns=\"http://cyclonedx.org/schema/bom/1.5\" version=\"1\">",
    "<bom xmlns=\"http://cyclonedx.org/schema/bom/1.0\">",
    "</bom>",
    "<components>",
    "</components>",
    "<component type=\"library\">",
    "<component type=\"bogus\">",
    "</component>",
    "<name>a</name>",
    "<version>1</version>",
    "<purl>pkg:npm/a@1</purl>",
    "<hashes><hash alg=\"SHA-256\">00</hash></hashes>",
    "<licenses><license><id>MIT</id></license></licenses>",
    "<!DOCTYPE bom [<!ENTITY a \"aaaa\">]>",
    "&a;",
    "&amp;",
    "<![CDATA[x]]>",
    "<!-- c -->",
    "<",
    ">",
    "\"",
];

#[test]
fn cyclonedx_xml_parses_or_explains() {
    fuzz(
        "cyclonedx xml",
        prop_oneof![
            fragments(XML_BITS, 60),
            (0usize..3000).prop_map(|n| format!(
                "<bom xmlns=\"http://cyclonedx.org/schema/bom/1.5\"><components>{}{}</components></bom>",
                "<component type=\"library\"><name>a</name><components>".repeat(n),
                "</components></component>".repeat(n)
            )),
        ],
        |text| {
            if let Some(Err(e)) = cyclonedx_xml::parse(&text) {
                prop_assert!(!e.detail.is_empty());
            }
            // The upload path sniffs the format itself; it must agree on refusing.
            if let Err(e) = cyclonedx::parse(text.as_bytes()) {
                prop_assert!(!e.detail.is_empty());
            }
            Ok(())
        },
    );
}

const CONFIG_KEYS: &[&str] = &[
    "data_dir",
    "listen",
    "external_url",
    "realm_name",
    "development",
    "enabled",
    "synchronous",
    "read_threads",
    "max_body_bytes",
    "max_params",
    "max_connections",
    "user_requests_per_minute",
    "trusted_proxies",
    "rate_limit_exempt_addresses",
    "heartbeat_secs",
    "heartbeat_jitter_secs",
    "queue_timeout_secs",
    "host",
    "port",
    "tls",
    "password",
    "level",
    "format",
    "acl_enabled",
    "email_address_visibility",
    "bogus",
];
const CONFIG_TABLES: &[&str] = &[
    "",
    "[chat]",
    "[dtrack]",
    "[metrics]",
    "[database]",
    "[limits]",
    "[events]",
    "[email]",
    "[push]",
    "[bots]",
    "[log]",
    "[nope]",
    "[[chat]]",
    "[chat.x]",
];
const CONFIG_VALUES: &[&str] = &[
    "0",
    "-1",
    "1",
    "65536",
    "9223372036854775807",
    "1e400",
    "nan",
    "inf",
    "true",
    "\"\"",
    "\"full\"",
    "\"normal\"",
    "\"127.0.0.1:0\"",
    "\"[::1]:80\"",
    "\"10.0.0.0/8\"",
    "[]",
    "[\"1.2.3.4\", \"::1/200\"]",
    "{}",
    "{ a = 1 }",
    "\"http://x\"",
    "\"json\"",
    "\"starttls\"",
    "1979-05-27T07:32:00Z",
    "'''\nx'''",
    "\"\\u0000\"",
];

#[test]
fn toml_config_validates_or_reports() {
    let line = (
        proptest::sample::select(CONFIG_TABLES),
        proptest::sample::select(CONFIG_KEYS),
        prop_oneof![
            4 => proptest::sample::select(CONFIG_VALUES).prop_map(str::to_string),
            1 => any::<String>(),
        ],
    )
        .prop_map(|(t, k, v)| format!("{t}\n{k} = {v}\n"));
    fuzz(
        "config",
        prop_oneof![
            proptest::collection::vec(line, 0..12).prop_map(|l| l.concat()),
            any::<String>(),
        ],
        |text| {
            if let Err(e) = outpost::config::parse(&text) {
                prop_assert!(!e.problems.is_empty());
                prop_assert!(e.problems.iter().all(|p| !p.is_empty()));
            }
            Ok(())
        },
    );
}
