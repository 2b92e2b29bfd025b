#!/usr/bin/env python3
"""Regenerates src/emoji/zulip_emoji.tsv, Outpost's copy of Zulip's Unicode emoji table.

Zulip names each Unicode emoji with a canonical name and aliases. Its table is built from the
`emoji-datasource-google` npm package (which emoji exist and their code points), Zulip's own
names for most of them (restated here as data in packaging/emoji/zulip-names.tsv) and Unicode
CLDR's English annotations for the rest. This script repeats that build with the package
versions upstream used at Zulip feature level 382 (see src/emoji/PROVENANCE.md):

  1. every emoji of emoji-datasource except the skin-tone modifiers and the clock faces Zulip
     leaves out gets Zulip's names if it has some, else CLDR's text-to-speech name as the
     canonical name and CLDR's keywords as aliases (emoji CLDR does not know are skipped);
     names from CLDR are lower-cased, spaces and dashes become `_`, punctuation goes;
  2. an alias equal to some canonical name is dropped;
  3. an alias several emoji share is dropped from each of them whose names come from CLDR;
  4. a name with letters outside ASCII gets an ASCII alias (accents dropped), taken away from
     any other emoji that had it.

A code is the emoji's code points in lower-case hex joined by `-`, without U+FE0F.

Usage: packaging/gen-emoji-table.py [--check]
Needs python3 and npm (the packages are fetched with `npm pack` into a temporary directory).
With --check, compares instead of writing and exits 1 when the vendored table differs.
"""

import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMES_FILE = os.path.join(ROOT, "packaging", "emoji", "zulip-names.tsv")
OUT_FILE = os.path.join(ROOT, "src", "emoji", "zulip_emoji.tsv")

DATASOURCE = "emoji-datasource-google@15.1.2"
CLDR = "cldr-annotations-modern@45.0.0"
CLDR_DERIVED = "cldr-annotations-derived-modern@45.0.0"

# Zulip offers one clock face (1f557, "time") and none of the others.
SKIPPED = {f"1f{n:03x}" for n in range(0x550, 0x568)} - {"1f557"}
# Skin-tone modifiers are not emoji of their own.
SKIPPED |= {"1f3fb", "1f3fc", "1f3fd", "1f3fe", "1f3ff"}

# Names without an ASCII spelling that keep no ASCII alias of their own (they have others).
NO_ASCII_FORM = {"ココ", "サ", "指", "空"}
ASCII_FORMS = {
    "è": "e", "ǐ": "i", "ó": "o", "ā": "a", "ō": "o", "ñ": "n", "ô": "o", "ç": "c",
    "é": "e", "ã": "a", "í": "i", "å": "a", "ü": "u",
}
CLEANUP = [
    (" ", "_"), ("-", "_"), ("–", "_"), ("“", ""), ("”", ""), (":", ""), (".", ""),
    (",", ""), ("(", ""), (")", ""), ("&", "and"), ("‘", ""), ("’", ""), ("'", ""),
]


def clean(name):
    for before, after in CLEANUP:
        name = name.replace(before, after)
    return re.sub(r"_{2,}", "_", name).lower()


def ascii_form(name):
    for before, after in ASCII_FORMS.items():
        name = name.replace(before, after)
    if not name.isascii():
        sys.exit(f"no ASCII form for {name!r}: add its letters to ASCII_FORMS")
    return name


def code_of(unified):
    chars = [chr(int(h, 16)) for h in unified.split("-")]
    return "-".join(f"{ord(c):04x}" for c in chars if c != "\ufe0f")


def emoji_of(code):
    return "".join(chr(int(h, 16)) for h in code.split("-"))


def npm_json(spec, member, workdir):
    """Fetches the package `spec` with npm and returns the parsed JSON file `member` in it."""
    out = subprocess.run(
        ["npm", "pack", "--silent", spec], cwd=workdir, check=True, capture_output=True, text=True
    ).stdout.split()
    with tarfile.open(os.path.join(workdir, out[-1])) as tar:
        f = tar.extractfile(f"package/{member}")
        return json.load(f)


def read_zulip_names():
    names = {}
    with open(NAMES_FILE, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            code, canonical, aliases = line.split("\t")
            names[code] = {"canonical": canonical, "aliases": aliases.split()}
    return names


def build(emoji_data, cldr, zulip_names):
    table = {}  # code -> {"canonical", "aliases"}, in emoji-datasource order
    canonicals = set()
    for e in emoji_data:
        code = code_of(e["unified"])
        if code in SKIPPED:
            continue
        if code in zulip_names:
            entry = {
                "canonical": zulip_names[code]["canonical"],
                "aliases": list(zulip_names[code]["aliases"]),
            }
            key = clean(entry["canonical"])
        else:
            ann = cldr.get(emoji_of(code))
            if ann is None:
                print(f"{code}: neither Zulip nor CLDR names it; left out", file=sys.stderr)
                continue
            assert len(ann["tts"]) == 1, code
            key = clean(ann["tts"][0].strip())
            entry = {"canonical": key, "aliases": [clean(a.strip()) for a in ann["default"]]}
        if key in canonicals:
            sys.exit(f"{code}: canonical name {key} is taken; name it in zulip-names.tsv")
        canonicals.add(key)
        table[code] = entry

    # 2. No alias may be some emoji's canonical name.
    holders = {}
    for code, entry in table.items():
        entry["aliases"] = [a for a in entry["aliases"] if a not in canonicals]
        for a in entry["aliases"]:
            holders.setdefault(a, []).append(code)

    # 3. An alias several emoji share stays only where Zulip gave it.
    for alias, codes in holders.items():
        if len(codes) > 1:
            for code in codes:
                if code not in zulip_names:
                    table[code]["aliases"].remove(alias)

    # 4. ASCII aliases for names spelled with other letters.
    for code, entry in table.items():
        for name in [entry["canonical"], *entry["aliases"]]:
            if name in NO_ASCII_FORM:
                assert any(a.isascii() for a in entry["aliases"]), code
                continue
            if not name.isascii():
                plain = ascii_form(name)
                for other in holders.get(plain, []):
                    if plain in table[other]["aliases"]:
                        table[other]["aliases"].remove(plain)
                entry["aliases"].append(plain)
    return table


def render(table):
    lines = [
        "# Zulip's Unicode emoji table: code, canonical name, aliases (space-separated).",
        "# Generated by packaging/gen-emoji-table.py from "
        f"{DATASOURCE}, {CLDR}, {CLDR_DERIVED}",
        "# and packaging/emoji/zulip-names.tsv. Do not edit; see src/emoji/PROVENANCE.md.",
    ]
    for code, entry in table.items():
        lines.append("\t".join([code, entry["canonical"], " ".join(entry["aliases"])]))
    return "\n".join(lines) + "\n"


def main():
    check = sys.argv[1:] == ["--check"]
    if sys.argv[1:] and not check:
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as tmp:
        emoji_data = npm_json(DATASOURCE, "emoji.json", tmp)
        cldr = npm_json(CLDR, "annotations/en/annotations.json", tmp)
        cldr = dict(cldr["annotations"]["annotations"])
        derived = npm_json(CLDR_DERIVED, "annotationsDerived/en/annotations.json", tmp)
        cldr.update(derived["annotationsDerived"]["annotations"])
    text = render(build(emoji_data, cldr, read_zulip_names()))
    if check:
        with open(OUT_FILE, encoding="utf-8") as f:
            if f.read() != text:
                sys.exit(f"{OUT_FILE} differs from what the sources give; rerun without --check")
        return
    os.makedirs(os.path.dirname(OUT_FILE), exist_ok=True)
    with open(OUT_FILE, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {len(table_lines(text))} emoji to {OUT_FILE}")


def table_lines(text):
    return [line for line in text.splitlines() if not line.startswith("#")]


if __name__ == "__main__":
    main()
