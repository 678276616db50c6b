"""The single-line tree of each hall, from the electrical schedule (layout/power/schedule.py): its UPS
blocks in the schedule's order, each with the switchboard it feeds and that switchboard's busways, and
per busway its tap-off boxes' count and largest load (pure: pandas).

Worked out once per design (``Design.sld``) and drawn by both single-line diagrams, the DXF sheet
(layout/export/dxf/sld.py) and the PDF page (layout/export/pdf/sld.py), so the two print one set of
figures. Built in one pass over the schedule (the tap-offs, nine rows in ten, only counted by a
grouping): the campus's 10,448 elements in a few milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

Record = dict[str, Any]  # one schedule row (layout/power/schedule.py SCHEDULE_COLUMNS)


@dataclass(frozen=True)
class SldBlock:
    """A UPS block, its switchboard and that switchboard's busways in the schedule's order; each busway
    record also carries ``taps`` (its tap-off boxes) and ``tap_max_kw`` (the largest one's load)."""

    ups: Record
    switchboard: Record
    busways: tuple[Record, ...]


def sld_trees(sched: pd.DataFrame) -> dict[str, tuple[SldBlock, ...]]:
    """Hall -> its blocks, for every hall of ``sched`` with a UPS block, halls in sorted order."""
    if not len(sched):
        return {}
    part = sched["part"]
    taps = sched[part == "tap-off"]
    tap_agg = taps.groupby("fed_from", sort=False)["load_kw"].agg(["count", "max"])
    tap_n = dict(zip(tap_agg.index, tap_agg["count"].tolist(), strict=True))
    tap_max = dict(zip(tap_agg.index, tap_agg["max"].tolist(), strict=True))
    switchboards: dict[str, Record] = {}
    busways: dict[str, list[Record]] = {}
    ups: dict[str, list[Record]] = {}
    records: list[Record] = sched[part != "tap-off"].to_dict("records")  # type: ignore[assignment]
    for r in records:
        kind = r["part"]
        if kind == "switchboard":
            switchboards[str(r["fed_from"])] = r
        elif kind == "busway":
            pid = r["part_id"]
            r["taps"], r["tap_max_kw"] = int(tap_n.get(pid, 0)), float(tap_max.get(pid, 0.0))
            busways.setdefault(str(r["fed_from"]), []).append(r)
        elif kind == "UPS block":
            ups.setdefault(str(r["hall"]), []).append(r)
    out: dict[str, tuple[SldBlock, ...]] = {}
    for hall in sorted(ups):
        blocks = []
        for u in ups[hall]:
            swb = switchboards[str(u["part_id"])]
            blocks.append(SldBlock(u, swb, tuple(busways.get(str(swb["part_id"]), ()))))
        out[hall] = tuple(blocks)
    return out
