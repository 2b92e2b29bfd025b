//! RPM versions (`[epoch:]version[-release]`) ordered as rpm orders them (Red Hat, AlmaLinux,
//! Rocky Linux, SUSE, openSUSE): epochs numerically (absent is 0, so `0:1.0` equals `1.0`),
//! then version and release each by rpmvercmp: separators are skipped, `~` sorts before
//! everything (even the end), `^` after the end but before anything else, digit runs compare
//! numerically and above letter runs, letter runs by byte order, and the side with text left
//! is newer. An empty release sorts below any release.
//!
//! Pure; written here from rpm's documented algorithm (no maintained crate).

use std::cmp::Ordering;

/// A parsed RPM version.
#[derive(Clone, Debug)]
pub struct RpmVersion {
    epoch: String,
    version: String,
    release: String,
}

fn digits_key(s: &str) -> &str {
    s.trim_start_matches('0')
}

fn cmp_numbers(a: &str, b: &str) -> Ordering {
    let (a, b) = (digits_key(a), digits_key(b));
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

impl RpmVersion {
    /// `None` for an empty version or one without any letter or digit.
    pub fn parse(s: &str) -> Option<RpmVersion> {
        let s = s.trim();
        let (epoch, rest) = match s.split_once(':') {
            Some((e, rest)) if !e.is_empty() && e.bytes().all(|b| b.is_ascii_digit()) => {
                (e.to_string(), rest)
            }
            Some(_) => return None,
            None => (String::new(), s),
        };
        let (version, release) = match rest.rsplit_once('-') {
            Some((v, r)) => (v, r),
            None => (rest, ""),
        };
        if !version.bytes().any(|b| b.is_ascii_alphanumeric())
            || s.bytes()
                .any(|b| b.is_ascii_whitespace() || b.is_ascii_control())
        {
            return None;
        }
        Some(RpmVersion {
            epoch,
            version: version.to_string(),
            release: release.to_string(),
        })
    }
}

/// rpmvercmp over one part.
pub fn rpmvercmp(a: &str, b: &str) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let (mut i, mut j) = (0, 0);
    let sep = |c: u8| !c.is_ascii_alphanumeric() && c != b'~' && c != b'^';
    loop {
        while i < a.len() && sep(a[i]) {
            i += 1;
        }
        while j < b.len() && sep(b[j]) {
            j += 1;
        }
        // Tilde: older than anything, even the end.
        let (ta, tb) = (a.get(i) == Some(&b'~'), b.get(j) == Some(&b'~'));
        if ta || tb {
            if !ta {
                return Ordering::Greater;
            }
            if !tb {
                return Ordering::Less;
            }
            i += 1;
            j += 1;
            continue;
        }
        // Caret: newer than the end, older than anything else.
        let (ca, cb) = (a.get(i) == Some(&b'^'), b.get(j) == Some(&b'^'));
        if ca || cb {
            if i >= a.len() {
                return Ordering::Less;
            }
            if j >= b.len() {
                return Ordering::Greater;
            }
            if !ca {
                return Ordering::Greater;
            }
            if !cb {
                return Ordering::Less;
            }
            i += 1;
            j += 1;
            continue;
        }
        if i >= a.len() || j >= b.len() {
            break;
        }
        let numeric = a[i].is_ascii_digit();
        let take = |s: &[u8], mut k: usize| {
            let start = k;
            while k < s.len()
                && if numeric {
                    s[k].is_ascii_digit()
                } else {
                    s[k].is_ascii_alphabetic()
                }
            {
                k += 1;
            }
            (start, k)
        };
        let (sa, ea) = take(a, i);
        let (sb, eb) = take(b, j);
        if sb == eb {
            // The right side has no run of this type: a number wins, letters lose.
            return if numeric {
                Ordering::Greater
            } else {
                Ordering::Less
            };
        }
        let (ra, rb) = (
            std::str::from_utf8(&a[sa..ea]).unwrap_or(""),
            std::str::from_utf8(&b[sb..eb]).unwrap_or(""),
        );
        let o = if numeric {
            cmp_numbers(ra, rb)
        } else {
            ra.cmp(rb)
        };
        if o != Ordering::Equal {
            return o;
        }
        i = ea;
        j = eb;
    }
    let (la, lb) = (i < a.len(), j < b.len());
    la.cmp(&lb)
}

impl Ord for RpmVersion {
    fn cmp(&self, other: &Self) -> Ordering {
        let epoch = |e: &str| {
            if e.is_empty() {
                "0".to_string()
            } else {
                e.to_string()
            }
        };
        cmp_numbers(&epoch(&self.epoch), &epoch(&other.epoch))
            .then_with(|| rpmvercmp(&self.version, &other.version))
            .then_with(
                || match (self.release.is_empty(), other.release.is_empty()) {
                    (true, true) => Ordering::Equal,
                    (true, false) => Ordering::Less,
                    (false, true) => Ordering::Greater,
                    (false, false) => rpmvercmp(&self.release, &other.release),
                },
            )
    }
}

impl PartialOrd for RpmVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for RpmVersion {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for RpmVersion {}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmp(a: &str, b: &str) -> Ordering {
        RpmVersion::parse(a)
            .unwrap()
            .cmp(&RpmVersion::parse(b).unwrap())
    }

    #[test]
    fn rpmvercmp_rules() {
        use Ordering::*;
        for (a, b, want) in [
            ("1.0", "1.0", Equal),
            ("1.0", "2.0", Less),
            ("2.0.1", "2.0", Greater),
            ("5.5p1", "5.5p10", Less),
            ("10xyz", "10.1xyz", Less),
            ("xyz10", "xyz10.1", Less),
            ("1.0a", "1.0", Greater),
            ("1.0", "1.0a", Less),
            ("2_0", "2.0", Equal),
            ("1.0~rc1", "1.0", Less),
            ("1.0~rc1", "1.0~rc2", Less),
            ("1.0~rc1~git", "1.0~rc1", Less),
            ("1.0^", "1.0", Greater),
            ("1.0^git1", "1.0", Greater),
            ("1.0^git1", "1.01", Less),
            ("1.0^git1", "1.0~rc1", Greater),
            ("010", "10", Equal),
            ("a", "1", Less),
            ("1", "a", Greater),
        ] {
            assert_eq!(rpmvercmp(a, b), want, "{a} vs {b}");
        }
    }

    #[test]
    fn epochs_and_releases() {
        use Ordering::*;
        // Red Hat records write the epoch; an installed version without one is epoch 0.
        assert_eq!(cmp("1:3.0.7-27.el9", "3.0.7-28.el9"), Greater);
        assert_eq!(cmp("0:1.9.5p2-10.el9_6.1", "1.9.5p2-10.el9_6.1"), Equal);
        assert_eq!(cmp("1:3.0.7-24.el9", "1:3.0.7-27.el9"), Less);
        assert_eq!(cmp("3.0.7-27.el9_2", "3.0.7-27.el9"), Greater);
        assert_eq!(cmp("2.28-225.el9_3.1", "2.28-225.el9_3"), Greater);
        assert_eq!(cmp("1.1.1k-12.el8_9", "1.1.1k-9.el8_7"), Greater);
        assert_eq!(cmp("15.0-150500.3.3", "15.0-150500.3.10"), Less);
        assert_eq!(cmp("1.0", "1.0-1"), Less);
        assert!(RpmVersion::parse("x:1.0").is_none());
        assert!(RpmVersion::parse("").is_none());
    }
}
