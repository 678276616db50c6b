"""`dclayout validate SITE...`: check site files (and the catalog and templates they use)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_parser(sub: Any) -> None:
    p = sub.add_parser("validate", help="check site files; exit 2 with FILE: key: problem lines if bad")
    p.add_argument("sites", nargs="+", metavar="SITE", help="site TOML file(s)")
    p.add_argument(
        "--templates", default=None, help="rack template + catalog folder (default: beside the site)"
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from layout.load import InputError, load_site

    bad = 0
    for site in args.sites:
        try:
            inputs = load_site(site, Path(args.templates) if args.templates else None)
        except InputError as e:
            bad += 1
            for p in e.problems:
                print(str(p), file=sys.stderr)
            continue
        s = inputs.site
        halls = sum(len(b.hall) for b in s.building)
        print(
            f"{site}: ok — {s.site.name}: {len(s.building)} building(s), {halls} hall(s), "
            f"{s.cluster.gpus:,} GPUs of {s.cluster.server}, {s.cluster.design} on {s.cluster.switch}"
        )
    return 2 if bad else 0
