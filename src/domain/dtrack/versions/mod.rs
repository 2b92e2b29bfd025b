//! Version comparators, one per ecosystem, for matching components against OSV ranges:
//! Cargo, npm, Go and OSV `SEMVER` ranges by SemVer 2.0 precedence (`semver`), PyPI by PEP 440
//! (`pep440_rs`), Debian by dpkg's rules, Maven by `ComparableVersion`'s rules, RubyGems by
//! `Gem::Version`'s (the last three written here).
//!
//! A version a comparator cannot parse is `None`, which the caller reports as unknown, never
//! as not affected. Pure: no I/O.

pub mod debian;
pub mod maven;
pub mod rubygems;

use std::cmp::Ordering;
use std::str::FromStr as _;

/// How versions of one kind are ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// SemVer 2.0 precedence (build metadata ignored); a leading `v` is accepted (Go).
    Semver,
    Pep440,
    Debian,
    Maven,
    RubyGems,
}

/// A version parsed under one scheme; versions of different schemes never compare.
#[derive(Clone, Debug)]
pub enum Version {
    Semver(semver::Version),
    Pep440(pep440_rs::Version),
    Debian(debian::DebVersion),
    Maven(maven::MavenVersion),
    RubyGems(rubygems::GemVersion),
}

/// Longest version text considered (longer ones are unknown).
const MAX_VERSION_LEN: usize = 256;

impl Scheme {
    pub fn parse(self, s: &str) -> Option<Version> {
        let s = s.trim();
        if s.is_empty() || s.len() > MAX_VERSION_LEN {
            return None;
        }
        Some(match self {
            Scheme::Semver => {
                let s = s.strip_prefix('v').unwrap_or(s);
                Version::Semver(semver::Version::parse(s).ok()?)
            }
            Scheme::Pep440 => Version::Pep440(pep440_rs::Version::from_str(s).ok()?),
            Scheme::Debian => Version::Debian(debian::DebVersion::parse(s)?),
            Scheme::Maven => Version::Maven(maven::MavenVersion::parse(s)?),
            Scheme::RubyGems => Version::RubyGems(rubygems::GemVersion::parse(s)?),
        })
    }
}

impl Version {
    /// The order of two versions of the same scheme; `None` across schemes.
    pub fn compare(&self, other: &Version) -> Option<Ordering> {
        Some(match (self, other) {
            (Version::Semver(a), Version::Semver(b)) => a.cmp_precedence(b),
            (Version::Pep440(a), Version::Pep440(b)) => a.cmp(b),
            (Version::Debian(a), Version::Debian(b)) => a.cmp(b),
            (Version::Maven(a), Version::Maven(b)) => a.cmp(b),
            (Version::RubyGems(a), Version::RubyGems(b)) => a.cmp(b),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmp(s: Scheme, a: &str, b: &str) -> Ordering {
        s.parse(a).unwrap().compare(&s.parse(b).unwrap()).unwrap()
    }

    #[test]
    fn semver_ignores_build_metadata_and_accepts_go_prefix() {
        assert_eq!(cmp(Scheme::Semver, "1.0.0+abc", "1.0.0"), Ordering::Equal);
        assert_eq!(cmp(Scheme::Semver, "v1.2.3", "1.2.3"), Ordering::Equal);
        assert_eq!(cmp(Scheme::Semver, "1.0.0-rc.1", "1.0.0"), Ordering::Less);
        assert_eq!(
            cmp(Scheme::Semver, "0.0.0-20200101000000-abcdef123456", "0.1.0"),
            Ordering::Less
        );
        assert!(Scheme::Semver.parse("1.0").is_none());
    }

    #[test]
    fn pep440_orders_pre_post_and_dev_releases() {
        assert_eq!(cmp(Scheme::Pep440, "1.0", "1.0.0"), Ordering::Equal);
        assert_eq!(cmp(Scheme::Pep440, "1.0rc1", "1.0"), Ordering::Less);
        assert_eq!(cmp(Scheme::Pep440, "1.0.post1", "1.0"), Ordering::Greater);
        assert_eq!(cmp(Scheme::Pep440, "1.0.dev1", "1.0a1"), Ordering::Less);
        assert_eq!(cmp(Scheme::Pep440, "3.2.10", "3.2.9"), Ordering::Greater);
        assert!(Scheme::Pep440.parse("not a version").is_none());
    }

    #[test]
    fn schemes_do_not_mix() {
        let a = Scheme::Semver.parse("1.0.0").unwrap();
        let b = Scheme::Debian.parse("1.0.0").unwrap();
        assert!(a.compare(&b).is_none());
    }
}
