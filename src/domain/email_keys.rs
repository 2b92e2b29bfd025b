//! How email addresses are compared: the one login key every login path uses, and the
//! look-alike key that keeps a new address from impersonating an existing account.
//!
//! * [`login_key`]: the address trimmed, with ASCII letters lower-cased and nothing else
//!   changed. This is exactly the equality SQLite's `COLLATE NOCASE` applies to `users.email`,
//!   so the user cache, the login failure limiter and the database lookup agree on which
//!   strings name the same account. (Unicode lower-casing would not: `\u{212A}im@x` (KELVIN
//!   SIGN) lower-cases to `kim@x`, which the database does not match.)
//! * [`lookalike_key`]: an approximation of Unicode's `NFKC_Casefold` followed by a small
//!   confusables map. Compatibility decomposition (NFKD) folds KELVIN SIGN, fullwidth and
//!   mathematical letters, ligatures and the like; lower-casing plus the few full case folds
//!   that differ from it (`ß`/`ẞ` → `ss`, final `ς` → `σ`, the iota subscript → `ι`) gives
//!   full case folding; NFKC recomposes. Then the Cyrillic, Greek and Latin letters listed in
//!   [`CONFUSABLES`] that look like ASCII letters become those letters. Two addresses with the
//!   same key are look-alikes; accounts are refused addresses that look like another
//!   account's (`domain::users::EmailKeys`). The map is deliberately short (letters that
//!   are identical in common fonts), not Unicode's full confusables table, so that ordinary
//!   non-ASCII addresses stay distinct.
//!
//! Pure functions: no storage, no state.

use unicode_normalization::UnicodeNormalization as _;

/// The key an address is looked up, cached and rate limited under at login.
pub fn login_key(email: &str) -> String {
    email.trim().to_ascii_lowercase()
}

/// Lower-case letters that look identical to an ASCII letter in common fonts, and that letter (applied after
/// case folding).
const CONFUSABLES: &[(char, char)] = &[
    // Cyrillic
    ('а', 'a'),
    ('с', 'c'),
    ('ԁ', 'd'),
    ('е', 'e'),
    ('һ', 'h'),
    ('і', 'i'),
    ('ј', 'j'),
    ('ӏ', 'l'),
    ('о', 'o'),
    ('р', 'p'),
    ('ԛ', 'q'),
    ('ѕ', 's'),
    ('у', 'y'),
    ('ѵ', 'v'),
    ('ԝ', 'w'),
    ('х', 'x'),
    // Greek
    ('α', 'a'),
    ('ν', 'v'),
    ('ο', 'o'),
    ('ρ', 'p'),
    // Latin
    ('ı', 'i'),
    ('ȷ', 'j'),
    ('ɑ', 'a'),
    ('ɡ', 'g'),
    ('ɩ', 'i'),
];

/// The form two look-alike addresses share (see the module header).
pub fn lookalike_key(email: &str) -> String {
    let email = email.trim();
    if email.is_ascii() {
        return email.to_ascii_lowercase();
    }
    let mut folded = String::with_capacity(email.len());
    for c in email.nfkd() {
        match c {
            'ß' | 'ẞ' => folded.push_str("ss"),
            'ς' => folded.push('σ'),
            '\u{345}' => folded.push('ι'),
            _ => folded.extend(c.to_lowercase()),
        }
    }
    folded
        .nfkc()
        .map(|c| {
            CONFUSABLES
                .iter()
                .find(|(from, _)| *from == c)
                .map_or(c, |(_, to)| *to)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn login_keys_fold_ascii_case_only() {
        assert_eq!(login_key(" Kim@Example.COM "), "kim@example.com");
        // KELVIN SIGN is not ASCII: it stays, as SQLite's NOCASE leaves it.
        assert_eq!(
            login_key("\u{212A}im@example.com"),
            "\u{212A}im@example.com"
        );
        assert_eq!(login_key("ÄBC@x.org"), "Äbc@x.org");
    }

    #[test]
    fn lookalikes_share_a_key() {
        let kim = lookalike_key("kim@example.com");
        for alike in [
            "Kim@Example.com",
            "\u{212A}im@example.com",        // KELVIN SIGN
            "ｋｉｍ@ｅｘａｍｐｌｅ．ｃｏｍ", // fullwidth
            "\u{1D424}im@example.com",       // MATHEMATICAL BOLD SMALL K
            "kіm@example.com",               // Cyrillic i
            "kim@exаmple.com",               // Cyrillic a
            "kım@example.com",               // dotless i
        ] {
            assert_eq!(lookalike_key(alike), kim, "{alike}");
        }
        assert_eq!(lookalike_key("STRASSE@x.de"), lookalike_key("straße@x.de"));
        assert_eq!(lookalike_key("ẞ@x.de"), lookalike_key("ss@x.de"));
        assert_eq!(lookalike_key("ﬁx@x.org"), lookalike_key("fix@x.org"));
        assert_eq!(
            lookalike_key("Åsa@x.org"),
            lookalike_key("\u{212B}sa@x.org")
        );
        assert_eq!(
            lookalike_key("ÅSA@x.org"),
            lookalike_key("a\u{30A}sa@x.org")
        );
        assert_eq!(lookalike_key("ΣΑΣ@x.gr"), lookalike_key("σας@x.gr"));
        // Distinct addresses stay distinct.
        assert_ne!(
            lookalike_key("kim@example.com"),
            lookalike_key("kin@example.com")
        );
        assert_ne!(lookalike_key("jörg@x.de"), lookalike_key("jorg@x.de"));
        assert_ne!(lookalike_key("bob1@x.org"), lookalike_key("bobl@x.org"));
    }
}
