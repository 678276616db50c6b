"""The electrical schedule: every UPS block, switchboard, busway and tap-off box of the power chain
(layout/power/chain.py) in one table, as an electrical contractor reads it (pure: numpy/pandas).

Per element: its rating and its design load in kW (what it must carry under its hall's redundancy: in
2N each side alone carries every rack; in N+1 a block carries its racks whole after any one block
fails; in N each side half), the continuous-load limit it is held to (the catalog's ``[margins]`` with
the site's overrides), its load as a share of its rating and of what it may carry (``Margins.kw``: rating
x limit, x the power factor where the rating is a current: the very figure the chain checks), the
current that load draws at ``VOLTAGE_V`` three-phase and the power factor, the protective device that
carries it within the limit (the smallest ``BREAKER_FRAMES_A`` frame of at least current / limit; ""
above the series) and what feeds it. UPS blocks also give their normal load (no failure).

Kept apart from the exporters so the XLSX Power sheet (and any other output) prints these numbers
from here.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from layout.power.chain import SIDE_SHARE

if TYPE_CHECKING:
    from layout.model import Catalog
    from layout.model.catalog import Margins
    from layout.power.chain import PowerChain

VOLTAGE_V = 415.0  # line-to-line, three-phase: the catalog's kW ratings are sqrt(3) x 415 V x I
# IEC 60947-2 / 60898 breaker frame ratings (A), the common series
BREAKER_FRAMES_A = (
    16, 20, 25, 32, 40, 50, 63, 80, 100, 125, 160, 200, 250, 320, 400, 500, 630, 800, 1000, 1250, 1600,
    2000, 2500, 3200, 4000, 5000, 6300,
)  # fmt: skip
SCHEDULE_COLUMNS = [
    "part", "part_id", "hall", "row", "side", "model", "rating_kw", "load_kw", "normal_kw", "limit", "use",
    "use_of_limit", "current_a", "breaker_a", "racks", "length_m", "fed_from",
]  # fmt: skip
KINDS = ("UPS block", "switchboard", "busway", "tap-off")  # their order within a hall
MARGIN_OF = {"UPS block": "ups", "switchboard": "switchboard", "busway": "busway", "tap-off": "tap_off"}


def amps(kw: np.ndarray, power_factor: float) -> np.ndarray:
    """Line current (A) of a three-phase load of ``kw`` at ``VOLTAGE_V`` and ``power_factor``."""
    return np.asarray(kw, float) * 1000.0 / (math.sqrt(3.0) * VOLTAGE_V * power_factor)


def breaker_a(current_a: np.ndarray, limit: np.ndarray) -> np.ndarray:
    """The smallest frame that carries ``current_a`` continuously within ``limit`` of it, as text (""
    when no frame of the series does)."""
    frames = np.asarray(BREAKER_FRAMES_A, float)
    need = np.asarray(current_a, float) / np.asarray(limit, float)
    i = np.searchsorted(frames, need - 1e-6, side="left")
    return np.where(i < len(frames), frames[np.minimum(i, len(frames) - 1)].astype(np.int64).astype(str), "")


def schedule(chain: PowerChain, rack_kw: np.ndarray, catalog: Catalog, margins: Margins) -> pd.DataFrame:
    """The schedule (``SCHEDULE_COLUMNS``): per hall, its UPS blocks, switchboards, busways by row, then
    each rack's two tap-off boxes (A and B, in rack order)."""
    ups, bw, feeds = chain.ups, chain.busways, chain.feeds
    n_u = len(ups)
    blank = np.full(n_u, "", dtype=object)
    zeros = np.zeros(n_u)
    red = dict(zip(chain.halls["hall"], chain.halls["redundancy"], strict=True)) if len(chain.halls) else {}
    parts = [
        pd.DataFrame(
            {"part": "UPS block", "part_id": ups["ups_id"], "hall": ups["hall"], "row": blank,
             "side": ups["side"], "model": ups["model"], "rating_kw": ups["rating_mw"].to_numpy(float) * 1e3,
             "load_kw": ups["load_mw"].to_numpy(float) * 1e3,
             "normal_kw": ups["normal_mw"].to_numpy(float) * 1e3, "racks": np.zeros(n_u, np.int64),
             "length_m": zeros, "fed_from": blank, "k": 0}
        ),
        pd.DataFrame(
            {"part": "switchboard", "part_id": ups["switchboard_id"], "hall": ups["hall"], "row": blank,
             "side": ups["side"], "model": ups["switchboard_model"],
             "rating_kw": ups["switchboard_rating_mw"].to_numpy(float) * 1e3,
             "load_kw": ups["load_mw"].to_numpy(float) * 1e3,
             "normal_kw": ups["normal_mw"].to_numpy(float) * 1e3, "racks": np.zeros(n_u, np.int64),
             "length_m": zeros, "fed_from": ups["ups_id"], "k": 1}
        ),
        pd.DataFrame(
            {"part": "busway", "part_id": bw["busway_id"], "hall": bw["hall"], "row": bw["row"],
             "side": bw["side"], "model": bw["model"], "rating_kw": bw["rating_kw"].to_numpy(float),
             "load_kw": bw["load_kw"].to_numpy(float), "normal_kw": np.nan,
             "racks": bw["racks"].to_numpy(np.int64), "length_m": bw["length_m"].to_numpy(float),
             "fed_from": bw["ups_id"].str.replace("/UPS-", "/SWB-", regex=False), "k": 2}
        ),
    ]  # fmt: skip
    placed = (feeds["feed_a"] != "").to_numpy() if len(feeds) else np.zeros(0, bool)
    if placed.any():
        f = feeds[placed]
        hall = f["rack_id"].str.rsplit("/", n=2).str[0].to_numpy()
        share = np.array([SIDE_SHARE[red[h]] for h in hall], float)
        load = np.asarray(rack_kw, float)[placed] * share
        rating = np.array([catalog.tap_off[t].rating_kw for t in f["tap_off"]], float)
        for side, col in (("A", "feed_a"), ("B", "feed_b")):
            parts.append(
                pd.DataFrame(
                    {"part": "tap-off", "part_id": f["rack_id"] + f"/TAP-{side}", "hall": hall,
                     "row": f["rack_id"].str.rsplit("/", n=1).str[0].to_numpy(), "side": side,
                     "model": f["tap_off"], "rating_kw": rating, "load_kw": load, "normal_kw": np.nan,
                     "racks": 1, "length_m": 0.0, "fed_from": f[col], "k": 3}
                )
            )  # fmt: skip
    parts = [p for p in parts if len(p)]
    if not parts:
        return pd.DataFrame(columns=SCHEDULE_COLUMNS)
    out = pd.concat(parts, ignore_index=True)
    out = out.sort_values(["hall", "k"], kind="stable").reset_index(drop=True)
    kinds = [MARGIN_OF[p] for p in out["part"]]
    limit = np.array([getattr(margins, k) for k in kinds], float)
    rating = out["rating_kw"].to_numpy(float)
    may = np.array([margins.kw(k, r) for k, r in zip(kinds, rating.tolist(), strict=True)], float)
    load = out["load_kw"].to_numpy(float)
    current = amps(load, margins.power_factor)
    out["limit"] = limit
    out["use"] = np.where(rating > 0, load / np.where(rating > 0, rating, 1.0), 0.0).round(4)
    out["use_of_limit"] = np.where(may > 0, load / np.where(may > 0, may, 1.0), 0.0).round(4)
    out["current_a"] = current.round(1)
    out["breaker_a"] = breaker_a(current, limit)
    out["rating_kw"] = out["rating_kw"].round(3)
    out["load_kw"] = out["load_kw"].round(3)
    out["normal_kw"] = out["normal_kw"].round(3)
    out["racks"] = out["racks"].astype(np.int64)
    return out[SCHEDULE_COLUMNS]
