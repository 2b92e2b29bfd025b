#!/usr/bin/env python3
"""Regenerate tests/schemas/zulip-responses.json from Zulip's OpenAPI document.

Usage: python3 tests/schemas/extract_zulip.py ../shared/reference/zulip-openapi.yaml

Only the structure of the success responses is kept (types, properties,
required keys, enums, nullability, additionalProperties, composition and
references between schemas).  Descriptions, examples and every other piece
of prose are dropped.  The output is what the integration tests validate our
responses against; the script itself is only needed when the upstream
document changes.
"""
import json
import sys

import yaml

KEEP = {
    "type", "properties", "required", "additionalProperties", "items", "enum",
    "nullable", "oneOf", "anyOf", "allOf", "$ref", "minimum", "maximum",
}


def strip(node):
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key not in KEEP:
                continue
            if key == "properties":
                out[key] = {name: strip(v) for name, v in value.items()}
            elif key in ("required", "enum"):
                out[key] = value
            elif key == "$ref":
                out[key] = value.replace("#/components/schemas/", "#/schemas/")
            elif isinstance(value, (dict, list)):
                out[key] = strip(value)
            else:
                out[key] = value
        return out
    if isinstance(node, list):
        return [strip(v) for v in node]
    return node


def apply_newer_upstream(responses, schemas):
    """Adds what upstream documented after feature level 382 for endpoints and fields Outpost
    implements (newest zerver/openapi/zulip.yaml, read file by file; see
    shared/reference/zulip-notes.md sections 5.6 and 10): channel fields such as
    `topics_policy`, `folder_id`, `subscriber_count`, `partial_subscribers` (feature level
    412) and the newer channel permission groups,
    the `POST /channels/create` endpoint (feature level 417), the channel folder limits in
    `POST /register`, and `local_message_id` on message events."""
    group = {"$ref": "#/schemas/GroupSettingValue"}
    newer_channel_fields = {
        "topics_policy": {
            "type": "string",
            "enum": ["inherit", "allow_empty_topic", "disable_empty_topic", "empty_topic_only"],
        },
        "folder_id": {"type": "integer", "nullable": True},
        "subscriber_count": {"type": "integer"},
        "partial_subscribers": {"type": "array", "items": {"type": "integer"}},
        "can_create_topic_group": group,
        "can_delete_any_message_group": group,
        "can_delete_own_message_group": group,
        "can_move_messages_out_of_channel_group": group,
        "can_move_messages_within_channel_group": group,
        "can_resolve_topics_group": group,
    }
    for name in ("Subscription", "BasicChannelBase"):
        schemas[name]["properties"].update(newer_channel_fields)
    register = responses["POST /register"]["allOf"][1]["properties"]
    register["max_channel_folder_name_length"] = {"type": "integer"}
    register["max_channel_folder_description_length"] = {"type": "integer"}
    # Message events carry the sender's local id on the queue that sent it (the spec's
    # local-echo contract), which the 382 document leaves out.
    for alternative in responses["GET /events"]["allOf"][1]["properties"]["events"]["items"]["oneOf"]:
        kind = json.dumps(alternative.get("properties", {}).get("type", {}))
        if '"message"]' in kind and "properties" in alternative:
            alternative["properties"]["local_message_id"] = {"type": "string"}
    responses["POST /channels/create"] = {
        "allOf": [
            {"$ref": "#/schemas/JsonSuccessBase"},
            {
                "additionalProperties": False,
                "properties": {
                    "result": {},
                    "msg": {},
                    "ignored_parameters_unsupported": {},
                    "id": {"type": "integer"},
                },
                "required": ["id"],
            },
        ]
    }


def main(path):
    with open(path) as f:
        doc = yaml.safe_load(f)
    responses = {}
    for url, item in doc["paths"].items():
        for method, op in item.items():
            if not isinstance(op, dict) or "responses" not in op:
                continue
            ok = op["responses"].get("200")
            if not ok:
                continue
            if "$ref" in ok:
                ok = doc["components"]["responses"][ok["$ref"].split("/")[-1]]
            content = ok.get("content", {}).get("application/json")
            if not content or "schema" not in content:
                continue
            responses[f"{method.upper()} {url}"] = strip(content["schema"])
    schemas = {name: strip(s) for name, s in doc["components"]["schemas"].items()}
    apply_newer_upstream(responses, schemas)
    out = {
        "source": "zulip/zulip zerver/openapi/zulip.yaml (feature level 382), Apache-2.0; structure only",
        "responses": responses,
        "schemas": schemas,
    }
    json.dump(out, sys.stdout, indent=None, sort_keys=True, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
