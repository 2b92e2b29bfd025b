//! Inline syntax: emphasis, inline code, links, emoji, global times, realm links, image previews and the small differences from CommonMark.

use super::*;

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
