"""`dclayout validate SITE...`: check site files (and the catalog and templates they use)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from layout.commands import add_templates_option, load_inputs
from layout.errors import EXIT_BAD_INPUT, EXIT_OK, InputError


def add_parser(sub: Any) -> None:
    p = sub.add_parser("validate", help="check site files; exit 2 with FILE: key: problem lines if bad")
    p.add_argument("sites", nargs="+", metavar="SITE", help="site TOML file(s)")
    add_templates_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from layout import design as design_mod

    bad = 0
    for site in args.sites:
        try:
            inputs = load_inputs(site, args.templates)
            design_mod.check(inputs)  # what design refuses before it designs, validate refuses too
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
    return EXIT_BAD_INPUT if bad else EXIT_OK
