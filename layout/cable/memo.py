"""What one run of the cabling stage leaves for the next (a front end's CableCache): per-link memos.

A link's medium and stock length are functions of its own values alone (length and speed; basis and
medium), so the next run takes them from the last run's for every link whose values are bitwise the
same and works out only the links an edit moved (:func:`pick_again`, :func:`stock_again`); the cable
counts are sums over links, so only the moved links are taken out and put in again
(layout.cable.media.cable_counts_again).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from layout.cable.media import CableCounts, MediaTable


@dataclass(frozen=True)
class ElementMemo:
    """One run's inputs and outputs of a per-link function (aligned arrays): the next run takes the
    output of every link whose inputs are bitwise the same, and computes the rest."""

    inputs: tuple[np.ndarray, ...]
    output: np.ndarray

    def same(self, inputs: tuple[np.ndarray, ...]) -> np.ndarray | None:
        """Per link, whether its inputs equal this memo's (None: not comparable, e.g. another fabric's
        links). NaN is never the same, so it is computed again."""
        moved = self.moved(inputs)
        return None if moved is None else ~moved

    def moved(self, inputs: tuple[np.ndarray, ...]) -> np.ndarray | None:
        """Per link, whether some input differs from this memo's (NaN always does); None as ``same``."""
        if len(inputs) != len(self.inputs) or any(
            a.shape != b.shape or a.dtype != b.dtype for a, b in zip(inputs, self.inputs, strict=True)
        ):
            return None
        if not inputs:
            return np.zeros(len(self.output), dtype=bool)
        moved = np.asarray(inputs[0] != self.inputs[0])
        for a, b in zip(inputs[1:], self.inputs[1:], strict=True):
            moved |= a != b
        return moved


@dataclass(frozen=True)
class LinkPicks:
    """A cabling's per-link media picks and stock lengths, and its cable counts, for the next run of the
    same catalog."""

    pick: ElementMemo  # (length_m, speed_gbps) -> medium index (MediaTable.pick)
    stock: ElementMemo  # (stock_basis_m, medium index after cage sharing) -> stock length
    counts: CableCounts  # (medium index, stock length) -> cables per medium and stock length


def pick_again(
    mt: MediaTable, length_m: np.ndarray, speed_gbps: np.ndarray, earlier: ElementMemo | None
) -> np.ndarray:
    """``mt.pick(length_m, speed_gbps)``, taking each link's medium from ``earlier`` (the same catalog's
    last picks) where its length and speed are the same: ``pick`` is a function of each link's own
    length and speed, so the result is the same; a one-hall edit re-picks only the links it moved."""
    return _again(lambda m: mt.pick(length_m[m], speed_gbps[m]), (length_m, speed_gbps), earlier)


def stock_again(
    mt: MediaTable, basis_m: np.ndarray, code: np.ndarray, earlier: ElementMemo | None
) -> np.ndarray:
    """``mt.stock_length(basis_m, code)`` with ``earlier``'s stock length wherever basis and medium are
    the same (a function of each link's own two values, as ``pick_again``)."""
    return _again(lambda m: mt.stock_length(basis_m[m], code[m]), (basis_m, code), earlier)


def _again(
    compute: Callable[[np.ndarray | slice], np.ndarray],
    inputs: tuple[np.ndarray, ...],
    earlier: ElementMemo | None,
) -> np.ndarray:
    moved = earlier.moved(inputs) if earlier is not None else None
    if earlier is None or moved is None:
        return compute(slice(None))
    out = earlier.output.copy()
    todo = np.flatnonzero(moved)
    if len(todo):
        out[todo] = compute(todo)
    return out
