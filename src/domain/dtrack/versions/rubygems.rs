//! RubyGems versions ordered as `Gem::Version`: dot-separated segments of digits or letters
//! (a `-` means `.pre.`), a letter segment makes the version a prerelease that sorts before its
//! release, trailing zeros of the numeric and the prerelease parts are ignored, and numbers
//! sort above letters.
//!
//! Pure; written here (no maintained crate).

use std::cmp::Ordering;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Seg {
    /// Digits without leading zeros (`""` is zero).
    Num(String),
    Str(String),
}

/// A parsed RubyGems version.
#[derive(Clone, Debug)]
pub struct GemVersion(Vec<Seg>);

impl GemVersion {
    /// `None` for what `Gem::Version.correct?` refuses.
    pub fn parse(s: &str) -> Option<GemVersion> {
        let s = s.trim();
        let (main, pre) = match s.split_once('-') {
            Some((m, p)) => (m, Some(p)),
            None => (s, None),
        };
        let mut parts = main.split('.');
        let first = parts.next()?;
        if first.is_empty() || !first.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        for p in parts {
            if p.is_empty() || !p.bytes().all(|b| b.is_ascii_alphanumeric()) {
                return None;
            }
        }
        if let Some(p) = pre
            && p.split('.')
                .any(|x| x.is_empty() || !x.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
        {
            return None;
        }
        let text = match pre {
            Some(p) => format!("{main}.pre.{}", p.replace('-', ".pre.")),
            None => main.to_string(),
        };
        // Segments: maximal runs of digits or of letters.
        let mut segs = Vec::new();
        let b = text.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let digit = b[i].is_ascii_digit();
            if !b[i].is_ascii_alphanumeric() {
                i += 1;
                continue;
            }
            let start = i;
            while i < b.len() && b[i].is_ascii_alphanumeric() && b[i].is_ascii_digit() == digit {
                i += 1;
            }
            let t = &text[start..i];
            segs.push(if digit {
                Seg::Num(t.trim_start_matches('0').to_string())
            } else {
                Seg::Str(t.to_string())
            });
        }
        // Canonical: trailing zeros dropped from the numeric part and from the prerelease part.
        let split = segs
            .iter()
            .position(|s| matches!(s, Seg::Str(_)))
            .unwrap_or(segs.len());
        let zero = |s: &Seg| matches!(s, Seg::Num(d) if d.is_empty());
        let mut numeric: Vec<Seg> = segs[..split].to_vec();
        while numeric.last().is_some_and(zero) {
            numeric.pop();
        }
        let mut rest: Vec<Seg> = segs[split..].to_vec();
        while rest.last().is_some_and(zero) {
            rest.pop();
        }
        numeric.extend(rest);
        Some(GemVersion(numeric))
    }
}

impl Ord for GemVersion {
    fn cmp(&self, other: &Self) -> Ordering {
        let zero = Seg::Num(String::new());
        for i in 0..self.0.len().max(other.0.len()) {
            let a = self.0.get(i).unwrap_or(&zero);
            let b = other.0.get(i).unwrap_or(&zero);
            let o = match (a, b) {
                (Seg::Num(x), Seg::Num(y)) => x.len().cmp(&y.len()).then_with(|| x.cmp(y)),
                (Seg::Str(_), Seg::Num(_)) => Ordering::Less,
                (Seg::Num(_), Seg::Str(_)) => Ordering::Greater,
                (Seg::Str(x), Seg::Str(y)) => x.cmp(y),
            };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }
}

impl PartialOrd for GemVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for GemVersion {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for GemVersion {}

#[cfg(test)]
mod tests {
    use super::*;

    fn lt(a: &str, b: &str) {
        let (x, y) = (GemVersion::parse(a).unwrap(), GemVersion::parse(b).unwrap());
        assert_eq!(x.cmp(&y), Ordering::Less, "{a} < {b}");
    }

    #[test]
    fn prereleases_sort_before_releases() {
        lt("1.0.0.rc1", "1.0.0");
        lt("1.0.0.a", "1.0.0.b");
        lt("1.0.0-1", "1.0.0");
        lt("5.2.4.2", "5.2.4.3");
        lt("1.9", "1.10");
        lt("6.0.0.beta1", "6.0.0.rc1");
    }

    #[test]
    fn trailing_zeros_do_not_count() {
        let (x, y) = (
            GemVersion::parse("1.0").unwrap(),
            GemVersion::parse("1").unwrap(),
        );
        assert_eq!(x, y);
        assert!(GemVersion::parse("1.0.a.0").unwrap() == GemVersion::parse("1.0.a").unwrap());
    }

    #[test]
    fn refuses_malformed() {
        for bad in ["", "a.1", "1..2", "1.0 beta", "1.0_1"] {
            assert!(GemVersion::parse(bad).is_none(), "{bad}");
        }
    }
}
