//! The configuration as TOML again: `check-config`'s redacted dump of the effective values and
//! `config.example.toml` (every key with its comment and default), both in catalogue order.
//!
//! Must not touch: parsing, the file system or global state.

use std::fmt::Write as _;

use super::{Config, keys};

/// The first lines of `config.example.toml`.
const EXAMPLE_HEADER: &str = "\
# Outpost configuration. Every key is shown with its built-in default; delete what you do not
# change. Run `outpost check-config --config FILE` to validate a file and see the effective values.
";

/// What `config.example.toml` holds: every key with its comment and default.
pub fn example_toml() -> String {
    Config::default().render(true)
}

impl Config {
    /// The effective configuration as TOML, with secret keys that are set printed as `"***"`.
    pub fn to_redacted_toml(&self) -> String {
        self.render(false)
    }

    /// Every key in catalogue order; with `docs`, the example file (comments, real values),
    /// otherwise the redacted dump.
    fn render(&self, docs: bool) -> String {
        let mut s = String::new();
        if docs {
            s.push_str(EXAMPLE_HEADER);
            s.push('\n');
        }
        for section in keys::sections() {
            if !section.is_empty() {
                let _ = writeln!(s, "\n[{section}]");
            }
            for k in keys::of(section) {
                if docs {
                    for line in k.doc.lines() {
                        let _ = writeln!(s, "# {}", line.trim_start());
                    }
                }
                let value = k.render(self);
                // An empty secret hides nothing (and the dump then reads back as it was).
                let value = if k.secret && !docs && value != quote("") {
                    quote("***")
                } else {
                    value
                };
                let _ = writeln!(s, "{} = {value}", k.name);
            }
        }
        s
    }
}

pub(super) fn quote(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialize")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse;

    #[test]
    fn the_example_file_is_what_the_catalogue_renders() {
        assert_eq!(example_toml(), include_str!("../../config.example.toml"));
    }

    #[test]
    fn redacted_output_parses_back_to_the_same_config() {
        let cfg = Config::default();
        assert_eq!(parse(&cfg.to_redacted_toml()).unwrap(), cfg);
    }
}
