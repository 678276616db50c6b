"""One design run for the UI: the Design, its summary, BOM and cost, computed off the UI thread.

The pipeline modules are imported inside :func:`compute` (which runs in a worker thread), so the first
screen does not wait for them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from layout.load import Inputs

if TYPE_CHECKING:
    from layout.design import Design


@dataclass(frozen=True, eq=False)
class Result:
    text: str  # the site text the design was computed from
    design: Design
    summary: dict[str, Any]
    bom: pd.DataFrame
    cost: dict[str, Any]  # layout.bom.totals
    seconds: float
    link_rack_a: np.ndarray
    link_rack_b: np.ndarray
    link_length_m: np.ndarray

    @property
    def racks(self) -> pd.DataFrame:
        return self.design.placement.racks


def compute(inputs: Inputs, text: str, progress: Callable[[str], None] | None = None) -> Result:
    """Run the whole pipeline (layout.design.run) and the BOM on ``inputs``."""
    from layout import bom as bom_mod
    from layout import design as design_mod

    started = time.perf_counter()
    design = design_mod.run(inputs, progress)
    if progress is not None:
        progress("bom")
    bom = bom_mod.build(inputs, design.fabric, design.placement, design.cabling)
    links = design.cabling.links
    return Result(
        text=text,
        design=design,
        summary=design.summary(),
        bom=bom,
        cost=bom_mod.totals(bom),
        seconds=time.perf_counter() - started,
        link_rack_a=links["rack_a"].to_numpy(),
        link_rack_b=links["rack_b"].to_numpy(),
        link_length_m=links["length_m"].to_numpy(float),
    )
