"""Vectorised table helpers shared by the pipeline stages."""

from __future__ import annotations

import numpy as np
import pandas as pd


def unique_inverse(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, return_inverse=True)`` for a 1-D integer array, by hashing (pandas.factorize)
    instead of sorting every element: on the 100k campus's ~450,000 link keys, ~5 ms instead of ~35 ms.
    Same result: the sorted distinct keys (of the keys' dtype), and each key's index into them.

    Two shortcuts that change nothing in the result: runs of equal neighbours (the links of one rack
    pair come together: ~42,000 runs in the campus's 436,000 tray links) are hashed once per run, and
    keys that fit in 32 bits are hashed as such (half the memory to walk): 6.3 -> ~2 ms there."""
    keys = np.asarray(keys)
    n = len(keys)
    if n == 0 or keys.dtype.kind not in "iu":
        inverse, uniques = pd.factorize(keys, sort=True)
        return np.asarray(uniques), inverse.astype(np.int64)
    small = keys
    if keys.dtype.itemsize > 4 and int(keys.min()) >= -(2**31) and int(keys.max()) < 2**31:
        small = keys.astype(np.int32)
    brk = np.empty(n, dtype=bool)
    brk[0] = True
    np.not_equal(small[1:], small[:-1], out=brk[1:])
    starts = np.flatnonzero(brk)
    if len(starts) * 2 < n:
        codes, uniques = pd.factorize(small[starts], sort=True)
        inverse = np.repeat(codes.astype(np.int64), np.diff(np.r_[starts, n]))
    else:
        codes, uniques = pd.factorize(small, sort=True)
        inverse = codes.astype(np.int64)
    return np.asarray(uniques).astype(keys.dtype, copy=False), inverse


def unique_counts(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, return_counts=True)`` for a 1-D integer array, by hashing (see unique_inverse)."""
    uniques, inverse = unique_inverse(keys)
    return uniques, np.bincount(inverse, minlength=len(uniques)).astype(np.int64)
