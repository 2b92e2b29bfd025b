//! Links: sanitising a link target and finding bare URLs, domains and e-mail addresses in text.
//!
//! Follows upstream's rules: only a fixed set of schemes is allowed, a target without a scheme is
//! taken as `http://`, and a bare URL starts after whitespace or one of `'"(,:<` and ends before
//! trailing punctuation.

use super::html::LT;

/// Schemes a link may use: http(s), ftp, file and the HTML safelisted schemes.
const ALLOWED_SCHEMES: &[&str] = &[
    "http",
    "https",
    "ftp",
    "file",
    "bitcoin",
    "geo",
    "im",
    "irc",
    "ircs",
    "magnet",
    "mailto",
    "matrix",
    "mms",
    "news",
    "nntp",
    "openpgp4fpr",
    "sip",
    "sms",
    "smsto",
    "ssh",
    "tel",
    "urn",
    "webcal",
    "wtai",
    "xmpp",
];

/// The scheme of `url` (as a URL parser splits it), lower-cased, and the rest after the colon.
fn split_scheme(url: &str) -> Option<(String, &str)> {
    let colon = url.find(':')?;
    let scheme = &url[..colon];
    let mut chars = scheme.chars();
    let first = chars.next()?;
    if !first.is_ascii_alphabetic()
        || !chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    {
        return None;
    }
    Some((scheme.to_ascii_lowercase(), &url[colon + 1..]))
}

/// The link target to use for `url`, or `None` if the link must not be made.
pub(super) fn sanitize_url(url: &str) -> Option<String> {
    let url = url.trim().replace(' ', "%20");
    match split_scheme(&url) {
        Some((scheme, rest)) => {
            if ALLOWED_SCHEMES.contains(&scheme.as_str()) {
                Some(format!("{scheme}:{rest}"))
            } else {
                None
            }
        }
        None => {
            let has_netloc = url.starts_with("//");
            let path_end = url.find(['?', '#']).unwrap_or(url.len());
            if !has_netloc && url[..path_end].contains('@') {
                Some(format!("mailto:{url}"))
            } else if (!has_netloc && url.starts_with('/'))
                || (url.starts_with('#') && url.len() > 1)
            {
                // A path on this server, or a fragment. Browsers read `\` as `/` (so `/\x`
                // would be `//x`, another host) and drop tabs and newlines: encode those, so
                // the target stays on this server.
                Some(encode_relative(&url))
            } else if url.is_empty() {
                None
            } else {
                Some(format!("http://{url}"))
            }
        }
    }
}

/// A same-server target with backslashes, tabs and line breaks percent-encoded.
fn encode_relative(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    for ch in url.chars() {
        match ch {
            '\\' => out.push_str("%5C"),
            '\t' => out.push_str("%09"),
            '\n' => out.push_str("%0A"),
            '\r' => out.push_str("%0D"),
            _ => out.push(ch),
        }
    }
    out
}

/// A link found in text: byte range in the text and the target.
#[derive(Debug, PartialEq)]
pub(super) struct Found {
    pub start: usize,
    pub end: usize,
    pub href: String,
}

fn starts_link(prev: Option<char>) -> bool {
    match prev {
        None => true,
        Some(c) => c.is_whitespace() || matches!(c, '\'' | '"' | '(' | ',' | ':' | '<' | LT),
    }
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Punctuation that may follow a URL (before whitespace or the end) without being part of it.
fn trailing_punct(c: char) -> bool {
    matches!(
        c,
        '!' | ':' | ';' | '?' | ')' | ',' | '.' | '\'' | '"' | '>'
    )
}

/// Whether `rest` (what follows a candidate URL) is trailing punctuation and then whitespace or
/// the end of the text.
fn ends_ok(rest: &str) -> bool {
    let tail = rest.trim_start_matches(trailing_punct);
    tail.is_empty() || tail.starts_with(char::is_whitespace)
}

/// The end of a URL path starting at `s[0] == '/'`: non-space, non-quote characters with
/// balanced parentheses, followed by what [`ends_ok`] accepts. Returns the byte length taken,
/// or 0.
fn path_len(s: &str) -> usize {
    let seg_end = s
        .find(|c: char| c.is_whitespace() || c == '"' || c == LT)
        .unwrap_or(s.len());
    // ok[i]: whether a URL may end at byte i (one backward pass keeps this linear).
    let mut ok = vec![false; seg_end + 1];
    ok[seg_end] = ends_ok(&s[seg_end..]);
    for (i, c) in s[..seg_end].char_indices().rev() {
        ok[i] = trailing_punct(c) && ok[i + c.len_utf8()];
    }
    // Like upstream's lazy pattern, take the first end where the parentheses balance.
    let mut depth: i32 = 0;
    let mut max_depth = 0;
    for (i, c) in s[..seg_end].char_indices() {
        match c {
            '(' => {
                depth += 1;
                max_depth = max_depth.max(depth);
            }
            ')' => {
                depth -= 1;
                if depth < 0 {
                    break;
                }
            }
            _ => {}
        }
        let end = i + c.len_utf8();
        if depth == 0 && ok[end] {
            return if max_depth > 6 { 0 } else { end };
        }
    }
    0
}

/// Length of `[\w.:@-]+` at the start of `s` (the host part of a URL with a scheme).
fn host_len(s: &str) -> usize {
    s.find(|c: char| !(is_word(c) || matches!(c, '.' | ':' | '@' | '-')))
        .unwrap_or(s.len())
}

fn match_scheme_url(s: &str) -> Option<usize> {
    let lower = s.get(..8).unwrap_or(s).to_ascii_lowercase();
    let scheme_len = if lower.starts_with("https://") {
        8
    } else if lower.starts_with("http://") {
        7
    } else {
        return None;
    };
    let host = host_len(&s[scheme_len..]);
    if host == 0 {
        return None;
    }
    let mut end = scheme_len + host;
    // The host may end with punctuation that belongs after the URL.
    if s[end..].starts_with('/') {
        let p = path_len(&s[end..]);
        if p > 0 {
            return Some(end + p);
        }
    }
    if !ends_ok(&s[end..]) {
        return None;
    }
    // Trailing punctuation of the host part (e.g. "https://t.co.") is not part of it.
    while end > scheme_len && trailing_punct(s[..end].chars().next_back()?) {
        end -= 1;
    }
    (end > scheme_len).then_some(end)
}

/// A domain `(?:[\w-]+\.)+TLD` at the start of `s`, with an optional path. Returns its length.
fn match_domain(s: &str) -> Option<usize> {
    // Collect the labels.
    let mut ends = Vec::new(); // end of each label
    let mut i = 0;
    loop {
        let label = s[i..]
            .find(|c: char| !(is_word(c) || c == '-'))
            .unwrap_or(s.len() - i);
        if label == 0 {
            break;
        }
        ends.push(i + label);
        i += label;
        if s[i..].starts_with('.') {
            i += 1;
        } else {
            break;
        }
    }
    // Try the longest domain first: the last label must be a TLD.
    for k in (1..ends.len()).rev() {
        let end = ends[k];
        let tld_start = ends[k - 1] + 1;
        if !is_tld(&s[tld_start..end]) {
            continue;
        }
        if s[end..].starts_with('/') {
            let p = path_len(&s[end..]);
            if p > 0 {
                return Some(end + p);
            }
        }
        if ends_ok(&s[end..]) {
            return Some(end);
        }
    }
    None
}

/// An e-mail address `[\w.-]+@[\w.-]+\.\w+` at the start of `s`.
fn match_email(s: &str) -> Option<usize> {
    let local = s
        .find(|c: char| !(is_word(c) || matches!(c, '.' | '-')))
        .unwrap_or(s.len());
    if local == 0 || !s[local..].starts_with('@') {
        return None;
    }
    let d = local + 1;
    let dom = s[d..]
        .find(|c: char| !(is_word(c) || matches!(c, '.' | '-')))
        .map_or(s.len(), |n| d + n);
    // Backtrack until the domain ends with `.\w+` and what follows is acceptable.
    let mut end = dom;
    while end > d {
        let part = &s[d..end];
        if let Some(dot) = part.rfind('.') {
            let last = &part[dot + 1..];
            if dot > 0 && !last.is_empty() && last.chars().all(is_word) && ends_ok(&s[end..]) {
                return Some(end);
            }
        }
        end -= s[..end].chars().next_back()?.len_utf8();
    }
    None
}

/// The first link in `text` at or after byte `from`.
pub(super) fn find(text: &str, from: usize) -> Option<Found> {
    let mut prev = text[..from].chars().next_back();
    for (i, c) in text[from..].char_indices() {
        let at = from + i;
        let p = prev;
        prev = Some(c);
        if !(c.is_alphanumeric() || c == '_') || !starts_link(p) {
            continue;
        }
        let s = &text[at..];
        if let Some(n) = match_scheme_url(s) {
            return Some(Found {
                start: at,
                end: at + n,
                href: s[..n].to_string(),
            });
        }
        if let Some(n) = match_email(s) {
            return Some(Found {
                start: at,
                end: at + n,
                href: format!("mailto:{}", &s[..n]),
            });
        }
        if let Some(n) = match_domain(s) {
            return Some(Found {
                start: at,
                end: at + n,
                href: format!("http://{}", &s[..n]),
            });
        }
    }
    None
}

/// Whether `s` is a top-level domain upstream links without a scheme (a few common file
/// extensions are left out to avoid false positives, as upstream does).
fn is_tld(s: &str) -> bool {
    if s.len() < 2 || !s.bytes().all(|b| b.is_ascii_alphabetic()) {
        return false;
    }
    let lower = s.to_ascii_lowercase();
    // Upstream leaves these out: they are more often file extensions.
    if ["java", "md", "mov", "py", "zip"].contains(&lower.as_str()) {
        return false;
    }
    if lower.len() == 2 {
        return CC_TLDS.split(' ').any(|t| t == lower);
    }
    GENERIC_TLDS.split(' ').any(|t| t == lower)
}

const CC_TLDS: &str = "ac ad ae af ag ai al am ao aq ar as at au aw ax az ba bb bd be bf bg bh bi \
bj bm bn bo br bs bt bw by bz ca cc cd cf cg ch ci ck cl cm cn co cr cu cv cw cx cy cz de dj dk \
dm do dz ec ee eg er es et eu fi fj fk fm fo fr ga gd ge gf gg gh gi gl gm gn gp gq gr gs gt gu \
gw gy hk hm hn hr ht hu id ie il im in io iq ir is it je jm jo jp ke kg kh ki km kn kp kr kw ky \
kz la lb lc li lk lr ls lt lu lv ly ma mc me mg mh mk ml mm mn mo mp mq mr ms mt mu mv mw mx my \
mz na nc ne nf ng ni nl no np nr nu nz om pa pe pf pg ph pk pl pm pn pr ps pt pw py qa re ro rs \
ru rw sa sb sc sd se sg sh si sk sl sm sn so sr ss st su sv sx sy sz tc td tf tg th tj tk tl tm \
tn to tr tt tv tw tz ua ug uk us uy uz va vc ve vg vi vn vu wf ws ye yt za zm zw";

const GENERIC_TLDS: &str = "com org net edu gov mil int info biz name pro aero coop museum \
mobi asia tel travel jobs cat xxx app dev page blog cloud online site tech store shop art \
design news live today life world space website xyz top club link click help wiki social \
chat email systems solutions services network digital media studio agency company zone \
codes tools software engineering academy education school university science rocks ninja \
guru expert center global group team works work host hosting server domains security \
fyi gg lol fun game games love one pub run sh wtf ai";

#[cfg(test)]
mod tests {
    use super::*;

    fn link(text: &str) -> Option<(String, String)> {
        find(text, 0).map(|f| (text[f.start..f.end].to_string(), f.href))
    }

    #[test]
    fn sanitising() {
        assert_eq!(sanitize_url("javascript:alert(1)"), None);
        assert_eq!(sanitize_url("JavaScript:alert(1)"), None);
        assert_eq!(sanitize_url("data:text/html,x"), None);
        assert_eq!(sanitize_url("itms://itunes.com"), None);
        assert_eq!(
            sanitize_url("https://x.org").as_deref(),
            Some("https://x.org")
        );
        assert_eq!(sanitize_url("tel:+1415").as_deref(), Some("tel:+1415"));
        assert_eq!(sanitize_url("sms:+1415").as_deref(), Some("sms:+1415"));
        assert_eq!(
            sanitize_url("/user_uploads/a").as_deref(),
            Some("/user_uploads/a")
        );
        assert_eq!(sanitize_url("#narrow/x").as_deref(), Some("#narrow/x"));
        assert_eq!(sanitize_url("a@b.com").as_deref(), Some("mailto:a@b.com"));
        assert_eq!(sanitize_url("foo/bar").as_deref(), Some("http://foo/bar"));
    }

    #[test]
    fn relative_targets_cannot_reach_another_host() {
        // Browsers read `/\\evil.com` as `//evil.com`.
        assert_eq!(sanitize_url("/\\evil.com").as_deref(), Some("/%5Cevil.com"));
        assert_eq!(
            sanitize_url("/\\\\evil.com/x?a=\\#b\\").as_deref(),
            Some("/%5C%5Cevil.com/x?a=%5C#b%5C")
        );
        assert_eq!(
            sanitize_url("/\t/evil.com").as_deref(),
            Some("/%09/evil.com")
        );
        assert_eq!(sanitize_url("#\\x").as_deref(), Some("#%5Cx"));
        // Already encoded stays as it is.
        assert_eq!(
            sanitize_url("/%5Cevil.com").as_deref(),
            Some("/%5Cevil.com")
        );
        // Not a same-server path: an explicit http link, visible as such.
        assert_eq!(
            sanitize_url("\\\\evil.com").as_deref(),
            Some("http://\\\\evil.com")
        );
    }

    #[test]
    fn bare_links_like_upstream() {
        // Cases from upstream's linkify tests.
        let yes = [
            ("http://www.google.com", "http://www.google.com"),
            (
                " some text https://www.google.com/",
                "https://www.google.com/",
            ),
            ("with short example.com url", "example.com"),
            ("t.co", "t.co"),
            ("go to views.org please", "views.org"),
            ("with www www.zulip.com/foo ok?", "www.zulip.com/foo"),
            ("allow questions like foo.com?", "foo.com"),
            ("\"is.gd/foo/ \"", "is.gd/foo/"),
            ("end of sentence https://t.co.", "https://t.co"),
            (
                "(Something like http://foo.com/blah_blah)",
                "http://foo.com/blah_blah",
            ),
            ("end with a quote www.google.com\"", "www.google.com"),
            (
                "from http://supervisord.org/running.html:",
                "http://supervisord.org/running.html",
            ),
            (
                "at https://zulip.com/api. Check it!",
                "https://zulip.com/api",
            ),
            ("I spent a year at ucl.ac.uk", "ucl.ac.uk"),
            (
                "http://localhost:9991/?show_debug=1",
                "http://localhost:9991/?show_debug=1",
            ),
            ("anyone before? (http://a.cc/i/FMXO)", "http://a.cc/i/FMXO"),
            (
                "(http://en.wikipedia.org/wiki/Each-way_(bet))",
                "http://en.wikipedia.org/wiki/Each-way_(bet)",
            ),
            ("http://leo@foo.com/my/file", "http://leo@foo.com/my/file"),
            (
                "http://example.com/something?with,commas,in,url, but not at end",
                "http://example.com/something?with,commas,in,url",
            ),
            ("javascript:foo.com", "foo.com"),
            ("about:blank.com", "blank.com"),
            ("sorry,http://example.com/", "http://example.com/"),
            ("a@b.com", "a@b.com"),
            ("foo.com/a::trollface::b", "foo.com/a::trollface::b"),
        ];
        for (input, want) in yes {
            assert_eq!(link(input).map(|l| l.0).as_deref(), Some(want), "{input}");
        }
        let no = [
            "readme.md",
            "python class views.py is",
            "javascript://foo.com",
            "foobarscript://foo.com",
            "aim:addbuddy?screenname=foo",
            "a@b.com/foo",
            "a.commandstuff()",
            "love...it",
            "eight is too many https://zulip.com/(we_like_((t(d(o(_(1(2)1)__)o)o))o_nest_)_nest)_nest",
        ];
        for input in no {
            assert_eq!(link(input), None, "{input}");
        }
        assert_eq!(link("example.com").unwrap().1, "http://example.com");
        assert_eq!(link("a@b.com").unwrap().1, "mailto:a@b.com");
    }
}
