//! Packagist (Composer) versions ordered as PHP's `version_compare`, which Composer's
//! constraints follow: a leading `v` dropped, `-`, `_` and `+` read as `.`, a `.` inserted at
//! every change between digits and other characters, then part by part: numbers numerically,
//! words by their special form (prefix match: `dev < alpha = a < beta = b < RC = rc <` a
//! number `< pl = p`; unknown words below `dev`). When one version runs out, a remaining
//! number makes the longer one greater, a remaining word is compared against a number
//! (`1.0-beta < 1.0 < 1.0.1`, `1.0 < 1.0-p1`).
//!
//! Pure; written here from PHP's documented algorithm.

use std::cmp::Ordering;

/// A parsed Composer version.
#[derive(Clone, Debug)]
pub struct PhpVersion(Vec<String>);

/// Special-form rank: unknown -1, dev 0, alpha 1, beta 2, RC 3, number 4, patch 5.
fn form(p: &str) -> i32 {
    if p.bytes().next().is_some_and(|b| b.is_ascii_digit()) {
        return 4;
    }
    for (name, rank) in [
        ("dev", 0),
        ("alpha", 1),
        ("a", 1),
        ("beta", 2),
        ("b", 2),
        ("RC", 3),
        ("rc", 3),
        ("#", 4),
        ("pl", 5),
        ("p", 5),
    ] {
        if p.starts_with(name) {
            return rank;
        }
    }
    -1
}

fn cmp_part(a: &str, b: &str) -> Ordering {
    let digit = |s: &str| s.bytes().next().is_some_and(|b| b.is_ascii_digit());
    if digit(a) && digit(b) {
        let (x, y) = (a.trim_start_matches('0'), b.trim_start_matches('0'));
        return x.len().cmp(&y.len()).then_with(|| x.cmp(y));
    }
    form(a).cmp(&form(b))
}

impl PhpVersion {
    /// `None` unless the text starts with a digit (after an optional `v`).
    pub fn parse(s: &str) -> Option<PhpVersion> {
        let s = s.trim();
        let s = s
            .strip_prefix('v')
            .or_else(|| s.strip_prefix('V'))
            .unwrap_or(s);
        if !s.starts_with(|c: char| c.is_ascii_digit()) || s.chars().any(char::is_whitespace) {
            return None;
        }
        let mut canon = String::with_capacity(s.len() + 4);
        let mut prev: Option<char> = None;
        for c in s.chars() {
            let c = if matches!(c, '-' | '_' | '+') { '.' } else { c };
            if c == '.' {
                if !canon.ends_with('.') {
                    canon.push('.');
                }
            } else {
                if let Some(p) = prev
                    && p != '.'
                    && p.is_ascii_digit() != c.is_ascii_digit()
                {
                    canon.push('.');
                }
                canon.push(c);
            }
            prev = Some(c);
        }
        let parts = canon
            .split('.')
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect();
        Some(PhpVersion(parts))
    }
}

impl Ord for PhpVersion {
    fn cmp(&self, other: &Self) -> Ordering {
        let (a, b) = (&self.0, &other.0);
        for (x, y) in a.iter().zip(b) {
            let o = cmp_part(x, y);
            if o != Ordering::Equal {
                return o;
            }
        }
        let digit = |s: &str| s.bytes().next().is_some_and(|b| b.is_ascii_digit());
        match a.len().cmp(&b.len()) {
            Ordering::Equal => Ordering::Equal,
            Ordering::Greater if digit(&a[b.len()]) => Ordering::Greater,
            Ordering::Greater => form(&a[b.len()]).cmp(&form("#")),
            Ordering::Less if digit(&b[a.len()]) => Ordering::Less,
            Ordering::Less => form("#").cmp(&form(&b[a.len()])),
        }
    }
}

impl PartialOrd for PhpVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for PhpVersion {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for PhpVersion {}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmp(a: &str, b: &str) -> Ordering {
        PhpVersion::parse(a)
            .unwrap()
            .cmp(&PhpVersion::parse(b).unwrap())
    }

    #[test]
    fn version_compare_rules() {
        use Ordering::*;
        for (a, b, want) in [
            ("1.0", "1.0.0", Less),
            ("1.0.0", "1.0.1", Less),
            ("1.0-beta", "1.0", Less),
            ("1.0", "1.0-p1", Less),
            ("1.0-dev", "1.0-alpha1", Less),
            ("1.0-alpha1", "1.0-beta1", Less),
            ("1.0-beta2", "1.0-RC1", Less),
            ("4.3.2RC1", "4.3.2", Less),
            ("4.3.2RC1", "4.3.2.RC.1", Equal),
            ("v5.4.3", "5.4.3", Equal),
            ("5.4.10", "5.4.9", Greater),
            ("2.0.0-rc.1", "2.0.0-rc.2", Less),
            ("1.0.0-patch1", "1.0.0", Greater),
            ("1.0-foo", "1.0-dev", Less),
        ] {
            assert_eq!(cmp(a, b), want, "{a} vs {b}");
        }
        assert!(PhpVersion::parse("dev-master").is_none());
    }
}
