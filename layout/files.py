"""Atomic file writes: write to a temporary file in the target's folder, then ``os.replace`` it.

A reader never sees a half-written file, and a failed write leaves nothing behind (the temporary file
is removed and the exception propagates). The site editor saves site files with it, the exporters write
every output with it (through layout/export/atomic.py); exporters whose library writes the file itself
(ezdxf, reportlab) use :func:`atomic_path` and write to the path it yields.

:class:`StagedSet` writes several files as one set: each is written into a hidden staging folder inside
the output folder, and only when all are there are they renamed into place, so a run that fails leaves
the previous set whole. A killed run's staging folder is cleaned up by the next one.

The replaced file keeps its mode; a new file, or one that replaces a symbolic link (the link itself is
replaced, never what it points to), gets a new file's mode (0o666 less the umask: 0o644 under umask 022).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, BinaryIO

if TYPE_CHECKING:  # the thread pool is imported when a Settler is used (start-up)
    from concurrent.futures import Future, ThreadPoolExecutor

try:  # a staging folder is locked while its run lives (POSIX); elsewhere every leftover one is stale
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

STAGING_PREFIX = ".dclayout-staging-"
MANIFEST = ".complete"  # in a staging folder: every file is written; the names, in the order to move them
_TMP = re.compile(r"\..+\.[A-Za-z0-9_]{8}\.tmp")  # atomic_path's temporary files (tempfile.mkstemp)


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside ``target``; on success it replaces ``target``, on error it is removed."""
    target = Path(target)
    tmp_path = _temp_beside(target)
    try:
        yield tmp_path
        _put_in_place(tmp_path, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp_path.unlink()
        raise


def _mode_for(target: Path) -> int:
    """The mode a new file at ``target`` gets: the mode of the regular file it replaces, else (nothing
    there, or a symbolic link, whose target's mode must not pass to the new file) a new file's mode."""
    with contextlib.suppress(FileNotFoundError):
        st = target.lstat()
        if stat.S_ISREG(st.st_mode):
            return st.st_mode & 0o7777
    return 0o666 & ~_umask()


def safe_name(stem: str) -> str:
    """``stem`` as a name to write files and folders under: every character Python does not print
    (controls such as ESC, format characters, surrogates) becomes ``_``, and so does each leading dot, so
    ``..`` or ``...`` cannot leave the folder nor hide the files (``__``, ``___``); an empty stem is
    ``site``. Any other stem is kept as it is."""
    name = "".join(c if c.isprintable() and c not in "/\\" else "_" for c in stem)
    dots = len(name) - len(name.lstrip("."))
    return "_" * dots + name[dots:] if name else "site"


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


class Settler:
    """Atomic writes whose last step runs in a background thread while the caller goes on: each file
    written to its temporary path is flushed to disk (fsync, where a writer waits on the disk: ~0.3 s
    for the 100k campus's 160 MB of CSV) and only then renamed into place, as :func:`write_bytes` does.
    Leaving the ``with`` block waits for every file (the thread's first failure is raised there, every
    temporary file of a failed or unfinished write removed), so when the block is left the files are in
    place exactly as if written one after another. Use one per thread of work; its thread starts on
    entering (so a forked process makes its own)."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._pending: list[tuple[Future[None], Path]] = []

    def __enter__(self) -> Settler:
        from concurrent.futures import ThreadPoolExecutor

        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="settle")
        return self

    def __exit__(
        self, kind: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self._pool is not None
        self._pool.shutdown(wait=True)
        first: BaseException | None = None
        for fut, tmp in self._pending:
            err = fut.exception()
            if err is not None:
                with contextlib.suppress(FileNotFoundError):
                    tmp.unlink()
                first = first or err
        self._pending.clear()
        if first is not None and kind is None:
            raise first

    def temp(self, target: str | os.PathLike[str]) -> Path:
        """A new temporary file beside ``target`` to write, then hand to :meth:`finish`."""
        return _temp_beside(Path(target))

    def finish(self, tmp: Path, target: str | os.PathLike[str]) -> Path:
        """Flush ``tmp`` (written and closed) to disk and rename it to ``target``, in the background."""
        assert self._pool is not None, "a Settler is used inside its with block"
        target = Path(target)
        self._pending.append((self._pool.submit(_settle, tmp, target), tmp))
        return target

    def write_with(self, target: str | os.PathLike[str], fill: Callable[[BinaryIO], object]) -> Path:
        """``fill(f)`` writes the file into ``f`` (its temporary file, opened for binary writing); its
        flush and rename into place follow in the background. A failed ``fill`` leaves nothing."""
        tmp = self.temp(target)
        try:
            with open(tmp, "wb") as f:
                fill(f)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return self.finish(tmp, target)

    def write_bytes(self, target: str | os.PathLike[str], data: bytes) -> Path:
        """:func:`write_bytes` with its flush and rename in the background."""
        return self.write_with(target, lambda f: f.write(data))


def _temp_beside(target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    return Path(tmp)


def _settle(tmp: Path, target: Path) -> None:
    fd = os.open(tmp, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    _put_in_place(tmp, target)


def _put_in_place(tmp: Path, target: Path) -> None:
    """Rename the written temporary file ``tmp`` to ``target``, with the mode a file there gets."""
    os.chmod(tmp, _mode_for(target))  # mkstemp makes 0600
    os.replace(tmp, target)


def write_text(target: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``target`` atomically (newlines as given, no platform translation)."""
    return write_bytes(target, text.encode(encoding))


class StagedSet:
    """Write the files of one run as a set: into :attr:`folder`, a fresh hidden staging folder inside
    ``out_dir``, then :meth:`publish` renames them into ``out_dir``. Leaving the ``with`` block removes the
    staging folder, so a run that fails before :meth:`publish` leaves ``out_dir`` as it was.

    Entering it first cleans up what killed runs left in ``out_dir`` (:func:`clean_up`). The folder is
    locked while the run lives, so a run into the same folder at the same time is not disturbed."""

    def __init__(self, out_dir: str | os.PathLike[str]):
        self.out = Path(out_dir)
        self.folder = self.out  # set on entering
        self._lock = -1

    def __enter__(self) -> StagedSet:
        self.out.mkdir(parents=True, exist_ok=True)
        clean_up(self.out)
        self.folder = Path(tempfile.mkdtemp(dir=self.out, prefix=STAGING_PREFIX))
        self._lock = _lock(self.folder)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
        if self._lock >= 0:
            os.close(self._lock)

    def publish(self, names: Sequence[str]) -> list[Path]:
        """Rename the staged files ``names`` into the output folder, in that order; returns their final
        paths. Checks first that each is a staged file and that no folder stands where it goes, so a
        refusal changes nothing; then writes the manifest, so a run killed while renaming is finished by
        the next one (:func:`clean_up`)."""
        if len(set(names)) != len(names):
            twice = sorted({n for n in names if names.count(n) > 1})
            raise ValueError(f"two outputs would have the same file name: {', '.join(twice)}")
        for n in names:
            if Path(n).name != n or n in (".", "..") or not (self.folder / n).is_file():
                raise ValueError(f"{n!r} is not a file written in the staging folder")
            target = self.out / n
            if target.is_dir() and not target.is_symlink():
                raise IsADirectoryError(f"{target} is a folder: cannot write the output there")
        manifest = "".join(f"{n}\n" for n in names)
        write_text(self.folder / MANIFEST, manifest)
        _move_all(self.folder, self.out, names)
        return [self.out / n for n in names]


def file_digests(paths: Sequence[Path]) -> dict[str, dict[str, Any]]:
    """Per file name, its size and SHA-256: what ``summary.json`` records of the other files of its set."""
    out: dict[str, dict[str, Any]] = {}
    for p in paths:
        h = hashlib.sha256()
        with open(p, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        out[p.name] = {"bytes": p.stat().st_size, "sha256": h.hexdigest()}
    return dict(sorted(out.items()))


def set_problems(out_dir: str | os.PathLike[str]) -> list[str]:
    """Whether ``out_dir`` holds one whole output set, as a reader checks it: every file its
    ``summary.json`` lists is there with the size and SHA-256 recorded. Returns one line per file that
    is missing or differs (a set being written, or one a killed run left mixed); empty when whole."""
    out = Path(out_dir)
    try:
        listed = json.loads((out / "summary.json").read_text("utf-8")).get("files", {})
    except (OSError, ValueError) as e:
        return [f"summary.json: cannot be read ({e})"]
    problems = []
    for name, want in sorted(listed.items()):
        path = out / name
        if not path.is_file():
            problems.append(f"{name}: missing")
        elif file_digests([path])[name] != want:
            problems.append(f"{name}: not the file this summary.json was written with")
    return problems


def clean_up(out_dir: str | os.PathLike[str]) -> None:
    """Clean up what killed runs left in ``out_dir``: a staging folder whose run is gone is finished (its
    manifest written: the run was killed while renaming, so the rest of its set is moved into place) or
    else removed; atomic_path's temporary files are removed. A live run's (locked) folder is left alone."""
    out = Path(out_dir)
    with os.scandir(out) as entries:
        found = [(e.name, e.is_dir(follow_symlinks=False)) for e in entries]
    for name, is_dir in sorted(found):
        path = out / name
        if is_dir and name.startswith(STAGING_PREFIX):
            try:
                lock = _lock(path, wait=False)
            except (BlockingIOError, FileNotFoundError):
                continue  # a live run's, or removed meanwhile
            try:
                with contextlib.suppress(FileNotFoundError):
                    names = (path / MANIFEST).read_text("utf-8").splitlines()
                    _move_all(path, out, names)
                shutil.rmtree(path, ignore_errors=True)
            finally:
                os.close(lock)
        elif not is_dir and _TMP.fullmatch(name):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()


def _move_all(folder: Path, out: Path, names: Sequence[str]) -> None:
    """Move each of ``names`` still in ``folder`` to ``out``: a file it replaces passes on its mode."""
    for n in names:
        src = folder / n
        if Path(n).name == n and src.is_file():
            os.chmod(src, _mode_for(out / n))
            os.replace(src, out / n)


def _lock(folder: Path, wait: bool = True) -> int:
    """Open ``folder`` and take its exclusive lock (``wait=False``: raise BlockingIOError if a live run
    holds it); returns the descriptor, which holds the lock until closed (or the process ends)."""
    fd = os.open(folder, os.O_RDONLY)
    if fcntl is not None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BaseException:
            os.close(fd)
            raise
    return fd
