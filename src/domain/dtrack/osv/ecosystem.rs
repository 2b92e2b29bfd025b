//! The OSV ecosystems the matcher supports: how OSV names them (`Debian:12`, `Ubuntu:Pro:22.04:LTS`,
//! `Maven:https://maven.google.com`), the key stored rows name them by, the version order of
//! their `ECOSYSTEM` ranges, and how a package name is normalised so that OSV's spelling and a
//! package URL's meet (PEP 503 for PyPI; case-insensitive for npm, Go, NuGet, Composer, Hex,
//! Pub, GitHub Actions, SwiftURL and crates.io, which also reads `_` as `-`).
//!
//! Pure.

use crate::domain::dtrack::versions::Scheme;

/// An ecosystem with a comparator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ecosystem {
    Npm,
    PyPI,
    Cargo,
    Go,
    Maven,
    Debian,
    Ubuntu,
    Alpine,
    RedHat,
    AlmaLinux,
    Rocky,
    Suse,
    OpenSuse,
    RubyGems,
    NuGet,
    Packagist,
    Hex,
    Pub,
    SwiftUrl,
    GitHubActions,
    Hackage,
    Cran,
}

impl Ecosystem {
    /// OSV's ecosystem name → ecosystem and release suffix (distributions only: the text after
    /// the first `:`). `Maven:` and `Packagist:` suffixes name a repository and are dropped;
    /// a suffix on any other ecosystem is not one we know.
    pub fn from_osv(name: &str) -> Option<(Ecosystem, Option<String>)> {
        let (base, suffix) = match name.split_once(':') {
            Some((b, r)) => (b, Some(r.trim().to_string()).filter(|r| !r.is_empty())),
            None => (name, None),
        };
        let eco = match base.trim() {
            "npm" => Ecosystem::Npm,
            "PyPI" => Ecosystem::PyPI,
            "crates.io" => Ecosystem::Cargo,
            "Go" => Ecosystem::Go,
            "Maven" => Ecosystem::Maven,
            "Debian" => Ecosystem::Debian,
            "Ubuntu" => Ecosystem::Ubuntu,
            "Alpine" => Ecosystem::Alpine,
            "Red Hat" => Ecosystem::RedHat,
            "AlmaLinux" => Ecosystem::AlmaLinux,
            "Rocky Linux" => Ecosystem::Rocky,
            "SUSE" => Ecosystem::Suse,
            "openSUSE" => Ecosystem::OpenSuse,
            "RubyGems" => Ecosystem::RubyGems,
            "NuGet" => Ecosystem::NuGet,
            "Packagist" => Ecosystem::Packagist,
            "Hex" => Ecosystem::Hex,
            "Pub" => Ecosystem::Pub,
            "SwiftURL" => Ecosystem::SwiftUrl,
            "GitHub Actions" => Ecosystem::GitHubActions,
            "Hackage" => Ecosystem::Hackage,
            "CRAN" => Ecosystem::Cran,
            _ => return None,
        };
        match (eco, suffix) {
            (Ecosystem::Maven | Ecosystem::Packagist, _) => Some((eco, None)),
            (e, s) if e.is_distribution() => Some((e, s)),
            (e, None) => Some((e, None)),
            (_, Some(_)) => None,
        }
    }

    /// Whether OSV names releases of this ecosystem (a Linux distribution).
    pub fn is_distribution(self) -> bool {
        matches!(
            self,
            Ecosystem::Debian
                | Ecosystem::Ubuntu
                | Ecosystem::Alpine
                | Ecosystem::RedHat
                | Ecosystem::AlmaLinux
                | Ecosystem::Rocky
                | Ecosystem::Suse
                | Ecosystem::OpenSuse
        )
    }

    /// Whether this is one of the RPM family.
    pub fn is_rpm(self) -> bool {
        matches!(
            self,
            Ecosystem::RedHat
                | Ecosystem::AlmaLinux
                | Ecosystem::Rocky
                | Ecosystem::Suse
                | Ecosystem::OpenSuse
        )
    }

    /// How stored rows name the ecosystem (the purl type, with the distribution for those
    /// that share one; Debian's rows predate that and are plain `deb`).
    pub fn purl_type(self) -> &'static str {
        match self {
            Ecosystem::Npm => "npm",
            Ecosystem::PyPI => "pypi",
            Ecosystem::Cargo => "cargo",
            Ecosystem::Go => "golang",
            Ecosystem::Maven => "maven",
            Ecosystem::Debian => "deb",
            Ecosystem::Ubuntu => "deb/ubuntu",
            Ecosystem::Alpine => "apk",
            Ecosystem::RedHat => "rpm/redhat",
            Ecosystem::AlmaLinux => "rpm/almalinux",
            Ecosystem::Rocky => "rpm/rocky",
            Ecosystem::Suse => "rpm/suse",
            Ecosystem::OpenSuse => "rpm/opensuse",
            Ecosystem::RubyGems => "gem",
            Ecosystem::NuGet => "nuget",
            Ecosystem::Packagist => "composer",
            Ecosystem::Hex => "hex",
            Ecosystem::Pub => "pub",
            Ecosystem::SwiftUrl => "swift",
            Ecosystem::GitHubActions => "github",
            Ecosystem::Hackage => "hackage",
            Ecosystem::Cran => "cran",
        }
    }

    /// How `ECOSYSTEM` ranges of this ecosystem order versions.
    pub fn scheme(self) -> Scheme {
        match self {
            Ecosystem::Npm | Ecosystem::Cargo | Ecosystem::Go => Scheme::Semver,
            Ecosystem::PyPI => Scheme::Pep440,
            Ecosystem::Maven => Scheme::Maven,
            Ecosystem::Debian | Ecosystem::Ubuntu => Scheme::Debian,
            Ecosystem::Alpine => Scheme::Apk,
            Ecosystem::RedHat
            | Ecosystem::AlmaLinux
            | Ecosystem::Rocky
            | Ecosystem::Suse
            | Ecosystem::OpenSuse => Scheme::Rpm,
            Ecosystem::RubyGems => Scheme::RubyGems,
            Ecosystem::NuGet => Scheme::NuGet,
            Ecosystem::Packagist => Scheme::Packagist,
            Ecosystem::Hex | Ecosystem::SwiftUrl | Ecosystem::GitHubActions => Scheme::Lenient,
            Ecosystem::Pub => Scheme::Pub,
            Ecosystem::Hackage => Scheme::Hackage,
            Ecosystem::Cran => Scheme::Cran,
        }
    }

    /// How `SEMVER` ranges order versions: strict SemVer, or SemVer-like where the
    /// ecosystem's versions are (`v4`, `1.2`).
    pub fn semver_scheme(self) -> Scheme {
        match self.scheme() {
            Scheme::Lenient | Scheme::NuGet | Scheme::Pub => self.scheme(),
            _ => Scheme::Semver,
        }
    }

    /// The package name as it is looked up.
    pub fn package_key(self, name: &str) -> String {
        let name = name.trim();
        match self {
            Ecosystem::PyPI => {
                let mut out = String::with_capacity(name.len());
                let mut sep = false;
                for ch in name.chars() {
                    if matches!(ch, '-' | '_' | '.') {
                        sep = true;
                    } else {
                        if sep && !out.is_empty() {
                            out.push('-');
                        }
                        sep = false;
                        out.extend(ch.to_lowercase());
                    }
                }
                out
            }
            Ecosystem::Cargo => name.to_ascii_lowercase().replace('_', "-"),
            Ecosystem::SwiftUrl => {
                let n = name.to_ascii_lowercase();
                let n = n.split_once("://").map_or(n.as_str(), |(_, r)| r);
                let n = n.trim_end_matches('/');
                n.strip_suffix(".git").unwrap_or(n).to_string()
            }
            Ecosystem::Npm
            | Ecosystem::Go
            | Ecosystem::NuGet
            | Ecosystem::Packagist
            | Ecosystem::Hex
            | Ecosystem::Pub
            | Ecosystem::GitHubActions
            | Ecosystem::Debian
            | Ecosystem::Ubuntu
            | Ecosystem::Alpine => name.to_lowercase(),
            _ => name.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osv_names() {
        assert_eq!(
            Ecosystem::from_osv("Debian:11"),
            Some((Ecosystem::Debian, Some("11".into())))
        );
        assert_eq!(
            Ecosystem::from_osv("Ubuntu:Pro:FIPS:20.04:LTS"),
            Some((Ecosystem::Ubuntu, Some("Pro:FIPS:20.04:LTS".into())))
        );
        assert_eq!(
            Ecosystem::from_osv("Maven:https://maven.google.com"),
            Some((Ecosystem::Maven, None))
        );
        assert_eq!(
            Ecosystem::from_osv("Red Hat:enterprise_linux:9::baseos"),
            Some((Ecosystem::RedHat, Some("enterprise_linux:9::baseos".into())))
        );
        assert_eq!(
            Ecosystem::from_osv("Hackage"),
            Some((Ecosystem::Hackage, None))
        );
        assert_eq!(Ecosystem::from_osv("npm:x"), None);
        assert_eq!(Ecosystem::from_osv("Linux"), None);
    }

    #[test]
    fn names_meet_both_ways() {
        assert_eq!(Ecosystem::PyPI.package_key("Foo__Bar.baz"), "foo-bar-baz");
        assert_eq!(Ecosystem::PyPI.package_key("foo-bar-baz"), "foo-bar-baz");
        assert_eq!(Ecosystem::Npm.package_key("JSONStream"), "jsonstream");
        assert_eq!(
            Ecosystem::Go.package_key("github.com/Azure/azure-sdk-for-go"),
            "github.com/azure/azure-sdk-for-go"
        );
        assert_eq!(Ecosystem::Cargo.package_key("Serde_JSON"), "serde-json");
        assert_eq!(
            Ecosystem::SwiftUrl.package_key("https://github.com/Vapor/vapor.git"),
            "github.com/vapor/vapor"
        );
        assert_eq!(
            Ecosystem::NuGet.package_key("Newtonsoft.Json"),
            "newtonsoft.json"
        );
        assert_eq!(
            Ecosystem::RedHat.package_key("NetworkManager"),
            "NetworkManager"
        );
        assert_eq!(Ecosystem::Maven.package_key("org.Apache:x"), "org.Apache:x");
    }
}
