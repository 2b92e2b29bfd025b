//! Incoming webhooks (`POST /api/v1/external/{integration}`) as tools use them: an
//! incoming-webhook bot's `api_key` in the query string, `stream` by name or id, `topic`,
//! a direct message to the bot's owner without `stream`; upstream's answers for bad keys,
//! deactivated bots and bad payloads, each storing nothing; bodies bounded in size.
//!
//! The formatting tables restate upstream's recorded fixtures for the `slack_incoming` and
//! `json` integrations (zulip/zulip, `zerver/webhooks/{slack_incoming,json}/`, Apache-2.0):
//! the same payload structures with our own values, each with the message upstream's
//! formatting gives for it.

use serde_json::{Value, json};

use crate::support::{Org, Reply, TestUser, basic, body, org, org_with, raw};

/// An incoming-webhook bot of `owner`'s: (user id, API key).
async fn hook_bot(o: &Org, owner: &TestUser, short: &str) -> (i64, String) {
    let r = o
        .srv
        .post(
            "/api/v1/bots",
            owner,
            &[
                ("full_name", &format!("{short} hook")),
                ("short_name", short),
                ("bot_type", "2"),
            ],
        )
        .await;
    let b = r.assert_success("POST /bots");
    (
        b["user_id"].as_i64().unwrap(),
        b["api_key"].as_str().unwrap().to_string(),
    )
}

/// Posts `payload` to an integration with these query parameters.
async fn post(
    o: &Org,
    integration: &str,
    query: &[(&str, &str)],
    ctype: &str,
    payload: &str,
) -> Reply {
    let q: String = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(query)
        .finish();
    let req = raw(
        hyper::Method::POST,
        &format!("/api/v1/external/{integration}?{q}"),
    )
    .header("content-type", ctype)
    .body(body(payload.to_string()))
    .unwrap();
    o.srv.send(req).await
}

#[track_caller]
fn success(r: &Reply) {
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body, json!({"result": "success", "msg": ""}));
}

#[track_caller]
fn error(r: &Reply, status: u16, code: &str, msg: &str) {
    r.assert_error(status, code);
    assert_eq!(r.body["msg"], msg, "{}", r.body);
}

/// The newest message `who` can see, with its Markdown source.
async fn newest(o: &Org, who: &TestUser) -> Value {
    o.raw_messages(who, json!([]), 1)
        .await
        .pop()
        .unwrap_or(Value::Null)
}

/// Upstream's default topic "(no topic)" is stored as the empty topic (as upstream's send path
/// does), which clients that do not ask for empty topic names see as "general chat".
fn stored_topic(t: &str) -> &str {
    if t == "(no topic)" { "general chat" } else { t }
}

/// (fixture, payload, topic, message) restating upstream's `slack_incoming` fixtures.
const SLACK_FIXTURES: &[(&str, &str, &str, &str)] = &[
    (
        "text",
        r##"{
  "text": "The nightly build passed."
}"##,
        "(no topic)",
        "The nightly build passed.",
    ),
    (
        "actions",
        r##"{
  "channel": "C07QX2TR1",
  "blocks": [
    {
      "type": "section",
      "text": {
        "type": "mrkdwn",
        "text": "Maria Lopez left the following _comment_ on your listing:"
      }
    },
    {
      "type": "section",
      "block_id": "b2",
      "text": {
        "type": "mrkdwn",
        "text": "<https://listings.example.org/42|Seaside Cabin> \n :star: \n The view was lovely, the stairs were steep and the kettle whistled all night."
      },
      "accessory": {
        "type": "image",
        "image_url": "https://images.example.net/cabin/front_512.jpg",
        "alt_text": "Cabin front"
      }
    },
    {
      "type": "section",
      "block_id": "b3",
      "fields": [
        {
          "type": "mrkdwn",
          "text": "*Average Rating*\n4.0"
        }
      ]
    },
    {
      "type": "actions",
      "elements": [
        {
          "type": "button",
          "text": {
            "type": "plain_text",
            "text": "Reply",
            "emoji": false
          }
        }
      ]
    }
  ]
}"##,
        "C07QX2TR1",
        "Maria Lopez left the following *comment* on your listing:\n\n[Seaside Cabin](https://listings.example.org/42) \n :star: \n The view was lovely, the stairs were steep and the kettle whistled all night.\n\n[Cabin front](https://images.example.net/cabin/front_512.jpg)\n\n**Average Rating**\n4.0",
    ),
    (
        "blocks",
        r##"{
  "blocks": [
    {
      "type": "section",
      "text": {
        "type": "mrkdwn",
        "text": "Maria Lopez left the following comment on your listing:"
      }
    },
    {
      "type": "section",
      "text": {
        "type": "mrkdwn",
        "text": "<https://listings.example.org/42|Seaside Cabin> \n :star: \n Quiet nights."
      },
      "accessory": {
        "type": "image",
        "image_url": "https://images.example.net/cabin/front_512.jpg",
        "alt_text": "Cabin front"
      }
    },
    {
      "type": "section",
      "fields": [
        {
          "type": "mrkdwn",
          "text": "*Average Rating*\n4.0"
        }
      ]
    }
  ]
}"##,
        "(no topic)",
        "Maria Lopez left the following comment on your listing:\n\n[Seaside Cabin](https://listings.example.org/42) \n :star: \n Quiet nights.\n\n[Cabin front](https://images.example.net/cabin/front_512.jpg)\n\n**Average Rating**\n4.0",
    ),
    (
        "attachment",
        r##"{
  "channel": "#alerts-prod",
  "username": "Alertmanager",
  "blocks": null,
  "attachments": [
    {
      "title": "[FIRING:2] DiskFull for db (env=\"prod\", severity=\"warning\")",
      "title_link": "https://alerts.example.com//#/alerts?receiver=ops",
      "text": ":chart_with_upwards_trend: *<https://grafana.example.com/d/7|Graph>*   :notebook: *<https://runbooks.example.com/disk|Runbook>*\n\n*Alert details*:\n*Alert:* disk almost full - `warning`\n*Description:* db-1 has 3% free *Details:*\n   • *alertname:* `DiskFull`\n   • *instance:* `db-1:9100`\n\n*Alert:* disk almost full - `warning`\n*Description:* db-2 has 4% free *Details:*\n   • *alertname:* `DiskFull`\n   • *instance:* `db-2:9100`\n  \n",
      "fallback": "[FIRING:2] DiskFull db (prod warning) | https://alerts.example.com//#/alerts?receiver=ops",
      "callback_id": "",
      "footer": "",
      "color": "danger",
      "mrkdwn_in": [
        "fallback",
        "pretext",
        "text"
      ]
    }
  ]
}"##,
        "alerts-prod",
        "## [[FIRING:2] DiskFull for db (env=\"prod\", severity=\"warning\")](https://alerts.example.com//#/alerts?receiver=ops)\n\n:chart_with_upwards_trend: **[Graph](https://grafana.example.com/d/7)**   :notebook: **[Runbook](https://runbooks.example.com/disk)**\n\n**Alert details**:\n**Alert:** disk almost full - `warning`\n**Description:** db-1 has 3% free **Details:**\n   • **alertname:** `DiskFull`\n   • **instance:** `db-1:9100`\n\n**Alert:** disk almost full - `warning`\n**Description:** db-2 has 4% free **Details:**\n   • **alertname:** `DiskFull`\n   • **instance:** `db-2:9100`",
    ),
    (
        "complicated",
        r##"{
  "blocks": [
    {
      "type": "header",
      "text": {
        "type": "plain_text",
        "text": "Hello from ChoreBot",
        "emoji": true
      }
    },
    {
      "type": "section",
      "text": {
        "type": "mrkdwn",
        "text": "Hi 👋 I'm ChoreBot. I keep track of chores.\nYou can add chores in two ways:"
      }
    },
    {
      "type": "section",
      "text": {
        "type": "mrkdwn",
        "text": "*1️⃣ Use the `/chore` command*. Type `/chore` and a short description, and I'll ask when it is due."
      }
    },
    {
      "type": "section",
      "text": {
        "type": "mrkdwn",
        "text": "*2️⃣ Use the _Add a Chore_ action.* Pick `Add a Chore` from a message's menu, or try the _Add a Chore_ action below."
      }
    },
    {
      "type": "image",
      "title": {
        "type": "plain_text",
        "text": "diagram",
        "emoji": true
      },
      "image_url": "https://images.example.net/chores/diagram.png",
      "alt_text": "diagram"
    },
    {
      "type": "section",
      "text": {
        "type": "mrkdwn",
        "text": "➕ To share chores, *invite me to a channel*. Type `/invite @ChoreBot` there."
      },
      "accessory": {
        "type": "conversations_select",
        "placeholder": {
          "type": "plain_text",
          "text": "Pick a channel...",
          "emoji": true
        }
      }
    },
    {
      "type": "input",
      "element": {
        "type": "plain_text_input",
        "action_id": "chore-input"
      },
      "label": {
        "type": "plain_text",
        "text": "Write a chore:",
        "emoji": true
      }
    },
    {
      "type": "divider"
    },
    {
      "type": "context",
      "elements": [
        {
          "type": "image",
          "image_url": "https://images.example.net/avatars/owl_200x200.png",
          "alt_text": "sleepy owl"
        },
        {
          "type": "mrkdwn",
          "text": "👀 See all chores with `/chore list`"
        },
        {
          "type": "mrkdwn",
          "text": "❓Help is always there:\n- `/chore help`, or\n- type *help* in a direct message"
        }
      ]
    }
  ]
}"##,
        "(no topic)",
        "## Hello from ChoreBot\n\nHi 👋 I'm ChoreBot. I keep track of chores.\nYou can add chores in two ways:\n\n**1️⃣ Use the `/chore` command**. Type `/chore` and a short description, and I'll ask when it is due.\n\n**2️⃣ Use the *Add a Chore* action.** Pick `Add a Chore` from a message's menu, or try the *Add a Chore* action below.\n\n[diagram](https://images.example.net/chores/diagram.png)\n\n➕ To share chores, **invite me to a channel**. Type `/invite @ChoreBot` there.\n\n----\n\n[sleepy owl](https://images.example.net/avatars/owl_200x200.png)\n\n👀 See all chores with `/chore list`\n\n❓Help is always there:\n- `/chore help`, or\n- type **help** in a direct message",
    ),
    (
        "attachment_blocks",
        r##"{
  "attachments": [
    {
      "blocks": [
        {
          "type": "section",
          "text": {
            "type": "mrkdwn",
            "text": "A section with an image beside it."
          },
          "accessory": {
            "type": "image",
            "image_url": "https://images.example.net/avatars/owl_200x200.png",
            "alt_text": "sleepy owl"
          }
        },
        {
          "type": "section",
          "text": {
            "type": "mrkdwn",
            "text": "A section with a button beside it."
          },
          "accessory": {
            "type": "button",
            "text": {
              "type": "plain_text",
              "text": "Press",
              "emoji": true
            },
            "value": "press_1",
            "action_id": "press"
          }
        },
        {
          "type": "section",
          "fields": [
            {
              "type": "plain_text",
              "text": "red",
              "emoji": true
            },
            {
              "type": "plain_text",
              "text": "green",
              "emoji": true
            },
            {
              "type": "plain_text",
              "text": "blue",
              "emoji": true
            },
            {
              "type": "plain_text",
              "text": "cyan",
              "emoji": true
            },
            {
              "type": "plain_text",
              "text": "pink",
              "emoji": true
            }
          ]
        }
      ]
    }
  ]
}"##,
        "(no topic)",
        "A section with an image beside it.\n\n[sleepy owl](https://images.example.net/avatars/owl_200x200.png)\n\nA section with a button beside it.\n\n| | |\n|-|-|\n| red | green |\n| blue | cyan |\n| pink |  |",
    ),
    (
        "attachment_fields",
        r##"{
  "attachments": [
    {
      "color": "good",
      "fields": [
        {
          "title": "Started by",
          "value": "Some person",
          "short": true
        },
        {
          "title": "Took",
          "value": "00:04:10",
          "short": true
        },
        {
          "title": "Pipeline",
          "value": "PaymentsService",
          "short": true
        },
        {
          "title": "Heading with a null value",
          "value": null,
          "short": true
        },
        {
          "title": "Heading without a value",
          "short": true
        },
        {
          "title": null,
          "value": "Value with a null heading",
          "short": true
        },
        {
          "value": "Value without a heading",
          "short": true
        },
        {
          "title": null,
          "value": null,
          "short": true
        }
      ],
      "pretext": "Build 118 of the payments service passed",
      "mrkdwn_in": [
        "pretext"
      ],
      "fallback": "Build 118 passed"
    }
  ]
}"##,
        "(no topic)",
        "Build 118 of the payments service passed\n\n**Started by**: Some person\n**Took**: 00:04:10\n**Pipeline**: PaymentsService\n**Heading with a null value**\n**Heading without a value**\nValue with a null heading\nValue without a heading",
    ),
    (
        "attachment_pieces",
        r##"{
  "attachments": [
    {
      "title": "Weekly report",
      "image_url": "https://images.example.net/avatars/owl_200x200.png",
      "ts": 1700000000
    }
  ]
}"##,
        "(no topic)",
        "## Weekly report\n\n[](https://images.example.net/avatars/owl_200x200.png)\n\n<time:1700000000>",
    ),
    (
        "attachment_pieces_title_null",
        r##"{
  "attachments": [
    {
      "title": null,
      "title_link": "https://www.example.org",
      "pretext": "A pretext.",
      "text": "A text.",
      "image_url": "https://images.example.net/avatars/owl_200x200.png",
      "footer": "A footer.",
      "ts": 1700000000
    }
  ]
}"##,
        "(no topic)",
        "A pretext.\n\nA text.\n\n[](https://images.example.net/avatars/owl_200x200.png)\n\nA footer.\n\n<time:1700000000>",
    ),
    (
        "attachment_pieces_image_url_null",
        r##"{
  "attachments": [
    {
      "title": "A title.",
      "title_link": "https://www.example.org",
      "pretext": "A pretext.",
      "text": "A text.",
      "image_url": null,
      "footer": "A footer.",
      "ts": 1700000000
    }
  ]
}"##,
        "(no topic)",
        "## [A title.](https://www.example.org)\n\nA pretext.\n\nA text.\n\nA footer.\n\n<time:1700000000>",
    ),
    (
        "attachment_pieces_ts_null",
        r##"{
  "attachments": [
    {
      "title": "A title.",
      "title_link": "https://www.example.org",
      "pretext": "A pretext.",
      "text": "A text.",
      "image_url": "https://images.example.net/avatars/owl_200x200.png",
      "footer": "A footer.",
      "ts": null
    }
  ]
}"##,
        "(no topic)",
        "## [A title.](https://www.example.org)\n\nA pretext.\n\nA text.\n\n[](https://images.example.net/avatars/owl_200x200.png)\n\nA footer.",
    ),
    (
        "attachment_pieces_text_null",
        r##"{
  "attachments": [
    {
      "title": "A title.",
      "title_link": "https://www.example.org",
      "pretext": "A pretext.",
      "text": null,
      "image_url": "https://images.example.net/avatars/owl_200x200.png",
      "footer": "A footer.",
      "ts": 1700000000
    }
  ]
}"##,
        "(no topic)",
        "## [A title.](https://www.example.org)\n\nA pretext.\n\n[](https://images.example.net/avatars/owl_200x200.png)\n\nA footer.\n\n<time:1700000000>",
    ),
    (
        "attachment_pieces_pretext_null",
        r##"{
  "attachments": [
    {
      "title": "A title.",
      "title_link": "https://www.example.org",
      "pretext": null,
      "text": "A text.",
      "image_url": "https://images.example.net/avatars/owl_200x200.png",
      "footer": "A footer.",
      "ts": 1700000000
    }
  ]
}"##,
        "(no topic)",
        "## [A title.](https://www.example.org)\n\nA text.\n\n[](https://images.example.net/avatars/owl_200x200.png)\n\nA footer.\n\n<time:1700000000>",
    ),
    (
        "attachment_pieces_footer_null",
        r##"{
  "attachments": [
    {
      "title": "A title.",
      "title_link": "https://www.example.org",
      "pretext": "A pretext.",
      "text": "A text.",
      "image_url": "https://images.example.net/avatars/owl_200x200.png",
      "footer": null,
      "ts": 1700000000
    }
  ]
}"##,
        "(no topic)",
        "## [A title.](https://www.example.org)\n\nA pretext.\n\nA text.\n\n[](https://images.example.net/avatars/owl_200x200.png)\n\n<time:1700000000>",
    ),
    (
        "attachment_pieces_title_link_null",
        r##"{
  "attachments": [
    {
      "title": "A title.",
      "title_link": null,
      "pretext": "A pretext.",
      "text": "A text.",
      "image_url": "https://images.example.net/avatars/owl_200x200.png",
      "footer": "A footer.",
      "ts": 1700000000
    }
  ]
}"##,
        "(no topic)",
        "## A title.\n\nA pretext.\n\nA text.\n\n[](https://images.example.net/avatars/owl_200x200.png)\n\nA footer.\n\n<time:1700000000>",
    ),
];

/// (fixture, payload, message) restating upstream's `json` fixtures (a push, an uptime check,
/// an error report), each shown as `json.dumps(payload, indent=2)` does.
const JSON_FIXTURES: &[(&str, &str, &str)] = &[
    (
        "push",
        r##"{"ref": "refs/heads/main", "before": "6f1a2b3c", "after": "9e8d7c6b", "repository": {"id": 4242, "name": "garden", "full_name": "ana/garden", "private": false, "owner": {"name": "ana", "email": null}}, "pusher": {"name": "ana", "email": "ana@example.org"}, "commits": [{"id": "9e8d7c6b", "message": "Water the ferns\n\nTwice a week.", "timestamp": "2026-03-01T10:00:00+01:00", "added": [], "removed": [], "modified": ["ferns.md"], "distinct": true}], "head_commit": null}"##,
        "```json\n{\n  \"ref\": \"refs/heads/main\",\n  \"before\": \"6f1a2b3c\",\n  \"after\": \"9e8d7c6b\",\n  \"repository\": {\n    \"id\": 4242,\n    \"name\": \"garden\",\n    \"full_name\": \"ana/garden\",\n    \"private\": false,\n    \"owner\": {\n      \"name\": \"ana\",\n      \"email\": null\n    }\n  },\n  \"pusher\": {\n    \"name\": \"ana\",\n    \"email\": \"ana@example.org\"\n  },\n  \"commits\": [\n    {\n      \"id\": \"9e8d7c6b\",\n      \"message\": \"Water the ferns\\n\\nTwice a week.\",\n      \"timestamp\": \"2026-03-01T10:00:00+01:00\",\n      \"added\": [],\n      \"removed\": [],\n      \"modified\": [\n        \"ferns.md\"\n      ],\n      \"distinct\": true\n    }\n  ],\n  \"head_commit\": null\n}\n```",
    ),
    (
        "uptime",
        r##"{"check_id": 1234567, "check_name": "Shop front page", "check_type": "HTTP", "check_params": {"hostname": "shop.example.com", "port": 443, "encryption": true, "url": "/", "header": "User-Agent:Monitor/1.0"}, "tags": [], "previous_state": "UP", "current_state": "DOWN", "state_changed_timestamp": 1700000000, "long_description": "Timeout (> 30000 ms)", "importance_level": "HIGH", "response_time": 30000.0, "ratio": 0.995}"##,
        "```json\n{\n  \"check_id\": 1234567,\n  \"check_name\": \"Shop front page\",\n  \"check_type\": \"HTTP\",\n  \"check_params\": {\n    \"hostname\": \"shop.example.com\",\n    \"port\": 443,\n    \"encryption\": true,\n    \"url\": \"/\",\n    \"header\": \"User-Agent:Monitor/1.0\"\n  },\n  \"tags\": [],\n  \"previous_state\": \"UP\",\n  \"current_state\": \"DOWN\",\n  \"state_changed_timestamp\": 1700000000,\n  \"long_description\": \"Timeout (> 30000 ms)\",\n  \"importance_level\": \"HIGH\",\n  \"response_time\": 30000.0,\n  \"ratio\": 0.995\n}\n```",
    ),
    (
        "error_event",
        r##"{"id": "51f1e0f2", "project": "café-web", "level": "error", "culprit": "app/checkout.js in submit", "message": "TypeError: Cannot read properties of undefined (reading 'total') — «checkout»", "event": {"platform": "javascript", "timestamp": 1700000000.25, "exception": {"values": [{"type": "TypeError", "stacktrace": {"frames": [{"filename": "checkout.js", "lineno": 77, "colno": 12, "in_app": true}]}}]}, "tags": [["browser", "Firefox 120"], ["url", "https://shop.example.com/checkout"]], "extra": {}, "fingerprint": ["{{ default }}"], "weight": 1e-05, "big": 1e+16}}"##,
        "```json\n{\n  \"id\": \"51f1e0f2\",\n  \"project\": \"caf\\u00e9-web\",\n  \"level\": \"error\",\n  \"culprit\": \"app/checkout.js in submit\",\n  \"message\": \"TypeError: Cannot read properties of undefined (reading 'total') \\u2014 \\u00abcheckout\\u00bb\",\n  \"event\": {\n    \"platform\": \"javascript\",\n    \"timestamp\": 1700000000.25,\n    \"exception\": {\n      \"values\": [\n        {\n          \"type\": \"TypeError\",\n          \"stacktrace\": {\n            \"frames\": [\n              {\n                \"filename\": \"checkout.js\",\n                \"lineno\": 77,\n                \"colno\": 12,\n                \"in_app\": true\n              }\n            ]\n          }\n        }\n      ]\n    },\n    \"tags\": [\n      [\n        \"browser\",\n        \"Firefox 120\"\n      ],\n      [\n        \"url\",\n        \"https://shop.example.com/checkout\"\n      ]\n    ],\n    \"extra\": {},\n    \"fingerprint\": [\n      \"{{ default }}\"\n    ],\n    \"weight\": 1e-05,\n    \"big\": 1e+16\n  }\n}\n```",
    ),
];

/// The usual setup: a channel `alerts` with Alice in it, and Alice's incoming-webhook bot.
async fn setup() -> (Org, i64, i64, String) {
    let o = org().await;
    let channel = o.channel(&o.alice, "alerts", &[&o.alice], &[]).await;
    let (bot_id, key) = hook_bot(&o, &o.alice, "alerts").await;
    (o, channel, bot_id, key)
}

#[tokio::test]
async fn each_slack_fixture_posts_upstreams_message() {
    let (o, _, bot_id, key) = setup().await;
    for (name, payload, topic, message) in SLACK_FIXTURES {
        let r = post(
            &o,
            "slack_incoming",
            &[("api_key", &key), ("stream", "alerts")],
            "application/json",
            payload,
        )
        .await;
        success(&r);
        let m = newest(&o, &o.alice).await;
        assert_eq!(m["content"], *message, "{name}");
        assert_eq!(m["subject"], stored_topic(topic), "{name}");
        assert_eq!(m["sender_id"], bot_id, "{name}");
        assert_eq!(m["display_recipient"], "alerts", "{name}");
        assert_eq!(m["client"], "ZulipSlackIncomingWebhook", "{name}");
    }
}

#[tokio::test]
async fn slack_formatting_converts_bold_and_italic_as_upstream() {
    let (o, _, _, key) = setup().await;
    for (input, output) in [
        ("some *foo* word", "some **foo** word"),
        ("*foo*", "**foo**"),
        ("*foo* *bar*", "**foo** **bar**"),
        ("*foo*a*bar*", "*foo*a*bar*"),
        ("some _foo_ word", "some *foo* word"),
    ] {
        let payload = json!({ "text": input }).to_string();
        let q = [("api_key", key.as_str()), ("stream", "alerts")];
        success(&post(&o, "slack_incoming", &q, "application/json", &payload).await);
        assert_eq!(newest(&o, &o.alice).await["content"], output, "{input}");
    }
}

#[tokio::test]
async fn a_form_encoded_slack_payload_is_read_from_its_payload_field() {
    let (o, _, _, key) = setup().await;
    let payload = json!({
        "username": "ShipBot",
        "icon_url": "https://images.example.net/ship.png",
        "icon_emoji": ":rocket:",
        "text": "ana has started deploying release v1.4.0rc2 to staging",
        "channel": "#ops",
    })
    .to_string();
    let form: String = form_urlencoded::Serializer::new(String::new())
        .append_pair("payload", &payload)
        .finish();
    let q = [("api_key", key.as_str()), ("stream", "alerts")];
    let r = post(
        &o,
        "slack_incoming",
        &q,
        "application/x-www-form-urlencoded",
        &form,
    )
    .await;
    success(&r);
    let m = newest(&o, &o.alice).await;
    assert_eq!(
        m["content"],
        ":rocket: ana has started deploying release v1.4.0rc2 to staging"
    );
    assert_eq!(m["subject"], "ops");

    // Without the field: upstream's missing-argument error, nothing posted.
    let before = m["id"].clone();
    let r = post(
        &o,
        "slack_incoming",
        &q,
        "application/x-www-form-urlencoded",
        "text=hi",
    )
    .await;
    error(
        &r,
        400,
        "REQUEST_VARIABLE_MISSING",
        "Missing 'payload' argument",
    );
    assert_eq!(newest(&o, &o.alice).await["id"], before);
}

#[tokio::test]
async fn payloads_that_render_to_nothing_post_nothing() {
    let (o, _, _, key) = setup().await;
    let before = newest(&o, &o.alice).await["id"].clone();
    let q = [("api_key", key.as_str()), ("stream", "alerts")];
    for payload in [
        r##"{"text": null}"##,
        r##"{"attachments": [{"title": null, "title_link": null, "image_url": null, "ts": null, "text": null, "pretext": null, "footer": null}]}"##,
        r##"{"blocks": [{"type": "actions", "elements": []}, {"type": "input"}], "text": ""}"##,
    ] {
        success(&post(&o, "slack_incoming", &q, "application/json", payload).await);
    }
    assert_eq!(newest(&o, &o.alice).await["id"], before);
}

#[tokio::test]
async fn each_json_fixture_posts_the_payload_as_a_code_block() {
    let (o, _, bot_id, key) = setup().await;
    for (name, payload, message) in JSON_FIXTURES {
        let q = [("api_key", key.as_str()), ("stream", "alerts")];
        success(&post(&o, "json", &q, "application/json", payload).await);
        let m = newest(&o, &o.alice).await;
        assert_eq!(m["content"], *message, "{name}");
        assert_eq!(m["subject"], "JSON", "{name}");
        assert_eq!(m["sender_id"], bot_id, "{name}");
        assert_eq!(m["client"], "ZulipJSONWebhook", "{name}");
    }
    // `topic` overrides the integration's topic.
    let q = [
        ("api_key", key.as_str()),
        ("stream", "alerts"),
        ("topic", "builds"),
    ];
    success(&post(&o, "json", &q, "application/json", r#"{"ok": true}"#).await);
    let m = newest(&o, &o.alice).await;
    assert_eq!(m["subject"], "builds");
    assert_eq!(m["content"], "```json\n{\n  \"ok\": true\n}\n```");
}

#[tokio::test]
async fn stream_by_name_or_id_topic_parameter_and_direct_message_to_the_owner() {
    let (o, channel, bot_id, key) = setup().await;
    let text = r##"{"text": "hello", "channel": "#from-payload"}"##;
    let id = channel.to_string();
    let q = [("api_key", key.as_str()), ("stream", id.as_str())];
    success(&post(&o, "slack_incoming", &q, "application/json", text).await);
    let m = newest(&o, &o.alice).await;
    assert_eq!(
        (m["display_recipient"].clone(), m["subject"].clone()),
        (json!("alerts"), json!("from-payload"))
    );

    let q = [
        ("api_key", key.as_str()),
        ("stream", "alerts"),
        ("topic", "chosen"),
    ];
    success(&post(&o, "slack_incoming", &q, "application/json", text).await);
    assert_eq!(newest(&o, &o.alice).await["subject"], "chosen");

    // Without `stream`: a direct message from the bot to its owner.
    let q = [("api_key", key.as_str())];
    success(
        &post(
            &o,
            "slack_incoming",
            &q,
            "application/json",
            r#"{"text": "psst"}"#,
        )
        .await,
    );
    let m = newest(&o, &o.alice).await;
    assert_eq!(m["type"], "private");
    assert_eq!(m["sender_id"], bot_id);
    assert_eq!(m["content"], "psst");
    let mut to: Vec<i64> = m["display_recipient"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["id"].as_i64().unwrap())
        .collect();
    to.sort();
    assert_eq!(to, {
        let mut v = vec![o.alice.id, bot_id];
        v.sort();
        v
    });
}

#[tokio::test]
async fn keys_are_checked_before_anything_else_with_upstreams_answers() {
    let (o, _, bot_id, key) = setup().await;
    let before = newest(&o, &o.alice).await["id"].clone();
    let text = r#"{"text": "hello"}"#;
    let r = post(
        &o,
        "slack_incoming",
        &[("stream", "alerts")],
        "application/json",
        text,
    )
    .await;
    error(
        &r,
        400,
        "REQUEST_VARIABLE_MISSING",
        "Missing 'api_key' argument",
    );
    let r = post(
        &o,
        "slack_incoming",
        &[("api_key", "short"), ("stream", "alerts")],
        "application/json",
        text,
    )
    .await;
    error(&r, 401, "INVALID_API_KEY", "Malformed API key");
    let wrong = "X".repeat(32);
    let r = post(
        &o,
        "json",
        &[("api_key", &wrong), ("stream", "alerts")],
        "application/json",
        text,
    )
    .await;
    error(&r, 401, "INVALID_API_KEY", "Invalid API key");
    // A deactivated bot.
    o.srv
        .delete(&format!("/api/v1/bots/{bot_id}"), &o.alice, &[])
        .await
        .assert_success("DELETE /bots/{bot_id}");
    let r = post(
        &o,
        "slack_incoming",
        &[("api_key", &key), ("stream", "alerts")],
        "application/json",
        text,
    )
    .await;
    error(&r, 401, "USER_DEACTIVATED", "Account is deactivated");
    assert_eq!(newest(&o, &o.alice).await["id"], before);
}

#[tokio::test]
async fn webhook_bots_use_only_webhooks_and_send_and_any_account_may_post_through_one() {
    let (o, _, bot_id, key) = setup().await;
    let bot_email = o
        .srv
        .get(&format!("/api/v1/users/{bot_id}"), &o.alice, &[])
        .await
        .body["user"]["email"]
        .as_str()
        .unwrap()
        .to_string();
    // The bot's key on another endpoint: upstream's refusal.
    let r = o
        .srv
        .send(
            raw(hyper::Method::GET, "/api/v1/users/me")
                .header("authorization", basic(&bot_email, &key))
                .body(body(""))
                .unwrap(),
        )
        .await;
    error(
        &r,
        401,
        "UNAUTHORIZED",
        "This API is not available to incoming webhook bots.",
    );
    // Except `POST /messages`, which upstream opens to them.
    let form = "type=stream&to=alerts&topic=direct&content=sent+as+a+message";
    let req = raw(hyper::Method::POST, "/api/v1/messages")
        .header("authorization", basic(&bot_email, &key))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body(form))
        .unwrap();
    o.srv.send(req).await.assert_success("POST /messages");
    let m = newest(&o, &o.alice).await;
    assert_eq!(
        (m["sender_id"].as_i64(), m["content"].as_str()),
        (Some(bot_id), Some("sent as a message"))
    );
    // Basic authentication works on the webhook itself.
    let req = raw(
        hyper::Method::POST,
        "/api/v1/external/slack_incoming?stream=alerts",
    )
    .header("authorization", basic(&bot_email, &key))
    .header("content-type", "application/json")
    .body(body(r#"{"text": "over basic"}"#))
    .unwrap();
    success(&o.srv.send(req).await);
    assert_eq!(newest(&o, &o.alice).await["content"], "over basic");
    // A generic bot's key works too, writing to its owner without `stream`.
    let r = o
        .srv
        .post(
            "/api/v1/bots",
            &o.bob,
            &[("full_name", "Bob's helper"), ("short_name", "helper")],
        )
        .await;
    let generic = r.assert_success("POST /bots").clone();
    let q = [("api_key", generic["api_key"].as_str().unwrap())];
    success(&post(&o, "json", &q, "application/json", r#"{"to": "bob"}"#).await);
    let m = newest(&o, &o.bob).await;
    assert_eq!(m["type"], "private");
    assert_eq!(m["sender_id"], generic["user_id"]);
    assert_eq!(m["content"], "```json\n{\n  \"to\": \"bob\"\n}\n```");
    // A person's key posts as that person; without `stream` there is no owner to write to.
    let q = [("api_key", o.alice.api_key.as_str()), ("stream", "alerts")];
    success(&post(&o, "json", &q, "application/json", r#"{"by": "alice"}"#).await);
    assert_eq!(newest(&o, &o.alice).await["sender_id"], o.alice.id);
    let q = [("api_key", o.alice.api_key.as_str())];
    let r = post(&o, "json", &q, "application/json", r#"{"by": "alice"}"#).await;
    error(
        &r,
        400,
        "REQUEST_VARIABLE_MISSING",
        "Missing 'stream' argument",
    );
}

#[tokio::test]
async fn bad_payloads_get_upstreams_errors_and_post_nothing() {
    let (o, _, _, key) = setup().await;
    let before = newest(&o, &o.alice).await["id"].clone();
    let q = [("api_key", key.as_str()), ("stream", "alerts")];
    let deep = format!("{{\"a\": {}{}}}", "[".repeat(5000), "]".repeat(5000));
    for (integration, payload, code, msg) in [
        ("slack_incoming", "{", "INVALID_JSON", "Malformed JSON"),
        (
            "slack_incoming",
            deep.as_str(),
            "INVALID_JSON",
            "Malformed JSON",
        ),
        ("json", "not json", "INVALID_JSON", "Malformed JSON"),
        ("json", "", "INVALID_JSON", "Malformed JSON"),
        ("json", deep.as_str(), "INVALID_JSON", "Malformed JSON"),
        ("json", "[1, 2]", "BAD_REQUEST", "payload is not a dict"),
        (
            "slack_incoming",
            "[1, 2]",
            "BAD_REQUEST",
            "payload is not a dict",
        ),
        (
            "slack_incoming",
            r#"{"text": 5}"#,
            "BAD_REQUEST",
            "payload['text'] is not a string",
        ),
        (
            "slack_incoming",
            r#"{"channel": null, "text": "x"}"#,
            "BAD_REQUEST",
            "payload['channel'] is not a string",
        ),
        (
            "slack_incoming",
            r#"{"blocks": [{"type": "video"}]}"#,
            "BAD_REQUEST",
            "Invalid payload['blocks'][0]['type']",
        ),
        (
            "slack_incoming",
            r#"{"blocks": {"type": "divider"}}"#,
            "BAD_REQUEST",
            "payload['blocks'] is not a list",
        ),
        (
            "slack_incoming",
            r#"{"blocks": [{"type": "header"}]}"#,
            "BAD_REQUEST",
            "payload['blocks'][0]['text'] is missing",
        ),
        (
            "slack_incoming",
            r#"{"blocks": [{"type": "header", "text": {"type": "mrkdwn", "text": "x"}}]}"#,
            "BAD_REQUEST",
            "Invalid payload['blocks'][0]['text'][\"type\"]",
        ),
        (
            "slack_incoming",
            r#"{"blocks": [{"type": "image", "image_url": "/x.png", "alt_text": "x"}]}"#,
            "BAD_REQUEST",
            "payload['blocks'][0]['image_url'] is not a URL",
        ),
        (
            "slack_incoming",
            r#"{"attachments": [{"ts": "yesterday"}]}"#,
            "BAD_REQUEST",
            "payload['attachments'][0]['ts'] is not an integer",
        ),
        (
            "slack_incoming",
            r#"{"attachments": [{"fields": [{"title": 1}]}]}"#,
            "BAD_REQUEST",
            "payload['attachments'][0]['fields'][0]['title'] is not a string",
        ),
    ] {
        let r = post(&o, integration, &q, "application/json", payload).await;
        error(&r, 400, code, msg);
    }
    // Not UTF-8, and event filters that are not lists of strings.
    let req = raw(
        hyper::Method::POST,
        &format!("/api/v1/external/slack_incoming?api_key={key}&stream=alerts"),
    )
    .header("content-type", "application/json")
    .body(body(&b"{\"text\": \"\xff\"}"[..]))
    .unwrap();
    error(
        &o.srv.send(req).await,
        400,
        "BAD_REQUEST",
        "Malformed payload",
    );
    let q2 = [
        ("api_key", key.as_str()),
        ("stream", "alerts"),
        ("only_events", "[1]"),
    ];
    let r = post(&o, "json", &q2, "application/json", "{}").await;
    error(&r, 400, "BAD_REQUEST", "only_events[0] is not a string");
    // A channel that does not exist is named, as `POST /messages` names it.
    let q3 = [("api_key", key.as_str()), ("stream", "nowhere")];
    let r = post(&o, "json", &q3, "application/json", "{}").await;
    error(
        &r,
        400,
        "STREAM_DOES_NOT_EXIST",
        "Channel 'nowhere' does not exist",
    );
    // An unknown integration is no endpoint.
    assert_eq!(
        post(&o, "nosuch", &q, "application/json", "{}")
            .await
            .status,
        404
    );
    assert_eq!(newest(&o, &o.alice).await["id"], before);
}

#[tokio::test]
async fn long_content_and_topics_are_cut_as_upstream_and_bodies_are_bounded() {
    let o = org_with(|c| c.limits.max_body_bytes = 64 * 1024).await;
    o.channel(&o.alice, "alerts", &[&o.alice], &[]).await;
    let (_, key) = hook_bot(&o, &o.alice, "alerts").await;
    let q = [("api_key", key.as_str()), ("stream", "alerts")];
    let payload =
        json!({"text": "y".repeat(12_000), "channel": format!("#{}", "t".repeat(80))}).to_string();
    success(&post(&o, "slack_incoming", &q, "application/json", &payload).await);
    let m = newest(&o, &o.alice).await;
    let content = m["content"].as_str().unwrap();
    assert_eq!(content.chars().count(), 10_000);
    assert!(content.ends_with("\n[message truncated]"));
    assert_eq!(m["subject"], format!("{}...", "t".repeat(57)));
    let before = m["id"].clone();

    // Past the body limit: 413, nothing posted; a bad key is refused before the body counts.
    let big = json!({"text": "z".repeat(70 * 1024)}).to_string();
    let r = post(&o, "slack_incoming", &q, "application/json", &big).await;
    assert_eq!(r.status, 413, "{}", r.body);
    let wrong = "W".repeat(32);
    let r = post(
        &o,
        "slack_incoming",
        &[("api_key", &wrong)],
        "application/json",
        &big,
    )
    .await;
    error(&r, 401, "INVALID_API_KEY", "Invalid API key");
    assert_eq!(newest(&o, &o.alice).await["id"], before);
}
