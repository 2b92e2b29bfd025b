#!/usr/bin/env python3
"""Regenerate tests/schemas/sarif-2.1.0.json from the SARIF 2.1.0 JSON schema.

Usage: python3 tests/schemas/extract_sarif.py sarif-schema-2.1.0.json

The input is OASIS's `sarif-2.1/schema/sarif-schema-2.1.0.json` (github.com/oasis-tcs/sarif-spec;
see tests/schemas/README.md for the commit and the license).  Only the structure is kept: types,
properties, required keys, enums, additionalProperties, items, references between definitions,
composition, and the numeric, length, pattern and format constraints.  Titles, descriptions,
defaults and every other piece of prose are dropped.  The output is what the integration tests
validate our SARIF logs against; the script is only needed when the upstream schema changes.
"""
import json
import sys

KEEP = {
    "type", "properties", "required", "additionalProperties", "items", "enum",
    "oneOf", "anyOf", "allOf", "$ref", "minimum", "maximum", "minItems",
    "uniqueItems", "pattern", "format", "definitions",
}


def strip(node, named=False):
    """`named`: the node maps names to schemas (properties, definitions)."""
    if isinstance(node, list):
        return [strip(v) for v in node]
    if not isinstance(node, dict):
        return node
    if named:
        return {name: strip(v) for name, v in node.items()}
    out = {}
    for key, value in node.items():
        if key not in KEEP:
            continue
        if key in ("properties", "definitions"):
            out[key] = strip(value, named=True)
        elif key in ("required", "enum"):
            out[key] = value
        else:
            out[key] = strip(value)
    return out


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    out = strip(schema)
    json.dump(out, sys.stdout, sort_keys=True, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
