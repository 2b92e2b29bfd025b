//! Checks SARIF logs against the structure of the SARIF 2.1.0 JSON schema, vendored as
//! `tests/schemas/sarif-2.1.0.json` (structure only; source, commit and license in
//! `tests/schemas/README.md`, extracted by `extract_sarif.py` beside it).
//!
//! The schema is JSON Schema draft 4; this checks the parts it uses: `type` (one or a list),
//! `enum`, `properties`, `required`, `additionalProperties`, `items`, `$ref` to its
//! definitions, `oneOf`/`anyOf`/`allOf`, `minimum`/`maximum`, `minItems`, `uniqueItems`,
//! `pattern`, and the `uri`, `uri-reference` and `date-time` formats in outline.

use std::sync::OnceLock;

use serde_json::Value;

fn document() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(|| {
        let text = include_str!("../schemas/sarif-2.1.0.json");
        serde_json::from_str(text).expect("vendored SARIF schema is valid JSON")
    })
}

/// Panics with every mismatch if `log` is not a SARIF 2.1.0 log.
pub fn assert_valid(log: &Value) {
    let mut errors = Vec::new();
    check(document(), log, "$", &mut errors);
    assert!(
        errors.is_empty(),
        "not a valid SARIF 2.1.0 log:\n{}\nlog: {log}",
        errors.join("\n")
    );
}

fn resolve(schema: &Value) -> &Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let name = r.strip_prefix("#/definitions/").expect("local reference");
            let def = &document()["definitions"][name];
            assert!(def.is_object(), "no definition {name}");
            resolve(def)
        }
        None => schema,
    }
}

fn type_ok(ty: &str, v: &Value) -> bool {
    match ty {
        "string" => v.is_string(),
        // Draft 4: an integer is a number without a fraction.
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        "null" => v.is_null(),
        _ => true,
    }
}

fn format_ok(format: &str, s: &str) -> bool {
    let scheme = |s: &str| {
        s.split_once(':').is_some_and(|(scheme, _)| {
            scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        })
    };
    match format {
        "uri" => scheme(s) && !s.contains(char::is_whitespace),
        "uri-reference" => !s.contains(char::is_whitespace),
        "date-time" => {
            let re = regex::Regex::new(
                r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$",
            )
            .unwrap();
            re.is_match(s)
        }
        _ => true,
    }
}

fn check(schema: &Value, v: &Value, path: &str, errors: &mut Vec<String>) {
    let s = resolve(schema);
    let Some(s) = s.as_object() else {
        return;
    };
    if let Some(ty) = s.get("type") {
        let types: Vec<&str> = match ty {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !types.iter().any(|t| type_ok(t, v)) {
            errors.push(format!("{path}: expected {types:?}, got {v}"));
            return;
        }
    }
    if let Some(options) = s.get("enum").and_then(Value::as_array)
        && !options.contains(v)
    {
        errors.push(format!("{path}: {v} is not one of {options:?}"));
    }
    for part in s
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        check(part, v, path, errors);
    }
    if let Some(alts) = s.get("oneOf").and_then(Value::as_array) {
        let matching = alts.iter().filter(|a| passes(a, v)).count();
        if matching != 1 {
            errors.push(format!("{path}: matches {matching} oneOf alternatives"));
        }
    }
    if let Some(alts) = s.get("anyOf").and_then(Value::as_array)
        && !alts.iter().any(|a| passes(a, v))
    {
        errors.push(format!("{path}: matches no anyOf alternative"));
    }
    if let Some(n) = v.as_f64() {
        if let Some(min) = s.get("minimum").and_then(Value::as_f64)
            && n < min
        {
            errors.push(format!("{path}: {n} is below {min}"));
        }
        if let Some(max) = s.get("maximum").and_then(Value::as_f64)
            && n > max
        {
            errors.push(format!("{path}: {n} is above {max}"));
        }
    }
    if let Some(text) = v.as_str() {
        if let Some(p) = s.get("pattern").and_then(Value::as_str)
            && !regex::Regex::new(p).unwrap().is_match(text)
        {
            errors.push(format!("{path}: {text:?} does not match {p}"));
        }
        if let Some(f) = s.get("format").and_then(Value::as_str)
            && !format_ok(f, text)
        {
            errors.push(format!("{path}: {text:?} is not a {f}"));
        }
    }
    if let Some(arr) = v.as_array() {
        if let Some(min) = s.get("minItems").and_then(Value::as_u64)
            && (arr.len() as u64) < min
        {
            errors.push(format!("{path}: fewer than {min} items"));
        }
        if s.get("uniqueItems") == Some(&Value::Bool(true)) {
            for (i, item) in arr.iter().enumerate() {
                if arr[..i].contains(item) {
                    errors.push(format!("{path}[{i}]: repeats an earlier item"));
                }
            }
        }
        if let Some(items) = s.get("items") {
            for (i, item) in arr.iter().enumerate() {
                check(items, item, &format!("{path}[{i}]"), errors);
            }
        }
    }
    if let Some(obj) = v.as_object() {
        for r in s
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(r) = r.as_str()
                && !obj.contains_key(r)
            {
                errors.push(format!("{path}: missing required key {r:?}"));
            }
        }
        let props = s.get("properties").and_then(Value::as_object);
        for (k, val) in obj {
            let sub = format!("{path}.{k}");
            match props.and_then(|p| p.get(k)) {
                Some(p) => check(p, val, &sub, errors),
                None => match s.get("additionalProperties") {
                    Some(Value::Bool(false)) => {
                        errors.push(format!("{path}: unexpected key {k:?}"))
                    }
                    Some(extra @ Value::Object(_)) => check(extra, val, &sub, errors),
                    _ => {}
                },
            }
        }
    }
}

fn passes(schema: &Value, v: &Value) -> bool {
    let mut errors = Vec::new();
    check(schema, v, "$", &mut errors);
    errors.is_empty()
}

#[test]
fn validator_takes_a_minimal_log_and_rejects_what_the_schema_forbids() {
    use serde_json::json;
    let ok = json!({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t",
        "rules": [{"id": "R1"}]}},
        "results": [{"ruleId": "R1", "level": "error", "message": {"text": "m"},
            "partialFingerprints": {"a/v1": "x"}}]}]});
    assert!(passes(document(), &ok));
    let bad = [
        // Another version, a run without a tool, a result without a message, an unknown
        // level, a key the schema does not define, a number where a string belongs, and a
        // property bag holding a non-string tag.
        json!({"version": "2.2.0", "runs": []}),
        json!({"version": "2.1.0", "runs": [{}]}),
        json!({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t"}},
            "results": [{"ruleId": "R1"}]}]}),
        json!({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t"}},
            "results": [{"message": {"text": "m"}, "level": "fatal"}]}]}),
        json!({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t", "bogus": 1}}}]}),
        json!({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": 5}}}]}),
        json!({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t",
            "properties": {"tags": [1]}}}}]}),
    ];
    for b in bad {
        assert!(!passes(document(), &b), "{b}");
    }
}
