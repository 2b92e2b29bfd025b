//! Which release of a Linux distribution an OSV entry and a component belong to, and whether
//! the one applies to the other. Releases are reduced to one key per distribution, as
//! upstream's `OsDistribution` does for Debian, Ubuntu and Alpine: Debian and Ubuntu by series
//! (`Debian:12`, `debian-12`, `12.4`, `bookworm` are all `bookworm`), Alpine by major.minor
//! (`Alpine:v3.17`, `alpine-3.17.2`, `3.17`), and for the RPM family by major release (Red Hat
//! product streams `enterprise_linux:9::baseos`, `rhel-9.3`; AlmaLinux and Rocky `9`), SUSE by
//! product line and service pack (`Linux Enterprise Server 15 SP5`, `sles-15.5`), openSUSE by
//! Leap / Leap Micro release or Tumbleweed.
//!
//! Ubuntu Pro entries (`Pro:22.04:LTS`) apply to their release like the plain ones; the FIPS
//! and Realtime lineages apply only to components whose version names that lineage.
//!
//! A component whose purl names no release gets one from its version where the distribution
//! writes it there (`+deb11u3`, `ubuntu0.22.04.1`, `.el9_2`); failing that, it is matched against
//! every release's entries, as upstream does. Pure.

use super::ecosystem::Ecosystem;

const DEBIAN: &[(&str, &str)] = &[
    ("buzz", "1.1"),
    ("rex", "1.2"),
    ("bo", "1.3"),
    ("hamm", "2.0"),
    ("slink", "2.1"),
    ("potato", "2.2"),
    ("woody", "3.0"),
    ("sarge", "3.1"),
    ("etch", "4.0"),
    ("lenny", "5.0"),
    ("squeeze", "6.0"),
    ("wheezy", "7"),
    ("jessie", "8"),
    ("stretch", "9"),
    ("buster", "10"),
    ("bullseye", "11"),
    ("bookworm", "12"),
    ("trixie", "13"),
    ("forky", "14"),
    ("duke", "15"),
    ("sid", ""),
];

const UBUNTU: &[(&str, &str)] = &[
    ("warty", "4.10"),
    ("hoary", "5.04"),
    ("breezy", "5.10"),
    ("dapper", "6.06"),
    ("edgy", "6.10"),
    ("feisty", "7.04"),
    ("gutsy", "7.10"),
    ("hardy", "8.04"),
    ("intrepid", "8.10"),
    ("jaunty", "9.04"),
    ("karmic", "9.10"),
    ("lucid", "10.04"),
    ("maverick", "10.10"),
    ("natty", "11.04"),
    ("oneiric", "11.10"),
    ("precise", "12.04"),
    ("quantal", "12.10"),
    ("raring", "13.04"),
    ("saucy", "13.10"),
    ("trusty", "14.04"),
    ("utopic", "14.10"),
    ("vivid", "15.04"),
    ("wily", "15.10"),
    ("xenial", "16.04"),
    ("yakkety", "16.10"),
    ("zesty", "17.04"),
    ("artful", "17.10"),
    ("bionic", "18.04"),
    ("cosmic", "18.10"),
    ("disco", "19.04"),
    ("eoan", "19.10"),
    ("focal", "20.04"),
    ("groovy", "20.10"),
    ("hirsute", "21.04"),
    ("impish", "21.10"),
    ("jammy", "22.04"),
    ("kinetic", "22.10"),
    ("lunar", "23.04"),
    ("mantic", "23.10"),
    ("noble", "24.04"),
    ("oracular", "24.10"),
    ("plucky", "25.04"),
    ("questing", "25.10"),
    ("resolute", "26.04"),
];

/// A release as the matcher compares it, and the lineage of an Ubuntu Pro entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Release {
    pub key: String,
    /// `fips` or `realtime`: applies only to components whose version carries the word.
    pub lineage: Option<&'static str>,
}

fn plain(key: String) -> Option<Release> {
    Some(Release { key, lineage: None })
}

fn numeric(s: &str) -> bool {
    !s.is_empty()
        && s.split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// Upstream's lookup cascade: a known series, a known version, a point release's major part,
/// then an unknown series or version as itself.
fn series(
    table: &[(&str, &str)],
    value: &str,
    point: fn(&str) -> Option<String>,
) -> Option<String> {
    let v = value.trim().to_ascii_lowercase();
    if v.is_empty() {
        return None;
    }
    if let Some((s, _)) = table.iter().find(|(s, _)| *s == v) {
        return Some(s.to_string());
    }
    if let Some((s, _)) = table.iter().find(|(_, n)| !n.is_empty() && *n == v) {
        return Some(s.to_string());
    }
    if let Some(short) = point(&v)
        && let Some((s, _)) = table.iter().find(|(_, n)| *n == short)
    {
        return Some(s.to_string());
    }
    if v.bytes().all(|b| b.is_ascii_lowercase()) || numeric(&v) {
        return Some(v);
    }
    None
}

/// Debian `12.4` → `12`, `5.0.10` → `5.0`.
fn debian_point(v: &str) -> Option<String> {
    let parts: Vec<&str> = v.split('.').collect();
    if !numeric(v) || parts.len() < 2 {
        return None;
    }
    if parts[0].parse::<u32>().ok()? >= 7 {
        Some(parts[0].to_string())
    } else {
        Some(format!("{}.{}", parts[0], parts[1]))
    }
}

/// Ubuntu `22.04.3` → `22.04`.
fn ubuntu_point(v: &str) -> Option<String> {
    let parts: Vec<&str> = v.split('.').collect();
    (numeric(v) && parts.len() > 2).then(|| format!("{}.{}", parts[0], parts[1]))
}

/// `3.17.2`, `v3.17` → `3.17`.
fn major_minor(v: &str) -> Option<String> {
    let v = v.trim().trim_start_matches(['v', 'V']);
    let mut it = v.split('.');
    let (a, b) = (it.next()?, it.next()?);
    numeric(a).then_some(())?;
    numeric(b).then(|| format!("{a}.{b}"))
}

fn major(v: &str) -> Option<String> {
    let m = v.trim().split(['.', '_']).next()?;
    numeric(m).then(|| m.trim_start_matches('0').to_string())
}

/// SUSE `15 SP5` / `15.5` / `15` → `15.5` / `15.0`.
fn suse_version(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let words: Vec<&str> = lower.split([' ', '-']).filter(|w| !w.is_empty()).collect();
    let at = words.iter().position(|w| numeric(w))?;
    let v = words[at];
    if v.contains('.') {
        return major_minor(v);
    }
    let sp = words
        .get(at + 1)
        .and_then(|w| w.strip_prefix("sp"))
        .filter(|n| numeric(n))
        .unwrap_or("0");
    Some(format!("{v}.{sp}"))
}

/// The release an OSV entry names (`None` without a suffix: every release).
pub fn of_record(eco: Ecosystem, suffix: &str) -> Option<Release> {
    let s = suffix.trim();
    match eco {
        Ecosystem::Debian => plain(series(DEBIAN, s, debian_point)?),
        Ecosystem::Ubuntu => {
            let mut lineage = None;
            let mut key = None;
            for tok in s.split(':') {
                let t = tok.trim().to_ascii_lowercase();
                if t.starts_with("fips") {
                    lineage = Some("fips");
                } else if t == "realtime" {
                    lineage = Some("realtime");
                } else if key.is_none() && numeric(&t) {
                    key = series(UBUNTU, &t, ubuntu_point);
                }
            }
            Some(Release { key: key?, lineage })
        }
        Ecosystem::Alpine => {
            if s.eq_ignore_ascii_case("edge") {
                return plain("edge".into());
            }
            plain(major_minor(s)?)
        }
        Ecosystem::RedHat => {
            // `enterprise_linux:9::baseos`, `rhel_eus:9.2::appstream`: the stream's major.
            let version = s.split(':').nth(1)?;
            plain(major(version)?)
        }
        Ecosystem::AlmaLinux | Ecosystem::Rocky => plain(major(s)?),
        Ecosystem::Suse => {
            let line = if s.to_ascii_lowercase().contains("micro") {
                "micro"
            } else {
                "sle"
            };
            plain(format!("{line}:{}", suse_version(s)?))
        }
        Ecosystem::OpenSuse => opensuse(s),
        _ => None,
    }
}

fn opensuse(s: &str) -> Option<Release> {
    let l = s.to_ascii_lowercase();
    if l.contains("tumbleweed") {
        return plain("tumbleweed".into());
    }
    let line = if l.contains("micro") {
        "leap-micro"
    } else if l.contains("leap") {
        "leap"
    } else {
        return None;
    };
    let v = l
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .find(|w| numeric(w))?;
    plain(format!("{line}:{}", major_minor(v)?))
}

/// The release a component's purl `distro` qualifier names (`debian-12`, `bookworm`,
/// `ubuntu-22.04`, `alpine-3.17.2`, `rhel-9.3`, `sles-15.5`, `opensuse-leap-15.5`).
pub fn of_distro(eco: Ecosystem, distro: &str) -> Option<Release> {
    let d = distro.trim().to_ascii_lowercase();
    // Trivy writes Debian testing as `trixie/sid`.
    let d = d.split('/').next().unwrap_or("").to_string();
    let strip = |prefixes: &[&str]| -> String {
        for p in prefixes {
            if let Some(rest) = d.strip_prefix(p) {
                return rest.to_string();
            }
        }
        d.clone()
    };
    match eco {
        Ecosystem::Debian => plain(series(DEBIAN, &strip(&["debian-"]), debian_point)?),
        Ecosystem::Ubuntu => plain(series(UBUNTU, &strip(&["ubuntu-"]), ubuntu_point)?),
        Ecosystem::Alpine => {
            let v = strip(&["alpine-", "alpinelinux-"]);
            if v == "edge" {
                return plain(v);
            }
            plain(major_minor(&v)?)
        }
        Ecosystem::RedHat | Ecosystem::AlmaLinux | Ecosystem::Rocky => {
            let v = d.rsplit('-').next().unwrap_or("");
            plain(major(v)?)
        }
        Ecosystem::Suse => {
            let line = if d.contains("micro") || d.starts_with("slem") {
                "micro"
            } else {
                "sle"
            };
            let v = d.rsplit('-').next().unwrap_or("");
            let v = if v.contains('.') {
                major_minor(v)?
            } else {
                format!("{}.0", major(v)?)
            };
            plain(format!("{line}:{v}"))
        }
        Ecosystem::OpenSuse => opensuse(&d),
        _ => None,
    }
}

/// The release a package version names, where the distribution writes it there.
pub fn of_version(eco: Ecosystem, version: &str) -> Option<Release> {
    let v = version.to_ascii_lowercase();
    match eco {
        Ecosystem::Debian => {
            let at = v.rfind("deb")? + 3;
            if !v[..at - 3].ends_with(['+', '~']) {
                return None;
            }
            let n: String = v[at..].chars().take_while(char::is_ascii_digit).collect();
            if n.is_empty() || !v[at + n.len()..].starts_with('u') && at + n.len() != v.len() {
                return None;
            }
            plain(series(DEBIAN, &n, debian_point)?)
        }
        Ecosystem::Ubuntu => {
            let at = v.rfind("ubuntu")? + 6;
            // `ubuntu0.22.04.1`, `ubuntu1~22.04`
            let tail = &v[at..];
            let tail = match tail.split_once('~') {
                Some((_, t)) => t,
                None => tail.split_once('.')?.1,
            };
            let mm = major_minor(tail)?;
            UBUNTU
                .iter()
                .find(|(_, n)| *n == mm)
                .and_then(|(s, _)| plain(s.to_string()))
        }
        Ecosystem::RedHat | Ecosystem::AlmaLinux | Ecosystem::Rocky => {
            let at = v.rfind(".el")? + 3;
            let n: String = v[at..].chars().take_while(char::is_ascii_digit).collect();
            plain(major(&n)?)
        }
        _ => None,
    }
}

/// Whether an entry of release `record` (`None`: every release) applies to a component of
/// release `component` (`None`: unknown, every release applies) and version `version`.
pub fn applies(record: Option<&Release>, component: Option<&Release>, version: &str) -> bool {
    let Some(r) = record else { return true };
    if let Some(l) = r.lineage
        && !version.to_ascii_lowercase().contains(l)
    {
        return false;
    }
    match component {
        Some(c) => c.key == r.key,
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(r: Option<Release>) -> String {
        r.map(|r| r.key).unwrap_or_default()
    }

    #[test]
    fn debian_releases_as_upstream_maps_them() {
        for d in [
            "debian-12",
            "12",
            "12.4",
            "debian-12.4",
            "bookworm",
            "BookWorm",
            "debian-bookworm",
        ] {
            assert_eq!(key(of_distro(Ecosystem::Debian, d)), "bookworm", "{d}");
        }
        assert_eq!(key(of_distro(Ecosystem::Debian, "11.6")), "bullseye");
        assert_eq!(key(of_distro(Ecosystem::Debian, "trixie/sid")), "trixie");
        assert_eq!(key(of_distro(Ecosystem::Debian, "debian-5.0.10")), "lenny");
        assert_eq!(key(of_record(Ecosystem::Debian, "13")), "trixie");
        assert_eq!(key(of_record(Ecosystem::Debian, "3.0")), "woody");
        assert_eq!(key(of_distro(Ecosystem::Debian, "16")), "16");
        assert_eq!(
            key(of_version(Ecosystem::Debian, "7.74.0-1.3+deb11u7")),
            "bullseye"
        );
        assert_eq!(
            key(of_version(Ecosystem::Debian, "3.0.11-1~deb12u2")),
            "bookworm"
        );
        assert_eq!(of_version(Ecosystem::Debian, "7.88.1-10"), None);
        assert_eq!(of_version(Ecosystem::Debian, "1.0-1debian"), None);
    }

    #[test]
    fn ubuntu_releases_and_pro_lineages() {
        for d in ["ubuntu-22.04", "22.04", "22.04.3", "jammy", "ubuntu-jammy"] {
            assert_eq!(key(of_distro(Ecosystem::Ubuntu, d)), "jammy", "{d}");
        }
        let lts = of_record(Ecosystem::Ubuntu, "22.04:LTS").unwrap();
        assert_eq!((lts.key.as_str(), lts.lineage), ("jammy", None));
        let pro = of_record(Ecosystem::Ubuntu, "Pro:18.04:LTS").unwrap();
        assert_eq!((pro.key.as_str(), pro.lineage), ("bionic", None));
        let fips = of_record(Ecosystem::Ubuntu, "Pro:FIPS-updates:22.04:LTS").unwrap();
        assert_eq!((fips.key.as_str(), fips.lineage), ("jammy", Some("fips")));
        let rt = of_record(Ecosystem::Ubuntu, "Pro:24.04:LTS:Realtime:Kernel").unwrap();
        assert_eq!((rt.key.as_str(), rt.lineage), ("noble", Some("realtime")));
        assert_eq!(key(of_record(Ecosystem::Ubuntu, "24.10")), "oracular");
        let jammy = of_distro(Ecosystem::Ubuntu, "ubuntu-22.04");
        assert!(applies(Some(&lts), jammy.as_ref(), "3.0.2-0ubuntu1.10"));
        assert!(!applies(Some(&fips), jammy.as_ref(), "3.0.2-0ubuntu1.10"));
        assert!(applies(
            Some(&fips),
            jammy.as_ref(),
            "3.0.2-0ubuntu1.10+Fips1"
        ));
        assert!(!applies(Some(&pro), jammy.as_ref(), "1.0"));
        assert_eq!(key(of_version(Ecosystem::Ubuntu, "3.0.2-0ubuntu1.10")), "");
        assert_eq!(
            key(of_version(Ecosystem::Ubuntu, "1.2-3ubuntu0.22.04.1")),
            "jammy"
        );
        assert_eq!(
            key(of_version(Ecosystem::Ubuntu, "2.0-1ubuntu1~20.04.2")),
            "focal"
        );
    }

    #[test]
    fn alpine_and_rpm_family() {
        for d in ["alpine-3.17.2", "3.17.2", "3.17", "v3.17"] {
            assert_eq!(key(of_distro(Ecosystem::Alpine, d)), "3.17", "{d}");
        }
        assert_eq!(key(of_record(Ecosystem::Alpine, "v3.17")), "3.17");
        assert_eq!(
            key(of_record(Ecosystem::RedHat, "enterprise_linux:9::baseos")),
            "9"
        );
        assert_eq!(
            key(of_record(Ecosystem::RedHat, "rhel_eus:8.6::appstream")),
            "8"
        );
        for d in ["rhel-9.3", "redhat-9.3", "9"] {
            assert_eq!(key(of_distro(Ecosystem::RedHat, d)), "9", "{d}");
        }
        assert_eq!(key(of_version(Ecosystem::RedHat, "3.0.7-24.el9_2")), "9");
        assert_eq!(key(of_distro(Ecosystem::AlmaLinux, "almalinux-8.9")), "8");
        assert_eq!(key(of_record(Ecosystem::Rocky, "9")), "9");
        assert_eq!(
            key(of_record(
                Ecosystem::Suse,
                "SUSE Linux Enterprise Server 15 SP5"
            )),
            "sle:15.5"
        );
        assert_eq!(
            key(of_record(
                Ecosystem::Suse,
                "Linux Enterprise Module for Basesystem 15 SP5"
            )),
            "sle:15.5"
        );
        assert_eq!(
            key(of_record(Ecosystem::Suse, "Linux Micro 6.0")),
            "micro:6.0"
        );
        assert_eq!(key(of_distro(Ecosystem::Suse, "sles-15.5")), "sle:15.5");
        assert_eq!(key(of_distro(Ecosystem::Suse, "sles-15")), "sle:15.0");
        assert_eq!(
            key(of_record(Ecosystem::OpenSuse, "Leap 15.5")),
            "leap:15.5"
        );
        assert_eq!(
            key(of_record(Ecosystem::OpenSuse, "Tumbleweed")),
            "tumbleweed"
        );
        for d in ["opensuse-leap-15.5", "opensuse.leap-15.5"] {
            assert_eq!(key(of_distro(Ecosystem::OpenSuse, d)), "leap:15.5", "{d}");
        }
        assert_eq!(
            key(of_distro(
                Ecosystem::OpenSuse,
                "opensuse-tumbleweed-20240101"
            )),
            "tumbleweed"
        );
    }
}
