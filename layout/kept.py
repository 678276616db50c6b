"""A small store of values kept from one pipeline run for the next (the TUI reruns the design per edit)."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import numpy as np
import pandas as pd

K = TypeVar("K")
V = TypeVar("V")


class Kept(Generic[K, V]):
    """The last ``limit`` values put, by key, newest last. Keys are compared with ``==``, so they need not
    be hashable (site and catalog models hold dicts). Safe to share between threads: the list is replaced
    whole, never changed in place."""

    def __init__(self, limit: int):
        self.limit = limit
        self._items: list[tuple[K, V]] = []

    def get(self, key: K) -> V | None:
        return next((v for k, v in self._items if k == key), None)

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` as the newest; the oldest goes when more than ``limit`` are kept."""
        others = [(k, v) for k, v in self._items if k != key]
        self._items = [*others[max(len(others) - (self.limit - 1), 0) :], (key, value)]

    def take(self, key: K, make: Callable[[], V]) -> V:
        """The value kept for ``key``, else ``make()``; either is then the newest. One pass over the
        keys (``get`` then ``put`` compares each key twice: for keys holding tables, twice the cost)."""
        items = self._items
        for i, (k, v) in enumerate(items):
            if k == key:
                self._items = [*items[:i], *items[i + 1 :], (k, v)]
                return v
        value = make()
        self._items = [*items[max(len(items) - (self.limit - 1), 0) :], (key, value)]
        return value

    def known_keys(self) -> list[K]:
        return [k for k, _ in self._items]

    def clear(self) -> None:
        self._items = []

    def __len__(self) -> int:
        return len(self._items)


class Content:
    """Tables and arrays inside a cache key, compared by what they hold (``DataFrame.equals`` with the
    same columns and dtypes, ``np.array_equal`` with the same dtype and shape; NaN equals NaN), not by
    identity: two runs that placed the same racks give equal keys though their tables are new objects."""

    __slots__ = ("items",)

    def __init__(self, *items: Any):
        self.items = items

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Content) or len(other.items) != len(self.items):
            return False
        return all(_same(a, b) for a, b in zip(self.items, other.items, strict=True))

    __hash__ = None  # type: ignore[assignment]  # compared, never hashed (Kept compares keys with ==)


class Same:
    """An immutable value inside a cache key, compared as the very object (``is``) and held by a weak
    reference. For values a run takes from an earlier run's store and never changes (a cabling from the
    CableCache, a placement from the PlaceCache): a hit costs nothing, a miss does not compare their
    450,000-row tables, and the key does not keep the value alive once its own store has let it go (a
    dead reference equals nothing)."""

    __slots__ = ("_ref",)

    def __init__(self, value: Any):
        self._ref = weakref.ref(value)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Same):
            return False
        mine = self._ref()
        return mine is not None and mine is other._ref()

    __hash__ = None  # type: ignore[assignment]  # compared, never hashed (Kept compares keys with ==)


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if isinstance(a, pd.DataFrame):
        return (
            isinstance(b, pd.DataFrame)
            and list(a.columns) == list(b.columns)
            and list(a.dtypes) == list(b.dtypes)
            and a.equals(b)
        )
    if isinstance(a, np.ndarray):
        return (
            isinstance(b, np.ndarray)
            and a.dtype == b.dtype
            and a.shape == b.shape
            and bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
        )
    return bool(a == b)
