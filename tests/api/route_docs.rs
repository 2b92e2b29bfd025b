//! The API coverage page (`packaging/api-coverage.md`) against the route tables: every endpoint
//! its tables name is one the server routes (an API row, or a page of the chat listener), and its "Every route" section is exactly the list
//! the route tables give (one line per row), so the page cannot claim an endpoint we do not
//! serve nor miss one we do.

use std::path::Path;

use hyper::Method;

fn page() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("packaging/api-coverage.md");
    std::fs::read_to_string(path).expect("packaging/api-coverage.md")
}

const SECTION: &str = "## Every route";

/// The "Every route" section as the route tables give it.
fn rendered() -> String {
    let mut out = String::new();
    out.push_str("Chat API, under `/api/v1/` (and `/json/` for the browser client):\n\n");
    for (method, path) in outpost::zulip::SAMPLE_ROUTES {
        out.push_str(&format!("- `{method} /{path}`\n"));
    }
    out.push_str("\nDependency-Track API, under `/api/`:\n\n");
    for (method, path) in outpost::dtrack::SAMPLE_ROUTES {
        out.push_str(&format!("- `{method} /{path}`\n"));
    }
    out
}

/// `(method, path)` of every backticked `METHOD[/METHOD…] /path` in the page's tables (rows
/// starting with `|`); paths with `...` are abbreviations and skipped.
fn named_endpoints(page: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in page.lines().filter(|l| l.starts_with('|')) {
        for span in line.split('`').skip(1).step_by(2) {
            let Some((methods, path)) = span.split_once(' ') else {
                continue;
            };
            if !path.starts_with('/') || path.contains("...") || path.contains(' ') {
                continue;
            }
            let methods: Vec<&str> = methods.split('/').collect();
            if !methods
                .iter()
                .all(|m| ["GET", "POST", "PUT", "PATCH", "DELETE"].contains(m))
            {
                continue;
            }
            for m in methods {
                out.push((m.to_string(), path.to_string()));
            }
        }
    }
    out
}

fn segments(path: &str) -> Vec<String> {
    path.trim_matches('/')
        .split('/')
        .map(|s| {
            if s.starts_with('{') && s.ends_with('}') {
                // A placeholder: a value every capture type accepts.
                if s.contains("uuid") || s == "{t}" || s == "{p}" {
                    "3f2c6a2e-8b1d-4c7e-9a41-2d5e6f708192".to_string()
                } else {
                    "7".to_string()
                }
            } else {
                s.to_string()
            }
        })
        .collect()
}

#[test]
fn every_endpoint_the_coverage_tables_name_is_routed() {
    let page = page();
    let named = named_endpoints(&page);
    assert!(
        named.len() > 100,
        "the page's tables name {} endpoints",
        named.len()
    );
    let mut problems = Vec::new();
    for (method, path) in &named {
        let m: Method = method.parse().unwrap();
        let segs = segments(path);
        let routed = if path.starts_with("/v1/") || path == "/version" {
            outpost::dtrack::route(&m, &segs).is_ok()
        } else {
            outpost::zulip::route(&m, &segs).is_ok()
                || matches!(
                    outpost::listeners::chat::pages::route(&m, path),
                    Some(Ok(_))
                )
        };
        if !routed {
            problems.push(format!("{method} {path}"));
        }
    }
    assert!(
        problems.is_empty(),
        "packaging/api-coverage.md names endpoints the route tables do not serve:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_every_route_section_is_the_route_tables() {
    let page = page();
    let at = page
        .find(SECTION)
        .expect("packaging/api-coverage.md has an \"Every route\" section");
    let body = &page[at + SECTION.len()..];
    let body = body[..body.find("\n## ").unwrap_or(body.len())].trim();
    let intro = "Generated from the route tables (`zulip::routes`, `dtrack::routes`); \
                 `tests/api/route_docs.rs` checks it.";
    let expected = format!("{intro}\n\n{}", rendered().trim());
    assert!(
        body == expected,
        "the \"Every route\" section of packaging/api-coverage.md is not the route tables; \
         replace it with:\n\n{SECTION}\n\n{expected}\n"
    );
}

#[test]
fn the_page_reader_sees_what_it_looks_for() {
    let named = named_endpoints(
        "| `GET/POST /users/me/x`, `GET /a/.../b`, `PATCH /v1/p/{uuid}` and `not code` | done |\n\
         `GET /outside/a/table`\n",
    );
    assert_eq!(
        named,
        [
            ("GET".to_string(), "/users/me/x".to_string()),
            ("POST".into(), "/users/me/x".into()),
            ("PATCH".into(), "/v1/p/{uuid}".into()),
        ]
    );
    // A path no table serves is caught.
    assert!(outpost::zulip::route(&Method::GET, &segments("/no/such/endpoint")).is_err());
    assert!(outpost::zulip::route(&Method::GET, &segments("/users/{user_id}")).is_ok());
}
