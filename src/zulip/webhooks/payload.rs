//! Reading an untrusted webhook payload (parsed JSON) field by field, with upstream's error
//! for each way a field can be wrong (`zerver/lib/validator.py`'s `WildValue`): a missing key
//! is "payload['blocks'][0]['type'] is missing", a wrong type "... is not a string", a value
//! outside a set "Invalid ...". Every error is a 400 `BAD_REQUEST` and names the path.
//!
//! Pure: no SQL, no HTTP. Paths are built only when a value is read, one level at a time by
//! the caller's own (fixed-depth) code: nothing here walks nesting on its own.

use serde_json::Value;

use crate::error::{Error, Result};

/// A value of the payload and the path that names it in errors.
#[derive(Clone, Debug)]
pub struct Field<'a> {
    pub value: &'a Value,
    pub path: String,
}

fn err(msg: String) -> Error {
    Error::bad_request(msg)
}

/// Python's truthiness of a JSON value (what upstream's `if payload.get(...)` tests).
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

impl<'a> Field<'a> {
    /// The whole payload, named `payload`.
    pub fn root(value: &'a Value) -> Field<'a> {
        Field {
            value,
            path: "payload".into(),
        }
    }

    fn object(&self) -> Result<&'a serde_json::Map<String, Value>> {
        self.value
            .as_object()
            .ok_or_else(|| err(format!("{} is not a dict", self.path)))
    }

    fn child(&self, key: &str, value: &'a Value) -> Field<'a> {
        Field {
            value,
            path: format!("{}['{key}']", self.path),
        }
    }

    /// Whether this object has `key` (an error if this is not an object).
    pub fn has(&self, key: &str) -> Result<bool> {
        Ok(self.object()?.contains_key(key))
    }

    /// `key` of this object, which must be present.
    pub fn get(&self, key: &str) -> Result<Field<'a>> {
        match self.object()?.get(key) {
            Some(v) => Ok(self.child(key, v)),
            None => Err(err(format!("{}['{key}'] is missing", self.path))),
        }
    }

    /// `key` of this object when it is present and truthy (upstream's `if x.get(key):`).
    pub fn truthy(&self, key: &str) -> Result<Option<Field<'a>>> {
        Ok(self
            .object()?
            .get(key)
            .filter(|v| truthy(v))
            .map(|v| self.child(key, v)))
    }

    pub fn str(&self) -> Result<&'a str> {
        self.value
            .as_str()
            .ok_or_else(|| err(format!("{} is not a string", self.path)))
    }

    /// A string among `allowed`.
    pub fn one_of(&self, allowed: &[&str]) -> Result<&'a str> {
        let s = self.str()?;
        if allowed.contains(&s) {
            Ok(s)
        } else {
            Err(err(format!("Invalid {}", self.path)))
        }
    }

    /// An integer (JSON booleans and fractions are not).
    pub fn int(&self) -> Result<i128> {
        let n = self.value.as_number();
        n.and_then(|n| {
            n.as_i64()
                .map(i128::from)
                .or_else(|| n.as_u64().map(i128::from))
        })
        .ok_or_else(|| err(format!("{} is not an integer", self.path)))
    }

    /// An absolute `http`, `https`, `ftp` or `ftps` URL with a host, without white space.
    pub fn url(&self) -> Result<&'a str> {
        let s = self.str()?;
        if is_url(s) {
            Ok(s)
        } else {
            Err(err(format!("{} is not a URL", self.path)))
        }
    }

    /// The elements of this list, each with its path.
    pub fn items(&self) -> Result<Vec<Field<'a>>> {
        let list = self
            .value
            .as_array()
            .ok_or_else(|| err(format!("{} is not a list", self.path)))?;
        Ok(list
            .iter()
            .enumerate()
            .map(|(i, value)| Field {
                value,
                path: format!("{}[{i}]", self.path),
            })
            .collect())
    }

    /// A text object (`{"type": "plain_text" | "mrkdwn", "text": ...}`, only `plain_text`
    /// when `plain_only`): its text.
    pub fn text_object(&self, plain_only: bool) -> Result<&'a str> {
        let obj = self.object()?;
        for key in ["type", "text"] {
            if !obj.contains_key(key) {
                return Err(err(format!("{key} key is missing from {}", self.path)));
            }
        }
        let kind = Field {
            value: &obj["type"],
            path: format!("{}[\"type\"]", self.path),
        };
        let allowed: &[&str] = if plain_only {
            &["plain_text"]
        } else {
            &["plain_text", "mrkdwn"]
        };
        kind.one_of(allowed)?;
        Field {
            value: &obj["text"],
            path: format!("{}[\"text\"]", self.path),
        }
        .str()
    }
}

/// Whether `s` is an absolute URL as upstream's URL check accepts them (schemes `http`,
/// `https`, `ftp`, `ftps`; a non-empty host; no white space).
fn is_url(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once("://") else {
        return false;
    };
    let scheme_ok = ["http", "https", "ftp", "ftps"]
        .iter()
        .any(|k| k.eq_ignore_ascii_case(scheme));
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = host.rsplit('@').next().unwrap_or("");
    scheme_ok && !host.is_empty() && !s.chars().any(char::is_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn errors_name_the_path_as_upstream_does() {
        let v = json!({"blocks": [{"type": 3, "text": {"type": "x"}}], "n": null});
        let root = Field::root(&v);
        let block = &root.get("blocks").unwrap().items().unwrap()[0];
        assert_eq!(
            block.get("type").unwrap().str().unwrap_err().msg,
            "payload['blocks'][0]['type'] is not a string"
        );
        assert_eq!(
            block.get("kind").unwrap_err().msg,
            "payload['blocks'][0]['kind'] is missing"
        );
        assert_eq!(
            block
                .get("text")
                .unwrap()
                .text_object(false)
                .unwrap_err()
                .msg,
            "text key is missing from payload['blocks'][0]['text']"
        );
        assert_eq!(
            root.get("n").unwrap().items().unwrap_err().msg,
            "payload['n'] is not a list"
        );
        assert!(root.truthy("n").unwrap().is_none());
        let s = json!("x");
        assert_eq!(
            Field::root(&s).has("a").unwrap_err().msg,
            "payload is not a dict"
        );
    }

    #[test]
    fn urls_need_a_known_scheme_and_a_host() {
        assert!(is_url("https://example.com/a b".split(' ').next().unwrap()));
        assert!(is_url("HTTP://host"));
        assert!(is_url("ftp://user@host/x"));
        for bad in [
            "/relative",
            "https://",
            "mailto:x@y",
            "https://a b",
            "javascript://x",
        ] {
            assert!(!is_url(bad), "{bad}");
        }
    }

    #[test]
    fn truthiness_follows_python() {
        for (v, t) in [
            (json!(null), false),
            (json!(0), false),
            (json!(0.0), false),
            (json!(""), false),
            (json!([]), false),
            (json!({}), false),
            (json!(false), false),
            (json!(1), true),
            (json!("a"), true),
            (json!([0]), true),
        ] {
            assert_eq!(truthy(&v), t, "{v}");
        }
    }
}
