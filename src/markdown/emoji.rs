//! Emoji in text: `:name:` syntax and Unicode emoji characters, both rendered as upstream's
//! `<span aria-label="…" class="emoji emoji-CODE" role="img" title="…">:name:</span>`.
//!
//! Names and codes come from [`crate::emoji`] (Zulip's table): `:name:` accepts canonical names
//! and aliases and shows the name as typed; an emoji character shows its canonical name.

/// Appends the emoji span for `name` with `code`.
fn span(out: &mut String, name: &str, code: &str) {
    let title = name.replace('_', " ");
    out.push_str("<span aria-label=\"");
    super::html::attr(out, &title);
    out.push_str("\" class=\"emoji emoji-");
    out.push_str(code);
    out.push_str("\" role=\"img\" title=\"");
    super::html::attr(out, &title);
    out.push_str("\">:");
    super::html::text(out, name);
    out.push_str(":</span>");
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '+')
}

/// Appends a custom emoji's picture (upstream's `<img alt=":name:" class="emoji" src=…
/// title="name">`).
fn custom(out: &mut String, name: &str, src: &str) {
    out.push_str("<img alt=\":");
    super::html::attr(out, name);
    out.push_str(":\" class=\"emoji\" src=\"");
    super::html::attr(out, src);
    out.push_str("\" title=\"");
    super::html::attr(out, &name.replace('_', " "));
    out.push_str("\">");
}

/// Renders `text` with its emoji (the organization's custom emoji first, as upstream looks
/// them up); everything else is escaped text.
pub(super) fn push(out: &mut String, text: &str, realm: &dyn super::Lookup) {
    let mut last = 0; // start of text not yet written
    let mut i = 0;
    let bytes = text.as_bytes();
    while i < text.len() {
        let c = text[i..].chars().next().unwrap_or(' ');
        if c == ':' {
            // `:name:`, consumed whether or not the name is known (as upstream does).
            let rest = &text[i + 1..];
            let n = rest.find(|c: char| !is_name_char(c)).unwrap_or(rest.len());
            if n > 0 && rest[n..].starts_with(':') {
                let name = &rest[..n];
                if let Some(src) = realm.realm_emoji(name) {
                    super::html::text(out, &text[last..i]);
                    custom(out, name, &src);
                    last = i + n + 2;
                } else if let Some(code) = crate::emoji::code_for_name(name) {
                    super::html::text(out, &text[last..i]);
                    span(out, name, &code);
                    last = i + n + 2;
                }
                i += n + 2;
                continue;
            }
            i += 1;
            continue;
        }
        if bytes[i] < 0x80 && !matches!(c, '#' | '*' | '0'..='9') {
            i += 1;
            continue;
        }
        if let Some(len) = sequence_len(&text[i..]) {
            let seq = &text[i..i + len];
            if let Some((name, code)) = lookup(seq) {
                super::html::text(out, &text[last..i]);
                span(out, name, &code);
                last = i + len;
            }
            i += len;
            continue;
        }
        i += c.len_utf8();
    }
    super::html::text(out, &text[last..]);
}

/// The canonical name and code of the emoji `seq` spells, if Zulip's table has it.
fn lookup(seq: &str) -> Option<(&'static str, String)> {
    let e = crate::emoji::by_code(&crate::emoji::code_of_text(seq))?;
    Some((e.canonical_name(), e.code.to_string()))
}

const ZWJ: char = '\u{200d}';
const VS16: char = '\u{fe0f}';
const KEYCAP: char = '\u{20e3}';

fn is_regional(c: char) -> bool {
    ('\u{1f1e6}'..='\u{1f1ff}').contains(&c)
}

fn is_modifier(c: char) -> bool {
    ('\u{1f3fb}'..='\u{1f3ff}').contains(&c)
}

/// Whether `c` could be (the start of) an emoji.
fn is_emoji_char(c: char) -> bool {
    let cp = c as u32;
    (0x1f000..=0x1faff).contains(&cp)
        || (0x2190..=0x2bff).contains(&cp)
        || matches!(
            cp,
            0x00a9 | 0x00ae | 0x203c | 0x2049 | 0x2122 | 0x2139 | 0x3030 | 0x303d | 0x3297 | 0x3299
        )
        || c == '#'
        || c == '*'
        || c.is_ascii_digit()
}

/// Whether `c` shows as an emoji by default (`Emoji_Presentation`), roughly: upstream leaves
/// text-style symbols like arrows alone unless a VS16 asks for the emoji form.
fn has_emoji_presentation(c: char) -> bool {
    let cp = c as u32;
    if cp >= 0x1f000 {
        return !matches!(
            cp,
            0x1f170 | 0x1f171 | 0x1f17e | 0x1f17f | 0x1f202 | 0x1f237 | 0x1f321..=0x1f32c
                | 0x1f336 | 0x1f37d | 0x1f396..=0x1f39f | 0x1f3cb..=0x1f3ce | 0x1f3d4..=0x1f3df
                | 0x1f3f3 | 0x1f3f5 | 0x1f3f7 | 0x1f43f | 0x1f441 | 0x1f4fd | 0x1f549 | 0x1f54a
                | 0x1f56f | 0x1f570 | 0x1f573..=0x1f579 | 0x1f587 | 0x1f58a..=0x1f58d | 0x1f590
                | 0x1f5a5 | 0x1f5a8 | 0x1f5b1 | 0x1f5b2 | 0x1f5bc | 0x1f5c2..=0x1f5c4
                | 0x1f5d1..=0x1f5d3 | 0x1f5dc..=0x1f5de | 0x1f5e1 | 0x1f5e3 | 0x1f5e8 | 0x1f5ef
                | 0x1f5f3 | 0x1f5fa | 0x1f6cb | 0x1f6cd..=0x1f6cf | 0x1f6e0..=0x1f6e5 | 0x1f6e9
                | 0x1f6f0 | 0x1f6f3
        );
    }
    matches!(
        cp,
        0x231a | 0x231b | 0x23e9..=0x23ec | 0x23f0 | 0x23f3 | 0x25fd | 0x25fe | 0x2614 | 0x2615
            | 0x2648..=0x2653 | 0x267f | 0x2693 | 0x26a1 | 0x26aa | 0x26ab | 0x26bd | 0x26be
            | 0x26c4 | 0x26c5 | 0x26ce | 0x26d4 | 0x26ea | 0x26f2 | 0x26f3 | 0x26f5 | 0x26fa
            | 0x26fd | 0x2705 | 0x270a | 0x270b | 0x2728 | 0x274c | 0x274e | 0x2753..=0x2755
            | 0x2757 | 0x2795..=0x2797 | 0x27b0 | 0x27bf | 0x2b1b | 0x2b1c | 0x2b50 | 0x2b55
    )
}

/// Length in bytes of one emoji-like element at the start of `s`: an emoji character with an
/// optional modifier, VS16 (+ keycap) or tag sequence.
fn element_len(s: &str) -> Option<usize> {
    let mut chars = s.char_indices();
    let (_, c) = chars.next()?;
    if is_regional(c) {
        let (i, d) = chars.next()?;
        return is_regional(d).then_some(i + d.len_utf8());
    }
    if !is_emoji_char(c) {
        return None;
    }
    let mut end = c.len_utf8();
    let rest = &s[end..];
    let mut it = rest.chars();
    match it.next() {
        Some(m) if is_modifier(m) => end += m.len_utf8(),
        Some(VS16) => {
            end += VS16.len_utf8();
            if s[end..].starts_with(KEYCAP) {
                end += KEYCAP.len_utf8();
            }
        }
        Some(KEYCAP) => end += KEYCAP.len_utf8(),
        Some(t) if ('\u{e0020}'..='\u{e007e}').contains(&t) => {
            let tags = rest
                .find(|c: char| !('\u{e0020}'..='\u{e007e}').contains(&c))
                .unwrap_or(rest.len());
            if rest[tags..].starts_with('\u{e007f}') {
                end += tags + '\u{e007f}'.len_utf8();
            }
        }
        _ => {}
    }
    // A bare digit, `#` or `*` is only an emoji as a keycap.
    if c.is_ascii() && !s[..end].contains(KEYCAP) {
        return None;
    }
    Some(end)
}

/// Length of a (possibly ZWJ-joined) emoji sequence at the start of `s`, if it looks like one
/// shown as an emoji.
fn sequence_len(s: &str) -> Option<usize> {
    let mut end = element_len(s)?;
    let first = &s[..end];
    while s[end..].starts_with(ZWJ) {
        match element_len(&s[end + ZWJ.len_utf8()..]) {
            Some(n) => end += ZWJ.len_utf8() + n,
            None => break,
        }
    }
    let mut chars = first.chars();
    let c = chars.next()?;
    if end == first.len() && chars.next().is_none() && !has_emoji_presentation(c) {
        return None;
    }
    Some(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(s: &str) -> String {
        let mut out = String::new();
        push(&mut out, s, &super::super::NoRealm);
        out
    }

    /// A realm with the custom emoji `green_tick` and `smile` (overriding the built-in one).
    struct Custom;

    impl super::super::Lookup for Custom {
        fn users_by_name(&self, _: &str) -> Vec<super::super::MentionUser> {
            Vec::new()
        }
        fn user_by_id(&self, _: i64) -> Option<super::super::MentionUser> {
            None
        }
        fn group_by_name(&self, _: &str) -> Option<super::super::MentionGroup> {
            None
        }
        fn channel_by_name(&self, _: &str) -> Option<super::super::MentionChannel> {
            None
        }
        fn realm_emoji(&self, name: &str) -> Option<String> {
            matches!(name, "green_tick" | "smile").then(|| format!("/e/{name}.png"))
        }
    }

    #[test]
    fn custom_emoji_come_first() {
        let mut out = String::new();
        push(&mut out, "ok :green_tick: :smile: :octopus:", &Custom);
        assert_eq!(
            out,
            "ok <img alt=\":green_tick:\" class=\"emoji\" src=\"/e/green_tick.png\" \
             title=\"green tick\"> <img alt=\":smile:\" class=\"emoji\" src=\"/e/smile.png\" \
             title=\"smile\"> <span aria-label=\"octopus\" class=\"emoji emoji-1f419\" \
             role=\"img\" title=\"octopus\">:octopus:</span>"
        );
    }

    #[test]
    fn names() {
        assert_eq!(
            render(":octopus:hello:airplane:"),
            "<span aria-label=\"octopus\" class=\"emoji emoji-1f419\" role=\"img\" title=\"octopus\">:octopus:</span>hello\
             <span aria-label=\"airplane\" class=\"emoji emoji-2708\" role=\"img\" title=\"airplane\">:airplane:</span>"
        );
        assert_eq!(render(":not_an_emoji: x::y::z"), ":not_an_emoji: x::y::z");
        assert!(render("a :heart_eyes: b").contains("title=\"heart eyes\">:heart_eyes:</span> b"));
        // Zulip's names, aliases shown as typed.
        assert_eq!(
            render(":thumbs_up:"),
            "<span aria-label=\"thumbs up\" class=\"emoji emoji-1f44d\" role=\"img\" title=\"thumbs up\">:thumbs_up:</span>"
        );
        assert!(render(":smile:").contains("emoji-1f604"));
        assert_eq!(render(":) <b> & :"), ":) &lt;b&gt; &amp; :");
    }

    #[test]
    fn unicode() {
        assert!(render("x\u{1f4a9}y").contains("class=\"emoji emoji-1f4a9\""));
        assert!(render("\u{2693}").contains("emoji-2693"));
        assert!(render("up \u{2b06}\u{fe0f}").contains("emoji-2b06"));
        // Text-style symbols and plain digits stay text.
        assert_eq!(render("a \u{2194} b 1 # *"), "a \u{2194} b 1 # *");
        assert!(render("#\u{fe0f}\u{20e3}").contains("emoji-0023-20e3"));
        // A ZWJ sequence the table does not know stays text as a whole.
        assert_eq!(
            render("\u{1f34b}\u{200d}\u{1f7e5}"),
            "\u{1f34b}\u{200d}\u{1f7e5}"
        );
        // One the table knows (lime, Unicode 15.1) is one emoji.
        assert!(
            render("\u{1f34b}\u{200d}\u{1f7e9}")
                .contains("emoji-1f34b-200d-1f7e9\" role=\"img\" title=\"lime\">:lime:")
        );
        // An emoji character shows its canonical name.
        assert!(render("\u{1f44d}").contains("title=\"+1\">:+1:</span>"));
    }
}
