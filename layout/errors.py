"""What goes wrong, and how the command line says so: the error of bad input and the exit codes.

Every stage that finds bad input (the loader, the fabric sizer, the placer) raises :class:`InputError`
with one :class:`Problem` per thing to fix, each ``FILE: dotted.key: problem (allowed: ...)``; the front
ends print them, one a line, and the CLI exits with :data:`EXIT_BAD_INPUT`. This module imports nothing of
the package, so the loader, the stages and the commands all take their errors from here.

Exit codes (DESIGN.md): 0 success (violations are reported, not fatal), 1 violations under ``--strict``,
2 bad input, 3 an export failed (nothing half-written is left behind), 4 an internal error (a bug or the
machine's limits: one line naming the error and the file holding the whole traceback).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

EXIT_OK = 0
EXIT_VIOLATIONS = 1
EXIT_BAD_INPUT = 2
EXIT_EXPORT_FAILED = 3
EXIT_INTERNAL = 4


def printable(text: str) -> str:
    """``text`` safe to show on a terminal: each character Python does not print (ESC and the other
    controls, newlines, format characters, surrogates of undecodable bytes) as its escape (``\\x1b``,
    ``\\n``, ``\\u202e``); printable text, unicode included, is kept as it is."""
    if text.isprintable():
        return text
    return "".join(
        c if c.isprintable() else c.encode("unicode_escape", "backslashreplace").decode() for c in text
    )


@dataclass(frozen=True)
class Problem:
    """One thing to fix in one file: the dotted key, what is wrong (quoting the value found) and what
    would be accepted."""

    file: str
    key: str
    problem: str
    allowed: str = ""

    def __str__(self) -> str:
        tail = f" (allowed: {self.allowed})" if self.allowed else ""
        return printable(f"{self.file}: {self.key}: {self.problem}{tail}")


class InputError(Exception):
    """Bad input: one or more problems, each naming the file, the key and what is allowed."""

    def __init__(self, problems: Sequence[Problem]):
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))
