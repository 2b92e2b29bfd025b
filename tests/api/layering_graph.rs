//! The area graph of the crate, read from its sources: every `use` tree (grouped imports,
//! `self`/`super` paths, renames) and every `crate::x` path written in an expression, resolved to
//! the area (top-level module) it names. The graph is checked against the one table of allowed
//! edges below, which the code map in `src/lib.rs` quotes in its "Layers" section; the table is
//! acyclic and holds no edge the code does not use, so it says what is, not what might be.
//! Inside `domain/` the known cycles between its modules are listed with their reason; the list
//! may only shrink.
//!
//! Lines from a file's `#[cfg(test)]` onwards are not read (unit tests sit at the end of their
//! file), nor are comments and the contents of string and character literals.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Each area and the areas it may name. An area is a top-level module of the library (`main`
/// and the executables, which may name anything, are not areas). The code map in `src/lib.rs` quotes this table.
pub const LAYERS: &[(&str, &[&str])] = &[
    ("ids", &[]),
    ("error", &[]),
    ("time", &[]),
    ("emoji", &[]),
    ("password", &[]),
    ("private_files", &[]),
    ("pem", &[]),
    ("data_lock", &["private_files"]),
    ("model", &["ids"]),
    ("metrics", &[]),
    ("config", &["model", "pem"]),
    ("http", &["config", "metrics", "pem", "time"]),
    ("mail", &["config"]),
    ("markdown", &["emoji", "time"]),
    ("events", &["ids", "model", "private_files"]),
    (
        "db",
        &[
            "config",
            "error",
            "events",
            "ids",
            "metrics",
            "model",
            "private_files",
            "time",
        ],
    ),
    (
        "domain",
        &[
            "config",
            "db",
            "emoji",
            "error",
            "events",
            "ids",
            "mail",
            "markdown",
            "model",
            "password",
            "private_files",
            "time",
        ],
    ),
    (
        "restore",
        &[
            "data_lock",
            "db",
            "domain",
            "error",
            "events",
            "private_files",
        ],
    ),
    ("acme", &["config", "http", "pem", "private_files"]),
    (
        "zulip",
        &[
            "db", "domain", "emoji", "error", "events", "http", "ids", "markdown", "metrics",
            "model", "password", "time",
        ],
    ),
    (
        "dtrack",
        &[
            "db", "domain", "error", "http", "ids", "metrics", "model", "time",
        ],
    ),
    (
        "web",
        &[
            "domain", "error", "http", "model", "password", "time", "zulip",
        ],
    ),
    (
        "listeners",
        &[
            "db", "domain", "dtrack", "error", "events", "http", "metrics", "model", "web", "zulip",
        ],
    ),
    (
        "app",
        &[
            "acme",
            "config",
            "data_lock",
            "domain",
            "dtrack",
            "error",
            "events",
            "http",
            "listeners",
            "metrics",
            "private_files",
            "time",
            "web",
            "zulip",
        ],
    ),
    (
        "cli",
        &[
            "app", "config", "domain", "error", "http", "model", "restore",
        ],
    ),
];

/// Edges of the table that close a cycle today, each with why it is tolerated for now. The
/// acyclicity check ignores exactly these; the list may only shrink. None are left: the
/// listeners stand above the APIs, and the PEM reading both `config` and `http` need is `pem`.
pub const CYCLE_EDGES: &[(&str, &str, &str)] = &[];

/// Edges between the modules of `domain/` (by their first segment under `domain::`) that
/// close a cycle, each with why it exists. Without them the modules of `domain/` form no cycle.
/// The list may only shrink: a new cycle fails, and so does a listed edge that no longer
/// closes one.
pub const DOMAIN_CYCLE_EDGES: &[(&str, &str, &str)] = &[
    (
        "settings",
        "records",
        "turning draft sync off forgets the drafts",
    ),
    (
        "settings",
        "users",
        "`PATCH /settings` renames and changes passwords by the user rules",
    ),
    ("user_groups", "notices", "group changes post notices"),
    ("channels", "notices", "channel changes post notices"),
    (
        "uploads",
        "messages",
        "a file is readable through a message that links it",
    ),
    (
        "messages",
        "notices",
        "moving and resolving topics post notices",
    ),
    (
        "messages",
        "outgoing_webhooks",
        "a sent message queues its bots' deliveries in its commit",
    ),
    (
        "messages",
        "records",
        "muted senders' messages are marked read",
    ),
];

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("source directory")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The module a library file defines (`domain/messages/send.rs` → `domain::messages::send`,
/// `x/mod.rs` → `x`, `lib.rs` → the root); `None` for the executables (`main.rs`, `bin/`).
pub fn module_of(rel: &str) -> Option<Vec<String>> {
    if rel.starts_with("bin/") || rel == "main.rs" {
        return None;
    }
    let stem = rel.strip_suffix(".rs")?;
    let mut parts: Vec<String> = stem.split('/').map(str::to_string).collect();
    if matches!(parts.last().map(String::as_str), Some("mod") | Some("lib")) {
        parts.pop();
    }
    Some(parts)
}

/// The code of a file with comments removed and the contents of string and character
/// literals blanked (newlines kept, so offsets still give line numbers), up to its first
/// `#[cfg(test)]`.
pub fn code_of(text: &str) -> String {
    let cut = text
        .lines()
        .scan(0usize, |at, line| {
            let start = *at;
            *at += line.len() + 1;
            Some((start, line))
        })
        .find(|(_, line)| line.trim_start().starts_with("#[cfg(test)]"))
        .map_or(text.len(), |(start, _)| start);
    let chars: Vec<char> = text[..cut].chars().collect();
    let mut out = String::with_capacity(chars.len());
    let mut i = 0;
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && !chars[..i]
                .last()
                .is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            // A raw string: r"…", r#"…"#, …
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            out.push_str("r\"");
            j += 1;
            loop {
                match chars.get(j) {
                    None => break,
                    Some('"') if (0..hashes).all(|k| chars.get(j + 1 + k) == Some(&'#')) => {
                        j += 1 + hashes;
                        break;
                    }
                    Some(&x) => out.push(blank(x)),
                }
                j += 1;
            }
            out.push('"');
            i = j;
        } else if c == '"' {
            out.push('"');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < chars.len() {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
            out.push('"');
            i += 1;
        } else if c == '\'' {
            // A character literal ('x', '\n', '\'', '\u{..}') or a lifetime ('a).
            let close = if next == Some('\\') {
                (i + 2..chars.len().min(i + 12)).find(|&k| chars[k] == '\'')
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match close {
                Some(k) => {
                    out.push_str("' '");
                    i = k + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The paths a `use` tree names, expanded (`a::{b, c::{d, self}}` → `a::b`, `a::c::d`, `a::c`).
pub fn expand_use(tree: &str) -> Vec<Vec<String>> {
    fn go(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
        let tree = tree.trim();
        if tree.is_empty() {
            return;
        }
        let Some(open) = tree.find('{') else {
            let tree = tree.split(" as ").next().unwrap_or(tree).trim();
            let mut path = prefix.to_vec();
            for seg in tree.split("::").map(str::trim).filter(|s| !s.is_empty()) {
                if seg != "self" && seg != "*" {
                    path.push(seg.to_string());
                }
            }
            out.push(path);
            return;
        };
        let mut path = prefix.to_vec();
        for seg in tree[..open]
            .split("::")
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            path.push(seg.to_string());
        }
        let close = tree.rfind('}').unwrap_or(tree.len());
        let body = &tree[open + 1..close.max(open + 1)];
        let mut depth = 0;
        let mut start = 0;
        for (k, ch) in body.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    go(&path, &body[start..k], out);
                    start = k + 1;
                }
                _ => {}
            }
        }
        go(&path, &body[start..], out);
    }
    let mut out = Vec::new();
    go(&[], tree, &mut out);
    out
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Every path a file's code names with its line: `use` trees, and `crate::`/`super::`/`self::`
/// paths written anywhere else.
pub fn named_paths(code: &str) -> Vec<(usize, Vec<String>)> {
    let line_of = |at: usize| code[..at].matches('\n').count() + 1;
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let mut in_use = Vec::new();
    // `use` trees.
    let mut at = 0;
    while let Some(k) = code[at..].find("use ") {
        let i = at + k;
        at = i + 4;
        let before = code[..i].chars().last();
        if before.is_some_and(|c| is_word(c) || c == ':' || c == '$') {
            continue;
        }
        let Some(end) = code[i..].find(';') else {
            break;
        };
        let tree: String = code[i + 4..i + end]
            .chars()
            .map(|c| if c.is_whitespace() { ' ' } else { c })
            .collect();
        in_use.push((i, i + end));
        for path in expand_use(&tree) {
            out.push((line_of(i), path));
        }
    }
    // Paths in expressions, types and attributes.
    for root in ["crate::", "super::", "self::"] {
        for (i, _) in code.match_indices(root) {
            if i > 0
                && (is_word(bytes[i - 1] as char) || bytes[i - 1] == b'$' || bytes[i - 1] == b':')
            {
                continue;
            }
            if in_use.iter().any(|&(s, e)| i > s && i < e) {
                continue;
            }
            let path: Vec<String> = code[i..]
                .split(|c: char| !(is_word(c) || c == ':'))
                .next()
                .unwrap_or("")
                .split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            out.push((line_of(i), path));
        }
    }
    out
}

/// A named path resolved against the module that names it: the crate path it means, or `None`
/// when it names something outside the crate.
pub fn resolve(module: &[String], path: &[String]) -> Option<Vec<String>> {
    let first = path.first()?;
    match first.as_str() {
        "crate" => Some(path[1..].to_vec()),
        "super" | "self" => {
            let mut base = module.to_vec();
            let mut rest = path;
            while let Some(seg) = rest.first() {
                match seg.as_str() {
                    "super" => {
                        base.pop();
                    }
                    "self" => {}
                    _ => break,
                }
                rest = &rest[1..];
            }
            base.extend(rest.iter().cloned());
            Some(base)
        }
        _ => None,
    }
}

/// One edge of the graph as the code writes it.
pub struct Use {
    pub file: String,
    pub line: usize,
    pub from: Vec<String>,
    pub to: Vec<String>,
}

/// Every crate path named by every library file, resolved.
pub fn uses() -> Vec<Use> {
    let root = src_dir();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut out = Vec::new();
    for p in files {
        let rel = p
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let Some(module) = module_of(&rel) else {
            continue;
        };
        let code = code_of(&fs::read_to_string(&p).expect("readable source"));
        for (line, path) in named_paths(&code) {
            if let Some(to) = resolve(&module, &path)
                && !to.is_empty()
            {
                out.push(Use {
                    file: rel.clone(),
                    line,
                    from: module.clone(),
                    to,
                });
            }
        }
    }
    out
}

/// The library's top-level modules, from the `pub mod` lines of `src/lib.rs`.
pub fn areas() -> BTreeSet<String> {
    let lib = fs::read_to_string(src_dir().join("lib.rs")).expect("lib.rs");
    lib.lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';').trim().to_string())
        .collect()
}

/// Area → areas it names, with one place each edge is written.
pub fn area_graph() -> BTreeMap<(String, String), String> {
    let areas = areas();
    let mut out = BTreeMap::new();
    for u in uses() {
        let (Some(from), Some(to)) = (u.from.first(), u.to.first()) else {
            continue;
        };
        if from == to || !areas.contains(to) {
            continue;
        }
        out.entry((from.clone(), to.clone()))
            .or_insert_with(|| format!("src/{}:{}", u.file, u.line));
    }
    out
}

fn allowed() -> BTreeSet<(String, String)> {
    LAYERS
        .iter()
        .flat_map(|(a, tos)| tos.iter().map(move |t| (a.to_string(), t.to_string())))
        .collect()
}

/// The strongly connected components with more than one node (iterative Tarjan).
pub fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let nodes: Vec<&String> = graph
        .keys()
        .chain(graph.values().flatten())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let pos: BTreeMap<&String, usize> = nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let succ: Vec<Vec<usize>> = nodes
        .iter()
        .map(|n| {
            graph
                .get(*n)
                .map(|s| s.iter().map(|t| pos[t]).collect())
                .unwrap_or_default()
        })
        .collect();
    let n = nodes.len();
    let (mut index, mut low, mut on) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut next, mut out) = (Vec::new(), 0, Vec::new());
    for start in 0..n {
        if index[start] != usize::MAX {
            continue;
        }
        let mut work = vec![(start, 0usize)];
        while let Some(&mut (v, ref mut child)) = work.last_mut() {
            if *child == 0 {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on[v] = true;
            }
            if let Some(&w) = succ[v].get(*child) {
                *child += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut scc = Vec::new();
                while let Some(w) = stack.pop() {
                    on[w] = false;
                    scc.push(nodes[w].clone());
                    if w == v {
                        break;
                    }
                }
                if scc.len() > 1 {
                    scc.sort();
                    out.push(scc);
                }
            }
        }
    }
    out.sort();
    out
}

#[test]
fn areas_name_only_the_areas_the_layers_allow() {
    let allowed = allowed();
    let graph = area_graph();
    let mut problems = Vec::new();
    for ((from, to), at) in &graph {
        if !allowed.contains(&(from.clone(), to.clone())) {
            problems.push(format!(
                "{at}: `{from}` names `{to}`, which the layers table does not allow (move the code)"
            ));
        }
    }
    for (from, to) in &allowed {
        if !graph.contains_key(&(from.clone(), to.clone())) {
            problems.push(format!(
                "the layers table allows `{from}` -> `{to}`, which no code uses: remove the edge"
            ));
        }
    }
    let areas = areas();
    for (area, _) in LAYERS {
        if !areas.contains(*area) {
            problems.push(format!("the layers table names `{area}`, which is no area"));
        }
    }
    for area in &areas {
        if !LAYERS.iter().any(|(a, _)| a == area) {
            problems.push(format!("area `{area}` has no row in the layers table"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_layers_are_acyclic_but_for_the_listed_edges() {
    let tolerated: BTreeSet<(String, String)> = CYCLE_EDGES
        .iter()
        .map(|(a, b, _)| (a.to_string(), b.to_string()))
        .collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, to) in allowed() {
        if !tolerated.contains(&(from.clone(), to.clone())) {
            graph.entry(from).or_default().insert(to);
        }
    }
    let found = cycles(&graph);
    assert!(found.is_empty(), "the layers table has cycles: {found:?}");
    // Each tolerated edge still closes a cycle: without it listed, the check above would fail.
    for (from, to, _) in CYCLE_EDGES {
        let mut with = graph.clone();
        with.entry(from.to_string())
            .or_default()
            .insert(to.to_string());
        assert!(
            !cycles(&with).is_empty(),
            "`{from}` -> `{to}` closes no cycle any more: remove it from CYCLE_EDGES"
        );
    }
}

/// The graph among the modules of `domain/`, with one place each edge is written. `core` (the
/// handle every rule takes, holding the state types the other modules define) is left out: it
/// is the roof over them, not one of the rooms.
fn domain_graph() -> BTreeMap<(String, String), String> {
    let mut out = BTreeMap::new();
    let mut files = Vec::new();
    rust_files(&src_dir().join("domain"), &mut files);
    let modules: BTreeSet<String> = files
        .iter()
        .filter_map(|p| {
            let rel = p
                .strip_prefix(src_dir())
                .ok()?
                .to_string_lossy()
                .replace('\\', "/");
            module_of(&rel)?.get(1).cloned()
        })
        .filter(|m| m != "core")
        .collect();
    for u in uses() {
        if u.from.first().map(String::as_str) != Some("domain")
            || u.to.first().map(String::as_str) != Some("domain")
        {
            continue;
        }
        let (Some(a), Some(b)) = (u.from.get(1), u.to.get(1)) else {
            continue;
        };
        if a != b && modules.contains(a) && modules.contains(b) {
            out.entry((a.clone(), b.clone()))
                .or_insert_with(|| format!("src/{}:{}", u.file, u.line));
        }
    }
    out
}

fn adjacency<'a>(
    edges: impl Iterator<Item = &'a (String, String)>,
) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (a, b) in edges {
        out.entry(a.clone()).or_default().insert(b.clone());
    }
    out
}

#[test]
fn domain_cycles_are_the_listed_ones() {
    let graph = domain_graph();
    let listed: BTreeSet<(String, String)> = DOMAIN_CYCLE_EDGES
        .iter()
        .map(|(a, b, _)| (a.to_string(), b.to_string()))
        .collect();
    let rest: Vec<(String, String)> = graph
        .keys()
        .filter(|e| !listed.contains(*e))
        .cloned()
        .collect();
    let found = cycles(&adjacency(rest.iter()));
    let mut problems = Vec::new();
    for c in &found {
        let inside: Vec<String> = graph
            .iter()
            .filter(|((a, b), _)| {
                c.contains(a) && c.contains(b) && !listed.contains(&(a.clone(), b.clone()))
            })
            .map(|((a, b), at)| format!("  {a} -> {b}  ({at})"))
            .collect();
        problems.push(format!(
            "a cycle among domain modules {c:?} (break it); its edges:\n{}",
            inside.join("\n")
        ));
    }
    for (from, to, _) in DOMAIN_CYCLE_EDGES {
        let edge = (from.to_string(), to.to_string());
        if !graph.contains_key(&edge) {
            problems.push(format!(
                "listed domain edge {from} -> {to} is gone: remove it"
            ));
            continue;
        }
        let mut with = rest.clone();
        with.push(edge);
        if cycles(&adjacency(with.iter())).is_empty() {
            problems.push(format!(
                "listed domain edge {from} -> {to} closes no cycle any more: remove it"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The "Layers" section of the code map: `- `area`: `a`, `b`` per line, or `nothing`.
fn quoted_layers() -> BTreeMap<String, BTreeSet<String>> {
    let lib = fs::read_to_string(src_dir().join("lib.rs")).expect("lib.rs");
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut inside = false;
    let mut last: Option<String> = None;
    for line in lib.lines() {
        let Some(doc) = line.strip_prefix("//!") else {
            break;
        };
        let doc = doc.trim();
        if doc.starts_with("# ") {
            inside = doc == "# Layers";
            continue;
        }
        if !inside {
            continue;
        }
        let names = |rest: &str| -> Vec<String> {
            rest.split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect()
        };
        if let Some((area, rest)) = doc.strip_prefix("- `").and_then(|r| r.split_once("`:")) {
            out.insert(area.to_string(), names(rest).into_iter().collect());
            last = Some(area.to_string());
        } else if let (Some(area), true) = (&last, doc.starts_with('`')) {
            // A row continued on the next line.
            let more = names(&format!(" {doc}"));
            out.get_mut(area).expect("row").extend(more);
        } else {
            last = None;
        }
    }
    out
}

#[test]
fn the_code_map_quotes_the_layers_table() {
    let quoted = quoted_layers();
    let table: BTreeMap<String, BTreeSet<String>> = LAYERS
        .iter()
        .map(|(a, tos)| (a.to_string(), tos.iter().map(|t| t.to_string()).collect()))
        .collect();
    let mut problems = Vec::new();
    for (area, tos) in &table {
        match quoted.get(area) {
            None => problems.push(format!(
                "the code map's Layers section has no row for `{area}`"
            )),
            Some(q) if q != tos => problems.push(format!(
                "the code map says `{area}` may name {q:?}, the table says {tos:?}"
            )),
            Some(_) => {}
        }
    }
    for area in quoted.keys() {
        if !table.contains_key(area) {
            problems.push(format!(
                "the code map's Layers section lists `{area}`, the table does not"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_graph_reader_sees_what_it_looks_for() {
    let code = code_of(
        "use crate::a::{b, c::{self, d as e}};\n// use crate::x;\nlet s = \"crate::y\";\n\
         let c = '\"'; fn f<'a>() {}\nlet t = super::z::f(); /* crate::w */\n#[cfg(test)]\nuse crate::v;\n",
    );
    let mut named: Vec<String> = named_paths(&code)
        .into_iter()
        .map(|(line, p)| format!("{line}:{}", p.join("::")))
        .collect();
    named.sort();
    assert_eq!(
        named,
        [
            "1:crate::a::b",
            "1:crate::a::c",
            "1:crate::a::c::d",
            "5:super::z::f"
        ]
    );
    let m = |s: &str| s.split("::").map(str::to_string).collect::<Vec<_>>();
    assert_eq!(
        resolve(&m("domain::messages::send"), &m("super::topics::x")),
        Some(m("domain::messages::topics::x"))
    );
    assert_eq!(resolve(&m("domain::users"), &m("std::fmt")), None);
    assert_eq!(
        module_of("domain/messages/mod.rs"),
        Some(m("domain::messages"))
    );
    assert_eq!(module_of("bin/outpost-bench/main.rs"), None);
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.entry("a".into()).or_default().insert("b".into());
    g.entry("b".into()).or_default().insert("c".into());
    assert!(cycles(&g).is_empty());
    g.entry("c".into()).or_default().insert("a".into());
    assert_eq!(
        cycles(&g),
        vec![vec!["a".to_string(), "b".into(), "c".into()]]
    );
    // The real tree has edges, and the known one from domain to db among them.
    let graph = area_graph();
    assert!(graph.contains_key(&("domain".to_string(), "db".to_string())));
}

#[test]
fn every_module_is_named_in_the_code_map() {
    let lib = fs::read_to_string(src_dir().join("lib.rs")).expect("lib.rs");
    let doc: String = lib
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .collect::<Vec<_>>()
        .join("\n");
    // Backticked paths, with groups expanded: `osv::{record, purl}` names `osv::record` too.
    let tokens: BTreeSet<String> = doc
        .split('`')
        .skip(1)
        .step_by(2)
        .flat_map(|t| {
            let mut out: Vec<String> = expand_use(&t.replace('\n', " "))
                .into_iter()
                .map(|p| p.join("::"))
                .collect();
            out.push(t.to_string());
            out
        })
        .collect();
    let names = |path: &str| {
        tokens
            .iter()
            .any(|t| t == path || t.starts_with(&format!("{path}::")))
    };
    let root = src_dir();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut missing = Vec::new();
    for p in files {
        let rel = p
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let Some(module) = module_of(&rel) else {
            continue;
        };
        // The crate root is the code map itself; test-only modules (under a test-only parent
        // too) are named by their tests.
        let test_only = (1..=module.len()).any(|k| {
            let dir = module[..k].join("/");
            super::layering::is_test_only_module(&root, &format!("{dir}.rs"))
                || super::layering::is_test_only_module(&root, &format!("{dir}/mod.rs"))
        });
        if module.is_empty() || test_only {
            continue;
        }
        // Named by any tail of its path: `send`, `messages::send` or `domain::messages::send`.
        if !(0..module.len()).any(|i| names(&module[i..].join("::"))) {
            missing.push(module.join("::"));
        }
    }
    assert!(
        missing.is_empty(),
        "modules the code map in src/lib.rs does not name (name each in backticks):\n{}",
        missing.join("\n")
    );
}
