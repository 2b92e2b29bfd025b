//! Walking the spanned TOML document key by key: each catalogue key read into [`Config`] with
//! its type and range checked, unknown keys and wrong types recorded as problems with their
//! line numbers.
//!
//! Must not touch: which keys exist (that is `keys`) or what the values mean.

use std::net::SocketAddr;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::Config;
use super::keys::{self, Kind};

pub(super) fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// Walks the spanned document, recording problems with line numbers.
pub(super) struct Walker<'a> {
    pub(super) text: &'a str,
    pub(super) problems: Vec<String>,
}

type Table<'i> = DeTable<'i>;

impl<'a> Walker<'a> {
    /// Reads key `k` from `table` into `cfg` if present and valid, otherwise records the
    /// problem; true when the value was taken.
    pub(super) fn apply(&mut self, table: &Table<'_>, k: &keys::Key, cfg: &mut Config) -> bool {
        let (section, key) = (k.section, k.name);
        let name = if section.is_empty() {
            key.to_string()
        } else {
            format!("{section}.{key}")
        };
        match &k.kind {
            Kind::Str {
                check,
                problem,
                set,
                ..
            } => match self.string(table, section, key) {
                Some(v) if check(&v) => {
                    set(cfg, v);
                    true
                }
                Some(_) => {
                    self.problem(table, key, problem);
                    false
                }
                None => false,
            },
            Kind::Bool { set, .. } => self
                .boolean(table, section, key)
                .map(|b| set(cfg, b))
                .is_some(),
            Kind::Int { min, max, set, .. } => match self.integer(table, section, key) {
                Some(n) if (*min..=*max).contains(&n) => {
                    set(cfg, n);
                    true
                }
                Some(_) => {
                    self.problem(
                        table,
                        key,
                        &format!("{name} must be between {min} and {max}"),
                    );
                    false
                }
                None => false,
            },
            Kind::Choice { options, set, .. } => match self.string(table, section, key) {
                Some(v) if set(cfg, &v) => true,
                Some(_) => {
                    let want = match options {
                        [a, b] => format!("\"{a}\" or \"{b}\""),
                        _ => format!("one of {}", options.join(", ")),
                    };
                    self.problem(table, key, &format!("{name} must be {want}"));
                    false
                }
                None => false,
            },
            Kind::Addr { set, .. } => self
                .socket_addr(table, section, key)
                .map(|a| set(cfg, a))
                .is_some(),
            Kind::Ips { set, .. } => self
                .address_list(table, section, key)
                .map(|l| set(cfg, l))
                .is_some(),
            Kind::Strs {
                check,
                problem,
                set,
                ..
            } => match self.string_list(table, section, key) {
                Some(l) if l.iter().all(|v| check(v)) => {
                    set(cfg, l);
                    true
                }
                Some(_) => {
                    self.problem(table, key, problem);
                    false
                }
                None => false,
            },
        }
    }

    pub(super) fn problem(&mut self, table: &Table<'_>, key: &str, msg: &str) {
        let line = table
            .get_key_value(key)
            .map(|(k, _)| line_of(self.text, k.span().start))
            .unwrap_or(1);
        self.problems.push(format!("line {line}: {msg}"));
    }

    pub(super) fn check_keys(&mut self, table: &Table<'_>, section: &str, known: &[&str]) {
        for (k, _) in table.iter() {
            if !known.contains(&k.get_ref().as_ref()) {
                let line = line_of(self.text, k.span().start);
                let name = if section.is_empty() {
                    k.get_ref().to_string()
                } else {
                    format!("{section}.{}", k.get_ref())
                };
                self.problems.push(format!(
                    "line {line}: unknown key `{name}` (known here: {})",
                    known.join(", ")
                ));
            }
        }
    }

    pub(super) fn value<'t, 'i>(
        &self,
        table: &'t Table<'i>,
        key: &str,
    ) -> Option<&'t Spanned<DeValue<'i>>> {
        table.get(key)
    }

    pub(super) fn type_problem(&mut self, table: &Table<'_>, section: &str, key: &str, want: &str) {
        let name = if section.is_empty() {
            key.to_string()
        } else {
            format!("{section}.{key}")
        };
        self.problem(table, key, &format!("{name} must be {want}"));
    }

    /// The table `key` of `parent`, which is the section `name`.
    pub(super) fn table<'t, 'i>(
        &mut self,
        parent: &'t Table<'i>,
        name: &str,
        key: &str,
    ) -> Option<&'t Table<'i>> {
        match self.value(parent, key).map(|v| v.get_ref()) {
            None => None,
            Some(DeValue::Table(t)) => Some(t),
            Some(_) => {
                self.problem(parent, key, &format!("{name} must be a table ([{name}])"));
                None
            }
        }
    }

    pub(super) fn string(&mut self, table: &Table<'_>, section: &str, key: &str) -> Option<String> {
        match self.value(table, key).map(|v| v.get_ref()) {
            None => None,
            Some(DeValue::String(s)) => Some(s.to_string()),
            Some(_) => {
                self.type_problem(table, section, key, "a string");
                None
            }
        }
    }

    pub(super) fn boolean(&mut self, table: &Table<'_>, section: &str, key: &str) -> Option<bool> {
        match self.value(table, key).map(|v| v.get_ref()) {
            None => None,
            Some(DeValue::Boolean(b)) => Some(*b),
            Some(_) => {
                self.type_problem(table, section, key, "true or false");
                None
            }
        }
    }

    pub(super) fn integer(&mut self, table: &Table<'_>, section: &str, key: &str) -> Option<i64> {
        match self.value(table, key).map(|v| v.get_ref()) {
            None => None,
            Some(DeValue::Integer(i)) => {
                let digits = i.as_str().replace('_', "");
                match i64::from_str_radix(&digits, i.radix()) {
                    Ok(n) => Some(n),
                    Err(_) => {
                        self.type_problem(table, section, key, "an integer that fits in 64 bits");
                        None
                    }
                }
            }
            Some(_) => {
                self.type_problem(table, section, key, "an integer");
                None
            }
        }
    }

    /// A list of IP addresses (`["127.0.0.1", "::1"]`).
    pub(super) fn address_list(
        &mut self,
        table: &Table<'_>,
        section: &str,
        key: &str,
    ) -> Option<Vec<std::net::IpAddr>> {
        let want = "a list of IP addresses such as [\"203.0.113.7\"]";
        match self.value(table, key).map(|v| v.get_ref()) {
            None => None,
            Some(DeValue::Array(items)) => {
                let parsed: Option<Vec<std::net::IpAddr>> = items
                    .iter()
                    .map(|v| match v.get_ref() {
                        DeValue::String(s) => s.trim().parse().ok(),
                        _ => None,
                    })
                    .collect();
                if parsed.is_none() {
                    self.type_problem(table, section, key, want);
                }
                parsed
            }
            Some(_) => {
                self.type_problem(table, section, key, want);
                None
            }
        }
    }

    /// A list of strings (`["a", "b"]`).
    pub(super) fn string_list(
        &mut self,
        table: &Table<'_>,
        section: &str,
        key: &str,
    ) -> Option<Vec<String>> {
        match self.value(table, key).map(|v| v.get_ref()) {
            None => None,
            Some(DeValue::Array(items)) => {
                let parsed: Option<Vec<String>> = items
                    .iter()
                    .map(|v| match v.get_ref() {
                        DeValue::String(s) => Some(s.to_string()),
                        _ => None,
                    })
                    .collect();
                if parsed.is_none() {
                    self.type_problem(table, section, key, "a list of strings");
                }
                parsed
            }
            Some(_) => {
                self.type_problem(table, section, key, "a list of strings");
                None
            }
        }
    }

    pub(super) fn socket_addr(
        &mut self,
        table: &Table<'_>,
        section: &str,
        key: &str,
    ) -> Option<SocketAddr> {
        let s = self.string(table, section, key)?;
        match s.parse() {
            Ok(a) => Some(a),
            Err(_) => {
                self.type_problem(
                    table,
                    section,
                    key,
                    "an IP address and port such as \"127.0.0.1:9991\"",
                );
                None
            }
        }
    }
}
