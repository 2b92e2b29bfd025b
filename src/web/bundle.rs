//! Joins the client's ES modules into one script, so that a browser with a cold cache fetches
//! one file instead of one per module (34 requests over six HTTP/1.1 connections took about
//! 170 ms on loopback, most of the first view's time). Each module becomes a function scope
//! run once, in dependency order; its imports become destructured constants from the scopes
//! before it and its exports the object that scope returns.
//!
//! This is not a general JavaScript bundler: it accepts only the module syntax the client is
//! written in, and refuses anything else by name, so a new construct fails the build's tests
//! instead of being bundled wrongly:
//! - `import { a, b as c } from "./file.js";` at the start of a line (may span lines);
//! - `export function`, `export async function`, `export class` and `export const` at the
//!   start of a line;
//! - no `import()`, `import.meta`, `export default`, `export {…}`, `export let`/`var`, and no
//!   import cycles.
//!
//! Owns only this text transformation; serving the result is `web::assets`.

use std::collections::HashMap;

/// Most modules a bundle may hold (the client has about 35).
const MAX_MODULES: usize = 500;

/// One parsed module.
struct Module {
    /// (imported module's path, [(exported name, local name)]).
    imports: Vec<(String, Vec<(String, String)>)>,
    exports: Vec<String>,
    /// The source with its import statements removed and `export ` prefixes dropped.
    body: String,
}

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// The leading identifier of `s` (up to the first character that cannot be in one).
fn leading_ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The module path an import specifier names: only `./name.js` beside the importer.
fn resolve(spec: &str, importer: &str) -> Result<String, String> {
    let name = spec
        .strip_prefix("./")
        .filter(|n| n.ends_with(".js") && !n.contains('/') && !n.contains('\\'))
        .ok_or_else(|| {
            format!("{importer}: import from {spec:?}: only \"./name.js\" is supported")
        })?;
    let dir = importer.rsplit_once('/').map_or("", |(d, _)| d);
    Ok(if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    })
}

/// `import { a, b as c } from "./x.js";` (whitespace and newlines anywhere between tokens).
fn parse_import(stmt: &str, path: &str) -> Result<(String, Vec<(String, String)>), String> {
    let bad = || format!("{path}: unsupported import statement: {stmt}");
    let rest = stmt.strip_prefix("import").ok_or_else(bad)?.trim_start();
    let rest = rest.strip_prefix('{').ok_or_else(bad)?;
    let (names, rest) = rest.split_once('}').ok_or_else(bad)?;
    let rest = rest
        .trim_start()
        .strip_prefix("from")
        .ok_or_else(bad)?
        .trim();
    let spec = rest
        .strip_suffix(';')
        .map(str::trim_end)
        .and_then(|s| s.strip_prefix('"'))
        .and_then(|s| s.strip_suffix('"'))
        .ok_or_else(bad)?;
    let mut bindings = Vec::new();
    for item in names.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let parts: Vec<&str> = item.split_whitespace().collect();
        let (name, local) = match parts.as_slice() {
            [name] => (*name, *name),
            [name, "as", local] => (*name, *local),
            _ => return Err(bad()),
        };
        if !is_ident(name) || !is_ident(local) {
            return Err(bad());
        }
        bindings.push((name.to_string(), local.to_string()));
    }
    Ok((resolve(spec, path)?, bindings))
}

fn parse(path: &str, source: &str) -> Result<Module, String> {
    let mut module = Module {
        imports: Vec::new(),
        exports: Vec::new(),
        body: String::with_capacity(source.len()),
    };
    let mut lines = source.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        let at = |what: &str| format!("{path}:{}: {what}", n + 1);
        if line.contains("import(") || line.contains("import.meta") {
            return Err(at("dynamic import() and import.meta are not supported"));
        }
        if line.starts_with("import") && !is_ident(leading_ident(&line[6..]).trim()) {
            let mut stmt = line.to_string();
            while !stmt.trim_end().ends_with(';') {
                let (_, next) = lines
                    .next()
                    .ok_or_else(|| at("import statement without its closing `;`"))?;
                stmt.push('\n');
                stmt.push_str(next);
            }
            module.imports.push(parse_import(stmt.trim(), path)?);
            // Keep the line count, so that positions inside a module stay close to the file's.
            for _ in 0..stmt.lines().count() {
                module.body.push('\n');
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix("export ") {
            let decl = rest.trim_start();
            let after = ["async function ", "function ", "class ", "const "]
                .iter()
                .find_map(|kw| decl.strip_prefix(kw))
                .ok_or_else(|| {
                    at("only `export function|async function|class|const NAME` is supported")
                })?;
            let name = leading_ident(after.trim_start());
            if !is_ident(name) {
                return Err(at("an exported declaration needs a plain name"));
            }
            if module.exports.iter().any(|e| e == name) {
                return Err(at(&format!("`{name}` is exported twice")));
            }
            module.exports.push(name.to_string());
            module.body.push_str(decl);
            module.body.push('\n');
            continue;
        }
        if line.starts_with("export") {
            return Err(at("unsupported export statement"));
        }
        module.body.push_str(line);
        module.body.push('\n');
    }
    Ok(module)
}

/// The variable holding a module's exports.
fn var_of(path: &str) -> String {
    let mut v = String::from("__outpost_");
    v.extend(
        path.trim_end_matches(".js")
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }),
    );
    v
}

/// Joins `entry` and every module it imports (from `sources`: path -> text) into one script.
/// An error names the file and line of the first construct it does not support, an import
/// of a file that is not there or of a name the file does not export, or an import cycle.
pub fn bundle(sources: &HashMap<&str, &str>, entry: &str) -> Result<String, String> {
    let mut parsed: HashMap<String, Module> = HashMap::new();
    // Iterative depth-first walk: (path, next import to visit). `order` receives each module
    // after its imports; a module on `stack` being reached again is a cycle.
    let mut order: Vec<String> = Vec::new();
    let mut stack: Vec<(String, usize)> = vec![(entry.to_string(), 0)];
    let load = |path: &str| -> Result<Module, String> {
        let text = sources
            .get(path)
            .ok_or_else(|| format!("{path}: no such client file"))?;
        parse(path, text)
    };
    parsed.insert(entry.to_string(), load(entry)?);
    while let Some((path, next)) = stack.last().cloned() {
        let module = &parsed[&path];
        let Some((dep, names)) = module.imports.get(next).cloned() else {
            stack.pop();
            order.push(path);
            continue;
        };
        stack.last_mut().expect("not empty").1 += 1;
        if stack.iter().any(|(p, _)| *p == dep) {
            let cycle: Vec<&str> = stack
                .iter()
                .map(|(p, _)| p.as_str())
                .skip_while(|p| *p != dep)
                .collect();
            return Err(format!("import cycle: {} -> {dep}", cycle.join(" -> ")));
        }
        if !parsed.contains_key(&dep) {
            if parsed.len() >= MAX_MODULES {
                return Err(format!("more than {MAX_MODULES} modules"));
            }
            parsed.insert(dep.clone(), load(&dep)?);
        }
        if let Some((missing, _)) = names
            .iter()
            .find(|(name, _)| !parsed[&dep].exports.contains(name))
        {
            return Err(format!(
                "{path}: imports `{missing}`, which {dep} does not export"
            ));
        }
        if !order.contains(&dep) {
            stack.push((dep, 0));
        }
    }

    let mut out = String::from(
        "// The web client's modules (src/web/client/) in dependency order, each in its own\n\
         // function scope; joined when the server starts (src/web/bundle.rs).\n",
    );
    for path in &order {
        let module = &parsed[path];
        out.push_str(&format!("// ---- {path}\n"));
        out.push_str(&format!("const {} = (() => {{\n", var_of(path)));
        for (dep, names) in &module.imports {
            let list: Vec<String> = names
                .iter()
                .map(|(name, local)| {
                    if name == local {
                        name.clone()
                    } else {
                        format!("{name}: {local}")
                    }
                })
                .collect();
            out.push_str(&format!(
                "const {{ {} }} = {};",
                list.join(", "),
                var_of(dep)
            ));
        }
        out.push_str(&module.body);
        out.push_str(&format!(
            "return {{ {} }};\n}})();\n",
            module.exports.join(", ")
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(files: &[(&str, &str)], entry: &str) -> Result<String, String> {
        bundle(&files.iter().copied().collect(), entry)
    }

    #[test]
    fn modules_come_after_what_they_import_and_exports_become_bindings() {
        let out = run(
            &[
                (
                    "main.js",
                    "import { b, a as first } from \"./b.js\";\nconsole.log(first(), b);\n",
                ),
                (
                    "b.js",
                    "import {\n  a,\n} from \"./a.js\";\nexport const b = a() + 1;\nexport { };\n",
                ),
                ("a.js", "export function a() { return 1; }\n"),
            ],
            "main.js",
        )
        .unwrap_err();
        assert!(out.starts_with("b.js:5: only `export"), "{out}");

        let out = run(
            &[
                (
                    "main.js",
                    "import { b, a as first } from \"./b.js\";\nconsole.log(first(), b);\n",
                ),
                (
                    "b.js",
                    "import {\n  a,\n} from \"./a.js\";\nexport const b = a() + 1;\nexport async function a2() {}\n",
                ),
                (
                    "a.js",
                    "export function a() { return 1; }\nexport class K {}\n",
                ),
            ],
            "main.js",
        );
        let err = out.unwrap_err();
        assert_eq!(err, "main.js: imports `a`, which b.js does not export");

        let out = run(
            &[
                ("main.js", "import { b, a as first } from \"./b.js\";\nconsole.log(first(), b);\n"),
                ("b.js", "import {\n  a,\n} from \"./a.js\";\nexport const b = a() + 1;\nexport function a() { return 0; }\n"),
                ("a.js", "export function a() { return 1; }\nexport class K {}\n"),
            ],
            "main.js",
        )
        .unwrap();
        let a = out.find("const __outpost_a = ").unwrap();
        let b = out.find("const __outpost_b = ").unwrap();
        let main = out.find("const __outpost_main = ").unwrap();
        assert!(a < b && b < main, "{out}");
        assert!(out.contains("return { a, K };"), "{out}");
        assert!(out.contains("const { a } = __outpost_a;"), "{out}");
        assert!(
            out.contains("const { b, a: first } = __outpost_b;"),
            "{out}"
        );
        assert!(out.contains("const b = a() + 1;"), "{out}");
        assert!(!out.contains("import") && !out.contains("export"), "{out}");
    }

    #[test]
    fn a_module_imported_twice_is_included_once() {
        let out = run(
            &[
                (
                    "main.js",
                    "import { x } from \"./x.js\";\nimport { y } from \"./y.js\";\n",
                ),
                (
                    "x.js",
                    "import { z } from \"./z.js\";\nexport const x = z;\n",
                ),
                (
                    "y.js",
                    "import { z } from \"./z.js\";\nexport const y = z;\n",
                ),
                ("z.js", "export const z = 1;\n"),
            ],
            "main.js",
        )
        .unwrap();
        assert_eq!(out.matches("const __outpost_z = ").count(), 1, "{out}");
        assert!(out.find("__outpost_z = ").unwrap() < out.find("__outpost_x = ").unwrap());
    }

    #[test]
    fn unsupported_syntax_and_cycles_are_refused_by_name() {
        let cases: &[(&[(&str, &str)], &str)] = &[
            (
                &[("main.js", "const m = await import(\"./x.js\");\n")],
                "main.js:1: dynamic import()",
            ),
            (
                &[("main.js", "console.log(import.meta.url);\n")],
                "main.js:1: dynamic import()",
            ),
            (
                &[("main.js", "export default 1;\n")],
                "main.js:1: only `export",
            ),
            (
                &[("main.js", "export let x = 1;\n")],
                "main.js:1: only `export",
            ),
            (
                &[("main.js", "import x from \"./x.js\";\n")],
                "unsupported import statement",
            ),
            (
                &[("main.js", "import { x } from \"../x.js\";\n")],
                "only \"./name.js\"",
            ),
            (
                &[("main.js", "import { x } from \"./x.js\";\n")],
                "x.js: no such client file",
            ),
            (
                &[("main.js", "import { x } from \"./x.js\"\n")],
                "without its closing",
            ),
            (
                &[
                    ("main.js", "import { a } from \"./a.js\";\n"),
                    (
                        "a.js",
                        "import { b } from \"./b.js\";\nexport const a = 1;\n",
                    ),
                    (
                        "b.js",
                        "import { a } from \"./a.js\";\nexport const b = 1;\n",
                    ),
                ],
                "import cycle: a.js -> b.js -> a.js",
            ),
        ];
        for (files, want) in cases {
            let err = run(files, "main.js").unwrap_err();
            assert!(err.contains(want), "{files:?}: got {err:?}, want {want:?}");
        }
    }

    #[test]
    fn identifiers_that_start_with_import_are_plain_code() {
        let out = run(
            &[("main.js", "importantThing();\nconst exported = 1;\n")],
            "main.js",
        )
        .unwrap();
        assert!(out.contains("importantThing();"), "{out}");
    }
}
