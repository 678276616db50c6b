"""Reading an input file: a size cap, and one clean problem for what is no regular file, no UTF-8 text
or no TOML."""

from __future__ import annotations

import stat
import tomllib
from pathlib import Path
from typing import Any

from layout.errors import InputError, Problem

MAX_INPUT_BYTES = 16 * 2**20  # a site, template or catalog file larger than this is refused unread


def _read_text(path: Path) -> str:
    """The text of an input file: a regular file (not a folder, FIFO or device such as /dev/zero) of at
    most MAX_INPUT_BYTES, read as UTF-8; anything else is one clean problem, never a hang."""
    raw = read_input_bytes(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(
            [Problem(str(path), "(file)", f"not UTF-8 text ({e.reason})", "a UTF-8 text file")]
        ) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")  # universal newlines, as read_text() had


def read_input_bytes(path: Path) -> bytes:
    """The bytes of an input file, through the checks every reader of a site or template goes through
    (the CLI's loader and the TUI's editor alike): a regular file (not a folder, FIFO or device such as
    /dev/zero) of at most MAX_INPUT_BYTES; anything else is one clean problem, never a hang or a
    MemoryError."""

    def bad(problem: str, allowed: str = "a path to a .toml file") -> InputError:
        return InputError([Problem(str(path), "(file)", problem, allowed)])

    try:
        st = path.stat()
        if stat.S_ISDIR(st.st_mode):
            raise bad("is a folder, not a file")
        if not stat.S_ISREG(st.st_mode):
            raise bad("is not a regular file (a device, FIFO or socket)", "a path to a .toml text file")
        with path.open("rb") as f:
            raw = f.read(MAX_INPUT_BYTES + 1)
    except FileNotFoundError:
        raise bad("file not found", "a path to an existing .toml file") from None
    except NotADirectoryError:
        raise bad("a folder on the path is a file", "a path to an existing .toml file") from None
    except PermissionError:
        raise bad("permission denied", "a file you can read") from None
    except OSError as e:
        raise bad(f"cannot be read ({e.strerror or type(e).__name__})") from None
    if len(raw) > MAX_INPUT_BYTES:
        raise bad(
            f"is larger than {MAX_INPUT_BYTES // 2**20} MiB",
            f"an input file of at most {MAX_INPUT_BYTES // 2**20} MiB",
        )
    return raw


def read_toml(path: Path) -> dict[str, Any]:
    return parse_toml(_read_text(path), str(path))


def parse_toml(text: str, name: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise InputError(
            [
                Problem(
                    name, "(syntax)", "TOML nested too deeply to read", "tables and lists nested a few levels"
                )
            ]
        ) from None
    except tomllib.TOMLDecodeError as e:
        msg, _, pos = str(e).partition(" (at ")
        pos = pos.rstrip(")")
        if pos == "end of document":
            lines = text.split("\n")
            pos = f"line {len(lines)}, column {len(lines[-1]) + 1} (end of file)"
        where = pos or "(syntax)"  # "line 3, column 7"
        msg = msg[:1].lower() + msg[1:]
        raise InputError(
            [Problem(name, where, f"TOML syntax error: {msg}", _SYNTAX_HINTS.get(msg, ""))]
        ) from None


_SYNTAX_HINTS = {
    "invalid value": 'a quoted "text", a number, true/false, a [list] or an { inline = "table" }',
    "expected '=' after a key in a key/value pair": "key = value, one per line",
    "cannot overwrite a value": "each key set once per table",
}
