"""`dclayout push SITE --url URL [--dry-run]`: design the site and create or update its racks, devices,
ports, cables and power feeds in a Nautobot (layout/export/dcim_push.py), idempotently: a second push of
the same design changes nothing. The API token is read from the environment (``DCLAYOUT_DCIM_TOKEN``),
never from the command line, so it stays out of shell histories and process lists.

Exit codes: 0 pushed (or, with ``--dry-run``, counted), 2 bad input (the site, a missing token or URL),
3 the server refused a request or could not be reached (one line: the request and the server's reply).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from layout.commands import add_templates_option, load_inputs
from layout.errors import EXIT_BAD_INPUT, EXIT_EXPORT_FAILED, EXIT_OK


def add_parser(sub: Any) -> None:
    p = sub.add_parser("push", help="create or update the design in a Nautobot DCIM over its REST API")
    p.add_argument("site", metavar="SITE", help="site TOML file")
    p.add_argument("--url", metavar="URL", help="the Nautobot's address, e.g. http://127.0.0.1:8080")
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="design and count the objects a push would hold, without a server",
    )
    add_templates_option(p)
    p.set_defaults(run=run)


def run(args: Any) -> int:
    from layout.export.dcim_push import TOKEN_ENV

    token = os.environ.get(TOKEN_ENV, "")
    if not args.dry_run:
        problems = []
        if not args.url or not args.url.startswith(("http://", "https://")):
            problems.append("push: --url: the server's address, starting with http:// or https://")
        if not token:
            problems.append(f"push: {TOKEN_ENV}: set it in the environment to the server's API token")
        if problems:
            for line in problems:
                print(line, file=sys.stderr)
            return EXIT_BAD_INPUT
    inputs = load_inputs(args.site, args.templates)
    from layout import design
    from layout.export.dcim import counts, dcim_tables

    tables = dcim_tables(design.run(inputs))
    held = ", ".join(f"{v:,} {k.replace('_', ' ')}" for k, v in counts(tables).items())
    if args.dry_run:
        print(f"{inputs.stem}: would hold {held}")
        return EXIT_OK
    from layout.export.dcim_push import PushError, http_client, push, summary_line

    try:
        tally = push(tables, http_client(args.url, token))
    except PushError as e:
        print(f"push: {e}", file=sys.stderr)
        return EXIT_EXPORT_FAILED
    print(f"{inputs.stem} -> {args.url}: {summary_line(tally)}")
    print(f"  the design holds {held}")
    return EXIT_OK
