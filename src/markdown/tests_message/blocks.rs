//! Block structure: paragraphs, code blocks, quotes, spoilers, headings, lists, tables, math and `/me`.

use super::*;

#[test]
fn paragraphs_and_breaks() {
    check(&[
        ("", ""),
        ("test_input", "<p>test_input</p>"),
        ("it's lunch time", "<p>it's lunch time</p>"),
        ("test\nbar", "<p>test<br>\nbar</p>"),
        ("a\n\nb", "<p>a</p>\n<p>b</p>"),
        ("& &amp; &amp;amp;", "<p>&amp; &amp; &amp;amp;</p>"),
    ]);
}

#[test]
fn code_blocks_like_upstream() {
    let cases = [
        (
            "Hamlet once said\n~~~~\ndef func():\n    x = 1\n\n    y = 2\t\t\n\n    z = 3       \n~~~~\nAnd all was good.",
            format!(
                "<p>Hamlet once said</p>\n{CODE}def func():\n    x = 1\n\n    y = 2\n\n    z = 3\n{CODE_END}\n<p>And all was good.</p>"
            ),
        ),
        (
            "``` inventedlanguage\ndef speak(self):\n    x = 1\n```",
            "<div class=\"codehilite\" data-code-language=\"inventedlanguage\"><pre><span></span><code>def speak(self):\n    x = 1\n</code></pre></div>".to_string(),
        ),
        (
            "Hamlet said:\n~~~~.python \ndef speak(self):\n    x = 1\n~~~~",
            "<p>Hamlet said:</p>\n<div class=\"codehilite\" data-code-language=\"Python\"><pre><span></span><code><span class=\"k\">def</span> <span class=\"nf\">speak</span><span class=\"p\">(</span><span class=\"bp\">self</span><span class=\"p\">):</span>\n    <span class=\"n\">x</span> <span class=\"o\">=</span> <span class=\"mi\">1</span>\n</code></pre></div>".to_string(),
        ),
        (
            "``` py2\nx\n```",
            "<div class=\"codehilite\" data-code-language=\"Python 2.x\"><pre><span></span><code><span class=\"n\">x</span>\n</code></pre></div>".to_string(),
        ),
        ("    def foo(): pass", format!("{CODE}def foo(): pass\n{CODE_END}")),
        (
            "\n```\nfenced code\n```\n\n```inline code```\n",
            format!("{CODE}fenced code\n{CODE_END}\n<p><code>inline code</code></p>"),
        ),
        (
            "~~~\n<h1>stay normal</h1>\n~~~",
            format!("{CODE}&lt;h1&gt;stay normal&lt;/h1&gt;\n{CODE_END}"),
        ),
        (
            "& &amp; &amp;amp;\n~~~~\n& &amp; &amp;amp;\n~~~~\n    & &amp; &amp;amp;",
            format!(
                "<p>&amp; &amp; &amp;amp;</p>\n{CODE}&amp; &amp;amp; &amp;amp;amp;\n{CODE_END}\n{CODE}&amp; &amp;amp; &amp;amp;amp;\n{CODE_END}"
            ),
        ),
        (
            "```\nprint(\"Hello 'World'\")\n```",
            format!("{CODE}print(&quot;Hello &#39;World&#39;&quot;)\n{CODE_END}"),
        ),
        (
            "```tex\n\n\\pi\n```",
            "<div class=\"codehilite\" data-code-language=\"TeX\"><pre><span></span><code>\\pi\n</code></pre></div>".to_string(),
        ),
        (
            "~~~\nint x = 3\n* 4;\n~~~",
            format!("{CODE}int x = 3\n* 4;\n{CODE_END}"),
        ),
    ];
    for (input, want) in cases {
        assert_eq!(md(input), want, "input: {input:?}");
    }
}

#[test]
fn quotes_like_upstream() {
    check(&[
        (
            "Hamlet said:\n~~~ quote\nTo be or **not** to be.\n\nThat is the question\n~~~",
            "<p>Hamlet said:</p>\n<blockquote>\n<p>To be or <strong>not</strong> to be.</p>\n<p>That is the question</p>\n</blockquote>",
        ),
        (
            "Hamlet said:\n~~~ quote\nPolonius said:\n> This above all: to thine ownself be true,\nAnd it must follow, as the night the day,\nThou canst not then be false to any man.\n\nWhat good advice!\n~~~",
            "<p>Hamlet said:</p>\n<blockquote>\n<p>Polonius said:</p>\n<blockquote>\n<p>This above all: to thine ownself be true,<br>\nAnd it must follow, as the night the day,<br>\nThou canst not then be false to any man.</p>\n</blockquote>\n<p>What good advice!</p>\n</blockquote>",
        ),
        (">", "<p>&gt;</p>"),
        (
            "> Hello World!\n\n> Hello Universe!",
            "<blockquote>\n<p>Hello World!</p>\n</blockquote>\n<blockquote>\n<p>Hello Universe!</p>\n</blockquote>",
        ),
        (
            "```quote\nText in\nmultiple lines.\n```\n\n> Text in a single line.",
            "<blockquote>\n<p>Text in<br>\nmultiple lines.</p>\n</blockquote>\n<blockquote>\n<p>Text in a single line.</p>\n</blockquote>",
        ),
        (
            "Hamlet said:\n~~~quote\nCan we talk ?\n~~~\n> Yes !!\n\nWelcome to Open Source.",
            "<p>Hamlet said:</p>\n<blockquote>\n<p>Can we talk ?</p>\n</blockquote>\n<blockquote>\n<p>Yes !!</p>\n</blockquote>\n<p>Welcome to Open Source.</p>",
        ),
        (
            "```quote\n# line 1\n#line 2\n```",
            "<blockquote>\n<h1>line 1</h1>\n<p>#line 2</p>\n</blockquote>",
        ),
        (
            "Before:\n* One.\n* Two.\n\n```quote\nLists should work after a quote\n```\n\nAfter:\n* One.\n* Two.",
            "<p>Before:</p>\n<ul>\n<li>One.</li>\n<li>Two.</li>\n</ul>\n<blockquote>\n<p>Lists should work after a quote</p>\n</blockquote>\n<p>After:</p>\n<ul>\n<li>One.</li>\n<li>Two.</li>\n</ul>",
        ),
        (
            "```quote\nSome text with a hanging list inside quote:\n* one\n* two\n* three\n```",
            "<blockquote>\n<p>Some text with a hanging list inside quote:</p>\n<ul>\n<li>one</li>\n<li>two</li>\n<li>three</li>\n</ul>\n</blockquote>",
        ),
    ]);
}

#[test]
fn spoilers_like_upstream() {
    check(&[
        (
            "```spoiler header\ncontent\n```\noutside spoiler\n",
            "<div class=\"spoiler-block\"><div class=\"spoiler-header\">\n<p>header</p>\n</div><div class=\"spoiler-content\" aria-hidden=\"true\">\n<p>content</p>\n</div></div>\n<p>outside spoiler</p>",
        ),
        (
            "```spoiler\ncontent\n```\noutside spoiler\n",
            "<div class=\"spoiler-block\"><div class=\"spoiler-header\">\n</div><div class=\"spoiler-content\" aria-hidden=\"true\">\n<p>content</p>\n</div></div>\n<p>outside spoiler</p>",
        ),
        (
            "```spoiler <script>alert(1)</script>\n<script>alert(1)</script>\n```",
            "<div class=\"spoiler-block\"><div class=\"spoiler-header\">\n<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n</div><div class=\"spoiler-content\" aria-hidden=\"true\">\n<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n</div></div>",
        ),
        (
            "~~~quote\n```spoiler header\ncontent\n```\noutside spoiler\n~~~\noutside quote",
            "<blockquote>\n<div class=\"spoiler-block\"><div class=\"spoiler-header\">\n<p>header</p>\n</div><div class=\"spoiler-content\" aria-hidden=\"true\">\n<p>content</p>\n</div></div>\n<p>outside spoiler</p>\n</blockquote>\n<p>outside quote</p>",
        ),
        (
            "```spoiler [Header](https://example.com) :octopus:\ncontent\n```",
            "<div class=\"spoiler-block\"><div class=\"spoiler-header\">\n<p><a href=\"https://example.com\">Header</a> <span aria-label=\"octopus\" class=\"emoji emoji-1f419\" role=\"img\" title=\"octopus\">:octopus:</span></p>\n</div><div class=\"spoiler-content\" aria-hidden=\"true\">\n<p>content</p>\n</div></div>",
        ),
    ]);
}

#[test]
fn headings_like_upstream() {
    check(&[
        ("# Hello world", "<h1>Hello world</h1>"),
        ("#Hello world", "<p>#Hello world</p>"),
        ("#  Hello world", "<h1>Hello world</h1>"),
        ("###### Hello world", "<h6>Hello world</h6>"),
        ("####### Hello world", "<p>####### Hello world</p>"),
        ("foo\n---", "<p>foo</p>\n<hr>"),
        ("foo\n===", "<p>foo<br>\n===</p>"),
    ]);
}

#[test]
fn lists_like_upstream() {
    check(&[
        (
            "Some text with a list:\n\n* One item\n* Two items\n* Three items",
            "<p>Some text with a list:</p>\n<ul>\n<li>One item</li>\n<li>Two items</li>\n<li>Three items</li>\n</ul>",
        ),
        (
            "Some text with a list:\n\n- One item\n- Two items",
            "<p>Some text with a list:</p>\n<ul>\n<li>One item</li>\n<li>Two items</li>\n</ul>",
        ),
        (
            "Some text with a list:\n\n+ One item\n+ Two items",
            "<p>Some text with a list:</p>\n<ul>\n<li>One item</li>\n<li>Two items</li>\n</ul>",
        ),
        (
            "Combine four lists:\n\n* One\n- Two\n+ Three\n- Four\n- Five",
            "<p>Combine four lists:</p>\n<ul>\n<li>One</li>\n<li>Two</li>\n<li>Three</li>\n<li>Four</li>\n<li>Five</li>\n</ul>",
        ),
        (
            "Some text with a hanging list:\n* One item\n* Two items",
            "<p>Some text with a hanging list:</p>\n<ul>\n<li>One item</li>\n<li>Two items</li>\n</ul>",
        ),
        (
            "Plain list\n\n* Alpha\n\n* Beta\n\nThen hang it off:\n* Ypsilon\n* Zeta",
            "<p>Plain list</p>\n<ul>\n<li>\n<p>Alpha</p>\n</li>\n<li>\n<p>Beta</p>\n</li>\n</ul>\n<p>Then hang it off:</p>\n<ul>\n<li>Ypsilon</li>\n<li>Zeta</li>\n</ul>",
        ),
        (
            "Nested list\n* I am outer list\n  * I am inner nested list first item\n  * I am inner nested list second item",
            "<p>Nested list</p>\n<ul>\n<li>I am outer list<ul>\n<li>I am inner nested list first item</li>\n<li>I am inner nested list second item</li>\n</ul>\n</li>\n</ul>",
        ),
        (
            "3. A\n3. B\n3. C\n3. D",
            "<ol start=\"3\">\n<li>A</li>\n<li>B</li>\n<li>C</li>\n<li>D</li>\n</ol>",
        ),
        (
            "1. A\n\n1. B\n\n1. C",
            "<ol>\n<li>\n<p>A</p>\n</li>\n<li>\n<p>B</p>\n</li>\n<li>\n<p>C</p>\n</li>\n</ol>",
        ),
        (
            "* run `cmake-gui ..` in `c:\\zulip`\n* opened vs2013",
            "<ul>\n<li>run <code>cmake-gui ..</code> in <code>c:\\zulip</code></li>\n<li>opened vs2013</li>\n</ul>",
        ),
    ]);
}

#[test]
fn tables() {
    check(&[(
        "This is a table:\n\nFirst header  | Second header\n------------- | -------------\nContent cell  | Content cell\nContent cell  | Content cell\n",
        "<p>This is a table:</p>\n<table>\n<thead>\n<tr>\n<th>First header</th>\n<th>Second header</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>Content cell</td>\n<td>Content cell</td>\n</tr>\n<tr>\n<td>Content cell</td>\n<td>Content cell</td>\n</tr>\n</tbody>\n</table>",
    )]);
}

/// `cargo test --release --lib markdown::tests_message::timing -- --ignored --nocapture`
#[test]
fn nested_lists_like_upstream() {
    check(&[
        (
            "1. A\n2. B\n  3. C",
            "<ol>\n<li>A</li>\n<li>B<ol start=\"3\">\n<li>C</li>\n</ol>\n</li>\n</ol>",
        ),
        (
            "1. A\n1. B\n  1. C\n1. D",
            "<ol>\n<li>A</li>\n<li>B<ol>\n<li>C</li>\n</ol>\n</li>\n<li>D</li>\n</ol>",
        ),
        (
            "1. A\n3. B\n  2. C\n1. D",
            "<ol>\n<li>A</li>\n<li>B<ol start=\"2\">\n<li>C</li>\n</ol>\n</li>\n<li>D</li>\n</ol>",
        ),
        (
            "This is a heavily nested OL\n1. level-1\n  2. level-2\n    3. level-3\n    3. level-3a\n  2. level-2a\n2. level-1a\n",
            "<p>This is a heavily nested OL</p>\n<ol>\n<li>level-1<ol start=\"2\">\n<li>level-2<ol start=\"3\">\n<li>level-3</li>\n<li>level-3a</li>\n</ol>\n</li>\n<li>level-2a</li>\n</ol>\n</li>\n<li>level-1a</li>\n</ol>",
        ),
        (
            "para:\n\n    1. list-1\n    2. list-2\n      1. list-2a\n    3. list-3\n",
            "<p>para:</p>\n<div class=\"codehilite\"><pre><span></span><code>1. list-1\n2. list-2\n  1. list-2a\n3. list-3\n</code></pre></div>",
        ),
        (
            "Steps:\n3. a\n4. b",
            "<p>Steps:</p>\n<ol start=\"3\">\n<li>a</li>\n<li>b</li>\n</ol>",
        ),
    ]);
}

#[test]
fn me_messages() {
    let r = render_message("/me is happy", &Realm);
    assert!(r.is_me_message);
    assert_eq!(r.html, "<p>/me is happy</p>");
    assert!(!render_message("/mention", &Realm).is_me_message);
}

#[test]
fn math_without_a_tex_renderer() {
    assert_eq!(
        md("```math\na^2 < b\n```"),
        "<p><span class=\"tex-error\">a^2 &lt; b</span></p>"
    );
}
