"""Heat: each hall's racks against its cooling capacity (pure), and the in-order packing of loads into
units that the power chain and the CDUs share.

A hall rejects ``cooling_mw`` of heat, or by default its floor area x the catalog's kW per m2 for its
cooling type (layout/capacity.py: ``hall_cooling_mw``, which the placer reads too). The placer fills
halls within both their power (``it_mw``) and this; a hall whose racks draw more is a ``cooling``
violation with the figures (:func:`heat_violations`). Every kW of IT ends as heat in the hall. The CDUs
of liquid halls are in layout/power/cdus.py.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from layout.capacity import cooling_basis
from layout.violations import Violation

if TYPE_CHECKING:
    from layout.load import Inputs


def heat_violations(inputs: Inputs, halls: pd.DataFrame) -> list[Violation]:
    """A ``cooling`` violation per hall whose IT (``it_kw``) exceeds its ``cooling_mw``."""
    models = {f"{b.id}/{h.id}": h for b, h in inputs.site.halls()}
    out = []
    for key, kw, racks, cap in zip(
        halls["hall"].tolist(),
        halls["it_kw"].tolist(),
        halls["racks"].tolist(),
        halls["cooling_mw"].tolist(),
        strict=True,
    ):
        if cap is None or not np.isfinite(cap) or kw / 1000.0 <= cap + 1e-9:
            continue
        mw = kw / 1000.0
        out.append(
            Violation(
                "cooling",
                str(key),
                f"hall {key} rejects at most {cap:.2f} MW of heat ({cooling_basis(models[key], inputs.catalog)}) "
                f"but its {racks} racks draw {mw:.2f} MW ({mw - cap:.2f} MW over)",
                "move racks to another hall, add halls, raise the hall's cooling_mw, or change its cooling",
                {"it_mw": round(mw, 3), "cooling_mw": round(cap, 3), "racks": int(racks)},
            )
        )
    return out


def pack_in_order(loads: list[float], cap: float, split: bool = True) -> list[list[int]]:
    """Loads in order into bins of ``cap``: a bin takes loads while they fit; a load above ``cap`` takes
    bins of its own: ceil(load / cap) of them to share it out over (``split``), else one (over its
    rating). Returns, per bin, its loads' indices."""
    bins: list[list[int]] = []
    room, open_bin = 0.0, False
    for i, kw in enumerate(loads):
        if kw > cap + 1e-9:
            bins += [[i] for _ in range(math.ceil(kw / cap - 1e-9) if split else 1)]
            open_bin = False
        elif open_bin and kw <= room + 1e-9:
            bins[-1].append(i)
            room -= kw
        else:
            bins.append([i])
            room, open_bin = cap - kw, True
    return bins
