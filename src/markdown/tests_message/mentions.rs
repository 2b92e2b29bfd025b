//! Mentions and channel links: users, wildcards, groups, silent mentions in quotes, channels and topics.

use super::*;

#[test]
fn user_mentions() {
    check(&[
        (
            "@**King Hamlet**",
            "<p><span class=\"user-mention\" data-user-id=\"10\">@King Hamlet</span></p>",
        ),
        (
            "hi @**king hamlet**!",
            "<p>hi <span class=\"user-mention\" data-user-id=\"10\">@King Hamlet</span>!</p>",
        ),
        (
            "Silent mention: @_**Cordelia, Lear's daughter**",
            "<p>Silent mention: <span class=\"user-mention silent\" data-user-id=\"11\">Cordelia, Lear's daughter</span></p>",
        ),
        (
            "@**Mark Twin|13**",
            "<p><span class=\"user-mention\" data-user-id=\"13\">@Mark Twin</span></p>",
        ),
        (
            "@**|12**",
            "<p><span class=\"user-mention\" data-user-id=\"12\">@Mark Twin</span></p>",
        ),
        // The name must match the id's user.
        (
            "@**King Hamlet|13**",
            "<p>@<strong>King Hamlet|13</strong></p>",
        ),
        ("@**Nobody**", "<p>@<strong>Nobody</strong></p>"),
        (
            "mail@**King Hamlet**",
            "<p>mail@<strong>King Hamlet</strong></p>",
        ),
        (
            "(@**King Hamlet**)",
            "<p>(<span class=\"user-mention\" data-user-id=\"10\">@King Hamlet</span>)</p>",
        ),
        (
            "@**<b>Bold</b>**",
            "<p><span class=\"user-mention\" data-user-id=\"14\">@&lt;b&gt;Bold&lt;/b&gt;</span></p>",
        ),
        ("`@**King Hamlet**`", "<p><code>@**King Hamlet**</code></p>"),
        (
            "[@**King Hamlet** :octopus:](https://x.org)",
            "<p><a href=\"https://x.org\">@**King Hamlet** :octopus:</a></p>",
        ),
    ]);
    let r = render_message("@**King Hamlet** @_**Mark Twin|12** @**|13**", &Realm);
    assert_eq!(r.mentioned_users, BTreeSet::from([10, 13]));
    assert!(!r.channel_wildcard && !r.topic_wildcard);
    for quoted in [
        "```\n@**King Hamlet**\n```",
        "[@**King Hamlet**](https://x.org)",
    ] {
        let r = render_message(quoted, &Realm);
        assert!(r.mentioned_users.is_empty(), "{}", r.html);
    }
}

#[test]
fn each_name_is_looked_up_once() {
    struct Counting(std::cell::Cell<usize>);
    impl Lookup for Counting {
        fn users_by_name(&self, name: &str) -> Vec<MentionUser> {
            self.0.set(self.0.get() + 1);
            Realm.users_by_name(name)
        }
        fn user_by_id(&self, id: i64) -> Option<MentionUser> {
            self.0.set(self.0.get() + 1);
            Realm.user_by_id(id)
        }
        fn group_by_name(&self, name: &str) -> Option<MentionGroup> {
            self.0.set(self.0.get() + 1);
            Realm.group_by_name(name)
        }
        fn channel_by_name(&self, name: &str) -> Option<MentionChannel> {
            self.0.set(self.0.get() + 1);
            Realm.channel_by_name(name)
        }
    }
    let lookup = Counting(std::cell::Cell::new(0));
    let r = render_message(
        &"@**King Hamlet** @**Nobody** #**Verona** ".repeat(50),
        &lookup,
    );
    assert_eq!(lookup.0.get(), 3);
    assert_eq!(r.mentioned_users, BTreeSet::from([10]));
}

#[test]
fn wildcard_mentions() {
    for name in ["all", "everyone", "channel", "stream"] {
        let r = render_message(&format!("@**{name}**"), &Realm);
        assert_eq!(
            r.html,
            format!(
                "<p><span class=\"user-mention channel-wildcard-mention\" data-user-id=\"*\">@{name}</span></p>"
            )
        );
        assert!(r.channel_wildcard && !r.topic_wildcard);
    }
    let r = render_message("@**topic**", &Realm);
    assert_eq!(r.html, "<p><span class=\"topic-mention\">@topic</span></p>");
    assert!(r.topic_wildcard && !r.channel_wildcard);
    let r = render_message("@_**all** @_**topic**", &Realm);
    assert_eq!(
        r.html,
        "<p><span class=\"user-mention channel-wildcard-mention silent\" data-user-id=\"*\">all</span> <span class=\"topic-mention silent\">topic</span></p>"
    );
    assert!(!r.topic_wildcard && !r.channel_wildcard);
}

#[test]
fn group_mentions() {
    let r = render_message("@*hamletcharacters* and @_*Support Team*", &Realm);
    assert_eq!(
        r.html,
        "<p><span class=\"user-group-mention\" data-user-group-id=\"30\">@hamletcharacters</span> and <span class=\"user-group-mention silent\" data-user-group-id=\"31\">support team</span></p>"
    );
    assert_eq!(r.mentioned_groups, BTreeSet::from([30]));
    assert_eq!(md("@*nosuchgroup*"), "<p>@<em>nosuchgroup</em></p>");
}

#[test]
fn mentions_in_quotes_are_silent() {
    let r = render_message(
        "> Mention in quote: @**King Hamlet** @*hamletcharacters* @**all**\n\nMention outside quote: @**Mark Twin|12**",
        &Realm,
    );
    assert_eq!(
        r.html,
        "<blockquote>\n<p>Mention in quote: <span class=\"user-mention silent\" data-user-id=\"10\">King Hamlet</span> <span class=\"user-group-mention silent\" data-user-group-id=\"30\">hamletcharacters</span> <span class=\"user-mention channel-wildcard-mention silent\" data-user-id=\"*\">all</span></p>\n</blockquote>\n<p>Mention outside quote: <span class=\"user-mention\" data-user-id=\"12\">@Mark Twin</span></p>"
    );
    assert_eq!(r.mentioned_users, BTreeSet::from([12]));
    assert!(r.mentioned_groups.is_empty() && !r.channel_wildcard);
    let r = render_message("```quote\n@**King Hamlet**\n```", &Realm);
    assert!(r.html.contains("user-mention silent"), "{}", r.html);
    assert!(r.mentioned_users.is_empty());
}

#[test]
fn channel_and_topic_links() {
    check(&[
        (
            "#**announce**",
            "<p><a class=\"stream\" data-stream-id=\"9\" href=\"/#narrow/channel/9-announce\">#announce</a></p>",
        ),
        (
            "see #**core team**",
            "<p>see <a class=\"stream\" data-stream-id=\"7\" href=\"/#narrow/channel/7-core-team\">#core team</a></p>",
        ),
        (
            "#**announce>Zulip updates**",
            "<p><a class=\"stream-topic\" data-stream-id=\"9\" href=\"/#narrow/channel/9-announce/topic/Zulip.20updates\">#announce &gt; Zulip updates</a></p>",
        ),
        (
            "#**announce>Zulip updates@214**",
            "<p><a class=\"message-link\" href=\"/#narrow/channel/9-announce/topic/Zulip.20updates/near/214\">#announce &gt; Zulip updates @ 💬</a></p>",
        ),
        ("#**nowhere**", "<p>#<strong>nowhere</strong></p>"),
        (
            "#**Verona>lunch**",
            "<p><a class=\"stream-topic\" data-stream-id=\"5\" href=\"/#narrow/channel/5-Verona/topic/lunch/with/214\">#Verona &gt; lunch</a></p>",
        ),
        (
            "#**announce>**",
            "<p><a class=\"stream-topic\" data-stream-id=\"9\" href=\"/#narrow/channel/9-announce/topic/\">#announce &gt; <em>general chat</em></a></p>",
        ),
        (
            "#**announce>@214**",
            "<p><a class=\"message-link\" href=\"/#narrow/channel/9-announce/topic//near/214\">#announce &gt; <em>general chat</em> @ 💬</a></p>",
        ),
        (
            "#**Verona>my topic (1.0)**",
            "<p><a class=\"stream-topic\" data-stream-id=\"5\" href=\"/#narrow/channel/5-Verona/topic/my.20topic.20.281.2E0.29\">#Verona &gt; my topic (1.0)</a></p>",
        ),
    ]);
}
