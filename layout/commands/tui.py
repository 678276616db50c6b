"""`dclayout tui [SITE]`: the interactive designer (Textual), imported only when the command runs."""

from __future__ import annotations

import argparse
from typing import Any

from layout.commands import add_templates_option, load_inputs, templates_dir
from layout.errors import EXIT_OK


def add_parser(sub: Any) -> None:
    p = sub.add_parser("tui", help="design a site interactively in the terminal")
    p.add_argument("site", nargs="?", default=None, metavar="SITE", help="site TOML file (default: pick one)")
    add_templates_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.site is not None:
        load_inputs(
            args.site, args.templates
        )  # bad files: FILE: key: problem lines and exit 2, before any screen

    from layout.tui.app import run_app

    run_app(args.site, templates_dir(args.templates))
    return EXIT_OK
