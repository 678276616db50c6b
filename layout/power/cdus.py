"""The CDUs of liquid halls (pure: shapely/numpy/pandas).

- In a liquid hall, a liquid rack puts ``liquid_fraction`` of its heat (``[cooling.liquid]``) into the
  coolant; the rest goes to the room's air.
- The hall's liquid rows are served by CDUs of the hall's ``power.cdu`` model (default: the catalog's
  first): rows in row order fill one CDU after the other (a row stays on one CDU; a row above one CDU's
  rating takes as many as it needs), and ``cdu_redundancy = "N+1"`` (default) adds a standby.
- CDUs stand in the hall's CDU gallery (a keep-out whose reason names a CDU), in rows of slots with a
  service aisle in front; without a gallery, at row ends, on free floor just past a row's last rack
  with a cross aisle's width still clear beyond it (never in an aisle).
- A CDU that finds no place is not bought: the rows it would serve are a ``cdu`` violation (their
  liquid load and what their placed CDUs carry), and a hall that loses its standby is one too.
- Flow: a CDU moves ``flow_l_per_s`` of coolant at its rated heat, in proportion below it.
- The air side: what a liquid hall's racks leave in the air (the heat the coolant does not take, and
  every air-cooled rack) is checked against its room units (``air_cooling_mw``, default floor area x
  ``[cooling.air] kw_per_m2``): a ``cooling`` violation when over.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import shapely
from shapely.geometry import Polygon

from layout.capacity import hall_air_mw
from layout.place import hall_floor, rack_polygons
from layout.power.cooling import pack_in_order
from layout.violations import Violation

if TYPE_CHECKING:
    from layout.model import Catalog, Hall
    from layout.place import Placement
    from layout.power.facility import FacilityInput

CDU_SERVICE_M = 1.2  # clear floor in front of a CDU in a gallery (a cold aisle's width; unverified)
CDU_COLUMNS = [
    "cdu_id", "hall", "model", "rating_kw", "flow_l_per_s", "load_kw", "load_flow_l_per_s", "standby",
    "rows", "x_m", "y_m", "width_m", "depth_m", "rotation_deg", "placed",
]  # fmt: skip
LIQUID_ROW_COLUMNS = ["row", "hall", "liquid_kw", "cdus", "carried_kw"]
REAR_DOOR_COLUMNS = ["rack_id", "hall", "model", "rating_kw", "load_kw"]


@dataclass(frozen=True)
class LiquidLoop:
    """The CDUs of the liquid halls (``CDU_COLUMNS``) and the liquid load of each liquid row
    (``LIQUID_ROW_COLUMNS``)."""

    cdus: pd.DataFrame
    rows: pd.DataFrame
    violations: tuple[Violation, ...] = field(default=())
    # one rear-door heat exchanger per rack of a rear-door hall (REAR_DOOR_COLUMNS)
    rear_doors: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=REAR_DOOR_COLUMNS))

    def by_hall(self) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        placed = self.cdus.loc[self.cdus["placed"].astype(bool)]
        for key, g in placed.groupby("hall", sort=True):
            out[str(key)] = {
                "cdus": int(len(g)),
                "liquid_kw": round(float(g["load_kw"].sum()), 1),
                "rating_kw": round(float(g["rating_kw"].sum()), 1),
            }
        for key, g in self.rear_doors.groupby("hall", sort=True):
            out.setdefault(str(key), {}).update(
                {"rear_doors": int(len(g)), "rear_door_kw": round(float(g["load_kw"].sum()), 1)}
            )
        return out


def _empty_loop() -> LiquidLoop:
    return LiquidLoop(pd.DataFrame(columns=CDU_COLUMNS), pd.DataFrame(columns=LIQUID_ROW_COLUMNS))


def gallery_slots(gallery: Polygon, width: float, depth: float) -> list[tuple[float, float, float]]:
    """CDU places (x, y, rotation) in a gallery: rows along its longer side, each CDU ``width`` along
    the row and ``depth`` across, a service aisle of :data:`CDU_SERVICE_M` in front of every row; only
    places wholly inside the gallery."""
    x0, y0, x1, y1 = gallery.bounds
    along_x = (x1 - x0) >= (y1 - y0)
    lu0, lu1, lv0, lv1 = (x0, x1, y0, y1) if along_x else (y0, y1, x0, x1)
    n_u = int((lu1 - lu0 + 1e-9) // width)
    n_v = int((lv1 - lv0 + 1e-9) // (depth + CDU_SERVICE_M))
    if n_v == 0 and lv1 - lv0 + 1e-9 >= depth:
        n_v = 1
    if n_u == 0 or n_v == 0:
        return []
    iu, iv = np.meshgrid(np.arange(n_u), np.arange(n_v))
    cu = lu0 + (iu.ravel() + 0.5) * width
    cv = lv0 + iv.ravel() * (depth + CDU_SERVICE_M) + depth / 2
    cx, cy = (cu, cv) if along_x else (cv, cu)
    hx, hy = (width / 2, depth / 2) if along_x else (depth / 2, width / 2)
    boxes = shapely.box(cx - hx, cy - hy, cx + hx, cy + hy)
    inside = shapely.contains(gallery.buffer(1e-6), boxes)
    rot = 0.0 if along_x else 270.0
    return [(float(x), float(y), rot) for x, y in zip(cx[inside].tolist(), cy[inside].tolist(), strict=True)]


def row_end_slots(
    placement: Placement,
    hall_key: str,
    hall: Hall,
    width: float,
    depth: float,
    cabinets: pd.DataFrame | None = None,
) -> list[tuple[float, float, float]]:
    """CDU places at row ends: just past each row's last (then before its first) rack, facing as the
    row does, where the floor inside the wall clearance is free of racks, columns and keep-outs, and
    where a passage a cross aisle wide (``cross_aisle_m``) stays clear beyond the CDU, inside the
    hall, to the next rack, column, keep-out or CDU: a CDU never narrows the cross aisle it stands
    in. A row end without that room gets no CDU. ``cabinets``: fibre cabinets (any table with the racks
    table's footprint columns) standing on the floor too."""
    rows = placement.rows[placement.rows["hall"] == hall_key]
    if not len(rows):
        return []
    inner, obstacles = hall_floor(hall)
    walls = Polygon(hall.polygon).buffer(1e-6)
    racks = placement.racks[placement.racks["hall"] == hall_key]
    taken = list(rack_polygons(racks)) + obstacles
    if cabinets is not None and len(cabinets):
        taken += list(rack_polygons(cabinets[cabinets["hall"] == hall_key]))
    gap = hall.cross_aisle_m
    cand: list[tuple[float, float, float, float, float]] = []
    clear: list[Any] = []  # the passage beyond each candidate
    cols = [rows[c].to_numpy(float) for c in ("x0_m", "y0_m", "x1_m", "y1_m", "front_sign")]
    for axis, x0, y0, x1, y1, front in zip(rows["axis"].tolist(), *(c.tolist() for c in cols), strict=True):
        lo, hi = (min(x0, x1), max(x0, x1)) if axis == "x" else (min(y0, y1), max(y0, y1))
        for end, sign in ((hi, 1.0), (lo, -1.0)):
            c = end + sign * width / 2
            far = end + sign * width
            a, b = sorted((far, far + sign * gap))
            if axis == "x":
                cand.append((c, y0, 0.0 if front > 0 else 180.0, width / 2, depth / 2))
                clear.append(shapely.box(a, y0 - depth / 2, b, y0 + depth / 2))
            else:
                cand.append((x0, c, 270.0 if front > 0 else 90.0, depth / 2, width / 2))
                clear.append(shapely.box(x0 - depth / 2, a, x0 + depth / 2, b))
    a = np.asarray([c[:2] for c in cand], float)
    hx = np.asarray([c[3] for c in cand])
    hy = np.asarray([c[4] for c in cand])
    boxes = shapely.box(a[:, 0] - hx, a[:, 1] - hy, a[:, 0] + hx, a[:, 1] + hy)
    passages = np.asarray(clear, dtype=object)
    ok = shapely.contains(inner.buffer(1e-6), boxes) & shapely.contains(walls, passages)
    if taken:
        tree = shapely.STRtree(np.asarray(taken, dtype=object))
        for geo in (boxes, passages):
            bi, ti = tree.query(geo, predicate="intersects")
            hit = shapely.area(shapely.intersection(geo[bi], np.asarray(taken, dtype=object)[ti])) > 1e-9
            ok[bi[hit]] = False
    out: list[tuple[float, float, float]] = []
    chosen: list[Any] = []  # the CDUs placed and their passages
    for i in np.flatnonzero(ok).tolist():
        if any(shapely.intersection(g, b).area > 1e-9 for g in (boxes[i], passages[i]) for b in chosen):
            continue
        chosen += [boxes[i], passages[i]]
        out.append((float(a[i, 0]), float(a[i, 1]), cand[i][2]))
    return out


def liquid_loop(
    inp: FacilityInput, placement: Placement, rack_kw: np.ndarray, cabinets: pd.DataFrame | None = None
) -> LiquidLoop:
    """The CDUs of every liquid hall (see the module docstring), and the rear-door heat exchangers of
    every rear-door hall. ``cabinets``: the cable plant's fibre cabinets (layout/cable/cabinets.py),
    whose floor no CDU takes."""
    loop = _cdu_loop(inp, placement, rack_kw, cabinets)
    doors, door_violations = rear_doors(inp, placement, rack_kw)
    return LiquidLoop(loop.cdus, loop.rows, loop.violations + door_violations, doors)


def rear_doors(
    inp: FacilityInput, placement: Placement, rack_kw: np.ndarray
) -> tuple[pd.DataFrame, tuple[Violation, ...]]:
    """One rear-door heat exchanger per rack with a load in a rear-door hall: the smallest of the
    catalog's ``[rear_door.*]`` that carries the rack's kW within the CDU margin; a rack above every
    one is a ``cooling`` violation naming it (the largest is bought for it)."""
    cat = inp.catalog
    racks = placement.racks
    halls = [f"{b.id}/{h.id}" for b, h in inp.halls if h.cooling == "rear-door"]
    if not cat.rear_door or not halls or not len(racks):
        return pd.DataFrame(columns=REAR_DOOR_COLUMNS), ()
    ids = sorted(cat.rear_door, key=lambda k: (cat.rear_door[k].rating_kw, k))
    caps = np.array([inp.margins.kw("cdu", cat.rear_door[k].rating_kw) for k in ids])
    kw = np.asarray(rack_kw, float)
    m = racks["hall"].isin(halls).to_numpy() & (kw > 0)
    load = kw[m]
    pick = np.minimum(np.searchsorted(caps, load - 1e-9, side="left"), len(ids) - 1)
    table = pd.DataFrame(
        {
            "rack_id": racks["rack_id"].to_numpy()[m],
            "hall": racks["hall"].to_numpy()[m],
            "model": np.array(ids, dtype=object)[pick],
            "rating_kw": np.array([cat.rear_door[k].rating_kw for k in ids])[pick],
            "load_kw": np.round(load, 3),
        },
        columns=REAR_DOOR_COLUMNS,
    )
    over = load > caps[pick] + 1e-6
    if not over.any():
        return table, ()
    k = int(np.flatnonzero(over)[np.argmax(load[over])])
    rid = str(table["rack_id"].iloc[k])
    return table, (
        Violation(
            "cooling",
            rid,
            f"{int(over.sum())} rack(s) above every rear-door heat exchanger; worst {rid} draws "
            f"{load[k]:.1f} kW against the largest's {caps[pick[k]]:.1f} kW "
            f"({cat.rear_door[ids[pick[k]]].rating_kw:g} kW rating{inp.margins.text('cdu')})",
            "lower the hall's max_rack_kw, cool the hall by liquid, or add a larger door to the catalog",
            {
                "racks": int(over.sum()),
                "load_kw": round(float(load[k]), 3),
                "limit_kw": round(float(caps[pick[k]]), 3),
            },
        ),
    )


def rear_door_parts(catalog: Catalog, loop: LiquidLoop) -> list[tuple[str, str, str, int, str, float]]:
    """BOM rows of category ``cooling``: the rear-door heat exchangers per model, in catalog order."""
    counts = Counter(str(m) for m in loop.rear_doors["model"].tolist())
    return [
        (
            "cooling",
            f"{catalog.rear_door[m].name}, one per rack",
            m,
            int(counts[m]),
            "each",
            catalog.rear_door[m].price_usd,
        )
        for m in catalog.rear_door
        if m in counts
    ]


def _cdu_loop(
    inp: FacilityInput, placement: Placement, rack_kw: np.ndarray, cabinets: pd.DataFrame | None
) -> LiquidLoop:
    """The CDUs of every liquid hall (see the module docstring)."""
    cat = inp.catalog
    spec = cat.cooling.get("liquid")
    racks = placement.racks
    if spec is None or not cat.cdu or not len(racks):
        return _empty_loop()
    tpl_code, tpls = pd.factorize(racks["template"])  # the column's codes: no Python strings per rack
    liquid_tpl = np.array([inp.template_cooling[str(t)] == "liquid" for t in tpls], bool)
    # the share of a liquid rack's heat its coolant carries: its server's, else the liquid cooling's
    frac = np.array([inp.template_liquid_fraction.get(str(t)) or spec.liquid_fraction for t in tpls], float)
    liq_kw = np.where(liquid_tpl[tpl_code], rack_kw * frac[tpl_code], 0.0)
    cdus: list[dict[str, Any]] = []
    row_recs: list[dict[str, Any]] = []
    v: list[Violation] = []
    hall_col: np.ndarray | None = None  # made for the first liquid hall (most sites have none)
    for b, h in inp.halls:
        key = f"{b.id}/{h.id}"
        if h.cooling != "liquid":
            continue
        if hall_col is None:
            hall_col = racks["hall"].to_numpy()
        in_hall = hall_col == key
        m = in_hall & (liq_kw > 0)
        if not m.any():
            continue
        v += _air_side(key, h, cat, float(rack_kw[in_hall].sum()), float(liq_kw[in_hall].sum()))
        model_id = h.power.cdu or next(iter(cat.cdu))
        cdu = cat.cdu[model_id]
        per_row = pd.Series(liq_kw[m]).groupby(racks["row"].to_numpy()[m], sort=True).sum()
        row_ids = [str(r) for r in per_row.index]
        loads = [float(x) for x in per_row.to_numpy()]
        bins = pack_in_order(loads, inp.margins.kw("cdu", cdu.rating_kw))  # within its margin
        standby = 1 if h.power.cdu_redundancy == "N+1" else 0
        gallery = [Polygon(k.polygon) for k in h.keepouts if "cdu" in k.reason.lower()]
        slots = [s for g in gallery for s in gallery_slots(g, cdu.width_m, cdu.depth_m)]
        if not gallery:
            slots = row_end_slots(placement, key, h, cdu.width_m, cdu.depth_m, cabinets)
        n = len(bins) + standby
        # the load each CDU carries: a row on several CDUs shares its load evenly
        share = {i: loads[i] / sum(1 for bn in bins if i in bn) for i in range(len(loads))}
        carried = [0.0] * len(loads)
        for k in range(n):
            is_standby = k >= len(bins)
            served = [] if is_standby else bins[k]
            load = sum(share[i] for i in served)
            placed = k < len(slots)
            x, y, rot = slots[k] if placed else (math.nan, math.nan, 0.0)
            if placed:
                for i in served:
                    carried[i] += share[i]
            cdus.append(
                {"cdu_id": f"{key}/CDU{k + 1:02d}", "hall": key, "model": model_id, "rating_kw": cdu.rating_kw,
                 "flow_l_per_s": cdu.flow_l_per_s, "load_kw": round(load, 3),
                 "load_flow_l_per_s": round(cdu.flow_l_per_s * load / cdu.rating_kw, 3),
                 "standby": is_standby, "rows": " ".join(row_ids[i].rsplit("/", 1)[-1] for i in served),
                 "x_m": round(x, 6), "y_m": round(y, 6), "width_m": cdu.width_m, "depth_m": cdu.depth_m,
                 "rotation_deg": rot, "placed": placed}
            )  # fmt: skip
        short = [i for i in range(len(loads)) if carried[i] < loads[i] - 1e-6]
        for i in range(len(loads)):
            row_recs.append(
                {"row": row_ids[i], "hall": key, "liquid_kw": round(loads[i], 3),
                 "cdus": sum(1 for bn in bins if i in bn), "carried_kw": round(carried[i], 3)}
            )  # fmt: skip
        where_room = "its CDU gallery" if gallery else "free floor at its row ends"
        if short:
            i = short[0]
            v.append(
                Violation(
                    "cdu",
                    row_ids[i],
                    f"{len(short)} liquid row(s) of {key} lack CDUs: {where_room} holds {len(slots)} of the "
                    f"{n} {model_id} CDUs; row {row_ids[i]} puts {loads[i]:.0f} kW into the coolant, its CDUs "
                    f"carry {carried[i]:.0f} kW",
                    "enlarge the CDU gallery keep-out (reason 'CDU gallery'), pick a larger CDU in power.cdu, "
                    "or leave room at the row ends",
                    {
                        "rows": len(short),
                        "liquid_kw": round(loads[i], 1),
                        "carried_kw": round(carried[i], 1),
                        "cdus_needed": n,
                        "cdus_placed": min(n, len(slots)),
                    },  # fmt: skip
                )
            )
        elif standby and len(slots) < n:
            v.append(
                Violation(
                    "cdu",
                    key,
                    f"hall {key} has no place for its standby CDU: {where_room} holds {len(slots)} of {n}; "
                    "its CDUs are N, not N+1",
                    "enlarge the CDU gallery keep-out or pick a larger CDU in power.cdu",
                    {"cdus_needed": n, "cdus_placed": len(slots)},
                )
            )
    return LiquidLoop(
        pd.DataFrame(cdus, columns=CDU_COLUMNS), pd.DataFrame(row_recs, columns=LIQUID_ROW_COLUMNS), tuple(v)
    )


def _air_side(key: str, hall: Hall, catalog: Catalog, it_kw: float, liquid_kw: float) -> list[Violation]:
    """A liquid hall's air-side remainder (its racks' heat the coolant does not take) against what its
    room units remove (:func:`layout.capacity.hall_air_mw`): a ``cooling`` violation when over."""
    air_mw, basis = hall_air_mw(hall, catalog)
    air_kw = it_kw - liquid_kw
    if air_mw is None or air_kw <= air_mw * 1000.0 + 1e-6:
        return []
    return [
        Violation(
            "cooling",
            key,
            f"liquid hall {key} leaves {air_kw:,.0f} kW of its {it_kw:,.0f} kW in the air (what the cold "
            f"plates do not take, and every air-cooled rack); its air cooling removes {air_mw * 1000:,.0f} kW "
            f"({basis})",
            "state the room units' capacity in the hall's air_cooling_mw, add CRAH or fan-wall capacity, or "
            "use racks with a higher liquid fraction",
            {"air_kw": round(air_kw, 1), "air_cooling_kw": round(air_mw * 1000, 1), "it_kw": round(it_kw, 1)},
        )
    ]


def cdu_parts(catalog: Catalog, loop: LiquidLoop) -> list[tuple[str, str, str, int, str, float]]:
    """BOM rows of category ``cooling``: the placed CDUs per model, in catalog order."""
    cdus = loop.cdus
    counts = Counter(
        str(m) for m, p in zip(cdus["model"].tolist(), cdus["placed"].tolist(), strict=True) if bool(p)
    )
    return [
        ("cooling", f"{catalog.cdu[m].name} ({catalog.cdu[m].flow_l_per_s:g} L/s at rating)", m, int(counts[m]),
         "each", catalog.cdu[m].price_usd)
        for m in catalog.cdu
        if m in counts
    ]  # fmt: skip
