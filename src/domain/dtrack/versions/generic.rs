//! A generic version order for versions no ecosystem scheme reads (CPE versions of
//! components without a package URL, or whose scheme rejects them): split on `.`, `-`, `_`,
//! `+`, `~` and between digit and letter runs; numeric parts compare as numbers (any size),
//! others case-insensitively as text, a number above a word at the same place. When one
//! version runs out, more parts are greater (`1.0 < 1.0.1`, `1.0.2 < 1.0.2a`), except that a
//! prerelease word (`alpha`, `beta`, `rc`, `pre`, `dev`, `snapshot`, `milestone`, `preview`)
//! after the common parts is less (`1.0-rc1 < 1.0`); single letters are OpenSSL-style
//! releases (`1.0.2 < 1.0.2a`).
//!
//! Pure; our own rules, written for Dependency-Track's generic fallback.

use std::cmp::Ordering;

/// Longest version text compared (longer ones compare as text).
const MAX_LEN: usize = 256;

#[derive(Debug, PartialEq, Eq)]
enum Part<'a> {
    Num(&'a str),
    Word(&'a str),
}

fn parts(s: &str) -> Vec<Part<'_>> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if matches!(c, b'.' | b'-' | b'_' | b'+' | b'~') {
            i += 1;
            continue;
        }
        let start = i;
        let digit = c.is_ascii_digit();
        while i < b.len()
            && !matches!(b[i], b'.' | b'-' | b'_' | b'+' | b'~')
            && b[i].is_ascii_digit() == digit
        {
            // Stay on character boundaries: non-ASCII bytes are never digits, so a run of
            // them ends only at an ASCII byte.
            i += 1;
        }
        let text = &s[start..i];
        out.push(if digit {
            Part::Num(text.trim_start_matches('0'))
        } else {
            Part::Word(text)
        });
    }
    out
}

fn is_prerelease(w: &str) -> bool {
    matches!(
        w.to_ascii_lowercase().as_str(),
        "alpha" | "beta" | "rc" | "pre" | "dev" | "snapshot" | "milestone" | "preview"
    )
}

fn cmp_part(a: &Part<'_>, b: &Part<'_>) -> Ordering {
    match (a, b) {
        (Part::Num(x), Part::Num(y)) => x.len().cmp(&y.len()).then_with(|| x.cmp(y)),
        (Part::Num(_), Part::Word(_)) => Ordering::Greater,
        (Part::Word(_), Part::Num(_)) => Ordering::Less,
        (Part::Word(x), Part::Word(y)) => x.to_ascii_lowercase().cmp(&y.to_ascii_lowercase()),
    }
}

/// The order of two versions.
pub fn compare(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.trim(), b.trim());
    if a.len() > MAX_LEN || b.len() > MAX_LEN {
        return a.cmp(b);
    }
    let (pa, pb) = (parts(a), parts(b));
    for (x, y) in pa.iter().zip(pb.iter()) {
        let o = cmp_part(x, y);
        if o != Ordering::Equal {
            return o;
        }
    }
    let n = pa.len().min(pb.len());
    let longer_is = |rest: &[Part<'_>]| match rest.first() {
        None => Ordering::Equal,
        Some(Part::Word(w)) if is_prerelease(w) => Ordering::Less,
        Some(_) => Ordering::Greater,
    };
    match pa.len().cmp(&pb.len()) {
        Ordering::Equal => Ordering::Equal,
        Ordering::Greater => longer_is(&pa[n..]),
        Ordering::Less => longer_is(&pb[n..]).reverse(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_common_version_shapes() {
        use Ordering::*;
        for (a, b, want) in [
            ("1.0", "1.0", Equal),
            ("1.0", "1.00", Equal),
            ("1.0", "1.0.1", Less),
            ("1.10", "1.9", Greater),
            ("3.0.1", "3.0.7", Less),
            ("1.0.2", "1.0.2a", Less),
            ("1.0.2k", "1.0.2zf", Less),
            ("1.0-rc1", "1.0", Less),
            ("1.0.beta", "1.0.1", Less),
            ("5.10", "5.10.0", Less),
            ("7.4.0.1570", "7.4.0.1569", Greater),
            ("2.4.49", "2.4.5", Greater),
            ("1_2_3", "1.2.3", Equal),
            ("99999999999999999999999", "1", Greater),
            ("V1.0", "v1.0", Equal),
        ] {
            assert_eq!(compare(a, b), want, "{a} vs {b}");
            assert_eq!(compare(b, a), want.reverse(), "{b} vs {a}");
        }
    }

    #[test]
    fn non_ascii_text_does_not_panic() {
        assert_eq!(compare("1.é2", "1.é2"), Ordering::Equal);
        assert_ne!(compare("ü", "1"), Ordering::Equal);
    }
}
