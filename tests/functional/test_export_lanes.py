"""Exports written by forked workers (export.write's ``jobs``, layout/export/lanes.py): the same files,
byte for byte and in the same order, as one process writes; a worker's failure is raised here with its
own exception and leaves the previous set whole; a worker that dies is an OSError naming its kinds."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from layout import export
from layout.export import lanes

ALL = ["summary", "svg", "dxf", "pdf", "csv", "xlsx", "parquet"]

pytestmark = pytest.mark.skipif(not lanes.can_fork(), reason="export workers need the fork start method")


def _listing(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_workers_write_the_bytes_one_process_writes(tmp_path: Path, design_of: Callable[[str], Any]) -> None:
    d = design_of("superpod-4su")
    one = export.write(d, ALL, tmp_path / "one")
    many = export.write(d, ALL, tmp_path / "many", jobs=2)
    assert [p.name for p in many] == [p.name for p in one]  # the order of KINDS
    assert {p.suffix for p in many} >= {".dxf", ".pdf", ".csv", ".xlsx", ".parquet", ".svg", ".json"}
    assert _listing(tmp_path / "many") == _listing(tmp_path / "one")


def test_a_failing_worker_raises_its_error_and_keeps_the_previous_set(
    tmp_path: Path, design_of: Callable[[str], Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    d = design_of("superpod-4su")
    out = tmp_path / "out"
    export.write(d, ALL, out)
    before = _listing(out)
    import layout.export.dxf as dxf

    def broken(*args: Any, **kwargs: Any) -> Path:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(dxf, "write_scene", broken)  # runs in the DXF's worker (forked after the patch)
    with pytest.raises(OSError, match="No space left on device"):
        export.write(d, ALL, out, jobs=2)
    assert _listing(out) == before


def test_a_worker_that_dies_is_an_error_naming_its_kinds(
    tmp_path: Path, design_of: Callable[[str], Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    d = design_of("superpod-4su")
    from layout.export import tables

    def dies(*args: Any, **kwargs: Any) -> list[Path]:
        os._exit(9)

    monkeypatch.setattr(tables, "write_tables_of", dies)
    with pytest.raises(OSError, match="csv, parquet, xlsx died without an answer"):
        export.write(d, ALL, tmp_path / "out", jobs=2)
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())
