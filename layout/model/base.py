"""Shared model base: every model refuses unknown keys, refuses inf/nan and is immutable once validated.

Types are strict: a TOML string, boolean or number is never converted into another (``pue = true``,
``gpus = "1024"`` and ``storage = 1`` are refused, naming the type expected); the one conversion kept
is a whole number where a number is expected (``pue = 1``). TOML has no tuples, so a pair ``[x, y]`` is
read from a list (``Strict(False)`` on the pair, layout/model/site.py), its items still strict.
"""

import re
import unicodedata
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict
from pydantic_core import PydanticCustomError


class Strict(BaseModel):
    model_config = ConfigDict(
        extra="forbid", frozen=True, populate_by_name=True, allow_inf_nan=False, strict=True
    )


# One rule for every free text field (site name and revision, keep-out reasons, catalog and template
# names): what any output (SVG/XML, DXF, PDF, XLSX, a terminal) can carry as it is. Refused: control
# characters (Unicode Cc: newline, tab, NUL, escape, ...), format characters (Cf: bidi overrides,
# zero-width), line and paragraph separators, surrogates, private-use and unassigned code points (U+FFFE,
# U+FFFF), and the markup characters < > &.
TEXT_ALLOWED = (
    "letters, digits, spaces, punctuation and symbols; no control or format characters "
    "(newline, tab, NUL, bidi), no U+FFFE/U+FFFF, no < > &"
)
_REFUSED_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
_MARKUP = "<>&"
_KINDS = {
    "Cc": "a control character",
    "Cn": "a noncharacter",
    "Co": "a private-use character",
    "Cs": "a surrogate",
}
_NAMES = {"\n": "a newline", "\r": "a carriage return", "\t": "a tab", "\0": "a NUL"}


# every output sets these on one line or in one cell (a PDF title, a DXF title block, an XLSX header)
MAX_TEXT_CHARS = 200


def _plain_text(v: str) -> str:
    if len(v) > MAX_TEXT_CHARS:
        raise PydanticCustomError(
            "plain_text",
            "must be at most {limit} characters, got {got}",
            {
                "limit": MAX_TEXT_CHARS,
                "got": len(v),
                "allowed": f"plain text of at most {MAX_TEXT_CHARS} characters",
            },
        )
    for i, ch in enumerate(v):
        if ch in _MARKUP or unicodedata.category(ch) in _REFUSED_CATEGORIES:
            what = (
                f'"{ch}"'
                if ch in _MARKUP
                else _NAMES.get(ch) or unicodedata.name(ch, "").lower() or _KINDS[unicodedata.category(ch)]
            )
            raise PydanticCustomError(
                "plain_text",
                "must be plain text, got {what} (U+{code}) at character {at}",
                {"what": what, "code": f"{ord(ch):04X}", "at": i + 1, "allowed": TEXT_ALLOWED},
            )
    return v


Text = Annotated[str, AfterValidator(_plain_text)]


# One rule for every id a file gives (catalog keys such as [switch.qm9700], template ids): the free-text
# rule above, plus: not empty, at most 64 characters, ASCII letters, digits and . _ + - only (no spaces,
# tabs or newlines; no / : ids are joined with it in part ids such as "sn5600/m"), starting with a letter
# or digit. Ids that share a namespace are unique ignoring ASCII case (drawing block and file names).
ID_ALLOWED = "1-64 ASCII letters, digits and . _ + -, starting with a letter or digit"
ID_MAX_CHARS = 64
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")


def id_problem(v: str) -> str | None:
    """What is wrong with ``v`` as an id (None: nothing)."""
    if not v:
        return "an empty id"
    if len(v) > ID_MAX_CHARS:
        return f"an id of {len(v):,} characters (at most {ID_MAX_CHARS})"
    if _ID.fullmatch(v):
        return None
    bad = next((c for c in v if not (c.isascii() and (c.isalnum() or c in "._+-"))), v[0])
    return f"the id {v!r} holds {bad!r} (U+{ord(bad):04X})"


def _an_id(v: str) -> str:
    problem = id_problem(v)
    if problem is not None:
        raise PydanticCustomError("id", "must be an id, got {what}", {"what": problem, "allowed": ID_ALLOWED})
    return v


Id = Annotated[str, AfterValidator(_an_id)]
