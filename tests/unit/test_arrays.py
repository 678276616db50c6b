"""layout.arrays: the hashing unique equals numpy's sorting one on every kind of key array (runs of
equal neighbours, keys that fit in 32 bits and keys that do not, negatives, empty)."""

from __future__ import annotations

import numpy as np
import pytest

from layout.arrays import unique_counts, unique_inverse


@pytest.mark.parametrize("kind", ["small", "runs", "int32-range", "wide", "unsigned", "shuffled-runs"])
def test_unique_inverse_equals_numpy(kind: str) -> None:
    rng = np.random.default_rng(len(kind))
    for n in (0, 1, 2, 7, 500, 5000):
        if kind == "small":
            k = rng.integers(-5, 5, n)
        elif kind == "runs":  # the links of one rack pair come together
            k = np.repeat(rng.integers(0, 2**40, max(1, n // 10)), 10)[:n]
        elif kind == "int32-range":
            k = np.sort(rng.integers(-(2**31), 2**31 - 1, n))
        elif kind == "wide":
            k = rng.integers(0, 2**62, n)
        elif kind == "unsigned":
            k = rng.integers(0, 2**40, n).astype(np.uint64)
        else:
            k = rng.permutation(np.repeat(rng.integers(0, 50, max(1, n // 5)), 5)[:n])
        uniques, inverse = unique_inverse(k)
        want_u, want_i = np.unique(k, return_inverse=True)
        assert uniques.dtype == k.dtype
        assert np.array_equal(uniques, want_u)
        assert np.array_equal(inverse, want_i.ravel())
        u, counts = unique_counts(k)
        assert np.array_equal(counts, np.unique(k, return_counts=True)[1])
