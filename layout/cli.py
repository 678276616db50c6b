"""The `dclayout` command line. Each sub-command lives in layout/commands/<name>.py and exposes
``add_parser(subparsers)`` and ``run(args) -> int``. Heavy libraries are imported inside ``run`` so that
`dclayout fabric` starts fast.

Exit codes (DESIGN.md): 0 success, 1 violations under --strict, 2 bad input, 3 an export failed; they are
defined in layout/errors.py (the commands take them from there) and named here too.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from layout import __version__
from layout.errors import (
    EXIT_BAD_INPUT,
    EXIT_EXPORT_FAILED,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_VIOLATIONS,
    InputError,
    printable,
)
from layout.gcpause import collections_paused

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_EXPORT_FAILED",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_VIOLATIONS",
    "build_parser",
    "main",
]

EXIT_INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a command stopped by Ctrl-C

COMMANDS = [
    "validate",
    "tui",
    "fabric",
    "design",
    "report",
    "compare",
    "catalog",
    "optimize",
    "sweep",
    "push",
]


# Commands that design one site and end: the garbage collector stays paused through them (imports
# included), as it is through the exports. A design makes many objects and few reference cycles, so
# every collection walks the same tables again: ~0.09 s of a superpod design's ~1.1 s CPU, with the
# same peak memory on the 100k campus (bench/import_graph.py). The TUI and the commands that loop over
# many designs keep the collector.
ONE_SHOT = frozenset({"validate", "fabric", "design", "catalog"})


def did_you_mean(word: str, allowed: Sequence[str]) -> str:
    """``, did you mean "X"?`` for the allowed word closest to ``word`` (as site-file keys say it), or ""."""
    close = difflib.get_close_matches(word, allowed, n=1, cutoff=0.6)
    return f', did you mean "{close[0]}"?' if close else ""


class Parser(argparse.ArgumentParser):
    """argparse that says a mistake as one line ``PROG: WORD: problem, did you mean "X"? (allowed: ...)``
    (no usage block) and exits 2, the exit code of bad input; sub-command parsers are of this class too."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: {' '.join(message.split())}\n")

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        if action.choices is None or value in action.choices:
            return
        allowed = [str(c) for c in action.choices]
        what = "command" if isinstance(action, argparse._SubParsersAction) else "choice"
        hint = did_you_mean(str(value), allowed)
        raise argparse.ArgumentError(None, f"{value}: unknown {what}{hint} (allowed: {', '.join(allowed)})")

    def parse_args(self, args: Sequence[str] | None = None, namespace: Any = None) -> Any:  # type: ignore[override]
        argv = list(sys.argv[1:] if args is None else args)
        self._refuse_unknown_options(argv)
        parsed, extra = self.parse_known_args(argv, namespace)
        if extra:
            parser = self._command_parser(parsed)
            if extra[0].startswith("-"):
                parser._unknown_option(extra[0])
            parser.error(f"{extra[0]}: unexpected argument")
        return parsed

    def _command_parser(self, parsed: argparse.Namespace) -> Parser:
        """The parser of the sub-command given, else this one."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                return action.choices.get(getattr(parsed, action.dest, None) or "", self)
        return self

    def _refuse_unknown_options(self, argv: list[str]) -> None:
        """An unknown ``--option`` anywhere before ``--`` is the first thing said, before a missing
        argument it may have displaced (``dclayout design --pfd`` is a typo, not a missing SITE)."""
        parser: Parser = self
        commands = next((a.choices for a in self._actions if isinstance(a, argparse._SubParsersAction)), {})
        for word in argv:
            if word == "--":
                return
            if not word.startswith("-"):
                if parser is self:
                    if word not in commands:
                        return  # an unknown command: argparse says so
                    parser = commands[word]
                continue
            option = word.split("=", 1)[0]
            if option.startswith("--") and not any(o.startswith(option) for o in parser._long_options()):
                parser._unknown_option(option)

    def _long_options(self) -> list[str]:
        return sorted({s for a in self._actions for s in a.option_strings if s.startswith("--")})

    def _unknown_option(self, word: str) -> NoReturn:
        option = word.split("=", 1)[0]
        options = self._long_options()
        self.error(f"{option}: unknown option{did_you_mean(option, options)} (allowed: {', '.join(options)})")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="dclayout", description="Design the floor plan, cabling and power of AI clusters.")
    parser.add_argument("--version", action="version", version=f"dclayout {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"layout.commands.{name}").add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; Ctrl-C (at any point, even while the parser imports the commands) ends it with
    the one line "interrupted" and exit code 130, never a traceback."""
    try:
        with collections_paused():
            args = build_parser().parse_args(argv)
        with collections_paused(args.command in ONE_SHOT):
            return int(args.run(args))
    except InputError as e:
        for p in e.problems:
            print(str(p), file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as e:  # a bug, or this machine's limits: one line and the traceback in a file
        return internal_error(e)


def internal_error(e: BaseException) -> int:
    """Report an error no check foresaw: one line on stderr naming it and the file that holds its whole
    traceback (in the system's temporary folder), and :data:`EXIT_INTERNAL` -- never 1, which means
    "violations under --strict"."""
    import tempfile
    import traceback

    what = "not enough memory for this design" if isinstance(e, MemoryError) else f"{type(e).__name__}: {e}"
    where = ""
    try:
        fd, path = tempfile.mkstemp(prefix="dclayout-error-", suffix=".txt")
        with open(fd, "w", encoding="utf-8") as f:
            f.write("".join(traceback.format_exception(e)))
        where = f" (traceback in {path})"
    except OSError:
        pass
    print(printable(f"dclayout: internal error: {what}{where}"), file=sys.stderr)
    return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
