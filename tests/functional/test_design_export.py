"""Atomic writes (layout.export.atomic): a reader never sees half a file; a failure leaves nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from layout.export.atomic import atomic_path, write_bytes, write_text


def test_write_replaces_the_whole_file(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "summary.json"
    write_text(target, "first\n")
    write_text(target, "second\n")
    assert target.read_text() == "second\n"
    assert sorted(p.name for p in target.parent.iterdir()) == ["summary.json"]
    write_bytes(target, b"\x00\x01")
    assert target.read_bytes() == b"\x00\x01"


def test_failure_keeps_the_old_file_and_removes_the_temp(tmp_path: Path) -> None:
    target = tmp_path / "plan.svg"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text("half")
        assert tmp.parent == target.parent and tmp != target
        raise RuntimeError("export broke")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.svg"]


def test_library_writes_to_the_yielded_path(tmp_path: Path) -> None:
    target = tmp_path / "drawing.dxf"
    with atomic_path(target) as tmp:
        tmp.write_bytes(b"0\nEOF\n")
        assert not target.exists()
    assert target.read_bytes() == b"0\nEOF\n"


def test_written_files_follow_the_umask_not_mkstemp_s_0600(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        path = write_text(tmp_path / "a.json", "{}\n")
    finally:
        os.umask(old)
    assert (path.stat().st_mode & 0o777) == 0o644
