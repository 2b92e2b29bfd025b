//! Unit tests of code blocks (compiled only under `#[cfg(test)]`).

use super::classes::Rule::{Boundary, Defer, Token as T, Whole as W};
use super::classes::*;
use super::highlight::*;
use super::languages::*;
use super::*;

#[test]
fn info_strings() {
    assert_eq!(classify("python"), Fence::Code("python"));
    assert_eq!(classify(".python "), Fence::Code("python"));
    assert_eq!(classify("{.js}"), Fence::Code("js"));
    assert_eq!(classify(""), Fence::Code(""));
    assert_eq!(classify(" quote"), Fence::Quote);
    assert_eq!(classify("spoiler My header"), Fence::Spoiler("My header"));
    assert_eq!(classify("spoiler"), Fence::Spoiler(""));
    assert_eq!(classify("math"), Fence::Math);
    assert_eq!(classify("Quote"), Fence::Code("Quote"));
}

#[test]
fn blocks() {
    let mut s = String::new();
    block(&mut s, "py2", "\ndef f():  \n    x = '<'\n\n");
    assert_eq!(
        s,
        "<div class=\"codehilite\" data-code-language=\"Python 2.x\"><pre><span></span>\
             <code><span class=\"k\">def</span> <span class=\"nf\">f</span><span class=\"p\">():</span>\n    \
             <span class=\"n\">x</span> <span class=\"o\">=</span> <span class=\"s1\">&#39;&lt;&#39;</span>\n\
             </code></pre></div>\n"
    );
    let mut s = String::new();
    block(&mut s, "inventedlanguage", "x\n");
    assert!(s.contains("data-code-language=\"inventedlanguage\""), "{s}");
}

#[test]
fn scope_rules() {
    assert_eq!(rule_for("keyword.control.flow.python"), T("k"));
    assert_eq!(rule_for("keyword.control.import.from.python"), T("kn"));
    assert_eq!(rule_for("string.quoted.single.python"), W("s1"));
    assert_eq!(rule_for("string.quoted.double.rust"), W("s"));
    assert_eq!(rule_for("string.quoted.double.rustic"), W("s2"));
    assert_eq!(rule_for("stringy"), Defer);
    assert_eq!(rule_for("meta.function.python"), Defer);
    assert_eq!(rule_for("variable.language.python"), T("bp"));
    assert_eq!(rule_for("variable.language.js"), T("k"));
    assert_eq!(rule_for("source.python"), Boundary);
}

#[test]
fn stacks_to_classes() {
    let str_quote = [
        "source.python",
        "string.quoted.single.python",
        "punctuation.definition.string.begin.python",
    ];
    assert_eq!(class_of(&str_quote), Some(("s1", true)));
    let escape = [
        "source.python",
        "string.quoted.double.python",
        "constant.character.escape.python",
    ];
    assert_eq!(class_of(&escape), Some(("se", false)));
    let interpolated = [
        "source.js",
        "string.template.js",
        "meta.interpolation.js",
        "source.js.embedded",
        "variable.other.readwrite.js",
    ];
    assert_eq!(class_of(&interpolated), Some(("nx", false)));
    let call = [
        "source.python",
        "meta.function-call.python",
        "support.function.builtin.python",
    ];
    assert_eq!(class_of(&call), Some(("nb", false)));
    assert_eq!(class_of(&["source.python", "meta.statement.python"]), None);
}

#[test]
fn python_as_upstream_colours_it() {
    let mut s = String::new();
    block(&mut s, "python", "def speak(self):\n    x = 1\n");
    assert_eq!(
        s,
        "<div class=\"codehilite\" data-code-language=\"Python\"><pre><span></span><code>\
             <span class=\"k\">def</span> <span class=\"nf\">speak</span><span class=\"p\">(</span>\
             <span class=\"bp\">self</span><span class=\"p\">):</span>\n    \
             <span class=\"n\">x</span> <span class=\"o\">=</span> <span class=\"mi\">1</span>\n\
             </code></pre></div>\n"
    );
}

#[test]
fn limits_leave_code_plain() {
    let plain = |lang: &str, code: &str| {
        let mut s = String::new();
        block(&mut s, lang, code);
        !s.contains("<span class=")
    };
    assert!(!plain("python", "x = 1"));
    assert!(plain("inventedlanguage", "x = 1"));
    assert!(plain("tex", "x = 1"));
    assert!(plain("python", &"x".repeat(MAX_HIGHLIGHT_LINE_BYTES + 1)));
    assert!(plain("python", &"x = 1\n".repeat(MAX_HIGHLIGHT_LINES + 1)));
    assert!(plain(
        "python",
        &format!("{}\n", "y".repeat(500)).repeat(50)
    ));
}

#[test]
fn every_highlighted_language_has_a_syntax() {
    for (name, syntax, ..) in HIGHLIGHTED {
        assert!(
            syntaxes().find_syntax_by_name(syntax).is_some(),
            "{name}: {syntax}"
        );
        assert!(LANGUAGES.iter().any(|(n, _)| n == name), "{name}");
    }
}

#[test]
fn multi_line_tokens_close_at_line_ends() {
    let mut s = String::new();
    block(&mut s, "python", "x = \"\"\"a\nb\"\"\"");
    assert!(s.contains("<span class=\"s2\">&quot;&quot;&quot;a</span>\n<span class=\"s2\">b&quot;&quot;&quot;</span>"), "{s}");
    let mut s = String::new();
    block(&mut s, "js", "x = '<script>'");
    assert!(
        s.contains("<span class=\"s1\">&#39;&lt;script&gt;&#39;</span>"),
        "{s}"
    );
}

/// Samples whose classes match what Pygments 2.20's lexers give, token for token (with
/// whitespace bare, as upstream's HTML has it).
#[test]
fn same_tokens_as_pygments() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "js",
            "import React from 'react'\nconst x = `a${y}b`;\nfunction f(y) { return this.y + 1 + Math.floor(2) + console.log(\"s\"); }\nlet r = /ab+/g; var q = null;\n",
            "<span class=\"k\">import</span> <span class=\"nx\">React</span> <span class=\"kr\">from</span> <span class=\"s1\">&#39;react&#39;</span>\n<span class=\"kd\">const</span> <span class=\"nx\">x</span> <span class=\"o\">=</span> <span class=\"sb\">`a</span><span class=\"si\">${</span><span class=\"nx\">y</span><span class=\"si\">}</span><span class=\"sb\">b`</span><span class=\"p\">;</span>\n<span class=\"kd\">function</span> <span class=\"nx\">f</span><span class=\"p\">(</span><span class=\"nx\">y</span><span class=\"p\">)</span> <span class=\"p\">{</span> <span class=\"k\">return</span> <span class=\"k\">this</span><span class=\"p\">.</span><span class=\"nx\">y</span> <span class=\"o\">+</span> <span class=\"mf\">1</span> <span class=\"o\">+</span> <span class=\"nb\">Math</span><span class=\"p\">.</span><span class=\"nx\">floor</span><span class=\"p\">(</span><span class=\"mf\">2</span><span class=\"p\">)</span> <span class=\"o\">+</span> <span class=\"nx\">console</span><span class=\"p\">.</span><span class=\"nx\">log</span><span class=\"p\">(</span><span class=\"s2\">&quot;s&quot;</span><span class=\"p\">);</span> <span class=\"p\">}</span>\n<span class=\"kd\">let</span> <span class=\"nx\">r</span> <span class=\"o\">=</span> <span class=\"sr\">/ab+/g</span><span class=\"p\">;</span> <span class=\"kd\">var</span> <span class=\"nx\">q</span> <span class=\"o\">=</span> <span class=\"kc\">null</span><span class=\"p\">;</span>\n",
        ),
        (
            "go",
            "package main\nimport \"fmt\"\ntype T struct { a int }\nfunc main() {\n\tvar x string = `raw`\n\tfmt.Println(\"hi\", len(x), nil, 'c')\n}\n",
            "<span class=\"kn\">package</span> <span class=\"nx\">main</span>\n<span class=\"kn\">import</span> <span class=\"s\">&quot;fmt&quot;</span>\n<span class=\"kd\">type</span> <span class=\"nx\">T</span> <span class=\"kd\">struct</span> <span class=\"p\">{</span> <span class=\"nx\">a</span> <span class=\"kt\">int</span> <span class=\"p\">}</span>\n<span class=\"kd\">func</span> <span class=\"nx\">main</span><span class=\"p\">()</span> <span class=\"p\">{</span>\n\t<span class=\"kd\">var</span> <span class=\"nx\">x</span> <span class=\"kt\">string</span> <span class=\"p\">=</span> <span class=\"s\">`raw`</span>\n\t<span class=\"nx\">fmt</span><span class=\"p\">.</span><span class=\"nx\">Println</span><span class=\"p\">(</span><span class=\"s\">&quot;hi&quot;</span><span class=\"p\">,</span> <span class=\"nb\">len</span><span class=\"p\">(</span><span class=\"nx\">x</span><span class=\"p\">),</span> <span class=\"kc\">nil</span><span class=\"p\">,</span> <span class=\"sc\">&#39;c&#39;</span><span class=\"p\">)</span>\n<span class=\"p\">}</span>\n",
        ),
        (
            "c",
            "#include <stdio.h>\n#define X 1\nstruct s { int a; };\nstatic const char *p = \"s\\n\";\nint main(void) {\n  return 0; /* done */\n}\n",
            "<span class=\"cp\">#include</span> <span class=\"cpf\">&lt;stdio.h&gt;</span>\n<span class=\"cp\">#define X 1</span>\n<span class=\"k\">struct</span> <span class=\"nc\">s</span> <span class=\"p\">{</span> <span class=\"kt\">int</span> <span class=\"n\">a</span><span class=\"p\">;</span> <span class=\"p\">};</span>\n<span class=\"k\">static</span> <span class=\"k\">const</span> <span class=\"kt\">char</span> <span class=\"o\">*</span><span class=\"n\">p</span> <span class=\"o\">=</span> <span class=\"s\">&quot;s</span><span class=\"se\">\\n</span><span class=\"s\">&quot;</span><span class=\"p\">;</span>\n<span class=\"kt\">int</span> <span class=\"nf\">main</span><span class=\"p\">(</span><span class=\"kt\">void</span><span class=\"p\">)</span> <span class=\"p\">{</span>\n  <span class=\"k\">return</span> <span class=\"mi\">0</span><span class=\"p\">;</span> <span class=\"cm\">/* done */</span>\n<span class=\"p\">}</span>\n",
        ),
        (
            "json",
            "{\"a b\": [1, 2.5, \"b\", true, null]}\n",
            "<span class=\"p\">{</span><span class=\"nt\">&quot;a b&quot;</span><span class=\"p\">:</span> <span class=\"p\">[</span><span class=\"mi\">1</span><span class=\"p\">,</span> <span class=\"mf\">2.5</span><span class=\"p\">,</span> <span class=\"s2\">&quot;b&quot;</span><span class=\"p\">,</span> <span class=\"kc\">true</span><span class=\"p\">,</span> <span class=\"kc\">null</span><span class=\"p\">]}</span>\n",
        ),
        (
            "yaml",
            "key: value # c\nlist:\n  - 'one'\n  - \"two\"\n  - 3\n",
            "<span class=\"nt\">key</span><span class=\"p\">:</span> <span class=\"l l-Scalar l-Scalar-Plain\">value</span> <span class=\"c1\"># c</span>\n<span class=\"nt\">list</span><span class=\"p\">:</span>\n  <span class=\"p p-Indicator\">-</span> <span class=\"s\">&#39;one&#39;</span>\n  <span class=\"p p-Indicator\">-</span> <span class=\"s\">&quot;two&quot;</span>\n  <span class=\"p p-Indicator\">-</span> <span class=\"l l-Scalar l-Scalar-Plain\">3</span>\n",
        ),
        (
            "sql",
            "SELECT name, count(*) FROM users WHERE id = 'x' AND n > 3;\n",
            "<span class=\"k\">SELECT</span> <span class=\"n\">name</span><span class=\"p\">,</span> <span class=\"k\">count</span><span class=\"p\">(</span><span class=\"o\">*</span><span class=\"p\">)</span> <span class=\"k\">FROM</span> <span class=\"n\">users</span> <span class=\"k\">WHERE</span> <span class=\"n\">id</span> <span class=\"o\">=</span> <span class=\"s1\">&#39;x&#39;</span> <span class=\"k\">AND</span> <span class=\"n\">n</span> <span class=\"o\">&gt;</span> <span class=\"mi\">3</span><span class=\"p\">;</span>\n",
        ),
        (
            "html",
            "<!DOCTYPE html>\n<a href=\"/x\" class='y'>hi &amp;</a>\n<script>var x = 1;</script>\n",
            "<span class=\"cp\">&lt;!DOCTYPE html&gt;</span>\n<span class=\"p\">&lt;</span><span class=\"nt\">a</span> <span class=\"na\">href</span><span class=\"o\">=</span><span class=\"s\">&quot;/x&quot;</span> <span class=\"na\">class</span><span class=\"o\">=</span><span class=\"s\">&#39;y&#39;</span><span class=\"p\">&gt;</span>hi <span class=\"ni\">&amp;amp;</span><span class=\"p\">&lt;/</span><span class=\"nt\">a</span><span class=\"p\">&gt;</span>\n<span class=\"p\">&lt;</span><span class=\"nt\">script</span><span class=\"p\">&gt;</span><span class=\"kd\">var</span> <span class=\"nx\">x</span> <span class=\"o\">=</span> <span class=\"mf\">1</span><span class=\"p\">;&lt;/</span><span class=\"nt\">script</span><span class=\"p\">&gt;</span>\n",
        ),
        (
            "css",
            "a.b #c:hover { color: red; margin: 10px; background: #fff; }\n",
            "<span class=\"nt\">a</span><span class=\"p\">.</span><span class=\"nc\">b</span> <span class=\"p\">#</span><span class=\"nn\">c</span><span class=\"p\">:</span><span class=\"nd\">hover</span> <span class=\"p\">{</span> <span class=\"k\">color</span><span class=\"p\">:</span> <span class=\"kc\">red</span><span class=\"p\">;</span> <span class=\"k\">margin</span><span class=\"p\">:</span> <span class=\"mi\">10</span><span class=\"kt\">px</span><span class=\"p\">;</span> <span class=\"k\">background</span><span class=\"p\">:</span> <span class=\"mh\">#fff</span><span class=\"p\">;</span> <span class=\"p\">}</span>\n",
        ),
    ];
    for (lang, code, want) in cases {
        let mut s = String::new();
        block(&mut s, lang, code);
        let inner = s
            .split_once("<code>")
            .and_then(|(_, rest)| rest.strip_suffix("</code></pre></div>\n"))
            .unwrap();
        assert_eq!(inner, *want, "{lang}");
    }
}
