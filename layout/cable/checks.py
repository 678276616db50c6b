"""What the cabling stage reports: tray fill per edge, and the violations of links without a route
(``no_path``, ``reach``) and of trays over their fill limit (``tray_fill``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from layout.cable import route as routing
from layout.cable import trays as traylib
from layout.cable.inputs import CableInput
from layout.cable.media import MediaTable
from layout.violations import Violation


def edge_fill(trays: traylib.Trays, load: routing.EdgeLoad, mt: MediaTable) -> pd.DataFrame:
    e = trays.edges
    # the whole cross-section (every stacked level; a duct's conduit bores): fill is over it, so
    # ``over`` is exactly ``fill > fill_limit``
    gross = (e["capacity_mm2"] / e["fill_limit"]).to_numpy(float)
    peak = np.round(load.peak_area_mm2, 3)
    capacity = e["capacity_mm2"].to_numpy()
    # one table made at once (adding the ~10 columns one by one re-made its blocks each time)
    fill = pd.DataFrame(
        {
            "kind": e["kind"],
            "hall": e["hall"],
            "where": e["where"],
            "length_m": e["length_m"],
            "cables": load.cables[:, : len(mt.ids)].sum(axis=1).round().astype(np.int64),
            "peak_area_mm2": peak,
            "peak_at_m": np.round(load.peak_at_m, 3),
            "capacity_mm2": e["capacity_mm2"],
            "fill": np.round(load.peak_area_mm2 / gross, 6),
            "fill_limit": e["fill_limit"],
            "over": peak > capacity + 1e-6,
            **{f"cables_{mid}": load.cables[:, i].round().astype(np.int64) for i, mid in enumerate(mt.ids)},
        }
    )
    return fill


def link_violations(
    out: pd.DataFrame, racks: pd.DataFrame, devices: pd.DataFrame, inp: CableInput
) -> list[Violation]:
    """One violation per (problem, row of the a end) so every link without a route is accounted for."""
    res: list[Violation] = []
    bad = out[out["status"] != "ok"]
    if bad.empty:
        return res
    rows = racks["row"].to_numpy() if len(racks) else np.zeros(0, dtype=object)
    bldg = racks["building"].to_numpy() if len(racks) else np.zeros(0, dtype=object)
    ducts = {frozenset((d.from_, d.to)) for d in inp.ducts}
    for status, grp in bad.groupby("status", observed=True, sort=True):
        if status == "unplaced":
            for kind, kg in grp.groupby("kind", sort=True):
                devs = np.unique(np.r_[kg["a"][kg["rack_a"] < 0], kg["b"][kg["rack_b"] < 0]])
                res.append(
                    Violation(
                        "no_path",
                        "site",
                        f"{len(kg)} {kind} links have an end on a device that is not placed "
                        f"({len(devs)} devices, e.g. {devices['device_id'].iloc[int(devs[0])]})",
                        "give the placer room for every rack (see the placement's violations)",
                        {"links": len(kg), "devices": len(devs)},
                    )
                )
            continue
        ra = grp["rack_a"].to_numpy()
        rb = grp["rack_b"].to_numpy()
        row_a = rows[ra]
        for r in sorted(set(row_a.tolist())):
            m = row_a == r
            n = int(m.sum())
            far = sorted(set(rows[rb[m]].tolist()))
            if status == "no_tray":
                msg = f"{n} links from row {r} reach racks with no tray above them (a tray_block removed it)"
                kind, tip = "no_path", "move the tray_block or add a tray_add over the row"
            elif status == "no_path":
                b1, b2 = bldg[ra[m][0]], bldg[rb[m][0]]
                why = (
                    f"no [[duct]] joins buildings {b1} and {b2}"
                    if b1 != b2 and frozenset((b1, b2)) not in ducts and not _campus_connected(b1, b2, ducts)
                    else "tray_block lines cut every tray path"
                )
                msg = f"{n} links from row {r} to {len(far)} row(s) (first {far[0]}) have no tray path: {why}"
                kind, tip = "no_path", "add a tray_add or a [[duct]] that joins them, or move the tray_block"
            else:
                longest = float(np.nanmax(grp["length_m"].to_numpy()[m]))
                msg = f"{n} links from row {r} (up to {longest:,.1f} m) are longer than any medium reaches"
                kind, tip = "reach", "place the two ends closer or add a longer-reach medium to the catalog"
            res.append(
                Violation(kind, r, msg, tip, {"links": n, "far_rows": len(far), "status": str(status)})
            )
    return res


def _campus_connected(b1: str, b2: str, ducts: set[frozenset[str]]) -> bool:
    seen, todo = {b1}, [b1]
    while todo:
        cur = todo.pop()
        for d in ducts:
            if cur in d:
                for o in d - {cur}:
                    if o not in seen:
                        seen.add(o)
                        todo.append(o)
    return b2 in seen


def fill_violations(trays: traylib.Trays, fill: pd.DataFrame) -> list[Violation]:
    res: list[Violation] = []
    over = np.nonzero(fill["over"].to_numpy())[0]
    if over.size == 0:
        return res
    e = trays.edges
    x, y = trays.nodes["x_m"].to_numpy(), trays.nodes["y_m"].to_numpy()
    u, v = e["u"].to_numpy()[over], e["v"].to_numpy()[over]
    length = e["length_m"].to_numpy()[over]
    t = np.where(length > 0, fill["peak_at_m"].to_numpy()[over] / np.where(length > 0, length, 1), 0.0)
    px, py = x[u] + (x[v] - x[u]) * t, y[u] + (y[v] - y[u]) * t
    cols = {
        c: fill[c].to_numpy()[over]
        for c in ("kind", "hall", "where", "cables", "peak_area_mm2", "capacity_mm2", "fill", "fill_limit")
    }
    for j in range(len(over)):
        kind, hall, where = cols["kind"][j], cols["hall"][j], cols["where"][j]
        res.append(
            Violation(
                "tray_fill",
                str(where) or str(hall),
                f"{kind} tray in {hall or 'the campus'} from ({x[u[j]]:.1f}, {y[u[j]]:.1f}) to ({x[v[j]]:.1f}, {y[v[j]]:.1f}) "
                f"is {cols['fill'][j]:.0%} full (limit {cols['fill_limit'][j]:.0%}) at ({px[j]:.1f}, {py[j]:.1f}): {cols['peak_area_mm2'][j]:,.0f} mm2 of cable "
                f"({int(cols['cables'][j]):,} cables), {cols['capacity_mm2'][j]:,.0f} mm2 allowed",
                "widen the tray or stack levels (the hall's tray.width_mm / depth_mm / levels / trunk_*), a bigger duct bank (duct.conduits), or a parallel [[tray_add]]",
                {
                    "cables": int(cols["cables"][j]),
                    "peak_area_mm2": round(float(cols["peak_area_mm2"][j]), 3),
                    "capacity_mm2": round(float(cols["capacity_mm2"][j]), 3),
                    "x_m": round(float(px[j]), 3),
                    "y_m": round(float(py[j]), 3),
                },
            )
        )
    return res
