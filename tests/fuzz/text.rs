//! Chat-side inputs: request parameters, narrows, Markdown and Basic-auth headers.

use std::net::SocketAddr;

use base64::Engine as _;
use proptest::prelude::*;
use serde_json::Value;

use outpost::markdown::{Lookup, MentionChannel, MentionGroup, MentionUser};
use outpost::zulip::params::RawParams;

use crate::fuzz;

/// Arbitrary JSON, a few levels deep, with the strings narrows and BOMs care about.
pub fn json_value(words: &'static [&'static str]) -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        proptest::sample::select(words).prop_map(Value::from),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 8, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            proptest::collection::vec(
                (
                    proptest::sample::select(words).prop_map(str::to_string),
                    inner
                ),
                0..8
            )
            .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// Text made of fragments that mean something to the parser, glued with arbitrary text.
pub fn fragments(parts: &'static [&'static str], max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            4 => proptest::sample::select(parts).prop_map(str::to_string),
            1 => any::<String>(),
            1 => "[a-z0-9 ]{0,12}",
        ],
        0..max,
    )
    .prop_map(|v| v.concat())
}

fn request(method: &str, uri: &str, content_type: &str, body: Vec<u8>) -> outpost::http::Request {
    let (parts, ()) = hyper::Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", content_type)
        .body(())
        .unwrap()
        .into_parts();
    outpost::http::Request {
        parts,
        body: body.into(),
        id: 1,
        peer: SocketAddr::from(([127, 0, 0, 1], 1)),
    }
}

const FORM_BITS: &[&str] = &[
    "&", "=", "%", "%2", "%FF", "%C3%A9", "%00", "+", "a", "b", "content", "to", "topic", "&&",
    "==", "%zz", "é", "\u{0}",
];

#[test]
fn params_decode_any_query_and_body() {
    fuzz(
        "params",
        (
            fragments(FORM_BITS, 40),
            fragments(FORM_BITS, 40),
            prop_oneof![
                Just("application/x-www-form-urlencoded"),
                Just("application/x-www-form-urlencoded; charset=utf-8"),
                Just("multipart/form-data; boundary=xyz"),
                Just("multipart/form-data"),
                Just("text/plain"),
            ],
            1usize..50,
        ),
        |(query, body, ctype, max)| {
            let query: String = form_urlencoded::byte_serialize(query.as_bytes()).collect();
            let uri = format!("/api/v1/messages?q={query}");
            let req = request("POST", &uri, ctype, body.into_bytes());
            if let Err(e) = RawParams::of(&req).parse(max) {
                prop_assert!(!e.msg.is_empty());
            }
            Ok(())
        },
    );
}

#[test]
fn params_round_trip_distinct_names() {
    fuzz(
        "params round trip",
        proptest::collection::btree_map(any::<String>(), any::<String>(), 0..30),
        |fields| {
            let mut ser = form_urlencoded::Serializer::new(String::new());
            for (k, v) in &fields {
                ser.append_pair(k, v);
            }
            let body = ser.finish();
            let req = request(
                "POST",
                "/api/v1/messages",
                "application/x-www-form-urlencoded",
                body.into_bytes(),
            );
            let mut p = RawParams::of(&req).parse(1000).map_err(|e| {
                TestCaseError::fail(format!("rejected a well-formed form: {}", e.msg))
            })?;
            for (k, v) in &fields {
                prop_assert_eq!(p.str(k), Some(v.clone()));
            }
            prop_assert!(p.unused().is_empty());
            Ok(())
        },
    );
}

const NARROW_WORDS: &[&str] = &[
    "operator",
    "operand",
    "negated",
    "channel",
    "stream",
    "topic",
    "subject",
    "search",
    "dm",
    "pm-with",
    "is",
    "sender",
    "id",
    "near",
    "has",
    "in",
    "with",
    "dm-including",
    "group-pm-with",
    "channels",
    "streams",
    "private",
    "starred",
    "mentioned",
    "unread",
    "link",
    "attachment",
    "image",
    "reaction",
    "home",
    "all",
    "public",
    "web-public",
];

#[test]
fn narrows_parse_or_explain() {
    fuzz(
        "narrow",
        prop_oneof![
            json_value(NARROW_WORDS),
            proptest::collection::vec(
                (
                    proptest::sample::select(NARROW_WORDS),
                    json_value(NARROW_WORDS),
                    any::<bool>()
                ),
                0..120
            )
            .prop_map(|terms| {
                Value::Array(
                    terms
                        .into_iter()
                        .map(|(op, operand, negated)| {
                            serde_json::json!({"operator": op, "operand": operand, "negated": negated})
                        })
                        .collect(),
                )
            }),
        ],
        |v| {
            match outpost::domain::messages::narrow::parse(&v) {
                Ok(n) => prop_assert!(n.terms.len() <= 100),
                Err(e) => prop_assert!(!e.msg.is_empty()),
            }
            Ok(())
        },
    );
}

/// A realm where every name resolves, so mention and link paths run.
struct Everything;

impl Lookup for Everything {
    fn users_by_name(&self, name: &str) -> Vec<MentionUser> {
        vec![MentionUser {
            id: name.len() as i64,
            full_name: name.to_string(),
        }]
    }
    fn user_by_id(&self, id: i64) -> Option<MentionUser> {
        Some(MentionUser {
            id,
            full_name: format!("User {id}"),
        })
    }
    fn group_by_name(&self, name: &str) -> Option<MentionGroup> {
        Some(MentionGroup {
            id: 7,
            name: name.to_string(),
        })
    }
    fn channel_by_name(&self, name: &str) -> Option<MentionChannel> {
        Some(MentionChannel {
            id: 3,
            name: name.to_string(),
        })
    }
    fn realm_url(&self) -> Option<String> {
        Some("https://chat.example.com".into())
    }
}

const MARKDOWN_BITS: &[&str] = &[
    "\n",
    "\n\n",
    " ",
    "    ",
    "\t",
    "*",
    "**",
    "_",
    "__",
    "~~",
    "`",
    "```",
    "```python\n",
    "~~~",
    "```math\n",
    "```quote\n",
    "```spoiler title\n",
    "> ",
    ">>",
    "# ",
    "###### ",
    "- ",
    "* ",
    "1. ",
    "99999999999. ",
    "[",
    "]",
    "(",
    ")",
    "![",
    "<",
    ">",
    "&",
    "&amp;",
    "&#x0;",
    "\\",
    "@**",
    "@_**",
    "@*",
    "*@",
    "|",
    "#**",
    ">",
    "**|",
    "@**all**",
    ":smile:",
    ":",
    "$$",
    "$$$$",
    "<time:",
    "2024-01-01T00:00:00Z",
    "https://",
    "http://x.y/",
    "www.example.com",
    "/user_uploads/1/ab/c.png",
    "#narrow/channel/1-x",
    "/me ",
    "| a | b |\n|---|---|\n",
    "<script>",
    "javascript:",
    "\u{200b}",
    "é",
    "\r\n",
    "---\n",
    "***",
    "[x]: http://y\n",
];

#[test]
fn markdown_renders_anything() {
    // Warm the once-per-process caches (syntax sets, emoji tables) outside the measurement.
    outpost::markdown::render_message("```rust\nfn x() {}\n```\n:smile: @**a**", &Everything);
    fuzz(
        "markdown",
        prop_oneof![
            fragments(MARKDOWN_BITS, 200),
            // Deep nesting of one construct: quotes, lists, emphasis, brackets.
            (
                proptest::sample::select(&["> ", "- ", "  - ", "*", "[", "(", "```\n", "1. "][..]),
                0usize..3000
            )
                .prop_map(|(s, n)| format!("{}x", s.repeat(n))),
        ],
        |text| {
            let r = outpost::markdown::render_message(&text, &Everything);
            prop_assert!(
                r.html.len() <= 64 * text.len() + 1024,
                "html {} bytes",
                r.html.len()
            );
            prop_assert!(!r.html.contains("<script"), "unescaped script tag");
            Ok(())
        },
    );
}

#[test]
fn basic_auth_headers_parse_or_refuse() {
    let b64 = |s: &[u8]| base64::engine::general_purpose::STANDARD.encode(s);
    fuzz(
        "basic auth",
        prop_oneof![
            any::<Vec<u8>>(),
            (
                fragments(&["Basic", "basic", " ", "\t", "Bearer", "\u{a0}", "="], 6),
                any::<Vec<u8>>()
            )
                .prop_map(move |(scheme, creds)| format!("{scheme} {}", b64(&creds)).into_bytes()),
        ],
        |raw| {
            match outpost::zulip::auth::parse_basic(&raw) {
                Ok((email, key)) => {
                    prop_assert!(!email.contains(':') && !key.contains(':'));
                    prop_assert_eq!(email.trim(), email.as_str());
                }
                Err(e) => prop_assert!(!e.msg.is_empty()),
            }
            Ok(())
        },
    );
    fuzz(
        "basic auth round trip",
        ("[^:\\s]{0,40}", "[^:\\s]{0,40}"),
        |(email, key)| {
            let header = format!("Basic {}", b64(format!("{email}:{key}").as_bytes()));
            let got = outpost::zulip::auth::parse_basic(header.as_bytes())
                .map_err(|e| TestCaseError::fail(e.msg.to_string()))?;
            prop_assert_eq!(got, (email, key));
            Ok(())
        },
    );
}
