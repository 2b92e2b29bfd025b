//! Message rendering checked against upstream's output for the common cases (compiled only
//! under `#[cfg(test)]`): the small realm and helpers here, the cases by topic beside them.

use super::*;

/// A small realm: two users called "Cordelia, Lear's daughter"-style names, duplicates, groups
/// and channels.
struct Realm;

fn user(id: i64, name: &str) -> MentionUser {
    MentionUser {
        id,
        full_name: name.to_string(),
    }
}

const USERS: &[(i64, &str)] = &[
    (10, "King Hamlet"),
    (11, "Cordelia, Lear's daughter"),
    (12, "Mark Twin"),
    (13, "Mark Twin"),
    (14, "<b>Bold</b>"),
];

impl Lookup for Realm {
    fn users_by_name(&self, name: &str) -> Vec<MentionUser> {
        USERS
            .iter()
            .filter(|(_, n)| n.eq_ignore_ascii_case(name))
            .map(|(id, n)| user(*id, n))
            .collect()
    }
    fn user_by_id(&self, id: i64) -> Option<MentionUser> {
        USERS
            .iter()
            .find(|(i, _)| *i == id)
            .map(|(i, n)| user(*i, n))
    }
    fn group_by_name(&self, name: &str) -> Option<MentionGroup> {
        ["hamletcharacters", "support team"]
            .iter()
            .position(|g| g.eq_ignore_ascii_case(name))
            .map(|i| MentionGroup {
                id: 30 + i as i64,
                name: ["hamletcharacters", "support team"][i].to_string(),
            })
    }
    fn latest_message_in_topic(&self, channel_id: i64, topic: &str) -> Option<i64> {
        (channel_id == 5 && topic.eq_ignore_ascii_case("lunch")).then_some(214)
    }
    fn realm_url(&self) -> Option<String> {
        Some("http://zulip.testserver".to_string())
    }
    fn channel_by_name(&self, name: &str) -> Option<MentionChannel> {
        [(9, "announce"), (5, "Verona"), (7, "core team")]
            .iter()
            .find(|(_, n)| n.eq_ignore_ascii_case(name))
            .map(|(id, n)| MentionChannel {
                id: *id,
                name: n.to_string(),
            })
    }
}

fn md(s: &str) -> String {
    render_message(s, &Realm).html
}

fn check(cases: &[(&str, &str)]) {
    for (input, want) in cases {
        assert_eq!(&md(input), want, "input: {input:?}");
    }
}

const CODE: &str = "<div class=\"codehilite\"><pre><span></span><code>";
const CODE_END: &str = "</code></pre></div>";

/// Inputs that could make a naive renderer slow.
fn adversarial() -> Vec<String> {
    vec![
        format!("http://a.com/{}x", "!".repeat(9_000)),
        "@**a ".repeat(2_000),
        "\\*".repeat(5_000),
        "(a.b.c ".repeat(1_400),
        ":a".repeat(5_000),
        "> ".repeat(5_000),
        "*a **b ".repeat(1_400),
        "[a](".repeat(2_500),
        "1. a\n  ".repeat(1_400),
        "#**x>y@1** ".repeat(900),
        "\u{1f468}\u{200d}".repeat(1_400),
    ]
}

mod blocks;
mod inline;
mod mentions;
mod safety;
