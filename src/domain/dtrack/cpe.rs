//! CPE names and how a vulnerability record's CPE matches a component's, as
//! Dependency-Track's internal analyzer decides it: CPE 2.3 formatted strings (exactly 11
//! attributes after `cpe:2.3:`, `\` escapes, `*` ANY, `-` NA, unescaped `*` and `?` as
//! wildcards inside a value) and CPE 2.2 URIs (`cpe:/a:vendor:product:...`, percent-encoded,
//! the packed `~` edition), both read into one canonical, lowercased form; the NISTIR 7696
//! attribute relation with the record as source and the component as target; and the version
//! rules: a component version ANY matches, NA matches only a record version ANY or NA, a
//! record without a range matches when its version is not disjoint, else the record's
//! `versionStart*`/`versionEnd*` bounds are checked under the component's purl scheme (the
//! generic order when it has none or the scheme cannot read a version).
//!
//! Pure; written here from the CPE 2.3 specifications (NISTIR 7695, 7696).

use std::cmp::Ordering;

use super::versions::{Scheme, generic};

/// Longest CPE text read.
pub const MAX_CPE_LEN: usize = 1024;

/// The part attribute, compared as an enum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    Any,
    Application,
    OperatingSystem,
    Hardware,
}

impl Part {
    /// The value as stored and written (`*`, `a`, `o`, `h`).
    pub fn as_str(self) -> &'static str {
        match self {
            Part::Any => "*",
            Part::Application => "a",
            Part::OperatingSystem => "o",
            Part::Hardware => "h",
        }
    }

    pub fn from_text(s: &str) -> Option<Part> {
        Some(match s {
            "*" | "" => Part::Any,
            "a" | "A" => Part::Application,
            "o" | "O" => Part::OperatingSystem,
            "h" | "H" => Part::Hardware,
            _ => return None,
        })
    }
}

/// How a source attribute value relates to a target one (NISTIR 7696).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    Equal,
    Subset,
    Superset,
    Disjoint,
}

/// Names of the ten attributes after `part`, in order.
pub const ATTRIBUTES: [&str; 10] = [
    "vendor",
    "product",
    "version",
    "update",
    "edition",
    "language",
    "sw_edition",
    "target_sw",
    "target_hw",
    "other",
];

/// A CPE name. Each attribute value is canonical: lowercased, `*` for ANY, `-` for NA, else
/// the value with every character other than letters, digits and `_` escaped by `\`, and the
/// unescaped `*` and `?` that are wildcards.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Cpe {
    pub part: Part,
    pub attrs: [String; 10],
}

/// One character of a value: a literal or a wildcard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    Lit(char),
    Star,
    Quest,
}

fn canonical(toks: &[Tok]) -> String {
    let mut out = String::with_capacity(toks.len());
    for t in toks {
        match t {
            Tok::Star => out.push('*'),
            Tok::Quest => out.push('?'),
            Tok::Lit(c) => {
                if !(c.is_alphanumeric() || *c == '_') {
                    out.push('\\');
                }
                out.extend(c.to_lowercase());
            }
        }
    }
    out
}

/// The tokens of a canonical (or formatted-string) value.
fn tokens(v: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::with_capacity(v.len());
    let mut chars = v.chars();
    while let Some(c) = chars.next() {
        out.push(match c {
            '\\' => Tok::Lit(chars.next().ok_or("a value ends in an escape")?),
            '*' => Tok::Star,
            '?' => Tok::Quest,
            c => Tok::Lit(c),
        });
    }
    Ok(out)
}

/// A formatted-string value read into canonical form.
fn fs_value(raw: &str) -> Result<String, String> {
    match raw {
        "*" | "" => return Ok("*".into()),
        "-" => return Ok("-".into()),
        _ => {}
    }
    let toks = tokens(raw)?;
    Ok(canonical(&toks))
}

/// The literal text of a canonical value (escapes removed, wildcards kept as characters).
pub fn literal(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    let mut chars = v.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn has_wildcard(v: &str) -> bool {
    tokens(v).is_ok_and(|t| t.iter().any(|t| !matches!(t, Tok::Lit(_))))
}

/// Whether `pattern` (tokens with wildcards) matches all of `text`. Iterative, with one
/// backtracking point (the last `*`), so linear in practice and never recursive.
fn glob(pattern: &[Tok], text: &[char]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some(Tok::Star) => {
                star = Some((p, t));
                p += 1;
            }
            Some(Tok::Quest) => {
                p += 1;
                t += 1;
            }
            Some(Tok::Lit(c)) if *c == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p.min(pattern.len())..]
        .iter()
        .all(|t| *t == Tok::Star)
}

/// The relation of a source value (the record's) to a target value (the component's), both
/// canonical, as NISTIR 7696's table gives it.
pub fn relation(source: &str, target: &str) -> Relation {
    if source == target {
        return Relation::Equal;
    }
    if source == "*" {
        return Relation::Superset;
    }
    if source == "-" {
        return if target == "*" {
            Relation::Subset
        } else {
            Relation::Disjoint
        };
    }
    if target == "-" {
        return Relation::Disjoint;
    }
    if target == "*" {
        return Relation::Subset;
    }
    if has_wildcard(source)
        && let Ok(pattern) = tokens(source)
    {
        let text: Vec<char> = literal(target).chars().collect();
        return if glob(&pattern, &text) {
            Relation::Superset
        } else {
            Relation::Disjoint
        };
    }
    Relation::Disjoint
}

fn part_relation(source: Part, target: Part) -> Relation {
    if source == target {
        Relation::Equal
    } else if source == Part::Any {
        Relation::Superset
    } else if target == Part::Any {
        Relation::Subset
    } else {
        Relation::Disjoint
    }
}

/// Splits a formatted string's attributes on unescaped `:`.
fn split_fs(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == ':' {
            out.push(&s[start..i]);
            start = i + 1;
        }
    }
    out.push(&s[start..]);
    out
}

fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// One value of a CPE 2.2 URI (percent-encoded; `%01` is `?` and `%02` is `*`).
fn uri_value(raw: &str) -> Result<String, String> {
    match raw {
        "" | "*" => return Ok("*".into()),
        "-" => return Ok("-".into()),
        _ => {}
    }
    let b = raw.as_bytes();
    let mut toks = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = raw
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or("a bad percent escape")?;
            toks.push(match hex {
                0x01 => Tok::Quest,
                0x02 => Tok::Star,
                h if h.is_ascii() && !h.is_ascii_control() => Tok::Lit(h as char),
                _ => return Err("a percent escape of no printable character".into()),
            });
            i += 3;
            continue;
        }
        // Copy one whole character.
        let ch = raw[i..].chars().next().ok_or("a broken character")?;
        toks.push(Tok::Lit(ch));
        i += ch.len_utf8();
    }
    Ok(canonical(&toks))
}

impl Cpe {
    /// Reads a CPE 2.3 formatted string or a CPE 2.2 URI.
    pub fn parse(s: &str) -> Result<Cpe, String> {
        let s = s.trim();
        if s.len() > MAX_CPE_LEN {
            return Err(format!("longer than {MAX_CPE_LEN} bytes"));
        }
        if s.chars().any(char::is_control) {
            return Err("control characters".into());
        }
        if let Some(rest) = strip_prefix_ci(s, "cpe:2.3:") {
            let fields = split_fs(rest);
            if fields.len() != 11 {
                return Err(format!(
                    "{} attributes after cpe:2.3: (11 are required)",
                    fields.len()
                ));
            }
            let part = Part::from_text(fields[0]).ok_or("an unknown part")?;
            let mut attrs: [String; 10] = Default::default();
            for (slot, raw) in attrs.iter_mut().zip(&fields[1..]) {
                *slot = fs_value(raw)?;
            }
            return Ok(Cpe { part, attrs });
        }
        if let Some(rest) = strip_prefix_ci(s, "cpe:/") {
            let fields: Vec<&str> = rest.split(':').collect();
            if fields.len() > 7 {
                return Err("more than 7 components in a CPE 2.2 URI".into());
            }
            let part = Part::from_text(fields[0]).ok_or("an unknown part")?;
            let mut attrs: [String; 10] = std::array::from_fn(|_| "*".to_string());
            for (i, raw) in fields.iter().enumerate().skip(1) {
                if i == 5 && raw.starts_with('~') {
                    // The packed edition: ~edition~sw_edition~target_sw~target_hw~other.
                    let packed: Vec<&str> = raw.split('~').collect();
                    if packed.len() != 6 {
                        return Err("a packed edition without 5 values".into());
                    }
                    attrs[4] = uri_value(packed[1])?;
                    for (k, v) in packed[2..].iter().enumerate() {
                        attrs[6 + k] = uri_value(v)?;
                    }
                    continue;
                }
                attrs[i - 1] = uri_value(raw)?;
            }
            return Ok(Cpe { part, attrs });
        }
        Err("neither cpe:2.3: nor cpe:/".into())
    }

    pub fn vendor(&self) -> &str {
        &self.attrs[0]
    }

    pub fn product(&self) -> &str {
        &self.attrs[1]
    }

    pub fn version(&self) -> &str {
        &self.attrs[2]
    }

    /// The canonical CPE 2.3 formatted string.
    pub fn to_fs(&self) -> String {
        let mut out = format!("cpe:2.3:{}", self.part.as_str());
        for a in &self.attrs {
            out.push(':');
            out.push_str(a);
        }
        out
    }

    /// Builds a CPE from stored canonical values; `None` when one is not canonical.
    pub fn from_stored(part: &str, attrs: [String; 10]) -> Option<Cpe> {
        let part = Part::from_text(part)?;
        for a in &attrs {
            if a.is_empty() || tokens(a).is_err() {
                return None;
            }
        }
        Some(Cpe { part, attrs })
    }
}

/// A record's version range (`cpeMatch`'s four bounds).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bounds {
    pub start_including: Option<String>,
    pub start_excluding: Option<String>,
    pub end_including: Option<String>,
    pub end_excluding: Option<String>,
}

impl Bounds {
    pub fn is_empty(&self) -> bool {
        self.start_including.is_none()
            && self.start_excluding.is_none()
            && self.end_including.is_none()
            && self.end_excluding.is_none()
    }
}

/// Whether every attribute of the record (source) relates to the component's (target)
/// without being disjoint, less the vendor SUBSET + product SUPERSET combination and its
/// reverse (ambiguous; Dependency-Track drops them).
pub fn attributes_match(record: &Cpe, target: &Cpe) -> bool {
    if part_relation(record.part, target.part) == Relation::Disjoint {
        return false;
    }
    let mut rel = [Relation::Equal; 10];
    for (i, slot) in rel.iter_mut().enumerate() {
        *slot = relation(&record.attrs[i], &target.attrs[i]);
        if *slot == Relation::Disjoint {
            return false;
        }
    }
    !matches!(
        (rel[0], rel[1]),
        (Relation::Subset, Relation::Superset) | (Relation::Superset, Relation::Subset)
    )
}

/// Compares `a` with `b` under `scheme` when both parse, else in the generic order.
fn compare_under(scheme: Option<Scheme>, a: &str, b: &str) -> Ordering {
    if let Some(s) = scheme
        && let (Some(x), Some(y)) = (s.parse(a), s.parse(b))
        && let Some(o) = x.compare(&y)
    {
        return o;
    }
    generic::compare(a, b)
}

/// Whether `version` satisfies the checks, all under one order: the scheme's when it reads
/// every version involved, else the generic one (as upstream retries a failed comparison).
fn satisfies(scheme: Option<Scheme>, version: &str, checks: &[(&str, &[Ordering])]) -> bool {
    let scheme = scheme
        .filter(|s| s.parse(version).is_some() && checks.iter().all(|(b, _)| s.parse(b).is_some()));
    checks
        .iter()
        .all(|(bound, ok)| ok.contains(&compare_under(scheme, version, bound)))
}

/// The version rules: whether the component's version falls in what the record names.
pub fn version_matches(
    record: &Cpe,
    bounds: &Bounds,
    target: &Cpe,
    scheme: Option<Scheme>,
) -> bool {
    let tv = target.version();
    if tv == "*" {
        return true;
    }
    if tv == "-" {
        return matches!(record.version(), "*" | "-");
    }
    if bounds.is_empty() {
        if relation(record.version(), tv) != Relation::Disjoint {
            return true;
        }
        let rv = literal(record.version());
        return satisfies(scheme, &literal(tv), &[(&rv, &[Ordering::Equal])]);
    }
    use Ordering::{Equal, Greater, Less};
    let mut checks: Vec<(&str, &[Ordering])> = Vec::with_capacity(4);
    if let Some(b) = &bounds.start_including {
        checks.push((b, &[Greater, Equal]));
    }
    if let Some(b) = &bounds.start_excluding {
        checks.push((b, &[Greater]));
    }
    if let Some(b) = &bounds.end_including {
        checks.push((b, &[Less, Equal]));
    }
    if let Some(b) = &bounds.end_excluding {
        checks.push((b, &[Less]));
    }
    satisfies(scheme, &literal(tv), &checks)
}

/// Whether a record's CPE (with its range) matches a component's CPE.
pub fn matches(record: &Cpe, bounds: &Bounds, target: &Cpe, scheme: Option<Scheme>) -> bool {
    attributes_match(record, target) && version_matches(record, bounds, target, scheme)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpe(s: &str) -> Cpe {
        Cpe::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    fn range(si: Option<&str>, se: Option<&str>, ei: Option<&str>, ee: Option<&str>) -> Bounds {
        let o = |v: Option<&str>| v.map(str::to_string);
        Bounds {
            start_including: o(si),
            start_excluding: o(se),
            end_including: o(ei),
            end_excluding: o(ee),
        }
    }

    #[test]
    fn formatted_strings_parse_with_escapes_any_na_and_wildcards() {
        let c = cpe("cpe:2.3:a:openssl:openssl:3.0.1:*:*:*:*:*:*:*");
        assert_eq!(c.part, Part::Application);
        assert_eq!((c.vendor(), c.product()), ("openssl", "openssl"));
        assert_eq!(c.version(), "3\\.0\\.1");
        assert_eq!(literal(c.version()), "3.0.1");
        assert_eq!(
            c.to_fs(),
            "cpe:2.3:a:openssl:openssl:3\\.0\\.1:*:*:*:*:*:*:*"
        );
        let k = cpe("cpe:2.3:o:linux:linux_kernel:5.10:*:*:*:*:*:*:*");
        assert_eq!(
            (k.part, k.product()),
            (Part::OperatingSystem, "linux_kernel")
        );
        let hp = cpe("cpe:2.3:a:hp:insight_diagnostics:7.4.0.1570:-:*:*:online:win2003:x64:*");
        assert_eq!(hp.attrs[3], "-");
        assert_eq!(hp.attrs[6], "online");
        assert_eq!(hp.attrs[7], "win2003");
        assert_eq!(hp.attrs[8], "x64");
        // Escaped colons stay inside a value; case folds.
        let e = cpe("cpe:2.3:a:Foo\\:Bar:Baz\\!:1.0:*:*:*:*:*:*:*");
        assert_eq!((e.vendor(), e.product()), ("foo\\:bar", "baz\\!"));
        assert_eq!(literal(e.vendor()), "foo:bar");
        // An escaped wildcard is a literal; an unescaped one a wildcard.
        let w = cpe("cpe:2.3:a:*:open*:1.?:*:*:*:*:*:*:*");
        assert_eq!(
            (w.vendor(), w.product(), w.version()),
            ("*", "open*", "1\\.?")
        );
        let l = cpe("cpe:2.3:a:x:a\\*b:*:*:*:*:*:*:*:*");
        assert_eq!(l.product(), "a\\*b");
        assert_eq!(
            relation(l.product(), &fs_value("axxb").unwrap()),
            Relation::Disjoint
        );
        assert_eq!(
            relation(&fs_value("a*b").unwrap(), &fs_value("axxb").unwrap()),
            Relation::Superset
        );
    }

    #[test]
    fn malformed_names_are_refused() {
        for bad in [
            "",
            "cpe:2.3:a:openssl:openssl:3.0.1:*:*:*:*:*:*",
            "cpe:2.3:a:openssl:openssl:3.0.1:*:*:*:*:*:*:*:*",
            "cpe:2.3:x:openssl:openssl:3.0.1:*:*:*:*:*:*:*",
            "cpe:2.3:a:openssl:openssl:3.0.1:*:*:*:*:*:*:\\",
            "cpe:/a:v:p:1:u:e:l:extra",
            "cpe:/a:v:p%zz",
            "cpe:/q:v:p",
            "pkg:npm/x@1",
        ] {
            assert!(Cpe::parse(bad).is_err(), "{bad:?}");
        }
        let long = format!("cpe:2.3:a:v:{}:1:*:*:*:*:*:*:*", "p".repeat(MAX_CPE_LEN));
        assert!(Cpe::parse(&long).is_err());
    }

    #[test]
    fn uris_read_as_their_formatted_strings() {
        let u = cpe("cpe:/a:openssl:openssl:1.0.2k");
        assert_eq!(u, cpe("cpe:2.3:a:openssl:openssl:1.0.2k:*:*:*:*:*:*:*"));
        let u = cpe("cpe:/o:microsoft:windows_10:-");
        assert_eq!(u, cpe("cpe:2.3:o:microsoft:windows_10:-:*:*:*:*:*:*:*"));
        let u = cpe("cpe:/a:hp:insight_diagnostics:7.4.0.1570:-:~~online~win2003~x64~");
        assert_eq!(
            u,
            cpe("cpe:2.3:a:hp:insight_diagnostics:7.4.0.1570:-:*:*:online:win2003:x64:*")
        );
        let u = cpe("cpe:/a:foo%21:bar%02:1.%01");
        assert_eq!(
            (u.vendor(), u.product(), u.version()),
            ("foo\\!", "bar*", "1\\.?")
        );
        assert_eq!(cpe("cpe:/a").product(), "*");
    }

    #[test]
    fn the_attribute_relation_table() {
        use Relation::*;
        let v = |s: &str| fs_value(s).unwrap();
        for (source, target, want) in [
            ("*", "*", Equal),
            ("*", "-", Superset),
            ("*", "openssl", Superset),
            ("-", "*", Subset),
            ("-", "-", Equal),
            ("-", "openssl", Disjoint),
            ("openssl", "*", Subset),
            ("openssl", "-", Disjoint),
            ("openssl", "OpenSSL", Equal),
            ("openssl", "libressl", Disjoint),
            ("open*", "openssl", Superset),
            ("open*", "libressl", Disjoint),
            ("open?l", "openssl", Disjoint),
            ("opens?l", "openssl", Superset),
            ("open*", "*", Subset),
            ("open*", "-", Disjoint),
        ] {
            assert_eq!(
                relation(&v(source), &v(target)),
                want,
                "{source} vs {target}"
            );
        }
        assert_eq!(part_relation(Part::Any, Part::Application), Superset);
        assert_eq!(part_relation(Part::Application, Part::Any), Subset);
        assert_eq!(
            part_relation(Part::Application, Part::OperatingSystem),
            Disjoint
        );
    }

    #[test]
    fn vendor_subset_with_product_superset_is_dropped() {
        let comp = cpe("cpe:2.3:a:*:openssl:1.0:*:*:*:*:*:*:*");
        // Record vendor concrete vs component ANY (SUBSET) with an equal product: kept.
        assert!(attributes_match(
            &cpe("cpe:2.3:a:openssl:openssl:*:*:*:*:*:*:*:*"),
            &comp
        ));
        // Vendor SUBSET and product SUPERSET: dropped, and the reverse.
        assert!(!attributes_match(
            &cpe("cpe:2.3:a:openssl:*:*:*:*:*:*:*:*:*"),
            &comp
        ));
        assert!(!attributes_match(
            &cpe("cpe:2.3:a:*:openssl:*:*:*:*:*:*:*:*"),
            &cpe("cpe:2.3:a:openssl:*:1.0:*:*:*:*:*:*:*")
        ));
        // An OS CPE never matches an application.
        assert!(!attributes_match(
            &cpe("cpe:2.3:o:linux:linux_kernel:*:*:*:*:*:*:*:*"),
            &cpe("cpe:2.3:a:linux:linux_kernel:5.10:*:*:*:*:*:*:*")
        ));
    }

    #[test]
    fn versions_and_ranges() {
        let rec = cpe("cpe:2.3:a:openssl:openssl:*:*:*:*:*:*:*:*");
        let r = range(Some("3.0.0"), None, None, Some("3.0.7"));
        let at = |v: &str| cpe(&format!("cpe:2.3:a:openssl:openssl:{v}:*:*:*:*:*:*:*"));
        assert!(matches(&rec, &r, &at("3.0.1"), None));
        assert!(matches(&rec, &r, &at("3.0.0"), None));
        assert!(!matches(&rec, &r, &at("3.0.7"), None));
        assert!(!matches(&rec, &r, &at("1.1.1w"), None));
        assert!(!matches(&rec, &r, &at("3.1.0"), None));
        // Component ANY matches, NA only a record version ANY or NA.
        assert!(matches(&rec, &r, &at("*"), None));
        assert!(matches(&rec, &r, &at("-"), None));
        let exact = cpe("cpe:2.3:a:openssl:openssl:1.0.2k:*:*:*:*:*:*:*");
        assert!(!matches(&exact, &Bounds::default(), &at("-"), None));
        assert!(matches(&exact, &Bounds::default(), &at("1.0.2k"), None));
        assert!(!matches(&exact, &Bounds::default(), &at("1.0.2l"), None));
        // Inclusive and exclusive bounds of each side.
        let r = range(None, Some("1.0"), Some("2.0"), None);
        assert!(!matches(&rec, &r, &at("1.0"), None));
        assert!(matches(&rec, &r, &at("1.5"), None));
        assert!(matches(&rec, &r, &at("2.0"), None));
        assert!(!matches(&rec, &r, &at("2.0.1"), None));
        // The kernel: numeric parts compare numerically.
        let k = cpe("cpe:2.3:o:linux:linux_kernel:*:*:*:*:*:*:*:*");
        let kr = range(Some("5.4"), None, None, Some("5.10.200"));
        let kv = |v: &str| cpe(&format!("cpe:2.3:o:linux:linux_kernel:{v}:*:*:*:*:*:*:*"));
        assert!(matches(&k, &kr, &kv("5.10"), None));
        assert!(!matches(&k, &kr, &kv("5.15"), None));
        assert!(!matches(&k, &kr, &kv("5.3.18"), None));
    }

    #[test]
    fn a_purl_scheme_orders_versions_when_it_reads_them() {
        let rec = cpe("cpe:2.3:a:acme:lib:*:*:*:*:*:*:*:*");
        let r = range(None, None, None, Some("1.0.0"));
        let at = |v: &str| cpe(&format!("cpe:2.3:a:acme:lib:{v}:*:*:*:*:*:*:*"));
        // SemVer: a prerelease is before its release; the generic order agrees here.
        assert!(matches(&rec, &r, &at("1.0.0-rc.1"), Some(Scheme::Semver)));
        // Maven orders `1.0.0-ga` equal to 1.0.0; the generic order puts it above.
        let upto = range(None, None, Some("1.0.0"), None);
        assert!(matches(&rec, &upto, &at("1.0.0-ga"), Some(Scheme::Maven)));
        assert!(!matches(&rec, &upto, &at("1.0.0-ga"), None));
        // A version the scheme cannot read is compared in the generic order.
        assert!(matches(&rec, &r, &at("0.9_beta"), Some(Scheme::Semver)));
    }

    #[test]
    fn the_hp_example_matches_only_its_platform() {
        let rec = cpe("cpe:2.3:a:hp:insight_diagnostics:7.4.0.1570:-:*:*:online:win2003:x64:*");
        let b = Bounds::default();
        let same = cpe("cpe:2.3:a:hp:insight_diagnostics:7.4.0.1570:*:*:*:*:*:*:*");
        assert!(matches(&rec, &b, &same, None));
        let other = cpe("cpe:2.3:a:hp:insight_diagnostics:7.4.0.1570:*:*:*:online:win2008:*:*");
        assert!(!matches(&rec, &b, &other, None));
        let newer = cpe("cpe:2.3:a:hp:insight_diagnostics:7.4.0.1571:*:*:*:*:*:*:*");
        assert!(!matches(&rec, &b, &newer, None));
    }

    #[test]
    fn glob_backtracks_without_recursion() {
        let p = tokens("a*b*c").unwrap();
        let t: Vec<char> = "axxbyyc".chars().collect();
        assert!(glob(&p, &t));
        let t: Vec<char> = "axxbyy".chars().collect();
        assert!(!glob(&p, &t));
        let p = tokens("**").unwrap();
        assert!(glob(&p, &[]));
    }
}
