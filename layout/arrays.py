"""Vectorised table helpers shared by the pipeline stages."""

from __future__ import annotations

import numpy as np
import pandas as pd


def unique_inverse(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, return_inverse=True)`` for a 1-D integer array, by hashing (pandas.factorize)
    instead of sorting every element: on the 100k campus's ~450,000 link keys, ~5 ms instead of ~35 ms.
    Same result: the sorted distinct keys, and each key's index into them."""
    inverse, uniques = pd.factorize(np.asarray(keys), sort=True)
    return np.asarray(uniques), inverse.astype(np.int64)


def unique_counts(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, return_counts=True)`` for a 1-D integer array, by hashing (see unique_inverse)."""
    uniques, inverse = unique_inverse(keys)
    return uniques, np.bincount(inverse, minlength=len(uniques)).astype(np.int64)
