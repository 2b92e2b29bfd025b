//! Unicode emoji names and codes, in Zulip's encoding.
//!
//! Names are the underscore shortcodes of the `emojis` crate's table; a code is the emoji's
//! lower-case hex code points joined by `-`, without the U+FE0F variation selector
//! (`heart` → `2764`, `thumbs_up` → `1f44d`). Pure lookups; no state.

use emojis::Emoji;

/// Zulip's code for an emoji.
pub fn code_of(e: &Emoji) -> String {
    e.as_str()
        .chars()
        .filter(|c| *c != '\u{fe0f}')
        .map(|c| format!("{:04x}", c as u32))
        .collect::<Vec<_>>()
        .join("-")
}

/// The code of the emoji called `name`, if there is one.
pub fn code_for_name(name: &str) -> Option<String> {
    emojis::get_by_shortcode(name).map(code_of)
}

/// The emoji a code stands for, if any.
pub fn by_code(code: &str) -> Option<&'static Emoji> {
    let mut s = String::new();
    for part in code.split('-') {
        let cp = u32::from_str_radix(part, 16).ok()?;
        s.push(char::from_u32(cp)?);
    }
    emojis::get(&s).or_else(|| {
        // The table may list the fully-qualified form; try with the selector after the first
        // code point.
        let mut chars = s.chars();
        let first = chars.next()?;
        let mut q = String::from(first);
        q.push('\u{fe0f}');
        q.extend(chars);
        emojis::get(&q)
    })
}

/// Whether `name` is one of the names of the emoji with `code`.
pub fn name_matches_code(name: &str, code: &str) -> bool {
    by_code(code).is_some_and(|e| e.shortcodes().any(|s| s == name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_codes_round_trip() {
        assert_eq!(code_for_name("octopus").as_deref(), Some("1f419"));
        assert_eq!(code_for_name("heart").as_deref(), Some("2764"));
        assert!(name_matches_code("heart", "2764"));
        assert!(name_matches_code("octopus", "1f419"));
        assert!(!name_matches_code("heart", "1f419"));
        assert!(by_code("zzzz").is_none());
        assert!(code_for_name("no_such_emoji_name").is_none());
    }
}
