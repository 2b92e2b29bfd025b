//! Colouring one code block with syntect within its limits (size, lines, line length, time),
//! writing Pygments' token spans. What the scopes mean is [`super::classes`]; which languages
//! are coloured is [`super::languages`]. Must not write the block's wrapper (that is the
//! parent's [`super::block`]).

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use syntect::parsing::{ParseState, Scope, ScopeStack, SyntaxSet};

use super::classes::{Class, WORDS, class_of, number_class};
use super::languages::HIGHLIGHTED;
use crate::markdown::html;

/// Code blocks larger than this (bytes), with more lines, or with a longer line are left
/// uncoloured: highlighting is regular-expression work on untrusted text.
pub(super) const MAX_HIGHLIGHT_BYTES: usize = 20_000;
pub(super) const MAX_HIGHLIGHT_LINES: usize = 1_000;
pub(super) const MAX_HIGHLIGHT_LINE_BYTES: usize = 1_000;
/// A block still being highlighted after this long is left uncoloured (a safety net: the
/// limits above keep real code in the milliseconds; the first block of a language also pays
/// for compiling its grammar's expressions).
pub(super) const HIGHLIGHT_BUDGET: Duration = Duration::from_secs(1);
/// Syntect's bundled syntaxes, loaded on first use.
pub(super) fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

/// [`class_of`] a scope stack, and the innermost scope's language if [`WORDS`] has words for
/// it; remembered per stack (the same few stacks recur).
pub(super) fn stack_class(stack: &[Scope]) -> StackClass {
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
pub(super) fn highlight(out: &mut String, name: &str, lines: &[&str]) -> bool {
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
pub(super) struct Spans {
    html: String,
    open: Option<&'static str>,
    /// The classes of words and of punctuation under no scope that names them.
    words: Option<&'static str>,
    punctuation: Option<&'static str>,
}

/// What [`stack_class`] tells of a scope stack.
pub(super) type StackClass = (Option<Class>, Option<&'static str>);

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
