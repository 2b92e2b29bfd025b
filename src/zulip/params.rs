//! Zulip request parameters: query string plus form body, with Zulip's parsing rules.
//!
//! Parameters travel in the query string and, for every method but GET and HEAD, in an
//! `application/x-www-form-urlencoded` or `multipart/form-data` body (read alike: the same
//! duplicate, count and UTF-8 rules; file parts are not parameters). Plain parameters are raw strings; list, object,
//! boolean and integer parameters are JSON text inside the field, parsed strictly with Zulip's
//! error messages. Every name a handler reads is marked used, so the envelope can report the
//! rest in `ignored_parameters_unsupported`. Must not know about any endpoint.

use std::collections::HashSet;

use serde_json::Value;

use crate::error::{Error, ErrorKind, Result};
use crate::http::Request;
use crate::http::multipart::{self, MultipartError};

/// The parameters of one request.
#[derive(Debug, Default)]
pub struct Params {
    entries: Vec<(String, String, bool)>,
}

/// The raw parameter sources of a request, owned, so decoding can move to another thread.
pub struct RawParams {
    query: String,
    body: Body,
}

/// A request body as a parameter source.
enum Body {
    /// No body Zulip reads parameters from.
    None,
    /// `application/x-www-form-urlencoded`.
    Form(bytes::Bytes),
    /// `multipart/form-data` with its boundary (`None`: the content type has no usable one).
    Multipart(bytes::Bytes, Option<String>),
}

fn too_many(max: usize) -> Error {
    Error::bad_request(format!("Too many parameters (at most {max} are accepted)"))
}

fn not_utf8() -> Error {
    Error::bad_request("Request parameters are not valid UTF-8")
}

impl RawParams {
    pub fn of(req: &Request) -> RawParams {
        let content_type = req.header("content-type").unwrap_or("");
        let is_form = content_type
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .eq_ignore_ascii_case("application/x-www-form-urlencoded");
        let reads_body = !matches!(*req.method(), hyper::Method::GET | hyper::Method::HEAD)
            && !req.body.is_empty();
        let body = if !reads_body {
            Body::None
        } else if is_form {
            Body::Form(req.body.clone())
        } else if multipart::is_multipart(content_type) {
            Body::Multipart(req.body.clone(), multipart::boundary(content_type))
        } else {
            Body::None
        };
        RawParams {
            query: req.query().to_string(),
            body,
        }
    }

    /// Decodes every parameter in one pass: linear in the input, at most `max` of them.
    /// Multipart fields count like form fields; file parts are not parameters (no endpoint
    /// takes uploads), but count towards the limit on parts read.
    pub fn parse(&self, max: usize) -> Result<Params> {
        let mut entries: Vec<(String, String, bool)> = Vec::new();
        // Repeats are found by comparing names while there are few (the usual request), and
        // through a set of every name from the `FEW`th on, so many parameters stay linear.
        const FEW: usize = 16;
        let mut seen: HashSet<String> = HashSet::new();
        let mut add = |k: String, v: String| -> Result<()> {
            if entries.len() >= max {
                return Err(too_many(max));
            }
            let repeated = if entries.len() < FEW {
                entries.iter().any(|(n, _, _)| *n == k)
            } else {
                if seen.is_empty() {
                    seen.extend(entries.iter().map(|(n, _, _)| n.clone()));
                }
                !seen.insert(k.clone())
            };
            if repeated {
                return Err(Error::bad_request(format!(
                    "Parameter '{k}' was given more than once"
                )));
            }
            entries.push((k, v, false));
            Ok(())
        };
        decode_form(self.query.as_bytes(), &mut add)?;
        match &self.body {
            Body::None => {}
            Body::Form(form) => decode_form(form, &mut add)?,
            Body::Multipart(body, boundary) => {
                let malformed = || Error::bad_request("Malformed multipart/form-data body");
                let boundary = boundary.as_deref().ok_or_else(malformed)?;
                let parts = multipart::parse_limited(body, boundary, max).map_err(|e| match e {
                    MultipartError::TooManyParts => too_many(max),
                    MultipartError::Malformed => malformed(),
                })?;
                for part in parts.into_iter().filter(|p| p.filename.is_none()) {
                    add(
                        part.name,
                        String::from_utf8(part.data).map_err(|_| not_utf8())?,
                    )?;
                }
            }
        }
        Ok(Params { entries })
    }
}

impl Params {
    /// Parameters from one form-encoded string: a request the server makes itself on a
    /// client's behalf (the web client's page carries its register answer).
    pub fn from_form(form: &str, max: usize) -> Result<Params> {
        RawParams {
            query: form.to_string(),
            body: Body::None,
        }
        .parse(max)
    }

    /// Collects query and body parameters. Repeated names, more than `max` parameters and
    /// undecodable text are errors.
    pub fn from_request(req: &Request, max: usize) -> Result<Params> {
        RawParams::of(req).parse(max)
    }

    #[cfg(test)]
    fn from_pairs(pairs: &[(&str, &str)]) -> Params {
        Params {
            entries: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string(), false))
                .collect(),
        }
    }

    /// Whether the request has this parameter (without marking it used).
    pub fn has(&self, name: &str) -> bool {
        self.entries.iter().any(|(n, _, _)| n == name)
    }

    /// A raw string parameter, marking it used.
    pub fn str(&mut self, name: &str) -> Option<String> {
        self.entries
            .iter_mut()
            .find(|(n, _, _)| n == name)
            .map(|(_, v, used)| {
                *used = true;
                v.clone()
            })
    }

    pub fn required_str(&mut self, name: &str) -> Result<String> {
        self.str(name).ok_or_else(|| Error::missing(name))
    }

    /// A parameter with a legacy alias (`topic`/`subject`): both given is an error.
    pub fn aliased_str(&mut self, name: &str, alias: &str) -> Result<Option<String>> {
        let a = self.str(name);
        let b = self.str(alias);
        match (a, b) {
            (Some(_), Some(_)) => Err(Error::new(
                ErrorKind::ConfusingParams(name.to_string(), alias.to_string()),
                format!("Can't decide between '{name}' and '{alias}' arguments"),
            )),
            (a, b) => Ok(a.or(b)),
        }
    }

    /// A JSON-encoded parameter as a JSON value.
    pub fn json(&mut self, name: &str) -> Result<Option<Value>> {
        match self.str(name) {
            None => Ok(None),
            Some(raw) => serde_json::from_str(&raw)
                .map(Some)
                .map_err(|_| Error::bad_request(format!("{name} is not valid JSON"))),
        }
    }

    pub fn required_json(&mut self, name: &str) -> Result<Value> {
        self.json(name)?.ok_or_else(|| Error::missing(name))
    }

    pub fn bool(&mut self, name: &str) -> Result<Option<bool>> {
        match self.json(name)? {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(b)),
            Some(_) => Err(Error::bad_request(format!("{name} is not a boolean"))),
        }
    }

    pub fn int(&mut self, name: &str) -> Result<Option<i64>> {
        match self.json(name)? {
            None => Ok(None),
            Some(v) => as_int(&v)
                .map(Some)
                .ok_or_else(|| Error::bad_request(format!("{name} is not an integer"))),
        }
    }

    pub fn required_int(&mut self, name: &str) -> Result<i64> {
        self.int(name)?.ok_or_else(|| Error::missing(name))
    }

    /// Names that were sent but never read, sorted: `ignored_parameters_unsupported`.
    pub fn unused(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .entries
            .iter()
            .filter(|(_, _, used)| !used)
            .map(|(n, _, _)| n.clone())
            .collect();
        names.sort();
        names
    }
}

/// A JSON integer (not a float, not a string).
pub fn as_int(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) if n.is_i64() => n.as_i64(),
        _ => None,
    }
}

/// Decodes `a=1&b=%20x` into pairs handed to `add`; invalid UTF-8 after decoding is an error.
fn decode_form(raw: &[u8], add: &mut impl FnMut(String, String) -> Result<()>) -> Result<()> {
    for piece in raw.split(|b| *b == b'&') {
        if piece.is_empty() {
            continue;
        }
        let (k, v) = match piece.iter().position(|b| *b == b'=') {
            Some(i) => (&piece[..i], &piece[i + 1..]),
            None => (piece, &b""[..]),
        };
        add(percent_decode(k)?, percent_decode(v)?)?;
    }
    Ok(())
}

fn percent_decode(s: &[u8]) -> Result<String> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'+' => out.push(b' '),
            b'%' => match (hex(s.get(i + 1)), hex(s.get(i + 2))) {
                (Some(h), Some(l)) => {
                    out.push(h * 16 + l);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).map_err(|_| not_utf8())
}

fn hex(b: Option<&u8>) -> Option<u8> {
    let b = *b?;
    (b as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(raw: &[u8]) -> Result<Vec<(String, String)>> {
        let mut out = Vec::new();
        decode_form(raw, &mut |k, v| {
            out.push((k, v));
            Ok(())
        })?;
        Ok(out)
    }

    fn raw(query: &str, form: &str) -> RawParams {
        RawParams {
            query: query.to_string(),
            body: Body::Form(bytes::Bytes::from(form.to_string())),
        }
    }

    #[test]
    fn duplicates_and_too_many_parameters_are_refused() {
        let e = raw("a=1", "b=2&a=3").parse(10).unwrap_err();
        assert_eq!(e.msg, "Parameter 'a' was given more than once");
        assert_eq!(
            raw("a=1", "b=2&c=3").parse(3).unwrap().unused(),
            ["a", "b", "c"]
        );
        // Repeats among many parameters, of an early name and of a late one.
        let many: Vec<String> = (0..40).map(|i| format!("p{i}=x")).collect();
        assert_eq!(
            raw("", &many.join("&")).parse(100).unwrap().unused().len(),
            40
        );
        for again in ["p3", "p30"] {
            let form = format!("{}&{again}=y", many.join("&"));
            let e = raw("", &form).parse(100).unwrap_err();
            assert_eq!(
                e.msg,
                format!("Parameter '{again}' was given more than once")
            );
        }
        let e = raw("a=1", "b=2&c=3&d=4").parse(3).unwrap_err();
        assert_eq!(e.msg, "Too many parameters (at most 3 are accepted)");
        // Empty pieces (`&&&`) are no parameters at all.
        assert!(
            raw("", &"&".repeat(100_000))
                .parse(3)
                .unwrap()
                .unused()
                .is_empty()
        );
    }

    #[test]
    fn decodes_percent_and_plus() {
        assert_eq!(
            pairs(b"a=1+2&b=%C3%A9t%C3%A9&c&d=%zz").unwrap(),
            vec![
                ("a".into(), "1 2".into()),
                ("b".into(), "été".into()),
                ("c".into(), "".into()),
                ("d".into(), "%zz".into()),
            ]
        );
        assert!(pairs(b"a=%FF").is_err());
    }

    #[test]
    fn strict_json_scalars() {
        let mut p = Params::from_pairs(&[
            ("t", "true"),
            ("one", "1"),
            ("cap", "True"),
            ("n", "5"),
            ("f", "5.5"),
            ("s", "\"5\""),
        ]);
        assert_eq!(p.bool("t").unwrap(), Some(true));
        assert_eq!(p.bool("one").unwrap_err().msg, "one is not a boolean");
        assert_eq!(p.bool("cap").unwrap_err().msg, "cap is not valid JSON");
        assert_eq!(p.int("n").unwrap(), Some(5));
        assert_eq!(p.int("f").unwrap_err().msg, "f is not an integer");
        assert_eq!(p.int("s").unwrap_err().msg, "s is not an integer");
        assert_eq!(p.bool("absent").unwrap(), None);
    }

    #[test]
    fn unused_names_are_sorted() {
        let mut p = Params::from_pairs(&[("z", "1"), ("a", "2"), ("m", "3")]);
        p.str("m");
        assert_eq!(p.unused(), vec!["a".to_string(), "z".to_string()]);
    }

    #[test]
    fn aliases_conflict() {
        let mut p = Params::from_pairs(&[("topic", "a"), ("subject", "b")]);
        let e = p.aliased_str("topic", "subject").unwrap_err();
        assert_eq!(
            e.kind,
            ErrorKind::ConfusingParams("topic".into(), "subject".into())
        );
        let mut p = Params::from_pairs(&[("subject", "b")]);
        assert_eq!(p.aliased_str("topic", "subject").unwrap(), Some("b".into()));
    }

    #[test]
    fn missing_required_names_the_variable() {
        let mut p = Params::default();
        let e = p.required_str("content").unwrap_err();
        assert_eq!(e.kind, ErrorKind::MissingParam("content".into()));
        assert_eq!(e.msg, "Missing 'content' argument");
    }
}
