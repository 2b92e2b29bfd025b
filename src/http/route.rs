//! Path and method resolution shared by both APIs' route tables: splitting a path into
//! percent-decoded segments, the [`routes!`] macro that turns one row per endpoint into that
//! API's endpoint enum, names, metrics index, matcher, sample paths and dispatch, and choosing
//! among the methods a path accepts (`HEAD` served as `GET`, the `Allow` list of a 405 or an
//! `OPTIONS` answer). Knows no API semantics: which paths exist, what a row's policy says, and
//! how a 405 or `OPTIONS` is rendered, stay with each API.

use std::cmp::Ordering;

use hyper::Method;
use hyper::StatusCode;
use hyper::header::{ALLOW, HeaderValue};

use super::Response;

/// Splits what follows an API's prefix (`a/b%20c`) into percent-decoded segments, skipping
/// empty ones; `None` when a segment does not decode to UTF-8.
pub fn segments(rest: &str) -> Option<Vec<String>> {
    rest.split('/')
        .filter(|s| !s.is_empty())
        .map(percent_decode)
        .collect()
}

/// Decodes `%XX` escapes in one path segment; a `%` not followed by two hex digits stays as is.
pub fn percent_decode(seg: &str) -> Option<String> {
    if !seg.contains('%') {
        return Some(seg.to_string());
    }
    let b = seg.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let h = (b[i + 1] as char).to_digit(16);
            let l = (b[i + 2] as char).to_digit(16);
            if let (Some(h), Some(l)) = (h, l) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8(out).ok()
}

/// One segment of a route's path pattern.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Seg {
    /// This exact (decoded) segment.
    Lit(&'static str),
    /// One segment, parsed by the row's [`FromSegment`] type.
    Cap,
    /// All remaining segments (possibly none), parsed by a [`FromSegments`] type.
    Tail,
}

/// A path parameter of one segment, parsed from its decoded text; `None` when the path is not
/// this route's.
pub trait FromSegment: Sized {
    fn from_segment(seg: &str) -> Option<Self>;
}

/// A path parameter made of every remaining segment.
pub trait FromSegments: Sized {
    fn from_segments(segs: &[String]) -> Option<Self>;
}

impl FromSegment for String {
    fn from_segment(seg: &str) -> Option<String> {
        Some(seg.to_string())
    }
}

/// One row of a route table as the matcher sees it (one per path of an endpoint).
pub struct Row<E> {
    pub method: &'static str,
    pub path: &'static [Seg],
    /// The endpoint with its captures parsed, when they parse.
    pub build: fn(&[String]) -> Option<E>,
}

/// What [`routes!`] generates for an API's endpoint enum.
pub trait RouteTable: Sized + std::fmt::Debug + 'static {
    /// Every endpoint's name, by position in the table: the `route` label of the metrics.
    const NAMES: &'static [&'static str];
    /// One `(method, path)` per endpoint, in table order, with `{name}` for each capture
    /// (or the row's own `sample`).
    const SAMPLES: &'static [(&'static str, &'static str)];
    /// Every row, for the matcher.
    fn rows() -> &'static [Row<Self>];
    /// This endpoint's position in the table.
    fn route_index(&self) -> usize;
}

/// Why a path did not resolve to an endpoint.
#[derive(Debug, PartialEq)]
pub enum NoRoute {
    NotFound,
    /// The path exists for these methods only.
    Method(Vec<&'static str>),
}

fn fits(path: &[Seg], segs: &[String]) -> bool {
    let fixed = match path.last() {
        Some(Seg::Tail) => {
            if segs.len() + 1 < path.len() {
                return false;
            }
            &path[..path.len() - 1]
        }
        _ if path.len() != segs.len() => return false,
        _ => path,
    };
    fixed.iter().zip(segs).all(|(p, s)| match p {
        Seg::Lit(l) => l == s,
        _ => true,
    })
}

/// How specific a pattern is at one position: a literal beats a capture beats the end of a
/// pattern beats a tail.
fn weight(seg: Option<&Seg>) -> u8 {
    match seg {
        Some(Seg::Lit(_)) => 3,
        Some(Seg::Cap) => 2,
        // A pattern that ends here fits exactly: it beats a tail that fits nothing.
        None => 1,
        Some(Seg::Tail) => 0,
    }
}

/// Orders two patterns that fit the same path: the first position where they differ decides.
fn specificity(a: &[Seg], b: &[Seg]) -> Ordering {
    for i in 0..a.len().max(b.len()) {
        let o = weight(a.get(i)).cmp(&weight(b.get(i)));
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// Resolves a path in a route table: the most specific pattern that fits the segments wins
/// (a literal segment over a capture over a tail, first difference first), with every row of
/// that pattern whose captures parse; among those, `method` picks (see [`pick`]). No row
/// whose captures parse: not found.
pub fn resolve<E: RouteTable>(
    method: &Method,
    segs: &[String],
    options: ListOptions,
) -> Result<E, NoRoute> {
    let rows = E::rows();
    let mut best: Option<&'static [Seg]> = None;
    for r in rows.iter().filter(|r| fits(r.path, segs)) {
        if best.is_none_or(|b| specificity(r.path, b) == Ordering::Greater) {
            best = Some(r.path);
        }
    }
    let Some(best) = best else {
        return Err(NoRoute::NotFound);
    };
    let table: Vec<(&'static str, E)> = rows
        .iter()
        .filter(|r| r.path == best)
        .filter_map(|r| Some((r.method, (r.build)(segs)?)))
        .collect();
    if table.is_empty() {
        return Err(NoRoute::NotFound);
    }
    pick(method, table, options).map_err(NoRoute::Method)
}

/// The route test both APIs run: every endpoint's sample path (captures filled in by `fill`)
/// resolves to that endpoint, and the names are the variants'.
pub fn check_samples<E: RouteTable>(fill: impl Fn(&str) -> String, options: ListOptions) {
    assert_eq!(E::SAMPLES.len(), E::NAMES.len());
    for (i, (method, path)) in E::SAMPLES.iter().enumerate() {
        let m: Method = method.parse().unwrap();
        let segs = segments(&fill(path)).unwrap();
        let e: E = resolve(&m, &segs, options).unwrap_or_else(|e| panic!("{method} {path}: {e:?}"));
        assert_eq!(e.route_index(), i, "{method} {path} resolves to {e:?}");
        let debug = format!("{e:?}");
        assert_eq!(debug.split('(').next(), Some(E::NAMES[i]), "{debug}");
    }
}

/// Declares an API's endpoints from one row each:
///
/// ```text
/// Variant(capture: Type, ...) = METHOD ["literal", capture, {tail}] | [alias...],
///     policy_expr [, sample = "path"] => handler_call;
/// ```
///
/// A capture names a [`FromSegment`] parameter, `{tail}` a [`FromSegments`] one (last only);
/// aliases take no captures. Generated: the enum (with `policy()` and [`RouteTable`]), and
/// `dispatch`, the given `async fn` header with the endpoint as its first parameter, whose
/// body runs the row's handler call (which names the header's parameters) and converts its
/// `Ok` value with `Into`.
macro_rules! routes {
    (@shape $l:literal) => { $crate::http::route::Seg::Lit($l) };
    (@shape { $i:ident }) => { $crate::http::route::Seg::Tail };
    (@shape $i:ident) => { $crate::http::route::Seg::Cap };
    (@sample $l:literal) => { $l };
    (@sample { $i:ident }) => { concat!("{", stringify!($i), "}") };
    (@sample $i:ident) => { concat!("{", stringify!($i), "}") };
    (@path [ $first:tt $(, $rest:tt )* ]) => {
        concat!($crate::http::route::routes!(@sample $first) $(, "/", $crate::http::route::routes!(@sample $rest) )*)
    };
    (@bind $it:ident $l:literal) => { $it.next()?; };
    (@bind $it:ident { $i:ident }) => {
        let $i = $crate::http::route::FromSegments::from_segments($it.as_slice())?;
    };
    (@bind $it:ident $i:ident) => {
        let $i = $crate::http::route::FromSegment::from_segment($it.next()?.as_str())?;
    };
    (@pick_sample [ $( $seg:tt ),* ]) => { $crate::http::route::routes!(@path [ $( $seg ),* ]) };
    (@pick_sample [ $( $seg:tt ),* ] $sample:literal) => { $sample };
    (
        $(#[$doc:meta])*
        $vis:vis enum $E:ident;
        policy: $P:ty;
        dispatch: $(#[$fdoc:meta])* $fvis:vis async fn $fname:ident $(< $($lt:lifetime),* >)?
            ( $( $arg:ident : $argty:ty ),* $(,)? ) -> $ret:ty;
        $(
            $(#[$vdoc:meta])*
            $V:ident $( ( $( $cap:ident : $ty:ty ),* ) )? =
                $method:ident [ $( $seg:tt ),* ] $( | [ $( $aseg:tt ),* ] )*,
                $policy:expr $( , sample = $sample:literal )? => $call:expr;
        )*
    ) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq)]
        $vis enum $E {
            $( $(#[$vdoc])* $V $( ( $( $ty ),* ) )?, )*
        }

        impl $E {
            /// What admission needs to know about this endpoint (its row's policy).
            pub fn policy(&self) -> $P {
                match self {
                    $( $E::$V { .. } => $policy, )*
                }
            }
        }

        impl $crate::http::route::RouteTable for $E {
            const NAMES: &'static [&'static str] = &[ $( stringify!($V), )* ];
            const SAMPLES: &'static [(&'static str, &'static str)] = &[
                $( (
                    stringify!($method),
                    $crate::http::route::routes!(@pick_sample [ $( $seg ),* ] $( $sample )?),
                ), )*
            ];

            fn rows() -> &'static [$crate::http::route::Row<$E>] {
                static ROWS: &[$crate::http::route::Row<$E>] = &[
                    $(
                        $crate::http::route::Row {
                            method: stringify!($method),
                            path: &[ $( $crate::http::route::routes!(@shape $seg) ),* ],
                            build: |segs: &[String]| {
                                #[allow(unused_mut)]
                                let mut it = segs.iter();
                                $( $crate::http::route::routes!(@bind it $seg); )*
                                let _ = &mut it;
                                Some($E::$V $( ( $( $cap ),* ) )?)
                            },
                        },
                        $(
                            $crate::http::route::Row {
                                method: stringify!($method),
                                path: &[ $( $crate::http::route::routes!(@shape $aseg) ),* ],
                                build: |_: &[String]| Some($E::$V),
                            },
                        )*
                    )*
                ];
                ROWS
            }

            fn route_index(&self) -> usize {
                #[allow(clippy::enum_variant_names, dead_code)]
                enum Index { $( $V, )* }
                match self {
                    $( $E::$V { .. } => Index::$V as usize, )*
                }
            }
        }

        $(#[$fdoc])*
        $fvis async fn $fname $(< $($lt),* >)? (endpoint: $E, $( $arg: $argty ),*) -> $ret {
            match endpoint {
                $( $E::$V $( ( $( $cap ),* ) )? => ($call).map(::core::convert::Into::into), )*
            }
        }
    };
}
pub(crate) use routes;

/// Whether an API lists `OPTIONS` among a path's allowed methods.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ListOptions {
    Yes,
    No,
}

/// Picks the endpoint of `method` among a path's `(method, endpoint)` pairs (`HEAD` asks for
/// `GET`'s). Otherwise the sorted methods the path allows: those listed, `HEAD` where `GET`
/// is, and `OPTIONS` when the API says so.
pub fn pick<E>(
    method: &Method,
    table: Vec<(&'static str, E)>,
    options: ListOptions,
) -> Result<E, Vec<&'static str>> {
    let wanted = if *method == Method::HEAD {
        "GET"
    } else {
        method.as_str()
    };
    let mut allowed: Vec<&'static str> = Vec::with_capacity(table.len() + 2);
    for (m, endpoint) in table {
        if m == wanted {
            return Ok(endpoint);
        }
        allowed.push(m);
    }
    if allowed.contains(&"GET") {
        allowed.push("HEAD");
    }
    if options == ListOptions::Yes {
        allowed.push("OPTIONS");
    }
    allowed.sort_unstable();
    Err(allowed)
}

/// An empty answer with `status` and an `Allow` header joining `allowed` with `separator`:
/// what each API sends for `OPTIONS`.
pub fn allow_response(status: StatusCode, allowed: &[&str], separator: &str) -> Response {
    let mut res = super::empty(status);
    if let Ok(v) = HeaderValue::from_str(&allowed.join(separator)) {
        res.headers_mut().insert(ALLOW, v);
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_decode_and_skip_empty() {
        assert_eq!(
            segments("a//b%20c/%2F/%zz/%4"),
            Some(vec![
                "a".to_string(),
                "b c".into(),
                "/".into(),
                "%zz".into(),
                "%4".into()
            ])
        );
        assert_eq!(segments("%ff"), None);
    }

    #[test]
    fn pick_serves_head_as_get_and_lists_the_rest() {
        let t = || vec![("GET", 1), ("POST", 2)];
        assert_eq!(pick(&Method::HEAD, t(), ListOptions::No), Ok(1));
        assert_eq!(pick(&Method::POST, t(), ListOptions::No), Ok(2));
        assert_eq!(
            pick(&Method::PUT, t(), ListOptions::No),
            Err(vec!["GET", "HEAD", "POST"])
        );
        assert_eq!(
            pick(&Method::PUT, vec![("DELETE", 3)], ListOptions::Yes),
            Err(vec!["DELETE", "OPTIONS"])
        );
    }
}
