"""The engine (layout.engine.cluster) in this process: results in item order, a raising task as its
item's Failed, the per-thread state kept between tasks, and a scheduler address that cannot be reached
as one clean line (exit code 2 from the CLI)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from layout.engine import Engine, Failed
from layout.errors import InputError

ROOT = Path(__file__).resolve().parents[2]


def _div(shared: int, item: int, state: dict[str, Any]) -> int:
    state["calls"] = state.get("calls", 0) + 1
    return shared // item


def test_a_local_engine_keeps_order_state_and_reports_failures() -> None:
    seen: list[int] = []
    with Engine(workers=1) as e:
        assert e.local and e.n_workers() == 1
        got = e.map(_div, 12, [1, 0, 4, 3], done=lambda i, r: seen.append(i))
        assert e._local_state["calls"] == 4
    assert got == [12, Failed("ZeroDivisionError: integer division or modulo by zero"), 3, 4]
    assert seen == [0, 1, 2, 3]


def test_a_scheduler_address_that_is_no_address_is_refused() -> None:
    with pytest.raises(InputError) as e, Engine("nonsense"):
        pass
    assert str(e.value).startswith("--scheduler: nonsense: no Dask scheduler answers there (")


def test_the_cli_says_it_in_one_line(dclayout: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    res = dclayout("optimize", str(ROOT / "sites" / "superpod-4su.toml"), "--scheduler", "nonsense")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("--scheduler: nonsense: no Dask scheduler")
