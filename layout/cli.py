"""The `dclayout` command line. Each sub-command lives in layout/commands/<name>.py and exposes
``add_parser(subparsers)`` and ``run(args) -> int``. Heavy libraries are imported inside ``run`` so that
`dclayout fabric` starts fast.

Exit codes (DESIGN.md): 0 success, 1 violations under --strict, 2 bad input, 3 an export failed; they are
defined in layout/errors.py (the commands take them from there) and named here too.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from layout.errors import EXIT_BAD_INPUT, EXIT_EXPORT_FAILED, EXIT_OK, EXIT_VIOLATIONS, InputError

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_EXPORT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_VIOLATIONS",
    "build_parser",
    "main",
]

EXIT_INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a command stopped by Ctrl-C

COMMANDS = ["validate", "tui", "fabric", "design", "report", "compare", "optimize"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dclayout", description="Design the floor plan, cabling and power of AI clusters."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"layout.commands.{name}").add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; Ctrl-C (at any point, even while the parser imports the commands) ends it with
    the one line "interrupted" and exit code 130, never a traceback."""
    try:
        args = build_parser().parse_args(argv)
        return int(args.run(args))
    except InputError as e:
        for p in e.problems:
            print(str(p), file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
