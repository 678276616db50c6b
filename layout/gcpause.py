"""The garbage collector paused around bulk work that makes many objects and few reference cycles (a
design run, an export): every young collection would walk the same surviving tables' and drawing
entities' objects again and again. On the 100k campus the exports spend ~1.8 s of ~8.5 s CPU in the
collector without the pause (bench/bench_exports.py ``all``)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collections_paused(pause: bool = True) -> Iterator[None]:
    """No garbage collection while the block runs, then the collector as it was; the next collection
    sees each object once (the cycles the block made, such as an ezdxf document's, are freed then).
    ``pause`` False: as it is."""
    was = gc.isenabled()
    if pause:
        gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
