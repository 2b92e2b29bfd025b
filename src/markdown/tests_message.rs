//! Message rendering checked against upstream's output for the common cases.

use super::*;

/// A small realm: two users called "Cordelia, Lear's daughter"-style names, duplicates, groups
/// and channels.
struct Realm;

fn user(id: i64, name: &str) -> MentionUser {
    MentionUser {
        id,
        full_name: name.to_string(),
    }
}

const USERS: &[(i64, &str)] = &[
    (10, "King Hamlet"),
    (11, "Cordelia, Lear's daughter"),
    (12, "Mark Twin"),
    (13, "Mark Twin"),
    (14, "<b>Bold</b>"),
];

impl Lookup for Realm {
    fn users_by_name(&self, name: &str) -> Vec<MentionUser> {
        USERS
            .iter()
            .filter(|(_, n)| n.eq_ignore_ascii_case(name))
            .map(|(id, n)| user(*id, n))
            .collect()
    }
    fn user_by_id(&self, id: i64) -> Option<MentionUser> {
        USERS
            .iter()
            .find(|(i, _)| *i == id)
            .map(|(i, n)| user(*i, n))
    }
    fn group_by_name(&self, name: &str) -> Option<MentionGroup> {
        ["hamletcharacters", "support team"]
            .iter()
            .position(|g| g.eq_ignore_ascii_case(name))
            .map(|i| MentionGroup {
                id: 30 + i as i64,
                name: ["hamletcharacters", "support team"][i].to_string(),
            })
    }
    fn latest_message_in_topic(&self, channel_id: i64, topic: &str) -> Option<i64> {
        (channel_id == 5 && topic.eq_ignore_ascii_case("lunch")).then_some(214)
    }
    fn realm_url(&self) -> Option<String> {
        Some("http://zulip.testserver".to_string())
    }
    fn channel_by_name(&self, name: &str) -> Option<MentionChannel> {
        [(9, "announce"), (5, "Verona"), (7, "core team")]
            .iter()
            .find(|(_, n)| n.eq_ignore_ascii_case(name))
            .map(|(id, n)| MentionChannel {
                id: *id,
                name: n.to_string(),
            })
    }
}

fn md(s: &str) -> String {
    render_message(s, &Realm).html
}

fn check(cases: &[(&str, &str)]) {
    for (input, want) in cases {
        assert_eq!(&md(input), want, "input: {input:?}");
    }
}

const CODE: &str = "<div class=\"codehilite\"><pre><span></span><code>";
const CODE_END: &str = "</code></pre></div>";

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
fn emphasis_like_upstream() {
    check(&[
        ("*foo*", "<p><em>foo</em></p>"),
        ("**foo**", "<p><strong>foo</strong></p>"),
        ("_foo_", "<p>_foo_</p>"),
        ("__foo__", "<p>__foo__</p>"),
        (
            "const char *x = (char *)y",
            "<p>const char *x = (char *)y</p>",
        ),
        (
            "A *foo bar* is a *baz quux*",
            "<p>A <em>foo bar</em> is a <em>baz quux</em></p>",
        ),
        (
            "*<h1>Hello world</h1>*",
            "<p><em>&lt;h1&gt;Hello world&lt;/h1&gt;</em></p>",
        ),
        (
            "I like ~~software~~ hardware",
            "<p>I like <del>software</del> hardware</p>",
        ),
        (
            "I ~~like software~~ love hardware",
            "<p>I <del>like software</del> love hardware</p>",
        ),
        ("a ~b~ c", "<p>a ~b~ c</p>"),
        (
            "~~test http://xx.xx link~~",
            "<p><del>test <a href=\"http://xx.xx\">http://xx.xx</a> link</del></p>",
        ),
    ]);
}

#[test]
fn inline_code() {
    check(&[
        (
            "` outer ` ```    space    ```",
            "<p><code> outer </code> <code>    space    </code></p>",
        ),
        ("`<&nbsp;>`", "<p><code>&lt;&amp;nbsp;&gt;</code></p>"),
        ("`$$a$$`", "<p><code>$$a$$</code></p>"),
        (
            "xxx:```xx.xxxxxxx(x'^xxxx$', xx)```",
            "<p>xxx:<code>xx.xxxxxxx(x'^xxxx$', xx)</code></p>",
        ),
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

#[test]
fn links_like_upstream() {
    check(&[
        (
            "https://github.com",
            "<p><a href=\"https://github.com\">https://github.com</a></p>",
        ),
        (
            "[hello](https://github.com)",
            "<p><a href=\"https://github.com\">hello</a></p>",
        ),
        (
            "[](https://github.com)",
            "<p><a href=\"https://github.com\">https://github.com</a></p>",
        ),
        (
            "[  ](https://github.com)",
            "<p><a href=\"https://github.com\">https://github.com</a></p>",
        ),
        (
            "[call me](tel:+14155551234) [or maybe not](sms:+14155551234)",
            "<p><a href=\"tel:+14155551234\">call me</a> <a href=\"sms:+14155551234\">or maybe not</a></p>",
        ),
        (
            "[**not bold** `x`](https://x.org)",
            "<p><a href=\"https://x.org\">**not bold** `x`</a></p>",
        ),
        (
            "**[Static types](https://blog.zulip.com/x)**",
            "<p><strong><a href=\"https://blog.zulip.com/x\">Static types</a></strong></p>",
        ),
        (
            "Hello [world]\n\n[world]: https://google.com",
            "<p>Hello [world]</p>\n<p>[world]: <a href=\"https://google.com\">https://google.com</a></p>",
        ),
        (
            "Hello [world][ref-name]\n\n[ref-name]: https://google.com",
            "<p>Hello [world][ref-name]</p>\n<p>[ref-name]: <a href=\"https://google.com\">https://google.com</a></p>",
        ),
        (
            "[foo](javascript:foo.com)",
            "<p>[foo](javascript:<a href=\"http://foo.com\">foo.com</a>)</p>",
        ),
        (
            "[foo](javascript://foo.com)",
            "<p>[foo](javascript://foo.com)</p>",
        ),
        (
            "1 [](foo://) 3 [](foo://) 5",
            "<p>1 [](foo://) 3 [](foo://) 5</p>",
        ),
        (
            "with short example.com url",
            "<p>with short <a href=\"http://example.com\">example.com</a> url</p>",
        ),
        (
            "<a@b.com>",
            "<p>&lt;<a href=\"mailto:a@b.com\">a@b.com</a>&gt;</p>",
        ),
        (
            " some text https://www.google.com/baz_(match)?with=foo&bar=baz with extras",
            "<p>some text <a href=\"https://www.google.com/baz_(match)?with=foo&amp;bar=baz\">https://www.google.com/baz_(match)?with=foo&amp;bar=baz</a> with extras</p>",
        ),
        (
            "link: xx\n\n[xxxxx #xx](http://xxxxxxxxx:xxxx/xxx/):**xxxxxxx**",
            "<p>link: xx</p>\n<p><a href=\"http://xxxxxxxxx:xxxx/xxx/\">xxxxx #xx</a>:<strong>xxxxxxx</strong></p>",
        ),
    ]);
}

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
fn emoji_like_upstream() {
    // Names and codes come from our emoji table (`crate::emoji`); these agree with upstream's.
    let cat = "<span aria-label=\"octopus\" class=\"emoji emoji-1f419\" role=\"img\" title=\"octopus\">:octopus:</span>";
    let dog = "<span aria-label=\"airplane\" class=\"emoji emoji-2708\" role=\"img\" title=\"airplane\">:airplane:</span>";
    let cases = [
        (":octopus:\n:airplane:".to_string(), format!("<p>{cat}<br>\n{dog}</p>")),
        (":not_an_emoji:".to_string(), "<p>:not_an_emoji:</p>".to_string()),
        (
            "**:octopus:**".to_string(),
            format!("<p><strong>{cat}</strong></p>"),
        ),
        ("`:octopus:`".to_string(), "<p><code>:octopus:</code></p>".to_string()),
        (
            "Testing *:smiley*: :sm*iley*: Testing".to_string(),
            "<p>Testing <em>:smiley</em>: :sm<em>iley</em>: Testing</p>".to_string(),
        ),
        (
            ":airplane:".to_string(),
            "<p><span aria-label=\"airplane\" class=\"emoji emoji-2708\" role=\"img\" title=\"airplane\">:airplane:</span></p>".to_string(),
        ),
        (
            "I am a robot \u{1f916}.".to_string(),
            "<p>I am a robot <span aria-label=\"robot\" class=\"emoji emoji-1f916\" role=\"img\" title=\"robot\">:robot:</span>.</p>".to_string(),
        ),
        (
            "lime from 15.1: \u{1f34b}\u{200d}\u{1f7e9}".to_string(),
            "<p>lime from 15.1: <span aria-label=\"lime\" class=\"emoji emoji-1f34b-200d-1f7e9\" role=\"img\" title=\"lime\">:lime:</span></p>".to_string(),
        ),
    ];
    for (input, want) in cases {
        assert_eq!(md(&input), want, "input: {input:?}");
    }
}

#[test]
fn user_mentions() {
    check(&[
        (
            "@**King Hamlet**",
            "<p><span class=\"user-mention\" data-user-id=\"10\">@King Hamlet</span></p>",
        ),
        (
            "hi @**king hamlet**!",
            "<p>hi <span class=\"user-mention\" data-user-id=\"10\">@King Hamlet</span>!</p>",
        ),
        (
            "Silent mention: @_**Cordelia, Lear's daughter**",
            "<p>Silent mention: <span class=\"user-mention silent\" data-user-id=\"11\">Cordelia, Lear's daughter</span></p>",
        ),
        (
            "@**Mark Twin|13**",
            "<p><span class=\"user-mention\" data-user-id=\"13\">@Mark Twin</span></p>",
        ),
        (
            "@**|12**",
            "<p><span class=\"user-mention\" data-user-id=\"12\">@Mark Twin</span></p>",
        ),
        // The name must match the id's user.
        (
            "@**King Hamlet|13**",
            "<p>@<strong>King Hamlet|13</strong></p>",
        ),
        ("@**Nobody**", "<p>@<strong>Nobody</strong></p>"),
        (
            "mail@**King Hamlet**",
            "<p>mail@<strong>King Hamlet</strong></p>",
        ),
        (
            "(@**King Hamlet**)",
            "<p>(<span class=\"user-mention\" data-user-id=\"10\">@King Hamlet</span>)</p>",
        ),
        (
            "@**<b>Bold</b>**",
            "<p><span class=\"user-mention\" data-user-id=\"14\">@&lt;b&gt;Bold&lt;/b&gt;</span></p>",
        ),
        ("`@**King Hamlet**`", "<p><code>@**King Hamlet**</code></p>"),
        (
            "[@**King Hamlet** :octopus:](https://x.org)",
            "<p><a href=\"https://x.org\">@**King Hamlet** :octopus:</a></p>",
        ),
    ]);
    let r = render_message("@**King Hamlet** @_**Mark Twin|12** @**|13**", &Realm);
    assert_eq!(r.mentioned_users, BTreeSet::from([10, 13]));
    assert!(!r.channel_wildcard && !r.topic_wildcard);
    for quoted in [
        "```\n@**King Hamlet**\n```",
        "[@**King Hamlet**](https://x.org)",
    ] {
        let r = render_message(quoted, &Realm);
        assert!(r.mentioned_users.is_empty(), "{}", r.html);
    }
}

#[test]
fn each_name_is_looked_up_once() {
    struct Counting(std::cell::Cell<usize>);
    impl Lookup for Counting {
        fn users_by_name(&self, name: &str) -> Vec<MentionUser> {
            self.0.set(self.0.get() + 1);
            Realm.users_by_name(name)
        }
        fn user_by_id(&self, id: i64) -> Option<MentionUser> {
            self.0.set(self.0.get() + 1);
            Realm.user_by_id(id)
        }
        fn group_by_name(&self, name: &str) -> Option<MentionGroup> {
            self.0.set(self.0.get() + 1);
            Realm.group_by_name(name)
        }
        fn channel_by_name(&self, name: &str) -> Option<MentionChannel> {
            self.0.set(self.0.get() + 1);
            Realm.channel_by_name(name)
        }
    }
    let lookup = Counting(std::cell::Cell::new(0));
    let r = render_message(
        &"@**King Hamlet** @**Nobody** #**Verona** ".repeat(50),
        &lookup,
    );
    assert_eq!(lookup.0.get(), 3);
    assert_eq!(r.mentioned_users, BTreeSet::from([10]));
}

#[test]
fn wildcard_mentions() {
    for name in ["all", "everyone", "channel", "stream"] {
        let r = render_message(&format!("@**{name}**"), &Realm);
        assert_eq!(
            r.html,
            format!(
                "<p><span class=\"user-mention channel-wildcard-mention\" data-user-id=\"*\">@{name}</span></p>"
            )
        );
        assert!(r.channel_wildcard && !r.topic_wildcard);
    }
    let r = render_message("@**topic**", &Realm);
    assert_eq!(r.html, "<p><span class=\"topic-mention\">@topic</span></p>");
    assert!(r.topic_wildcard && !r.channel_wildcard);
    let r = render_message("@_**all** @_**topic**", &Realm);
    assert_eq!(
        r.html,
        "<p><span class=\"user-mention channel-wildcard-mention silent\" data-user-id=\"*\">all</span> <span class=\"topic-mention silent\">topic</span></p>"
    );
    assert!(!r.topic_wildcard && !r.channel_wildcard);
}

#[test]
fn group_mentions() {
    let r = render_message("@*hamletcharacters* and @_*Support Team*", &Realm);
    assert_eq!(
        r.html,
        "<p><span class=\"user-group-mention\" data-user-group-id=\"30\">@hamletcharacters</span> and <span class=\"user-group-mention silent\" data-user-group-id=\"31\">support team</span></p>"
    );
    assert_eq!(r.mentioned_groups, BTreeSet::from([30]));
    assert_eq!(md("@*nosuchgroup*"), "<p>@<em>nosuchgroup</em></p>");
}

#[test]
fn mentions_in_quotes_are_silent() {
    let r = render_message(
        "> Mention in quote: @**King Hamlet** @*hamletcharacters* @**all**\n\nMention outside quote: @**Mark Twin|12**",
        &Realm,
    );
    assert_eq!(
        r.html,
        "<blockquote>\n<p>Mention in quote: <span class=\"user-mention silent\" data-user-id=\"10\">King Hamlet</span> <span class=\"user-group-mention silent\" data-user-group-id=\"30\">hamletcharacters</span> <span class=\"user-mention channel-wildcard-mention silent\" data-user-id=\"*\">all</span></p>\n</blockquote>\n<p>Mention outside quote: <span class=\"user-mention\" data-user-id=\"12\">@Mark Twin</span></p>"
    );
    assert_eq!(r.mentioned_users, BTreeSet::from([12]));
    assert!(r.mentioned_groups.is_empty() && !r.channel_wildcard);
    let r = render_message("```quote\n@**King Hamlet**\n```", &Realm);
    assert!(r.html.contains("user-mention silent"), "{}", r.html);
    assert!(r.mentioned_users.is_empty());
}

#[test]
fn channel_and_topic_links() {
    check(&[
        (
            "#**announce**",
            "<p><a class=\"stream\" data-stream-id=\"9\" href=\"/#narrow/channel/9-announce\">#announce</a></p>",
        ),
        (
            "see #**core team**",
            "<p>see <a class=\"stream\" data-stream-id=\"7\" href=\"/#narrow/channel/7-core-team\">#core team</a></p>",
        ),
        (
            "#**announce>Zulip updates**",
            "<p><a class=\"stream-topic\" data-stream-id=\"9\" href=\"/#narrow/channel/9-announce/topic/Zulip.20updates\">#announce &gt; Zulip updates</a></p>",
        ),
        (
            "#**announce>Zulip updates@214**",
            "<p><a class=\"message-link\" href=\"/#narrow/channel/9-announce/topic/Zulip.20updates/near/214\">#announce &gt; Zulip updates @ 💬</a></p>",
        ),
        ("#**nowhere**", "<p>#<strong>nowhere</strong></p>"),
        (
            "#**Verona>lunch**",
            "<p><a class=\"stream-topic\" data-stream-id=\"5\" href=\"/#narrow/channel/5-Verona/topic/lunch/with/214\">#Verona &gt; lunch</a></p>",
        ),
        (
            "#**announce>**",
            "<p><a class=\"stream-topic\" data-stream-id=\"9\" href=\"/#narrow/channel/9-announce/topic/\">#announce &gt; <em>general chat</em></a></p>",
        ),
        (
            "#**announce>@214**",
            "<p><a class=\"message-link\" href=\"/#narrow/channel/9-announce/topic//near/214\">#announce &gt; <em>general chat</em> @ 💬</a></p>",
        ),
        (
            "#**Verona>my topic (1.0)**",
            "<p><a class=\"stream-topic\" data-stream-id=\"5\" href=\"/#narrow/channel/5-Verona/topic/my.20topic.20.281.2E0.29\">#Verona &gt; my topic (1.0)</a></p>",
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
fn emphasis_limits_like_upstream() {
    check(&[
        ("***foo***", "<p><strong><em>foo</em></strong></p>"),
        (
            "You can check out **any time you'd like\nBut you can never leave**",
            "<p>You can check out **any time you'd like<br>\nBut you can never leave**</p>",
        ),
        ("*a\nb*", "<p>*a<br>\nb*</p>"),
        ("***a** b*", "<p><em><strong>a</strong> b</em></p>"),
    ]);
}

#[test]
fn global_times() {
    check(&[
        (
            "Let's meet at <time:2017-06-05T22:30:00Z>.",
            "<p>Let's meet at <time datetime=\"2017-06-05T22:30:00Z\">2017-06-05T22:30:00Z</time>.</p>",
        ),
        (
            "<time:1496701800>",
            "<p><time datetime=\"2017-06-05T22:30:00Z\">1496701800</time></p>",
        ),
        ("<time:<alert(1)>>", "<p>&lt;time:&lt;alert(1)&gt;&gt;</p>"),
        (
            "`<time:1496701800>`",
            "<p><code>&lt;time:1496701800&gt;</code></p>",
        ),
    ]);
}

#[test]
fn links_into_the_realm_are_relative() {
    check(&[
        (
            "[foo](http://zulip.testserver/#narrow/stream/1-Denmark)",
            "<p><a href=\"#narrow/stream/1-Denmark\">foo</a></p>",
        ),
        (
            "[foo](http://zulip.testserver/https://example.com)",
            "<p><a href=\"http://zulip.testserver/https://example.com\">foo</a></p>",
        ),
        (
            "http://zulip.testserver/#narrow/stream/1-Denmark",
            "<p><a href=\"#narrow/stream/1-Denmark\">http://zulip.testserver/#narrow/stream/1-Denmark</a></p>",
        ),
    ]);
}

#[test]
fn small_differences_from_commonmark() {
    check(&[
        (
            "~~~~~~~~xxxxxxxxx:  xxxxxxxxxxxx xxxxx x xxxxxxxx~~~~~~",
            "<p>~~~~~~~~xxxxxxxxx:  xxxxxxxxxxxx xxxxx x xxxxxxxx~~~~~~</p>",
        ),
        ("test  \nbar", "<p>test  <br>\nbar</p>"),
        (
            "![alt](https://x.org/a.png)",
            "<p>!<a href=\"https://x.org/a.png\">alt</a></p>",
        ),
        ("- [ ] task", "<ul>\n<li>[ ] task</li>\n</ul>"),
        ("1) a\n2) b", "<p>1) a<br>\n2) b</p>"),
    ]);
}

/// Inputs that could make a naive renderer slow.
fn adversarial() -> Vec<String> {
    vec![
        format!("http://a.com/{}x", "!".repeat(9_000)),
        "@**a ".repeat(2_000),
        "\\*".repeat(5_000),
        "(a.b.c ".repeat(1_400),
        ":a".repeat(5_000),
        "> ".repeat(5_000),
        "*a **b ".repeat(1_400),
        "[a](".repeat(2_500),
        "1. a\n  ".repeat(1_400),
        "#**x>y@1** ".repeat(900),
        "\u{1f468}\u{200d}".repeat(1_400),
    ]
}

#[test]
fn adversarial_inputs_render() {
    for input in adversarial() {
        let _ = md(&input);
    }
}

#[test]
fn uploaded_images_get_inline_previews() {
    check(&[
        (
            "[a.png](/user_uploads/1/ab/XyZ/a.png)",
            "<p><a href=\"/user_uploads/1/ab/XyZ/a.png\">a.png</a></p>\n\
             <div class=\"message_inline_image\"><a href=\"/user_uploads/1/ab/XyZ/a.png\" \
             title=\"a.png\"><img src=\"/user_uploads/1/ab/XyZ/a.png\"></a></div>",
        ),
        // Not an image, or not an upload: no preview.
        (
            "[a.txt](/user_uploads/1/ab/XyZ/a.txt)",
            "<p><a href=\"/user_uploads/1/ab/XyZ/a.txt\">a.txt</a></p>",
        ),
        (
            "[a.png](https://elsewhere.test/a.png)",
            "<p><a href=\"https://elsewhere.test/a.png\">a.png</a></p>",
        ),
        // Each linked image of a paragraph, after it, in order.
        (
            "[x](/user_uploads/1/ab/A/x.JPG) and [y](/user_uploads/1/cd/B/y.gif)\nnext",
            "<p><a href=\"/user_uploads/1/ab/A/x.JPG\">x</a> and \
             <a href=\"/user_uploads/1/cd/B/y.gif\">y</a><br>\nnext</p>\n\
             <div class=\"message_inline_image\"><a href=\"/user_uploads/1/ab/A/x.JPG\" \
             title=\"x\"><img src=\"/user_uploads/1/ab/A/x.JPG\"></a></div>\
             <div class=\"message_inline_image\"><a href=\"/user_uploads/1/cd/B/y.gif\" \
             title=\"y\"><img src=\"/user_uploads/1/cd/B/y.gif\"></a></div>",
        ),
    ]);
}
