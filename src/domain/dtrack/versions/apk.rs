//! Alpine (apk) versions: `number{.number}` then an optional lowercase letter, any number of
//! `_suffix[N]` (`alpha < beta < pre < rc <` none `< cvs < svn < git < hg < p`), an optional
//! `~hash` (ignored) and an optional `-rN` revision, ordered in that sequence. After the first
//! number, a component with a leading zero on either side compares as text (apk's fractional
//! rule: `1.0.2 < 1.02.1 < 1.1.1`).
//!
//! Pure; written here from apk-tools' documented grammar (no maintained crate).

use std::cmp::Ordering;

const SUFFIXES: [&str; 9] = ["alpha", "beta", "pre", "rc", "cvs", "svn", "git", "hg", "p"];
/// The rank of "no suffix" among [`SUFFIXES`] (between `rc` and `cvs`).
const NO_SUFFIX: usize = 4;

/// A parsed apk version.
#[derive(Clone, Debug)]
pub struct ApkVersion {
    numbers: Vec<String>,
    letter: Option<u8>,
    /// (rank, number).
    suffixes: Vec<(usize, String)>,
    revision: String,
}

fn cmp_numbers(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.trim_start_matches('0'), b.trim_start_matches('0'));
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

fn digits(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    i
}

impl ApkVersion {
    /// `None` for text outside apk's grammar.
    pub fn parse(s: &str) -> Option<ApkVersion> {
        let b = s.trim().as_bytes();
        let text = |x: &[u8]| String::from_utf8_lossy(x).into_owned();
        let mut i = 0;
        let mut numbers = Vec::new();
        loop {
            let end = digits(b, i);
            if end == i {
                return None;
            }
            numbers.push(text(&b[i..end]));
            i = end;
            if b.get(i) == Some(&b'.') && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
                i += 1;
            } else {
                break;
            }
        }
        let mut letter = None;
        if let Some(&c) = b.get(i)
            && c.is_ascii_lowercase()
        {
            letter = Some(c);
            i += 1;
        }
        let mut suffixes = Vec::new();
        while b.get(i) == Some(&b'_') {
            i += 1;
            let start = i;
            while i < b.len() && b[i].is_ascii_lowercase() {
                i += 1;
            }
            let name = std::str::from_utf8(&b[start..i]).ok()?;
            let rank = SUFFIXES.iter().position(|x| *x == name)?;
            let rank = if rank >= NO_SUFFIX { rank + 1 } else { rank };
            let end = digits(b, i);
            suffixes.push((rank, text(&b[i..end])));
            i = end;
        }
        if b.get(i) == Some(&b'~') {
            i += 1;
            let start = i;
            while i < b.len() && (b[i].is_ascii_digit() || (b'a'..=b'f').contains(&b[i])) {
                i += 1;
            }
            if i == start {
                return None;
            }
        }
        let mut revision = String::new();
        if b.get(i) == Some(&b'-') && b.get(i + 1) == Some(&b'r') {
            let end = digits(b, i + 2);
            if end == i + 2 {
                return None;
            }
            revision = text(&b[i + 2..end]);
            i = end;
        }
        if i != b.len() {
            return None;
        }
        Some(ApkVersion {
            numbers,
            letter,
            suffixes,
            revision,
        })
    }
}

impl Ord for ApkVersion {
    fn cmp(&self, other: &Self) -> Ordering {
        let n = self.numbers.len().max(other.numbers.len());
        for k in 0..n {
            let o = match (self.numbers.get(k), other.numbers.get(k)) {
                (Some(a), Some(b)) if k > 0 && (a.starts_with('0') || b.starts_with('0')) => {
                    a.cmp(b)
                }
                (Some(a), Some(b)) => cmp_numbers(a, b),
                (Some(_), None) => Ordering::Greater,
                (None, Some(_)) => Ordering::Less,
                (None, None) => Ordering::Equal,
            };
            if o != Ordering::Equal {
                return o;
            }
        }
        let o = match (self.letter, other.letter) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (Some(a), Some(b)) => a.cmp(&b),
        };
        if o != Ordering::Equal {
            return o;
        }
        let none = (NO_SUFFIX, String::new());
        let n = self.suffixes.len().max(other.suffixes.len());
        for k in 0..n {
            let a = self.suffixes.get(k).unwrap_or(&none);
            let b = other.suffixes.get(k).unwrap_or(&none);
            let o = a.0.cmp(&b.0).then_with(|| cmp_numbers(&a.1, &b.1));
            if o != Ordering::Equal {
                return o;
            }
        }
        cmp_numbers(&self.revision, &other.revision)
    }
}

impl PartialOrd for ApkVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for ApkVersion {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for ApkVersion {}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmp(a: &str, b: &str) -> Ordering {
        ApkVersion::parse(a)
            .unwrap()
            .cmp(&ApkVersion::parse(b).unwrap())
    }

    #[test]
    fn apk_order() {
        use Ordering::*;
        for (a, b, want) in [
            ("3.0.8-r0", "3.0.8-r1", Less),
            ("3.0.10-r0", "3.0.9-r3", Greater),
            ("1.36.1-r29", "1.36.1-r30", Less),
            ("1.2.3_rc1-r0", "1.2.3-r0", Less),
            ("1.2.3_alpha", "1.2.3_beta", Less),
            ("1.2.3_pre2", "1.2.3_rc1", Less),
            ("1.2.3_p1", "1.2.3", Greater),
            ("1.2.3_git20230101", "1.2.3", Greater),
            ("1.2.3a", "1.2.3", Greater),
            ("1.2.3a", "1.2.3b", Less),
            ("1.0.2", "1.02.1", Less),
            ("1.02.1", "1.1.1", Less),
            ("1.0", "1.0.1", Less),
            ("2.4.57-r0", "2.4.57", Equal),
            ("1.2.3~abc123-r0", "1.2.3-r0", Equal),
            ("9.3_p2-r1", "9.3_p1-r3", Greater),
        ] {
            assert_eq!(cmp(a, b), want, "{a} vs {b}");
        }
        for bad in ["", "v1.0", "1.0-r", "1.0_foo", "1.0 beta", "1.0-1"] {
            assert!(ApkVersion::parse(bad).is_none(), "{bad}");
        }
    }
}
