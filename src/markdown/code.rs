//! Code blocks in upstream's `codehilite` wrapper, and what a fence's info string asks for.
//!
//! Upstream highlights with Pygments; we keep its HTML structure and the language's display
//! name in `data-code-language`, without colouring.

use super::html;

/// What a fenced block is.
#[derive(Debug, PartialEq)]
pub(super) enum Fence<'a> {
    /// Code, with the language as written (may be empty).
    Code(&'a str),
    /// ```` ```quote ```` / ```` ```quoted ````.
    Quote,
    /// ```` ```spoiler header ````.
    Spoiler(&'a str),
    /// ```` ```math ````.
    Math,
}

/// Reads a fence's info string as upstream does: `lang`, `.lang`, `{.lang}`, then the rest
/// (the spoiler header).
pub(super) fn classify(info: &str) -> Fence<'_> {
    let info = info.trim();
    let body = info.strip_prefix('{').unwrap_or(info);
    let body = body.strip_prefix('.').unwrap_or(body);
    let lang_len = body
        .find(|c: char| !(c.is_ascii_alphanumeric() || "_+-./#".contains(c)))
        .unwrap_or(body.len());
    let lang = &body[..lang_len];
    let rest = body[lang_len..]
        .strip_prefix('}')
        .unwrap_or(&body[lang_len..]);
    // Upstream matches these names exactly (`Quote` is a code block's language).
    match lang {
        "quote" | "quoted" => Fence::Quote,
        "spoiler" => Fence::Spoiler(rest.trim()),
        "math" => Fence::Math,
        _ => Fence::Code(lang),
    }
}

/// Appends a code block: `<div class="codehilite" data-code-language="…"><pre><span></span><code>…</code></pre></div>`.
pub(super) fn block(out: &mut String, lang: &str, code: &str) {
    out.push_str("<div class=\"codehilite\"");
    if !lang.is_empty() {
        out.push_str(" data-code-language=\"");
        html::attr(out, display_name(lang).unwrap_or(lang));
        out.push('"');
    }
    out.push_str("><pre><span></span><code>");
    // Like Pygments: trailing whitespace of each line and leading/trailing blank lines go.
    let lines: Vec<&str> = code.lines().map(str::trim_end).collect();
    let first = lines
        .iter()
        .position(|l| !l.is_empty())
        .unwrap_or(lines.len());
    let last = lines
        .iter()
        .rposition(|l| !l.is_empty())
        .map_or(first, |i| i + 1);
    for line in &lines[first..last] {
        html::attr(out, line);
        out.push('\n');
    }
    if first >= last {
        out.push('\n');
    }
    out.push_str("</code></pre></div>\n");
}

/// Pygments' display name for a language alias, as upstream puts in `data-code-language`.
fn display_name(lang: &str) -> Option<&'static str> {
    let lower = lang.to_ascii_lowercase();
    LANGUAGES
        .iter()
        .find(|(_, aliases)| aliases.split(' ').any(|a| a == lower))
        .map(|(name, _)| *name)
}

const LANGUAGES: &[(&str, &str)] = &[
    ("Python", "python py py3 python3 sage bazel starlark pyi"),
    ("Python 2.x", "python2 py2"),
    ("Python console session", "pycon python-console"),
    ("JavaScript", "javascript js"),
    ("TypeScript", "typescript ts"),
    ("JSX", "jsx react"),
    ("Rust", "rust rs"),
    ("Go", "go golang"),
    ("Java", "java"),
    ("C", "c"),
    ("C++", "cpp c++"),
    ("C#", "csharp c#"),
    ("Objective-C", "objective-c objectivec obj-c objc"),
    ("Ruby", "ruby rb duby"),
    ("Bash", "bash sh ksh zsh shell"),
    ("Bash Session", "console shell-session"),
    ("PowerShell", "powershell pwsh posh ps1 psm1"),
    ("JSON", "json json-object"),
    ("YAML", "yaml"),
    ("TOML", "toml"),
    ("INI", "ini cfg dosini"),
    ("HTML", "html"),
    ("XML", "xml"),
    ("CSS", "css"),
    ("SCSS", "scss"),
    ("SQL", "sql"),
    ("PostgreSQL SQL dialect", "postgresql postgres"),
    ("MySQL", "mysql"),
    ("Markdown", "markdown md"),
    ("TeX", "tex latex"),
    ("PHP", "php php3 php4 php5"),
    ("Perl", "perl pl"),
    ("Haskell", "haskell hs"),
    ("Kotlin", "kotlin"),
    ("Swift", "swift"),
    ("Scala", "scala"),
    ("Lua", "lua"),
    ("R", "r splus s"),
    ("Docker", "docker dockerfile"),
    ("Diff", "diff udiff"),
    ("Text only", "text"),
    ("Elixir", "elixir ex exs"),
    ("Erlang", "erlang"),
    ("Clojure", "clojure clj"),
    ("Dart", "dart"),
    ("Makefile", "make makefile mf bsdmake"),
    ("Nginx configuration file", "nginx"),
    ("VimL", "vim"),
    ("GraphQL", "graphql"),
    ("Julia", "julia jl"),
    ("OCaml", "ocaml"),
    ("F#", "fsharp f#"),
    ("Groovy", "groovy"),
    ("Matlab", "matlab"),
    ("Nix", "nixos nix"),
    ("Zig", "zig"),
    ("NASM", "nasm"),
    ("Common Lisp", "common-lisp cl lisp"),
    ("Scheme", "scheme scm"),
    ("Elm", "elm"),
    ("Protocol Buffer", "protobuf proto"),
    ("Batchfile", "batch bat dosbatch winbatch"),
    ("Fortran", "fortran f90"),
    ("Verilog", "verilog v"),
    ("CoffeeScript", "coffeescript coffee-script coffee"),
];

#[cfg(test)]
mod tests {
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
             <code>def f():\n    x = &#39;&lt;&#39;\n</code></pre></div>\n"
        );
        let mut s = String::new();
        block(&mut s, "inventedlanguage", "x\n");
        assert!(s.contains("data-code-language=\"inventedlanguage\""), "{s}");
    }
}
