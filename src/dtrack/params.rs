//! Request input as upstream reads it: query parameters, form and JSON bodies, UUID checks,
//! Alpine's pagination and sorting rules, and trimmed strings.
//!
//! Produces typed values or a [`Fail`] with upstream's 400 body. Must not touch the database.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::respond::{Fail, Violation};

/// Decoded query (or form) parameters in order.
pub struct Query(Vec<(String, String)>);

impl Query {
    pub fn parse(raw: &str) -> Query {
        Query(
            form_urlencoded::parse(raw.as_bytes())
                .into_owned()
                .collect(),
        )
    }

    /// The first value of a parameter.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The first non-blank value among aliases, as Alpine's `ApiFilter`.
    fn first_non_blank(&self, names: &[&str]) -> Option<&str> {
        names
            .iter()
            .filter_map(|n| self.get(n))
            .find(|v| !v.trim().is_empty())
    }

    /// Alpine's filter text (`filter` or `searchText`).
    pub fn search(&self) -> Option<&str> {
        self.first_non_blank(&["filter", "searchText"])
    }

    /// A primitive boolean query parameter: `true` in any case, everything else false.
    pub fn flag(&self, name: &str) -> bool {
        self.get(name)
            .is_some_and(|v| v.eq_ignore_ascii_case("true"))
    }

    /// The range of a paginated listing.
    pub fn page(&self) -> Page {
        let num = |s: Option<&str>| s.and_then(|v| v.trim().parse::<i64>().ok());
        let size = self.first_non_blank(&["size", "pageSize", "limit"]);
        if let Some(offset) = self.first_non_blank(&["offset"]) {
            let limit = num(size).unwrap_or(100);
            return Page {
                offset: num(Some(offset)).unwrap_or(0),
                limit: (limit > 0).then_some(limit),
            };
        }
        let page = self.first_non_blank(&["page", "pageNumber"]);
        if let (Some(p), Some(s)) = (page, size) {
            let p = num(Some(p)).unwrap_or(1);
            let s = num(Some(s)).unwrap_or(100);
            return Page {
                // Saturating: a page far beyond any data is simply empty.
                offset: p.saturating_mul(s).saturating_sub(s),
                limit: (s > 0).then_some(s),
            };
        }
        Page {
            offset: 0,
            limit: Some(100),
        }
    }

    /// The requested ordering: `(field, descending)`; `Some((field, None))` when a field is
    /// named without a valid direction (upstream then applies no ordering at all).
    pub fn sort(&self) -> Option<(String, Option<bool>)> {
        let name = self.first_non_blank(&["orderBy", "sortName"])?;
        if !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_.-+".contains(&b))
        {
            return None;
        }
        let dir = self.first_non_blank(&["sort", "sortOrder"]).and_then(|d| {
            match d.to_ascii_lowercase().as_str() {
                "asc" => Some(false),
                "desc" => Some(true),
                _ => None,
            }
        });
        Some((name.to_string(), dir))
    }
}

/// An offset and an optional limit (`None` = all rows).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Page {
    pub offset: i64,
    pub limit: Option<i64>,
}

fn hex(s: &[u8]) -> bool {
    s.iter()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
}

/// Lower-case `8-4-4-4-12` hex (request-body patterns and Alpine's UUID regex).
pub fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && [8, 13, 18, 23].iter().all(|&i| b[i] == b'-')
        && hex(&b[0..8])
        && hex(&b[9..13])
        && hex(&b[14..18])
        && hex(&b[19..23])
        && hex(&b[24..36])
}

/// `@ValidUuid`: lower-case, RFC version 1–5 and RFC variant.
pub fn is_valid_uuid(s: &str) -> bool {
    is_uuid(s) && (b'1'..=b'5').contains(&s.as_bytes()[14]) && b"89ab".contains(&s.as_bytes()[19])
}

/// Checks `@ValidUuid` path/query parameters; `path` is `<javaMethod>.arg<N>` as upstream.
pub fn valid_uuids(args: &[(&str, &str)]) -> Result<(), Fail> {
    let bad: Vec<Violation> = args
        .iter()
        .filter(|(v, _)| !is_valid_uuid(v))
        .map(|(v, path)| Violation {
            message: "Invalid UUID".into(),
            template: "Invalid UUID".into(),
            path: (*path).to_string(),
            invalid: Value::from(*v),
        })
        .collect();
    if bad.is_empty() {
        Ok(())
    } else {
        Err(Fail::Validation(bad))
    }
}

/// Parses a JSON request body; anything Jackson could not map is a problem+json 400.
///
/// Every body is an object: serde would also map a JSON array onto a struct's fields in order,
/// which Jackson refuses, so a top-level array is refused here.
pub fn json_body<T: DeserializeOwned>(body: &[u8]) -> Result<T, Fail> {
    if body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
        return Err(Fail::Problem {
            title: "The provided JSON payload could not be mapped",
            detail: "Cannot deserialize an object from an array value".into(),
        });
    }
    serde_json::from_slice(body).map_err(|e| Fail::Problem {
        title: "The provided JSON payload could not be mapped",
        detail: e.to_string(),
    })
}

/// Alpine's `TrimmedStringDeserializer`: trimmed, blank becomes absent.
pub fn trimmed(s: Option<String>) -> Option<String> {
    s.map(|v| v.trim().to_string()).filter(|v| !v.is_empty())
}

/// Upstream's `PRINTABLE_CHARS_PLUS`: letters, marks, symbols, numbers, punctuation, white
/// space. Rust's char classes approximate the Unicode categories: control characters other
/// than white space are the ones refused.
pub fn printable(s: &str) -> bool {
    s.chars().all(|c| !c.is_control() || c.is_whitespace())
}

/// `@Pattern(PRINTABLE_CHARS)` on request-body properties: one violation per property (named
/// by `path`) whose value holds a control character other than white space.
pub fn check_printable(fields: &[(&str, Option<&str>)]) -> Result<(), Fail> {
    let bad: Vec<Violation> = fields
        .iter()
        .filter_map(|(path, v)| v.filter(|v| !printable(v)).map(|v| (path, v)))
        .map(|(path, v)| {
            let field = path.rsplit('.').next().unwrap_or(path);
            let msg = format!("The {field} may only contain printable characters");
            Violation {
                message: msg.clone(),
                template: msg,
                path: (*path).to_string(),
                invalid: Value::from(v),
            }
        })
        .collect();
    if bad.is_empty() {
        Ok(())
    } else {
        Err(Fail::Validation(bad))
    }
}

/// A bean-validation violation of a request-body property.
pub fn violation(message: &str, template: &str, path: &str, invalid: Value) -> Fail {
    Fail::Validation(vec![Violation {
        message: message.into(),
        template: template.into(),
        path: path.into(),
        invalid,
    }])
}

/// `@NotBlank`, `@Size(max = 255)` and "no control characters" on a name property.
pub fn check_name(name: Option<&str>, path: &str) -> Result<String, Fail> {
    let Some(n) = name.filter(|n| !n.trim().is_empty()) else {
        return Err(violation(
            "must not be blank",
            "{jakarta.validation.constraints.NotBlank.message}",
            path,
            name.map(Value::from).unwrap_or(Value::Null),
        ));
    };
    if n.chars().count() > 255 {
        return Err(violation(
            "size must be between 1 and 255",
            "{jakarta.validation.constraints.Size.message}",
            path,
            Value::from(n),
        ));
    }
    if n.chars().any(char::is_control) {
        return Err(violation(
            "The name must not contain control characters",
            "The name must not contain control characters",
            path,
            Value::from(n),
        ));
    }
    Ok(n.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pagination_follows_alpine() {
        let p = |q: &str| Query::parse(q).page();
        assert_eq!(
            p(""),
            Page {
                offset: 0,
                limit: Some(100)
            }
        );
        assert_eq!(
            p("pageSize=10"),
            Page {
                offset: 0,
                limit: Some(100)
            }
        );
        assert_eq!(
            p("pageNumber=3&pageSize=10"),
            Page {
                offset: 20,
                limit: Some(10)
            }
        );
        assert_eq!(
            p("offset=5&limit=2"),
            Page {
                offset: 5,
                limit: Some(2)
            }
        );
        assert_eq!(
            p("offset=5"),
            Page {
                offset: 5,
                limit: Some(100)
            }
        );
        assert_eq!(
            p("offset=x&limit=0"),
            Page {
                offset: 0,
                limit: None
            }
        );
    }

    #[test]
    fn huge_pages_do_not_overflow() {
        let p = Query::parse("pageNumber=9223372036854775807&pageSize=9223372036854775807").page();
        assert_eq!(p.offset, 0);
        let p = Query::parse("pageNumber=-9223372036854775808&pageSize=2").page();
        assert_eq!(p.offset, i64::MIN);
    }

    #[test]
    fn uuid_forms() {
        assert!(is_valid_uuid("0f8fad5b-d9cb-469f-a165-70867728950e"));
        assert!(!is_valid_uuid("0F8FAD5B-D9CB-469F-A165-70867728950E"));
        assert!(!is_valid_uuid("0f8fad5b-d9cb-769f-a165-70867728950e"));
        assert!(is_uuid("0f8fad5b-d9cb-769f-0165-70867728950e"));
        assert!(!is_uuid("CVE-2018-8088"));
    }

    #[test]
    fn sort_needs_a_clean_name() {
        let q = Query::parse("sortName=name&sortOrder=DESC");
        assert_eq!(q.sort(), Some(("name".into(), Some(true))));
        assert_eq!(Query::parse("sortName=na%20me").sort(), None);
        assert_eq!(
            Query::parse("sortName=version").sort(),
            Some(("version".into(), None))
        );
    }
}
