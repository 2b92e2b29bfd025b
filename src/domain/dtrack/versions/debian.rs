//! Debian package versions (`[epoch:]upstream[-revision]`) ordered as dpkg orders them:
//! epochs numerically, then upstream and revision by dpkg's mixed letter/digit comparison,
//! in which `~` sorts before everything, even the end of the string.
//!
//! Pure; written here from Debian Policy §5.6.12 (no maintained crate with a compatible
//! license and few dependencies was found).

use std::cmp::Ordering;

/// A parsed Debian version.
#[derive(Clone, Debug)]
pub struct DebVersion {
    epoch: u64,
    upstream: String,
    revision: String,
}

impl DebVersion {
    /// `None` for what dpkg refuses: a non-numeric epoch, an empty upstream part, an upstream
    /// part not starting with a digit, or characters outside Policy's set.
    pub fn parse(s: &str) -> Option<DebVersion> {
        let s = s.trim();
        let (epoch, rest) = match s.split_once(':') {
            Some((e, rest)) => {
                if e.is_empty() || !e.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                (e.parse().ok()?, rest)
            }
            None => (0, s),
        };
        let (upstream, revision) = match rest.rsplit_once('-') {
            Some((u, r)) => (u, r),
            None => (rest, ""),
        };
        let upstream_ok = upstream.bytes().next().is_some_and(|b| b.is_ascii_digit())
            && upstream
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b".+~-:".contains(&b));
        let revision_ok = revision
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".+~".contains(&b));
        if !upstream_ok || !revision_ok {
            return None;
        }
        Some(DebVersion {
            epoch,
            upstream: upstream.to_string(),
            revision: revision.to_string(),
        })
    }
}

/// The weight of a non-digit character: `~` lowest, then the end of a part, then letters,
/// then everything else.
fn weight(c: Option<u8>) -> i32 {
    match c {
        None => 0,
        Some(b'~') => -1,
        Some(c) if c.is_ascii_digit() => 0,
        Some(c) if c.is_ascii_alphabetic() => i32::from(c),
        Some(c) => i32::from(c) + 256,
    }
}

/// dpkg's comparison of one part (upstream or revision).
fn compare_part(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        // The non-digit prefix, character by character.
        while (i < a.len() && !a[i].is_ascii_digit()) || (j < b.len() && !b[j].is_ascii_digit()) {
            let (wa, wb) = (weight(a.get(i).copied()), weight(b.get(j).copied()));
            if wa != wb {
                return wa.cmp(&wb);
            }
            i += 1;
            j += 1;
        }
        // The digit run, numerically (leading zeros skipped, then by length, then digits).
        while i < a.len() && a[i] == b'0' {
            i += 1;
        }
        while j < b.len() && b[j] == b'0' {
            j += 1;
        }
        let mut first_diff = Ordering::Equal;
        while i < a.len() && a[i].is_ascii_digit() && j < b.len() && b[j].is_ascii_digit() {
            if first_diff == Ordering::Equal {
                first_diff = a[i].cmp(&b[j]);
            }
            i += 1;
            j += 1;
        }
        if i < a.len() && a[i].is_ascii_digit() {
            return Ordering::Greater;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            return Ordering::Less;
        }
        if first_diff != Ordering::Equal {
            return first_diff;
        }
    }
    Ordering::Equal
}

impl Ord for DebVersion {
    fn cmp(&self, other: &Self) -> Ordering {
        self.epoch
            .cmp(&other.epoch)
            .then_with(|| compare_part(&self.upstream, &other.upstream))
            .then_with(|| compare_part(&self.revision, &other.revision))
    }
}

impl PartialOrd for DebVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for DebVersion {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for DebVersion {}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmp(a: &str, b: &str) -> Ordering {
        DebVersion::parse(a)
            .unwrap()
            .cmp(&DebVersion::parse(b).unwrap())
    }

    #[test]
    fn tilde_sorts_before_the_end_and_before_everything() {
        assert_eq!(cmp("1.0~rc1", "1.0"), Ordering::Less);
        assert_eq!(cmp("1.0~~", "1.0~"), Ordering::Less);
        assert_eq!(cmp("1.0~rc1-1", "1.0-1"), Ordering::Less);
        assert_eq!(cmp("2.30-1~bpo1", "2.30-1"), Ordering::Less);
    }

    #[test]
    fn epochs_dominate() {
        assert_eq!(cmp("1:0.9", "2.0"), Ordering::Greater);
        assert_eq!(cmp("0:2.0", "2.0"), Ordering::Equal);
        assert_eq!(cmp("2:1.0", "10:0.1"), Ordering::Less);
    }

    #[test]
    fn digits_compare_numerically_and_letters_before_symbols() {
        assert_eq!(cmp("1.10", "1.9"), Ordering::Greater);
        assert_eq!(cmp("1.010", "1.10"), Ordering::Equal);
        assert_eq!(cmp("1.0a", "1.0+"), Ordering::Less);
        assert_eq!(cmp("1.0", "1.0a"), Ordering::Less);
        assert_eq!(
            cmp("7.74.0-1.3+deb11u7", "7.74.0-1.3+deb11u10"),
            Ordering::Less
        );
        assert_eq!(cmp("1.2-3", "1.2-10"), Ordering::Less);
    }

    #[test]
    fn refuses_what_dpkg_refuses() {
        for bad in ["", "a1.0", "x:1.0", "1.0 beta", "1.0-r_1"] {
            assert!(DebVersion::parse(bad).is_none(), "{bad}");
        }
    }
}
