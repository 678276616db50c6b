"""Atomic file writes: write to a temporary file in the target's folder, then ``os.replace`` it.

A reader never sees a half-written file, and a failed write leaves nothing behind (the temporary file
is removed and the exception propagates). The site editor saves site files with it, the exporters write
every output with it (through layout/export/atomic.py); exporters whose library writes the file itself
(ezdxf, reportlab) use :func:`atomic_path` and write to the path it yields.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside ``target``; on success it replaces ``target``, on error it is removed."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        # mkstemp makes 0600: an existing file keeps its mode, a new one follows the umask
        mode = target.stat().st_mode & 0o7777 if target.exists() else 0o666 & ~_umask()
        os.chmod(tmp_path, mode)
        os.replace(tmp_path, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp_path.unlink()
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_bytes(target: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``target`` atomically; returns the target path."""
    with atomic_path(target) as tmp, open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    return Path(target)


def write_text(target: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``target`` atomically (newlines as given, no platform translation)."""
    return write_bytes(target, text.encode(encoding))
