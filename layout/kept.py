"""A small store of values kept from one pipeline run for the next (the TUI reruns the design per edit)."""

from __future__ import annotations

from typing import Generic, TypeVar

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

    def known_keys(self) -> list[K]:
        return [k for k, _ in self._items]

    def clear(self) -> None:
        self._items = []

    def __len__(self) -> int:
        return len(self._items)
