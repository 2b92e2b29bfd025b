//! Fenced code as clients see it: upstream's `div.codehilite` with Pygments' short token
//! classes inside for the common languages, plain escaped text for the rest.

use crate::support::{Org, org};

/// Sends `content` as a direct message from Alice to Bob; returns the HTML Bob fetches.
async fn rendered(o: &Org, content: &str) -> String {
    let id = o.send_dm(&o.alice, &[&o.bob], content).await;
    let r = o
        .srv
        .get(&format!("/api/v1/messages/{id}"), &o.bob, &[])
        .await;
    r.assert_success("GET /messages/{message_id}")["message"]["content"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Expected `(class, text)` tokens.
type Spans<'a> = &'a [(&'a str, &'a str)];

fn span(class: &str, text: &str) -> String {
    format!("<span class=\"{class}\">{text}</span>")
}

fn assert_spans(html: &str, want: &[(&str, &str)]) {
    for (class, text) in want {
        let s = span(class, text);
        assert!(html.contains(&s), "missing {s} in {html}");
    }
}

#[tokio::test]
async fn python_renders_as_upstreams_fixture() {
    let o = org().await;
    let html = rendered(
        &o,
        "Hamlet said:\n~~~~.python \ndef speak(self):\n    x = 1\n~~~~",
    )
    .await;
    assert_eq!(
        html,
        "<p>Hamlet said:</p>\n<div class=\"codehilite\" data-code-language=\"Python\"><pre><span></span><code>\
         <span class=\"k\">def</span> <span class=\"nf\">speak</span><span class=\"p\">(</span>\
         <span class=\"bp\">self</span><span class=\"p\">):</span>\n    \
         <span class=\"n\">x</span> <span class=\"o\">=</span> <span class=\"mi\">1</span>\n\
         </code></pre></div>"
    );
    let html = rendered(
        &o,
        "```py\nimport os\nprint('hi', \"there\", None)  # greet\n```",
    )
    .await;
    assert_spans(
        &html,
        &[
            ("kn", "import"),
            ("nb", "print"),
            ("s1", "&#39;hi&#39;"),
            ("s2", "&quot;there&quot;"),
            ("kc", "None"),
            ("c1", "# greet"),
        ],
    );
}

#[tokio::test]
async fn common_languages_get_pygments_classes() {
    let o = org().await;
    let cases: &[(&str, &str, Spans)] = &[
        (
            "rust",
            "fn main() {\n    let s = \"hi\"; // note\n    println!(\"{}\", s);\n}",
            &[
                ("k", "fn"),
                ("nf", "main"),
                ("s", "&quot;hi&quot;"),
                ("c1", "// note"),
            ],
        ),
        (
            "js",
            "const x = 'a';\nfunction f(y) { return y + 1; }",
            &[
                ("kd", "const"),
                ("s1", "&#39;a&#39;"),
                ("k", "return"),
                ("mf", "1"),
            ],
        ),
        (
            "ts",
            "let n = 'x'; // typed",
            &[("kd", "let"), ("s1", "&#39;x&#39;"), ("c1", "// typed")],
        ),
        (
            "go",
            "package main\nfunc main() {\n\tfmt.Println(\"hi\")\n}",
            &[("kn", "package"), ("s", "&quot;hi&quot;")],
        ),
        (
            "java",
            "public class A {\n  int n = 42;\n}",
            &[("kt", "int"), ("mi", "42")],
        ),
        (
            "c",
            "int main(void) {\n  return 0; /* done */\n}",
            &[("kt", "int"), ("k", "return"), ("cm", "/* done */")],
        ),
        (
            "bash",
            "echo \"$HOME\" # where\nif true; then ls; fi",
            &[("nb", "echo"), ("c1", "# where"), ("k", "if")],
        ),
        (
            "json",
            "{\"a\": [1, \"b\", true]}",
            &[
                ("nt", "&quot;a&quot;"),
                ("s2", "&quot;b&quot;"),
                ("kc", "true"),
            ],
        ),
        (
            "sql",
            "SELECT name FROM users WHERE id = 'x';",
            &[("k", "SELECT"), ("s1", "&#39;x&#39;")],
        ),
        (
            "html",
            "<a href=\"/x\">hi</a>",
            &[("nt", "a"), ("na", "href")],
        ),
        ("css", "a { color: red; }", &[("nt", "a")]),
        ("yaml", "key: value # c", &[("nt", "key"), ("c1", "# c")]),
        ("markdown", "# Title", &[("gh", "# Title")]),
    ];
    for (lang, code, want) in cases {
        let html = rendered(&o, &format!("```{lang}\n{code}\n```")).await;
        assert!(
            html.starts_with("<div class=\"codehilite\" data-code-language=\""),
            "{html}"
        );
        assert_spans(&html, want);
    }
}

#[tokio::test]
async fn unknown_and_unnamed_languages_stay_plain() {
    let o = org().await;
    let html = rendered(&o, "``` inventedlanguage\ndef speak(self):\n    x = 1\n```").await;
    assert_eq!(
        html,
        "<div class=\"codehilite\" data-code-language=\"inventedlanguage\"><pre><span></span>\
         <code>def speak(self):\n    x = 1\n</code></pre></div>"
    );
    let html = rendered(&o, "```\nprint('x')\n```").await;
    assert_eq!(
        html,
        "<div class=\"codehilite\"><pre><span></span><code>print(&#39;x&#39;)\n</code></pre></div>"
    );
}

#[tokio::test]
async fn markup_inside_code_is_escaped() {
    let o = org().await;
    for lang in ["python", "js", "html", "inventedlanguage", ""] {
        let html = rendered(
            &o,
            &format!("```{lang}\nx = \"</code></pre><script>alert(1)</script>\"\n<script>alert(2)</script>\n```"),
        )
        .await;
        assert!(!html.contains("<script"), "{lang}: {html}");
        assert_eq!(html.matches("</code>").count(), 1, "{lang}: {html}");
        assert!(
            html.contains("&lt;script&gt;") || html.contains("&lt;</span>"),
            "{lang}: {html}"
        );
        assert!(html.ends_with("</code></pre></div>"), "{lang}: {html}");
    }
}

#[tokio::test]
async fn oversized_code_stays_plain_and_fast() {
    let o = org().await;
    // One very long line: escaped, uncoloured, and rendered at once.
    let long = format!("x = '{}'", "(a".repeat(3000));
    let started = std::time::Instant::now();
    let html = rendered(&o, &format!("```python\n{long}\n```")).await;
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert!(!html.contains("<span class="), "{html}");
    assert!(html.contains("x = &#39;(a(a"), "{html}");
}
