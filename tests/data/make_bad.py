"""Write the generated families of tests/data/bad/: each a copy of tests/data/small-site.toml (a good
site) with one edit, named by what it breaks. Run `python tests/data/make_bad.py` after editing the
families; tests/unit/test_validate_corpus.py checks the files are what this writes, and what each gives.

Families: strict types (text, booleans and numbers never converted into each other), free text with
characters no output can carry, geometry beyond any campus or that makes no sense, rows that overlap,
and what the fabric sizer refuses (which `validate` must refuse as `design` does)."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BASE = HERE / "small-site.toml"
OUT = HERE / "bad"

B2_FOOTPRINT = "footprint = [[100, 0], [160, 0], [160, 40], [100, 40]]"
B2_HALL = "polygon = [[102, 2], [158, 2], [158, 38], [102, 38]]"
B2_ENTRY = "entry = [100, 20]"
NAME = 'name = "Small two-building site"'
ROW = 'racks = 8\ntemplate = "dgx-h100-x4"\n'
SECOND_ROW = '\n[[row]]\nhall = "B1/H1"\norigin = [{x}, 4]\naxis = "x"\n' + ROW
CLUSTER_END = "pod_gpus = 0\n"

# stem -> (what is bad, [(text of small-site.toml, replacement), ...])
FAMILIES: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "type-pue-boolean": ("a PUE written as a boolean", [("pue = 1.3", "pue = true")]),
    "type-gpus-text": ("a GPU count written as text", [("gpus = 256", 'gpus = "256"')]),
    "type-storage-number": (
        "a network switch written as a number",
        [(CLUSTER_END, CLUSTER_END + "\n[cluster.networks]\nstorage = 1\n")],
    ),
    "type-name-number": ("a site name written as a number", [(NAME, "name = 42")]),
    "type-racks-float": ("a rack count written as a decimal", [("racks = 8\n", "racks = 8.0\n")]),
    "text-name-newline": ("a site name with a newline", [(NAME, 'name = "Small\\nsite"')]),
    "text-name-nul": ("a site name with a NUL", [(NAME, 'name = "Small\\u0000site"')]),
    "text-name-fffe": ("a site name with the noncharacter U+FFFE", [(NAME, 'name = "Small\\uFFFEsite"')]),
    "text-name-bidi": ("a site name with a right-to-left override", [(NAME, 'name = "Small\\u202Esite"')]),
    "text-revision-markup": ("a revision with markup", [('revision = "A"', 'revision = "<b>A</b>"')]),
    "text-reason-tab": (
        "a keep-out reason with a tab",
        [('reason = "electrical room"', 'reason = "electrical\\troom"')],
    ),
    "coord-beyond-campus": (
        "a building corner 2,000 km from the origin",
        [(B2_FOOTPRINT, "footprint = [[100, 0], [2000000, 0], [160, 40], [100, 40]]")],
    ),
    "hall-too-large": (
        "a hall of 4 km², larger than the tool designs",
        [
            (B2_FOOTPRINT, "footprint = [[100, 0], [2100, 0], [2100, 2000], [100, 2000]]"),
            (B2_HALL, "polygon = [[100, 0], [2100, 0], [2100, 2000], [100, 2000]]"),
        ],
    ),
    "buildings-same-footprint": (
        "two buildings on the same footprint",
        [
            (B2_FOOTPRINT, "footprint = [[0, 0], [60, 0], [60, 40], [0, 40]]"),
            (B2_HALL, "polygon = [[31, 2], [58, 2], [58, 38], [31, 38]]"),
            (B2_ENTRY, "entry = [60, 20]"),
            ("[95, 20], [100, 20]", "[65, 20], [60, 20]"),
        ],
    ),
    "buildings-overlap": (
        "two buildings whose footprints overlap",
        [
            (B2_FOOTPRINT, "footprint = [[50, 0], [160, 0], [160, 40], [50, 40]]"),
            (B2_ENTRY, "entry = [50, 20]"),
            ("[95, 20], [100, 20]", "[45, 20], [50, 20]"),
        ],
    ),
    "duct-to-itself": ("a duct from a building to itself", [('to = "B2"', 'to = "B1"')]),
    "rows-identical": ("two identical user rows", [(ROW, ROW + SECOND_ROW.format(x=4))]),
    "rows-overlap": ("two user rows whose racks overlap", [(ROW, ROW + SECOND_ROW.format(x=6.4))]),
    "backend-1gbe-switch": (
        "a 1 GbE management switch as the backend switch",
        [('switch = "qm9700"', 'switch = "sn2201"')],
    ),
    "tiers-too-few": ("one tier for 256 GPUs on a 64-port switch", [(CLUSTER_END, CLUSTER_END + "tiers = 1\n")]),
    "su-order-unknown-su": (
        "an SU order naming an SU the 256-GPU cluster (one SU) does not have",
        [(B2_HALL, B2_HALL + '\n  su_order = ["p0-u0", "p0-u7"]')],
    ),
    "su-order-twice": (
        "one SU in the SU orders of two halls",
        [(B2_HALL, B2_HALL + '\n  su_order = ["p0-u00"]'), ("max_rack_kw = 30.0", 'max_rack_kw = 30.0\n  su_order = ["p0-u0"]')],
    ),
    "su-order-not-an-id": ("an SU order entry that is no SU id", [(B2_HALL, B2_HALL + '\n  su_order = ["SU3"]')]),
    "sheet-name-case": (
        "two halls whose ids differ only in case (one plan file, one DXF layout on most systems)",
        [('id = "H2"', 'id = "h1"')],
    ),
    "sheet-name-dash": (
        "a building named like another building's hall plan (B1-H2)",
        [('id = "B2"', 'id = "B1-H2"'), ('to = "B2"', 'to = "B1-H2"')],
    ),
    "sheet-name-model": (
        "a building id that is the name of the DXF model space",
        [('id = "B2"', 'id = "model"'), ('to = "B2"', 'to = "model"')],
    ),
}


def generate() -> dict[str, str]:
    """File name -> text of every generated family."""
    base = BASE.read_text(encoding="utf-8")
    body = base.split("\n", 1)[1]  # without the GOOD comment line
    out = {}
    for stem, (what, edits) in FAMILIES.items():
        text = body
        for old, new in edits:
            if text.count(old) != 1:
                raise SystemExit(f"{stem}: {old!r} is not once in {BASE.name}")
            text = text.replace(old, new)
        out[f"{stem}.toml"] = f"# BAD: {what} (generated by tests/data/make_bad.py).\n{text}"
    return out


if __name__ == "__main__":
    for name, text in generate().items():
        (OUT / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(FAMILIES)} files to {OUT}", file=sys.stderr)
