"""`dclayout tui [SITE]`: the interactive designer (Textual), imported only when the command runs."""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(sub: Any) -> None:
    p = sub.add_parser("tui", help="design a site interactively in the terminal")
    p.add_argument("site", nargs="?", default=None, metavar="SITE", help="site TOML file (default: pick one)")
    p.add_argument(
        "--templates", default=None, help="rack template + catalog folder (default: beside the site)"
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from layout.load import load_site

    templates = Path(args.templates) if args.templates else None
    if args.site is not None:
        load_site(args.site, templates)  # bad files: FILE: key: problem lines and exit 2, before any screen

    from layout.tui.app import run_app

    run_app(args.site, templates)
    return 0
