"""Shared by the bench/ scripts: the repo root on sys.path, and best/median timing of a callable."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def timed(fn: Callable[[], object], runs: int) -> tuple[float, float, object]:
    """Best and median wall time of ``runs`` calls, and the last result."""
    out: object = None
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times), out
