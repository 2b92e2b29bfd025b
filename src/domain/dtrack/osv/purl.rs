//! Package URLs (`pkg:type/namespace/name@version?qualifiers#subpath`) read into the package
//! key and version the matcher looks up, per ecosystem as OSV names packages.
//!
//! Pure; a purl that names no supported ecosystem is `None`.

use super::eval::Ecosystem;

/// What a component is matched as.
#[derive(Clone, Debug, PartialEq)]
pub struct Package {
    pub ecosystem: Ecosystem,
    /// The package as OSV names it, normalized (see [`Ecosystem::package_key`]).
    pub key: String,
    pub version: Option<String>,
    /// Debian: the purl's `distro` qualifier, if any.
    pub distro: Option<String>,
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

/// Reads a purl; `None` when it is malformed or names no supported ecosystem.
pub fn parse(purl: &str) -> Option<Package> {
    if purl.len() > 4096 {
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
        Some((p, q)) => (p, Some(q)),
        None => (rest, None),
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
    let ecosystem = Ecosystem::from_purl_type(&ty)?;
    let distro = qualifiers.and_then(|q| {
        q.split('&').find_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            k.eq_ignore_ascii_case("distro").then(|| decode(v))
        })
    });
    let osv_name = match ecosystem {
        Ecosystem::Npm | Ecosystem::Go if !namespace.is_empty() => format!("{namespace}/{name}"),
        Ecosystem::Maven => {
            if namespace.is_empty() {
                return None;
            }
            format!("{namespace}:{name}")
        }
        Ecosystem::Debian => {
            if !namespace.eq_ignore_ascii_case("debian") {
                return None;
            }
            name
        }
        _ => name,
    };
    Some(Package {
        ecosystem,
        key: ecosystem.package_key(&osv_name),
        version: version.filter(|v| !v.is_empty()),
        distro,
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
    }

    #[test]
    fn refuses_what_it_cannot_match() {
        for bad in [
            "",
            "npm/x@1",
            "pkg:unknown/x@1",
            "pkg:deb/ubuntu/curl@1",
            "pkg:maven/x@1",
        ] {
            assert!(parse(bad).is_none(), "{bad}");
        }
    }
}
