//! Package URLs (`pkg:type/namespace/name@version?qualifiers#subpath`) read into the package
//! key and version the matcher looks up, per ecosystem as OSV names packages: the ecosystem
//! from the type (and, for `deb`, `apk` and `rpm`, the vendor namespace: `debian`, `ubuntu`,
//! `alpine`, `redhat`, `almalinux`, `rocky`, `suse`/`sles`, `opensuse`), the name joined with
//! its namespace as OSV spells it (`@scope/name`, `group:artifact`, `vendor/name`, module
//! paths, `owner/repo`), and the qualifiers that matter: `distro`, `epoch` (folded into deb and
//! rpm versions as `E:V`, as upstream does), `upstream` (syft's source package: `src@ver` for
//! deb, the source RPM's file name for rpm, the origin for apk) and `platform` (RubyGems).
//!
//! Pure; a purl that names no supported ecosystem is `None`.

use super::ecosystem::Ecosystem;
use crate::model::dtrack::SourcePackage;

/// Longest purl read.
const MAX_PURL: usize = 4096;

/// What a component is matched as.
#[derive(Clone, Debug, PartialEq)]
pub struct Package {
    pub ecosystem: Ecosystem,
    /// The package as OSV names it, normalized (see [`Ecosystem::package_key`]).
    pub key: String,
    /// The version as it is compared (epoch folded in, Go toolchain tags and RubyGems
    /// platforms rewritten); `None` when the purl has none.
    pub version: Option<String>,
    /// The `distro` qualifier, if any.
    pub distro: Option<String>,
    /// The source package `upstream=` names: key and version (if given).
    pub source: Option<(String, Option<String>)>,
    /// The `epoch` qualifier (deb, rpm).
    pub epoch: Option<String>,
}

fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

/// The ecosystem a purl type and namespace name.
fn ecosystem_of(ty: &str, namespace: &str) -> Option<Ecosystem> {
    let ns = namespace.to_ascii_lowercase();
    Some(match ty {
        "npm" => Ecosystem::Npm,
        "pypi" => Ecosystem::PyPI,
        "cargo" => Ecosystem::Cargo,
        "golang" => Ecosystem::Go,
        "maven" => Ecosystem::Maven,
        "gem" => Ecosystem::RubyGems,
        "nuget" => Ecosystem::NuGet,
        "composer" => Ecosystem::Packagist,
        "hex" => Ecosystem::Hex,
        "pub" => Ecosystem::Pub,
        "swift" => Ecosystem::SwiftUrl,
        "github" | "githubactions" => Ecosystem::GitHubActions,
        "hackage" => Ecosystem::Hackage,
        "cran" => Ecosystem::Cran,
        "deb" => match ns.as_str() {
            "debian" => Ecosystem::Debian,
            "ubuntu" => Ecosystem::Ubuntu,
            _ => return None,
        },
        "apk" => match ns.as_str() {
            "alpine" | "alpinelinux" => Ecosystem::Alpine,
            _ => return None,
        },
        "rpm" => match ns.as_str() {
            "redhat" | "rhel" => Ecosystem::RedHat,
            "almalinux" | "alma" => Ecosystem::AlmaLinux,
            "rocky" | "rockylinux" => Ecosystem::Rocky,
            "suse" | "sles" | "sled" | "sle" | "slem" | "sle-micro" | "sl-micro" => Ecosystem::Suse,
            n if n.starts_with("opensuse") => Ecosystem::OpenSuse,
            _ => return None,
        },
        _ => return None,
    })
}

/// Go toolchain tags as OSV's `stdlib` versions: `go1.21.5` → `1.21.5`, `1.20` → `1.20.0`,
/// `go1.21rc2` → `1.21.0-rc.2`, `go1` → `1.0.0`.
pub fn go_toolchain_version(v: &str) -> String {
    let v = v.trim();
    let v = v.strip_prefix("go").unwrap_or(v);
    let v = v.strip_prefix('v').unwrap_or(v);
    // A build suffix after a space or `-X:` is not part of the release.
    let v = v.split([' ', '+']).next().unwrap_or("");
    let cut = v
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(v.len());
    let (nums, pre) = v.split_at(cut);
    let mut parts: Vec<&str> = nums.split('.').filter(|p| !p.is_empty()).collect();
    while parts.len() < 3 {
        parts.push("0");
    }
    let base = parts.join(".");
    let pre = pre.trim_start_matches('-');
    if pre.is_empty() {
        return base;
    }
    let kind: String = pre.chars().take_while(char::is_ascii_alphabetic).collect();
    let num = &pre[kind.len()..];
    if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) {
        format!("{base}-{pre}")
    } else {
        format!("{base}-{kind}.{num}")
    }
}

/// A RubyGems version without its platform (`1.13.10-x86_64-linux` → `1.13.10`).
pub fn gem_without_platform(v: &str) -> &str {
    const PLATFORM_WORDS: [&str; 14] = [
        "x86",
        "x64",
        "i386",
        "i686",
        "arm",
        "aarch64",
        "java",
        "jruby",
        "mingw",
        "mswin",
        "linux",
        "darwin",
        "universal",
        "musl",
    ];
    match v.split_once('-') {
        Some((base, plat))
            if PLATFORM_WORDS
                .iter()
                .any(|w| plat.to_ascii_lowercase().starts_with(w)) =>
        {
            base
        }
        _ => v,
    }
}

/// A source RPM's file name (`openssl-3.0.7-24.el9.src.rpm`) → name and `version-release`.
fn srpm(s: &str) -> Option<(String, String)> {
    let s = s
        .strip_suffix(".src.rpm")
        .or_else(|| s.strip_suffix(".nosrc.rpm"))?;
    let mut it = s.rsplitn(3, '-');
    let (rel, ver, name) = (it.next()?, it.next()?, it.next()?);
    (!name.is_empty()).then(|| (name.to_string(), format!("{ver}-{rel}")))
}

/// Folds an epoch into a deb or rpm version (`1` and `3.0.7-24.el9` → `1:3.0.7-24.el9`)
/// unless the version already carries one.
pub fn with_epoch(version: &str, epoch: Option<&str>) -> String {
    match epoch.map(str::trim).filter(|e| !e.is_empty()) {
        Some(e) if !has_epoch(version) => format!("{e}:{version}"),
        _ => version.to_string(),
    }
}

fn has_epoch(v: &str) -> bool {
    v.split_once(':')
        .is_some_and(|(e, _)| !e.is_empty() && e.bytes().all(|b| b.is_ascii_digit()))
}

/// The version of a package as it is compared.
pub fn comparable_version(eco: Ecosystem, key: &str, raw: &str, epoch: Option<&str>) -> String {
    match eco {
        Ecosystem::Go if matches!(key, "stdlib" | "toolchain") => go_toolchain_version(raw),
        Ecosystem::RubyGems => gem_without_platform(raw).to_string(),
        Ecosystem::Debian | Ecosystem::Ubuntu => with_epoch(raw, epoch),
        e if e.is_rpm() => with_epoch(raw, epoch),
        _ => raw.to_string(),
    }
}

/// The source package Trivy records in a CycloneDX component's properties
/// (`aquasecurity:trivy:SrcName`, `SrcVersion`, `SrcRelease`, `SrcEpoch`), as name and
/// `[epoch:]version[-release]`.
pub fn trivy_source<'a>(
    properties: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Option<SourcePackage> {
    let (mut name, mut version, mut release, mut epoch) = (None, None, None, None);
    for (k, v) in properties {
        let v = v.trim();
        if v.is_empty() || v.len() > 1024 {
            continue;
        }
        match k.trim() {
            "aquasecurity:trivy:SrcName" => name = Some(v),
            "aquasecurity:trivy:SrcVersion" => version = Some(v),
            "aquasecurity:trivy:SrcRelease" => release = Some(v),
            "aquasecurity:trivy:SrcEpoch" => epoch = Some(v).filter(|e| *e != "0"),
            _ => {}
        }
    }
    let version = version.map(|v| {
        let v = match release {
            Some(r) => format!("{v}-{r}"),
            None => v.to_string(),
        };
        with_epoch(&v, epoch)
    });
    Some(SourcePackage {
        name: name?.to_string(),
        version,
    })
}

/// Reads a purl; `None` when it is malformed or names no supported ecosystem.
pub fn parse(purl: &str) -> Option<Package> {
    if purl.len() > MAX_PURL {
        return None;
    }
    let rest = purl.trim();
    let rest = rest
        .get(..4)
        .filter(|p| p.eq_ignore_ascii_case("pkg:"))
        .map(|_| &rest[4..])?;
    let rest = rest.trim_start_matches('/');
    let rest = rest.split('#').next().unwrap_or("");
    let (path, qualifiers) = match rest.split_once('?') {
        Some((p, q)) => (p, q),
        None => (rest, ""),
    };
    let (ty, path) = path.split_once('/')?;
    let ty = ty.to_ascii_lowercase();
    // The version follows the last `@` after the last `/`.
    let last_slash = path.rfind('/').map_or(0, |i| i + 1);
    let (path, version) = match path[last_slash..].rfind('@') {
        Some(i) => (
            &path[..last_slash + i],
            Some(decode(&path[last_slash + i + 1..])),
        ),
        None => (path, None),
    };
    let mut segs: Vec<String> = path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(decode)
        .collect();
    let name = segs.pop()?;
    let namespace = segs.join("/");
    let ecosystem = ecosystem_of(&ty, &namespace)?;
    let qualifier = |key: &str| {
        qualifiers.split('&').find_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            k.eq_ignore_ascii_case(key)
                .then(|| decode(v))
                .filter(|v| !v.trim().is_empty())
        })
    };
    let osv_name = match ecosystem {
        Ecosystem::Npm
        | Ecosystem::Go
        | Ecosystem::Packagist
        | Ecosystem::SwiftUrl
        | Ecosystem::GitHubActions
            if !namespace.is_empty() =>
        {
            format!("{namespace}/{name}")
        }
        Ecosystem::Packagist | Ecosystem::GitHubActions | Ecosystem::SwiftUrl => return None,
        // OSV calls the Go toolchain `stdlib`.
        Ecosystem::Go if name == "go" => "stdlib".to_string(),
        Ecosystem::Maven => {
            if namespace.is_empty() {
                return None;
            }
            format!("{namespace}:{name}")
        }
        _ => name,
    };
    let key = ecosystem.package_key(&osv_name);
    let epoch = qualifier("epoch");
    let mut version = version.filter(|v| !v.trim().is_empty());
    if ecosystem == Ecosystem::RubyGems
        && let (Some(v), Some(p)) = (&version, qualifier("platform"))
        && p != "ruby"
        && let Some(base) = v.strip_suffix(&format!("-{p}"))
    {
        version = Some(base.to_string());
    }
    let source = qualifier("upstream").and_then(|u| {
        if ecosystem.is_rpm() {
            let (n, v) = srpm(&u)?;
            Some((ecosystem.package_key(&n), Some(v)))
        } else if ecosystem.is_distribution() {
            let (n, v) = match u.split_once('@') {
                Some((n, v)) => (n, Some(v.to_string()).filter(|v| !v.is_empty())),
                None => (u.as_str(), None),
            };
            (!n.is_empty()).then(|| (ecosystem.package_key(n), v))
        } else {
            None
        }
    });
    Some(Package {
        ecosystem,
        key,
        version,
        distro: qualifier("distro"),
        source,
        epoch,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_names_as_osv_spells_them() {
        let p = parse("pkg:npm/%40babel/core@7.0.0").unwrap();
        assert_eq!(
            (p.ecosystem, p.key.as_str()),
            (Ecosystem::Npm, "@babel/core")
        );
        assert_eq!(p.version.as_deref(), Some("7.0.0"));
        assert_eq!(
            parse("pkg:npm/@babel/core@7.0.0").unwrap().key,
            "@babel/core"
        );
        let p = parse("pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1?type=jar").unwrap();
        assert_eq!(p.key, "org.apache.logging.log4j:log4j-core");
        let p = parse("pkg:pypi/Django_Rest.Framework@3.0").unwrap();
        assert_eq!(p.key, "django-rest-framework");
        let p = parse("pkg:golang/github.com/gin-gonic/gin@v1.6.0").unwrap();
        assert_eq!(p.key, "github.com/gin-gonic/gin");
        assert_eq!(p.version.as_deref(), Some("v1.6.0"));
        let p =
            parse("pkg:deb/debian/curl@7.74.0-1.3%2Bdeb11u7?arch=amd64&distro=debian-11").unwrap();
        assert_eq!(p.version.as_deref(), Some("7.74.0-1.3+deb11u7"));
        assert_eq!(p.distro.as_deref(), Some("debian-11"));
        assert_eq!(parse("pkg:cargo/serde").unwrap().version, None);
        assert_eq!(
            parse("pkg:composer/laravel/framework@v9.0.0").unwrap().key,
            "laravel/framework"
        );
        assert_eq!(
            parse("pkg:nuget/Newtonsoft.Json@13.0.1").unwrap().key,
            "newtonsoft.json"
        );
        assert_eq!(
            parse("pkg:github/actions/checkout@v4").unwrap().key,
            "actions/checkout"
        );
        assert_eq!(
            parse("pkg:swift/github.com/apple/swift-nio@2.40.0")
                .unwrap()
                .key,
            "github.com/apple/swift-nio"
        );
        assert_eq!(
            parse("pkg:hex/phoenix@1.6.0").unwrap().ecosystem,
            Ecosystem::Hex
        );
        assert_eq!(
            parse("pkg:pub/http@0.13.0").unwrap().ecosystem,
            Ecosystem::Pub
        );
        assert_eq!(
            parse("pkg:hackage/aeson@2.0.0.0").unwrap().ecosystem,
            Ecosystem::Hackage
        );
        assert_eq!(
            parse("pkg:cran/ggplot2@3.4.0").unwrap().ecosystem,
            Ecosystem::Cran
        );
    }

    #[test]
    fn scanner_os_package_shapes() {
        // syft, Debian: the source package and its version in `upstream`.
        let p = parse(
            "pkg:deb/debian/libssl3@3.0.11-1~deb12u2?arch=amd64&distro=debian-12&upstream=openssl",
        )
        .unwrap();
        assert_eq!(
            (p.ecosystem, p.key.as_str()),
            (Ecosystem::Debian, "libssl3")
        );
        assert_eq!(p.source, Some(("openssl".into(), None)));
        let p = parse("pkg:deb/debian/libgnutls30@3.7.1-5%2Bdeb11u3?arch=amd64&upstream=gnutls28%403.7.1-5%2Bdeb11u3&distro=debian-11").unwrap();
        assert_eq!(
            p.source,
            Some(("gnutls28".into(), Some("3.7.1-5+deb11u3".into())))
        );
        // Trivy, Ubuntu, epoch as a qualifier.
        let p =
            parse("pkg:deb/ubuntu/libc6@2.35-0ubuntu3.6?arch=amd64&distro=ubuntu-22.04&epoch=1")
                .unwrap();
        assert_eq!(p.ecosystem, Ecosystem::Ubuntu);
        assert_eq!(
            comparable_version(
                p.ecosystem,
                &p.key,
                p.version.as_deref().unwrap(),
                p.epoch.as_deref()
            ),
            "1:2.35-0ubuntu3.6"
        );
        // syft, Red Hat: the source RPM's file name.
        let p = parse("pkg:rpm/redhat/openssl-libs@3.0.7-24.el9?arch=x86_64&distro=rhel-9.3&epoch=1&upstream=openssl-3.0.7-24.el9.src.rpm").unwrap();
        assert_eq!(
            (p.ecosystem, p.key.as_str()),
            (Ecosystem::RedHat, "openssl-libs")
        );
        assert_eq!(
            p.source,
            Some(("openssl".into(), Some("3.0.7-24.el9".into())))
        );
        assert_eq!(
            parse("pkg:rpm/rocky/bash@5.1.8-6.el9_1?distro=rocky-9.3")
                .unwrap()
                .ecosystem,
            Ecosystem::Rocky
        );
        assert_eq!(
            parse("pkg:rpm/opensuse/curl@8.0.1-150400.5.32.1?distro=opensuse-leap-15.5")
                .unwrap()
                .ecosystem,
            Ecosystem::OpenSuse
        );
        assert_eq!(
            parse("pkg:rpm/suse/curl@8.0.1-150400.5.32.1?distro=sles-15.5")
                .unwrap()
                .ecosystem,
            Ecosystem::Suse
        );
        // Trivy, Alpine: the distro without a prefix.
        let p =
            parse("pkg:apk/alpine/libcrypto3@3.0.8-r0?arch=x86_64&distro=3.17.2&upstream=openssl")
                .unwrap();
        assert_eq!(
            (p.ecosystem, p.distro.as_deref()),
            (Ecosystem::Alpine, Some("3.17.2"))
        );
        assert_eq!(p.source, Some(("openssl".into(), None)));
    }

    #[test]
    fn trivy_source_properties() {
        let props = [
            ("aquasecurity:trivy:PkgType", "debian"),
            ("aquasecurity:trivy:SrcName", "openssl"),
            ("aquasecurity:trivy:SrcVersion", "3.0.11"),
            ("aquasecurity:trivy:SrcRelease", "1~deb12u2"),
        ];
        let s = trivy_source(props).unwrap();
        assert_eq!(
            (s.name.as_str(), s.version.as_deref()),
            ("openssl", Some("3.0.11-1~deb12u2"))
        );
        let rpm = [
            ("aquasecurity:trivy:SrcName", "openssl"),
            ("aquasecurity:trivy:SrcVersion", "3.0.7"),
            ("aquasecurity:trivy:SrcRelease", "24.el9"),
            ("aquasecurity:trivy:SrcEpoch", "1"),
        ];
        assert_eq!(
            trivy_source(rpm).unwrap().version.as_deref(),
            Some("1:3.0.7-24.el9")
        );
        assert_eq!(trivy_source([("aquasecurity:trivy:SrcVersion", "1")]), None);
    }

    #[test]
    fn identity_forms() {
        let p = parse("pkg:golang/github.com/Azure/azure-sdk-for-go@v68.0.0").unwrap();
        assert_eq!(p.key, "github.com/azure/azure-sdk-for-go");
        let p = parse("pkg:golang/stdlib@go1.21.5").unwrap();
        assert_eq!(
            comparable_version(p.ecosystem, &p.key, "go1.21.5", None),
            "1.21.5"
        );
        assert_eq!(go_toolchain_version("1.20"), "1.20.0");
        assert_eq!(go_toolchain_version("v1.22.1"), "1.22.1");
        assert_eq!(go_toolchain_version("go1.21rc2"), "1.21.0-rc.2");
        assert_eq!(go_toolchain_version("go1"), "1.0.0");
        assert_eq!(parse("pkg:golang/go@1.21.0").unwrap().key, "stdlib");
        let p = parse("pkg:gem/nokogiri@1.13.10-x86_64-linux?platform=x86_64-linux").unwrap();
        assert_eq!(p.version.as_deref(), Some("1.13.10"));
        assert_eq!(gem_without_platform("1.13.10-arm64-darwin"), "1.13.10");
        assert_eq!(gem_without_platform("1.13.10-java"), "1.13.10");
        assert_eq!(gem_without_platform("2.0.0-rc1"), "2.0.0-rc1");
        assert_eq!(with_epoch("1:2.0", Some("3")), "1:2.0");
    }

    #[test]
    fn refuses_what_it_cannot_match() {
        for bad in [
            "",
            "npm/x@1",
            "pkg:unknown/x@1",
            "pkg:deb/raspbian/curl@1",
            "pkg:apk/wolfi/curl@1",
            "pkg:rpm/fedora/curl@1",
            "pkg:maven/x@1",
            "pkg:composer/x@1",
        ] {
            assert!(parse(bad).is_none(), "{bad}");
        }
    }
}
