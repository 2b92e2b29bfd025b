//! How syntect's scopes show in Pygments' terms: the scope-prefix rules per language, the
//! words a grammar scopes like others, and the class of a scope stack. Pure tables and
//! lookups; writes no HTML (that is [`super::highlight`]).

/// How a syntect scope shows in Pygments' terms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Rule {
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
pub(super) const YAML_PLAIN: &str = "l l-Scalar l-Scalar-Plain";

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
pub(super) const CLASSES: &[(&str, &str, Rule)] = &[
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
pub(super) const WORDS: &[(&str, &str, &str)] = &[
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
pub(super) fn rule_for(scope: &str) -> Rule {
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
pub(super) fn class_of(scopes: &[&str]) -> Option<Class> {
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
pub(super) type Class = (&'static str, bool);

/// Pygments' class for a number a grammar only calls numeric, from its digits.
pub(super) fn number_class(text: &str) -> &'static str {
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
