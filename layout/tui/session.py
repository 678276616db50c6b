"""The TUI without a screen: run the design of a site text and build what the screen shows of it.

Imports no Textual: tests and benchmarks drive it directly, the app (layout/tui/app.py) calls it from a
worker thread. The pipeline modules are imported inside :func:`compute`, so the first screen does not
wait for them.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from layout.load import Inputs
from layout.tui.results import Result, tree_rows


def compute(inputs: Inputs, text: str, progress: Callable[[str], None] | None = None) -> Result:
    """Run the whole pipeline (layout.design.run, BOM included) on ``inputs``, and build the views."""
    from layout import bom as bom_mod
    from layout import design as design_mod
    from layout.tui.floor import hall_floors
    from layout.tui.panels import budgets

    started = time.perf_counter()
    with design_mod.reuse_fabric():  # an edit that leaves the cluster alone keeps the fabric
        design = design_mod.run(inputs, progress)
    bom = design.bom
    links = design.cabling.links
    result = Result(
        text=text,
        design=design,
        bom=bom,
        cost=bom_mod.totals(bom),
        seconds=time.perf_counter() - started,
        link_rack_a=links["rack_a"].to_numpy(),
        link_rack_b=links["rack_b"].to_numpy(),
        link_length_m=links["length_m"].to_numpy(float),
    )
    if progress is not None:
        progress("views")
    result.floors = hall_floors(inputs, result)
    result.tree_rows = tree_rows(result)
    result.budgets = budgets(result)
    if len(result.racks):
        result.rack_links(0)  # builds the per-rack link index here, not in the UI thread
    return result
