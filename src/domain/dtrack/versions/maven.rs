//! Maven versions ordered by Maven's `ComparableVersion` rules (no maintained crate exists):
//! the text splits on `.` and `-` and at every change between digits and letters; a `-` or a
//! letter/digit change opens a nested list; numbers compare numerically and above qualifiers;
//! known qualifiers order `alpha < beta < milestone < rc < snapshot < "" (release) < sp`, with
//! unknown ones after `sp` alphabetically; trailing zeros and release qualifiers are dropped.
//!
//! Pure. Any text parses (Maven accepts every string), so only the empty string is refused.

use std::cmp::Ordering;

#[derive(Clone, Debug)]
enum Item {
    /// Decimal digits without leading zeros (`""` is zero).
    Int(String),
    /// A qualifier's sort key (see [`qualifier_key`]).
    Str(String),
    List(Vec<Item>),
}

/// A parsed Maven version.
#[derive(Clone, Debug)]
pub struct MavenVersion(Vec<Item>);

/// Sort keys: known qualifiers by rank, unknown ones after them by name.
fn qualifier_key(s: &str, followed_by_digit: bool) -> String {
    let s = match (s, followed_by_digit) {
        ("a", true) => "alpha",
        ("b", true) => "beta",
        ("m", true) => "milestone",
        ("ga" | "final" | "release", _) => "",
        ("cr", _) => "rc",
        (s, _) => s,
    };
    let rank = ["alpha", "beta", "milestone", "rc", "snapshot", "", "sp"]
        .iter()
        .position(|q| *q == s);
    match rank {
        Some(r) => r.to_string(),
        None => format!("7-{s}"),
    }
}

const RELEASE: &str = "5";

fn item(text: &str, is_digit: bool, followed_by_digit: bool) -> Item {
    if is_digit {
        Item::Int(text.trim_start_matches('0').to_string())
    } else {
        Item::Str(qualifier_key(text, followed_by_digit))
    }
}

fn is_null(i: &Item) -> bool {
    match i {
        Item::Int(d) => d.is_empty(),
        Item::Str(k) => k == RELEASE,
        Item::List(l) => l.is_empty(),
    }
}

/// Drops trailing null items of a list, stopping at the first non-null item that is not a
/// list (as Maven's `ListItem.normalize`).
fn normalize(list: &mut Vec<Item>) {
    let mut i = list.len();
    while i > 0 {
        i -= 1;
        if is_null(&list[i]) {
            list.remove(i);
        } else if !matches!(list[i], Item::List(_)) {
            break;
        }
    }
}

impl MavenVersion {
    pub fn parse(s: &str) -> Option<MavenVersion> {
        let v = s.trim().to_ascii_lowercase();
        if v.is_empty() {
            return None;
        }
        // A stack of open lists; each nested list is attached to its parent when closed.
        let mut stack: Vec<Vec<Item>> = vec![Vec::new()];
        let bytes = v.as_bytes();
        let mut start = 0;
        let mut is_digit = false;
        for (i, &c) in bytes.iter().enumerate() {
            let top = stack.len() - 1;
            if c == b'.' || c == b'-' {
                if i == start {
                    stack[top].push(Item::Int(String::new()));
                } else {
                    stack[top].push(item(&v[start..i], is_digit, false));
                }
                start = i + 1;
                if c == b'-' {
                    stack.push(Vec::new());
                }
            } else if c.is_ascii_digit() {
                if !is_digit && i > start {
                    stack[top].push(item(&v[start..i], false, true));
                    start = i;
                    stack.push(Vec::new());
                }
                is_digit = true;
            } else {
                if is_digit && i > start {
                    stack[top].push(item(&v[start..i], true, false));
                    start = i;
                    stack.push(Vec::new());
                }
                is_digit = false;
            }
        }
        if v.len() > start {
            let top = stack.len() - 1;
            stack[top].push(item(&v[start..], is_digit, false));
        }
        while stack.len() > 1 {
            let mut inner = stack.pop().unwrap_or_default();
            normalize(&mut inner);
            let top = stack.len() - 1;
            stack[top].push(Item::List(inner));
        }
        let mut root = stack.pop().unwrap_or_default();
        normalize(&mut root);
        Some(MavenVersion(root))
    }
}

/// Compares an item with a missing one (Maven's `compareTo(null)`).
fn cmp_null(i: &Item) -> Ordering {
    match i {
        Item::Int(d) => {
            if d.is_empty() {
                Ordering::Equal
            } else {
                Ordering::Greater
            }
        }
        Item::Str(k) => k.as_str().cmp(RELEASE),
        // The whole list, as current Maven (MNG-6964): `1.0-0.1` is above `1.0`.
        Item::List(l) => l
            .iter()
            .map(cmp_null)
            .find(|o| *o != Ordering::Equal)
            .unwrap_or(Ordering::Equal),
    }
}

fn cmp_int(a: &str, b: &str) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

fn cmp_item(a: &Item, b: &Item) -> Ordering {
    match (a, b) {
        (Item::Int(x), Item::Int(y)) => cmp_int(x, y),
        (Item::Int(_), _) => Ordering::Greater,
        (Item::Str(_), Item::Int(_)) => Ordering::Less,
        (Item::Str(x), Item::Str(y)) => x.cmp(y),
        (Item::Str(_), Item::List(_)) => Ordering::Less,
        (Item::List(_), Item::Int(_)) => Ordering::Less,
        (Item::List(_), Item::Str(_)) => Ordering::Greater,
        (Item::List(x), Item::List(y)) => cmp_list(x, y),
    }
}

fn cmp_list(a: &[Item], b: &[Item]) -> Ordering {
    for i in 0..a.len().max(b.len()) {
        let o = match (a.get(i), b.get(i)) {
            (Some(x), Some(y)) => cmp_item(x, y),
            (Some(x), None) => cmp_null(x),
            (None, Some(y)) => cmp_null(y).reverse(),
            (None, None) => Ordering::Equal,
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

impl Ord for MavenVersion {
    fn cmp(&self, other: &Self) -> Ordering {
        cmp_list(&self.0, &other.0)
    }
}

impl PartialOrd for MavenVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for MavenVersion {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for MavenVersion {}

#[cfg(test)]
mod tests {
    use super::*;

    fn lt(a: &str, b: &str) {
        let (x, y) = (
            MavenVersion::parse(a).unwrap(),
            MavenVersion::parse(b).unwrap(),
        );
        assert_eq!(x.cmp(&y), Ordering::Less, "{a} < {b}");
        assert_eq!(y.cmp(&x), Ordering::Greater, "{b} > {a}");
    }

    fn eq(a: &str, b: &str) {
        let (x, y) = (
            MavenVersion::parse(a).unwrap(),
            MavenVersion::parse(b).unwrap(),
        );
        assert_eq!(x.cmp(&y), Ordering::Equal, "{a} = {b}");
    }

    #[test]
    fn qualifiers_order_as_maven() {
        let order = [
            "1-alpha",
            "1-alpha2",
            "1-beta",
            "1-milestone",
            "1-rc",
            "1-snapshot",
            "1",
            "1-sp",
            "1-abc",
            "1.0.1",
            "1.1",
            "1.10",
            "2",
        ];
        for w in order.windows(2) {
            lt(w[0], w[1]);
        }
    }

    #[test]
    fn aliases_and_trailing_zeros() {
        eq("1", "1.0.0");
        eq("1.0", "1-ga");
        eq("1.0", "1.final");
        eq("1a1", "1-alpha-1");
        eq("1cr", "1rc");
        eq("1.0.0.RELEASE", "1");
        lt("2.17.0", "2.17.1");
        lt("2.0.0-M1", "2.0.0");
        lt("5.3.18", "5.3.20");
        lt("1.0-SNAPSHOT", "1.0");
        // Current Maven and osv.dev compare the whole sublist with nothing.
        lt("1.0", "1.0-0.1");
        eq("1.0", "1.0-0");
        lt("1.0-alpha-1", "1.0");
        lt("1.0", "1.0-1");
    }
}
