//! What must never get through and what must stay bounded: raw HTML, executable links, random and adversarial inputs, deep nesting, big messages.

use super::*;

#[test]
fn raw_html_is_escaped() {
    check(&[
        (
            "<h1>stay normal</h1> thanks",
            "<p>&lt;h1&gt;stay normal&lt;/h1&gt; thanks</p>",
        ),
        (
            "<script>alert(1)</script>",
            "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>",
        ),
        (
            "<<script>script>evil()<</script>/script>",
            "<p>&lt;&lt;script&gt;script&gt;evil()&lt;&lt;/script&gt;/script&gt;</p>",
        ),
        (
            "<scr<script></script>ipt type=\"text/javascript\">alert(\"foo\");</<script></script>script<del></del>>",
            "<p>&lt;scr&lt;script&gt;&lt;/script&gt;ipt type=\"text/javascript\"&gt;alert(\"foo\");&lt;/&lt;script&gt;&lt;/script&gt;script&lt;del&gt;&lt;/del&gt;&gt;</p>",
        ),
        (
            "<script src=http://xx.com/xss.js<b>",
            "<p>&lt;script src=http://xx.com/xss.js&lt;b&gt;</p>",
        ),
        (
            "**<h1>Hello world</h1>**",
            "<p><strong>&lt;h1&gt;Hello world&lt;/h1&gt;</strong></p>",
        ),
        (
            "<h1>**<h1>[<h2>Static</h2>](https://x.org/y)</h1>**</h1>",
            "<p>&lt;h1&gt;<strong>&lt;h1&gt;<a href=\"https://x.org/y\">&lt;h2&gt;Static&lt;/h2&gt;</a>&lt;/h1&gt;</strong>&lt;/h1&gt;</p>",
        ),
        (
            "<div>\nblock\n</div>",
            "<p>&lt;div&gt;<br>\nblock<br>\n&lt;/div&gt;</p>",
        ),
    ]);
}

#[test]
fn nothing_executable_gets_through() {
    let nasty = [
        "<img src=x onerror=alert(1)>",
        "[x](javascript:alert(1))",
        "[x](JAVASCRIPT:alert(1))",
        "[x](data:text/html;base64,PHNjcmlwdD4=)",
        "![x](javascript:alert(1))",
        "[x](vbscript:msgbox)",
        "```\n</code></pre><script>alert(1)</script>\n```",
        "`<script>`",
        "```spoiler <img src=x onerror=alert(1)>\nx\n```",
        "@**<script>alert(1)</script>**",
        "[x](https://a.org\" onmouseover=\"alert(1))",
        "[x](<javascript:alert(1)>)",
    ];
    for input in nasty {
        assert_only_our_tags(input, &md(input));
    }
}

/// Every tag in `html` is one the renderer writes, without event handlers or unsafe links.
fn assert_only_our_tags(input: &str, html: &str) {
    const TAGS: &[&str] = &[
        "p",
        "a",
        "br",
        "code",
        "pre",
        "span",
        "div",
        "strong",
        "em",
        "del",
        "blockquote",
        "ul",
        "ol",
        "li",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "time",
    ];
    for tag in html
        .split('<')
        .skip(1)
        .map(|t| t.split('>').next().unwrap_or(""))
    {
        let name = tag
            .trim_start_matches('/')
            .split([' ', '>'])
            .next()
            .unwrap_or("");
        assert!(TAGS.contains(&name), "{input:?} → {html}");
        assert!(!tag.contains(" on"), "{input:?} → {html}");
        for bad in ["javascript", "data:", "vbscript"] {
            assert!(
                !tag.contains(&format!("href=\"{bad}")),
                "{input:?} → {html}"
            );
        }
        // Attribute values are quoted and contain no stray quotes or angle brackets.
        assert_eq!(tag.matches('"').count() % 2, 0, "{input:?} → {html}");
    }
}

#[test]
fn random_inputs_render_safely() {
    const ALPHABET: &[&str] = &[
        "*",
        "**",
        "_",
        "~~",
        "`",
        "```",
        "~~~",
        "[",
        "]",
        "(",
        ")",
        "<",
        ">",
        "#",
        "@",
        "@_",
        ":",
        "!",
        "\n",
        "\n\n",
        " ",
        "  ",
        "-",
        "+",
        "1.",
        "3)",
        "|",
        "\\",
        "&",
        ";",
        "\"",
        "'",
        "a",
        "King Hamlet",
        "all",
        "topic",
        "Verona",
        "hamletcharacters",
        "octopus",
        "http://",
        "x.com",
        "/",
        "quote",
        "spoiler",
        "math",
        "time:",
        "2017-06-05",
        "\u{1f4a9}",
        "\u{200d}",
        "\u{fe0f}",
        "\u{2E4E}",
        "\u{E000}",
        "\u{E001}",
        "\t",
        "    ",
        "|---|",
        "javascript:",
        "<script>",
        "\"onerror=",
        "é",
    ];
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..3_000 {
        let len = (next() % 60) as usize;
        let input: String = (0..len)
            .map(|_| ALPHABET[(next() % ALPHABET.len() as u64) as usize])
            .collect();
        let html = md(&input);
        assert_only_our_tags(&input, &html);
        assert_balanced(&input, &html);
    }
}

/// Every element in `html` is closed, in order.
fn assert_balanced(input: &str, html: &str) {
    let mut open: Vec<&str> = Vec::new();
    for tag in html
        .split('<')
        .skip(1)
        .map(|t| t.split('>').next().unwrap_or(""))
    {
        let name = tag.trim_start_matches('/').split(' ').next().unwrap_or("");
        if name == "br" || name == "hr" {
            continue;
        }
        if tag.starts_with('/') {
            assert_eq!(open.pop(), Some(name), "{input:?} → {html}");
        } else {
            open.push(name);
        }
    }
    assert!(open.is_empty(), "{input:?} → {html}");
}

#[test]
fn deep_nesting_is_bounded() {
    let mut s = String::new();
    for i in 0..40 {
        s.push_str(&format!("{}quote\n", "`".repeat(80 - i)));
    }
    s.push_str("x\n");
    let _ = md(&s);
    let _ = md(&">".repeat(10_000));
    let _ = md(&"* ".repeat(5_000));
    let _ = md(&"[".repeat(5_000));
}

/// A 10,000-character message with a bit of everything.
fn big_message() -> String {
    let chunk = "Hello @**King Hamlet** and @*hamletcharacters*, see #**announce>Zulip updates** \
                 and https://example.com/path?q=1 :octopus: \u{1f916} **bold** *em* ~~del~~ `code`\n\
                 * item one\n* item two with example.org\n\n> quoted @**all** text\n\n\
                 ```python\ndef f(x):\n    return x < 3\n```\n\n";
    let mut s = String::new();
    while s.len() < 10_000 {
        s.push_str(chunk);
    }
    s
}

#[test]
fn big_message_renders() {
    let r = render_message(&big_message(), &Realm);
    assert_eq!(r.mentioned_users, BTreeSet::from([10]));
    assert_eq!(r.mentioned_groups, BTreeSet::from([30]));
    assert!(!r.channel_wildcard, "the wildcard is only quoted");
}

#[test]
fn adversarial_inputs_render() {
    for input in adversarial() {
        let _ = md(&input);
    }
}
