//! Versions that look like SemVer without being strict about it, as osv.dev and osv-scanner
//! compare them: one leading `v` dropped, numeric components of any size (missing ones are 0,
//! so `1.0` equals `1.0.0`), then a prerelease string compared identifier by identifier
//! (numbers numerically and below words; no prerelease above any). Variants:
//! [`Flavor::Lenient`] (Hex, SwiftURL, GitHub Actions), [`Flavor::NuGet`] (four components,
//! prerelease case-insensitive, build metadata ignored) and [`Flavor::Pub`] (build metadata
//! ordered after the prerelease: `1.0.0-pre < 1.0.0-pre+b < 1.0.0 < 1.0.0+b`). Also the
//! all-numeric orders of Hackage (`.` only) and CRAN (`.` or `-`), where more components is
//! greater (`1.0 < 1.0.0`).
//!
//! Pure; written here from the ecosystems' documented rules.

use std::cmp::Ordering;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flavor {
    Lenient,
    NuGet,
    Pub,
}

/// A parsed SemVer-like version.
#[derive(Clone, Debug)]
pub struct LooseVersion {
    numbers: Vec<String>,
    pre: String,
    build: String,
    flavor: Flavor,
}

fn cmp_numbers(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.trim_start_matches('0'), b.trim_start_matches('0'));
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

/// Dot-separated identifiers: numbers below words, more identifiers greater on a tie.
fn cmp_identifiers(a: &str, b: &str) -> Ordering {
    let mut x = a.split('.');
    let mut y = b.split('.');
    loop {
        match (x.next(), y.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(p), Some(q)) => {
                let (pn, qn) = (
                    !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()),
                    !q.is_empty() && q.bytes().all(|c| c.is_ascii_digit()),
                );
                let o = match (pn, qn) {
                    (true, true) => cmp_numbers(p, q),
                    (true, false) => Ordering::Less,
                    (false, true) => Ordering::Greater,
                    (false, false) => p.cmp(q),
                };
                if o != Ordering::Equal {
                    return o;
                }
            }
        }
    }
}

impl LooseVersion {
    /// `None` unless the text starts with a digit (after an optional `v`).
    pub fn parse(s: &str, flavor: Flavor) -> Option<LooseVersion> {
        let s = s.trim();
        let s = s
            .strip_prefix('v')
            .or_else(|| s.strip_prefix('V'))
            .unwrap_or(s);
        if !s.starts_with(|c: char| c.is_ascii_digit()) || s.chars().any(char::is_whitespace) {
            return None;
        }
        let end = s
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(s.len());
        let (nums, rest) = s.split_at(end);
        let mut numbers: Vec<String> = nums
            .split('.')
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect();
        let keep = if flavor == Flavor::NuGet { 4 } else { 3 };
        let mut extra = String::new();
        if numbers.len() > keep {
            extra = numbers.split_off(keep).join(".");
        }
        let (pre, build) = match rest.split_once('+') {
            Some((p, b)) => (p, b),
            None => (rest, ""),
        };
        let mut pre = pre.strip_prefix('-').unwrap_or(pre).to_string();
        if !extra.is_empty() {
            pre = if pre.is_empty() {
                extra
            } else {
                format!("{extra}.{pre}")
            };
        }
        let mut build = build.to_string();
        if flavor == Flavor::NuGet {
            pre = pre.to_ascii_lowercase();
            build.clear();
        }
        if flavor == Flavor::Lenient {
            build.clear();
        }
        Some(LooseVersion {
            numbers,
            pre,
            build,
            flavor,
        })
    }
}

impl Ord for LooseVersion {
    fn cmp(&self, other: &Self) -> Ordering {
        let n = self.numbers.len().max(other.numbers.len());
        for k in 0..n {
            let a = self.numbers.get(k).map_or("0", String::as_str);
            let b = other.numbers.get(k).map_or("0", String::as_str);
            let o = cmp_numbers(a, b);
            if o != Ordering::Equal {
                return o;
            }
        }
        let o = match (self.pre.is_empty(), other.pre.is_empty()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) => cmp_identifiers(&self.pre, &other.pre),
        };
        if o != Ordering::Equal || self.flavor != Flavor::Pub {
            return o;
        }
        match (self.build.is_empty(), other.build.is_empty()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            (false, false) => cmp_identifiers(&self.build, &other.build),
        }
    }
}

impl PartialOrd for LooseVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for LooseVersion {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for LooseVersion {}

/// An all-numeric version (Hackage, CRAN).
#[derive(Clone, Debug)]
pub struct NumericVersion(Vec<String>);

impl NumericVersion {
    /// Hackage: `.`-separated numbers; CRAN (`dash`): `.` or `-`. Anything else is `None`.
    pub fn parse(s: &str, dash: bool) -> Option<NumericVersion> {
        let parts: Vec<String> = s
            .trim()
            .split(|c| c == '.' || (dash && c == '-'))
            .map(str::to_string)
            .collect();
        if parts
            .iter()
            .any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()))
        {
            return None;
        }
        Some(NumericVersion(parts))
    }
}

impl Ord for NumericVersion {
    fn cmp(&self, other: &Self) -> Ordering {
        for (a, b) in self.0.iter().zip(&other.0) {
            let o = cmp_numbers(a, b);
            if o != Ordering::Equal {
                return o;
            }
        }
        self.0.len().cmp(&other.0.len())
    }
}

impl PartialOrd for NumericVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for NumericVersion {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for NumericVersion {}

#[cfg(test)]
mod tests {
    use super::*;
    use Ordering::*;

    fn cmp(f: Flavor, a: &str, b: &str) -> Ordering {
        LooseVersion::parse(a, f)
            .unwrap()
            .cmp(&LooseVersion::parse(b, f).unwrap())
    }

    #[test]
    fn lenient_semver() {
        for (a, b, want) in [
            ("v4", "4.0.0", Equal),
            ("1.0", "1.0.0", Equal),
            ("01.2.3", "1.2.3", Equal),
            ("1.6.0-rc.1", "1.6.0", Less),
            ("1.6.0-rc.2", "1.6.0-rc.10", Less),
            ("1.6.0-alpha", "1.6.0-alpha.1", Less),
            ("1.6.0-1", "1.6.0-alpha", Less),
            ("1.0.0+build.5", "1.0.0", Equal),
            ("2.10.0", "2.9.9", Greater),
            ("99999999999999999999.0", "1.0", Greater),
        ] {
            assert_eq!(cmp(Flavor::Lenient, a, b), want, "{a} vs {b}");
        }
        assert!(LooseVersion::parse("main", Flavor::Lenient).is_none());
    }

    #[test]
    fn nuget_four_parts_and_case_insensitive_prerelease() {
        for (a, b, want) in [
            ("4.3.0.1", "4.3.0", Greater),
            ("4.3.0.0", "4.3.0", Equal),
            ("1.0.0-BETA", "1.0.0-beta", Equal),
            ("1.0.0-beta.2", "1.0.0-Beta.10", Less),
            ("13.0.1", "13.0.1+sha.abc", Equal),
            ("6.0.0-preview.7.21377.19", "6.0.0", Less),
            ("6.0.10", "6.0.9", Greater),
        ] {
            assert_eq!(cmp(Flavor::NuGet, a, b), want, "{a} vs {b}");
        }
    }

    #[test]
    fn pub_orders_build_metadata() {
        let order = [
            "1.0.0-pre",
            "1.0.0-pre+build",
            "1.0.0",
            "1.0.0+build",
            "1.0.1",
        ];
        for w in order.windows(2) {
            assert_eq!(cmp(Flavor::Pub, w[0], w[1]), Less, "{w:?}");
        }
    }

    #[test]
    fn hackage_and_cran() {
        let h = |a: &str, b: &str| {
            NumericVersion::parse(a, false)
                .unwrap()
                .cmp(&NumericVersion::parse(b, false).unwrap())
        };
        assert_eq!(h("1.0", "1.0.0"), Less);
        assert_eq!(h("2.0.3.0", "2.0.10"), Less);
        assert_eq!(h("0.11.1.0", "0.11.1"), Greater);
        assert!(NumericVersion::parse("1.0-rc1", false).is_none());
        assert!(NumericVersion::parse("1.0-1", false).is_none());
        let c = |a: &str, b: &str| {
            NumericVersion::parse(a, true)
                .unwrap()
                .cmp(&NumericVersion::parse(b, true).unwrap())
        };
        assert_eq!(c("1.4-1", "1.4.1"), Equal);
        assert_eq!(c("3.5.1", "3.5-0"), Greater);
        assert_eq!(c("0.9-10", "0.9-9"), Greater);
        assert!(NumericVersion::parse("1.0a", true).is_none());
    }
}
