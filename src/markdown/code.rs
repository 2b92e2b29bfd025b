//! Code blocks in upstream's `codehilite` wrapper, and what a fence's info string asks for.
//!
//! Upstream highlights with Pygments; we keep its HTML structure and the language's display
//! name in `data-code-language`, and colour the common languages with syntect, writing
//! Pygments' short token classes (`k`, `nf`, `s1`, ...) that clients' stylesheets key on.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use syntect::parsing::{ParseState, Scope, ScopeStack, SyntaxSet};

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

/// Appends a code block: `<div class="codehilite" data-code-language="…"><pre><span></span><code>…</code></pre></div>`,
/// with Pygments' token spans inside when the language is one [`highlight`] knows.
pub(super) fn block(out: &mut String, lang: &str, code: &str) {
    let name = display_name(lang);
    out.push_str("<div class=\"codehilite\"");
    if !lang.is_empty() {
        out.push_str(" data-code-language=\"");
        html::attr(out, name.unwrap_or(lang));
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
    let lines = &lines[first..last];
    let coloured = name.is_some_and(|name| highlight(out, name, lines));
    if !coloured {
        for line in lines {
            html::attr(out, line);
            out.push('\n');
        }
    }
    if lines.is_empty() {
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

/// Languages we colour: Pygments' display name (see [`LANGUAGES`]), the name of syntect's
/// bundled syntax that reads it, and the classes Pygments gives the words and the punctuation
/// that syntax leaves unscoped. TypeScript and JSX are read with the JavaScript syntax
/// (syntect bundles no TypeScript grammar); every other language stays escaped and uncoloured.
const HIGHLIGHTED: &[(&str, &str, Option<&str>, Option<&str>)] = &[
    ("Python", "Python", Some("n"), Some("p")),
    ("Python 2.x", "Python", Some("n"), Some("p")),
    ("Rust", "Rust", Some("n"), Some("p")),
    ("JavaScript", "JavaScript", Some("nx"), Some("p")),
    ("TypeScript", "JavaScript", Some("nx"), Some("p")),
    ("JSX", "JavaScript", Some("nx"), Some("p")),
    ("Go", "Go", Some("nx"), Some("p")),
    ("Java", "Java", Some("n"), Some("p")),
    ("C", "C", Some("n"), Some("p")),
    ("C++", "C++", Some("n"), Some("p")),
    ("Bash", "Bourne Again Shell (bash)", None, None),
    ("JSON", "JSON", None, None),
    ("YAML", "YAML", None, None),
    ("SQL", "SQL", Some("n"), Some("p")),
    ("PostgreSQL SQL dialect", "SQL", Some("n"), Some("p")),
    ("MySQL", "SQL", Some("n"), Some("p")),
    ("HTML", "HTML", None, None),
    ("CSS", "CSS", None, None),
    ("Markdown", "Markdown", None, None),
];

/// Code blocks larger than this (bytes), with more lines, or with a longer line are left
/// uncoloured: highlighting is regular-expression work on untrusted text.
const MAX_HIGHLIGHT_BYTES: usize = 20_000;
const MAX_HIGHLIGHT_LINES: usize = 1_000;
const MAX_HIGHLIGHT_LINE_BYTES: usize = 1_000;
/// A block still being highlighted after this long is left uncoloured (a safety net: the
/// limits above keep real code in the milliseconds; the first block of a language also pays
/// for compiling its grammar's expressions).
const HIGHLIGHT_BUDGET: Duration = Duration::from_secs(1);

/// How a syntect scope shows in Pygments' terms.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Rule {
    /// A token of this class, unless an enclosing [`Rule::Whole`] scope claims it.
    Token(&'static str),
    /// One token of this class with everything inside it (strings, comments, numbers), as
    /// Pygments lexes them, except [`Rule::Inner`] tokens.
    Whole(&'static str),
    /// A token of its own even inside a [`Rule::Whole`] one (escapes, interpolations).
    Inner(&'static str),
    /// Says nothing: the enclosing scopes decide.
    Defer,
    /// Code embedded in something else (a string's interpolation, a script in HTML): the
    /// scopes outside do not apply inside.
    Boundary,
}

use Rule::{Boundary, Defer, Inner as I, Token as T, Whole as W};

/// Pygments' class for YAML's plain scalars (`Literal.Scalar.Plain`, written with its parents).
const YAML_PLAIN: &str = "l l-Scalar l-Scalar-Plain";

/// The mapping: a syntect scope name prefix (whole dotted atoms) and a language (the scope's
/// last atom, as syntect's grammars end every scope: `python`, `js`, ...; empty for any) →
/// how Pygments' lexer for that language shows the construct. A language's own rules come
/// first, then the longest matching prefix wins; scopes matching nothing say nothing.
/// Pygments' classes: `c1`/`cm`/`cp`/`cpf` comments, `s`/`s1`/`s2`/`sc`/`sb`/`sd`/`sa`/`sr`
/// strings with `se` escapes and `si` interpolation, `m`/`mi`/`mf`/`mh`/`mo`/`mb` numbers,
/// `k`/`kd`/`kn`/`kt`/`kc` keywords, `o`/`ow` operators, `p` punctuation, `n`/`nx` names,
/// `nb` builtins, `bp` pseudo-builtins, `nf` functions, `fm` macros, `nc` classes, `nn`
/// namespaces, `nd` decorators, `nt` tags, `na` attributes, `nv` variables, `ni` entities,
/// `gh`/`gs`/`ge` headings, strong and emphasis.
const CLASSES: &[(&str, &str, Rule)] = &[
    // Comments.
    ("comment", "", W("c")),
    ("comment.line", "", W("c1")),
    ("comment.block", "", W("cm")),
    ("comment.line.documentation", "rust", W("sd")),
    ("comment.block.documentation", "rust", W("sd")),
    ("comment.block.documentation", "python", W("sd")),
    ("meta.annotation", "rust", W("cp")),
    ("keyword.control.import", "c", T("cp")),
    ("keyword.control.import", "c++", T("cp")),
    ("meta.preprocessor.macro", "c", W("cp")),
    ("meta.preprocessor.macro", "c++", W("cp")),
    ("string.quoted.other.lt-gt.include", "", W("cpf")),
    ("string.quoted.double.include", "", W("cpf")),
    ("meta.tag.sgml", "html", W("cp")),
    // Strings.
    ("string", "", W("s")),
    ("string.quoted.single", "", W("s1")),
    ("string.quoted.double", "", W("s2")),
    ("string.quoted.double", "rust", W("s")),
    ("string.quoted.single", "rust", W("sc")),
    ("string.quoted.double", "go", W("s")),
    ("string.quoted.single", "go", W("sc")),
    ("string.quoted.double", "java", W("s")),
    ("string.quoted.single", "java", W("sc")),
    ("string.quoted.double", "c", W("s")),
    ("string.quoted.single", "c", W("sc")),
    ("string.quoted.double", "c++", W("s")),
    ("string.quoted.single", "c++", W("sc")),
    ("string.quoted", "html", W("s")),
    ("string.quoted", "yaml", W("s")),
    ("string.unquoted.plain", "yaml", W(YAML_PLAIN)),
    ("string.unquoted", "shell", Defer),
    ("string.template", "", W("sb")),
    ("string.regexp", "", W("sr")),
    ("storage.type.string", "python", T("sa")),
    ("meta.structure.dictionary.key", "json", W("nt")),
    ("constant.character.escape", "", I("se")),
    ("constant.other.placeholder", "", I("si")),
    ("constant.other.placeholder", "rust", Defer),
    ("punctuation.section.interpolation", "", I("si")),
    ("punctuation.definition.template-expression", "js", I("si")),
    ("meta.group.expansion.parameter", "shell", I("nv")),
    ("meta.interpolation", "", Boundary),
    ("source", "", Boundary),
    // Numbers (`m` is refined by the digits: see [`number_class`]).
    ("constant.numeric", "", W("m")),
    ("constant.numeric.integer", "", W("mi")),
    ("constant.numeric.integer.hexadecimal", "", W("mh")),
    ("constant.numeric.integer.octal", "", W("mo")),
    ("constant.numeric.integer.binary", "", W("mb")),
    ("constant.numeric.float", "", W("mf")),
    ("constant.numeric", "js", W("mf")),
    ("constant.numeric", "yaml", W(YAML_PLAIN)),
    ("constant.language", "yaml", W(YAML_PLAIN)),
    ("constant.other.color", "", W("mh")),
    ("keyword.other.unit", "css", I("kt")),
    // Keywords and operators.
    ("keyword", "", T("k")),
    ("keyword.control.import", "", T("kn")),
    ("keyword.other.package", "java", T("kn")),
    ("keyword.other.import", "java", T("kn")),
    ("keyword.declaration", "", T("kd")),
    ("keyword.operator", "", T("o")),
    ("keyword.operator.word", "", T("ow")),
    ("keyword.operator.logical", "python", T("ow")),
    ("keyword.operator.logical.continue", "shell", T("p")),
    ("keyword.operator.assignment", "go", T("p")),
    ("storage.type", "", T("kt")),
    ("storage.type.function", "python", T("k")),
    ("storage.type.class", "python", T("k")),
    ("storage.type.function", "rust", T("k")),
    ("storage.type.struct", "rust", T("k")),
    ("storage.type.enum", "rust", T("k")),
    ("storage.type.trait", "rust", T("k")),
    ("storage.type.impl", "rust", T("k")),
    ("storage.type.module", "rust", T("k")),
    ("storage.type.numeric", "rust", T("k")),
    ("storage.type", "js", T("kd")),
    ("storage.modifier", "", T("k")),
    ("storage.modifier", "java", T("kd")),
    ("storage.modifier.lifetime", "rust", T("na")),
    ("constant.language", "", T("kc")),
    ("variable.language", "", T("k")),
    ("variable.language", "python", T("bp")),
    ("variable.language", "rust", T("bp")),
    ("variable.language", "js", T("k")),
    ("support.function.aggregate", "sql", T("k")),
    // Names.
    ("support.function", "", T("nb")),
    ("support.function", "js", T("nx")),
    ("support.type", "", T("nb")),
    ("support.type.object", "js", T("nx")),
    ("support.class", "", T("nb")),
    ("support.class", "java", T("n")),
    ("support.class.import", "java", T("nn")),
    ("support.other.package", "java", T("nn")),
    ("support.macro", "", T("fm")),
    ("support.type.property-name", "", T("k")),
    ("support.constant.property-value", "", T("kc")),
    ("support.constant.color", "css", T("kc")),
    ("entity.name.function", "", T("nf")),
    ("entity.name.function", "js", T("nx")),
    ("entity.name.function", "go", T("nx")),
    ("entity.name.function.decorator", "", T("nd")),
    ("entity.name.class", "", T("nc")),
    ("entity.name.struct", "", T("nc")),
    ("entity.name.struct", "go", T("nx")),
    ("entity.name.enum", "", T("nc")),
    ("entity.name.union", "", T("nc")),
    ("entity.name.trait", "", T("nc")),
    ("entity.name.type", "", T("nc")),
    ("entity.name.type", "go", T("nx")),
    ("entity.name.namespace", "", T("nn")),
    ("entity.name.label", "", T("nl")),
    ("entity.name.tag", "", T("nt")),
    ("entity.name.tag", "yaml", I("nt")),
    ("entity.other.inherited-class", "", T("n")),
    ("entity.other.attribute-name", "", T("na")),
    ("entity.other.attribute-name.class", "css", T("nc")),
    ("entity.other.attribute-name.id", "css", T("nn")),
    ("entity.other.pseudo-class", "css", T("nd")),
    ("meta.annotation", "", T("nd")),
    ("variable.annotation", "", T("nd")),
    ("meta.import-source", "python", T("nn")),
    ("constant.character.entity", "", W("ni")),
    ("variable", "", T("n")),
    ("variable", "js", T("nx")),
    ("variable", "go", T("nx")),
    ("variable.function", "shell", Defer),
    ("variable.other.readwrite", "shell", Defer),
    ("variable.other.readwrite.assignment", "shell", T("nv")),
    ("variable.parameter.option", "shell", Defer),
    // Punctuation.
    ("punctuation", "", T("p")),
    ("punctuation", "markdown", Defer),
    ("punctuation.definition.variable", "", Defer),
    ("punctuation.definition.parameter", "shell", Defer),
    ("punctuation.definition.annotation", "", T("nd")),
    ("punctuation.definition.decorator", "", T("nd")),
    ("punctuation.accessor.dot", "python", T("o")),
    ("punctuation.separator.key-value", "html", T("o")),
    (
        "punctuation.definition.block.sequence.item",
        "yaml",
        T("p p-Indicator"),
    ),
    ("punctuation.definition.list_item", "markdown", T("k")),
    // Markdown.
    ("markup.heading", "", W("gh")),
    ("markup.bold", "", W("gs")),
    ("markup.italic", "", W("ge")),
    ("markup.raw.inline", "", W("sb")),
    ("meta.link.inline.description", "markdown", T("nt")),
    ("markup.underline.link", "markdown", T("na")),
    ("invalid", "", Defer),
];

/// Words whose scope in syntect's grammar is shared with words Pygments shows differently
/// (`let` and `i32` are both `storage.type.rust`): language (last scope atom), word, class.
const WORDS: &[(&str, &str, &str)] = &[
    ("python", "self", "bp"),
    ("python", "cls", "bp"),
    ("rust", "let", "kd"),
    ("rust", "Self", "bp"),
    ("js", "from", "kr"),
    ("go", "package", "kn"),
    ("go", "func", "kd"),
    ("go", "type", "kd"),
    ("go", "struct", "kd"),
    ("go", "interface", "kd"),
    ("go", "var", "kd"),
    ("go", "const", "kd"),
    ("java", "class", "kd"),
    ("java", "interface", "kd"),
    ("java", "enum", "kd"),
    ("c", "struct", "k"),
    ("c", "union", "k"),
    ("c", "enum", "k"),
    ("c++", "struct", "k"),
    ("c++", "union", "k"),
    ("c++", "enum", "k"),
    ("c++", "class", "k"),
];

/// The rule for one scope name in [`CLASSES`]: the scope's own language's rules first, then
/// the longest prefix.
fn rule_for(scope: &str) -> Rule {
    let lang = scope.rsplit('.').next().unwrap_or("");
    CLASSES
        .iter()
        .filter(|(prefix, rule_lang, _)| {
            (rule_lang.is_empty() || *rule_lang == lang)
                && scope
                    .strip_prefix(prefix)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
        })
        .max_by_key(|(prefix, rule_lang, _)| (!rule_lang.is_empty(), prefix.len()))
        .map_or(Defer, |(_, _, rule)| *rule)
}

/// Pygments' class for text under these scopes (outermost first), if any, and whether it is
/// one whole token (a string or comment keeps its spaces inside).
fn class_of(scopes: &[&str]) -> Option<Class> {
    let mut found: Option<(Rule, &'static str)> = None;
    for scope in scopes.iter().rev() {
        match rule_for(scope) {
            Boundary => break,
            W(class) => {
                if !matches!(found, Some((I(_), _))) {
                    found = Some((W(class), class));
                }
            }
            rule @ (T(class) | I(class)) => {
                if found.is_none() {
                    found = Some((rule, class));
                }
            }
            Defer => {}
        }
    }
    found.map(|(rule, class)| (class, matches!(rule, W(_))))
}

/// A Pygments class, and whether its token may hold spaces.
type Class = (&'static str, bool);

/// Pygments' class for a number a grammar only calls numeric, from its digits.
fn number_class(text: &str) -> &'static str {
    let t = text.to_ascii_lowercase();
    if t.starts_with("0x") {
        "mh"
    } else if t.chars().all(|c| c.is_ascii_digit() || c == '_') {
        "mi"
    } else if t.contains(['.', 'e']) {
        "mf"
    } else {
        "m"
    }
}

/// Syntect's bundled syntaxes, loaded on first use.
fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

/// [`class_of`] a scope stack, and the innermost scope's language if [`WORDS`] has words for
/// it; remembered per stack (the same few stacks recur).
fn stack_class(stack: &[Scope]) -> StackClass {
    type Cache = HashMap<Vec<Scope>, StackClass>;
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(hit) = cache.lock().ok().and_then(|c| c.get(stack).copied()) {
        return hit;
    }
    let names: Vec<String> = stack.iter().map(|s| s.build_string()).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let lang = names
        .last()
        .and_then(|s| s.rsplit('.').next())
        .and_then(|atom| WORDS.iter().find(|(l, _, _)| *l == atom))
        .map(|(l, _, _)| *l);
    let class = (class_of(&names), lang);
    if let Ok(mut c) = cache.lock() {
        // Stacks are few in practice; a bound keeps odd input from growing it.
        if c.len() >= 20_000 {
            c.clear();
        }
        c.insert(stack.to_vec(), class);
    }
    class
}

/// Writes `lines` coloured as Pygments would for language `name` (a display name), each
/// followed by `\n`; false (and nothing written) when the language is not one we colour or
/// the block is beyond the limits above.
fn highlight(out: &mut String, name: &str, lines: &[&str]) -> bool {
    let Some(&(_, syntax_name, words, punctuation)) = HIGHLIGHTED.iter().find(|(n, ..)| *n == name)
    else {
        return false;
    };
    let bytes: usize = lines.iter().map(|l| l.len() + 1).sum();
    if lines.is_empty()
        || bytes > MAX_HIGHLIGHT_BYTES
        || lines.len() > MAX_HIGHLIGHT_LINES
        || lines.iter().any(|l| l.len() > MAX_HIGHLIGHT_LINE_BYTES)
    {
        return false;
    }
    let set = syntaxes();
    let Some(syntax) = set.find_syntax_by_name(syntax_name) else {
        return false;
    };
    let mut state = ParseState::new(syntax);
    let started = Instant::now();
    let mut stack = ScopeStack::new();
    let mut w = Spans {
        html: String::with_capacity(bytes * 3),
        open: None,
        words,
        punctuation,
    };
    let mut line_nl = String::new();
    for line in lines {
        if started.elapsed() > HIGHLIGHT_BUDGET {
            return false;
        }
        line_nl.clear();
        // The grammar must see `<` itself (the renderer hides it while parsing Markdown);
        // escaping below turns it back into `&lt;`.
        line_nl.push_str(&html::unhide(line));
        line_nl.push('\n');
        let Ok(ops) = state.parse_line(&line_nl, set) else {
            return false;
        };
        let mut pos = 0;
        for (at, op) in ops {
            let at = at.min(line_nl.len());
            if at > pos && line_nl.is_char_boundary(at) {
                w.segment(&line_nl[pos..at], stack_class(stack.as_slice()));
                pos = at;
            }
            if stack.apply(&op).is_err() {
                return false;
            }
        }
        w.segment(&line_nl[pos..], stack_class(stack.as_slice()));
    }
    w.close();
    out.push_str(&w.html);
    true
}

/// Builds the coloured HTML: Pygments' layout, where whitespace between tokens is bare, a
/// token never crosses a line end, and neighbouring tokens of one class share a span.
struct Spans {
    html: String,
    open: Option<&'static str>,
    /// The classes of words and of punctuation under no scope that names them.
    words: Option<&'static str>,
    punctuation: Option<&'static str>,
}

/// What [`stack_class`] tells of a scope stack.
type StackClass = (Option<Class>, Option<&'static str>);

impl Spans {
    /// Text under one scope stack, whose class and language are `class`.
    fn segment(&mut self, text: &str, (class, lang): StackClass) {
        let class = match class {
            Some(("m", true)) => Some((number_class(text), true)),
            Some((_, false)) => WORDS
                .iter()
                .find(|(l, word, _)| Some(*l) == lang && *word == text)
                .map_or(class, |(_, _, c)| Some((*c, false))),
            other => other,
        };
        match class {
            // Strings, comments and prose keep their inner spaces in one token.
            Some((c, true)) => {
                for (i, part) in text.split('\n').enumerate() {
                    if i > 0 {
                        self.piece(None, "\n");
                    }
                    self.piece(Some(c), part);
                }
            }
            Some((c, false)) => self.words(text, c),
            None => {
                // 0: blank, 1: word, 2: punctuation.
                let kind = |ch: char| {
                    if ch.is_whitespace() {
                        0
                    } else if ch.is_alphanumeric() || ch == '_' {
                        1
                    } else {
                        2
                    }
                };
                let mut rest = text;
                while let Some(ch) = rest.chars().next() {
                    let k = kind(ch);
                    let len = rest.find(|c: char| kind(c) != k).unwrap_or(rest.len());
                    let (run, tail) = rest.split_at(len);
                    let class = match k {
                        1 if !ch.is_ascii_digit() => self.words,
                        2 => self.punctuation,
                        _ => None,
                    };
                    self.piece(class, run);
                    rest = tail;
                }
            }
        }
    }

    /// Writes `text` with its non-blank runs in tokens of `class` and its blanks bare.
    fn words(&mut self, text: &str, class: &'static str) {
        let mut rest = text;
        while let Some(ch) = rest.chars().next() {
            let blank = ch.is_whitespace();
            let len = rest
                .find(|c: char| c.is_whitespace() != blank)
                .unwrap_or(rest.len());
            let (run, tail) = rest.split_at(len);
            self.piece((!blank).then_some(class), run);
            rest = tail;
        }
    }

    fn piece(&mut self, class: Option<&'static str>, text: &str) {
        if text.is_empty() {
            return;
        }
        if self.open != class {
            self.close();
            if let Some(c) = class {
                self.html.push_str("<span class=\"");
                self.html.push_str(c);
                self.html.push_str("\">");
            }
            self.open = class;
        }
        html::attr(&mut self.html, text);
    }

    fn close(&mut self) {
        if self.open.take().is_some() {
            self.html.push_str("</span>");
        }
    }
}

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
}
