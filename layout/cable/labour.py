"""Installation effort: technician-hours to build the cabling, per hall, from the catalog's ``[labour]``
minutes (indicative, unverified; the assumptions are listed by :func:`assumptions`).

Tasks and their counts (every cable with a medium; a link's hall is its a end's rack's):

- a point-to-point cable: ``pull_min_per_m`` x its tray run (0 for a jumper), ``dress_min``, two ends
  plugged (``patch_min`` each), two labels (``label_min``), and an optical one a channel test
  (``test_min``);
- a plant link (layout/cable/plant.py): two patch cords, each dressed with two ends plugged and two
  labels, and its channel test;
- a trunk (in its a panel's hall): ``trunk_min`` + ``trunk_min_per_m`` x its length, two labels;
- a 1U panel ``panel_min``, a cassette ``cassette_min`` (in their rack's hall).

Days: the hours over ``crew`` technicians working ``shift_h`` a day.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from layout.cable.stage import Cabling
    from layout.model import Catalog


def assumptions(catalog: Catalog) -> dict[str, float]:
    """The labour model's figures, by name (minutes; crew in technicians, shift in hours)."""
    return {k: float(v) for k, v in catalog.labour.model_dump().items()}


def hours_by_hall(catalog: Catalog, cabling: Cabling, racks: pd.DataFrame) -> pd.DataFrame:
    """Technician-hours per hall (``hall``, ``cables``, ``trunks``, ``hours``), halls sorted."""
    lab = catalog.labour
    links = cabling.links
    n_racks = len(racks)
    if not n_racks or not len(links):
        return pd.DataFrame({"hall": [], "cables": [], "trunks": [], "hours": []})
    hall_code, halls = pd.factorize(racks["hall"], sort=True)
    nh = len(halls)
    has = (links["media"].astype(str) != "").to_numpy()
    ra = links["rack_a"].to_numpy(np.int64)
    has = has & (ra >= 0)
    hall = hall_code[np.where(has, ra, 0)]
    optical = links["media_class"].isin(["mmf", "smf", "coherent"]).to_numpy() & has
    plant = cabling.plant
    through = np.zeros(len(links), bool)
    ch = plant.channels
    if len(ch):
        through[ch.loc[ch["structured"].to_numpy(), "link"].to_numpy(np.int64)] = True
    direct = has & ~through
    run = np.nan_to_num(links["tray_m"].to_numpy(float))
    minutes = np.zeros(len(links))
    minutes[direct] = run[direct] * lab.pull_min_per_m + lab.dress_min + 2 * lab.patch_min + 2 * lab.label_min
    # two cords: each dressed, two plugs and two labels
    minutes[through] = 2 * (lab.dress_min + 2 * lab.patch_min + 2 * lab.label_min)
    minutes[optical] += lab.test_min
    per_hall = np.bincount(hall[has], weights=minutes[has], minlength=nh)
    cables = np.bincount(hall[has], weights=np.where(through, 2, 1)[has], minlength=nh)
    trunks = np.zeros(nh)
    t = plant.trunks
    if len(t):
        th = hall_code[t["panel_a"].to_numpy(np.int64)]
        tmin = lab.trunk_min + lab.trunk_min_per_m * t["length_m"].to_numpy(float) + 2 * lab.label_min
        per_hall += np.bincount(th, weights=tmin, minlength=nh)
        trunks = np.bincount(th, minlength=nh).astype(float)
    p = plant.panels
    if len(p):
        ph = hall_code[p["rack"].to_numpy(np.int64)]
        pmin = lab.panel_min * p["panels"].to_numpy(float) + lab.cassette_min * p["cassettes"].to_numpy(float)
        per_hall += np.bincount(ph, weights=pmin, minlength=nh)
    return pd.DataFrame(
        {
            "hall": np.asarray(halls, dtype=object),
            "cables": cables.astype(np.int64),
            "trunks": trunks.astype(np.int64),
            "hours": np.round(per_hall / 60.0, 1),
        }
    )


def summary(catalog: Catalog, cabling: Cabling, racks: pd.DataFrame) -> dict[str, Any]:
    """``install``: technician-hours per hall and in all, days for the crew, and the assumptions."""
    by = hours_by_hall(catalog, cabling, racks)
    total = round(float(by["hours"].sum()), 1)
    lab = catalog.labour
    return {
        "hours": total,
        "days": round(total / (lab.crew * lab.shift_h), 1),
        "by_hall": {str(h): float(v) for h, v in zip(by["hall"], by["hours"], strict=True)},
        "assumptions": assumptions(catalog),
    }
