//! Checks JSON responses against the response schemas vendored from Zulip's OpenAPI document
//! (`tests/schemas/zulip-responses.json`, structure only; see `extract_zulip.py` beside it),
//! plus the events Outpost sends that the document predates (`zulip-additions.json`).
//!
//! `allOf` is merged the way upstream's own validator merges it (properties combined, later
//! definitions of a property refining earlier ones), so `additionalProperties: false` in one
//! part applies to the union of all parts' properties.

use std::sync::OnceLock;

use serde_json::{Map, Value};

fn document() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(|| {
        let text = include_str!("../schemas/zulip-responses.json");
        let mut doc: Value = serde_json::from_str(text).expect("vendored schema is valid JSON");
        // Events Outpost sends that the feature-level-382 document predates.
        let text = include_str!("../schemas/zulip-additions.json");
        let additions: Value = serde_json::from_str(text).expect("additions are valid JSON");
        for (name, schema) in additions["schemas"].as_object().expect("schemas") {
            let schemas = doc["schemas"].as_object_mut().expect("schemas");
            assert!(!schemas.contains_key(name), "addition {name} clashes");
            schemas.insert(name.clone(), schema.clone());
        }
        // Endpoints newer than the document (e.g. `POST /mobile_push/register`, FL 406), or
        // served but not documented upstream (`/bot_storage`).
        if let Some(responses) = additions.get("responses").and_then(Value::as_object) {
            for (op, schema) in responses {
                let all = doc["responses"].as_object_mut().expect("responses");
                assert!(!all.contains_key(op), "addition {op} clashes");
                all.insert(op.clone(), schema.clone());
            }
        }
        let events =
            doc["responses"]["GET /events"]["allOf"][1]["properties"]["events"]["items"]["oneOf"]
                .as_array_mut()
                .expect("the event alternatives");
        // The document says a cleared status emoji has `reaction_type: ""` but leaves `""`
        // out of the enum; upstream sends it, and the mobile app needs it.
        for event in events.iter_mut() {
            let is_status = event["properties"]["type"]["allOf"][1]["enum"][0] == "user_status";
            let reaction = &mut event["properties"]["reaction_type"]["enum"];
            if is_status && let Some(values) = reaction.as_array_mut() {
                values.push(Value::from(""));
            }
        }
        events.extend(
            additions["events"]
                .as_array()
                .expect("events")
                .iter()
                .cloned(),
        );
        let register = doc["responses"]["POST /register"]["allOf"][1]["properties"]
            .as_object_mut()
            .expect("register's keys");
        for (key, schema) in additions["register_properties"].as_object().expect("keys") {
            assert!(
                register.insert(key.clone(), schema.clone()).is_none(),
                "{key} clashes"
            );
        }
        doc
    })
}

/// Panics with every mismatch if `body` does not match the 200 schema of `operation`
/// (e.g. `"GET /users/me"`).
pub fn assert_matches(operation: &str, body: &Value) {
    let schema = document()["responses"]
        .get(operation)
        .unwrap_or_else(|| panic!("no vendored schema for {operation}"));
    let mut errors = Vec::new();
    check(schema, body, "$", &mut errors);
    assert!(
        errors.is_empty(),
        "{operation} response does not match the schema:\n{}\nbody: {body}",
        errors.join("\n")
    );
}

fn resolve(schema: &Value) -> &Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let name = r.strip_prefix("#/schemas/").expect("local reference");
            resolve(&document()["schemas"][name])
        }
        None => schema,
    }
}

/// Flattens `allOf` (recursively) into one object schema.
fn merged(schema: &Value) -> Map<String, Value> {
    let schema = resolve(schema);
    let Some(obj) = schema.as_object() else {
        return Map::new();
    };
    let mut out = Map::new();
    if let Some(parts) = obj.get("allOf").and_then(Value::as_array) {
        for part in parts {
            merge_into(&mut out, merged(part));
        }
    }
    let mut own = obj.clone();
    own.remove("allOf");
    merge_into(&mut out, own);
    out
}

fn merge_into(out: &mut Map<String, Value>, part: Map<String, Value>) {
    for (k, v) in part {
        match k.as_str() {
            "properties" => {
                let props = out
                    .entry("properties")
                    .or_insert_with(|| Value::Object(Map::new()))
                    .as_object_mut()
                    .expect("properties is an object");
                for (name, prop) in v.as_object().cloned().unwrap_or_default() {
                    let mut combined = props.get(&name).map(merged).unwrap_or_default();
                    merge_into(&mut combined, merged(&prop));
                    props.insert(name, Value::Object(combined));
                }
            }
            "required" => {
                let req = out
                    .entry("required")
                    .or_insert_with(|| Value::Array(Vec::new()))
                    .as_array_mut()
                    .expect("required is a list");
                for r in v.as_array().cloned().unwrap_or_default() {
                    if !req.contains(&r) {
                        req.push(r);
                    }
                }
            }
            "additionalProperties" => {
                // `false` anywhere wins.
                if out.get(&k) != Some(&Value::Bool(false)) {
                    out.insert(k, v);
                }
            }
            _ => {
                out.insert(k, v);
            }
        }
    }
}

fn type_ok(ty: &str, v: &Value) -> bool {
    match ty {
        "string" => v.is_string(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        _ => true,
    }
}

fn check(schema: &Value, v: &Value, path: &str, errors: &mut Vec<String>) {
    let s = merged(schema);
    if v.is_null() {
        let nullable = s.get("nullable") == Some(&Value::Bool(true));
        let unconstrained = !s.contains_key("type") && !s.contains_key("enum");
        if !(nullable || unconstrained) {
            errors.push(format!("{path}: null is not allowed"));
        }
        return;
    }
    if let Some(ty) = s.get("type").and_then(Value::as_str)
        && !type_ok(ty, v)
    {
        errors.push(format!("{path}: expected {ty}, got {v}"));
        return;
    }
    if let Some(options) = s.get("enum").and_then(Value::as_array)
        && !options.contains(v)
    {
        errors.push(format!("{path}: {v} is not one of {options:?}"));
    }
    if let Some(alts) = s.get("oneOf").and_then(Value::as_array) {
        let matching = alts.iter().filter(|a| passes(a, v)).count();
        if matching != 1 {
            errors.push(format!(
                "{path}: matches {matching} oneOf alternatives, not exactly 1"
            ));
        }
    }
    if let Some(alts) = s.get("anyOf").and_then(Value::as_array)
        && !alts.iter().any(|a| passes(a, v))
    {
        errors.push(format!("{path}: matches no anyOf alternative"));
    }
    if let (Some(items), Some(arr)) = (s.get("items"), v.as_array()) {
        for (i, item) in arr.iter().enumerate() {
            check(items, item, &format!("{path}[{i}]"), errors);
        }
    }
    if let Some(obj) = v.as_object() {
        let props = s
            .get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        if let Some(req) = s.get("required").and_then(Value::as_array) {
            for r in req.iter().filter_map(Value::as_str) {
                if !obj.contains_key(r) {
                    errors.push(format!("{path}: missing required key {r:?}"));
                }
            }
        }
        for (k, val) in obj {
            let sub = format!("{path}.{k}");
            match props.get(k) {
                Some(p) => check(p, val, &sub, errors),
                None => match s.get("additionalProperties") {
                    Some(Value::Bool(false)) => {
                        errors.push(format!("{path}: unexpected key {k:?}"));
                    }
                    Some(extra @ Value::Object(_)) => check(extra, val, &sub, errors),
                    _ => {}
                },
            }
        }
    }
}

fn passes(schema: &Value, v: &Value) -> bool {
    let mut errs = Vec::new();
    check(schema, v, "$", &mut errs);
    errs.is_empty()
}

#[test]
fn validator_rejects_extra_missing_and_mistyped_keys() {
    let ok = serde_json::json!({"result": "success", "msg": "", "user_id": 5});
    assert!(passes(&document()["responses"]["POST /users"], &ok));
    let extra = serde_json::json!({"result": "success", "msg": "", "user_id": 5, "bogus": 1});
    assert!(!passes(&document()["responses"]["POST /users"], &extra));
    let wrong = serde_json::json!({"result": "success", "msg": "", "user_id": "5"});
    assert!(!passes(&document()["responses"]["POST /users"], &wrong));
    let missing = serde_json::json!({"result": "success", "user_id": 5});
    assert!(!passes(&document()["responses"]["POST /users"], &missing));
    let not_success = serde_json::json!({"result": "error", "msg": "", "user_id": 5});
    assert!(!passes(
        &document()["responses"]["POST /users"],
        &not_success
    ));
}
