"""The power chain of each hall, from UPS blocks to every rack's A and B feeds (pure: numpy/pandas).

Per hall (``[building.hall.power]``, defaults in brackets; parts from the catalog):

- **Busways** [per row, the smallest ``[busway.ID]`` that carries the row; several side by side when
  none does]: every row has an A side and a B side, each with the same busways; a row's racks are
  split over its busways in order, by their kW. A hall's ``power.busway`` fixes one busway per side per
  row of that model. Each rack takes one **tap-off box** per side, the smallest that carries it. The
  rack's feeds ``feed_a`` / ``feed_b`` are the busways its tap-offs are on.
- **Redundancy** [``2N``]: in 2N the A side and the B side are two UPS systems; each alone carries every
  rack, so each busway, tap-off and block is sized for the full load of what it feeds. ``N+1`` and ``N``
  are distributed: ``n`` blocks, each row's A side on block ``i`` and B side on block ``j != i`` (rows
  spread over the pairs, the heaviest first, onto the pair carrying least). Normally a rack draws half
  from each side; in N+1, when any one block fails, its racks move whole onto their other block, and
  every block must carry that worst case (``n = ceil(load / block) + 1`` blocks, more if the spread
  needs them); in N nothing may fail: each block carries its normal share, and busways and tap-offs
  half the rack.
- **UPS blocks** [the catalog's first ``[ups.ID]``], each followed by its own **switchboard** [the first
  ``[switchboard.ID]``]: in 2N the rows fill the blocks of each side in row order, each block up to the
  smaller of its and its switchboard's rating.
- **Violations** (kind ``feed``): a tap-off, busway, UPS block or switchboard whose load (as above) is over
  its rating, naming the worst and the count per hall and kind of part.
- **Stranded capacity** per hall: what the hall was given (its ``it_mw``, else what its UPS blocks carry
  with their redundancy) less the IT it carries; the part of it that its cooling cannot carry is
  stranded by cooling; the rest is stranded by space when some of the design's racks found no floor,
  else unused (every rack is placed: the cluster needs no more of the hall).

Ids: busways ``B1/H1/R03/A1`` (row, side, number), rack feeds the same, UPS blocks ``B1/H1/UPS-A1`` (2N)
or ``B1/H1/UPS-1``, switchboards ``B1/H1/SWB-A1`` beside their block.

Each hall's chain is made from that hall alone (:class:`HallChain`), then the halls' parts are put
together.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from layout.capacity import hall_cooling_mw
from layout.power.cooling import pack_in_order
from layout.violations import Violation

if TYPE_CHECKING:
    from layout.model import Catalog, Hall
    from layout.model.catalog import Margins
    from layout.place import Placement
    from layout.power.facility import FacilityInput

BUSWAY_LEAD_M = 2.0  # per run: drop from the switchboard's cable to the busway's end feed (unverified)
BUSWAY_COLUMNS = [
    "busway_id", "hall", "row", "side", "model", "rating_kw", "racks", "load_kw", "length_m", "ups_id",
]  # fmt: skip
UPS_COLUMNS = [
    "ups_id", "hall", "side", "model", "rating_mw", "normal_mw", "load_mw", "busways", "switchboard_id",
    "switchboard_model", "switchboard_rating_mw",
]  # fmt: skip
HALL_COLUMNS = [
    "hall", "redundancy", "it_mw", "cooling_mw", "ups_model", "ups_blocks", "busways", "chain_mw",
    "provisioned_mw", "stranded_mw", "stranded_cooling_mw", "stranded_space_mw", "unused_mw",
]  # fmt: skip
FEED_COLUMNS = ["rack_id", "feed_a", "feed_b", "tap_off", "tap_kw", "rack_pdu", "rack_pdus"]


def bought_m(length_m: npt.ArrayLike) -> np.ndarray:
    """Busway as bought: each run in whole metres, rounded up (a run of 18.4 m is bought as 19 m). The
    BOM, the drawings' notes and the XLSX Power sheet all count busway metres this way."""
    return np.ceil(np.asarray(length_m, dtype=float) - 1e-9)


SIDE_SHARE = {"2N": 1.0, "N+1": 1.0, "N": 0.5}  # of a rack's kW that one side must carry


@dataclass(frozen=True)
class PowerChain:
    """Rack feeds (aligned with the racks table), busways, UPS blocks, per-hall figures, violations."""

    feeds: pd.DataFrame
    busways: pd.DataFrame
    ups: pd.DataFrame
    halls: pd.DataFrame
    violations: tuple[Violation, ...] = field(default=())

    def by_hall(self) -> dict[str, dict[str, Any]]:
        out = {}
        for r in self.halls.to_dict("records"):
            out[str(r["hall"])] = {
                "redundancy": r["redundancy"],
                "ups_blocks": int(r["ups_blocks"]),
                "ups_model": r["ups_model"],
                "busways": int(r["busways"]),
                "chain_mw": round(float(r["chain_mw"]), 4),
                "stranded_mw": round(float(r["stranded_mw"]), 4),
            }
        return out


NO_OUTLET = 10**6  # the PDUs a side "needs" when no model has an outlet of one of its cords' form


def rack_pdus(
    cat: Catalog, m: Margins, need_kw: np.ndarray, side_cords: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Each rack side's PDUs for the load ``need_kw`` it carries and its PSU cords (``side_cords``: per
    rack, per form of layout/power/loads.py CORD_FORMS): the model needing the fewest units to carry the
    load within the tap-off margin (a PDU is a branch circuit like its tap-off: rating x limit x PF) and
    to give every cord an outlet of its form, the smaller model on a tie; ("", 0) without a
    ``[rack_pdu]`` in the catalog or a load."""
    from layout.power.loads import CORD_FORMS

    ids = sorted(cat.rack_pdu, key=lambda t: (cat.rack_pdu[t].rating_kw, t))
    n = len(need_kw)
    if not ids:
        return np.full(n, "", dtype=object), np.zeros(n, np.int64)
    caps = np.array([m.kw("tap_off", cat.rack_pdu[t].rating_kw) for t in ids])
    units = np.maximum(1, np.ceil(need_kw[:, None] / caps[None, :] - 1e-9)).astype(np.int64)
    if side_cords is not None and n:
        for k, form in enumerate(CORD_FORMS):
            outlets = np.array([cat.rack_pdu[t].outlets(form) for t in ids], float)
            cords = side_cords[:, k : k + 1].astype(float)
            per = np.where(
                outlets > 0,
                np.ceil(cords / np.maximum(outlets, 1.0) - 1e-9),
                np.where(cords > 0, NO_OUTLET, 0),
            )
            units = np.maximum(units, per.astype(np.int64))
    best = np.argmin(units, axis=1)  # the first (smallest) model of the fewest units
    count = np.where(need_kw > 0, units[np.arange(n), best], 0)
    return np.where(count > 0, np.array(ids, dtype=object)[best], ""), count


def pdu_violations(
    key: str, rack_ids: np.ndarray, pdu: np.ndarray, pdus: np.ndarray, positions: np.ndarray
) -> list[Violation]:
    """One ``feed`` violation for the racks of hall ``key`` whose side needs more PDUs than its template
    has room for (``positions``: per rack, pdu_positions_per_side), naming the worst."""
    over = pdus > positions
    if not over.any():
        return []
    k = int(np.flatnonzero(over)[np.argmax(pdus[over] - positions[over])])
    what = (
        f"{pdus[k]} x {pdu[k]}" if pdus[k] < NO_OUTLET else "an outlet of its cords' form (no model has one)"
    )
    return [
        Violation(
            "feed",
            str(rack_ids[k]),
            f"{int(over.sum())} rack(s) of {key} need more rack PDUs per side than fit; worst {rack_ids[k]} "
            f"needs {what} per side for its kW and PSU cords, its template has room for {positions[k]}",
            "add a rack PDU with more outlets of the cords' form or a higher rating to the catalog's "
            "[rack_pdu], raise the template's pdu_positions_per_side, or put fewer servers in the rack",
            {
                "racks": int(over.sum()),
                "pdus_per_side": int(pdus[k]),
                "positions": int(positions[k]),
            },
        )
    ]


def _smallest(ratings: np.ndarray, need: np.ndarray) -> np.ndarray:
    """Index (into ``ratings``, ascending) of the smallest rating >= need; the largest when none is."""
    i = np.searchsorted(ratings, need - 1e-9, side="left")
    return np.minimum(i, len(ratings) - 1)


def _distributed(loads: np.ndarray, cap_kw: float, redundancy: str) -> tuple[int, np.ndarray, np.ndarray]:
    """Blocks and each row's (A block, B block) for N+1 / N (see the module docstring); returns the
    block count and the pair of every row. Rows go heaviest first, each onto the pair of blocks whose
    design loads (the normal share, and in N+1 the worst single failure of another block) stay lowest,
    so no block gathers the rows of many pairs; more blocks are taken until every one fits ``cap_kw``."""
    total = float(loads.sum())
    n0 = max(2, math.ceil(total / cap_kw - 1e-9) + (1 if redundancy == "N+1" else 0))
    order = np.lexsort((np.arange(len(loads)), -loads))
    failover = redundancy == "N+1"
    for n in range(n0, n0 + 24):
        ia, ib = np.triu_indices(n, 1)
        normal = np.zeros(n)
        moved = np.zeros((n, n))  # moved[f, j]: load that moves onto j when f fails
        pa = np.zeros(len(loads), np.int64)
        pb = np.zeros(len(loads), np.int64)
        for r in order.tolist():
            half = float(loads[r]) / 2
            worst = moved.max(0)
            if failover:
                da = normal[ia] + half + np.maximum(worst[ia], moved[ib, ia] + half)
                db = normal[ib] + half + np.maximum(worst[ib], moved[ia, ib] + half)
            else:
                da, db = normal[ia] + half, normal[ib] + half
            k = int(np.argmin(np.maximum(da, db) * (1 + 1e-12) + (da + db) * 1e-9))
            a, b = int(ia[k]), int(ib[k])
            pa[r], pb[r] = a, b
            normal[a] += half
            normal[b] += half
            moved[a, b] += half
            moved[b, a] += half
        if _block_loads(loads, pa, pb, n, redundancy).max() <= cap_kw + 1e-6:
            break
    return n, pa, pb


def _block_loads(loads: np.ndarray, pa: np.ndarray, pb: np.ndarray, n: int, redundancy: str) -> np.ndarray:
    """Each block's design load (kW): its normal share (half of each row on it), and in N+1 the worst
    single failure of another block (that block's rows move whole onto their other block)."""
    normal = np.bincount(pa, loads / 2, n) + np.bincount(pb, loads / 2, n)
    if redundancy != "N+1":
        return normal
    # moved[f, j]: load moved onto j when f fails = half of the rows on pair (f, j)
    moved = np.zeros((n, n))
    np.add.at(moved, (pa, pb), loads / 2)
    np.add.at(moved, (pb, pa), loads / 2)
    return normal + moved.max(0)


def _over(kind: str, ids: np.ndarray, load: np.ndarray, rating: np.ndarray, hall: str, unit: str,
          what: str, margins: Margins, part: str) -> list[Violation]:  # fmt: skip
    """One ``feed`` violation for the elements whose load is over what their rating x their margin
    allows (``part``: the Margins field: tap_off, busway, switchboard, ups), naming the worst."""
    limit = np.array([margins.kw(part, r) for r in np.asarray(rating, float)]) if len(rating) else rating
    over = load > limit + 1e-6
    if not over.any():
        return []
    k = int(np.flatnonzero(over)[np.argmax((load / limit)[over])])
    return [
        Violation(
            "feed",
            str(ids[k]),
            f"{int(over.sum())} {kind}(s) of {hall} over their limit; worst {ids[k]} carries "
            f"{load[k]:.1f} {unit} ({what}) of its {rating[k]:g} {unit} rating{margins.text(part)} = "
            f"{limit[k]:.1f} {unit}",
            "pick a larger part in the hall's [power] table, split the row, or spread the load",
            {
                "parts": int(over.sum()),
                "load": round(float(load[k]), 3),
                "rating": float(rating[k]),
                "limit": round(float(limit[k]), 3),
                "unit": unit,
            },
        )
    ]


@dataclass(frozen=True)
class HallChain:
    """One hall's part of the power chain: its racks' feeds (in the order of its racks in the racks
    table), its busway rows (sorted as the busway table is: row, side, id), UPS rows, hall row and
    violations."""

    feed_a: np.ndarray
    feed_b: np.ndarray
    tap: np.ndarray
    tap_kw: np.ndarray
    pdu: np.ndarray  # each rack's PDU model (per side), "" without one
    pdus: np.ndarray  # how many of it per side
    busways: tuple[np.ndarray, ...]  # BUSWAY_COLUMNS
    ups_rows: tuple[dict[str, Any], ...]
    hall_row: dict[str, Any]
    violations: tuple[Violation, ...]


def build(
    inp: FacilityInput,
    placement: Placement,
    rack_kw: np.ndarray,
    side_cords: np.ndarray | None = None,
) -> PowerChain:
    """The power chain of every hall with racks (see the module docstring). ``side_cords``: per rack, the
    PSU cords on one side per form (layout/power/loads.py), which the rack PDUs give outlets to."""
    cat = inp.catalog
    racks = placement.racks
    if not (cat.busway and cat.tap_off and cat.ups and cat.switchboard):
        feeds = pd.DataFrame(
            {
                "rack_id": racks["rack_id"],
                "feed_a": "",
                "feed_b": "",
                "tap_off": "",
                "tap_kw": 0.0,
                "rack_pdu": "",
                "rack_pdus": 0,
            },
            columns=FEED_COLUMNS,
        )
        return PowerChain(
            feeds, pd.DataFrame(columns=BUSWAY_COLUMNS), pd.DataFrame(columns=UPS_COLUMNS),
            pd.DataFrame(columns=HALL_COLUMNS),
        )  # fmt: skip
    rack_kw = np.asarray(rack_kw, float)
    hall_code, hall_names = pd.factorize(racks["hall"])
    by_hall = np.argsort(hall_code, kind="stable")
    bounds = np.r_[0, np.cumsum(np.bincount(hall_code, minlength=len(hall_names)))]
    at = {str(k): by_hall[bounds[i] : bounds[i + 1]] for i, k in enumerate(hall_names)}
    rack_ids = racks["rack_id"].to_numpy(object)
    row_col = racks["row"].to_numpy(object)
    pos = racks["pos"].to_numpy()
    width = racks["width_m"].to_numpy(float)
    tpl_code, tpls = pd.factorize(racks["template"])
    room = np.array([inp.template_pdu_positions.get(str(t), 2) for t in tpls], np.int64)
    positions = room[tpl_code] if len(racks) else np.zeros(0, np.int64)
    pieces: list[tuple[str, np.ndarray, HallChain]] = []
    for b, h in inp.halls:
        key = f"{b.id}/{h.id}"
        idx = at.get(key)
        if idx is None:
            continue
        hall_racks = (rack_ids[idx], row_col[idx], pos[idx], width[idx], rack_kw[idx])
        cords = None if side_cords is None else side_cords[idx]
        chain = _hall_chain(
            cat, inp.margins, key, h, hall_racks, placement.racks_missing == 0, cords, positions[idx]
        )
        pieces.append((key, idx, chain))
    return _chain(racks, pieces)


def _chain(racks: pd.DataFrame, pieces: list[tuple[str, np.ndarray, HallChain]]) -> PowerChain:
    """The chain's tables from its halls' parts (each with its racks' indices in the racks table)."""
    nr = len(racks)
    feed_a = np.full(nr, "", dtype=object)
    feed_b = np.full(nr, "", dtype=object)
    tap = np.full(nr, "", dtype=object)
    tap_kw = np.zeros(nr)
    pdu = np.full(nr, "", dtype=object)
    pdus = np.zeros(nr, np.int64)
    for _, idx, p in pieces:
        feed_a[idx], feed_b[idx], tap[idx], tap_kw[idx] = p.feed_a, p.feed_b, p.tap, p.tap_kw
        pdu[idx], pdus[idx] = p.pdu, p.pdus
    feeds = pd.DataFrame(
        {"rack_id": racks["rack_id"], "feed_a": feed_a, "feed_b": feed_b, "tap_off": tap, "tap_kw": tap_kw,
         "rack_pdu": pdu, "rack_pdus": pdus},
        columns=FEED_COLUMNS,
    )  # fmt: skip
    if pieces:
        # the busway table sorted by hall, row, side and id: each hall's rows come sorted, halls by key
        ordered = [p for _, _, p in sorted(pieces, key=lambda kp: kp[0])]
        cols = [np.concatenate([p.busways[j] for p in ordered]) for j in range(len(BUSWAY_COLUMNS))]
        bw = pd.DataFrame(dict(zip(BUSWAY_COLUMNS, cols, strict=True)), columns=BUSWAY_COLUMNS)
    else:
        bw = pd.DataFrame(columns=BUSWAY_COLUMNS)
    ups_rows = [r for _, _, p in pieces for r in p.ups_rows]
    return PowerChain(
        feeds, bw, pd.DataFrame(ups_rows, columns=UPS_COLUMNS),
        pd.DataFrame([p.hall_row for _, _, p in pieces], columns=HALL_COLUMNS),
        tuple(v for _, _, p in pieces for v in p.violations),
    )  # fmt: skip


def _hall_chain(
    cat: Catalog,
    m: Margins,
    key: str,
    h: Hall,
    racks: tuple[np.ndarray, ...],
    all_placed: bool,
    side_cords: np.ndarray | None = None,
    positions: np.ndarray | None = None,
) -> HallChain:
    """One hall's chain (see the module docstring) from its racks' ids, rows, places, widths and kW. Every
    element is sized to carry its load within its margin (``m``: rating x continuous-load limit, x the
    IT power factor on current-rated parts). ``all_placed``: the placer found room for every rack of the
    design, so what the hall was given beyond its IT and its cooling is unused, not stranded by space."""
    rack_ids, row_col, pos, width, kw = racks
    cool = hall_cooling_mw(h, cat)
    tap_ids = np.array(sorted(cat.tap_off, key=lambda t: (cat.tap_off[t].rating_kw, t)))
    tap_ratings = np.array([cat.tap_off[t].rating_kw for t in tap_ids])
    tap_caps = np.array([m.kw("tap_off", r) for r in tap_ratings])
    bw_ids = np.array(sorted(cat.busway, key=lambda t: (cat.busway[t].rating_kw, t)))
    bw_ratings = np.array([cat.busway[t].rating_kw for t in bw_ids])
    bw_caps = np.array([m.kw("busway", r) for r in bw_ratings])
    busways: list[tuple[np.ndarray, ...]] = []
    ups_rows: list[dict[str, Any]] = []
    v: list[Violation] = []
    red = h.power.redundancy
    share = SIDE_SHARE[red]
    # tap-offs: per rack and side, the smallest that carries its share
    need = kw * share
    ti = _smallest(tap_caps, need)
    tap = tap_ids[ti].astype(object)
    tap_kw = tap_ratings[ti]
    v += _over(
        "tap-off", rack_ids + "/A", need, tap_ratings[ti], key, "kW", "each side of the rack", m, "tap_off"
    )
    pdu, pdus = rack_pdus(cat, m, need, side_cords)
    if positions is not None:
        v += pdu_violations(key, rack_ids, pdu, pdus, positions)
    # busways: per row and side
    rows, inv = np.unique(row_col, return_inverse=True)
    row_kw = np.bincount(inv, kw, len(rows))
    row_need = row_kw * share
    if h.power.busway is not None:
        fixed = cat.busway[h.power.busway]
        r_ids = np.full(len(rows), h.power.busway, dtype=object)
        r_rating = np.full(len(rows), fixed.rating_kw)
        per_row = np.ones(len(rows), np.int64)
    else:
        bi = _smallest(bw_caps, row_need)
        r_ids, r_rating = bw_ids[bi], bw_ratings[bi]
        per_row = np.maximum(1, np.ceil(row_need / bw_caps[bi] - 1e-9)).astype(np.int64)
    # a rack's busway in its row: by the middle of its kW along the row's cumulative kW
    order = np.lexsort((pos, inv))
    cum = np.zeros(len(kw))
    sorted_kw = kw[order]
    csum = np.cumsum(sorted_kw)
    start = np.r_[0.0, csum[:-1]]
    first = np.r_[0, np.flatnonzero(np.diff(inv[order])) + 1]
    base = np.repeat(start[first], np.diff(np.r_[first, len(order)]))
    cum[order] = start - base + sorted_kw / 2
    k_row = per_row[inv]
    part = np.where(row_kw[inv] > 0, cum / np.where(row_kw[inv] > 0, row_kw[inv], 1.0), 0.0)
    bk = np.minimum((part * k_row).astype(np.int64), k_row - 1)  # 0-based busway in the row
    bw_no = np.r_[0, np.cumsum(per_row)[:-1]][inv] + bk  # hall-wide busway number
    n_bw = int(per_row.sum())
    bw_row = np.repeat(np.arange(len(rows)), per_row)
    bw_in_row = np.arange(n_bw) - np.r_[0, np.cumsum(per_row)[:-1]][bw_row]
    bw_load = np.bincount(bw_no, kw, n_bw) * share
    bw_len = np.bincount(bw_no, width, n_bw) + BUSWAY_LEAD_M
    bw_racks = np.bincount(bw_no, minlength=n_bw)
    bw_rating = r_rating[bw_row]
    bw_model = r_ids[bw_row]
    # UPS blocks: rows onto blocks
    ups_id = h.power.ups or next(iter(cat.ups))
    swb_id = h.power.switchboard or next(iter(cat.switchboard))
    ups, swb = cat.ups[ups_id], cat.switchboard[swb_id]
    cap_kw = min(m.kw("ups", ups.rating_mw * 1000.0), m.kw("switchboard", swb.rating_mw * 1000.0))
    if red == "2N":
        bins = pack_in_order(row_kw.tolist(), cap_kw, split=False)
        blk = np.zeros(len(rows), np.int64)
        for k_, members in enumerate(bins):
            blk[members] = k_
        n_side = len(bins)
        names_a = np.array([f"{key}/UPS-A{k_ + 1}" for k_ in range(n_side)], dtype=object)
        names_b = np.array([f"{key}/UPS-B{k_ + 1}" for k_ in range(n_side)], dtype=object)
        row_a, row_b = names_a[blk], names_b[blk]
        side_load = np.bincount(blk, row_kw, n_side)
        blocks: list[tuple[np.ndarray, str, np.ndarray, np.ndarray]] = [
            (names_a, "A", side_load / 2, side_load),
            (names_b, "B", side_load / 2, side_load),
        ]
        n_blocks, chain_kw = 2 * n_side, n_side * ups.rating_mw * 1000.0
    else:
        n, pa, pb = _distributed(row_kw, cap_kw, red)
        names = np.array([f"{key}/UPS-{k_ + 1}" for k_ in range(n)], dtype=object)
        row_a, row_b = names[pa], names[pb]
        normal = np.bincount(pa, row_kw / 2, n) + np.bincount(pb, row_kw / 2, n)
        blocks = [(names, "-", normal, _block_loads(row_kw, pa, pb, n, red))]
        n_blocks = n
        chain_kw = (n - 1 if red == "N+1" else n) * ups.rating_mw * 1000.0
    sides = []
    for side, row_ups in (("A", row_a), ("B", row_b)):
        ids = np.array(
            [f"{rows[r]}/{side}{bw_in_row[q] + 1}" for q, r in enumerate(bw_row.tolist())], dtype=object
        )
        sides.append(ids)
        busways.append(
            (ids, np.full(n_bw, key, dtype=object), rows[bw_row], np.full(n_bw, side, dtype=object), bw_model,
             bw_rating, bw_racks, np.round(bw_load, 3), np.round(bw_len, 3), row_ups[bw_row])
        )  # fmt: skip
    v += _over("busway", sides[0], bw_load, bw_rating, key, "kW", "each side alone" if share == 1 else "half", m,
               "busway")  # fmt: skip
    count = Counter(np.r_[row_a[bw_row], row_b[bw_row]].tolist())
    for names, side, normal_kw, load_kw in blocks:
        swb_names = np.array([n_.replace("/UPS-", "/SWB-") for n_ in names], dtype=object)
        for k_, name in enumerate(names.tolist()):
            ups_rows.append(
                {"ups_id": name, "hall": key, "side": side, "model": ups_id, "rating_mw": ups.rating_mw,
                 "normal_mw": round(float(normal_kw[k_]) / 1000.0, 4),
                 "load_mw": round(float(load_kw[k_]) / 1000.0, 4), "busways": int(count.get(name, 0)),
                 "switchboard_id": swb_names[k_], "switchboard_model": swb_id,
                 "switchboard_rating_mw": swb.rating_mw}
            )  # fmt: skip
        what = "on the worst single failure" if red == "N+1" else ("alone" if red == "2N" else "normally")
        v += _over("UPS block", names, load_kw / 1000.0, np.full(len(names), ups.rating_mw), key, "MW", what, m,
                   "ups")  # fmt: skip
        v += _over("switchboard", swb_names, load_kw / 1000.0, np.full(len(names), swb.rating_mw), key, "MW",
                   what, m, "switchboard")  # fmt: skip
    it_mw = float(kw.sum()) / 1000.0
    chain_mw = chain_kw / 1000.0
    prov = h.it_mw if h.it_mw is not None else chain_mw
    stranded = max(0.0, prov - it_mw)
    by_cooling = max(0.0, prov - max(cool, it_mw)) if cool is not None else 0.0
    hall_row = {
        "hall": key, "redundancy": red, "it_mw": round(it_mw, 4),
        "cooling_mw": round(cool, 4) if cool is not None else math.nan, "ups_model": ups_id,
        "ups_blocks": n_blocks, "busways": 2 * n_bw, "chain_mw": round(chain_mw, 4),
        "provisioned_mw": round(prov, 4), "stranded_mw": round(stranded, 4),
        "stranded_cooling_mw": round(by_cooling, 4),
        "stranded_space_mw": 0.0 if all_placed else round(stranded - by_cooling, 4),
        "unused_mw": round(stranded - by_cooling, 4) if all_placed else 0.0,
    }  # fmt: skip
    # this hall's busway rows as the table sorts them: by row, side and id
    cols = [np.concatenate([bw[j] for bw in busways]) for j in range(len(BUSWAY_COLUMNS))]
    rank = sorted(range(len(cols[0])), key=lambda q: (cols[2][q], cols[3][q], cols[0][q]))
    return HallChain(
        feed_a=sides[0][bw_no],
        feed_b=sides[1][bw_no],
        tap=tap,
        tap_kw=tap_kw,
        pdu=pdu,
        pdus=pdus,
        busways=tuple(c[rank] for c in cols),
        ups_rows=tuple(ups_rows),
        hall_row=hall_row,
        violations=tuple(v),
    )


def part_counts(catalog: Catalog, chain: PowerChain) -> list[tuple[str, str, str, int, str, float]]:
    """BOM rows of category ``power``: busway runs and metres per model, tap-off boxes (two per rack, one
    per side) per model, UPS blocks and switchboards per model; in catalog order within each kind."""
    out: list[tuple[str, str, str, int, str, float]] = []
    bw = chain.busways
    if len(bw):
        code, models = pd.factorize(bw["model"])
        names = [str(m) for m in models]
        runs = dict(zip(names, np.bincount(code, minlength=len(names)).tolist(), strict=True))
        metres = dict(
            zip(
                names, np.bincount(code, bought_m(bw["length_m"]), minlength=len(names)).tolist(), strict=True
            )
        )
        for m in catalog.busway:
            if m in runs:
                spec = catalog.busway[m]
                out.append(
                    ("power", f"{spec.name}, run (end feed unit)", m, int(runs[m]), "each", spec.price_usd)
                )
                out.append(("power", spec.name, f"{m}/m", round(metres[m]), "m", spec.price_usd_per_m))
    code, kinds = pd.factorize(chain.feeds["tap_off"])
    taps = {
        str(t): n
        for t, n in zip(kinds, np.bincount(code[code >= 0], minlength=len(kinds)).tolist(), strict=True)
    }
    for t in catalog.tap_off:
        if taps.get(t, 0) > 0:
            out.append(
                ("power", catalog.tap_off[t].name, t, 2 * int(taps[t]), "each", catalog.tap_off[t].price_usd)
            )
    f = chain.feeds
    if len(f) and "rack_pdus" in f:
        per = f.groupby("rack_pdu", sort=False)["rack_pdus"].sum()
        for t, pdu in catalog.rack_pdu.items():
            if int(per.get(t, 0)) > 0:  # both sides of every rack
                out.append(("power", f"{pdu.name}, A and B side", t, 2 * int(per[t]), "each", pdu.price_usd))
    ups = chain.ups
    if len(ups):
        for col, parts in (("model", catalog.ups), ("switchboard_model", catalog.switchboard)):
            counts = Counter(str(m) for m in ups[col].tolist())
            for m in parts:
                if m in counts:
                    out.append(("power", parts[m].name, m, int(counts[m]), "each", parts[m].price_usd))
    return out
