//! From TOML text to a validated [`Config`]: every problem of a file (syntax, unknown key,
//! wrong type, bad value, listeners' TLS and ACME, mail sender) is collected with its line and
//! reported at once, and only a fully valid document becomes a `Config`. Old spellings that are
//! still read (`[deptrack]` for `[dtrack]`) become warnings in [`Config::warnings`].
//!
//! Must not touch: the network, the database or global state.

use std::fmt::Write as _;
use std::path::Path;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::listeners::check_tls;
use super::walker::{Walker, line_of};
use super::{Config, derive, keys};

/// Every problem found in a configuration file, one line each.
#[derive(Debug)]
pub struct ConfigError {
    pub problems: Vec<String>,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, p) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_char('\n')?;
            }
            f.write_str(p)?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigError {}

/// Loads the config: the file at `path` if given, otherwise the embedded defaults.
pub fn load(path: Option<&Path>) -> Result<Config, ConfigError> {
    let Some(path) = path else {
        return Ok(Config::default());
    };
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
        problems: vec![format!("{}: cannot read: {e}", path.display())],
    })?;
    let mut cfg = parse(&text).map_err(|mut e| {
        for p in &mut e.problems {
            *p = format!("{}:{p}", path.display());
        }
        e
    })?;
    for w in &mut cfg.warnings {
        *w = format!("{}:{w}", path.display());
    }
    Ok(cfg)
}

/// The name `sub` goes by inside `section` when it is a direct subsection of it (`osv` for
/// `dtrack.osv` in `dtrack`; every top-level section in the root, `""`).
fn subsection_of<'s>(section: &str, sub: &'s str) -> Option<&'s str> {
    let rest = if section.is_empty() {
        sub
    } else {
        sub.strip_prefix(section)?.strip_prefix('.')?
    };
    (!rest.is_empty() && !rest.contains('.')).then_some(rest)
}

/// The old name of `[dtrack]`, still read so that existing installs keep starting.
const OLD_DTRACK: &str = "deptrack";

/// Reads a `[deptrack]` table (with its subtables) as `[dtrack]`, with a warning; both given is
/// a problem, and then only `[dtrack]` is read.
fn adopt_old_spelling(
    text: &str,
    root: &mut DeTable<'_>,
    problems: &mut Vec<String>,
    warnings: &mut Vec<String>,
) {
    let Some((old_key, table)) = root.remove_entry(OLD_DTRACK) else {
        return;
    };
    let line = line_of(text, old_key.span().start);
    if root.contains_key("dtrack") {
        problems.push(format!(
            "line {line}: [{OLD_DTRACK}] and [dtrack] are both given; [{OLD_DTRACK}] is the old \
             name of [dtrack]: keep only [dtrack]"
        ));
        return;
    }
    warnings.push(format!(
        "line {line}: [{OLD_DTRACK}] is the old name of [dtrack] and is read as [dtrack]; \
         rename it (and its subsections) to [dtrack]"
    ));
    root.insert(Spanned::new(old_key.span(), "dtrack".into()), table);
}

/// Parses and validates a TOML document. Problems (and warnings) are prefixed `line N: `.
pub fn parse(text: &str) -> Result<Config, ConfigError> {
    let mut doc = DeTable::parse(text).map_err(|e| {
        let line = e.span().map(|s| line_of(text, s.start)).unwrap_or(1);
        ConfigError {
            problems: vec![format!("line {line}: {}", e.message().trim())],
        }
    })?;
    let mut w = Walker {
        text,
        problems: Vec::new(),
    };
    let mut cfg = Config::default();
    adopt_old_spelling(text, doc.get_mut(), &mut w.problems, &mut cfg.warnings);
    let mut external_url_given = false;
    let root = doc.get_ref();
    let sections = keys::sections();
    for section in &sections {
        // A section's known keys: its own, and the last part of its subsections' names
        // (`osv` in `dtrack` for `[dtrack.osv]`).
        let mut known: Vec<&str> = keys::of(section).map(|k| k.name).collect();
        known.extend(sections.iter().filter_map(|s| subsection_of(section, s)));
        let table = if section.is_empty() {
            root
        } else if let Some((parent, last)) = section.rsplit_once('.') {
            // A subsection: its parent's problems were reported with the parent.
            let Some(parent) = parent.split('.').try_fold(root, |t, part| {
                match t.get(part).map(|v| v.get_ref()) {
                    Some(DeValue::Table(t)) => Some(t),
                    _ => None,
                }
            }) else {
                continue;
            };
            let Some(table) = w.table(parent, section, last) else {
                continue;
            };
            table
        } else {
            let Some(table) = w.table(root, section, section) else {
                continue;
            };
            table
        };
        w.check_keys(table, section, &known);
        for k in keys::of(section) {
            if w.apply(table, k, &mut cfg) && section == &"chat" && k.name == "external_url" {
                external_url_given = true;
            }
        }
    }
    derive(&mut cfg, external_url_given);
    check_tls(&cfg, &mut w.problems);
    if cfg.email.enabled() && !plausible_address(&cfg.email.from) {
        w.problems
            .push("email.from must be an email address when email.host is set".to_string());
    }
    if w.problems.is_empty() {
        Ok(cfg)
    } else {
        Err(ConfigError {
            problems: w.problems,
        })
    }
}

/// An address (`name@domain` or `Name <name@domain>`) with a local part, a dotted domain and
/// no spaces; lettre checks it fully.
fn plausible_address(a: &str) -> bool {
    let a = a
        .rsplit_once('<')
        .and_then(|(_, rest)| rest.strip_suffix('>'))
        .unwrap_or(a);
    a.split_once('@')
        .is_some_and(|(l, d)| !l.is_empty() && d.contains('.'))
        && !a.chars().any(char::is_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_document_is_the_defaults() {
        assert_eq!(parse("").unwrap(), Config::default());
    }

    #[test]
    fn all_problems_are_reported_with_lines() {
        let err = parse(
            "data_dir = 5\n[chat]\nlisten = \"nope\"\nbogus = 1\n[database]\nsynchronous = \"off\"\n[log]\nformat = \"xml\"\n",
        )
        .unwrap_err();
        assert_eq!(
            err.problems,
            vec![
                "line 1: data_dir must be a string",
                "line 4: unknown key `chat.bogus` (known here: listen, tls_cert, tls_key, external_url, realm_name, development, allow_remote_development, email_address_visibility, invitation_link_validity_minutes, session_days, acme)",
                "line 3: chat.listen must be an IP address and port such as \"127.0.0.1:9991\"",
                "line 6: database.synchronous must be \"full\" or \"normal\"",
                "line 8: log.format must be \"text\" or \"json\"",
            ]
        );
    }

    #[test]
    fn subsections_are_tables_inside_their_section() {
        let cfg = parse(
            "[dtrack]\nenabled = true\n[dtrack.osv]\nbase_url = \"https://osv.example/\"\n\
             ecosystems = \"npm,PyPI\"\ninterval = 3600\n",
        )
        .unwrap();
        assert!(cfg.dtrack.enabled);
        assert_eq!(cfg.dtrack.osv_base_url, "https://osv.example");
        assert_eq!(cfg.dtrack.osv_ecosystems, "npm,PyPI");
        assert_eq!(
            cfg.dtrack.osv_interval,
            std::time::Duration::from_secs(3600)
        );
        let err = parse("[dtrack]\nosv_base_url = \"\"\n[dtrack.osv]\nbogus = 1\ninterval = 5\n")
            .unwrap_err();
        assert_eq!(err.problems.len(), 3, "{:?}", err.problems);
        assert!(err.problems[0].starts_with("line 2: unknown key `dtrack.osv_base_url`"));
        assert!(err.problems[1].starts_with("line 4: unknown key `dtrack.osv.bogus`"));
        assert!(err.problems[2].starts_with("line 5: dtrack.osv.interval"));
        let err = parse("[dtrack]\nosv = 1\n").unwrap_err();
        assert_eq!(
            err.problems,
            vec!["line 2: dtrack.osv must be a table ([dtrack.osv])"]
        );
    }

    #[test]
    fn the_old_dtrack_table_is_read_with_a_warning_and_both_are_a_problem() {
        let new = parse("[dtrack]\nenabled = true\n[dtrack.osv]\ninterval = 3600\n").unwrap();
        assert!(new.warnings.is_empty());
        let old = parse("[deptrack]\nenabled = true\n[deptrack.osv]\ninterval = 3600\n").unwrap();
        assert_eq!(
            old.warnings,
            vec![
                "line 1: [deptrack] is the old name of [dtrack] and is read as [dtrack]; \
                 rename it (and its subsections) to [dtrack]"
            ]
        );
        assert_eq!(
            Config {
                warnings: Vec::new(),
                ..old
            },
            new
        );
        let err = parse("[dtrack]\n[deptrack]\nenabled = true\n").unwrap_err();
        assert_eq!(
            err.problems,
            vec![
                "line 2: [deptrack] and [dtrack] are both given; [deptrack] is the old name of \
                 [dtrack]: keep only [dtrack]"
            ]
        );
        let err = parse("[deptrack]\nbogus = 1\n").unwrap_err();
        assert!(err.problems[0].starts_with("line 2: unknown key `dtrack.bogus`"));
    }

    #[test]
    fn syntax_errors_name_the_line() {
        let err = parse("[chat]\nlisten = \n").unwrap_err();
        assert_eq!(err.problems.len(), 1);
        assert!(
            err.problems[0].starts_with("line 2: "),
            "{:?}",
            err.problems
        );
    }

    #[test]
    fn external_url_defaults_to_listen_address() {
        let cfg = parse("[chat]\nlisten = \"127.0.0.1:8000\"\n").unwrap();
        assert_eq!(cfg.chat.external_url, "http://127.0.0.1:8000");
        assert_eq!(cfg.realm_host(), "127.0.0.1");
    }

    #[test]
    fn the_mail_password_is_redacted_and_the_sender_required() {
        let cfg = parse(
            "[email]\nhost = \"smtp.example.com\"\nusername = \"u\"\npassword = \"hunter2\"\nfrom = \"Outpost <noreply@example.com>\"\n",
        )
        .unwrap();
        assert_eq!(cfg.email.password.0, "hunter2");
        assert!(!cfg.to_redacted_toml().contains("hunter2"));
        assert!(cfg.to_redacted_toml().contains("password = \"***\""));
        assert!(!format!("{cfg:?}").contains("hunter2"));
        let err = parse("[email]\nhost = \"smtp.example.com\"\n").unwrap_err();
        assert_eq!(
            err.problems,
            vec!["email.from must be an email address when email.host is set"]
        );
    }
}
