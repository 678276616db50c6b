"""Shared fixtures: the shipped sites (loaded and designed once per test session) and small sites built
in code.

- ``shipped_sites``: the stems of ``sites/*.toml``.
- ``inputs_of(stem)`` / ``design_of(stem)``: a shipped site's validated inputs / ``design.run`` result,
  built once per session (the 100k campus is the expensive one: ask for it in one place only).
- ``dclayout(command, *args, cwd=ROOT)``: run ``python -m layout command args...`` in a subprocess (text
  output captured; 5 min timeout) and return the CompletedProcess.
- ``handbuilt`` (tests/data/cabling/handbuilt.py, importable as a module): hand-built placement and
  fabric tables for the cabling tests.
- ``block_writes(site)``: make saving ``site`` fail like a folder the user cannot write (see there).
- ``make_inputs(**changes)``: a small one-hall site (10 m x 6 m hall, 1 SU of 32 DGX H100 on QM9700,
  rail, no side networks) with ``changes`` deep-merged into its TOML data, validated like a site file.
"""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from layout.load import DEFAULT_TEMPLATES_DIR, Inputs, load_catalog, load_site, load_templates, site_from_data

ROOT = Path(__file__).resolve().parents[1]
SITES_DIR = ROOT / "sites"
sys.path.insert(0, str(ROOT / "tests" / "data" / "cabling"))  # the cabling tests: `import handbuilt as hb`
sys.path.insert(0, str(ROOT / "tests" / "data" / "drawings"))  # the drawing tests: `import plotcheck`
SHIPPED = sorted(p.stem for p in SITES_DIR.glob("*.toml"))

SMALL_SITE: dict[str, Any] = {
    "format": 1,
    "site": {"name": "small test site", "utility_mw": 5.0, "pue": 1.25, "electricity_usd_per_kwh": 0.1},
    "building": [
        {
            "id": "B1",
            "footprint": [[0, 0], [40, 0], [40, 30], [0, 30]],
            "entry": [0, 3],
            "hall": [
                {
                    "id": "H1",
                    "polygon": [[0, 0], [10, 0], [10, 6], [0, 6]],
                    "cooling": "rear-door",
                    "max_rack_kw": 45.0,
                    "floor_load_kg_m2": 1500.0,
                    "row_axis": "x",
                    "cold_aisle_m": 1.2,
                    "hot_aisle_m": 1.2,
                    "wall_clearance_m": 0.5,
                    "cross_aisle_m": 1.2,
                    "max_row_racks": 20,
                    # 60 m2 would reject 0.3 MW at the catalog's 5 kW/m2 for rear-door, less than the
                    # one SU draws; tests of heat set it (tests/unit/test_cooling.py)
                    "cooling_mw": 5.0,
                }
            ],
        }
    ],
    "cluster": {
        "gpus": 256,
        "server": "dgx-h100",
        "rack": "dgx-h100-x4",
        "rack_low_density": "dgx-h100-x2",
        "switch": "qm9700",
        "design": "rail",
        "nic": "cx7",
    },
}


def merge(base: Any, changes: Any) -> Any:
    """Deep-merge ``changes`` into a copy of ``base``: dicts merge key by key, lists of dicts item by
    item (``{0: {...}}`` patches item 0), anything else replaces."""
    if isinstance(base, dict) and isinstance(changes, dict):
        out = dict(base)
        for k, v in changes.items():
            out[k] = merge(base[k], v) if k in base else copy.deepcopy(v)
        return out
    if isinstance(base, list) and isinstance(changes, dict) and all(isinstance(k, int) for k in changes):
        out_list = list(base)
        for i, v in changes.items():
            out_list[i] = merge(base[i], v)
        return out_list
    return copy.deepcopy(changes)


@pytest.fixture(scope="session")
def shipped_sites() -> list[str]:
    return list(SHIPPED)


@pytest.fixture(scope="session")
def written_entities() -> Callable[[Any], tuple[str, str, int]]:
    """What ezdxf writes for a document's model space: the DXF text of its entities (from the first to
    the end of the ENTITIES section), the model space's owner handle and the first entity's handle."""

    def written(doc: Any) -> tuple[str, str, int]:
        import io

        msp = doc.modelspace()
        stream = io.StringIO()
        doc.write(stream)
        text = stream.getvalue()
        start = text.index("  0\n", text.index("ENTITIES\n"))
        return (
            text[start : text.index("  0\nENDSEC\n", start)],
            msp.layout_key,
            int(next(iter(msp)).dxf.handle, 16),
        )

    return written


@pytest.fixture(scope="session")
def dclayout() -> Callable[..., subprocess.CompletedProcess[str]]:
    def run(command: str, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "layout", command, *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=300,
        )

    return run


@pytest.fixture(scope="session")
def inputs_of() -> Callable[[str], Inputs]:
    cache: dict[str, Inputs] = {}

    def get(stem: str) -> Inputs:
        if stem not in cache:
            cache[stem] = load_site(SITES_DIR / f"{stem}.toml")
        return cache[stem]

    return get


@pytest.fixture(scope="session")
def design_of(inputs_of: Callable[[str], Inputs]) -> Callable[[str], Any]:
    from layout import design

    cache: dict[str, Any] = {}

    def get(stem: str) -> Any:
        if stem not in cache:
            cache[stem] = design.run(inputs_of(stem))
        return cache[stem]

    return get


@pytest.fixture(scope="session")
def make_inputs() -> Callable[..., Inputs]:
    catalog = load_catalog(DEFAULT_TEMPLATES_DIR)
    templates = load_templates(DEFAULT_TEMPLATES_DIR)

    def make(changes: dict[str, Any] | None = None, name: str = "small.toml") -> Inputs:
        data = merge(SMALL_SITE, changes or {})
        return site_from_data(data, Path(name), catalog, templates, DEFAULT_TEMPLATES_DIR)

    return make


def assert_same_design(a: Any, b: Any) -> None:
    """Two designs are the same: the summary, and every table, array and figure of the fabric, the
    placement, the cabling (trays included), the power report and the BOM (DataFrame.equals, dtypes and
    column order too; NaN equals NaN), the reliability figures and the violations."""
    assert a.summary() == b.summary()
    _same(a.fabric.devices, b.fabric.devices, "fabric.devices")
    _same(a.fabric.links, b.fabric.links, "fabric.links")
    for part in ("fabric", "placement", "cabling", "power", "bom", "reliability", "violations"):
        _same(getattr(a, part), getattr(b, part), part)


def _same(x: Any, y: Any, where: str) -> None:
    import dataclasses

    import numpy as np
    import pandas as pd

    assert type(x) is type(y), where
    if isinstance(x, pd.DataFrame):
        assert list(x.columns) == list(y.columns) and list(x.dtypes) == list(y.dtypes), where
        assert x.equals(y), where
    elif isinstance(x, np.ndarray):
        assert x.dtype == y.dtype and x.shape == y.shape, where
        assert pd.Series(x.ravel()).equals(pd.Series(y.ravel())), where
    elif dataclasses.is_dataclass(x) and not isinstance(x, type) and not hasattr(x, "model_fields"):
        for f in dataclasses.fields(x):
            _same(getattr(x, f.name), getattr(y, f.name), f"{where}.{f.name}")
    elif isinstance(x, dict):
        assert list(x) == list(y), where
        for k in x:
            _same(x[k], y[k], f"{where}[{k!r}]")
    elif isinstance(x, list | tuple):
        assert len(x) == len(y), where
        for i, (u, v) in enumerate(zip(x, y, strict=True)):
            _same(u, v, f"{where}[{i}]")
    elif isinstance(x, float) and x != x:
        assert y != y, where
    else:
        assert x == y, where


@pytest.fixture(scope="session")
def same_design() -> Callable[[Any, Any], None]:
    """``same_design(a, b)``: assert_same_design (every table of two designs equal)."""
    return assert_same_design


@pytest.fixture
def block_writes() -> Iterator[Callable[[Path], bool]]:
    """``block_writes(site)``: make the folder of an open ``site`` unwritable; returns whether the file
    then also reads as gone (so a save first says it changed on disk).

    Not root: the folder is made read-only (0o555; put back at teardown). Root writes into a read-only
    folder, so there the folder is moved away and a regular file takes its name: the site's path then
    runs through a file, and every write under it fails (NotADirectoryError)."""
    undo: list[Callable[[], None]] = []

    def block(site: Path) -> bool:
        folder = site.parent
        if os.geteuid() != 0:
            folder.chmod(0o555)
            undo.append(lambda: folder.chmod(0o755))
            return False
        moved = folder.with_name(folder.name + "-moved")
        folder.rename(moved)
        folder.write_text("a regular file where the site's folder was\n")
        undo.append(lambda: (folder.unlink(), moved.rename(folder)))
        return True

    yield block
    for u in reversed(undo):
        u()


def leave_out(monkeypatch: pytest.MonkeyPatch, module: Any, fn: str, part: str) -> None:
    """``module.fn`` (a function giving a cache key by name) made to leave ``part`` out of the key, to
    show a test catches a key that is not complete (a stale value is then taken)."""
    full = getattr(module, fn)

    def without(*args: Any) -> dict[str, Any]:
        key: dict[str, Any] = full(*args)
        del key[part]
        return key

    monkeypatch.setattr(module, fn, without)
