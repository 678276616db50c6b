"""`dclayout catalog [--json] [--templates DIR]`: the parts a site file can name, with key figures."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from layout.errors import EXIT_OK

COLUMNS = {
    "servers": (
        "id",
        "gpus",
        "power_kw",
        "cooling",
        "height_ru",
        "backend_ports",
        "backend_port_gbps",
        "name",
    ),
    "switches": ("id", "ports", "port_gbps", "protocol", "cages", "cooling", "height_ru", "name"),
    "nics": ("id", "ports", "port_gbps", "split", "name"),
    "media": ("id", "class", "gbps", "reach_m", "price_usd", "name"),
}


def add_parser(sub: Any) -> None:
    p = sub.add_parser("catalog", help="list the catalog's servers, switches, NICs and media")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.add_argument(
        "--templates", default=None, metavar="DIR", help="rack template + catalog folder (default: shipped)"
    )
    p.set_defaults(run=run)


def _cell(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, list):
        return "/".join(str(x) for x in v)
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from layout.load import DEFAULT_TEMPLATES_DIR, load_catalog
    from layout.parts import listing

    parts = listing(load_catalog(Path(args.templates) if args.templates else DEFAULT_TEMPLATES_DIR))
    if args.json:
        json.dump(parts, sys.stdout, indent=1, sort_keys=True)
        sys.stdout.write("\n")
        return EXIT_OK
    out = []
    for kind, cols in COLUMNS.items():
        rows = [[_cell(p[c]) for c in cols] for p in parts[kind]]
        width = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]
        out.append(f"{kind} ({len(rows)})")
        out.append("  ".join(c.ljust(w) for c, w in zip(cols, width, strict=True)).rstrip())
        out += ["  ".join(v.ljust(w) for v, w in zip(r, width, strict=True)).rstrip() for r in rows]
        out.append("")
    sys.stdout.write("\n".join(out))
    return EXIT_OK
