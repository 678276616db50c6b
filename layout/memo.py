"""What a front end that designs the same site again and again keeps between runs: stage results by the
content token of their inputs, passed explicitly (``design.run(inputs, memo=Memo())``).

``design.run(inputs)`` keeps nothing. A front end that reruns the design per edit (the TUI, an engine
worker) passes one :class:`Memo` to every run. Each stage's result is kept under a *token*: a digest of
the stage's narrow input (layout/cable/inputs.py ``CableInput``, layout/power/facility.py
``FacilityInput``, ...) and of the tokens of the stage results it is given. A stage therefore takes a
kept result only when everything it reads is the same, and a token is derived from the upstream
stage's token, never from hashing a big table.

Inside the stages smaller pieces are kept the same way, where the benchmark of a one-hall edit of the
100k campus shows they pay (bench/bench_design.py ``--one-hall``): per fabric, its devices grouped for
placement, its port skeleton and its BOM rows; per hall, its floor grid, its aisle check and its piece
of the tray network; per zone (a building), its layout (layout/place/zones.py: an edit of one hall lays
out its building alone); and the rack loads of a placement and cabling, which an edit of a hall's
limits does not change. They use :class:`Scope`: the memo and the tokens of the results the stage was
given, so a piece's token is its own parts and those upstream tokens.

A memo holds only immutable values (frozen dataclasses with read-only arrays); it may be shared by the
runs of one thread after another, or by threads (a lock guards its stores).
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from pathlib import PurePath
from typing import Any, NamedTuple, TypeVar

import numpy as np
import pandas as pd
from pydantic import BaseModel

V = TypeVar("V")

# results kept per stage: the design shown, the one before (undo) and a toggle back and forth
LIMITS: dict[str, int] = {
    "fabric": 4,
    "place": 3,
    "place.devices": 4,  # per fabric
    "place.hall_grid": 64,  # per hall: every hall of a large campus, before and after an edit
    "place.zone_trial": 32,  # a campus makes 4 trials a run, seed002 a few more
    "place.zone_final": 12,  # every spot of a zone (~2,400 on a campus building): three of each zone
    "place.hall_aisles": 64,  # per hall
    "cable": 3,
    "cable.skeleton": 4,  # per fabric
    "cable.hall_trays": 64,  # every hall of a large campus, before and after an edit
    "power": 3,
    "power.loads": 3,
    "chain": 3,
    "liquid": 3,
    "bom": 3,
    "bom.fabric_parts": 4,  # per fabric
    "reliability": 3,
}
DEFAULT_LIMIT = 4


def token(*parts: Any) -> str:
    """A digest of ``parts`` by content: pydantic models by their JSON, arrays and tables by dtype,
    shape and bytes, dataclasses field by field, containers item by item, :class:`Token` by its text.
    Anything else is refused (a value compared by identity would make a kept result look fresh)."""
    h = hashlib.blake2b(digest_size=16)
    _feed(h, parts)
    return h.hexdigest()


class Token(str):
    """A token already worked out (a stage result's): fed as it is, not hashed again."""


def _feed(h: Any, x: Any) -> None:
    if isinstance(x, Token):
        h.update(b"T" + x.encode())
    elif x is None or isinstance(x, (bool, int, float, str, bytes, PurePath)):
        h.update(f"{type(x).__name__}:{x!r};".encode())
    elif isinstance(x, BaseModel):
        h.update(f"M{type(x).__qualname__}:".encode())
        h.update(x.model_dump_json().encode())
    elif isinstance(x, np.ndarray):
        h.update(f"A{x.dtype.str}{x.shape};".encode())
        if x.dtype.kind == "O" and all(type(v) is str for v in x.ravel().tolist()):
            h.update("\x00".join(x.ravel().tolist()).encode("utf-8", "surrogatepass"))
        elif x.dtype.kind == "O":
            _feed(h, x.tolist())
        else:
            h.update(np.ascontiguousarray(x).tobytes())
    elif isinstance(x, np.generic):
        _feed(h, x.item())
    elif isinstance(x, pd.DataFrame):
        h.update(b"D")
        for c in x.columns:
            _feed(h, (str(c), str(x[c].dtype), np.asarray(x[c].to_numpy())))
    elif isinstance(x, Mapping):
        h.update(b"{")
        for k in sorted(x, key=repr):
            _feed(h, k)
            _feed(h, x[k])
        h.update(b"}")
    elif isinstance(x, (frozenset, set)):
        _feed(h, sorted(x, key=repr))
    elif isinstance(x, (list, tuple)):
        h.update(f"[{len(x)}".encode())
        for item in x:
            _feed(h, item)
        h.update(b"]")
    elif dataclasses.is_dataclass(x) and not isinstance(x, type):
        h.update(f"C{type(x).__qualname__}".encode())
        for f in dataclasses.fields(x):
            _feed(h, (f.name, getattr(x, f.name)))
    else:
        raise TypeError(f"no content token for a {type(x).__name__}")


class Memo:
    """Stage results by token, the newest ``LIMITS[stage]`` of each stage (see the module docstring)."""

    def __init__(self, limits: Mapping[str, int] | None = None) -> None:
        self._limits = dict(LIMITS if limits is None else limits)
        self._stores: dict[str, OrderedDict[str, Any]] = {}
        self._lock = threading.Lock()

    def take(self, stage: str, key: str, make: Callable[[], V]) -> V:
        """The result kept for ``key`` in ``stage``'s store, else ``make()`` (then kept); either is then
        the newest. ``make`` runs outside the lock."""
        with self._lock:
            store = self._stores.setdefault(stage, OrderedDict())
            if key in store:
                store.move_to_end(key)
                return store[key]  # type: ignore[no-any-return]
        value = make()
        with self._lock:
            store[key] = value
            store.move_to_end(key)
            while len(store) > self._limits.get(stage, DEFAULT_LIMIT):
                store.popitem(last=False)
        return value

    def sizes(self) -> dict[str, int]:
        """How many results each stage's store holds (for the benchmarks' notes)."""
        with self._lock:
            return {k: len(v) for k, v in sorted(self._stores.items())}

    def clear(self) -> None:
        with self._lock:
            self._stores.clear()


class Scope(NamedTuple):
    """A stage's view of a memo for the pieces it keeps: the memo and the tokens of the results it was
    given (``upstream``), which every piece's token includes."""

    memo: Memo
    upstream: Token

    def take(self, piece: str, parts: tuple[Any, ...], make: Callable[[], V]) -> V:
        return self.memo.take(piece, token(self.upstream, piece, parts), make)
