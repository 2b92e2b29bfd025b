//! The generic `json` integration's message: the payload, which must be a JSON object, shown
//! as a ```` ```json ```` code block in topic "JSON", printed exactly as upstream prints it
//! (Python's `json.dumps(payload, indent=2)`: keys in the order sent, a repeated key keeping its
//! first place and its last value, two-space indents, `,` ending each line but the last of a
//! container and `: ` after keys, non-ASCII text as `\uXXXX` escapes, floats in Python's
//! shortest form; the one difference: a bare `-0` prints as `-0.0`, where Python keeps `0`).
//!
//! Pure: no SQL, no HTTP. Parsing is bounded by `serde_json`'s nesting limit (128 levels) and
//! printing walks the tree with an explicit stack, never by recursion.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::error::{Error, Result};

/// The topic upstream gives every message of this integration.
pub const TOPIC: &str = "JSON";

/// A JSON value that keeps its object keys in the order they were sent.
#[derive(Debug, PartialEq)]
enum Node {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Arr(Vec<Node>),
    Obj(Vec<(String, Node)>),
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }

    fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
        Ok(Node::Int(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
        Ok(Node::Int(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
        Ok(Node::Float(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Str(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Node, E> {
        Ok(Node::Str(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Node>()? {
            items.push(item);
        }
        Ok(Node::Arr(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        // A repeated key keeps its first place and takes the last value, as a Python dict
        // does; past a few keys, an index keeps finding the first place cheap.
        const FEW: usize = 16;
        let mut entries: Vec<(String, Node)> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        while let Some((key, value)) = map.next_entry::<String, Node>()? {
            let at = if entries.len() < FEW {
                entries.iter().position(|(k, _)| *k == key)
            } else {
                if index.is_empty() {
                    index.extend(entries.iter().enumerate().map(|(i, (k, _))| (k.clone(), i)));
                }
                index.get(&key).copied()
            };
            match at {
                Some(i) => entries[i].1 = value,
                None => {
                    if entries.len() >= FEW {
                        index.insert(key.clone(), entries.len());
                    }
                    entries.push((key, value));
                }
            }
        }
        Ok(Node::Obj(entries))
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Node, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

/// The message for a request body: upstream's "Malformed JSON" when it is not JSON (or nests
/// deeper than 128 levels), and an error when it is JSON but not an object.
pub fn format(body: &[u8]) -> Result<String> {
    let node: Node = serde_json::from_slice(body).map_err(|_| malformed())?;
    if !matches!(node, Node::Obj(_)) {
        return Err(Error::bad_request("payload is not a dict"));
    }
    let mut out = String::with_capacity(body.len() * 2 + 16);
    out.push_str("```json\n");
    pretty(&node, &mut out);
    out.push_str("\n```");
    Ok(out)
}

/// Upstream's answer to a body that is not JSON.
pub fn malformed() -> Error {
    Error::coded("INVALID_JSON", "Malformed JSON", vec![])
}

/// An open array or object while printing, with what is left of it.
enum Frame<'a> {
    Arr(std::slice::Iter<'a, Node>, bool),
    Obj(std::slice::Iter<'a, (String, Node)>, bool),
}

/// Prints `node` as `json.dumps(node, indent=2)` does.
fn pretty(node: &Node, out: &mut String) {
    let mut stack: Vec<Frame<'_>> = Vec::new();
    open(node, out, &mut stack);
    loop {
        let depth = stack.len();
        let Some(frame) = stack.last_mut() else {
            break;
        };
        let (next, first) = match frame {
            Frame::Arr(items, first) => (items.next().map(|n| (None, n)), first),
            Frame::Obj(entries, first) => (entries.next().map(|(k, n)| (Some(k), n)), first),
        };
        match next {
            Some((key, value)) => {
                let separator = if std::mem::replace(first, false) {
                    "\n"
                } else {
                    ",\n"
                };
                out.push_str(separator);
                indent(out, depth);
                if let Some(k) = key {
                    string(k, out);
                    out.push_str(": ");
                }
                open(value, out, &mut stack);
            }
            None => {
                let closer = match stack.pop() {
                    Some(Frame::Arr(..)) => ']',
                    _ => '}',
                };
                out.push('\n');
                indent(out, depth - 1);
                out.push(closer);
            }
        }
    }
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

/// Prints a scalar or an empty container whole, or opens a container (pushing its frame).
fn open<'a>(node: &'a Node, out: &mut String, stack: &mut Vec<Frame<'a>>) {
    match node {
        Node::Null => out.push_str("null"),
        Node::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Node::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Node::Float(f) => out.push_str(&python_float(*f)),
        Node::Str(s) => string(s, out),
        Node::Arr(items) if items.is_empty() => out.push_str("[]"),
        Node::Obj(entries) if entries.is_empty() => out.push_str("{}"),
        Node::Arr(items) => {
            out.push('[');
            stack.push(Frame::Arr(items.iter(), true));
        }
        Node::Obj(entries) => {
            out.push('{');
            stack.push(Frame::Obj(entries.iter(), true));
        }
    }
}

/// A string as Python's JSON encoder writes it with `ensure_ascii`: everything outside
/// printable ASCII escaped, lowercase hex, UTF-16 surrogate pairs beyond the BMP.
fn string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{u:04x}");
                }
            }
        }
    }
    out.push('"');
}

/// Python's `repr` of a float: the shortest digits that read back the same, in positional
/// form for exponents from -4 to 15 (always with a fraction) and scientific otherwise
/// (`1e+16`, `1.5e-05`).
fn python_float(f: f64) -> String {
    if !f.is_finite() {
        // JSON has none; kept total for safety.
        return if f.is_nan() {
            "NaN".into()
        } else if f > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    if !(-4..16).contains(&exp) {
        let e_sign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{mantissa}e{e_sign}{:02}", exp.abs());
    }
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let point = exp + 1; // digits before the decimal point
    if point <= 0 {
        let zeros = "0".repeat((-point) as usize);
        return format!("{sign}0.{zeros}{digits}");
    }
    let point = point as usize;
    if digits.len() <= point {
        let zeros = "0".repeat(point - digits.len());
        format!("{sign}{digits}{zeros}.0")
    } else {
        format!("{sign}{}.{}", &digits[..point], &digits[point..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_python_repr() {
        for (f, expected) in [
            (1.0, "1.0"),
            (0.5, "0.5"),
            (-2.25, "-2.25"),
            (100.0, "100.0"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (123.456, "123.456"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1e100, "1e+100"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
        ] {
            assert_eq!(python_float(f), expected, "{f}");
        }
    }

    #[test]
    fn prints_like_json_dumps_with_indent_2() {
        let body = br#"{"b": 1, "a": [true, null, {"x": "y"}, [], {}], "c": {"d": 2.50}}"#;
        assert_eq!(
            format(body).unwrap(),
            "```json\n{\n  \"b\": 1,\n  \"a\": [\n    true,\n    null,\n    {\n      \"x\": \"y\"\n    },\n    [],\n    {}\n  ],\n  \"c\": {\n    \"d\": 2.5\n  }\n}\n```"
        );
    }

    #[test]
    fn strings_are_escaped_to_ascii() {
        let mut out = String::new();
        string("é\u{1F600}\"\\\n\u{1}\u{7f}/", &mut out);
        assert_eq!(out, r#""\u00e9\ud83d\ude00\"\\\n\u0001\u007f/""#);
    }

    #[test]
    fn repeated_keys_keep_the_first_place_and_the_last_value() {
        let many: String = (0..40).map(|i| format!("\"k{i}\": {i}, ")).collect();
        let body = format!("{{\"a\": 1, {many}\"b\": 2, \"a\": 3, \"k30\": \"z\"}}");
        let out = format(body.as_bytes()).unwrap();
        assert!(
            out.starts_with("```json\n{\n  \"a\": 3,\n  \"k0\": 0,"),
            "{out}"
        );
        assert!(out.contains("\"k30\": \"z\""), "{out}");
        assert_eq!(out.matches("\"a\"").count(), 1);
    }

    #[test]
    fn bad_bodies_are_refused() {
        for body in [&b""[..], b"{", b"{\"a\": NaN}", b"\xff"] {
            assert_eq!(format(body).unwrap_err().msg, "Malformed JSON");
        }
        for body in [&b"[1]"[..], b"\"s\"", b"3", b"null"] {
            assert_eq!(format(body).unwrap_err().msg, "payload is not a dict");
        }
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        let deep = format!("{{\"a\": {deep}}}");
        assert_eq!(format(deep.as_bytes()).unwrap_err().msg, "Malformed JSON");
    }
}
