//! Version comparators, one per ecosystem, for matching components against OSV ranges:
//! Cargo, npm, Go and OSV `SEMVER` ranges by SemVer 2.0 precedence (`semver`), PyPI by PEP 440
//! (`pep440_rs`), and written here: Debian and Ubuntu by dpkg's rules (`debian`), Maven by
//! `ComparableVersion`'s (`maven`), RubyGems by `Gem::Version`'s (`rubygems`), the RPM family
//! by rpmvercmp (`rpm`), Alpine by apk's (`apk`), Packagist by PHP's `version_compare`
//! (`packagist`), and NuGet, Pub, Hex, SwiftURL, GitHub Actions, Hackage and CRAN by their
//! SemVer-like or numeric rules (`semverlike`); a generic order for versions no scheme reads
//! (`generic`, CPE matching's fallback).
//!
//! A version a comparator cannot parse is `None`, which the caller reports as unknown, never
//! as not affected. Pure: no I/O.

pub mod apk;
pub mod debian;
pub mod generic;
pub mod maven;
pub mod packagist;
pub mod rpm;
pub mod rubygems;
pub mod semverlike;

use semverlike::Flavor;

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
    Rpm,
    Apk,
    NuGet,
    Pub,
    /// SemVer-like, lenient: Hex, SwiftURL, GitHub Actions.
    Lenient,
    Packagist,
    Hackage,
    Cran,
}

/// A version parsed under one scheme; versions of different schemes never compare.
#[derive(Clone, Debug)]
pub enum Version {
    Semver(semver::Version),
    Pep440(pep440_rs::Version),
    Debian(debian::DebVersion),
    Maven(maven::MavenVersion),
    RubyGems(rubygems::GemVersion),
    Rpm(rpm::RpmVersion),
    Apk(apk::ApkVersion),
    Loose(semverlike::LooseVersion),
    Php(packagist::PhpVersion),
    Numeric(semverlike::NumericVersion),
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
            Scheme::Rpm => Version::Rpm(rpm::RpmVersion::parse(s)?),
            Scheme::Apk => Version::Apk(apk::ApkVersion::parse(s)?),
            Scheme::NuGet => Version::Loose(semverlike::LooseVersion::parse(s, Flavor::NuGet)?),
            Scheme::Pub => Version::Loose(semverlike::LooseVersion::parse(s, Flavor::Pub)?),
            Scheme::Lenient => Version::Loose(semverlike::LooseVersion::parse(s, Flavor::Lenient)?),
            Scheme::Packagist => Version::Php(packagist::PhpVersion::parse(s)?),
            Scheme::Hackage => Version::Numeric(semverlike::NumericVersion::parse(s, false)?),
            Scheme::Cran => Version::Numeric(semverlike::NumericVersion::parse(s, true)?),
        })
    }

    /// The scheme's name in reasons given for undecidable matches.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Semver => "SemVer",
            Scheme::Pep440 => "PEP 440",
            Scheme::Debian => "Debian",
            Scheme::Maven => "Maven",
            Scheme::RubyGems => "RubyGems",
            Scheme::Rpm => "RPM",
            Scheme::Apk => "Alpine",
            Scheme::NuGet => "NuGet",
            Scheme::Pub => "Pub",
            Scheme::Lenient => "SemVer-like",
            Scheme::Packagist => "Composer",
            Scheme::Hackage => "Hackage",
            Scheme::Cran => "CRAN",
        }
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
            (Version::Rpm(a), Version::Rpm(b)) => a.cmp(b),
            (Version::Apk(a), Version::Apk(b)) => a.cmp(b),
            (Version::Loose(a), Version::Loose(b)) => a.cmp(b),
            (Version::Php(a), Version::Php(b)) => a.cmp(b),
            (Version::Numeric(a), Version::Numeric(b)) => a.cmp(b),
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
