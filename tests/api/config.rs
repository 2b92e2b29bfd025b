//! The example config documents exactly the built-in defaults.

use outpost::config::{self, Config};

#[test]
fn example_config_parses_to_the_defaults() {
    let text = include_str!("../../config.example.toml");
    let cfg = config::parse(text).unwrap_or_else(|e| panic!("config.example.toml: {e}"));
    assert_eq!(cfg, Config::default());
}

#[test]
fn every_key_of_the_example_has_a_comment_line() {
    let text = include_str!("../../config.example.toml");
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') || t.starts_with('[') {
            continue;
        }
        assert!(
            i > 0 && lines[i - 1].trim().starts_with('#'),
            "line {}: `{t}` has no comment line above it",
            i + 1
        );
    }
}

#[test]
fn unknown_keys_and_bad_values_are_all_reported() {
    let err = config::parse("[chat]\nlisten = 5\nrealm = \"x\"\n[limits]\nmax_body_bytes = 3\n")
        .unwrap_err();
    assert_eq!(err.problems.len(), 3, "{err}");
    assert!(
        err.problems
            .iter()
            .any(|p| p.starts_with("line 3: unknown key `chat.realm`"))
    );
    assert!(
        err.problems
            .iter()
            .any(|p| p.starts_with("line 2: chat.listen"))
    );
    assert!(
        err.problems
            .iter()
            .any(|p| p.starts_with("line 5: limits.max_body_bytes"))
    );
}

#[test]
fn the_packaged_container_config_is_valid() {
    let text = include_str!("../../packaging/container.toml");
    let cfg = config::parse(text).unwrap_or_else(|e| panic!("packaging/container.toml: {e}"));
    assert_eq!(cfg.data_dir, std::path::Path::new("/data"));
    assert_eq!(cfg.chat.listen.port(), 9991);
}
