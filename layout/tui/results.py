"""One design run as the UI shows it: the Design, its summary, BOM and cost, and the views built from it
(hall floors, site tree rows, budgets), all made off the UI thread by :func:`layout.tui.session.compute`.

This module is the bottom of the TUI: it imports none of its views, panels or widgets (the hall floor
only as a type).
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from rich.console import RenderableType

from layout.gcpause import collections_paused

if TYPE_CHECKING:
    from layout.design import Design
    from layout.scene import Scene
    from layout.tui.floor import HallFloor


@dataclass(eq=False)
class Result:
    """A finished design and what the screen shows of it. The views (floors, tree rows, budgets and
    cabling renderables) are built in the worker thread too, so the UI thread only swaps them in."""

    text: str  # the site text the design was computed from
    design: Design
    bom: pd.DataFrame
    cost: dict[str, Any]  # layout.bom.totals
    seconds: float
    link_rack_a: np.ndarray
    link_rack_b: np.ndarray
    link_length_m: np.ndarray
    floors: dict[str, HallFloor] = field(default_factory=dict)
    tree_rows: list[tuple[str, str, str]] = field(default_factory=list)  # (hall, row id, label)
    budgets: RenderableType = ""

    _views: dict[str, RenderableType] = field(default_factory=dict, repr=False)

    @cached_property
    def summary(self) -> dict[str, Any]:
        """The design's summary.json object, worked out when first asked for (the cabling tab, an export,
        a test), not in every design run: the status line takes its figures from the design itself."""
        return self.design.summary()

    @cached_property
    def scene(self) -> Scene:
        """What the map and the exports draw of the design (layout.scene), made once per design in the
        worker. Without the summary (the status line does not need it): an export adds it."""
        from layout.scene import scene_of

        return scene_of(self.design, summary={})

    @cached_property
    def link_codes(self) -> tuple[np.ndarray, list[str], np.ndarray, list[str], np.ndarray]:
        """Per link, as arrays the inspector counts with bincount (built once per design in the worker):
        kind codes and their names, media-class codes and their names ("none" for no medium), and
        whether the link has no route or medium (status other than ok)."""
        links = self.design.cabling.links
        kind, media = (_categorical(links[c]) for c in ("kind", "media_class"))
        # compared as a categorical (its codes), not as 450,000 strings: ~0.1 s less per design
        bad = (_categorical(links["status"]) != "ok").to_numpy(bool)
        media_names = [str(c) or "none" for c in media.cat.categories] + ["nan"]
        media_codes = media.cat.codes.to_numpy(np.int64)
        media_codes = np.where(media_codes < 0, len(media_names) - 1, media_codes)
        return (
            kind.cat.codes.to_numpy(np.int64),
            [str(c) for c in kind.cat.categories],
            media_codes,
            media_names,
            bad,
        )

    @cached_property
    def device_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Role, model and id of every device, as arrays (the inspector lists a rack's devices)."""
        dev = self.design.fabric.devices
        return tuple(dev[c].to_numpy().astype(str) for c in ("role", "model", "device_id"))  # type: ignore[return-value]

    def take_indexes_of(self, earlier: Result | None) -> None:
        """The inspector's arrays (device arrays, link codes) of an ``earlier`` result
        whose fabric and cabling are the very objects of this one (a design cache gives them again after
        an edit that re-cables nothing): they are made from nothing else, so they need not be made again."""
        if earlier is None:
            return
        done = earlier.__dict__
        if earlier.design.fabric is self.design.fabric and "device_arrays" in done:
            self.__dict__["device_arrays"] = done["device_arrays"]
        if earlier.design.cabling is self.design.cabling and "link_codes" in done:
            self.__dict__["link_codes"] = done["link_codes"]

    def view(self, name: str, make: Callable[[Result], RenderableType]) -> RenderableType:
        """A tab's content made from this result the first time it is asked for (the cabling tab: when it
        is first shown for this design), the same object after."""
        if name not in self._views:
            self._views[name] = make(self)
        return self._views[name]

    @property
    def racks(self) -> pd.DataFrame:
        return self.design.placement.racks

    def rack_links(self, rack_no: int) -> np.ndarray:
        """Rows of the links table with an end in rack ``rack_no``, ascending: one scan of the two end
        columns (on the 100k campus ~0.2 ms for 450,000 links, per cursor move; an index by rack cost
        ~6 ms of every design that moved a rack, for lookups of a few microseconds that no one needs)."""
        return np.flatnonzero((self.link_rack_a == rack_no) | (self.link_rack_b == rack_no))


def _categorical(column: pd.Series) -> pd.Series:
    """The column as a categorical (the cabling's links already are: then it is taken as it is)."""
    return column if isinstance(column.dtype, pd.CategoricalDtype) else column.astype("category")


FULL_COLLECTIONS_NEVER = 1 << 30  # gc threshold for the oldest generation: no automatic full collections


def settle_gc() -> None:
    """Take every object alive now (modules, the app's widgets, the first design) out of the garbage
    collector's sight for good (gc.freeze, after one collection so no garbage is kept), and leave full
    collections to :func:`collect_when_idle`. Otherwise every full collection walks these ~130,000
    objects again (on the 100k campus 0.06-0.1 s, in every second or third design run), and even after
    the freeze the objects the screen and the later designs leave in the oldest generation made
    automatic full collections of 45-90 ms in the middle of an edit (the UI thread's, measured in
    bench/bench_tui.py's sequence). Frozen objects that die later are still freed by reference counting
    (a Design and a Result hold no reference cycles); the young generations are collected as before."""
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTIONS_NEVER)


# no garbage collection while a design runs (~100 young collections of 0.3 ms each on the 100k campus,
# walking the same surviving tables' objects again and again)
young_collections_paused = collections_paused


def collect_when_idle() -> int:
    """The full collection that :func:`settle_gc` takes out of the design runs: the front end calls it
    when nothing runs (a design of the campus leaves ~12 objects in reference cycles, so it is seldom
    worth more). Returns what the collector found unreachable."""
    return gc.collect()


def tree_rows(result: Result) -> list[tuple[str, str, str]]:
    """(hall, row id, label) of every placed row, for the site tree."""
    d = result.design
    if not len(d.placement.rows):  # no rack placed anywhere (the empty frames' columns need not agree)
        return []
    rows, power = d.placement.rows, d.power.rows
    # each row's racks and IT kW by its id (a few hundred rows: plain lists, not a frame merge)
    per_row = dict(zip(power["row"].tolist(), zip(power["racks"].tolist(), power["it_kw"].tolist(), strict=True),
                       strict=True))  # fmt: skip
    out = []
    for row, hall, kind, user in zip(
        *(rows[c].tolist() for c in ("row", "hall", "kind", "user_row")), strict=True
    ):
        racks, it_kw = per_row[row]
        label = f"{str(row).rsplit('/', 1)[-1]} · {kind} · {int(racks)} racks · {it_kw:,.0f} kW"
        out.append((str(hall), str(row), label + (" · user" if user else "")))
    return out
